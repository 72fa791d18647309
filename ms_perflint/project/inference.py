"""astroid's inference, asked where the project model has no answer.

The model (:mod:`~ms_perflint.project.model`, :mod:`~ms_perflint.project.values`)
links the facts libcst recorded; it does not follow what astroid follows well: a
method called on an object held in an attribute or returned by a factory, a tuple
returned and unpacked (``train, val = make_loaders()``), a comprehension's or a
loop's variable (``[Saver(c) for c in (a, b)]``), a name bound in several branches.
:class:`Inference` answers three questions in the model's own terms (never an
astroid object leaves this module):

- :meth:`Inference.call_targets`: the project functions and methods a call may enter;
- :meth:`Inference.instance_classes`: the project classes an expression may be an instance of;
- :meth:`Inference.literals`: the literals an expression may be, and whether that is all of them;
- :meth:`Inference.origins`: the recorded calls whose result an expression may hold (a name followed through
  its assignments, tuple unpacking of a call's returned tuple, comprehension and loop variables).

An answer of None means "astroid does not know"; the model then keeps its own.

**Isolation.** astroid keeps one process-wide module cache keyed by dotted name
(``AstroidManager.astroid_cache``) and finds modules on ``sys.path``. Neither fits:
two programs of one project may each have a ``src/dataset.py``, and an installed
MindSpore (or any other package) must not change an answer. So the modules are
built here, one per project file, from the project's own texts, and kept in this
object (by path), never looked up by name:

- each module is built by :class:`_Builder` (astroid's ``AstroidBuilder.string_build``)
  with an ``import_module`` of its own set on the module node the moment it is made
  (before astroid resolves its star imports). astroid resolves every import a module
  makes (``import``, ``from ... import``, a package's submodule as an attribute)
  through that method, so imports go through the project's resolution,
  :meth:`Project.module_file(module, importer) <ms_perflint.project.model.Project.module_file>`
  (the nearest file, as the model links them), and never reach ``sys.path``;
- an import the project cannot resolve (MindSpore, numpy, the standard library) fails:
  astroid answers Uninferable for what it names, the question has no complete answer,
  and MindSpore's names and bases keep coming from :mod:`ms_perflint.catalogue`;
- the entry astroid puts in its name-keyed cache when it builds a module is removed
  at once, so nothing of one project is visible to another (nor to pylint in the
  same process); the inference cache astroid keeps per node is cleared when an
  :class:`Inference` starts and by :meth:`Inference.close`.

**Guards.** Every question runs under :meth:`Inference._ask`: any exception (astroid's
``InferenceError``, a ``RecursionError`` of its own recursion, anything else) is no
answer; a question stops after :data:`MAX_STEPS` inferred nodes or :data:`MAX_SECONDS`
(a safety net: one question of the development set reached it), and more than
:data:`MAX_CANDIDATES` candidates is no answer. An answer reached through a list, set or
dict display is not complete (astroid does not see an ``append`` after it). Questions
astroid cannot answer are not asked (they would only build modules): a name read only in
loops over ``zip``/``enumerate``/``range``, a parameter or a dataset's iterator, an item
unpacked from a call that enters no project code.

**Positions.** Facts hold libcst positions: 1-based lines, 0-based *character* columns
and character offsets into the decoded text (a notebook's virtual module). astroid
holds CPython's: *UTF-8 byte* columns. Calls are found by their start and end, mapped
to bytes on their own line; a value by the call it is an argument or receiver of (the
facts give a name bound by a ``for`` no position of its own), else by its own span.

**Laziness.** astroid is imported by the first question, and a module is parsed
only when a question needs it (the file asked about, then the files its imports
lead to). A run that asks nothing never imports astroid.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

from ms_perflint.analysis.facts import CALL, CFG, CLASS, FUNCTION, NAME, OP, PARAM, SELF, UNKNOWN, Call, Value
from ms_perflint.findings import LineIndex
from ms_perflint.sources.guard import quiet_compiler

#: ``(root-relative path, scope index)`` and ``(root-relative path, class name)``, as in the model.
ScopeRef = Tuple[str, int]
ClassRef = Tuple[str, str]
#: A literal and where it is written: ``(value, path, line, character column, start offset, end offset)``.
Placed = Tuple[Any, str, int, int, int, int]
#: Where a value sits in a recorded call: ``"receiver"``, a position, or a keyword.
Slot = Union[str, int]

#: More candidates than this is no complete answer.
MAX_CANDIDATES = 8
#: Nodes astroid may infer for one question (counted by astroid's own per-question counter).
MAX_STEPS = 400
#: Seconds one question may take (a safety net: one development-set question ran 2 s for nothing; see
#: docs/architecture.md).
MAX_SECONDS = 0.5
#: Python literal types a literal candidate may have.
_LITERALS = (bool, int, float, str, type(None))


class _OverBudget(Exception):
    """Raised inside astroid when a question has used its steps or its time (never an astroid exception, so no
    handler of astroid's swallows it)."""


class _Steps(list):
    """astroid's per-question counter of inferred nodes (``InferenceContext._nodes_inferred``, one cell shared by
    every clone of the context), counting against this question's budget."""

    def __init__(self, deadline: float) -> None:
        super().__init__([0])
        self.deadline = deadline

    def __setitem__(self, index, value) -> None:  # type: ignore[override]
        if value > MAX_STEPS or time.perf_counter() > self.deadline:
            raise _OverBudget
        super().__setitem__(index, value)


class Inference:
    """astroid's answers over one project; ``texts(path)`` gives a file's decoded text (None: not available)."""

    def __init__(self, project: Any, texts: Callable[[str], Optional[str]]) -> None:
        self.project = project
        self.texts = texts
        self._astroid: Any = None
        #: Built modules by path (None: the file could not be built); the path of each module node, by identity.
        self._modules: Dict[str, Any] = {}
        self._paths: Dict[int, str] = {}
        self._lines: Dict[str, Tuple[str, LineIndex]] = {}
        self._calls: Dict[str, Dict[Tuple[int, int, int, int], Any]] = {}
        self._spans: Dict[str, Dict[Tuple[int, int, int, int], List[Any]]] = {}
        self._holders: Dict[str, Dict[int, Tuple[Call, Slot]]] = {}
        self._recorded: Dict[str, Dict[Tuple[int, int], Call]] = {}
        self._answers: Dict[Tuple[str, str, Tuple[Any, ...]], Any] = {}
        #: Questions asked, answered, and the seconds they took (docs/architecture.md reports them).
        self.asked = 0
        self.answered = 0
        self.seconds = 0.0

    # --- questions ------------------------------------------------------------------------------

    def call_targets(self, path: str, call: Call) -> Optional[Tuple[ScopeRef, ...]]:
        """The project scopes ``call`` may enter (a function, a method, what building a class runs), or None."""
        return self._ask("targets", path, call, lambda: self._call_targets(path, call))

    def instance_classes(self, path: str, value: Value) -> Optional[FrozenSet[ClassRef]]:
        """The project classes ``value`` (read in ``path``) may be an instance of, or None when unknown."""
        return self._ask("instances", path, value, lambda: self._instance_classes(path, value))

    def literals(self, path: str, value: Value) -> Optional[Tuple[List[Placed], bool]]:
        """The literals ``value`` may be, each where it is written, and whether they are all it may be (None: no
        literal known)."""
        return self._ask("literals", path, value, lambda: self._literals(path, value))

    def origins(self, path: str, value: Value) -> Optional[List[Tuple[str, Call]]]:
        """The recorded calls whose result ``value`` may hold, by following names to what is assigned to them,
        or None unless every way leads to a recorded call."""
        return self._ask("origins", path, value, lambda: self._origins(path, value))

    def close(self) -> None:
        """Forget the modules and astroid's per-node cache of them."""
        for module in self._modules.values():
            if module is not None:  # astroid keeps some nodes past any cache (the last module its object model
                module.__dict__.pop("import_module", None)  # described): none may lead back to this project
        self._modules.clear()
        self._paths.clear()
        self._spans.clear()
        self._calls.clear()
        if self._astroid is not None:
            _clear_inference_cache()

    # --- answering --------------------------------------------------------------------------------

    def _ask(self, question: str, path: str, subject: Any, answer: Callable[[], Any]) -> Any:
        key = (question, path, self._where_asked(path, subject))
        if key in self._answers:
            return self._answers[key]
        value = subject.receiver if isinstance(subject, Call) else subject
        if value is not None and (self._opaque_loop_variable(path, value) or self._foreign_item(path, value)):
            self._answers[key] = None
            return None
        self.asked += 1
        started = time.perf_counter()
        try:
            found = answer()
        except Exception:  # noqa: BLE001 -- astroid's errors, its recursion, a budget spent: no answer
            found = None
        self.seconds += time.perf_counter() - started
        self.answered += found is not None
        self._answers[key] = found
        return found

    def _where_asked(self, path: str, subject: Any) -> Tuple[Any, ...]:
        """What a question is about, by place, not by object: the same guard is one object in freshly recorded
        facts and one copy per call in facts read back from the index, and both must ask (and cost) the same."""
        if isinstance(subject, Call):
            return ("call", subject.id)
        holder = self._holder(path, subject)
        if holder is not None:
            return ("in", holder[0].id, holder[1])
        return ("at", subject.kind, str(subject.data), subject.start, subject.end) if subject.end else ("nowhere",)

    def _infer(self, node: Any) -> Optional[List[Any]]:
        """What astroid infers ``node`` to be (None: unknown, too many, or over budget); Uninferable is kept."""
        from astroid.context import InferenceContext

        context = InferenceContext(nodes_inferred=_Steps(time.perf_counter() + MAX_SECONDS))
        found: List[Any] = []
        for inferred in node.infer(context):
            found.append(inferred)
            if len(found) > MAX_CANDIDATES:
                return None
        return found

    def _call_targets(self, path: str, call: Call) -> Optional[Tuple[ScopeRef, ...]]:
        node = self._call_node(path, call)
        if node is None:
            return None
        inferred = self._infer(node.func)
        if inferred is None:
            return None
        from astroid import bases, nodes

        found: List[ScopeRef] = []
        for candidate in inferred:
            while isinstance(candidate, bases.UnboundMethod):  # a bound method proxies an unbound one
                candidate = candidate._proxied
            if isinstance(candidate, nodes.FunctionDef):
                scope = self._scope_of(candidate)
                if scope is not None:
                    found.append(scope)
            elif isinstance(candidate, nodes.ClassDef):
                cls = self._class_of(candidate)
                if cls is not None:
                    found.extend(self.project.construction_scopes(cls))
            elif isinstance(candidate, bases.Instance) and isinstance(candidate._proxied, nodes.ClassDef):
                cls = self._class_of(candidate._proxied)
                method = cls and (self.project.method(cls, "construct") or self.project.method(cls, "__call__"))
                if method:
                    found.append(method)
        return tuple(dict.fromkeys(found)) if found else None

    def _instance_classes(self, path: str, value: Value) -> Optional[FrozenSet[ClassRef]]:
        node = self._value_node(path, value)
        inferred = self._infer(node) if node is not None else None
        if inferred is None:
            return None
        from astroid import bases, nodes

        found: Set[ClassRef] = set()
        for candidate in inferred:
            if isinstance(candidate, bases.Instance) and isinstance(candidate._proxied, nodes.ClassDef):
                cls = self._class_of(candidate._proxied)
                if cls is not None:
                    found.add(cls)
        return frozenset(found) if found else None

    def _literals(self, path: str, value: Value) -> Optional[Tuple[List[Placed], bool]]:
        node = self._value_node(path, value)
        inferred = self._infer(node) if node is not None else None
        if not inferred:
            return None
        from astroid import nodes

        found: List[Placed] = []
        complete = True
        for candidate in inferred:
            literal = _literal(candidate, nodes)
            where = self._where(candidate)
            if literal is _NOT_LITERAL or where is None or _in_mutable(candidate, nodes):
                complete = False
            else:
                found.append((literal, *where))
        return (found, complete) if found else None

    def _origins(self, path: str, value: Value) -> Optional[List[Tuple[str, Call]]]:
        node = self._value_node(path, value)
        if node is None:
            return None
        from astroid import nodes
        from astroid.context import InferenceContext

        context = InferenceContext(nodes_inferred=_Steps(time.perf_counter() + MAX_SECONDS))
        found: List[Tuple[str, Call]] = []
        seen: Set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            if len(seen) > 4 * MAX_CANDIDATES or len(found) > MAX_CANDIDATES:
                return None
            if isinstance(current, nodes.Call):
                recorded = self._recorded_call(current)
                if recorded is None:
                    return None
                found.append(recorded)
            elif isinstance(current, nodes.Name):
                _, assignments = current.lookup(current.name)
                if not assignments:
                    return None
                for assignment in assignments:
                    if not isinstance(assignment, nodes.AssignName):
                        return None  # a parameter, an import, a definition: not the result of a call here
                    assigned = list(assignment.assigned_stmts(context=context))
                    if not assigned or any(not isinstance(a, nodes.NodeNG) or a is assignment or _in_mutable(a, nodes)
                                           for a in assigned):
                        return None
                    stack.extend(assigned)
            else:
                return None  # a literal, an attribute, an operation: the model reads those itself
        return list({(p, call.id): (p, call) for p, call in found}.values()) if found else None

    def _recorded_call(self, node: Any) -> Optional[Tuple[str, Call]]:
        """The facts' call recorded for an astroid call of a project module."""
        path = self._paths.get(id(node.root()))
        if path is None or node.lineno is None:
            return None
        if path not in self._recorded:
            self._recorded[path] = {(c.start, c.end): c for c in self.project.python[path].calls if c.end}
        start = self._offset(path, node.lineno, node.col_offset)
        call = self._recorded[path].get((start, self._offset(path, node.end_lineno, node.end_col_offset)))
        return (path, call) if call is not None else None

    def _opaque_loop_variable(self, path: str, value: Value) -> bool:
        """A name read inside loops that all iterate something astroid cannot list (``zip`` or ``enumerate`` of
        parameters, a dataset's iterator, ``range``, a parameter, a config): asking would build modules for no
        answer, and most model code is such loops (``for cin, cout in zip(ins, outs): Block(cin, cout)``)."""
        if value.kind != NAME:
            return False
        holder = self._holder(path, value)
        if holder is None or not holder[0].loops:
            return False
        facts = self.project.python[path]
        return all(_opaque(facts, facts.loops[loop].iterable) for loop in holder[0].loops
                   if 0 <= loop < len(facts.loops))

    def _foreign_item(self, path: str, value: Value) -> bool:
        """An item unpacked from what a call returns (``loss, grads = grad_fn(x)``), where the call enters no
        project code: astroid cannot see the library's return either."""
        root = value
        while root.kind == OP and root.data == "[]" and root.parts:
            root = root.parts[0]
        if root is value or root.kind != CALL:
            return False
        call = self.project.python[path].call(root.data)
        return call is None or not self.project.targets(path, call)

    # --- mapping to the model ---------------------------------------------------------------------

    def _scope_of(self, function: Any) -> Optional[ScopeRef]:
        """The model's scope of an astroid function of a project module."""
        path = self._paths.get(id(function.root()))
        if path is None:
            return None
        facts = self.project.python[path]
        name = function.qname()[len(function.root().name) + 1:]
        first = function.decorators.lineno if function.decorators is not None else function.lineno
        matches = [i for i, s in enumerate(facts.scopes) if s.kind == FUNCTION and s.name == name]
        exact = [i for i in matches if first <= facts.scopes[i].line <= function.lineno]
        chosen = exact or matches
        return (path, chosen[-1]) if len(chosen) == 1 or exact else None

    def _class_of(self, cls: Any) -> Optional[ClassRef]:
        """The model's class of an astroid class of a project module."""
        path = self._paths.get(id(cls.root()))
        if path is None:
            return None
        facts = self.project.python[path]
        found = facts.classes.get(cls.name)
        if found is None or facts.scopes[found.scope].kind != CLASS:
            return None
        return path, cls.name

    def _where(self, node: Any) -> Optional[Tuple[str, int, int, int, int]]:
        """``(path, line, character column, start, end)`` of a node of a project module."""
        path = self._paths.get(id(node.root()))
        if path is None or node.lineno is None or node.end_lineno is None:
            return None
        start = self._offset(path, node.lineno, node.col_offset)
        end = self._offset(path, node.end_lineno, node.end_col_offset)
        text, index = self._lines[path]
        return path, node.lineno, start - index.starts[node.lineno - 1], start, end

    # --- finding nodes ----------------------------------------------------------------------------

    def _call_node(self, path: str, call: Call) -> Any:
        """The astroid ``Call`` recorded as ``call`` (found by its start and end)."""
        if not call.line or self._module(path) is None:
            return None
        if path not in self._calls:
            from astroid import nodes

            module = self._modules[path]
            self._calls[path] = {(n.lineno, n.col_offset, n.end_lineno, n.end_col_offset): n
                                 for n in module.nodes_of_class(nodes.Call)}
        key = (call.line, self._bytes(path, call.line, call.column),
               call.end_line, self._bytes(path, call.end_line, call.end_column))
        return self._calls[path].get(key)

    def _value_node(self, path: str, value: Value) -> Any:
        """The expression node ``value`` was recorded from: through the call it is passed to, else its span."""
        holder = self._holder(path, value)
        if holder is not None:
            call, slot = holder
            node = self._call_node(path, call)
            return _slot_node(node, slot) if node is not None else None
        if not value.line or value.end <= value.start or self._module(path) is None:
            return None
        text, index = self._lines[path]
        line, column = index.position(value.start)
        end_line, end_column = index.position(value.end)
        candidates = self._span_index(path).get(
            (line, self._bytes(path, line, column), end_line, self._bytes(path, end_line, end_column)), [])
        return candidates[0] if candidates else None

    def _holder(self, path: str, value: Value) -> Optional[Tuple[Call, Slot]]:
        """The recorded call whose receiver or argument ``value`` is (the very object), if any."""
        if path not in self._holders:
            holders: Dict[int, Tuple[Call, Slot]] = {}
            for call in self.project.python[path].calls:
                if call.receiver is not None:
                    holders[id(call.receiver)] = (call, "receiver")
                for position, argument in enumerate(call.args):
                    holders[id(argument)] = (call, position)
                for keyword, argument in call.kwargs.items():
                    holders[id(argument)] = (call, keyword)
            self._holders[path] = holders
        return self._holders[path].get(id(value))

    def _span_index(self, path: str) -> Dict[Tuple[int, int, int, int], List[Any]]:
        if path not in self._spans:
            spans: Dict[Tuple[int, int, int, int], List[Any]] = {}
            for node in _walk(self._modules[path]):
                if getattr(node, "end_lineno", None) is not None and node.lineno is not None:
                    key = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                    spans.setdefault(key, []).append(node)
            self._spans[path] = spans
        return self._spans[path]

    def _bytes(self, path: str, line: int, column: int) -> int:
        """A character column of ``line`` as astroid's UTF-8 byte column."""
        text, index = self._lines[path]
        start = index.offset(line, 0)
        prefix = text[start:start + column]
        return column if prefix.isascii() else len(prefix.encode("utf-8", "surrogatepass"))

    def _offset(self, path: str, line: int, byte_column: int) -> int:
        """The character offset of astroid's ``line``:``byte_column``."""
        text, index = self._lines[path]
        start = index.offset(line, 0)
        end = index.starts[line] if line < len(index.starts) else len(text)
        raw = text[start:end]
        if raw.isascii():
            return start + byte_column
        return start + len(raw.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "ignore"))

    # --- building modules -------------------------------------------------------------------------

    def _module(self, path: str) -> Any:
        """The astroid module of a project file, built on first use (None when it cannot be)."""
        if path in self._modules:
            return self._modules[path]
        self._modules[path] = None  # a module that imports itself while it is built finds nothing
        facts = self.project.python.get(path)
        text = self.texts(path) if facts is not None else None
        if text is None:
            return None
        self._load()
        from astroid.manager import AstroidManager

        builder = _builder_class()(AstroidManager(), lambda module: self._own(module, path))
        with quiet_compiler():  # astroid parses the user's code: its warnings (``"\l"``) are not ours to print
            module = builder.string_build(text, facts.module, _file_name(path))
        cache = AstroidManager().astroid_cache
        if cache.get(module.name) is module:
            del cache[module.name]  # keyed by dotted name: another program's module of the same name must not see it
        self._lines[path] = (text, LineIndex(text))
        self._modules[path] = module
        return module

    def _own(self, module: Any, path: str) -> None:
        """Make ``module`` (just built from ``path``) import through the project."""
        self._paths[id(module)] = path

        def import_module(modname: str, relative_only: bool = False, level: Optional[int] = None,
                          use_cache: bool = True) -> Any:
            return self._import(module, path, modname, relative_only, level)

        module.import_module = import_module

    def _import(self, module: Any, path: str, modname: str, relative_only: bool, level: Optional[int]) -> Any:
        """The project module ``modname`` names when imported from ``path`` (astroid's ``Module.import_module``)."""
        from astroid.exceptions import AstroidImportError

        if relative_only and level is None:
            level = 0
        absolute = module.relative_to_absolute_name(modname, level)
        target = self.project.module_file(absolute, path)
        if target is None and not relative_only and absolute != modname:
            target = self.project.module_file(modname, path)
        built = self._module(target) if target is not None else None
        if built is None:
            raise AstroidImportError("{modname} is not a module of the project", modname=absolute)
        return built

    def _load(self) -> None:
        """Import astroid (the first question does) and drop a previous project's per-node inference cache."""
        if self._astroid is None:
            import astroid

            self._astroid = astroid
            _clear_inference_cache()


