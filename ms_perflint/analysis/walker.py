"""A read-only traversal of a libcst tree, about five times faster than ``Module.visit``.

``Module.visit`` with a ``CSTVisitor`` rebuilds every node it passes (each
``_visit_and_replace_children`` constructs and validates a copy, then throws it
away). The engine only reads the tree, so :func:`walk` calls the visitor's
``on_visit``/``on_leave`` for exactly the nodes ``visit`` would, in exactly the
same order, without rebuilding anything.

The order of a node type's children is learnt from libcst itself: the first time a
type is met, its ``_visit_and_replace_children`` runs once with a recorder that
notes which fields are visited, and in which order (see :func:`child_fields`).
``tests/test_walker.py`` checks the event sequence against ``Module.visit`` on
every fixture and on a module that uses every kind of syntax.
``on_visit_attribute``/``on_leave_attribute`` are not called: the engine's
visitor ignores them.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import Dict, FrozenSet, Iterator, List, Tuple

import libcst as cst

#: Field names visited for each node type, in libcst's visiting order.
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}
#: Types whose visited fields depend on which of these fields are None (f-string format specs).
_NONE_DEPENDENT: Dict[type, Tuple[str, ...]] = {}
#: Visiting order of those types, by (type, which of their None-dependent fields are None).
_BY_NONE_PATTERN: Dict[Tuple[type, Tuple[bool, ...]], Tuple[str, ...]] = {}


class _FieldRecorder(cst.CSTVisitor):
    """Notes the fields of one node that libcst visits, without descending further."""

    def __init__(self, parent: cst.CSTNode) -> None:
        super().__init__()
        self.parent = parent
        self.fields: List[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.parent:
            self.fields.append(attribute)


def _record(node: cst.CSTNode) -> Tuple[str, ...]:
    recorder = _FieldRecorder(node)
    node._visit_and_replace_children(recorder)  # noqa: SLF001 -- the order libcst itself uses
    return tuple(recorder.fields)


def child_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """The names of the fields of ``node`` that hold child nodes, in libcst's visiting order.

    libcst visits the same fields of a type every time, whether they hold a node or
    not -- except a few fields it skips when they are None (``format_spec`` of an
    f-string expression). A field that is None and was not visited the first time a
    type is seen is such a field; those types are keyed by which of them are None.
    """
    node_type = type(node)
    fields = _CHILD_FIELDS.get(node_type)
    if fields is not None:
        return fields
    dependent = _NONE_DEPENDENT.get(node_type)
    if dependent is None:
        fields = _record(node)
        dependent = tuple(
            field.name
            for field in dataclasses.fields(node)
            if field.name not in fields and getattr(node, field.name) is None
        )
        _NONE_DEPENDENT[node_type] = dependent
        if not dependent:
            _CHILD_FIELDS[node_type] = fields
            return fields
    pattern = (node_type, tuple(getattr(node, name) is None for name in dependent))
    fields = _BY_NONE_PATTERN.get(pattern)
    if fields is None:
        fields = _BY_NONE_PATTERN[pattern] = _record(node)
    return fields


def _layout_types() -> FrozenSet[type]:
    """Node types that hold only layout and punctuation: whitespace, comments, commas, brackets, operators."""
    bases = (cst.BaseParenthesizableWhitespace, cst.BaseBinaryOp, cst.BaseUnaryOp, cst.BaseBooleanOp,
             cst.BaseCompOp, cst.BaseAugOp)
    # Through each class's MRO, not issubclass: libcst's bases are ABCs, and ABCMeta's subclass checks over
    # every libcst class cost about 15 ms of each run's start-up.
    found = {value for value in vars(cst).values()
             if isinstance(value, type) and any(base in value.__mro__ for base in bases)}
    found.update((cst.Newline, cst.TrailingWhitespace, cst.EmptyLine, cst.Comment, cst.Comma, cst.Dot, cst.Colon,
                  cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
                  cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.ImportStar))
    return frozenset(found)


#: Node types a reader of code (not of layout) never needs: :func:`walk` with ``skip_layout`` passes them by.
LAYOUT_TYPES = _layout_types()


#: :func:`child_fields` less the layout fields, for the types whose fields never vary.
_CONTENT_FIELDS: Dict[type, Tuple[str, ...]] = {}


def content_fields(node: cst.CSTNode) -> Tuple[str, ...]:
    """:func:`child_fields` of ``node`` without the fields declared to hold only :data:`LAYOUT_TYPES`."""
    node_type = type(node)
    fields = _CONTENT_FIELDS.get(node_type)
    if fields is None:
        layout = _declared_layout(node_type)
        fields = tuple(name for name in child_fields(node) if name not in layout)
        if node_type in _CHILD_FIELDS:  # the same fields for every node of the type
            _CONTENT_FIELDS[node_type] = fields
    return fields


@functools.lru_cache(maxsize=None)
def _declared_layout(node_type: type) -> FrozenSet[str]:
    """The fields of a libcst node class whose type annotation admits nothing but layout (or absence): more than
    half of all fields (``whitespace_after_func``, ``lpar``, ``comma``). A walk that skips layout never reads them."""
    # The dataclass fields' own types (libcst's annotations are evaluated): typing.get_type_hints would cost a few
    # milliseconds of every run's start-up. An annotation kept as a string holds no class: the field is looked at.
    absent = (type(None), cst.MaybeSentinel)
    return frozenset(field.name for field in dataclasses.fields(node_type)
                     if all(kind in absent or kind in LAYOUT_TYPES for kind in _annotated_types(field.type)))


def _annotated_types(hint: object) -> List[object]:
    """The types a (possibly nested) annotation names: ``Sequence[Union[Comma, MaybeSentinel]]`` -> both."""
    arguments = typing.get_args(hint)
    if not arguments:
        return [hint]
    return [kind for argument in arguments for kind in _annotated_types(argument)]


_NODE, _SEQUENCE, _OTHER = "node", "sequence", "other"
#: What a field's value is, by its type: libcst's node classes are ABCs, and ``isinstance`` against one costs a
#: call into ``ABCMeta`` for every field of every node.
_VALUE_KINDS: Dict[type, str] = {}


def _value_kind(value: object) -> str:
    kind = _NODE if isinstance(value, cst.CSTNode) else _SEQUENCE if isinstance(value, (tuple, list)) else _OTHER
    _VALUE_KINDS[type(value)] = kind
    return kind


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The child nodes of ``node``, in libcst's visiting order (``node.children`` runs a visitor over the node)."""
    kinds = _VALUE_KINDS
    for name in child_fields(node):
        value = getattr(node, name)
        kind = kinds.get(type(value)) or _value_kind(value)
        if kind is _NODE:
            yield value
        elif kind is _SEQUENCE:
            yield from value


