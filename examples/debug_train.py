"""Train the regression model with Model.train -- the copy of the script used to debug it.

    python debug_train.py --device-target CPU --samples 64 --epochs 2 --output-dir ./debug_output

Someone chased a slow step and a compile problem with this script, and the switches they
turned on are still on: graph dumps, a summary at every step, a profiler over the whole
run. Each costs every run of the script (ms-perflint reports all three); train.py shows
the same switches behind command-line flags, where they belong.

Writes --samples synthetic samples to --data-dir unless they are there. Comments marked
"ms-perflint:" say what the linter reports on a line, or why a similar-looking line is fine.
"""

import argparse
import os

import mindspore as ms
from mindspore import Profiler, nn
from mindspore.train import LossMonitor, Model, SummaryCollector

from src.regression import Regressor, create_npy_dataset, write_samples


def parse_args():
    parser = argparse.ArgumentParser(description="Train the regression model with Model.train.")
    parser.add_argument("--device-target", default="Ascend", choices=["Ascend", "GPU", "CPU"])
    parser.add_argument("--data-dir", default="./regression_data")
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--output-dir", default="./debug_output")
    return parser.parse_args()


def main():
    args = parse_args()
    # ms-perflint: MSP201 -- every graph this run compiles is written to disk at every compile pass: compiling
    # takes several times longer (fix: remove save_graphs, safe).
    ms.set_context(mode=ms.GRAPH_MODE, device_target=args.device_target, save_graphs=True,
                   save_graphs_path=os.path.join(args.output_dir, "graphs"))
    # ms-perflint: MSP502 -- the profiler collects every step of every run, and nothing stops it (no
    # automatic fix: profile behind a flag, as train.py's --profile, or with a schedule).
    profiler = Profiler(output_path=os.path.join(args.output_dir, "profile"))
    if not os.path.isdir(args.data_dir):
        write_samples(args.data_dir, args.samples)
    dataset = create_npy_dataset(args.data_dir, args.batch_size)
    net = Regressor()
    optimizer = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    model = Model(net, loss_fn=nn.MSELoss(), optimizer=optimizer)
    # ms-perflint: MSP501 -- the loss and the weights are copied to the host at every step (fix: the default,
    # collect_freq=10, unsafe: the summary keeps one point in ten).
    summary = SummaryCollector(summary_dir=os.path.join(args.output_dir, "summary"), collect_freq=1)
    # ms-perflint: fine for MSP204 -- not sunk while debugging: the summary is meant to see every step.
    model.train(args.epochs, dataset, callbacks=[summary, LossMonitor(10)], dataset_sink_mode=False)
    profiler.analyse()


if __name__ == "__main__":
    main()
