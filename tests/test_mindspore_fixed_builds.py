"""Fixed projects still build under real MindSpore: the layers a fix changed fit the layers around them.

Run by ``tox -e mindspore``. A model-zoo-like project (a ResNet-50 builder, its class count in a YAML
config, a train.py) is fixed with the real CLI (``--fix --unsafe-fixes``); its network is then built from the
fixed configuration by the training script's own function, and one forward pass runs on CPU. ``tests/test_mindspore_e2e.py`` does the
same for ``examples/`` end to end (training, checkpoints, fine-tuning).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_mindspore_e2e import cli, mindspore_installed, python, tagged  # noqa: F401 (a fixture)

pytestmark = pytest.mark.mindspore

#: A model-zoo-style project: ResNet-50 whose class count comes from a YAML config, trained from scratch on
#: Ascend by train.py (MSP104 fixes the config's 1000 to 1001).
ZOO = {
    "pyproject.toml": "[project]\nname = 'zoo'\n",
    "src/__init__.py": "",
    "src/config.py": (
        "import yaml\n\n"
        "with open('config/resnet50_imagenet2012_config.yaml') as handle:\n"
        "    config = yaml.safe_load(handle)\n"
    ),
    "src/resnet.py": (
        "from mindspore import nn\n\n\n"
        "class ResNet(nn.Cell):\n"
        "    def __init__(self, num_classes):\n"
        "        super().__init__()\n"
        "        self.pool = nn.Dense(512, 2048)\n"
        "        self.end_point = nn.Dense(2048, num_classes)\n\n"
        "    def construct(self, x):\n"
        "        return self.end_point(self.pool(x))\n\n\n"
        "def resnet50(class_num=10):\n"
        "    return ResNet(class_num)\n"
    ),
    "config/resnet50_imagenet2012_config.yaml": (
        "# ResNet-50 on ImageNet\ndevice_target: \"Ascend\"\nclass_num: 1000  # ImageNet\nepoch_size: 90\n"
    ),
    "train.py": (
        "import mindspore as ms\nfrom mindspore import nn\n\n"
        "from src.config import config\nfrom src.resnet import resnet50\n\n\n"
        "def build():\n"
        "    return resnet50(class_num=config['class_num'])\n\n\n"
        "if __name__ == '__main__':\n"
        "    ms.set_context(device_target=config['device_target'])\n"
        "    net = build()\n"
        "    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)\n"
        "    model = ms.Model(net, loss_fn=nn.SoftmaxCrossEntropyWithLogits(sparse=True), optimizer=opt)\n"
        "    model.train(config['epoch_size'], dataset)\n"
    ),
}

#: Builds the network the way train.py does (config from the YAML, then resnet50) and runs one forward pass.
BUILD_ZOO_NETWORK = """
import numpy as np
import mindspore as ms
ms.set_context(device_target="CPU")
from train import build
out = build()(ms.Tensor(np.ones((2, 512), np.float32)))
print("OUTPUT", list(out.shape))
"""


def test_a_zoo_resnet50_fixed_to_1001_classes_builds_and_runs(tmp_path: Path, mindspore_installed: None):
    project = tmp_path / "zoo"
    for name, text in ZOO.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    before = python(BUILD_ZOO_NETWORK, cwd=project)
    assert before.returncode == 0, before.stderr
    assert tagged(before.stdout, "OUTPUT") == ["[2, 1000]"]

    fixed = cli("--fix", "--unsafe-fixes", "--show-fixes", ".", cwd=project)
    assert "config/resnet50_imagenet2012_config.yaml:3: MSP104" in fixed.stdout, fixed.stdout + fixed.stderr
    assert (project / "config" / "resnet50_imagenet2012_config.yaml").read_text() == (
        "# ResNet-50 on ImageNet\ndevice_target: \"Ascend\"\nclass_num: 1001  # ImageNet\nepoch_size: 90\n")

    after = python(BUILD_ZOO_NETWORK, cwd=project)
    assert after.returncode == 0, after.stderr
    assert tagged(after.stdout, "OUTPUT") == ["[2, 1001]"]
