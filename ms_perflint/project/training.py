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
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple  # noqa: F401

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import (
    CALL, DICT, EITHER, FUNCTION, ITEMS, LIT, NAME, OP, PARAM, SELF, Call, Value, choices,
)
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef

#: MindSpore cells that wrap a network and take it as their first argument.
WRAPPERS = frozenset((*ms.TRAIN_STEP_CELLS, "mindspore.nn.WithLossCell", "mindspore.nn.WithEvalCell",
                      "mindspore.nn.WithGradCell", "mindspore.nn.DistributedGradReducer", *ms.HUB_NETWORK_WRAPPERS,
                      ms.AUTO_MIXED_PRECISION))
#: Methods that hand over a network's parameters to an optimizer.


@dataclass(frozen=True)
class NetworkUse:
    """A network a program trains: the call that takes it (``Model(...)``), and the network's value."""

    path: str
    anchor: Call
    network: Value
    #: ``model`` (a Model), ``step`` (a train-step cell), ``trainer`` (mindnlp's Trainer) or ``optimizer`` (a custom
    #: loop).
    kind: str
    #: Where a finding about this training goes when not at ``anchor``: a custom loop's gradient function
    #: (``value_and_grad(...)``, the train step's construction), whose optimizer only names the network.
    shown: Optional[Tuple[str, Call]] = None

    @property
    def amp_at_anchor(self) -> bool:
        """An ``amp_level`` passed at the anchor would cast the network: a ``Model`` that has an optimizer."""
        return self.kind == "model" and self.anchor.may_pass(ms.MODEL_OPTIMIZER.keyword, ms.MODEL_OPTIMIZER.position)

    @property
    def site(self) -> Tuple[str, Call]:
        """The file and call a finding about this training is reported at."""
        return self.shown or (self.path, self.anchor)


