"""The engine in project mode: context.project, what counts as MindSpore code, bad input, cache tokens."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Dict

from ms_perflint.engine import lint_file, lint_source
from ms_perflint.project import cache_token, load_index
from ms_perflint.settings import Settings
from tests.conftest import run_cli

PROJECT = Settings(project=True)


def write(root: Path, files: Dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text("")
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def codes(root: Path, relative: str, settings: Settings = PROJECT):
    result = lint_file(str(root / relative), settings)
    assert result.error is None, result.error
    return [(v.code, v.line, v.column + 1) for v in result.violations]


def test_a_config_module_of_a_mindspore_program_is_linted_although_it_never_names_mindspore(tmp_path: Path):
    write(tmp_path, {
        "consts.py": "NUM_CLASSES = 1000\n",
        "train.py": """
            import mindspore
            from mindcv.models import create_model
            from consts import NUM_CLASSES
            net = create_model("resnet50", num_classes=NUM_CLASSES)
        """,
    })
    # consts.py line 1: `NUM_CLASSES = ` is 14 characters, so the literal is at column 15.
    assert codes(tmp_path, "consts.py") == [("MSP104", 1, 15)]
    assert codes(tmp_path, "consts.py", Settings()) == []  # per-file mode: not MindSpore code


def test_a_pytorch_script_in_a_mindspore_project_stays_silent(tmp_path: Path):
    write(tmp_path, {
        "consts.py": "NUM_CLASSES = 1000\n",
        "train_ms.py": "import mindspore\nfrom consts import NUM_CLASSES\n",
        "torch_baseline.py": """
            import torchvision
            from consts import NUM_CLASSES
            net = torchvision.models.resnet50(num_classes=NUM_CLASSES)
        """,
    })
    assert codes(tmp_path, "torch_baseline.py") == []
    assert codes(tmp_path, "consts.py") == []  # the 1000 reaches only torchvision's resnet50


def test_context_project_is_none_in_per_file_mode_and_for_stdin(tmp_path: Path, monkeypatch):
    write(tmp_path, {"train.py": "import mindspore\n"})
    from ms_perflint.context import FileContext

    original = FileContext.project
    seen: list = []
    monkeypatch.setattr(FileContext, "project", property(lambda self: seen.append(original.fget(self)) or seen[-1]))
    source = "import mindspore.dataset as ds\nds.config.set_enable_autotune(True)\n"  # MSP105 asks the project

    def views(path: str, settings: Settings) -> list:
        seen.clear()
        lint_source(source, path, settings)
        return list(seen)

    per_file = views(str(tmp_path / "train.py"), Settings())
    stdin = views("-", PROJECT)
    project = views(str(tmp_path / "train.py"), PROJECT)
    assert per_file and all(view is None for view in per_file)
    assert stdin and all(view is None for view in stdin)
    assert project and all(view is not None and view.relative == "train.py" for view in project)


def test_bad_files_in_the_project_never_raise(tmp_path: Path):
    write(tmp_path, {
        "broken.py": "from mindspore.train import CheckpointConfig\nconfig = CheckpointConfig(\n",
        "binary.py": "",
        "config/bad.yaml": "model: resnet50\nnum_classes: [1000\n",
        "scripts/run.sh": 'python train.py --amp_level "O2\n',
        "model.py": """
            import mindspore.nn as nn
            from broken import something
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(16, 16)
        """,
    })
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00garbage\x00")
    assert codes(tmp_path, "model.py") == [("MSP101", 6, 19)]
    assert lint_file(str(tmp_path / "broken.py"), PROJECT).error.kind == "SyntaxError"
    completed = run_cli(".", "--quiet", cwd=tmp_path)
    assert completed.returncode == 1
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr


def test_cache_token_changes_with_any_file_of_the_project(tmp_path: Path):
    write(tmp_path, {"train.py": "import mindspore\n", "src/model.py": "import mindspore\n"})
    model = str(tmp_path / "src/model.py")
    first = cache_token(model, PROJECT)
    assert first and cache_token(model, PROJECT) == first
    assert cache_token(model, Settings()) == ""
    (tmp_path / "train.py").write_text("import mindspore\nfrom mindspore.train import Model\n")
    load_index(str(tmp_path), refresh=True)
    assert cache_token(model, PROJECT) != first


def test_a_cast_of_a_sub_cell_in_another_file_counts_for_its_instance_only(tmp_path: Path):
    write(tmp_path, {
        "model.py": """
            import mindspore.nn as nn

            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(64, 16)

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = Head()

            class Other(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(64, 16)
        """,
        "train.py": """
            import mindspore as ms
            from model import Net, Other

            net = Net()
            net.head.to_float(ms.float32)
            other = Other()
        """,
    })
    # The head is kept fp32 on purpose (a class the sub-cell is built from is covered, as within one
    # file); Other's Dense is cast by nothing and stays reported.
    assert codes(tmp_path, "model.py") == [("MSP101", 16, 19)]
