"""Source positions of libcst nodes read off the standard library's ``ast``, without generating code.

Generating a module's code to find where its nodes are (:mod:`ms_perflint.analysis.positions`)
costs a fifth of the analysis. CPython's own parser gives every statement and expression its
position at a tenth of libcst's parsing cost, and the two trees have the same shape for the
statements and expressions the engine records: this module walks them side by side and reads
each wanted libcst node's range off its ``ast`` twin -- the same syntactic range
``PositionProvider`` gives (parentheses excluded, columns in characters).

Where the shapes differ (an f-string's insides, a parenthesised tuple's parentheses, pattern
matching, a parameter list) the node is not paired; the caller finds those few by generating
the code of their nearest paired statement or expression alone. A pairing that went wrong
cannot go unnoticed: every paired name, number and string is compared with the text at its
range, and one mismatch discards the whole file's pairing. ``tests/test_positions.py`` compares
every paired node of the fixtures with ``PositionProvider``.
"""

from __future__ import annotations

import ast
from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

import libcst as cst

from ms_perflint.sources.guard import parse_quietly

#: (start line, start column, end line, end column): 1-based lines, 0-based character columns.
Span = Tuple[int, int, int, int]


class Anchor(NamedTuple):
    """A paired node whose code starts at its syntactic start (``line``, ``column``), in blocks indented by
    ``indents``: the code of what under it could not be paired is generated from there."""

    node: cst.CSTNode
    line: int
    column: int
    indents: Tuple[str, ...]


class Mismatch(Exception):
    """The two trees disagree where they should not: the pairing is not to be trusted."""


