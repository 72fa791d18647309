"""MSP103 sync-checkpoint-save: saves worth making asynchronous, and the look-alikes from real code that are not.

Each silent case below was a finding on the precision benchmark's development set that its owner would not act
on (a LeNet checkpoint, a save every 10,000 steps, a network whose size the old count took for zero).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Tuple

import pytest

from ms_perflint.findings import FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp103_sync_checkpoint_save import SyncCheckpointSave
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import write_project

RULE = [SyncCheckpointSave]

#: A network of 4.2 M parameters (two Dense layers): big enough for its saves to matter.
BIG_NET = """
import mindspore.nn as nn

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2048, 2048)
        self.fc2 = nn.Dense(2048, 10)

    def construct(self, x):
        return self.fc2(self.fc1(x))
"""

MODEL_CHECKPOINT = """
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

if __name__ == "__main__":
    net = {network}
    config = CheckpointConfig(save_checkpoint_steps={steps})
    model = Model(net, loss_fn=loss, optimizer=opt)
    model.train(90, dataset, callbacks=[ModelCheckpoint(prefix="net", config=config)])
"""


def lint(code: str):
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP103"]


def lines(code: str) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code)]


def with_checkpoint(network: str, steps: str = "100", prelude: str = BIG_NET) -> str:
    return prelude + MODEL_CHECKPOINT.format(network=network, steps=steps)


# --- reported ------------------------------------------------------------------------------------------


def test_checkpoint_config_of_a_big_trained_network_gets_a_safe_fix():
    code = with_checkpoint("Net()")
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(16, 14)]
    assert found[0].fix is not None and found[0].fix.safety is FixSafety.SAFE
    fixed = apply_fix_text(textwrap.dedent(code).lstrip("\n"), [found[0].fix])
    assert "CheckpointConfig(save_checkpoint_steps=100, async_save=True)" in fixed


def test_blocks_built_in_a_comprehension_count_once_per_item():
    # Eight 1024x512 layers are 4.2 M parameters; counted once (as before) they were 0.5 M, "small".
    prelude = """
import mindspore.nn as nn

class Net(nn.Cell):
    def __init__(self, depth=8):
        super().__init__()
        self.blocks = nn.SequentialCell([nn.Dense(1024, 512) for _ in range(depth)])

    def construct(self, x):
        return self.blocks(x)
"""
    assert lines(with_checkpoint("Net()", prelude=prelude)) == [(15, 14)]
    assert lines(with_checkpoint("Net(depth=2)", prelude=prelude)) == []


def test_a_network_kept_by_a_loss_wrapper_counts_with_it():
    # ``WithLoss(Net())``: the old count gave the wrapper zero weights and called it small.
    prelude = BIG_NET + """
class WithLoss(nn.Cell):
    def __init__(self, backbone, loss):
        super().__init__()
        self.backbone = backbone
        self.loss = loss

    def construct(self, x, y):
        return self.loss(self.backbone(x), y)
"""
    assert len(lint(with_checkpoint("WithLoss(Net(), nn.MSELoss())", prelude=prelude))) == 1


def test_a_mindcv_network_of_unknown_size_is_reported():
    code = with_checkpoint('create_model("resnet50")', prelude="from mindcv.models import create_model\n")
    assert len(lint(code)) == 1


# --- silent: small networks -----------------------------------------------------------------------------


@pytest.mark.parametrize("network, prelude", [
    ("lenet(num_classes=10)", "from mindvision.classification.models import lenet\n"),
    ("create_model(model_name='squeezenet1_0', num_classes=1000)", "from mindcv.models import create_model\n"),
    ("Net()", BIG_NET.replace("2048", "256")),
])
def test_a_small_network_is_not_worth_an_asynchronous_save(network: str, prelude: str):
    assert lint(with_checkpoint(network, prelude=prelude)) == []


def test_a_small_architecture_whose_size_the_linter_cannot_count():
    # SqueezeNet's widths come from a table the linter does not follow; every SqueezeNet is ~1.2 M parameters.
    prelude = """
import mindspore.nn as nn

class SqueezeNet(nn.Cell):
    def __init__(self, widths):
        super().__init__()
        self.layers = nn.SequentialCell([nn.Conv2d(a, b, 3) for a, b in widths])

    def construct(self, x):
        return self.layers(x)
"""
    assert lint(with_checkpoint("SqueezeNet(WIDTHS)", prelude=prelude)) == []
    assert len(lint(with_checkpoint("SqueezeNet(WIDTHS)", prelude=prelude.replace("SqueezeNet", "Backbone")))) == 1


#: SRGAN's generator in the development set: its up-sampling blocks are built ``int(math.log(4, 2))`` times.
SRGAN = """
import math
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import save_checkpoint

class Upsample(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels * 4, 3)

    def construct(self, x):
        return self.conv(x)

class Generator(nn.Cell):
    def __init__(self, upscale_factor):
        super().__init__()
        blocks = []
        for _ in range(int(math.log(upscale_factor, 2))):
            blocks.append(Upsample(WIDTH))
        self.up = nn.SequentialCell(*blocks)

    def construct(self, x):
        return self.up(x)

class PSNRLoss(nn.Cell):
    def __init__(self, generator):
        super().__init__()
        self.generator = generator

    def construct(self, lr, hr):
        return ((self.generator(lr) - hr) ** 2).mean()

