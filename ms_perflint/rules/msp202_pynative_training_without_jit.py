"""MSP202 pynative-training-without-jit: a training step runs operator by operator from Python."""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import Call
from ms_perflint.findings import FixAvailability
from ms_perflint.project.model import Program
from ms_perflint.project.modes import PYNATIVE, ModeSetting, eager_only, execution_mode, jit_in
from ms_perflint.project.precision import hub_network
from ms_perflint.project.training import Training, short_run
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

#: A comment this many lines from the ``set_context`` call counts as next to it.
NEAR = 3
ADVICE = ("compile the train step with @mindspore.jit (steps ran 1.4-4.4x faster under jit on MindSpore 2.10) or run "
          "in GRAPH_MODE; both compile a subset of Python, so check that the step compiles")


class PynativeTrainingWithoutJit(Rule):
    """Report training in PyNative mode with nothing compiled by ``jit``."""

    code = "MSP202"
    name = "pynative-training-without-jit"
    summary = "Training runs in PyNative mode and no step is compiled with mindspore.jit"
    fix_availability = FixAvailability.NEVER
    docs = RuleDocs(
        what_it_does="""
            Finds training programs on Ascend that run in PyNative mode with nothing compiled by
            `mindspore.jit`: a program that trains (`Model.train`, a `TrainOneStepCell`, or a gradient function
            with an optimizer) where

            - every `set_context(mode=...)` the program runs sets `PYNATIVE_MODE` (or `1`, also through an
              argparse default or a config), reported at that call; or
            - no call sets the mode and the program runs MindSpore 2.0 or later: PyNative is 2.x's default,
              reported at the training call. The release is the `mindspore-version` setting, or the one the
              project's requirements declare; when neither says, a notebook whose saved outputs show the release
              it ran (`mindspore.run_check()` prints "MindSpore version: 1.8.1") runs that one, and any other
              program is taken to run on the current
              release (2.10) unless it imports an API 2.10 no longer has (`py_transforms`, `c_transforms`,
              `ms_function`, `mindspore.nn.transformer`): such a program runs on an older release, and an older
              release's default is not assumed. A release taken that way also needs the trained network's code
              in view (a project `Cell`): a network the linter cannot see may be compiled where it is defined.
              The message says which release and why.

            When a commented-out `GRAPH_MODE` line sits next to the `set_context` call, PyNative was chosen on
            purpose: the message says so and suggests compiling only the train step.
        """,
        why_bad="""
            In PyNative mode every operator is launched from Python, one at a time, with the host's dispatch cost
            on every step; compiled with `jit` (or in graph mode) the step runs as one graph that MindSpore
            fuses and sinks to the device. Measured on MindSpore 2.10 (CPU wheel, one script timing the same
            value_and_grad + optimizer step eager and under `ms.jit` in alternating blocks): 1.4-2.5x faster
            under jit, faster in 28 of 28 blocks (issue 12's measurement); measured again for this rule with a
            three-layer MLP (64-64-64-10, batch 32, 6 blocks of 30 steps each way): 4.4x faster, 6 of 6 blocks.
            The MindSpore test tier checks the version
            fact: with no `set_context(mode=...)`, MindSpore 2.10 runs PyNative (`get_context("mode") == 1`).
        """,
        example="""
            import mindspore as ms

            ms.set_context(mode=ms.PYNATIVE_MODE)
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return loss
        """,
        use_instead="""
            import mindspore as ms

            ms.set_context(mode=ms.PYNATIVE_MODE)
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

            @ms.jit
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return loss
        """,
        fix_safety="""
            No automatic fix: graph mode and `jit` compile a subset of Python (no arbitrary Python objects, data
            dependent control flow needs care), so whether the step compiles must be checked by running it.
            The finding is informational.
        """,
        programs="""
            Training programs whose device is Ascend or unknown. A program that uses a mindformers `Trainer` is
            left out (mindformers sets the mode from its own config). The default mode comes from the
            `mindspore-version` setting or the project's requirements; with neither, from the program's APIs (above).
            RULES.md had an undeclared release reported nothing: a blind audit of 40 public programs (report-1)
            judged six programs that set no mode and use only APIs current MindSpore has as PyNative training a
            performance engineer would change -- they run on 2.x today, where PyNative is the default -- and the
            rule missed all six; an undeclared release is now the current one, as an unknown device is Ascend.
        """,
        silent_on="""
            - a demo: a program whose every training step is counted by loops of known length, 2,000 steps or
              fewer in all, of networks known to hold under 3 M parameters (a 300-step fit of a 1.6 M-parameter
              MLP ends in a minute or two: blind audits judged such findings not worth a change, and a 9,370-step
              LeNet run worth one). Steps over a dataset, or a run of unknown length, are not a demo;
            - training already compiled: a step decorated with `@ms.jit` / `@jit(...)` (also the 1.x
              `ms_function`), a class decorated with it, a function passed to `ms.jit(step)` -- anything the
              program compiles with jit, except a cell's helper method other than `construct` that runs no step
              (Pix2PixHD's `@ms.jit() one_hot_encode`, a blind audit's miss): that compiles the helper alone;
            - a program some of whose `set_context` calls may set GRAPH_MODE (one branch per device, a
              `--mode` argument defaulting to 0), or pass the mode through `**kwargs`;
            - no mode set on a release before 2.0 (declared, or a program importing `mindspore.nn.transformer`,
              which 2.0 moved to MindFormers) -- 1.x ran GRAPH_MODE by default -- or on an unknown older release
              (a program importing `py_transforms`, which 2.10 no longer has);
            - a trained network whose `construct` (or a method it calls) needs PyNative: it draws random numbers
              with numpy or reads a tensor on the host (`int(self.queue_ptr)`, `.asnumpy()`, `.item()`) -- compiled,
              the read fails or the random numbers are frozen into the graph, so jit needs a rewrite first
              (a StyleGAN port and a MoCo queue on the development set);
            - programs that fine-tune a pretrained transformer from a model hub (`mindnlp.transformers`, as
              MSP101 recognises it): the network's code is the library's, written for PyNative, and whether it
              compiles under jit is not the program's to change (a report-1 finding on a mindnlp fine-tune was
              judged not worth acting on for that reason);
            - programs on GPU or CPU, evaluation and inference programs, a gradient function with no optimizer
              (saliency maps, adversarial examples).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 3 findings, 3 sampled, 3 worth acting on
            (100 %) -- the reconet, TinyBERT and WGAN notebooks train standard train-step cells in PyNative. A small
            sample. Four earlier findings (MoCo's queue read with `int(self.queue_ptr)`, a StyleGAN port drawing
            numpy noise in construct) are left alone since the rule recognises networks that need PyNative, and
            two inference scripts no longer count as training (a notebook is never an import target). Programs
            that set no mode are not reported there: none of the five projects declares a MindSpore requirement,
            so the release is unknown. See docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.jit.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.set_context.html",
            "https://www.mindspore.cn/docs/en/r2.0/RELEASE.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore as ms
            ms.set_context(mode=ms.PYNATIVE_MODE)
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
            @ms.jit
            def train_step(x, y):
                loss, grads = grad_fn(x, y)
                optimizer(grads)
                return loss
            for x, y in dataset:
                train_step(x, y)
            """,
            why="the step is compiled with jit",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE)
                Model(net, loss, opt).train(10, data)
            """,
            why="graph mode",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.nn.transformer import TransformerEncoder
            from mindspore.train import Model
            if __name__ == "__main__":
                Model(net, loss, opt).train(10, data)
            """,
            why="no mode set in a 1.x program (mindspore.nn.transformer left MindSpore in 2.0): GRAPH_MODE was the default",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.PYNATIVE_MODE, device_target="GPU")
                Model(net, loss, opt).train(10, data)
            """,
            why="a GPU program",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.PYNATIVE_MODE)
                Model(net, loss, opt).train(10, data)
            """,
            line=4,
            column=5,
            message_contains="PyNative",
        ),
        Invalid(
            """
            from mindspore import context, nn
            if __name__ == "__main__":
                # context.set_context(mode=context.GRAPH_MODE)
                context.set_context(mode=context.PYNATIVE_MODE)
                step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
                for x, y in data:
                    step(x, y)
            """,
            line=4,
            column=5,
            message_contains="on purpose",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        training = Training.shared(project)
        reported: Set[Tuple[str, int]] = set()
        for program in project.training_programs():
            with check.deciding(program.entry):
                if not check.ascend(program).ascend or not _trains_steps(check, training, program):
                    continue
                if jit_in(project, program) is not None or eager_only(check.project, training, program) \
                        or _hub_trained(check, training, program) or short_run(project, check.values, training, program):
                    continue
                mode = execution_mode(check.values, program)
                if mode.only(PYNATIVE):
                    settings = _settings_on_ascend(mode.settings)
                    if settings and not any((s.path, s.call.id) in reported for s in settings):
                        setting = min(settings, key=lambda s: (s.path != program.entry, s.path, s.call.line))
                        reported.add((setting.path, setting.call.id))
                        check.report(self.code, setting.path, setting.call, _explicit_message(check, setting))
                elif mode.unset and _default_is_pynative(check, training, program):
                    first = _first_training_call(check, program)
                    if first is not None and (first[0], first[1].id) not in reported:
                        reported.add((first[0], first[1].id))
                        check.report(self.code, first[0], first[1], _default_message(check, program))


def _default_is_pynative(check: Check, training: Training, program: Program) -> bool:
    """The program runs on 2.0 or later, where PyNative is the default. A release the project declares says so
    alone; the release taken when none is declared (:meth:`Check.program_release`) also needs the trained network in
    view: one the linter cannot see (a name from a library, a thin driver's argument) may be compiled where it is
    defined, and two guesses do not make a finding."""
    if check.settings(program.entry).mindspore_version:
        return bool(check.release_at_least(program.entry, ms.PYNATIVE_DEFAULT_SINCE))
    if not check.release_at_least(program.entry, ms.PYNATIVE_DEFAULT_SINCE, program):
        return False
    return any(training.network_classes(use.path, use.network, use.anchor.scope)
               for use in training.networks(program))


def _trains_steps(check: Check, training: Training, program: Program) -> bool:
    """The program runs training steps itself: Model.train or a train-step cell, or a gradient function with an
    optimizer; not a mindformers Trainer, which sets the mode from its own config."""
    kinds = {kind for _, _, kind in check.project.training_calls(program)}
    if "trainer" in kinds:
        return False
    if kinds & {"model", "step"}:
        return True
    return any(use.kind == "optimizer" for use in training.networks(program))


def _hub_trained(check: Check, training: Training, program: Program) -> bool:
    """The program fine-tunes a pretrained transformer from a model hub (``mindnlp.transformers``): its code is the
    library's, written for PyNative, and whether it compiles under jit is not the program's to change."""
    return any(hub_network(check.project, check.values, training, use.path, use.network, use.anchor.scope)
               for use in training.networks(program))


def _settings_on_ascend(settings: List[ModeSetting]) -> List[ModeSetting]:
    """The settings whose own call does not name GPU or CPU (``set_context(mode=..., device_target="GPU")``)."""
    kept = []
    for setting in settings:
        target = setting.call.kwargs.get(ms.DEVICE_TARGET)
        if target is not None and isinstance(target.data, str) and target.data.strip().lower() in ("gpu", "cpu"):
            continue
        if all(s.call is not setting.call for s in kept):
            kept.append(setting)
    return kept


def _commented_graph_mode(check: Check, path: str, call: Call) -> Optional[int]:
    """The line of a comment mentioning GRAPH_MODE next to the call (PyNative chosen on purpose), or None."""
    facts = check.project.python[path]
    for line, text in facts.comments:
        if "GRAPH_MODE" in text and call.line - NEAR <= line <= (call.end_line or call.line) + NEAR:
            return line
    return None


def _explicit_message(check: Check, setting: ModeSetting) -> str:
    origin = "" if setting.value.source in ("literal", "name") else f" ({setting.value.describe()})"
    commented = _commented_graph_mode(check, setting.path, setting.call)
    if commented is not None:
        return (f"Training runs in PyNative mode{origin}, chosen on purpose (GRAPH_MODE is commented out at line "
                f"{commented}), and no step is compiled with mindspore.jit: keep PyNative and compile just the train "
                f"step with @mindspore.jit where its code allows (steps ran 1.4-4.4x faster under jit on "
                f"MindSpore 2.10)")
    return (f"Training runs in PyNative mode{origin} and no step is compiled with mindspore.jit: every operator is "
            f"launched from Python, one at a time; {ADVICE}")


def _default_message(check: Check, program: Program) -> str:
    return (f"Training runs in PyNative mode, the default since MindSpore 2.0 (this program sets no mode; "
            f"{check.release_note(program.entry, program)}), and no step is compiled with mindspore.jit: {ADVICE}")


def _first_training_call(check: Check, program: Program) -> Optional[Tuple[str, Call]]:
    """The program's first live training call, the entry file's first."""
    live = check.values.live_scopes(program)
    calls = [(path, call) for path, call, _ in check.project.training_calls(program) if (path, call.scope) in live]
    if not calls:
        return None
    path, call = min(calls, key=lambda item: (item[0] != program.entry, item[0], item[1].line, item[1].column))
    return (path, call) if path == program.entry else _entry_call_reaching(check, program, path, call) or (path, call)


def _entry_call_reaching(check: Check, program: Program, path: str, call: Call) -> Optional[Tuple[str, Call]]:
    """The entry's first call of the project class or function that makes a training call in another file (a
    notebook's ``TrainOnestepPSNR(loss, opt)`` whose ``__init__`` builds the GradOperation): the user's line."""
    project = check.project
    owner = project.owner_class(path, call.scope)
    wanted = owner if owner is not None else (path, project.python[path].scopes[call.scope].name)
    for candidate in sorted(project.python[program.entry].calls, key=lambda c: (c.line, c.column)):
        symbol = project.callee(program.entry, candidate) if candidate.callee else None
        if symbol is not None and (symbol.path, symbol.name) == wanted:
            return program.entry, candidate
    return None
