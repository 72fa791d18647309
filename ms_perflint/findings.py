"""What a run produces, as plain data: findings, their fixes as text edits, file results.

Nothing here needs libcst: results restored from the cache, sent back by a worker
process or read by the editor server are the same objects as fresh ones. A fix is
a list of :class:`TextEdit` on the file's decoded text, so it can be cached,
written into JSON or SARIF, and applied by the one writer in :mod:`ms_perflint.fix`.
"""

from __future__ import annotations

import bisect
import enum
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple


class FixSafety(str, enum.Enum):
    """ruff's vocabulary: safe fixes apply with ``--fix``, unsafe ones need ``--unsafe-fixes``."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class FixAvailability(str, enum.Enum):
    """Whether a rule's findings come with a fix."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


@dataclass(frozen=True)
class TextEdit:
    """Replace ``text[start:end]`` of a file's decoded text with ``new`` (``start == end``: insert)."""

    start: int
    end: int
    new: str

    def to_json(self) -> List[Any]:
        return [self.start, self.end, self.new]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "TextEdit":
        start, end, new = data
        if not (isinstance(start, int) and isinstance(end, int) and isinstance(new, str) and 0 <= start <= end):
            raise ValueError(f"not a text edit: {data!r}")
        return cls(start, end, new)


@dataclass(frozen=True)
class Fix:
    """A rule's fix for one finding: edits applied together, or not at all."""

    safety: FixSafety
    description: str
    edits: Tuple[TextEdit, ...]

    def overlaps(self, other: "Fix") -> bool:
        """True when an edit of ``self`` touches the span of an edit of ``other`` (they cannot both apply)."""
        return any(_overlap(a, b) for a in self.edits for b in other.edits)


def _overlap(a: TextEdit, b: TextEdit) -> bool:
    if a.start == a.end == b.start == b.end:
        return a.new != b.new  # two insertions at one point: only identical ones combine
    return a.start < b.end and b.start < a.end or (a.start == a.end and b.start < a.start < b.end) or (
        b.start == b.end and a.start < b.start < a.end)


@dataclass
class Finding:
    """A reported problem: 1-based lines and 0-based columns (in a notebook: within ``cell``)."""

    code: str
    message: str
    line: int = 1
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    fix: Optional[Fix] = None
    #: In a Jupyter notebook: the 1-based cell (counting every cell); ``line`` is then the line in that cell.
    cell: Optional[int] = None
    #: Character offsets of the reported span in the file's decoded text (for edits and mapping to cells).
    start: int = 0
    end: int = 0
    #: With ``--profile``: the share of the profiled time spent in what the finding is about (0 to 1).
    cost: Optional[float] = None

    @property
    def fixable(self) -> bool:
        """True when the finding carries a fix."""
        return self.fix is not None

    def sort_key(self) -> Tuple[int, int, int, str]:
        return (self.cell or 0, self.line, self.column, self.code)

    def to_json(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"code": self.code, "message": self.message,
                                "range": [self.line, self.column, self.end_line, self.end_column, self.start, self.end]}
        if self.cell is not None:
            data["cell"] = self.cell
        if self.fix is not None:
            data["fix"] = [self.fix.safety.value, self.fix.description, [e.to_json() for e in self.fix.edits]]
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Finding":
        """Inverse of :meth:`to_json`; raises ValueError/TypeError/KeyError for a malformed record."""
        line, column, end_line, end_column, start, end = data["range"]
        numbers = (line, column, end_line, end_column, start, end)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            raise ValueError("finding positions must be integers")
        if not isinstance(data["code"], str) or not isinstance(data["message"], str):
            raise ValueError("finding code and message must be text")
        fix = None
        if data.get("fix") is not None:
            safety, description, edits = data["fix"]
            fix = Fix(FixSafety(safety), str(description), tuple(TextEdit.from_json(e) for e in edits))
        cell = data.get("cell")
        if cell is not None and not isinstance(cell, int):
            raise ValueError("a cell number must be an integer")
        return cls(data["code"], data["message"], line, column, end_line, end_column, fix, cell, start, end)


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked: unreadable, undecodable, too large, not valid Python, ..."""

    kind: str
    message: str
    line: int = 1
    column: int = 0
    #: In a Jupyter notebook: the 1-based cell the error is in (``line`` counts within it), if any.
    cell: Optional[int] = None


@dataclass
class SourceText:
    """Decoded text plus what is needed to write it back byte for byte."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False


@dataclass
class FileResult:
    """What checking one file produced."""

    path: str
    findings: List[Finding] = field(default_factory=list)
    error: Optional[FileError] = None
    source: Optional[SourceText] = None
    #: ``python``, ``notebook``, ``yaml`` or ``shell``.
    kind: str = "python"
    #: Things the user should know that did not stop the check (a notebook cell that was skipped).
    notices: List[str] = field(default_factory=list)
    #: A notebook's virtual module (its code cells joined): the text its fixes' offsets refer to.
    virtual_text: Optional[str] = None


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Offsets <-> (1-based line, 0-based column) in a text, splitting lines as Python does."""

    def __init__(self, text: str) -> None:
        starts = [0]
        starts.extend(match.end() for match in _LINE_BREAK.finditer(text))
        self.starts = starts
        self.length = len(text)

    def offset(self, line: int, column: int) -> int:
        """The offset of ``line``:``column`` (clamped into the text)."""
        line = min(max(line, 1), len(self.starts))
        return min(self.starts[line - 1] + max(column, 0), self.length)

    def position(self, offset: int) -> Tuple[int, int]:
        """``(line, column)`` of an offset."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1]
