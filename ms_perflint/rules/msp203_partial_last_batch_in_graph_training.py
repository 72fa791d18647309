"""MSP203 partial-last-batch-in-graph-training: the short last batch makes compiled training compile again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, LIT, OP, PARAM, SELF, Call, Value, choices
from ms_perflint.findings import Fix, FixAvailability, FixSafety, TextEdit
from ms_perflint.project.model import MAX_DEPTH, Program, Project, Where, where
from ms_perflint.project.modes import GRAPH, execution_mode, jit_scopes, made_by_jit
from ms_perflint.project.training import Training
from ms_perflint.project.values import Resolution, in_every_undecided_arm
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, append_keyword

FIX_DESCRIPTION = "Drop the short last batch (drop_remainder=True)"
#: ``(path, call)`` of the project calls a value was returned through, outermost first.
Chain = Tuple[Tuple[str, Call], ...]


@dataclass(frozen=True)
class Batch:
    """A ``.batch(...)`` call whose result reaches training, with the calls that returned it (its context)."""

    path: str
    call: Call
    chain: Chain


class PartialLastBatchInGraphTraining(Rule):
    """Report ``.batch(n)`` without ``drop_remainder=True`` on a dataset that feeds compiled training."""

    code = "MSP203"
    name = "partial-last-batch-in-graph-training"
    summary = "A dataset keeps its short last batch and feeds compiled training, which compiles a second graph for it"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds `dataset.batch(n)` without `drop_remainder=True` (missing, `False`, or a configured False)
            where the batched dataset reaches compiled training:

            - `Model.train(epochs, dataset)` / `Model.fit(...)` in a program that runs in GRAPH_MODE;
            - a training loop over the dataset (`for x, y in dataset.create_tuple_iterator(): step(x, y)`) in
              GRAPH_MODE, or one whose step is compiled with `mindspore.jit`.

            The dataset is followed from the training call back to its `.batch(...)`: through variables,
            dataset methods (`map`, `shuffle`, `repeat`, ...), iterators, the project functions that build and
            return it (`create_dataset(...)`, also `train, val = create_loaders()`) and their parameters, with
            `drop_remainder` and `batch_size` read in the context of the call that builds the training dataset
            (`create_dataset(mode="train")` takes the helper's training arm). A `drop_remainder=False` the script
            passes down to a helper is reported where the script writes it, naming the helper's `batch()`: that is
            the line the user changes. A False that one config line gives (a YAML key, an argparse default) is
            reported on that line, naming the helper's `batch()`, without a fix: the key may serve evaluation too.
            A launch command that runs the script on GPU or CPU (`--device_target=GPU --drop_remainder=True`) is
            not an Ascend run, so its values do not decide. A batch in an arm whose test no run decides is reported
            only when the other arm keeps its short batch too.
        """,
        why_bad="""
            Unless the dataset size is a multiple of the batch size, the last batch of every epoch is shorter.
            A compiled step is specialised to its input shapes, so the short batch compiles a second graph --
            as long as the first compile -- before training goes on, and sink mode needs equal shapes. Measured
            on MindSpore 2.10 (CPU wheel, 10 samples in batches of 4, one script): in GRAPH_MODE a
            `TrainOneStepCell` step took 649 ms for the first batch, 1 ms for the second and 444 ms for the
            short third (a value_and_grad step: 248 ms; a jit step in PyNative: 542 ms; `Model.train`, sink or
            not: 488-689 ms); with `drop_remainder=True` no step after the first compiled again. PyNative
            without jit runs any shape without compiling.
        """,
        example="""
            import mindspore as ms

            ms.set_context(mode=ms.GRAPH_MODE)
            dataset = dataset.batch(32)
            model.train(10, dataset)
        """,
        use_instead="""
            import mindspore as ms

            ms.set_context(mode=ms.GRAPH_MODE)
            dataset = dataset.batch(32, drop_remainder=True)
            model.train(10, dataset)
        """,
        fix_safety="""
            The fix appends `drop_remainder=True` (or replaces an explicit `False`) and is *unsafe*: every epoch
            drops up to `batch_size - 1` samples (a different few each epoch when the dataset is shuffled), and a
            dataset smaller than one batch yields nothing. No fix is offered when the value comes from a
            parameter or a config: change it there for the training dataset only.
        """,
        programs="""
            Training programs in GRAPH_MODE (every `set_context(mode=...)` they run sets it, or no mode is set
            and the `mindspore-version` is before 2.0), and training loops whose step is compiled with `jit`.
            Programs on Ascend (or an unknown device): a program whose every device target is GPU or CPU is left
            out, as by the other Ascend rules.
        """,
        silent_on="""
            - `.batch(n, drop_remainder=True)`, a value the linter cannot know, and `batch(1)`;
            - datasets that never reach a training call (evaluation datasets built by the same `create_dataset`
              with `drop_remainder=False`, `Model.eval`, export and inference programs), and a `valid_dataset`
              handed to `Model.fit`;
            - training in PyNative mode without jit, whose steps take any shape without compiling, and programs
              whose mode is unknown or may be PyNative (no mode set with an unknown or 2.x MindSpore version, a
              `--mode` argument that configs set both ways);
            - datasets the linter cannot follow to a `.batch(...)` call (a mindformers Trainer's YAML
              `batch_size`, a third-party loader).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 3 findings, all worth acting on (ShuffleNet's
            CIFAR-10 batches of 128 in sink-mode GRAPH_MODE training, U-Net's and WaveNet's jit-compiled loops) --
            three findings measure little.
            The other kept remainders feeding compiled training there are in GPU or CPU programs (4, left out like
            every Ascend rule's), a validation branch of a shared builder (silent: its guard is read in the
            training call's context), and the library projects pass `drop_remainder` from configs that say True
            for training. The tests carry those look-alikes. See docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/dataset_method/batch/mindspore.dataset.Dataset.batch.html",
            "https://www.mindspore.cn/docs/en/master/api_python/train/mindspore.train.Model.html#mindspore.train.Model.train",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                data = ds.GeneratorDataset(source, ["x", "y"]).batch(32, drop_remainder=True)
                Model(net, loss, opt).train(10, data)
            """,
            why="the short batch is dropped",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                train = ds.GeneratorDataset(source, ["x", "y"]).batch(32, drop_remainder=True)
                valid = ds.GeneratorDataset(held_out, ["x", "y"]).batch(32)
                model = Model(net, loss, opt, metrics={"acc"})
                model.train(10, train)
                print(model.eval(valid))
            """,
            why="the evaluation dataset never reaches training",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.PYNATIVE_MODE)
                data = ds.GeneratorDataset(source, ["x", "y"]).batch(32)
                Model(net, loss, opt).train(10, data)
            """,
            why="PyNative without jit runs any shape without compiling",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            def create_dataset(path, batch_size=32):
                data = ds.ImageFolderDataset(path, shuffle=True)
                return data.batch(batch_size)
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                Model(net, loss, opt).train(10, create_dataset("train/"))
            """,
            line=6,
            column=12,
            fixed="""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            def create_dataset(path, batch_size=32):
                data = ds.ImageFolderDataset(path, shuffle=True)
                return data.batch(batch_size, drop_remainder=True)
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                Model(net, loss, opt).train(10, create_dataset("train/"))
            """,
            message_contains="Model.train",
        ),
        Invalid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
            @ms.jit
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return loss
            data = ds.NumpySlicesDataset(arrays, ["x", "y"]).batch(64, drop_remainder=False)
            for epoch in range(10):
                for x, y in data.create_tuple_iterator():
                    train_step(x, y)
            """,
            line=9,
            column=8,
            fixed="""
            import mindspore as ms
            import mindspore.dataset as ds
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
            @ms.jit
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return loss
            data = ds.NumpySlicesDataset(arrays, ["x", "y"]).batch(64, drop_remainder=True)
            for epoch in range(10):
                for x, y in data.create_tuple_iterator():
                    train_step(x, y)
            """,
            message_contains="jit",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        training = Training.shared(project)
        reported: Set[Tuple[str, int]] = set()
        for program in project.training_programs():
            with check.deciding(program.entry):
                if not check.ascend(program).ascend:
                    continue  # GPU and CPU programs are not this linter's business (RULES.md, "Programs and targets")
                graph = _graph_mode(check, program)
                consumed = _consumers(check, training, program, graph)
                batches = {(b.path, b.call.id): b for b, _ in consumed}
                for batch, consumer in consumed:
                    key = (batch.path, batch.call.id)
                    if key in reported:
                        continue
                    verdict = _keeps_short_batch(check, program, batch)
                    if verdict is None or not in_every_undecided_arm(
                            check.values, program, batch.path, batch.call, [(b.path, b.call) for b in batches.values()],
                            lambda p, call: _keeps_short_batch(check, program, batches[(p, call.id)]) is not None):
                        continue
                    reported.add(key)
                    state, written = verdict
                    if written is not None and written.path != batch.path:
                        # The False is written by the caller (``create_dataset(..., drop_remainder=False)``): the finding
                        # goes where the user would change it, naming the helper's batch() it reaches.
                        helper = f"{batch.path}:{batch.call.line}"
                        check.report(self.code, written.path, written, _message(consumer, verdict, helper),
                                     _fix(batch, verdict))
                    else:
                        check.report(self.code, batch.path, batch.call, _message(consumer, verdict),
                                     _fix(batch, verdict))


