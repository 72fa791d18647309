"""``gitlab``: a GitLab Code Quality report (a JSON list of issues), shown in merge requests.

Each finding is an issue::

    {"description": "MSP103 CheckpointConfig saves ...", "check_name": "MSP103",
     "fingerprint": "<32 hex digits>", "severity": "major",
     "location": {"path": "src/train.py", "lines": {"begin": 12, "end": 12}}}

- ``location.path`` is relative to ``CI_PROJECT_DIR`` (the checkout, set in GitLab
  CI) when the file is under it, else to the current folder when under it, else
  as given; always with ``/``.
- ``fingerprint`` is how GitLab tells a new issue from an old one between the
  base and the head of a merge request, so it must not change when unrelated
  lines move the finding: it hashes the path, the code and the text of the
  finding's first line (stripped, so re-indenting does not make it new) -- not
  the line number. Findings with the same code on the same line text (two calls
  on one line, or two identical lines) are told apart by their order in the
  file. Without the source text, the message stands in for the line.
- ``severity`` is ``major`` for findings and ``critical`` for a file that could not
  be checked (its ``check_name`` is the error kind, ``SyntaxError``, ...).

In a notebook the lines count within the cell, which the description names
(``cell 3: ...``). Notices are not issues: the CLI prints them on standard error.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ms_perflint.findings import FileError, FileResult
from ms_perflint.output.locate import SourceLines
from ms_perflint.output.report import ReportOptions, sorted_entries

FINDING_SEVERITY = "major"
ERROR_SEVERITY = "critical"


def render_gitlab(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """The Code Quality report as a JSON document."""
    return json.dumps(gitlab_issues(results), indent=2, ensure_ascii=False) + "\n"


def gitlab_issues(results: Sequence[FileResult], environ: Optional[Mapping[str, str]] = None) -> List[Dict[str, Any]]:
    """Every finding and file error as a Code Quality issue, by path and place."""
    environ = os.environ if environ is None else environ
    issues = []
    seen: Dict[str, int] = {}
    sources: Dict[str, SourceLines] = {}
    for result, item in sorted_entries(results):
        path = project_path(result.path, environ.get("CI_PROJECT_DIR") or None)
        source = sources.setdefault(result.path, SourceLines(result))
        check = item.kind if isinstance(item, FileError) else item.code
        line_text = source.line(item.line, item.cell)
        text = line_text.strip() if line_text is not None else item.message
        identity = "\0".join((path, check, text))
        occurrence = seen.get(identity, 0)
        seen[identity] = occurrence + 1
        cell = f"cell {item.cell}: " if item.cell is not None else ""
        if isinstance(item, FileError):
            description, severity, end = f"{item.kind}: {cell}{item.message}", ERROR_SEVERITY, item.line
        else:
            description, severity = f"{item.code} {cell}{item.message}", FINDING_SEVERITY
            end = max(item.end_line, item.line)
        issues.append({
            "description": description,
            "check_name": check,
            "fingerprint": fingerprint(path, check, text, occurrence),
            "severity": severity,
            "location": {"path": path, "lines": {"begin": item.line, "end": end}},
        })
    return issues


def fingerprint(path: str, check: str, line_text: str, occurrence: int = 0) -> str:
    """A stable identity of an issue: 32 hex digits of a SHA-256 over its parts (no line number)."""
    parts = [path, check, line_text] + ([str(occurrence)] if occurrence else [])
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def project_path(path: str, project_dir: Optional[str] = None) -> str:
    """``path`` relative to ``project_dir`` (else the current folder) when under it, with ``/``."""
    absolute = os.path.abspath(path)
    for base in ([project_dir] if project_dir else []) + [os.getcwd()]:
        try:
            relative = os.path.relpath(absolute, os.path.abspath(base))
        except ValueError:  # another drive, on Windows
            continue
        if not (relative == os.pardir or relative.startswith(os.pardir + os.sep)):
            return relative.replace(os.sep, "/")
    return path.replace(os.sep, "/")
