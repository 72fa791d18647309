"""The ``ms-perflint`` command as users run it: --explain, standard input, exit codes, output, paths, import cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ms_perflint.rules import ALL_RULES, RULES_BY_CODE
from ms_perflint.rules.docs import render_rule
from tests.conftest import run_cli

PROGRAM = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
MESSAGE = ("CheckpointConfig without async_save makes the ModelCheckpoint callback save synchronously, "
           "stalling training; pass async_save=True")
#: The same program with an unsafe fix only (``async_save=False`` -> ``True``).
UNSAFE_ONLY = PROGRAM.replace("steps=10)", "steps=10, async_save=False)")
CLEAN = PROGRAM.replace("steps=10)", "steps=10, async_save=True)")
BROKEN = "from mindspore.train import CheckpointConfig\nc = CheckpointConfig(\n"


def files(folder: Path, **named: str) -> Path:
    for name, text in named.items():
        target = folder / name.replace("__", ".")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder


# --------------------------------------------------------------------------- --explain


@pytest.mark.parametrize("spelling", ["MSP103", "msp103", "sync-checkpoint-save"])
def test_explain_prints_the_rule_page(spelling: str):
    completed = run_cli("--explain", spelling)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == render_rule(RULES_BY_CODE["MSP103"])
    assert completed.stdout.startswith("# MSP103 sync-checkpoint-save\n")


def test_explain_unknown_code_lists_the_rules():
    completed = run_cli("--explain", "MSP999")
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "unknown rule 'MSP999'" in completed.stderr
    for rule in ALL_RULES:
        assert f"{rule.code} ({rule.name})" in completed.stderr


# --------------------------------------------------------------------------- --list-rules, --show-settings, --show-files


def test_list_rules_as_json_names_every_rule_with_its_fix_and_selection():
    import json

    completed = run_cli("--list-rules", "json")
    assert completed.returncode == 0, completed.stderr
    rows = json.loads(completed.stdout)
    assert [row["code"] for row in rows] == [rule.code for rule in ALL_RULES]
    by_code = {row["code"]: row for row in rows}
    assert by_code["MSP102"]["fix"] == "never" and by_code["MSP103"]["fix"] == "sometimes"
    assert all(row["default"] is (not RULES_BY_CODE[row["code"]].opt_in) for row in rows)


def test_list_rules_as_text_has_a_line_per_rule():
    completed = run_cli("--list-rules")
    assert completed.returncode == 0, completed.stderr
    for rule in ALL_RULES:
        assert f"{rule.code}  {rule.name}" in completed.stdout
        assert rule.summary in completed.stdout


def test_show_settings_says_where_each_value_comes_from(tmp_path: Path):
    files(tmp_path, pyproject__toml="[tool.ms-perflint]\nignore = ['MSP105']\n", train__py=PROGRAM)
    completed = run_cli("--show-settings", "train.py", "--extend-ignore", "MSP104", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert 'ignore = ["MSP105"]' in out and "pyproject.toml" in out
    assert 'extend-ignore = ["MSP104"]' in out and "command line" in out
    on = ", ".join(rule.code for rule in ALL_RULES if rule.code not in ("MSP104", "MSP105") and not rule.opt_in)
    assert f"Rules on: {on}\n" in out
    assert "Rules off: MSP001 (opt-in: select it by code), MSP104 (select/ignore), MSP105" in out


def test_show_settings_of_a_missing_path_is_a_usage_error(tmp_path: Path):
    completed = run_cli("--show-settings", "nowhere.py", cwd=tmp_path)
    assert completed.returncode == 2 and "nowhere.py: no such file or folder" in completed.stderr


def test_show_files_lists_what_would_be_checked_and_checks_nothing(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM, notes__txt="x", pyproject__toml="[tool.ms-perflint]\nextend-exclude = ['build']\n")
    for name, text in (("build/out.py", "x = 1\n"), ("configs/run.yaml", "run_mode: train\n")):
        (tmp_path / name).parent.mkdir()
        (tmp_path / name).write_text(text)
    completed = run_cli("--show-files", ".", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == ["configs/run.yaml", "train.py"]


def test_clean_removes_the_caches_of_the_project_and_below_but_nothing_else(tmp_path: Path):
    files(tmp_path, pyproject__toml="[project]\nname = 'x'\n", train__py=PROGRAM)
    nested = tmp_path / "zoo" / "model_a"
    nested.mkdir(parents=True)
    (nested / "train.py").write_text(PROGRAM)
    (nested / "setup.py").write_text("")
    assert run_cli("--quiet", ".", cwd=tmp_path).returncode == 1
    assert run_cli("--quiet", ".", cwd=nested).returncode == 1  # a nested project's own cache (older runs)
    lookalike = tmp_path / "data" / ".ms_perflint_cache"  # not made by ms-perflint: no CACHEDIR.TAG of ours
    lookalike.mkdir(parents=True)
    completed = run_cli("clean", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert sorted(completed.stdout.splitlines()) == ["Removed .ms_perflint_cache",
                                                     "Removed zoo/model_a/.ms_perflint_cache"]
    assert not (tmp_path / ".ms_perflint_cache").exists() and not (nested / ".ms_perflint_cache").exists()
    assert lookalike.exists()
    assert run_cli("clean", cwd=tmp_path).stdout == "No cache to remove.\n"


def test_a_file_named_clean_is_checked_not_taken_for_the_command(tmp_path: Path):
    (tmp_path / "clean").write_text("x = 1\n")
    completed = run_cli("clean", cwd=tmp_path)
    assert "Removed" not in completed.stdout and "No cache" not in completed.stdout


def test_fix_only_fixes_and_reports_nothing_left(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM, other__py=UNSAFE_ONLY)
    completed = run_cli("--fix-only", ".", cwd=tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "MSP103" not in completed.stdout  # other.py's unsafe-only finding is left, and not reported
    assert completed.stdout == "Fixed 1 finding in 1 file.\n"
    assert (tmp_path / "train.py").read_text() == CLEAN
    assert (tmp_path / "other.py").read_text() == UNSAFE_ONLY


def test_unfixable_codes_lose_their_fix_and_their_mark(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM, pyproject__toml="[tool.ms-perflint]\nunfixable = ['MSP103']\n")
    report = run_cli(".", cwd=tmp_path)
    assert "MSP103 CheckpointConfig" in report.stdout and "[*]" not in report.stdout
    fixed = run_cli("--fix", ".", cwd=tmp_path)
    assert fixed.returncode == 1 and (tmp_path / "train.py").read_text() == PROGRAM
    (tmp_path / "pyproject.toml").write_text("[tool.ms-perflint]\nunfixable = ['MSP1']\nfixable = ['MSP103']\n")
    assert run_cli("--fix", ".", cwd=tmp_path).returncode == 0  # the more specific fixable wins
    assert (tmp_path / "train.py").read_text() == CLEAN


def test_an_unknown_code_in_unfixable_is_a_configuration_error(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM, pyproject__toml="[tool.ms-perflint]\nunfixable = ['MSP999']\n")
    completed = run_cli(".", cwd=tmp_path)
    assert completed.returncode == 2 and "MSP999" in completed.stderr


# --------------------------------------------------------------------------- standard input


def run_stdin(*args: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ms_perflint", "--no-cache", *args], input=data, cwd=cwd,
                          capture_output=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})


def test_stdin_is_reported_under_its_name(tmp_path: Path):
    named = run_stdin("-", "--stdin-filename", "src/train.py", "--quiet", data=PROGRAM.encode(), cwd=tmp_path)
    assert named.returncode == 1
    assert named.stdout.decode() == f"src/train.py:3:14: MSP103 [*] {MESSAGE}\n"
    anonymous = run_stdin("-", "--quiet", data=PROGRAM.encode(), cwd=tmp_path)
    assert anonymous.stdout.decode() == f"-:3:14: MSP103 [*] {MESSAGE}\n"


def test_stdin_filename_alone_reads_standard_input(tmp_path: Path):
    completed = run_stdin("--stdin-filename", "src/train.py", "--quiet", data=PROGRAM.encode(), cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.decode() == f"src/train.py:3:14: MSP103 [*] {MESSAGE}\n"


def test_stdin_filename_with_paths_but_no_dash_is_a_usage_error(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM)
    completed = run_stdin("train.py", "--stdin-filename", "src/train.py", data=b"", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stdout == b""
    assert b"pass `-` (or no paths)" in completed.stderr and b"Traceback" not in completed.stderr


def test_stdin_filename_selects_per_file_ignores_and_configuration(tmp_path: Path):
    files(tmp_path, pyproject__toml='[tool.ms-perflint]\nper-file-ignores = { "tools/*" = ["MSP103"] }\n')
    (tmp_path / "tools").mkdir()
    (tmp_path / "sub").mkdir()
    ignored = run_stdin("-", "--stdin-filename", "tools/convert.py", data=PROGRAM.encode(), cwd=tmp_path)
    assert ignored.returncode == 0, ignored.stdout
    # from another folder, the configuration is found from the stdin file name's folder
    elsewhere = run_stdin("-", "--stdin-filename", "../tools/convert.py", data=PROGRAM.encode(), cwd=tmp_path / "sub")
    assert elsewhere.returncode == 0, elsewhere.stdout
    reported = run_stdin("-", "--stdin-filename", "model.py", data=PROGRAM.encode(), cwd=tmp_path)
    assert reported.returncode == 1


def test_stdin_force_exclude(tmp_path: Path):
    files(tmp_path, pyproject__toml='[tool.ms-perflint]\nextend-exclude = ["vendor"]\nforce-exclude = true\n')
    skipped = run_stdin("-", "--stdin-filename", "vendor/x.py", "--quiet", data=PROGRAM.encode(), cwd=tmp_path)
    assert (skipped.returncode, skipped.stdout, skipped.stderr) == (0, b"", b"")
    checked = run_stdin("-", "--stdin-filename", "src/x.py", "--quiet", data=PROGRAM.encode(), cwd=tmp_path)
    assert checked.returncode == 1 and b"src/x.py:3:14: MSP103" in checked.stdout


def test_stdin_bytes_are_decoded_like_files(tmp_path: Path):
    data = b"# -*- coding: latin-1 -*-\n" + PROGRAM.encode() + b"name = '\xe9'\n"
    completed = run_stdin("-", "--quiet", data=data, cwd=tmp_path)
    assert completed.returncode == 1
    assert completed.stdout.decode().startswith("-:4:14: MSP103 [*] ")


@pytest.mark.parametrize(
    "args, message",
    [
        (["-", "other.py"], "cannot be combined with other paths"),
        (["-", "--add-noqa"], "cannot be used with standard input"),
        (["-", "--fix"], "cannot be used with standard input"),
    ],
)
def test_stdin_misuse_is_a_usage_error(tmp_path: Path, args: list, message: str):
    files(tmp_path, other__py=PROGRAM)
    completed = run_stdin(*args, data=PROGRAM.encode(), cwd=tmp_path)
    assert completed.returncode == 2
    assert message in completed.stderr.decode()
    assert (tmp_path / "other.py").read_text() == PROGRAM


def test_diff_of_standard_input_prints_the_patch_and_writes_nothing(tmp_path: Path):
    """`--diff -`: the diff of what came in, under its name; the file of that name on disk is not touched."""
    files(tmp_path, pyproject__toml="[project]\nname = 'demo'\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(PROGRAM.replace("10", "20"))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    completed = run_stdin("--diff", "--stdin-filename", "src/train.py", "-", data=PROGRAM.encode(), cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout.decode() == (
        "--- src/train.py\n+++ src/train.py\n@@ -1,4 +1,4 @@\n"
        " from mindspore.train import CheckpointConfig, Model, ModelCheckpoint\n"
        ' if __name__ == "__main__":\n'
        "-    config = CheckpointConfig(save_checkpoint_steps=10)\n"
        "+    config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n"
        "     Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])\n"
    )
    assert (tmp_path / "src" / "train.py").read_text() == PROGRAM.replace("10", "20")
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    anonymous = run_stdin("--diff", "-", data=PROGRAM.encode(), cwd=tmp_path)
    assert anonymous.stdout.decode().startswith("--- -\n+++ -\n@@ -1,4 +1,4 @@\n")
    assert not (tmp_path / "stdin.py").exists()


def test_add_noqa_with_fix_is_refused_with_a_clear_message(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM)
    for flag in ("--fix", "--diff"):
        completed = run_cli("--add-noqa", flag, "train.py", cwd=tmp_path)
        assert completed.returncode == 2
        assert completed.stderr == ("ms-perflint: error: --add-noqa cannot be combined with --fix or --diff: "
                                    "run them one after the other\n")
    assert (tmp_path / "train.py").read_text() == PROGRAM


# --------------------------------------------------------------------------- exit codes, quiet, output


def test_exit_codes(tmp_path: Path):
    files(tmp_path, clean__py=CLEAN, dirty__py=PROGRAM, broken__py=BROKEN)
    assert run_cli("clean.py", cwd=tmp_path).returncode == 0
    assert run_cli("dirty.py", cwd=tmp_path).returncode == 1
    assert run_cli("broken.py", cwd=tmp_path).returncode == 1
    assert run_cli("--exit-zero", "dirty.py", "broken.py", cwd=tmp_path).returncode == 0
    assert run_cli("missing.py", cwd=tmp_path).returncode == 2
    assert run_cli("--select", "E501", "dirty.py", cwd=tmp_path).returncode == 2
    assert run_cli("--output-format", "xml", "dirty.py", cwd=tmp_path).returncode == 2
    assert run_cli(cwd=tmp_path).returncode == 2  # no paths, no terminal


def test_quiet_prints_findings_only(tmp_path: Path):
    files(tmp_path, dirty__py=PROGRAM, clean__py="x = 1\n")
    assert run_cli("--quiet", "dirty.py", cwd=tmp_path).stdout == f"dirty.py:3:14: MSP103 [*] {MESSAGE}\n"
    assert run_cli("--quiet", "clean.py", cwd=tmp_path).stdout == ""
    assert run_cli("clean.py", cwd=tmp_path).stdout == "All checks passed! (1 file checked)\n"


def test_summary_says_how_many_of_the_checked_files_have_findings(tmp_path: Path):
    files(tmp_path, bad__py=PROGRAM, clean__py="import mindspore as ms\n")
    completed = run_cli("--no-cache", str(tmp_path))
    assert completed.stdout.splitlines()[-2:] == ["Found 1 finding in 1 of 2 files.", "[*] 1 fixable with the `--fix` option."]


def test_output_file_holds_the_report_and_standard_output_stays_empty(tmp_path: Path):
    files(tmp_path, dirty__py=PROGRAM)
    completed = run_cli("-o", "report.txt", "dirty.py", cwd=tmp_path)
    assert completed.returncode == 1 and completed.stdout == ""
    assert (tmp_path / "report.txt").read_text().splitlines()[0] == f"dirty.py:3:14: MSP103 [*] {MESSAGE}"


def test_json_output_is_written(tmp_path: Path):
    import json

    files(tmp_path, dirty__py=PROGRAM)
    completed = run_cli("--output-format", "json", "dirty.py", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert [item["code"] for item in json.loads(completed.stdout)] == ["MSP103"]


def test_a_closed_output_pipe_is_not_an_internal_error(tmp_path: Path):
    """`ms-perflint src/ | head -1`: the reader leaves early; no traceback, no 'internal error'."""
    import fcntl

    for number in range(100):
        (tmp_path / f"f{number:03}.py").write_text(PROGRAM)
    process = subprocess.Popen([sys.executable, "-m", "ms_perflint", "--no-cache", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # A pipe smaller than the report (18 kB), so the writer is still writing when the reader leaves.
    fcntl.fcntl(process.stdout.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
    first = process.stdout.readline()
    process.stdout.close()  # the reader goes away, as `head -1` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 1
    assert b"MSP103" in first
    assert "Traceback" not in stderr and "internal error" not in stderr


# --------------------------------------------------------------------------- paths


def test_a_missing_path_does_not_stop_the_others_and_exits_2_at_the_end(tmp_path: Path):
    files(tmp_path, good__py=PROGRAM)
    completed = run_cli("good.py", "missing.py", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stdout.splitlines() == [f"good.py:3:14: MSP103 [*] {MESSAGE}",
                                             "Found 1 finding in 1 file; 1 path not found.",
                                             "[*] 1 fixable with the `--fix` option."]
    assert completed.stderr == "ms-perflint: error: missing.py: no such file or folder\n"


@pytest.mark.parametrize("output_format", ["text", "full", "grouped"])
def test_a_missing_path_never_says_all_checks_passed(tmp_path: Path, output_format: str):
    files(tmp_path, clean__py=CLEAN)
    for named in (["/nonexistent"], ["clean.py", "missing.py"]):
        completed = run_cli("--output-format", output_format, *named, cwd=tmp_path)
        assert completed.returncode == 2, completed.stdout + completed.stderr
        assert "passed" not in completed.stdout, completed.stdout
        assert completed.stdout.strip() == f"{len(named) - 1} file{'' if len(named) == 2 else 's'} checked; 1 path not found."
        assert completed.stderr == f"ms-perflint: error: {named[-1]}: no such file or folder\n"
    fixed = run_cli("--fix", "clean.py", "missing.py", cwd=tmp_path)
    assert fixed.returncode == 2 and "passed" not in fixed.stdout, fixed.stdout


def test_the_same_file_named_three_ways_is_reported_once(tmp_path: Path):
    files(tmp_path, good__py=PROGRAM)
    completed = run_cli("good.py", "./good.py", str(tmp_path / "good.py"), "-q", cwd=tmp_path)
    assert completed.stdout == f"good.py:3:14: MSP103 [*] {MESSAGE}\n"
    (tmp_path / "link.py").symlink_to(tmp_path / "good.py")
    linked = run_cli(".", "-q", cwd=tmp_path)
    assert linked.stdout.count("MSP103") == 1, linked.stdout


def test_no_path_on_a_terminal_checks_the_current_folder(tmp_path: Path):
    import pty

    files(tmp_path, good__py=PROGRAM)
    primary, secondary = pty.openpty()
    try:
        completed = subprocess.run([sys.executable, "-m", "ms_perflint", "--no-cache", "-q"], stdin=secondary,
                                   cwd=tmp_path, capture_output=True, text=True, timeout=120,
                                   env={**os.environ, "NO_COLOR": "1"})
    finally:
        os.close(primary)
        os.close(secondary)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout == f"good.py:3:14: MSP103 [*] {MESSAGE}\n"


def test_no_path_without_a_terminal_is_a_usage_error_unless_allowed(tmp_path: Path):
    files(tmp_path, good__py=PROGRAM)
    refused = subprocess.run([sys.executable, "-m", "ms_perflint"], stdin=subprocess.DEVNULL, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == "ms-perflint: error: no paths given; try `ms-perflint .`\n"
    allowed = run_cli("--allow-no-paths", cwd=tmp_path)
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")


# --------------------------------------------------------------------------- rule selection


def test_an_unknown_code_on_the_command_line_is_a_usage_error(tmp_path: Path):
    files(tmp_path, good__py=PROGRAM)
    completed = run_cli("--select", "MSP999", "good.py", cwd=tmp_path)
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr.startswith("ms-perflint: error: unknown rule code or prefix 'MSP999'; known codes: MSP001, MSP101")


KNOWN = "known codes: " + ", ".join(rule.code for rule in ALL_RULES)


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore", "--extend-ignore"])
@pytest.mark.parametrize("written", ["NOPE", "MSP9", "e501", "M"])
def test_every_unknown_code_on_the_command_line_gets_one_sentence_naming_the_real_codes(tmp_path: Path, option: str,
                                                                                        written: str):
    """No usage text and no list of made-up prefixes ("MSP, MSP1, MSP10, MSP103, ...") for some codes."""
    files(tmp_path, good__py=PROGRAM)
    for args in ([option, written, "good.py"], ["--show-settings", "good.py", option, written]):
        completed = run_cli(*args, cwd=tmp_path)
        assert (completed.returncode, completed.stdout) == (2, "")
        assert completed.stderr == (f"ms-perflint: error: unknown rule code or prefix {written.upper()!r}; {KNOWN}\n")


@pytest.mark.parametrize("name, text", [
    ("pyproject.toml", '[tool.ms-perflint]\nselect = ["NOPE"]\n'),
    ("pyproject.toml", '[tool.ms-perflint]\nper-file-ignores = {{ "good.py" = ["NOPE"] }}\n'),
    ("setup.cfg", "[ms-perflint]\nextend-select = NOPE\n"),
    ("setup.cfg", "[ms-perflint]\nper-file-ignores =\n    good.py: NOPE\n"),
])
def test_an_unknown_code_in_a_config_file_gets_the_same_sentence(tmp_path: Path, name: str, text: str):
    files(tmp_path, good__py=PROGRAM, **{name.replace(".", "__"): text.replace("{{", "{").replace("}}", "}")})
    completed = run_cli("good.py", cwd=tmp_path)
    assert (completed.returncode, completed.stdout) == (2, "")
    assert completed.stderr.startswith(f"ms-perflint: error: {tmp_path / name}: ")
    assert completed.stderr.endswith(f"unknown rule code or prefix 'NOPE'; {KNOWN}\n"), completed.stderr


def test_an_unknown_code_in_a_config_file_is_a_usage_error(tmp_path: Path):
    files(tmp_path, pyproject__toml='[tool.ms-perflint]\nselect = ["MSP999"]\n', good__py=PROGRAM)
    completed = run_cli("good.py", cwd=tmp_path)
    assert (completed.returncode, completed.stdout) == (2, "")
    [line] = completed.stderr.splitlines()
    assert line.startswith(f"ms-perflint: error: {tmp_path / 'pyproject.toml'}: [tool.ms-perflint] select: "
                           "unknown rule code or prefix 'MSP999'")


# --------------------------------------------------------------------------- --statistics


def test_statistics_marks_only_what_fix_would_fix_with_this_runs_unsafe_fixes(tmp_path: Path):
    files(tmp_path, safe__py=PROGRAM, unsafe__py=UNSAFE_ONLY.replace("ModelCheckpoint(", "ModelCheckpoint(", 1))
    (tmp_path / "unsafe").mkdir()
    (tmp_path / "unsafe" / "train.py").write_text(UNSAFE_ONLY)
    only_unsafe = run_cli("--no-cache", "--statistics", "unsafe/train.py", cwd=tmp_path)
    assert only_unsafe.stdout == "1  MSP103      sync-checkpoint-save\n"
    with_flag = run_cli("--no-cache", "--statistics", "--unsafe-fixes", "unsafe/train.py", cwd=tmp_path)
    assert with_flag.stdout == "1  MSP103  [*] sync-checkpoint-save\n"
    both = run_cli("--no-cache", "--statistics", "safe.py", "unsafe/train.py", cwd=tmp_path)
    assert both.stdout == "2  MSP103  [*] sync-checkpoint-save\n"


def test_statistics_of_a_file_with_a_syntax_error_says_so(tmp_path: Path):
    files(tmp_path, broken__py=BROKEN)
    completed = run_cli("--no-cache", "--statistics", "broken.py", cwd=tmp_path)
    assert completed.returncode == 1
    assert completed.stderr == "ms-perflint: error: broken.py:2:21: SyntaxError: '(' was never closed\n"


# --------------------------------------------------------------------------- import cost


def imported(*args: str, cwd: Path) -> list:
    completed = subprocess.run([sys.executable, "-X", "importtime", "-m", "ms_perflint", *args], cwd=cwd,
                               capture_output=True, text=True, timeout=300)
    return [line.rsplit("|", 1)[-1].strip() for line in completed.stderr.splitlines() if line.startswith("import time:")]


def test_version_imports_neither_libcst_nor_the_engine(tmp_path: Path):
    modules = imported("--version", cwd=tmp_path)
    assert "ms_perflint.cli" in modules  # the import log is really there
    assert not [m for m in modules if m.split(".")[0] in ("libcst", "yaml")]
    assert not [m for m in modules if m.startswith(("ms_perflint.rules", "ms_perflint.run", "ms_perflint.analysis"))]


def loaded(*args: str, cwd: Path) -> list:
    """Every module loaded by a CLI run (as ``sys.modules`` holds them at its end)."""
    script = ("import sys\nfrom ms_perflint.cli import main\nmain(sys.argv[1:])\n"
              "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n")
    completed = subprocess.run([sys.executable, "-c", script, *args], cwd=cwd, capture_output=True, text=True,
                               timeout=300)
    return completed.stderr.splitlines()


def test_the_text_report_imports_no_other_formatter(tmp_path: Path):
    files(tmp_path, train__py=PROGRAM)
    modules = loaded("--no-cache", "train.py", cwd=tmp_path)
    assert "ms_perflint.output.text" in modules
    assert not [m for m in modules if m in ("ms_perflint.output.json", "ms_perflint.output.sarif", "ms_perflint.output.github")]


def test_a_lone_file_outside_any_project_does_not_load_yaml(tmp_path: Path):
    """Start-up for `ms-perflint one.py` (pre-commit's case): no project, so no YAML configs to read."""
    from ms_perflint.project.roots import find_root

    files(tmp_path, one__py=PROGRAM)
    assert find_root(str(tmp_path / "one.py")) is None  # precondition: no project marker above
    modules = imported("--no-cache", "one.py", cwd=tmp_path)
    assert "ms_perflint.cli" in modules and "ms_perflint.analysis.python" in modules
    assert "yaml" not in modules



def test_the_command_leaves_the_run_s_objects_to_the_os_at_exit(tmp_path: Path):
    """The console script returns main's exit code with the run's objects frozen, so the interpreter's last
    collection does not walk them (0.7 s of a 2.2 s run after an edit in a large project)."""
    files(tmp_path, train__py=PROGRAM)
    script = ("import gc, sys\nfrom ms_perflint.cli import console_main\nsys.argv = ['ms-perflint', *sys.argv[1:]]\n"
              "code = console_main()\nprint(code, gc.get_freeze_count() > 10000, file=sys.stderr)\n")
    completed = subprocess.run([sys.executable, "-c", script, "--no-cache", "train.py"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=300)
    assert "MSP103" in completed.stdout
    assert completed.stderr.splitlines()[-1] == "1 True"
