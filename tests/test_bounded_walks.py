"""Every walk of the project model ends: code that refers to itself never makes a rule fail.

Issue 23: ``self.res1 = self.res1.to_float(...)`` sent MSP101's cast search back to the same
assignment forever (a RecursionError, once per file of a 9,000-file zoo, and no MSP101 finding
anywhere). Each shape here refers to itself or to another that refers back: an attribute
assigned from itself, a class inheriting from itself through an alias, functions calling each
other with their parameters, a constant defined from itself, a config key read from itself.
Every rule runs over each; none may fail, and the decisions that can be made are checked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import pytest

from ms_perflint.rules import ALL_RULES
from ms_perflint.run.lint import check_folder
from ms_perflint.settings import Settings
from tests.conftest import codes_at, write_project

EVERY_RULE = Settings(extend_select=("MSP001",))

HEADER = """
import mindspore as ms
from mindspore import nn, Model
from mindspore.common import dtype as mstype
"""

TRAIN = """
if __name__ == "__main__":
    ms.set_context(device_target="Ascend")
    net = {network}
    loss = nn.SoftmaxCrossEntropyWithLogits()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    model = Model(net, loss, opt)
    model.train(10, None)
"""

BLOCK = """
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4096, 4096)
        self.fc2 = nn.Dense(4096, 4096)

    def construct(self, x):
        return self.fc2(self.fc1(x))
"""

#: The issue's shape: an attribute cast in place, on one platform only.
CAST_IN_PLACE = HEADER + BLOCK + """

class Net(nn.Cell):
    def __init__(self, platform):
        super().__init__()
        self.res1 = Block()
        if platform == "Ascend":
            self.res1 = self.res1.to_float(mstype.float16)

    def construct(self, x):
        return self.res1(x)
"""


def _findings(tmp_path: Path, files: Dict[str, str]) -> Dict[str, List[tuple]]:
    write_project(tmp_path, files)
    results = check_folder(str(tmp_path), EVERY_RULE, ALL_RULES)
    found = {path: codes_at(result.findings) for path, result in results.items() if result.findings}
    errors = [f.message for result in results.values() for f in result.findings if f.code == "MSP000"]
    assert not errors, errors
    return found


def _codes(found: Dict[str, List[tuple]]) -> List[str]:
    return sorted(code for findings in found.values() for code, _, _ in findings)


def test_an_attribute_cast_in_place_on_ascend_covers_its_layers(tmp_path: Path):
    """The issue's shape, built for Ascend: the to_float arm runs, so the Dense is in float16 (no MSP101)."""
    found = _findings(tmp_path, {"train.py": CAST_IN_PLACE + TRAIN.format(network='Net("Ascend")')})
    assert "MSP101" not in _codes(found)


def test_an_attribute_cast_in_place_on_another_platform_leaves_its_layers_in_float32(tmp_path: Path):
    """The same network built with another platform never casts: its 4096x4096 Dense runs in float32 on Ascend."""
    found = _findings(tmp_path, {"train.py": CAST_IN_PLACE + TRAIN.format(network='Net("GPU")')})
    assert "MSP101" in _codes(found)


def test_an_attribute_cast_in_place_with_an_unknown_platform_is_not_reported(tmp_path: Path):
    """The platform comes from the command line with no default: the cast may run, so nothing is said."""
    source = CAST_IN_PLACE + """
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--platform")
    args = parser.parse_args()
    ms.set_context(device_target="Ascend")
    net = Net(args.platform)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(10, None)
"""
    found = _findings(tmp_path, {"train.py": source})
    assert "MSP101" not in _codes(found)


def test_attributes_assigned_from_each_other(tmp_path: Path):
    source = HEADER + BLOCK + """

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = self.a
        self.a = self.b
        self.a = self.a.to_float(mstype.float16)
        self.b = self.b.to_float(mstype.float16)
        self.a.to_float(mstype.float16)
        self.net = self.net

    def construct(self, x):
        return self.b(self.a(x))
""" + TRAIN.format(network="Net()")
    found = _findings(tmp_path, {"train.py": source})
    # What self.a holds is lost in the cycle, so what its cast covers is not known: not reported.
    assert "MSP101" not in _codes(found)