class Training:
    """Training questions over one project (memoised)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._scopes: Dict[ScopeRef, bool] = {}
        self._loops: Dict[str, Set[int]] = {}
        self._compositions: Dict[Tuple[ClassRef, ...], FrozenSet[ClassRef]] = {}

    @classmethod
    def shared(cls, project: Project) -> "Training":
        """The project's one instance: the rules of a run share its answers (training loops, compositions)."""
        return project.memo("training", lambda: cls(project))  # type: ignore[return-value]

    # --- what trains -------------------------------------------------------------------------------

    def call_trains(self, path: str, call: Call, depth: int = 0) -> bool:
        """The call trains, or runs code that does (a hand-written train-step cell counts: its ``construct``
        calls ``self.grad = ops.GradOperation(...)``, or it is built on ``TrainOneStepCell``)."""
        project = self.project
        if project.training_kind(path, call) is not None:
            return True
        if call.method == "__call__" and call.receiver is not None and not project.layer_call(path, call):
            if project.made_by(path, call.receiver, scope=call.scope) in (*ms.TRAIN_STEP_CELLS, *ms.GRAD_FUNCTIONS,
                                                                          *ms.TRAIN_STEP_BUILDERS):
                return True
            if any(project.derives_from(cls, ms.TRAIN_STEP_CELLS)
                   for cls in project.instance_classes(path, call.receiver, call.scope)):
                return True  # a project cell built on TrainOneStepCell (its ``self.grad`` is the base's)
        if self._calls_step_attribute(path, call):
            return True
        if depth > 6:
            return False
        return any(self.scope_trains(target, depth + 1) for target in project.targets(path, call))

    def _calls_step_attribute(self, path: str, call: Call) -> bool:
        """``self.grad(...)`` where ``__init__`` set ``self.grad = ops.GradOperation(...)`` (a custom train-step
        cell's ``construct``), or a train-step cell kept on ``self``."""
        if not call.callee.startswith("self.") or call.callee.count(".") != 1:
            return False
        project = self.project
        owner = project.owner_class(path, call.scope)
        found = project.attribute(owner, call.callee[5:]) if owner is not None else None
        return found is not None and project.made_by(found[0], found[1]) in (*ms.TRAIN_STEP_CELLS, *ms.GRAD_FUNCTIONS)

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

    def _with_training_loops(self) -> Set[str]:
        """The project's files that have a training loop."""
        return self.project.memo("files with training loops", lambda: {  # type: ignore[return-value]
            path for path in self.project.python if self.training_loops(path)})

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
            for use in self.network_uses(path, call, kind):
                if use not in found:
                    found.append(use)
        if found:  # a project step cell that also trains, in another arm (``TrainingWrapper(net, optimizer)``)
            return found + [use for use in self._steps_of_own_cells(program)
                            if not any(_covers(other, use) for other in found) and self._given_optimizer(use)]
        for path, call in project.calls_matching(_calls_nn):
            if (path, call.scope) not in program.scopes:
                continue
            parameters = call.argument("params", 0)
            owner = self._parameters_owner(path, parameters)
            if owner is not None:
                shown = self._step_taking(program, path, call) or self._gradient_function(program, owner, path)
                found.append(NetworkUse(path, call, owner, "optimizer", shown))
        return found or self._steps_of_own_cells(program)

    def _steps_of_own_cells(self, program: Program) -> List[NetworkUse]:
        """A gradient function built in a project cell's ``__init__`` that names no network (a GAN's one
        ``GradOperation`` for both of its loss cells): the network of each construction of that cell the program
        makes is the cell's first argument that is a project cell (:meth:`_first_cell_argument`)."""
        project = self.project
        found: List[NetworkUse] = []
        for path, call, kind in project.training_calls(program):
            owner = project.owner_class(path, call.scope) if kind == "grad" else None
            init = project.method(owner, "__init__") if owner is not None else None
            if init != (path, call.scope):
                continue
            for at, built in project.callers(init):
                network = self._first_cell_argument(at, built) if (at, built.scope) in program.scopes else None
                use = NetworkUse(at, built, network, "step") if network is not None else None
                if use is not None and use not in found:
                    found.append(use)
        return found

    def _given_optimizer(self, use: NetworkUse) -> bool:
        """The construction of a step cell is handed an optimizer: it updates weights (a cell that only takes
        gradients of its network, ``GradWrtX(net)`` for a physics loss, does not train)."""
        project = self.project
        return any(ms.is_optimizer(project.made_by(use.path, value, scope=use.anchor.scope))
                   for argument in (*use.anchor.args, *use.anchor.kwargs.values())
                   for value in choices(argument) or (argument,))

    def _step_taking(self, program: Program, path: str, optimizer: Call) -> Optional[Tuple[str, Call]]:
        """The program's one construction of a project cell that takes this optimizer and computes gradients (a
        GAN's ``TrainOneStepCellGen(G_loss, optimizer_G)``): the train step of the optimizer's network."""
        project = self.project
        found = []
        for at, call in project.calls_matching(_builds_project_object):
            if (at, call.scope) not in program.scopes or at != path:
                continue
            if not any(v.kind == CALL and v.data == optimizer.id
                       for a in (*call.args, *call.kwargs.values()) for v in choices(a) or (a,)):
                continue  # ``optimizer = Adam(...) if adam else RMSProp(...)``: either arm is this optimizer
            symbol = project.callee(at, call)
            if symbol is not None and symbol.kind == "class" and self._computes_gradients((symbol.path, symbol.name)):
                found.append((at, call))
        return found[0] if len(found) == 1 else None

    def _computes_gradients(self, cls: ClassRef) -> bool:
        """A method of the class (or a base's) builds a gradient function (``GradOperation``, ``value_and_grad``)."""
        project = self.project

        def find() -> bool:
            methods = set(project.methods(cls))
            return any((path, c.scope) in methods and project.qualified(path, c) in ms.GRAD_FUNCTIONS
                       for path in {p for p, _ in methods} for c in project.python[path].calls)
        return project.memo(("computes-gradients", cls), find)  # type: ignore[return-value]

    def _gradient_function(self, program: Program, owner: Value, where: str) -> Optional[Tuple[str, Call]]:
        """The gradient-function call (the train step's construction) of the custom loop training ``owner``: the
        program's only one, else the only one in the optimizer's file (the library code a program reaches builds
        its own), or of several (a GAN's one per network) the one taking ``owner``'s parameters as its weights.
        None when none or several do."""
        found = [(path, call) for path, call in self.project.program_calls(program, ms.GRAD_FUNCTIONS)
                 if (path, call.scope) in program.scopes]
        if len(found) > 1 and any(path == where for path, _ in found):
            found = [(path, call) for path, call in found if path == where]
        if len(found) > 1:
            found = [(path, call) for path, call in found
                     if _same_network(self._parameters_owner(path, call.argument("weights", 2)), owner)]
        return self._constructed_at(program, *found[0]) if len(found) == 1 else None

    def _constructed_at(self, program: Program, path: str, call: Call) -> Tuple[str, Call]:
        """A gradient function built in a project cell's ``__init__`` (a GAN's own train-step cell) is shown where
        the program builds that cell, the user's line; any other is shown where it is."""
        project = self.project
        owner = project.owner_class(path, call.scope)
        init = project.method(owner, "__init__") if owner is not None else None
        if init is None or init != (path, call.scope):
            return path, call
        built = [(p, c) for p, c in project.callers(init) if (p, c.scope) in program.scopes]
        return built[0] if len(built) == 1 else (path, call)

    def network_uses(self, path: str, call: Call, kind: str) -> List[NetworkUse]:
        """The networks one training call may train: one per ``Model(...)`` built in an arm of an ``if`` (``model =
        Model(step)`` when clipping gradients, ``Model(net, optimizer=opt, ...)`` otherwise), whose guards decide which
        one a run trains."""
        if kind != "model":
            use = self.network_of(path, call, kind)
            return [use] if use is not None else []
        found = []
        for made_path, made in self.project.making_calls(path, call.receiver, ms.MODEL, scope=call.scope):
            network = made.argument("network", 0)
            if network is not None:
                found.append(NetworkUse(made_path, made, network, "model"))
        return found

    def network_of(self, path: str, call: Call, kind: str) -> Optional[NetworkUse]:
        """The network one training call trains: ``Model(net).train(...)`` or a train-step cell's."""
        if kind == "model":
            made = self.project.making_call(path, call.receiver, ms.MODEL, scope=call.scope)
            network = made[1].argument("network", 0) if made is not None else None
            return NetworkUse(made[0], made[1], network, "model") if network is not None else None  # type: ignore[index]
        if kind == "step":
            network = call.argument("network", 0) or self._first_cell_argument(path, call)
            return NetworkUse(path, call, network, "step") if network is not None else None
        if kind == "trainer":
            for trainer in sorted(ms.MINDNLP_TRAINERS):
                made = self.project.making_call(path, call.receiver, trainer)
                if made is not None:
                    network = made[1].argument(ms.MINDNLP_TRAINER_MODEL.keyword, ms.MINDNLP_TRAINER_MODEL.position) \
                        or made[1].kwargs.get(ms.MINDNLP_TRAINER_NETWORK.keyword)
                    return NetworkUse(made[0], made[1], network, "trainer") if network is not None else None
        return None

    def _first_cell_argument(self, path: str, call: Call) -> Optional[Value]:
        """A project train step that names no ``network`` (a GAN's ``TrainOneStepCell(loss_netD=..., loss_netG=...,
        optimizerD=..., optimizerG=...)``): its first argument that is an instance of a project cell (the loss cells
        keep the networks; MindSpore's optimizers are no project cell)."""
        project = self.project
        for argument in (*call.args, *call.kwargs.values()):
            inner = self.unwrap(path, argument)
            if any(project.is_cell(c) for c in project.instance_classes(path, inner, call.scope)):
                return argument
        return None

    def _parameters_owner(self, path: str, value: Optional[Value], depth: int = 0) -> Optional[Value]:
        if value is not None and value.kind == OP and value.data == ITEMS and value.parts and depth < 4:
            return self._parameters_owner(path, value.parts[0], depth + 1)  # ``tuple(p for p in net.parameters())``
        if value is not None and value.kind == OP and value.data == "tuple" and value.parts and depth < 4:
            return self._grouped_owner(path, value.parts, depth)
        if value is None or value.kind != CALL:
            return None
        call = self.project.python[path].call(value.data)
        if call is None:
            return None
        if call.method in ms.PARAMETER_METHODS and call.receiver is not None:
            return call.receiver
        return self._grouped_parameters_owner(path, call)

    def _grouped_owner(self, path: str, groups: Tuple[Value, ...], depth: int) -> Optional[Value]:
        """``[{"params": [p for n, p in model.parameters_and_names() if ...], "weight_decay": wd}, {...}]``: the
        network whose parameters every group's ``params`` holds."""
        owners = []
        for group in groups:
            if group.kind != OP or group.data != DICT:
                return None
            found = [v for k, v in zip(group.parts[::2], group.parts[1::2]) if k.data == "params"]
            owner = self._parameters_owner(path, found[0], depth + 1) if found else None
            if owner is None:
                return None
            owners.append(owner)
        return owners[0] if all(_same_network(o, owners[0]) for o in owners) else None

    def _grouped_parameters_owner(self, path: str, call: Call) -> Optional[Value]:
        """The argument a project function takes the parameters of (``get_param_groups(net)`` builds weight-decay
        groups from ``network.trainable_params()``), when it reads those of one parameter only."""
        project = self.project
        for target_path, index in project.targets(path, call):
            scope = project.python[target_path].scopes[index]
            owners = {inner.receiver.data for inner in project.python[target_path].calls
                      if inner.scope == index and inner.method in ms.PARAMETER_METHODS and inner.receiver is not None
                      and inner.receiver.kind == PARAM and inner.receiver.data in scope.params}
            if len(owners) != 1:
                return None
            return argument_for(call, scope, next(iter(owners)))
        return None

    def network_classes(self, path: str, network: Value, scope: int) -> FrozenSet[ClassRef]:
        """The project Cells a network value is an instance of, through MindSpore's wrappers and the project's own
        (``Model(LMWithLoss(lm, loss))`` trains ``lm``'s class too)."""
        project = self.project
        unwrapped = self.unwrap(path, network)
        found = {c for c in project.instance_classes(path, unwrapped, scope) if project.is_cell(c)}
        return frozenset(found | self._kept_cells(path, unwrapped, 0))

    def _kept_cells(self, path: str, value: Value, depth: int) -> Set[ClassRef]:
        """Cells a project class built by ``value`` keeps from the arguments of that very call (``self.network =
        network`` in its ``__init__``), and what those keep in turn."""
        project = self.project
        if choices(value) and depth <= 6:  # ``net = Wrapper(net, opt, clip=True)`` in either arm of an ``if``
            return {c for choice in choices(value) for c in self._kept_cells(path, choice, depth + 1)}
        if value.kind != CALL or depth > 6:
            return set()
        call = project.python[path].call(value.data)
        symbol = project.callee(path, call) if call is not None else None
        if call is None or symbol is None or symbol.kind != "class":
            return set()
        init = project.method((symbol.path, symbol.name), "__init__")
        owner = project.owner_class(*init) if init is not None else None
        facts = project.class_facts(owner) if owner is not None else None
        if init is None or facts is None:
            return set()
        params = project.python[init[0]].scopes[init[1]].params[1:]  # after self
        found: Set[ClassRef] = set()
        for attribute in facts.attrs.values():
            if attribute.kind != PARAM or attribute.data not in params:
                continue
            argument = call.argument(attribute.data, params.index(attribute.data))
            if argument is None:
                continue
            inner = self.unwrap(path, argument)
            found |= {c for c in project.instance_classes(path, inner, call.scope) if project.is_cell(c)}
            found |= self._kept_cells(path, inner, depth + 1)
        return found

    def unwrap(self, path: str, value: Value, depth: int = 0) -> Value:
        """The network inside the wrappers: ``TrainOneStepCell(WithLossCell(net, loss), opt)`` -> ``net``, also
        through a project cell built on a MindSpore wrapper (``class StepCell(nn.TrainOneStepCell)``) and a
        project function or method that returns the network it is given, wrapped or not
        (``quantizer.apply(net)``, ``build_loss_net(net, loss)``)."""
        if depth > 8:
            return value
        if value.kind == OP and choices(value):
            # ``net = StepCell(net, opt, ema=True)`` in both arms of an ``if``: the network inside either arm.
            inner = tuple(self.unwrap(path, choice, depth + 1) for choice in choices(value))
            if inner == choices(value):
                return value
            return inner[0] if all(i == inner[0] for i in inner) else Value(OP, EITHER, inner)
        if value.kind != CALL:
            return value
        project = self.project
        call = project.python[path].call(value.data)
        if call is None:
            return value
        if self._wraps(path, call):
            inner = call.argument("network", 0) or call.argument("backbone", 0)
            if inner is not None:
                return self.unwrap(path, inner, depth + 1)
        if call.method in ms.RETURNS_SELF and call.receiver is not None:
            return self.unwrap(path, call.receiver, depth + 1)
        passed = self._returned_argument(path, call, depth)
        if passed is None and self._transformed_in_place(path, call):
            passed = call.args[0]
        return self.unwrap(path, passed, depth + 1) if passed is not None else value

    def _transformed_in_place(self, path: str, call: Call) -> bool:
        """``net = algo.apply(net)``: another package's call (a compression algorithm, a converter) given the network
        and bound to the network's own name stands for that network, transformed (its layers replaced, not its
        architecture). A project function is followed instead (:meth:`_returned_argument`)."""
        project = self.project
        if not call.args or not call.target or call.target.startswith("self.") or call.callee.startswith("self."):
            return False
        first = call.args[0]
        if call.target != (first.via or first.text) or project.targets(path, call):
            return False
        qualified = project.qualified(path, call)
        return not qualified.startswith("mindspore.") and not (
            call.receiver is not None and project.instance_classes(path, call.receiver, call.scope))

    def _wraps(self, path: str, call: Call) -> bool:
        """A MindSpore wrapper cell, or a project class built on one."""
        project = self.project
        if project.qualified(path, call) in WRAPPERS:
            return True
        symbol = project.callee(path, call) if call.callee and not call.callee.startswith("self.") else None
        return symbol is not None and symbol.kind == "class" and project.derives_from((symbol.path, symbol.name),
                                                                                      WRAPPERS)

    def _returned_argument(self, path: str, call: Call, depth: int) -> Optional[Value]:
        """The argument a project function or method returns, wrapped or as it is, when every return of every
        function the call enters does so with the same parameter."""
        project = self.project
        found: Set[str] = set()
        for target_path, index in project.targets(path, call):
            scope = project.python[target_path].scopes[index]
            if scope.name.rsplit(".", 1)[-1] == "__init__" or not scope.returns:
                return None
            for returned in scope.returns:
                for candidate in choices(returned) or (returned,):  # ``net = A(net) if ema else B(net)``
                    inner = self.unwrap(target_path, candidate, depth + 1)
                    if inner.kind != PARAM or inner.data not in scope.params:
                        return None
                    found.add(inner.data)
            if len(found) != 1:
                return None
            return argument_for(call, scope, next(iter(found)))
        return None

    def trained_classes(self, use: NetworkUse) -> FrozenSet[ClassRef]:
        """The project cells a training trains: the network's classes, what they build, and the cells they keep from
        their constructors' arguments (a loss cell keeping the generator it is handed), transitively."""
        project = self.project
        found: Set[ClassRef] = set()
        todo = list(self.network_classes(use.path, use.network, use.anchor.scope))
        while todo and len(found) < 256:
            cls = todo.pop()
            if cls in found:
                continue
            found.add(cls)
            todo.extend(self.composition(frozenset((cls,))) - found)
            facts, init = project.class_facts(cls), project.method(cls, "__init__")
            for value in (facts.attrs.values() if facts is not None and init is not None else ()):
                if value.kind == PARAM:
                    todo.extend(c for c in project.instance_classes(init[0], value, init[1]) if project.is_cell(c))
        return frozenset(found)

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

    # --- what a program trains on --------------------------------------------------------------------

    def fed_datasets(self, program: Program) -> Set[Tuple[str, int]]:
        """``(path, call id)`` of every call that makes a dataset the program trains on, each pipeline step
        included (``GeneratorDataset(...)``, its ``.map``/``.batch``, the factory returning it).

        Traced back from where training takes data: ``Model.train``/``fit``'s ``train_dataset``, a mindformers
        Trainer's ``train_dataset``, ``data_sink``'s dataset, and what a training loop iterates over
        (``for x, y in dataset.create_tuple_iterator():`` with a train step inside). Through dataset methods,
        ``enumerate``/``tqdm``, factory returns (``train, val = make()`` too), parameters (to what callers pass),
        and ``self.<attr>``.
        """
        def trace() -> Set[Tuple[str, int]]:
            found: Set[Tuple[str, int]] = set()
            for path, value, scope in self._training_inputs(program):
                self._making_calls(path, value, scope, found, set(), 0)
            return found

        return self.project.memo(("fed-datasets", program.entry), trace)  # type: ignore[return-value]

    def _training_inputs(self, program: Program) -> List[Tuple[str, Value, int]]:
        """The dataset values training calls and training loops of the program consume."""
        project = self.project
        inputs: List[Tuple[str, Value, int]] = []
        for path, call, kind in project.training_calls(program):
            if kind == "model":
                inputs.append((path, call.argument(ms.TRAIN_DATASET.keyword, ms.TRAIN_DATASET.position), call.scope))
            elif kind == "trainer":
                inputs.append((path, call.argument(ms.TRAINER_DATASET.keyword), call.scope))
                for trainer in ms.MINDFORMERS_TRAINERS:
                    made = project.making_call(path, call.receiver, trainer)
                    if made is not None:
                        inputs.append((made[0], made[1].argument(ms.TRAINER_DATASET.keyword), made[1].scope))
        sinks: Dict[str, List[Call]] = {}
        for path, call in project.program_calls(program, [ms.DATA_SINK]):
            sinks.setdefault(path, []).append(call)
        for path in sorted(program.files & (sinks.keys() | self._with_training_loops())):
            for call in sinks.get(path, ()):
                inputs.append((path, call.argument(ms.DATA_SINK_DATASET.keyword, ms.DATA_SINK_DATASET.position),
                               call.scope))
            facts = project.python[path]
            for loop_id in sorted(self.training_loops(path)):
                loop = facts.loops[loop_id]
                if (path, loop.scope) in program.scopes:
                    inputs.append((path, loop.iterable, loop.scope))
        return [(path, value, scope) for path, value, scope in inputs if value is not None]

    def _making_calls(self, path: str, value: Optional[Value], scope: int, found: Set[Tuple[str, int]],
                      seen: Set[Tuple[str, int, int]], depth: int) -> None:
        """Add the calls that make ``value`` (read in ``path``, ``scope``) to ``found``."""
        if value is None or depth > 12 or (path, id(value), scope) in seen or len(seen) > 4000:
            return
        seen.add((path, id(value), scope))
        project = self.project
        facts = project.python[path]
        if value.kind == CALL:
            call = facts.call(value.data)
            if call is None:
                return
            found.add((path, call.id))
            if call.receiver is not None and call.method in (*ms.DATASET_METHODS, *ms.DATASET_ITERATORS,
                                                              *ms.RETURNS_SELF):
                self._making_calls(path, call.receiver, call.scope, found, seen, depth + 1)
            elif call.callee in ms.ITERATION_WRAPPERS:
                for argument in call.args:
                    self._making_calls(path, argument, call.scope, found, seen, depth + 1)
            else:
                for target_path, target in project.targets(path, call):
                    for returned in project.python[target_path].scopes[target].returns:
                        self._making_calls(target_path, returned, target, found, seen, depth + 1)
        elif choices(value) or (value.kind == OP and value.data == "+"):
            for part in choices(value) or value.parts:  # ``a + b`` concatenates datasets
                self._making_calls(path, part, scope, found, seen, depth + 1)
        elif value.kind == OP and value.data == "[]" and len(value.parts) == 2 and value.parts[0].kind == CALL:
            self._item_calls(path, value, found, seen, depth)
        elif value.kind == PARAM:
            for caller_path, argument, caller_scope in self._passed(path, value.data, scope):
                self._making_calls(caller_path, argument, caller_scope, found, seen, depth + 1)
        elif value.kind == SELF:
            owner = project.owner_class(path, scope)
            held = project.attribute(owner, value.data) if owner is not None else None
            if held is not None:
                cls = project.class_facts(owner)
                init = cls.methods.get("__init__", cls.scope) if cls is not None else 0
                self._making_calls(held[0], held[1], init, found, seen, depth + 1)
        elif value.kind == NAME:  # a loop's or comprehension's variable: the calls astroid follows it to
            for origin_path, origin in project.inference.origins(path, value) or ():
                self._making_calls(origin_path, Value(CALL, origin.id), origin.scope, found, seen, depth + 1)

    def _item_calls(self, path: str, value: Value, found: Set[Tuple[str, int]],
                    seen: Set[Tuple[str, int, int]], depth: int) -> None:
        """``make()[i]`` (``train, val = make()``): the i-th item of the tuples the factory returns."""
        project = self.project
        call = project.python[path].call(value.parts[0].data)
        position = value.parts[1].data
        if call is None or not isinstance(position, int):
            return
        for target_path, target in project.targets(path, call):
            for returned in project.python[target_path].scopes[target].returns:
                if returned.kind == OP and returned.data == "tuple" and -len(returned.parts) <= position < len(
                        returned.parts):
                    self._making_calls(target_path, returned.parts[position], target, found, seen, depth + 1)

    def _passed(self, path: str, name: str, scope: int) -> List[Tuple[str, Value, int]]:
        """What the callers of the function holding ``scope`` pass for its parameter ``name``."""
        project = self.project
        scopes = project.python[path].scopes
        while 0 <= scope < len(scopes) and name not in scopes[scope].params and scopes[scope].parent >= 0:
            scope = scopes[scope].parent
        if not 0 <= scope < len(scopes) or name not in scopes[scope].params:
            return []
        function = scopes[scope]
        position = function.params.index(name) - (1 if function.cls else 0)
        passed = []
        for caller_path, call in project.callers((path, scope))[:16]:
            argument = call.argument(name, position if position >= 0 else None)
            if argument is not None:
                passed.append((caller_path, argument, call.scope))
        return passed

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


