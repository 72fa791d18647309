"""Applying the rules' fixes: choose, transform, check, re-lint, repeat until stable.

One pass:

1. Lint (with the run's own settings, so a suppressed finding is never fixed) and
   keep the parsed module.
2. Choose the wanted fixes (safe ones; unsafe ones too with ``unsafe=True``) in a
   deterministic order -- by position, then code -- one per target node.
3. Apply them all in one transformer pass, keyed by node identity. A transform
   receives the *updated* node, so fixes nested inside each other compose: MSP102
   rewriting an argument of the call that MSP101 wraps lands in the same pass.
4. Add the imports the fixes need, once, below the module's top import block.
5. Check the result still compiles. If it does not, find the fixes that break it
   and discard them (they are reported, never written) and keep the rest.

Then lint the new text and go again, until no wanted fix is left or
:data:`MAX_PASSES` is reached (the codes still fixable then are reported).
"""

from __future__ import annotations

import ast
import difflib
import warnings
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple, Type, Union

import libcst as cst

from ms_perflint.engine import lint_source
from ms_perflint.fix_results import AppliedFix, FixProblem, FixResult, wanted
from ms_perflint.results import FileError, FileResult, read_bytes
from ms_perflint.rule import Fix, Rule, Violation
from ms_perflint.settings import Settings
from ms_perflint.writer import WriteRefused, encode_source, write_atomic

#: Upper bound on lint-and-fix rounds for one file.
MAX_PASSES = 10


def fix_source(
    source: Union[str, bytes],
    path: str,
    settings: Settings,
    unsafe: bool = False,
    max_passes: int = MAX_PASSES,
    rules: Optional[Sequence[Type[Rule]]] = None,
) -> FixResult:
    """Fix one file's source in memory. Never raises for bad input.

    ``rules`` limits the rules run (as in :func:`~ms_perflint.engine.lint_source`); default: the enabled ones.
    """
    first = lint_source(source, path, settings, keep_module=True, rules=rules)
    outcome = FixResult(path, remaining=first, before=first, source=first.source)
    if isinstance(source, bytes):
        outcome.original_bytes = source
    if first.error is not None or not any(wanted(v, unsafe) for v in first.violations):
        return outcome
    assert first.source is not None and first.module is not None
    if first.module.code != first.source.text:
        outcome.problems.append(FixProblem("not fixed: libcst cannot reproduce this file byte for byte"))
        return outcome
    _FixLoop(outcome, settings, unsafe, max_passes, rules).run(first)
    if outcome.fixed_text is not None:
        try:
            outcome.fixed_bytes = encode_source(outcome.fixed_text, first.source)
        except UnicodeEncodeError as error:
            message = f"not fixed: the fixed text cannot be encoded as {first.source.encoding}: {error.reason}"
            outcome.problems.append(FixProblem(message))
            _undo(outcome)
    return outcome


def fix_file(path: str, settings: Settings, unsafe: bool = False, write: bool = True) -> FixResult:
    """Read, fix and (unless ``write`` is false) atomically write back one file (a notebook too)."""
    fix = fix_source
    if path.lower().endswith(".ipynb"):
        from ms_perflint.notebook import fix_notebook_source as fix  # fixes cells, splices them into the JSON
    data = read_bytes(path)  # the engine's reader: same errors as linting, and a FIFO never blocks it
    if isinstance(data, FileError):
        return FixResult(path, remaining=FileResult(path, error=data))
    outcome = fix(data, path, settings, unsafe)
    if write and outcome.fixed_bytes is not None:
        try:
            write_atomic(path, outcome.fixed_bytes, expected=data)
        except WriteRefused as refused:
            outcome.problems.append(FixProblem(f"not written: {refused}"))
            _undo(outcome)
    return outcome


def unified_diff(outcome: FixResult) -> str:
    """The fix as a unified diff (``--- path`` / ``+++ path``); empty when nothing changed."""
    if outcome.fixed_text is None or outcome.source is None:
        return ""
    lines = difflib.unified_diff(
        outcome.source.text.splitlines(keepends=True),
        outcome.fixed_text.splitlines(keepends=True),
        fromfile=outcome.path,
        tofile=outcome.path,
    )
    # difflib leaves a last line without its newline; patch(1) wants the marker.
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def _undo(outcome: FixResult) -> None:
    """Forget the fixes: the file stays as it was, with its original findings."""
    assert outcome.before is not None
    outcome.fixed_text = outcome.fixed_bytes = None
    outcome.applied = []
    outcome.remaining = outcome.before


