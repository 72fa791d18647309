"""``# noqa`` handling that decides exactly as flake8 7 does, so both front ends agree.

- ``# noqa`` on a line suppresses every code there; ``# noqa: MSP101,MSP103``
  (or ``# noqa:MSP1``) suppresses codes that start with a listed code. As in
  flake8 7, the comment is spelled ``# noqa`` with one space (``#noqa`` is not a
  directive), codes are matched case-sensitively (``# noqa: msp103`` suppresses
  nothing), and a colon not followed by a code (``# noqa: MSP``) is a blanket noqa.
- A finding inside a multi-line token (a triple-quoted string) may be
  suppressed from any line of that token, as flake8 does.
- ``# flake8: noqa`` at the start of a line skips the file -- flake8 7 does so even
  when codes follow it. ``# ms-perflint: noqa`` skips the file for ms-perflint
  (in flake8 too), and ``# ms-perflint: noqa: MSP101`` skips just those codes.
- Lines are split at ``\n``, ``\r\n`` and ``\r`` only, as Python and flake8 count
  them (``str.splitlines`` would also split at form feeds and shift every line).
"""

from __future__ import annotations

import re
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

_CODE = r"[A-Z]+[0-9]*"
_CODE_LIST = rf"(?P<codes>{_CODE}(?:[,\s]+{_CODE})*)"
#: flake8 7's inline regex (``flake8.defaults.NOQA_INLINE_REGEXP``), verbatim.
NOQA_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
#: flake8 7's file regex (``flake8.defaults.NOQA_FILE``), applied with ``match`` as flake8 does.
NOQA_FLAKE8_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
#: Python's line breaks; ``str.splitlines`` also splits at form feeds and other separators.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
NOQA_OWN_FILE = re.compile(rf"\s*#\s*ms-perflint[:=]\s*noqa(?::\s?{_CODE_LIST})?\s*$", re.IGNORECASE)

#: Every code of the tool starts with this; a file directive without codes covers it.
ALL_CODES = ("MSP",)


def _split_codes(text: Optional[str]) -> FrozenSet[str]:
    if not text:
        return frozenset()
    return frozenset(code.upper() for code in re.split(r"[,\s]+", text.strip()) if code)


def physical_lines(text: str) -> List[str]:
    """``text`` split into lines as Python numbers them, each keeping its line break."""
    lines = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


@dataclass(frozen=True)
class FileDirectives:
    """What the file's own comments say: codes skipped for the whole file."""

    skipped_codes: FrozenSet[str]
    skip_flake8_style: bool

    def skips(self, code: str, honour_flake8: bool) -> bool:
        """True when a file-level directive suppresses ``code``."""
        if honour_flake8 and self.skip_flake8_style:
            return True
        return code.startswith(tuple(self.skipped_codes)) if self.skipped_codes else False


def file_directives(lines: Sequence[str]) -> FileDirectives:
    """Scan the file's lines for ``# flake8: noqa`` / ``# ms-perflint: noqa[: codes]``."""
    skipped: set = set()
    flake8_style = False
    for line in lines:
        if "noqa" not in line.lower():
            continue
        own = NOQA_OWN_FILE.match(line)
        if own:
            skipped |= _split_codes(own.group("codes")) or set(ALL_CODES)
            continue
        if NOQA_FLAKE8_FILE.match(line):
            flake8_style = True
    return FileDirectives(frozenset(skipped), flake8_style)


class LineSuppressions:
    """Answers "is ``code`` suppressed at ``line``?" for one file's text."""

    def __init__(self, text: str, tokenize: bool = True) -> None:
        self._lines = physical_lines(text)
        self._has_noqa = "noqa" in text.lower()
        #: Python text: a comment anywhere on a multi-line token's lines counts (as in flake8); config files: its own line.
        self._mapping: Optional[Dict[int, str]] = None if tokenize else {}

    def is_suppressed(self, line: int, code: str) -> bool:
        """flake8's decision for a finding of ``code`` reported on 1-based ``line``."""
        text = self._noqa_text(line)
        match = NOQA_INLINE.search(text)
        if match is None:
            return False
        if match.group("codes") is None:
            return True
        codes = tuple(part.strip() for part in re.split(r"[,\s]", match.group("codes")) if part.strip())
        return code in codes or code.startswith(codes)

    def _noqa_text(self, line: int) -> str:
        if not self._has_noqa:
            return ""
        if self._mapping is None:
            self._mapping = _multi_line_token_mapping(self._lines)
        if line in self._mapping:
            return self._mapping[line]
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""