class AstPositions:
    """Pair a libcst module with ``ast.parse`` of the same text; :attr:`spans` holds the wanted nodes' ranges.

    :attr:`unpaired` lists ``(subtree, anchor)``: a libcst subtree that could not be paired (its wanted
    nodes have no span yet) and its nearest paired ancestor whose code starts at its syntactic start
    (a small statement or an expression without parentheses), or None.
    """

    def __init__(self, text: str, wanted: Set[int], default_indent: str = "    ") -> None:
        self.text = text
        self.default_indent = default_indent
        #: Byte and character columns are the same in an ASCII text (most files).
        self._ascii = text.isascii()
        self.wanted = wanted
        self.spans: Dict[int, Span] = {}
        self.unpaired: List[Tuple[cst.CSTNode, Optional[Anchor]]] = []
        #: The nearest paired ancestor whose code starts at its syntactic start, and its ast twin.
        self._anchor: Optional[Tuple[cst.CSTNode, ast.AST]] = None
        self._indents: List[str] = []
        self._lines: Optional[List[str]] = None
        self._leaves: List[Tuple[Span, str]] = []

    # --- entry ---------------------------------------------------------------------------------

    def pair(self, module: cst.Module) -> bool:
        """Pair the module; False when ``ast`` cannot parse the text or the trees disagree."""
        try:
            tree = parse_quietly(self.text)
            self._body(module.body, tree.body)
            self._check_leaves()
        except (SyntaxError, ValueError, RecursionError, MemoryError, Mismatch):
            return False
        return True


    # --- positions -----------------------------------------------------------------------------

    def _span(self, node: ast.AST) -> Span:
        end_line, end_col = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
        if self._ascii:
            return node.lineno, node.col_offset, end_line, end_col  # type: ignore[attr-defined,return-value]
        return (node.lineno, self._column(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                end_line, self._column(end_line, end_col))  # type: ignore[arg-type]

    def _column(self, line: int, byte_column: int) -> int:
        """``ast`` columns count UTF-8 bytes; libcst's count characters."""
        if self._lines is None:
            self._lines = _python_lines(self.text)
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        if text.isascii():
            return byte_column
        return len(text.encode("utf-8")[:byte_column].decode("utf-8", errors="ignore"))

    def _record(self, node: cst.CSTNode, span: Span) -> None:
        if id(node) in self.wanted:
            self.spans[id(node)] = span

    def _skip(self, node: cst.CSTNode) -> None:
        """A subtree the pairing does not enter: its wanted nodes are found from the anchor."""
        if self._anchor is None:
            self.unpaired.append((node, None))
            return
        anchor, twin = self._anchor
        span = self._span(twin)
        self.unpaired.append((node, Anchor(anchor, span[0], span[1], tuple(self._indents))))

    # --- statements ----------------------------------------------------------------------------

    def _body(self, statements: Sequence[cst.CSTNode], nodes: Sequence[ast.stmt]) -> None:
        position = 0
        for statement in statements:
            if type(statement) is cst.SimpleStatementLine:
                small = statement.body
                twins = nodes[position:position + len(small)]
                position += len(small)
                if len(twins) != len(small):
                    raise Mismatch
                first, last = self._span(twins[0]), self._span(twins[-1])
                self._record(statement, (first[0], first[1], last[2], last[3]))
                for node, twin in zip(small, twins):
                    self._small(node, twin)
            else:
                if position >= len(nodes):
                    raise Mismatch
                self._compound(statement, nodes[position])
                position += 1
        if position != len(nodes):
            raise Mismatch

    def _suite(self, suite: cst.BaseSuite, nodes: Sequence[ast.stmt]) -> None:
        if isinstance(suite, cst.SimpleStatementSuite):
            if len(suite.body) != len(nodes):
                raise Mismatch
            for node, twin in zip(suite.body, nodes):
                self._small(node, twin)
        else:
            indent = suite.indent  # type: ignore[attr-defined]
            self._indents.append(self.default_indent if indent is None else indent)
            try:
                self._body(suite.body, nodes)  # type: ignore[attr-defined]
            finally:
                self._indents.pop()

    def _small(self, node: cst.CSTNode, twin: ast.stmt) -> None:
        if id(node) in self.wanted:
            self.spans[id(node)] = self._span(twin)
        outer, self._anchor = self._anchor, (node, twin)
        self._small_parts(node, twin)
        self._anchor = outer  # (a Mismatch abandons the whole pairing: nothing to restore then)

    def _small_parts(self, node: cst.CSTNode, twin: ast.stmt) -> None:
        kind = type(node)
        if kind is cst.Expr and isinstance(twin, ast.Expr):
            self._expr(node.value, twin.value)
        elif kind is cst.Assign and isinstance(twin, ast.Assign):
            if len(node.targets) != len(twin.targets):
                raise Mismatch
            for target, target_twin in zip(node.targets, twin.targets):
                self._expr(target.target, target_twin)
            self._expr(node.value, twin.value)
        elif kind is cst.AnnAssign and isinstance(twin, ast.AnnAssign):
            self._expr(node.target, twin.target)
            self._expr(node.annotation.annotation, twin.annotation)
            self._optional(node.value, twin.value)
        elif kind is cst.AugAssign and isinstance(twin, ast.AugAssign):
            self._expr(node.target, twin.target)
            self._expr(node.value, twin.value)
        elif kind is cst.Return and isinstance(twin, ast.Return):
            self._optional(node.value, twin.value)
        elif kind is cst.Raise and isinstance(twin, ast.Raise):
            self._optional(node.exc, twin.exc)
            self._optional(node.cause.item if node.cause is not None else None, twin.cause)
        elif kind is cst.Assert and isinstance(twin, ast.Assert):
            self._expr(node.test, twin.test)
            self._optional(node.msg, twin.msg)
        elif type(node).__name__ != _SAME_STATEMENT.get(type(twin)):
            raise Mismatch
        elif not isinstance(node, _NO_EXPRESSIONS):
            self._skip(node)

    def _compound(self, node: cst.CSTNode, twin: ast.stmt) -> None:
        if type(node).__name__ != _SAME_STATEMENT.get(type(twin)):
            raise Mismatch
        if id(node) in self.wanted:
            self.spans[id(node)] = self._span(twin)
        if isinstance(node, cst.If):
            self._expr(node.test, twin.test)  # type: ignore[attr-defined]
            self._suite(node.body, twin.body)  # type: ignore[attr-defined]
            self._orelse(node.orelse, twin.orelse)  # type: ignore[attr-defined]
        elif isinstance(node, (cst.For, cst.While)):
            if isinstance(node, cst.For):
                self._expr(node.target, twin.target)  # type: ignore[attr-defined]
                self._expr(node.iter, twin.iter)  # type: ignore[attr-defined]
            else:
                self._expr(node.test, twin.test)  # type: ignore[attr-defined]
            self._suite(node.body, twin.body)  # type: ignore[attr-defined]
            self._orelse(node.orelse, twin.orelse)  # type: ignore[attr-defined]
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self._definition(node, twin)
        elif isinstance(node, cst.With):
            if len(node.items) != len(twin.items):  # type: ignore[attr-defined]
                raise Mismatch
            for item, item_twin in zip(node.items, twin.items):  # type: ignore[attr-defined]
                self._expr(item.item, item_twin.context_expr)
                self._optional(item.asname.name if item.asname is not None else None, item_twin.optional_vars)
            self._suite(node.body, twin.body)  # type: ignore[attr-defined]
        elif isinstance(node, cst.Try):
            self._try(node, twin)
        else:  # match, try*, ...: found from their own code
            self._skip(node)

    def _definition(self, node, twin) -> None:
        if len(node.decorators) != len(twin.decorator_list):
            raise Mismatch
        if id(node.name) in self.wanted:
            self._name_after_keyword(node, twin)
        for decorator, decorator_twin in zip(node.decorators, twin.decorator_list):
            self._anchored_expr(decorator.decorator, decorator_twin)
        if isinstance(node, cst.ClassDef):
            arguments = sorted([*twin.bases, *twin.keywords], key=_start)
            if len(arguments) != len(node.bases) + len(node.keywords):
                raise Mismatch
            for argument, argument_twin in zip([*node.bases, *node.keywords], arguments):
                self._anchored_arg(argument, argument_twin)
        else:
            self._parameters(node.params, twin.args)
            self._optional_anchored(node.returns.annotation if node.returns is not None else None, twin.returns)
        self._suite(node.body, twin.body)

    def _name_after_keyword(self, node, twin) -> None:
        """``def name`` / ``class name``: the name follows the keyword and the whitespace libcst keeps."""
        if isinstance(node, cst.ClassDef):
            words = ("class", node.whitespace_after_class)
        else:
            words = ("async", node.asynchronous.whitespace_after) if node.asynchronous is not None else ()
            words += ("def", node.whitespace_after_def)  # type: ignore[assignment]
        offset = 0
        for word in words:
            if isinstance(word, str):
                offset += len(word)
            elif isinstance(word, cst.SimpleWhitespace) and "\\" not in word.value:
                offset += len(word.value)
            else:
                return  # a continuation between the keyword and the name: found from the code
        line, column = twin.lineno, self._column(twin.lineno, twin.col_offset)
        name = node.name.value
        if self._line(line)[column + offset:column + offset + len(name)] != name:
            raise Mismatch
        self.spans[id(node.name)] = (line, column + offset, line, column + offset + len(name))

    def _line(self, line: int) -> str:
        if self._lines is None:
            self._lines = _python_lines(self.text)
        return self._lines[line - 1] if 0 < line <= len(self._lines) else ""

    def _comma_after(self, line: int, column: int) -> Optional[Span]:
        """The comma that follows ``line``:``column`` past spaces, comments and line breaks (None if another
        character comes first)."""
        while True:
            text = self._line(line)
            while column < len(text) and text[column] in " \t\f":
                column += 1
            if column < len(text) and text[column] == ",":
                return line, column, line, column + 1
            if column < len(text) and text[column] not in "#\\":
                return None
            if self._lines is not None and line >= len(self._lines):
                return None
            line, column = line + 1, 0

    def _parameters(self, params: cst.Parameters, twin: ast.arguments) -> None:
        """Defaults and annotations of ``def`` and ``lambda`` parameters (each its own anchor)."""
        positional = [*params.posonly_params, *params.params]
        positional_twins = [*twin.posonlyargs, *twin.args]
        if len(positional) != len(positional_twins) or len(params.kwonly_params) != len(twin.kwonlyargs):
            raise Mismatch
        defaults = [None] * (len(positional) - len(twin.defaults)) + list(twin.defaults)
        pairs = [*zip(positional, positional_twins, defaults),
                 *zip(params.kwonly_params, twin.kwonlyargs, twin.kw_defaults)]
        star, star_twin = params.star_arg, twin.vararg
        if isinstance(star, cst.Param) != (star_twin is not None):
            raise Mismatch
        if isinstance(star, cst.Param):
            pairs.append((star, star_twin, None))
        if (params.star_kwarg is None) != (twin.kwarg is None):
            raise Mismatch
        if params.star_kwarg is not None:
            pairs.append((params.star_kwarg, twin.kwarg, None))
        for param, arg, default in pairs:
            self._optional_anchored(param.default, default)
            self._optional_anchored(param.annotation.annotation if param.annotation is not None else None,
                                    arg.annotation)

    def _optional_anchored(self, node: Optional[cst.BaseExpression], twin: Optional[ast.expr]) -> None:
        if (node is None) != (twin is None):
            raise Mismatch
        if node is not None:
            self._anchored_expr(node, twin)  # type: ignore[arg-type]

    def _orelse(self, orelse: Optional[cst.CSTNode], nodes: Sequence[ast.stmt]) -> None:
        if orelse is None:
            if nodes:
                raise Mismatch
        elif isinstance(orelse, cst.If):  # elif
            if len(nodes) != 1:
                raise Mismatch
            self._compound(orelse, nodes[0])
        else:
            self._suite(orelse.body, nodes)  # type: ignore[attr-defined]

    def _try(self, node: cst.Try, twin) -> None:
        self._suite(node.body, twin.body)
        if len(node.handlers) != len(twin.handlers):
            raise Mismatch
        for handler, handler_twin in zip(node.handlers, twin.handlers):
            if (handler.type is None) != (handler_twin.type is None):
                raise Mismatch
            if handler.type is not None:
                self._anchored_expr(handler.type, handler_twin.type)
            self._suite(handler.body, handler_twin.body)
        self._orelse(node.orelse, twin.orelse)
        self._orelse(node.finalbody, twin.finalbody)

    # --- expressions ---------------------------------------------------------------------------

    def _optional(self, node: Optional[cst.BaseExpression], twin: Optional[ast.expr]) -> None:
        if (node is None) != (twin is None):
            raise Mismatch
        if node is not None:
            self._expr(node, twin)  # type: ignore[arg-type]

    def _anchored_expr(self, node: cst.BaseExpression, twin: ast.expr) -> None:
        """An expression in a compound statement's header: it is its own anchor."""
        outer, self._anchor = self._anchor, None
        self._expr(node, twin)
        self._anchor = outer

    def _anchored_arg(self, node: cst.Arg, twin: ast.AST) -> None:
        outer, self._anchor = self._anchor, None
        self._arg(node, twin)
        self._anchor = outer

    def _expr(self, node: cst.BaseExpression, twin: ast.expr) -> None:
        pairing = _EXPRESSIONS.get(type(node))
        if pairing is None:  # yield, a starred target, ...: found from its own code
            self._skip(node)
            return
        types, method, anchors = pairing
        if not isinstance(twin, types):
            raise Mismatch
        if id(node) in self.wanted:
            span = self._own_span(node, twin)
            if span is not None:
                self.spans[id(node)] = span
        if method is None:
            return
        outer = self._anchor
        if anchors and not node.lpar and not getattr(twin, "unknown_span", False):  # type: ignore[attr-defined]
            self._anchor = (node, twin)
        method(self, node, twin)
        self._anchor = outer

    def _own_span(self, node: cst.BaseExpression, twin: ast.expr) -> Optional[Span]:
        """The node's syntactic range; None where it cannot be read off ``ast`` (found from the code)."""
        kind = type(node)  # exact types: isinstance against libcst's ABCs is slow, and this runs for every node
        if kind is cst.Tuple:
            return self._tuple_span(node, twin)  # type: ignore[arg-type]
        if kind is cst.GeneratorExp:
            return self._generator_span(node, twin)  # type: ignore[arg-type]
        if getattr(twin, "unknown_span", False):
            return None
        span = self._span(twin)
        if kind in _LEAVES:
            self._leaves.append((span, _leaf_text(node)))
        return span

    def _tuple_span(self, node: cst.Tuple, twin: ast.Tuple) -> Optional[Span]:
        """ast's range of a parenthesised tuple takes the parentheses; libcst's runs from the first element to
        the last, with a trailing comma and the spaces after it. Parentheses around the end elements, or a line
        break after the trailing comma, leave it unknown."""
        if not node.elements:  # ``()``: an empty range after the parenthesis and the spaces inside it
            after = node.lpar[0].whitespace_after if len(node.lpar) == 1 else None
            if not isinstance(after, cst.SimpleWhitespace) or "\\" in after.value:
                return None
            line, column = twin.lineno, self._column(twin.lineno, twin.col_offset) + 1 + len(after.value)
            return line, column, line, column
        first, last = node.elements[0].value, node.elements[-1].value
        if _parenthesised_apart(first, "lpar") or _parenthesised_apart(last, "rpar"):
            return None
        start, end = self._span(twin.elts[0]), self._span(twin.elts[-1])
        comma = node.elements[-1].comma
        if isinstance(comma, cst.Comma):
            found = self._comma_after(end[2], end[3])
            after = comma.whitespace_after
            if found is None or not isinstance(after, cst.SimpleWhitespace) or "\\" in after.value:
                return None
            end = (found[0], found[1], found[2], found[3] + len(after.value))
        return start[0], start[1], end[2], end[3]

    def _generator_span(self, node: cst.GeneratorExp, twin: ast.GeneratorExp) -> Optional[Span]:
        """ast's range takes the generator's parentheses (a lone argument's: the call's); libcst's runs from
        the element to the end of the last clause."""
        clause = node.for_in
        while clause.inner_for_in is not None:
            clause = clause.inner_for_in
        last_node = clause.ifs[-1].test if clause.ifs else clause.iter
        generator = twin.generators[-1]
        last_twin = generator.ifs[-1] if generator.ifs else generator.iter
        if node.elt.lpar or last_node.rpar:  # type: ignore[attr-defined]
            return None
        start, end = self._span(twin.elt), self._span(last_twin)
        return start[0], start[1], end[2], end[3]

    def _parts_unpaired(self, node, twin) -> None:
        """A string's parts (implicit concatenation, an f-string's fields) are not paired."""
        self._skip(node)

    def _attribute(self, node: cst.Attribute, twin: ast.Attribute) -> None:
        self._expr(node.value, twin.value)

    def _call(self, node: cst.Call, twin: ast.Call) -> None:
        self._expr(node.func, twin.func)
        arguments = sorted([*twin.args, *twin.keywords], key=_start) if twin.keywords else twin.args
        if len(arguments) != len(node.args):
            raise Mismatch
        for argument, argument_twin in zip(node.args, arguments):
            self._arg(argument, argument_twin)

    def _arg(self, node: cst.Arg, twin: ast.AST) -> None:
        if isinstance(twin, ast.keyword):
            if (twin.arg is None) != (node.star == "**") or (twin.arg is not None) != (node.keyword is not None):
                raise Mismatch
            value = twin.value
        elif isinstance(twin, ast.Starred):
            if node.star != "*":
                raise Mismatch
            value = twin.value
        else:
            if node.star or node.keyword is not None:
                raise Mismatch
            if isinstance(node.value, cst.GeneratorExp):
                self._skip(node)  # a lone generator argument: ast's range takes the call's parentheses
                return
            value = twin  # type: ignore[assignment]
        if id(node) in self.wanted or id(node.comma) in self.wanted:
            self._arg_spans(node, twin)
        self._expr(node.value, value)

    def _arg_spans(self, node: cst.Arg, twin: ast.AST) -> None:
        """The argument's range (star and keyword included) and its comma's."""
        if node.value.rpar or (node.value.lpar and not node.star and node.keyword is None):  # type: ignore[attr-defined]
            return  # ast's range of the value leaves its parentheses out; libcst's argument keeps them
        span = self._span(twin)
        if id(node) in self.wanted:
            self.spans[id(node)] = span
        if id(node.comma) in self.wanted:
            comma = self._comma_after(span[2], span[3])
            if comma is not None:
                self.spans[id(node.comma)] = comma

    def _subscript(self, node: cst.Subscript, twin: ast.Subscript) -> None:
        self._expr(node.value, twin.value)
        elements = node.slice
        parts = twin.slice.elts if len(elements) > 1 and isinstance(twin.slice, ast.Tuple) else [twin.slice]
        if len(parts) != len(elements):
            raise Mismatch
        for element, part in zip(elements, parts):
            inner = element.slice
            if isinstance(inner, cst.Index) and not isinstance(part, ast.Slice) and inner.star is None:
                self._expr(inner.value, part)
            elif isinstance(inner, cst.Slice) and isinstance(part, ast.Slice):
                self._optional(inner.lower, part.lower)
                self._optional(inner.upper, part.upper)
                self._optional(inner.step, part.step)
            else:
                self._skip(element)

    def _binary(self, node: cst.BinaryOperation, twin: ast.BinOp) -> None:
        self._expr(node.left, twin.left)
        self._expr(node.right, twin.right)

    def _unary(self, node: cst.UnaryOperation, twin: ast.UnaryOp) -> None:
        self._expr(node.expression, twin.operand)

    def _boolean(self, node: cst.BooleanOperation, twin: ast.BoolOp) -> None:
        values = twin.values
        if len(values) < 2:
            raise Mismatch
        if len(values) == 2:
            self._expr(node.left, values[0])
        else:  # ``a or b or c``: libcst nests ``(a or b) or c``, ast lists the three
            left = node.left
            if not isinstance(left, cst.BooleanOperation) or left.lpar or type(left.operator) is not type(node.operator):
                raise Mismatch
            rest = ast.BoolOp(op=twin.op, values=values[:-1])
            first, last = values[0], values[-2]
            rest.lineno, rest.col_offset = first.lineno, first.col_offset
            rest.end_lineno, rest.end_col_offset = last.end_lineno, last.end_col_offset
            leftmost = left
            while isinstance(leftmost, cst.BooleanOperation) and not leftmost.lpar:
                leftmost = leftmost.left
            # libcst's range of ``a or b`` takes parentheses around ``a`` or ``b``; the ast values' do not.
            rest.unknown_span = bool(leftmost.lpar or left.right.rpar)  # type: ignore[attr-defined]
            self._expr(left, rest)
        self._expr(node.right, values[-1])

    def _comparison(self, node: cst.Comparison, twin: ast.Compare) -> None:
        self._expr(node.left, twin.left)
        if len(node.comparisons) != len(twin.comparators):
            raise Mismatch
        for target, comparator in zip(node.comparisons, twin.comparators):
            self._expr(target.comparator, comparator)

    def _ifexp(self, node: cst.IfExp, twin: ast.IfExp) -> None:
        self._expr(node.body, twin.body)
        self._expr(node.test, twin.test)
        self._expr(node.orelse, twin.orelse)

    def _sequence(self, node, twin) -> None:
        if len(node.elements) != len(twin.elts):
            raise Mismatch
        for element, element_twin in zip(node.elements, twin.elts):
            if isinstance(element, cst.StarredElement) and isinstance(element_twin, ast.Starred):
                self._expr(element.value, element_twin.value)
            elif isinstance(element, cst.Element) and not isinstance(element_twin, ast.Starred):
                self._expr(element.value, element_twin)
            else:
                raise Mismatch

    def _dict(self, node: cst.Dict, twin: ast.Dict) -> None:
        if len(node.elements) != len(twin.values):
            raise Mismatch
        for element, key, value in zip(node.elements, twin.keys, twin.values):
            if isinstance(element, cst.DictElement) and key is not None:
                self._expr(element.key, key)
            elif not (isinstance(element, cst.StarredDictElement) and key is None):
                raise Mismatch
            self._expr(element.value, value)

    def _comprehension(self, node, twin) -> None:
        if isinstance(node, cst.DictComp):
            self._expr(node.key, twin.key)
            self._expr(node.value, twin.value)
        else:
            self._expr(node.elt, twin.elt)
        clause: Optional[cst.CompFor] = node.for_in
        for generator in twin.generators:
            if clause is None or len(clause.ifs) != len(generator.ifs):
                raise Mismatch
            self._expr(clause.target, generator.target)
            self._expr(clause.iter, generator.iter)
            for condition, condition_twin in zip(clause.ifs, generator.ifs):
                self._expr(condition.test, condition_twin)
            clause = clause.inner_for_in
        if clause is not None:
            raise Mismatch

    def _lambda(self, node: cst.Lambda, twin: ast.Lambda) -> None:
        self._parameters(node.params, twin.args)
        self._expr(node.body, twin.body)

    def _single(self, node, twin) -> None:
        """``await x``, ``(y := x)``, ``x[...]`` style nodes with one expression inside."""
        if isinstance(node, cst.NamedExpr):
            self._expr(node.target, twin.target)
            self._expr(node.value, twin.value)
        else:
            self._expr(node.expression, twin.value)

    def _check_leaves(self) -> None:
        """Every paired name, number and string is its text: else the trees were paired wrongly."""
        if not self._leaves:
            return
        if self._lines is None:
            self._lines = _python_lines(self.text)
        for (line, column, end_line, end_column), text in self._leaves:
            if line != end_line:
                if "\n" not in text and "\r" not in text:
                    raise Mismatch
                continue
            if self._lines[line - 1][column:end_column] != text:
                raise Mismatch


def _parenthesised_apart(node: cst.BaseExpression, side: str) -> bool:
    """Parentheses on that side of ``node`` that its ast range leaves out (a tuple's one pair it keeps)."""
    parentheses = getattr(node, side)
    if isinstance(node, cst.Tuple):
        return len(parentheses) > 1
    return bool(parentheses)


def _python_lines(text: str) -> List[str]:
    """The text's lines as Python splits them (``\\r\\n``, ``\\r``, ``\\n``), ends removed."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _start(node: ast.AST) -> Tuple[int, int]:
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def _leaf_text(node: cst.CSTNode) -> str:
    return node.value  # type: ignore[attr-defined]


#: libcst leaves whose text is their range's text (checked after pairing).
_LEAVES = frozenset((cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString))

#: libcst expression type -> (the ast types it pairs with, the method that pairs their children, whether it
#: can anchor: its code starts where its ast range does).
_EXPRESSIONS = {
    cst.Name: ((ast.Name, ast.Constant), None, False),
    cst.Integer: (ast.Constant, None, False),
    cst.Float: (ast.Constant, None, False),
    cst.Imaginary: (ast.Constant, None, False),
    cst.SimpleString: (ast.Constant, None, False),
    cst.Ellipsis: (ast.Constant, None, False),
    cst.ConcatenatedString: ((ast.Constant, ast.JoinedStr), AstPositions._parts_unpaired, True),
    cst.FormattedString: (ast.JoinedStr, AstPositions._parts_unpaired, True),
    cst.Attribute: (ast.Attribute, AstPositions._attribute, True),
    cst.Call: (ast.Call, AstPositions._call, True),
    cst.Subscript: (ast.Subscript, AstPositions._subscript, True),
    cst.BinaryOperation: (ast.BinOp, AstPositions._binary, True),
    cst.UnaryOperation: (ast.UnaryOp, AstPositions._unary, True),
    cst.BooleanOperation: (ast.BoolOp, AstPositions._boolean, True),
    cst.Comparison: (ast.Compare, AstPositions._comparison, True),
    cst.IfExp: (ast.IfExp, AstPositions._ifexp, True),
    cst.List: (ast.List, AstPositions._sequence, True),
    cst.Tuple: (ast.Tuple, AstPositions._sequence, False),
    cst.Set: (ast.Set, AstPositions._sequence, True),
    cst.Dict: (ast.Dict, AstPositions._dict, True),
    cst.ListComp: (ast.ListComp, AstPositions._comprehension, True),
    cst.SetComp: (ast.SetComp, AstPositions._comprehension, True),
    cst.GeneratorExp: (ast.GeneratorExp, AstPositions._comprehension, False),
    cst.DictComp: (ast.DictComp, AstPositions._comprehension, True),
    cst.Lambda: (ast.Lambda, AstPositions._lambda, True),
    cst.Await: (ast.Await, AstPositions._single, True),
    cst.NamedExpr: (ast.NamedExpr, AstPositions._single, True),
}

#: ast statement type -> the libcst statement type of the same statement.
_SAME_STATEMENT = {
    ast.Expr: "Expr", ast.Assign: "Assign", ast.AnnAssign: "AnnAssign", ast.AugAssign: "AugAssign",
    ast.Return: "Return", ast.Raise: "Raise", ast.Assert: "Assert", ast.Delete: "Del", ast.Pass: "Pass",
    ast.Break: "Break", ast.Continue: "Continue", ast.Import: "Import", ast.ImportFrom: "ImportFrom",
    ast.Global: "Global", ast.Nonlocal: "Nonlocal",
    ast.If: "If", ast.For: "For", ast.AsyncFor: "For", ast.While: "While", ast.With: "With", ast.AsyncWith: "With",
    ast.FunctionDef: "FunctionDef", ast.AsyncFunctionDef: "FunctionDef", ast.ClassDef: "ClassDef",
    ast.Try: "Try",
}
for _name in ("Match", "TryStar", "TypeAlias"):
    if hasattr(ast, _name):
        _SAME_STATEMENT[getattr(ast, _name)] = _name
#: Small statements with no expression a rule records.
_NO_EXPRESSIONS = (cst.Pass, cst.Break, cst.Continue, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)