class TrainOnestep(nn.Cell):
    def __init__(self, network, optimizer, sens=1.0):
        super().__init__()
        self.network = network
        self.optimizer = optimizer
        self.sens = sens
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)

    def construct(self, lr, hr):
        loss = self.network(lr, hr)
        sens = ops.fill(loss.dtype, loss.shape, self.sens)
        grads = self.grad(self.network, self.optimizer.parameters)(lr, hr, sens)
        return ops.depend(loss, self.optimizer(grads))

if __name__ == "__main__":
    generator = Generator(SCALE)
    step = TrainOnestep(PSNRLoss(generator), nn.Adam(generator.trainable_params(), 1e-4))
    for epoch in range(100):
        for lr, hr in dataset:
            step(lr, hr)
        save_checkpoint(step, "best.ckpt")
"""


@pytest.mark.parametrize("width, scale, reported", [
    ("64", "4", False),        # SRGAN: 2 blocks of 148 k weights; Adam's state grows with them; sens is a number
    ("1024", "4", True),       # 2 blocks of 38 M: big
    ("64", "unknown", True),   # how many blocks is unknown: so is the size
])
def test_sizes_computed_by_math_functions_and_a_kept_optimizer(width, scale, reported):
    code = SRGAN.replace("WIDTH", width).replace("SCALE", scale)
    assert len(lint(code)) == (1 if reported else 0)


def test_a_network_a_train_step_only_hands_to_its_gradient_counts():
    code = SRGAN.replace("WIDTH", "1024").replace("SCALE", "4").replace("loss = self.network(lr, hr)", "loss = lr.sum()")
    assert "self.network(" not in code.split("self.grad(")[0]
    assert len(lint(code)) == 1  # the old count took the wrapper for 0 weights: a small network


# --- silent: rare saves ---------------------------------------------------------------------------------


def test_a_save_every_ten_thousand_steps_is_rare():
    assert lint(with_checkpoint("Net()", steps="10000")) == []
    assert len(lint(with_checkpoint("Net()", steps="1000"))) == 1


LOOP = BIG_NET + """
import argparse
import mindspore as ms

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_checkpoint_step", type=int, default={every})
    args = parser.parse_args()
    net = Net()
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for step in range(100000):
        train_net(x, y)
        if step % args.save_checkpoint_step == 0 and step != 0:
            ms.save_checkpoint(net, f"model-{{step}}.ckpt")

if __name__ == "__main__":
    main()
"""


def test_a_save_under_a_long_step_period_is_rare():
    # arbitrary_image_stylization: a 44 MB net saved every 10,000 steps of a 100,000-step loop.
    assert lint(LOOP.format(every=10000)) == []
    assert [f.line for f in lint(LOOP.format(every=100))] == [24]


# --- the fix is unsafe when the files are read before the write can end ---------------------------------


def test_a_save_read_back_by_a_helper_after_the_loop_gets_an_unsafe_fix():
    # VGG16 notebook: the best checkpoint is saved in the epoch loop, then visualize_model loads it.
    code = BIG_NET + """
import mindspore as ms

def visualize(path):
    net = Net()
    ms.load_param_into_net(net, ms.load_checkpoint(path))

if __name__ == "__main__":
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for epoch in range(40):
        step(x, y)
        ms.save_checkpoint(net, "best.ckpt")
    visualize("best.ckpt")
"""
    found = lint(code)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety is FixSafety.UNSAFE
    assert "read right after" in found[0].message
    assert lint(code.replace('visualize("best.ckpt")', 'print("done")'))[0].fix.safety is FixSafety.SAFE


def test_a_callback_save_listed_after_training_gets_an_unsafe_fix():
    # tinybert: a callback saves in step_end; the code after model.train lists the folder.
    code = BIG_NET + """
import os
import mindspore as ms
from mindspore.train import Callback, Model

class SaveEvery(Callback):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def step_end(self, run_context):
        ms.save_checkpoint(self.net, "latest.ckpt")

if __name__ == "__main__":
    net = Net()
    Model(net, loss_fn=loss, optimizer=opt).train(10, dataset, callbacks=[SaveEvery(net)])
    newest = sorted(os.listdir("."))[-1]
"""
    found = lint(code)
    assert len(found) == 1 and found[0].fix.safety is FixSafety.UNSAFE
    assert lint(code.replace('newest = sorted(os.listdir("."))[-1]', 'print("done")'))[0].fix.safety \
        is FixSafety.SAFE


def test_the_callback_belongs_to_the_training_that_follows_it():
    # momentum.ipynb: one notebook trains VGG16, AlexNet and LeNet; the LeNet run's checkpoints are small.
    code = BIG_NET + """
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
from mindvision.classification.models import lenet

