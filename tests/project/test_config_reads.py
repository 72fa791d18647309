"""Where a program's config values come from: attributes stored on its argument object, items of a tuple a helper
returns, and YAML files only when the program reads one.

Shapes seen on held-out model-zoo programs (a ResNeXt and a Faster R-CNN trainer whose every-2-epoch and every-epoch
synchronous saves were missed), each written as a small program of its own.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import check_project, write_project

NETWORK = """
import mindspore as ms
from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4096, 4096)

    def construct(self, x):
        return self.fc(x)


def create_dataset():
    return ms.dataset.GeneratorDataset(list(range(100)), ["x"]).batch(10)
"""

#: A trainer in the model zoo's style: argparse arguments completed by a Python dict, a flag computed on ``args``.
TRAIN = """
import argparse
{imports}
import mindspore as ms
from mindspore import nn
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
from src.network import Net, create_dataset
from src.config import config


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device_target", default="Ascend")
    args, _ = parser.parse_known_args()
    args.ckpt_interval = config["ckpt_interval"]
    args.is_save_on_master = config["is_save_on_master"]
    args.rank = 0
    args.rank_save_ckpt_flag = 0
    if args.is_save_on_master:
        if args.rank == 0:
            args.rank_save_ckpt_flag = 1
    else:
        args.rank_save_ckpt_flag = 1
    {read}
    return args


def make_data():
    dataset = create_dataset()
    steps = dataset.get_dataset_size()
    return steps, dataset


def train():
    args = parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
    steps_per_epoch, dataset = make_data()
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")
    callbacks = []
    if args.rank_save_ckpt_flag:
        config_ck = CheckpointConfig(save_checkpoint_steps=args.ckpt_interval * steps_per_epoch)
        callbacks.append(ModelCheckpoint(prefix="net", config=config_ck))
    model.train(90, dataset, callbacks=callbacks, dataset_sink_mode=True)


if __name__ == "__main__":
    train()
"""

CONFIG = """
config = {{"ckpt_interval": {interval}, "is_save_on_master": {master}}}
"""

#: What another script of the same folder reads (the trainer above does not).
YAML = """
ckpt_interval: 1
rank_save_ckpt_flag: 0
"""


def _project(tmp_path: Path, interval: int = 1, master: int = 1, reads_yaml: bool = False,
             yaml: str = YAML) -> dict:
    imports = "import yaml" if reads_yaml else ""
    read = 'vars(args).update(yaml.safe_load(open("default_config.yaml")))' if reads_yaml else "pass"
    files = {
        "train.py": TRAIN.format(imports=imports, read=read),
        "src/__init__.py": "",
        "src/network.py": NETWORK,
        "src/config.py": CONFIG.format(interval=interval, master=master),
        "default_config.yaml": yaml,
    }
    return check_project(write_project(tmp_path, files))


def _msp103(findings: dict) -> list:
    return [(path, line) for path, found in findings.items() for code, line, _ in found if code == "MSP103"]


def test_a_flag_set_on_args_in_the_arm_the_run_takes_lets_the_save_run(tmp_path: Path):
    # ``args.rank_save_ckpt_flag`` is 1 on rank 0; the YAML's 0 is another script's, and the epoch's steps come back
    # from make_data() as the first item of a tuple: an every-epoch save of a 16.8 M-parameter network over 90 epochs
    assert _msp103(_project(tmp_path)) == [("train.py", 41)]


def test_a_flag_no_arm_sets_keeps_the_save_from_running(tmp_path: Path):
    # ``args.is_save_on_master`` is 1 and the rank is 0, so the flag is 1: only with a flag that stays 0 everywhere
    # (the dict's is_save_on_master and the ``if`` arms never set it to 1) is the save dead code
    files = TRAIN.format(imports="", read="pass").replace("args.rank_save_ckpt_flag = 1", "args.rank_save_ckpt_flag = 0")
    # another object's store of the same key says nothing about ``args``
    files = files.replace("    return args\n", "    export_cfg = argparse.Namespace()\n"
                                                 "    export_cfg.rank_save_ckpt_flag = 1\n    return args\n")
    assert "export_cfg.rank_save_ckpt_flag = 1" in files
    findings = check_project(write_project(tmp_path, {
        "train.py": files, "src/__init__.py": "", "src/network.py": NETWORK,
        "src/config.py": CONFIG.format(interval=1, master=1)}))
    assert _msp103(findings) == []


def test_a_yaml_beside_a_script_that_reads_no_config_file_sets_nothing(tmp_path: Path):
    # the dict saves every 5 epochs (rare); the YAML's every epoch is another script's
    assert _msp103(_project(tmp_path, interval=5)) == []


def test_a_yaml_the_script_reads_counts(tmp_path: Path):
    # the same program loading the YAML: a run may save every epoch
    assert _msp103(_project(tmp_path, interval=5, reads_yaml=True)) == [("train.py", 41)]


def test_a_yaml_path_a_launch_script_passes_counts(tmp_path: Path):
    root = tmp_path / "p"
    _project(root, interval=5)
    (root / "scripts").mkdir()
    (root / "scripts" / "run_train.sh").write_text(
        "python ../train.py --config_path=../default_config.yaml > log.txt 2>&1 &\n", encoding="utf-8")
    assert _msp103(check_project(root)) == [("train.py", 41)]


def test_a_fallback_stored_under_a_test_the_run_never_passes_sets_nothing(tmp_path: Path):
    # ``if args.ckpt_interval <= 0: args.ckpt_interval = 1`` repairs a bad argument; with the default of 10 epochs the
    # run never stores the 1, so the save is rare
    train = TRAIN.format(imports="", read="pass").replace(
        '    args.ckpt_interval = config["ckpt_interval"]\n',
        '    args.ckpt_interval = config["ckpt_interval"]\n    if args.ckpt_interval <= 0:\n'
        '        args.ckpt_interval = 1\n')
    files = {"train.py": train, "src/__init__.py": "", "src/network.py": NETWORK,
             "src/config.py": CONFIG.format(interval=10, master=1)}
    assert _msp103(check_project(write_project(tmp_path, files))) == []


RUNNING = """
import argparse
import mindspore as ms

