"""MSP202 pynative-training-without-jit: PyNative training steps with nothing compiled, explicit or by 2.x's
default mode -- and the look-alikes that must stay silent (jit already, graph mode, unknown releases, GPU)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

from ms_perflint.rules.msp202_pynative_training_without_jit import PynativeTrainingWithoutJit
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import write_project

RULE = [PynativeTrainingWithoutJit]

#: A custom training loop: value_and_grad + optimizer, the step called per batch.
LOOP = """
import mindspore as ms
from mindspore import nn
{mode}
net = Net()
optimizer = nn.Adam(net.trainable_params(), 1e-3)
grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
{decorator}
def train_step(x, y):
    loss, grads = grad_fn(x, y)
    optimizer(grads)
    return loss
for epoch in range(10):
    for x, y in dataset.create_tuple_iterator():
        train_step(x, y)
"""


def lint(code: str, version: Optional[str] = None):
    settings = Settings(select=("MSP202",), mindspore_version=version,
                        mindspore_version_source="inferred from requirements.txt:1 (mindspore==2.3.1)" if version else "")
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", settings, rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP202"]


def at(code: str, version: Optional[str] = None) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code, version)]


def loop(mode: str = "", decorator: str = "") -> str:
    return LOOP.format(mode=mode, decorator=decorator)


# --- reported ------------------------------------------------------------------------------------------


def test_an_explicit_pynative_custom_loop_is_reported_at_the_mode_without_a_fix():
    found = lint(loop("ms.set_context(mode=ms.PYNATIVE_MODE)"))
    assert [(f.line, f.column + 1) for f in found] == [(3, 1)]
    assert found[0].fix is None
    assert "Training runs in PyNative mode and no step is compiled with mindspore.jit" in found[0].message
    assert "@mindspore.jit" in found[0].message


def test_pynative_from_an_argparse_default_names_where_it_is_written():
    found = lint("""
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", type=int, default=1, help="0 graph, 1 pynative")
        args = parser.parse_args()
        ms.set_context(mode=args.mode)
        Model(net, loss, opt).train(10, data)
    """)
    assert [(f.line, f.column + 1) for f in found] == [(7, 1)]
    assert "argparse default at train.py:5" in found[0].message


def test_a_commented_out_graph_mode_says_pynative_was_chosen_on_purpose():
    found = lint("""
        from mindspore import context, nn
        from mindspore.train import Model
        if __name__ == "__main__":
            # context.set_context(mode=context.GRAPH_MODE, device_target="Ascend")
            context.set_context(mode=context.PYNATIVE_MODE, device_target="Ascend")
            Model(net, nn.SoftmaxCrossEntropyWithLogits(), opt).train(5, data)
    """)
    assert [(f.line, f.column + 1) for f in found] == [(5, 5)]
    assert "chosen on purpose (GRAPH_MODE is commented out at line 4)" in found[0].message
    assert found[0].fix is None


def test_no_mode_on_a_2x_release_is_reported_at_the_training_call():
    code = """
        from mindspore.train import Model
        if __name__ == "__main__":
            model = Model(net, loss, opt)
            model.train(10, data)
    """
    found = lint(code, version="2.3.1")
    assert [(f.line, f.column + 1) for f in found] == [(4, 5)]
    assert "the default since MindSpore 2.0" in found[0].message
    assert "MindSpore 2.3.1 per requirements.txt:1 (mindspore==2.3.1)" in found[0].message


def test_one_finding_per_program_and_only_the_ascend_branch():
    assert at("""
        from mindspore import context, nn
        from mindspore.train import Model
        def main(args):
            if args.device == "CPU":
                context.set_context(mode=context.PYNATIVE_MODE, device_target="CPU")
            elif args.device == "Ascend":
                context.set_context(mode=context.PYNATIVE_MODE, device_target="Ascend")
            else:
                context.set_context(mode=context.PYNATIVE_MODE, device_target="GPU")
            Model(net, loss, opt).train(300, data)
        if __name__ == "__main__":
            main(parse())
    """) == [(7, 9)]


# --- silent ---------------------------------------------------------------------------------------------


def test_a_step_compiled_with_jit_is_silent():
    assert at(loop("ms.set_context(mode=ms.PYNATIVE_MODE)", "@ms.jit")) == []
    assert at(loop("ms.set_context(mode=ms.PYNATIVE_MODE)", '@ms.jit(jit_level="O1")')) == []
    assert at(loop("ms.set_context(mode=ms.PYNATIVE_MODE)") + "train_step = ms.jit(train_step)\n") == []


def test_a_cell_whose_construct_is_compiled_is_silent():
    assert at("""
        import mindspore as ms
        from mindspore import nn
        ms.set_context(mode=ms.PYNATIVE_MODE)
        class TrainStep(nn.TrainOneStepCell):
            @ms.jit
            def construct(self, x, y):
                return super().construct(x, y)
        step = TrainStep(nn.WithLossCell(net, loss), opt)
        for x, y in data:
            step(x, y)
    """) == []


def test_graph_mode_and_mixed_configurations_are_silent():
    assert at(loop("ms.set_context(mode=ms.GRAPH_MODE)")) == []
    assert at("""
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", type=int, default=0, help="0 graph, 1 pynative")
        args = parser.parse_args()
        ms.set_context(mode=args.mode)
        Model(net, loss, opt).train(10, data)
    """) == []
    assert at("""
        import mindspore as ms
        from mindspore.train import Model
        def setup(context_config):
            ms.set_context(**context_config)
        setup(load_yaml())
        Model(net, loss, opt).train(10, data)
    """) == []


def test_no_mode_with_no_release_declared_is_the_current_release_unless_the_program_uses_a_removed_api():
    code = """
        from mindspore import nn
        from mindspore.train import Model
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(1024, 1024)
            def construct(self, x):
                return self.fc(x)
        if __name__ == "__main__":
            Model(Net(), loss, opt).train(10, data)
    """
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(10, 5)]
    assert "MindSpore 2.10.0: no release is declared" in found[0].message
    assert at(code, version="1.10.1") == []
    # the release taken when none is declared needs the trained network in view: a network the linter cannot see
    # may be compiled where it is defined; a declared 2.x release says so alone
    driver = """
        from mindspore.train import Model
        if __name__ == "__main__":
            Model(net, loss, opt).train(10, data)
    """
    assert at(driver) == []
    assert at(driver, version="2.3.1") == [(3, 5)]
    # py_transforms is gone from 2.10 (its import fails there): the program runs on an older release, which one
    # is unknown (2.x releases still had it), so PyNative is not assumed
    assert at("import mindspore.dataset.vision.py_transforms as P\n" + textwrap.dedent(code)) == []
    # mindspore.nn.transformer moved to MindFormers in 2.0: a 1.x program, GRAPH_MODE by default
    assert at("from mindspore.nn.transformer import TransformerEncoder\n" + textwrap.dedent(code)) == []


def test_gpu_programs_gradients_without_an_optimizer_and_mindformers_trainers_are_silent():
    assert at("""
        import mindspore as ms
        from mindspore.train import Model
        ms.set_context(mode=ms.PYNATIVE_MODE, device_target="GPU")
        Model(net, loss, opt).train(10, data)
    """) == []
    assert at("""
        import mindspore as ms
        ms.set_context(mode=ms.PYNATIVE_MODE)
        grad_fn = ms.grad(net)
        saliency = grad_fn(image)
        print(saliency.asnumpy())
    """) == []
    assert at("""
        import mindspore as ms
        from mindformers import Trainer
        ms.set_context(mode=ms.PYNATIVE_MODE)
        Trainer(task="text_generation", model="gpt2", train_dataset=data).train()
    """) == []


def test_an_inference_script_next_to_a_notebook_is_not_a_training_program(tmp_path: Path):
    """vogue/src/vogue_infer.py imported its own package folder ``vogue``, which resolved to the notebook
    vogue/vogue.ipynb (module name ``vogue.vogue``): the inference script seemed to run the notebook's training."""
    root = write_project(tmp_path, {
        "vogue/vogue.ipynb": "",
        "vogue/src/utils/ops.py": """
            from . import helpers
            import mindspore as ms
        """,
        "vogue/src/utils/helpers.py": "X = 1\n",
        "vogue/src/infer.py": """
            import mindspore as ms
            from utils.ops import helpers
            if __name__ == "__main__":
                ms.set_context(mode=ms.PYNATIVE_MODE)
                print(generator(z))
        """,
    })
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 1, "source": [
        "import mindspore as ms\n", "from mindspore import nn\n", "ms.set_context(mode=ms.PYNATIVE_MODE)\n",
        "step = nn.TrainOneStepCell(net, opt)\n", "for x, y in data:\n", "    step(x, y)\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    import json

    (root / "vogue" / "vogue.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    results = check_folder(str(root), Settings(select=("MSP202",)), rules=RULE)
    reported = {path for path, result in results.items() if result.findings}
    assert reported == {"vogue/vogue.ipynb"}


def test_a_network_that_reads_tensors_on_the_host_runs_pynative_on_purpose():
    """MoCo/src/model/moco.py: the queue pointer is read with ``int(self.queue_ptr)`` in a method construct calls;
    compiled, that read fails -- jit needs a rewrite first, not a finding."""
    assert at("""
        import mindspore
        from mindspore import context, nn, ops
        class ModelMoCo(nn.Cell):
            def __init__(self, dim=128, k=4096):
                super().__init__()
                self.encoder_q = nn.Dense(512, dim)
                self.queue = mindspore.Parameter(ops.zeros((dim, k), mindspore.float32), requires_grad=False)
                self.queue_ptr = mindspore.Parameter(ops.zeros(1, mindspore.float32), requires_grad=False)
            def _dequeue_and_enqueue(self, keys):
                ptr = int(self.queue_ptr)
                self.queue[:, ptr:ptr + keys.shape[0]] = keys.T
            def construct(self, im1, im2):
                q = self.encoder_q(im1)
                self._dequeue_and_enqueue(q)
                return q.sum()
        if __name__ == "__main__":
            context.set_context(mode=context.PYNATIVE_MODE, device_target="Ascend")
            models = ModelMoCo()
            step = nn.TrainOneStepCell(models, nn.SGD(models.trainable_params(), 0.06))
            for im1, im2 in data:
                step(im1, im2)
    """) == []


def test_a_held_network_that_draws_numpy_noise_in_construct_runs_pynative_on_purpose():
    """vogue/src: a StyleGAN synthesis layer draws its noise with ``np.random.randn`` in construct (compiled, the
    noise would be frozen into the graph); the loss cell holds the generator's parts passed to it."""
    assert at("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, Tensor
        class SynthesisLayer(nn.Cell):
            def __init__(self, resolution):
                super().__init__()
                self.resolution = resolution
                self.conv = nn.Conv2d(8, 8, 3)
            def construct(self, x):
                noise = Tensor(np.random.randn(x.shape[0], 1, self.resolution, self.resolution), ms.float32)
                return self.conv(x) + noise
        class Generator(nn.Cell):
            def __init__(self):
                super().__init__()
                self.synthesis = SynthesisLayer(64)
            def construct(self, x):
                return self.synthesis(x)
        class WithLoss(nn.Cell):
            def __init__(self, synthesis, loss):
                super().__init__()
                self.synthesis = synthesis
                self.loss = loss
            def construct(self, x, y):
                return self.loss(self.synthesis(x), y)
        if __name__ == "__main__":
            ms.set_context(mode=ms.PYNATIVE_MODE)
            generator = Generator()
            net = WithLoss(generator.synthesis, nn.MSELoss())
            step = nn.TrainOneStepCell(net, nn.Adam(generator.trainable_params()))
            for x, y in data:
                step(x, y)
    """) == []


def test_shape_arithmetic_in_construct_compiles_and_is_still_reported():
    assert at("""
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 10)
            def construct(self, x):
                half = int(x.shape[0] / 2)
                return self.fc(x[:half])
        if __name__ == "__main__":
            ms.set_context(mode=ms.PYNATIVE_MODE)
            net = Net()
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params()))
            for x, y in data:
                step(x, y)
    """) == [(11, 5)]


def test_a_default_mode_finding_goes_to_the_entry_s_call_of_the_project_step_not_inside_it(tmp_path):
    from tests.conftest import check_project, write_project

    root = write_project(tmp_path, {
        "src/__init__.py": "",
        "src/steps.py": """
            import mindspore.nn as nn
            import mindspore.ops as ops

            class TrainStep(nn.Cell):
                def __init__(self, network, optimizer):
                    super().__init__()
                    self.network = network
                    self.optimizer = optimizer
                    self.weights = optimizer.parameters
                    self.grad = ops.GradOperation(get_by_list=True)

                def construct(self, x):
                    loss = self.network(x)
                    grads = self.grad(self.network, self.weights)(x)
                    self.optimizer(grads)
                    return loss
        """,
        "train.py": """
            import mindspore.nn as nn
            from src.steps import TrainStep

            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(64, 64)

                def construct(self, x):
                    return self.fc(x)

            if __name__ == "__main__":
                net = Net()
                step = TrainStep(net, nn.Adam(net.trainable_params()))
                for x in data:
                    step(x)
        """,
    })
    found = check_project(root)
    assert [item for item in found.get("train.py", []) if item[0] == "MSP202"] == [("MSP202", 14, 12)]
    assert not [item for item in found.get("src/steps.py", []) if item[0] == "MSP202"]


def test_fine_tuning_a_hub_transformer_is_silent():
    # mindnlp's models are written for PyNative: compiling them is the library's business, not the script's
    code = """
        import mindspore as ms
        from mindnlp.transformers import AutoModelForSequenceClassification
        if __name__ == "__main__":
            ms.set_context(mode=ms.PYNATIVE_MODE)
            model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
            optimizer = ms.nn.AdamWeightDecay(model.trainable_params(), 2e-5)
            grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
            for batch in data:
                loss, grads = grad_fn(batch)
                optimizer(grads)
    """
    assert at(code) == []
    assert at(code.replace('AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)',
                           "Net()")) != []


def test_a_jit_compiled_optimizer_does_not_compile_the_train_step():
    # mindface's Adan: @ms_function on the optimizer's construct compiles the update; the forward and backward of
    # the PyNative training still run op by op
    code = """
        import mindspore as ms
        from mindspore import nn
        from mindspore.train import Model
        class Adan(nn.Optimizer):
            @ms.jit
            def construct(self, gradients):
                return gradients
        ms.set_context(mode=ms.PYNATIVE_MODE)
        net = Net()
        Model(net, loss, Adan(net.trainable_params(), 1e-3)).train(10, data)
    """
    assert at(code) == [(8, 1)]
    # a jit on a function the program calls still counts as compiling (the rule cannot tell what it compiles)
    assert lint(code.replace("class Adan(nn.Optimizer):", "class Adan(nn.Cell):")) == []


def test_a_gradient_operator_a_library_builds_when_imported_makes_no_program_train(tmp_path):
    # mindtorch's autograd module builds ``grad_ = GradOperation(False, True, False)`` at import: an inference demo
    # importing it trains nothing, and the module itself is no script
    (tmp_path / "autograd.py").write_text(
        "from mindspore.ops.composite import GradOperation\n"
        "grad_ = GradOperation(False, True, False)\n")
    (tmp_path / "demo.py").write_text(
        "import autograd\n"
        "from net import Net\n"
        "if __name__ == '__main__':\n"
        "    print(Net()(x))\n")
    (tmp_path / "net.py").write_text(
        "import mindspore.nn as nn\n"
        "class Net(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Dense(4, 4)\n"
        "    def construct(self, x):\n"
        "        return self.fc(x)\n")
    found = check_folder(str(tmp_path), Settings(select=("MSP202",)), rules=RULE)
    assert [f for result in found.values() for f in result.findings] == []
    # the same operator built in a training script's own module scope still trains
    (tmp_path / "train.py").write_text(
        "import mindspore.ops.composite as C\n"
        "from mindspore import nn\n"
        "from net import Net\n"
        "net = Net()\n"
        "opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)\n"
        "grad = C.GradOperation(get_by_list=True)\n"
        "for x in data:\n"
        "    opt(grad(net, opt.parameters)(x))\n")
    found = check_folder(str(tmp_path), Settings(select=("MSP202",)), rules=RULE)
    assert [(path, f.code) for path, result in found.items() for f in result.findings] == [("train.py", "MSP202")]


def test_a_jit_compiled_helper_method_of_a_cell_does_not_compile_the_train_step():
    # Pix2PixHD: ``@ms.jit()`` on the network's one_hot_encode compiles that helper; the step runs op by op
    helper = """
