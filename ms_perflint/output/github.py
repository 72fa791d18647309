"""``--output-format github``: GitHub Actions workflow commands, shown as annotations on the pull request.

One line per finding and per file that could not be checked::

    ::error title=ms-perflint (MSP103),file=train.py,line=12,col=5,endLine=12,endColumn=40::MSP103 message

Escaping follows GitHub's runner (``@actions/core``): in the message ``%``, CR
and LF become ``%25``, ``%0D``, ``%0A``; property values also escape ``:`` and
``,`` (``%3A``, ``%2C``). File paths are printed as the CLI sees them; run the
linter from the repository root so they match the checkout. In a notebook the
line counts within the cell the message names (``cell N: ...``). A notice (a
notebook cell left out) is a ``::notice`` command on the file; notices come first.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from ms_perflint.findings import FileError, FileResult
from ms_perflint.output.report import ReportOptions, sorted_entries


def escape_data(text: str) -> str:
    """Escape a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, properties: Sequence[Tuple[str, object]], message: str) -> str:
    """``::kind key=value,...::message`` with every part escaped."""
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::{kind} {rendered}::{escape_data(message)}"


def render_github(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Every notice, then every finding and file error, by file, line and column."""
    lines: List[str] = []
    for result in sorted(results, key=lambda r: r.path):
        for notice in result.notices:
            lines.append(command("notice", [("title", "ms-perflint"), ("file", result.path)], notice))
    for result, item in sorted_entries(results):
        properties: List[Tuple[str, object]] = [
            ("title", f"ms-perflint ({item.kind if isinstance(item, FileError) else item.code})"),
            ("file", result.path),
            ("line", item.line),
            ("col", item.column + 1),
        ]
        if isinstance(item, FileError):
            cell = f"cell {item.cell}: " if item.cell is not None else ""
            lines.append(command("error", properties, f"{item.kind}: {cell}{item.message}"))
            continue
        if item.end_line:
            properties += [("endLine", item.end_line), ("endColumn", item.end_column + 1)]
        cell = f"cell {item.cell}: " if item.cell is not None else ""
        lines.append(command("error", properties, f"{item.code} {cell}{item.message}"))
    return "".join(line + "\n" for line in lines)
