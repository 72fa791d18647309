"""Analysing many files: worker processes, crashes, interrupts, and the project index kept on disk.

A pool must give exactly what one process gives; a file that kills its worker is
that file's error, not the run's; an interrupted run ends at once with its workers;
workers never outlive the parent. The index (``project/index.py``) is persisted as
``project-<format>-<hash>.json`` in the cache folder, keyed by content hash; an entry that
does not read back is a miss.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import pytest

from ms_perflint.project import index as index_module
from ms_perflint.run import lint as lint_module
from ms_perflint.project.index import ProjectIndex, walk_project
from ms_perflint.run import pool
from ms_perflint.run.pool import Extractor, auto_jobs
from tests.conftest import FIXTURES, REPO, run_cli

LINUX = sys.platform.startswith("linux")
needs_linux = pytest.mark.skipif(not LINUX, reason="forked workers, /proc and PR_SET_PDEATHSIG are Linux's")

PROGRAM = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
FINDING = ":3:14: MSP103 [*] "


def snapshot(records) -> List[tuple]:
    """Everything a record carries, comparable (stored facts are read back first)."""
    return [(r.kind, r.digest, r.error, json.dumps(r.loaded_facts().to_json(), sort_keys=True)
             if r.loaded_facts() else None) for r in records]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """Every fixture, copied three times, plus files that cannot be analysed; a project of its own."""
    root = tmp_path_factory.mktemp("many")
    (root / "pyproject.toml").write_text("[project]\nname = 'many'\n")
    for copy in range(3):
        shutil.copytree(FIXTURES, root / f"copy{copy}", ignore=shutil.ignore_patterns("*.fixed", "*.expected", "*.md"))
    (root / "broken.py").write_text("from mindspore.train import CheckpointConfig\ndef f(:\n")
    (root / "latin1.py").write_bytes(b"import mindspore\nx = '\xe9'\n")  # not UTF-8, no coding cookie
    (root / "empty.py").write_text("")
    for number in range(20):
        (root / f"train{number:02}.py").write_text(PROGRAM)
    return root


def jobs_of(root: Path) -> List[tuple]:
    return [(relative, str(root / relative), kind) for relative, kind in walk_project(str(root))]


# --------------------------------------------------------------------------- one process or many


def test_the_tree_has_facts_and_errors(tree):
    records = Extractor(jobs=1)(jobs_of(tree))
    assert len(records) > 20 and sum(1 for r in records if r.facts is not None) > 20
    assert {r.error.kind for r in records if r.error} == {"SyntaxError", "DecodeError"}


@needs_linux
def test_two_workers_give_exactly_what_one_process_gives_in_the_jobs_order(tree):
    jobs = list(reversed(jobs_of(tree)))
    assert snapshot(Extractor(jobs=2)(jobs)) == snapshot(Extractor(jobs=1)(jobs))


def test_auto_jobs_keeps_few_files_in_process(monkeypatch):
    monkeypatch.setattr(pool, "available_cores", lambda: 2)
    assert [auto_jobs(n) for n in (0, 1, 7, 15, 16, 500)] == [1, 1, 1, 1, 2, 2]
    monkeypatch.setattr(pool, "available_cores", lambda: 8)
    assert auto_jobs(40) == 5


def test_auto_mode_starts_no_pool_for_a_few_files(tree, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("started a pool for a handful of files")

    monkeypatch.setattr(Extractor, "_in_pool", no_pool)
    assert len(Extractor()(jobs_of(tree)[:5])) == 5


def test_cli_jobs_two_prints_the_same_as_jobs_one(tree):
    one = run_cli(".", "--isolated", "--no-cache", "--jobs", "1", cwd=tree)
    two = run_cli(".", "--isolated", "--no-cache", "--jobs", "2", cwd=tree)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    assert one.stdout.count(": MSP1") > 20 and "broken.py:2:7: SyntaxError" in one.stdout


@pytest.mark.parametrize("bad", ["-1", "two", "1.5"])
def test_cli_rejects_a_bad_job_count(tmp_path, bad):
    completed = run_cli(".", "--jobs", bad, cwd=tmp_path)
    assert completed.returncode == 2
    assert "is not a number of processes" in completed.stderr and "Traceback" not in completed.stderr


# --------------------------------------------------------------------------- a file that kills its worker


def _dies_on(name: str, how: str):
    """An ``analyse`` that kills the process analysing ``name`` (as a crash in libcst or the memory killer would)."""
    real = index_module.analyse

    def analyse(unit, *args, **kwargs):
        if unit.path.endswith(name):
            if how == "segfault":
                import ctypes

                ctypes.string_at(0)
            os.kill(os.getpid(), signal.SIGKILL)
        return real(unit, *args, **kwargs)

    return analyse


def _nineteen_programs_and(tmp_path, name: str, text: str = PROGRAM) -> None:
    """19 good files ``fNN.py`` and one more, ``name``: enough for two workers."""
    for number in range(19):
        (tmp_path / f"f{number:02}.py").write_text(PROGRAM)
    (tmp_path / name).write_text(text)


@needs_linux
def test_a_file_that_kills_its_worker_is_that_files_error(tmp_path, monkeypatch):
    _nineteen_programs_and(tmp_path, "crash.py")
    monkeypatch.setattr(index_module, "analyse", _dies_on("crash.py", "kill"))  # the forked workers inherit it
    isolated = []
    real_isolated = pool._isolated
    monkeypatch.setattr(pool, "_isolated", lambda job, *rest: isolated.append(job[0]) or real_isolated(job, *rest))
    jobs = jobs_of(tmp_path)
    records = Extractor(jobs=2)(jobs)
    # Only files a worker had started are suspects, each re-run alone; the rest went to a fresh pool.
    assert "crash.py" in isolated and len(isolated) <= 2
    by_name = {job[0]: record for job, record in zip(jobs, records)}
    crashed = by_name.pop("crash.py")
    assert not crashed.has_facts() and crashed.error.kind == "Crash"
    assert crashed.error.message == ("analysing this file crashed its worker process (killed by signal 9); "
                                     "the file was skipped")
    assert len(by_name) == 19 and all(r.has_facts() and r.error is None for r in by_name.values())


CRASHING_CLI = """\
import sys
from ms_perflint.project import index
from tests.test_pool import _dies_on
index.analyse = _dies_on("crash.py", "segfault")
from ms_perflint.cli import main
sys.exit(main(sys.argv[1:]))
"""


@needs_linux
def test_a_pool_that_breaks_while_jobs_are_handed_out_still_gives_every_record(tree, monkeypatch):
    """A worker can die before every job is submitted: submit() then raises, and the jobs not handed out yet are
    run all the same (it used to end the run with a traceback)."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    real_submit = ProcessPoolExecutor.submit
    handed = []

    def breaking(self, *args, **kwargs):
        handed.append(1)
        if len(handed) == 3:
            raise BrokenProcessPool("a worker died")
        return real_submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", breaking)
    jobs = jobs_of(tree)[:12]
    records = Extractor(jobs=2)(jobs)
    monkeypatch.setattr(ProcessPoolExecutor, "submit", real_submit)
    assert snapshot(records) == snapshot(Extractor(jobs=1)(jobs))


