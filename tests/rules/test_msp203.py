"""MSP203 partial-last-batch-in-graph-training: a kept short last batch in a dataset that feeds compiled
training, followed from the training call back to its ``.batch(...)`` -- and the look-alikes: dropped
remainders, evaluation datasets, PyNative training, datasets that never reach training."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

from ms_perflint.findings import FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp203_partial_last_batch_in_graph_training import PartialLastBatchInGraphTraining
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import write_project

RULE = [PartialLastBatchInGraphTraining]

#: A model-zoo style script: one ``create_dataset`` for training and evaluation, ``Model.train`` in graph mode.
ZOO = """
import argparse
import mindspore as ms
import mindspore.dataset as ds
from mindspore.train import Model

def create_dataset(path, batch_size=32, training=True, drop_remainder={drop}):
    data = ds.ImageFolderDataset(path, shuffle=training)
    data = data.map(operations=transforms(training), input_columns="image")
    data = data.batch(batch_size, drop_remainder=drop_remainder)
    return data.repeat(1)

if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
    train = create_dataset("train/", 256{train_args})
    valid = create_dataset("val/", 256, training=False)
    model = Model(net, loss, opt, metrics={{"acc"}})
    model.train(90, train)
    print(model.eval(valid))
"""


def lint(code: str, version: Optional[str] = None):
    settings = Settings(select=("MSP203",), mindspore_version=version)
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", settings, rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP203"]


def at(code: str, version: Optional[str] = None) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code, version)]


# --- reported ------------------------------------------------------------------------------------------


def test_a_missing_drop_remainder_gets_an_unsafe_fix_in_the_calls_layout():
    code = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model
        ms.set_context(mode=ms.GRAPH_MODE)
        data = ds.GeneratorDataset(source, ["image", "label"], shuffle=True)
        data = data.map(operations=ops, input_columns="image").batch(
            32,
            num_parallel_workers=8,
        )
        Model(net, loss, opt).train(10, data, dataset_sink_mode=True)
    """
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(6, 8)]
    assert found[0].fix is not None and found[0].fix.safety is FixSafety.UNSAFE
    assert "Model.train at train.py:10" in found[0].message
    fixed = apply_fix_text(textwrap.dedent(code).lstrip("\n"), [found[0].fix])
    assert "    num_parallel_workers=8,\n    drop_remainder=True,\n)" in fixed


def test_the_training_datasets_context_decides_a_parameter_of_the_shared_builder():
    found = lint(ZOO.format(drop="False", train_args=""))
    assert [(f.line, f.column + 1) for f in found] == [(9, 12)]
    assert "drop_remainder configured False" in found[0].message
    assert found[0].fix is None  # the value is a parameter: change it for the training dataset only
    assert at(ZOO.format(drop="False", train_args=", drop_remainder=True")) == []
    assert at(ZOO.format(drop="True", train_args="")) == []


