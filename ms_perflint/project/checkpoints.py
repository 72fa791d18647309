"""Checkpoint saves in a project: which saves repeat while a program trains, how often, and what they save.

The rules ask (MSP103 first):

- how often a ``CheckpointConfig`` makes its ``ModelCheckpoint`` save: a :class:`Period` in steps or epochs,
  computed from values (``save_checkpoint_steps=k * dataset.get_dataset_size()`` is every ``k`` epochs; a
  literal ``N`` is every ``N`` steps; a name never says which);
- which ``ModelCheckpoint`` calls a config reaches, and whether a program registers the callback where it runs
  (``if args.save_ckpt: callbacks.append(ckpt)`` with the flag off in every run registers nothing);
- where a ``save_checkpoint`` call repeats during training (a training loop, a per-step or per-epoch Callback
  method, a helper called from either) and its period there (``if epoch % N == 0``);
- whether a save follows a full evaluation in the same callback (save-best);
- how many epochs a program trains, and whether the saved network is small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, CFG, LIT, OP, PARAM, REF, SELF, Call, Value, choices
from ms_perflint.project.model import Program, Project, ScopeRef
from ms_perflint.project.training import Training, argument_for, loop_count, network_parameters

STEP, EPOCH = "step", "epoch"


@dataclass(frozen=True)
class Period:
    """How often a save repeats: every one of ``counts`` (its candidate values) ``unit`` s; unknown when
    ``counts`` is empty. ``unit`` is ``step`` or ``epoch``."""

    unit: str
    counts: Tuple[int, ...] = ()

    @property
    def known(self) -> bool:
        return bool(self.counts)

    def describe(self) -> str:
        """``every epoch``, ``every 2 epochs``, ``every 100 steps``."""
        count = min(self.counts) if self.counts else 0
        return f"every {self.unit}" if count == 1 else f"every {count} {self.unit}s"


UNKNOWN_PERIOD = Period(STEP)


@dataclass(frozen=True)
class Repeat:
    """Where a ``save_checkpoint`` call repeats while training (for messages) and how often."""

    where: str
    period: Period
    #: How many times the save runs in the run when the loops around it are known (None: unknown).
    saves: Optional[int] = None
    #: The per-step or per-epoch Callback method it runs in ("" for a loop).
    method: Tuple[str, int] = ("", -1)
    #: Another condition than the period test decides each save (``if accuracy > best:``).
    conditional: bool = False

    def describe(self) -> str:
        """``every epoch``, or ``at every save (up to every epoch)`` for a conditional save."""
        return f"at every save (up to {self.period.describe()})" if self.conditional else self.period.describe()


class Checkpoints:
    """Checkpoint questions over one project (memoised per project and values)."""

    def __init__(self, project: Project, values) -> None:
        self.project = project
        self.values = values
        self.training = Training.shared(project)

    @classmethod
    def shared(cls, project: Project, values) -> "Checkpoints":
        """The project's one instance for these values."""
        return project.memo(("checkpoints", id(values)), lambda: cls(project, values))  # type: ignore[return-value]

    # --- how often a CheckpointConfig saves ------------------------------------------------------

    def config_period(self, path: str, config: Call) -> Period:
        """The period of ``CheckpointConfig(save_checkpoint_steps=...)``: ``k * <steps of an epoch>`` is every
        ``k`` epochs, the steps of an epoch alone every epoch, a number ``N`` every ``N`` steps; a missing value is
        MindSpore's default of 1 step, unless ``save_checkpoint_seconds`` asks for a time interval (unknown)."""
        steps = config.argument(ms.SAVE_STEPS.keyword, ms.SAVE_STEPS.position)
        if steps is None:
            if config.argument(ms.SAVE_SECONDS.keyword, ms.SAVE_SECONDS.position) is not None \
                    or config.double_star:
                return UNKNOWN_PERIOD
            return Period(STEP, (1,))
        return self.period_of(path, steps, config.scope, STEP)

    def period_of(self, path: str, value: Value, scope: int, unit: str) -> Period:
        """The period ``value`` counts, in ``unit`` unless it is a multiple of an epoch's steps (also through a
        cast: ``int(config.ckpt_interval * steps_per_epoch)``)."""
        cast = self.project.python[path].call(value.data) if value.kind == CALL else None
        if cast is not None and cast.callee in ms.NUMBER_CASTS and len(cast.args) == 1 and not cast.kwargs \
                and cast.args[0].kind == OP:
            value = cast.args[0]
        if self.steps_of_an_epoch(path, value, scope) or self._part_of_an_epoch(path, value, scope):
            return Period(EPOCH, (1,))  # a part of an epoch counts as every epoch: it is at least as often
        if value.kind == OP and value.data == "*" and len(value.parts) == 2:
            for count, per_epoch in (value.parts, value.parts[::-1]):
                if self.steps_of_an_epoch(path, per_epoch, scope):
                    return Period(EPOCH, self._counts(path, count, scope))
        return Period(unit, self._counts(path, value, scope))

    def _part_of_an_epoch(self, path: str, value: Value, scope: int) -> bool:
        """``int(steps_per_epoch / 10)``: a known fraction of an epoch's steps."""
        if value.kind == CALL:
            call = self.project.python[path].call(value.data)
            if call is None or call.callee not in ms.NUMBER_CASTS or len(call.args) != 1:
                return False
            value, scope = call.args[0], call.scope
        return value.kind == OP and value.data in ("/", "//") and len(value.parts) == 2 \
            and self.steps_of_an_epoch(path, value.parts[0], scope) and bool(self._counts(path, value.parts[1], scope))

    def _counts(self, path: str, value: Value, scope: int) -> Tuple[int, ...]:
        found = self.values.resolve(path, value, scope)
        numbers = [k.value for k in found.values]
        if not found.complete or not numbers or not all(type(n) is int and n > 0 for n in numbers):
            return ()
        return tuple(sorted(set(numbers)))

    def steps_of_an_epoch(self, path: str, value: Optional[Value], scope: int, depth: int = 0) -> bool:
        """The value is the number of steps of one epoch: ``dataset.get_dataset_size()``, through ``int(...)``,
        a name or config attribute bound to it (``config.steps_per_epoch = ds.get_dataset_size()``), or a
        parameter every caller passes it to."""
        if value is None or depth > 6:
            return False
        project = self.project
        if value.kind == CALL:
            call = project.python[path].call(value.data)
            if call is not None and call.method == ms.DATASET_SIZE_METHOD and not call.args:
                return True
            return call is not None and call.callee in ms.NUMBER_CASTS and len(call.args) == 1 \
                and self.steps_of_an_epoch(path, call.args[0], call.scope, depth + 1)
        if choices(value):  # bound in both arms of an ``if`` (a transfer run's dataset or the training one)
            return all(self.steps_of_an_epoch(path, arm, scope, depth + 1) for arm in choices(value))
        if value.kind == CFG or (value.kind == REF and "." in value.data):
            # ``config.steps_per_epoch = ds.get_dataset_size()`` read as ``args.steps_per_epoch`` or through the
            # imported config object (``src.config.config.steps_per_epoch``)
            key = value.data if value.kind == CFG else value.data.rsplit(".", 1)[1]
            assigned = [e for e in project.python[path].config if e.key == key]
            return bool(assigned) and all(self.steps_of_an_epoch(path, e.value, e.scope, depth + 1) for e in assigned)
        if value.kind == PARAM:
            return self._passed_steps_of_an_epoch(path, value.data, scope, depth)
        if value.kind == OP and value.data == "[]" and len(value.parts) == 2 and value.parts[1].kind == LIT \
                and type(value.parts[1].data) is int:  # ``size, data = make_dataset()``: an item of what it returns
            items = project.returned_items(path, value.parts[0], value.parts[1].data)
            return bool(items) and all(self.steps_of_an_epoch(p, v, s, depth + 1) for p, v, s, _ in items)
        return False

    def _passed_steps_of_an_epoch(self, path: str, name: str, scope: int, depth: int) -> bool:
        function = self.project.python[path].scopes[scope]
        if name not in function.params:
            return False
        position = function.params.index(name) - (1 if function.cls else 0)
        callers = self.project.callers((path, scope))[:16]
        arguments = [(p, c.argument(name, position if position >= 0 else None), c.scope) for p, c in callers]
        return bool(arguments) and all(self.steps_of_an_epoch(p, a, s, depth + 1) for p, a, s in arguments)

    # --- how long a program trains -----------------------------------------------------------------

    def epochs_trained(self, programs: Sequence[Program]) -> Tuple[int, ...]:
        """The epoch counts the programs' ``Model.train`` calls can take; empty when one is unknown."""
        found: Set[int] = set()
        for program in programs:
            for path, call, kind in self.project.training_calls(program):
                if kind != "model":
                    continue
                epoch = call.argument(ms.MODEL_TRAIN_EPOCH.keyword, ms.MODEL_TRAIN_EPOCH.position)
                counts = self._counts(path, epoch, call.scope) if epoch is not None else ()
                if not counts:
                    return ()
                found.update(counts)
        return tuple(sorted(found))

    @staticmethod
    def frequent(period: Period, saves: Optional[int] = None, epochs: Tuple[int, ...] = ()) -> bool:
        """Worth acting on (RULES.md): the save repeats at least every
        :data:`~ms_perflint.catalogue.FREQUENT_SAVE_EPOCHS` epochs or
        :data:`~ms_perflint.catalogue.FREQUENT_SAVE_STEPS` steps, and runs at least
        :data:`~ms_perflint.catalogue.MIN_SAVES_IN_RUN` times where the run's length is known (``saves``, or the
        ``epochs`` trained for an epoch period). An unknown period is not frequent."""
        if not period.known:
            return False
        shortest = min(period.counts)
        limit = ms.FREQUENT_SAVE_EPOCHS if period.unit == EPOCH else ms.FREQUENT_SAVE_STEPS
        if shortest > limit:
            return False
        if saves is not None:
            return saves >= ms.MIN_SAVES_IN_RUN
        if period.unit == EPOCH and epochs:
            return max(epochs) // shortest >= ms.MIN_SAVES_IN_RUN
        return True

    # --- where a CheckpointConfig goes ---------------------------------------------------------------

    def model_checkpoints(self, path: str, config: Call) -> List[Tuple[str, Call]]:
        """``ModelCheckpoint(config=...)`` calls that receive this CheckpointConfig: directly, returned by a
        helper, or through a parameter."""
        project = self.project
        found = []
        for callback_path, call in self._all_model_checkpoints():
            argument = call.argument(ms.MODEL_CHECKPOINT_CONFIG.keyword, ms.MODEL_CHECKPOINT_CONFIG.position)
            # ``config=ckpt_config`` bound in several arms of an ``if``: each arm's CheckpointConfig reaches it
            if argument is not None and (path, config) in project.making_calls(callback_path, argument,
                                                                                ms.CHECKPOINT_CONFIG):
                found.append((callback_path, call))
        if found:
            return found
        for caller in project.python[path].calls:
            if not any(v.kind == CALL and v.data == config.id for v in (*caller.args, *caller.kwargs.values())):
                continue
            for target_path, target_scope in project.targets(path, caller):
                for call in project.python[target_path].calls:
                    if call.scope == target_scope and project.qualified(target_path, call) == ms.MODEL_CHECKPOINT:
                        argument = call.argument(ms.MODEL_CHECKPOINT_CONFIG.keyword,
                                                 ms.MODEL_CHECKPOINT_CONFIG.position)
                        if argument is not None and argument.kind == PARAM:
                            found.append((target_path, call))
        return found

    def _all_model_checkpoints(self) -> List[Tuple[str, Call]]:
        """Every ``ModelCheckpoint(...)`` call of the project (once per project)."""
        project = self.project

        def find() -> List[Tuple[str, Call]]:
            return [(path, call) for path, facts in sorted(project.python.items()) for call in facts.calls
                    if call.callee and project.qualified(path, call) == ms.MODEL_CHECKPOINT]

        return project.memo("model-checkpoints", find)  # type: ignore[return-value]

    def registered(self, program: Program, path: str, callback: Call) -> bool:
        """A callback object built by ``callback`` is handed on where the program can run it: some use of the
        name it is bound to (``callbacks.append(ckpt)``, ``callbacks=[ckpt]``) is under guards that can hold.
        ``if args.save_ckpt: callbacks.append(ckpt)`` with the flag off in every run registers nothing. A callback
        used in no call the linter sees (``callbacks += [ckpt]``) counts as registered."""
        uses = [call for call in self.project.python[path].calls
                if call.scope == callback.scope and call.id != callback.id and _passes(call, callback.id)]
        return not uses or any(self.values.can_hold(path, use.scope, use.guards, program) for use in uses)

    # --- where a save_checkpoint call repeats --------------------------------------------------------

    def repeats(self, path: str, call: Call) -> Optional[Repeat]:
        """Where ``save_checkpoint`` runs again and again during training, with its period; None when it does
        not repeat (no training loop or per-step Callback method around it, or a guard that runs it once)."""
        if _guarded_once(call):
            return None
        found = self._repeat_in(path, call.scope, call.loops, call.guards)
        if found is not None:
            return found
        project = self.project
        name = project.python[path].scopes[call.scope].name
        for caller_path, caller in project.callers((path, call.scope)):
            if _guarded_once(caller):
                continue
            found = self._repeat_in(caller_path, caller.scope, caller.loops, (*caller.guards, *call.guards))
            if found is not None:
                return Repeat(f"{name}, called from {found.where}", found.period, found.saves, found.method,
                              found.conditional)
        return None

    def _repeat_in(self, path: str, scope: int, loops: Sequence[int], guards) -> Optional[Repeat]:
        """The repetition a save gets in ``scope``: from training loops around it, or from the per-step or
        per-epoch Callback method ``scope`` is."""
        training = self.training
        trained = [loop for loop in loops if loop in training.training_loops(path)]
        if trained:
            period = self._guard_period(path, scope, guards, self._iteration(path, trained[-1]))
            facts = self.project.python[path]
            total: Optional[int] = 1
            for loop in loops:
                count = loop_count(self.values, path, facts.loops[loop], facts)
                total = None if count is None or total is None else total * count
            saves = total // min(period.counts) if total is not None and period.known else None
            return Repeat("a training loop", period, saves, conditional=_conditional(guards))
        method = self.callback_method(path, scope)
        if method:
            unit = EPOCH if "epoch" in method.rsplit(".", 1)[-1] else STEP
            period = self._guard_period(path, scope, guards, Period(unit, (1,)))
            return Repeat(method, period, None, (path, scope), _conditional(guards))
        return None

    def _iteration(self, path: str, loop: int, depth: int = 0) -> Period:
        """What one iteration of a training loop trains: a step when it runs a train step itself, else an epoch,
        unless a project function it calls runs a training of its own (:meth:`_run_of`): then that run's steps or
        epochs (unknown when their count is: ``for phase in phases: train(net, phase.iterations)``)."""
        if self._trains_directly(path, loop):
            return Period(STEP, (1,))
        runs = []
        project, training = self.project, self.training
        for call in project.python[path].calls:
            if not call.loops or call.loops[-1] != loop or project.training_kind(path, call) is not None \
                    or not training.call_trains(path, call):
                continue
            runs.extend(run for target in project.targets(path, call)
                        for run in [self._run_of(target, depth)] if run is not None)
        if not runs:
            return Period(EPOCH, (1,))
        if any(not run.known for run in runs) or len({run.unit for run in runs}) > 1:
            return Period(runs[0].unit)
        return Period(runs[0].unit, tuple(sorted({count for run in runs for count in run.counts})))

    def _run_of(self, target: ScopeRef, depth: int) -> Optional[Period]:
        """What one call of a project function trains when it runs a training of its own: its outermost training
        loop counts steps or epochs (``for i in range(n_iter)``, ``while``), not one pass over a dataset; None for
        an epoch (``for batch in loader``, ``for _ in range(dataset.get_dataset_size())``)."""
        path, scope = target
        facts = self.project.python[path]
        loops = self.training.training_loops(path)
        outermost = [loop for loop in facts.loops if loop.scope == scope and loop.id in loops
                     and not (0 <= loop.parent < len(facts.loops) and facts.loops[loop.parent].scope == scope)]
        if not outermost:  # ``def fit(self): return self._loop()``: the function it calls
            return self._run_of_calls(path, scope, depth + 1) if depth < 3 else None
        runs = [self._loop_run(path, loop) for loop in outermost]
        runs = [run for run in runs if run is not None]
        if not runs:
            return None
        if any(not run.known for run in runs):
            return Period(runs[0].unit)
        return Period(runs[0].unit, (sum(min(run.counts) for run in runs if run.unit == runs[0].unit),))

    def _run_of_calls(self, path: str, scope: int, depth: int) -> Optional[Period]:
        """The run a function's training calls make, outside any loop of its own."""
        project, training = self.project, self.training
        for call in project.python[path].calls:
            if call.scope == scope and not call.loops and project.training_kind(path, call) is None \
                    and training.call_trains(path, call):
                for target in project.targets(path, call):
                    run = self._run_of(target, depth)
                    if run is not None:
                        return run
        return None

    def _loop_run(self, path: str, loop) -> Optional[Period]:
        """A training loop that counts (``range(...)``, ``while``) as the steps or epochs it runs; None for a loop
        over data or over one epoch's steps."""
        iterable = loop.iterable
        facts = self.project.python[path]
        if loop.kind == "for":
            call = facts.call(iterable.data) if iterable is not None and iterable.kind == CALL else None
            if call is None or call.callee != "range" or not call.args:
                return None
            stop = call.args[1] if len(call.args) > 1 else call.args[0]
            if self.steps_of_an_epoch(path, stop, call.scope):
                return None  # ``range(dataset.get_dataset_size())``: one epoch of steps
        unit = STEP if self._trains_directly(path, loop.id) else EPOCH
        count = loop_count(self.values, path, loop, facts) if loop.kind == "for" else None
        return Period(unit, (count,) if count else ())

    def _trains_directly(self, path: str, loop: int) -> bool:
        """``loop`` runs a train step itself (a step loop), not an epoch of training: no ``Model.train``, and no
        project function that trains in a loop of its own (``train_one_epoch(...)``)."""
        return any(call.loops and call.loops[-1] == loop and self._step_call(path, call)
                   for call in self.project.python[path].calls if loop in call.loops)

    def _step_call(self, path: str, call: Call) -> bool:
        """The call runs one train step: it calls a train step or a function that does, and is not
        ``Model.train`` nor the construction of a step (``nn.TrainOneStepCell(...)`` rebuilt every epoch)."""
        project, training = self.project, self.training
        if project.training_kind(path, call) is not None or not training.call_trains(path, call):
            return False
        for target_path, target_scope in project.targets(path, call):
            facts = project.python[target_path]
            if any(facts.loops[loop].scope == target_scope for loop in training.training_loops(target_path)):
                return False
        return True

    def _guard_period(self, path: str, scope: int, guards, period: Period) -> Period:
        """``period`` (what one iteration takes) with no period test around the save; ``N`` iterations of it under
        ``x % N == 0`` (unknown when ``N`` is); nested tests multiply."""
        unit = period.unit
        for condition, holds in guards:
            divisor = _period_test(condition) if holds else _period_skip(condition)
            if divisor is not None:
                counts = self._counts(path, divisor, scope) or self._instance_counts(path, divisor, scope)
                if period.known:
                    period = Period(unit, tuple(c * min(period.counts) for c in counts) if counts else ())
        return period

    def _instance_counts(self, path: str, value: Value, scope: int) -> Tuple[int, ...]:
        """``self.save_ckpt_step`` set from ``__init__``'s parameter: the periods the constructions that give it a
        known number pass, each instance on its own (one callback built with ``save_ckpt_step=1`` saves every step
        whatever another instance is given); () when none does."""
        owner = self.project.owner_class(path, scope) if value.kind == SELF else None
        held = self.project.attribute(owner, value.data) if owner is not None else None
        init = self.project.method(owner, "__init__") if owner is not None else None
        if held is None or held[1].kind != PARAM or init is None:
            return ()
        function = self.project.python[init[0]].scopes[init[1]]
        if held[1].data not in function.params:
            return ()
        found: Set[int] = set()
        for site_path, site in self.project.constructions(owner):
            argument = argument_for(site, function, held[1].data)
            if argument is not None:
                found.update(self._counts(site_path, argument, site.scope))
        return tuple(sorted(found))

    def callback_method(self, path: str, scope: int) -> str:
        """``Callback.epoch_end`` when the scope is a per-step or per-epoch method of a Callback, else ""."""
        project = self.project
        owner = project.owner_class(path, scope)
        method = project.python[path].scopes[scope].name.rsplit(".", 1)[-1]
        if owner is None or method not in ms.PER_STEP_CALLBACKS or not project.derives_from(owner, ms.CALLBACK_BASES):
            return ""
        return f"{owner[1]}.{method}"

    def callback_registered(self, program: Program, path: str, scope: int) -> bool:
        """The Callback class that owns ``scope`` is built by the program where it can run, and handed on."""
        project = self.project
        owner = project.owner_class(path, scope)
        if owner is None:
            return True
        builds = self.project.constructions(owner)
        live = self.values.live_scopes(program)
        built = [(p, c) for p, c in builds if (p, c.scope) in live]
        if not built:
            return not builds  # built by code the linter cannot see (a registry): assume it runs
        return any(self.values.can_hold(p, c.scope, c.guards, program) and self.registered(program, p, c)
                   for p, c in built)

    # --- what happens around a save ----------------------------------------------------------------

    def follows_evaluation(self, path: str, call: Call, method: ScopeRef) -> bool:
        """A full evaluation runs before the save in the Callback method, whenever the save runs (its guards are
        among the save's): ``model.eval(...)``, a project function that calls it, or a function or method named
        for evaluation (``self.eval_function(...)``, ``evaluator.eval()``; a MindSpore Cell has no ``eval``).
        That is save-best, where the evaluation costs far more than the save."""
        method_path, index = method
        project = self.project
        facts = project.python[method_path]
        if (method_path, index) == (path, call.scope):
            sites = [call]
        else:  # the save is in a helper: the calls of the method that enter it
            sites = [c for c in facts.calls
                     if c.scope == index and (path, call.scope) in project.targets(method_path, c)]
        for site in sites:
            guards = {_guard_key(guard) for guard in site.guards}
            for other in facts.calls:
                if other.scope == index and other.start < site.start and other.id != site.id \
                        and all(_guard_key(guard) in guards for guard in other.guards) \
                        and _same_iteration(site, other.loops) and self._evaluates(method_path, other, 0):
                    return True
            if any(loop.scope == index and loop.line < site.line and _same_iteration(site, _loop_chain(facts, loop))
                   and _names_evaluation(loop.iterable) for loop in facts.loops):
                return True  # ``for data in self.ds_eval.create_dict_iterator():`` before the save
        return False

    def _evaluates(self, path: str, call: Call, depth: int) -> bool:
        project = self.project
        name = (call.method or call.callee.rsplit(".", 1)[-1]).lower()
        if any(word in name for word in ms.EVALUATION_WORDS):
            return True
        if depth >= 3:
            return False
        for target_path, target_scope in project.targets(path, call):
            for inner in project.python[target_path].calls:
                if inner.scope == target_scope and self._evaluates(target_path, inner, depth + 1):
                    return True
        return False

    def reads_after(self, programs: Sequence[Program], path: str, call: Call) -> bool:
        """Files may be read before a background write ends: the function (or the one calling it) goes on to
        read, list, copy, load or upload files after the save -- itself or through project code -- or, for a save
        in a callback or helper, the code after the training call does (a later notebook cell counts)."""
        project = self.project
        places = [(path, call.scope, call.end)]
        places += [(p, caller.scope, caller.end) for p, caller in project.callers((path, call.scope))]
        places += [(p, trained.scope, trained.end) for program in programs
                   for p, trained, _ in project.training_calls(program)
                   if (p, trained.scope) != (path, call.scope)]
        return any(self._reads_in(p, scope, after) for p, scope, after in places)

    def _reads_in(self, path: str, scope: int, after: int = -1, depth: int = 0,
                  seen: Optional[set] = None) -> bool:
        """A call of the scope (past offset ``after``) reads files, directly or in the project code it runs."""
        seen = set() if seen is None else seen
        if (path, scope, after) in seen or depth > 3:
            return False
        seen.add((path, scope, after))
        project = self.project
        for other in project.python[path].calls:
            if other.scope != scope or other.start <= after:
                continue
            if (other.method or other.callee.rsplit(".", 1)[-1]) in ms.FILE_READERS:
                return True
            if any(self._reads_in(p, s, -1, depth + 1, seen) for p, s in project.targets(path, other)):
                return True
        return False

    # --- what is saved -----------------------------------------------------------------------------

    def small_network(self, programs: Sequence[Program], callbacks: Sequence[Tuple[str, Call]]) -> bool:
        """Every network the callbacks save is known to be small: the network of the ``Model.train`` that follows
        each callback in its function (a notebook trains LeNet, then VGG16), else every network the programs
        train."""
        training = self.training
        following = [self._trained_next(path, callback) for path, callback in callbacks]
        if following and None not in following:
            uses = [(program, use) for program in programs for use in following]
        else:
            uses = [(program, use) for program in programs for use in training.networks(program)]
        sizes = [network_parameters(self.project, self.values, training, use.path, use.network, use.anchor.scope,
                                    program) for program, use in uses]
        return bool(sizes) and all(size is not None and size < ms.SMALL_NETWORK_PARAMETERS for size in sizes)

    def _trained_next(self, path: str, callback: Call):
        """The network of the first ``Model.train`` after the callback, in the same function."""
        project = self.project
        for call in project.python[path].calls:
            if call.scope == callback.scope and call.end >= callback.end \
                    and project.training_kind(path, call) == "model":
                return self.training.network_of(path, call, "model")
        return None

    def saves_small_network(self, programs: Sequence[Program], path: str, call: Call) -> bool:
        """``save_checkpoint(net, ...)`` of a network known to be small; for a save whose object the linter
        cannot size (``run_context.original_args().network``), every network the programs train is small."""
        saved = call.argument("save_obj", 0)
        sizes = [network_parameters(self.project, self.values, self.training, path, saved, call.scope, program)
                 for program in programs] if saved is not None else []
        if sizes and None not in sizes:
            return max(sizes) < ms.SMALL_NETWORK_PARAMETERS  # type: ignore[type-var]
        return self.small_network(programs, [])