class _FixLoop:
    """The lint-fix-check rounds for one file."""

    def __init__(
        self,
        outcome: FixResult,
        settings: Settings,
        unsafe: bool,
        max_passes: int,
        rules: Optional[Sequence[Type[Rule]]],
    ) -> None:
        assert outcome.source is not None
        self.outcome = outcome
        self.settings = settings
        self.rules = rules
        self.unsafe = unsafe
        self.max_passes = max_passes
        self.original = outcome.source
        self.check = _Validator(self.original.text, outcome.path)
        #: Fixes found to break the file or to change nothing, by (code, description, target text).
        self.rejected: Set[Tuple[str, str, str]] = set()
        self.texts: List[str] = [self.original.text]

    def run(self, result: FileResult) -> None:
        for _ in range(self.max_passes):
            candidates = self._candidates(result)
            if not candidates:
                break
            assert result.module is not None
            text, applied = self._apply_pass(result.module, candidates)
            if text is None:
                continue  # every chosen fix was rejected; the next pass picks other ones
            relinted = lint_source(text, self.outcome.path, self.settings, keep_module=True, rules=self.rules)
            if relinted.error is not None:
                self._reject_all(result.module, applied, f"the result does not parse: {relinted.error.message}")
                continue
            if text in self.texts:
                self._give_up(relinted, "fixes undo each other")
                break
            self._record(applied)
            self.texts.append(text)
            result = relinted
        else:
            self._give_up(result, f"still fixable after {self.max_passes} passes")
        if len(self.texts) > 1:
            self.outcome.fixed_text = self.texts[-1]
            result.source = replace(self.original, text=self.texts[-1])
            self.outcome.remaining = result

    def _candidates(self, result: FileResult) -> List[Violation]:
        if result.module is None:
            return []
        found = [v for v in result.violations if wanted(v, self.unsafe)]
        return [v for v in found if _identity(result.module, v) not in self.rejected]

    def _apply_pass(self, module: cst.Module, candidates: Sequence[Violation]) -> Tuple[Optional[str], List[Violation]]:
        """Apply the chosen fixes; on failure keep the largest subset found to work."""
        chosen = choose_fixes(candidates)
        text, reason = self._render(module, chosen)
        if text is not None:
            return text, chosen
        good: List[Violation] = []
        for violation in chosen:
            text, reason = self._render(module, [violation])
            if text is None:
                self._reject(module, violation, reason)
            else:
                good.append(violation)
        while good:
            text, reason = self._render(module, good)
            if text is not None:
                return text, good
            good = good[:1] if len(good) > 1 else []  # they break only together: one now, the rest next pass
        return None, []

    def _render(self, module: cst.Module, chosen: Sequence[Violation]) -> Tuple[Optional[str], str]:
        """The module's code with ``chosen`` applied, or None and why not."""
        fixes = [violation.fix for violation in chosen if violation.fix is not None]
        try:
            fixed = module.visit(_ApplyFixes(fixes))
            assert isinstance(fixed, cst.Module)
            fixed = add_imports(fixed, [statement for fix in fixes for statement in fix.imports])
            text = fixed.code
        except Exception as error:  # noqa: BLE001 -- a rule's transform failing must not stop the run
            return None, f"the fix failed: {type(error).__name__}: {error}"
        if text == module.code:
            return None, "the fix changed nothing"
        problem = self.check(text)
        return (None, f"the result would not be valid Python: {problem}") if problem else (text, "")

    def _reject(self, module: cst.Module, violation: Violation, reason: str) -> None:
        self.rejected.add(_identity(module, violation))
        line = _map_line(self.texts, violation.line)
        self.outcome.problems.append(FixProblem(f"{violation.code} fix discarded: {reason}", line))

    def _reject_all(self, module: cst.Module, applied: Sequence[Violation], reason: str) -> None:
        for violation in applied:
            self._reject(module, violation, reason)

    def _record(self, applied: Sequence[Violation]) -> None:
        for violation in applied:
            assert violation.fix is not None
            line = _map_line(self.texts, violation.line)
            self.outcome.applied.append(AppliedFix(violation.code, line, violation.fix.description))

    def _give_up(self, result: FileResult, why: str) -> None:
        codes = sorted({violation.code for violation in self._candidates(result)})  # discarded ones are reported already
        if codes:
            self.outcome.problems.append(FixProblem(f"fixes did not converge ({why}): {', '.join(codes)}"))


def choose_fixes(candidates: Sequence[Violation]) -> List[Violation]:
    """Fixes for one pass: by position then code, at most one per target node.

    Distinct targets never overlap partially in a tree: they are either apart or
    nested, and nested ones compose because transforms take the updated node.
    """
    chosen: List[Violation] = []
    targets: Set[int] = set()
    for violation in sorted(candidates, key=lambda v: (v.line, v.column, v.code)):
        assert violation.fix is not None
        if id(violation.fix.node) not in targets:
            targets.add(id(violation.fix.node))
            chosen.append(violation)
    return chosen


class _ApplyFixes(cst.CSTTransformer):
    """Replace each fix's target (found by identity) with ``transform(updated_node)``."""

    def __init__(self, fixes: Sequence[Fix]) -> None:
        super().__init__()
        self._by_node: Dict[int, Fix] = {id(fix.node): fix for fix in fixes}

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        fix = self._by_node.get(id(original_node))
        return updated_node if fix is None else fix.transform(updated_node)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None