# --- what a network runs, and how big it is ------------------------------------------------------------


def used_attributes(project: Project, classes: FrozenSet[ClassRef]) -> Set[str]:
    """Names of ``self.<attr>`` the classes' methods other than ``__init__`` use: what ``construct`` can run."""
    used: Set[str] = set()
    for cls in classes:
        for path, index in project.methods(cls):
            facts = project.python[path]
            if facts.scopes[index].name.rsplit(".", 1)[-1] == "__init__":
                continue
            for call in facts.calls:
                if call.scope != index:
                    continue
                if call.callee.startswith("self."):
                    used.add(call.callee[5:].split(".", 1)[0])
                for value in (call.receiver, *call.args, *call.kwargs.values()):
                    used.update(_self_names(value))
    return used


def _self_names(value: Optional[Value], depth: int = 0) -> Set[str]:
    if value is None or depth > 8:
        return set()
    names = {value.data} if value.kind == "self" else set()
    for part in value.parts:
        names |= _self_names(part, depth + 1)
    return names


def holding_attribute(facts, call: Call) -> Optional[str]:
    """The ``self.<attr>`` a layer ends up in: its own target, or the target of the call that takes it
    (``self.classifier = nn.SequentialCell([nn.Dense(...), ...])``); None when it goes elsewhere."""
    parents = _argument_parents(facts)
    current = call
    for _ in range(8):
        if current.target:
            return current.target[5:] if current.target.startswith("self.") else None
        parent = parents.get(current.id)
        if parent is None:
            return None
        current = parent
    return None


