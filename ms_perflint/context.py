"""Facts about the file being linted, gathered in the same single pass as the rules run.

The engine keeps :attr:`FileContext.ancestors` (the chain of nodes from the module
down to the node being visited) and the import table up to date *before* any rule
sees a node, so a rule can ask "which class am I in?", "is this in a loop?",
"what is this name?" without walking the tree again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ms_perflint.imports import ImportTracker, dotted_name
from ms_perflint.rule import Violation
from ms_perflint.settings import Settings
from ms_perflint.values import UNKNOWN, evaluate, module_constants, parameter_defaults
from ms_perflint.walker import walk

_NOT_LOADED = object()

#: Canonical names of MindSpore base classes that make a class a Cell.
CELL_BASES = frozenset(("mindspore.nn.Cell", "mindspore.nn.SequentialCell", "mindspore.nn.CellList"))


@dataclass(frozen=True)
class Branch:
    """Which arm of an ``if`` a node sits in: ``test`` is the condition's source text."""

    test: str
    positive: bool
    statement: cst.If


class FileContext:
    """Shared per-file state: path, settings, imports, ancestors, values, findings."""

    def __init__(self, path: str, module: cst.Module, settings: Settings) -> None:
        self.path = path
        self.module = module
        self.settings = settings
        self.imports = ImportTracker()
        self.ancestors: List[cst.CSTNode] = []
        self.violations: List[Violation] = []
        #: Names of classes in this file that are MindSpore Cells (directly or through a local base).
        self.cell_classes: Set[str] = set()
        self._constants = module_constants(module)
        #: ``(id(function), name) -> (bound there, value)``, filled by :meth:`_lookup`.
        self._bindings: Dict[Tuple[int, str], Tuple[bool, Optional[cst.BaseExpression]]] = {}
        self._project: object = _NOT_LOADED

    @property
    def project(self):  # -> Optional[ms_perflint.project.view.ProjectView]
        """Whole-project facts for this file (a ``ProjectView``), or None in per-file mode; built on first use."""
        if self._project is _NOT_LOADED:
            from ms_perflint.project import view_for_path

            self._project = view_for_path(self.path, self.settings)
        return self._project

    # --- where are we -------------------------------------------------------

    def enclosing(self, kind: type) -> Optional[cst.CSTNode]:
        """The innermost ancestor of type ``kind``, excluding the node being visited."""
        for node in reversed(self.ancestors[:-1]):
            if isinstance(node, kind):
                return node
        return None

    def enclosing_class(self) -> Optional[cst.ClassDef]:
        """The innermost class whose body holds the current node."""
        node = self.enclosing(cst.ClassDef)
        return node if isinstance(node, cst.ClassDef) else None

    def enclosing_function(self) -> Optional[cst.FunctionDef]:
        """The innermost function whose body holds the current node."""
        node = self.enclosing(cst.FunctionDef)
        return node if isinstance(node, cst.FunctionDef) else None

    def enclosing_method(self) -> Optional[cst.FunctionDef]:
        """The function directly in a class body that holds the current node (a method), if any."""
        for index in range(len(self.ancestors) - 2, -1, -1):
            node = self.ancestors[index]
            if isinstance(node, cst.FunctionDef):
                owner = self._owner_of(index)
                if isinstance(owner, cst.ClassDef):
                    return node
            if isinstance(node, cst.ClassDef):
                return None
        return None

    def _owner_of(self, index: int) -> Optional[cst.CSTNode]:
        """The nearest ClassDef/FunctionDef/Module above ancestors[index]."""
        for node in reversed(self.ancestors[:index]):
            if isinstance(node, (cst.ClassDef, cst.FunctionDef, cst.Module)):
                return node
        return None

    def loops(self) -> Sequence[cst.CSTNode]:
        """``for``/``while`` statements around the current node, innermost last, within its function."""
        found: List[cst.CSTNode] = []
        for node in reversed(self.ancestors[:-1]):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                break
            if isinstance(node, (cst.For, cst.While)):
                found.append(node)
        return list(reversed(found))

    def branches(self) -> Iterator[Branch]:
        """The ``if`` arms the current node is in, innermost first (``elif`` is the ``else`` of its parent)."""
        for index in range(len(self.ancestors) - 2, -1, -1):
            node = self.ancestors[index]
            if not isinstance(node, cst.If):
                continue
            child = self.ancestors[index + 1]
            if child is node.test:
                continue
            test = self.module.code_for_node(node.test)
            yield Branch(test=test, positive=child is node.body, statement=node)

    # --- names and values ----------------------------------------------------

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        """Canonical MindSpore (or other imported) name of ``node``; None for local or unknown names."""
        return self.imports.resolve(node)

    def value_of(self, node: Optional[cst.BaseExpression]) -> object:
        """The statically known value of ``node`` here, or :data:`~ms_perflint.values.UNKNOWN`."""
        if node is None:
            return UNKNOWN
        return evaluate(node, self._lookup)

    def constant_value_of(self, node: cst.BaseExpression) -> object:
        """Like :meth:`value_of` but without parameter defaults: for settings a caller may override."""
        return evaluate(node, self._constants.get)

    def _lookup(self, name: str) -> Optional[cst.BaseExpression]:
        for function in reversed([n for n in self.ancestors if isinstance(n, cst.FunctionDef)]):
            # Each answer walks the function body: remember it (rules ask about the same names again and again).
            key = (id(function), name)
            if key not in self._bindings:
                self._bindings[key] = _function_binding(function, name)
            bound, value = self._bindings[key]
            if bound:
                return value
        return self._constants.get(name)

    def is_cell_class(self, node: cst.ClassDef) -> bool:
        """A MindSpore Cell: a base is ``nn.Cell`` (any spelling) or a local Cell, or it defines ``construct``."""
        return node.name.value in self.cell_classes or _classify_cell(node, self)

    def source_of(self, node: cst.CSTNode) -> str:
        """The source text of ``node``."""
        return self.module.code_for_node(node)


