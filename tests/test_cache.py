"""The results cache: same output as a real lint, invalidated by content, tool and settings, robust to damage."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path
from typing import List

import pytest

from ms_perflint import cache as cache_module
from ms_perflint.cache import ResultCache, result_from_record, result_to_record
from ms_perflint.engine import lint_file, lint_source
from ms_perflint.output.text import format_violation, is_marked_fixable
from ms_perflint.parallel import lint_paths
from ms_perflint.results import FileError, FileResult
from ms_perflint.rule import Fix, FixSafety, Violation
from ms_perflint.settings import Settings
from tests.conftest import FIXTURES, run_cli

SYNC_SAVE = (
    "import mindspore as ms\n"
    "from mindspore.train import CheckpointConfig\n"
    "config = CheckpointConfig(save_checkpoint_steps=10)\n"
    "explicit = CheckpointConfig(save_checkpoint_steps=10, async_save=False)\n"
)


def user_view(result: FileResult, unsafe_fixes: bool = False) -> List[tuple]:
    """Everything a report shows about a result: text line, range, fix availability, safety and description."""
    rows = [
        (
            format_violation(result.path, v, unsafe_fixes),
            v.end_line,
            v.end_column,
            v.cell,
            is_marked_fixable(v, unsafe_fixes),
            v.fix.safety if v.fix else None,
            v.fix.description if v.fix else None,
            tuple(v.fix.imports) if v.fix else None,
        )
        for v in result.violations
    ]
    return rows + [("error", result.error)]


# --- records ---------------------------------------------------------------------------------


CORPUS = sorted(FIXTURES.rglob("*.py"))


@pytest.mark.parametrize("case", CORPUS, ids=[str(case.relative_to(FIXTURES)) for case in CORPUS])
def test_record_round_trip_reproduces_what_users_see(case: Path):
    live = lint_file(str(case), Settings())
    restored = result_from_record(live.path, json.loads(json.dumps(result_to_record(live))))
    for unsafe in (False, True):
        assert user_view(restored, unsafe) == user_view(live, unsafe)


def test_fixtures_include_fixable_findings_of_both_safeties():
    """The round trip above must have something to prove: safe and unsafe fixes both occur."""
    safeties = {v.fix.safety for case in CORPUS for v in lint_file(str(case), Settings()).violations if v.fix}
    assert safeties == {FixSafety.SAFE, FixSafety.UNSAFE}


def test_record_keeps_errors_notebook_cells_and_fix_imports():
    violation = Violation("MSP101", "message", line=3, column=4, end_line=3, end_column=9, cell=2)
    violation.fix = Fix(node=None, transform=None, safety=FixSafety.UNSAFE, description="cast", imports=("import mindspore as ms",))
    result = FileResult("nb.ipynb", violations=[violation], error=None)
    restored = result_from_record("nb.ipynb", json.loads(json.dumps(result_to_record(result))))
    assert user_view(restored) == user_view(result)
    broken = FileResult("bad.py", error=FileError("SyntaxError", "invalid syntax", 7, 2))
    assert result_from_record("bad.py", result_to_record(broken)).error == broken.error


def test_restored_fix_has_no_tree_and_says_so():
    result = lint_source(SYNC_SAVE, "train.py", Settings())
    restored = result_from_record("train.py", result_to_record(result))
    assert [cache_module.is_restored(v) for v in restored.violations] == [True, True]
    assert not any(cache_module.is_restored(v) for v in result.violations)


# --- keys --------------------------------------------------------------------------------------


def key(settings: Settings = Settings(), data: bytes = SYNC_SAVE.encode(), path: str = "train.py", folder: str = "x") -> str:
    return ResultCache(folder, settings).key(path, data)


def test_key_changes_with_one_byte_of_content():
    assert key(data=SYNC_SAVE.encode()) != key(data=SYNC_SAVE.encode() + b" ")
    assert key(data=SYNC_SAVE.encode()) == key(data=SYNC_SAVE.encode())


@pytest.mark.parametrize(
    "other",
    [
        Settings(select=("MSP103",)),
        Settings(ignore=("MSP101",)),
        Settings(extend_select=("MSP9",)),
        Settings(rule_options={"alignment": 32}),
        Settings(apply_noqa=False),
        Settings(per_file_ignores={"tests/*": ("MSP103",)}),
    ],
)
def test_key_changes_with_settings(other: Settings):
    assert key(Settings()) != key(other)


def test_per_file_ignores_make_the_key_depend_on_the_path():
    settings = Settings(per_file_ignores={"scripts/*": ("MSP103",)})
    assert key(settings, path="scripts/save.py") != key(settings, path="src/save.py")
    assert key(settings, path="src/a.py") == key(settings, path="src/b.py")  # same codes enabled: shareable


def test_key_changes_with_tool_version(monkeypatch):
    before = key()
    cache_module.tool_fingerprint.cache_clear()
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    try:
        assert key() != before
    finally:
        cache_module.tool_fingerprint.cache_clear()


def test_key_changes_when_a_rule_module_changes(monkeypatch, tmp_path: Path):
    """An edited rule in a development install must not be answered from old entries."""
    package = tmp_path / "ms_perflint"
    (package / "rules").mkdir(parents=True)
    rule = package / "rules" / "msp103_sync_checkpoint_save.py"
    rule.write_text("RULE = 1\n")
    monkeypatch.setattr(cache_module, "_PACKAGE_FOLDER", str(package))
    cache_module.tool_fingerprint.cache_clear()
    try:
        before = key()
        rule.write_text("RULE = 2\n")
        cache_module.tool_fingerprint.cache_clear()
        assert key() != before
    finally:
        cache_module.tool_fingerprint.cache_clear()


# --- storage -------------------------------------------------------------------------------------


def test_put_then_get_in_a_fresh_cache_object(tmp_path: Path):
    result = lint_source(SYNC_SAVE, "train.py", Settings())
    first = ResultCache(str(tmp_path / "c"), Settings())
    entry_key = first.key("train.py", SYNC_SAVE.encode())
    assert first.get(entry_key, "train.py") is None
    first.put(entry_key, result)
    second = ResultCache(str(tmp_path / "c"), Settings())
    assert user_view(second.get(entry_key, "train.py")) == user_view(result)
    assert (tmp_path / "c" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (tmp_path / "c" / ".gitignore").read_text().splitlines()[-1] == "*"


@pytest.mark.parametrize(
    "damage",
    [b"", b"{", b"\x00\xff garbage", b"[]", b'{"violations": [{"bogus": 1}], "error": null}',
     b'{"violations": [], "error": {"kind": "X"}}', b'{"violations": [{"code": "MSP103", "message": "m", "fix": {"safety": "maybe"}}], "error": null}'],
    ids=["empty", "truncated", "binary", "wrong-shape", "unknown-field", "incomplete-error", "bad-safety"],
)
def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path: Path, damage: bytes):
    source = tmp_path / "train.py"
    source.write_text(SYNC_SAVE)
    store = ResultCache(str(tmp_path / "c"), Settings())
    entry_key = store.key(str(source), source.read_bytes())
    entry = Path(store._entry_path(entry_key))
    entry.parent.mkdir(parents=True)
    entry.write_bytes(damage)
    assert store.get(entry_key, str(source)) is None
    [result] = lint_paths([str(source)], Settings(), cache=store)
    assert [v.code for v in result.violations] == ["MSP103", "MSP103"]
    assert user_view(store.get(entry_key, str(source))) == user_view(result)


def test_an_unwritable_cache_folder_is_reported_once_and_linting_goes_on(tmp_path: Path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    source = tmp_path / "train.py"
    source.write_text(SYNC_SAVE)
    store = ResultCache(str(blocker / "cache"), Settings())
    [result] = lint_paths([str(source)], Settings(), cache=store)
    assert [v.code for v in result.violations] == ["MSP103", "MSP103"]
    assert store.problem is not None and "cannot write the cache" in store.problem


def test_unreadable_files_are_reported_and_never_cached(tmp_path: Path):
    store = ResultCache(str(tmp_path / "c"), Settings())
    [result] = lint_paths([str(tmp_path / "missing.py")], Settings(), cache=store)
    assert result.error is not None and result.error.kind == "ReadError"
    assert not (tmp_path / "c").exists()


# --- concurrency -----------------------------------------------------------------------------------


def _writer(folder: str, keys: List[str], rounds: int) -> None:
    store = ResultCache(folder, Settings())
    result = lint_source(SYNC_SAVE, "train.py", Settings())
    for _ in range(rounds):
        for entry_key in keys:
            store.put(entry_key, result)


def _reader(folder: str, keys: List[str], rounds: int, queue) -> None:
    store = ResultCache(folder, Settings())
    seen = set()
    for _ in range(rounds):
        for entry_key in keys:
            found = store.get(entry_key, "train.py")
            if found is not None:
                seen.add(tuple(v.code for v in found.violations))
    queue.put(sorted(seen))


def test_concurrent_writers_and_readers_never_see_a_partial_entry(tmp_path: Path):
    folder = str(tmp_path / "c")
    keys = [f"{index:02x}" + "0" * 62 for index in range(40)]
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    writers = [context.Process(target=_writer, args=(folder, keys, 15)) for _ in range(3)]
    readers = [context.Process(target=_reader, args=(folder, keys, 15, queue)) for _ in range(2)]
    for process in writers + readers:
        process.start()
    seen_by_readers = [queue.get(timeout=240) for _ in readers]
    for process in writers + readers:
        process.join(timeout=240)
        assert process.exitcode == 0
    # A reader sees either nothing yet or the whole entry, never a torn one (that would read as None or differ).
    for seen in seen_by_readers:
        assert seen in ([], [("MSP103", "MSP103")])
    store = ResultCache(folder, Settings())
    assert all([v.code for v in store.get(k, "train.py").violations] == ["MSP103", "MSP103"] for k in keys)
    leftovers = [name for _, _, names in os.walk(folder) for name in names if name.endswith(".tmp")]
    assert leftovers == []


# --- the CLI -----------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "train.py").write_text(SYNC_SAVE)
    (tmp_path / "clean.py").write_text("import mindspore\nprint(mindspore.__version__)\n")
    (tmp_path / "broken.py").write_text("from mindspore.train import CheckpointConfig\ndef f(:\n")
    return tmp_path


def imported_modules(stderr: str) -> List[str]:
    return [line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")]


def test_cli_cached_rerun_prints_the_same_and_never_imports_libcst(project: Path):
    first = run_cli(".", "--isolated", cwd=project)
    assert first.returncode == 1, first.stderr
    assert "broken.py:2:" in first.stdout and "SyntaxError" in first.stdout  # errors are cached results too
    assert (project / ".ms_perflint_cache" / "CACHEDIR.TAG").exists()
    second = _run_with_importtime(project)
    assert second.stdout == first.stdout
    assert second.returncode == first.returncode
    modules = imported_modules(second.stderr)
    assert "ms_perflint.cli" in modules  # the import log is really there
    assert not [name for name in modules if name == "libcst" or name.startswith("libcst.")]


def _run_with_importtime(project: Path):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ms_perflint", ".", "--isolated"],
        cwd=project, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"},
    )


def test_cli_sees_an_edited_file_at_once(project: Path):
    first = run_cli(".", "--isolated", cwd=project)
    assert "train.py:3:10: MSP103" in first.stdout
    (project / "train.py").write_text(SYNC_SAVE.replace("save_checkpoint_steps=10)\n", "save_checkpoint_steps=10, async_save=True)\n", 1))
    second = run_cli(".", "--isolated", cwd=project)
    assert "train.py:3:" not in second.stdout
    assert "train.py:4:12: MSP103" in second.stdout


def test_cli_selection_is_part_of_the_key(project: Path):
    assert "MSP103" in run_cli(".", "--isolated", cwd=project).stdout
    ignored = run_cli(".", "--isolated", "--ignore", "MSP103", cwd=project)
    assert "MSP103" not in ignored.stdout


def result_entries(folder: Path) -> List[Path]:
    """Result entries (``ab/cdef....json``); the project index may keep files of its own in the same folder."""
    return sorted(folder.glob("??/*.json"))


def test_cli_no_cache_writes_nothing_and_cache_dir_moves_it(project: Path, tmp_path_factory):
    plain = run_cli(".", "--isolated", "--no-cache", cwd=project)
    assert result_entries(project / ".ms_perflint_cache") == []
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "cache"
    moved = run_cli(".", "--isolated", "--cache-dir", str(elsewhere), cwd=project)
    assert moved.stdout == plain.stdout
    assert result_entries(project / ".ms_perflint_cache") == []
    assert len(result_entries(elsewhere)) == 3  # train.py, clean.py and broken.py (a syntax error is a result too)


def test_cli_with_an_unwritable_cache_warns_and_still_reports(project: Path):
    (project / "blocker").write_text("not a folder")
    completed = run_cli(".", "--isolated", "--cache-dir", str(project / "blocker" / "cache"), cwd=project)
    assert completed.returncode == 1
    assert "train.py:3:10: MSP103" in completed.stdout
    assert completed.stderr.count("cannot write the cache") == 1
