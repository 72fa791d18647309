"""Value inference across modules with astroid, for the sites the per-file view cannot decide.

The per-file engine knows literals, constant expressions, module constants and
parameter defaults of the file itself (:mod:`ms_perflint.values`). A real
project often computes a class count or an AMP level elsewhere:

- a module constant imported from another module (``from src.consts import NUM_CLASSES``),
- a dict / EasyDict config (``config = ed({"class_num": 1000})``; ``config.class_num`` or ``config["class_num"]``),
- a dataclass or plain class holding defaults (``Config().class_num``, ``Config.class_num``),
- an argparse Namespace (``args = get_args()``; ``args.class_num`` -> the ``add_argument`` default),
- a module used as a config (``import config as cfg; cfg.class_num``).

astroid is imported only when a question is asked (about 0.05 s plus the
modules it reads), answers are cached per index, and a value counts as known
only when every inferred candidate is the same literal -- anything else is
unknown, and unknown values are never reported.
"""

from __future__ import annotations

import ast
import contextlib
import os
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

#: How deep assignments and calls are followed before giving up.
MAX_DEPTH = 6
ARGPARSE_METHODS = ("parse_args", "parse_known_args")
#: The project whose modules astroid's process-wide cache holds.
_ASTROID_ROOT: Optional[str] = None


@dataclass(frozen=True)
class Inferred:
    """A known value and where its literal is written (``path`` absolute, 1-based line, 0-based column)."""

    value: Any
    path: str
    line: int
    column: int
    #: How the value was found: "constant", "dict config", "argparse default", "class default", "keyword".
    how: str


class Inference:
    """Answers "what is this expression's value?" for files of one project; caches every answer."""

    def __init__(self, root: str, search_path: Sequence[str] = ()) -> None:
        self.root = root
        self.search_path = [root, *search_path]
        self._answers: Dict[Tuple[str, str, Tuple[str, ...]], Optional[Inferred]] = {}
        self._modules: Dict[str, Any] = {}

    def infer(self, path: str, expression: str, scope: Sequence[str] = ()) -> Optional[Inferred]:
        """The value of ``expression`` as written in ``path`` inside the named functions/classes ``scope``.

        ``scope`` lists the enclosing ``def``/``class`` names, outermost first
        (``["main"]`` for code in ``def main()``); an empty scope is module level.
        Returns None when the value is not provably one literal.
        """
        key = (os.path.abspath(path), expression, tuple(scope))
        if key not in self._answers:
            try:
                self._answers[key] = self._infer(*key)
            except Exception:  # noqa: BLE001 -- astroid on arbitrary user code: an error means "unknown"
                self._answers[key] = None
        return self._answers[key]

    def _infer(self, path: str, expression: str, scope: Tuple[str, ...]) -> Optional[Inferred]:
        try:
            wanted = ast.unparse(ast.parse(expression, mode="eval").body)
        except SyntaxError:
            return None
        with self._import_path(path):
            module = self._module(path)
            if module is None:
                return None
            owner = _scope_node(module, scope)
            if owner is None:
                return None
            candidates = [node for node in _expressions_in(owner) if node.as_string() == wanted]
            answers = [self._value(node, 0) for node in candidates]
        if not answers or any(answer is None for answer in answers):
            return None
        first = answers[0]
        return first if all(answer == first for answer in answers) else None

    # --- astroid plumbing --------------------------------------------------------

    @contextlib.contextmanager
    def _import_path(self, path: str) -> Iterator[None]:
        """Let astroid find the project's own modules, as running the script would (its folder, the root)."""
        added = [p for p in (os.path.dirname(path), *self.search_path) if p not in sys.path]
        sys.path[:0] = added
        try:
            yield
        finally:
            for entry in added:
                with contextlib.suppress(ValueError):
                    sys.path.remove(entry)

    def _module(self, path: str) -> Any:
        import astroid

        global _ASTROID_ROOT
        if _ASTROID_ROOT != self.root:
            # astroid caches modules by name, process-wide: another project's ``src.config`` must not answer.
            if _ASTROID_ROOT is not None:
                astroid.MANAGER.clear_cache()
            _ASTROID_ROOT = self.root
        if path not in self._modules:
            name = _module_name(self.root, path)
            try:
                self._modules[path] = astroid.MANAGER.ast_from_file(path, name, source=True)
            except (astroid.AstroidError, OSError, SyntaxError, ValueError):
                self._modules[path] = None
        return self._modules[path]

    # --- from an expression to a literal -------------------------------------------

    def _value(self, node: Any, depth: int) -> Optional[Inferred]:
        if depth > MAX_DEPTH:
            return None
        base, key = _base_and_key(node)
        if base is not None:
            special = self._key_of_instance(base, key, depth)
            if special is not None:
                return special
        return _single_constant(node, "constant")

    def _key_of_instance(self, base: Any, key: str, depth: int) -> Optional[Inferred]:
        """``x.key``/``x["key"]`` where ``x = <call>``: argparse, a config built from a dict, a class instance."""
        import astroid

        for assigned in _assigned_values(base):
            if isinstance(assigned, astroid.nodes.Call):
                return self._attribute_of_call(assigned, key, depth + 1)
            if isinstance(assigned, astroid.nodes.Dict):
                return _dict_item(assigned, key)
        return None

    def _attribute_of_call(self, call: Any, key: str, depth: int) -> Optional[Inferred]:
        import astroid

        if depth > MAX_DEPTH:
            return None
        func = call.func
        if isinstance(func, astroid.nodes.Attribute) and func.attrname in ARGPARSE_METHODS:
            return _argparse_default(call, key)
        for given in call.keywords or ():
            if given.arg == key:
                return _single_constant(given.value, "keyword")
        if len(call.args) == 1 and isinstance(call.args[0], astroid.nodes.Dict) and not call.keywords:
            return _dict_item(call.args[0], key)
        for callee in _safe_infer_all(func):
            if isinstance(callee, astroid.nodes.ClassDef) and not call.args:
                return _class_default(callee, key)
            if isinstance(callee, astroid.nodes.FunctionDef):
                returned = [r.value for r in callee.nodes_of_class(astroid.nodes.Return) if r.scope() is callee]
                results = [self._attribute_of_call(v, key, depth + 1) if isinstance(v, astroid.nodes.Call) else None
                           for v in returned]
                if results and all(r is not None and r == results[0] for r in results):
                    return results[0]
                return None
        return None


