"""MSP401 per-step-host-sync: a training loop reads the step's output on the host at every step."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, CFG, DERIVED, EITHER, LIT, OP, choices, PARAM, Call, Guard, PythonFacts, Value
from ms_perflint.findings import FixAvailability
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef
from ms_perflint.project.modes import PYNATIVE, execution_mode, forward_scopes, host_read, jit_in, jit_scopes
from ms_perflint.project.training import Training, short_run
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

#: Operators whose result is made from their operands' values (formatting text, arithmetic, tuples).
_CARRYING = frozenset(("format", "%", "+", "-", "*", "/", "//", "tuple"))
#: Ordering comparisons: ``step - last_log >= interval`` is a period, whatever its spelling.
_ORDERING = frozenset(("<", ">", "<=", ">="))


class PerStepHostSync(Rule):
    """Report a training loop that copies the step's output to the host at every step."""

    code = "MSP401"
    name = "per-step-host-sync"
    summary = "A training loop reads the step's output on the host every step, making the host wait for the device"
    fix_availability = FixAvailability.NEVER
    docs = RuleDocs(
        what_it_does="""
            Finds a training loop that reads the output of its training step on the host at every step:
            `loss.asnumpy()`, `loss.numpy()`, `loss.item()`, `loss.tolist()`, `float(loss)`, `int(loss)`, or
            `print(loss)` or `logger.info(...)`/`logging.info(...)` (also `warning`, `error`) of it -- also inside an
            f-string, `"...".format(loss)`, `str(loss)` or `"%f" % loss` --, a method that turns what it is handed
            into text or a number (tqdm's `bar.set_postfix(loss=loss)`, `set_description`, a tensorboard
            `writer.add_scalar("loss", loss, step)`), or a Python `if` on it (`if all_finite(grads):` asks the
            Tensor for its truth) in a step that neither `jit` nor a Cell compiles, where
            `loss` is what the step returned -- a train-step cell (`TrainOneStepCell`), a gradient function
            (`value_and_grad`), or a project function that runs one (`loss = train_step(x, y)`, also
            `loss, grads = grad_fn(x, y)`, `out[0]`, a function held in a name such as
            `step = jit(step) if fast else step`, a project `value_and_grad` that returns a function, and
            `mindspore.data_sink(train_step, dataset)` with one batch a call, its default: each call is one step;
            a larger `sink_size` runs many steps a call and is read once a sink) -- or a MindSpore op of it
            (`all_finite(grads)`, `ops.mean(loss)`).

            The read must run in the same loop as the step, at every iteration: in the loop's body, in the
            function that runs the step when that function is called from a loop, or in a project function or
            method the loop hands the step's output to at every step (`record(history, loss)`,
            `reporter.step_end(loss)` on an object a project class built). A project `Callback`'s `step_end`
            (or `on_train_step_end`) that reads `run_context.original_args().net_outputs` on the host under no
            period is reported too when every `Model.train` of the program runs without data sinking
            (`dataset_sink_mode=False`, or the flag omitted on MindSpore 2.0 or later -- declared, or the current
            release taken when none is declared and the program uses no API it removed, as MSP204 reads it):
            `step_end` then runs after every step. One finding per step and loop (per hook), at the first read;
            the message counts the others.

            A host read in the code the training step runs *forward* is reported at the read when the step runs
            in PyNative (set, or the default of MindSpore 2.0 and later) and no `jit` compiles it: in the trained
            network's `construct` and the methods it calls (`ms.Tensor(np.fliplr(img.asnumpy()))` to flip an image
            with numpy), or in the function `value_and_grad` differentiates (`return loss, out.asnumpy()` as its
            auxiliary output). Such a read runs at every step whatever the loop around the step does. (MSP202 stays
            silent on such a program: compiling its step needs this rewrite first.)

            This is an *info* finding: it has no automatic fix.
        """,
        why_bad="""
            MindSpore launches a step's kernels asynchronously: `train_step(x, y)` returns as soon as the
            work is queued, and the host goes on to fetch the next batch and queue the next step while the
            device computes. Reading a result on the host (`asnumpy()` and everything built on it) waits until
            the device has finished the step -- a stream synchronisation, which Ascend's profiling advisor
            reports as a bottleneck. Done at every step, the host and the device take turns instead of
            overlapping: the device idles while the host fetches data and launches the next step, every step.
            The shorter the step, the larger the share lost.
        """,
        example="""
            for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
                loss = train_step(x, y)
                print(f"step {step}, loss {loss.asnumpy():.4f}")
        """,
        use_instead="""
            for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
                loss = train_step(x, y)
                if step % 100 == 0:
                    print(f"step {step}, loss {loss.asnumpy():.4f}")
        """,
        fix_safety="""
            No automatic fix: how often to log is the author's choice. Read the loss every N steps
            (`if step % N == 0:`), or keep the values on the device (`losses.append(loss)`, or a running sum
            of tensors) and read them once per epoch. An early-stopping check on the loss can run every N steps
            too.
        """,
        programs="""
            Training programs whose device is an accelerator (Ascend, or GPU): on the CPU the host computes the
            step itself, so there is nothing to overlap. An unknown device counts as Ascend.
        """,
        silent_on="""
            - a demo: a program whose every training step is counted by loops of known length, 2,000 steps or
              fewer in all, of networks known to hold under 3 M parameters (a 300-step fit of a 1.6 M-parameter
              MLP ends in a minute or two: blind audits judged such findings not worth a change, and a 9,370-step
              LeNet run worth one). Steps over a dataset, or a run of unknown length, are not a demo;
            - reads under a period: `if step % 100 == 0:`, `if (i + 1) % args.log_interval == 0:` (unless every
              configured interval is 1), `if i % N: continue`, `if step - last_log >= N:`; reads under an equality
              with a step counter (`if step == 0:`, `if epoch == epochs - 1:`), which run once;
            - reads after the loop, or in the epoch loop around the step loop (once per epoch);
            - the output of a function that trains a whole epoch in its own loop (`loss = train_epoch(...)`);
            - loops that do not train: evaluation, prediction and export loops;
            - host values that are not step outputs (`lr.asnumpy()`, `label.asnumpy()` of a batch), and step
              outputs kept on the device (`losses.append(loss)`);
            - a read under a condition no configuration turns on (`if args.verbose:` with `verbose` False);
            - MindSpore's own `LossMonitor` (the per-step standard; it is not project code); a project
              Callback's `step_end` when some `Model.train` of the program sinks its dataset (`step_end` then runs
              once per sink), when the flag is omitted on 1.x or an unknown older release (1.x sank by default:
              set `mindspore-version`), when the read is under a period (`if cur_step % N == 0:`,
              `if cur_step - last >= N:`) or in a function nested in the hook (it may be called under one);
            - an `if` on a Tensor that `jit` compiles (a decorated step, `step = jit(step)`) or that runs in a
              Cell's method (graph mode compiles it), and an `if` on a plain flag;
            - reads of a step whose loop already reads a device result on the host before every step to feed it
              (`mask = make_mask(flow)` computing with ops and calling `asnumpy()`): that read waits for the
              previous step already, so a print of this step's loss adds no wait of its own;
            - programs that run on the CPU.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 18 findings, all sampled, 18 worth acting on
            (100 %), all in mindspore-courses/applications: loss histories and running sums converted to numpy at
            every step, accuracy counted from logits on the host, per-step prints, tqdm descriptions and log
            lines. The mindspore-lab libraries log every N steps or train with `Model.train` and callbacks, and
            stay silent. See docs/precision.md.

            2026-11-27, after a blind audit found per-step reads the rule missed: 40 findings on applications (20),
            mindnlp (20) and mindcv (0), 9 of them new, each read: 9 worth acting on (an un-jitted step's
            `if all_finite(grads):`, `float(res.asnumpy())` in a project reporter's `step_end` and an image pool's
            `asnumpy()` handed the generator's output, custom loss callbacks of unsunk `Model.train` runs,
            `tqdm.set_postfix(train_loss=loss)`, an overflow status read every step). Of the 10 missed reads the
            audit listed, 7 are found; with `mindspore-version` 2.x known, 8 (an omitted `dataset_sink_mode` is then
            False).
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/Tensor/mindspore.Tensor.asnumpy.html",
            "https://www.mindspore.cn/mindinsight/docs/en/master/performance_tuning_guide.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore as ms
            def train(net, optimizer, dataset):
                grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
                for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
                    loss, grads = grad_fn(x, y)
                    optimizer(grads)
                    if step % 100 == 0:
                        print(f"step {step}: loss {loss.asnumpy():.4f}")
            if __name__ == "__main__":
                train(net, optimizer, dataset)
            """,
            why="read every 100 steps",
        ),
        Valid(
            """
            import mindspore as ms
            def train(net, optimizer, dataset, epochs):
                train_step = ms.nn.TrainOneStepCell(net, optimizer)
                for epoch in range(epochs):
                    for x, y in dataset.create_tuple_iterator():
                        loss = train_step(x, y)
                    print(f"epoch {epoch}: last loss {loss.asnumpy():.4f}")
            if __name__ == "__main__":
                train(net, optimizer, dataset, 10)
            """,
            why="read once per epoch, after the step loop",
        ),
        Valid(
            """
            import mindspore as ms
            def evaluate(net, dataset):
                for x, y in dataset.create_tuple_iterator():
                    print(net(x).asnumpy().argmax(1))
            def train(net, optimizer, dataset):
                train_step = ms.nn.TrainOneStepCell(net, optimizer)
                losses = []
                for x, y in dataset.create_tuple_iterator():
                    losses.append(train_step(x, y))
                evaluate(net, dataset)
            if __name__ == "__main__":
                train(net, optimizer, dataset)
            """,
            why="an evaluation loop, and step outputs kept on the device",
        ),
        Valid(
            """
            import mindspore as ms
            if __name__ == "__main__":
                ms.set_context(device_target="CPU")
                train_step = ms.nn.TrainOneStepCell(net, optimizer)
                for x, y in dataset.create_tuple_iterator():
                    print(train_step(x, y))
            """,
            why="on the CPU the host computes the step itself",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            def train(net, optimizer, dataset):
                grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
                for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
                    loss, grads = grad_fn(x, y)
                    optimizer(grads)
                    print(f"step {step}: loss {loss.asnumpy():.4f}")
            if __name__ == "__main__":
                train(net, optimizer, dataset)
            """,
            line=7,
            column=36,
            message_contains="every step",
        ),
        Invalid(
            """
            import mindspore as ms
            from model import net, optimizer, dataset
            grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return float(loss)
            if __name__ == "__main__":
                for x, y in dataset.create_tuple_iterator():
                    history.append(train_step(x, y))
            """,
            line=7,
            column=12,
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        programs = [p for p in project.training_programs() if check.ascend(p).accelerator]
        if not programs:
            return
        training = Training.shared(project)
        programs = [p for p in programs if not short_run(project, check.values, training, p)]
        if not programs:
            return
        self._reported: Set[Tuple[str, int]] = set()
        for path, facts in sorted(project.python.items()):
            with check.deciding(path):
                if any(p.reaches(path) for p in programs):
                    self._file(check, training, programs, path, facts)
        for program in programs:
            with check.deciding(program.entry):
                self._forward_reads(check, training, program)

    def _forward_reads(self, check: Check, training: Training, program: Program) -> None:
        """A host read in the code a PyNative training step runs forward -- the network's ``construct`` and the
        methods it calls, the function ``value_and_grad`` differentiates: it runs at every step, whatever the loop
        around the step reads. (The mode is asked last: most programs have no such read.)"""
        project = check.project
        reads = [(path, index, call) for path, index in forward_scopes(project, training, program)
                 for call in project.python[path].calls
                 if call.scope == index and (path, call.id) not in self._reported and host_read(call)]
        if not reads or not _eager_step(check, program):
            return
        for path, index, call in reads:
            if (path, call.id) in self._reported or not check.values.can_hold(path, call.scope, call.guards, program):
                continue
            self._reported.add((path, call.id))
            read = f"{_spelled(call.receiver)}.{call.method}()" if call.receiver is not None and call.method \
                else f"{call.callee}({_spelled(call.args[0])})"
            where = project.python[path].scopes[index].name
            check.report(self.code, path, call, (
                f"{read} in {where}, which every training step runs forward in PyNative, reads a device tensor "
                f"on the host every step: the host waits for the device to finish before the step goes on. "
                f"Compute what needs it with MindSpore ops instead of numpy so the step stays on the device (and "
                f"can then compile with mindspore.jit)"))

    def _file(self, check: Check, training: Training, programs: List[Program], path: str,
              facts: PythonFacts) -> None:
        found: Dict[Tuple[str, str, int], List[Tuple[Call, str]]] = {}
        for read, value, label in _reads(facts):
            if read.callee == ms.TRUTH_TEST and _compiled(check.project, path, read.scope):
                continue  # an ``if`` jit or a graph-mode Cell compiles is a graph op, not a host read
            step = _step_output(check.project, training, path, facts, value)
            if step is not None:
                if read.scope != step.scope or not _every_step(check, path, facts, step, read) or \
                        _fed_by_host_read(check.project, path, facts, step):
                    continue
                key = (path, "step", step.id)
            elif _per_step_hook(check.project, path, read.scope) and _net_outputs(value):
                # ``cb_params.net_outputs.asnumpy()`` in a project Callback's ``step_end``
                owner = check.project.owner_class(path, read.scope)
                unsunk = _unsunk(check, programs, owner) if owner is not None else []
                if owner is None or not _unthrottled(check, path, read.scope, list(read.guards)) or \
                        not _runs(check, unsunk, path, read):
                    continue
                key = (path, "hook", read.scope)
                label = f"{label} (in {facts.scopes[read.scope].name}, which Model.train runs after every step " \
                        f"without data sinking{_in_programs(check, programs, unsunk, path, read)})"
            elif read.method in ms.DEVICE_READ_METHODS and (hook := _hook_running(check, path, read)) is not None:
                # ``param.asnumpy()`` in an EMA update a Callback's ``step_end`` runs: any tensor, every step (a
                # read of the step's output there is the branch above)
                hook_path, hook_scope = hook
                owner = check.project.owner_class(hook_path, hook_scope)
                if owner is None or not _runs(check, _unsunk(check, programs, owner), path, read):
                    continue
                key = (path, "tensor", read.scope)
                hook = check.project.python[hook_path].scopes[hook_scope].name
                called = "" if (hook_path, hook_scope) == (path, read.scope) else \
                    f"{facts.scopes[read.scope].name}, called by "
                label = f"{label} (in {called}{hook}, which Model.train runs after every step without data sinking)"
            else:
                handed = _handed_step(check, training, path, facts, read, value)
                if handed is None or not _unthrottled(check, path, read.scope, list(read.guards)):
                    continue
                key = (handed[0], "step", handed[1].id)
                label = f"{label} (handed the step's output by the call at {handed[2]})"
            if _runs(check, programs, path, read):
                found.setdefault(key, []).append((read, label))
        for key in sorted(found):
            reads = sorted(found[key], key=lambda r: r[0].start)
            read, label = reads[0]
            what = "a device tensor" if key[1] == "tensor" else "the training step's output"
            self._reported.add((path, read.id))
            check.report(self.code, path, read, _message(label, len(reads) - 1, what))


def _eager_step(check: Check, program: Program) -> bool:
    """The program's training steps run operator by operator: PyNative (set, or the release's default) and no
    step compiled with ``mindspore.jit``."""
    if jit_in(check.project, program) is not None:
        return False
    mode = execution_mode(check.values, program)
    return mode.only(PYNATIVE) or (mode.unset and bool(
        check.release_at_least(program.entry, ms.PYNATIVE_DEFAULT_SINCE, program)))


# --- reads ----------------------------------------------------------------------------------------------


def _reads(facts: PythonFacts) -> Iterator[Tuple[Call, Value, str]]:
    """Calls that read a value on the host, with the value read and how the read is written."""
    for call in facts.calls:
        if call.method in ms.HOST_READ_METHODS and call.receiver is not None and not call.args:
            yield call, call.receiver, f"{_spelled(call.receiver)}.{call.method}()"
        elif call.callee in ms.HOST_READ_CONVERSIONS and len(call.args) == 1 and not call.kwargs:
            yield call, call.args[0], f"{call.callee}({_spelled(call.args[0])})"
        elif call.callee == ms.TRUTH_TEST and call.args:
            yield call, call.args[0], f"if {_spelled(call.args[0])}"
        elif call.callee == ms.HOST_READ_PRINT or _logs(call) or _formats(call):
            name = ".".join(call.callee.split(".")[-2:]) if call.callee else f"{_spelled(call.receiver)}.{call.method}"
            for argument in (*call.args, *call.kwargs.values()) if _formats(call) else call.args:
                for part in _carried(argument):
                    yield call, part, f"{name}({_spelled(part)})"


def _logs(call: Call) -> bool:
    """``logger.info(...)`` on any logger (a local one, ``logging``, ``loguru``'s, ``mindspore.log``)."""
    if call.method in ms.HOST_READ_LOGGING_METHODS and call.receiver is not None:
        return True
    return call.callee in ms.HOST_READ_LOGGING_FUNCTIONS or (
        "." in call.callee and call.callee.rsplit(".", 1)[1] in ms.HOST_READ_LOGGING_METHODS)


def _formats(call: Call) -> bool:
    """``bar.set_postfix(loss=loss)``, ``writer.add_scalar("loss", loss, step)``: every argument becomes text or a
    Python number."""
    return call.method in ms.HOST_READ_FORMATTING_METHODS and call.receiver is not None


def _spelled(value: Value) -> str:
    """How the value is written where it is read: its name (``loss``), else its text."""
    return value.via or value.text or "the step's output"


def _carried(value: Value, depth: int = 0) -> Iterator[Value]:
    """The values an argument of ``print`` formats: itself, and the operands of text built from values."""
    if depth > 6:
        return
    if value.kind == OP and value.data in _CARRYING:
        for part in value.parts:
            yield from _carried(part, depth + 1)
    else:
        yield value


def _step_output(project: Project, training: Training, path: str, facts: PythonFacts,
                 value: Value) -> Optional[Call]:
    """The training-step call whose result ``value`` is or is computed from (``loss``, ``out[0]``, one of
    ``loss, grads = ...``, ``(logits.argmax(1) == label)`` with ``logits`` a step's output)."""
    return _step_of(project, training, path, facts, value, 0)


def _step_of(project: Project, training: Training, path: str, facts: PythonFacts, value: Value,
             depth: int) -> Optional[Call]:
    for made in _made_from(value):
        found = _step_call(project, training, path, facts, made)
        if found is not None:
            return found
        call = facts.call(made.data)
        if call is not None and depth < 4 and project.qualified(path, call).startswith("mindspore."):
            # ``all_finite(grads)``, ``ops.mean(loss)``: a MindSpore op of a step output computes on the device
            for argument in call.args:
                found = _step_of(project, training, path, facts, argument, depth + 1)
                if found is not None:
                    return found
    return None


def _fed_by_host_read(project: Project, path: str, facts: PythonFacts, step: Call) -> bool:
    """The step's input is made, in the same iteration, by a project function that reads a device result on the host
    at every call (``mask = make_mask(flow)`` doing ``Tensor(mask.asnumpy() & ...)``): that read waits for the previous
    step already, so a read of this step's output adds no wait of its own."""
    for argument in (*step.args, *step.kwargs.values()):
        for made in _made_from(argument):
            maker = facts.call(made.data)
            if maker is None or maker.scope != step.scope or maker.loops != step.loops or maker.guards != step.guards:
                continue
            for target_path, target in project.targets(path, maker):
                inner = project.python[target_path]
                if any(call.scope == target and call.method in ms.HOST_READ_METHODS and not call.loops
                       and not call.guards and call.receiver is not None and call.receiver.kind != PARAM
                       for call in inner.calls):
                    return True
    return False


def _compiled(project: Project, path: str, scope: int) -> bool:
    """Code that ``jit`` compiles (the scope or one it is nested in), or a Cell's method (graph mode compiles
    ``construct`` and what it calls; PyNative runs it from Python, but the rule does not tell them apart here)."""
    compiled = jit_scopes(project)
    facts = project.python[path]
    owner = project.owner_class(path, scope)
    if owner is not None and project.is_cell(owner):
        return True
    while 0 <= scope < len(facts.scopes):
        if (path, scope) in compiled:
            return True
        scope = facts.scopes[scope].parent
    return False


def _made_from(value: Value, depth: int = 0) -> Iterator[Value]:
    """The call results a value is made of: itself, the sequence it indexes, the operands of the operators and
    unrecorded methods (``argmax``, ``sum``, ``==``) it is computed with."""
    if depth > 8:
        return
    if value.kind == OP and value.data in _MADE_FROM and value.parts:
        for part in value.parts[:1] if value.data == "[]" else choices(value) or value.parts:
            yield from _made_from(part, depth + 1)
    elif value.kind == CALL:
        yield value


#: Operators whose result is computed from their operands on the device (read on the host, it waits for them).
_MADE_FROM = frozenset(("[]", DERIVED, "ifexp", EITHER, "==", "!=", "+", "-", "*", "/", "//", "%", "neg"))


def _step_call(project: Project, training: Training, path: str, facts: PythonFacts, value: Value) -> Optional[Call]:
    call = facts.call(value.data)
    if call is None or call.method in ms.HOST_READ_METHODS or project.training_kind(path, call) is not None:
        return None  # ``Model.train`` returns nothing; ``value_and_grad(...)`` builds the step, it is not one
    symbol = project.callee(path, call)
    if symbol is not None and symbol.kind == "class":
        return None  # building a cell, not running it
    if not training.call_trains(path, call) or _trains_in_a_loop(project, training, path, call, set()):
        return None
    return call


def _trains_in_a_loop(project: Project, training: Training, path: str, call: Call, seen: Set[ScopeRef],
                      depth: int = 0) -> bool:
    """The call runs project code that loops over training steps itself (``train_epoch(...)``): one call, many
    steps."""
    if depth > 4:
        return False
    for target in project.targets(path, call):
        if target in seen:
            continue
        seen.add(target)
        target_path, index = target
        loops = training.training_loops(target_path)
        for inner in project.python[target_path].calls:
            if inner.scope != index:
                continue
            if set(inner.loops) & loops:
                return True
            if not inner.loops and _trains_in_a_loop(project, training, target_path, inner, seen, depth + 1):
                return True
    return False


def _per_step_hook(project: Project, path: str, scope: int) -> bool:
    """``scope`` is a per-step hook (``step_end``) of a project Callback (not a function nested in one, which may run
    under a period: ``if step - last >= N: print_info()``)."""
    facts = project.python[path]
    if not facts.scopes[scope].cls or facts.scopes[scope].name.rsplit(".", 1)[-1] not in ms.PER_STEP_HOOKS:
        return False
    owner = project.owner_class(path, scope)
    return owner is not None and project.derives_from(owner, ms.CALLBACK_BASES)


def _hook_running(check: Check, path: str, read: Call) -> Optional[ScopeRef]:
    """The per-step Callback hook that runs the read unthrottled: the read's own scope, or a hook calling the
    function or method that holds it (``self.network.moving_parameter_update()``); None when none does."""
    project = check.project
    if not _unthrottled(check, path, read.scope, list(read.guards)):
        return None
    if _per_step_hook(project, path, read.scope):
        return path, read.scope
    for caller_path, caller in _hook_calls(project).get((path, read.scope), ()):
        if _unthrottled(check, caller_path, caller.scope, list(caller.guards)):
            return caller_path, caller.scope
    return None


def _hook_calls(project: Project) -> Dict[ScopeRef, List[Tuple[str, Call]]]:
    """The calls per-step Callback hooks make, by the function or method each enters (``self.network.update()``
    enters the method of the class ``self.network`` holds), once per project."""
    def find() -> Dict[ScopeRef, List[Tuple[str, Call]]]:
        found: Dict[ScopeRef, List[Tuple[str, Call]]] = {}
        for path, facts in sorted(project.python.items()):
            hooks = {index for index, scope in enumerate(facts.scopes)
                     if scope.name.rsplit(".", 1)[-1] in ms.PER_STEP_HOOKS and _per_step_hook(project, path, index)}
            for call in facts.calls:
                if call.scope in hooks:
                    for target in project.targets(path, call):
                        found.setdefault(target, []).append((path, call))
        return found
    return project.memo("msp401-hook-calls", find)  # type: ignore[return-value]


def _net_outputs(value: Value, depth: int = 0) -> bool:
    """The value is (an item of, or computed from) ``cb_params.net_outputs``, the step's output in a Callback."""
    if depth > 8:
        return False
    if value.kind == CFG and value.data == ms.CALLBACK_NET_OUTPUTS:
        return True
    if value.kind == OP and value.data in _MADE_FROM:
        parts = value.parts[:1] if value.data == "[]" else choices(value) or value.parts
        return any(_net_outputs(part, depth + 1) for part in parts)
    return False


def _in_programs(check: Check, programs: List[Program], unsunk: List[Program], path: str, read: Call) -> str:
    """`` in train_modelarts.py`` when other programs run the same callback with sinking (ViT's train.py sinks,
    its ModelArts entry does not): the finding is about the programs named."""
    running = [p for p in programs if p.reaches(path, read.scope)]
    named = sorted(p.entry for p in unsunk if p.reaches(path, read.scope))
    if not named or len(named) == len(running):
        return ""
    shown = ", ".join(named[:3]) + (f" and {len(named) - 3} more" if len(named) > 3 else "")
    return f" in {shown}"


def _unsunk(check: Check, programs: List[Program], callback: ClassRef) -> List[Program]:
    """The programs whose every ``Model.train``/``fit`` call that may be handed the callback runs without data
    sinking (then its ``step_end`` runs after every step; :meth:`Check.sinks_off`)."""
    kept = []
    built = check.project.constructions(callback)
    for program in programs:
        if built and not any(program.reaches(path, call.scope) for path, call in built):
            continue  # the program never builds this Callback (wavegrad uses MindSpore's TimeMonitor, not mindaudio's)
        calls = [(path, call) for path, call, kind in check.project.training_calls(program)
                 if kind == "model" and _may_hand(check.project, path, call, callback)
                 and check.values.can_hold(path, call.scope, call.guards, program)]
        if calls and all(check.sinks_off(program, path, call) for path, call in calls):
            kept.append(program)
    return kept


def _may_hand(project: Project, path: str, call: Call, callback: ClassRef) -> bool:
    """The training call's callbacks may hold an instance of the class: they name one (``callbacks=[Monitor()]``,
    a name bound to such a list), or the linter cannot list them (a list built by ``append`` or returned by a
    project function). MindSpore's own callbacks (``LossMonitor()``) are known not to be it."""
    param = ms.MODEL_CALLBACKS.get(call.method or "")
    value = call.argument(param.keyword, param.position) if param is not None else None
    if value is None:
        return call.star or call.double_star
    parts = list(_items(value))
    if not parts or any(part.kind != CALL for part in parts):
        return True
    for part in parts:
        classes = project.instance_classes(path, part, call.scope)
        if callback in classes:
            return True
        made = project.python[path].call(part.data)
        if not classes and (made is None or not project.qualified(path, made).startswith("mindspore.")):
            return True  # ``get_callbacks(...)``: a list a project function returns, not followed here
    return False


def _items(value: Value, depth: int = 0) -> Iterator[Value]:
    """The items of a callbacks argument: a list or tuple display (through the choices of a name bound in arms)."""
    if depth > 6:
        return
    if value.kind == OP and value.data == "tuple":
        for part in value.parts:
            yield from _items(part, depth + 1)
    elif choices(value):
        for part in choices(value):
            yield from _items(part, depth + 1)
    else:
        yield value


def _handed_step(check: Check, training: Training, path: str, facts: PythonFacts, read: Call,
                 value: Value) -> Optional[Tuple[str, Call, str]]:
    """A helper's parameter read on the host, where a caller hands it a step output at every step
    (``reporter.step_end(loss_g, loss_d)`` in the training loop): the caller's file, its step call, and its name."""
    while value.kind == OP and value.data == "[]" and value.parts:
        value = value.parts[0]
    if value.kind != PARAM or read.loops:
        return None
    project = check.project
    function = _function_of(facts, read.scope, value.data)
    if function is None:
        return None
    scope = facts.scopes[function]
    position = scope.params.index(value.data) - (1 if scope.cls else 0)
    for caller_path, caller in project.callers((path, function))[:16]:
        argument = caller.argument(value.data, position if position >= 0 else None)
        if argument is None:
            continue
        caller_facts = project.python[caller_path]
        step = _step_output(project, training, caller_path, caller_facts, argument)
        if step is not None and caller.scope == step.scope and caller.loops and \
                _every_step(check, caller_path, caller_facts, step, caller):
            where = f"{caller_path}:{caller.line}" if caller_path != path else f"line {caller.line}"
            return caller_path, step, where
    return None


def _function_of(facts: PythonFacts, scope: int, name: str) -> Optional[int]:
    """The function whose parameter ``name`` is (the scope itself, or the function it is nested in)."""
    while 0 <= scope < len(facts.scopes):
        if name in facts.scopes[scope].params:
            return scope
        scope = facts.scopes[scope].parent
    return None


# --- every step? ----------------------------------------------------------------------------------------


def _every_step(check: Check, path: str, facts: PythonFacts, step: Call, read: Call) -> bool:
    """The read runs at every step: in the step's own loop (or, for a step in a function without loops, in a
    function called from a loop), under no period."""
    if not _unthrottled(check, path, read.scope, _own_guards(read.guards, step.guards)):
        return False
    if step.loops:
        return step.loops[-1] in read.loops
    callers = check.project.callers((path, step.scope))
    return any(caller.loops and _unthrottled(check, caller_path, caller.scope, caller.guards)
               for caller_path, caller in callers)


def _own_guards(guards: Tuple[Guard, ...], shared: Tuple[Guard, ...]) -> List[Guard]:
    """The guards of the read that the step does not share (an ``if`` around the whole loop is not a period)."""
    marks = {(value.start, value.text, holds) for value, holds in shared}
    return [(value, holds) for value, holds in guards if (value.start, value.text, holds) not in marks]


def _unthrottled(check: Check, path: str, scope: int, guards: List[Guard]) -> bool:
    """No guard makes the code run less than every step (a period, a one-off equality)."""
    return not any(_period(check, path, scope, value, holds) or _once(value, holds) for value, holds in guards)


def _period(check: Check, path: str, scope: int, value: Value, holds: bool) -> bool:
    """``step % N == 0`` (any test with a modulo whose divisor is not 1 everywhere), ``step - last >= N``."""
    for modulo in _operations(value, "%"):
        divisor = check.values.resolve(path, modulo.parts[1], scope) if len(modulo.parts) == 2 else None
        if divisor is None or not divisor.complete or not divisor.values or any(
                k.value != 1 for k in divisor.values):
            return True
    if value.kind == OP and value.data in _ORDERING:
        return any(part.kind == OP and part.data == "-" for part in value.parts)
    if value.kind == OP and value.data == "in" and holds:
        # ``if step in log_steps:``; not ``if "moving_mean" in name:``, a text test on each item of a loop
        return not (value.parts and value.parts[0].kind == LIT and isinstance(value.parts[0].data, str))
    return False


def _once(value: Value, holds: bool) -> bool:
    """``if step == 0:``, ``if epoch == epochs - 1:``: an equality that holds for one step (not ``rank == 0``)."""
    if not holds or value.kind != OP or value.data not in ("==", "is") or any(_operations(value, "%")):
        return False  # a modulo is a period (decided by _period)
    text = value.text.lower()
    return not any(word in text for word in ms.RANK_WORDS)


def _operations(value: Value, op: str, depth: int = 0) -> Iterator[Value]:
    if depth > 8:
        return
    if value.kind == OP and value.data == op:
        yield value
    for part in value.parts:
        yield from _operations(part, op, depth + 1)


def _runs(check: Check, programs: List[Program], path: str, read: Call) -> bool:
    """Some accelerated training program runs the read, under guards that can hold."""
    return any(program.reaches(path, read.scope) and check.values.can_hold(path, read.scope, read.guards, program)
               for program in programs)


def _message(label: str, others: int, what: str = "the training step's output") -> str:
    more = f" ({others} more read{'s' if others > 1 else ''} of it in this loop)" if others else ""
    return (f"{label} reads {what} on the host every step{more}: the host waits for the device "
            f"to finish each step before it launches the next. Read it every N steps (if step % N == 0:) or once "
            f"per epoch")


__all__ = ["PerStepHostSync"]
