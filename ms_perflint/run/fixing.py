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

import contextlib
import difflib
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence

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
    #: In a notebook: the cell ``line`` counts in.
    cell: Optional[int] = None

    def render(self, path: str) -> str:
        where = path if self.cell is None else f"{path}:cell {self.cell}"
        where = f"{where}:{self.line}" if self.line is not None else where
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

    def say(self, problem: FixProblem) -> None:
        """Add a problem once (a later pass meets the same dropped fix again)."""
        if problem not in self.problems:
            self.problems.append(problem)


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
        outcomes[path].say(FixProblem(f"fixes did not settle after {MAX_PASSES} passes; some are left"))
    return [outcomes[path] for path in paths]


def _fixable(result: FileResult, unsafe: bool) -> bool:
    return result.error is None and any(wanted(finding, unsafe) for finding in result.findings)


def _fix_pass(session, outcome: FixOutcome, unsafe: bool) -> bool:
    """Apply one pass of fixes to the file's current text; True when its text changed."""
    from ms_perflint.sources import load_unit

    # The bytes the findings were placed in: a later read could hold another run's fix, and these offsets
    # would then insert the same line twice. The writer refuses the file if it changed since.
    data = session.analysed.get(os.path.abspath(outcome.path))
    if data is None:
        return False
    if outcome.original is None:
        outcome.original = data
    unit = load_unit(outcome.path, data, outcome.remaining.kind, None)
    chosen = choose(outcome.remaining.findings, unsafe)
    # A file Python already refuses to compile (`return` outside a function) is held to the parser only.
    strict = _invalid(unit.text, unit.kind, outcome.path) is None
    new_data, problem = _fixed_bytes(unit, chosen, outcome.path, strict)
    kept = list(chosen)
    if problem is not None:  # one fix breaks the file (or its encoding): keep the others, one at a time
        new_data, kept = data, []
        for finding in chosen:
            candidate, problem = _fixed_bytes(unit, kept + [finding], outcome.path, strict)
            if problem is None:
                new_data, kept = candidate, kept + [finding]
            else:
                outcome.say(FixProblem(f"{finding.code} fix not applied: {problem}", finding.line, finding.cell))
    if new_data == data:
        if kept:
            outcome.say(FixProblem(f"fixes changed nothing: {', '.join(sorted({f.code for f in kept}))}"))
        return False
    session.overlay[os.path.abspath(outcome.path)] = new_data
    outcome.fixed = new_data
    outcome.applied.extend(_applied(kept))
    return True


def _fixed_bytes(unit, findings: Sequence[Finding], path: str, strict: bool):
    """``(new bytes, None)`` with the findings' fixes applied, or ``(None, why not)``."""
    edits = [edit for finding in findings for edit in finding.fix.edits]  # type: ignore[union-attr]
    try:
        text = apply_edits(unit.text, edits)
    except ValueError as error:
        return None, str(error)
    problem = _invalid(text, unit.kind, path, strict)
    if problem is not None:
        return None, f"the result would not be valid ({problem})"
    try:
        return _encode(unit, text), None
    except UnicodeEncodeError as error:
        return None, f"the file's encoding ({unit.source.encoding}) cannot hold {error.object[error.start:error.end]!r}"
    except ValueError as error:
        return None, str(error)


def _applied(chosen: Sequence[Finding]) -> List[AppliedFix]:
    return [AppliedFix(f.code, f.line, f.fix.description, f.cell) for f in chosen if f.fix is not None]


def _invalid(text: str, kind: str, path: str, strict: bool = True) -> Optional[str]:
    """Why a fixed text is not valid for its kind, or None; not ``strict``: Python is only parsed, not compiled."""
    if kind in ("python", "notebook"):
        import ast

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if strict:
                    compile(text, path, "exec", dont_inherit=True)
                else:
                    ast.parse(text, path)
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
    """Write every changed file with the atomic writer; a file that cannot be written is a problem, not an abort.

    An interrupt (Ctrl-C, SIGTERM) is held while one file is written and taken between
    files, so ``written`` is exactly the files now on disk in their fixed form.
    """
    from ms_perflint.fix.writer import WriteRefused, write_atomic

    for outcome in outcomes:
        if not outcome.changed:
            continue
        with _interrupts_held():
            try:
                write_atomic(outcome.path, outcome.fixed, outcome.original)  # type: ignore[arg-type]
                outcome.written = True
            except WriteRefused as refused:
                outcome.say(FixProblem(f"not written: {refused}"))


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Block SIGINT and SIGTERM in this thread for the block; one that arrived is delivered after it."""
    import signal

    held = {signal.SIGINT, signal.SIGTERM}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def unified_diff(outcome: FixOutcome) -> str:
    """The change as a unified diff of the decoded texts (``--- path`` / ``+++ path``)."""
    if not outcome.changed:
        return ""
    before = _lines(_decoded(outcome.original or b""))
    after = _lines(_decoded(outcome.fixed or b""))
    lines = difflib.unified_diff(before, after, fromfile=outcome.path, tofile=outcome.path)
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def _lines(text: str) -> List[str]:
    """Lines as Python and ``diff`` split them: at ``\\n``, ``\\r\\n`` and ``\\r`` only (not at a form feed)."""
    return [line for line in _LINE.findall(text) if line]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


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
