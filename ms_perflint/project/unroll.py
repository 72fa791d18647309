"""Run a network's constructor with the sizes it is given, to see what each of its calls builds.

A static count reads ``Conv2d(cngf, cngf // 2, 4)`` once, with ``cngf`` at its first value. A DCGAN generator
builds its layers in ``while csize < isize // 2: ...; cngf = cngf // 2``, and a Darknet doubles ``in_channels``
with ``in_channels *= 2`` between stages: the channels of each layer are only known by running the code. This
module runs the source of one function (kept in its facts, see ``Scope.program``) on the values of its
parameters, with plain integer arithmetic, loops over known ranges and lists, and known tests, and records the
arguments of every call each time it is made. Anything it cannot follow -- a test or a ``for`` over a value it
does not know, a statement it does not model, a run too long -- stops the run, and the caller keeps its static
count: an unrolled run is used only when it ran the function from start to end.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Set, Tuple


class _Unknown:
    """A value the run does not know (a call's result, a parameter passed something unknown)."""

    _instance: Optional["_Unknown"] = None

    def __new__(cls) -> "_Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
#: Marks the place of a ``*iterable`` argument: positions from there on are not known.
STARRED = object()

class Execution(NamedTuple):
    """One execution of a call: its positional arguments (``STARRED`` where a ``*x`` stood), its keywords, and what
    the called name held when it is a local name (a class handed in as ``block``), else None."""

    args: Tuple[Any, ...]
    keywords: Dict[str, Any]
    callee: Any = None


#: Executions by the offset of the call in the file's text (the start of the called expression).
Executions = Dict[int, List[Execution]]

_STEPS = 20_000  # statements and loop passes one run may take
_ITEMS = 10_000  # the longest list a run builds
_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Div: operator.truediv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
_COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_BUILTINS: Dict[str, Callable[..., Any]] = {
    "range": range, "len": len, "int": int, "float": float, "min": min, "max": max, "abs": abs, "round": round,
    "sum": sum, "list": list, "tuple": tuple, "enumerate": lambda x, s=0: list(enumerate(x, s)),
    "zip": lambda *x: list(zip(*x)), "reversed": lambda x: list(reversed(x)), "sorted": sorted,
    "math.ceil": math.ceil, "math.floor": math.floor, "math.sqrt": math.sqrt, "bool": bool, "str": str,
}
_LIST_METHODS = {"append", "extend", "insert"}


class _Stop(Exception):
    """The run cannot be followed."""


class _Return(Exception):
    def __init__(self, value: Any = None) -> None:
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class Unrolled:
    """What one run saw: each call's executions, and the ``self.<method>(...)`` calls it ran inline (their own calls'
    executions are among ``executions``), with the offsets the inlined methods' sources start at."""

    executions: Executions = field(default_factory=dict)
    inlined_calls: Set[int] = field(default_factory=set)
    inlined_programs: Set[int] = field(default_factory=set)


#: ``method(name)`` -> the source and start offset of a method of the same class, to run inline, or None.
Methods = Callable[[str], Optional[Tuple[str, int]]]


def unroll(program: str, start: int, bound: Dict[str, Any], lookup: Callable[[str], Any],
           member: Callable[[Any, str], Any] = lambda value, name: UNKNOWN,
           method: Methods = lambda name: None) -> Optional[Unrolled]:
    """Run the function whose source is ``program`` (at offset ``start`` of its file) and say, per call, the
    arguments of each execution; None when the run could not be followed from start to end.

    ``bound`` holds the parameters the caller's values are known for (``UNKNOWN`` for one passed something
    unknown; a parameter not in it takes its default). ``lookup`` gives the value of a dotted name the function
    does not assign (``self.width``, a module constant, ``Darknet.depth2block``), ``UNKNOWN`` when not known;
    ``member`` an attribute of a value the caller bound (``block.expansion`` of a class handed in). A
    ``self.<name>(...)`` call runs inline when ``method(name)`` gives its source: the attributes it sets on
    ``self`` (``self.inplanes = planes * block.expansion`` in a ResNet's ``_make_layer``) are seen by what follows.
    """
    parsed = _parsed(program)
    if parsed is None:
        return None
    result = Unrolled()
    run = _Run(parsed, program, start, lookup, member, method, result, {}, [_STEPS])
    try:
        run.call(parsed[0], bound)
    except (_Stop, _Break, _Continue, RecursionError):
        return None
    except Exception:  # noqa: BLE001 - arithmetic on the user's values (ZeroDivisionError, TypeError...)
        return None
    return result


@functools.lru_cache(maxsize=4096)
def _parsed(program: str) -> Optional[Tuple[ast.FunctionDef, Tuple[str, ...], Tuple[int, ...]]]:
    """The function a kept source defines (a method's source is indented: it is parsed inside an ``if``), with the
    source's lines and where each starts; parsed once however often a count runs it (the tree is only read)."""
    source = "if 1:\n" + program if program[:1].isspace() else program
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return None
    function = tree.body[0].body[0] if program[:1].isspace() else tree.body[0]  # type: ignore[attr-defined]
    if not isinstance(function, ast.FunctionDef):
        return None
    # ast counts lines at "\n" (and "\r\n"/"\r"); str.splitlines also splits at form feeds and U+2028
    lines = [line + "\n" for line in source.split("\n")]
    lines[-1] = lines[-1][:-1]
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return function, tuple(lines), tuple(starts)


_INLINE_DEPTH = 8


class _Run:
    """The state of one run of one function: its local names; the ``self`` attributes, the calls made so far and
    the steps left are shared with the methods it runs inline."""

    def __init__(self, parsed: Tuple[ast.FunctionDef, Tuple[str, ...], Tuple[int, ...]], program: str, start: int,
                 lookup: Callable[[str], Any], member: Callable[[Any, str], Any], method: Methods, result: Unrolled,
                 attributes: Dict[str, Any], steps: List[int], depth: int = 0) -> None:
        _, self.lines, self.line_starts = parsed
        self.offset = start - (len("if 1:\n") if program[:1].isspace() else 0)
        self.lookup, self.member, self.method = lookup, member, method
        self.result = result
        self.executions = result.executions
        self.names: Dict[str, Any] = {}
        self.attributes = attributes
        self._steps = steps
        self.depth = depth

    @property
    def steps(self) -> int:
        return self._steps[0]

    @steps.setter
    def steps(self, value: int) -> None:
        self._steps[0] = value

    def call(self, function: ast.FunctionDef, bound: Dict[str, Any]) -> Any:
        """Run the function's body with its parameters bound; what it returns."""
        self.bind(function.args, bound)
        try:
            self.block(function.body)
        except _Return as returned:
            return returned.value
        return None

    # --- parameters -------------------------------------------------------------------------------------

    def bind(self, args: ast.arguments, bound: Dict[str, Any]) -> None:
        positional = [*args.posonlyargs, *args.args]
        defaults: Dict[str, Optional[ast.expr]] = dict.fromkeys(a.arg for a in (*positional, *args.kwonlyargs))
        for parameter, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
            defaults[parameter.arg] = default
        for parameter, default in zip(args.kwonlyargs, args.kw_defaults):
            defaults[parameter.arg] = default
        for name, default in defaults.items():
            if name in bound:
                self.names[name] = bound[name]
            elif default is not None:
                self.names[name] = self.value(default)
            else:
                self.names[name] = UNKNOWN
        for star in (args.vararg, args.kwarg):
            if star is not None:
                self.names[star.arg] = UNKNOWN
        if positional and positional[0].arg == "self":
            self.names["self"] = _SELF

    # --- statements -------------------------------------------------------------------------------------

    def block(self, statements: List[ast.stmt]) -> None:
        for statement in statements:
            self.steps -= 1
            if self.steps <= 0:
                raise _Stop
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        handler = getattr(self, f"_{type(node).__name__}", None)
        if handler is None:
            raise _Stop
        handler(node)

    def _Expr(self, node: ast.Expr) -> None:
        self.value(node.value)

    def _Assign(self, node: ast.Assign) -> None:
        value = self.value(node.value)
        for target in node.targets:
            self.assign(target, value)

    def _AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.assign(node.target, self.value(node.value))

    def _AugAssign(self, node: ast.AugAssign) -> None:
        current = self.value(node.target)
        self.assign(node.target, self.binary(node.op, current, self.value(node.value)))

    def _If(self, node: ast.If) -> None:
        test = self.value(node.test)
        if test is UNKNOWN:
            # ``if x not in allowed: raise ValueError(...)``: an arm that ends in ``raise`` is not the run followed.
            if _raises(node.body):
                self.block(node.orelse)
            elif node.orelse and _raises(node.orelse):
                self.block(node.body)
            elif _matters(node):
                raise _Stop  # either arm may be the one that runs, and they build or bind differently
            return
        self.block(node.body if test else node.orelse)

    def _While(self, node: ast.While) -> None:
        while True:
            test = self.value(node.test)
            if test is UNKNOWN:
                raise _Stop
            if not test:
                self.block(node.orelse)
                return
            if self._pass(node.body):
                return

    def _For(self, node: ast.For) -> None:
        items = self.value(node.iter)
        if not isinstance(items, (list, tuple, range, dict, str)):
            raise _Stop
        for item in list(items):
            self.assign(node.target, item)
            if self._pass(node.body):
                return
        self.block(node.orelse)

    def _pass(self, body: List[ast.stmt]) -> bool:
        """One pass of a loop body; True when it breaks out of the loop."""
        self.steps -= 1
        if self.steps <= 0:
            raise _Stop
        try:
            self.block(body)
        except _Break:
            return True
        except _Continue:
            pass
        return False

    def _With(self, node: ast.With) -> None:
        for item in node.items:
            self.value(item.context_expr)
        self.block(node.body)

    def _Try(self, node: ast.Try) -> None:
        if any(_matters(handler) for handler in node.handlers):
            raise _Stop  # ``try: import apex; fused = True`` / ``except ImportError: fused = False``
        self.block(node.body)
        self.block(node.orelse)
        self.block(node.finalbody)

    def _Return(self, node: ast.Return) -> None:
        raise _Return(self.value(node.value) if node.value is not None else None)

    def _Break(self, node: ast.Break) -> None:
        raise _Break

    def _Continue(self, node: ast.Continue) -> None:
        raise _Continue

    def _Raise(self, node: ast.Raise) -> None:
        raise _Stop  # the function does not run to its end this way

    def _Pass(self, node: ast.stmt) -> None:
        pass

    _Assert = _Global = _Nonlocal = _Delete = _Import = _ImportFrom = _Pass
    _FunctionDef = _AsyncFunctionDef = _ClassDef = _Pass  # a definition runs nothing yet

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.names[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(value) if isinstance(value, (list, tuple)) and len(value) == len(target.elts) else None
            for position, element in enumerate(target.elts):
                self.assign(element, items[position] if items is not None else UNKNOWN)
        elif isinstance(target, ast.Attribute):
            dotted = _dotted(target)
            if dotted is not None and dotted.startswith("self.") and self.names.get("self") is _SELF:
                self.attributes[dotted] = value
            elif dotted is not None:
                self.names[dotted] = value
        elif isinstance(target, ast.Subscript):
            container, key = self.value(target.value), self.value(target.slice)
            if isinstance(container, (list, dict)) and key is not UNKNOWN:
                try:
                    container[key] = value
                except (IndexError, TypeError):
                    raise _Stop from None

    # --- expressions ------------------------------------------------------------------------------------

    def value(self, node: ast.expr) -> Any:
        handler = getattr(self, f"_v_{type(node).__name__}", None)
        if handler is not None:
            return handler(node)
        if any(isinstance(inner, ast.Call) for inner in ast.walk(node)):
            raise _Stop  # a lambda, a dict comprehension...: calls the run would not see
        return UNKNOWN

    def _v_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _v_Name(self, node: ast.Name) -> Any:
        if node.id in self.names:
            return self.names[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        return self.lookup(node.id)

    def _v_Attribute(self, node: ast.Attribute) -> Any:
        dotted = _dotted(node)
        if dotted is not None:
            if dotted in self.attributes and self.names.get("self") is _SELF:
                return self.attributes[dotted]
            if dotted in self.names:
                return self.names[dotted]
            root, _, rest = dotted.partition(".")
            if root in self.names and root != "self":
                held = self.names[root]
                return UNKNOWN if held is UNKNOWN or "." in rest else self.member(held, rest)
            return self.lookup(dotted)
        self.value(node.value)
        return UNKNOWN

    def _v_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self._elements(node.elts))

    def _v_List(self, node: ast.List) -> Any:
        return self._elements(node.elts)

    def _elements(self, elements: List[ast.expr]) -> List[Any]:
        result: List[Any] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                inner = self.value(element.value)
                if not isinstance(inner, (list, tuple, range)):
                    return [UNKNOWN]  # its length is not known either
                result.extend(inner)
            else:
                result.append(self.value(element))
        return result

    def _v_Dict(self, node: ast.Dict) -> Any:
        result = {}
        for key, item in zip(node.keys, node.values):
            value = self.value(item)
            if key is None:
                return UNKNOWN
            known = self.value(key)
            if known is UNKNOWN:
                return UNKNOWN
            result[known] = value
        return result

    def _v_BinOp(self, node: ast.BinOp) -> Any:
        return self.binary(node.op, self.value(node.left), self.value(node.right))

    def binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        function = _BINARY.get(type(op))
        if function is None or left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if isinstance(left, (list, tuple)) and isinstance(op, ast.Add) and type(right) is type(left):
            if len(left) + len(right) > _ITEMS:
                raise _Stop
            return left + right
        if isinstance(op, ast.Mult) and isinstance(left, (list, tuple)) != isinstance(right, (list, tuple)):
            items, times = (left, right) if isinstance(left, (list, tuple)) else (right, left)
            if type(times) is int and 0 <= times * len(items) <= _ITEMS:
                return items * times  # ``[stride] + [1] * (blocks - 1)``
            return UNKNOWN
        if not _numbers(left, right):
            return UNKNOWN
        if isinstance(op, ast.Pow) and isinstance(right, int) and abs(right) > 64:
            return UNKNOWN
        result = function(left, right)
        if isinstance(result, int) and result.bit_length() > 64:
            raise _Stop  # ``x = x * x`` in a loop: no layer is that wide
        return result

    def _v_UnaryOp(self, node: ast.UnaryOp) -> Any:
        operand = self.value(node.operand)
        if operand is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Not):
            return not operand
        if not _numbers(operand):
            return UNKNOWN
        return -operand if isinstance(node.op, ast.USub) else operand if isinstance(node.op, ast.UAdd) else UNKNOWN

    def _v_BoolOp(self, node: ast.BoolOp) -> Any:
        is_and = isinstance(node.op, ast.And)
        result: Any = None
        for operand in node.values:
            result = self.value(operand)
            if result is UNKNOWN:
                return UNKNOWN
            if bool(result) != is_and:
                return result
        return result

    def _v_Compare(self, node: ast.Compare) -> Any:
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            if isinstance(op, (ast.Is, ast.IsNot)) and not (left is None or right is None):
                return UNKNOWN
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:
                return UNKNOWN
            left = right
        return True

    def _v_IfExp(self, node: ast.IfExp) -> Any:
        test = self.value(node.test)
        if test is UNKNOWN:
            return UNKNOWN
        return self.value(node.body if test else node.orelse)

    def _v_Subscript(self, node: ast.Subscript) -> Any:
        container, key = self.value(node.value), self.value(node.slice)
        if container is UNKNOWN or key is UNKNOWN or not isinstance(container, (list, tuple, dict, range, str)):
            return UNKNOWN
        try:
            return container[key]
        except (IndexError, KeyError, TypeError):
            return UNKNOWN

    def _v_Slice(self, node: ast.Slice) -> Any:
        parts = [self.value(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        return UNKNOWN if UNKNOWN in parts else slice(*parts)

    def _v_ListComp(self, node: ast.ListComp) -> Any:
        return self._comprehension(node.generators, lambda: self.value(node.elt))

    _v_GeneratorExp = _v_SetComp = _v_ListComp

    def _comprehension(self, generators: List[ast.comprehension], element: Callable[[], Any]) -> Any:
        saved = dict(self.names)
        result: List[Any] = []
        try:
            self._generate(generators, element, result)
        finally:
            kept = {k: v for k, v in self.names.items() if k in saved}
            self.names = {**saved, **kept}
        return result

    def _generate(self, generators: List[ast.comprehension], element: Callable[[], Any], result: List[Any]) -> None:
        first, rest = generators[0], generators[1:]
        items = self.value(first.iter)
        if not isinstance(items, (list, tuple, range, dict, str)):
            raise _Stop
        for item in list(items):
            self.steps -= 1
            if self.steps <= 0:
                raise _Stop
            self.assign(first.target, item)
            tests = [self.value(test) for test in first.ifs]
            if UNKNOWN in tests:
                raise _Stop
            if all(tests):
                if rest:
                    self._generate(rest, element, result)
                else:
                    result.append(element())

    def _v_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Attribute) and not isinstance(node.func.value, (ast.Name, ast.Attribute)):
            # ``nn.Conv2d(...).to_float(...)``, ``make()[0](x)``: the receiver's calls run; the chained call shares
            # its start with them, so it is not recorded (its arguments would be taken for theirs)
            self.value(node.func.value)
            for argument in (*node.args, *(k.value for k in node.keywords)):
                self.value(argument.value if isinstance(argument, ast.Starred) else argument)
            return UNKNOWN
        args: List[Any] = []
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                self.value(argument.value)
                args.append(STARRED)
            else:
                args.append(self.value(argument))
        keywords = {}
        for keyword in node.keywords:
            value = self.value(keyword.value)
            if keyword.arg is not None:
                keywords[keyword.arg] = value
        offset = self._offset(node)
        callee = self.names.get(node.func.id) if isinstance(node.func, ast.Name) else None
        self.executions.setdefault(offset, []).append(Execution(tuple(args), keywords, callee))
        inlined = self._inline(node.func, args, keywords)
        if inlined is not _NOT_INLINED:
            self.result.inlined_calls.add(offset)
            return inlined
        return self._result(node.func, args, keywords)

    def _inline(self, func: ast.expr, args: List[Any], keywords: Dict[str, Any]) -> Any:
        """Run ``self.<method>(...)`` here, when its source is known; ``_NOT_INLINED`` otherwise."""
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
                and self.names.get("self") is _SELF) or self.depth >= _INLINE_DEPTH or STARRED in args:
            return _NOT_INLINED
        found = self.method(func.attr)
        parsed = _parsed(found[0]) if found is not None else None
        if parsed is None:
            return _NOT_INLINED
        program, start = found  # type: ignore[misc]
        function = parsed[0]
        parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)][1:]
        if len(args) > len(parameters):
            return _NOT_INLINED
        bound = {**dict(zip(parameters, args)), **keywords}
        self.result.inlined_programs.add(start)
        inner = _Run(parsed, program, start, self.lookup, self.member, self.method, self.result, self.attributes,
                     self._steps, self.depth + 1)
        return inner.call(function, bound)

    def _result(self, func: ast.expr, args: List[Any], keywords: Dict[str, Any]) -> Any:
        """What a call returns, for the builtins sizes are computed with; ``UNKNOWN`` for any other call."""
        if isinstance(func, ast.Attribute) and func.attr in _LIST_METHODS:
            receiver = self.value(func.value)
            if isinstance(receiver, list) and STARRED not in args and not keywords:
                if len(receiver) >= _ITEMS:
                    raise _Stop
                getattr(receiver, func.attr)(*args)
            return None
        dotted = _dotted(func)
        builtin = _BUILTINS.get(dotted) if dotted is not None and dotted not in self.names else None
        if builtin is None or STARRED in args or UNKNOWN in args or UNKNOWN in keywords.values():
            return UNKNOWN
        try:
            result = builtin(*args, **keywords)
        except Exception:  # noqa: BLE001 - the user's arguments
            return UNKNOWN
        if isinstance(result, range) and len(result) > 100_000:
            raise _Stop
        return result

    def _offset(self, node: ast.Call) -> int:
        """Where the call's expression starts in the file (ast columns are UTF-8 bytes)."""
        line = self.lines[node.lineno - 1]
        column = len(line.encode("utf-8")[:node.col_offset].decode("utf-8", "replace"))
        return self.offset + self.line_starts[node.lineno - 1] + column


_NOT_INLINED = object()


class _Self:
    def __repr__(self) -> str:
        return "self"


_SELF = _Self()


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _dotted(node: ast.expr) -> Optional[str]:
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _raises(body: List[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], ast.Raise)


def _matters(node: ast.AST) -> bool:
    """The statement makes a call, assigns a name or leaves a loop or the function: an unknown test over it changes
    what the run builds."""
    return any(isinstance(n, (ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Break, ast.Continue,
                              ast.Return, ast.Raise)) for n in ast.walk(node))
