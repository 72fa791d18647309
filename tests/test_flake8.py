"""The flake8 plugin, through real flake8 processes: it agrees with the CLI, never goes silent (a rule that
fails and a file the analysis cannot read are ``MSP000``), and costs nothing when MSP codes are not selected.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from tests.conftest import run_cli, run_flake8

_FINDING = re.compile(r"^(?:\./)?(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+)\b", re.MULTILINE)

#: A training program with one MSP105 finding (4:5): Dataset AutoTune with the Profiler's data_process default.
GOOD = """\
import mindspore as ms
import mindspore.dataset as ds
if __name__ == "__main__":
    ds.config.set_enable_autotune(True)
    profiler = ms.Profiler()
"""
#: A training program with one MSP103 finding (3:14).
PROGRAM = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""


def parse(stdout: str) -> Set[Tuple[str, int, int, str]]:
    return {(Path(m["path"]).as_posix(), int(m["line"]), int(m["col"]), m["code"]) for m in _FINDING.finditer(stdout)}


def write(folder: Path, files: Dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return folder


def no_traceback(completed: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in completed.stdout + completed.stderr, completed.stdout + completed.stderr


# --------------------------------------------------------------------------- agreement with the CLI


#: A project whose findings need the project: train.py's program reaches the other files.
PROJECT = {
    "pyproject.toml": "[project]\nname = 'fixture'\n",
    "src/__init__.py": "",
    "src/dataset.py": """\
        import mindspore.dataset as ds


        def create_dataset(data_path, batch_size=32):
            ds.config.set_enable_autotune(True)
            return ds.MnistDataset(data_path).batch(batch_size)
        """,
    "src/model.py": """\
        import mindspore.nn as nn


        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(2048, 2048)
                self.fc2 = nn.Dense(2048, 10)

            def construct(self, x):
                return self.fc2(self.fc1(x))
        """,
    "src/callbacks.py": """\
        from mindspore.train import CheckpointConfig, ModelCheckpoint


        def checkpoint_callback(steps):
            config = CheckpointConfig(save_checkpoint_steps=steps)
            return ModelCheckpoint(prefix="net", config=config)
        """,
    "train.py": """\
        import mindspore as ms
        from mindspore.train import Model

        from src.callbacks import checkpoint_callback
        from src.dataset import create_dataset
        from src.model import Net


        def main():
            profiler = ms.Profiler(output_path="./profile")
            dataset = create_dataset("./mnist")
            model = Model(Net(), loss_fn=None, optimizer=None)
            model.train(1, dataset, callbacks=[checkpoint_callback(100)])
            profiler.analyse()


        if __name__ == "__main__":
            main()
        """,
    "tools/export.py": """\
        from src.callbacks import checkpoint_callback
        from src.model import Net

        if __name__ == "__main__":
            callback = checkpoint_callback(1)
            net = Net()
        """,
}
#: Read off the files above: the callback's config (MSP103; Net has 4.2 M parameters, not a small network), AutoTune under train.py's Profiler (MSP105),
#: Model(...) without mixed precision over src/model.py's Dense layers (MSP101), and the Profiler that nothing stops before
#: training ends (MSP502); no mode is set and no release declared, so the current release trains it in PyNative (MSP202).
PROJECT_FINDINGS = {
    ("src/callbacks.py", 5, 14, "MSP103"),
    ("src/dataset.py", 5, 5, "MSP105"),
    ("train.py", 10, 16, "MSP502"),
    ("train.py", 12, 13, "MSP101"),
    ("train.py", 13, 5, "MSP202"),
}
#: What train.py shows alone (no project): its Profiler profiles every step of the training it runs (MSP502).
ALONE_FINDINGS = {("train.py", 10, 16, "MSP502")}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("project"), PROJECT)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_flake8_agrees_with_the_cli_on_a_project(project: Path, jobs: str):
    """Serial and with worker processes (each worker keeps its own session and project indexes)."""
    cli = run_cli("--quiet", "--no-cache", ".", cwd=project)
    assert parse(cli.stdout) == PROJECT_FINDINGS, cli.stdout + cli.stderr
    completed = run_flake8("--select", "MSP", "-j", jobs, ".", cwd=project)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    no_traceback(completed)
    assert parse(completed.stdout) == PROJECT_FINDINGS


def test_a_file_named_alone_is_still_checked_with_its_project(project: Path):
    for completed in (run_cli("--quiet", "src/dataset.py", cwd=project),
                      run_flake8("--select", "MSP", "src/dataset.py", cwd=project)):
        assert parse(completed.stdout) == {("src/dataset.py", 5, 5, "MSP105")}, completed.stdout + completed.stderr


def test_project_false_turns_project_mode_off_in_cli_and_flake8(tmp_path: Path):
    write(tmp_path, PROJECT)
    alone = run_cli("--quiet", "--no-cache", "--no-project", ".", cwd=tmp_path)
    # train.py alone cannot see src/ (src/ runs no program): only what train.py decides by itself is left.
    assert parse(alone.stdout) == ALONE_FINDINGS, alone.stdout
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'fixture'\n[tool.ms-perflint]\nproject = false\n")
    assert parse(run_cli("--quiet", "--no-cache", ".", cwd=tmp_path).stdout) == ALONE_FINDINGS
    flake8 = run_flake8("--select", "MSP", ".", cwd=tmp_path)
    assert parse(flake8.stdout) == ALONE_FINDINGS, flake8.stdout + flake8.stderr


def test_flake8_reads_standard_input_with_and_without_a_display_name(tmp_path: Path):
    """An editor sends its unsaved buffer: the text checked is flake8's, not the file on disk."""
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n",
                     "train.py": PROGRAM.replace("steps=10)", "steps=10, async_save=True)")})
    named = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "MSP", "--stdin-display-name",
                            "train.py", "-"], input=PROGRAM, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert parse(named.stdout) == {("train.py", 3, 14, "MSP103")}, named.stdout + named.stderr
    anonymous = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "MSP", "-"], input=PROGRAM,
                               cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert parse(anonymous.stdout) == {("stdin", 3, 14, "MSP103")}, anonymous.stdout + anonymous.stderr
    assert "MSP000" not in anonymous.stdout  # it used to try to read a file named "stdin"