# --- what compiles -----------------------------------------------------------------------------------


def _graph_mode(check: Check, program: Program) -> bool:
    """Every mode the program can run in is GRAPH_MODE (set, or 1.x's default when no mode is set)."""
    mode = execution_mode(check.values, program)
    if mode.only(GRAPH):
        return True
    return mode.unset and check.release_at_least(program.entry, ms.PYNATIVE_DEFAULT_SINCE, program) is False


def _consumers(check: Check, training: Training, program: Program, graph: bool) -> List[Tuple[Batch, str]]:
    """``(batch, how it is trained)`` for each ``.batch`` call whose dataset reaches compiled training."""
    project = check.project
    live = check.values.live_scopes(program)
    found: List[Tuple[Batch, str]] = []
    if graph:
        for path, call, kind in project.training_calls(program):
            if kind == "model" and (path, call.scope) in live:
                dataset = call.argument(ms.TRAIN_DATASET.keyword, ms.TRAIN_DATASET.position)
                where = f"Model.{call.method} at {path}:{call.line}"
                found += [(b, where) for b in _batches(project, path, dataset, call.scope, (), 0)]
    for path in sorted(program.files):
        facts = project.python.get(path)
        if facts is None:
            continue
        for loop_id in sorted(training.training_loops(path)):
            loop = facts.loops[loop_id]
            if (path, loop.scope) not in live or loop.iterable is None:
                continue
            jit = _jit_step_in(project, path, loop_id)
            if not graph and not jit:
                continue
            where = f"the {'jit-compiled ' if jit else ''}training loop at {path}:{loop.line}"
            found += [(b, where) for b in _batches(project, path, loop.iterable, loop.scope, (), 0)]
    return found


