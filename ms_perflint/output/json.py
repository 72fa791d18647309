"""``json`` and ``json-lines``: one object per finding, in ruff's shape.

``json`` is a list of objects (indented); ``json-lines`` writes the same objects
one per line. Objects come by file path; per file: its error, its findings by
place, then its notices. Each object has

- ``code`` and ``name`` (the rule's kebab name), ``message``, ``filename``;
- ``cell``: in a notebook the 1-based cell (the rows then count within it), else null;
- ``location`` and ``end_location``: ``{"row", "column"}``, both 1-based; the end is exclusive;
- ``fix``: null, or ``{"applicability": "safe"|"unsafe", "message", "edits"}``;
- ``url``: the rule's docs page (:func:`~ms_perflint.output.report.rule_url`: the installed page's ``file:``
  URI, or under ``$MS_PERFLINT_DOCS_URL``).

A fix's ``edits`` are its text edits, by place (the order the fixer applies
them in), each ``{"content", "location", "end_location"}`` in the same rows and
columns (an insertion starts and ends at one place). They are computed from the
fix's data alone (see :mod:`ms_perflint.output.locate`); nothing is linted
again. A notebook's edits add ``"cell"``: an edit can be in another cell than
its finding (an import in the first cell). A result without source text gives
its fixes no edits.

A file that could not be checked is an object whose ``code`` is null, whose
``name`` is the error kind (``SyntaxError``, ``DecodeError``, ``ReadError``,
``TooLarge``, ``NotebookError``) and whose ``message`` starts with it. A notice
(a notebook cell left out) is an object whose ``code`` is null, ``name`` is
``Notice`` and place is the file's start.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from ms_perflint.findings import FileResult, Finding
from ms_perflint.output.locate import EditLocator, Position, applied_order
from ms_perflint.output.report import ReportOptions, rule_for, rule_url


def render_json(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """The JSON document: a list of :func:`finding_objects`."""
    return json.dumps(finding_objects(results), indent=2, ensure_ascii=False) + "\n"


def render_json_lines(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """The same objects as :func:`render_json`, one compact JSON object per line."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in finding_objects(results))


def finding_objects(results: Sequence[FileResult]) -> List[Dict[str, Any]]:
    """Every finding, file error and notice as a JSON-ready object."""
    objects = []
    for result in sorted(results, key=lambda r: r.path):
        if result.error is not None:
            objects.append(_error_object(result))
        locator = None
        for finding in sorted(result.findings, key=Finding.sort_key):
            if finding.fix is not None and locator is None:
                locator = EditLocator(result)
            objects.append(finding_object(result, finding, locator))
        objects.extend(_notice_object(result, notice) for notice in result.notices)
    return objects


def finding_object(result: FileResult, finding: Finding, locator: Optional[EditLocator] = None) -> Dict[str, Any]:
    """One finding in ruff's shape (``locator`` places its fix's edits; needed when it has a fix)."""
    rule = rule_for(finding.code)
    found = {
        "code": finding.code,
        "name": rule.name if rule is not None else None,
        "message": finding.message,
        "filename": result.path,
        "cell": finding.cell,
        "location": _location(finding.line, finding.column + 1),
        "end_location": _location(*_end(finding)),
        "fix": _fix_object(finding, locator),
        "url": rule_url(rule) if rule is not None else None,
    }
    if finding.cost is not None:
        found["cost"] = round(finding.cost, 6)  # with --profile: the share of the profiled time
    return found


def _fix_object(finding: Finding, locator: Optional[EditLocator]) -> Optional[Dict[str, Any]]:
    fix = finding.fix
    if fix is None:
        return None
    edits = []
    if locator is not None and locator.usable:
        for edit in applied_order(fix):
            start, end = locator.span(edit)
            item: Dict[str, Any] = {"content": edit.new, "location": _at(start), "end_location": _at(end)}
            if start.cell is not None:
                item["cell"] = start.cell
            edits.append(item)
    return {"applicability": fix.safety.value, "message": fix.description, "edits": edits}


def _error_object(result: FileResult) -> Dict[str, Any]:
    error = result.error
    assert error is not None
    place = _location(error.line, error.column + 1)
    return {
        "code": None,
        "name": error.kind,
        "message": f"{error.kind}: {error.message}",
        "filename": result.path,
        "cell": error.cell,
        "location": place,
        "end_location": dict(place),
        "fix": None,
        "url": None,
    }


def _notice_object(result: FileResult, notice: str) -> Dict[str, Any]:
    return {
        "code": None,
        "name": "Notice",
        "message": notice,
        "filename": result.path,
        "cell": None,
        "location": _location(1, 1),
        "end_location": _location(1, 1),
        "fix": None,
        "url": None,
    }


def _location(row: int, column: int) -> Dict[str, int]:
    return {"row": row, "column": column}


def _at(position: Position) -> Dict[str, int]:
    return _location(position.row, position.column)


def _end(finding: Finding) -> tuple:
    """The exclusive end (1-based); a finding without a known end ends where it starts."""
    if finding.end_line:
        return finding.end_line, finding.end_column + 1
    return finding.line, finding.column + 1