def test_a_notebook_named_to_flake8_is_reported_where_its_cell_line_is_in_the_json(tmp_path: Path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["import mindspore as ms\n", "from mindspore.train import CheckpointConfig, Model, ModelCheckpoint"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": ["x = 1\n", "config = CheckpointConfig(save_checkpoint_steps=10)\n",
                    "Model(net).train(1, data, callbacks=[ModelCheckpoint(config=config)])"]},
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    (tmp_path / "course.ipynb").write_text(text, encoding="utf-8")
    completed = run_flake8("--select", "MSP", "course.ipynb", cwd=tmp_path)
    json_line = 1 + text.splitlines().index('    "config = CheckpointConfig(save_checkpoint_steps=10)\\n",')
    [line] = completed.stdout.splitlines()
    assert line.startswith(f"course.ipynb:{json_line}:5: MSP103 (cell 3, line 2) CheckpointConfig without"), line


# --------------------------------------------------------------------------- never silent


def run_flake8_with_failing_rule(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """flake8 in a process where MSP105's ``check`` raises, as a rule with a bug would."""
    probe = (
        "import sys\n"
        "from ms_perflint.rules.msp105_autotune_with_profiler import AutotuneWithProfiler\n"
        "def broken(self, check):\n"
        "    raise ValueError('a bug in the rule')\n"
        "AutotuneWithProfiler.check = broken\n"
        "from flake8.main.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run([sys.executable, "-c", probe, "--isolated", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


FAILED_RULE = "MSP000 internal error in MSP105 (autotune-with-profiler): ValueError: a bug in the rule"


def test_a_rule_that_fails_is_reported_and_the_other_rules_still_report(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "a_util.py": "x = 1\n", "b_train.py": PROGRAM})
    completed = run_flake8_with_failing_rule("--select", "MSP", ".", cwd=tmp_path)
    assert completed.returncode == 1
    no_traceback(completed)
    assert ("b_train.py", 3, 14, "MSP103") in parse(completed.stdout)
    assert FAILED_RULE in completed.stdout, completed.stdout


def test_a_rule_that_fails_is_reported_when_only_another_file_of_the_project_is_checked(tmp_path: Path):
    write(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "a_util.py": "x = 1\n", "b_train.py": PROGRAM})
    completed = run_flake8_with_failing_rule("--select", "MSP", "b_train.py", cwd=tmp_path)
    assert ("b_train.py", 3, 14, "MSP103") in parse(completed.stdout)
    assert FAILED_RULE in completed.stdout, completed.stdout


