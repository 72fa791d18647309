"""One libcst pass over a Python module, recording :class:`~ms_perflint.analysis.facts.PythonFacts`.

The pass is a read-only walk (:func:`~ms_perflint.analysis.walker.walk`) with one
visitor that keeps the context of every node -- scope, loops, ``if`` guards, the
file's import table and local bindings -- and records:

- every call worth knowing (MindSpore-family classes and the APIs the catalogue
  names, calls into the project, ``self.<attr>(...)``, calls of local values, and
  methods the catalogue lists), with its arguments as values;
- ``a @ b`` as a call of ``@``;
- scopes, classes (bases, ``self.<attr>`` assignments), loops;
- config entries written as Python (dict configs, config classes, ``os.environ``).

Positions are resolved once, after the walk, for the recorded nodes only
(:func:`~ms_perflint.analysis.positions.spans_of`), and with them the source
text of each value and the layout material fixes need (where a keyword argument
or an import statement goes).
"""

from __future__ import annotations

import builtins
import sys
from dataclasses import replace
from typing import Any, Callable, Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import (
    ATTRIBUTE_OWNER, CALL, CFG, CLASS, DERIVED, DICT, EITHER, FUNCTION, ITEMS, LENGTH, LIT, LOOKUP, MAIN, MODULE, NAME, OP, PARAM, REF,
    SELF, UNKNOWN, Call, ClassFacts, ConfigEntry, Guard, Loop, PythonFacts, Scope, Value, choices, unknown,
)
from ms_perflint.analysis.names import Names, dotted_name
from ms_perflint.analysis.positions import spans_of
from ms_perflint.analysis.walker import walk
from ms_perflint.findings import LineIndex
from ms_perflint.sources.guard import quiet_compiler

#: Packages whose calls never matter (unless the catalogue names the function): not the project's code.
THIRD_PARTY = frozenset(
    ("numpy", "cv2", "PIL", "matplotlib", "pandas", "scipy", "sklearn", "tqdm", "easydict", "requests", "h5py",
     "six", "pycocotools", "skimage", "imageio", "seaborn", "tensorboardX", "wandb", "jieba", "nltk", "tokenizers",
     "sentencepiece", "regex", "psutil", "pytest", "unittest", "mock", "absl", "attr", "pydantic", "addict",
     *ms.FOREIGN_PACKAGES)
)
#: Top-level modules of the standard library (the running Python's list where it has one, 3.10 and later; the
#: names projects most often reuse for their own files on every Python).
STANDARD_LIBRARY = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "os", "sys", "re", "json", "math", "time", "logging", "copy", "io", "random", "string", "types", "typing",
    "collections", "functools", "itertools", "argparse", "glob", "shutil", "pickle", "queue", "threading",
    "multiprocessing", "datetime", "csv", "ast", "inspect", "abc", "enum", "platform", "signal", "socket",
    "subprocess", "tempfile", "traceback", "warnings", "zipfile", "tarfile", "hashlib", "base64", "struct",
    "codecs", "decimal", "fractions", "numbers", "operator", "statistics", "uuid", "parser", "token", "tokenize",
    "code", "test", "distutils", "imp", "trace", "profile", "site", "select", "secrets", "stat", "array"}
_BUILTINS = frozenset(dir(builtins))
#: The longest source text kept for a value (messages only need a glimpse).
TEXT_LIMIT = 80
#: Calls that get the material for appending a keyword argument (the fixes that append one).
APPENDABLE = frozenset((ms.CHECKPOINT_CONFIG, ms.SAVE_CHECKPOINT, ms.MODEL, ms.GENERATOR_DATASET, ms.TENSOR))
APPENDABLE_METHODS = frozenset((ms.BATCH, *ms.MODEL_TRAIN_METHODS))
#: At most this many marked comments are kept per file (a file of commented-out code must not bloat the facts).
MAX_COMMENTS = 64
_ARITHMETIC = {
    cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/", cst.FloorDivide: "//",
    cst.Modulo: "%", cst.Power: "**",
}
_AUGMENTED = {
    cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**",
}
_COMPARISONS = {cst.Equal: "==", cst.NotEqual: "!=", cst.Is: "is", cst.IsNot: "is not", cst.In: "in",
                cst.NotIn: "not in", cst.LessThan: "<", cst.GreaterThan: ">", cst.LessThanEqual: "<=",
                cst.GreaterThanEqual: ">="}
#: Deeper expressions than this are not evaluated (their value is unknown).
MAX_VALUE_DEPTH = 40
#: The operator of a value that is text formatted from its parts (f-strings, ``str.format``, ``str(x)``).
FORMATTED = "format"


def extract_python(module: cst.Module, text: str, module_name: str, is_package: bool = False) -> PythonFacts:
    """The facts of a parsed module whose source is ``text``."""
    collector = _Collector(module, text, module_name, is_package)
    walk(module, collector, skip_layout=True)
    return collector.finish()


#: Builtins whose result holds the elements of one argument, by its position.
_ITEM_KEEPERS = {"tuple": 0, "list": 0, "set": 0, "sorted": 0, "filter": 1}

