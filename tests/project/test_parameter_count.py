"""How many parameters a network holds (MSP103's small-network bound): a grouped convolution holds in x out x
kernel / groups weights (a depthwise convolution one kernel per channel)."""

from __future__ import annotations

import pytest

from ms_perflint.project.training import Training, network_parameters
from ms_perflint.project.values import Values
from tests.project.test_values_provenance import project

CODE = """
import mindspore.nn as nn

class Net(nn.Cell):
    def __init__(self, channels=256):
        super().__init__()
        self.depthwise = nn.Conv2d(channels, channels, 3, {group})
        self.head = nn.Dense(channels, 10)

    def construct(self, x):
        return self.head(self.depthwise(x))

net = Net()
"""


@pytest.mark.parametrize("group, expected", [
    ("group=channels", 256 * 256 * 9 // 256 + 256 * 10),  # depthwise: one 3x3 kernel per channel
    ("group=4", 256 * 256 * 9 // 4 + 256 * 10),
    ("1, 'same', 0, 1, 8", 256 * 256 * 9 // 8 + 256 * 10),  # by position: stride, pad_mode, padding, dilation, group
    ("has_bias=False", 256 * 256 * 9 + 256 * 10),  # no group: one
])
def test_a_grouped_convolution_holds_its_weights_divided_by_its_groups(group: str, expected: int):
    proj = project({"train.py": CODE.format(group=group)})
    net = proj.python["train.py"].constants["net"]
    values = Values(proj)
    assert network_parameters(proj, values, Training.shared(proj), "train.py", net, 0) == expected


@pytest.mark.parametrize("call, expected", [
    ("mint.nn.Conv2d(256, 256, 3, 1, 1, 1, 1, False)", 256 * 256 * 9),  # mint's eighth is bias, not a group count
    ("mint.nn.Conv2d(256, 256, 3, groups=4)", 256 * 256 * 9 // 4),
])
def test_mint_convolutions_are_read_by_their_groups_keyword(call: str, expected: int):
    # the analysis records mint's convolutions under nn's names, so only mint's keyword is told apart
    code = "from mindspore import mint, nn\n" + CODE.replace("nn.Conv2d(channels, channels, 3, {group})", call)
    proj = project({"train.py": code.replace("import mindspore.nn as nn\n", "")})
    net = proj.python["train.py"].constants["net"]
    found = network_parameters(proj, Values(proj), Training.shared(proj), "train.py", net, 0)
    assert found == expected + 256 * 10


def test_groups_that_are_not_known_leave_the_size_unknown():
    proj = project({"train.py": CODE.format(group="group=groups_from_somewhere()")})
    net = proj.python["train.py"].constants["net"]
    values = Values(proj)
    assert network_parameters(proj, values, Training.shared(proj), "train.py", net, 0) is None


SINE = """
import mindspore.nn as nn

class Sine(nn.Cell):
    def __init__(self, cin, cout, is_first=False):
        super().__init__()
        if is_first:
            self.linear = nn.Dense(cin, cout)
        else:
            self.linear = nn.Dense(cin, cout, has_bias=False)

class Siren(nn.Cell):
    def __init__(self, features):
        super().__init__()
        layers = [Sine(features[0], features[1], is_first=True)]
        for i in range(1, len(features) - 1):
            layers.append(Sine(features[i], features[i + 1]))
        self.net = nn.SequentialCell(layers)

net = Siren([3, 256, 256, 256, 1])
"""


def test_a_layer_built_in_either_arm_of_an_if_counts_once_and_len_bounds_a_loop():
    # layers: 3x256, then 3 loop iterations read at their largest (256x256) -- each built in one arm, not two
    proj = project({"train.py": SINE})
    net = proj.python["train.py"].constants["net"]
    assert network_parameters(proj, Values(proj), Training.shared(proj), "train.py", net, 0) == 3 * 256 + 3 * 256 * 256
