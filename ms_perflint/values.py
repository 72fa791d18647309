"""Static values of expressions: what a dimension, class count or flag is known to be.

RULES.md: a value is known when it is a literal, a constant expression
(``2 * 256``), a module-level constant assigned once, or a parameter default.
Anything else is :data:`UNKNOWN`, and unknown values are never reported.
"""

from __future__ import annotations

import operator
from typing import Callable, Dict, Mapping, Optional, Sequence

import libcst as cst

from ms_perflint.walker import walk


class _Unknown:
    """The value of an expression the linter cannot prove."""

    _instance: Optional["_Unknown"] = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Unknown()

_BINARY_OPERATORS: Dict[type, Callable[[object, object], object]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
}

#: A name lookup: returns the expression a name stands for, or None when it is not a constant.
NameLookup = Callable[[str], Optional[cst.BaseExpression]]


def module_constants(module: cst.Module) -> Dict[str, cst.BaseExpression]:
    """Names assigned exactly once at module level (``NUM_CLASSES = 10``), with their value.

    A name that is assigned twice, augmented, or bound any other way at module
    level is left out: its value depends on control flow.
    """
    seen: Dict[str, Optional[cst.BaseExpression]] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            _forget_compound_bindings(statement, seen)
            continue
        for small in statement.body:
            _record_assignment(small, seen)
    return {name: value for name, value in seen.items() if value is not None}


def _record_assignment(small: cst.BaseSmallStatement, seen: Dict[str, Optional[cst.BaseExpression]]) -> None:
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Name):
            seen[target.value] = None if target.value in seen else small.value
            return
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value is not None:
        name = small.target.value
        seen[name] = None if name in seen else small.value
        return
    if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        for target in targets:
            for name in _bound_names(target):
                seen[name] = None


def _forget_compound_bindings(statement: cst.BaseCompoundStatement, seen: Dict[str, Optional[cst.BaseExpression]]) -> None:
    """An assignment inside ``if``/``for``/``try`` at module level makes the name non-constant."""

    class _Collector(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            for name in _bound_names(node.target):
                seen[name] = None

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            for name in _bound_names(node.target):
                seen[name] = None

    if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        seen[statement.name.value] = None
        return
    walk(statement, _Collector())  # read-only: cheaper than statement.visit, which copies every node


def _bound_names(target: cst.BaseExpression) -> Sequence[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        names = []
        for element in target.elements:
            names.extend(_bound_names(element.value))
        return names
    return []


def parameter_defaults(function: cst.FunctionDef) -> Dict[str, cst.BaseExpression]:
    """``{"num_classes": <10>}`` for ``def f(self, num_classes=10)``."""
    params = function.params
    defaults: Dict[str, cst.BaseExpression] = {}
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is not None:
            defaults[param.name.value] = param.default
    return defaults


def evaluate(node: Optional[cst.BaseExpression], lookup: Optional[NameLookup] = None, _depth: int = 0) -> object:
    """The Python value of ``node`` if it is statically known, else :data:`UNKNOWN`.

    Knows ints, floats, strings, ``True``/``False``/``None``, unary minus,
    arithmetic, tuples/lists of known values, and names that ``lookup`` maps
    to another expression (module constants, parameter defaults).
    """
    if node is None or _depth > 20:
        return UNKNOWN
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return UNKNOWN
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else UNKNOWN
    if isinstance(node, cst.Name):
        return _evaluate_name(node.value, lookup, _depth)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        value = evaluate(node.expression, lookup, _depth + 1)
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else UNKNOWN
    if isinstance(node, cst.BinaryOperation):
        return _evaluate_binary(node, lookup, _depth)
    if isinstance(node, (cst.Tuple, cst.List)):
        values = [evaluate(element.value, lookup, _depth + 1) for element in node.elements]
        if any(value is UNKNOWN for value in values) or any(isinstance(e, cst.StarredElement) for e in node.elements):
            return UNKNOWN
        return tuple(values)
    return UNKNOWN


_NAMED_CONSTANTS: Mapping[str, object] = {"True": True, "False": False, "None": None}


def _evaluate_name(name: str, lookup: Optional[NameLookup], depth: int) -> object:
    if name in _NAMED_CONSTANTS:
        return _NAMED_CONSTANTS[name]
    if lookup is None:
        return UNKNOWN
    expression = lookup(name)
    if expression is None:
        return UNKNOWN
    return evaluate(expression, lookup, depth + 1)


def _evaluate_binary(node: cst.BinaryOperation, lookup: Optional[NameLookup], depth: int) -> object:
    function = _BINARY_OPERATORS.get(type(node.operator))
    if function is None:
        return UNKNOWN
    left = evaluate(node.left, lookup, depth + 1)
    right = evaluate(node.right, lookup, depth + 1)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
        return UNKNOWN
    if function is operator.pow and abs(right) > 64:  # type: ignore[arg-type]
        return UNKNOWN  # 2 ** 10 ** 9 would hang the linter
    try:
        result = function(left, right)
    except (ArithmeticError, ValueError):
        return UNKNOWN
    if isinstance(result, int) and abs(result) > 1 << 64:
        return UNKNOWN
    return result
