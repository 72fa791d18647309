"""``--add-noqa``: suppress every current finding with a ``# noqa: CODE`` comment where flake8 reads it.

flake8 looks for ``# noqa`` in the whole run of lines that ends with one
NL/NEWLINE token (a multi-line string, a backslash continuation), so the comment
goes at the end of that run's last line -- never inside the string. Inside
brackets every line ends with its own NL, so a multi-line call's finding (reported
at the call's first line) gets its comment on that first line.

- An existing ``# noqa: X`` in that run is extended (``# noqa: X,MSP103``); other
  comments on the line stay as they are.
- Line endings (LF, CRLF, CR), the encoding and a BOM are kept; the file is
  replaced atomically and only if it did not change since it was read.
- Running it twice changes nothing: the first run leaves no finding.
"""

from __future__ import annotations

import re
import sys
import tokenize
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, TextIO, Tuple

from ms_perflint.sources.noqa import NOQA_INLINE, physical_lines, token_line_ranges
from ms_perflint.findings import FileResult

EXIT_CLEAN, EXIT_FINDINGS = 0, 1


@dataclass
class NoqaOutcome:
    """What adding noqa comments to one text did."""

    text: str
    #: Comments added or extended.
    added: int = 0
    #: Findings that could not be suppressed, as ``line: why``.
    problems: List[str] = field(default_factory=list)


def add_noqa_to_text(text: str, findings: Sequence[Tuple[int, str]]) -> NoqaOutcome:
    """Suppress each ``(line, code)`` of ``findings`` in ``text``; returns the new text and what happened."""
    outcome = NoqaOutcome(text)
    lines = physical_lines(text)
    ranges = token_line_ranges(lines)
    if ranges is None:
        outcome.problems.append("1: the file cannot be tokenized; no comment added")
        return outcome
    span_of = {number: (first, last) for first, last in ranges for number in range(first, last + 1)}
    comments = _comment_spans(lines)
    wanted: Dict[Tuple[int, int], Set[str]] = {}
    for line, code in findings:
        wanted.setdefault(span_of.get(line, (line, line)), set()).add(code)
    for (first, last), codes in sorted(wanted.items()):
        if not 0 < first <= last <= len(lines):
            outcome.problems.append(f"{first}: line is outside the file")
        elif _suppress(lines, first, last, sorted(codes), comments, outcome):
            outcome.added += 1
    outcome.text = "".join(lines)
    return outcome


def _comment_spans(lines: List[str]) -> Dict[int, Tuple[int, int]]:
    """Line -> (start, end) columns of the comment token on it, if any."""
    comments: Dict[int, Tuple[int, int]] = {}
    remaining = iter(lines)
    try:
        for token in tokenize.generate_tokens(lambda: next(remaining, "")):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = (token.start[1], token.end[1])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return comments


def _suppress(
    lines: List[str], first: int, last: int, codes: List[str], comments: Dict[int, Tuple[int, int]], outcome: NoqaOutcome
) -> bool:
    """Edit ``lines`` (in place, one line) so flake8 suppresses ``codes`` in the run ``first..last``.

    Returns False when nothing was done: already suppressed, or impossible (reported).
    """
    match = NOQA_INLINE.search("".join(lines[first - 1 : last]))
    if match is None:
        lines[last - 1] = _with_new_comment(lines[last - 1], codes)
        return True
    if match.group("codes") is None:
        return False  # a blanket ``# noqa`` already covers everything
    missing = _missing_codes(match, codes, fold_case=False)  # flake8 compares codes as written
    if not missing:
        return False
    codes_end = _codes_end(match)
    number, start_column = _line_and_column(lines, first, match.start())
    end_number, end_column = _line_and_column(lines, first, codes_end)
    comment = comments.get(number)
    if end_number != number or comment is None or not comment[0] <= start_column < end_column <= comment[1]:
        outcome.problems.append(f"{first}: a `# noqa` outside a comment (in a string) decides this line; suppress it by hand")
        return False
    line = lines[number - 1]
    lines[number - 1] = line[:end_column] + "," + ",".join(missing) + line[end_column:]
    return True


def _with_new_comment(line: str, codes: Sequence[str]) -> str:
    """``line`` with ``  # noqa: CODES`` at its end, before its line break."""
    body, ending = _split_ending(line)
    return body.rstrip(" \t") + "  # noqa: " + ",".join(codes) + ending


def _missing_codes(match: "re.Match[str]", codes: Sequence[str], fold_case: bool) -> List[str]:
    """The ``codes`` a ``# noqa: X,Y`` comment does not cover yet (a listed prefix covers its codes)."""
    existing = [part for part in re.split(r"[,\s]", match.group("codes")) if part]
    if fold_case:
        existing = [part.upper() for part in existing]
    return [code for code in codes if not code.startswith(tuple(existing))]


def _codes_end(match: "re.Match[str]") -> int:
    """Where a new code is appended to the comment's list: after its last code."""
    return match.start("codes") + len(match.group("codes").rstrip(", \t\r\n\f\v"))


