"""MSP103 sync-checkpoint-save: checkpoints written synchronously, over and over, while training."""

from __future__ import annotations

from typing import List, Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, LIT, OP, PARAM, Call, Value, YamlFacts, YamlMapping
from ms_perflint.findings import FixAvailability, FixSafety, TextEdit, Fix
from ms_perflint.project.model import Project, ScopeRef, is_test_file
from ms_perflint.project.training import Training, network_parameters
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
            Finds checkpoints saved synchronously while a program trains:

            - a `CheckpointConfig(...)` without `async_save` (or with `async_save=False`) that is
              handed to a `ModelCheckpoint(config=...)` callback of a training program;
            - `mindspore.save_checkpoint(...)` without `async_save` where it runs again and again
              during training: in a loop that trains (the loop, or a loop inside it, runs a train
              step, a gradient function, `Model.train` or a function that does), in a Callback
              method that runs every step or epoch (`step_end`, `epoch_end`, `on_train_step_end`,
              `on_train_epoch_end`, ...), or in a helper called from either;
            - a mindformers YAML callback `type: CheckpointMonitor` (also its common misspelling
              `CheckpointMointor`) without `async_save: True` in a training config.
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
            The rule applies whatever the device: a synchronous save stalls any accelerator.
        """,
        silent_on="""
            - `async_save=True`, `"thread"` or `"process"`, a value the linter cannot know
              (`async_save=args.async_save`), or `**kwargs` that may carry it;
            - a YAML callback that writes `async_save: False`: the config has decided (mindformers' templates
              spell the default out, usually next to a save interval as long as the whole run; on the
              development set 8 of 12 such configs saved once or not at all during a documented run);
            - a `CheckpointConfig` that never reaches a `ModelCheckpoint` (a config built and unused), or whose
              callback is only added under a condition no configuration turns on (`if run_eval:` with
              `run_eval` False by default, `training = False`);
            - one save at the end of the run: `save_checkpoint_steps=steps_per_epoch * epochs`, or an interval of
              one epoch in a program that trains for one epoch;
            - a small network: under 3 million parameters (LeNet, SqueezeNet, MobileViT-XXS, OSNet) a checkpoint
              is a few MB and writes in tens of milliseconds. The size is counted from the layers the network's
              classes build -- a block built in a loop or a comprehension once per iteration, a network kept by a
              wrapper (`self.backbone = backbone`) with it -- and known for model-zoo networks
              (`lenet(...)`, `create_model("squeezenet1_0")`) and for architectures that are small in every
              published variant (a class named `SqueezeNet...`, `LeNet...`, `OSNet...`). A network whose size
              cannot be counted is reported;
            - a rare save: `save_checkpoint_steps` of 5,000 or more, or a save under `if step % N == 0` with
              `N` at least 5,000, whatever the configuration. At Ascend step times that is a save every few
              minutes or more, a stall of well under 1 % even for a checkpoint of gigabytes;
            - a save guarded to run once (`if epoch == epochs - 1:`), a save in `on_train_end`;
            - loops that do not train (a conversion loop that saves one file per iteration);
            - YAML configs whose `run_mode` is `predict` or `eval`.

            Reading the files after `Model.train` returns is fine for the `ModelCheckpoint` fix: the callback
            waits for its background writes when training ends (MindSpore 2.10, `ModelCheckpoint.end`).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 50 findings, 41 worth acting on (82 %);
            48 of 50 are factually right. `save_checkpoint` in loops and callbacks: 23 of 24; `CheckpointConfig`:
            18 of 26 -- whether a callback's saves matter depends on the dataset's size and the step time, which
            the code does not say. See docs/precision.md.
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
    )
    invalid = (
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
        training = Training.shared(project)
        for path, facts in sorted(project.python.items()):
            for call in facts.calls:
                qualified = project.qualified(path, call) if call.callee else ""
                if qualified == ms.CHECKPOINT_CONFIG:
                    with check.deciding(path):
                        self._config(check, training, path, call)
                elif qualified == ms.SAVE_CHECKPOINT:
                    with check.deciding(path):
                        self._save(check, training, path, call)
        for path, facts in sorted(project.yaml.items()):
            if not is_test_file(path):
                self._yaml(check, path, facts)

    # --- CheckpointConfig ------------------------------------------------------------------------

    def _config(self, check: Check, training: Training, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.CHECKPOINT_CONFIG)
        if state not in (MISSING, FALSE) or not check.values.can_hold(path, call.scope, call.guards):
            return
        project = check.project
        callbacks = _model_checkpoints(project, path, call)
        programs = [program for program in project.training_programs()
                    if any(program.reaches(p, c.scope) and _runs(check, program, p, c) for p, c in callbacks)]
        if not programs or _saves_once(check, call, programs) or _saves_rarely(check, path, call) \
                or _small_network(check, training, programs, callbacks):
            return
        # ModelCheckpoint waits for its background writes when training ends (MindSpore 2.10,
        # ModelCheckpoint.end), so reading the files after Model.train returns is safe.
        fix = _fix(call, state, argument, reads=False)
        said = "(async_save=False)" if state == FALSE else "without async_save"
        message = f"CheckpointConfig {said} makes the ModelCheckpoint callback save synchronously, stalling training"
        check.report(self.code, path, call, _with_advice(message, False), fix)

    # --- save_checkpoint -------------------------------------------------------------------------

    def _save(self, check: Check, training: Training, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.SAVE_CHECKPOINT)
        if state not in (MISSING, FALSE):
            return
        project = check.project
        programs = [program for program in project.training_programs()
                    if program.reaches(path, call.scope) and _runs(check, program, path, call)]
        if not programs:
            return
        where = _repeated_in_training(check, training, path, call)
        if where is None or _guarded_once(call) or _period_is_rare(check, path, call) \
                or _saves_small_network(check, training, path, call):
            return
        reads = _reads_after(check, programs, path, call)
        fix = _fix(call, state, argument, reads)
        said = " (async_save=False)" if state == FALSE else ""
        message = f"save_checkpoint{said} in {where} blocks training at every save"
        check.report(self.code, path, call, _with_advice(message, reads), fix)

    # --- mindformers YAML callbacks --------------------------------------------------------------

    def _yaml(self, check: Check, path: str, facts: YamlFacts) -> None:
        if _run_mode(facts) in ms.NON_TRAINING_RUN_MODES:
            return
        for mapping in facts.mappings:
            kind = mapping.entries.get("type")
            if kind is None or kind.data not in ms.CHECKPOINT_MONITORS:
                continue
            # A config that writes ``async_save: False`` has decided (mindformers' templates spell their default
            # out, usually beside a save interval as long as the run): only a missing setting is reported.
            if "async_save" not in mapping.entries:
                fix = _yaml_insert(mapping)
                message = f"{kind.data} saves checkpoints synchronously, stalling training; add async_save: True"
                check.report(self.code, path, kind, message, fix)


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


def _model_checkpoints(project: Project, path: str, config: Call) -> List[Tuple[str, Call]]:
    """``ModelCheckpoint(config=...)`` calls that receive this CheckpointConfig: directly, returned by a helper,
    or through a parameter."""
    found = []
    for callback_path, call in _all_model_checkpoints(project):
        argument = call.argument(ms.MODEL_CHECKPOINT_CONFIG.keyword, ms.MODEL_CHECKPOINT_CONFIG.position)
        if argument is not None and project.making_call(callback_path, argument, ms.CHECKPOINT_CONFIG) == (path, config):
            found.append((callback_path, call))
    if found:
        return found
    for caller_path, caller in _callers_passing(project, path, config):
        for target_path, target_scope in project.targets(caller_path, caller):
            for call in project.python[target_path].calls:
                if call.scope == target_scope and project.qualified(target_path, call) == ms.MODEL_CHECKPOINT:
                    argument = call.argument(ms.MODEL_CHECKPOINT_CONFIG.keyword, ms.MODEL_CHECKPOINT_CONFIG.position)
                    if argument is not None and argument.kind == PARAM:
                        found.append((target_path, call))
    return found


def _all_model_checkpoints(project: Project) -> List[Tuple[str, Call]]:
    """Every ``ModelCheckpoint(...)`` call of the project (once per project)."""
    def find() -> List[Tuple[str, Call]]:
        return [(path, call) for path, facts in sorted(project.python.items()) for call in facts.calls
                if call.callee and project.qualified(path, call) == ms.MODEL_CHECKPOINT]

    return project.memo("model-checkpoints", find)  # type: ignore[return-value]


def _callers_passing(project: Project, path: str, config: Call) -> List[Tuple[str, Call]]:
    """Calls in the config's file that pass it on as an argument."""
    found = []
    for call in project.python[path].calls:
        values = [*call.args, *call.kwargs.values()]
        if any(v.kind == CALL and v.data == config.id for v in values):
            found.append((path, call))
    return found


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


def _saves_once(check: Check, call: Call, programs) -> bool:
    """One save at the end of the run: an interval of ``steps_per_epoch * epochs``, or an interval of one epoch
    (the dataset's size) in programs that train for one epoch."""
    steps = call.argument(ms.SAVE_STEPS.keyword, ms.SAVE_STEPS.position)
    if steps is None:
        return False
    text = steps.text.lower()
    if steps.kind == OP and steps.data == "*" and "epoch" in text:
        return True
    per_epoch = _names_an_epoch(steps)
    return per_epoch and all(_epochs(check, program) == {1} for program in programs)


def _saves_rarely(check: Check, path: str, config: Call) -> bool:
    """``save_checkpoint_steps`` is at least :data:`~ms_perflint.catalogue.RARE_SAVE_STEPS` whatever the
    configuration, or ``N * steps_per_epoch`` with ``N`` at least :data:`~ms_perflint.catalogue.RARE_SAVE_EPOCHS`."""
    steps = config.argument(ms.SAVE_STEPS.keyword, ms.SAVE_STEPS.position)
    if steps is None:
        return False
    if _all_at_least(check, path, steps, config.scope, ms.RARE_SAVE_STEPS):
        return True
    if steps.kind == OP and steps.data == "*" and len(steps.parts) == 2:
        for count, per_epoch in (steps.parts, steps.parts[::-1]):
            if _names_an_epoch(per_epoch) and _all_at_least(check, path, count, config.scope, ms.RARE_SAVE_EPOCHS):
                return True
    return False


def _names_an_epoch(value: Value) -> bool:
    """``dataset.get_dataset_size()``, ``steps_per_epoch``, ``num_batches``: the steps of one epoch, by name."""
    text = value.text.lower()
    return any(word in text for word in ms.STEPS_PER_EPOCH_WORDS)


def _period_is_rare(check: Check, path: str, call: Call) -> bool:
    """The save runs under ``step % N == 0`` with every configured ``N`` at least ``RARE_SAVE_STEPS``, or under
    ``epoch % N == 0`` with ``N`` at least ``RARE_SAVE_EPOCHS``."""
    for condition, holds in call.guards:
        if not holds or condition.kind != OP or condition.data != "==" or len(condition.parts) != 2:
            continue
        for modulo, zero in (condition.parts, condition.parts[::-1]):
            if not (modulo.kind == OP and modulo.data == "%" and len(modulo.parts) == 2
                    and zero.kind == LIT and zero.data == 0):
                continue
            least = ms.RARE_SAVE_EPOCHS if "epoch" in modulo.parts[0].text.lower() else ms.RARE_SAVE_STEPS
            if _all_at_least(check, path, modulo.parts[1], call.scope, least):
                return True
    return False


def _all_at_least(check: Check, path: str, value: Value, scope: int, least: int) -> bool:
    found = check.values.resolve(path, value, scope)
    numbers = [k.value for k in found.values]
    return found.complete and bool(numbers) and all(type(n) is int and n >= least for n in numbers)


def _epochs(check: Check, program) -> set:
    """The epoch counts the program's ``Model.train`` calls can take (empty when one is unknown)."""
    found = set()
    for path, call, kind in check.project.training_calls(program):
        if kind != "model":
            continue
        epoch = call.argument("epoch", 0)
        resolved = check.values.resolve(path, epoch, call.scope, program=program) if epoch is not None else None
        if resolved is None or not resolved.complete or not resolved.values:
            return set()
        found.update(k.value for k in resolved.values)
    return found


def _small_network(check: Check, training: Training, programs, callbacks) -> bool:
    """Every network the callbacks save is small (its checkpoint writes in tens of milliseconds): the network of
    the ``Model.train`` that follows each callback in its function (a notebook trains LeNet, then VGG16), else
    every network the programs train."""
    uses = [_trained_next(check, training, path, callback) for path, callback in callbacks]
    if not uses or None in uses:
        uses = [use for program in programs for use in training.networks(program)]
    sizes = [network_parameters(check.project, check.values, training, use.path, use.network, use.anchor.scope)
             for use in uses]
    return bool(sizes) and all(size is not None and size < ms.SMALL_NETWORK_PARAMETERS for size in sizes)


def _trained_next(check: Check, training: Training, path: str, callback: Call):
    """The network of the first ``Model.train`` after the callback, in the same function."""
    facts = check.project.python[path]
    for call in facts.calls:
        if call.scope == callback.scope and call.end >= callback.end \
                and check.project.training_kind(path, call) == "model":
            return training.network_of(path, call, "model")
    return None


def _saves_small_network(check: Check, training: Training, path: str, call: Call) -> bool:
    """``save_checkpoint(net, ...)`` of a network known to be small."""
    saved = call.argument("save_obj", 0)
    if saved is None:
        return False
    size = network_parameters(check.project, check.values, training, path, saved, call.scope)
    return size is not None and size < ms.SMALL_NETWORK_PARAMETERS


def _repeated_in_training(check: Check, training: Training, path: str, call: Call) -> Optional[str]:
    """Where a save runs again and again during training (for the message), or None."""
    project = check.project
    if _repeating_training_loops(check, training, path, call.loops):
        return "a training loop"
    per_step = _per_step_method(project, (path, call.scope))
    if per_step:
        return per_step
    for caller_path, caller in project.callers((path, call.scope)):
        if _repeating_training_loops(check, training, caller_path, caller.loops):
            return f"{project.python[path].scopes[call.scope].name}, called from a training loop"
        method = _per_step_method(project, (caller_path, caller.scope))
        if method:
            return f"{project.python[path].scopes[call.scope].name}, called from {method}"
    return None


def _repeating_training_loops(check: Check, training: Training, path: str, loops) -> bool:
    """Some of ``loops`` trains and runs more than once (``for epoch in range(1)`` runs once)."""
    facts = check.project.python[path]
    for loop_id in set(loops) & training.training_loops(path):
        loop = facts.loops[loop_id]
        if not _runs_once(check, path, loop):
            return True
    return False


def _runs_once(check: Check, path: str, loop) -> bool:
    """``for x in range(n)`` where every configured ``n`` is 1 (or ``range(0, 1)``)."""
    iterable = loop.iterable
    if iterable is None or iterable.kind != CALL:
        return False
    call = check.project.python[path].call(iterable.data)
    if call is None or call.callee != "range" or not call.args:
        return False
    stop = call.args[-1] if len(call.args) <= 2 else None
    start = call.args[0] if len(call.args) == 2 else None
    found = check.values.resolve(path, stop, loop.scope) if stop is not None else None
    if found is None or not found.complete or not found.values:
        return False
    first = 0
    if start is not None:
        begun = check.values.resolve(path, start, loop.scope)
        if not begun.complete or len({k.value for k in begun.values}) != 1:
            return False
        first = begun.values[0].value
    return all(isinstance(k.value, int) and isinstance(first, int) and k.value - first <= 1 for k in found.values)


def _per_step_method(project: Project, scope: ScopeRef) -> str:
    """``Callback.epoch_end`` when the scope is a per-step/per-epoch method of a Callback, else ""."""
    path, index = scope
    facts = project.python[path]
    current = facts.scopes[index]
    owner = project.owner_class(path, index)
    method = current.name.rsplit(".", 1)[-1]
    if owner is None or method not in ms.PER_STEP_CALLBACKS:
        return ""
    if not project.derives_from(owner, ms.CALLBACK_BASES):
        return ""
    return f"{owner[1]}.{method}"


def _guarded_once(call: Call) -> bool:
    """The save runs under ``if epoch == last`` (an equality that is not a period test)."""
    for condition, holds in call.guards:
        if holds and condition.kind == OP and condition.data == "==" and "%" not in condition.text:
            text = condition.text.lower()
            if "epoch" in text or "step" in text:
                return True
    return False


def _reads_after(check: Check, programs, path: str, call: Call) -> bool:
    """Files may be read before a background write ends: the function (or the one calling it) goes on to read,
    list, copy, load or upload files after the save -- itself or through project code -- or, for a save in a
    callback or helper, the code after the training call does (a later notebook cell counts)."""
    project = check.project
    places = [(path, call.scope, call.end)]
    places += [(p, caller.scope, caller.end) for p, caller in project.callers((path, call.scope))]
    places += [(p, trained.scope, trained.end) for program in programs
               for p, trained, _ in project.training_calls(program)
               if (p, trained.scope) != (path, call.scope)]
    return any(_reads_in(project, p, scope, after) for p, scope, after in places)


def _reads_in(project: Project, path: str, scope: int, after: int = -1, depth: int = 0,
              seen: Optional[set] = None) -> bool:
    """A call of the scope (past offset ``after``) reads files, directly or in the project code it runs."""
    seen = set() if seen is None else seen
    if (path, scope, after) in seen or depth > 3:
        return False
    seen.add((path, scope, after))
    for other in project.python[path].calls:
        if other.scope != scope or other.start <= after:
            continue
        if (other.method or other.callee.rsplit(".", 1)[-1]) in ms.FILE_READERS:
            return True
        if any(_reads_in(project, p, s, -1, depth + 1, seen) for p, s in project.targets(path, other)):
            return True
    return False


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
