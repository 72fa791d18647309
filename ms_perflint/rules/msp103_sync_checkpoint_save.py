"""MSP103 sync-checkpoint-save: checkpoints written synchronously, over and over, while training."""

from __future__ import annotations

from typing import List, Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, LIT, OP, PARAM, Call, Value, YamlFacts, YamlMapping
from ms_perflint.findings import FixAvailability, FixSafety, TextEdit, Fix
from ms_perflint.project.model import Project, ScopeRef, is_test_file
from ms_perflint.project.training import Training
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
            when the same function then reads, lists, copies, uploads or loads files (`os.listdir`,
            `shutil.copy`, `load_checkpoint`, an OBS upload): the background write may not have
            finished. Replacing an explicit `async_save=False` is unsafe too: the author chose it. The
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
            - a `CheckpointConfig` that never reaches a `ModelCheckpoint` (a config built and unused);
            - a save interval that covers the whole run (`save_checkpoint_steps=steps_per_epoch * epochs`):
              one save at the end does not slow training;
            - a save guarded to run once (`if epoch == epochs - 1:`), a save in `on_train_end`;
            - loops that do not train (a conversion loop that saves one file per iteration);
            - YAML configs whose `run_mode` is `predict` or `eval`.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/train/mindspore.train.CheckpointConfig.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.save_checkpoint.html",
        ),
    )
    valid = (
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
        training = Training(project)
        for path, facts in sorted(project.python.items()):
            for call in facts.calls:
                qualified = project.qualified(path, call) if call.callee else ""
                if qualified == ms.CHECKPOINT_CONFIG:
                    self._config(check, training, path, call)
                elif qualified == ms.SAVE_CHECKPOINT:
                    self._save(check, training, path, call)
        for path, facts in sorted(project.yaml.items()):
            if not is_test_file(path):
                self._yaml(check, path, facts)

    # --- CheckpointConfig ------------------------------------------------------------------------

    def _config(self, check: Check, training: Training, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.CHECKPOINT_CONFIG)
        if state not in (MISSING, FALSE):
            return
        project = check.project
        callbacks = [(p, c) for p, c in _model_checkpoints(project, path, call)
                     if any(program.reaches(p, c.scope) for program in project.training_programs())]
        if not callbacks or _saves_once(call):
            return
        callback_path, callback = callbacks[0]
        reads = _reads_after(project, callback_path, callback)
        fix = _fix(call, state, argument, reads)
        said = "(async_save=False)" if state == FALSE else "without async_save"
        message = f"CheckpointConfig {said} makes the ModelCheckpoint callback save synchronously, stalling training"
        check.report(self.code, path, call, _with_advice(message, reads), fix)

    # --- save_checkpoint -------------------------------------------------------------------------

    def _save(self, check: Check, training: Training, path: str, call: Call) -> None:
        state, argument = _async_state(call, ms.SAVE_CHECKPOINT)
        if state not in (MISSING, FALSE):
            return
        project = check.project
        if not any(program.reaches(path, call.scope) for program in project.training_programs()):
            return
        where = _repeated_in_training(project, training, path, call)
        if where is None or _guarded_once(call):
            return
        reads = _reads_after(project, path, call)
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
            flag = mapping.entries.get("async_save")
            if flag is None:
                fix = _yaml_insert(mapping)
                message = f"{kind.data} saves checkpoints synchronously, stalling training; add async_save: True"
                check.report(self.code, path, kind, message, fix)
            elif flag.data is False:
                fix = replace_value(flag, "True", FixSafety.UNSAFE, FIX_DESCRIPTION) if "\n" not in flag.text else None
                message = f"{kind.data} saves checkpoints synchronously (async_save: {flag.text}); use async_save: True"
                check.report(self.code, path, flag, message, fix)


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


def _saves_once(call: Call) -> bool:
    """``save_checkpoint_steps=steps_per_epoch * epochs``: the interval covers the whole run."""
    steps = call.argument(ms.SAVE_STEPS.keyword, ms.SAVE_STEPS.position)
    return steps is not None and steps.kind == OP and steps.data == "*" and "epoch" in steps.text.lower()


def _repeated_in_training(project: Project, training: Training, path: str, call: Call) -> Optional[str]:
    """Where a save runs again and again during training (for the message), or None."""
    if set(call.loops) & training.training_loops(path):
        return "a training loop"
    per_step = _per_step_method(project, (path, call.scope))
    if per_step:
        return per_step
    for caller_path, caller in project.callers((path, call.scope)):
        if set(caller.loops) & training.training_loops(caller_path):
            return f"{project.python[path].scopes[call.scope].name}, called from a training loop"
        method = _per_step_method(project, (caller_path, caller.scope))
        if method:
            return f"{project.python[path].scopes[call.scope].name}, called from {method}"
    return None


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


def _reads_after(project: Project, path: str, call: Call) -> bool:
    """The function goes on to read, list, copy, load or upload files after ``call``."""
    for other in project.python[path].calls:
        if other.scope != call.scope or other.start <= call.end:
            continue
        name = other.method or other.callee.rsplit(".", 1)[-1]
        if name in ms.FILE_READERS:
            return True
    return False


def _fix(call: Call, state: str, argument: Optional[Value], reads: bool) -> Optional[Fix]:
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