def _argument_parents(facts) -> Dict[int, Call]:
    """Call id -> the call that takes its result as an argument (once per file)."""
    cached = getattr(facts, "_argument_parents", None)
    if cached is None:
        cached = {}
        for call in facts.calls:
            for value in (*call.args, *call.kwargs.values()):
                for inner in _call_ids(value):
                    cached.setdefault(inner, call)
        facts._argument_parents = cached  # type: ignore[attr-defined]
    return cached


def _call_ids(value: Value, depth: int = 0) -> Set[int]:
    if depth > 6:
        return set()
    found = {value.data} if value.kind == CALL else set()
    if value.kind == "op" and value.data == "tuple":
        for part in value.parts:
            found |= _call_ids(part, depth + 1)
    return found


def argument_for(call: Call, scope, name: str) -> Optional[Value]:
    """What ``call`` passes for the parameter ``name`` of the function or method ``scope`` it enters."""
    position = scope.params.index(name) - (1 if scope.cls and scope.params[:1] == ["self"] else 0)
    return call.argument(name, position)


def network_parameters(project: Project, values, training: "Training", path: str, network: Value,
                       scope: int, program: Optional[Program] = None) -> Optional[int]:
    """How many parameters a network has, at most: counted from the project classes it is made of, known for
    model-zoo networks (``lenet(...)``, ``create_model("squeezenet1_0")``) and for small architecture families
    (a project class named ``SqueezeNet``); None when unknown. With ``program``, the sizes are those that program
    builds (the callers it runs, not a hub entry that forwards ``*args``)."""
    classes = training.network_classes(path, network, scope)
    if classes:
        return ParameterCount.shared(project, values, program).of_classes(classes)
    return _zoo_parameters(project, values, path, training.unwrap(path, network), scope)