big = Model(Net(), loss_fn=loss, optimizer=opt)
big.train(10, dataset)
config = CheckpointConfig(save_checkpoint_steps=1875)
small = Model(lenet(num_classes=10), loss_fn=loss, optimizer=opt)
small.train(10, dataset, callbacks=[ModelCheckpoint(prefix="lenet", config=config)])
"""
    assert lint(code) == []
    swapped = code.replace("Model(Net()", "Model(NET").replace("Model(lenet(num_classes=10)", "Model(Net()") \
        .replace("Model(NET", "Model(lenet(num_classes=10)")
    assert [f.line for f in lint(swapped)] == [17]


def test_a_save_every_twenty_epochs_is_rare():
    # wgan: the generator and discriminator are saved when epoch % 20 == 0.
    # The period's unit is the loop's, not the variable's name: an epoch loop trains in a loop nested in it.
    code = LOOP.replace("for step in range(100000):\n        train_net(x, y)",
                        "for epoch in range(100):\n        for x, y in data:\n            train_net(x, y)").replace(
        "if step % args.save_checkpoint_step == 0 and step != 0:", "if epoch % {period} == 0:")
    assert lint(code.format(every=1, period=20)) == []
    assert len(lint(code.format(every=1, period=2))) == 1
    # One step per iteration: every 20 steps of 100, five saves.
    steps = LOOP.replace("for step in range(100000):", "for epoch in range(100):").replace(
        "if step % args.save_checkpoint_step == 0 and step != 0:", "if epoch % 20 == 0:")
    assert "every 20 steps" in lint(steps.format(every=1))[0].message


def test_a_save_guarded_by_a_device_test_that_never_holds_is_dead_code():
    # vipnas: `get_context("device_target") == 2` compares a string with a number: the save never runs.
    code = LOOP.replace(
        "if step % args.save_checkpoint_step == 0 and step != 0:", 'if ms.get_context("device_target") == {test}:'
    ).replace("    net = Net()\n", '    ms.set_context(device_target="Ascend")\n    net = Net()\n', 1)
    assert lint(code.format(every=100, test="2")) == []
    assert len(lint(code.format(every=100, test='"Ascend"'))) == 1


def test_a_program_that_runs_on_the_cpu_keeps_no_accelerator_waiting():
    code = with_checkpoint("Net()").replace('    net = Net()\n', '    ms.set_context(device_target="CPU")\n    net = Net()\n')
    code = "import mindspore as ms\n" + code
    assert lint(code) == []
    assert len(lint(code.replace('"CPU"', '"GPU"'))) == 1


def test_a_block_class_handed_to_a_helper_is_counted_as_that_class():
    # A ResNet whose make_layer(block, ...) calls the class it is given: counting its calls as nothing made a
    # 25 M-parameter ResNet-50 look like 10 M. The class handed in is counted with the sizes the helper passes
    # it (3 x 64 x 64 x 9: small); something else handed in (a factory) leaves the size unknown, and unknown is
    # reported.
    prelude = """
import mindspore.nn as nn