def walk(root: cst.CSTNode, visitor: cst.CSTVisitor, skip_layout: bool = False) -> None:
    """Call ``visitor.on_visit``/``on_leave`` as ``root.visit(visitor)`` would, without copying nodes.

    Children are skipped when ``on_visit`` returns False, as in libcst. With
    ``skip_layout`` the :data:`LAYOUT_TYPES` nodes (about half of a module's nodes:
    whitespace, punctuation) get no events at all.
    """
    on_visit = visitor.on_visit
    on_leave = visitor.on_leave
    known = _CONTENT_FIELDS if skip_layout else _CHILD_FIELDS
    fields_of = content_fields if skip_layout else child_fields
    kinds = _VALUE_KINDS
    skipped = LAYOUT_TYPES if skip_layout else frozenset()

    def visit(node: cst.CSTNode) -> None:  # children(), inlined: this runs for every node of every file
        if on_visit(node):
            fields = known.get(type(node))
            if fields is None:
                fields = fields_of(node)
            for name in fields:
                value = getattr(node, name)
                kind = kinds.get(type(value))
                if kind is None:
                    kind = _value_kind(value)
                if kind is _NODE:
                    if type(value) not in skipped:
                        visit(value)
                elif kind is _SEQUENCE:
                    for child in value:
                        if type(child) not in skipped:
                            visit(child)
                # None or MaybeSentinel: an absent optional child.
        on_leave(node)

    try:
        visit(root)
    finally:
        # ``visit`` refers to itself through its closure: emptying the cell breaks that cycle, which would
        # otherwise keep the visitor, and the tree it holds, alive until the garbage collector runs.
        del visit