_NOT_LITERAL = object()


def _literal(node: Any, nodes: Any) -> Any:
    """The Python literal an inferred node is (a constant, or a tuple of them), else :data:`_NOT_LITERAL`."""
    if isinstance(node, nodes.Const) and isinstance(node.value, _LITERALS):
        return node.value
    if isinstance(node, nodes.Tuple):
        items = tuple(_literal(item, nodes) for item in node.elts)
        return _NOT_LITERAL if any(item is _NOT_LITERAL for item in items) else items
    return _NOT_LITERAL


#: Builtins whose result astroid cannot list the items of (from the arguments a loop passes them).
_OPAQUE_BUILTINS = frozenset(("range", "zip", "enumerate"))


def _opaque(facts: Any, iterable: Optional[Value]) -> bool:
    """A loop's iterable astroid cannot list: a ``while``, a parameter, a config key, an attribute, something the
    facts left unknown, a builtin's or a method's result (a dataset's iterator)."""
    if iterable is None or iterable.kind in (PARAM, CFG, SELF, UNKNOWN):
        return True
    if iterable.kind == CALL:
        call = facts.call(iterable.data)
        return call is None or call.callee in _OPAQUE_BUILTINS or bool(call.method)
    return False


def _in_mutable(node: Any, nodes: Any) -> bool:
    """An item of a list, set or dict display: astroid reads the display as written and does not see an
    ``append`` or ``d[key] = ...`` after it (docs/architecture.md), so an answer through it is not complete."""
    return isinstance(node.parent, (nodes.List, nodes.Set, nodes.Dict))


