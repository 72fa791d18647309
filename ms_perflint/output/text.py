"""``text`` (the default) and ``concise``: ``path:line:col: CODE [*] message``, as ruff and flake8 write it.

Columns are 1-based; in a notebook the place is ``path:cell N:line:col`` (the
line counts within the cell), as ruff writes it. ``[*]`` marks a finding that
``--fix`` would fix: its fix is safe, or unsafe and the run has ``--unsafe-fixes``.
A file that could not be checked is a line ``path:line:col: Kind: message``.

``text`` ends with a summary (:func:`summary`) unless ``--quiet``; ``concise``
is the same lines without it. Notices (a notebook cell that was skipped) are
not part of these formats: the CLI prints :func:`~ms_perflint.output.report.notices`
on standard error. This module is on the default path: it imports no JSON or XML code.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from ms_perflint.findings import FileError, FileResult, Finding, FixSafety
from ms_perflint.output.report import ReportOptions, is_marked_fixable, sorted_entries

#: ANSI styles used on a terminal: bold path, bold red code, cyan ``[*]``.
BOLD, CODE, MARK, RESET = "\033[1m", "\033[1;31m", "\033[36m", "\033[0m"


def location(path: str, line: int, column: int, cell: Optional[int] = None) -> str:
    """``path:line:col`` (1-based column); in a notebook ``path:cell N:line:col``."""
    where = f"{path}:cell {cell}" if cell is not None else path
    return f"{where}:{line}:{column + 1}"


def format_finding(path: str, finding: Finding, unsafe_fixes: bool = False, color: bool = False) -> str:
    """One finding as a line (with ANSI colours when ``color``)."""
    mark = " [*]" if is_marked_fixable(finding, unsafe_fixes) else ""
    cost = f" [{finding.cost * 100:.1f} %]" if finding.cost is not None else ""
    where = location(path, finding.line, finding.column, finding.cell)
    if color:
        where = BOLD + path + RESET + where[len(path):]
        mark = f" {MARK}[*]{RESET}" if mark else ""
        return f"{where}: {CODE}{finding.code}{RESET}{cost}{mark} {finding.message}"
    return f"{where}: {finding.code}{cost}{mark} {finding.message}"


def format_error(path: str, error: FileError, color: bool = False) -> str:
    """A file that could not be checked, as a finding-like line."""
    where = location(path, error.line, error.column, error.cell)
    if color:
        where = BOLD + path + RESET + where[len(path):]
        return f"{where}: {CODE}{error.kind}{RESET}: {error.message}"
    return f"{where}: {error.kind}: {error.message}"


def sorted_lines(results: Sequence[FileResult], unsafe_fixes: bool = False, color: bool = False,
                 by_cost: bool = False) -> List[str]:
    """Every finding and file error as a line, by path, (notebook cell,) line and column (costliest first)."""
    lines = []
    for result, item in sorted_entries(results, by_cost):
        if isinstance(item, FileError):
            lines.append(format_error(result.path, item, color))
        else:
            lines.append(format_finding(result.path, item, unsafe_fixes, color))
    return lines


def _plural(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def summary(results: Sequence[FileResult], unsafe_fixes: bool = False, missing: int = 0) -> str:
    """The closing lines: findings, files with findings of those checked, errors, paths not found (``missing``),
    and what ``--fix`` would fix. A run with a path that does not exist never says that all checks passed.

    Every result is a file checked, whatever its kind (Python, notebook, YAML config, launch script).
    """
    findings = [finding for result in results for finding in result.findings]
    errors = sum(1 for result in results if result.error is not None)
    not_found = f"{_plural(missing, 'path')} not found" if missing else ""
    if not findings and not errors:
        if missing:
            return f"{_plural(len(results), 'file')} checked; {not_found}."
        return f"All checks passed! ({_plural(len(results), 'file')} checked)"
    if not findings:
        return f"{errors} of {_plural(len(results), 'file')} could not be checked" + (f"; {not_found}." if missing else ".")
    with_findings = sum(1 for result in results if result.findings)
    if with_findings == len(results):
        where = _plural(with_findings, "file")
    else:
        where = f"{with_findings} of {_plural(len(results), 'file')}"
    text = f"Found {_plural(len(findings), 'finding')} in {where}"
    if errors:
        text += f"; {_plural(errors, 'file')} could not be checked"
    if missing:
        text += f"; {not_found}"
    text += "."
    safe = sum(1 for f in findings if f.fix is not None and f.fix.safety is FixSafety.SAFE)
    unsafe = sum(1 for f in findings if f.fix is not None and f.fix.safety is FixSafety.UNSAFE)
    if unsafe_fixes:
        if safe + unsafe:
            text += f"\n[*] {safe + unsafe} fixable with `--fix --unsafe-fixes`."
        return text
    if safe:
        text += f"\n[*] {safe} fixable with the `--fix` option."
    if unsafe:
        text += f"\n{_plural(unsafe, 'more fix', 'more fixes')} available with `--fix --unsafe-fixes`."
    return text


def render_text(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Findings and errors, a line each, then the summary (unless quiet)."""
    lines = sorted_lines(results, options.unsafe_fixes, options.color, options.by_cost)
    if not options.quiet:
        lines.append(summary(results, options.unsafe_fixes, options.missing))
    return "".join(line + "\n" for line in lines)


def render_concise(results: Sequence[FileResult], options: ReportOptions = ReportOptions()) -> str:
    """Findings and errors, a line each; no summary."""
    return "".join(line + "\n" for line in sorted_lines(results, options.unsafe_fixes, options.color, options.by_cost))
