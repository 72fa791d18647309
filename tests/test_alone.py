"""Files checked alone (``--no-project``, ``project = false``): a Python file that names no MindSpore package is
not analysed -- it cannot import one, so no rule can report in it -- but it fails as it would in a project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ms_perflint.project import index as index_module
from ms_perflint.run.session import Session, SessionOptions
from ms_perflint.sources import names_mindspore
from tests.conftest import REPO, run_cli, write_project

TRAINS = """\
import mindspore as ms
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
TORCH = """\
import torch
def save(model, step):
    torch.save(model.state_dict(), f"ckpt_{step}.pt")  # noqa: MSP103
"""


@pytest.fixture
def analysed(monkeypatch):
    """The paths the analysis was asked to read, in this process."""
    seen = []
    real = index_module.analyse

    def spy(unit, *args, **kwargs):
        seen.append(Path(unit.path).name)
        return real(unit, *args, **kwargs)

    monkeypatch.setattr(index_module, "analyse", spy)
    return seen


def alone(*paths: Path, jobs: int = 1):
    return Session(SessionOptions(project=False, cache_folder=None, jobs=jobs)).check([str(p) for p in paths])


def test_names_mindspore_looks_for_every_family_package():
    assert names_mindspore(b"from mindcv.models import create_model\n")
    assert names_mindspore(b"import mindformers\n")
    assert not names_mindspore(b"import torch\nmodel.train()\n")


def test_a_file_alone_that_names_no_mindspore_package_is_not_analysed(tmp_path, analysed):
    (tmp_path / "torch_train.py").write_text(TORCH)
    (tmp_path / "train.py").write_text(TRAINS)
    torch_result, ms_result = alone(tmp_path / "torch_train.py", tmp_path / "train.py")
    assert analysed == ["train.py"]
    assert torch_result.error is None and torch_result.findings == []
    assert [f.code for f in ms_result.findings] == ["MSP103"]


def test_in_a_project_the_same_file_is_analysed(tmp_path, analysed):
    root = write_project(tmp_path / "p", {"torch_train.py": TORCH, "train.py": TRAINS})
    Session(SessionOptions(cache_folder=None, jobs=1)).check([str(root / "torch_train.py")])
    assert sorted(analysed) == ["torch_train.py", "train.py"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_its_syntax_and_encoding_errors_are_still_reported(tmp_path, jobs):
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\ndef f(:\n    pass\n")
    undecodable = tmp_path / "latin.py"
    undecodable.write_bytes(b"# -*- coding: ascii -*-\nname = '\xc3\xa9'\n")
    fillers = []
    for number in range(16):  # enough files for the pool to start with -j2
        fillers.append(tmp_path / f"fill_{number}.py")
        fillers[-1].write_text("x = 1\n")
    results = alone(broken, undecodable, *fillers, jobs=jobs)
    assert results[0].error is not None and results[0].error.kind == "SyntaxError"
    assert (results[0].error.line, results[0].error.message) == (2, "invalid syntax")
    assert results[1].error is not None and results[1].error.kind == "DecodeError"
    assert all(r.error is None and not r.findings for r in results[2:])


HOSTILE = {
    "broken.py": "import torch\ndef f(:\n    pass\n",
    "continued.py": "import torch\nx = " + "lambda: \\\n" * 4000 + "1\n",
    "generic.py": "def first[T](items: list[T]) -> T:\n    return items[0]\n",  # PEP 695: libcst reads it before 3.12
}


def test_such_a_file_fails_or_passes_as_it_would_in_a_project(tmp_path):
    """Errors of files alone that are not analysed agree with the analysis: Python's parser may reject syntax
    libcst accepts (PEP 695 before 3.12), and deep nesting is refused before either parser sees it."""
    root = write_project(tmp_path / "p", HOSTILE)
    paths = [str(root / name) for name in sorted(HOSTILE)]
    in_project = Session(SessionOptions(cache_folder=None, jobs=1)).check(paths)
    on_their_own = alone(*paths)
    kinds = [[r.error.kind if r.error else None for r in results] for results in (in_project, on_their_own)]
    assert kinds[0] == kinds[1] == ["SyntaxError", "TooComplex", None]


def test_files_alone_in_workers_are_not_analysed_either(tmp_path):
    """The same with --jobs 2: the workers, which check whole files, skip them too."""
    log = tmp_path / "analysed.txt"
    code = ("import sys\nfrom ms_perflint.project import index\nreal = index.analyse\n"
            "def spy(unit, *a, **k):\n    open(sys.argv[1], 'a').write(unit.path + '\\n')\n    return real(unit, *a, **k)\n"
            "index.analyse = spy\nfrom ms_perflint.run.session import Session, SessionOptions\n"
            "Session(SessionOptions(project=False, cache_folder=None, jobs=2)).check(sys.argv[2:])\n")
    files = []
    for number in range(12):
        files.append(tmp_path / f"torch_{number}.py")
        files[-1].write_text(TORCH)
        files.append(tmp_path / f"train_{number}.py")
        files[-1].write_text(TRAINS)
    subprocess.run([sys.executable, "-c", code, str(log), *map(str, files)], check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    analysed = sorted(Path(line).name for line in log.read_text().split())
    assert analysed == sorted(f"train_{number}.py" for number in range(12))


def test_every_rules_invalid_example_names_a_mindspore_package():
    """What lets a file alone that names none be skipped: every example a rule reports in names one."""
    from ms_perflint.rules import ALL_RULES

    for rule in ALL_RULES:
        for example in rule.invalid:
            if getattr(example, "path", "example.py").endswith(".py"):
                assert names_mindspore(example.source.encode("utf-8")), (rule.code, example.source[:60])


def test_unused_noqa_is_still_audited_in_such_a_file(tmp_path):
    (tmp_path / "torch_train.py").write_text(TORCH)
    completed = run_cli("--no-project", "--no-cache", "--extend-select", "MSP001", "--output-format", "json",
                        "torch_train.py", cwd=tmp_path)
    assert [e["code"] for e in json.loads(completed.stdout)] == ["MSP001"], completed.stderr