def _slot_node(node: Any, slot: Slot) -> Any:
    """The receiver, positional or keyword argument of an astroid call."""
    from astroid import nodes

    if slot == "receiver":
        return node.func.expr if isinstance(node.func, nodes.Attribute) else node.func
    if isinstance(slot, int):
        if any(isinstance(argument, nodes.Starred) for argument in node.args[:slot + 1]):
            return None
        return node.args[slot] if slot < len(node.args) else None
    return next((keyword.value for keyword in node.keywords or () if keyword.arg == slot), None)


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(current.get_children())))


def _file_name(path: str) -> str:
    """The file name astroid is given: it reads only whether the module is a package (``__init__.py``)."""
    return path if path.endswith(".py") else path + ".py"


def _clear_inference_cache() -> None:
    """astroid's process-wide caches keyed by node: inference results, inference tips, and the memoised name and
    metaclass lookups. Each holds nodes of the modules it saw, and so the project whose questions built them (a
    worker deciding part after part kept the last parts' models alive through them)."""
    from astroid import context
    from astroid.inference_tip import clear_inference_tip_cache
    from astroid.nodes._base_nodes import LookupMixIn
    from astroid.nodes.scoped_nodes import ClassDef

    context._invalidate_cache()
    clear_inference_tip_cache()
    for cached in (LookupMixIn.lookup, ClassDef._metaclass_lookup_attribute):
        cached.cache_clear()


_BUILDER: Optional[type] = None


def _builder_class() -> type:
    """astroid's builder, made to hand each module it builds to ``own`` before anything imports through it (a star
    import is resolved while the module is built)."""
    global _BUILDER
    if _BUILDER is None:
        from astroid.builder import AstroidBuilder

        class _Builder(AstroidBuilder):  # type: ignore[misc,valid-type]
            def __init__(self, manager: Any, own: Callable[[Any], None]) -> None:
                # No transforms (astroid's "brains" for libraries): they cost two thirds of a build, and what they
                # describe is outside the project, where nothing is followed anyway.
                super().__init__(manager, apply_transforms=False)
                self._own_module = own

            def _data_build(self, data: str, modname: str, path: Optional[str]):  # type: ignore[override]
                module, builder = super()._data_build(data, modname, path)
                self._own_module(module)
                return module, builder

        _BUILDER = _Builder
    return _BUILDER
