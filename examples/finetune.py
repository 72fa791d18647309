"""Fine-tune ResNet-50 from public 1000-class ImageNet weights, with mixed precision.

    python finetune.py --pretrained resnet50_imagenet.ckpt --device-target CPU --steps 2

The look-alikes of train.py, done the way ms-perflint wants them: it reports
nothing here. Comments marked "ms-perflint:" say why.
"""

import argparse
import os

import mindspore as ms
from mindspore import nn
from mindspore.train import CheckpointConfig, DynamicLossScaleManager, LossMonitor, Model, ModelCheckpoint

from src.dataset import create_dataset
from src.model import resnet50


def parse_args():
    parser = argparse.ArgumentParser(description="Fine-tune ResNet-50 from ImageNet weights.")
    parser.add_argument("--pretrained", required=True, help="a 1000-class ImageNet checkpoint of this ResNet-50")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--output-dir", default="./finetuned")
    return parser.parse_args()


def main():
    args = parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
    os.makedirs(args.output_dir, exist_ok=True)
    # ms-perflint: fine for MSP104 -- the 1000-class ImageNet checkpoint must still load into this head.
    net = resnet50(class_num=1000)
    ms.load_checkpoint(args.pretrained, net)
    dataset = create_dataset(args.steps * args.batch_size, args.batch_size, image_size=args.image_size)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.0001, momentum=0.9)
    # Dynamic loss scaling on an accelerator; MindSpore's CPU backend accepts no loss scale with AMP.
    loss_scale = None if args.device_target == "CPU" else DynamicLossScaleManager()
    # ms-perflint: fine for MSP101 -- mixed precision for the whole network.
    model = Model(net, loss_fn=loss, optimizer=optimizer, amp_level="O2", loss_scale_manager=loss_scale)
    # ms-perflint: fine for MSP103 -- saved asynchronously.
    config = CheckpointConfig(save_checkpoint_steps=max(1, args.steps // 2), async_save=True)
    checkpoints = ModelCheckpoint(prefix="resnet50-finetuned", directory=args.output_dir, config=config)
    # ms-perflint: fine for MSP204 -- the dataset is sunk to the device.
    model.train(1, dataset, callbacks=[LossMonitor(1), checkpoints], dataset_sink_mode=True)


if __name__ == "__main__":
    main()
