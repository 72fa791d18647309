"""``full``: the text format plus the source lines of each finding, carets under its span, and its fix.

::

    train.py:2:10: MSP103 [*] CheckpointConfig saves checkpoints synchronously, ...
      |
    2 | config = CheckpointConfig(save_checkpoint_steps=10)
      |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ MSP103
      |
      = help: Add `async_save=True`

The lines come from the checked text (``result.source``); in a notebook from the
cell's stored source, so IPython lines show as written. A span over several lines
shows its first and last lines (and at most :data:`MAX_LINES` in all), with carets
from the start to the end of its first line and from the indentation to the end
on its last. Carets line up under tabs (copied) and wide East Asian characters
(two columns). A file that could not be checked shows its line with a caret at
the error. Without source text the block is the first line alone. The summary
follows, as in ``text``; notices are the CLI's to print on standard error.
"""

from __future__ import annotations

import unicodedata
from typing import List, Optional, Sequence

from ms_perflint.findings import FileError, FileResult, Finding
from ms_perflint.output.locate import SourceLines
from ms_perflint.output.report import ReportOptions, sorted_entries
from ms_perflint.output.text import CODE, RESET, format_error, format_finding, summary

#: The most source lines shown for one finding (a longer span elides its middle).
MAX_LINES = 4


def render_full(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Each finding and error with its source, a blank line after each, then the summary (unless quiet)."""
    blocks: List[str] = []
    lines_of = {}
    for result, item in sorted_entries(results):
        source = lines_of.setdefault(result.path, SourceLines(result))
        if isinstance(item, FileError):
            head = format_error(result.path, item, options.color)
            snippet = _snippet(source, item.cell, item.line, item.column, item.line, item.column, item.kind, options)
            blocks.append("\n".join([head, *snippet]) + "\n")
            continue
        head = format_finding(result.path, item, options.unsafe_fixes, options.color)
        blocks.append("\n".join([head, *_finding_snippet(source, item, options)]) + "\n")
    text = "\n".join(blocks)
    if not options.quiet:
        text += ("\n" if blocks else "") + summary(results, options.unsafe_fixes, options.missing) + "\n"
    return text


def _finding_snippet(source: SourceLines, finding: Finding, options: ReportOptions) -> List[str]:
    end_line, end_column = finding.end_line, finding.end_column
    if not end_line:
        end_line, end_column = finding.line, finding.column
    lines = _snippet(source, finding.cell, finding.line, finding.column, end_line, end_column, finding.code, options)
    if lines and finding.fix is not None:
        lines.append(" " * (len(lines[0]) - 1) + "= help: " + finding.fix.description)
    return lines


def _snippet(source: SourceLines, cell: Optional[int], line: int, column: int, end_line: int, end_column: int,
             label: str, options: ReportOptions) -> List[str]:
    """The gutter-framed source lines of a span with carets, or nothing when the lines are not known."""
    end_line = max(end_line, line)
    first = source.line(line, cell)
    if first is None:
        return []
    numbers = list(range(line, end_line + 1))
    if len(numbers) > MAX_LINES:
        numbers = numbers[: MAX_LINES - 1] + [None, end_line]  # None: the elided middle
    width = len(str(end_line))
    bar = " " * width + " |"
    out = [bar]
    for number in numbers:
        if number is None:
            out.append("." * width + " |")
            continue
        text = source.line(number, cell) if number != line else first
        if text is None:
            break
        out.append(f"{number:>{width}} | {text}".rstrip())
        if number == line:
            stop = end_column if end_line == line else len(text)
            out.append(_carets(bar, text, column, stop, label if end_line == line else "", options))
        elif number == end_line:
            indent = len(text) - len(text.lstrip())
            out.append(_carets(bar, text, indent, end_column, label, options))
    out.append(bar)
    return out


def _carets(bar: str, text: str, start: int, stop: int, label: str, options: ReportOptions) -> str:
    """``^`` under ``text[start:stop]`` (at least one), then the label."""
    start = min(max(start, 0), len(text))
    prefix = "".join("\t" if char == "\t" else " " * _width(char) for char in text[:start])
    carets = "^" * max(1, sum(_width(char) for char in text[start:max(stop, start)]))
    marked = carets + (" " + label if label else "")
    if options.color:
        marked = CODE + marked + RESET
    return f"{bar} {prefix}{marked}"


def _width(char: str) -> int:
    """Columns a character takes on a terminal: two for wide East Asian ones, none for combining marks."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