class _Collector(cst.CSTVisitor):
    """The visitor: context bookkeeping in ``on_visit``/``on_leave``, recording in the handlers."""

    def __init__(self, module: cst.Module, text: str, module_name: str, is_package: bool) -> None:
        super().__init__()
        self.module = module
        self.text = text
        definitions = [s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        self.names = Names(module_name, is_package, definitions)
        self._bind_main_imports(module)
        self.facts = PythonFacts(module=module_name, scopes=[Scope("<module>", MODULE)])
        self.constant_names = _module_constant_names(module)
        self.ancestors: List[cst.CSTNode] = []
        self.scope_stack: List[int] = [0]
        self.bindings: List[Dict[str, Value]] = [{}]
        #: Per scope: the loops and guards around the current node (a nested def starts afresh).
        self.loop_stack: List[List[int]] = [[]]
        self.guard_stack: List[List[Guard]] = [[]]
        self.class_stack: List[ClassFacts] = []
        #: The ``if`` statements being walked (innermost last): what each arm binds, merged when it is left.
        self.branches: List[_Branch] = []
        #: Per comprehension being walked: the bindings it binds its variables in, and what they were before.
        self.comp_saved: List[Tuple[Dict[str, Value], Dict[str, Optional[Value]]]] = []
        self.memo: Dict[int, Optional[int]] = {}
        #: What a node pushed when entered, popped when left: id(node) -> actions.
        self.pushed: Dict[int, List[str]] = {}
        self.main_ifs: Set[int] = set()
        #: Nodes whose positions are needed, with the objects to fill in: values by their id (with the value,
        #: which keeps the id taken), calls by their id, scopes by index, loops by id, classes by name.
        self.value_nodes: Dict[int, Tuple[Value, cst.CSTNode]] = {}
        self.call_nodes: Dict[int, cst.CSTNode] = {}
        #: The value of each ``if`` test, read once when the ``if`` is entered and reused for its guards.
        self.test_values: Dict[int, Value] = {}
        self.scope_nodes: Dict[int, cst.CSTNode] = {}
        self.loop_nodes: Dict[int, cst.CSTNode] = {}
        self.class_nodes: Dict[str, cst.CSTNode] = {}
        #: Functions by scope index, and the marks that make one worth keeping the source of (see
        #: ``Scope.program``): "loops" (a ``for``/``while``, a ``+=``, an ``__init__`` calling its own methods),
        #: "builds" (a call of a capitalised name).
        self.function_nodes: Dict[int, cst.FunctionDef] = {}
        self.marks: Dict[int, Set[str]] = {}
        self.depth = 0

    def _bind_main_imports(self, module: cst.Module) -> None:
        """Bind the imports of the ``if __name__ == "__main__":`` block before the walk: a function defined above
        it and called from it (``train_net()`` using ``ICNetdc`` imported there) reads them when it runs."""
        for statement in module.body:
            if not (isinstance(statement, cst.If) and _is_main_test(statement.test)):
                continue
            for line in statement.body.body:
                for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Import):
                        self.names.bind_import(small)
                    elif isinstance(small, cst.ImportFrom):
                        self.names.bind_import_from(small)

    # --- context ---------------------------------------------------------------------------

    @property
    def scope(self) -> int:
        return self.scope_stack[-1]

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.ancestors.append(node)
        kind = type(node)
        handler = _HANDLERS.get(kind, _NO_HANDLER)
        if handler is _NO_HANDLER:
            handler = _HANDLERS[kind] = _handler(kind)
        if handler is not None:
            return handler(self, node) is not False
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        actions = self.pushed.pop(id(original_node), None)  # most nodes pushed nothing
        if actions:
            for action in reversed(actions):
                self._undo(action, original_node)
        self.ancestors.pop()

    def _undo(self, action: str, node: cst.CSTNode) -> None:
        if action == "arm":
            self._leave_arm(node)
            return
        if action == "branch":
            self._leave_branch()
            return
        if action == "comp-targets":
            self._leave_comprehension()
            return
        if action == "exits":
            # ``if args.profile: return`` -- what follows in the block runs only when the test failed: the guard
            # is the enclosing block's, undone when it ends (and before the guards it was entered with).
            self._push_guards(self.ancestors[-2], node.test, False)  # type: ignore[attr-defined]
            return
        self._pop(action, node)

    def _pop(self, action: str, node: cst.CSTNode) -> None:
        if action in ("scope", "main"):
            self.scope_stack.pop()
            self.bindings.pop()
            self.loop_stack.pop()
            self.guard_stack.pop()
            if isinstance(node, cst.ClassDef):
                self.class_stack.pop()
        elif action == "loop":
            self.loop_stack[-1].pop()
        elif action.startswith("guard"):
            del self.guard_stack[-1][len(self.guard_stack[-1]) - int(action[5:] or 1):]

    def _leave_comprehension(self) -> None:
        bindings, saved = self.comp_saved.pop()
        for name, value in saved.items():
            if value is None:
                bindings.pop(name, None)
            else:
                bindings[name] = value

    def _push(self, node: cst.CSTNode, action: str) -> None:
        self.pushed.setdefault(id(node), []).append(action)

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def _parent(self) -> Optional[cst.CSTNode]:
        return self.ancestors[-2] if len(self.ancestors) > 1 else None

    def _new_scope(self, scope: Scope, node: cst.CSTNode, action: str = "scope",
                   named: Optional[cst.CSTNode] = None) -> int:
        """Enter a scope for ``node`` (left again when the walk leaves it); ``named`` gives its line."""
        index = len(self.facts.scopes)
        self.facts.scopes.append(scope)
        if named is not None:
            self.scope_nodes[index] = named
        self.scope_stack.append(index)
        self.bindings.append({})
        self.loop_stack.append([])
        self.guard_stack.append([])
        self._push(node, action)
        return index

    # --- imports and definitions -----------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        self.names.bind_import(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.names.bind_import_from(node)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        owner = self.facts.scopes[self.scope]
        top_level = self.scope == 0 or owner.kind == MAIN  # a class in the ``__main__`` block binds a module name
        self.names.bind_definition(node.name.value, top_level)
        if owner.kind == FUNCTION:
            # A class defined in a function (a notebook's ``class TrainStep`` inside ``def train``): its facts are
            # kept by its name, and calls of it name it as a project reference.
            self.bindings[-1][node.name.value] = Value(REF, f"{self.names.module}.{node.name.value}")
        bases = [self._reference(arg.value) for arg in node.bases if arg.keyword is None]
        facts = ClassFacts(node.name.value, bases=[b for b in bases if b],
                           decorators=[d for d in (self._decorator(d) for d in node.decorators) if d])
        facts.is_cell = any(_is_cell_base(base) for base in facts.bases) or any(
            isinstance(s, cst.FunctionDef) and s.name.value == "construct" for s in node.body.body)
        facts.is_cell = facts.is_cell or any(
            base in self.facts.classes and self.facts.classes[base].is_cell
            for base in (b.rpartition(".")[2] for b in facts.bases if b.startswith(self.names.module + ".")))
        outer = self.scope
        facts.scope = self._new_scope(Scope(node.name.value, CLASS, cls=node.name.value, parent=outer), node,
                                      named=node.name)
        self.facts.classes.setdefault(node.name.value, facts)
        self.class_nodes[node.name.value] = node.name
        self.class_stack.append(facts)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        outer = self.scope
        owner = self.facts.scopes[outer]
        top_level = outer == 0 or owner.kind == MAIN  # a def in the ``__main__`` block binds a module name
        self.names.bind_definition(node.name.value, top_level)
        cls = owner.name if owner.kind == CLASS else ""
        params = node.params
        names = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                names.append(star.name.value)
        defaults = {
            p.name.value: self.value_of(p.default)
            for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.default is not None
        }
        qualified = f"{owner.name}.{node.name.value}" if owner.kind in (CLASS, FUNCTION) else node.name.value
        scope = Scope(qualified, FUNCTION, cls=cls, parent=outer, params=names, defaults=defaults,
                      decorators=[d for d in (self._decorator(d) for d in node.decorators) if d])
        if owner.kind == FUNCTION:
            # A function defined in a function (``def train_step`` inside ``train``): calls of it name it by its
            # dotted name, as a project reference.
            self.bindings[-1][node.name.value] = Value(REF, f"{self.names.module}.{qualified}")
        index = self._new_scope(scope, node, named=node.name)
        self.function_nodes[index] = node
        if cls and self.class_stack:
            self.class_stack[-1].methods.setdefault(node.name.value, index)
        if top_level:
            self.facts.functions[node.name.value] = index
        elif owner.kind == FUNCTION:
            self.facts.functions[qualified] = index

    def _decorator(self, decorator: cst.Decorator) -> str:
        expression = decorator.decorator
        if isinstance(expression, cst.Call):
            call_id = self._call(expression)
            if call_id is not None:
                call = self.facts.calls[call_id]
                call.decorator = True
                return call.callee or (f"{call.receiver.data}.{call.method}" if call.receiver is not None
                                       and call.receiver.kind == REF else "")
            expression = expression.func
        return self._reference(expression) or ""

    def _reference(self, expression: cst.BaseExpression) -> Optional[str]:
        """The absolute target a dotted name resolves to through the file's names, if any."""
        dotted = dotted_name(expression)
        return self.names.resolve(dotted) if dotted is not None else None

    # --- blocks: __main__, guards, loops ------------------------------------------------------

    def visit_If(self, node: cst.If) -> None:
        parent = self._parent()
        if isinstance(parent, cst.If) and parent.orelse is node:
            self._push_guards(node, parent.test, False)  # elif: the parent's test was false
            self._truth_test(node)
        elif self.scope == 0 and _is_main_test(node.test):
            self.main_ifs.add(id(node))
        else:
            self._truth_test(node)
            if node.orelse is None and _exits(node.body) and isinstance(parent, (cst.IndentedBlock, cst.Module)):
                self._push(node, "exits")
        if id(node) not in self.main_ifs:
            self._enter_branch(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._enter_suite(node)

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._enter_suite(node)

    def _enter_suite(self, node: cst.BaseSuite) -> None:
        parent = self._parent()
        if not isinstance(parent, cst.If) or parent.body is not node:
            return
        if id(parent) in self.main_ifs:
            self._new_scope(Scope("<main>", MAIN, parent=0, line=0), node, action="main")
            self.bindings[-1] = self.bindings[0]  # module-level code: it shares the module's names
            return
        self.branches[-1].test = self._push_guards(node, parent.test, True)
        self._push(node, "arm")

    def visit_Else(self, node: cst.Else) -> None:
        parent = self._parent()
        if isinstance(parent, cst.If):
            self._push_guards(node, parent.test, False)

    def _truth_test(self, node: cst.If) -> None:
        """``if all_finite(grads):``, ``if not status:``: the test of a call's result (a Tensor's truth is read on the
        host) is recorded as a call of :data:`catalogue.TRUTH_TEST` at the test."""
        value = self.test_values[id(node.test)] = self.value_of(node.test)
        if value.kind == OP and value.data == "not" and value.parts:
            value = value.parts[0]
        if value.kind == CALL or (value.kind == OP and value.data in ("[]", DERIVED)):
            self._record(node.test, id(node), Call(0, callee=ms.TRUTH_TEST, args=[value]))

    def _push_guards(self, node: cst.CSTNode, test: cst.BaseExpression, holds: bool) -> Value:
        value = self.test_values.get(id(test)) or self.value_of(test)
        guards = list(_split_guard(value, holds))
        self.guard_stack[-1].extend(guards)
        self._push(node, f"guard{len(guards)}")
        return value

    # --- names bound in the arms of an ``if`` ----------------------------------------------------
    #
    # After ``if c: x = a`` / ``else: x = b`` a read of ``x`` is ``a if c else b``: each candidate keeps the test
    # that selects it, and the project model decides the test for the program that runs it (a run on Ascend takes
    # the ``device_target == "Ascend"`` arm). The same holds for ``self.<attr>`` set in a method's arms.

    def _enter_branch(self, node: cst.If) -> None:
        attrs = self.class_stack[-1].attrs if self.class_stack and self.facts.scopes[self.scope].kind == FUNCTION \
            else None
        self.branches.append(_Branch(self.bindings[-1], attrs))
        self._push(node, "branch")

    def _leave_arm(self, node: cst.BaseSuite) -> None:
        """The body of the ``if`` is done: keep what it bound, and walk the rest from what held before it."""
        branch = self.branches[-1]
        branch.close_body(exits=_exits(node))

    def _seed_branches(self, name: str, value: Value) -> None:
        """A parameter (or an enclosing name) first rebound inside an ``if`` held ``value`` before it: each open
        ``if`` of this scope keeps that as the name's value in the arm that does not rebind it."""
        for branch in self.branches:
            if branch.bindings is self.bindings[-1]:
                branch.before.setdefault(name, value)
                if branch.body is not None:
                    branch.body.setdefault(name, value)

    def _leave_branch(self) -> None:
        self.branches.pop().merge()

    def _bind_loop_targets(self, target: cst.BaseExpression, iterable: Value, written: cst.BaseExpression) -> None:
        """``for c in (a, b, c):``: the loop variable is one of the items, each in turn -- for a display written in the
        loop itself (a list bound to a name may be appended to before the loop: not followed here)."""
        inline = type(written) is cst.Tuple or type(written) is cst.List
        items = iterable.parts if inline and iterable.kind == OP and iterable.data == "tuple" and iterable.parts \
            else None
        self._bind(target, Value(OP, EITHER, items, text=iterable.text) if items is not None else None)

    def _bind(self, target: cst.BaseExpression, value: Optional[Value]) -> None:
        """Bind a loop's target names to ``value`` (None: not known), item by item for a tuple target."""
        if isinstance(target, cst.Name):
            self.bindings[-1][target.value] = value if value is not None else \
                Value(NAME, target.value, text=target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for position, element in enumerate(target.elements):
                known = None if isinstance(element, cst.StarredElement) else _either_item(value, position)
                self._bind(element.value, known)

    def visit_For(self, node: cst.For) -> None:
        iterable = self.value_of(node.iter)
        self._push_loop(node, "for", iterable)
        self._bind_loop_targets(node.target, iterable, node.iter)

    def visit_While(self, node: cst.While) -> None:
        self._push_loop(node, "while", None)

    def _visit_comprehension(self, node: cst.BaseComp) -> None:
        # ``[Block(c) for c in channels]`` builds once per item, like a ``for`` loop; only the first
        # ``for`` is recorded (nested ones multiply, and an unknown count is unknown either way).
        iterable = self.value_of(node.for_in.iter)
        self._push_loop(node, "comp", iterable)
        # The comprehension's variables are its own: bound while it is walked, then the outer ones come back.
        names = _target_names(node.for_in.target)
        self.comp_saved.append((self.bindings[-1], {n: self.bindings[-1].get(n) for n in names}))
        self._push(node, "comp-targets")
        self._bind_loop_targets(node.for_in.target, iterable, node.for_in.iter)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _visit_comprehension

    def _push_loop(self, node: cst.CSTNode, kind: str, iterable: Optional[Value]) -> None:
        if kind != "comp":
            self.marks.setdefault(self.scope, set()).add("loops")
        stack = self.loop_stack[-1]
        loop = Loop(len(self.facts.loops), self.scope, kind, stack[-1] if stack else -1, iterable)
        self.facts.loops.append(loop)
        self.loop_nodes[loop.id] = node
        stack.append(loop.id)
        self._push(node, "loop")

    # --- statements ------------------------------------------------------------------------------

    def visit_Assign(self, node: cst.Assign) -> None:
        value = self.value_of(node.value)
        for target in node.targets:
            self._assign(target.target, value, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assign(node.target, self.value_of(node.value), node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.marks.setdefault(self.scope, set()).add("loops")
        value = self.value_of(node.value)
        op = _AUGMENTED.get(type(node.operator))
        if isinstance(node.target, cst.Name) and op is not None and not self.loop_stack[-1]:
            # ``in_channels += extra`` outside a loop: the name's value before, with the operation applied (in a
            # loop it is a running value, which the model does not follow)
            name = node.target.value
            before = self._lookup(name)
            if before is not None:
                if name not in self.bindings[-1]:
                    self._seed_branches(name, before)
                self.bindings[-1][name] = Value(OP, op, (before, value), text=name)
                return
        for name in _target_names(node.target):
            self.bindings[-1][name] = Value(NAME, name, text=name)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        value = self.value_of(node.item)
        if node.asname is not None:
            self._assign(node.asname.name, value, node.item)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.facts.scopes[self.scope].returns.append(self.value_of(node.value))

    def _assign(self, target: cst.BaseExpression, value: Value, expression: cst.BaseExpression) -> None:
        scope = self.facts.scopes[self.scope]
        if isinstance(target, cst.Name):
            name = target.value
            self.bindings[-1][name] = value
            self._note_target(value, name)
            if scope.kind == MODULE and name in self.constant_names:
                self.facts.constants[name] = value
            if scope.kind == CLASS and self.class_stack:
                self.class_stack[-1].class_attrs[name] = value
                if not self.class_stack[-1].is_cell:
                    self.facts.config.append(ConfigEntry(name, value, f"class:{scope.name}", self.scope))
            self._dict_config(name, expression)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            if target.value.value == self._self_name() and self.class_stack:
                self._set_attribute(target.attr.value, value)
            else:  # ``args.rank_save_ckpt_flag = 1``: a value the object's readers see (project/values.py)
                self.facts.config.append(ConfigEntry(target.attr.value, value, f"{ATTRIBUTE_OWNER}{target.value.value}",
                                                     self.scope, tuple(self.guard_stack[-1])))
        elif isinstance(target, cst.Subscript):
            self._environment(target, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            parts = value.parts if value.kind == OP and value.data == "tuple" else ()
            # ``train, val = make_datasets()``: each name is an item of what the call returns.
            for position, element in enumerate(target.elements):
                if isinstance(element, cst.StarredElement):
                    break  # ``a, *rest = ...``: later positions are not known
                item = parts[position] if position < len(parts) else _unpacked(value, position)
                self._assign(element.value, item, expression)

    def _set_attribute(self, name: str, value: Value) -> None:
        facts = self.class_stack[-1]
        in_init = self.facts.scopes[self.scope].name.endswith(".__init__")
        if (in_init or name not in facts.attrs) and not (name in facts.attrs and self._same_object(name, value)):
            facts.attrs[name] = value
        self._note_target(value, f"self.{name}")

    def _same_object(self, name: str, value: Value) -> bool:
        """``self.<name> = self.<name>.to_float(...)``: a call that returns its receiver leaves the attribute holding
        what it held (recording the call instead would make the attribute refer to itself)."""
        if value.kind != CALL:
            return False
        call = self.facts.calls[value.data]
        return call.method in ms.RETURNS_SELF and call.receiver is not None and call.receiver.kind == SELF and \
            call.receiver.data == name

    def _note_target(self, value: Value, target: str) -> None:
        if value.kind == CALL and not value.via:
            call = self.facts.calls[value.data]
            if not call.target:
                call.target = target

    def _dict_config(self, name: str, expression: cst.BaseExpression) -> None:
        mapping = _dict_literal(expression)
        if mapping is not None:
            for key, node in _flatten(mapping):
                entry = ConfigEntry(key, self.value_of(node), f"dict:{name}", self.scope,
                                    tuple(self.guard_stack[-1]))
                self.facts.config.append(entry)

    def _environment(self, target: cst.Subscript, value: Value) -> None:
        if dotted_name(target.value) is None or self.names.resolve(dotted_name(target.value)) != "os.environ":
            return
        key = _string_index(target)
        if key is not None:
            self.facts.config.append(ConfigEntry(key, value, "env", self.scope, tuple(self.guard_stack[-1])))

    # --- reads of self's attributes -----------------------------------------------------------------

    def visit_Attribute(self, node: cst.Attribute) -> None:
        value = node.value
        if not isinstance(value, cst.Name) or len(self.ancestors) < 2:
            return
        name = self._self_name()
        if not name or value.value != name or not self._reads_values(node):
            return
        scope = self.facts.scopes[self.scope]
        guards = tuple(self.guard_stack[-1])
        for read, known in scope.reads:
            if read == node.attr.value and len(known) == len(guards) and \
                    all(a is b and h == k for (a, h), (b, k) in zip(known, guards)):
                return
        scope.reads.append((node.attr.value, guards))

    def _reads_values(self, node: cst.Attribute) -> bool:
        """``self.x`` is read for its values: not assigned, not called, not only for its shape, not straight into
        a cast (``self.x.astype(...)``, ``ops.cast(self.x, ...)``)."""
        parent = self.ancestors[-2]
        if isinstance(parent, cst.AssignTarget) or (isinstance(parent, (cst.AnnAssign, cst.For)) and
                                                    parent.target is node):
            return False
        if isinstance(parent, cst.Call) and parent.func is node:
            return False  # self.layer(x): a call, recorded as one
        if isinstance(parent, cst.Attribute) and parent.value is node:
            attribute = parent.attr.value
            if attribute in ms.SHAPE_ATTRIBUTES:
                return False
            called = len(self.ancestors) > 2 and isinstance(self.ancestors[-3], cst.Call) and \
                self.ancestors[-3].func is parent
            return not (called and (attribute in ms.TENSOR_CAST_METHODS or (
                attribute in ms.TENSOR_DTYPE_METHODS and ms.TENSOR_DTYPE_METHODS[attribute] != ms.FLOAT64)))
        if isinstance(parent, cst.Arg) and len(self.ancestors) > 2 and isinstance(self.ancestors[-3], cst.Call):
            call = self.ancestors[-3]
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in ms.SHAPE_METHODS:
                return False
            callee = self._callee_name(call.func)
            if callee in ms.SHAPE_FUNCTIONS:
                return False
            first = bool(call.args) and call.args[0] is parent
            if first and (callee in ms.CAST_FUNCTIONS or callee == ms.CAST_PRIMITIVE):
                return False
        return True

    def _callee_name(self, func: cst.BaseExpression) -> str:
        """What a call's function is: a qualified name, ``len``, the primitive a ``self.<attr>`` or
        ``P.Shape()`` holds; "" when not known."""
        if isinstance(func, cst.Call):
            return self._callee_name(func.func)  # P.Shape()(x): the primitive's class
        dotted = dotted_name(func)
        if dotted is None:
            return ""
        head, _, rest = dotted.partition(".")
        if head == self._self_name() and rest and "." not in rest and self.class_stack:
            attr = self.class_stack[-1].attrs.get(rest)
            if attr is not None and attr.kind == CALL:
                return self.facts.calls[attr.data].callee
            return ""
        if self._is_local(head):
            return ""
        return self.names.resolve(dotted) or (dotted if not rest else "")

    # --- calls ------------------------------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        self._call(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            self._matmul_operator(node)

    def _matmul_operator(self, node: cst.BinaryOperation) -> int:
        key = id(node)
        if key in self.memo:
            return self.memo[key]  # type: ignore[return-value]
        args = [self.value_of(node.left), self.value_of(node.right)]
        return self._record(node, key, Call(0, callee=ms.MATMUL_OPERATOR, args=args))

    def _call(self, node: cst.Call) -> Optional[int]:
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a call reached again while its own arguments are read is not recorded twice
        call = self._describe(node)
        if call is None:
            return None
        for arg in node.args:
            if arg.star == "*":
                call.star = True
            elif arg.star == "**":
                call.double_star = True
            elif arg.keyword is not None:
                call.kwargs[arg.keyword.value] = self.value_of(arg.value)
            else:
                call.args.append(self.value_of(arg.value))
        return self._record(node, key, call)

    def _record(self, node: cst.CSTNode, key: int, call: Call) -> int:
        call.id = len(self.facts.calls)
        call.scope = self.scope
        call.loops = tuple(self.loop_stack[-1])
        call.guards = tuple(self.guard_stack[-1])
        name = call.callee.rsplit(".", 1)[-1] if call.callee else call.method
        if name[:1].isupper():
            self.marks.setdefault(self.scope, set()).add("builds")
        elif call.callee.startswith("self.") and self.facts.scopes[self.scope].name.endswith(".__init__"):
            # ``self.layer1 = self._make_layer(block, 64, 3)``: the methods it runs share ``self`` state
            self.marks.setdefault(self.scope, set()).add("loops")
        self.facts.calls.append(call)
        self.call_nodes[call.id] = node
        self.memo[key] = call.id
        return call.id

    def _describe(self, node: cst.Call) -> Optional[Call]:
        """What the call names, or None when it is not worth recording."""
        func = node.func
        dotted = dotted_name(func)
        if dotted is not None:
            head, _, rest = dotted.partition(".")
            if head == self._self_name() and rest:
                if "." in rest:
                    # ``self.reader.load(i)``: any method of an object held in an attribute may be project code
                    return self._method(func, node, any_name=rest.count(".") == 1)
                return Call(0, callee=f"self.{rest}")
            if self._is_local(head):
                if not rest:
                    bound = self._lookup(head)
                    if bound is not None and bound.kind == REF and bound.data.startswith(self.names.module + "."):
                        return Call(0, callee=bound.data)  # a function defined in the enclosing function
                    return Call(0, method="__call__", receiver=self.value_of(func))
                # ``reporter = Reporter(args)`` then ``reporter.step_end(loss)``: any method of an object a project
                # class or factory built may be project code, as for ``self.reader.load(i)``
                return self._method(func, node, any_name="." not in rest and self._built_by_project(head))
            resolved = self.names.resolve(dotted)
            if resolved is not None:
                self._note_work(resolved)
                return Call(0, callee=resolved) if _worth_recording(resolved) else None
            if not rest:
                self._note_work(head)
                return Call(0, callee=head) if head in ms.INTERESTING_GLOBALS else None
            return self._method(func, node)
        if isinstance(func, cst.Attribute):
            return self._method(func, node)
        return Call(0, method="__call__", receiver=self.value_of(func))

    def _built_by_project(self, name: str) -> bool:
        """``name`` holds what a call of something outside MindSpore, the standard library and known third parties
        returns (``Reporter(args)``, ``make_logger()``): a project object, or one the model cannot place."""
        bound = self._lookup(name)
        candidates = choices(bound) if bound is not None and choices(bound) else (bound,)
        for value in candidates:
            call = self.facts.calls[value.data] if value is not None and value.kind == CALL and isinstance(
                value.data, int) and value.data < len(self.facts.calls) else None
            if call is not None and call.callee and not call.callee.startswith("self.") and \
                    call.callee.split(".", 1)[0] not in ms.MINDSPORE_PACKAGES and not _known_package(call.callee):
                return True
        return False

    def _note_work(self, qualified: str) -> None:
        """A call that reads or decodes a sample from storage, or draws random numbers: noted on the scope."""
        # A reader of a package that may be the project's own (``src.io.load_image``) is decided by the model,
        # which knows the project's modules: its calls are recorded and followed.
        if (ms.is_sample_reader(qualified) and _known_package(qualified)) or ms.is_random_draw(qualified):
            work = self.facts.scopes[self.scope].work
            if qualified not in work:
                work.append(qualified)

    def _method(self, func: cst.BaseExpression, node: cst.Call, any_name: bool = False) -> Optional[Call]:
        if not isinstance(func, cst.Attribute):
            return None
        name = func.attr.value
        if name not in ms.INTERESTING_METHODS and not any_name:
            return None
        return Call(0, method=name, receiver=self.value_of(func.value))

    def _self_name(self) -> str:
        """The first parameter of the method being read (``self``), "" outside methods."""
        for index in reversed(self.scope_stack):
            scope = self.facts.scopes[index]
            if scope.kind == FUNCTION:
                return scope.params[0] if scope.cls and scope.params else ""
        return ""

    def _is_local(self, name: str) -> bool:
        """Bound in the current function (or an enclosing one), or a module-level variable in module code."""
        for index, scope_index in zip(range(len(self.scope_stack) - 1, -1, -1), reversed(self.scope_stack)):
            scope = self.facts.scopes[scope_index]
            if scope.kind == CLASS:
                continue
            if name in self.bindings[index] or name in scope.params:
                return True
            if scope.kind in (MODULE, MAIN):
                return False
        return False

    # --- values -----------------------------------------------------------------------------

    def value_of(self, node: Optional[cst.BaseExpression]) -> Value:
        """What ``node`` is known to be here (recording the calls inside it)."""
        if node is None:
            return unknown()
        self.depth += 1
        try:
            if self.depth > MAX_VALUE_DEPTH:
                return self._placed(unknown(), node)
            return self._value(node)
        finally:
            self.depth -= 1

    def _value(self, node: cst.BaseExpression) -> Value:
        literal = _literal(node)
        if literal is not _NOT_LITERAL:
            return self._placed(Value(LIT, literal), node)
        kind = type(node)  # exact types, as in _literal
        if kind is cst.Name:
            return self._name(node)
        if kind is cst.Attribute:
            return self._attribute(node)
        if kind is cst.Subscript:
            key = _string_index(node)
            if key is not None:
                return self._placed(Value(CFG, key, root=_short(dotted_name(node.value) or "")), node)
            base = self.value_of(node.value)
            position = _integer_index(node)
            if position is not None:
                return self._placed(Value(OP, "[]", (base, Value(LIT, position))), node)
            key = _index(node)
            if key is not None:
                return self._placed(Value(OP, LOOKUP, (base, self.value_of(key))), node)
            return self._placed(unknown(), node)
        if kind is cst.Call:
            return self._call_value(node)
        if kind in (cst.ListComp, cst.SetComp, cst.GeneratorExp):
            return self._placed(Value(OP, ITEMS, (self.value_of(node.for_in.iter),)), node)
        if kind is cst.BinaryOperation:
            return self._binary(node)
        if kind is cst.UnaryOperation:
            return self._unary(node)
        if kind is cst.BooleanOperation:
            op = "and" if isinstance(node.operator, cst.And) else "or"
            return self._placed(Value(OP, op, (self.value_of(node.left), self.value_of(node.right))), node)
        if kind is cst.Comparison and len(node.comparisons) == 1:
            target = node.comparisons[0]
            op = _COMPARISONS.get(type(target.operator), "?")
            return self._placed(Value(OP, op, (self.value_of(node.left), self.value_of(target.comparator))), node)
        if kind is cst.Tuple or kind is cst.List:
            parts = tuple(self.value_of(e.value) for e in node.elements if not isinstance(e, cst.StarredElement))
            return self._placed(Value(OP, "tuple", parts), node)
        if kind is cst.Dict:
            mapping = _literal_mapping(node)
            if mapping is not None:
                return self._placed(Value(LIT, mapping), node)
            return self._placed(self._dict_display(node), node)
        if kind is cst.IfExp:
            parts = (self.value_of(node.test), self.value_of(node.body), self.value_of(node.orelse))
            return self._placed(Value(OP, "ifexp", parts), node)
        if kind is cst.FormattedString or kind is cst.ConcatenatedString:
            return self._placed(Value(OP, FORMATTED, tuple(self.value_of(e) for e in _formatted_parts(node))), node)
        return self._placed(unknown(), node)

    def _dict_display(self, node: cst.Dict) -> Value:
        """A dict display of string keys and values that are not all literals (``DICT``), else unknown."""
        parts: List[Value] = []
        for element in node.elements:
            key = _literal(element.key) if isinstance(element, cst.DictElement) else _NOT_LITERAL
            if not isinstance(key, str):
                return unknown()
            parts.extend((Value(LIT, key), self.value_of(element.value)))
        return Value(OP, DICT, tuple(parts))

    def _placed(self, value: Value, node: cst.CSTNode) -> Value:
        self.value_nodes[id(value)] = (value, node)  # positions are filled in by finish()
        return value

    def _name(self, node: cst.Name) -> Value:
        name = node.value
        found = self._lookup(name)
        if found is not None:
            if found.kind == PARAM:
                return self._placed(found, node)
            copy = replace(found, via=found.via or name)
            placed = self.value_nodes.get(id(found))  # the table holds the value: its id is not reused
            if placed is not None:
                self.value_nodes[id(copy)] = (copy, placed[1])
            return copy
        resolved = self.names.resolve(name)
        if resolved is not None:
            return self._placed(Value(REF, resolved), node)
        return self._placed(Value(NAME, name), node)

    def _lookup(self, name: str) -> Optional[Value]:
        """A local binding or parameter of ``name`` (innermost function first), or a module constant."""
        in_function = False
        for index in range(len(self.scope_stack) - 1, -1, -1):
            scope = self.facts.scopes[self.scope_stack[index]]
            if scope.kind == CLASS:
                continue
            if scope.kind == FUNCTION:
                in_function = True
                if name in self.bindings[index]:
                    return self.bindings[index][name]
                if name in scope.params:
                    return Value(PARAM, name)
                continue
            if not in_function and name in self.bindings[index]:
                return self.bindings[index][name]
        if name in self.facts.constants:
            return self.facts.constants[name]
        return None

    def _attribute(self, node: cst.Attribute) -> Value:
        dotted = dotted_name(node)
        if dotted is None:
            base = self.value_of(node.value)
            return self._placed(Value(CFG, node.attr.value, root=_short(base.text or "")), node)
        head, _, rest = dotted.partition(".")
        root, _, key = dotted.rpartition(".")
        if head == self._self_name():
            parts = rest.split(".")
            if len(parts) == 1:
                return self._placed(Value(SELF, rest), node)
            owner = self.value_of(node.value)  # self.config.hidden_size: an attribute of what self.config holds
            return self._placed(Value(CFG, key, (owner,), root=root), node)
        if not self._is_local(head) and head not in self.facts.constants:
            resolved = self.names.resolve(dotted)
            if resolved is not None:
                return self._placed(Value(REF, resolved), node)
        owner = self.value_of(node.value)
        if owner.kind in (CALL, PARAM, SELF, CFG):
            return self._placed(Value(CFG, key, (owner,), root=root), node)  # config.hidden_size of a known object
        return self._placed(Value(CFG, key, root=root), node)

    def _call_value(self, node: cst.Call) -> Value:
        if dotted_name(node.func) and self.names.resolve(dotted_name(node.func)) == "json.dumps" and node.args:
            mapping = _literal_mapping(node.args[0].value)
            if mapping is not None:
                import json

                return self._placed(Value(LIT, json.dumps(mapping)), node)
        if self._formats(node):
            # ``"loss {}".format(x)``, ``str(x)``: text made from the values (formatting a tensor reads it).
            return self._placed(Value(OP, FORMATTED, tuple(self.value_of(a.value) for a in node.args)), node)
        call_id = self._call(node)
        call = self.facts.calls[call_id] if call_id is not None else None
        cast = self._cast_of(node, call)
        if cast is not None:
            return cast
        if call is not None and call.method == "get" and call.args and call.args[0].kind == LIT \
                and isinstance(call.args[0].data, str) and call.receiver is not None and call.receiver.kind != REF:
            default = call.args[1] if len(call.args) > 1 else unknown()
            return self._placed(Value(CFG, call.args[0].data, (call.receiver, default), root=call.receiver.text), node)
        if call is None:
            items = self._items_of(node)
            if items is not None:
                return self._placed(Value(OP, ITEMS, (items,)), node)
            inner = [self.value_of(a.value) for a in node.args if not a.star]
            if self._builtin_len(node):
                return self._placed(Value(OP, LENGTH, (inner[0],)), node)
            if isinstance(node.func, cst.Attribute):
                receiver = self.value_of(node.func.value)
                if receiver.kind == CALL or (receiver.kind == OP and receiver.data in ("[]", DERIVED)):
                    # ``logits.argmax(1)``: made from a call's result (what a train step returns, say).
                    return self._placed(Value(OP, DERIVED, (receiver,), cast=_first_cast(inner)), node)
            return self._placed(Value(UNKNOWN, cast=_first_cast(inner)), node)
        history = [*(call.args), *call.kwargs.values(), *([call.receiver] if call.receiver is not None else [])]
        return self._placed(Value(CALL, call_id, cast=_first_cast(history)), node)

    def _builtin_len(self, node: cst.Call) -> bool:
        """``len(x)``: the builtin (not a local or imported ``len``), one positional argument."""
        return isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1 \
            and not node.args[0].star and node.args[0].keyword is None and not self._is_local("len") \
            and self.names.resolve("len") is None

    def _items_of(self, node: cst.Call) -> Optional[Value]:
        """The iterable a builtin that keeps its elements is called on (``tuple(x)``, ``list(x)``, ``filter(f, x)``)."""
        func = node.func
        if not isinstance(func, cst.Name) or func.value not in _ITEM_KEEPERS or self._is_local(func.value) \
                or self.names.resolve(func.value) is not None:
            return None
        position = _ITEM_KEEPERS[func.value]
        if len(node.args) <= position or any(a.star or a.keyword for a in node.args[:position + 1]):
            return None
        return self.value_of(node.args[position].value)

    def _formats(self, node: cst.Call) -> bool:
        """``"...".format(...)`` on a string literal, or the builtin ``str(x)``/``repr(x)``."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "format":
            return isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
        return isinstance(func, cst.Name) and func.value in ("str", "repr") and len(node.args) == 1 \
            and not self._is_local(func.value) and self.names.resolve(func.value) is None

    def _cast_of(self, node: cst.Call, call: Optional[Call]) -> Optional[Value]:
        """``ops.cast(x, dt)``, ``x.astype(dt)``, ``x.half()``, ``Cast()(x, dt)``: the value of x, cast."""
        if call is None:
            return None
        operand: Optional[Value] = None
        dtype: Optional[str] = None
        if call.callee in ms.CAST_FUNCTIONS and len(call.args) >= 2:
            operand, dtype = call.args[0], _dtype(call.args[1])
        elif call.method in ms.TENSOR_CAST_METHODS and call.receiver is not None and call.args:
            operand, dtype = call.receiver, _dtype(call.args[0])
        elif call.method in ms.TENSOR_DTYPE_METHODS and call.receiver is not None and not call.args:
            operand, dtype = call.receiver, ms.TENSOR_DTYPE_METHODS[call.method]
        elif len(call.args) >= 2 and self._is_cast_primitive(call):
            operand, dtype = call.args[0], _dtype(call.args[1])
        if operand is None or dtype is None:
            return None
        return self._placed(replace(operand, cast=dtype, kind=operand.kind), node)

    def _is_cast_primitive(self, call: Call) -> bool:
        if call.method == "__call__" and call.receiver is not None and call.receiver.kind == CALL:
            return self.facts.calls[call.receiver.data].callee == ms.CAST_PRIMITIVE
        if call.callee.startswith("self.") and self.class_stack:
            attr = self.class_stack[-1].attrs.get(call.callee[5:])
            return attr is not None and attr.kind == CALL and self.facts.calls[attr.data].callee == ms.CAST_PRIMITIVE
        return False

    def _binary(self, node: cst.BinaryOperation) -> Value:
        if isinstance(node.operator, cst.MatrixMultiply):
            call_id = self._matmul_operator(node)
            call = self.facts.calls[call_id]
            return self._placed(Value(CALL, call_id, cast=_first_cast(call.args)), node)
        op = _ARITHMETIC.get(type(node.operator))
        left, right = self.value_of(node.left), self.value_of(node.right)
        if op is None:
            return self._placed(Value(UNKNOWN, cast=_first_cast([left, right])), node)
        if left.kind == LIT and right.kind == LIT:
            result = _arithmetic(op, left.data, right.data)
            if result is not _NOT_LITERAL:
                return self._placed(Value(LIT, result), node)
        return self._placed(Value(OP, op, (left, right), cast=_first_cast([left, right])), node)

    def _unary(self, node: cst.UnaryOperation) -> Value:
        operand = self.value_of(node.expression)
        if isinstance(node.operator, cst.Not):
            return self._placed(Value(OP, "not", (operand,)), node)
        if isinstance(node.operator, cst.Minus):
            if operand.kind == LIT and _is_number(operand.data):
                return self._placed(Value(LIT, -operand.data), node)
            return self._placed(Value(OP, "neg", (operand,)), node)
        return self._placed(unknown(), node)

    # --- after the walk ------------------------------------------------------------------------

    def finish(self) -> PythonFacts:
        facts = self.facts
        facts.imports_mindspore = self.names.imports_mindspore
        facts.imports = sorted(set(self.names.imported))
        facts.aliases = {k: v for k, v in self.names.table.items() if k not in self.names.local}
        facts.star_imports = list(self.names.star)
        facts.comments = _marked_comments(self.text)
        self._resolve_positions()
        return facts

    def _resolve_positions(self) -> None:
        placed = self.value_nodes
        values = [(v, placed[id(v)][1]) for v in _values_of(self.facts) if id(v) in placed]
        appendable = [(c, self.call_nodes[c.id]) for c in self.facts.calls
                      if c.callee in APPENDABLE or c.method in APPENDABLE_METHODS]
        anchor = _import_anchor(self.module)
        wanted: Dict[int, cst.CSTNode] = {id(node): node for _, node in values}
        programs = {i: self.function_nodes[i] for i, marks in self.marks.items()
                    if len(marks) == 2 and i in self.function_nodes}
        for nodes in (self.call_nodes, self.scope_nodes, self.loop_nodes, self.class_nodes, programs):
            wanted.update((id(node), node) for node in nodes.values())
        for _, node in appendable:
            for arg in node.args:  # type: ignore[attr-defined]
                wanted[id(arg)] = arg
                if type(arg.comma) is cst.Comma:
                    wanted[id(arg.comma)] = arg.comma
        if anchor is not None:
            wanted[id(anchor)] = anchor
        spans = spans_of(self.module, wanted, self.text) if wanted else {}
        index = LineIndex(self.text)
        offset = index.offset
        self._place(values, spans, offset)
        self._keep_programs(programs, spans, offset)
        text = self.text
        for call, node in appendable:
            call.insert = _keyword_insertion(node, spans, text, offset)  # type: ignore[arg-type]
        self.facts.import_insert = (0, "", "\r\n" if "\r\n" in text else "\n")
        if anchor is not None and id(anchor) in spans:
            self.facts.import_insert = _import_insert(spans[id(anchor)][2], text, index)

    def _keep_programs(self, programs: Dict[int, cst.FunctionDef], spans: Dict[int, Tuple[int, int, int, int]],
                       offset: Callable[[int, int], int]) -> None:
        """Keep the source of the functions marked worth running with known sizes, from the start of their line."""
        for index, node in programs.items():
            span = spans.get(id(node))
            if span is not None:
                start, end = offset(span[0], 0), offset(span[2], span[3])
                scope = self.facts.scopes[index]
                scope.program, scope.program_start = self.text[start:end], start

    def _place(self, values: List[Tuple[Value, cst.CSTNode]], spans: Dict[int, Tuple[int, int, int, int]],
               offset: Callable[[int, int], int]) -> None:
        """Give the recorded values, calls, scopes, loops and classes their positions (and values their text)."""
        text = self.text
        for value, node in values:
            span = spans.get(id(node))
            if span is not None:
                value.line, value.column = span[0], span[1]
                value.start, value.end = offset(span[0], span[1]), offset(span[2], span[3])
                if not value.text:
                    value.text = _short(text[value.start:value.end])
        for call in self.facts.calls:
            span = spans.get(id(self.call_nodes[call.id]))
            if span is not None:
                call.line, call.column, call.end_line, call.end_column = span
                call.start, call.end = offset(span[0], span[1]), offset(span[2], span[3])
        for scope_index, node in self.scope_nodes.items():
            span = spans.get(id(node))
            if span is not None:
                self.facts.scopes[scope_index].line = span[0]
        for loop_id, node in self.loop_nodes.items():
            span = spans.get(id(node))
            if span is not None:
                self.facts.loops[loop_id].line = span[0]
        for name, node in self.class_nodes.items():
            span = spans.get(id(node))
            if span is not None:
                self.facts.classes[name].line, self.facts.classes[name].column = span[0], span[1]


# --- helpers ----------------------------------------------------------------------------------

_NOT_LITERAL = object()
_NO_HANDLER = object()
#: Node type -> the collector's own ``visit_`` function for it, or None (libcst's do-nothing default), looked
#: up once per type. Kept on the class, not the instance: bound methods in an instance's dict would make each
#: collector a reference cycle that keeps its whole tree alive until the garbage collector finds it.
_HANDLERS: Dict[type, Optional[Callable[..., Any]]] = {}


def _handler(kind: type) -> Optional[Callable[..., Any]]:
    name = "visit_" + kind.__name__
    function = getattr(_Collector, name, None)
    return None if function is None or function is getattr(cst.CSTVisitor, name, None) else function


def _literal(node: cst.BaseExpression) -> Any:
    # Exact types: libcst's node classes are ABCs, and an isinstance check against one costs a call into ABCMeta
    # (this runs for nearly every expression). Parsed trees hold the concrete classes themselves.
    kind = type(node)
    if kind is cst.Name:
        return _CONSTANTS.get(node.value, _NOT_LITERAL)  # type: ignore[attr-defined]
    if kind is cst.Integer:
        try:
            return int(node.value.replace("_", ""), 0)  # type: ignore[attr-defined]
        except ValueError:
            return _NOT_LITERAL
    if kind is cst.SimpleString:
        return _string(node)  # type: ignore[arg-type]
    if kind is cst.Float:
        try:
            return float(node.value.replace("_", ""))  # type: ignore[attr-defined]
        except ValueError:
            return _NOT_LITERAL
    if kind is cst.ConcatenatedString:
        left, right = _literal(node.left), _literal(node.right)  # type: ignore[attr-defined]
        return left + right if isinstance(left, str) and isinstance(right, str) else _NOT_LITERAL
    return _NOT_LITERAL


_CONSTANTS = {"True": True, "False": False, "None": None}


def _string(node: cst.SimpleString) -> Any:
    """A string literal's value. Most have no escapes: their text is their value, with no call into Python's
    compiler (``evaluated_value`` compiles each one)."""
    prefix = node.prefix.lower()
    if "b" in prefix:
        return _NOT_LITERAL
    quote = node.quote
    body = node.value[len(node.prefix) + len(quote):-len(quote)]
    if "\\" not in body and "\r" not in body or "r" in prefix and "\r" not in body:
        return body
    try:
        with quiet_compiler():  # "\\l" is a warning of the user's code, not ours to print
            value = node.evaluated_value
    except Exception:  # noqa: BLE001 -- an odd literal is simply not known
        return _NOT_LITERAL
    return value if isinstance(value, str) else _NOT_LITERAL


def _literal_mapping(node: cst.BaseExpression, depth: int = 0) -> Optional[Dict[str, Any]]:
    """A dict display of string keys and literal values (nested ones too), else None."""
    if not isinstance(node, cst.Dict) or depth > 8:
        return None
    found: Dict[str, Any] = {}
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            return None
        key = _literal(element.key)
        value = _literal(element.value)
        if value is _NOT_LITERAL:
            value = _literal_mapping(element.value, depth + 1)
            if value is None:
                return None
        if not isinstance(key, str):
            return None
        found[key] = value
    return found


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _arithmetic(op: str, left: Any, right: Any) -> Any:
    if not (_is_number(left) and _is_number(right)):
        if op == "+" and isinstance(left, str) and isinstance(right, str) and len(left) + len(right) < 200:
            return left + right
        return _NOT_LITERAL
    if op == "**" and (abs(right) > 64 or abs(left) > 1 << 16):
        return _NOT_LITERAL  # 2 ** 10 ** 9 would hang the linter
    try:
        result = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
                  "/": lambda: left / right, "//": lambda: left // right, "%": lambda: left % right,
                  "**": lambda: left ** right}[op]()
    except (ArithmeticError, ValueError, TypeError):
        return _NOT_LITERAL
    if isinstance(result, int) and abs(result) > 1 << 64:
        return _NOT_LITERAL
    return result


def _dtype(value: Value) -> Optional[str]:
    if value.kind == REF:
        return ms.dtype_of(value.data)
    if value.kind == LIT and isinstance(value.data, str):
        return ms.dtype_of("mindspore." + value.data)
    return None


def _first_cast(values: List[Value]) -> str:
    return next((v.cast for v in values if v is not None and v.cast), "")


def _is_cell_base(base: str) -> bool:
    return base.startswith("mindspore.nn.") or base in ("mindspore.nn", "mindspore.nn.Cell")


def _known_package(qualified: str) -> bool:
    """``qualified`` names something of a package that is never the project's: the standard library, a known third
    party, MindSpore, a builtin (``open``)."""
    head = qualified.split(".", 1)[0]
    return head in THIRD_PARTY or head in STANDARD_LIBRARY or head in ms.MINDSPORE_PACKAGES or head in _BUILTINS


def _worth_recording(qualified: str) -> bool:
    head = qualified.split(".", 1)[0]
    last = qualified.rsplit(".", 1)[-1]
    if head in ms.MINDSPORE_PACKAGES:
        return True
    if last in ms.FILE_READERS or last in ms.WEIGHT_LOADERS or last in ms.CONFIG_READERS:
        return True
    if qualified in ms.SHAPE_BUILDERS or qualified in ms.DIMS_AS_ARGUMENTS:
        return True  # numpy arrays that become weights: their shapes are MatMul dims
    if qualified in ms.NUMPY_FLOAT64 or qualified in ms.NUMPY_DTYPE_CALLS or qualified in ms.ITERATION_WRAPPERS:
        return True  # float64 data kept by cells; loops over a dataset
    if qualified in ms.NUMERIC_FUNCTIONS:
        return True  # sizes computed from known numbers
    if qualified.startswith(("os.environ", "os.putenv")) or qualified in ms.HOST_READ_LOGGING_FUNCTIONS:
        return True
    return head not in THIRD_PARTY and head not in STANDARD_LIBRARY and head not in _BUILTINS


_EXIT_CALLS = frozenset(("sys.exit", "exit", "quit", "os._exit"))


def _exits(body: cst.BaseSuite) -> bool:
    """The block ends by leaving what follows it: ``return``, ``raise``, ``sys.exit()``, and in a loop ``continue``
    and ``break`` (the rest of the loop's body runs only when the test failed)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    last = statements[-1] if statements else None
    smalls = last.body if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else []
    final = smalls[-1] if smalls else None
    if isinstance(final, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
        return True
    return isinstance(final, cst.Expr) and isinstance(final.value, cst.Call) and \
        dotted_name(final.value.func) in _EXIT_CALLS


def _is_main_test(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    sides = [test.left, test.comparisons[0].comparator]
    names = {s.value for s in sides if isinstance(s, cst.Name)}
    strings = {_literal(s) for s in sides if isinstance(s, (cst.SimpleString, cst.ConcatenatedString))}
    return names == {"__name__"} and strings == {"__main__"} and isinstance(test.comparisons[0].operator, cst.Equal)


def _split_guard(value: Value, holds: bool) -> Iterator[Guard]:
    """``not x`` is x not holding; ``a and b`` holding is both holding; ``a or b`` failing is both failing."""
    if value.kind == OP and value.data == "not":
        yield from _split_guard(value.parts[0], not holds)
        return
    if value.kind == OP and ((value.data == "and" and holds) or (value.data == "or" and not holds)):
        for part in value.parts:
            yield from _split_guard(part, holds)
        return
    yield value, holds


def _unpacked(value: Value, position: int) -> Value:
    """Item ``position`` of a call's result (or of a parameter or attribute holding one), of a config read or of a
    lookup, unpacked by ``a, b = f()`` (``f()[position]``; ``depth, width = {"s": (2, 32)}[args.size]``), else
    unknown."""
    root = value
    while root.kind == OP and root.data == "[]" and root.parts:
        root = root.parts[0]
    if root.kind not in (CALL, PARAM, SELF, CFG) and not (root.kind == OP and root.data == LOOKUP):
        return unknown()
    return Value(OP, "[]", (value, Value(LIT, position)), text=value.text)


def _formatted_parts(node: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The expressions an f-string (or a concatenation of strings) formats."""
    if isinstance(node, cst.ConcatenatedString):
        yield from _formatted_parts(node.left)
        yield from _formatted_parts(node.right)
    elif isinstance(node, cst.FormattedString):
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                yield part.expression


class _Branch:
    """What an ``if`` statement's arms bind: the names of the scope (and ``self`` attributes of a method)."""

    __slots__ = ("bindings", "attrs", "before", "attrs_before", "body", "attrs_body", "test")

    def __init__(self, bindings: Dict[str, Value], attrs: Optional[Dict[str, Value]]) -> None:
        self.bindings = bindings
        self.attrs = attrs
        self.before = dict(bindings)
        self.attrs_before = dict(attrs) if attrs is not None else None
        #: What the body bound (None while it is walked, or when it leaves: ``return``, ``raise``, ``continue``).
        self.body: Optional[Dict[str, Value]] = None
        self.attrs_body: Optional[Dict[str, Value]] = None
        self.test: Value = unknown()

    def close_body(self, exits: bool) -> None:
        """The body is done: keep what it bound (unless it leaves) and start the rest from what held before."""
        if not exits:
            self.body = dict(self.bindings)
            self.attrs_body = dict(self.attrs) if self.attrs is not None else None
        else:
            self.body = self.attrs_body = None
        _restore(self.bindings, self.before)
        if self.attrs is not None and self.attrs_before is not None:
            _restore(self.attrs, self.attrs_before)

    def merge(self) -> None:
        """The whole statement is done: a name the arms bind differently is either arm's value, by the test."""
        if self.body is not None:
            _merge(self.bindings, self.body, self.test)
        if self.attrs is not None and self.attrs_body is not None:
            _merge(self.attrs, self.attrs_body, self.test)


def _restore(current: Dict[str, Value], saved: Dict[str, Value]) -> None:
    """Make ``current`` hold ``saved`` again, in place (the ``__main__`` block shares the module's dict)."""
    current.clear()
    current.update(saved)


def _merge(current: Dict[str, Value], body: Dict[str, Value], test: Value) -> None:
    """``current`` holds what the ``else`` arm left; make each name the body binds otherwise ``body if test else``."""
    for name, value in body.items():
        other = current.get(name)
        if other is value:
            continue
        current[name] = value if other is None else Value(OP, "ifexp", (test, value, other), text=value.text)


def _either_item(value: Optional[Value], position: int) -> Optional[Value]:
    """Item ``position`` of each candidate of ``either(...)`` of tuples (None unless all have one)."""
    if value is None or not (value.kind == OP and value.data == EITHER):
        return None
    items = []
    for part in value.parts:
        if not (part.kind == OP and part.data == "tuple" and position < len(part.parts)):
            return None
        items.append(part.parts[position])
    return Value(OP, EITHER, tuple(items))


def _target_names(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    return []


def _string_index(node: cst.Subscript) -> Optional[str]:
    index = _index(node)
    key = _literal(index) if index is not None else None
    return key if isinstance(key, str) else None


def _index(node: cst.Subscript) -> Optional[cst.BaseExpression]:
    """The one index of ``container[index]`` (not a slice), else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return node.slice[0].slice.value


def _integer_index(node: cst.Subscript) -> Optional[int]:
    value = _index(node)
    if value is None:
        return None
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        inner = _literal(value.expression)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else None
    index = _literal(value)
    return index if isinstance(index, int) and not isinstance(index, bool) else None


def _dict_literal(expression: cst.BaseExpression) -> Optional[cst.Dict]:
    if isinstance(expression, cst.Call) and len(expression.args) == 1 and expression.args[0].keyword is None:
        expression = expression.args[0].value  # ed({...}), EasyDict({...}), dict({...})
    return expression if isinstance(expression, cst.Dict) else None


def _flatten(mapping: cst.Dict) -> Iterator[Tuple[str, cst.BaseExpression]]:
    for element in mapping.elements:
        if not isinstance(element, cst.DictElement):
            continue
        key = _literal(element.key)
        if not isinstance(key, str):
            continue
        nested = _dict_literal(element.value)
        if nested is not None:
            yield from _flatten(nested)
        else:
            yield key, element.value


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LIMIT else text[: TEXT_LIMIT - 3] + "..."


def _module_constant_names(module: cst.Module) -> Set[str]:
    """Names assigned exactly once at module level, in a simple statement (not inside if/for/try)."""
    counts: Dict[str, int] = {}
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets: List[cst.BaseExpression] = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                for target in targets:
                    for name in _target_names(target):
                        counts[name] = counts.get(name, 0) + (1 if isinstance(small, cst.Assign) and
                                                              isinstance(target, cst.Name) else 2)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            counts[statement.name.value] = 2
        else:
            for name in _compound_bindings(statement):
                counts[name] = 2
    return {name for name, count in counts.items() if count == 1}


def _compound_bindings(statement: cst.CSTNode) -> Iterator[str]:
    """Names bound inside a compound statement at module level (not inside nested defs)."""
    stack: List[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node is not statement:
            yield node.name.value
            continue
        if isinstance(node, cst.AssignTarget):
            yield from _target_names(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            yield from _target_names(node.target)
        elif isinstance(node, cst.For):
            yield from _target_names(node.target)
        stack.extend(child for child in node.children)


def _marked_comments(text: str) -> List[Tuple[int, str]]:
    """``(line, comment)`` for comments that mention a :data:`~ms_perflint.catalogue.COMMENT_MARKERS` word.

    A ``#`` counts when it is outside a string on its line (a quote count before it
    is even); a line inside a multi-line string may be taken for a comment, which only
    makes a rule more careful.
    """
    if not any(marker in text for marker in ms.COMMENT_MARKERS):
        return []
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if "#" not in line or not any(marker in line for marker in ms.COMMENT_MARKERS):
            continue
        for position, character in enumerate(line):
            if character == "#" and line.count("'", 0, position) % 2 == 0 and line.count('"', 0, position) % 2 == 0:
                comment = line[position + 1:].strip()
                if any(marker in comment for marker in ms.COMMENT_MARKERS):
                    found.append((number, _short(comment)))
                break
        if len(found) >= MAX_COMMENTS:
            break
    return found


def _values_of(facts: PythonFacts) -> Iterator[Value]:
    """Every value in the facts, nested ones included (each object once)."""
    seen: Set[int] = set()
    stack: List[Value] = []
    for call in facts.calls:
        stack.extend(call.args)
        stack.extend(call.kwargs.values())
        if call.receiver is not None:
            stack.append(call.receiver)
        stack.extend(v for v, _ in call.guards)
    for scope in facts.scopes:
        stack.extend(scope.defaults.values())
        stack.extend(scope.returns)
        stack.extend(v for _, guards in scope.reads for v, _ in guards)
    for cls in facts.classes.values():
        stack.extend(cls.attrs.values())
        stack.extend(cls.class_attrs.values())
    for loop in facts.loops:
        if loop.iterable is not None:
            stack.append(loop.iterable)
    for entry in facts.config:
        stack.append(entry.value)
        stack.extend(v for v, _ in entry.guards)
    stack.extend(facts.constants.values())
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        yield value
        stack.extend(value.parts)


def _keyword_insertion(node: cst.Call, spans: Dict[int, Tuple[int, int, int, int]], text: str,
                       offset: Callable[[int, int], int]) -> Optional[Tuple[int, str, str]]:
    """Where ``name=value`` goes to append a keyword argument, and the text around it, in the call's layout.

    One argument per line stays one per line with the same indentation; a trailing
    comma stays trailing; a call written on one line stays on one line.
    """
    def start(n: cst.CSTNode) -> int:
        span = spans[id(n)]
        return offset(span[0], span[1])

    def end(n: cst.CSTNode) -> int:
        span = spans[id(n)]
        return offset(span[2], span[3])

    args = list(node.args)
    if not all(id(arg) in spans for arg in args):
        return None
    call_end = end(node) if id(node) in spans else None
    if not args:
        return (call_end - 1, "", "") if call_end else None
    last = args[-1]
    if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma) and id(args[-2].comma) in spans:
        gap = text[end(args[-2].comma): start(last)]
        separator = text[start(args[-2].comma): start(last)]
    else:
        opening = text.rfind("(", 0, start(args[0]))
        gap = text[opening + 1: start(args[0])] if opening >= 0 else ""
        separator = "," + gap if "\n" in gap else ", "
    if "#" in gap or "\\" in gap:
        gap, separator = " ", ", "
    if isinstance(last.comma, cst.Comma) and id(last.comma) in spans:
        return end(last.comma), gap if "\n" in gap else " ", ","
    return end(last), separator, ""


def _import_anchor(module: cst.Module) -> Optional[cst.SimpleStatementLine]:
    """The statement an import goes after: the last top-level import before the first definition, else the docstring."""
    anchor = None
    for position, statement in enumerate(module.body):
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            break
        if isinstance(statement, cst.SimpleStatementLine) and all(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
            anchor = statement
        elif position == 0 and isinstance(statement, cst.SimpleStatementLine) and _is_docstring(statement):
            anchor = statement
    return anchor


def _import_insert(last_line: int, text: str, index: LineIndex) -> Tuple[int, str, str]:
    """The offset of the line after ``last_line``, a line break to put first when the file ends there, the line break."""
    newline = "\r\n" if "\r\n" in text else "\n"
    if last_line >= len(index.starts):
        return len(text), "" if text.endswith(("\n", "\r")) else newline, newline
    return index.starts[last_line], "", newline


def _is_docstring(statement: cst.SimpleStatementLine) -> bool:
    return len(statement.body) == 1 and isinstance(statement.body[0], cst.Expr) and isinstance(
        statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
