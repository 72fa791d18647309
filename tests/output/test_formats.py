"""Every ``--output-format`` on results built by hand (no linting): positions, edits, escaping, counts, colour.

The positions below were read off the sources by hand. ``PY`` (columns 0-based as ``Finding`` holds them):

    1  import mindspore
    2  from mindspore.train import CheckpointConfig
    3  config = CheckpointConfig(save_checkpoint_steps=10)   call 9..51, ``)`` at 50
    4  旧 = CheckpointConfig(                                 call starts at 4, ``(`` at 20 (旧 is one code point)
    5      async_save=False,
    6  )                                                     call ends at 1

The notebook's code cells are 2 and 4 (cell 1 is markdown, cell 4 is skipped as not Python);
its virtual module is ``VIRTUAL``: cell 2's line, a marker line, then cell 3 with its ``%matplotlib``
line neutralised, so ``cfg = CheckpointConfig(save_checkpoint_steps=5)`` is cell 3, line 2, ``)`` at 46.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Dict, List, Tuple

import jsonschema
import pytest

from ms_perflint.findings import FileError, FileResult, Finding, Fix, FixSafety, SourceText, TextEdit
from ms_perflint.output import report, sarif
from ms_perflint.output.gitlab import gitlab_issues
from ms_perflint.output.junit import xml_text
from ms_perflint.output.locate import EditLocator, Position
from ms_perflint.output.report import FORMATS, ReportOptions, render_report, use_color, write_report
from ms_perflint.sources.notebook import read_notebook, virtual_module

WORKTREE = Path(__file__).resolve().parents[2]

PY = (
    "import mindspore\n"
    "from mindspore.train import CheckpointConfig\n"
    "config = CheckpointConfig(save_checkpoint_steps=10)\n"
    "旧 = CheckpointConfig(\n"
    "    async_save=False,\n"
    ")\n"
)
SAFE_MSG = "checkpoints are saved synchronously; pass async_save=True"
UNSAFE_MSG = "async_save=False stalls training; use async_save=True"
YAML = (
    "callbacks:\n"
    "  - type: CheckpointMonitor\n"
    "    prefix: llama\n"
)
YAML_MSG = "CheckpointMonitor saves synchronously; set async_save: True"
NOTEBOOK = json.dumps({
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        {"cell_type": "code", "metadata": {}, "source": ["from mindspore.train import CheckpointConfig"]},
        {"cell_type": "code", "metadata": {}, "source": ["%matplotlib inline\n", "cfg = CheckpointConfig(save_checkpoint_steps=5)"]},
        {"cell_type": "code", "metadata": {}, "source": ["def f(:\n", "  pass"]},
    ],
    "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
}, indent=1)
VIRTUAL = (
    "from mindspore.train import CheckpointConfig\n"
    "# >>> ms-perflint cell 3 <<<\n"
    "pass  # >>> ms-perflint ipython 1 <<<\n"
    "cfg = CheckpointConfig(save_checkpoint_steps=5)\n"
)
NB_NOTICE = "cell 4 skipped: not Python (invalid syntax at line 1)"
IMPORT_MINDSPORE = "import mindspore\n"
SET_CONTEXT = "mindspore.set_context(jit_level=\"O2\")\n"


def python_result() -> FileResult:
    after_10 = PY.index("10)") + 2
    open_paren = PY.index("(\n")
    safe = Fix(FixSafety.SAFE, "Add `async_save=True`", (
        TextEdit(after_10, after_10, ",\n    async_save=True,\n"),  # multi-line content, an insertion
        TextEdit(len(PY), len(PY), SET_CONTEXT),                      # insertion at the end of the file
    ))
    unsafe = Fix(FixSafety.UNSAFE, "Use `async_save=True`", (TextEdit(open_paren, len(PY) - 1, "(async_save=True)"),))
    return FileResult("train.py", [
        Finding("MSP103", SAFE_MSG, 3, 9, 3, 51, safe),
        Finding("MSP103", UNSAFE_MSG, 4, 4, 6, 1, unsafe),
    ], source=SourceText(PY))


def yaml_result() -> FileResult:
    at = YAML.index("    prefix")
    fix = Fix(FixSafety.SAFE, "Add `async_save: True`", (TextEdit(at, at, "    async_save: True\n"),))
    return FileResult("configs/train.yaml", [Finding("MSP103", YAML_MSG, 2, 4, 2, 27, fix)],
                      source=SourceText(YAML), kind="yaml")


def notebook_result() -> FileResult:
    paren = VIRTUAL.index("=5)") + 2
    fix = Fix(FixSafety.SAFE, "Add `async_save=True`", (
        TextEdit(paren, paren, ", async_save=True"),
        TextEdit(0, 0, IMPORT_MINDSPORE),
    ))
    finding = Finding("MSP103", SAFE_MSG, 2, 6, 2, 47, fix, cell=3)
    return FileResult("nb.ipynb", [finding], source=SourceText(NOTEBOOK), kind="notebook", notices=[NB_NOTICE])


def error_result() -> FileResult:
    return FileResult("broken.py", error=FileError("SyntaxError", "expected ')'", 2, 25))


def clean_result() -> FileResult:
    return FileResult("ok.py", source=SourceText("x = 1\n"))


def all_results() -> List[FileResult]:
    return [python_result(), yaml_result(), notebook_result(), error_result(), clean_result()]


def render(results: List[FileResult], name: str, **options: Any) -> str:
    return render_report(results, name, ReportOptions(**options))


def loc(row: int, column: int) -> Dict[str, int]:
    return {"row": row, "column": column}


def test_the_notebook_fixture_builds_the_virtual_module_the_offsets_refer_to():
    notebook = read_notebook(NOTEBOOK)
    assert virtual_module(notebook.cells).text == VIRTUAL
    assert notebook.skipped == [NB_NOTICE]


# --- text, concise, pylint, grouped, full -------------------------------------------------------------


TEXT_LINES = (
    "broken.py:2:26: SyntaxError: expected ')'\n"
    "configs/train.yaml:2:5: MSP103 [*] " + YAML_MSG + "\n"
    "nb.ipynb:cell 3:2:7: MSP103 [*] " + SAFE_MSG + "\n"
    "train.py:3:10: MSP103 [*] " + SAFE_MSG + "\n"
    "train.py:4:5: MSP103 " + UNSAFE_MSG + "\n"
)


def test_text_lines_and_summary():
    assert render(all_results(), "text") == TEXT_LINES + (
        "Found 4 findings in 3 of 5 files; 1 file could not be checked.\n"
        "[*] 3 fixable with the `--fix` option.\n"
        "1 more fix available with `--fix --unsafe-fixes`.\n"
    )


def test_unsafe_fixes_marks_unsafe_findings_and_counts_them_together():
    text = render(all_results(), "text", unsafe_fixes=True)
    assert "train.py:4:5: MSP103 [*] " + UNSAFE_MSG + "\n" in text
    assert text.endswith("Found 4 findings in 3 of 5 files; 1 file could not be checked.\n"
                         "[*] 4 fixable with `--fix --unsafe-fixes`.\n")


def test_quiet_text_and_concise_have_no_summary():
    assert render(all_results(), "text", quiet=True) == TEXT_LINES
    assert render(all_results(), "concise") == TEXT_LINES


def test_summary_counts_yaml_files_like_any_other():
    clean_yaml = FileResult("configs/eval.yaml", source=SourceText("a: 1\n"), kind="yaml")
    assert render([yaml_result(), clean_yaml], "text") == (
        "configs/train.yaml:2:5: MSP103 [*] " + YAML_MSG + "\n"
        "Found 1 finding in 1 of 2 files.\n"
        "[*] 1 fixable with the `--fix` option.\n"
    )
    assert render([clean_yaml], "text") == "All checks passed! (1 file checked)\n"
    assert render([yaml_result()], "text").splitlines()[1] == "Found 1 finding in 1 file."


def test_summary_of_errors_only():
    assert render([error_result(), clean_result()], "text").splitlines()[-1] == "1 of 2 files could not be checked."


def test_colour_in_text():
    line = render([python_result()], "concise", color=True).splitlines()[0]
    assert line == f"\x1b[1mtrain.py\x1b[0m:3:10: \x1b[1;31mMSP103\x1b[0m \x1b[36m[*]\x1b[0m {SAFE_MSG}"


def test_notices_are_exposed_for_the_cli():
    other = FileResult("b.ipynb", kind="notebook", notices=["cell 1 skipped: x", "cell 2 skipped: y"])
    assert report.notices(all_results() + [other]) == [
        "b.ipynb: cell 1 skipped: x",
        "b.ipynb: cell 2 skipped: y",
        "nb.ipynb: " + NB_NOTICE,
    ]


def test_pylint():
    assert render(all_results(), "pylint") == (
        "broken.py:2: [SyntaxError] expected ')'\n"
        "configs/train.yaml:2: [MSP103] " + YAML_MSG + "\n"
        "nb.ipynb:2: [MSP103] cell 3: " + SAFE_MSG + "\n"
        "train.py:3: [MSP103] " + SAFE_MSG + "\n"
        "train.py:4: [MSP103] " + UNSAFE_MSG + "\n"
    )


def test_grouped():
    extra = Finding("MSP105", "profiler and autotune", 12, 0, 12, 5)
    py = python_result()
    py.findings.append(extra)
    assert render([py, notebook_result(), error_result()], "grouped", quiet=True) == (
        "broken.py:\n"
        "  2:26 SyntaxError: expected ')'\n"
        "\n"
        "nb.ipynb:\n"
        "  cell 3:2:7 MSP103 [*] " + SAFE_MSG + "\n"
        "\n"
        "train.py:\n"
        "   3:10 MSP103 [*] " + SAFE_MSG + "\n"
        "   4:5  MSP103 " + UNSAFE_MSG + "\n"
        "  12:1  MSP105 profiler and autotune\n"
    )
    assert render([py], "grouped").endswith("  12:1  MSP105 profiler and autotune\n\nFound 3 findings in 1 file.\n"
                                            "[*] 1 fixable with the `--fix` option.\n"
                                            "1 more fix available with `--fix --unsafe-fixes`.\n")


def test_full_shows_source_lines_with_carets():
    text = render([python_result(), notebook_result(), error_result()], "full", quiet=True)
    assert text == (
        "broken.py:2:26: SyntaxError: expected ')'\n"
        "\n"
        "nb.ipynb:cell 3:2:7: MSP103 [*] " + SAFE_MSG + "\n"
        "  |\n"
        "2 | cfg = CheckpointConfig(save_checkpoint_steps=5)\n"
        "  |       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ MSP103\n"
        "  |\n"
        "  = help: Add `async_save=True`\n"
        "\n"
        "train.py:3:10: MSP103 [*] " + SAFE_MSG + "\n"
        "  |\n"
        "3 | config = CheckpointConfig(save_checkpoint_steps=10)\n"
        "  |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ MSP103\n"
        "  |\n"
        "  = help: Add `async_save=True`\n"
        "\n"
        "train.py:4:5: MSP103 " + UNSAFE_MSG + "\n"
        "  |\n"
        "4 | 旧 = CheckpointConfig(\n"
        "  |      ^^^^^^^^^^^^^^^^^\n"       # 旧 takes two terminal columns: five columns before the call
        "5 |     async_save=False,\n"
        "6 | )\n"
        "  | ^ MSP103\n"
        "  |\n"
        "  = help: Use `async_save=True`\n"
    )


def test_full_shows_the_error_line_and_elides_long_spans():
    source = "".join(f"x{n} = 1\n" for n in range(1, 12)) + "\tcall(  # a\n"
    broken = FileResult("b.py", error=FileError("SyntaxError", "'(' was never closed", 12, 5), source=SourceText(source))
    long = FileResult("l.py", [Finding("MSP101", "m", 2, 0, 9, 6)], source=SourceText(source))
    text = render([broken, long], "full")
    assert text == (
        "b.py:12:6: SyntaxError: '(' was never closed\n"
        "   |\n"
        "12 | \tcall(  # a\n"
        "   | \t    ^ SyntaxError\n"
        "   |\n"
        "\n"
        "l.py:2:1: MSP101 m\n"
        "  |\n"
        "2 | x2 = 1\n"
        "  | ^^^^^^\n"
        "3 | x3 = 1\n"
        "4 | x4 = 1\n"
        ". |\n"
        "9 | x9 = 1\n"
        "  | ^^^^^^ MSP101\n"
        "  |\n"
        "\n"
        "Found 1 finding in 1 of 2 files; 1 file could not be checked.\n"
    )


# --- json and json-lines ----------------------------------------------------------------------------------


def apply_json_edits(text: str, edits: List[Dict[str, Any]]) -> str:
    """Apply ruff-shaped edits (1-based rows and columns, exclusive ends), from the last to the first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(at: Dict[str, int]) -> int:
        return starts[at["row"] - 1] + at["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]):]
    return text


def test_json_objects():
    objects = json.loads(render(all_results(), "json"))
    assert [(o["filename"], o["name"]) for o in objects] == [
        ("broken.py", "SyntaxError"),
        ("configs/train.yaml", "sync-checkpoint-save"),
        ("nb.ipynb", "sync-checkpoint-save"),
        ("nb.ipynb", "Notice"),
        ("train.py", "sync-checkpoint-save"),
        ("train.py", "sync-checkpoint-save"),
    ]
    broken, yaml, notebook, notice, safe, unsafe = objects
    assert broken == {"code": None, "name": "SyntaxError", "message": "SyntaxError: expected ')'",
                      "filename": "broken.py", "cell": None, "location": loc(2, 26), "end_location": loc(2, 26),
                      "fix": None, "url": None}
    assert safe == {
        "code": "MSP103", "name": "sync-checkpoint-save", "message": SAFE_MSG, "filename": "train.py", "cell": None,
        "location": loc(3, 10), "end_location": loc(3, 52),
        "fix": {"applicability": "safe", "message": "Add `async_save=True`", "edits": [
            {"content": ",\n    async_save=True,\n", "location": loc(3, 51), "end_location": loc(3, 51)},
            {"content": SET_CONTEXT, "location": loc(7, 1), "end_location": loc(7, 1)},
        ]},
        "url": Path(report.rule_page("MSP103")).as_uri(),  # test_rule_urls_open_the_page_on_this_machine_by_default
    }
    assert unsafe["location"] == loc(4, 5) and unsafe["end_location"] == loc(6, 2)
    assert unsafe["fix"] == {"applicability": "unsafe", "message": "Use `async_save=True`", "edits": [
        {"content": "(async_save=True)", "location": loc(4, 21), "end_location": loc(6, 2)}]}
    assert yaml["fix"]["edits"] == [{"content": "    async_save: True\n", "location": loc(3, 1), "end_location": loc(3, 1)}]
    assert notice == {"code": None, "name": "Notice", "message": NB_NOTICE, "filename": "nb.ipynb", "cell": None,
                      "location": loc(1, 1), "end_location": loc(1, 1), "fix": None, "url": None}


def test_json_edits_rebuild_the_fixed_text():
    objects = {o["message"]: o for o in json.loads(render([python_result()], "json"))}
    assert apply_json_edits(PY, objects[SAFE_MSG]["fix"]["edits"]) == (
        "import mindspore\n"
        "from mindspore.train import CheckpointConfig\n"
        "config = CheckpointConfig(save_checkpoint_steps=10,\n"
        "    async_save=True,\n"
        ")\n"
        "旧 = CheckpointConfig(\n"
        "    async_save=False,\n"
        ")\n"
        + SET_CONTEXT
    )
    assert apply_json_edits(PY, objects[UNSAFE_MSG]["fix"]["edits"]).endswith("旧 = CheckpointConfig(async_save=True)\n")


def test_json_notebook_edits_are_told_by_cell():
    notebook = [o for o in json.loads(render([notebook_result()], "json")) if o["code"]][0]
    assert notebook["cell"] == 3 and notebook["location"] == loc(2, 7) and notebook["end_location"] == loc(2, 48)
    assert notebook["fix"]["edits"] == [  # by place, as the fixer applies them, not in the fix's order
        {"content": IMPORT_MINDSPORE, "location": loc(1, 1), "end_location": loc(1, 1), "cell": 2},
        {"content": ", async_save=True", "location": loc(2, 47), "end_location": loc(2, 47), "cell": 3},
    ]


def test_a_notebook_edit_never_runs_into_the_next_cell():
    locator = EditLocator(notebook_result())
    line_break = VIRTUAL.index("\n")
    assert locator.span(TextEdit(line_break, VIRTUAL.index("pass"), "")) == (Position(1, 45, 2), Position(2, 1, 2))
    assert locator.position(len(VIRTUAL)) == Position(3, 1, 3)  # the end of the module: after cell 3's last line


def test_json_without_source_text_keeps_the_fix_without_edits():
    result = python_result()
    result.source = None
    fixes = [o["fix"] for o in json.loads(render([result], "json"))]
    assert [(f["applicability"], f["edits"]) for f in fixes] == [("safe", []), ("unsafe", [])]


def test_json_lines_are_the_json_objects():
    lines = render(all_results(), "json-lines").splitlines()
    assert len(lines) == 6 and all(line.startswith("{") for line in lines)
    assert [json.loads(line) for line in lines] == json.loads(render(all_results(), "json"))


def urls(monkeypatch) -> Tuple[str, str]:
    """MSP103's JSON ``url`` and SARIF ``helpUri``."""
    monkeypatch.setattr(sarif, "rule_help", lambda rule: f"# {rule.code}")
    descriptors = json.loads(render([], "sarif"))["runs"][0]["tool"]["driver"]["rules"]
    return json.loads(render([yaml_result()], "json"))[0]["url"], {d["id"]: d["helpUri"] for d in descriptors}["MSP103"]


def test_rule_urls_come_from_one_base(monkeypatch):
    monkeypatch.delenv(report.DOCS_URL_VARIABLE, raising=False)
    monkeypatch.setattr(report, "DOCS_BASE_URL", "https://example.org/ms-perflint/blob/main/")
    url = "https://example.org/ms-perflint/blob/main/docs/rules/MSP103.md"
    assert urls(monkeypatch) == (url, url)
    # A team that hosts the docs sets the variable for its runs (a SARIF upload in CI): it wins.
    monkeypatch.setenv(report.DOCS_URL_VARIABLE, "https://wiki.example.com/perflint")
    assert urls(monkeypatch) == ("https://wiki.example.com/perflint/docs/rules/MSP103.md",) * 2


def test_rule_urls_open_the_page_on_this_machine_by_default(monkeypatch):
    monkeypatch.delenv(report.DOCS_URL_VARIABLE, raising=False)
    url, help_uri = urls(monkeypatch)
    assert url == help_uri and url.startswith("file:///")
    page = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
    assert page.read_text(encoding="utf-8") == (WORKTREE / "docs" / "rules" / "MSP103.md").read_text(encoding="utf-8")
    # No page anywhere (a package copied without its data): the repository path, never a dead file: URI.
    monkeypatch.setattr(report, "_PAGE_FOLDERS", (str(WORKTREE / "no-such-folder"),))
    assert urls(monkeypatch) == ("docs/rules/MSP103.md",) * 2


# --- sarif ----------------------------------------------------------------------------------------------------


def validator() -> jsonschema.Draft4Validator:
    schema = json.loads((WORKTREE / "tests" / "data" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def test_sarif_is_valid_and_carries_fixes_notifications_and_cells(monkeypatch):
    monkeypatch.setattr(sarif, "rule_help", lambda rule: f"# {rule.code} page")
    log = json.loads(render(all_results(), "sarif"))
    problems = sorted(validator().iter_errors(log), key=lambda e: list(e.path))
    assert not problems, [f"{list(e.path)}: {e.message}" for e in problems[:5]]
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"]: r["help"]["markdown"] for r in rules}["MSP103"] == "# MSP103 page"
    results = run["results"]
    assert [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["message"]["text"]) for r in results] == [
        ("configs/train.yaml", YAML_MSG), ("nb.ipynb", "cell 3: " + SAFE_MSG),
        ("train.py", SAFE_MSG), ("train.py", UNSAFE_MSG)]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] == "MSP103" for r in results)
    yaml, notebook, safe, unsafe = results
    assert notebook["properties"] == {"cell": 3} and "fixes" not in notebook
    assert safe["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3, "startColumn": 10, "endLine": 3, "endColumn": 52}
    assert [r["deletedRegion"] for r in safe["fixes"][0]["artifactChanges"][0]["replacements"]] == [
        {"startLine": 3, "startColumn": 51, "endLine": 3, "endColumn": 51},
        {"startLine": 7, "startColumn": 1, "endLine": 7, "endColumn": 1}]
    assert unsafe["fixes"][0]["description"]["text"] == "Use `async_save=True` (unsafe fix)"
    assert unsafe["fixes"][0]["artifactChanges"][0]["replacements"] == [{
        "deletedRegion": {"startLine": 4, "startColumn": 21, "endLine": 6, "endColumn": 2},
        "insertedContent": {"text": "(async_save=True)"}}]
    assert yaml["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]["startLine"] == 3
    notifications = run["invocations"][0]["toolExecutionNotifications"]
    assert [(n["level"], n["message"]["text"]) for n in notifications] == [
        ("error", "SyntaxError: expected ')'"), ("note", NB_NOTICE)]
    assert notifications[0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 26}


def test_sarif_of_a_clean_run_is_valid(monkeypatch):
    monkeypatch.setattr(sarif, "rule_help", lambda rule: "page")
    log = json.loads(render([clean_result()], "sarif"))
    assert not list(validator().iter_errors(log))
    assert log["runs"][0]["results"] == []


def test_sarif_help_falls_back_when_the_docs_module_cannot_be_imported(monkeypatch):
    monkeypatch.setitem(sys.modules, "ms_perflint.docs", None)  # importing it raises ImportError
    page = sarif.rule_help(report.rule_for("MSP103"))
    assert page.startswith("# MSP103 sync-checkpoint-save\n\n") and "CheckpointConfig" in page


# --- github, gitlab, junit -------------------------------------------------------------------------------------


def test_github_commands():
    assert render(all_results(), "github").splitlines() == [
        f"::notice title=ms-perflint,file=nb.ipynb::{NB_NOTICE}",
        "::error title=ms-perflint (SyntaxError),file=broken.py,line=2,col=26::SyntaxError: expected ')'",
        f"::error title=ms-perflint (MSP103),file=configs/train.yaml,line=2,col=5,endLine=2,endColumn=28::MSP103 {YAML_MSG}",
        f"::error title=ms-perflint (MSP103),file=nb.ipynb,line=2,col=7,endLine=2,endColumn=48::MSP103 cell 3: {SAFE_MSG}",
        f"::error title=ms-perflint (MSP103),file=train.py,line=3,col=10,endLine=3,endColumn=52::MSP103 {SAFE_MSG}",
        f"::error title=ms-perflint (MSP103),file=train.py,line=4,col=5,endLine=6,endColumn=2::MSP103 {UNSAFE_MSG}",
    ]


def test_gitlab_issues():
    issues = json.loads(render(all_results(), "gitlab"))
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("SyntaxError", "critical", {"path": "broken.py", "lines": {"begin": 2, "end": 2}}),
        ("MSP103", "major", {"path": "configs/train.yaml", "lines": {"begin": 2, "end": 2}}),
        ("MSP103", "major", {"path": "nb.ipynb", "lines": {"begin": 2, "end": 2}}),
        ("MSP103", "major", {"path": "train.py", "lines": {"begin": 3, "end": 3}}),
        ("MSP103", "major", {"path": "train.py", "lines": {"begin": 4, "end": 6}}),
    ]
    assert issues[2]["description"] == f"MSP103 cell 3: {SAFE_MSG}"
    assert all(len(i["fingerprint"]) == 32 for i in issues)
    assert len({i["fingerprint"] for i in issues}) == len(issues)


def test_gitlab_fingerprints_survive_moved_lines_and_tell_findings_apart():
    def issue_of(text: str, *findings: Finding) -> List[Dict[str, Any]]:
        return gitlab_issues([FileResult("train.py", list(findings), source=SourceText(text))], environ={})

    line = "config = CheckpointConfig(save_checkpoint_steps=10)\n"
    before = issue_of(line, Finding("MSP103", "m", 1, 9))
    after = issue_of("import os\n\n" + line, Finding("MSP103", "a changed message", 3, 9))
    assert after[0]["location"]["lines"]["begin"] == 3
    assert after[0]["fingerprint"] == before[0]["fingerprint"]
    reindented = issue_of("if True:\n    " + line, Finding("MSP103", "m", 2, 13))
    assert reindented[0]["fingerprint"] == before[0]["fingerprint"]
    two_codes = issue_of(line, Finding("MSP103", "m", 1, 9), Finding("MSP101", "m", 1, 9))
    assert two_codes[0]["fingerprint"] != two_codes[1]["fingerprint"]
    assert {i["fingerprint"] for i in two_codes} >= {before[0]["fingerprint"]}
    twice = issue_of("a = f(CheckpointConfig(), CheckpointConfig())\n",
                     Finding("MSP103", "m", 1, 6), Finding("MSP103", "m", 1, 26))
    assert twice[0]["fingerprint"] != twice[1]["fingerprint"]
    other_line = issue_of("config = CheckpointConfig(save_checkpoint_steps=20)\n", Finding("MSP103", "m", 1, 9))
    assert other_line[0]["fingerprint"] != before[0]["fingerprint"]


def test_gitlab_paths_are_relative_to_the_ci_project(tmp_path: Path):
    file = tmp_path / "src" / "train.py"
    issues = gitlab_issues([FileResult(str(file), [Finding("MSP103", "m", 1, 0)])], environ={"CI_PROJECT_DIR": str(tmp_path)})
    assert issues[0]["location"]["path"] == "src/train.py"
    elsewhere = gitlab_issues([FileResult(str(file), [Finding("MSP103", "m", 1, 0)])],
                              environ={"CI_PROJECT_DIR": str(tmp_path / "other")})
    assert elsewhere[0]["location"]["path"] == file.as_posix()  # under neither the project nor the cwd: as given


def test_junit_counts_and_cases():
    root = ET.fromstring(render(all_results(), "junit"))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("5", "3", "1")
    (suite,) = root
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "3", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert sorted(cases) == ["broken.py", "configs/train.yaml", "nb.ipynb", "ok.py", "train.py"]
    failures = cases["train.py"].findall("failure")
    assert [(f.get("type"), f.get("message"), f.text) for f in failures] == [
        ("MSP103", f"MSP103 {SAFE_MSG}", f"train.py:3:10: MSP103 {SAFE_MSG}"),
        ("MSP103", f"MSP103 {UNSAFE_MSG}", f"train.py:4:5: MSP103 {UNSAFE_MSG}"),
    ]
    (error,) = cases["broken.py"].findall("error")
    assert error.get("type") == "SyntaxError" and error.text == "broken.py:2:26: SyntaxError: expected ')'"
    assert cases["nb.ipynb"].find("failure").get("message") == f"MSP103 cell 3: {SAFE_MSG}"
    assert cases["nb.ipynb"].find("system-out").text == NB_NOTICE
    assert list(cases["ok.py"]) == []


def test_junit_escapes_everything_into_valid_xml():
    path = "odd <&>\"'\x0c\udcff.py"
    message = "bad ]]> & <tag> \x00 \"quoted\""
    result = FileResult(path, [Finding("MSP103", message, 1, 0)], error=None)
    document = render([result], "junit")
    document.encode("utf-8")  # no lone surrogate left
    case = ET.fromstring(document).find("testsuite/testcase")
    assert case.get("name") == "odd <&>\"'\\x0c\\udcff.py"
    assert case.find("failure").get("message") == "MSP103 bad ]]> & <tag> \\x00 \"quoted\""
    assert xml_text("tab\tnew\nline\r ok") == "tab\tnew\nline\r ok"


# --- the registry, statistics, colour ---------------------------------------------------------------------------


def test_every_format_renders_and_clean_runs_render_something_sane():
    for name in FORMATS:
        assert isinstance(render(all_results(), name), str)
    assert render([clean_result()], "json") == "[]\n"
    assert render([clean_result()], "json-lines") == ""
    assert render([clean_result()], "gitlab") == "[]\n"
    assert render([clean_result()], "text") == "All checks passed! (1 file checked)\n"


def test_the_text_report_loads_no_json_or_xml_code():
    code = (
        "import sys\n"
        "from ms_perflint.findings import FileResult, Finding\n"
        "from ms_perflint.output.report import render_report\n"
        "render_report([FileResult('a.py', [Finding('MSP103', 'm')])], 'text')\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith(('ms_perflint.output', 'json', 'xml')))))\n"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=WORKTREE,
                               env={"PYTHONPATH": str(WORKTREE)}, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["ms_perflint.output", "ms_perflint.output.report", "ms_perflint.output.text"]


def test_statistics_text_and_json():
    results = all_results()
    results[0].findings.append(Finding("MSP105", "m", 9, 0))
    stream = io.StringIO()
    write_report(results, stream, "text", show_statistics=True)
    assert stream.getvalue() == (
        "4  MSP103  [*] sync-checkpoint-save\n"
        "1  MSP105      autotune-with-profiler\n"
    )
    stream = io.StringIO()
    write_report([python_result()], stream, "json", show_statistics=True)
    assert json.loads(stream.getvalue()) == [{"code": "MSP103", "name": "sync-checkpoint-save", "count": 2, "fixable": True}]
    only_unsafe = FileResult("u.py", [python_result().findings[1]])
    assert report.statistics([only_unsafe])[0].fixable is False
    assert report.statistics([only_unsafe], unsafe_fixes=True)[0].fixable is True


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


ENVIRONMENTS = {
    "plain": {},
    "no_color": {"NO_COLOR": "1"},
    "empty_no_color": {"NO_COLOR": ""},
    "force": {"FORCE_COLOR": "1"},
    "empty_force": {"FORCE_COLOR": ""},
    "both": {"NO_COLOR": "1", "FORCE_COLOR": "1"},
    "dumb": {"TERM": "dumb"},
    "dumb_forced": {"TERM": "dumb", "FORCE_COLOR": "1"},
}
#: (environment, terminal?) -> colour in auto.
AUTO = {
    ("plain", True): True, ("plain", False): False,
    ("no_color", True): False, ("no_color", False): False,
    ("empty_no_color", True): True, ("empty_no_color", False): False,
    ("force", True): True, ("force", False): True,
    ("empty_force", True): True, ("empty_force", False): False,
    ("both", True): False, ("both", False): False,
    ("dumb", True): False, ("dumb", False): False,
    ("dumb_forced", True): True, ("dumb_forced", False): True,
}


@pytest.mark.parametrize("environment, tty", sorted(AUTO))
@pytest.mark.parametrize("choice", ["auto", "always", "never"])
def test_colour_decision(choice: str, environment: str, tty: bool):
    expected = {"auto": AUTO[environment, tty], "always": True, "never": False}[choice]
    assert use_color(Stream(tty), choice, ENVIRONMENTS[environment]) is expected


def test_colour_choice_is_checked_and_a_stream_without_isatty_is_no_terminal():
    with pytest.raises(ValueError):
        use_color(Stream(True), "sometimes", {})
    assert use_color(object(), "auto", {}) is False  # type: ignore[arg-type]