@needs_linux
def test_a_segfault_in_one_of_20_files_with_two_jobs_gives_every_other_files_findings(tmp_path):
    _nineteen_programs_and(tmp_path, "crash.py")
    completed = subprocess.run(
        [sys.executable, "-X", "faulthandler=0", "-c", CRASHING_CLI, "--no-cache", "-j", "2", "-q", "."],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "NO_COLOR": "1", "PYTHONFAULTHANDLER": ""})
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[0] == ("crash.py:1:1: Crash: analysing this file crashed its worker process (killed by signal 11); "
                        "the file was skipped")
    assert sorted(line.split(":")[0] for line in lines[1:]) == [f"f{number:02}.py" for number in range(19)]
    assert all(FINDING in line for line in lines[1:])
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr


@needs_linux
def test_a_hostile_file_among_20_with_two_jobs(tmp_path):
    """``x = lambda: \\`` continued 4,000 times: reported as that file's error, every other file checked."""
    _nineteen_programs_and(tmp_path, "hostile.py", "x = " + "lambda: \\\n" * 4000 + "1\n")
    completed = run_cli("--no-cache", "-j", "2", "-q", ".", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    lines = completed.stdout.splitlines()
    assert [line for line in lines if line.startswith("hostile.py")] == [
        "hostile.py:1:1: TooComplex: expressions are nested too deeply to analyse"]
    assert sum(1 for line in lines if FINDING in line) == 19


# --------------------------------------------------------------------------- interrupts and the parent's death


def _status(pid: int) -> Optional[tuple]:
    """``(state, parent pid)`` from /proc, or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat") as stream:
            fields = stream.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1])


def workers_of(parent: int) -> List[int]:
    """Live children of ``parent`` running the same command (forked workers)."""
    try:
        with open(f"/proc/{parent}/cmdline", "rb") as stream:
            command = stream.read()
    except OSError:
        return []
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (_status(int(entry)) or ("", 0))[1] == parent:
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as stream:
                    if stream.read() == command and _status(int(entry))[0] != "Z":
                        found.append(int(entry))
            except OSError:
                continue
    return found


def alive(pid: int) -> bool:
    status = _status(pid)
    return status is not None and status[0] != "Z"


@pytest.fixture(scope="module")
def slow_project(tmp_path_factory) -> Path:
    """Enough code that analysing it with two workers takes a few seconds."""
    root = tmp_path_factory.mktemp("slow")
    (root / "pyproject.toml").write_text("[project]\nname = 'slow'\n")
    filler = "".join(f"def f{i}(x):\n    y = x + {i}\n    return [y * k for k in range(10) if k % 2]\n" for i in range(150))
    for number in range(60):
        (root / f"m{number:02}.py").write_text(filler + PROGRAM)
    return root


def start_with_workers(root: Path, *args: str) -> tuple:
    """Start ``ms-perflint -j 2 ARGS .`` and wait until both workers run; returns (process, worker pids)."""
    process = subprocess.Popen([sys.executable, "-m", "ms_perflint", "--no-cache", "-j", "2", *args, "."], cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    workers: List[int] = []
    while time.monotonic() < deadline and process.poll() is None:
        workers = workers_of(process.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.01)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(0.2)  # well into the analysis
    assert process.poll() is None, "the run ended before it could be interrupted; give it more to do"
    return process, workers


def stop(process: subprocess.Popen, signum: int) -> tuple:
    """Send ``signum``; returns (seconds until the process ended, exit code, stderr)."""
    sent = time.monotonic()
    process.send_signal(signum)
    try:
        code = process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    took = time.monotonic() - sent
    _, stderr = process.communicate()
    return took, code, stderr


def gone_soon(pids: List[int], within: float = 2.0) -> List[int]:
    """The pids still alive after ``within`` seconds (PR_SET_PDEATHSIG acts at once; allow for a busy machine)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


@needs_linux
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_ends_the_run_and_its_workers_within_a_second(slow_project, signum, code):
    process, workers = start_with_workers(slow_project)
    took, exit_code, stderr = stop(process, signum)
    assert took < 1.0, f"the run took {took:.2f}s to stop"
    assert exit_code == code
    assert stderr == "ms-perflint: interrupted\n"
    assert gone_soon(workers, within=0.5) == []


@needs_linux
def test_killing_the_parent_leaves_no_worker_running(slow_project):
    process, workers = start_with_workers(slow_project)
    took, exit_code, _ = stop(process, signal.SIGKILL)
    assert exit_code == -signal.SIGKILL
    assert gone_soon(workers) == [], "workers outlived their parent"


@needs_linux
def test_an_interrupted_fix_says_no_file_was_written(slow_project):
    before = {path.name: path.read_bytes() for path in slow_project.glob("*.py")}
    process, _ = start_with_workers(slow_project, "--fix")
    took, exit_code, stderr = stop(process, signal.SIGTERM)
    assert exit_code == 143 and took < 1.0
    assert stderr == "ms-perflint: interrupted; no file was written\n"
    assert {path.name: path.read_bytes() for path in slow_project.glob("*.py")} == before


INTERRUPTED_WRITES = """\
import os, signal, sys
from ms_perflint.fix import writer
real = writer.write_atomic
count = [0]

def write_then_interrupt(path, data, expected):
    real(path, data, expected)
    count[0] += 1
    if count[0] == 3:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C just as the third file is replaced
    for _ in range(1000):  # bytecodes enough for Python to run a pending handler here
        pass

writer.write_atomic = write_then_interrupt
from ms_perflint.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_an_interrupt_while_writing_fixes_names_the_files_written(tmp_path):
    for name in "abcde":
        (tmp_path / f"{name}.py").write_text(PROGRAM)
    completed = subprocess.run([sys.executable, "-c", INTERRUPTED_WRITES, "--no-cache", "--fix", "."], cwd=tmp_path,
                               capture_output=True, text=True, timeout=120,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert completed.returncode == 130, completed.stderr
    fixed = sorted(path.name for path in tmp_path.glob("*.py") if "async_save=True" in path.read_text())
    assert fixed == ["a.py", "b.py", "c.py"]
    assert completed.stderr == ("ms-perflint: interrupted after writing 3 fixed files: a.py, b.py, c.py; "
                                "2 files left as they were\n")


# --------------------------------------------------------------------------- the index on disk


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "train.py").write_text(PROGRAM)
    (tmp_path / "clean.py").write_text("import mindspore\nprint(mindspore.__version__)\n")
    (tmp_path / "broken.py").write_text("from mindspore.train import CheckpointConfig\ndef f(:\n")
    return tmp_path


def index_files(cache: Path) -> List[Path]:
    return sorted(cache.glob(f"project-{index_module.INDEX_FORMAT}-*.json"))


def test_the_index_is_persisted_and_a_rerun_reads_nothing(project, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    first = ProjectIndex(str(project), str(cache)).refresh()
    assert (first.read_count, first.analysed_count) == (3, 3)
    [stored] = index_files(cache)
    assert json.loads(stored.read_text())["root"] == str(project)
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    again = ProjectIndex(str(project), str(cache)).refresh()
    assert (again.read_count, again.analysed_count) == (0, 0)
    again.facts()  # reads the stored facts
    assert snapshot(again.files.values()) == snapshot(first.files.values())


def test_a_touched_file_is_read_again_but_not_analysed_an_edited_one_is(project, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    ProjectIndex(str(project), str(cache)).refresh()
    os.utime(project / "clean.py", ns=(1, 1))
    (project / "train.py").write_text(PROGRAM.replace("steps=10", "steps=20"))
    again = ProjectIndex(str(project), str(cache)).refresh()
    assert (again.read_count, again.analysed_count) == (2, 1)


@pytest.mark.parametrize(
    "damage",
    [b"", b"{", b"\x00\xff garbage", b"[]", b'{"format": 1}', b'{"files": {"train.py": {"kind": "python"}}}'],
    ids=["empty", "truncated", "binary", "wrong-shape", "old-format", "missing-fields"],
)
def test_a_damaged_index_is_a_miss_and_is_rebuilt(project, tmp_path_factory, damage):
    cache = tmp_path_factory.mktemp("cache")
    first = ProjectIndex(str(project), str(cache)).refresh()
    [stored] = index_files(cache)
    stored.write_bytes(damage)
    rebuilt = ProjectIndex(str(project), str(cache)).refresh()
    assert rebuilt.analysed_count == 3
    assert snapshot(rebuilt.files.values()) == snapshot(first.files.values())
    assert json.loads(stored.read_text())["files"].keys() == {"train.py", "clean.py", "broken.py"}


@pytest.mark.parametrize("field, bad", [(4, ["X"]), (1, "big")], ids=["error", "size"])
def test_one_bad_record_is_a_miss_for_that_file_only(project, tmp_path_factory, field, bad):
    cache = tmp_path_factory.mktemp("cache")
    ProjectIndex(str(project), str(cache)).refresh()
    [stored] = index_files(cache)
    data = json.loads(stored.read_text())
    data["files"]["train.py"][field] = bad
    stored.write_text(json.dumps(data))
    again = ProjectIndex(str(project), str(cache)).refresh()
    assert (again.read_count, again.analysed_count) == (1, 1)
    assert again.files["train.py"].facts is not None


@pytest.mark.parametrize("damage", [b"", b"{", b'{"kind": "python", "module": 5}', b"[1, 2]"],
                         ids=["empty", "truncated", "wrong-types", "wrong-shape"])
def test_damaged_stored_facts_are_a_miss_for_that_file_only(project, tmp_path_factory, damage):
    cache = tmp_path_factory.mktemp("cache")
    first = ProjectIndex(str(project), str(cache)).refresh()
    expected = first.facts()["train.py"].to_json()
    stored = sorted((cache / "facts").rglob("*.json"))
    assert len(stored) == 2  # train.py and clean.py (broken.py has an error, no facts)
    for path in stored:
        path.write_bytes(damage)
    again = ProjectIndex(str(project), str(cache)).refresh()
    assert again.facts()["train.py"].to_json() == expected


def test_an_index_of_another_version_is_not_used(project, tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    ProjectIndex(str(project), str(cache)).refresh()
    [stored] = index_files(cache)
    data = json.loads(stored.read_text())
    data["version"] = "0.0.0-other"
    stored.write_text(json.dumps(data))
    assert ProjectIndex(str(project), str(cache)).refresh().analysed_count == 3


def imported_modules(stderr: str) -> List[str]:
    return [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")]


def test_cli_cached_rerun_prints_the_same_and_never_imports_libcst(project):
    first = run_cli(".", "--isolated", cwd=project)
    assert first.returncode == 1, first.stderr
    assert "broken.py:2:7: SyntaxError" in first.stdout and "train.py" + FINDING in first.stdout
    assert len(index_files(project / ".ms_perflint_cache")) == 1
    second = subprocess.run([sys.executable, "-X", "importtime", "-m", "ms_perflint", ".", "--isolated"], cwd=project,
                            capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    assert (second.stdout, second.returncode) == (first.stdout, first.returncode)
    modules = imported_modules(second.stderr)
    assert "ms_perflint.cli" in modules  # the import log is really there
    assert not [name for name in modules if name == "libcst" or name.startswith("libcst.")]


def test_an_edit_that_leaves_the_facts_as_they_were_keeps_the_decisions(project, tmp_path_factory, monkeypatch):
    """Decisions depend on the files' facts only: a new comment at the end re-analyses that file but runs no rule;
    a changed value does."""
    from ms_perflint.run.session import Session, SessionOptions

    cache = str(tmp_path_factory.mktemp("cache"))
    decided = []
    real = lint_module.decide_parts
    monkeypatch.setattr(lint_module, "decide_parts", lambda *a, **k: decided.append(1) or real(*a, **k))

    def check():
        [result] = Session(SessionOptions(cache_folder=cache, jobs=1)).check([str(project / "train.py")])
        return [(f.code, f.line, f.column, f.message) for f in result.findings]

    first = check()
    assert decided == [1] and first
    with open(project / "train.py", "a") as handle:
        handle.write("# a comment: the same facts\n")
    assert check() == first and decided == [1]
    text = (project / "train.py").read_text()
    (project / "train.py").write_text(text.replace("save_checkpoint_steps=10", "save_checkpoint_steps=20"))
    assert check() and decided == [1, 1]


def test_cli_sees_an_edited_file_at_once(project):
    assert "train.py" + FINDING in run_cli(".", "--isolated", cwd=project).stdout
    (project / "train.py").write_text(PROGRAM.replace("steps=10)", "steps=10, async_save=True)"))
    assert "train.py:" not in run_cli(".", "--isolated", cwd=project).stdout


def test_a_file_rewritten_with_its_size_and_time_kept_is_checked_as_it_is(project):
    """The index trusts size and mtime (`cp -p`, `rsync -t`, tar keep them): the bytes read decide."""
    first = run_cli(".", "--isolated", "-q", cwd=project)
    assert "train.py" + FINDING in first.stdout
    status = os.stat(project / "train.py")
    rewritten = PROGRAM.replace("save_checkpoint_steps=10", "async_save=True, x=12345")
    assert len(rewritten) == len(PROGRAM)
    (project / "train.py").write_text(rewritten)
    os.utime(project / "train.py", ns=(status.st_atime_ns, status.st_mtime_ns))
    again = run_cli(".", "--isolated", "-q", cwd=project)
    assert "train.py:" not in again.stdout, again.stdout
    assert again.stdout.startswith("broken.py:2:7: SyntaxError")


def test_cli_selection_changes_what_a_cached_run_reports(project):
    assert "train.py" + FINDING in run_cli(".", "--isolated", cwd=project).stdout
    ignored = run_cli(".", "--isolated", "--ignore", "MSP103", cwd=project)
    assert "MSP103" not in ignored.stdout and "broken.py:2:7: SyntaxError" in ignored.stdout


def test_cli_no_cache_writes_nothing_and_cache_dir_moves_it(project, tmp_path_factory):
    plain = run_cli(".", "--isolated", "--no-cache", cwd=project)
    assert not (project / ".ms_perflint_cache").exists()
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cache"
    moved = run_cli(".", "--isolated", "--cache-dir", str(elsewhere), cwd=project)
    assert moved.stdout == plain.stdout and "train.py" + FINDING in plain.stdout
    assert not (project / ".ms_perflint_cache").exists()
    assert len(index_files(elsewhere)) == 1


def test_cli_with_an_unwritable_cache_still_reports(project):
    (project / "blocker").write_text("not a folder")
    completed = run_cli(".", "--isolated", "--cache-dir", str(project / "blocker" / "cache"), cwd=project)
    assert completed.returncode == 1
    assert "train.py" + FINDING in completed.stdout
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr


def test_two_runs_at_once_share_one_index_without_damage(project):
    for number in range(30):
        (project / f"m{number:02}.py").write_text(PROGRAM)
    command = [sys.executable, "-m", "ms_perflint", ".", "--isolated", "-q"]
    runs = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outputs = [process.communicate(timeout=120) for process in runs]
    assert outputs[0] == outputs[1] and outputs[0][0].count(FINDING) == 31 and outputs[0][1] == ""
    [stored] = index_files(project / ".ms_perflint_cache")
    assert len(json.loads(stored.read_text())["files"]) == 33
    assert not list((project / ".ms_perflint_cache").glob("*.tmp"))
    assert ProjectIndex(str(project), str(project / ".ms_perflint_cache")).refresh().read_count == 0


def test_the_index_lock_excludes_another_process_until_released(tmp_path):
    """While one process holds the index lock, another waits for it (and gets it once it is released)."""
    from ms_perflint.project.index import _locked

    lock = str(tmp_path / "cache" / "project.lock")
    log = tmp_path / "log.txt"
    take = ("import sys; from ms_perflint.project.index import _locked\n"
            "with _locked(sys.argv[1]):\n    open(sys.argv[2], 'a').write('child\\n')\n")
    with _locked(lock):
        child = subprocess.Popen([sys.executable, "-c", take, lock, str(log)], env={**os.environ, "PYTHONPATH": str(REPO)})
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(2.0)  # still waiting for the lock
        assert not log.exists()
        log.write_text("parent\n")
    assert child.wait(30) == 0 and log.read_text() == "parent\nchild\n"


def test_the_project_is_indexed_once_by_the_parent_not_by_each_worker(tree, monkeypatch, tmp_path):
    """Workers analyse files; building and saving the index happens once, in the parent."""
    builds = tmp_path / "builds.txt"
    real = ProjectIndex.refresh

    def counted(self, *args, **kwargs):
        with open(builds, "a") as log:  # appended by whichever process refreshes an index
            log.write(f"{os.getpid()}\n")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(ProjectIndex, "refresh", counted)
    from ms_perflint.config import Config
    from ms_perflint.run.session import Session, SessionOptions

    session = Session(SessionOptions(config=Config(source=None, root=tree), jobs=2, cache_folder=None))
    results = session.check([str(tree / "train00.py"), str(tree / "broken.py")])
    assert builds.read_text().splitlines() == [str(os.getpid())]
    assert [r.findings[0].code if r.findings else r.error.kind for r in results] == ["MSP103", "SyntaxError"]



def test_a_check_raises_the_collector_thresholds_for_its_workers_and_restores_the_hosts_own(tmp_path):
    # flake8 and the editor server run checks inside their own process: what the check changes must not stay.
    import gc

    from ms_perflint.memory import CHECK_GC_THRESHOLDS
    from ms_perflint.config import Config
    from ms_perflint.run import session as session_module
    from ms_perflint.run.session import Session, SessionOptions

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "train.py").write_text("import mindspore\n")
    seen = []
    original = session_module.Session._check

    def spy(self, paths):
        seen.append(gc.get_threshold())
        return original(self, paths)

    host = gc.get_threshold()
    gc.set_threshold(555, 7, 9)
    try:
        session_module.Session._check = spy
        Session(SessionOptions(config=Config(source=None, root=tmp_path), jobs=1, cache_folder=None)).check(
            [str(tmp_path / "train.py")])
        assert seen == [CHECK_GC_THRESHOLDS]
        assert gc.get_threshold() == (555, 7, 9)
    finally:
        session_module.Session._check = original
        gc.set_threshold(*host)


def test_files_checked_alone_are_checked_by_the_workers(tree, monkeypatch, tmp_path):
    """--no-project with --jobs 2: the files are spread over workers, findings are those of --jobs 1."""
    from ms_perflint.config import Config
    from ms_perflint.run.session import Session, SessionOptions

    analysed_in = tmp_path / "pids.txt"
    real = index_module.extract_record

    def spied(*args, **kwargs):
        with open(analysed_in, "a") as log:  # appended by whichever process analyses a file
            log.write(f"{os.getpid()}\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(index_module, "extract_record", spied)
    real_decide = lint_module.decide

    def spied_decide(*args, **kwargs):
        with open(decided_in, "a") as log:
            log.write(f"{os.getpid()}\n")
        return real_decide(*args, **kwargs)

    decided_in = tmp_path / "decided.txt"
    monkeypatch.setattr(lint_module, "decide", spied_decide)
    paths = sorted(str(path) for path in tree.rglob("*.py"))[:40]

    def run(jobs: int):
        options = SessionOptions(config=Config(source=None, root=tree), jobs=jobs, cache_folder=None,
                                 overrides={"project": False})
        results = Session(options).check(paths)
        return [(r.path, [(f.code, f.line, f.column) for f in r.findings], r.error and r.error.kind) for r in results]

    alone = run(1)
    analysed_in.unlink()
    decided_in.unlink()
    pooled = run(2)
    assert pooled == alone and any(findings for _, findings, _ in alone)
    pids = analysed_in.read_text().split()
    assert len(pids) == len(paths) and str(os.getpid()) not in pids
    assert str(os.getpid()) not in decided_in.read_text().split()  # decided where analysed, in the workers


@needs_linux
def test_a_file_checked_alone_that_kills_its_worker_is_that_files_error(tmp_path, monkeypatch):
    from ms_perflint.run.session import Session, SessionOptions

    _nineteen_programs_and(tmp_path, "crash.py")
    monkeypatch.setattr(index_module, "analyse", _dies_on("crash.py", "kill"))  # the forked workers inherit it
    paths = sorted(str(path) for path in tmp_path.glob("*.py"))
    results = Session(SessionOptions(jobs=2, cache_folder=None, project=False)).check(paths)
    by_name = {os.path.basename(r.path): r for r in results}
    crashed = by_name.pop("crash.py")
    assert crashed.error is not None and crashed.error.kind == "Crash" and "killed by signal 9" in crashed.error.message
    assert len(by_name) == 19 and all(r.error is None and [f.code for f in r.findings] == ["MSP103"]
                                      for r in by_name.values())


@needs_linux
def test_a_killed_pool_is_not_waited_for_when_an_interrupt_left_a_future_locked():
    # CI once waited 30 s after SIGINT: the interrupt landed while ``as_completed`` held the futures' locks, so
    # the pool's manager thread could never mark them broken, and shutting the pool down waited for it forever.
    import threading
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(max_workers=1, mp_context=pool._context())
    future = executor.submit(time.sleep, 30)
    while not executor._processes:  # noqa: SLF001 -- the worker exists
        time.sleep(0.01)
    future._condition.acquire()  # noqa: SLF001 -- as an interrupted as_completed leaves it
    try:
        done = threading.Event()
        stopper = threading.Thread(target=lambda: (pool._shutdown(executor, kill=True), done.set()), daemon=True)
        stopper.start()
        assert done.wait(5), "shutting the killed pool down waited for its manager thread"
        assert pool.abandoned()
    finally:
        future._condition.release()  # noqa: SLF001
        pool.ABANDONED.clear()
