"""MindSpore facts MSP201-MSP203 rely on, checked on the real MindSpore 2.10 (CPU) in subprocesses.

Run by the MindSpore tier (``pytest -m mindspore`` with the interpreter that has MindSpore). Each probe is one
short script; a missing MindSpore fails, never skips. The facts, and the catalogue entries they back:

- with no ``set_context(mode=...)`` the mode is PyNative (``get_context("mode") == 1``), ``GRAPH_MODE`` is 0 and
  ``PYNATIVE_MODE`` 1 (``catalogue.PYNATIVE_DEFAULT_SINCE``, ``GRAPH_MODE_VALUE``, ``PYNATIVE_MODE_VALUE``);
- ``mindspore.jit`` exists and ``ms_function`` no longer does (``JIT_DECORATORS``);
- ``set_context(save_graphs=True)`` writes IR files (and warns that it is deprecated), so does
  ``MS_DEV_SAVE_GRAPHS=1``; ``save_graphs=False`` and ``save_graphs_path`` alone write nothing (MSP201);
- ``Dataset.batch(batch_size, drop_remainder=False, ...)`` keeps a short last batch, and a compiled step --
  a ``TrainOneStepCell`` in GRAPH_MODE, a ``jit`` step in PyNative -- compiles a second graph for it, while
  ``drop_remainder=True`` compiles once and PyNative without jit compiles nothing (MSP203);
- ``Model.train``'s ``dataset_sink_mode`` defaults to False on 2.10 (the version fact MSP203's docs quote).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

pytestmark = pytest.mark.mindspore

TIMEOUT = 600


def python(code: str, cwd: Path, *args: str, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Run ``code`` as a script file (graph compiling reads the source) with this interpreter in ``cwd``."""
    script = cwd / "probe.py"
    script.write_text(code, encoding="utf-8")
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "GLOG_v": "2", **(env or {})}
    result = subprocess.run([sys.executable, str(script), *args], cwd=cwd, capture_output=True, text=True,
                            timeout=TIMEOUT, env=environment)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def tagged(output: str, tag: str) -> List[str]:
    prefix = tag + " "
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)]


def test_the_default_mode_is_pynative_and_jit_is_mindsporejit(tmp_path: Path):
    from ms_perflint import catalogue as ms

    result = python("""
import inspect
import mindspore as ms
from mindspore.train import Model
print("MODE", ms.get_context("mode"), ms.GRAPH_MODE, ms.PYNATIVE_MODE)
print("JIT", callable(ms.jit), hasattr(ms, "ms_function"))
print("SINK", inspect.signature(Model.train).parameters["dataset_sink_mode"].default)
print("VERSION", ms.__version__)
""", tmp_path)
    default, graph, pynative = map(int, tagged(result.stdout, "MODE")[0].split())
    assert (graph, pynative) == (ms.GRAPH_MODE_VALUE, ms.PYNATIVE_MODE_VALUE)
    assert default == ms.PYNATIVE_MODE_VALUE
    from packaging.version import Version

    assert Version(tagged(result.stdout, "VERSION")[0]) >= Version(ms.PYNATIVE_DEFAULT_SINCE)
    assert tagged(result.stdout, "JIT") == ["True False"]
    assert tagged(result.stdout, "SINK") == ["False"]


COMPILE_ONE_DENSE = """
import os, sys
import numpy as np
import mindspore as ms
from mindspore import nn, Tensor
if sys.argv[1:] == ["context"]:
    ms.set_context(save_graphs=True, save_graphs_path="ir")
elif sys.argv[1:] == ["off"]:
    ms.set_context(save_graphs=False, save_graphs_path="ir")
ms.set_context(mode=ms.GRAPH_MODE)
nn.Dense(8, 2)(Tensor(np.ones((4, 8), np.float32)))
files = [os.path.join(d, f) for d, _, names in os.walk("ir") for f in names] if os.path.isdir("ir") else []
print("IR", len([f for f in files if f.endswith(".ir")]))
"""


