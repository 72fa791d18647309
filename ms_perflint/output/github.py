"""``--output-format github``: GitHub Actions workflow commands, shown as annotations on the pull request.

One line per finding::

    ::error title=ms-perflint (MSP103),file=train.py,line=12,col=5,endLine=12,endColumn=40::MSP103 message

Escaping follows GitHub's runner (``@actions/core``): in the message ``%``, CR
and LF become ``%25``, ``%0D``, ``%0A``; property values also escape ``:`` and
``,`` (``%3A``, ``%2C``). File paths are printed as the CLI sees them; run the
linter from the repository root so they match the checkout.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from ms_perflint.results import FileResult


def escape_data(text: str) -> str:
    """Escape a command's message."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(properties: Sequence[Tuple[str, object]], message: str) -> str:
    """``::error key=value,...::message`` with every part escaped."""
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::error {rendered}::{escape_data(message)}"


def render_github(results: Sequence[FileResult]) -> str:
    """Every finding and file error as a workflow command, sorted by file, line and column."""
    rows: List[Tuple[str, int, int, str]] = []
    for result in results:
        error = result.error
        if error is not None:
            properties = [
                ("title", f"ms-perflint ({error.kind})"),
                ("file", result.path),
                ("line", error.line),
                ("col", error.column + 1),
            ]
            rows.append((result.path, error.line, error.column, command(properties, f"{error.kind}: {error.message}")))
        for violation in result.violations:
            properties = [
                ("title", f"ms-perflint ({violation.code})"),
                ("file", result.path),
                ("line", violation.line),
                ("col", violation.column + 1),
            ]
            if violation.end_line:
                properties += [("endLine", violation.end_line), ("endColumn", violation.end_column + 1)]
            cell = f"cell {violation.cell}: " if violation.cell is not None else ""
            message = f"{violation.code} {cell}{violation.message}"
            rows.append((result.path, violation.line, violation.column, command(properties, message)))
    return "".join(row[3] + "\n" for row in sorted(rows, key=lambda row: row[:3]))