def _split_ending(line: str) -> Tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


def _line_and_column(lines: List[str], first: int, offset: int) -> Tuple[int, int]:
    """The 1-based line and 0-based column of ``offset`` into the text of the lines joined from ``first``."""
    number = first
    while number < len(lines) and offset >= len(lines[number - 1]):
        offset -= len(lines[number - 1])
        number += 1
    return number, offset


def add_noqa_to_config_text(text: str, findings: Sequence[Tuple[int, str]]) -> NoqaOutcome:
    """Suppress ``(line, code)`` findings of a YAML config with a ``# noqa: CODE`` comment at the end of the line.

    A YAML finding is a scalar on one line (``class_num: 1000``), and the config
    scanner reads ``# noqa`` anywhere on that line, so there is no run of lines to
    find as in Python. An existing ``# noqa: X`` on the line is extended.
    """
    outcome = NoqaOutcome(text)
    lines = physical_lines(text)
    wanted: Dict[int, Set[str]] = {}
    for line, code in findings:
        wanted.setdefault(line, set()).add(code)
    for number, codes in sorted(wanted.items()):
        if not 0 < number <= len(lines):
            outcome.problems.append(f"{number}: line is outside the file")
            continue
        body, ending = _split_ending(lines[number - 1])
        match = NOQA_INLINE.search(body)
        if match is None:
            lines[number - 1] = _with_new_comment(lines[number - 1], sorted(codes))
        elif match.group("codes") is not None:
            missing = _missing_codes(match, sorted(codes), fold_case=True)  # the config scanner ignores case
            if not missing:
                continue
            end = _codes_end(match)
            lines[number - 1] = body[:end] + "," + ",".join(missing) + body[end:] + ending
        else:
            continue  # a blanket ``# noqa`` already covers the line
        outcome.added += 1
    outcome.text = "".join(lines)
    return outcome


# --------------------------------------------------------------------------- files


def add_noqa(session, paths: Sequence[str], err: TextIO = sys.stderr) -> int:
    """The ``--add-noqa`` run: 0 when every finding is now suppressed, 1 when some file could not be handled.

    Python files, notebooks (comments go into the cells) and YAML configs alike; each file
    is written with the atomic writer, only if unchanged since it was read.
    """
    added = 0
    failed = False
    for result in session.check(paths):
        if result.error is not None:
            error = result.error
            err.write(f"{result.path}:{error.line}:{error.column + 1}: {error.kind}: {error.message}\n")
            failed = True
            continue
        if not result.findings:
            continue
        outcome, problem = _add_noqa_to_file(session, result)
        for note in outcome.problems + ([problem] if problem else []):
            err.write(f"ms-perflint: warning: {result.path}:{note}\n")
            failed = True
        added += outcome.added
    err.write(f"Added {added} noqa directive{'s' if added != 1 else ''}.\n")
    return EXIT_FINDINGS if failed else EXIT_CLEAN


def _add_noqa_to_file(session, result: FileResult) -> Tuple[NoqaOutcome, Optional[str]]:
    from ms_perflint.fix.writer import WriteRefused, encode_source, write_atomic
    from ms_perflint.sources import load_unit

    data = session.read(result.path)
    if not isinstance(data, bytes):
        return NoqaOutcome(""), "not read"
    unit = load_unit(result.path, data, result.kind, None)
    if result.kind == "yaml":
        outcome = add_noqa_to_config_text(unit.text, [(f.line, f.code) for f in result.findings])
    elif result.kind == "notebook":
        findings = [(_virtual_line(unit.virtual, f.cell, f.line), f.code) for f in result.findings]
        outcome = add_noqa_to_text(unit.text, [f for f in findings if f[0]])
    else:
        outcome = add_noqa_to_text(unit.text, [(f.line, f.code) for f in result.findings])
    if outcome.added == 0:
        return outcome, None
    try:
        if result.kind == "notebook":
            new = _notebook_bytes(unit, outcome.text)
        else:
            new = encode_source(outcome.text, unit.source)
        write_atomic(result.path, new, expected=data)
    except (WriteRefused, UnicodeEncodeError, ValueError) as error:
        outcome.added = 0
        return outcome, f"not written: {error}"
    return outcome, None


def _virtual_line(virtual, cell: Optional[int], line: int) -> int:
    """The virtual module's line for ``line`` of ``cell`` (0 when not found)."""
    for index, origin in enumerate(virtual.origins, start=1):
        if origin == (cell, line):
            return index
    return 0


def _notebook_bytes(unit, text: str) -> bytes:
    import codecs

    from ms_perflint.sources.notebook import NotebookFixError, changed_sources, replace_sources

    try:
        document = replace_sources(unit.notebook, changed_sources(text, unit.notebook.cells))
    except NotebookFixError as error:
        raise ValueError(str(error)) from None
    return (codecs.BOM_UTF8 if unit.notebook.bom else b"") + document.encode("utf-8")