def _base_and_key(node: Any) -> Tuple[Any, str]:
    """``(x, "key")`` for ``x.key`` and ``x["key"]`` where ``x`` is a plain name, else ``(None, "")``."""
    import astroid

    if isinstance(node, astroid.nodes.Attribute) and isinstance(node.expr, astroid.nodes.Name):
        return node.expr, node.attrname
    if isinstance(node, astroid.nodes.Subscript) and isinstance(node.value, astroid.nodes.Name):
        index = node.slice
        if isinstance(index, astroid.nodes.Const) and isinstance(index.value, str):
            return node.value, index.value
    return None, ""


def _module_name(root: str, path: str) -> str:
    relative = os.path.relpath(path, root)
    if relative.startswith(".."):
        relative = os.path.basename(path)
    parts = relative[: -len(".py")].split(os.sep) if relative.endswith(".py") else relative.split(os.sep)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__main__"


def _scope_node(module: Any, scope: Sequence[str]) -> Any:
    node = module
    for name in scope:
        found = [child for child in node.body if getattr(child, "name", None) == name and hasattr(child, "body")]
        if len(found) != 1:
            return None
        node = found[0]
    return node


def _expressions_in(owner: Any) -> List[Any]:
    """Name/Attribute/Subscript nodes whose scope is ``owner`` (not nested functions)."""
    import astroid

    kinds = (astroid.nodes.Name, astroid.nodes.Attribute, astroid.nodes.Subscript)
    return [node for node in owner.nodes_of_class(kinds) if node.scope() is owner]


def _safe_infer_all(node: Any) -> List[Any]:
    import astroid

    try:
        return [value for value in node.infer() if value is not astroid.Uninferable]
    except (astroid.AstroidError, RecursionError, StopIteration):
        return []


def _single_constant(node: Any, how: str) -> Optional[Inferred]:
    """The one literal ``node`` can be; None if it can be anything else too."""
    import astroid

    try:
        values = list(node.infer())
    except (astroid.AstroidError, RecursionError, StopIteration):
        return None
    if not values or any(not isinstance(v, astroid.nodes.Const) for v in values):
        return None
    found = {(type(v.value), v.value) for v in values}
    if len(found) != 1:
        return None
    return _located(values[0], how)


