"""Recall on the precision benchmark's development set: real problems the rules must keep reporting.

Each test is a small reproduction, written for this suite, of a finding labelled *act* in
``bench/precision/labels.toml`` (the real file is named in the docstring). ``docs/precision.md`` lists
them; MSP104's mindcv case is ``tests/rules/test_msp104.py::test_mindcv_like_configs_are_decided_one_by_one``.
"""

from __future__ import annotations

import textwrap
from typing import List, Tuple

from ms_perflint.findings import FixSafety
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings

#: A VGG-like classifier of 4.2 M parameters in its Dense layers.
NET = """
import mindspore as ms
import mindspore.nn as nn

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = nn.Dense(2048, 2048)
        self.classifier = nn.Dense(2048, 10)

    def construct(self, x):
        return self.classifier(self.features(x))
"""


def found(code: str, rule: str) -> List[Tuple[int, str, bool]]:
    """``(line, message, has a safe fix)`` of one rule's findings in ``train.py``."""
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", Settings())
    assert result.error is None, result.error
    return [(f.line, f.message, f.fix is not None and f.fix.safety is FixSafety.SAFE)
            for f in result.findings if f.code == rule]


def test_msp101_a_bert_encoder_trained_with_no_mixed_precision():
    """DuConv_mindspore/train.py: a BERT-style retrieval model trained by TrainOneStepCell in fp32 (2.4 M MatMul
    weights here)."""
    code = """
    import mindspore.nn as nn

    class Encoder(nn.Cell):
        def __init__(self, hidden=512):
            super().__init__()
            self.query = nn.Dense(hidden, hidden)
            self.ffn_in = nn.Dense(hidden, 4 * hidden)
            self.ffn_out = nn.Dense(4 * hidden, hidden)

        def construct(self, x):
            return self.ffn_out(self.ffn_in(self.query(x)))

    if __name__ == "__main__":
        network = nn.WithLossCell(Encoder(), nn.MSELoss())
        optimizer = nn.Adam(network.trainable_params(), learning_rate=1e-3)
        network_one_step = nn.TrainOneStepCell(network, optimizer)
        for batch in dataset.create_dict_iterator():
            network_one_step(batch["x"], batch["y"])
    """
    assert [line for line, _, _ in found(code, "MSP101")] == [16]


def test_msp103_best_checkpoint_saved_in_an_epoch_loop():
    """VGG16_mindspore/main.py, U-Net, DenseNet and GoogLeNet notebooks: the best weights saved synchronously
    on each improving epoch of a custom training loop."""
    code = NET + """
def main():
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits()), opt)
    best = 0.0
    for epoch in range(40):
        for x, y in dataset.create_tuple_iterator():
            step(x, y)
        accuracy = evaluate(net)
        if accuracy > best:
            best = accuracy
            ms.save_checkpoint(net, "best.ckpt")

if __name__ == "__main__":
    main()
"""
    assert found(code, "MSP103") == [(23, "save_checkpoint in a training loop blocks training at every save (up to every epoch); "
                                          "pass async_save=True", True)]


def test_msp103_a_callback_saves_the_networks_at_every_improving_epoch():
    """CAR/src/car_utils/callback.py: SaveCheckpoint.epoch_end saves two ~10-40 M parameter networks."""
    code = NET + """
from mindspore.train import Callback, Model

class SaveCheckpoint(Callback):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.best = 0

    def epoch_end(self, run_context):
        psnr = self.evaluate()
        if psnr > self.best:
            self.best = psnr
            ms.save_checkpoint(self.net, "best.ckpt")

if __name__ == "__main__":
    net = Net()
    Model(net, loss_fn=loss, optimizer=opt).train(500, dataset, callbacks=[SaveCheckpoint(net)])
"""
    # RULES.md (issue 22): a save that follows a full evaluation in the same callback is save-best, where the
    # evaluation dominates; the same save after a cheap reading of the step's output is reported.
    assert found(code, "MSP103") == []
    cheap = code.replace("psnr = self.evaluate()", "psnr = run_context.original_args().net_outputs")
    assert [(line, safe) for line, _, safe in found(cheap, "MSP103")] == [(25, True)]


def test_msp103_a_model_checkpoint_every_epoch_of_a_large_network():
    """HuaweiMindSpore/momentum.ipynb: VGG16 trained 20 epochs with ModelCheckpoint every 1562 steps."""
    code = NET + """
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

config_ck = CheckpointConfig(save_checkpoint_steps=1562, keep_checkpoint_max=20)
model = Model(Net(), loss_fn=loss, optimizer=opt, metrics={"accuracy"})
model.train(20, dataset, callbacks=[ModelCheckpoint(prefix="vgg16", config=config_ck)])
"""
    assert [(line, safe) for line, _, safe in found(code, "MSP103")] == [(15, True)]


def test_msp103_a_save_every_hundred_steps_when_the_loss_improves():
    """ict/Transformer/train.py: a 440 M parameter GPT saved whenever the loss improves, checked every 100 steps."""
    code = NET + """
def train(opts):
    transformer = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(transformer, nn.MSELoss()), opt)
    best = 1e9
    for it in range(opts.train_iters):
        loss = step(x, y)
        if it % 100 == 0 and loss < best:
            best = loss
            ms.save_checkpoint(transformer, "ImageNet_best.ckpt")

if __name__ == "__main__":
    train(parse())
"""
    assert [line for line, _, _ in found(code, "MSP103")] == [21]


def test_msp103_an_eval_callback_saves_the_train_network_when_it_improves():
    """mindcv examples/seg/deeplabv3/callbacks.py: EvalCallBack saves cb_params.train_network as best.ckpt."""
    code = NET + """
from mindspore.train import Callback, Model

class EvalCallBack(Callback):
    def __init__(self, interval):
        super().__init__()
        self.interval = interval
        self.best = 0

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        miou = self.evaluate()
        if miou > self.best:
            self.best = miou
            ms.save_checkpoint(cb_params.train_network, "best.ckpt")

if __name__ == "__main__":
    Model(Net(), loss_fn=loss, optimizer=opt).train(300, dataset, callbacks=[EvalCallBack(2)])
"""
    assert found(code, "MSP103") == []  # save-best after a full evaluation (RULES.md, issue 22)
    cheap = code.replace("miou = self.evaluate()", "miou = cb_params.net_outputs")
    assert [line for line, _, _ in found(cheap, "MSP103")] == [26]