def test_files_the_analysis_cannot_read_are_reported(tmp_path: Path):
    """flake8 reads them (it falls back to latin-1, it has no size limit); the analysis cannot: MSP000 at 1:1."""
    write(tmp_path, {
        "pyproject.toml": "[tool.ms-perflint]\nmax-file-size = 2000\n",
        "good.py": GOOD,
        "cookie.py": "# -*- coding: no-such-codec -*-\nimport mindspore\n",
        "large.py": GOOD + "# padding\n" * 300,
    })
    completed = run_flake8("--select", "MSP", "good.py", "cookie.py", "large.py", cwd=tmp_path, isolated=False)
    assert completed.returncode == 1
    no_traceback(completed)
    lines = sorted(completed.stdout.splitlines())
    assert len(lines) == 3, lines
    assert lines[0].startswith("cookie.py:1:1: MSP000 DecodeError: cannot decode file: unknown encoding")
    assert lines[1].startswith("good.py:4:5: MSP105 ")
    assert lines[2].startswith("large.py:1:1: MSP000 TooLarge: not checked: ") and "max-file-size" in lines[2]


HEADER = "import mindspore.dataset as ds\nds.config.set_enable_autotune(True)\n"


def test_flake8_with_every_kind_of_bad_file(tmp_path: Path):
    """flake8 reports its own E902/E999 for unreadable and invalid files; the plugin adds no traceback,
    and the good files are still checked. (No FIFO: flake8 itself blocks reading one.)"""
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text(HEADER + "def train(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(HEADER.encode() + b"name = 'caf\xe9'\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "weights.py").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    (tmp_path / "gone.py").symlink_to(tmp_path / "deleted.py")
    (tmp_path / "model.py").mkdir()
    (tmp_path / "model.py" / "inner.py").write_text(GOOD)
    (tmp_path / "brackets.py").write_text(HEADER + "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (tmp_path / "moderate.py").write_text(HEADER + "for step in range(3):\n    x = " + "+".join(["step"] * 300) + "\n")
    completed = run_flake8(
        "--select", "MSP,E9", "good.py", "broken.py", "latin.py", "empty.py", "weights.py", "gone.py",
        "model.py", "brackets.py", "moderate.py", cwd=tmp_path,
    )
    no_traceback(completed)
    assert completed.returncode == 1
    reported = completed.stdout.splitlines()
    assert any(line.startswith("good.py:4:5: MSP105 ") for line in reported), reported
    assert any(line.startswith("model.py/inner.py:4:5: MSP105 ") for line in reported), reported
    for name in ("broken.py", "weights.py", "gone.py", "brackets.py"):
        assert any(line.startswith(name + ":") and " E9" in line for line in reported), (name, reported)
    # flake8 falls back to latin-1 for undecodable text, so latin.py is checked, and has no finding.
    assert not any(line.startswith(("empty.py:", "moderate.py:", "latin.py:")) for line in reported), reported


# --------------------------------------------------------------------------- cost


def loaded_by_flake8(*args: str, cwd: Path) -> Tuple[List[str], str]:
    """Modules of libcst and ms_perflint that one in-process flake8 run (serial) imported, and its output."""
    probe = (
        "import sys\n"
        "from flake8.main.application import Application\n"
        "app = Application()\n"
        "app.run(sys.argv[1:])\n"
        "print('LOADED', ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('libcst', 'ms_perflint'))))\n"
    )
    completed = subprocess.run([sys.executable, "-c", probe, "--isolated", "-j", "1", *args], cwd=cwd,
                               capture_output=True, text=True, timeout=120)
    loaded = [line for line in completed.stdout.splitlines() if line.startswith("LOADED")]
    assert loaded, completed.stdout + completed.stderr
    return loaded[0].split()[1:], completed.stdout


def test_flake8_without_msp_codes_never_imports_libcst(tmp_path: Path):
    (tmp_path / "train.py").write_text(PROGRAM)
    modules, output = loaded_by_flake8("--select", "E,F,W", "train.py", cwd=tmp_path)
    assert "F821 undefined name 'net'" in output  # flake8 did check the file
    assert not [m for m in modules if m.startswith("libcst")], modules
    assert set(modules) <= {"ms_perflint", "ms_perflint.flake8_plugin"}, modules
    # the probe is honest: with MSP selected the same run does import libcst, and reports
    modules, output = loaded_by_flake8("--select", "MSP", "train.py", cwd=tmp_path)
    assert "libcst" in modules and "train.py:3:14: MSP103 " in output


def test_a_file_saved_with_crlf_line_ends_is_checked_from_disk_not_as_an_unsaved_buffer(tmp_path: Path, monkeypatch):
    """flake8 hands lines over with universal newlines; that is the file on disk, whose decisions are cached."""
    from ms_perflint import flake8_plugin
    from ms_perflint.run.session import Session

    (tmp_path / "pyproject.toml").write_text("")
    source = "import mindspore as ms\r\nfrom mindspore.train import CheckpointConfig\r\nCheckpointConfig()\r\n"
    (tmp_path / "train.py").write_bytes(source.encode("utf-8"))
    overlays = []
    check = Session.check

    def spy(self, paths):
        overlays.append(dict(self.overlay))
        return check(self, paths)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Session, "check", spy)
    monkeypatch.setattr(flake8_plugin, "_SESSIONS", [])
    lines = source.replace("\r\n", "\n").splitlines(keepends=True)  # as flake8's FileProcessor reads them
    list(flake8_plugin.Plugin(None, lines, "train.py").run())
    edited = [line.replace("CheckpointConfig()", "CheckpointConfig(async_save=True)") for line in lines]
    list(flake8_plugin.Plugin(None, edited, "train.py").run())
    assert overlays == [{}, {str(tmp_path / "train.py"): "".join(edited).encode("utf-8")}]


# --------------------------------------------------------------------------- codes only the CLI reports


NOTE = ("ms-perflint: MSP001 (unused-noqa) is reported by the ms-perflint command only: flake8 applies `# noqa` "
        "itself; run `ms-perflint --select MSP001 PATH` to find unused suppressions\n")


@pytest.mark.parametrize("args", [["--select", "MSP001"], ["--extend-select", "MSP001"],
                                  ["--select", "E9,MSP001", "-j", "2"]])
def test_selecting_a_cli_only_code_says_so_once_per_run(tmp_path: Path, args: List[str]):
    write(tmp_path, {"a.py": "x = 1  # noqa: MSP103\n", "b.py": "y = 2  # noqa: MSP103\n", "c.py": "z = 3\n"})
    completed = run_flake8(*args, ".", cwd=tmp_path)
    assert completed.stderr == NOTE, completed.stderr
    no_traceback(completed)


def test_no_note_when_the_cli_only_code_is_not_named(tmp_path: Path):
    write(tmp_path, {"a.py": "x = 1  # noqa: MSP103\n"})
    for args in (["--select", "MSP"], ["--select", "E9"]):
        assert run_flake8(*args, ".", cwd=tmp_path).stderr == ""