def _family(class_name: str) -> Optional[int]:
    name = class_name.lower()
    return next((size for family, size in ms.SMALL_ARCHITECTURES.items() if name.startswith(family)), None)


def _zoo_parameters(project: Project, values, path: str, network: Value, scope: int) -> Optional[int]:
    made = project.made_by(path, network, scope=scope)
    if not made or made.split(".", 1)[0] not in ms.MINDSPORE_PACKAGES:
        return None
    factory = made.rsplit(".", 1)[-1]
    if factory not in ms.MODEL_NAME_FACTORIES:
        return ms.SMALL_ZOO_NETWORKS.get(factory.lower())
    found = project.making_call(path, network, made)
    if found is None:
        return None
    parameter = ms.MODEL_NAME_FACTORIES[factory]
    named = values.resolve(found[0], found[1].argument(parameter.keyword, parameter.position), found[1].scope)
    sizes = [ms.SMALL_ZOO_NETWORKS.get(k.value.lower()) if isinstance(k.value, str) else None for k in named.values]
    if not named.complete or not sizes or None in sizes:
        return None
    return max(sizes)  # type: ignore[type-var]


class ParameterCount:
    """How many weights a network's classes build, counting every construction (memoised per project).

    A block built in a loop or a comprehension counts once per iteration, a helper method once per call; a
    layer whose size takes several values counts at its largest. So the count does not fall below the truth:
    anything the linter cannot size (a loop over an unknown sequence, a recurrent or attention layer, a
    network from another package stored on ``self``) makes the whole count unknown.
    """

    #: A layer's sizes are read as the calls being counted pass them (``Conv(3, 64)`` inside ``Net``'s
    #: ``__init__`` sizes that ``Conv`` with 3 and 64, not with every value any caller passes).
    CONTEXTUAL = True
    #: The innermost calls a size is read through (deeper chains fall back to every caller's values).
    CONTEXT_DEPTH = 6

    def __init__(self, project: Project, values, program: Optional[Program] = None) -> None:
        self.project = project
        self.values = values
        #: Sizes are read as this program runs them (only the callers it reaches), or as any caller does.
        self.program = program
        self._scopes: Dict[Tuple[ScopeRef, tuple], Optional[int]] = {}
        #: The calls being counted, outermost first (:attr:`CONTEXTUAL`).
        self._through_calls: List[Tuple[str, Call]] = []
        #: Classes being counted now: a class that holds an instance of itself (through the networks its callers
        #: hand it) is unknown, not an endless count.
        self._counting: Set[ClassRef] = set()

    @classmethod
    def shared(cls, project: Project, values, program: Optional[Program] = None) -> "ParameterCount":
        """The project's counter for ``program`` (counts are shared by the rules of one run)."""
        key = ("parameter-count", id(values), program.entry if program is not None else None)
        return project.memo(key, lambda: cls(project, values, program))  # type: ignore[return-value]

    def of_classes(self, classes: FrozenSet[ClassRef]) -> Optional[int]:
        """The weights of one instance of each class (None when one is unknown)."""
        total = 0
        for cls in sorted(classes):
            size = self.of_class(cls)
            if size is None:
                return None
            total += size
        return total

    def of_class(self, cls: ClassRef) -> Optional[int]:
        """Weights built by the class's ``__init__`` and its project bases' (each base's init counted); when they
        cannot be counted, the largest published size of a small architecture the class is named after."""
        counted = self._counted(cls)
        return counted if counted is not None else _family(cls[1])

    def _counted(self, cls: ClassRef) -> Optional[int]:
        if cls in self._counting:
            return None
        self._counting.add(cls)
        try:
            return self._counted_once(cls)
        finally:
            self._counting.discard(cls)

    def _counted_once(self, cls: ClassRef) -> Optional[int]:
        total = 0
        for current in self.project.ancestry(cls):
            facts = self.project.class_facts(current)
            index = facts.methods.get("__init__") if facts is not None else None
            if index is not None:
                size = self.of_scope((current[0], index))
                held = self._held_networks(current, index)
                if size is None or held is None:
                    return None
                total += size + held
        return total

    def _held_networks(self, cls: ClassRef, init: int) -> Optional[int]:
        """Networks handed to ``__init__`` and kept on ``self`` to be called (``self.backbone = backbone``)."""
        project = self.project
        path = cls[0]
        called, _ = _used_attributes(project, cls)
        total = 0
        for name, value in self._kept_parameters(cls).items():
            made = project.made_by(path, value, scope=init)
            if ms.is_optimizer(made):
                continue  # its state grows with the network it trains, as in a ModelCheckpoint of a Model
            if made in ms.WEIGHTED_LAYERS:
                continue  # ``SpectralNorm(nn.Conv2d(...))``: a MindSpore layer counts where it is built
            if ms.is_weightless_cell(made):
                continue  # a MindSpore loss or activation handed in: no weights
            classes = frozenset(c for c in project.instance_classes(path, value, init) if project.is_cell(c))
            if not classes and name not in called:
                continue  # handed on, not called, and no network: a scale, a dtype, ``sens``
            size = self.of_classes(classes) if classes else None
            if size is None:
                return None
            total += size
        return total

    def _kept_parameters(self, cls: ClassRef) -> Dict[str, Value]:
        """``{attribute: parameter}`` of what ``__init__`` keeps on ``self`` from its parameters and the class's
        methods call or hand on: the networks it may hold (:meth:`_held_networks`)."""
        facts = self.project.class_facts(cls)
        if facts is None:
            return {}
        called, passed = _used_attributes(self.project, cls)
        return {name: value for name, value in facts.attrs.items()
                if value.kind == PARAM and (name in called or name in passed)}

    def context(self) -> Tuple[Tuple[str, Call], ...]:
        """The calls a size read now is made through (the values engine's ``context``)."""
        return tuple(self._through_calls[-self.CONTEXT_DEPTH:]) if self.CONTEXTUAL else ()

    def _entering(self, path: str, call: Call, count: Callable[[], Optional[int]]) -> Optional[int]:
        """``count()`` with ``call`` as the innermost call of the context."""
        if not self.CONTEXTUAL:
            return count()
        self._through_calls.append((path, call))
        try:
            return count()
        finally:
            self._through_calls.pop()

    def of_scope(self, scope: ScopeRef) -> Optional[int]:
        """Weights built when the scope runs once (in the current context)."""
        key = (scope, tuple((p, c.id) for p, c in self.context()))
        if key in self._scopes:
            return self._scopes[key]
        self._scopes[key] = None  # recursion: unknown
        path, index = scope
        built: List[Tuple[tuple, int]] = []
        total: Optional[int] = 0
        for call in self.project.python[path].calls:
            if call.scope != index or self.held_elsewhere(path, call):
                continue
            size = self._call(path, call)
            times = self._iterations(path, call) if size else 1
            if size is None or times is None:
                total = None
                break
            if size:
                built.append((call.guards, size * times))  # type: ignore[operator]
        if total is not None:
            total = _largest_arm(built, 0)
        self._scopes[key] = total
        return total

    def _call(self, path: str, call: Call) -> Optional[int]:
        project = self.project
        qualified = project.qualified(path, call)
        if qualified:
            layer = ms.WEIGHTED_LAYERS.get(qualified)
            if layer is not None:
                return _layer_size(self.values, path, call, layer, self.program, self.context())
            if qualified == ms.PARAMETER:
                return self._parameter_size(path, call)
            if qualified in ms.UNSIZED_WEIGHT_LAYERS:
                return None
            # Another package's network stored on the cell (``self.backbone = create_model(...)``).
            return None if call.target.startswith("self.") and not qualified.startswith("mindspore.") else 0
        method = self.project.own_method(path, call)
        if method is not None:
            return self._entering(path, call, lambda: self.of_scope(method))
        if call.method == "__call__" and call.receiver is not None and call.receiver.kind in (PARAM, NAME):
            return self._entering(path, call, lambda: self._handed(path, call))
        symbol = project.callee(path, call)
        if symbol is None:
            return 0  # a builtin, numpy, or a call the linter cannot follow
        if symbol.kind == "class":
            ref = (symbol.path, symbol.name)
            return self._entering(path, call, lambda: self.of_class(ref)) if project.is_cell(ref) else 0
        function = project.function_of(symbol)
        return self._entering(path, call, lambda: self.of_scope((symbol.path, function))) \
            if function is not None else 0

    def _parameter_size(self, path: str, call: Call) -> Optional[int]:
        """The values a ``Parameter`` holds, from the shape its tensor is built with (``Tensor(np.zeros((a, b)))``,
        ``initializer("normal", [a, b])``; one for a number); None when the shape is not known."""
        shape = self.project.tensor_shape(path, Value(CALL, call.id), scalars=True)
        if shape is None:  # ``Tensor(init_coef["nu"])``: the data it is built from, when known
            data = self.project.tensor_data(path, Value(CALL, call.id))
            found = self.values.resolve(path, data, call.scope, program=self.program, context=self.context())
            sizes = [_elements(k.value) for k in found.values] if found.complete else []
            return max(sizes) if sizes and None not in sizes else None  # type: ignore[type-var]
        value = shape.value
        dims = value.parts if value.kind == OP and value.data == "tuple" else (value,)
        product = 1
        for dim in dims:
            found = self.values.resolve(shape.path, dim, shape.scope if shape.scope >= 0 else call.scope,
                                        program=self.program, context=self.context())
            numbers = [_size_of(k.value, 0) for k in found.values]
            if not found.complete or not numbers or None in numbers:
                return None
            product *= max(numbers)  # type: ignore[type-var]
        return product

    def _handed(self, path: str, call: Call) -> Optional[int]:
        """``block(in_channels, channels)`` where every caller hands the parameter ``block`` a project class: the
        largest of them; None for a factory or anything else handed in."""
        classes = self.project.handed_classes(path, call.receiver, call.scope) if call.receiver is not None \
            else frozenset()
        sizes = [self.of_class(cls) if self.project.is_cell(cls) else None for cls in sorted(classes)]
        if not sizes or None in sizes:
            return None
        return max(sizes)  # type: ignore[type-var]

    def held_elsewhere(self, path: str, call: Call) -> bool:
        """``Outer(backbone=Inner(...))``: a network built as the argument of a project cell that keeps it on
        ``self`` is counted with that cell (:meth:`_held_networks`), not again where it is built."""
        if self.project.qualified(path, call) in ms.WEIGHTED_LAYERS:
            return False  # a MindSpore layer counts where it is built, whoever keeps it
        parent = _argument_parents(self.project.python[path]).get(call.id)
        if parent is None or not parent.callee:
            return False
        symbol = self.project.callee(path, parent)
        if symbol is None or symbol.kind != "class" or not self.project.is_cell((symbol.path, symbol.name)):
            return False
        init = self.project.method((symbol.path, symbol.name), "__init__")
        if init is None:
            return False
        function = self.project.python[init[0]].scopes[init[1]]
        params = function.params[1:] if function.cls else function.params
        names = [key for key, value in parent.kwargs.items() if value.kind == CALL and value.data == call.id] + [
            params[position] for position, value in enumerate(parent.args)
            if value.kind == CALL and value.data == call.id and position < len(params) and not parent.star]
        kept = {value.data for value in self._kept_parameters((symbol.path, symbol.name)).values()}
        return bool(names) and all(name in kept for name in names)

    def _iterations(self, path: str, call: Call) -> Optional[int]:
        """How many times the loops around the call run (1 outside loops; None when unknown)."""
        times = 1
        facts = self.project.python[path]
        for loop_id in call.loops:
            count = loop_count(self.values, path, facts.loops[loop_id], facts, self.program)
            if count is None:
                return None
            times *= count
        return times