class Block(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

def make_layer(block, channels, count):
    return nn.SequentialCell([block(channels) for _ in range(count)])

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layer = make_layer(Block, 64, 3)
        self.fc = nn.Dense(64, 10)
"""
    assert lint(with_checkpoint("Net()", prelude=prelude)) == []
    assert lint(with_checkpoint("Net()", prelude=prelude.replace("block(channels)", "Block(channels)"))) == []
    wide = prelude.replace("make_layer(Block, 64, 3)", "make_layer(Block, 1024, 3)").replace("Dense(64", "Dense(1024")
    assert len(lint(with_checkpoint("Net()", prelude=wide))) == 1  # 3 x 1024 x 1024 x 9 = 28 M
    factory = prelude.replace("make_layer(Block, 64, 3)", "make_layer(lambda c: Block(c), 64, 3)")
    assert len(lint(with_checkpoint("Net()", prelude=factory))) == 1


# --- periods computed from values, not names (issue 22, section 3) ---------------------------------------

EPOCHS = BIG_NET + """
import argparse
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_checkpoint_epochs", type=int, default={every})
    parser.add_argument("--epochs", type=int, default={epochs})
    args = parser.parse_args()
    dataset = create_dataset(args)
    steps_per_epoch = dataset.get_dataset_size()
    config = CheckpointConfig(save_checkpoint_steps={steps}, keep_checkpoint_max=10)
    model = Model(Net(), loss_fn=loss, optimizer=opt)
    model.train(args.epochs, dataset, callbacks=[ModelCheckpoint(prefix="net", config=config)])

if __name__ == "__main__":
    main()
"""


def epochs_program(every="1", epochs="90", steps="args.save_checkpoint_epochs * steps_per_epoch") -> str:
    return EPOCHS.format(every=every, epochs=epochs, steps=steps)


def test_k_times_the_steps_of_an_epoch_is_every_k_epochs():
    # The name holds "epochs": the old rule read the product as one save at the end and said nothing.
    found = lint(epochs_program())
    assert [f.line for f in found] == [22]
    assert len(lint(epochs_program(every="2"))) == 1
    assert lint(epochs_program(every="10")) == []  # every 10 epochs: rare
    assert len(lint(epochs_program(steps="steps_per_epoch * args.save_checkpoint_epochs"))) == 1


def test_the_steps_of_an_epoch_through_int_and_a_helper_parameter():
    code = epochs_program(steps="args.save_checkpoint_epochs * steps").replace(
        "steps_per_epoch = dataset.get_dataset_size()", "steps = int(dataset.get_dataset_size())")
    assert len(lint(code)) == 1
    assert lint(code.replace("default=1)", "default=5)", 1)) == []
    helper = epochs_program(steps="every * per_epoch").replace(
        "def main():", "def checkpoint(every, per_epoch):\n    return CheckpointConfig(save_checkpoint_steps=every * per_epoch)"
        "\n\ndef main():").replace(
        "config = CheckpointConfig(save_checkpoint_steps=every * per_epoch, keep_checkpoint_max=10)",
        "config = checkpoint(args.save_checkpoint_epochs, dataset.get_dataset_size())")
    assert len(lint(helper)) == 1
    assert lint(helper.replace("dataset.get_dataset_size())", "6000)")) == []  # 6000 steps: a step period, rare


def test_a_save_interval_covering_the_run_saves_once():
    assert lint(epochs_program(steps="args.epochs * steps_per_epoch")) == []
    assert lint(epochs_program(every="1", epochs="2")) == []  # every epoch of two: two saves
    assert len(lint(epochs_program(every="1", epochs="3"))) == 1


def test_a_name_that_holds_epoch_is_not_a_count_of_epochs():
    # No multiplication by the steps of an epoch: the value is a step count, whatever the key's name says.
    assert len(lint(epochs_program(every="1", steps="args.save_checkpoint_epochs"))) == 1
    assert lint(epochs_program(every="6000", steps="args.save_checkpoint_epochs")) == []


def test_an_unknown_period_is_not_reported():
    assert lint(epochs_program(steps="args.save_checkpoint_epochs * unknown_steps")) == []
    assert lint(epochs_program(steps="other.save_steps")) == []


# --- callbacks (issue 22, sections 2 and 3) ---------------------------------------------------------------

CALLBACK = BIG_NET + """
import argparse
import mindspore as ms
from {module} import Callback
from mindspore.train import Model

class SaveCallback(Callback):
    def __init__(self, net, model, data, interval=1):
        super().__init__()
        self.net = net
        self.model = model
        self.data = data
        self.interval = interval

    def epoch_end(self, run_context):
{body}

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--save_ckpt", type=bool, default={flag})
    args = parser.parse_args()
    net = Net()
    model = Model(net, loss_fn=loss, optimizer=opt)
    callbacks = []
    saver = SaveCallback(net, model, valid_data{interval})
    if args.save_ckpt:
        callbacks.append(saver)
    model.train(30, data, callbacks=callbacks)

if __name__ == "__main__":
    main()
"""

EVERY_EPOCH = '        ms.save_checkpoint(self.net, "latest.ckpt")'


def callback_program(body: str = EVERY_EPOCH, module: str = "mindspore.train", flag: str = "True",
                     interval: str = "") -> str:
    return CALLBACK.format(body=body, module=module, flag=flag, interval=interval)


@pytest.mark.parametrize("module", ["mindspore.train", "mindspore.train.callback",
                                    "mindspore.train.callback._callback"])
def test_a_callback_is_one_whatever_path_names_its_base(module: str):
    found = lint(callback_program(module=module))
    assert len(found) == 1 and "SaveCallback.epoch_end" in found[0].message and "every epoch" in found[0].message


def test_a_callback_registered_under_a_flag_that_is_off_saves_nothing():
    assert lint(callback_program(flag="False")) == []


def test_a_save_after_a_full_evaluation_is_save_best():
    body = """        acc = self.model.eval(self.data)["acc"]
        if acc > 0.5:
            ms.save_checkpoint(self.net, "best.ckpt")"""
    assert lint(callback_program(body=body)) == []
    helper = """        if evaluate(self.model, self.data) > 0.5:
            ms.save_checkpoint(self.net, "best.ckpt")"""
    code = callback_program(body=helper) + """
def evaluate(model, data):
    return model.eval(data)["acc"]
"""
    assert lint(code) == []
    # The evaluation after the save does not make it save-best.
    after = """        ms.save_checkpoint(self.net, "latest.ckpt")
        self.model.eval(self.data)"""
    assert len(lint(callback_program(body=after))) == 1


def test_a_callback_period_comes_from_its_values():
    body = """        epoch = run_context.original_args().cur_epoch_num
        if epoch % self.interval == 0:
            ms.save_checkpoint(self.net, "latest.ckpt")"""
    assert "every 2 epochs" in lint(callback_program(body=body, interval=", 2"))[0].message
    assert lint(callback_program(body=body, interval=", 5")) == []
    assert lint(callback_program(body=body, interval=", unknown")) == []  # unknown: not reported


def test_a_period_test_that_returns_early_is_the_saves_period():
    # fastspeech2: ``if step % self.interval != 0: return`` before the save
    for test in ("epoch % self.interval != 0", "epoch % self.interval > 0"):
        body = f"""        epoch = run_context.original_args().cur_epoch_num
        if {test}:
            return
        ms.save_checkpoint(self.net, "latest.ckpt")"""
        assert "every 2 epochs" in lint(callback_program(body=body, interval=", 2"))[0].message, test
        assert lint(callback_program(body=body, interval=", 40")) == [], test


def test_each_instance_of_a_callback_has_its_own_period():
    # TinyBERT: one phase builds the saver with a period of 1, another with a period the linter cannot know; the
    # first instance saves every epoch whatever the second is given
    body = """        epoch = run_context.original_args().cur_epoch_num
        if epoch % self.interval == 0:
            ms.save_checkpoint(self.net, "latest.ckpt")"""
    program = callback_program(body=body, interval=", 1").replace(
        "    model.train(30, data, callbacks=callbacks)",
        "    model.train(30, data, callbacks=callbacks)\n"
        "    model.train(30, data, callbacks=[SaveCallback(net, model, valid_data, unknown)])")
    assert "every epoch" in lint(program)[0].message
    assert lint(program.replace("valid_data, 1)", "valid_data, unknown2)")) == []  # no instance known: silent


def test_a_local_flag_set_on_every_call_is_not_a_run_once_guard():
    body = """        saved = False
        if not saved:
            ms.save_checkpoint(self.net, "latest.ckpt")
            saved = True"""
    assert len(lint(callback_program(body=body))) == 1


def test_a_callback_that_saves_a_small_network_it_does_not_name():
    # run_context's network is the one Model trains: LeNet-sized here.
    body = '        ms.save_checkpoint(run_context.original_args().train_network, "latest.ckpt")'
    assert len(lint(callback_program(body=body))) == 1
    assert lint(callback_program(body=body).replace("2048", "256")) == []


def test_a_local_flag_set_under_a_condition_is_not_a_run_once_guard():
    body = """        save_now = False
        if run_context.original_args().cur_epoch_num > 3:
            save_now = True
        if save_now:
            ms.save_checkpoint(self.net, "latest.ckpt")"""
    assert len(lint(callback_program(body=body))) == 1


# --- network size through the project's own wrappers (issue 22, section 2) ---------------------------------

SMALL_NET = BIG_NET.replace("2048", "256")  # 68 k parameters

WRAPPERS = """
import mindspore as ms
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

class LMWithLoss(nn.Cell):
    def __init__(self, network, loss):
        super().__init__()
        self.network = network
        self.loss = loss

    def construct(self, x, y):
        return self.loss(self.network(x), y)

class StepCell(nn.TrainOneStepCell):
    def __init__(self, network, optimizer, sens=1.0):
        super().__init__(network, optimizer, sens)

class Quantizer:
    def apply(self, network):
        network.set_train()
        return network

def build_loss_net(network, loss):
    return nn.WithLossCell(network, loss)

def build_step(network, optimizer, ema=False):
    if ema:
        network = StepCell(network, optimizer)
    else:
        network = nn.TrainOneStepCell(network, optimizer)
    return network

if __name__ == "__main__":
    net = Net()
{body}
"""

MODEL_TRAIN = """    config = CheckpointConfig(save_checkpoint_steps=100)
    Model({network}, optimizer=opt).train(90, data, callbacks=[ModelCheckpoint(config=config)])"""

LOOP_TRAIN = """    step = {step}
    for epoch in range(90):
        for x, y in data:
            step(x, y)
        ms.save_checkpoint(step, "latest.ckpt")"""


@pytest.mark.parametrize("body", [
    MODEL_TRAIN.format(network="LMWithLoss(net, nn.SoftmaxCrossEntropyWithLogits())"),
    MODEL_TRAIN.format(network="build_loss_net(net, nn.MSELoss())"),
    "    net = Quantizer().apply(net)\n" + MODEL_TRAIN.format(network="net"),
    LOOP_TRAIN.format(step="StepCell(LMWithLoss(net, nn.MSELoss()), opt)"),
    LOOP_TRAIN.format(step="StepCell(build_loss_net(net, nn.MSELoss()), opt)"),
    # a factory choosing the step cell in the arms of an if, both around the network it is handed
    MODEL_TRAIN.format(network="build_step(LMWithLoss(net, nn.MSELoss()), opt)"),
])
def test_the_size_of_a_network_counts_through_project_wrappers(body: str):
    assert lint(SMALL_NET + WRAPPERS.format(body=body)) == []
    assert len(lint(BIG_NET + WRAPPERS.format(body=body))) == 1


def test_a_step_built_by_build_train_network_trains_in_a_loop():
    body = """    step = ms.amp.build_train_network(net, opt, nn.MSELoss(), level="O2")
    for epoch in range(90):
        for x, y in data:
            step(x, y)
        ms.save_checkpoint(net, "latest.ckpt")"""
    found = lint(BIG_NET + WRAPPERS.format(body=body))
    assert len(found) == 1 and "every epoch" in found[0].message


def test_the_finding_is_at_the_config_the_user_wrote_and_names_the_helper():
    # The script writes the CheckpointConfig; a project helper builds the ModelCheckpoint from it.
    code = BIG_NET + """
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

def create_callbacks(config):
    return [ModelCheckpoint(prefix="net", config=config)]

if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=100)
    Model(Net(), loss_fn=loss, optimizer=opt).train(90, dataset, callbacks=create_callbacks(config))
