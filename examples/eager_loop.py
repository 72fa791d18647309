"""Train the regression model eagerly: a first port of a PyTorch loop, step by step in PyNative mode.

    python eager_loop.py --device-target CPU --samples 64 --epochs 2

Writes --samples synthetic samples to --data-dir (one .npy file each) unless they are
there, then trains with value_and_grad and Momentum, printing the mean loss of each
epoch. Comments marked "ms-perflint:" say what the linter reports on a line, or why a
similar-looking line is fine.
"""

import argparse
import os

import mindspore as ms
from mindspore import nn

from src.regression import Regressor, create_npy_dataset, write_samples


def parse_args():
    parser = argparse.ArgumentParser(description="Train the regression model eagerly.")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--data-dir", default="./regression_data")
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=10)
    return parser.parse_args()


def main():
    args = parse_args()
    # ms-perflint: MSP202 -- PyNative launches every operator of every step from Python, and nothing here
    # is compiled with ms.jit (no automatic fix: compile the train step with @ms.jit, as custom_loop.py
    # does, once it runs under jit's graph syntax).
    # ms-perflint: fine for MSP201 -- save_graphs=False, the default, spelled out as much real code does.
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target=args.device_target, save_graphs=False)
    if not os.path.isdir(args.data_dir):
        write_samples(args.data_dir, args.samples)
    dataset = create_npy_dataset(args.data_dir, args.batch_size)
    net = Regressor()
    loss_fn = nn.MSELoss()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)

    def forward(features, target):
        return loss_fn(net(features), target)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def train_step(features, target):
        loss, grads = grad_fn(features, target)
        optimizer(grads)
        return loss

    net.set_train()
    for epoch in range(1, args.epochs + 1):
        losses = [train_step(features, target) for features, target in dataset.create_tuple_iterator(num_epochs=1)]
        # ms-perflint: fine for MSP401 -- the losses are read once an epoch, after the loop.
        mean = sum(loss.asnumpy().item() for loss in losses) / len(losses)
        print(f"epoch {epoch}: mean loss {mean:.4f}, dtype {losses[-1].dtype}", flush=True)


if __name__ == "__main__":
    main()