def _covers(use: NetworkUse, step: NetworkUse) -> bool:
    """A training already found takes this train-step cell (``Model(StepCell(net, opt))``): the step is not a
    training of its own. (The same network trained by another step, in another arm, is.)"""
    if use.path != step.path:
        return False
    taken = [v for a in (*use.anchor.args, *use.anchor.kwargs.values()) for v in choices(a) or (a,)]
    return use.anchor.id == step.anchor.id or any(v.kind == CALL and v.data == step.anchor.id for v in taken) or (
        use.network is not None and any(v.kind == CALL and v.data == step.anchor.id for v in choices(use.network)
                                        or (use.network,)))


def short_run(project: Project, values, training: "Training", program: Program) -> bool:
    """The program is a demo: every training step it takes is counted by loops of known length, at most
    :data:`~ms_perflint.catalogue.SHORT_RUN_STEPS` in all, and every network it trains is known to be small."""
    def decide() -> bool:
        steps = _run_steps(project, values, training, program)
        if steps is None or steps > ms.SHORT_RUN_STEPS:
            return False
        uses = training.networks(program)
        sizes = [network_parameters(project, values, training, use.path, use.network, use.anchor.scope, program)
                 for use in uses if use.network is not None]
        return bool(sizes) and None not in sizes and max(sizes) < ms.SMALL_NETWORK_PARAMETERS  # type: ignore
    return project.memo(("short-run", id(values), program.entry), decide)  # type: ignore[return-value]


