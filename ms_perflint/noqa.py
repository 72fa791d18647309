"""``# noqa`` handling that decides exactly as flake8 7 does, so both front ends agree.

- ``# noqa`` on a line suppresses every code there; ``# noqa: MSP101,MSP103``
  (or ``# noqa:MSP1``) suppresses codes that start with a listed code.
- A finding inside a multi-line token (a triple-quoted string) may be
  suppressed from any line of that token, as flake8 does.
- ``# flake8: noqa`` alone on a line skips the file; with codes it is ignored,
  as flake8 ignores it. ``# ms-perflint: noqa`` skips the file for ms-perflint
  (in flake8 too), and ``# ms-perflint: noqa: MSP101`` skips just those codes.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence

_CODE = r"[A-Z]+[0-9]*"
_CODE_LIST = rf"(?P<codes>{_CODE}(?:[,\s]+{_CODE})*)"
#: flake8's inline regex: ``# noqa`` optionally followed by ``:`` and codes.
NOQA_INLINE = re.compile(rf"#\s*noqa(?::[\s]?{_CODE_LIST})?", re.IGNORECASE)
NOQA_FLAKE8_FILE = re.compile(rf"\s*#\s*flake8[:=]\s*noqa(?P<has_codes>:\s?{_CODE_LIST})?", re.IGNORECASE)
NOQA_OWN_FILE = re.compile(rf"\s*#\s*ms-perflint[:=]\s*noqa(?::\s?{_CODE_LIST})?\s*$", re.IGNORECASE)

#: Every code of the tool starts with this; a file directive without codes covers it.
ALL_CODES = ("MSP",)


def _split_codes(text: Optional[str]) -> FrozenSet[str]:
    if not text:
        return frozenset()
    return frozenset(code.upper() for code in re.split(r"[,\s]+", text.strip()) if code)


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
        flake8 = NOQA_FLAKE8_FILE.match(line)
        if flake8 and not flake8.group("has_codes"):
            flake8_style = True
    return FileDirectives(frozenset(skipped), flake8_style)


class LineSuppressions:
    """Answers "is ``code`` suppressed at ``line``?" for one file's text."""

    def __init__(self, text: str) -> None:
        self._lines = text.splitlines()
        self._mapping: Optional[Dict[int, str]] = None

    def is_suppressed(self, line: int, code: str) -> bool:
        """flake8's decision for a finding of ``code`` reported on 1-based ``line``."""
        text = self._noqa_text(line)
        match = NOQA_INLINE.search(text)
        if match is None:
            return False
        codes = _split_codes(match.group("codes"))
        if not codes:
            return True
        return code in codes or code.startswith(tuple(codes))

    def _noqa_text(self, line: int) -> str:
        if "noqa" not in "".join(self._lines).lower():
            return ""
        if self._mapping is None:
            self._mapping = _multi_line_token_mapping(self._lines)
        if line in self._mapping:
            return self._mapping[line]
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""


def _multi_line_token_mapping(lines: List[str]) -> Dict[int, str]:
    """Lines joined the way flake8 joins them: one range per NL/NEWLINE-terminated token run."""
    mapping: Dict[int, str] = {}
    source = "\n".join(lines) + "\n"
    first, last = len(lines) + 2, -1
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, token.start[0]), max(last, token.end[0])
            if token.type in (tokenize.NL, tokenize.NEWLINE):
                if last > first:
                    joined = "".join(lines[first - 1 : last])
                    mapping.update({number: joined for number in range(first, last + 1)})
                first, last = len(lines) + 2, -1
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {}
    return mapping
