"""``--output-format sarif``: a SARIF 2.1.0 log for code-scanning services (GitHub, Azure DevOps, ...).

``tool.driver.rules`` is built from every rule's metadata (id, name, summary,
the "What it does" section, the rendered docs page as help). Results carry
1-based line/column regions; columns count Unicode code points, which the run
declares with ``columnKind``. Paths under the current folder are relative URIs
against ``%SRCROOT%`` (what GitHub's upload action expects when the tool runs
from the repository root); other paths are absolute ``file:`` URIs. Files that
could not be checked become tool execution notifications, not results.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence
from urllib.parse import quote

from ms_perflint import __version__
from ms_perflint.results import FileResult
from ms_perflint.output.json import Edit, fix_edits
from ms_perflint.rule import Violation
from ms_perflint.settings import Settings

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
#: Findings are reported as errors, as the CLI fails (exit 1) on them.
LEVEL = "error"


def render_sarif(results: Sequence[FileResult], settings: Settings) -> str:
    """The SARIF log as a JSON document."""
    return json.dumps(sarif_log(results, settings), indent=2, ensure_ascii=False) + "\n"


def sarif_log(results: Sequence[FileResult], settings: Settings) -> Dict[str, Any]:
    """The SARIF log object: one run with the rule descriptors, results and notifications."""
    from ms_perflint.rules import ALL_RULES

    rule_index = {rule.code: index for index, rule in enumerate(ALL_RULES)}
    sarif_results: List[Dict[str, Any]] = []
    notifications: List[Dict[str, Any]] = []
    for result in sorted(results, key=lambda r: r.path):
        if result.error is not None:
            notifications.append(_notification(result))
        edits = fix_edits(result, settings) if any(v.fix is not None for v in result.violations) else {}
        for violation in result.violations:
            key = (violation.code, violation.line, violation.column)
            sarif_results.append(_result(result.path, violation, rule_index.get(violation.code), edits.get(key, [])))
    run: Dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "ms-perflint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule_descriptor(rule) for rule in ALL_RULES],
            }
        },
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
        "results": sarif_results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _rule_descriptor(rule: Any) -> Dict[str, Any]:
    from ms_perflint.docs import render_rule

    page = render_rule(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.docs.section("what_it_does").split())},
        "help": {"text": page, "markdown": page},
        "defaultConfiguration": {"level": LEVEL},
        "properties": {"fixAvailability": rule.fix_availability.value},
    }


def _result(path: str, violation: Violation, index: Optional[int], edits: List[Edit]) -> Dict[str, Any]:
    location = _artifact_location(path)
    result: Dict[str, Any] = {
        "ruleId": violation.code,
        "level": LEVEL,
        "message": {"text": (f"cell {violation.cell}: " if violation.cell is not None else "") + violation.message},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": _region(violation)}}],
    }
    if index is not None:
        result["ruleIndex"] = index
    if violation.cell is not None:
        result["properties"] = {"cell": violation.cell}  # the region's lines count within this notebook cell
    if violation.fix is not None and edits:
        result["fixes"] = [
            {
                "description": {"text": f"{violation.fix.description} ({violation.fix.safety.value} fix)"},
                "artifactChanges": [{"artifactLocation": location, "replacements": [_replacement(e) for e in edits]}],
            }
        ]
    return result


def _region(violation: Violation) -> Dict[str, int]:
    region = {"startLine": violation.line, "startColumn": violation.column + 1}
    if violation.end_line:
        region.update(endLine=violation.end_line, endColumn=violation.end_column + 1)
    return region


def _replacement(edit: Edit) -> Dict[str, Any]:
    (start_line, start_column), (end_line, end_column) = edit.start, edit.end
    region = {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}
    return {"deletedRegion": region, "insertedContent": {"text": edit.content}}


def _notification(result: FileResult) -> Dict[str, Any]:
    error = result.error
    assert error is not None
    region = {"startLine": error.line, "startColumn": error.column + 1}
    return {
        "level": "error",
        "message": {"text": f"{error.kind}: {error.message}"},
        "locations": [{"physicalLocation": {"artifactLocation": _artifact_location(result.path), "region": region}}],
    }


def _artifact_location(path: str) -> Dict[str, str]:
    """A relative URI against %SRCROOT% for paths under the current folder, else an absolute file URI."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive, on Windows
        return {"uri": Path(absolute).as_uri()}
    if relative.startswith(os.pardir + os.sep) or relative == os.pardir or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(Path(relative).as_posix()), "uriBaseId": SOURCE_ROOT}
