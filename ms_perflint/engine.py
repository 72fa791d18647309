"""The one entry point both front ends call: :func:`lint_source`.

Cost model (DESIGN.md): a file whose text holds no marker of an enabled rule is
never parsed; otherwise it is parsed once and walked once with every enabled
rule batched into a single visitor; positions are resolved only when there is
something to report.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from typing import Dict, List, Optional, Sequence, Tuple, Type, Union

import libcst as cst

from ms_perflint.context import FileContext, note_class
from ms_perflint.imports import MINDSPORE_PACKAGES
from ms_perflint.noqa import LineSuppressions, file_directives
from ms_perflint.parse_guard import nesting_error, python_syntax_error, too_deep_error
from ms_perflint.positions import positions_of
from ms_perflint.results import FileError, FileResult, SourceText, read_bytes
from ms_perflint.rule import Rule, Violation, visitor_methods
from ms_perflint.settings import Settings
from ms_perflint.walker import walk


def decode_source(data: bytes) -> SourceText:
    """Decode bytes as Python does: BOM, then a PEP 263 coding cookie, else UTF-8.

    Raises UnicodeDecodeError or SyntaxError (bad cookie) for undecodable input.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText(text=text, encoding="utf-8" if encoding == "utf-8-sig" else encoding, bom=bom)


def enabled_rules(settings: Settings, path: Optional[str] = None) -> List[Type[Rule]]:
    """Rule classes whose code the settings turn on for ``path``."""
    from ms_perflint.rules import ALL_RULES

    return [rule for rule in ALL_RULES if settings.is_enabled(rule.code, path)]


def could_fire(text: str, rules: Sequence[Type[Rule]]) -> bool:
    """The text prefilter: MindSpore is mentioned and some enabled rule's marker occurs."""
    if not any(package in text for package in MINDSPORE_PACKAGES):
        return False
    return any(marker in text for rule in rules for marker in rule.markers)


def lint_source(
    source: Union[str, bytes],
    path: str,
    settings: Settings,
    keep_module: bool = False,
    rules: Optional[Sequence[Type[Rule]]] = None,
) -> FileResult:
    """Lint one file's source. Never raises for bad input: problems come back as ``FileResult.error``."""
    result = FileResult(path)
    try:
        result.source = decode_source(source) if isinstance(source, bytes) else SourceText(source)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        result.error = FileError("DecodeError", f"cannot decode file: {error}")
        return result
    text = result.source.text
    rules = enabled_rules(settings, path) if rules is None else rules
    if not rules or not would_parse(text, path, settings, rules):
        return result
    result.error = nesting_error(text)  # deep enough to crash or stall libcst's parser
    if result.error is not None:
        return result
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message = str(error).splitlines()[0] if str(error) else "invalid syntax"
        libcst_error = FileError("SyntaxError", message, error.raw_line, error.raw_column)
        result.error = python_syntax_error(text) or libcst_error  # Python's message and position read better
        return result
    except (RecursionError, MemoryError):
        result.error = FileError("SyntaxError", "file is too deeply nested to parse")
        return result
    if keep_module:
        result.module = module
    try:
        context = run_rules(module, path, settings, rules)
        result.violations = _finalize(context, text, settings)
    except RecursionError:  # a tree too deep for Python's stack, though not deep enough for nesting_error
        result.module = None
        result.error = too_deep_error()
    return result


def run_rules(module: cst.Module, path: str, settings: Settings, rules: Sequence[Type[Rule]]) -> FileContext:
    """Walk ``module`` once with every rule in ``rules``; return the context holding the findings."""
    context = FileContext(path, module, settings)
    dispatcher = _Dispatcher(context, [rule(context) for rule in rules])
    walk(module, dispatcher)  # the same events as module.visit(dispatcher), without copying every node
    for rule in dispatcher.rules:
        rule.finish()
    if not context.imports.imports_mindspore and not _in_mindspore_program(context):
        context.violations.clear()  # not MindSpore code: a PyTorch resnet50(num_classes=1000) is fine
    return context


def would_parse(text: str, path: str, settings: Settings, rules: Sequence[Type[Rule]]) -> bool:
    """Is the file worth a libcst parse: the prefilter, or (project mode) a file of a MindSpore program."""
    return could_fire(text, rules) or _project_needs(path, text, settings, rules)


