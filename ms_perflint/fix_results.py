"""What fixing a file produced (:class:`FixResult`), apart from the fixer itself.

The CLI's fix mode builds these for files that need no fix without importing the
fixer (and libcst): a ``--fix`` run over cached, clean files parses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional

from ms_perflint.results import FileResult, SourceText
from ms_perflint.rule import FixSafety, Violation


@dataclass(frozen=True)
class AppliedFix:
    """A fix that made it into the output. ``line`` is 1-based, in the file as it was read."""

    code: str
    line: int
    description: str


@dataclass(frozen=True)
class FixProblem:
    """Something the user must hear about: a discarded fix, non-convergence, a file left alone."""

    message: str
    #: 1-based line in the file as it was read, when the problem has one.
    line: Optional[int] = None

    def render(self, path: str) -> str:
        """``path:line: message`` (or ``path: message``)."""
        where = f"{path}:{self.line}" if self.line is not None else path
        return f"{where}: {self.message}"


@dataclass
class FixResult:
    """What fixing one file produced."""

    path: str
    #: The findings left after fixing: the final re-lint (or the first lint when nothing changed).
    remaining: FileResult
    #: The findings before fixing (the first lint).
    before: Optional[FileResult] = None
    #: The file as it was read; None when it could not be decoded or read.
    source: Optional[SourceText] = None
    original_bytes: Optional[bytes] = None
    #: The fixed file; None when no fix applied.
    fixed_text: Optional[str] = None
    fixed_bytes: Optional[bytes] = None
    applied: List[AppliedFix] = field(default_factory=list)
    problems: List[FixProblem] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when fixing produced different content."""
        return self.fixed_text is not None


def wanted(violation: Violation, unsafe: bool) -> bool:
    """Does ``violation`` carry a fix this run applies?"""
    fix = violation.fix
    return fix is not None and (fix.safety is FixSafety.SAFE or unsafe)
