"""The model of a MindSpore project that every rule queries: files linked into programs.

A :class:`Project` holds the facts of every file of a project (a project of one
file in per-file mode) and answers, lazily and with memos:

- **names**: which file and definition a reference names (``src.model.resnet50``),
  through packages' re-exports;
- **calls**: which scopes a call enters -- a project function, the methods of a
  class it instantiates, ``self.<method>``, a method of an instance whose class is
  known -- and which classes a value is an instance of;
- **programs**: a program is an entry file (a script with a ``__main__`` block or
  code that trains at module level, or a notebook; never a test) and the scopes it
  reaches: through imports (a module's body runs when it is imported), calls, and
  registries (a function decorated with a project ``register`` decorator is reached
  wherever the registry is, since it is looked up by name).

Values, configs and devices are answered by :mod:`~ms_perflint.project.values`;
this module knows only the structure. Where the facts give no answer (a call whose
receiver is a loop's variable or an item of a returned tuple, a value built in a
comprehension), :attr:`Project.inference` asks astroid
(:mod:`~ms_perflint.project.inference`), reading the files' texts through ``texts``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import (
    CALL, CFG, CLASS, FUNCTION, LIT, MAIN, MODULE, NAME, OP, PARAM, REF, SELF, Call, ClassFacts, PythonFacts,
    ShellFacts, Value, YamlFacts, choices,
)
from ms_perflint.project.inference import Inference
from ms_perflint.project.parts import ModuleTable, is_test_file

#: ``(root-relative path, scope index)``.
ScopeRef = Tuple[str, int]
#: ``(root-relative path, class name)``.
ClassRef = Tuple[str, str]
#: How far re-exports, factories and bindings are followed.
MAX_DEPTH = 12


@dataclass(frozen=True)
class Where:
    """A place in the project: root-relative path, 1-based line, 0-based column, offsets."""

    path: str
    line: int
    column: int = 0
    start: int = 0
    end: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def where(path: str, value: Value) -> Where:
    """Where ``value`` is written in ``path``."""
    return Where(path, value.line, value.column, value.start, value.end)


def call_where(path: str, call: Call) -> Where:
    """Where ``call`` is written in ``path``."""
    return Where(path, call.line, call.column, call.start, call.end)


@dataclass(frozen=True)
class Symbol:
    """A definition in the project: a function, a class, a module, or a module-level variable."""

    path: str
    name: str
    kind: str  # "function", "class", "module", "variable"
    #: For a function defined more than once in its file: the scope of the definition meant (else the last).
    scope: Optional[int] = None


@dataclass(frozen=True)
class Shape:
    """A tensor built from a written shape: the shape's expression (read in ``path``, ``scope``); ``()`` for a
    scalar."""

    path: str
    scope: int
    value: Value


@dataclass(frozen=True)
class Program:
    """An entry file and everything it reaches."""

    entry: str
    scopes: FrozenSet[ScopeRef]
    files: FrozenSet[str]

    def reaches(self, path: str, scope: Optional[int] = None) -> bool:
        """Does the program run code of ``path`` (of one of its scopes)?"""
        if scope is None:
            return path in self.files
        return (path, scope) in self.scopes


def _names(value: Value, name: str, depth: int = 0) -> bool:
    """``value`` reads the variable ``name`` (or holds something that does)."""
    if value.via == name or value.text == name or (value.kind in (NAME, REF) and str(value.data).rpartition(".")[2]
                                                   == name):
        return True
    return depth < 8 and any(_names(part, name, depth + 1) for part in value.parts)


class Project:
    """The facts of a project's files, linked. ``files`` maps root-relative paths to facts.

    ``texts(path)`` gives a file's decoded text as it was analysed (None when it is not the text the facts were
    recorded from); by default the file under ``root`` is read, and a project with no root has no texts. Texts are
    read only when a question for astroid needs them.
    """

    def __init__(self, root: str, files: Dict[str, object],
                 texts: Optional[Callable[[str], Optional[str]]] = None) -> None:
        self.root = root
        self._texts = texts
        self._inference: Optional[Inference] = None
        self._method_names: Optional[FrozenSet[str]] = None
        self.files = files
        self.python: Dict[str, PythonFacts] = {p: f for p, f in files.items() if isinstance(f, PythonFacts)}
        configs = {p: f for p, f in files.items() if isinstance(f, YamlFacts)}
        self.yaml: Dict[str, YamlFacts] = {p: f for p, f in configs.items() if not p.lower().endswith(".json")}
        #: JSON configs, read as YAML: a source of config values only (no rule writes into them).
        self.json: Dict[str, YamlFacts] = {p: f for p, f in configs.items() if p.lower().endswith(".json")}
        self.shell: Dict[str, ShellFacts] = {p: f for p, f in files.items() if isinstance(f, ShellFacts)}
        self.modules = ModuleTable(self.python)
        self._symbols: Dict[Tuple[str, str], Optional[Symbol]] = {}
        self._targets: Dict[Tuple[str, int], Tuple[ScopeRef, ...]] = {}
        self._edges: Optional[Dict[ScopeRef, Set[ScopeRef]]] = None
        self._imports: Dict[str, Set[str]] = {}
        self._programs: Optional[List[Program]] = None
        self._registered: Optional[Dict[str, List[ScopeRef]]] = None
        self._callers: Optional[Dict[ScopeRef, List[Tuple[str, Call]]]] = None
        self._instances: Dict[Tuple[str, int, int], FrozenSet[ClassRef]] = {}
        self._memo: Dict[object, object] = {}
        self._qualified: Dict[Tuple[str, str], str] = {}
        self._qualified_names: Dict[str, str] = {}
        self._named_calls: Optional[Dict[str, List[Tuple[str, Call]]]] = None

    # --- texts and astroid ---------------------------------------------------------------------

    def text(self, path: str) -> Optional[str]:
        """The decoded text of a project file (a notebook's virtual module), or None."""
        if self._texts is not None:
            return self._texts(path)
        return disk_text(self.root, path) if self.root else None

    @property
    def inference(self) -> Inference:
        """astroid's answers over this project, asked where the facts give none (made, not loaded, on first use)."""
        if self._inference is None:
            self._inference = Inference(self, self.text)
        return self._inference

    def part(self, paths: Iterable[str]) -> "Project":
        """A project of some of this project's files (one of its parts), reading the same texts."""
        return Project(self.root, {path: self.files[path] for path in paths}, self._texts)

    def close(self) -> None:
        """Drop astroid's modules of this project (the model's own answers stay; a later question builds again)."""
        if self._inference is not None:
            self._inference.close()

    def _method_name(self, name: str) -> bool:
        """Does some project class define a method ``name``? (A call of any other method enters no project code.)"""
        if self._method_names is None:
            self._method_names = frozenset(
                method for facts in self.python.values() for cls in facts.classes.values() for method in cls.methods)
        return name in self._method_names

    def _has_classes(self) -> bool:
        """Does the project define a class? (Without one, no value is an instance of a project class.)"""
        return bool(self.memo("has-classes", lambda: any(facts.classes for facts in self.python.values())))

    # --- names --------------------------------------------------------------------------------

    def module_file(self, module: str, importer: str) -> Optional[str]:
        """The file a dotted module name means in ``importer`` (:meth:`ModuleTable.module_file`)."""
        return self.modules.module_file(module, importer)

    def resolve(self, reference: str, importer: str, depth: int = 0) -> Optional[Symbol]:
        """The definition a dotted reference made in ``importer`` names, through re-exports."""
        key = (reference, importer)
        if key in self._symbols:
            return self._symbols[key]
        self._symbols[key] = None  # a cycle of re-exports resolves to nothing
        found = self._resolve(reference, importer, depth)
        self._symbols[key] = found
        return found

    def _resolve(self, reference: str, importer: str, depth: int) -> Optional[Symbol]:
        if depth > MAX_DEPTH or not reference:
            return None
        parts = reference.split(".")
        # The longest module name wins, among the files the importer can import: those whose import root (the
        # folder the dotted name starts from) holds the importer. ``src.config.config`` is ``config`` in the
        # importer's own ``src/config.py``, not another model's ``src/config/config.py`` elsewhere in a model zoo;
        # ``utils.lr`` from ``src/models/net.py`` is still the root's ``utils/lr.py`` beside ``src/models/utils.py``.
        found = next(((cut, path) for cut in range(len(parts), 0, -1)
                      for path in (self.module_file(".".join(parts[:cut]), importer),) if path is not None), None)
        if found is None:
            return None
        cut, path = found
        rest = parts[cut:]
        if not rest:
            return self._package_binding(parts, importer, depth) or Symbol(path, "", "module")
        return self._member(path, rest, depth)

    def _package_binding(self, parts: List[str], importer: str, depth: int) -> Optional[Symbol]:
        """``from engine import train_net`` where ``engine/__init__.py`` re-exports a function ``train_net`` from its
        submodule of the same name (``from .train_net import *``): Python binds the function over the submodule, and
        so does the model. None when the package binds nothing else under that name."""
        if len(parts) < 2:
            return None
        package = self.module_file(".".join(parts[:-1]), importer)
        if package is None or not package.endswith("__init__.py"):
            return None
        name, facts = parts[-1], self.python[package]
        candidates = [".".join([*parts[:-1], name])] if name in facts.functions or name in facts.classes else []
        if name in facts.aliases:
            candidates.append(facts.aliases[name])
        candidates += [f"{module}.{name}" for module in facts.star_imports
                       if (self.module_file(module, package) or package) != package]
        for candidate in candidates:
            if candidate == ".".join(parts):
                continue  # ``from . import train_net``: the submodule itself
            found = self._member(package, [name], depth + 1) if candidate.startswith(".".join(parts[:-1]) + ".") \
                and (name in facts.functions or name in facts.classes) else self.resolve(candidate, package, depth + 1)
            if found is not None and found.kind in ("function", "class"):
                return found
        return None

    def _member(self, path: str, rest: List[str], depth: int) -> Optional[Symbol]:
        facts = self.python[path]
        head = rest[0]
        if len(rest) > 1 and ".".join(rest) in facts.functions:
            return Symbol(path, ".".join(rest), "function")  # a function defined in a function
        if head in facts.functions:
            return Symbol(path, head, "function") if len(rest) == 1 else Symbol(path, ".".join(rest), "attribute")
        cls = facts.classes.get(head)
        # A module's class, or one defined in a function or the ``__main__`` block (not a class nested in a class).
        if cls is not None and facts.scopes[facts.scopes[cls.scope].parent].kind != CLASS:
            return Symbol(path, head, "class") if len(rest) == 1 else Symbol(path, ".".join(rest), "attribute")
        if head in facts.aliases:
            return self.resolve(".".join([facts.aliases[head], *rest[1:]]), path, depth + 1)
        if head not in facts.constants:
            for module in facts.star_imports:
                source = self.module_file(module, path)
                if source is not None and source != path and self._defines(source, head, depth + 1):
                    return self.resolve(".".join([module, *rest]), path, depth + 1)
        return Symbol(path, ".".join(rest), "variable")

    def _defines(self, path: str, name: str, depth: int) -> bool:
        """Does the module define or import ``name`` at its top level (also through its own star imports)?"""
        seen: Set[str] = set()
        stack = [path]
        while stack and len(seen) <= 256:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            facts = self.python[current]
            cls = facts.classes.get(name)
            if name in facts.functions or name in facts.aliases or name in facts.constants or (
                    cls is not None and facts.scopes[cls.scope].parent == 0):
                return True
            stack.extend(source for source in (self.module_file(m, current) for m in facts.star_imports)
                         if source is not None)
        return False

    def class_facts(self, ref: ClassRef) -> Optional[ClassFacts]:
        facts = self.python.get(ref[0])
        return facts.classes.get(ref[1]) if facts is not None else None

    def bases(self, ref: ClassRef) -> List[ClassRef]:
        """Project classes ``ref`` derives from, directly."""
        cls = self.class_facts(ref)
        found = []
        for base in cls.bases if cls is not None else ():
            symbol = self.resolve(base, ref[0])
            if symbol is not None and symbol.kind == "class":
                found.append((symbol.path, symbol.name))
        return found

    def ancestry(self, ref: ClassRef) -> List[ClassRef]:
        """``ref`` and its project bases, nearest first."""
        seen: List[ClassRef] = []
        stack = [ref]
        while stack and len(seen) < 64:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.append(current)
            stack.extend(self.bases(current))
        return seen

    def is_cell(self, ref: ClassRef) -> bool:
        """A MindSpore Cell: an ``nn`` base, a ``construct`` method, or a project base that is a Cell."""
        return any(c is not None and c.is_cell for c in (self.class_facts(r) for r in self.ancestry(ref)))

    def derives_from(self, ref: ClassRef, qualified: Iterable[str]) -> bool:
        """Does the class (or a project base) name one of these MindSpore classes as a base?"""
        wanted = set(qualified)
        return any(c is not None and wanted.intersection(c.bases) for c in map(self.class_facts, self.ancestry(ref)))

    def method(self, ref: ClassRef, name: str) -> Optional[ScopeRef]:
        """The scope of a method, inherited from a project base if need be."""
        for current in self.ancestry(ref):
            cls = self.class_facts(current)
            if cls is not None and name in cls.methods:
                return current[0], cls.methods[name]
        return None

    def methods(self, ref: ClassRef) -> Iterator[ScopeRef]:
        """Every method scope of the class and its project bases."""
        for current in self.ancestry(ref):
            cls = self.class_facts(current)
            if cls is not None:
                for index in cls.methods.values():
                    yield current[0], index

    def attribute(self, ref: ClassRef, name: str) -> Optional[Tuple[str, Value]]:
        """``self.<name> = value`` in the class or a base: the file and the value."""
        for current in self.ancestry(ref):
            cls = self.class_facts(current)
            if cls is not None and name in cls.attrs:
                return current[0], cls.attrs[name]
        return None

    # --- calls ------------------------------------------------------------------------------

    def callee(self, path: str, call: Call) -> Optional[Symbol]:
        """The project definition a call names directly (``resnet50(...)``, ``ResNet(...)``), if any.

        MindSpore's own APIs are never project definitions (even when MindSpore itself is linted).
        """
        if not call.callee or call.callee.startswith("self.") or call.callee.split(".", 1)[0] == "mindspore":
            return None
        symbol = self.resolve(call.callee, path)
        if symbol is not None and symbol.kind == "function" and symbol.path == path:
            scope = self._definition_at(path, symbol.name, call)
            if scope is not None:
                return Symbol(symbol.path, symbol.name, symbol.kind, scope)
        return symbol

    def _definition_at(self, path: str, name: str, call: Call) -> Optional[int]:
        """Which of several top-level ``def name`` a module-level call runs: the last one before it (a notebook
        that defines ``create_dataset`` for training, then again for testing). None when there is one def."""
        facts = self.python[path]
        scopes = facts.scopes
        defs = [i for i, s in enumerate(scopes) if s.kind == FUNCTION and s.parent == 0 and s.name == name]
        if len(defs) < 2 or scopes[call.scope].kind not in (MODULE, MAIN):
            return None
        before = [i for i in defs if scopes[i].line <= call.line]
        return before[-1] if before else None

    def _in_project(self, reference: str, path: str) -> bool:
        """The project defines what ``reference`` names. A name its module does not define is not the project's: a
        MindSpore-family package linted as a project (mindnlp 0.6) no longer holds an API its examples import from an
        older release (``mindnlp.engine.Trainer``, ``mindnlp.transformers.BertModel``)."""
        symbol = self.resolve(reference, path)
        if symbol is None:
            return False
        return symbol.kind != "variable" or self._defines(symbol.path, symbol.name.split(".", 1)[0], 0)

    def qualified(self, path: str, call: Call) -> str:
        """The catalogue name of a call's callee ("" when it is a project definition or unnamed)."""
        callee = call.callee
        found = self._qualified_names.get(callee)  # asked about a million times on a large project
        if found is None:
            found = self._qualified_names[callee] = self._qualified_name(callee)
        if found is not _BY_FILE:
            return found
        key = (path, callee)
        found = self._qualified.get(key)
        if found is None:
            # the linted package's own definition (mindcv linted as a project) is not the catalogue's
            found = self._qualified[key] = "" if self._in_project(callee, path) else ms.canonical_name(callee)
        return found

    @staticmethod
    def _qualified_name(callee: str) -> str:
        """:meth:`qualified` for a callee whatever file calls it, or :data:`_BY_FILE` when that matters."""
        if not callee or callee.startswith("self."):
            return ""
        head = callee.split(".", 1)[0]
        if head not in ms.MINDSPORE_PACKAGES:
            return ""
        return ms.canonical_name(callee) if head == "mindspore" else _BY_FILE

    def calls_named(self, names: Iterable[str]) -> List[Tuple[str, Call]]:
        """Every call in the project whose catalogue name is one of ``names``, by file, then in source order.

        The index is built once per project, so a question asked for every program costs what it finds,
        not a walk over every call of every file the program reaches.
        """
        if self._named_calls is None:
            index: Dict[str, List[Tuple[str, Call]]] = {}
            for path, facts in sorted(self.python.items()):
                for call in facts.calls:
                    qualified = self.qualified(path, call)
                    if qualified:
                        index.setdefault(qualified, []).append((path, call))
            self._named_calls = index
        wanted = set(names)
        found = [pair for name in wanted for pair in self._named_calls.get(name, ())]
        return sorted(found, key=lambda pair: (pair[0], pair[1].id)) if len(wanted) > 1 else found

    def program_calls(self, program: Program, names: Iterable[str]) -> List[Tuple[str, Call]]:
        """The calls named one of ``names`` (catalogue names) that ``program`` runs, by file, then in source order."""
        return [(path, call) for path, call in self.calls_named(names) if (path, call.scope) in program.scopes]

    def calls_matching(self, wanted: Callable[["Project", str, Call], bool]) -> List[Tuple[str, Call]]:
        """Every call of the project for which ``wanted(project, path, call)`` holds, by file, then in source order.

        Found once per ``wanted`` (a module-level function: it is the memo's key), so a question asked for every
        program costs what it finds, not a walk over every call of every file the program reaches.
        """
        return self.memo(("calls", wanted), lambda: [  # type: ignore[return-value]
            (path, call) for path, facts in sorted(self.python.items()) for call in facts.calls
            if wanted(self, path, call)])

    def targets(self, path: str, call: Call) -> Tuple[ScopeRef, ...]:
        """The scopes a call enters."""
        key = (path, call.id)
        if key not in self._targets:
            found = tuple(self._call_targets(path, call))
            if not found and self._ask_astroid(path, call):
                found = self.inference.call_targets(path, call) or ()
            self._targets[key] = found
        return self._targets[key]

    def _ask_astroid(self, path: str, call: Call) -> bool:
        """Could astroid find project code a call enters where the facts found none? A method call on a value the
        facts do not follow (a loop's variable, an item of a returned tuple), of a method some project class has.

        A value called inside a Cell's methods (``for block in self.blocks: x = block(x)``) is a layer, whose
        ``construct`` building the Cell reaches already: not asked (a third of a model zoo's questions).
        """
        receiver = call.receiver
        if call.callee or receiver is None or not _untyped(receiver):
            return False
        if call.method == "__call__":
            return not self.layer_call(path, call)  # a function, a class or a callable object held in a name
        return self._method_name(call.method)

    def layer_call(self, path: str, call: Call) -> bool:
        """A value the facts do not follow, called inside a Cell's method (``for block in self.blocks: x =
        block(x)``): a layer, whose ``construct`` building the Cell reaches already, never a training step."""
        if call.method != "__call__" or call.receiver is None or not _untyped(call.receiver):
            return False
        owner = self.owner_class(path, call.scope)
        return owner is not None and self.is_cell(owner)

    def _call_targets(self, path: str, call: Call) -> Iterator[ScopeRef]:
        if call.callee.startswith("self."):
            owner = self.owner_class(path, call.scope)
            if owner is not None:
                found = self.method(owner, call.callee[5:])
                if found is not None:
                    yield found
            return
        symbol = self.callee(path, call)
        if symbol is not None:
            yield from self._symbol_scopes(symbol)
            return
        handed = self.handed_classes(path, call.receiver, call.scope) \
            if call.method == "__call__" and call.receiver is not None else frozenset()
        for cls in sorted(handed):
            yield from self.construction_scopes(cls)
        if handed:
            return
        if call.receiver is not None and _untyped(call.receiver) and not self._ask_astroid(path, call):
            return  # the facts do not follow the receiver, and no project class has the method
        if call.method and call.receiver is not None and call.method != "__call__":
            for cls in self.instance_classes(path, call.receiver, call.scope):
                found = self.method(cls, call.method)
                if found is not None:
                    yield found
        elif call.method == "__call__" and call.receiver is not None:
            for cls in self.instance_classes(path, call.receiver, call.scope):
                found = self.method(cls, "construct") or self.method(cls, "__call__")
                if found is not None:
                    yield found
            yield from self._held_functions(path, call.receiver, 0)

    def functions_held(self, path: str, value: Value) -> List[ScopeRef]:
        """The project functions a value holds: a function named, one ``jit`` compiles, the nested function a
        project factory returns (``value_and_grad(forward_fn)`` differentiates ``forward_fn``)."""
        return list(self._held_functions(path, value, 0))

    def parameter_of(self, path: str, name: str, scope: int) -> Optional[Tuple[int, int]]:
        """The function (``scope`` or one enclosing it) whose parameter ``name`` is, and the position its callers
        pass it at (``self``/``cls`` not counted); None when no enclosing function has it."""
        facts = self.python[path]
        current = scope
        while 0 <= current < len(facts.scopes) and name not in facts.scopes[current].params:
            current = facts.scopes[current].parent
        if not 0 <= current < len(facts.scopes):
            return None
        function = facts.scopes[current]
        bound = 1 if function.cls and function.params[0] in ("self", "cls") else 0
        return current, function.params.index(name) - bound

    def handed_classes(self, path: str, value: Value, scope: int, depth: int = 0) -> FrozenSet[ClassRef]:
        """The project classes a parameter is handed (``ResidualBlock(Block, ...)`` hands ``block`` the class
        ``Block``): a call of it builds one. Empty unless every caller passes a class, by name or through a
        parameter of its own that is handed one (``ResNet.__init__(block)`` passing ``block`` to
        ``self._make_layer(block, ...)``)."""
        declared = self.parameter_of(path, value.data, scope) if value.kind == PARAM else None
        if declared is None or depth > MAX_DEPTH:
            return frozenset()
        current, position = declared
        found: Set[ClassRef] = set()
        for caller_path, call in self.callers((path, current)):
            argument = call.argument(value.data, position if position >= 0 else None)
            if argument is not None and argument.kind == PARAM:
                passed = self.handed_classes(caller_path, argument, call.scope, depth + 1)
                if not passed:
                    return frozenset()
                found.update(passed)
                continue
            symbol = self.resolve(argument.data, caller_path) if argument is not None and argument.kind == REF \
                else None
            if symbol is None or symbol.kind != "class":
                return frozenset()
            found.add((symbol.path, symbol.name))
        return frozenset(found)

    def _held_functions(self, path: str, value: Value, depth: int) -> Iterator[ScopeRef]:
        """The project functions a called value holds: one of several (``step = jit(step) if fast else step``),
        one ``jit`` compiles, or the nested function a project factory returns (``grad_fn = value_and_grad(f)``
        returning ``value_and_grad_f``)."""
        if depth > MAX_DEPTH:
            return
        for candidate in choices(value) or (value,):
            if candidate.kind == REF:
                symbol = self.resolve(candidate.data, path)
                index = self.function_of(symbol) if symbol is not None and symbol.kind == "function" else None
                if symbol is not None and index is not None:
                    yield symbol.path, index
            elif candidate.kind == CALL:
                call = self.python[path].call(candidate.data)
                if call is not None and call.args and (ms.canonical_name(call.callee) in ms.JIT_DECORATORS
                                                       or self._one_step_sink(path, call)):
                    yield from self._held_functions(path, call.args[0], depth + 1)
                    continue
                symbol = self.callee(path, call) if call is not None else None
                index = self.function_of(symbol) if symbol is not None and symbol.kind == "function" else None
                if symbol is not None and index is not None:
                    for returned in self.python[symbol.path].scopes[index].returns:
                        if returned.kind == REF:
                            yield from self._held_functions(symbol.path, returned, depth + 1)

    def _one_step_sink(self, path: str, call: Call) -> bool:
        """``data_sink(train_step, dataset)`` with one batch a call (``sink_size`` omitted or 1): each call of what it
        returns is one call of ``train_step``. A larger sink runs many steps a call, and is not followed."""
        if self.qualified(path, call) != ms.DATA_SINK:
            return False
        size = call.argument(ms.DATA_SINK_SIZE.keyword, ms.DATA_SINK_SIZE.position)
        return (size is None and not call.may_pass(ms.DATA_SINK_SIZE.keyword, ms.DATA_SINK_SIZE.position)) or (
            size is not None and size.kind == LIT and size.data == 1)

    def _symbol_scopes(self, symbol: Symbol) -> Iterator[ScopeRef]:
        if symbol.kind == "function":
            yield symbol.path, self.function_of(symbol)  # type: ignore[misc]
        elif symbol.kind == "class":
            yield from self.construction_scopes((symbol.path, symbol.name))

    def construction_scopes(self, ref: ClassRef) -> Iterator[ScopeRef]:
        """What building an instance runs: the class body, ``__init__``, and the methods the framework calls
        on it (``construct``, Callback hooks, ``__getitem__``); other methods run only when called."""
        cls = self.class_facts(ref)
        if cls is not None:
            yield ref[0], cls.scope
        for current in self.ancestry(ref):
            facts = self.class_facts(current)
            if facts is None:
                continue
            for name, index in facts.methods.items():
                if name in ms.FRAMEWORK_METHODS:
                    yield current[0], index

    def owner_class(self, path: str, scope: int) -> Optional[ClassRef]:
        """The class whose method (or nested function of a method) ``scope`` is."""
        facts = self.python[path]
        while 0 <= scope < len(facts.scopes):
            current = facts.scopes[scope]
            if current.cls:
                return path, current.cls
            scope = current.parent
        return None

    def instance_classes(self, path: str, value: Optional[Value], scope: int, depth: int = 0) -> FrozenSet[ClassRef]:
        """The project classes ``value`` may be an instance of (through factories, ``self.<attr>``, chains)."""
        if value is None or depth > MAX_DEPTH:
            return frozenset()
        key = (path, id(value), scope)
        if key in self._instances:
            return self._instances[key]
        self._instances[key] = frozenset()
        found = frozenset(self._instances_of(path, value, scope, depth))
        if not found and _untyped(value) and self._has_classes():
            found = self.inference.instance_classes(path, value) or frozenset()
        self._instances[key] = found
        return found

    def _instances_of(self, path: str, value: Value, scope: int, depth: int) -> Iterator[ClassRef]:
        facts = self.python[path]
        if value.kind == CALL:
            call = facts.call(value.data)
            if call is None:
                return
            if call.method in ms.RETURNS_SELF and call.receiver is not None:
                yield from self.instance_classes(path, call.receiver, call.scope, depth + 1)
                return
            symbol = self.callee(path, call)
            if symbol is not None and symbol.kind == "class":
                yield symbol.path, symbol.name
            elif symbol is not None and symbol.kind == "function":
                index = self.function_of(symbol)
                for returned in self.python[symbol.path].scopes[index].returns if index is not None else ():
                    yield from self.instance_classes(symbol.path, returned, index, depth + 1)
            elif call.callee.startswith("self."):
                target = self.targets(path, call)
                for target_path, target_scope in target:
                    for returned in self.python[target_path].scopes[target_scope].returns:
                        yield from self.instance_classes(target_path, returned, target_scope, depth + 1)
        elif value.kind == SELF:
            owner = self.owner_class(path, scope)
            if owner is not None:
                found = self.attribute(owner, value.data)
                if found is not None:
                    # ``self.network = network`` in ``__init__``: what the constructions pass for the parameter
                    init = self.method(owner, "__init__") if found[1].kind == PARAM else None
                    at = init[1] if init is not None and init[0] == found[0] else 0
                    yield from self.instance_classes(found[0], found[1], at, depth + 1)
        elif value.kind == REF:
            symbol = self.resolve(value.data, path)
            if symbol is not None and symbol.kind == "class":
                yield symbol.path, symbol.name
        elif value.kind == OP and value.data == "[]" and len(value.parts) == 2 and isinstance(value.parts[1].data, int):
            for item_path, item, item_scope, _ in self.returned_items(path, value.parts[0], value.parts[1].data, depth):
                yield from self.instance_classes(item_path, item, item_scope, depth + 1)
        elif choices(value):
            for part in choices(value):
                yield from self.instance_classes(path, part, scope, depth + 1)
        elif value.kind == PARAM:
            yield from self._argument_instances(path, value.data, scope, depth)
        elif value.kind == CFG and value.parts:
            # ``generator.mapping``: what the classes of ``generator`` keep in ``self.mapping``.
            for owner in self.instance_classes(path, value.parts[0], scope, depth + 1):
                found = self.attribute(owner, value.data)
                init = self.method(owner, "__init__")
                if found is not None:
                    yield from self.instance_classes(found[0], found[1], init[1] if init else 0, depth + 1)

    def _argument_instances(self, path: str, name: str, scope: int, depth: int) -> Iterator[ClassRef]:
        """What the callers of the function holding ``scope`` pass for its parameter ``name``."""
        scopes = self.python[path].scopes
        while 0 <= scope < len(scopes) and name not in scopes[scope].params and scopes[scope].parent >= 0:
            scope = scopes[scope].parent
        if not 0 <= scope < len(scopes) or name not in scopes[scope].params:
            return
        function = scopes[scope]
        position = function.params.index(name) - (1 if function.cls else 0)
        for caller_path, call in self.callers((path, scope))[:16]:
            argument = call.argument(name, position if position >= 0 else None)
            if argument is not None:
                yield from self.instance_classes(caller_path, argument, call.scope, depth + 1)

    def function_of(self, symbol: Symbol) -> Optional[int]:
        """The scope index of a function symbol."""
        if symbol.scope is not None:
            return symbol.scope
        facts = self.python.get(symbol.path)
        return facts.functions.get(symbol.name) if facts is not None and symbol.kind == "function" else None

    def tensor_shape(self, path: str, value: Value, uncast: Callable[[str, Value], Value] = lambda _, v: v,
                     scalars: bool = False) -> Optional[Shape]:
        """The shape a tensor is built with: ``Parameter(Tensor(np.ones((a, b))))``, ``initializer(init, [a, b])``,
        ``np.random.randn(a, b)``; with ``scalars``, ``()`` for a number (``Tensor(0.5)``, ``np.random.rand()``).
        ``uncast`` takes a cast off a value (``w.astype(t)``)."""
        value = self.tensor_data(path, value, uncast)
        if scalars and value.kind == LIT and type(value.data) in (int, float):
            return Shape(path, -1, Value(OP, "tuple", ()))
        call = self.python[path].call(value.data) if value.kind == CALL else None
        if call is None or call.star:
            return None
        name = self.qualified(path, call) or call.callee
        if name in ms.DIMS_AS_ARGUMENTS and not call.kwargs:
            return Shape(path, call.scope, Value(OP, "tuple", tuple(call.args)))
        builder = ms.SHAPE_BUILDERS.get(name)
        shape = call.argument(builder.keyword, builder.position) if builder is not None else None
        return Shape(path, call.scope, shape) if shape is not None else None

    def tensor_data(self, path: str, value: Value,
                    uncast: Callable[[str, Value], Value] = lambda _, v: v) -> Value:
        """What a tensor is built from, inside the calls that keep its shape (``Parameter(Tensor(data))``); the
        innermost such call when it is given no data (``Tensor(shape=(a, b), init=...)``)."""
        for _ in range(8):
            value = uncast(path, value)
            call = self.python[path].call(value.data) if value.kind == CALL else None
            if call is None or call.star:
                return value
            keeping = ms.SHAPE_KEEPING.get(self.qualified(path, call) or call.callee)
            inner = call.argument(keeping.keyword, keeping.position) if keeping is not None else None
            if inner is None:
                return value
            value = inner
        return value

    def returned_items(self, path: str, value: Value, position: int,
                       depth: int = 0) -> List[Tuple[str, Value, int, Call]]:
        """``train, val = make_loaders()``: item ``position`` of what a project function returns, as ``(path, value,
        scope it is read in, the call that entered the function)`` for each ``return a, b`` of the function (through
        functions that return another function's result). Empty when the callee is not a project function or a
        return is not a tuple."""
        if value.kind != CALL or depth > MAX_DEPTH:
            return []
        call = self.python[path].call(value.data)
        found: List[Tuple[str, Value, int, Call]] = []
        for target_path, scope in self.targets(path, call) if call is not None else ():
            function = self.python[target_path].scopes[scope]
            if function.kind != FUNCTION:
                continue
            for returned in function.returns:
                if returned.kind == OP and returned.data == "tuple" and -len(returned.parts) <= position < len(
                        returned.parts):  # ``make()[-1]`` is the last item; ``return ()`` has none
                    found.append((target_path, returned.parts[position], scope, call))  # type: ignore[arg-type]
                elif returned.kind == CALL:
                    found.extend(self.returned_items(target_path, returned, position, depth + 1))
        return found

    # --- who calls a scope --------------------------------------------------------------------

    def callers(self, target: ScopeRef) -> List[Tuple[str, Call]]:
        """Calls that enter ``target`` (a function, or a class's ``__init__`` through its construction)."""
        if self._callers is None:
            callers: Dict[ScopeRef, List[Tuple[str, Call]]] = {}
            self._callers = callers  # while the table is built, parameters are not followed into it
            for path, facts in self.python.items():
                for call in facts.calls:
                    symbol = self.callee(path, call) if call.callee and not call.callee.startswith("self.") else None
                    if symbol is not None and symbol.kind == "class":
                        init = self.method((symbol.path, symbol.name), "__init__")
                        if init is not None:
                            callers.setdefault(init, []).append((path, call))
                        continue
                    for scope in self.targets(path, call):
                        callers.setdefault(scope, []).append((path, call))
            self._callers = callers
            # What was found while the table was being built did not follow parameters into it: asked again now,
            # ``self.network.update()`` in a Callback reaches the method of what its constructions pass.
            self._instances.clear()
            self._targets.clear()
        return self._callers.get(target, [])

    def constructions(self, cls: ClassRef) -> List[Tuple[str, Call]]:
        """The calls that build the class itself (``SaveCallback(net)``; not a subclass), once per class; empty when
        none is seen (a registry may build it). A class with no ``__init__`` of its own (a Callback) counts too."""
        def find() -> List[Tuple[str, Call]]:
            found = []
            for path, facts in sorted(self.python.items()):
                for call in facts.calls:
                    if call.callee and not call.callee.startswith("self.") and call.callee.endswith(cls[1]):
                        symbol = self.callee(path, call)
                        if symbol is not None and symbol.kind == "class" and (symbol.path, symbol.name) == cls:
                            found.append((path, call))
            return found

        return self.memo(("constructions", cls), find)  # type: ignore[return-value]

    # --- programs -----------------------------------------------------------------------------

    def imports_of(self, path: str) -> Set[str]:
        """Project files ``path`` imports."""
        if path not in self._imports:
            found = set()
            for reference in self.python[path].imports:
                symbol = self.resolve(reference, path)
                if symbol is not None and symbol.path != path:
                    found.add(symbol.path)
                    if symbol.kind != "module":
                        package = self.module_file(reference.rsplit(".", 1)[0], path)
                        if package is not None and package != path:
                            found.add(package)
            self._imports[path] = found
        return self._imports[path]

    def edges(self) -> Dict[ScopeRef, Set[ScopeRef]]:
        """Scope -> scopes it runs: calls, imported modules' bodies, a class's body and registered definitions."""
        if self._edges is None:
            edges: Dict[ScopeRef, Set[ScopeRef]] = {}
            for path, facts in self.python.items():
                module_edges = edges.setdefault((path, 0), set())
                module_edges.update((imported, 0) for imported in self.imports_of(path))
                for index, scope in enumerate(facts.scopes):
                    if scope.kind == CLASS and scope.parent == 0:  # class bodies run on import; __main__ does not
                        module_edges.add((path, index))
                for call in facts.calls:
                    targets = self.targets(path, call)
                    if targets:
                        edges.setdefault((path, call.scope), set()).update(targets)
            for registry, registered in self.registered().items():
                edges.setdefault((registry, 0), set()).update(registered)
            self._edges = edges
        return self._edges

    def registered(self) -> Dict[str, List[ScopeRef]]:
        """Registry file -> definitions registered with its decorator (``@register_model``)."""
        if self._registered is None:
            registered: Dict[str, List[ScopeRef]] = {}
            for path, facts in self.python.items():
                for index, scope in enumerate(facts.scopes):
                    for decorator in scope.decorators:
                        if "regist" not in decorator.lower():
                            continue
                        symbol = self.resolve(decorator, path) or self.resolve(decorator.rsplit(".", 1)[0], path)
                        if symbol is not None:
                            registered.setdefault(symbol.path, []).append((path, index))
                for cls in facts.classes.values():
                    if any("regist" in d.lower() for d in cls.decorators):
                        for decorator in cls.decorators:
                            symbol = self.resolve(decorator, path) or self.resolve(decorator.rsplit(".", 1)[0], path)
                            if symbol is not None:
                                registered.setdefault(symbol.path, []).extend(
                                    self.construction_scopes((path, cls.name)))
            self._registered = registered
        return self._registered

    def entries(self) -> List[str]:
        """Files that are programs: scripts with a ``__main__`` block or module-level code that trains, notebooks."""
        found = []
        for path, facts in sorted(self.python.items()):
            if is_test_file(path):
                continue
            if path.endswith(".ipynb") or any(scope.kind == MAIN for scope in facts.scopes):
                found.append(path)
            elif any(call.scope == 0 and self._runs_as_script(path, call) for call in facts.calls):
                found.append(path)
        return found

    def _runs_as_script(self, path: str, call: Call) -> bool:
        """A module-level call only a script makes: training, or a MindSpore function with effects.

        A decorator (``@op_info_register(...)``, ``@constexpr``) runs where a library defines a function: it
        makes no module a script.
        """
        if call.decorator:
            return False
        if self.is_training_call(path, call):
            # ``grad_all = C.GradOperation(get_all=True)`` at module level builds a gradient operator, as libraries
            # do when they are imported (mindtorch's autograd, the model zoo's src/ modules); a module that also
            # loops at its top level (a notebook-style training loop) runs as a script
            return self.training_kind(path, call) != "grad" or any(
                other.scope == 0 and other.loops for other in self.python[path].calls)
        qualified = self.qualified(path, call)
        last = qualified.rsplit(".", 1)[-1]
        return bool(qualified) and (last[:1].islower() or qualified in ms.SCRIPT_CLASSES)

    def programs(self) -> List[Program]:
        """Every program of the project."""
        if self._programs is None:
            self._programs = [self._program(entry) for entry in self.entries()]
        return self._programs

    def _program(self, entry: str) -> Program:
        edges = self.edges()
        starts = [(entry, 0)] + [(entry, i) for i, s in enumerate(self.python[entry].scopes) if s.kind == MAIN]
        seen: Set[ScopeRef] = set(starts)
        stack = list(starts)
        while stack:
            for target in edges.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
                    if (target[0], 0) not in seen:
                        seen.add((target[0], 0))
                        stack.append((target[0], 0))
        return Program(entry, frozenset(seen), frozenset(path for path, _ in seen))

    def programs_reaching(self, path: str, scope: Optional[int] = None) -> List[Program]:
        """The programs that run code of ``path`` (of one of its scopes)."""
        return [program for program in self.programs() if program.reaches(path, scope)]

    # --- training -----------------------------------------------------------------------------

    def is_training_call(self, path: str, call: Call) -> bool:
        """A call that trains: ``Model.train``/``fit``, a train-step cell, a gradient function, a mindformers or mindnlp
        trainer."""
        return self.training_kind(path, call) is not None

    def training_kind(self, path: str, call: Call) -> Optional[str]:
        """``model``, ``step``, ``grad`` or ``trainer`` for a training call, else None."""
        qualified = self.qualified(path, call)
        if qualified in ms.TRAIN_STEP_CELLS:
            return "step"
        if qualified in ms.GRAD_FUNCTIONS:
            return "grad"
        if qualified in ms.TRAIN_STEP_BUILDERS:
            return "step"
        if not qualified and call.callee and not call.callee.startswith("self."):
            symbol = self.callee(path, call)
            if symbol is not None and symbol.kind == "class" and \
                    self.derives_from((symbol.path, symbol.name), ms.TRAIN_STEP_CELLS):
                return "step"  # a project train-step cell built on TrainOneStepCell
        methods = (ms.MODEL_TRAIN_METHODS, ms.MINDNLP_TRAIN_METHODS, ms.MINDFORMERS_TRAIN_METHODS)
        if call.receiver is None or not any(call.method in names for names in methods):
            return None
        made_by = self.made_by(path, call.receiver, scope=call.scope)  # also ``def train(model): model.train(...)``
        if call.method in ms.MODEL_TRAIN_METHODS and made_by == ms.MODEL:
            return "model"
        if (call.method in ms.MODEL_TRAIN_METHODS and (made_by in ms.MINDFORMERS_TRAINERS or
                                                       made_by in ms.MINDNLP_TRAINERS)) or \
                (call.method in ms.MINDNLP_TRAIN_METHODS and made_by in ms.MINDNLP_TRAINERS) or \
                (call.method in ms.MINDFORMERS_TRAIN_METHODS and made_by in ms.MINDFORMERS_TRAINERS):
            return "trainer"  # mindnlp's earlier engine trains with ``trainer.run(...)``
        return None

    def made_by(self, path: str, value: Value, depth: int = 0, scope: int = -1) -> str:
        """The catalogue name of the call that built ``value`` (``mindspore.train.Model``), "" if unknown.

        A parameter (of ``scope``) is followed to the arguments its callers pass, when they agree.
        """
        return self._made_by(path, value, depth, scope, set()) or ""

    def _made_by(self, path: str, value: Value, depth: int, scope: int,
                 seen: Set[Tuple[str, int, int]]) -> Optional[str]:
        """:meth:`made_by`; None for a value this question already followed (functions passing a parameter round
        a cycle, or to each other: each is asked once, or the callers of callers multiply without end)."""
        if depth > MAX_DEPTH:
            return ""
        key = (path, id(value), scope)
        if key in seen:
            return None
        seen.add(key)
        if value.kind == PARAM and scope >= 0:
            return self._made_by_callers(path, value.data, scope, depth, seen)
        items = self.returned_items(path, value.parts[0], value.parts[1].data) if value.kind == OP and \
            value.data == "[]" and len(value.parts) == 2 and value.parts[1].kind == LIT else []
        if len(items) == 1:  # ``self.g_step, self.d_step = self.get_solver()``: the item the function returns
            return self._made_by(items[0][0], items[0][1], depth + 1, items[0][2], seen)
        if choices(value):
            # ``model = Model(net, ...)`` in both arms of an ``if``: what the arms build, when they agree.
            made = {self._made_by(path, part, depth + 1, scope, seen) for part in choices(value)} - {"", None}
            return made.pop() if len(made) == 1 else ""
        if _untyped(value):
            made = {self._made_by(p, Value(CALL, c.id), depth + 1, -1, seen) for p, c in self._origins(path, value)}
            made -= {"", None}
            return made.pop() if len(made) == 1 else ""
        if value.kind == SELF:
            kept = self.self_attribute(path, value.data, scope)
            return self._made_by(kept[0], kept[1], depth + 1, kept[2], seen) if kept is not None else ""
        if value.kind != CALL:
            return ""
        call = self.python[path].call(value.data)
        if call is None:
            return ""
        if call.method in ms.RETURNS_SELF and call.receiver is not None:
            return self._made_by(path, call.receiver, depth + 1, -1, seen)
        qualified = self.qualified(path, call)
        if qualified:
            return qualified
        symbol = self.callee(path, call)
        if symbol is not None and symbol.kind == "class":
            for base in sorted(ms.SUBCLASSED_ENTRY_POINTS):
                if self.derives_from((symbol.path, symbol.name), (base,)):
                    return base  # ``class ModifiedTrainer(Trainer)``: trains as the Trainer it extends
        if symbol is not None and symbol.kind == "function":
            facts = self.python[symbol.path]
            for returned in facts.scopes[facts.functions[symbol.name]].returns:
                found = self._made_by(symbol.path, returned, depth + 1, -1, seen)
                if found:
                    return found  # a factory of the linted package (mindcv's create_trainer returns a Model)
        for method_path, returned, method in self.own_method_returns(path, call):
            found = self._made_by(method_path, returned, depth + 1, method, seen)
            if found:
                return found  # ``self.solver = self.get_solver()``, the method returning a Model
        if call.callee.split(".", 1)[0] in ms.MINDSPORE_PACKAGES:
            return ms.canonical_name(call.callee)  # the linted package's own API (mindformers.Trainer in mindformers)
        return ""

    def making_call(self, path: str, value: Optional[Value], wanted: str, depth: int = 0,
                    seen: Optional[Set[Tuple[str, int]]] = None, scope: int = -1) -> Optional[Tuple[str, Call]]:
        """The call of ``wanted`` (a catalogue name) that built ``value``: through chains, factory returns, the arms
        of an ``if`` (the first arm that builds one), what astroid finds a loop's name holds and, for a parameter
        of ``scope``, what its callers pass."""
        found = self.making_calls(path, value, wanted, depth, seen, first=True, scope=scope)
        return found[0] if found else None

    def making_calls(self, path: str, value: Optional[Value], wanted: str, depth: int = 0,
                     seen: Optional[Set[Tuple[str, int]]] = None, first: bool = False,
                     scope: int = -1) -> List[Tuple[str, Call]]:
        """Every call of ``wanted`` that may have built ``value``, one per arm of an ``if`` that builds one (in the
        arms' order); only the first with ``first``. A parameter of ``scope`` is what its callers pass."""
        if value is None or depth > MAX_DEPTH:
            return []
        seen = set() if seen is None else seen
        if value.kind == PARAM and scope >= 0:
            found: List[Tuple[str, Call]] = []
            for caller_path, caller, argument in self.passed(path, value.data, scope):
                for made in self.making_calls(caller_path, argument, wanted, depth + 1, seen, first, caller.scope):
                    if made not in found:
                        found.append(made)
            return found
        if value.kind == SELF:
            kept = self.self_attribute(path, value.data, scope)
            return self.making_calls(kept[0], kept[1], wanted, depth + 1, seen, first, kept[2]) if kept else []
        if choices(value):
            candidates = [(path, part) for part in choices(value)]
        elif _untyped(value):
            candidates = [(origin_path, Value(CALL, origin.id)) for origin_path, origin in self._origins(path, value)]
        else:
            candidates = []
        if candidates:
            found = []
            for candidate_path, candidate in candidates:
                for made in self.making_calls(candidate_path, candidate, wanted, depth + 1, seen, first):
                    if made not in found:
                        found.append(made)
                if found and first:
                    break
            return found
        made = self._making_call(path, value, wanted, depth, seen)
        return [made] if made is not None else []

    def _making_call(self, path: str, value: Value, wanted: str, depth: int,
                     seen: Set[Tuple[str, int]]) -> Optional[Tuple[str, Call]]:
        """:meth:`making_call` of a value that is not a choice."""
        if value.kind != CALL:
            return None
        if (path, value.data) in seen:
            return None  # factories returning each other's results
        seen.add((path, value.data))
        call = self.python[path].call(value.data)
        if call is None:
            return None
        if self.qualified(path, call) == wanted:
            return path, call
        if call.method in ms.RETURNS_SELF and call.receiver is not None:
            return self.making_call(path, call.receiver, wanted, depth + 1, seen)
        symbol = self.callee(path, call) if call.callee and not call.callee.startswith("self.") else None
        if wanted in ms.SUBCLASSED_ENTRY_POINTS and symbol is not None and symbol.kind == "class" and \
                self.derives_from((symbol.path, symbol.name), (wanted,)):
            return path, call  # a project subclass of the entry point
        symbol = self.callee(path, call)
        if symbol is not None and symbol.kind == "function":
            facts = self.python[symbol.path]
            for returned in facts.scopes[facts.functions[symbol.name]].returns:
                found = self.making_call(symbol.path, returned, wanted, depth + 1, seen)
                if found is not None:
                    return found
        for method_path, returned, method in self.own_method_returns(path, call):
            found = self.making_call(method_path, returned, wanted, depth + 1, seen, scope=method)
            if found is not None:
                return found
        return None

    def self_attribute(self, path: str, name: str, scope: int) -> Optional[Tuple[str, Value, int]]:
        """``self.<name>`` read in ``scope`` (a method): :meth:`kept_attribute` of the method's class."""
        owner = self.owner_class(path, scope) if scope >= 0 else None
        return self.kept_attribute(owner, name) if owner is not None else None

    def kept_attribute(self, cls: ClassRef, name: str) -> Optional[Tuple[str, Value, int]]:
        """``self.<name> = value`` in the class or a base: the file, the value, and the scope to read it in (its
        class's ``__init__``, where a parameter kept is one of its parameters)."""
        for current in self.ancestry(cls):
            facts = self.class_facts(current)
            if facts is not None and name in facts.attrs:
                return current[0], facts.attrs[name], facts.methods.get("__init__", facts.scope)
        return None

    def own_method(self, path: str, call: Call) -> Optional[ScopeRef]:
        """``self._make_layer(...)``: the method of the calling class (or a base) the call runs."""
        if not call.callee.startswith("self.") or call.callee.count(".") != 1:
            return None
        owner = self.owner_class(path, call.scope)
        return self.method(owner, call.callee[5:]) if owner is not None else None

    def own_method_returns(self, path: str, call: Call) -> List[Tuple[str, Value, int]]:
        """``self.get_solver()``: what the calling class's method returns, with its file and scope."""
        found = self.own_method(path, call)
        if found is None:
            return []
        return [(found[0], returned, found[1]) for returned in self.python[found[0]].scopes[found[1]].returns]

    def _origins(self, path: str, value: Value) -> List[Tuple[str, Call]]:
        """The recorded calls astroid finds ``value`` may hold (none unless every way leads to one)."""
        return self.inference.origins(path, value) or []

    def passed(self, path: str, name: str, scope: int) -> List[Tuple[str, Call, Optional[Value]]]:
        """``(caller's file, call, argument or None)`` for each call (at most 16) that enters the function ``scope``
        of ``path``, with what it passes the parameter ``name``."""
        function = self.python[path].scopes[scope]
        if name not in function.params:
            return []
        position = function.params.index(name) - (1 if function.cls else 0)
        return [(caller_path, call, call.argument(name, position if position >= 0 else None))
                for caller_path, call in self.callers((path, scope))[:16]]

    def _made_by_callers(self, path: str, name: str, scope: int, depth: int,
                         seen: Set[Tuple[str, int, int]]) -> Optional[str]:
        found: Set[str] = set()
        followed = False  # some caller passes a value this question already follows: it adds nothing new
        for caller_path, call, argument in self.passed(path, name, scope):
            made = self._made_by(caller_path, argument, depth + 1, call.scope, seen) if argument is not None else ""
            if made is None:
                followed = True
            else:
                found.add(made)
        if not found and followed:
            return None
        return found.pop() if len(found) == 1 else ""

    def training_calls(self, program: Program) -> List[Tuple[str, Call, str]]:
        """``(path, call, kind)`` of every training call the program runs (once per program: rules ask often)."""
        found = self.memo(("program-training-calls", program), lambda: self._training_calls(program))
        return found  # type: ignore[return-value]

    def _training_calls(self, program: Program) -> List[Tuple[str, Call, str]]:
        found = []
        for path in sorted(program.files):
            for call, kind in self._training_calls_of(path):
                if kind == "grad" and call.scope == 0 and path != program.entry and not self._used_in(program, path,
                                                                                                   call):
                    continue  # a gradient operator an imported module builds and the program never calls
                if kind in ("step", "grad") and not self._step_run(program, path, call):
                    continue  # an export script builds the train step to load weights into its network
                if (path, call.scope) in program.scopes:
                    found.append((path, call, kind))
        return found

    def _used_in(self, program: Program, path: str, made: Call) -> bool:
        """Some code of ``path`` the program runs calls what ``made`` built (``grad_by_list(fn, params)``)."""
        return any(c.receiver is not None and (path, c.scope) in program.scopes
                   and self._is_made(path, c.receiver, made) for c in self.python[path].calls)

    def _step_run(self, program: Program, path: str, call: Call) -> bool:
        """A train step the program may run: not one it only builds. A gradient function built in a class's
        ``__init__`` runs when the cell is called (``construct``) or from a method of its own that uses it (a project
        ``Trainer.train()``): in the first case only when some construction of the class the program makes is
        used."""
        if not self.used(path, call):
            return False
        owner = self.owner_class(path, call.scope)
        init = self.method(owner, "__init__") if owner is not None else None
        if init != (path, call.scope) or self._used_by_methods(path, owner, call):  # type: ignore[arg-type]
            return True
        built = [(p, c) for p, c in self.callers(init) if (p, c.scope) in program.scopes]
        return not built or any(self.used(p, c) for p, c in built)

    def _used_by_methods(self, path: str, owner: ClassRef, made: Call) -> bool:
        """A method of ``owner`` other than ``__init__`` and ``construct`` reads the attribute ``made`` is kept in
        (``self.grad_fn(...)`` in ``train()``); True when it is not kept in a ``self`` attribute."""
        target = made.target
        if not target.startswith("self."):
            return True
        skipped = {self.method(owner, "__init__"), self.method(owner, "construct")}
        for call in self.python[path].calls:
            if (path, call.scope) in skipped or self.owner_class(path, call.scope) != owner:
                continue
            values = [v for v in (call.receiver, *call.args, *call.kwargs.values()) if v is not None]
            if (call.callee or "").startswith(target) or any(_names(v, target) for v in values):
                return True
        return False

    def used(self, path: str, made: Call) -> bool:
        """What ``made`` builds, bound to a name, is used in its file: called, passed to a call (``Model(train_net)``,
        ``callbacks=[collector]``) or returned. One kept anywhere else (an attribute, a list) counts as used: what
        reads it is not followed here. False for an object built and left alone (an export script's train step, a
        ``SummaryCollector`` never handed to ``train``). Once per call: rules ask it of every program."""
        return self.memo(("used", path, made.id), lambda: self._used(path, made))  # type: ignore[return-value]

    def _used(self, path: str, made: Call) -> bool:
        name = made.target
        if not name or not name.isidentifier():
            return True
        facts = self.python[path]
        for call in facts.calls:
            if call.id == made.id:
                continue
            if call.callee == name or (call.receiver is not None and call.method in ("__call__", "construct") and (
                    self._is_made(path, call.receiver, made) or _names(call.receiver, name))):
                return True  # called, also as a global from a function (``grad_fn(**batch)`` in ``train_step``)
            if any(self._holds_made(path, value, made) or _names(value, name)
                   for value in (*call.args, *call.kwargs.values())):
                return True
        return any(self._holds_made(path, value, made) or _names(value, name)
                   for scope in facts.scopes for value in scope.returns)

    def _is_made(self, path: str, value: Value, made: Call, depth: int = 0) -> bool:
        """``value`` is what ``made`` built, also through methods that return the cell itself (``set_train()``)."""
        if value.kind != CALL or depth > 8:
            return False
        if value.data == made.id:
            return True
        call = self.python[path].call(value.data)
        return call is not None and call.method in ms.RETURNS_SELF and call.receiver is not None and \
            self._is_made(path, call.receiver, made, depth + 1)

    def _holds_made(self, path: str, value: Value, made: Call, depth: int = 0) -> bool:
        """``value`` is what ``made`` built, or holds it (a tuple, a list, an expression over it)."""
        return self._is_made(path, value, made) or (
            depth < 8 and any(self._holds_made(path, part, made, depth + 1) for part in value.parts))

    def _training_calls_of(self, path: str) -> List[Tuple[Call, str]]:
        """Every training call written in ``path``, with its kind (once per file)."""
        key = ("training-calls", path)
        if key not in self._memo:
            facts = self.python.get(path)
            calls = []
            for call in facts.calls if facts is not None else ():
                if call.method or call.callee:
                    kind = self.training_kind(path, call)
                    if kind is not None:
                        calls.append((call, kind))
            self._memo[key] = calls
        return self._memo[key]  # type: ignore[return-value]

    def training_programs(self) -> List[Program]:
        """Programs that train."""
        key = "training_programs"
        if key not in self._memo:
            self._memo[key] = [p for p in self.programs() if self.training_calls(p)]
        return self._memo[key]  # type: ignore[return-value]

    def memo(self, key: object, compute: Callable[[], object]) -> object:
        """A per-project memo for derived answers (rules share them)."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]


#: :meth:`Project.qualified` of a callee that depends on the calling file (a MindSpore-family package that may be
#: the linted project itself).
_BY_FILE = "<by file>"


def _untyped(value: Value) -> bool:
    """A value the facts do not follow: a name bound by a loop, a comprehension or a ``with``, an item unpacked from
    what a call returns. (An expression the analysis left unknown is mostly a call of a library: not asked.)"""
    return value.kind == NAME or (value.kind == OP and value.data == "[]" and bool(value.parts)
                                  and value.parts[0].kind in (CALL, OP))


def disk_text(root: str, path: str) -> Optional[str]:
    """The decoded text of ``path`` (root-relative) on disk, as the analysis reads it; None when unreadable."""
    from ms_perflint.sources import kind_of, load_unit, read_bytes

    absolute = os.path.join(root, path)
    data = read_bytes(absolute)
    if not isinstance(data, bytes):
        return None
    unit = load_unit(absolute, data, kind_of(absolute))
    return unit.text if unit.error is None else None


__all__ = ["Project", "Program", "Symbol", "Where", "ScopeRef", "ClassRef", "is_test_file", "where", "call_where",
           "CFG", "PARAM", "NAME", "FUNCTION", "MODULE"]