def add_imports(module: cst.Module, statements: Sequence[str]) -> cst.Module:
    """Add import statements the module does not already have at top level.

    They go after the module docstring, ``from __future__`` imports and the
    top import block, so they come before any code that could use them.
    """
    present = _top_level_imports(module)
    new: List[cst.SimpleStatementLine] = []
    for text in dict.fromkeys(statements):
        statement = cst.parse_statement(text)
        assert isinstance(statement, cst.SimpleStatementLine), text
        keys = _import_keys(statement)
        if not keys or not keys <= present:
            new.append(statement)
            present |= keys
    if not new:
        return module
    body = list(module.body)
    index = _import_insertion_index(body)
    return module.with_changes(body=[*body[:index], *new, *body[index:]])


def _import_insertion_index(body: Sequence[cst.BaseStatement]) -> int:
    index = 0
    if body and _is_docstring(body[0]):
        index = 1
    while index < len(body) and _is_import_line(body[index]):
        index += 1
    return index


def _is_docstring(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))


def _is_import_line(statement: cst.BaseStatement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


_ImportKey = Tuple[str, ...]


def _top_level_imports(module: cst.Module) -> Set[_ImportKey]:
    """What module-level imports bind (also inside top-level ``if``/``try``/``with``)."""
    keys: Set[_ImportKey] = set()
    pending: List[cst.CSTNode] = list(module.body)
    while pending:
        node = pending.pop()
        if isinstance(node, cst.SimpleStatementLine):
            keys |= _import_keys(node)
        elif isinstance(node, (cst.If, cst.Try, cst.With, cst.Else, cst.ExceptHandler, cst.Finally)):
            pending.extend(_blocks_of(node))
    return keys


def _blocks_of(node: cst.CSTNode) -> List[cst.CSTNode]:
    """Statements directly inside a compound statement's blocks (not functions or classes)."""
    found: List[cst.CSTNode] = []
    body = getattr(node, "body", None)
    if isinstance(body, cst.IndentedBlock):
        found.extend(body.body)
    for name in ("orelse", "finalbody"):
        part = getattr(node, name, None)
        if part is not None:
            found.append(part)
    found.extend(getattr(node, "handlers", ()))
    return found


def _import_keys(statement: cst.SimpleStatementLine) -> Set[_ImportKey]:
    """``("import", "mindspore", "ms")`` / ``("from", "mindspore", "nn", "nn")`` for each name bound."""
    empty = cst.Module([])
    keys: Set[_ImportKey] = set()
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                asname = empty.code_for_node(alias.asname.name) if alias.asname else ""
                keys.add(("import", empty.code_for_node(alias.name), asname))
        elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
            module = "." * len(small.relative) + (empty.code_for_node(small.module) if small.module else "")
            for alias in small.names:
                name = empty.code_for_node(alias.name)
                asname = empty.code_for_node(alias.asname.name) if alias.asname else name
                keys.add(("from", module, name, asname))
    return keys


def _identity(module: cst.Module, violation: Violation) -> Tuple[str, str, str]:
    """What names one fix across passes: its code, description and target's text."""
    assert violation.fix is not None
    return violation.code, violation.fix.description, module.code_for_node(violation.fix.node)


class _Validator:
    """"Is this still valid Python?", as strict as the original allows.

    Normally ``compile()``. A file the compiler already rejects (``return`` outside
    a function parses but does not compile) is held to the parser instead, so the
    fixer judges only what the fixes changed.
    """

    def __init__(self, original: str, path: str) -> None:
        self.path = path
        self.strict = _compile_error(original, path) is None

    def __call__(self, text: str) -> Optional[str]:
        if self.strict:
            return _compile_error(text, self.path)
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            return _describe(error)
        return None


def _compile_error(text: str, path: str) -> Optional[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings about the user's own code are not ours to print
        try:
            compile(text, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            return _describe(error)
    return None


def _describe(error: Exception) -> str:
    if isinstance(error, SyntaxError):
        return f"{error.msg} (line {error.lineno})"
    return f"{type(error).__name__}: {error}"


def _map_line(texts: Sequence[str], line: int) -> int:
    """Map a 1-based line of ``texts[-1]`` back to ``texts[0]``, through each pass's edit."""
    for newer, older in zip(reversed(texts[1:]), reversed(texts[:-1])):
        line = _map_one(older.splitlines(), newer.splitlines(), line)
    return line


def _map_one(older: List[str], newer: List[str], line: int) -> int:
    index = line - 1
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, older, newer, autojunk=False).get_opcodes():
        if j1 <= index < j2:
            if tag == "equal":
                return i1 + (index - j1) + 1
            return min(i1 + (index - j1), max(i2 - 1, i1)) + 1
    return line