def _jit_step_in(project: Project, path: str, loop_id: int) -> bool:
    """The loop calls a function compiled with jit (``train_step(x, y)`` decorated with ``@ms.jit``)."""
    scopes = jit_scopes(project)
    for call in project.python[path].calls:
        if loop_id not in call.loops:
            continue
        if any(target in scopes for target in project.targets(path, call)):
            return True
        if call.method == "__call__" and made_by_jit(project, path, call.receiver, call.scope):
            return True
    return False


# --- following the dataset back to its batch ---------------------------------------------------------


def _batches(project: Project, path: str, value: Optional[Value], scope: int, chain: Chain, depth: int) -> List[Batch]:
    """The ``.batch(...)`` calls whose result ``value`` (read in ``scope`` of ``path``) is."""
    if value is None or depth > MAX_DEPTH:
        return []
    if value.kind == CALL:
        return _from_call(project, path, value, scope, chain, depth)
    if value.kind == PARAM:
        return [b for p, v, s, c in _bound(project, path, value.data, scope, chain)
                for b in _batches(project, p, v, s, c, depth + 1)]
    if value.kind == SELF:
        owner = project.owner_class(path, scope)
        found = project.attribute(owner, value.data) if owner is not None else None
        if found is None:
            return []
        init = project.method(owner, "__init__")
        return _batches(project, found[0], found[1], init[1] if init else 0, (), depth + 1)
    if choices(value):
        return [b for part in choices(value) for b in _batches(project, path, part, scope, chain, depth + 1)]
    if value.kind == OP and value.data == "[]" and len(value.parts) == 2 and isinstance(value.parts[1].data, int):
        return [b for p, item, s, call in project.returned_items(path, value.parts[0], value.parts[1].data)
                for b in _batches(project, p, item, s, (*chain, (path, call)), depth + 1)]
    return []


def _from_call(project: Project, path: str, value: Value, scope: int, chain: Chain, depth: int) -> List[Batch]:
    call = project.python[path].call(value.data)
    if call is None:
        return []
    if call.method == ms.BATCH and call.receiver is not None:
        return [Batch(path, call, chain)]
    if call.receiver is not None and call.method in ms.DATASET_METHODS | ms.DATASET_ITERATORS:
        return _batches(project, path, call.receiver, scope, chain, depth + 1)
    if call.callee == "enumerate" and call.args:
        return _batches(project, path, call.args[0], scope, chain, depth + 1)
    symbol = project.callee(path, call)
    if symbol is None or symbol.kind != "function":
        return []
    index = project.function_of(symbol)
    if index is None:
        return []
    returned = project.python[symbol.path].scopes[index].returns
    return [b for r in returned for b in _batches(project, symbol.path, r, index, (*chain, (path, call)), depth + 1)]


