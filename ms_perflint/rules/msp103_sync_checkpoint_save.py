"""MSP103 sync-checkpoint-save: checkpoints written synchronously, over and over, while training."""

from __future__ import annotations

from typing import Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Value, YamlFacts, YamlMapping
from ms_perflint.findings import FixAvailability, FixSafety, TextEdit, Fix
from ms_perflint.project.checkpoints import Checkpoints
from ms_perflint.project.model import is_test_file
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, append_keyword, replace_value

MISSING, FALSE = "missing", "false"
FIX_DESCRIPTION = "Save checkpoints asynchronously (async_save=True)"


class SyncCheckpointSave(Rule):
    """Report synchronous checkpoint saving where it runs again and again during training."""

    code = "MSP103"
    name = "sync-checkpoint-save"
    summary = "Checkpoints are saved synchronously, stalling training"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds checkpoints saved synchronously, again and again, while a program trains:

            - a `CheckpointConfig(...)` without `async_save` (or with `async_save=False`) that is
              handed to a `ModelCheckpoint(config=...)` callback a training program registers;
            - `mindspore.save_checkpoint(...)` without `async_save` where it runs again and again
              during training: in a loop that trains (the loop, or a loop inside it, runs a train
              step, a step built by `amp.build_train_network`, a gradient function, `Model.train` or a
              function that does), in a method of a `Callback` subclass (whatever path names the base)
              that runs every step or epoch (`step_end`, `epoch_end`, `on_train_step_end`,
              `on_train_epoch_end`, ...), or in a helper called from either;
            - a mindformers YAML callback `type: CheckpointMonitor` (also its common misspelling
              `CheckpointMointor`) in a training config whose `async_save` is missing or written `False`, when
              it saves at least every 5,000 steps (`save_checkpoint_steps`, default 1) -- reported at the
              callback's `type`, or at the written `False`.

            A save is reported when it is worth a change (RULES.md): it repeats at least every 2 epochs
            or every 5,000 steps, at least 3 times in the run where the run's length is known, and the
            network it saves is not small. Its period is computed from values, never from names:
            `save_checkpoint_steps=k * steps_per_epoch` (the steps of an epoch are
            `dataset.get_dataset_size()`, through `int(...)`, a name or a helper's parameter) is every `k`
            epochs; a number `N` is every `N` steps, whatever the key holding it is called; a missing
            `save_checkpoint_steps` is MindSpore's default, every step. In a loop the unit is the loop's:
            a save in a loop that runs the train step repeats every step, a save in a loop around a data loop
            every epoch; `if epoch % N == 0` makes it every `N` of them. A save in a per-epoch callback method
            with no period test around it is every epoch by construction. The finding goes where the
            `CheckpointConfig` or `save_checkpoint` is written, once, and names the helper that builds the
            `ModelCheckpoint` when it is not the same function.
        """,
        why_bad="""
            A synchronous save blocks the training step until the whole checkpoint is serialised and
            written. With `async_save=True` MindSpore writes it from a background thread while the
            next steps run. Measured on ResNet/CIFAR-10: 2200 img/s with synchronous saving,
            2450 img/s with asynchronous saving.
        """,
        example="""
            from mindspore.train import CheckpointConfig, ModelCheckpoint

            config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=5)
            model.train(10, dataset, callbacks=[ModelCheckpoint(prefix="net", config=config)])
        """,
        use_instead="""
            from mindspore.train import CheckpointConfig, ModelCheckpoint

            config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=5, async_save=True)
            model.train(10, dataset, callbacks=[ModelCheckpoint(prefix="net", config=config)])
        """,
        fix_safety="""
            The fix appends `async_save=True` in the call's layout (one argument per line stays one per
            line; a trailing comma stays) or adds `async_save: True` to the YAML callback. It is *safe*
            when the keyword is missing and nothing reads the checkpoint right after. It is *unsafe*
            when the code that runs after the save reads, lists, copies, uploads or loads files (`os.listdir`,
            `shutil.copy`, `load_checkpoint`, an OBS upload), itself or through a project function
            (`visualize_model(best_ckpt)`): the save's own function, the function calling it, or -- for a save
            in a callback or helper -- the code after the training call (a later notebook cell counts).
            The background write may not have finished. Replacing an explicit `async_save=False` is unsafe too: the author chose it. The
            fix never writes `"process"`: it forks, and was up to 2x slower when measured.
        """,
        programs="""
            Training programs: scripts and notebooks that train (`Model.train`, a train-step cell, a
            gradient function, a mindformers trainer), and the code they reach. A checkpoint saved by
            code no training program runs (an export or conversion script, a unit test) is not reported.
            The rule applies on any accelerator (a synchronous save stalls a GPU as it does an NPU); a CPU program
            is not reported.
        """,
        silent_on="""
            - `async_save=True`, `"thread"` or `"process"`, a value the linter cannot know
              (`async_save=args.async_save`), or `**kwargs` that may carry it;
            - a YAML callback that saves rarely (`save_checkpoint_steps` above 5,000, as mindformers' templates
              often spell next to `async_save: False` -- on the development set 8 of 12 such configs saved once
              or not at all during a documented run) or by time (`save_checkpoint_seconds`). An explicit
              `async_save: False` next to a frequent save is reported: a blind audit found a finetune config saving
              every 1,500 steps that way, and the written False is a template's default spelled out, not a
              decision the period supports;
            - a `CheckpointConfig` that never reaches a `ModelCheckpoint` (a config built and unused), or whose
              callback is only registered under a condition no run turns on (`if args.save_ckpt:
              callbacks.append(ckpt_cb)` with the argparse default False, `training = False`); the same for a
              `Callback` subclass that saves: built or registered only under such a flag;
            - an unknown period (`save_checkpoint_steps=args.save_steps` with no value the linter can see,
              `save_checkpoint_seconds`, `if epoch % self.interval == 0` with an unknown interval): unknown values
              are never reported;
            - a rare save: every 3 epochs or more, or every 5,000 steps or more. At Ascend step times that is a
              save every few minutes or more, a stall of well under 1 % even for a checkpoint of gigabytes;
            - fewer than 3 saves in a run whose length is known: one save at the end
              (`save_checkpoint_steps=steps_per_epoch * epochs`), a save every epoch of a 2-epoch run, a save
              every 10 steps of a 20-step loop;
            - a save after each call of a project function that runs a training of its own (`for iters, lr in
              zip(phases, rates): train(net, iters, lr); save_checkpoint(net, ...)`, where `train` loops
              `for it in range(iters)`): each save comes after that whole run, so its period is the run's steps or
              epochs, rare or unknown unless the run is short. A function whose loop is one pass over the data
              (`for batch in loader`, `range(dataset.get_dataset_size())`) is an epoch, and a save after it every
              epoch is reported. Traced from a physics-informed network saved once per training phase of 10,000 to
              300,000 full-batch steps that was reported as saving every epoch;
            - a save that follows a full evaluation in the same callback method, run whenever the save runs
              (`model.eval(...)`, `self.eval_function(...)`, `evaluator.eval()`, or a project function that calls
              one; known by the word "eval": a MindSpore Cell has no `eval` method): save-best, where the
              evaluation costs far more than the save. An every-epoch save after an evaluation that runs only
              every few epochs is reported;
            - a small network: under 3 million parameters (LeNet, SqueezeNet, MobileViT-XXS, OSNet) a checkpoint
              is a few MB and writes in tens of milliseconds. The size is counted from the layers the network's
              classes build, each with the sizes the call that builds it passes and the callers the training
              program runs (a hub entry forwarding `*args` is not one of them) -- a block class handed to a helper
              (`make_layer(Block, 64, 3)`) as that class, a block built in a loop or a comprehension once per
              iteration, a network kept by a
              wrapper (`self.backbone = backbone`), a project cell built on `TrainOneStepCell`, a function or
              method that returns the network it is given (`net = quantizer.apply(net)`, a loss-cell factory), a
              MindSpore loss counted as no weights -- and known for model-zoo networks (`lenet(...)`,
              `create_model("squeezenet1_0")`) and for architectures that are small in every published variant (a
              class named `SqueezeNet...`, `LeNet...`, `OSNet...`). A callback that saves what `run_context` holds
              saves the network the program trains. A network whose size cannot be counted is reported when its
              save's period is known and frequent: the period is what the code states, and programs that save
              every epoch train networks above 3 M parameters far more often than below;
            - a save guarded to run once (`if epoch == epochs - 1:`), a save in `on_train_end`;
            - loops that do not train (a conversion loop that saves one file per iteration);
            - programs that run on the CPU (nothing waits on an accelerator);
            - YAML configs whose `run_mode` is `predict` or `eval`.

            Reading the files after `Model.train` returns is fine for the `ModelCheckpoint` fix: the callback
            waits for its background writes when training ends (MindSpore 2.10, `ModelCheckpoint.end`).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 50 findings, 41 worth acting on (82 %);
            48 of 50 are factually right. `save_checkpoint` in loops and callbacks: 23 of 24; `CheckpointConfig`:
            18 of 26 -- whether a callback's saves matter depends on the dataset's size and the step time, which
            the code does not say. See docs/precision.md.

            After periods were computed from values (issue 22, 2026-11-27): 67 findings on ten development-set
            repositories (mindcv, mindformers, mindocr, mindyolo, applications, mindaudio, mindface, mindpose,
            mindediting, minddet; 64 before); a seeded sample of 12 read by hand, 11 worth acting on, one debatable
            (a best checkpoint saved after a full validation in an epoch loop).
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/train/mindspore.train.CheckpointConfig.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.save_checkpoint.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            class LeNet(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.conv1 = nn.Conv2d(1, 6, 5)
                    self.conv2 = nn.Conv2d(6, 16, 5)
                    self.fc1 = nn.Dense(400, 120)
                    self.fc2 = nn.Dense(120, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(self.conv2(self.conv1(x))))
            if __name__ == "__main__":
                net = LeNet()
                config = CheckpointConfig(save_checkpoint_steps=100)
                Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9)).train(
                    10, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="a 60 k-parameter network: its checkpoint writes in milliseconds",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            if __name__ == "__main__":
                steps = data.get_dataset_size()
                config = CheckpointConfig(save_checkpoint_steps=steps)
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="one epoch, one save per epoch: a single save at the end",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            training = False
            if training:
                config = CheckpointConfig(save_checkpoint_steps=10)
                Model(net, loss, opt).train(5, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="the training cell never runs",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="already asynchronous",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            def main(args):
                config = CheckpointConfig(async_save=args.async_save)
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            if __name__ == "__main__":
                main(parse())
            """,
            why="a value the linter cannot know",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model
            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10)
                Model(net, loss, opt).train(1, data)
            """,
            why="the config never reaches a ModelCheckpoint",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            if __name__ == "__main__":
                steps = data.get_dataset_size()
                config = CheckpointConfig(save_checkpoint_steps=steps * args.epochs)
                Model(net, loss, opt).train(args.epochs, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="one save, at the end of the run",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, ModelCheckpoint
            config = CheckpointConfig(save_checkpoint_steps=10)
            callback = ModelCheckpoint(config=config)
            """,
            why="no program trains with it",
        ),
        Valid(
            """
            import mindspore as ms
            if __name__ == "__main__":
                for name in ["a", "b"]:
                    params = ms.load_checkpoint(name + ".ckpt")
                    ms.save_checkpoint(params, name + "_converted.ckpt")
            """,
            why="a conversion loop that does not train",
        ),
        Valid(
            """
            import mindspore as ms
            def train(net, train_step, data, epochs):
                for epoch in range(epochs):
                    for x, y in data:
                        train_step(x, y)
                    if epoch == epochs - 1:
                        ms.save_checkpoint(net, "last.ckpt")
            if __name__ == "__main__":
                train(net, ms.nn.TrainOneStepCell(net, opt), data, 10)
            """,
            why="saves once, after the last epoch",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            SAVE_EPOCHS = 10
            if __name__ == "__main__":
                steps_per_epoch = data.get_dataset_size()
                config = CheckpointConfig(save_checkpoint_steps=SAVE_EPOCHS * steps_per_epoch)
                Model(net, loss, opt).train(90, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="a save every 10 epochs: rare",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            SAVE_EPOCHS = 1
            if __name__ == "__main__":
                steps_per_epoch = data.get_dataset_size()
                config = CheckpointConfig(save_checkpoint_steps=SAVE_EPOCHS * steps_per_epoch)
                Model(net, loss, opt).train(90, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            line=5,
            column=14,
            fixed="""
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            SAVE_EPOCHS = 1
            if __name__ == "__main__":
                steps_per_epoch = data.get_dataset_size()
                config = CheckpointConfig(save_checkpoint_steps=SAVE_EPOCHS * steps_per_epoch, async_save=True)
                Model(net, loss, opt).train(90, data, callbacks=[ModelCheckpoint(config=config)])
            """,
        ),
        Invalid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10)
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            line=3,
            column=14,
            fixed="""
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
        ),
        Invalid(
            """
            import mindspore as ms
            from mindspore.train import Model, ModelCheckpoint
            if __name__ == "__main__":
                config = ms.train.callback.CheckpointConfig(
                    save_checkpoint_steps=10,
                    keep_checkpoint_max=5,
                )
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            line=4,
            column=14,
            fixed="""
            import mindspore as ms
            from mindspore.train import Model, ModelCheckpoint
            if __name__ == "__main__":
                config = ms.train.callback.CheckpointConfig(
                    save_checkpoint_steps=10,
                    keep_checkpoint_max=5,
                    async_save=True,
                )
                Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
            """,
        ),
        Invalid(
            """
            from mindspore import train
            if __name__ == "__main__":
                config = train.CheckpointConfig(keep_checkpoint_max=5, async_save=False)
                train.Model(net).train(1, data, callbacks=[train.ModelCheckpoint(config=config)])
            """,
            line=3,
            column=14,
            fixed="""
            from mindspore import train
            if __name__ == "__main__":
                config = train.CheckpointConfig(keep_checkpoint_max=5, async_save=True)
                train.Model(net).train(1, data, callbacks=[train.ModelCheckpoint(config=config)])
            """,
            message_contains="async_save=False",
        ),
        Invalid(
            """
            import mindspore as ms
            def train(net, dataset, train_step):
                for epoch in range(10):
                    for data, label in dataset.create_tuple_iterator():
                        train_step(data, label)
                    ms.save_checkpoint(net, f"epoch{epoch}.ckpt")
            if __name__ == "__main__":
                train(net, data, ms.nn.TrainOneStepCell(net, opt))
            """,
            line=6,
            column=9,
            fixed="""
            import mindspore as ms
            def train(net, dataset, train_step):
                for epoch in range(10):
                    for data, label in dataset.create_tuple_iterator():
                        train_step(data, label)
                    ms.save_checkpoint(net, f"epoch{epoch}.ckpt", async_save=True)
            if __name__ == "__main__":
                train(net, data, ms.nn.TrainOneStepCell(net, opt))
            """,
        ),
        Invalid(
            """
            import mindspore as ms
            from mindspore.train import Callback, Model
            class SaveEveryEpoch(Callback):
                def on_train_epoch_end(self, run_context):
                    ms.save_checkpoint(run_context.original_args().network, "latest.ckpt")
            if __name__ == "__main__":
                Model(net, loss, opt).train(5, data, callbacks=[SaveEveryEpoch()])
            """,
            line=5,
            column=9,
            fixed="""
            import mindspore as ms
            from mindspore.train import Callback, Model
            class SaveEveryEpoch(Callback):
                def on_train_epoch_end(self, run_context):
                    ms.save_checkpoint(run_context.original_args().network, "latest.ckpt", async_save=True)
            if __name__ == "__main__":
                Model(net, loss, opt).train(5, data, callbacks=[SaveEveryEpoch()])
            """,
            message_contains="on_train_epoch_end",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        checkpoints = Checkpoints.shared(project, check.values)
        for path, facts in sorted(project.python.items()):
            for call in facts.calls:
                qualified = project.qualified(path, call) if call.callee else ""
                if qualified == ms.CHECKPOINT_CONFIG:
                    with check.deciding(path):
                        self._config(check, checkpoints, path, call)
                elif qualified == ms.SAVE_CHECKPOINT:
                    with check.deciding(path):
                        self._save(check, checkpoints, path, call)
        for path, facts in sorted(project.yaml.items()):
            if not is_test_file(path):
                self._yaml(check, path, facts)

    # --- CheckpointConfig ------------------------------------------------------------------------

    def _config(self, check: Check, checkpoints: Checkpoints, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.CHECKPOINT_CONFIG)
        if state not in (MISSING, FALSE) or not check.values.can_hold(path, call.scope, call.guards):
            return
        callbacks = checkpoints.model_checkpoints(path, call)
        programs = [program for program in check.project.training_programs()
                    if any(program.reaches(p, c.scope) and _runs(check, program, p, c)
                           and checkpoints.registered(program, p, c) for p, c in callbacks)]
        if not programs:
            return
        period = checkpoints.config_period(path, call)
        if not checkpoints.frequent(period, epochs=checkpoints.epochs_trained(programs)) \
                or checkpoints.small_network(programs, callbacks):
            return
        # ModelCheckpoint waits for its background writes when training ends (MindSpore 2.10,
        # ModelCheckpoint.end), so reading the files after Model.train returns is safe.
        fix = _fix(call, state, argument, reads=False)
        said = "(async_save=False)" if state == FALSE else "without async_save"
        message = (f"CheckpointConfig {said} makes the ModelCheckpoint callback{_helper(check, path, call, callbacks)}"
                   " save synchronously, stalling training")
        check.report(self.code, path, call, _with_advice(message, False), fix)

    # --- save_checkpoint -------------------------------------------------------------------------

    def _save(self, check: Check, checkpoints: Checkpoints, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.SAVE_CHECKPOINT)
        if state not in (MISSING, FALSE):
            return
        programs = [program for program in check.project.training_programs()
                    if program.reaches(path, call.scope) and _runs(check, program, path, call)]
        repeat = checkpoints.repeats(path, call) if programs else None
        if repeat is None:
            return
        epochs: tuple = ()
        if repeat.method[1] >= 0:
            if not any(checkpoints.callback_registered(program, *repeat.method) for program in programs) \
                    or checkpoints.follows_evaluation(path, call, repeat.method):
                return
            epochs = checkpoints.epochs_trained(programs)
        elif checkpoints.follows_evaluation(path, call, (path, call.scope)):
            return  # save-best in a training loop: the evaluation of the same iteration dominates
        if not checkpoints.frequent(repeat.period, repeat.saves, epochs) \
                or checkpoints.saves_small_network(programs, path, call):
            return
        reads = checkpoints.reads_after(programs, path, call)
        fix = _fix(call, state, argument, reads)
        said = " (async_save=False)" if state == FALSE else ""
        message = f"save_checkpoint{said} in {repeat.where} blocks training {repeat.describe()}"
        check.report(self.code, path, call, _with_advice(message, reads), fix)

    # --- mindformers YAML callbacks --------------------------------------------------------------

    def _yaml(self, check: Check, path: str, facts: YamlFacts) -> None:
        if _run_mode(facts) in ms.NON_TRAINING_RUN_MODES:
            return
        for mapping in facts.mappings:
            kind = mapping.entries.get("type")
            if kind is None or kind.data not in ms.CHECKPOINT_MONITORS:
                continue
            # Decided by the period, as Python saves are: a monitor saving at least every FREQUENT_SAVE_STEPS steps
            # (mindformers' default is every step) stalls the run, whether async_save is missing or written False.
            steps = _yaml_period(mapping)
            if steps is None or steps > ms.FREQUENT_SAVE_STEPS:
                continue
            written = mapping.entries.get("async_save")
            every = f"every {steps:,} steps" if "save_checkpoint_steps" in mapping.entries else "every step (the default)"
            if written is None:
                message = (f"{kind.data} saves checkpoints synchronously {every}, stalling training; "
                           f"add async_save: True")
                check.report(self.code, path, kind, message, _yaml_insert(mapping))
            elif written.kind == LIT and written.data is False:
                message = (f"{kind.data} saves checkpoints synchronously {every} (async_save: False), stalling "
                           f"training; set async_save: True")
                check.report(self.code, path, written, message,
                             replace_value(written, "True", FixSafety.UNSAFE, FIX_DESCRIPTION))


def _yaml_period(mapping: YamlMapping) -> Optional[int]:
    """The steps between a YAML monitor's saves (mindformers' default: 1), None when it saves by time or the
    period is not a number."""
    seconds = mapping.entries.get("save_checkpoint_seconds")
    if seconds is not None and not (seconds.kind == LIT and seconds.data in (0, None)):
        return None
    steps = mapping.entries.get("save_checkpoint_steps")
    if steps is None:
        return ms.MINDFORMERS_MONITOR_DEFAULT_STEPS
    if steps.kind == LIT and isinstance(steps.data, int) and not isinstance(steps.data, bool) and steps.data > 0:
        return steps.data
    return None


# --- helpers -----------------------------------------------------------------------------------------


def _async_state(call: Call, qualified: str) -> Tuple[str, Optional[Value]]:
    """``missing``, ``false``, or ``other`` (async, or a value the linter cannot know), and the argument."""
    parameter = ms.ASYNC_SAVE[qualified]
    argument = call.argument(parameter.keyword, parameter.position)
    if argument is None:
        return (MISSING, None) if not call.may_pass(parameter.keyword, parameter.position) else ("other", None)
    if argument.kind == LIT and argument.data is False:
        return FALSE, argument
    return "other", argument


def _runs(check: Check, program, path: str, call: Call) -> bool:
    """The call is in a scope the program can run, under guards that can hold, and the program trains there
    (a notebook whose training cell is switched off by ``training = False`` saves nothing)."""
    if not check.ascend(program).accelerator:
        return False  # on the CPU the save pauses the host that computes anyway: nothing idles
    values = check.values
    live = values.live_scopes(program)
    if (path, call.scope) not in live or not values.can_hold(path, call.scope, call.guards, program):
        return False
    return any((p, c.scope) in live and values.can_hold(p, c.scope, c.guards, program)
               for p, c, _ in check.project.training_calls(program))


def _fix(call: Call, state: str, argument: Optional[Value], reads: bool) -> Optional[Fix]:
    """Append ``async_save=True`` (safe unless files are read right after) or replace an explicit False (unsafe)."""
    if state == FALSE and argument is not None:
        return replace_value(argument, "True", FixSafety.UNSAFE, FIX_DESCRIPTION)
    safety = FixSafety.UNSAFE if reads else FixSafety.SAFE
    return append_keyword(call, "async_save", "True", safety, FIX_DESCRIPTION)


def _with_advice(message: str, reads: bool) -> str:
    advice = "; pass async_save=True"
    if reads:
        advice += " (the files are read right after: make sure the write has finished first)"
    return message + advice


def _run_mode(facts: YamlFacts) -> str:
    for mapping in facts.mappings:
        if not mapping.path and "run_mode" in mapping.entries:
            value = mapping.entries["run_mode"].data
            return str(value).strip().lower() if isinstance(value, str) else ""
    return ""


def _yaml_insert(mapping: YamlMapping) -> Optional[Fix]:
    if mapping.insert is None:
        return None
    offset, indent, newline = mapping.insert
    return Fix(FixSafety.SAFE, FIX_DESCRIPTION, (TextEdit(offset, offset, f"{indent}async_save: True{newline}"),))


def _helper(check: Check, path: str, config: Call, callbacks) -> str:
    """`` in create_callbacks`` when the ModelCheckpoint is built in another function than the config."""
    names = sorted({check.project.python[p].scopes[c.scope].name for p, c in callbacks
                    if (p, c.scope) != (path, config.scope) and c.scope > 0})
    return f" built in {', '.join(names)}" if names else ""