def _located(const: Any, how: str) -> Optional[Inferred]:
    root = const.root()
    path = getattr(root, "file", None)
    line = getattr(const, "lineno", None)
    if not path or not line:
        return None
    return Inferred(const.value, os.path.abspath(path), line, _char_column(path, line, const.col_offset or 0), how)


def _char_column(path: str, line: int, byte_offset: int) -> int:
    """astroid (like ``ast``) counts UTF-8 bytes; violations count characters."""
    try:
        with open(path, encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if number == line:
                    return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
    except (OSError, UnicodeDecodeError):
        pass
    return byte_offset


def _assigned_values(name: Any) -> List[Any]:
    """The one right-hand side a name was assigned (``args = get_args()``), following ``from m import name``."""
    import astroid

    try:
        _, targets = name.lookup(name.name)
    except (astroid.AstroidError, RecursionError):
        return []
    return _values_of(targets, name.name, 0)


def _values_of(targets: Sequence[Any], name: str, depth: int) -> List[Any]:
    import astroid

    values = []
    for target in targets:
        parent = target.parent
        if isinstance(target, astroid.nodes.ImportFrom) and depth < MAX_DEPTH:
            values.extend(_imported_values(target, name, depth + 1))
        elif isinstance(parent, (astroid.nodes.Assign, astroid.nodes.AnnAssign)) and parent.value is not None:
            values.append(parent.value)
        else:
            return []  # bound some other way (loop, parameter, ...): not one known value
    return values if len(values) == 1 else []


def _imported_values(node: Any, name: str, depth: int) -> List[Any]:
    import astroid

    try:
        module = node.do_import_module(node.modname)
        real = node.real_name(name)
    except (astroid.AstroidError, RecursionError, AttributeError):
        return []
    return _values_of(module.locals.get(real, []), real, depth)


def _dict_item(mapping: Any, key: str) -> Optional[Inferred]:
    import astroid

    for key_node, value_node in mapping.items:
        if isinstance(key_node, astroid.nodes.Const) and key_node.value == key:
            return _single_constant(value_node, "dict config")
    return None


def _class_default(class_node: Any, key: str) -> Optional[Inferred]:
    """A class attribute or dataclass field default assigned once in the class body."""
    import astroid

    values = []
    for statement in class_node.body:
        if isinstance(statement, astroid.nodes.AnnAssign) and getattr(statement.target, "name", None) == key:
            values.append(statement.value)
        elif isinstance(statement, astroid.nodes.Assign) and any(
            getattr(target, "name", None) == key for target in statement.targets
        ):
            values.append(statement.value)
    if len(values) != 1 or values[0] is None:
        return None
    return _single_constant(values[0], "class default")


def _argparse_default(call: Any, key: str) -> Optional[Inferred]:
    """``parser.parse_args()``: the default of the ``add_argument`` whose destination is ``key``."""
    import astroid

    receiver = call.func.expr
    if not isinstance(receiver, astroid.nodes.Name):
        return None
    scope = call.scope()
    found = []
    for node in scope.nodes_of_class(astroid.nodes.Call):
        func = node.func
        if isinstance(func, astroid.nodes.Attribute) and func.attrname == "add_argument" \
                and isinstance(func.expr, astroid.nodes.Name) and func.expr.name == receiver.name \
                and _destination(node) == key:
            found.append(node)
    if len(found) != 1:
        return None
    default = next((k.value for k in found[0].keywords or () if k.arg == "default"), None)
    return _single_constant(default, "argparse default") if default is not None else None


def _destination(call: Any) -> Optional[str]:
    import astroid

    for given in call.keywords or ():
        if given.arg == "dest" and isinstance(given.value, astroid.nodes.Const):
            return str(given.value.value)
    flags = [a.value for a in call.args if isinstance(a, astroid.nodes.Const) and isinstance(a.value, str)]
    long_flags = [f for f in flags if f.startswith("--")]
    chosen = long_flags[0] if long_flags else (flags[0] if flags else None)
    return chosen.lstrip("-").replace("-", "_") if chosen else None
