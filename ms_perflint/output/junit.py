"""``junit``: a JUnit XML report, for CI systems that show test results (Jenkins, GitLab, Azure, ...).

One ``<testsuite name="ms-perflint">`` inside ``<testsuites>``; a ``<testcase>`` per
file checked (``name`` and ``file`` are its path). A file with findings fails: a
``<failure>`` per finding (``type`` the code, ``message`` ``CODE message``, the
text ``path:line:col: CODE message``). A file that could not be checked has an
``<error>`` (``type`` the error kind). Notices go to the testcase's ``<system-out>``.

Counts are of testcases, as JUnit counts them: ``tests`` files, ``failures``
files with findings (and no error), ``errors`` files that could not be checked.

Text is escaped by the XML writer; characters XML 1.0 cannot hold at all
(control characters, lone surrogates from undecodable file names) are written
as ``\\xNN`` / ``\\uNNNN``, so the report always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Sequence

from ms_perflint.findings import FileResult, Finding
from ms_perflint.output.report import ReportOptions
from ms_perflint.output.text import location

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold written as escapes."""
    return _NOT_XML.sub(lambda match: _escape(match.group()), text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def render_junit(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """The JUnit XML document."""
    ordered = sorted(results, key=lambda r: r.path)
    errors = sum(1 for result in ordered if result.error is not None)
    failures = sum(1 for result in ordered if result.error is None and result.findings)
    counts = {"tests": str(len(ordered)), "failures": str(failures), "errors": str(errors)}
    root = ET.Element("testsuites", {"name": "ms-perflint", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "ms-perflint", **counts, "skipped": "0"})
    for result in ordered:
        path = xml_text(result.path)
        case = ET.SubElement(suite, "testcase", {"name": path, "classname": "ms-perflint", "file": path})
        error = result.error
        if error is not None:
            where = location(result.path, error.line, error.column, error.cell)
            element = ET.SubElement(case, "error", {"type": error.kind, "message": xml_text(error.message)})
            element.text = xml_text(f"{where}: {error.kind}: {error.message}")
        for finding in sorted(result.findings, key=Finding.sort_key):
            _failure(case, result.path, finding)
        if result.notices:
            ET.SubElement(case, "system-out").text = xml_text("\n".join(result.notices))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _failure(case: ET.Element, path: str, finding: Finding) -> None:
    cell = f"cell {finding.cell}: " if finding.cell is not None else ""
    message = xml_text(f"{finding.code} {cell}{finding.message}")
    element = ET.SubElement(case, "failure", {"type": finding.code, "message": message})
    where = location(path, finding.line, finding.column, finding.cell)
    element.text = xml_text(f"{where}: {finding.code} {finding.message}")