"""
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(18, 14)]
    assert "ModelCheckpoint callback built in create_callbacks" in found[0].message


def test_a_loop_that_calls_an_epoch_of_training_repeats_every_epoch():
    # The loop calls a project function that trains over the whole dataset, or Model.train for one epoch.
    helper = BIG_NET + """
import mindspore as ms

def train_one_epoch(step, data):
    for x, y in data:
        step(x, y)

if __name__ == "__main__":
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for epoch in range(100):
        train_one_epoch(step, data)
        if epoch % {period} == 0:
            ms.save_checkpoint(net, "latest.ckpt")
"""
    assert len(lint(helper.format(period=2))) == 1
    assert lint(helper.format(period=20)) == []  # every 20 epochs, not every 20 steps


#: A loop over training phases: each iteration calls a project function that runs a whole training of its own.
PHASES = BIG_NET + """
import mindspore as ms

def train(net, step, n_iter):
    for it in range(1, 1 + n_iter):
        step(x, y)

if __name__ == "__main__":
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for n_iter, lr in zip(ITERATIONS, [1e-3, 1e-4, 1e-5, 1e-6]):
        train(net, step, {iterations})
        ms.save_checkpoint(net, "phase.ckpt")
"""


def test_a_save_after_each_training_phase_repeats_as_often_as_a_phase_trains():
    # A PINN trained in phases of a few hundred thousand full-batch steps saves once per phase, not every epoch.
    assert lint(PHASES.format(iterations="int(n_iter)")) == []  # the phase's length is unknown
    assert lint(PHASES.format(iterations="30000")) == []  # a save every 30,000 steps is rare
    found = lint(PHASES.format(iterations="300"))
    assert len(found) == 1 and "every 300 steps" in found[0].message


def test_a_function_that_trains_for_epochs_makes_each_call_that_many_epochs():
    code = BIG_NET + """
