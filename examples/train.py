"""Train ResNet-50 on synthetic images, on Ascend, GPU or CPU.

    python train.py --device-target CPU --steps 2 --output-dir ./output      # a quick check on CPU
    python train.py --steps 1000 --batch-size 32 --image-size 224             # on Ascend (the default)

Checkpoints go to --output-dir: resnet50-<epoch>_<step>.ckpt (with optimizer
state), resnet50-latest.ckpt (the network, rewritten every epoch); weights-only
copies of the training checkpoints, for inference, go to --output-dir/weights/.
Fine-tuning from public ImageNet weights is finetune.py.

Comments marked "ms-perflint:" say what the linter reports on a line, or why
a similar-looking line is fine.
"""

import argparse
import fnmatch
import os

import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import (
    Callback, CheckpointConfig, DynamicLossScaleManager, LossMonitor, Model, ModelCheckpoint, TimeMonitor,
)

from src.dataset import create_dataset
from src.model import resnet50

#: Parameters of the Momentum optimizer's state, left out of the inference weights.
OPTIMIZER_STATE_PREFIXES = ("moments.", "learning_rate", "momentum", "global_step")
#: Names ModelCheckpoint gives training checkpoints: resnet50-<epoch>_<step>.ckpt, or resnet50_<n>-... when
#: earlier ones are in the folder.
TRAINING_CHECKPOINTS = "resnet50*_*.ckpt"


def parse_args():
    parser = argparse.ArgumentParser(description="Train ResNet-50 on synthetic images.")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--mode", default="graph", choices=["graph", "pynative"])
    parser.add_argument("--steps", type=int, default=100, help="training steps (one epoch of synthetic data)")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--save-steps", type=int, default=50, help="save a checkpoint every N steps")
    parser.add_argument("--autotune", action="store_true", help="let Dataset AutoTune tune the input pipeline")
    parser.add_argument("--profile", action="store_true", help="profile the run, data pipeline included")
    parser.add_argument("--output-dir", default="./output")
    return parser.parse_args()


def build_network():
    """A fresh ResNet-50 with an ImageNet-sized head, trained from scratch."""
    # ms-perflint: MSP104 -- Ascend's ResNet-50 kernels are tuned for 1001 classes
    # (fix: 1000 -> 1001; the labels stay below 1000, so training is unchanged).
    return resnet50(class_num=1000)


class SaveLatest(Callback):
    """Overwrite one checkpoint of the network at the end of every epoch, to resume after preemption."""

    def __init__(self, path):
        super().__init__()
        self.path = path

    def on_train_epoch_end(self, run_context):
        # ms-perflint: fine for MSP103 -- saved asynchronously: training does not wait for the disk.
        ms.save_checkpoint(run_context.original_args().network, self.path, async_save=True)


def export_weights(output_dir):
    """Write a weights-only copy of each saved checkpoint (no optimizer state) for inference."""
    export_dir = os.path.join(output_dir, "weights")
    os.makedirs(export_dir, exist_ok=True)
    for name in sorted(os.listdir(output_dir)):
        if not fnmatch.fnmatch(name, TRAINING_CHECKPOINTS):
            continue
        params = ms.load_checkpoint(os.path.join(output_dir, name))
        weights = {key: value for key, value in params.items() if not key.startswith(OPTIMIZER_STATE_PREFIXES)}
        # ms-perflint: fine for MSP103 -- a conversion loop: it saves once per file and trains nothing.
        ms.save_checkpoint(weights, os.path.join(export_dir, name))


def main():
    args = parse_args()
    # ms-perflint: fine for MSP202 -- graph mode unless PyNative is asked for (--mode pynative, to debug).
    mode = ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE
    ms.set_context(mode=mode, device_target=args.device_target)
    ms.set_seed(1)
    os.makedirs(args.output_dir, exist_ok=True)

    if args.autotune:
        # ms-perflint: MSP105 -- --autotune and --profile can be given together, and the profiler
        # below profiles the data pipeline, so MindSpore would silently drop AutoTune.
        ds.config.set_enable_autotune(True, os.path.join(args.output_dir, "autotune"))
    profiler = None
    if args.profile:
        # ms-perflint: fine for MSP502 -- profiling only in the runs that ask for it (--profile).
        profiler = ms.Profiler(output_path=os.path.join(args.output_dir, "profile"), data_process=True)

    dataset = create_dataset(args.steps * args.batch_size, args.batch_size, image_size=args.image_size)
    net = build_network()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=args.lr, momentum=0.9)
    # Dynamic loss scaling on an accelerator; MindSpore's CPU backend accepts no loss scale with AMP.
    loss_scale = None if args.device_target == "CPU" else DynamicLossScaleManager()
    # ms-perflint: MSP101 -- the network's attention and MLP layers run in float32: no mixed precision
    # is set for this program (fix: amp_level="O2").
    model = Model(net, loss_fn=loss, optimizer=optimizer, metrics={"acc"}, loss_scale_manager=loss_scale)

    # ms-perflint: MSP103 -- checkpoints are written synchronously, stalling training
    # (fix: async_save=True).
    config = CheckpointConfig(save_checkpoint_steps=args.save_steps, keep_checkpoint_max=5)
    checkpoints = ModelCheckpoint(prefix="resnet50", directory=args.output_dir, config=config)
    latest = SaveLatest(os.path.join(args.output_dir, "resnet50-latest.ckpt"))
    callbacks = [TimeMonitor(), LossMonitor(1), checkpoints, latest]
    # ms-perflint: MSP204 -- every step copies its batch from the host and returns to it (fix:
    # dataset_sink_mode=True; the callbacks then run once per sink, here once an epoch).
    model.train(1, dataset, callbacks=callbacks, dataset_sink_mode=False)

    if profiler is not None:
        profiler.analyse()
    export_weights(args.output_dir)


if __name__ == "__main__":
    main()
