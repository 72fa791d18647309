"""Training in a project: which code trains, which loops train, which network a program trains.

The rules ask these questions of programs (:mod:`~ms_perflint.project.model`):

- does a call train -- directly (``Model.train``, a train-step cell, a gradient
  function, a mindformers trainer), by calling a value built as a train step or
  gradient function (``train_step(x, y)``), or by calling project code that trains;
- does a loop train (a call in its body, or in a loop nested in it, trains);
- which networks a program trains: the ``network`` of ``Model(...)`` and of train-step
  cells, and the cell whose ``trainable_params()`` an optimizer receives;
- which classes a network is made of, and which scopes build them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, Call, Value
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef

#: MindSpore cells that wrap a network and take it as their first argument.
WRAPPERS = frozenset((*ms.TRAIN_STEP_CELLS, "mindspore.nn.WithLossCell", "mindspore.nn.WithEvalCell",
                      "mindspore.nn.WithGradCell", "mindspore.nn.DistributedGradReducer"))
#: Methods that hand over a network's parameters to an optimizer.
PARAMETER_METHODS = frozenset(("trainable_params", "get_parameters", "parameters_dict"))


@dataclass(frozen=True)
class NetworkUse:
    """A network a program trains: the call that takes it (``Model(...)``), and the network's value."""

    path: str
    anchor: Call
    network: Value
    #: ``model`` (a Model), ``step`` (a train-step cell) or ``optimizer`` (a custom loop).
    kind: str


