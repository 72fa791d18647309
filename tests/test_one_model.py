"""One model of a MindSpore program: per-file and project checks cannot disagree.

Per-file mode is project mode with a project of one file, so every rule example and
fixture gives the same findings both ways; and the drifts the old two-extractor design
showed (issue "One MindSpore model for every rule") are regression tests here.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

from ms_perflint.rules import ALL_RULES
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import FIXTURES, check_project, codes_at, run_cli, write_project

EXAMPLES = [
    (f"{rule.code}-{kind}-{number}", example.source)
    for rule in ALL_RULES
    for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid))
    for number, example in enumerate(examples)
]


def _both_ways(source: str, tmp_path: Path, name: str = "script.py") -> Tuple[List[tuple], List[tuple]]:
    alone = codes_at(check_text(source, name, Settings()).findings)
    write_project(tmp_path, {name: source})
    in_project = codes_at(check_folder(str(tmp_path), Settings())[name].findings)
    return alone, in_project


@pytest.mark.parametrize("name, source", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_every_rule_example_gives_the_same_findings_alone_and_in_a_project(name: str, source: str, tmp_path: Path):
    alone, in_project = _both_ways(source, tmp_path)
    assert alone == in_project


FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[str(p.relative_to(FIXTURES)) for p in FIXTURE_FILES])
def test_every_fixture_gives_the_same_findings_alone_and_in_a_project(path: Path, tmp_path: Path):
    alone, in_project = _both_ways(path.read_text(encoding="utf-8"), tmp_path, path.name)
    assert alone == in_project


# --- the drifts of the two-extractor design, each a regression test -----------------------------------

MODEL = """
    import mindspore.nn as nn
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(1024, 1024)
            self.fc2 = nn.Dense(1024, 1024)
        def construct(self, x):
            return self.fc2(self.fc1(x))
"""


def test_to_float_half_in_train_covers_the_model_in_another_file(tmp_path: Path):
    """Drift 1: ``net.to_float(ms.half)`` in train.py was not low precision for the project tables."""
    write_project(tmp_path, {
        "src/__init__.py": "",
        "src/model.py": MODEL,
        "train.py": """
            import mindspore as ms
            from mindspore.train import Model
            from src.model import Net
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                net = Net()
                net.to_float(ms.half)
                Model(net, loss, opt).train(1, data, dataset_sink_mode=True)
        """,
    })
    assert check_project(tmp_path) == {}
    uncast = (tmp_path / "train.py").read_text().replace("    net.to_float(ms.half)\n", "")
    (tmp_path / "train.py").write_text(uncast)
    assert [code for code, _, _ in check_project(tmp_path).get("train.py", [])] == ["MSP101"]


def test_cast_model_type_float32_is_decided_the_same_in_one_file_and_across_files(tmp_path: Path):
    """Drift 2: ``cast_model_type=ms.float32`` keeps the network in float32 on purpose; where it is written
    does not change the answer (not reported: a deliberate float32 choice)."""
    train = """
        import mindspore as ms
        from mindspore.train import Model
        from src.model import Net
        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            Model(Net(), loss, opt, amp_level="O2", cast_model_type=ms.float32).train(1, data, dataset_sink_mode=True)
    """
    write_project(tmp_path / "split", {"src/__init__.py": "", "src/model.py": MODEL, "train.py": train})
    one_file = textwrap.dedent(MODEL) + textwrap.dedent(train).replace("from src.model import Net\n", "")
    write_project(tmp_path / "joined", {"train.py": one_file})
    assert check_project(tmp_path / "split") == check_project(tmp_path / "joined") == {}
    assert codes_at(check_text(one_file, "train.py", Settings()).findings) == []


@pytest.mark.parametrize("quote", ['"', "'"])
def test_guards_are_compared_as_values_not_as_text(quote: str, tmp_path: Path):
    """Drift 3: ``if config["profile"]:`` vs ``if not config['profile']:`` across two files."""
    write_project(tmp_path, {
        "src/__init__.py": "",
        "src/dataset.py": f"""
            import mindspore.dataset as ds
            def pipeline(config):
                if not config[{quote}profile{quote}]:
                    ds.config.set_enable_autotune(True)
        """,
        "train.py": """
            import mindspore as ms
            from src.dataset import pipeline
            if __name__ == "__main__":
                config = load()
                if config["profile"]:
                    profiler = ms.Profiler(data_process=True)
                pipeline(config)
        """,
    })
    assert check_project(tmp_path) == {}


TRAIN_WITH_LOADER = """
    from mindcv.models import resnet50
    from mindcv.models.helpers import load_pretrained
    from mindspore.train import Model
    from src.config import config
    if __name__ == "__main__":
        net = resnet50(num_classes=config["class_num"])
        load_pretrained(net, default_cfg, num_classes=config["class_num"])
        Model(net, loss, opt).train(90, data)
"""


def test_a_weight_loader_after_the_builder_silences_msp104_in_both_modes(tmp_path: Path):
    """Drift 4: the project tables knew 2 weight loaders and the per-file ones 7, so mindcv's
    ``load_pretrained`` after ``resnet50(num_classes=config["class_num"])`` was reported in project mode
    only, with an unsafe fix (1001 classes) that breaks loading the 1000-class weights."""
    config = 'config = {"class_num": 1000, "lr": 0.1}\n'
    write_project(tmp_path / "split", {"src/__init__.py": "", "src/config.py": config, "train.py": TRAIN_WITH_LOADER})
    joined = config + textwrap.dedent(TRAIN_WITH_LOADER).replace("from src.config import config\n", "")
    assert check_project(tmp_path / "split") == {}
    assert codes_at(check_text(joined, "train.py", Settings()).findings) == []
    # Without the loader the same programs train from scratch, and both modes report the 1000
    without = "    load_pretrained(net, default_cfg, num_classes=config[\"class_num\"])\n"
    train = (tmp_path / "split" / "train.py").read_text()
    assert without in train
    (tmp_path / "split" / "train.py").write_text(train.replace(without, ""))
    assert [code for code, _, _ in check_project(tmp_path / "split").get("src/config.py", [])] == ["MSP104"]
    assert [code for code, *_ in codes_at(check_text(joined.replace(without, ""), "train.py", Settings()).findings)] \
        == ["MSP104"]


BOM_CONFIG = """\ufeffrun_mode: train
callbacks:
  - type: CheckpointMonitor
    prefix: llama
    save_checkpoint_steps: 100
"""


def test_a_yaml_config_with_a_byte_order_mark_is_fixed_like_any_other(tmp_path: Path):
    """Drift 5: a BOM made YAML fixes report ``[*]`` and then fix nothing (their own decoding and writer)."""
    write_project(tmp_path, {"run.py": "import mindspore\n"})
    config = tmp_path / "configs" / "llama.yaml"
    config.parent.mkdir()
    config.write_bytes(BOM_CONFIG.encode("utf-8"))
    listed = run_cli("--output-format", "json", str(config), cwd=tmp_path)
    findings = json.loads(listed.stdout)
    assert [f["code"] for f in findings] == ["MSP103"]
    assert findings[0]["fix"]["edits"] and findings[0]["fix"]["applicability"] == "safe"
    fixed = run_cli("--fix", str(config), cwd=tmp_path)
    assert "Fixed 1 finding" in fixed.stdout, fixed.stdout + fixed.stderr
    data = config.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.decode("utf-8-sig") == BOM_CONFIG[1:].replace(
        "    prefix: llama\n", "    async_save: True\n    prefix: llama\n")
    assert run_cli(str(config), cwd=tmp_path).returncode == 0