def _classify_cell(node: cst.ClassDef, context: FileContext) -> bool:
    for base in node.bases:
        qualified = context.imports.resolve(base.value)
        if qualified in CELL_BASES or (qualified or "").startswith("mindspore.nn."):
            return True
        name = dotted_name(base.value)
        if name in context.cell_classes:
            return True
    return any(
        isinstance(statement, cst.FunctionDef) and statement.name.value == "construct"
        for statement in node.body.body
    )


def note_class(node: cst.ClassDef, context: FileContext) -> None:
    """Called by the engine on entering a class: remember it if it is a Cell."""
    if _classify_cell(node, context):
        context.cell_classes.add(node.name.value)


def _function_binding(function: cst.FunctionDef, name: str) -> Tuple[bool, Optional[cst.BaseExpression]]:
    """Does ``function`` bind ``name``, and if so, the parameter default that is its value (when never reassigned)."""
    if not _assigns_or_binds(function, name):
        return False, None
    return True, parameter_defaults(function).get(name) if _is_unassigned_param(function, name) else None


def _is_unassigned_param(function: cst.FunctionDef, name: str) -> bool:
    params = function.params
    is_param = any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params))
    return is_param and not _BodyAssigns(name).found_in(function.body)


def _assigns_or_binds(function: cst.FunctionDef, name: str) -> bool:
    params = function.params
    all_params = (*params.posonly_params, *params.params, *params.kwonly_params)
    if any(p.name.value == name for p in all_params):
        return True
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param) and star.name.value == name:
            return True
    return _BodyAssigns(name).found_in(function.body)


class _BodyAssigns(cst.CSTVisitor):
    """Does a function body (not nested defs) assign ``name``? Then its value is not a constant."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def found_in(self, body: cst.BaseSuite) -> bool:
        walk(body, self)  # read-only: 5x cheaper than body.visit(self), which copies every node
        return self.found

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        pass

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._check(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._check(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._check(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._check(node.target)

    def _check(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name) and target.value == self.name:
            self.found = True
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._check(element.value)