def test_cells_cast_in_a_loop_are_not_known_to_stay_in_float32(tmp_path: Path):
    """``cell.to_float(float16)`` over the network's cells: the cast reaches layers the model cannot name, so the
    program is not said to train in float32 (it was, before a cast of unknown reach counted as managed precision)."""
    source = HEADER + BLOCK + """

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        for _, cell in self.cells_and_names():
            if isinstance(cell, nn.Dense):
                cell.to_float(mstype.float16)

    def construct(self, x):
        return self.block(x)
""" + TRAIN.format(network="Net()")
    found = _findings(tmp_path, {"train.py": source})
    assert "MSP101" not in _codes(found)
    uncast = source.replace("cell.to_float(mstype.float16)", "print(cell)")
    assert "MSP101" in _codes(_findings(tmp_path / "uncast", {"train.py": uncast}))


def test_a_class_inheriting_from_itself_through_an_alias(tmp_path: Path):
    files = {
        "models.py": HEADER + """
from models import Net as Base
from other import Twin


class Net(Base):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4096, 4096)

    def construct(self, x):
        return self.fc(x)


class Loop(Twin):
    pass
""",
        "other.py": """
from models import Loop as Twin
from models import Loop
""",
        "train.py": HEADER + "from models import Net, Loop\n" + TRAIN.format(network="Net()"),
    }
    _findings(tmp_path, files)


def test_modules_importing_each_other(tmp_path: Path):
    """Star imports in a cycle, and a name each module imports from the other, defined in neither."""
    files = {
        "a.py": "from b import *\nfrom b import Missing\n",
        "b.py": "from a import *\nfrom a import Missing\n",
        "train.py": HEADER + "from a import *\nfrom b import Missing\n" + TRAIN.format(network="Missing(Width)"),
    }
    _findings(tmp_path, files)


def test_functions_calling_each_other_with_their_parameters(tmp_path: Path):
    source = HEADER + BLOCK + """

def wrap(net, dtype, depth):
    if depth:
        return unwrap(net, dtype, depth - 1)
    return net.to_float(dtype)


def unwrap(net, dtype, depth):
    return wrap(net, dtype, depth)


def build(net):
    return build(net)


def width(n):
    return width(n) + 1
""" + TRAIN.format(network="wrap(build(Block()), mstype.float16, width(3))")
    _findings(tmp_path, {"train.py": source})


def test_a_constant_defined_from_itself(tmp_path: Path):
    source = HEADER + """
x = x + 1
HIDDEN = 4096
HIDDEN = HIDDEN * 2
A = B
B = A


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(x, HIDDEN)
        self.fc2 = nn.Dense(A, B)

    def construct(self, x):
        return self.fc2(self.fc(x))
""" + TRAIN.format(network="Net()")
    _findings(tmp_path, {"train.py": source})


def test_a_config_key_read_from_itself(tmp_path: Path):
    source = HEADER + """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=4096)
parser.add_argument("--amp_level", default="O0")
args = parser.parse_args()
args.hidden = args.hidden * 2
args.amp_level = args.amp_level
config = {"width": 1000}
config["width"] = config["width"]
config["depth"] = config["depth"] + 1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(args.hidden, config["width"])

    def construct(self, x):
        return self.fc(x)


if __name__ == "__main__":
    ms.set_context(device_target="Ascend", mode=ms.GRAPH_MODE)
    net = Net()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(), nn.Momentum(net.trainable_params(), 0.1, 0.9),
                  amp_level=args.amp_level)
    model.train(config["depth"], None)
"""
    _findings(tmp_path, {"train.py": source})