def _project_needs(path: str, text: str, settings: Settings, rules: Sequence[Type[Rule]]) -> bool:
    """Project mode: a file of a MindSpore program is linted even if its text never names MindSpore."""
    if not settings.project:
        return False
    from ms_perflint.project import view_for_path

    view = view_for_path(path, settings)
    return view is not None and view.needs_lint(text, rules)


def _in_mindspore_program(context: FileContext) -> bool:
    """Project mode: the file shares a program with MindSpore code (``config.py`` imported by ``train.py``)."""
    return context.settings.project and context.project is not None and context.project.is_mindspore_code()


def _finalize(context: FileContext, text: str, settings: Settings) -> List[Violation]:
    violations = context.violations
    if not violations:
        return []
    _attach_positions(context.module, violations)
    lines = text.splitlines()
    directives = file_directives(lines)
    suppressions = LineSuppressions(text) if settings.apply_noqa else None
    kept = []
    for violation in violations:
        if directives.skips(violation.code, honour_flake8=settings.apply_noqa):
            continue
        if suppressions is not None and suppressions.is_suppressed(violation.line, violation.code):
            continue
        kept.append(violation)
    return sorted(_unique(kept), key=lambda v: (v.line, v.column, v.code))


def _unique(violations: List[Violation]) -> List[Violation]:
    """Drop exact repeats (same code at the same place), keeping the first, which may carry a fix."""
    seen: Dict[Tuple[str, int, int], Violation] = {}
    for violation in violations:
        seen.setdefault((violation.code, violation.line, violation.column), violation)
    return list(seen.values())


def _attach_positions(module: cst.Module, violations: Sequence[Violation]) -> None:
    positions = positions_of(module, [violation.node for violation in violations if violation.node is not None])
    for violation in violations:
        where = positions.get(violation.node) if violation.node is not None else None
        if where is None:
            violation.line, violation.column = 1, 0
            continue
        violation.line, violation.column = where.start.line, where.start.column
        violation.end_line, violation.end_column = where.end.line, where.end.column


class _Dispatcher(cst.CSTVisitor):
    """Batches many rules into one traversal, keeping the shared context current."""

    def __init__(self, context: FileContext, rules: Sequence[Rule]) -> None:
        super().__init__()
        self.context = context
        self.rules = list(rules)
        self._visit: Dict[str, list] = {}
        self._leave: Dict[str, list] = {}
        for rule in self.rules:
            for name in visitor_methods(type(rule)):
                kind, _, node_type = name.partition("_")
                table = self._visit if kind == "visit" else self._leave
                table.setdefault(node_type, []).append(getattr(rule, name))

    def on_visit(self, node: cst.CSTNode) -> bool:
        context = self.context
        context.ancestors.append(node)
        node_type = type(node).__name__
        if node_type == "Import":
            context.imports.bind_import(node)  # type: ignore[arg-type]
        elif node_type == "ImportFrom":
            context.imports.bind_import_from(node)  # type: ignore[arg-type]
        elif node_type in ("ClassDef", "FunctionDef"):
            context.imports.bind_local(node.name.value)  # type: ignore[attr-defined]
            if node_type == "ClassDef":
                note_class(node, context)  # type: ignore[arg-type]
        for method in self._visit.get(node_type, ()):
            method(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        for method in self._leave.get(type(original_node).__name__, ()):
            method(original_node)
        self.context.ancestors.pop()

    # libcst calls these for every field of every node; the rules use none of them.
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None


def lint_file(path: str, settings: Settings, keep_module: bool = False) -> FileResult:
    """Read ``path`` and lint it; a file that cannot be read comes back as an error, not an exception."""
    data = read_bytes(path)
    if isinstance(data, FileError):
        return FileResult(path, error=data)
    return lint_data(data, path, settings, keep_module=keep_module)


def lint_data(data: bytes, path: str, settings: Settings, keep_module: bool = False) -> FileResult:
    """Lint the bytes of the file at ``path`` (a notebook when it ends in ``.ipynb``); never raises for bad input."""
    if path.lower().endswith(".ipynb"):
        from ms_perflint.notebook import lint_notebook  # a notebook has no module to keep: cells are joined

        return lint_notebook(data, path, settings)
    return lint_source(data, path, settings, keep_module=keep_module)