import mindspore as ms

def train(net, step, data, epochs):
    for epoch in range(epochs):
        for x, y in data:
            step(x, y)

if __name__ == "__main__":
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for fold in range(5):
        train(net, step, data, {epochs})
        ms.save_checkpoint(net, "fold.ckpt")
"""
    assert lint(code.format(epochs=100)) == []  # one save per 100 epochs
    found = lint(code.format(epochs=1))
    assert len(found) == 1 and "every epoch" in found[0].message


def test_a_function_that_counts_one_epoch_of_steps_is_an_epoch():
    code = BIG_NET + """
import mindspore as ms

def run_epoch(step, dataset):
    for i in range(dataset.get_dataset_size()):
        step(x, y)

if __name__ == "__main__":
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for epoch in range(100):
        run_epoch(step, dataset)
        ms.save_checkpoint(net, "latest.ckpt")
"""
    found = lint(code)
    assert len(found) == 1 and "every epoch" in found[0].message


def test_an_evaluation_that_runs_only_sometimes_does_not_make_an_every_epoch_save_save_best():
    body = """        if run_context.original_args().cur_epoch_num % 10 == 0:
            self.model.eval(self.data)
        ms.save_checkpoint(self.net, "resume.ckpt")"""
    assert len(lint(callback_program(body=body))) == 1
    evaluator = """        scores = self.evaluator.eval()
        if scores > 0.5:
            ms.save_checkpoint(self.net, "best.ckpt")"""
    assert lint(callback_program(body=evaluator)) == []


def test_a_train_step_built_in_the_epoch_loop_does_not_make_it_a_step_loop():
    # The step cell is rebuilt every epoch (a new learning rate) and a project function runs the epoch.
    code = BIG_NET + """
import mindspore as ms

def train(step, data):
    for x, y in data:
        step(x, y)

if __name__ == "__main__":
    net = Net()
    for epoch in range(100):
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), epoch))
        train(step, data)
        ms.save_checkpoint(net, "latest.ckpt")
"""
    found = lint(code)
    assert len(found) == 1 and "every epoch" in found[0].message


# --- save-best in a training loop, after an evaluation of the same iteration -----------------------------------

EPOCH_LOOP = BIG_NET + """
import mindspore as ms
from mindspore.train import Model

def main():
    net = Net()
    train_net = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    model = Model(net, nn.MSELoss(), metrics={{"acc"}})
    best = 0
    for epoch in range(100):
        for x, y in data.create_tuple_iterator():
            train_net(x, y)
{evaluate}
        if acc > best:
            best = acc
            ms.save_checkpoint(net, "best.ckpt")

if __name__ == "__main__":
    main()
"""


def test_a_save_best_after_the_epochs_evaluation_in_a_loop_is_silent():
    """VGG16's shape: ``acc = model.eval(val)`` in the epoch loop, then the best model saved: the evaluation
    dominates. Also an evaluation written as a loop over the validation data."""
    assert lint(EPOCH_LOOP.format(evaluate="        acc = model.eval(val_data)['acc']")) == []
    loop = ("        for x, y in val_data.create_tuple_iterator():\n"
            "            acc = metric(net(x), y)")
    assert lint(EPOCH_LOOP.format(evaluate=loop)) == []
    # The look-alike: the same save with no evaluation of its own iteration (one evaluation before training).
    before = EPOCH_LOOP.format(evaluate="        acc = 1").replace("    best = 0\n",
                                                                     "    best = 0\n    acc = model.eval(val_data)\n")
    assert [f.line for f in lint(before)] == [27]  # the save_checkpoint


# --- mindformers YAML monitors: decided by their period -----------------------------------------------------------


def _yaml_findings(tmp_path: Path, monitor: str, run_mode: str = "train") -> list:
    write_project(tmp_path, {"run.py": "import mindspore\n"})
    config = tmp_path / "configs" / "finetune.yaml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f"run_mode: {run_mode}\ncallbacks:\n  - type: MFLossMonitor\n  - type: CheckpointMonitor\n"
                      + textwrap.indent(textwrap.dedent(monitor).strip("\n"), "    ") + "\n", encoding="utf-8")
    results = check_folder(str(tmp_path), Settings(select=("MSP103",)))
    return [(f.line, f.fix.safety.value if f.fix else None) for r in results.values() for f in r.findings]


def test_a_yaml_monitor_writing_async_save_false_next_to_a_frequent_save_is_reported_at_the_false(tmp_path: Path):
    found = _yaml_findings(tmp_path, """
        prefix: "llm"
        save_checkpoint_steps: 1500
        async_save: False
    """)
    assert found == [(7, "unsafe")]  # the written False; replacing what the author wrote is unsafe


def test_a_yaml_monitor_without_async_save_saves_every_step_by_default(tmp_path: Path):
    assert _yaml_findings(tmp_path, 'prefix: "llm"') == [(4, "safe")]


@pytest.mark.parametrize("monitor", [
    "save_checkpoint_steps: 10000\nasync_save: False",  # rarer than every 5,000 steps
    "save_checkpoint_steps: 10000",
    "save_checkpoint_seconds: 3600\nasync_save: False",  # by time
    "save_checkpoint_steps: 100\nasync_save: True",
])
def test_rare_timed_and_async_yaml_monitors_are_silent(tmp_path: Path, monitor: str):
    assert _yaml_findings(tmp_path, monitor) == []


def test_a_predict_config_is_silent(tmp_path: Path):
    assert _yaml_findings(tmp_path, "save_checkpoint_steps: 100\nasync_save: False", run_mode="predict") == []


#: A network whose layers read their sizes from attributes set from the constructor's arguments, with a hub
#: entry that forwards whatever it is given, as model zoos ship (``mindspore_hub_conf.py``).
SIZED_THROUGH_ATTRIBUTES = {
    "src/net.py": """
