"""The default ``path:line:col: CODE [*] message`` format (1-based columns, as ruff and flake8)."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, TextIO

from ms_perflint.findings import FileResult
from ms_perflint.findings import FixSafety, Finding as Violation


def is_marked_fixable(violation: Violation, unsafe_fixes: bool) -> bool:
    """``[*]``: the finding would be fixed by ``--fix`` with the current unsafe-fixes setting."""
    fix = violation.fix
    return fix is not None and (fix.safety is FixSafety.SAFE or unsafe_fixes)


def location(path: str, line: int, column: int, cell: Optional[int] = None) -> str:
    """``path:line:col`` (1-based column); in a notebook ``path:cell N:line:col``, as ruff writes it."""
    where = f"{path}:cell {cell}" if cell is not None else path
    return f"{where}:{line}:{column + 1}"


#: ANSI styles used on a terminal: bold path, bold red code, cyan ``[*]``.
_BOLD, _CODE, _MARK, _RESET = "\033[1m", "\033[1;31m", "\033[36m", "\033[0m"


def format_violation(path: str, violation: Violation, unsafe_fixes: bool = False, color: bool = False) -> str:
    """One finding as a line (with ANSI colours when ``color``)."""
    mark = " [*]" if is_marked_fixable(violation, unsafe_fixes) else ""
    where = location(path, violation.line, violation.column, violation.cell)
    if color:
        where = _BOLD + where[: len(path)] + _RESET + where[len(path) :]
        mark = f" {_MARK}[*]{_RESET}" if mark else ""
        return f"{where}: {_CODE}{violation.code}{_RESET}{mark} {violation.message}"
    return f"{where}: {violation.code}{mark} {violation.message}"


def format_error(result: FileResult) -> str:
    """A file that could not be linted, as a finding-like line."""
    error = result.error
    assert error is not None
    return f"{location(result.path, error.line, error.column, error.cell)}: {error.kind}: {error.message}"


def sorted_lines(results: Iterable[FileResult], unsafe_fixes: bool = False, color: bool = False) -> List[str]:
    """Every finding and file error, sorted by path, (notebook cell,) line and column."""
    rows = []
    for result in results:
        if result.error is not None:
            error = result.error
            rows.append((result.path, error.cell or 0, error.line, error.column, format_error(result)))
        for violation in result.findings:
            line = format_violation(result.path, violation, unsafe_fixes, color)
            rows.append((result.path, violation.cell or 0, violation.line, violation.column, line))
    return [row[4] for row in sorted(rows, key=lambda row: row[:4])]


def summary(results: Sequence[FileResult], unsafe_fixes: bool = False) -> str:
    """The closing line: how many findings, errors, and fixable ones (unsafe ones too with ``unsafe_fixes``)."""
    findings = sum(len(result.findings) for result in results)
    errors = sum(1 for result in results if result.error is not None)
    if not findings and not errors:
        return f"All checks passed! ({len(results)} file{'s' if len(results) != 1 else ''} checked)"
    safe = sum(1 for r in results for v in r.findings if v.fix is not None and v.fix.safety is FixSafety.SAFE)
    unsafe = sum(1 for r in results for v in r.findings if v.fix is not None and v.fix.safety is FixSafety.UNSAFE)
    with_findings = sum(1 for result in results if result.findings)
    checked = "" if with_findings == len(results) else f" of {len(results)}"
    parts = [f"Found {findings} finding{'s' if findings != 1 else ''} in {with_findings}{checked} file{'s' if with_findings != 1 or checked else ''}"]
    if errors:
        parts.append(f"{errors} file{'s' if errors != 1 else ''} could not be checked")
    text = "; ".join(parts) + "."
    if unsafe_fixes and safe + unsafe:
        return text + f"\n[*] {safe + unsafe} fixable with `--fix --unsafe-fixes`."
    if safe:
        text += f"\n[*] {safe} fixable with the `--fix` option."
    if unsafe:
        text += f"\n{unsafe} more fix{'es' if unsafe != 1 else ''} available with `--fix --unsafe-fixes`."
    return text


def write_text(
    results: Sequence[FileResult], stream: TextIO, quiet: bool = False, color: bool = False, unsafe_fixes: bool = False
) -> None:
    """Print findings, then the summary (unless quiet); ``color`` only for a terminal; ``[*]`` per ``unsafe_fixes``."""
    for line in sorted_lines(results, unsafe_fixes=unsafe_fixes, color=color):
        stream.write(line + "\n")
    if not quiet:
        stream.write(summary(results, unsafe_fixes) + "\n")
