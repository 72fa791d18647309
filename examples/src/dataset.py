"""Synthetic, in-memory image classification data (no download), and an input pipeline benchmark.

    python -m src.dataset              # throughput with Dataset AutoTune
    python -m src.dataset --profile    # a dataset profile instead (no AutoTune)
"""

import argparse
import time

import numpy as np
import mindspore.dataset as ds
import mindspore.dataset.transforms as transforms
import mindspore.dataset.vision as vision
from mindspore import Profiler, dtype as mstype

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


class RandomImages:
    """Random HWC uint8 images with integer labels, generated on the fly from a fixed seed."""

    def __init__(self, num_samples, image_size, num_classes, seed=0):
        self.num_samples = num_samples
        self.image_size = image_size
        self.num_classes = num_classes
        self.seed = seed

    def __getitem__(self, index):
        rng = np.random.default_rng(self.seed + index)
        image = rng.integers(0, 256, (self.image_size, self.image_size, 3), dtype=np.uint8)
        label = np.int32(rng.integers(0, self.num_classes))
        return image, label

    def __len__(self):
        return self.num_samples


def create_dataset(num_samples, batch_size, image_size=32, num_classes=1000, num_parallel_workers=2):
    """A shuffled, augmented, batched pipeline of ``num_samples`` random images."""
    # ms-perflint: fine for MSP301 -- RandomImages generates its samples in memory, reading no file: one
    # worker keeps up, and more would only add the cost of shipping samples between processes.
    dataset = ds.GeneratorDataset(RandomImages(num_samples, image_size, num_classes), ["image", "label"], shuffle=True)
    image_ops = [vision.RandomHorizontalFlip(), vision.Normalize(MEAN, STD), vision.HWC2CHW()]
    dataset = dataset.map(image_ops, input_columns="image", num_parallel_workers=num_parallel_workers)
    dataset = dataset.map(transforms.TypeCast(mstype.int32), input_columns="label")
    # ms-perflint: MSP203 -- a short last batch would make train.py's graph-mode Model compile a second
    # graph for its shape (fix: drop_remainder=True, which drops up to batch_size - 1 samples an epoch).
    return dataset.batch(batch_size)


def benchmark(args):
    """Iterate the pipeline alone and print its throughput."""
    if args.profile:
        # Measuring: profile the pipeline exactly as it is.
        profiler = Profiler(output_path=args.output_dir, data_process=True)
    else:
        # ms-perflint: fine for MSP105 -- AutoTune only runs when the profiler above does not.
        ds.config.set_enable_autotune(True)
        profiler = None
    dataset = create_dataset(args.batches * args.batch_size, args.batch_size)
    start = time.perf_counter()
    for _ in dataset.create_tuple_iterator(num_epochs=1):
        pass
    elapsed = time.perf_counter() - start
    print(f"{args.batches * args.batch_size / elapsed:.0f} images/s")
    if profiler is not None:
        profiler.analyse()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--profile", action="store_true", help="profile the pipeline instead of AutoTuning it")
    parser.add_argument("--output-dir", default="./profile_dataset")
    benchmark(parser.parse_args())
