"""``grouped``: findings under each file's name, as ruff's grouped format, then the summary.

::

    train.py:
       2:10 MSP103 [*] CheckpointConfig saves checkpoints synchronously, ...
      13:5  MSP101 ...

    notebook.ipynb:
      cell 3:1:9 MSP103 ...

Places are ``line:col`` (1-based column; ``cell N:line:col`` in a notebook),
lines right-aligned and columns left-aligned within a file. A file that could
not be checked shows ``line:col Kind: message`` under its name. Files without
findings or errors are not listed; notices are the CLI's to print on standard error.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple, Union

from ms_perflint.findings import FileError, FileResult, Finding
from ms_perflint.output.report import ReportOptions, is_marked_fixable, sorted_entries
from ms_perflint.output.text import BOLD, CODE, MARK, RESET, summary


def render_grouped(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Findings and errors grouped by file, a blank line after each file, then the summary (unless quiet)."""
    groups: Dict[str, List[Union[Finding, FileError]]] = {}
    for result, item in sorted_entries(results):
        groups.setdefault(result.path, []).append(item)
    blocks = [_group(path, items, options) for path, items in groups.items()]
    text = "\n".join(blocks)
    if not options.quiet:
        text += ("\n" if blocks else "") + summary(results, options.unsafe_fixes, options.missing) + "\n"
    return text


def _group(path: str, items: List[Union[Finding, FileError]], options: ReportOptions) -> str:
    places = [_place(item) for item in items]
    cell_width = max(len(cell) for cell, _, _ in places)
    line_width = max(len(line) for _, line, _ in places)
    column_width = max(len(column) for _, _, column in places)
    lines = [(BOLD + path + RESET if options.color else path) + ":"]
    for item, (cell, line, column) in zip(items, places):
        where = f"{cell:<{cell_width}}{line:>{line_width}}:{column:<{column_width}}"
        lines.append(f"  {where} {_body(item, options)}")
    return "\n".join(lines) + "\n"


def _place(item: Union[Finding, FileError]) -> Tuple[str, str, str]:
    cell = f"cell {item.cell}:" if item.cell is not None else ""
    return cell, str(item.line), str(item.column + 1)


def _body(item: Union[Finding, FileError], options: ReportOptions) -> str:
    if isinstance(item, FileError):
        kind = CODE + item.kind + RESET if options.color else item.kind
        return f"{kind}: {item.message}"
    code = CODE + item.code + RESET if options.color else item.code
    if is_marked_fixable(item, options.unsafe_fixes):
        code += f" {MARK}[*]{RESET}" if options.color else " [*]"
    return f"{code} {item.message}"
