"""The MindSpore facts MSP301 and MSP106 rely on, checked on the real MindSpore (2.10, CPU wheel).

Each probe runs as a subprocess with this interpreter (the one that has MindSpore) and prints what it measured;
the assertions read those lines. A missing MindSpore fails these tests, it never skips them.

MSP301 (generator-dataset-single-worker):

- GeneratorDataset's ``num_parallel_workers`` defaults to 1 and ``ds.config.set_num_parallel_workers`` does not
  change it: an epoch over an I/O-like source (20 ms per sample) takes as long after the global setting as
  before, and about half as long with ``num_parallel_workers=2``;
- ``num_parallel_workers=ds.config.get_num_parallel_workers()`` (the fix) is valid on any host, while a literal
  above the host's cores raises ``ValueError``;
- forked workers repeat each other's random draws unless ``ds.config.set_seed`` is called;
- for an in-memory source two workers are slower than one, and a generator function ignores the workers.

MSP106 (float64-constant-in-cell): a numpy array keeps float64 in a Tensor, float32 * float64 gives float64 and
what follows stays float64 (PyNative and graph mode), and ``dtype=float32`` keeps the Cell in float32.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

pytestmark = pytest.mark.mindspore

TIMEOUT = 300


def python(code: str, folder: Path) -> subprocess.CompletedProcess:
    """Run ``code`` from a file (graph mode compiles from source files) with this interpreter; it must succeed."""
    script = folder / "probe.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "GLOG_v": "3"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=TIMEOUT, env=env,
                          cwd=folder)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def tagged(output: str) -> Dict[str, List[str]]:
    """``TAG value...`` lines a probe printed, by tag."""
    found: Dict[str, List[str]] = {}
    for line in output.splitlines():
        tag, _, rest = line.partition(" ")
        if tag.isupper():
            found[tag] = rest.split()
    return found


#: An I/O-like source: each sample takes 20 ms (a stand-in for opening and decoding a file).
WORKERS_PROBE = """
import time
import numpy as np
import mindspore.dataset as ds

N = 40

class Files:
    def __len__(self):
        return N
    def __getitem__(self, index):
        time.sleep(0.02)
        return (np.array([index]),)

def epoch(dataset):
    iterator = dataset.create_tuple_iterator(output_numpy=True, num_epochs=2)
    times = []
    for _ in range(2):
        start = time.perf_counter()
        for _ in iterator:
            pass
        times.append(time.perf_counter() - start)
    return min(times)  # the faster epoch: worker start-up is not part of it

one = epoch(ds.GeneratorDataset(Files(), ["x"], shuffle=False))
ds.config.set_num_parallel_workers(2)
after_global = ds.GeneratorDataset(Files(), ["x"], shuffle=False)
print("DEFAULT_AFTER_GLOBAL", after_global.num_parallel_workers, ds.config.get_num_parallel_workers())
global_time = epoch(after_global)
two = epoch(ds.GeneratorDataset(Files(), ["x"], shuffle=False, num_parallel_workers=2))
print("EPOCH_SECONDS", one, global_time, two)
fixed = ds.GeneratorDataset(Files(), ["x"], num_parallel_workers=ds.config.get_num_parallel_workers())
print("FIXED_WORKERS", fixed.num_parallel_workers)
import multiprocessing
try:
    ds.GeneratorDataset(Files(), ["x"], num_parallel_workers=multiprocessing.cpu_count() + 1)
    print("ABOVE_CORES accepted")
except ValueError:
    print("ABOVE_CORES ValueError")
"""


def test_generator_dataset_default_ignores_the_global_setting_and_two_workers_overlap_reads(tmp_path):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("two workers need two cores")
    found = tagged(python(WORKERS_PROBE, tmp_path).stdout)
    workers, global_setting = map(int, found["DEFAULT_AFTER_GLOBAL"])
    one, after_global, two = map(float, found["EPOCH_SECONDS"])
    assert (workers, global_setting) == (1, 2)
    assert after_global > 0.8 * one, (one, after_global)  # the global setting bought nothing
    assert one / two > 1.3, (one, two)  # two workers overlap the reads (1.5-2.0x measured on a quiet host)
    assert int(found["FIXED_WORKERS"][0]) == 2
    assert found["ABOVE_CORES"] == ["ValueError"]


RANDOM_PROBE = """
import numpy as np
import mindspore.dataset as ds

