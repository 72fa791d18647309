"""Fixing files: choose fixes, apply their edits, check the result, check again, write once.

The same path for every kind of file. In each pass a file's non-overlapping fixes
(:func:`~ms_perflint.fix.edits.choose`) are applied to its text as edits; the
result must still be valid (Python compiles, a notebook's cells compile, YAML
loads) or the pass is dropped and said; the new text is held in the session's
overlay and the project is checked again with it, since one fix may enable or
change another (bounded passes). Files are written only at the end, each by the
one atomic writer (:mod:`~ms_perflint.fix.writer`), and only if unchanged on disk
since they were read; ``--diff`` writes nothing.
"""

from __future__ import annotations

import difflib
import os
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ms_perflint.findings import FileResult, Finding
from ms_perflint.fix.edits import apply_edits, choose, wanted

#: Passes of fix-and-check before giving up on a file still offering fixes.
MAX_PASSES = 5


@dataclass(frozen=True)
class AppliedFix:
    """A fix that made it into the output; ``line`` is 1-based in the text it was applied to."""

    code: str
    line: int
    description: str
    cell: Optional[int] = None


@dataclass(frozen=True)
class FixProblem:
    """Something the user must hear about: a fix that was dropped, a file left alone."""

    message: str
    line: Optional[int] = None

    def render(self, path: str) -> str:
        where = f"{path}:{self.line}" if self.line is not None else path
        return f"{where}: {self.message}"


@dataclass
class FixOutcome:
    """What fixing one file produced."""

    path: str
    #: The findings left (the last check), and the first check's.
    remaining: FileResult
    before: FileResult
    original: Optional[bytes] = None
    fixed: Optional[bytes] = None
    applied: List[AppliedFix] = field(default_factory=list)
    problems: List[FixProblem] = field(default_factory=list)
    written: bool = False

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original


def fix_files(session, paths: Sequence[str], unsafe: bool) -> List[FixOutcome]:
    """Fix ``paths`` in memory (the session's overlay holds the new texts); nothing is written here."""
    results = session.check(paths)
    outcomes = {path: FixOutcome(path, remaining=result, before=result) for path, result in zip(paths, results)}
    pending = [path for path, result in zip(paths, results) if _fixable(result, unsafe)]
    for _ in range(MAX_PASSES):
        if not pending:
            break
        changed = [path for path in pending if _fix_pass(session, outcomes[path], unsafe)]
        for path, result in zip(changed, session.check(changed)):
            outcomes[path].remaining = result
        pending = [path for path in changed if _fixable(outcomes[path].remaining, unsafe)]
    for path in pending:
        outcomes[path].problems.append(FixProblem(f"fixes did not settle after {MAX_PASSES} passes; some are left"))
    return [outcomes[path] for path in paths]


def _fixable(result: FileResult, unsafe: bool) -> bool:
    return result.error is None and any(wanted(finding, unsafe) for finding in result.findings)


def _fix_pass(session, outcome: FixOutcome, unsafe: bool) -> bool:
    """Apply one pass of fixes to the file's current text; True when its text changed."""
    from ms_perflint.sources import load_unit

    data = session.read(outcome.path)
    if not isinstance(data, bytes):
        return False
    if outcome.original is None:
        outcome.original = data
    result = outcome.remaining
    unit = load_unit(outcome.path, data, result.kind, None)
    chosen = choose(result.findings, unsafe)
    edits = [edit for finding in chosen for edit in finding.fix.edits]  # type: ignore[union-attr]
    try:
        new_text = apply_edits(unit.text, edits)
    except ValueError as error:
        outcome.problems.append(FixProblem(f"fixes not applied: {error}"))
        return False
    problem = _invalid(new_text, result.kind, outcome.path)
    if problem is not None:
        outcome.problems.append(FixProblem(f"fixes not applied: the result would not be valid ({problem})"))
        return False
    try:
        new_data = _encode(unit, new_text)
    except (UnicodeEncodeError, ValueError) as error:
        outcome.problems.append(FixProblem(f"fixes not applied: {error}"))
        return False
    if new_data == data:
        return False
    session.overlay[os.path.abspath(outcome.path)] = new_data
    outcome.fixed = new_data
    outcome.applied.extend(_applied(chosen))
    return True


def _applied(chosen: Sequence[Finding]) -> List[AppliedFix]:
    return [AppliedFix(f.code, f.line, f.fix.description, f.cell) for f in chosen if f.fix is not None]


def _invalid(text: str, kind: str, path: str) -> Optional[str]:
    """Why a fixed text is not valid for its kind, or None."""
    if kind in ("python", "notebook"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                compile(text, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as error:
                return f"{type(error).__name__}: {error}"
        return None
    if kind == "yaml":
        import yaml

        try:
            list(yaml.safe_load_all(text))
        except yaml.YAMLError as error:
            return f"invalid YAML: {str(error).splitlines()[0]}"
    return None


def _encode(unit, text: str) -> bytes:
    """The file's new bytes: its encoding and BOM kept; a notebook's changed cells spliced into its JSON."""
    import codecs

    from ms_perflint.fix.writer import encode_source

    if unit.kind == "notebook":
        from ms_perflint.sources.notebook import NotebookFixError, changed_sources, replace_sources

        try:
            document = replace_sources(unit.notebook, changed_sources(text, unit.notebook.cells))
        except NotebookFixError as error:
            raise ValueError(str(error)) from None
        return (codecs.BOM_UTF8 if unit.notebook.bom else b"") + document.encode("utf-8")
    return encode_source(text, unit.source)


def write_fixed(outcomes: Sequence[FixOutcome]) -> None:
    """Write every changed file with the atomic writer; a file that cannot be written is a problem, not an abort."""
    from ms_perflint.fix.writer import WriteRefused, write_atomic

    for outcome in outcomes:
        if not outcome.changed:
            continue
        try:
            write_atomic(outcome.path, outcome.fixed, outcome.original)  # type: ignore[arg-type]
            outcome.written = True
        except WriteRefused as refused:
            outcome.problems.append(FixProblem(f"not written: {refused}"))
        except KeyboardInterrupt:
            raise


def unified_diff(outcome: FixOutcome) -> str:
    """The change as a unified diff of the decoded texts (``--- path`` / ``+++ path``)."""
    if not outcome.changed:
        return ""
    before = _decoded(outcome.original or b"")
    after = _decoded(outcome.fixed or b"")
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=outcome.path, tofile=outcome.path)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def _decoded(data: bytes) -> str:
    from ms_perflint.sources import decode_python

    try:
        return decode_python(data).text
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return data.decode("utf-8", "replace")


def remaining_results(outcomes: Sequence[FixOutcome]) -> List[FileResult]:
    """The findings left after fixing, one result per file."""
    return [outcome.remaining for outcome in outcomes]


Outcomes = Dict[str, FixOutcome]