def _bound(project: Project, path: str, name: str, scope: int, chain: Chain) -> List[Tuple[str, Value, int, Chain]]:
    """What a parameter is bound to: the argument of the call in ``chain`` that entered its function (or its
    default), else the arguments of every caller."""
    scopes = project.python[path].scopes
    while 0 <= scope < len(scopes) and name not in scopes[scope].params and scopes[scope].parent >= 0:
        scope = scopes[scope].parent
    if not 0 <= scope < len(scopes) or name not in scopes[scope].params:
        return []
    function = scopes[scope]
    position = function.params.index(name) - (1 if function.cls else 0)
    if chain and (path, scope) in project.targets(chain[-1][0], chain[-1][1]):
        caller_path, caller = chain[-1]
        argument = caller.argument(name, position if position >= 0 else None)
        if argument is not None:
            return [(caller_path, argument, caller.scope, chain[:-1])]
        if caller.may_pass(name, position) or name not in function.defaults:
            return []
        return [(path, function.defaults[name], function.parent, chain[:-1])]
    found = []
    for caller_path, caller in project.callers((path, scope))[:16]:
        argument = caller.argument(name, position if position >= 0 else None)
        if argument is not None:
            found.append((caller_path, argument, caller.scope, ()))
    return found


# --- deciding -------------------------------------------------------------------------------------------


def _keeps_short_batch(check: Check, program: Program, batch: Batch) -> Optional[Tuple[str, Optional[Where]]]:
    """``("missing", None)``, ``("false", where the False is written)`` or ``("configured", the one config line that
    keeps its short last batch; None when it drops it, may, or its size is 1."""
    call = batch.call
    for condition, holds in call.guards:  # ``if is_training: ... else: data.batch(n)``, read in context
        found = _resolve(check, program, batch, condition)
        if found.complete and found.values and all(bool(getattr(k.value, "name", k.value)) != holds
                                                   for k in found.values):
            return None
    size = call.argument(ms.BATCH_SIZE.keyword, ms.BATCH_SIZE.position)
    sizes = _resolve(check, program, batch, size)
    if sizes.complete and sizes.values and all(k.value == 1 for k in sizes.values):
        return None
    drop = call.argument(ms.DROP_REMAINDER.keyword, ms.DROP_REMAINDER.position)
    if drop is None:
        return None if call.may_pass(ms.DROP_REMAINDER.keyword, ms.DROP_REMAINDER.position) else ("missing", None)
    if drop.kind == LIT:
        return ("false", where(batch.path, drop)) if drop.data is False else None
    found = check.values.on_ascend(_resolve(check, program, batch, drop))  # a GPU launch command's True is not Ascend's
    if found.complete and found.values and all(k.value is False for k in found.values):
        places = {k.where for k in found.values}
        written = places.pop() if len(places) == 1 else None
        if written is not None and written.end > written.start and found.values[0].source == "literal":
            return ("false", written)  # one literal False, passed down by the caller
        # one config line (a YAML key, an argparse default) is where the user changes it; it may serve evaluation
        # too, so it is shown there but not edited
        return ("configured", written if written is not None and written.end > written.start else None)
    return None


def _resolve(check: Check, program: Program, batch: Batch, value: Optional[Value]) -> Resolution:
    """A value of the batch call, read in the context of the calls that returned the batch."""
    if value is None:
        return Resolution([], complete=False)
    return check.values.resolve(batch.path, value, batch.call.scope, program=program, context=batch.chain)


def _fix(batch: Batch, verdict: Tuple[str, Optional[Where]]) -> Any:
    state, written = verdict
    if state == "missing":
        return append_keyword(batch.call, ms.DROP_REMAINDER.keyword, "True", FixSafety.UNSAFE, FIX_DESCRIPTION)
    if state == "false" and written is not None and written.end > written.start:
        return Fix(FixSafety.UNSAFE, FIX_DESCRIPTION, (TextEdit(written.start, written.end, "True"),))
    return None


def _message(consumer: str, verdict: Tuple[str, Optional[Where]], helper: str = "") -> str:
    said = {"missing": "without drop_remainder", "false": "with drop_remainder=False",
            "configured": "with drop_remainder configured False"}[verdict[0]]
    if helper:
        how = "configured" if verdict[0] == "configured" else "passed"
        said = f"at {helper} with drop_remainder=False ({how} here)"
    return (f"batch() {said} keeps a short last batch in a dataset trained by {consumer}: the compiled step compiles "
            f"a second graph for its shape (on MindSpore 2.10 as long as the first compile); pass "
            f"drop_remainder=True for training (it drops up to batch_size - 1 samples per epoch)")