# --- shapes of code ---------------------------------------------------------------------------------------


def _passes(call: Call, made: int) -> bool:
    """The call takes the object ``made`` builds as an argument (also inside a list: ``callbacks=[ckpt]``)."""
    return any(_holds_call(value, made) for value in (*call.args, *call.kwargs.values()))


def _holds_call(value: Value, made: int, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if value.kind == CALL and value.data == made:
        return True
    return value.kind == OP and any(_holds_call(part, made, depth + 1) for part in value.parts)


def _period_test(condition: Value) -> Optional[Value]:
    """``N`` of ``x % N == 0`` (either side), ``not x % N``; None for any other condition."""
    if condition.kind == OP and condition.data == "not" and len(condition.parts) == 1:
        inner = condition.parts[0]
        if inner.kind == OP and inner.data == "%" and len(inner.parts) == 2:
            return inner.parts[1]
        return None
    if condition.kind != OP or condition.data != "==" or len(condition.parts) != 2:
        return None
    for modulo, zero in (condition.parts, condition.parts[::-1]):
        if modulo.kind == OP and modulo.data == "%" and len(modulo.parts) == 2 and zero.kind == LIT \
                and zero.data == 0:
            return modulo.parts[1]
    return None


def _period_skip(condition: Value) -> Optional[Value]:
    """``N`` of ``x % N != 0`` or ``x % N > 0`` when the code runs where it does not hold (``if step % N != 0:
    return`` before the save); None for any other condition."""
    if condition.kind != OP or condition.data not in ("!=", ">") or len(condition.parts) != 2:
        return None
    modulo, zero = condition.parts
    if modulo.kind == OP and modulo.data == "%" and len(modulo.parts) == 2 and zero.kind == LIT and zero.data == 0:
        return modulo.parts[1]
    return None


def _conditional(guards) -> bool:
    """Some guard is not a period test."""
    return any((_period_test(condition) if holds else _period_skip(condition)) is None for condition, holds in guards)


def _guarded_once(call: Call) -> bool:
    """The save runs under ``if epoch == last`` (an equality on an epoch or step that is not a period test)."""
    for condition, holds in call.guards:
        if holds and condition.kind == OP and condition.data == "==" and _period_test(condition) is None:
            text = condition.text.lower()
            if "epoch" in text or "step" in text:
                return True
    return False


def _guard_key(guard) -> Tuple[int, int, str, bool]:
    condition, holds = guard
    return condition.start, condition.end, condition.text, holds


def _same_iteration(save: Call, loops: Sequence[int]) -> bool:
    """Code in ``loops`` runs in the same iteration as the save: inside the save's innermost loop, when it has one
    (an evaluation before an epoch loop does not precede each of its saves)."""
    return not save.loops or save.loops[-1] in loops


def _loop_chain(facts, loop) -> Tuple[int, ...]:
    """A loop and the loops it is nested in."""
    chain = []
    current = loop
    while current is not None and len(chain) < 32:
        chain.append(current.id)
        current = facts.loops[current.parent] if 0 <= current.parent < len(facts.loops) else None
    return tuple(chain)


def _names_evaluation(iterable: Optional[Value]) -> bool:
    """A loop over an evaluation dataset: its iterable's text names one (``self.ds_eval.create_dict_iterator()``,
    ``val_loader``)."""
    text = (iterable.text if iterable is not None else "").lower()
    return any(word in text for word in ms.EVALUATION_DATA_WORDS)
