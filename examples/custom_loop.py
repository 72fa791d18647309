"""Train ResNet-50 with a hand-written loop: a compiled step from value_and_grad and jit.

    python custom_loop.py --device-target CPU --steps 2

The loop logs the loss every --log-every steps, and also keeps a running mean of it.
Comments marked "ms-perflint:" say what the linter reports on a line, or why a
similar-looking line is fine.
"""

import argparse

import mindspore as ms
from mindspore import nn

from src.dataset import create_dataset
from src.model import resnet50


def parse_args():
    parser = argparse.ArgumentParser(description="Train ResNet-50 with a hand-written loop.")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=2)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--log-every", type=int, default=10)
    return parser.parse_args()


def main():
    args = parse_args()
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target)
    net = resnet50()
    # ms-perflint: fine for MSP101 -- mixed precision for the whole network.
    net = ms.amp.auto_mixed_precision(net, "O2")
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.001, momentum=0.9)

    def forward(images, labels):
        return loss_fn(net(images), labels)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    @ms.jit
    def train_step(images, labels):
        loss, grads = grad_fn(images, labels)
        optimizer(grads)
        return loss

    net.set_train()
    dataset = create_dataset(args.steps * args.batch_size, args.batch_size, image_size=args.image_size)
    total = 0.0
    for step, (images, labels) in enumerate(dataset.create_tuple_iterator(num_epochs=1), start=1):
        loss = train_step(images, labels)
        # ms-perflint: MSP401 -- float() waits for the device to finish this step, at every step, so the
        # host cannot queue the next one meanwhile (no automatic fix: sum on the device, read every N steps).
        total += float(loss)
        if step % args.log_every == 0:
            # ms-perflint: fine for MSP401 -- read once every --log-every steps, not at every step.
            print(f"step {step}: loss {loss.asnumpy():.4f}, mean {total / step:.4f}", flush=True)
    print(f"trained {step} steps, mean loss {total / step:.4f}", flush=True)


if __name__ == "__main__":
    main()
