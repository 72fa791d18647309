"""MSP103 sync-checkpoint-save: checkpoints written synchronously stall training."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

import libcst as cst

from ms_perflint.callargs import argument, callee_name, has_double_star, has_star_args
from ms_perflint.edits import append_keyword
from ms_perflint.rule import FixAvailability, FixSafety, Fix, Invalid, Rule, RuleDocs, Valid

CHECKPOINT_CONFIG = "mindspore.train.CheckpointConfig"
SAVE_CHECKPOINT = "mindspore.save_checkpoint"
#: Positional index of ``async_save`` in each signature (MindSpore 2.10).
ASYNC_SAVE_POSITION = {CHECKPOINT_CONFIG: 5, SAVE_CHECKPOINT: 3}
#: Callback methods that run every step or every epoch.
PER_STEP_CALLBACKS = ("step_end", "epoch_end", "on_train_step_end", "on_train_epoch_end")
#: Values of ``async_save`` that already save asynchronously.
ASYNC_VALUES = (True, "thread", "process")
#: Callee-name fragments that show a loop trains (step, gradient, optimizer, ``model.train``).
TRAINING_CALL_FRAGMENTS = ("train", "grad", "optim")
#: Dataset methods that start an epoch's iteration.
ITERATOR_CALLS = ("create_dict_iterator", "create_tuple_iterator")
#: Fragments of a ``for`` loop's iterable that show it walks a data set.
DATA_ITERABLE_FRAGMENTS = (*ITERATOR_CALLS, "dataset", "loader", "train")


@dataclass
class _PendingSave:
    """A ``save_checkpoint`` call in a method, decided once the class's call graph is known."""

    call: cst.Call
    class_node: cst.ClassDef
    method: str


