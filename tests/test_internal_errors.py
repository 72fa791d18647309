"""A rule that fails is one line per run, in every front end, and its findings elsewhere are kept.

Issue 23: MSP101 failed on one shape and the CLI printed its internal error once per file of a
9,000-file zoo (and MSP101 reported nothing anywhere). Now a rule decides program by program: a
failure loses that program's findings only, and it is reported once (which rule, the error, the
file it was deciding), by the file it was deciding when that file is checked, else by the first
file checked where the rule is on. The CLI exits 2 (internal error), as the README says.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from tests.conftest import write_project

PROGRAM = """
import mindspore as ms
from mindspore import nn, Model


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4096, 4096)
        self.fc2 = nn.Dense(4096, 4096)

    def construct(self, x):
        return self.fc2(self.fc1(x))


if __name__ == "__main__":
    ms.set_context(device_target="Ascend", mode=ms.GRAPH_MODE)
    net = Net()
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model.train(10, None, dataset_sink_mode=True)
"""

#: Two programs MSP101 reports on, and helpers that name no MindSpore program.
FILES = {"a_train.py": PROGRAM, "b_train.py": PROGRAM, **{f"util_{i}.py": "x = 1\n" for i in range(6)}}

#: MSP101 fails while deciding b_train.py's program only.
BREAK_ONE_PROGRAM = """
import ms_perflint.rules.msp101_fp32_matmul as rule
original = rule.program_precisions
def failing(check, training, program):
    if program.entry == "b_train.py":
        raise RecursionError("maximum recursion depth exceeded")
    return original(check, training, program)
rule.program_precisions = failing
"""

ERROR = ("MSP000 internal error in MSP101 (fp32-matmul) while deciding b_train.py: RecursionError: maximum recursion "
         "depth exceeded; its findings there are missing -- please report this")


def _run(main: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    probe = BREAK_ONE_PROGRAM + f"import sys\n{main}\n"
    return subprocess.run([sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def _lines(output: str, code: str) -> List[str]:
    """The report's lines of one code (``path:line:column: CODE message``)."""
    return [line for line in output.splitlines() if re.match(rf"[^ ]+:\d+:\d+: {code} ", line)]


def test_the_cli_prints_a_failed_rule_once_keeps_its_other_findings_and_exits_2(tmp_path: Path):
    write_project(tmp_path, FILES)
    completed = _run("from ms_perflint.cli import main\nsys.exit(main(sys.argv[1:]))", "--no-cache", ".",
                     cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    [error] = _lines(completed.stdout, "MSP000")
    assert error.startswith("b_train.py:1:1: ") and error.endswith(ERROR), error
    [kept] = _lines(completed.stdout, "MSP101")
    assert kept.startswith("a_train.py:"), completed.stdout
    assert "Traceback" not in completed.stderr


def test_the_cli_names_the_failure_once_when_the_file_it_was_deciding_is_not_checked(tmp_path: Path):
    write_project(tmp_path, FILES)
    args = ["--no-cache", "a_train.py", *[f"util_{i}.py" for i in range(6)]]
    completed = _run("from ms_perflint.cli import main\nsys.exit(main(sys.argv[1:]))", *args, cwd=tmp_path)
    assert completed.returncode == 2, completed.stderr
    [error] = _lines(completed.stdout, "MSP000")
    assert error.startswith("a_train.py:1:1: ") and error.endswith(ERROR), error


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_files_checked_alone_print_a_failed_rule_once(tmp_path: Path, jobs: str):
    """--no-project: each file is a project of its own, and the rule fails in each; one line names the first."""
    files = {"a_train.py": PROGRAM, **{f"b_train{i}.py": PROGRAM.replace("Net", f"Net{i}") for i in range(4)}}
    write_project(tmp_path, files)
    probe = BREAK_ONE_PROGRAM.replace('program.entry == "b_train.py"', 'program.entry.startswith("b_train")')
    completed = subprocess.run([sys.executable, "-c", probe + "import sys\nfrom ms_perflint.cli import main\n"
                                "sys.exit(main(sys.argv[1:]))", "--no-cache", "--no-project", "-j", jobs, "."],
                               cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 2, completed.stderr
    [error] = _lines(completed.stdout, "MSP000")
    assert error.startswith("b_train0.py:1:1: ") and "while deciding b_train0.py:" in error, completed.stdout
    assert len(_lines(completed.stdout, "MSP101")) == 1


def test_flake8_reports_a_failed_rule_once_and_the_rules_other_findings(tmp_path: Path):
    write_project(tmp_path, FILES)
    completed = _run("from flake8.main.cli import main\nsys.exit(main(sys.argv[1:]))", "--isolated", "-j", "1",
                     "--select", "MSP", ".", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    errors = _lines(completed.stdout, "MSP000")
    assert len(errors) == 1 and errors[0].endswith(ERROR), completed.stdout
    assert [line.split(":")[0] for line in _lines(completed.stdout, "MSP101")] == ["./a_train.py"]


@pytest.fixture
def one_program_breaks(monkeypatch):
    import ms_perflint.rules.msp101_fp32_matmul as rule

    original = rule.program_precisions

    def failing(check, training, program):
        if program.entry == "b_train.py":
            raise RecursionError("maximum recursion depth exceeded")
        return original(check, training, program)

    monkeypatch.setattr(rule, "program_precisions", failing)


def test_a_session_checking_file_by_file_shows_a_failed_rule_on_one_file(tmp_path: Path, one_program_breaks):
    """The editor server and flake8 check one file at a time with one session: the failure stays on the first
    file that showed it, shown again each time that file is checked, and on no other."""
    from ms_perflint.run.session import Session, SessionOptions

    write_project(tmp_path, FILES)
    session = Session(SessionOptions(jobs=1))

    def codes(name: str) -> List[str]:
        return [f.code for f in session.check([str(tmp_path / name)])[0].findings]

    assert codes("util_0.py") == ["MSP000"]
    assert codes("b_train.py") == []
    assert codes("a_train.py") == ["MSP101"]
    assert codes("util_0.py") == ["MSP000"]
    assert codes("util_1.py") == []