def _run_steps(project: Project, values, training: "Training", program: Program) -> Optional[int]:
    """The training steps the program takes: the runs of each call that takes a step itself (a train-step cell, a
    gradient function), counted by the loops around it and around the calls that lead to it; None when one is
    unknown (``Model.train`` over a dataset, a loop over data or a ``while``)."""
    total = 0
    counted: Dict[ScopeRef, Optional[int]] = {}
    for path, facts in project.python.items():
        for call in facts.calls:
            if (path, call.scope) not in program.scopes or not training.call_trains(path, call):
                continue
            kind = project.training_kind(path, call)
            if kind in ("model", "trainer"):
                return None  # epochs over a dataset whose size the linter does not know
            if kind is not None or project.targets(path, call):
                continue  # the construction of a step, or a project function that trains: its step calls count
            runs = _runs_of(project, values, program, path, call, counted, 0)
            if runs is None:
                return None
            total += runs
    return total or None


def _runs_of(project: Project, values, program: Program, path: str, call: Call,
             counted: Dict[ScopeRef, Optional[int]], depth: int) -> Optional[int]:
    """How many times a call runs: the loops around it times the runs of its function."""
    times = 1
    facts = project.python[path]
    for loop in call.loops:
        count = loop_count(values, path, facts.loops[loop], facts, program)
        if count is None:
            return None
        times *= count
    scope = (path, call.scope)
    if facts.scopes[call.scope].kind != FUNCTION:
        return times  # the module's (or a notebook's) top level runs once
    if scope not in counted:
        counted[scope] = None  # recursion: unknown
        callers = [(p, c) for p, c in project.callers(scope) if (p, c.scope) in program.scopes]
        runs = [_runs_of(project, values, program, p, c, counted, depth + 1) for p, c in callers] \
            if callers and depth < 8 else [None]
        counted[scope] = None if None in runs else sum(runs)  # type: ignore[arg-type]
    found = counted[scope]
    return None if found is None else times * found


