"""Whole-program answers (``ms_perflint.project.view``): programs, fp16 coverage, profilers, class counts."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Dict

from ms_perflint.project.index import load_index
from ms_perflint.project.view import ProjectAnalysis, config_key, mutually_exclusive

MODEL = """
    import mindspore.nn as nn
    from .head import Head

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(16, 16)
            self.head = Head()

    def build():
        return Net()
"""
HEAD = """
    from mindspore import nn

    class Head(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(16, 16)
"""
UNRELATED = """
    import mindspore.nn as nn

    class Lonely(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(16, 16)
"""


def analysis_of(root: Path, files: Dict[str, str]) -> ProjectAnalysis:
    (root / "pyproject.toml").write_text("")
    (root / "src").mkdir(exist_ok=True)
    (root / "src/__init__.py").write_text("")
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return ProjectAnalysis(load_index(str(root), refresh=True))


def base_files(**extra: str) -> Dict[str, str]:
    files = {"src/model.py": MODEL, "src/head.py": HEAD, "src/unrelated.py": UNRELATED}
    files.update(extra)
    return files


TRAIN_O2 = """
    from mindspore.train import Model
    from src.model import build
    net = build()
    model = Model(net, loss_fn=None, amp_level="O2")
"""


def test_global_amp_covers_every_cell_of_its_program_and_nothing_else(tmp_path: Path):
    analysis = analysis_of(tmp_path, base_files(**{"train.py": TRAIN_O2}))
    for relative, name in (("src/model.py", "Net"), ("src/head.py", "Head")):
        coverage, _ = analysis.coverage(relative, name)
        assert str(coverage) == "covered by Model(amp_level='O2') at train.py:4"
    coverage, trace = analysis.coverage("src/unrelated.py", "Lonely")
    assert coverage is None
    assert trace == ["no mixed-precision mechanism in any program that uses this file"]


def test_programs_are_import_closures(tmp_path: Path):
    analysis = analysis_of(tmp_path, base_files(**{"train.py": TRAIN_O2}))
    assert analysis.closure("train.py") == {"train.py", "src/model.py", "src/head.py"}
    assert analysis.program_files("src/head.py") == {"train.py", "src/model.py", "src/head.py"}
    assert analysis.program_files("src/unrelated.py") == {"src/unrelated.py"}


def test_amp_level_o0_does_not_cover(tmp_path: Path):
    train = TRAIN_O2.replace('amp_level="O2"', 'amp_level="O0"')
    analysis = analysis_of(tmp_path, base_files(**{"train.py": train}))
    coverage, trace = analysis.coverage("src/model.py", "Net")
    assert coverage is None
    assert trace == ["Model(amp_level='O0') at train.py:4 keeps fp32"]


def test_to_float_on_an_instance_built_elsewhere_covers_what_it_builds(tmp_path: Path):
    cast = """
        import mindspore as ms
        from src.model import build
        net = build()
        net.to_float(ms.float16)
    """
    analysis = analysis_of(tmp_path, base_files(**{"cast.py": cast}))
    assert str(analysis.coverage("src/head.py", "Head")[0]) == "covered by net.to_float(ms.float16) at cast.py:4"
    assert analysis.coverage("src/unrelated.py", "Lonely")[0] is None


def test_a_deliberate_fp32_choice_also_keeps_the_cell_from_being_reported(tmp_path: Path):
    cast = """
        from mindspore.common import dtype as mstype
        from src.head import Head
        head = Head()
        head.to_float(mstype.float32)
    """
    analysis = analysis_of(tmp_path, base_files(**{"cast.py": cast}))
    coverage = analysis.coverage("src/head.py", "Head")[0]
    assert coverage is not None and "deliberate fp32" in coverage.mechanism
    assert analysis.coverage("src/model.py", "Net")[0] is None  # Net builds Head, not the other way round


def test_unknown_amp_level_resolved_through_argparse_yaml_and_launch_script(tmp_path: Path):
    train = """
        import argparse
        from mindspore.train import Model
        from src.model import build
        parser = argparse.ArgumentParser()
        parser.add_argument("--amp_level", default="O0")
        args = parser.parse_args()
        model = Model(build(), amp_level=args.amp_level)
    """
    files = base_files(**{"train.py": train, "config/resnet_config.yaml": "amp_level: O0\n"})
    analysis = analysis_of(tmp_path, files)
    coverage, trace = analysis.coverage("src/model.py", "Net")
    assert coverage is None
    assert trace == [
        "Model(amp_level=args.amp_level) at train.py:7 keeps fp32: every configured value keeps fp32 "
        "(argparse default 'O0' at train.py:5, amp_level: 'O0' at config/resnet_config.yaml:1)"
    ]

    files["scripts/run_eval.sh"] = "python ../eval.py --amp_level O2\n"  # another entry file: does not count
    assert analysis_of(tmp_path, files).coverage("src/model.py", "Net")[0] is None
    files["scripts/run_train.sh"] = "#!/bin/bash\npython ../train.py --amp_level O2 --device_target Ascend\n"
    coverage = analysis_of(tmp_path, files).coverage("src/model.py", "Net")[0]
    assert str(coverage) == (
        "covered by Model(amp_level=args.amp_level) at train.py:7 (--amp_level 'O2' at scripts/run_train.sh:2)"
    )


def test_unknown_amp_level_with_no_configured_value_is_assumed_to_cover(tmp_path: Path):
    train = """
        from mindspore.train import Model
        from src.model import build
        def main(level):
            return Model(build(), amp_level=level)
    """
    coverage = analysis_of(tmp_path, base_files(**{"train.py": train})).coverage("src/model.py", "Net")[0]
    assert coverage is not None and coverage.detail == "value not known, assumed to cover"


def test_precision_modes(tmp_path: Path):
    keep = """
        import mindspore as ms
        from src.model import build
        ms.device_context.ascend.op_precision.precision_mode("must_keep_origin_dtype")
    """
    analysis = analysis_of(tmp_path, base_files(**{"train.py": keep}))
    assert analysis.coverage("src/model.py", "Net")[0] is None
    mix = keep.replace("must_keep_origin_dtype", "allow_mix_precision_fp16")
    coverage = analysis_of(tmp_path, base_files(**{"train.py": mix})).coverage("src/model.py", "Net")[0]
    assert str(coverage) == "covered by precision_mode('allow_mix_precision_fp16') at train.py:3"


def test_profilers_in_other_files_of_the_program(tmp_path: Path):
    dataset = """
        import mindspore.dataset as ds
        def create():
            ds.config.set_enable_autotune(True)
    """
    train = """
        import argparse
        import mindspore as ms
        from src.dataset import create
        parser = argparse.ArgumentParser()
        parser.add_argument("--profile", type=bool, default=False)
        args = parser.parse_args()
        if args.profile:
            off = ms.Profiler()
        on = ms.Profiler(data_process=True)
        create()
    """
    other = """
        import mindspore as ms
        p = ms.Profiler()
    """
    analysis = analysis_of(tmp_path, base_files(**{"src/dataset.py": dataset, "train.py": train, "other.py": other}))
    found = [(str(p.where), p.kind, p.dataset) for p in analysis.profilers_elsewhere("src/dataset.py")]
    # Line 7 is off: every configured `profile` is False. other.py never imports the dataset.
    assert found == [("train.py:9", "mindspore.profiler.Profiler", True)]
    assert analysis.profilers_elsewhere("other.py") == []


def test_mutually_exclusive_guards():
    assert mutually_exclusive([("args.profile", True)], [("args.profile", False)])
    assert mutually_exclusive([("not args.profile", True)], [("args.profile", True)])
    assert not mutually_exclusive([("args.profile", True)], [("args.profile", True)])
    assert not mutually_exclusive([("args.profile", True)], [("args.tune", False)])


def test_config_key():
    assert config_key("args.amp_level") == "amp_level"
    assert config_key("config['class_num']") == "class_num"
    assert config_key("get_level()") is None
    assert config_key("(") is None


def test_class_count_origins_in_a_dict_config(tmp_path: Path):
    config = """
        config = {
            "class_num": 1000,
            "lr": 0.1,
        }
    """
    train = """
        import mindspore as ms
        from src.config import config
        from src.resnet import resnet50
        net = resnet50(class_num=config["class_num"])
    """
    resnet = """
        import mindspore.nn as nn
        def resnet50(class_num=10):
            return nn.Dense(2048, class_num)
    """
    files = base_files(**{"src/config.py": config, "train.py": train, "src/resnet.py": resnet})
    analysis = analysis_of(tmp_path, files)
    origins = analysis.class_count_origins("src/config.py")
    assert [(o.line, o.column, o.how, str(o.consumer)) for o in origins] == [(2, 17, "dict config", "train.py:4")]
    assert analysis.class_count_origins("train.py") == []
    assert analysis.is_mindspore_code("src/config.py")


def test_class_count_origins_skip_pretrained_and_other_values(tmp_path: Path):
    config = 'config = {"class_num": 1000, "small": 10}\n'
    train = """
        from src.config import config
        from mindcv.models import resnet50
        a = resnet50(num_classes=config["class_num"], pretrained=True)
        b = resnet50(num_classes=config["small"])
    """
    analysis = analysis_of(tmp_path, base_files(**{"src/config.py": config, "train.py": train}))
    assert analysis.class_count_origins("src/config.py") == []


def test_a_file_outside_any_mindspore_program_is_not_mindspore_code(tmp_path: Path):
    torch_script = """
        import torch
        from src.config import config
    """
    analysis = analysis_of(tmp_path, {"torch_train.py": torch_script, "src/config.py": "config = {}\n"})
    assert not analysis.is_mindspore_code("torch_train.py")
    assert not analysis.is_mindspore_code("src/config.py")
    assert not analysis.is_mindspore_code("not_indexed.py")


def test_script_folder_imports_resolve_to_the_nearest_module(tmp_path: Path):
    files = {
        "official/a/train.py": (
            "from mindspore.train import Model\nfrom src.model import Net\nModel(Net(), amp_level='O3')\n"
        ),
        "official/a/src/model.py": UNRELATED.replace("Lonely", "Net"),
        "official/b/src/model.py": UNRELATED.replace("Lonely", "Net"),
    }
    analysis = analysis_of(tmp_path, files)
    assert analysis.coverage("official/a/src/model.py", "Net")[0] is not None
    assert analysis.coverage("official/b/src/model.py", "Net")[0] is None


def test_view_lists_covering_mechanisms_of_other_files_with_the_o1_white_list_flagged(tmp_path: Path):
    from ms_perflint.project.view import ProjectView

    train = """
        from mindspore.train import Model
        from mindspore import amp
        from src.model import build
        net = amp.auto_mixed_precision(build(), "O1")
        model = Model(net, None, None, None, None, None, "O3")
        keep = Model(net, amp_level="O0")
    """
    analysis = analysis_of(tmp_path, base_files(**{"train.py": train}))
    mechanisms = ProjectView(analysis, "src/model.py").amp_mechanisms()
    assert [(str(m.coverage), m.level) for m in mechanisms] == [
        ("covered by auto_mixed_precision(net, 'O1') at train.py:4 (O1 casts only nn.Dense, MatMul and BatchMatMul)",
         "O1"),
        ("covered by Model(amp_level='O3') at train.py:5", None),  # amp_level passed by position (7th)
    ]
    assert ProjectView(analysis, "train.py").amp_mechanisms() == []  # its own file is the rule's business
    assert ProjectView(analysis, "src/model.py").cast_coverage("Net") is None
