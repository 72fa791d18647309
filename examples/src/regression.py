"""A small regression model and a dataset of per-sample .npy files, for eager_loop.py and debug_train.py.

The model predicts a 16-value target from 64 features with a two-layer MLP, and scales its
output by a fixed per-output gain drawn once at construction (a jitter, as in routers that
add noise to their logits). The dataset keeps one sample per .npy file, as a dataset
converted from another format often does; ``write_samples`` makes such a folder.

Comments marked "ms-perflint:" say what the linter reports on a line, or why a
similar-looking line is fine.
"""

import os

import numpy as np
import mindspore.dataset as ds
from mindspore import Tensor, nn

FEATURES = 64
TARGETS = 16


class Regressor(nn.Cell):
    """features -> Dense -> ReLU -> Dense, times a fixed gain per output."""

    def __init__(self, hidden=128):
        super().__init__()
        self.hidden = nn.Dense(FEATURES, hidden)
        self.relu = nn.ReLU()
        self.out = nn.Dense(hidden, TARGETS)
        # ms-perflint: MSP106 -- np.random.uniform gives float64, and so does everything computed with it:
        # the outputs, the loss and its gradients run in double precision, on the AI CPU on Ascend
        # (fix: dtype=ms.float32, unsafe: the gains are rounded to float32).
        self.gain = Tensor(np.random.uniform(0.95, 1.05, (TARGETS,)))
        # ms-perflint: fine for MSP106 -- the data is float32 already.
        self.bias = Tensor(np.zeros(TARGETS, np.float32))

    def construct(self, x):
        return self.out(self.relu(self.hidden(x))) * self.gain + self.bias


class NpyFolder:
    """Random access to the samples of a folder written by ``write_samples``: one file per sample."""

    def __init__(self, folder):
        self.paths = sorted(os.path.join(folder, name) for name in os.listdir(folder) if name.endswith(".npy"))

    def __getitem__(self, index):
        sample = np.load(self.paths[index])
        return sample[:FEATURES], sample[FEATURES:]

    def __len__(self):
        return len(self.paths)


def write_samples(folder, count, seed=0):
    """Write ``count`` samples (features and a linear target, float32) to ``folder``, one .npy each."""
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal((FEATURES, TARGETS)).astype(np.float32)
    for index in range(count):
        features = rng.standard_normal(FEATURES).astype(np.float32)
        np.save(os.path.join(folder, f"{index:06d}.npy"), np.concatenate([features, features @ weights / 8.0]))


def create_npy_dataset(folder, batch_size):
    """Shuffled, batched samples of ``folder``."""
    # ms-perflint: MSP301 -- every sample is a file read by np.load in __getitem__, and GeneratorDataset
    # runs __getitem__ on one worker unless told otherwise (fix: num_parallel_workers, unsafe: workers
    # are processes). Compare dataset.py, whose source reads no file.
    dataset = ds.GeneratorDataset(NpyFolder(folder), ["features", "target"], shuffle=True)
    return dataset.batch(batch_size, drop_remainder=True)