import mindspore.nn as nn

class Conv(nn.Cell):
    def __init__(self, in_channel, out_channel, kernel=(3, 3)):
        super().__init__()
        self.in_channel = in_channel
        self.out_channel = out_channel
        self.conv = nn.Conv2d(self.in_channel, self.out_channel, kernel_size=kernel)

class Stage(nn.Cell):
    def __init__(self, block, count, in_channel, out_channel):
        super().__init__()
        self.first = Conv(in_channel, out_channel, kernel=(7, 7))
        self.blocks = nn.SequentialCell([block(out_channel, out_channel) for _ in range(count)])

class Net(nn.Cell):
    def __init__(self, widths):
        super().__init__()
        self.stage1 = Stage(Conv, 2, widths[0], widths[1])
        self.stage2 = Stage(Conv, 2, widths[1], widths[2])
        self.head = nn.Dense(widths[2], 2)
""",
    "hub_conf.py": """
from src.net import Net

def create_network(*args, **kwargs):
    return Net(*args, **kwargs)
""",
    "train.py": """
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
from src.net import Net

if __name__ == "__main__":
    net = Net([3, 64, 48])
    config = CheckpointConfig(save_checkpoint_steps=100)
    model = Model(net, loss_fn=loss, optimizer=opt)
    model.train(90, dataset, callbacks=[ModelCheckpoint(prefix="net", config=config)])
""",
}


def _project_findings(tmp_path: Path, files: dict) -> list:
    write_project(tmp_path, files)
    results = check_folder(str(tmp_path), Settings(select=("MSP103",)))
    return [(path, f.line) for path, r in sorted(results.items()) for f in r.findings if f.code == "MSP103"]


def test_a_network_sized_through_attributes_is_counted_with_the_sizes_its_program_passes(tmp_path: Path):
    # Each Conv is sized by the call that builds it (3 -> 64 at 7x7, then 64 -> 64 at 3x3, ...), not by the
    # largest value any caller passes anywhere (which made a 0.3 M network read as 8 M), and the hub entry's
    # ``Net(*args, **kwargs)``, which the training program never runs, does not make the sizes unknown.
    assert _project_findings(tmp_path, SIZED_THROUGH_ATTRIBUTES) == []


def test_the_same_network_built_wide_is_reported(tmp_path: Path):
    files = dict(SIZED_THROUGH_ATTRIBUTES, **{"train.py": SIZED_THROUGH_ATTRIBUTES["train.py"].replace(
        "Net([3, 64, 48])", "Net([3, 512, 512])")})  # 5 x 512 x 512 x 9 + 512 x 512 x 49 = 24 M
    assert _project_findings(tmp_path, files) == [("train.py", 6)]


def test_train_steps_unpacked_from_what_a_method_returns_make_the_loop_a_training_loop():
    # ``self.g_step, self.d_step = self.get_steps()``: each attribute is the item of the tuple the method returns,
    # a TrainOneStepCell; the epoch loop that calls them trains, and its every-epoch save is reported.
    code = BIG_NET + """
import mindspore.nn as nn
from mindspore import save_checkpoint

class GanTrainer:
    def __init__(self, net, opt):
        self.net = net
        self.opt = opt
        self.g_step, self.d_step = self.get_steps()

    def get_steps(self):
        g_step = nn.TrainOneStepCell(self.net, self.opt)
        d_step = nn.TrainOneStepCell(self.net, self.opt)
        return g_step, d_step

    def train(self, data, epochs):
        for epoch in range(epochs):
            for x in data:
                self.d_step(x)
                self.g_step(x)
            save_checkpoint(self.net, "net.ckpt")

if __name__ == "__main__":
    GanTrainer(Net(), opt).train(data, 90)