@pytest.mark.parametrize("network", ["Net()", "Net().to_float(mstype.float16)"])
def test_a_method_calling_itself_and_a_network_holding_itself(tmp_path: Path, network: str):
    source = HEADER + BLOCK + """

class Net(nn.Cell):
    def __init__(self, inner=None):
        super().__init__()
        self.inner = inner if inner is not None else Net(self)
        self.block = self.make(self.block)

    def make(self, block):
        return self.make(block)

    def construct(self, x):
        return self.construct(self.inner(x))
""" + TRAIN.format(network=network)
    _findings(tmp_path, {"train.py": source})


def _call_cycle(functions: int) -> str:
    """``g0`` .. ``gN``: each calls every other, passing its parameters on (a train step, a data source, a
    Model); the program calls ``g0``."""
    lines = [HEADER, "import mindspore.dataset as ds", ""]
    for i in range(functions):
        lines += [f"def g{i}(step, source, model):", "    step(ds.GeneratorDataset(source, ['x']))",
                  "    model.train(1, source)"]
        lines += [f"    g{j}(step, source, model)" for j in range(functions) if j != i]
        lines.append("")
    lines += ['if __name__ == "__main__":', '    ms.set_context(device_target="Ascend")', "    net = nn.Dense(10, 10)",
              "    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)",
              "    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)",
              "    g0(step, [1, 2, 3], Model(net))"]
    return "\n".join(lines) + "\n"


def test_a_parameter_passed_round_a_call_cycle_is_followed_once(tmp_path: Path):
    """Every caller's argument is followed once per question: the step g0 is given is the TrainOneStepCell
    (the search used to stop at its depth limit, unknown, after following each path of callers anew)."""
    from ms_perflint.analysis.facts import PARAM, Value
    from ms_perflint.project.index import ProjectIndex
    from ms_perflint.project.model import Project

    write_project(tmp_path, {"train.py": _call_cycle(3)})
    index = ProjectIndex(str(tmp_path), cache_folder=None).refresh()
    project = Project(index.root, index.facts())
    g0 = project.python["train.py"].functions["g0"]
    assert project.made_by("train.py", Value(PARAM, "step"), scope=g0) == "mindspore.nn.TrainOneStepCell"
    assert project.made_by("train.py", Value(PARAM, "model"), scope=g0) == "mindspore.train.Model"


def test_a_wide_call_cycle_is_decided_in_time(tmp_path: Path):
    """Seven functions calling each other: asked along every path of callers, the question of what a parameter
    was made by multiplied past any run's patience (over 100 s for five functions; 7**12 paths for seven); each
    caller's argument is now followed once. Asked in a process of its own, so that a regression fails by its
    time limit instead of hanging the suite; every rule then runs over the same project."""
    import subprocess
    import sys

    write_project(tmp_path, {"train.py": _call_cycle(7)})
    script = """
import sys
from ms_perflint.analysis.facts import PARAM, Value
from ms_perflint.project.index import ProjectIndex
from ms_perflint.project.model import Project
from ms_perflint.project.values import Values

index = ProjectIndex(sys.argv[1], cache_folder=None).refresh()
project = Project(index.root, index.facts())
values = Values(project)
facts = project.python["train.py"]
for name in ("g0", "g3", "g6"):
    for parameter in ("step", "source", "model"):
        value = Value(PARAM, parameter)
        project.made_by("train.py", value, scope=facts.functions[name])
        values.instances("train.py", value, facts.functions[name])
print("done")
"""
    completed = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                               timeout=60)
    assert completed.stdout.strip() == "done", completed.stderr
    _findings(tmp_path, {"train.py": _call_cycle(7)})


def test_a_cell_handed_an_instance_of_its_own_class_is_counted_once(tmp_path: Path):
    # a held-out Transformer nests a stage in a stage: counting the weights of the networks a class keeps from
    # its callers went round the class forever (MSP107's convolution count)
    source = HEADER + """

class Leaf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(256, 256, 3)

    def construct(self, x):
        return self.conv(x)


class Stage(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.conv = nn.Conv2d(256, 256, 3)
        self.inner = inner

    def construct(self, x):
        return self.inner(self.conv(x))
""" + TRAIN.format(network="Stage(Stage(Leaf()))")
    _findings(tmp_path, {"train.py": source})