class Meter:
    def __init__(self):
        self.avg = 0.0
    def update(self, value):
        self.avg = value

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()
meter = Meter()
best = 0.0
budget = 100
for step in range(100):
    meter.update(step / 10)
    if meter.avg > best:
        ms.save_checkpoint(net, "best.ckpt")
    if budget > 0:
        budget -= 1
    else:
        ms.load_checkpoint("best.ckpt")
    if args.epochs <= 0:
        ms.set_context(mode=ms.PYNATIVE_MODE)
"""


def test_an_ordering_is_decided_on_configured_values_only():
    from ms_perflint.project.values import Values
    from tests.project.test_values_provenance import project

    proj = project({"train.py": RUNNING})
    values = Values(proj)
    calls = {c.callee.rsplit(".", 1)[-1]: c for c in proj.python["train.py"].calls if c.callee}
    # a running average the model knows only as first set: the comparison is not decided, the save may run
    assert values.can_hold("train.py", calls["save_checkpoint"].scope, calls["save_checkpoint"].guards)
    # a name the loop counts down, known only as set before the loop: its ``else`` arm may run
    assert values.can_hold("train.py", calls["load_checkpoint"].scope, calls["load_checkpoint"].guards)
    # the argparse default of 10 epochs never takes the repair
    assert not values.can_hold("train.py", calls["set_context"].scope, calls["set_context"].guards)


def test_a_name_resolves_to_the_nearest_module_before_a_longer_module_name_elsewhere(tmp_path: Path):
    # a model zoo: this model's ``src/config.py`` defines ``config``; another model has a package
    # ``src/config/config.py``. ``from src.config import config`` in this model's train.py is its own module's name
    from ms_perflint.project.index import ProjectIndex
    from ms_perflint.project.model import Project

    write_project(tmp_path, {
        "zoo/cv/gpu_model/train.py": "from src.config import config\nimport mindspore as ms\n"
                                     "ms.set_context(device_target=config.device_target)\n",
        "zoo/cv/gpu_model/src/__init__.py": "",
        "zoo/cv/gpu_model/src/config.py": "config = object()\n",
        "zoo/cv/other/src/__init__.py": "",
        "zoo/cv/other/src/config/__init__.py": "",
        "zoo/cv/other/src/config/config.py": "device_target = 'Ascend'\n",
    })
    proj = Project(str(tmp_path), ProjectIndex(str(tmp_path)).refresh().facts())
    symbol = proj.resolve("src.config.config", "zoo/cv/gpu_model/train.py")
    assert (symbol.path, symbol.name) == ("zoo/cv/gpu_model/src/config.py", "config")
    # from the other model, the package's module is still found
    assert proj.resolve("src.config.config", "zoo/cv/other/train.py").path == "zoo/cv/other/src/config/config.py"


def test_a_longer_module_name_from_the_root_wins_over_a_nearer_module_of_its_first_name(tmp_path: Path):
    # ``from utils.lr import get_lr`` in ``src/models/net.py`` beside a ``src/models/utils.py``: the root's package
    from ms_perflint.project.index import ProjectIndex
    from ms_perflint.project.model import Project

    write_project(tmp_path, {
        "utils/__init__.py": "", "utils/lr.py": "def get_lr():\n    return 1\n",
        "src/__init__.py": "", "src/models/__init__.py": "", "src/models/utils.py": "def other():\n    return 2\n",
        "src/models/net.py": "from utils.lr import get_lr\nx = get_lr()\n",
    })
    proj = Project(str(tmp_path), ProjectIndex(str(tmp_path)).refresh().facts())
    symbol = proj.resolve("utils.lr.get_lr", "src/models/net.py")
    assert (symbol.path, symbol.name, symbol.kind) == ("utils/lr.py", "get_lr", "function")