"""
    assert [f.line for f in lint(code)] == [code.lstrip("\n").splitlines().index(
        '            save_checkpoint(self.net, "net.ckpt")') + 1]


# --- network sizes and periods traced from the held-out audit heldout-7 ----------------------------------------


#: A ResNet-style network: the block class is handed to the constructor, which hands it on to ``_make_layer``; the
#: block's width is its output divided by a class attribute.
HANDED_BLOCK = """
import mindspore as ms
import mindspore.nn as nn

def conv1x1(cin, cout):
    return nn.Conv2d(cin, cout, kernel_size=1)

class Bottleneck(nn.Cell):
    expansion = 4
    def __init__(self, cin, cout):
        super().__init__()
        width = cout // self.expansion
        self.reduce = conv1x1(cin, width)
        self.expand = conv1x1(width, cout)

class ResNet(nn.Cell):
    def __init__(self, block, depth, channels):
        super().__init__()
        self.stage = self._make_layer(block, depth, channels)

    def _make_layer(self, block, depth, channels):
        layers = [block(channels, channels)]
        for _ in range(1, depth):
            layers.append(block(channels, channels))
        return nn.SequentialCell(layers)

def resnet(channels):
    return ResNet(Bottleneck, 4, channels)

if __name__ == "__main__":
    net = resnet({channels})
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for epoch in range(100):
        for x, y in data:
            step(x, y)
        ms.save_checkpoint(net, "latest.ckpt")
"""


def test_a_block_class_handed_on_through_two_parameters_and_a_class_attribute_are_sized():
    # 4 blocks of 2 x (C x C/4) weights: 2048 channels make 4.2 M, 256 channels 66 K (unknown sizes were reported)
    assert len(lint(HANDED_BLOCK.format(channels=2048))) == 1
    assert lint(HANDED_BLOCK.format(channels=256)) == []


def test_a_cast_period_of_whole_epochs_is_every_few_epochs():
    # ``int(config.ckpt_interval * steps_per_epoch)`` is every ``ckpt_interval`` epochs, cast or not.
    found = lint(with_checkpoint("Net()", steps="int(interval * dataset.get_dataset_size())",
                                 prelude=BIG_NET + "\ninterval = 1\n"))
    assert len(found) == 1
    assert lint(with_checkpoint("Net()", steps="int(interval * dataset.get_dataset_size())",
                                prelude=BIG_NET + "\ninterval = 5\n")) == []


#: An MLP library in the shape of a physics toolkit's: the network widens its input in one arm of an ``if`` (an
#: augmented assignment), and the layers are built five calls below the training script's construction.
MLP_LIBRARY = """
import mindspore as ms
import mindspore.nn as nn
from mindspore import Parameter, Tensor
import numpy as np

class Linear(nn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.dense = nn.Dense(cin, cout)

class Sequential(nn.Cell):
    def __init__(self, cin, cout, width):
        super().__init__()
        self.cin, self.cout, self.width = cin, cout, width
        self.net = nn.SequentialCell()
        self._create()

    def _create(self):
        self._add(self.cin, self.width)
        self._add(self.width, self.cout)

    def _add(self, cin, cout):
        self.net.append(Linear(cin, cout))

class MultiScale(nn.Cell):
    def __init__(self, cin, cout, width, scales=2, latent=None):
        super().__init__()
        self.latent = latent
        if self.latent is not None:
            cin += self.latent.shape[1]
        self.coef = Parameter(Tensor({coefficient}))
        self.cells = nn.CellList([Sequential(cin, cout, width) for _ in range(scales)])

if __name__ == "__main__":
    net = MultiScale(2, 1, {width})
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    for epoch in range(100):
        for x, y in data:
            step(x, y)
        ms.save_checkpoint(net, "latest.ckpt")
"""


@pytest.mark.parametrize("coefficient", ["0.5", "np.random.rand()", "COEFFICIENTS['nu']"])
def test_an_mlp_built_deep_in_a_library_with_a_widened_input_and_scalar_parameters_is_sized(coefficient):
    prelude = "COEFFICIENTS = {'nu': 0.1}\n" if "COEFF" in coefficient else ""
    small = prelude + MLP_LIBRARY.format(coefficient=coefficient, width=128)
    assert lint(small) == []  # 2 x (2 x 128 + 128 x 1) weights, 3 scalar parameters: about 1 K
    big = prelude + MLP_LIBRARY.format(coefficient=coefficient, width=2_000_000)
    assert len(lint(big)) == 1  # 2 x (2 x 2 M + 2 M x 1): 12 M


def test_a_parameter_is_sized_by_the_shape_of_its_tensor():
    code = BIG_NET.replace("self.fc2 = nn.Dense(2048, 10)", "self.fc2 = nn.Dense(2048, 10)\n"
                           "        self.table = Parameter(Tensor(np.zeros((ROWS, 64))))")
    prelude = "import numpy as np\nfrom mindspore import Parameter, Tensor\n"
    small = prelude + code.replace("nn.Dense(2048, 2048)", "nn.Dense(20, 20)").replace("ROWS", "100")
    assert lint(with_checkpoint("Net()", prelude=small)) == []
    big = prelude + code.replace("nn.Dense(2048, 2048)", "nn.Dense(20, 20)").replace("ROWS", "100_000")
    assert len(lint(with_checkpoint("Net()", prelude=big))) == 1  # 6.4 M values in the table
