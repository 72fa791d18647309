"""The rule base class: a rule's metadata, its examples, and the decision it makes.

A rule decides from the project model (:class:`~ms_perflint.rules.check.Check`
gives it the :class:`~ms_perflint.project.model.Project` and value resolution)
and reports findings with fixes as text edits. It never walks a tree: the facts
it reads were recorded by the one analysis pass. Everything a user reads about
the rule -- the docs page, ``--explain``, SARIF rule descriptions -- is generated
from the class attributes below, so they are written exactly once.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Dict, Mapping, Optional, Tuple

from ms_perflint.findings import FixAvailability, FixSafety  # noqa: F401 -- re-exported for rule modules

if TYPE_CHECKING:  # pragma: no cover
    from ms_perflint.rules.check import Check

@dataclass(frozen=True)
class Option:
    """A rule option, settable in the config file as ``[tool.ms-perflint] <name> = ...``."""

    name: str
    default: Any
    help: str
    choices: Tuple[Any, ...] = ()
    #: The smallest value a config file may set (numeric options; None: any).
    minimum: Optional[float] = None


@dataclass(frozen=True)
class Valid:
    """Code that must produce no finding of the rule."""

    code: str
    options: Mapping[str, Any] = field(default_factory=dict)
    why: str = ""

    @property
    def source(self) -> str:
        """The example's code, dedented."""
        return textwrap.dedent(self.code).lstrip("\n")


@dataclass(frozen=True)
class Invalid:
    """Code that must produce a finding at ``line``:``column`` (both 1-based, as users read them).

    ``fixed`` is the expected source after ``--fix --unsafe-fixes`` (None: no fix expected).
    """

    code: str
    line: int
    column: int
    fixed: Optional[str] = None
    options: Mapping[str, Any] = field(default_factory=dict)
    message_contains: str = ""

    @property
    def source(self) -> str:
        """The example's code, dedented."""
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def fixed_source(self) -> Optional[str]:
        """The expected fixed code, dedented."""
        return None if self.fixed is None else textwrap.dedent(self.fixed).lstrip("\n")


@dataclass(frozen=True)
class RuleDocs:
    """The sections of a rule's docs page, in ruff's order, plus where it looks and where it stays silent."""

    what_it_does: str
    why_bad: str
    example: str
    use_instead: str
    fix_safety: str
    #: Which programs and code the rule considers.
    programs: str = ""
    #: What the rule stays silent on, and why (look-alikes from real code).
    silent_on: str = ""
    #: Measured precision on the benchmark's development set (docs/precision.md), with the date.
    precision: str = ""
    references: Tuple[str, ...] = ()

    def section(self, name: str) -> str:
        """A section's text, dedented and stripped."""
        return textwrap.dedent(getattr(self, name)).strip()


class Rule:
    """Base class of every rule: metadata as class attributes, the decision in :meth:`check`."""

    code: ClassVar[str]
    name: ClassVar[str]
    #: One line, shown by ``--statistics``, ``--list-rules`` and in SARIF.
    summary: ClassVar[str]
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NEVER
    docs: ClassVar[RuleDocs]
    options: ClassVar[Tuple[Option, ...]] = ()
    valid: ClassVar[Tuple[Valid, ...]] = ()
    invalid: ClassVar[Tuple[Invalid, ...]] = ()
    #: Off unless selected explicitly (a rule that has not reached the precision bar on real code).
    opt_in: ClassVar[bool] = False

    def check(self, check: "Check") -> None:
        """Report this rule's findings for the project ``check`` holds."""
        raise NotImplementedError

    @classmethod
    def option_defaults(cls) -> Dict[str, Any]:
        """``{name: default}`` for this rule's options."""
        return {option.name: option.default for option in cls.options}

    @classmethod
    def docs_url(cls) -> str:
        """Where the rule's generated docs page lives in the repository."""
        return f"docs/rules/{cls.code}.md"
