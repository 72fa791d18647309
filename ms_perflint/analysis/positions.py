"""Source positions of a few nodes, at a fraction of ``PositionProvider``'s cost.

libcst's ``PositionProvider`` regenerates the module's code and, for every one of
its nodes, splits each token with a regular expression and records a range
(measured: ~170 us per source line, more than parsing). The engine needs the
positions of its findings only, so :func:`positions_of` regenerates the code
with a state that records nothing but the requested nodes, counts lines only
when a requested node starts or ends, and stops as soon as the last one ends.
The ranges are the same as ``PositionProvider``'s (syntactic: whitespace a node
owns is not included);
``tests/test_positions.py`` compares every node of the fixtures with it.

This uses libcst's code generation hooks (``CodegenState``, ``Module._codegen``),
the same ones ``PositionProvider`` is built on.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from typing import Dict, Iterable, Iterator, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange
from libcst._nodes.internal import CodegenState

from ms_perflint.analysis.ast_positions import AstPositions, Span
from ms_perflint.analysis.walker import children

_NOTHING_TO_RECORD = nullcontext()


class _AllRecorded(Exception):
    """Raised to stop generating code once every requested node has its range."""


class _TargetedCodegenState(CodegenState):
    """Code generation that records the ranges of ``targets`` only."""

    def __init__(self, module: cst.Module, wanted: Set[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        # Looked up by id: a node's own ``__hash__`` is a Python call, paid twice for every node generated.
        self.targets = {id(node) for node in wanted}
        self._waiting = set(self.targets)
        self.ranges: Dict[cst.CSTNode, CodeRange] = {}
        self._starts: Dict[cst.CSTNode, CodePosition] = {}
        self._counted_tokens = 0
        self._line = 1
        self._column = 0

    def _position(self) -> CodePosition:
        """Where the next token goes; counts only the tokens added since the last call."""
        tokens = self.tokens
        if self._counted_tokens < len(tokens):
            text = "".join(tokens[self._counted_tokens :])
            self._counted_tokens = len(tokens)
            if "\r" in text:  # "\r\n" and a lone "\r" end a line too, as in PositionProvider
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            newlines = text.count("\n")
            if newlines:
                self._line += newlines
                self._column = len(text) - text.rfind("\n") - 1
            else:
                self._column += len(text)
        return CodePosition(self._line, self._column)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self._starts[node] = self._position()

    def after_codegen(self, node: cst.CSTNode) -> None:
        # A syntactic range recorded while generating the node wins over the whitespace-inclusive one.
        if id(node) in self.targets and node not in self.ranges:
            self._found(node, CodeRange(self._starts[node], self._position()))

    def _found(self, node: cst.CSTNode, where: CodeRange) -> None:
        self.ranges[node] = where
        self._waiting.discard(id(node))
        if not self._waiting:
            raise _AllRecorded  # the rest of the module cannot change these ranges

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: Optional[cst.CSTNode] = None,
        end_node: Optional[cst.CSTNode] = None,
    ):
        if id(node) not in self.targets:
            return _NOTHING_TO_RECORD
        return self._record(node, start_node, end_node)

    @contextmanager
    def _record(
        self, node: cst.CSTNode, start_node: Optional[cst.CSTNode], end_node: Optional[cst.CSTNode]
    ) -> Iterator[None]:
        # The range may be borrowed from children generated inside this block: record them too.
        for child in (start_node, end_node):
            if child is not None:
                self.targets.add(id(child))
        start = self._position()
        yield
        end = self._position()
        if start_node is not None:
            start = self.ranges[start_node].start
        if end_node is not None:
            end = self.ranges[end_node].end
        self._found(node, CodeRange(start, end))


def positions_of(module: cst.Module, nodes: Iterable[cst.CSTNode], text: Optional[str] = None
                 ) -> Dict[cst.CSTNode, CodeRange]:
    """``{node: CodeRange}`` for those of ``nodes`` that are in ``module`` (1-based lines, 0-based columns).

    With the module's ``text``, the ranges are read off CPython's ``ast`` where the two trees pair
    (:mod:`~ms_perflint.analysis.ast_positions`), and only the rest is found by generating code: of the
    nearest paired statement or expression alone, else of the module.
    """
    wanted = {id(node): node for node in nodes}
    return {wanted[key]: CodeRange(CodePosition(l1, c1), CodePosition(l2, c2))
            for key, (l1, c1, l2, c2) in spans_of(module, wanted, text).items()}


def spans_of(module: cst.Module, wanted: Dict[int, cst.CSTNode], text: Optional[str] = None) -> Dict[int, Span]:
    """:func:`positions_of` as plain ``(line, column, end line, end column)`` tuples by the node's ``id``:
    ``wanted`` maps ``id(node)`` to the node (the analysis asks for thousands of nodes per file)."""
    found: Dict[int, Span] = {}
    if text is not None and wanted:
        found = _paired(module, text, wanted)
    missing = [node for key, node in wanted.items() if key not in found]
    if missing:
        found.update((id(node), _span(where)) for node, where in _generated(module, module, missing).items())
    return found


def _span(where: CodeRange) -> Span:
    return where.start.line, where.start.column, where.end.line, where.end.column


def _generated(module: cst.Module, root: cst.CSTNode, nodes: Iterable[cst.CSTNode],
               start: Optional[CodePosition] = None, indents: Tuple[str, ...] = ()) -> Dict[cst.CSTNode, CodeRange]:
    """Ranges of ``nodes`` found by generating the code of ``root`` (which starts at ``start``, inside blocks
    indented by ``indents``)."""
    wanted = set(nodes)
    state = _TargetedCodegenState(module, wanted)
    if start is not None:
        state._line, state._column = start.line, start.column
        state.indent_tokens.extend(indents)
    try:
        root._codegen(state)  # noqa: SLF001 -- the hook PositionProvider uses
    except _AllRecorded:
        pass
    return {node: where for node, where in state.ranges.items() if node in wanted}


def _paired(module: cst.Module, text: str, wanted: Dict[int, cst.CSTNode]) -> Dict[int, Span]:
    """Ranges read off ``ast``, and those of the unpaired parts generated from their anchors."""
    pairing = AstPositions(text, set(wanted), module.default_indent)
    if not pairing.pair(module):
        return {}
    found = pairing.spans
    missing = set(wanted) - set(found)
    for subtree, anchor in pairing.unpaired:
        if not missing:
            break
        inside = [wanted[key] for key in _ids_under(subtree) if key in missing]
        if not inside or anchor is None:
            continue  # no anchor: left to the whole module's code
        start = CodePosition(anchor.line, anchor.column)
        for node, where in _generated(module, anchor.node, inside, start, anchor.indents).items():
            found[id(node)] = _span(where)
            missing.discard(id(node))
    return found


def _ids_under(node: cst.CSTNode) -> Iterator[int]:
    """``id`` of the node and of every node under it."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield id(current)
        stack.extend(children(current))