def _multi_line_token_mapping(lines: List[str]) -> Dict[int, str]:
    """Lines joined the way flake8 joins them, for every line of a multi-line token run."""
    mapping: Dict[int, str] = {}
    for first, last in token_line_ranges(lines) or ():
        if last > first:
            joined = "".join(lines[first - 1 : last])
            mapping.update({number: joined for number in range(first, last + 1)})
    return mapping


def token_line_ranges(lines: List[str]) -> Optional[List[Tuple[int, int]]]:
    """flake8's noqa ranges: ``(first, last)`` 1-based lines of each run of tokens ended by NL/NEWLINE.

    ``lines`` keep their line breaks (:func:`physical_lines`). None when the text
    cannot be tokenized; flake8 then reads each finding's own line.
    """
    ranges: List[Tuple[int, int]] = []
    remaining = iter(lines)
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(lambda: next(remaining, "")):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, token.start[0]), max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                ranges.append((first, last))
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return ranges


@dataclass(frozen=True)
class UnusedNoqa:
    """The codes of one ``# noqa: ...`` comment that suppressed nothing, and the edit that takes them out."""

    line: int
    codes: Tuple[str, ...]
    #: Character offset of the comment's ``#``.
    at: int
    #: Character offsets in the text of what the edit replaces, and its replacement.
    start: int
    end: int
    replacement: str


def unused_noqa(text: str, suppressed: Sequence[Tuple[int, str]], checked: Sequence[str],
                tokenize_text: bool = True) -> List[UnusedNoqa]:
    """The tool's codes in ``# noqa: ...`` comments that no finding in ``suppressed`` (``(line, code)``) used.

    Only codes the run ``checked`` can be unused (a code not selected may be someone else's run); other
    tools' codes (``E501``) and blanket ``# noqa`` are left alone. A comment covers its whole multi-line
    statement in Python, as in flake8; its own line in configs.
    """
    lines = physical_lines(text)
    ranges = (token_line_ranges(lines) or []) if tokenize_text else []
    span_of = {number: (first, last) for first, last in ranges for number in range(first, last + 1)}
    found: List[UnusedNoqa] = []
    offset = 0
    for number, line in enumerate(lines, 1):
        match = NOQA_INLINE.search(line) if "noqa" in line.lower() else None
        if match is not None and match.group("codes"):
            first, last = span_of.get(number, (number, number))
            used = [code for at, code in suppressed if first <= at <= last]
            unused = _unused_in(match, line, offset, number, used, checked)
            if unused is not None:
                found.append(unused)
        offset += len(line)
    return found


def _unused_in(match: "re.Match[str]", line: str, offset: int, number: int, used: Sequence[str],
               checked: Sequence[str]) -> Optional[UnusedNoqa]:
    group = match.group("codes")
    bare = group.rstrip(", \t\r\n")  # the regex also takes the separators after the last code, line break too
    codes = [part for part in re.split(r"[,\s]+", bare) if part]
    unused = tuple(code for code in codes if code.startswith(ALL_CODES) and any(c.startswith(code) for c in checked)
                   and not any(u.startswith(code) for u in used))
    if not unused:
        return None
    kept = [code for code in codes if code not in unused]
    codes_start = match.start("codes")
    if kept:
        start, end, replacement = offset + codes_start, offset + codes_start + len(bare), ", ".join(kept)
    elif line[codes_start + len(bare):].strip():  # a note follows the codes: it stays a comment
        start, end, replacement = offset + match.start(), offset + codes_start + len(bare), "#"
    else:  # nothing left to suppress: the whole comment goes, with the spaces before it
        before = len(line[:match.start()].rstrip(" \t"))
        start, end, replacement = offset + before, offset + codes_start + len(bare), ""
    return UnusedNoqa(number, unused, offset + match.start(), start, end, replacement)