def test_a_literal_false_is_replaced():
    code = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore import nn
        ms.set_context(mode=ms.GRAPH_MODE)
        data = ds.MnistDataset("mnist/train").batch(batch_size=64, drop_remainder=False)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
        for epoch in range(5):
            for image, label in data.create_tuple_iterator():
                step(image, label)
    """
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(5, 8)]
    assert "training loop at train.py:8" in found[0].message
    assert "batch(batch_size=64, drop_remainder=True)" in apply_fix_text(textwrap.dedent(code).lstrip("\n"),
                                                                          [found[0].fix])


def test_a_jit_step_in_pynative_compiles_per_shape_too():
    assert at("""
        import mindspore as ms
        import mindspore.dataset as ds
        grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
        @ms.jit
        def train_step(x, y):
            loss, grads = grad_fn(x, y)
            optimizer(grads)
            return loss
        data = ds.NumpySlicesDataset(arrays, ["x", "y"], shuffle=True).batch(64)
        for epoch in range(10):
            for step, (x, y) in enumerate(data.create_tuple_iterator()):
                train_step(x, y)
    """) == [(9, 8)]


def test_a_1x_release_with_no_mode_is_graph_mode():
    code = """
        import mindspore.dataset as ds
        from mindspore.train import Model
        data = ds.Cifar10Dataset("cifar/").batch(128)
        Model(net, loss, opt).train(10, data)
    """
    assert at(code, version="1.10.1") == [(3, 8)]
    assert at(code, version="2.2.0") == []  # 2.x runs PyNative by default
    assert at(code) == []  # unknown release: either


def test_a_builder_in_another_file(tmp_path: Path):
    root = write_project(tmp_path, {
        "src/dataset.py": """
            import mindspore.dataset as ds
            def create_dataset(path, batch_size, is_training=True):
                data = ds.MindDataset(path, shuffle=is_training)
                if is_training:
                    data = data.map(operations=augment, input_columns="image")
                data = data.batch(batch_size)
                return data
        """,
        "train.py": """
            from mindspore import context
            from mindspore.train import Model
            from src.dataset import create_dataset
            if __name__ == "__main__":
                context.set_context(mode=context.GRAPH_MODE)
                Model(net, loss, opt).train(10, create_dataset("train.mindrecord", 32))
        """,
    })
    results = check_folder(str(root), Settings(select=("MSP203",)), rules=RULE)
    found = {path: [(f.line, f.column + 1) for f in r.findings] for path, r in results.items() if r.findings}
    assert found == {"src/dataset.py": [(6, 12)]}


def test_a_launch_command_for_gpu_does_not_decide_the_ascend_runs(tmp_path: Path):
    # the model zoo's layout: the config says drop_remainder False; only the GPU launch scripts pass True
    files = {
        "src/dataset.py": """
            import mindspore.dataset as ds
            def create_dataset(path, batch_size, drop_remainder=True):
                return ds.MindDataset(path).batch(batch_size, drop_remainder=drop_remainder)
        """,
        "train.py": """
            import argparse
            import ast
            from mindspore import context
            from mindspore.train import Model
            from src.dataset import create_dataset
            parser = argparse.ArgumentParser()
            parser.add_argument("--device_target", default="Ascend")
            parser.add_argument("--drop_remainder", type=ast.literal_eval, default=False)
            args = parser.parse_args()
            context.set_context(mode=context.GRAPH_MODE, device_target=args.device_target)
            data = create_dataset("train.mindrecord", 32, drop_remainder=args.drop_remainder)
            Model(net, loss, opt).train(10, data)
        """,
        "scripts/run_train_gpu.sh": """
            CUDA_VISIBLE_DEVICES=0 python ../train.py --device_target='GPU' \\
                --drop_remainder=True > train.log 2>&1 &
        """,
        "scripts/run_train_ascend.sh": """
            python ../train.py --device_target=Ascend > train.log 2>&1 &
        """,
    }
    root = write_project(tmp_path / "zoo", files)
    results = check_folder(str(root), Settings(select=("MSP203",)), rules=RULE)
    found = {path: [f.line for f in r.findings] for path, r in results.items() if r.findings}
    assert found == {"train.py": [8]}  # the argparse default the Ascend runs keep, naming the helper's batch()
    assert "src/dataset.py:3" in results["train.py"].findings[0].message and results["train.py"].findings[0].fix is None
    # the Ascend launch command passing True (or a GPU command naming no device) decides the Ascend runs again
    for script, text in (("scripts/run_train_ascend.sh", "python ../train.py --device_target=Ascend --drop_remainder=True\n"),
                         ("scripts/run_train_gpu.sh", "python ../train.py --drop_remainder=True\n")):
        root = write_project(tmp_path / script.replace("/", "-"), {**files, script: text})
        results = check_folder(str(root), Settings(select=("MSP203",)), rules=RULE)
        assert not any(r.findings for r in results.values()), script


# --- silent ---------------------------------------------------------------------------------------------


def test_drop_remainder_true_and_unknown_values_are_silent():
    for written in ("drop_remainder=True", "True", "drop_remainder=args.drop", "**batch_kwargs"):
        assert at(f"""
            import mindspore as ms
            import mindspore.dataset as ds
            from mindspore.train import Model
            ms.set_context(mode=ms.GRAPH_MODE)
            data = ds.GeneratorDataset(source, ["x", "y"]).batch(32, {written})
            Model(net, loss, opt).train(10, data)
        """) == [], written


def test_evaluation_datasets_and_the_valid_dataset_of_fit_are_silent():
    assert at("""
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model
        ms.set_context(mode=ms.GRAPH_MODE)
        train = ds.GeneratorDataset(source, ["x", "y"]).batch(32, drop_remainder=True)
        valid = ds.GeneratorDataset(held_out, ["x", "y"]).batch(32)
        model = Model(net, loss, opt, metrics={"acc"})
        model.fit(10, train, valid)
        for x, y in valid.create_tuple_iterator():
            print(net(x))
    """) == []


def test_pynative_without_jit_and_gpu_programs_are_silent():
    pynative = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model
        ms.set_context(mode=ms.PYNATIVE_MODE)
        data = ds.GeneratorDataset(source, ["x", "y"]).batch(32)
        Model(net, loss, opt).train(10, data)
    """
    assert at(pynative) == []
    assert at(pynative.replace("PYNATIVE_MODE)", "GRAPH_MODE, device_target=\"GPU\")")) == []


def test_a_batch_of_one_and_an_unbatched_dataset_are_silent():
    assert at("""
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model
        ms.set_context(mode=ms.GRAPH_MODE)
        data = ds.GeneratorDataset(source, ["x", "y"]).batch(1)
        Model(net, loss, opt).train(10, data)
        Model(net, loss, opt).train(10, ds.GeneratorDataset(source, ["x", "y"]))
    """) == []


def test_a_validation_branch_of_the_builder_is_silent():
    """mingspore-yolox/yolox.ipynb: ``if is_training: ... drop_remainder=True`` / ``else: drop_remainder=False``;
    the training call passes ``is_training=True``."""
    assert at("""
        import mindspore as ms
        import mindspore.dataset as de
        from mindspore.train import Model
        def create_yolox_dataset(image_dir, batch_size, is_training=True):
            if is_training:
                ds = de.GeneratorDataset(train_source, ["image", "labels"], shuffle=True)
                ds = ds.batch(batch_size, drop_remainder=True)
            else:
                ds = de.GeneratorDataset(val_source, ["image", "image_shape"], shuffle=False)
                ds = ds.batch(batch_size, drop_remainder=False)
            ds = ds.repeat(1)
            return ds
        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            data = create_yolox_dataset("coco/train2017", 8, is_training=True)
            Model(net, loss, opt).train(300, data, dataset_sink_mode=True)
    """) == []


def test_a_factory_defined_again_later_is_not_the_one_training_called():
    """U-Net notebook: create_dataset is defined for training (dropping the remainder), then defined again in a
    later cell for the test set; the training cell ran the first definition."""
    code = """
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model

        def create_dataset(path, batch_size):
            return ds.ImageFolderDataset(path).batch(batch_size, drop_remainder={first})

        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        train = create_dataset("train/", 32)
        Model(net, loss, opt).train(10, train)

        def create_dataset(path, batch_size):
            return ds.ImageFolderDataset(path).batch(batch_size)

        test = create_dataset("test/", 1)
    """
    assert at(code.format(first="True")) == []
    assert at(code.format(first="False")) == [(6, 12)]