class Net(nn.Cell):
    @ms.jit()
    def one_hot_encode(self, label):
        return label * 2
    def construct(self, x):
        return self.one_hot_encode(x)
"""
    code = loop("ms.set_context(mode=ms.PYNATIVE_MODE)").replace("from mindspore import nn\n",
                                                                "from mindspore import nn\n" + helper, 1)
    assert len(at(code)) == 1
    # the same decorator on construct, or on a method that runs the step, compiles it
    assert at(code.replace("    @ms.jit()\n", "").replace("    def construct(", "    @ms.jit\n    def construct(")) == []
    stepping = code.replace("        return label * 2", "        return self.optimizer(self.grad_fn(label))")
    assert at(stepping) == []


#: A train-step cell defined inside the function that trains with it, as notebooks write it.
NESTED_STEP = """
import mindspore as ms
from mindspore import nn, ops

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2, 2)

    def construct(self, x):
        return self.fc(x)

def train(model, x, y, epochs):
    loss_fn = nn.MSELoss()
    optimizer = nn.RMSProp(model.trainable_params(), learning_rate=0.01)

    class TrainStep(nn.Cell):
        def __init__(self, network, optimizer):
            super().__init__(auto_prefix=False)
            self.network = network
            self.optimizer = optimizer
            self.grad = ops.value_and_grad(self.forward_fn, None, network.trainable_params())

        def forward_fn(self, x, y):
            return loss_fn(self.network(x), y)

        def construct(self, x, y):
            loss, grads = self.grad(x, y)
            self.optimizer(grads)
            return loss

    step = TrainStep(model, optimizer)
    for epoch in range(epochs):
        step(x, y)

{main}
"""


def test_a_train_step_cell_defined_in_the_training_function_is_a_training_program():
    # A class defined in a function was no name its calls could be followed to: the program trained nothing.
    code = NESTED_STEP.format(main="train(Net(), x, y, 100000)")
    assert at("import mindspore as ms\nms.set_context(mode=ms.PYNATIVE_MODE)\n" + code) == [(2, 1)]
    guarded = NESTED_STEP.format(main='if __name__ == "__main__":\n    train(Net(), x, y, 100000)')
    assert len(at(guarded)) == 1  # 2.x's default mode, reported at the step
    assert at(guarded.replace("    class TrainStep(nn.Cell):", "    @ms.jit_class\n    class TrainStep(nn.Cell):")
              .replace("        def construct(self, x, y):", "        @ms.jit\n        def construct(self, x, y):")) == []


def test_a_short_run_of_a_small_network_is_a_demo_not_worth_compiling():
    from tests.rules.test_msp401 import DEMO

    assert lint(DEMO.format(width=64, steps=300), version="2.3.1") == []
    assert len(lint(DEMO.format(width=64, steps=5000), version="2.3.1")) == 1