def _builds_project_object(project: Project, path: str, call: Call) -> bool:
    """A call of a project name (a class or factory of the project), by its callee."""
    return bool(call.callee) and not call.callee.startswith("self.") and not project.qualified(path, call)


def _same_network(value: Optional[Value], other: Value) -> bool:
    """Two values name the same network: built by the same call, or written the same way."""
    if value is None:
        return False
    if value.kind == CALL or other.kind == CALL:
        return value.kind == other.kind and value.data == other.data
    return bool(value.text) and value.text == other.text


def _used_attributes(project: Project, cls: ClassRef) -> Tuple[Set[str], Set[str]]:
    """``self.<name>`` the class's methods call (``self.backbone(x)``), and those they hand to a call
    (``self.grad(self.network, weights)``: a hand-written train step trains the network it keeps). Memoised."""
    def find() -> Tuple[Set[str], Set[str]]:
        called: Set[str] = set()
        passed: Set[str] = set()
        for path, index in project.methods(cls):
            for call in project.python[path].calls:
                if call.scope != index:
                    continue
                if call.callee.startswith("self.") and call.callee.count(".") == 1:
                    called.add(call.callee[5:])
                passed.update(a.data for a in (*call.args, *call.kwargs.values()) if a.kind == SELF)
        return called, passed

    return project.memo(("used-attributes", cls), find)  # type: ignore[return-value]


def loop_count(values, path: str, loop, facts, program: Optional[Program] = None) -> Optional[int]:
    """The most iterations of ``for _ in range(...)`` or of a loop over a known tuple (as ``program`` runs it);
    None when unknown."""
    iterable = loop.iterable
    if iterable is None:
        return None
    if iterable.kind == CALL:
        call = facts.call(iterable.data)
        if call is None or call.callee != "range" or not 1 <= len(call.args) <= 3:
            return None
        bounds = []
        for argument in call.args[:2]:
            found = values.resolve(path, argument, loop.scope, program=program)
            numbers = [k.value for k in found.values]
            if not found.complete or not numbers or not all(type(n) is int for n in numbers):
                return None
            bounds.append(numbers)
        if len(bounds) == 1:
            return max(0, max(bounds[0]))
        return max(0, max(bounds[1]) - min(bounds[0]))
    found = values.resolve(path, iterable, loop.scope, program=program)
    sizes = [len(k.value) for k in found.values if isinstance(k.value, (tuple, list, dict, str))]
    if not found.complete or not sizes or len(sizes) != len(found.values):
        return None
    return max(sizes)


def _layer_size(values, path: str, call: Call, layer, program: Optional[Program] = None,
                context: tuple = ()) -> Optional[int]:
    product = 1
    for parameter in (layer.inputs, layer.outputs, layer.kernel):
        if parameter is None:
            continue
        argument = call.argument(parameter.keyword, parameter.position)
        if argument is None:
            return None
        found = values.resolve(path, argument, call.scope, program=program, context=context)
        numbers = [_size_of(k.value, layer.dims if parameter is layer.kernel else 0) for k in found.values]
        if not found.complete or not numbers or None in numbers:
            return None
        product *= max(numbers)  # type: ignore[type-var]
    groups = layer_groups(values, path, call, layer, program, context)
    return product // min(groups) if groups else None


def group_argument(call: Call, layer) -> Optional[Value]:
    """What a convolution call passes for its groups: ``group=`` or ``mint``'s ``groups=``, else what it passes
    where ``nn`` places ``group`` (a literal bool there is ``mint``'s ``bias``: the analysis records both families
    under ``nn``'s name); None when it passes none (one group)."""
    if layer.group is None:
        return None
    for keyword in (layer.group.keyword, ms.MINT_GROUPS.keyword):
        if keyword in call.kwargs:
            return call.kwargs[keyword]
    value = call.argument(layer.group.keyword, layer.group.position)
    return None if value is not None and value.kind == LIT and isinstance(value.data, bool) else value


def layer_groups(values, path: str, call: Call, layer, program: Optional[Program] = None,
                 context: tuple = ()) -> Tuple[int, ...]:
    """The group counts a convolution can be built with: ``(1,)`` when it names none; empty when they are not known
    (``group=channels`` of an unknown width): the layer's size is then not known either."""
    argument = group_argument(call, layer)
    if argument is None:
        return (1,)
    found = values.resolve(path, argument, call.scope, program=program, context=context)
    numbers = [k.value for k in found.values]
    if not found.complete or not numbers or not all(type(n) is int and n > 0 for n in numbers):
        return ()
    return tuple(sorted(set(numbers)))


def _largest_arm(built: List[Tuple[tuple, int]], level: int) -> int:
    """The weights built under the guards of ``if`` statements: the sum of what every statement builds, the larger
    of an ``if``'s two arms (``if is_first: self.linear = Dense(a, b) else: self.linear = Dense(c, d)`` builds one
    layer, not two)."""
    total = 0
    arms: Dict[tuple, Dict[bool, List[Tuple[tuple, int]]]] = {}
    for guards, size in built:
        if len(guards) <= level:
            total += size
            continue
        condition, holds = guards[level]
        key = (condition.start, condition.end, condition.text)
        arms.setdefault(key, {}).setdefault(bool(holds), []).append((guards, size))
    for branches in arms.values():
        total += max(_largest_arm(items, level + 1) for items in branches.values())
    return total


def _elements(value) -> Optional[int]:
    """How many numbers a tensor built from ``value`` holds: one for a number, the numbers of a (nested) list."""
    if type(value) in (int, float):
        return 1
    if isinstance(value, (tuple, list)) and value:
        counts = [_elements(item) for item in value]
        return None if None in counts else sum(counts)  # type: ignore[arg-type]
    return None


def _size_of(value, dims: int) -> Optional[int]:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value ** dims if dims else value
    if isinstance(value, tuple) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        result = 1
        for item in value:
            result *= item
        return result
    return None


def _calls_nn(project: Project, path: str, call: Call) -> bool:
    """A call of something in ``mindspore.nn``, or of an optimizer of another MindSpore-family module
    (``mindspore.experimental.optim.AdamW``, ``mindnlp.core.optim.AdamW``): an optimizer takes the network's
    parameters."""
    qualified = project.qualified(path, call)
    return qualified.startswith("mindspore.nn.") or ms.is_parameter_optimizer(qualified)