class SyncCheckpointSave(Rule):
    """Report synchronous checkpoint saving where it runs repeatedly during training."""

    code = "MSP103"
    name = "sync-checkpoint-save"
    summary = "Checkpoints are saved synchronously, stalling training"
    fix_availability = FixAvailability.ALWAYS
    markers = ("CheckpointConfig", "save_checkpoint")
    docs = RuleDocs(
        what_it_does="""
            Finds checkpoints that are saved synchronously while training runs:
            `CheckpointConfig(...)` without `async_save` (or with `async_save=False`),
            and `mindspore.save_checkpoint(...)` without `async_save` where it runs
            repeatedly -- inside a training loop (one that iterates a dataset or calls a
            train step, gradient function or optimizer) or inside a Callback method that
            runs every step or epoch (`step_end`, `epoch_end`, `on_train_step_end`,
            `on_train_epoch_end`, and methods of the same class they call).
        """,
        why_bad="""
            A synchronous save blocks the training step until the whole checkpoint is
            serialised and written. With `async_save=True` MindSpore writes it from a
            background thread while the next steps run. Measured on ResNet/CIFAR-10:
            2200 img/s with synchronous saving, 2450 img/s with asynchronous saving.
        """,
        example="""
            from mindspore.train import CheckpointConfig

            config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=5)
        """,
        use_instead="""
            from mindspore.train import CheckpointConfig

            config = CheckpointConfig(save_checkpoint_steps=100, keep_checkpoint_max=5, async_save=True)
        """,
        fix_safety="""
            The fix appends `async_save=True`, following the call's layout (one argument
            per line stays one per line; a trailing comma stays). It is *safe* when the
            keyword is missing. Replacing an explicit `async_save=False` is *unsafe*: the
            author chose it, perhaps to read the file right after saving. The fix never
            writes `"process"`: it forks, and was up to 2x slower when measured.

            Not reported: `async_save=True`, `"thread"` or `"process"` (already
            asynchronous); a value the linter cannot know (`async_save=args.async_save`);
            a call with `**kwargs` that may carry it; a one-off `save_checkpoint` outside
            loops and callbacks; a loop that does not train (a conversion script saving one
            file per iteration).
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/train/mindspore.train.CheckpointConfig.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.save_checkpoint.html",
        ),
    )
    valid = (
        Valid(
            """
            from mindspore.train import CheckpointConfig
            config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)
            """,
            why="already asynchronous",
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig
            config = CheckpointConfig(save_checkpoint_steps=10, async_save="process")
            """,
        ),
        Valid(
            """
            from mindspore.train import CheckpointConfig
            def build(args, **kwargs):
                return CheckpointConfig(async_save=args.async_save), CheckpointConfig(**kwargs)
            """,
            why="unknown value, and **kwargs that may carry async_save",
        ),
        Valid(
            """
            import mindspore as ms
            def export(net):
                ms.save_checkpoint(net, "final.ckpt")
            """,
            why="a one-off save outside loops and callbacks",
        ),
        Valid(
            """
            import mindspore as ms
            for name in ["a", "b"]:
                params = ms.load_checkpoint(name + ".ckpt")
                ms.save_checkpoint(params, name + "_converted.ckpt")
            """,
            why="a conversion loop that does not train",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Callback
            class SaveAtEnd(Callback):
                def on_train_end(self, run_context):
                    ms.save_checkpoint(run_context.original_args().network, "last.ckpt")
            """,
            why="runs once, at the end of training",
        ),
        Valid(
            """
            class CheckpointConfig:
                pass
            config = CheckpointConfig()
            """,
            why="not MindSpore's class (and not MindSpore code)",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore.train import CheckpointConfig
            config = CheckpointConfig(save_checkpoint_steps=10)
            """,
            line=2,
            column=10,
            fixed="""
            from mindspore.train import CheckpointConfig
            config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)
            """,
        ),
        Invalid(
            """
            import mindspore as ms
            config = ms.train.callback.CheckpointConfig(
                save_checkpoint_steps=10,
                keep_checkpoint_max=5,
            )
            """,
            line=2,
            column=10,
            fixed="""
            import mindspore as ms
            config = ms.train.callback.CheckpointConfig(
                save_checkpoint_steps=10,
                keep_checkpoint_max=5,
                async_save=True,
            )
            """,
        ),
        Invalid(
            """
            from mindspore import train
            config = train.CheckpointConfig(keep_checkpoint_max=5, async_save=False)
            """,
            line=2,
            column=10,
            fixed="""
            from mindspore import train
            config = train.CheckpointConfig(keep_checkpoint_max=5, async_save=True)
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
                    ms.save_checkpoint(net, f"epoch_{epoch}.ckpt")
            """,
            line=6,
            column=9,
            fixed="""
            import mindspore as ms
            def train(net, dataset, train_step):
                for epoch in range(10):
                    for data, label in dataset.create_tuple_iterator():
                        train_step(data, label)
                    ms.save_checkpoint(net, f"epoch_{epoch}.ckpt", async_save=True)
            """,
        ),
        Invalid(
            """
            from mindspore import save_checkpoint
            from mindspore.train import Callback
            class SaveEveryEpoch(Callback):
                def epoch_end(self, run_context):
                    self._save(run_context.original_args())

                def _save(self, cb_params):
                    save_checkpoint(cb_params.train_network, "latest.ckpt")
            """,
            line=8,
            column=9,
            fixed="""
            from mindspore import save_checkpoint
            from mindspore.train import Callback
            class SaveEveryEpoch(Callback):
                def epoch_end(self, run_context):
                    self._save(run_context.original_args())

                def _save(self, cb_params):
                    save_checkpoint(cb_params.train_network, "latest.ckpt", async_save=True)
            """,
            message_contains="epoch_end",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._pending: List[_PendingSave] = []
        self._training_loops: Dict[int, bool] = {}

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified == CHECKPOINT_CONFIG:
            self._check_call(node, qualified, "CheckpointConfig saves checkpoints synchronously, stalling training")
        elif qualified == SAVE_CHECKPOINT:
            self._check_save_checkpoint(node)

    def _check_save_checkpoint(self, node: cst.Call) -> None:
        loop = next((loop for loop in reversed(self.context.loops()) if self._is_training_loop(loop)), None)
        if loop is not None:
            self._check_call(node, SAVE_CHECKPOINT, "save_checkpoint in a training loop blocks training at every save")
            return
        method = self.context.enclosing_method()
        owner = self.context.enclosing_class()
        if method is not None and owner is not None:
            self._pending.append(_PendingSave(node, owner, method.name.value))

    def finish(self) -> None:
        per_class: Dict[int, Dict[str, str]] = {}
        for pending in self._pending:
            reach = per_class.setdefault(id(pending.class_node), _callback_reach(pending.class_node))
            callback = reach.get(pending.method)
            if callback is not None:
                message = f"save_checkpoint in Callback.{callback} blocks training every {_period(callback)}"
                self._check_call(pending.call, SAVE_CHECKPOINT, message)

    def _check_call(self, node: cst.Call, qualified: str, message: str) -> None:
        arg = argument(node, "async_save", ASYNC_SAVE_POSITION[qualified])
        if arg is None:
            if has_double_star(node) or has_star_args(node):
                return
            fix = Fix(node, _append_async_save, FixSafety.SAFE, "Add `async_save=True`")
            self.report(node, f"{message}; pass async_save=True", fix)
            return
        value = self.context.value_of(arg.value)
        if value is False:
            fix = Fix(arg.value, lambda _: cst.Name("True"), FixSafety.UNSAFE, "Replace `async_save=False` with `True`")
            self.report(node, f"{message} (async_save=False); use async_save=True", fix)
        # True/"thread"/"process" are asynchronous; unknown and invalid values are not ours to judge.

    def _is_training_loop(self, loop: cst.CSTNode) -> bool:
        key = id(loop)
        if key not in self._training_loops:
            self._training_loops[key] = _TrainingLoopScan().trains(loop)
        return self._training_loops[key]


def _append_async_save(call: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(call, cst.Call)
    return append_keyword(call, "async_save", cst.Name("True"))


def _period(callback: str) -> str:
    return "step" if "step" in callback else "epoch"


class _TrainingLoopScan(cst.CSTVisitor):
    """Does a loop train? It iterates a data set or calls a train step, gradient or optimizer."""

    def __init__(self) -> None:
        self.found = False

    def trains(self, loop: cst.CSTNode) -> bool:
        if isinstance(loop, cst.For):
            iterable = cst.Module([]).code_for_node(loop.iter).lower()
            if any(fragment in iterable for fragment in DATA_ITERABLE_FRAGMENTS):
                return True
        loop.visit(self)
        return self.found

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        name = (callee_name(node) or "").lower()
        if any(fragment in name for fragment in TRAINING_CALL_FRAGMENTS) or name in ITERATOR_CALLS:
            self.found = True
        return not self.found


def _callback_reach(class_node: cst.ClassDef) -> Dict[str, str]:
    """Method name -> the per-step/epoch callback it runs under (itself, or a caller via ``self.x()``)."""
    methods = {s.name.value: s for s in class_node.body.body if isinstance(s, cst.FunctionDef)}
    reach: Dict[str, str] = {}
    for callback in PER_STEP_CALLBACKS:
        if callback not in methods:
            continue
        queue, seen = [callback], set()  # type: List[str], Set[str]
        while queue:
            name = queue.pop()
            if name in seen or name not in methods:
                continue
            seen.add(name)
            reach.setdefault(name, callback)
            queue.extend(_self_calls(methods[name]))
    return reach


def _self_calls(method: cst.FunctionDef) -> List[str]:
    """Names of ``self.<name>(...)`` calls in a method."""
    found: List[str] = []

    class _Collector(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
                found.append(func.attr.value)

    method.visit(_Collector())
    return found

