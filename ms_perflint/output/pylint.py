"""``pylint``: ``path:line: [CODE] message``, one line per finding, as pylint's parseable format.

Editors and CI tools that read pylint's output pick these lines up. In a notebook
the line counts within the cell, which the message names (``[MSP103] cell 3: ...``).
A file that could not be checked is ``path:line: [Kind] message``. There is no
summary; notices are the CLI's to print on standard error.
"""

from __future__ import annotations

from typing import Sequence

from ms_perflint.findings import FileError, FileResult
from ms_perflint.output.report import ReportOptions, sorted_entries


def render_pylint(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Every finding and file error as a line, by path, (cell,) line and column."""
    lines = []
    for result, item in sorted_entries(results):
        label = item.kind if isinstance(item, FileError) else item.code
        cell = f"cell {item.cell}: " if item.cell is not None else ""
        lines.append(f"{result.path}:{item.line}: [{label}] {cell}{item.message}\n")
    return "".join(lines)