@pytest.mark.parametrize("how, writes", [("context", True), ("environment", True), ("off", False), ("none", False)])
def test_save_graphs_writes_ir_files(tmp_path: Path, how: str, writes: bool):
    env = {"MS_DEV_SAVE_GRAPHS": "1", "MS_DEV_SAVE_GRAPHS_PATH": "ir"} if how == "environment" else {}
    result = python(COMPILE_ONE_DENSE, tmp_path, how, env=env)
    written = int(tagged(result.stdout, "IR")[0])
    assert (written > 10) is writes, (how, written)
    if how == "context":
        assert "'save_graphs' will be deprecated" in result.stderr


SHORT_LAST_BATCH = """
import sys, time
import numpy as np
import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds
import mindspore.common.api as api
mode, step_kind, drop = sys.argv[1], sys.argv[2], sys.argv[3] == "drop"
if mode == "graph":
    ms.set_context(mode=ms.GRAPH_MODE)
compiled = []
cell_compile = type(api._cell_graph_executor).compile
def counting_cell(self, obj, *args, **kwargs):
    result = cell_compile(self, obj, *args, **kwargs)
    compiled.append(result[1])
    return result
type(api._cell_graph_executor).compile = counting_cell
jit_compile = api._JitExecutor.compile
phases = set()
def counting_jit(self, *args, **kwargs):
    phase = jit_compile(self, *args, **kwargs)
    if phase not in phases:
        phases.add(phase)
        compiled.append(True)
    return phase
api._JitExecutor.compile = counting_jit
net = nn.Dense(8, 2)
loss_fn = nn.MSELoss()
opt = nn.SGD(net.trainable_params(), 0.01)
if step_kind == "cell":
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
else:
    def forward(x, y):
        return loss_fn(net(x), y)
    grad_fn = ms.value_and_grad(forward, None, opt.parameters)
    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    if step_kind == "jit":
        step = ms.jit(step)
data = ds.NumpySlicesDataset({"x": np.random.rand(10, 8).astype(np.float32),
                              "y": np.random.rand(10, 2).astype(np.float32)}, shuffle=False).batch(4, drop_remainder=drop)
shapes, compiling_steps = [], []
for epoch in range(2):
    for x, y in data.create_tuple_iterator():
        before = sum(1 for c in compiled if c)
        step(x, y).asnumpy()
        if sum(1 for c in compiled if c) > before:
            compiling_steps.append(len(shapes))
        shapes.append(x.shape[0])
print("SHAPES", shapes)
print("COMPILING_STEPS", compiling_steps)
"""


@pytest.mark.parametrize("mode, step, drop, compiling_steps", [
    ("graph", "cell", "keep", "[0, 2]"),     # the short last batch (2 of 10 at 4) compiles a second graph
    ("graph", "plain", "keep", "[0, 2]"),    # so does a value_and_grad step in GRAPH_MODE
    ("graph", "cell", "drop", "[0]"),        # drop_remainder=True: one shape, one compile
    ("pynative", "jit", "keep", "[0, 2]"),   # a jit step compiles per shape too
])
def test_the_short_last_batch_compiles_a_second_graph(tmp_path: Path, mode, step, drop, compiling_steps):
    result = python(SHORT_LAST_BATCH, tmp_path, mode, step, drop)
    assert tagged(result.stdout, "SHAPES") == ["[4, 4, 2, 4, 4, 2]" if drop == "keep" else "[4, 4, 4, 4]"]
    assert tagged(result.stdout, "COMPILING_STEPS") == [compiling_steps], result.stdout


def test_pynative_without_jit_does_not_compile_for_the_short_batch(tmp_path: Path):
    result = python(SHORT_LAST_BATCH, tmp_path, "pynative", "plain", "keep")
    assert "2" not in tagged(result.stdout, "COMPILING_STEPS")[0].strip("[]").split(", "), result.stdout
