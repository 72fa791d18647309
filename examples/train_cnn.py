"""Train a VGG-style CNN on synthetic images, on Ascend, GPU or CPU.

    python train_cnn.py --device-target CPU --steps 2      # a quick check on CPU
    python train_cnn.py --steps 1000 --batch-size 64       # on Ascend (the default)

Comments marked "ms-perflint:" say what the linter reports on a line, or why
a similar-looking line is fine.
"""

import argparse

import mindspore as ms
from mindspore import nn
from mindspore.train import DynamicLossScaleManager, LossMonitor, Model

from src.dataset import create_dataset
from src.vgg import SmallVGG


def parse_args():
    parser = argparse.ArgumentParser(description="Train a VGG-style CNN on synthetic images.")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--steps", type=int, default=100, help="training steps (one epoch of synthetic data)")
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=32)
    return parser.parse_args()


def main():
    args = parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
    ms.set_seed(1)
    dataset = create_dataset(args.steps * args.batch_size, args.batch_size, image_size=args.image_size,
                             num_classes=10)
    net = SmallVGG(num_classes=10)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    # Dynamic loss scaling on an accelerator; MindSpore's CPU backend accepts no loss scale with AMP.
    loss_scale = None if args.device_target == "CPU" else DynamicLossScaleManager()
    # ms-perflint: MSP107 -- 1.55 M convolution weights train in float32: no mixed precision is set
    # for this program (fix: amp_level="O2").
    model = Model(net, loss_fn=loss, optimizer=optimizer, loss_scale_manager=loss_scale)
    # ms-perflint: fine for MSP204 -- the dataset is sunk to the device (on the CPU, MindSpore trains
    # without sinking whatever the flag says).
    model.train(1, dataset, callbacks=[LossMonitor(1)], dataset_sink_mode=True)
    print(f"trained {dataset.get_dataset_size()} steps")


if __name__ == "__main__":
    main()