class Training:
    """Training questions over one project (memoised)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._scopes: Dict[ScopeRef, bool] = {}
        self._loops: Dict[str, Set[int]] = {}
        self._compositions: Dict[Tuple[ClassRef, ...], FrozenSet[ClassRef]] = {}

    # --- what trains -------------------------------------------------------------------------------

    def call_trains(self, path: str, call: Call, depth: int = 0) -> bool:
        """The call trains, or runs code that does."""
        project = self.project
        if project.training_kind(path, call) is not None:
            return True
        if call.method == "__call__" and call.receiver is not None:
            if project.made_by(path, call.receiver, scope=call.scope) in (*ms.TRAIN_STEP_CELLS, *ms.GRAD_FUNCTIONS):
                return True
        if depth > 6:
            return False
        return any(self.scope_trains(target, depth + 1) for target in project.targets(path, call))

    def scope_trains(self, scope: ScopeRef, depth: int = 0) -> bool:
        """Some call in the scope trains (following calls into the project)."""
        if scope in self._scopes:
            return self._scopes[scope]
        self._scopes[scope] = False  # a recursive call does not make a scope train
        path, index = scope
        facts = self.project.python[path]
        found = any(self.call_trains(path, call, depth) for call in facts.calls if call.scope == index)
        self._scopes[scope] = found
        return found

    def training_loops(self, path: str) -> Set[int]:
        """Ids of the loops of ``path`` that train (a call in the loop, or in a loop nested in it, trains)."""
        if path not in self._loops:
            facts = self.project.python[path]
            found: Set[int] = set()
            for call in facts.calls:
                if call.loops and self.call_trains(path, call):
                    found.update(call.loops)
            self._loops[path] = found
        return self._loops[path]

    # --- what is trained ---------------------------------------------------------------------------

    def networks(self, program: Program) -> List[NetworkUse]:
        """The networks the program trains, each with the call that takes it."""
        found: List[NetworkUse] = []
        project = self.project
        for path, call, kind in project.training_calls(program):
            if kind == "model":
                made = project.making_call(path, call.receiver, ms.MODEL)
                if made is not None:
                    network = made[1].argument("network", 0)
                    if network is not None:
                        found.append(NetworkUse(made[0], made[1], network, "model"))
            elif kind == "step":
                network = call.argument("network", 0)
                if network is not None:
                    found.append(NetworkUse(path, call, network, "step"))
        if found:
            return found
        for path in sorted(program.files):
            facts = project.python.get(path)
            for call in facts.calls if facts is not None else ():
                if (path, call.scope) not in program.scopes or not project.qualified(path, call).startswith("mindspore.nn."):
                    continue
                parameters = call.argument("params", 0)
                owner = self._parameters_owner(path, parameters)
                if owner is not None:
                    found.append(NetworkUse(path, call, owner, "optimizer"))
        return found

    def _parameters_owner(self, path: str, value: Optional[Value]) -> Optional[Value]:
        if value is None or value.kind != CALL:
            return None
        call = self.project.python[path].call(value.data)
        if call is None or call.method not in PARAMETER_METHODS or call.receiver is None:
            return None
        return call.receiver

    def network_classes(self, path: str, network: Value, scope: int) -> FrozenSet[ClassRef]:
        """The project Cells a network value is an instance of, through MindSpore's wrappers."""
        project = self.project
        unwrapped = self.unwrap(path, network)
        return frozenset(c for c in project.instance_classes(path, unwrapped, scope) if project.is_cell(c))

    def unwrap(self, path: str, value: Value, depth: int = 0) -> Value:
        """``TrainOneStepCell(WithLossCell(net, loss), opt)`` -> ``net``."""
        if value.kind != CALL or depth > 8:
            return value
        call = self.project.python[path].call(value.data)
        if call is None:
            return value
        if self.project.qualified(path, call) in WRAPPERS:
            inner = call.argument("network", 0) or call.argument("backbone", 0)
            if inner is not None:
                return self.unwrap(path, inner, depth + 1)
        if call.method in ms.RETURNS_SELF and call.receiver is not None:
            return self.unwrap(path, call.receiver, depth + 1)
        return value

    def composition(self, classes: FrozenSet[ClassRef]) -> FrozenSet[ClassRef]:
        """The classes and every project class their methods (and the factories those call) build."""
        key = tuple(sorted(classes))
        if key in self._compositions:
            return self._compositions[key]
        project = self.project
        seen: Set[ClassRef] = set()
        scopes_seen: Set[ScopeRef] = set()
        stack: List[ClassRef] = list(classes)
        while stack and len(seen) < 5000:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            for scope in [*project.methods(current), *[(b[0], project.class_facts(b).scope) for b in
                                                         project.ancestry(current) if project.class_facts(b)]]:
                stack.extend(self._built_in(scope, scopes_seen))
        result = frozenset(seen)
        self._compositions[key] = result
        return result

    def _built_in(self, scope: ScopeRef, seen: Set[ScopeRef]) -> List[ClassRef]:
        """Project classes built in a scope, or in project functions it calls."""
        if scope in seen:
            return []
        seen.add(scope)
        project = self.project
        path, index = scope
        built: List[ClassRef] = []
        for call in project.python[path].calls:
            if call.scope != index:
                continue
            symbol = project.callee(path, call)
            if symbol is None:
                continue
            if symbol.kind == "class":
                built.append((symbol.path, symbol.name))
            elif symbol.kind == "function":
                function = project.function_of(symbol)
                if function is not None:
                    built.extend(self._built_in((symbol.path, function), seen))
        return built

    def building_scopes(self, classes: FrozenSet[ClassRef]) -> Set[ScopeRef]:
        """Every scope that belongs to the classes (their methods) or to factories their methods call."""
        project = self.project
        scopes: Set[ScopeRef] = set()
        for cls in classes:
            for scope in project.methods(cls):
                scopes.add(scope)
                scopes.update(self._factories(scope, set()))
        return scopes

    def _factories(self, scope: ScopeRef, seen: Set[ScopeRef]) -> Set[ScopeRef]:
        if scope in seen or len(seen) > 2000:
            return set()
        seen.add(scope)
        project = self.project
        path, index = scope
        found: Set[ScopeRef] = set()
        for call in project.python[path].calls:
            if call.scope != index:
                continue
            symbol = project.callee(path, call)
            function = project.function_of(symbol) if symbol is not None else None
            if function is not None:
                found.add((symbol.path, function))
                found.update(self._factories((symbol.path, function), seen))
        return found