class Draws:
    def __len__(self):
        return 40
    def __getitem__(self, index):
        return (np.array([np.random.randint(1 << 30)]),)

def distinct():
    dataset = ds.GeneratorDataset(Draws(), ["x"], shuffle=False, num_parallel_workers=2)
    return len({int(row[0][0]) for row in dataset.create_tuple_iterator(output_numpy=True, num_epochs=1)})

print("UNSEEDED", distinct())
ds.config.set_seed(7)
print("SEEDED", distinct())
"""


def test_forked_workers_repeat_random_draws_unless_the_dataset_seed_is_set(tmp_path):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("two workers need two cores")
    found = tagged(python(RANDOM_PROBE, tmp_path).stdout)
    assert int(found["UNSEEDED"][0]) == 20  # each of the two workers drew the same 20 numbers
    assert int(found["SEEDED"][0]) == 40


LOOKALIKES_PROBE = """
import time
import numpy as np
import mindspore.dataset as ds

rows = np.random.rand(2000, 32).astype(np.float32)

class InMemory:
    def __len__(self):
        return len(rows)
    def __getitem__(self, index):
        return (rows[index],)

def slow_generator():
    for index in range(40):
        time.sleep(0.01)
        yield (np.array([index]),)

def epoch(dataset):
    iterator = dataset.create_tuple_iterator(output_numpy=True, num_epochs=2)
    times = []
    for _ in range(2):
        start = time.perf_counter()
        for _ in iterator:
            pass
        times.append(time.perf_counter() - start)
    return min(times)

print("IN_MEMORY", epoch(ds.GeneratorDataset(InMemory(), ["x"], shuffle=False)),
      epoch(ds.GeneratorDataset(InMemory(), ["x"], shuffle=False, num_parallel_workers=2)))
print("GENERATOR", epoch(ds.GeneratorDataset(slow_generator, ["x"])),
      epoch(ds.GeneratorDataset(slow_generator, ["x"], num_parallel_workers=2)))
"""


def test_in_memory_sources_are_slower_with_two_workers_and_generator_functions_ignore_them(tmp_path):
    if (os.cpu_count() or 1) < 2:
        pytest.skip("two workers need two cores")
    found = tagged(python(LOOKALIKES_PROBE, tmp_path).stdout)
    memory_one, memory_two = map(float, found["IN_MEMORY"])
    generator_one, generator_two = map(float, found["GENERATOR"])
    assert memory_two > memory_one, (memory_one, memory_two)
    assert generator_two > 0.8 * generator_one, (generator_one, generator_two)  # one worker either way


FLOAT64_PROBE = """
import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops

print("TENSOR_DTYPES", Tensor(np.random.randn(2)).dtype, Tensor(np.ones(2)).dtype, Tensor(1.0).dtype,
      Tensor([1.0, 2.0]).dtype, Tensor(np.arange(3)).dtype, Tensor(np.random.randn(2), dtype=ms.float32).dtype)

class Jitter(nn.Cell):
    def __init__(self, dtype=None):
        super().__init__()
        data = np.random.uniform(0.99, 1.01, (4,))
        self.noise = Tensor(data) if dtype is None else Tensor(data, dtype=dtype)
    def construct(self, x):
        y = x * self.noise
        return y, ops.relu(y) + 1

x = Tensor(np.ones((2, 4)), ms.float32)
for mode, name in ((ms.PYNATIVE_MODE, "PYNATIVE"), (ms.GRAPH_MODE, "GRAPH")):
    ms.set_context(mode=mode)
    product, downstream = Jitter()(x)
    fixed, fixed_downstream = Jitter(ms.float32)(x)
    print(name, product.dtype, downstream.dtype, fixed.dtype, fixed_downstream.dtype)
"""


def test_float64_data_spreads_through_a_cell_and_dtype_float32_stops_it(tmp_path):
    found = tagged(python(FLOAT64_PROBE, tmp_path).stdout)
    assert found["TENSOR_DTYPES"] == ["Float64", "Float64", "Float32", "Float32", "Int64", "Float32"]
    for mode in ("PYNATIVE", "GRAPH"):
        assert found[mode] == ["Float64", "Float64", "Float32", "Float32"], (mode, found[mode])
