"""``sarif``: a SARIF 2.1.0 log for code-scanning services (GitHub, Azure DevOps, ...).

``tool.driver.rules`` is built from every rule's metadata (id, name, summary,
the "What it does" section, the rendered docs page as help, ``helpUri`` from
:func:`~ms_perflint.output.report.rule_url`). Results carry 1-based line/column
regions; columns count Unicode code points, which the run declares with
``columnKind``. A fix becomes a SARIF ``fix`` whose replacements are the fix's
text edits, in the same lines and columns (see :mod:`ms_perflint.output.locate`).

Paths under the current folder are relative URIs against ``%SRCROOT%`` (what
GitHub's upload action expects when the tool runs from the repository root);
other paths are absolute ``file:`` URIs.

In a notebook the region's lines count within the cell, which the result names
in its message (``cell N: ...``) and in ``properties.cell``. Its fixes are left
out: SARIF replacements are regions of the ``.ipynb`` file itself, and cell rows
are not. Files that could not be checked become tool execution notifications of
level ``error``, notices (a notebook cell left out) notifications of level ``note``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence
from urllib.parse import quote

from ms_perflint import __version__
from ms_perflint.findings import FileResult, Finding
from ms_perflint.output.locate import EditLocator, applied_order
from ms_perflint.output.report import ReportOptions, rule_url

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
#: Findings are reported as errors, as the CLI fails (exit 1) on them.
LEVEL = "error"


def render_sarif(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """The SARIF log as a JSON document."""
    return json.dumps(sarif_log(results), indent=2, ensure_ascii=False) + "\n"


def rule_help(rule: Any) -> str:
    """The rule's docs page in Markdown (from :mod:`ms_perflint.docs` when it is there, else a short page)."""
    try:
        from ms_perflint.docs import render_rule
    except ImportError:
        return f"# {rule.code} {rule.name}\n\n{rule.summary}.\n\n{rule.docs.section('what_it_does')}\n"
    return render_rule(rule)


def sarif_log(results: Sequence[FileResult]) -> Dict[str, Any]:
    """The SARIF log object: one run with the rule descriptors, results and notifications."""
    from ms_perflint.rules import ALL_RULES

    rule_index = {rule.code: index for index, rule in enumerate(ALL_RULES)}
    sarif_results: List[Dict[str, Any]] = []
    notifications: List[Dict[str, Any]] = []
    for result in sorted(results, key=lambda r: r.path):
        if result.error is not None:
            error = result.error
            region = {"startLine": error.line, "startColumn": error.column + 1}
            notifications.append(_notification(result.path, "error", f"{error.kind}: {error.message}", region))
        notifications.extend(_notification(result.path, "note", notice) for notice in result.notices)
        locator = None
        if result.kind != "notebook" and any(finding.fix is not None for finding in result.findings):
            locator = EditLocator(result)
        for finding in sorted(result.findings, key=Finding.sort_key):
            sarif_results.append(_result(result.path, finding, rule_index.get(finding.code), locator))
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
    page = rule_help(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": " ".join(rule.docs.section("what_it_does").split())},
        "help": {"text": page, "markdown": page},
        "helpUri": rule_url(rule),
        "defaultConfiguration": {"level": LEVEL},
        "properties": {"fixAvailability": rule.fix_availability.value},
    }


def _result(path: str, finding: Finding, index: Optional[int], locator: Optional[EditLocator]) -> Dict[str, Any]:
    location = artifact_location(path)
    result: Dict[str, Any] = {
        "ruleId": finding.code,
        "level": LEVEL,
        "message": {"text": (f"cell {finding.cell}: " if finding.cell is not None else "") + finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": _region(finding)}}],
    }
    if index is not None:
        result["ruleIndex"] = index
    if finding.cell is not None:
        result["properties"] = {"cell": finding.cell}
    if finding.cost is not None:  # with --profile: the share of the profiled time
        result.setdefault("properties", {})["cost"] = round(finding.cost, 6)
    fix = finding.fix
    if fix is not None and locator is not None and locator.usable and fix.edits:
        replacements = []
        for edit in applied_order(fix):
            start, end = locator.span(edit)
            region = {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}
            replacements.append({"deletedRegion": region, "insertedContent": {"text": edit.new}})
        result["fixes"] = [{
            "description": {"text": f"{fix.description} ({fix.safety.value} fix)"},
            "artifactChanges": [{"artifactLocation": location, "replacements": replacements}],
        }]
    return result


def _region(finding: Finding) -> Dict[str, int]:
    region = {"startLine": finding.line, "startColumn": finding.column + 1}
    if finding.end_line:
        region.update(endLine=finding.end_line, endColumn=finding.end_column + 1)
    return region


def _notification(path: str, level: str, text: str, region: Optional[Dict[str, int]] = None) -> Dict[str, Any]:
    physical: Dict[str, Any] = {"artifactLocation": artifact_location(path)}
    if region is not None:
        physical["region"] = region
    return {"level": level, "message": {"text": text}, "locations": [{"physicalLocation": physical}]}


def artifact_location(path: str) -> Dict[str, str]:
    """A relative URI against %SRCROOT% for paths under the current folder, else an absolute file URI."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive, on Windows
        return {"uri": Path(absolute).as_uri()}
    if relative.startswith(os.pardir + os.sep) or relative == os.pardir or os.path.isabs(relative):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(Path(relative).as_posix()), "uriBaseId": SOURCE_ROOT}
