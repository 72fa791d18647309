"""The rule base class: a rule's metadata, its examples, and how it reports.

A rule is a libcst-style visitor (``visit_Call``, ``leave_ClassDef``, ...) that the
engine runs in one batched pass together with every other enabled rule. It reads
shared facts from its :class:`~ms_perflint.context.FileContext` and reports with
:meth:`Rule.report`. Everything a user reads about the rule -- the docs page, the
``--explain`` text, SARIF rule descriptions -- is generated from the class
attributes below, so they are written exactly once.
"""

from __future__ import annotations

import enum
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Dict, List, Mapping, Optional, Tuple

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from ms_perflint.context import FileContext


class FixSafety(str, enum.Enum):
    """ruff's vocabulary: safe fixes apply with ``--fix``, unsafe ones need ``--unsafe-fixes``."""

    SAFE = "safe"
    UNSAFE = "unsafe"


class FixAvailability(str, enum.Enum):
    """Whether a rule's findings come with a fix."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


#: ``transform(updated_node) -> replacement``. Taking the *updated* node lets fixes
#: nested inside each other (MSP102 on an argument of a call MSP101 wraps) compose.
#: libcst is imported for type checking only: printing cached results must not load it.
Transform = Callable[["cst.CSTNode"], "cst.CSTNode"]


@dataclass(frozen=True)
class Fix:
    """One edit: replace ``node`` (by identity) with ``transform(node)``."""

    node: cst.CSTNode
    transform: Transform
    safety: FixSafety
    description: str
    #: Import statements the replacement needs, e.g. ``"import mindspore as ms"``.
    imports: Tuple[str, ...] = ()


@dataclass
class Violation:
    """A finding. Positions are filled in by the engine after the pass (1-based lines, 0-based columns)."""

    code: str
    message: str
    node: Optional[cst.CSTNode] = field(default=None, repr=False, compare=False)
    fix: Optional[Fix] = field(default=None, repr=False, compare=False)
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    #: In a Jupyter notebook: the 1-based cell (counting every cell); ``line`` is then the line in that cell.
    cell: Optional[int] = None

    @property
    def fixable(self) -> bool:
        """True when the finding carries a fix."""
        return self.fix is not None


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
    """The sections of a rule's docs page, in ruff's order."""

    what_it_does: str
    why_bad: str
    example: str
    use_instead: str
    fix_safety: str
    references: Tuple[str, ...] = ()

    def section(self, name: str) -> str:
        """A section's text, dedented and stripped."""
        return textwrap.dedent(getattr(self, name)).strip()


class Rule:
    """Base class of every rule. One instance per linted file."""

    code: ClassVar[str]
    name: ClassVar[str]
    #: One line, shown by ``--statistics`` and in SARIF.
    summary: ClassVar[str]
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NEVER
    #: Substrings of which at least one must be in a file's text for the rule to possibly fire.
    markers: ClassVar[Tuple[str, ...]]
    docs: ClassVar[RuleDocs]
    options: ClassVar[Tuple[Option, ...]] = ()
    valid: ClassVar[Tuple[Valid, ...]] = ()
    invalid: ClassVar[Tuple[Invalid, ...]] = ()

    def __init__(self, context: "FileContext") -> None:
        self.context = context

    def report(self, node: cst.CSTNode, message: str, fix: Optional[Fix] = None) -> None:
        """Record a finding at ``node``; the message is the full user-facing text."""
        self.context.violations.append(Violation(self.code, message, node=node, fix=fix))

    def option(self, name: str) -> Any:
        """The configured value of one of this rule's options."""
        return self.context.settings.option(name)

    def finish(self) -> None:
        """Called once after the whole module was visited: report what needs the whole file."""

    @classmethod
    def option_defaults(cls) -> Dict[str, Any]:
        """``{name: default}`` for this rule's options."""
        return {option.name: option.default for option in cls.options}

    @classmethod
    def docs_url(cls) -> str:
        """Where the rule's generated docs page lives in the repository."""
        return f"docs/rules/{cls.code}.md"


def visitor_methods(rule_class: type) -> List[str]:
    """Names of the ``visit_*``/``leave_*`` methods a rule class defines."""
    return [name for name in dir(rule_class) if name.startswith(("visit_", "leave_"))]
