"""The MindSpore facts MSP401, MSP501 and MSP502 rely on, checked on the real MindSpore 2.10 (CPU).

One subprocess (the interpreter running the tests, which has MindSpore in this tier) prints the facts as JSON:

- ``SummaryCollector(summary_dir, collect_freq=10, num_process=32, collect_specified_data, ...)``: the default the
  MSP501 fix writes, and the positions the catalogue reads; with ``collect_freq=1`` a 20-step run records summary
  data at every step, with the default at steps 1, 10 and 20 only;
- ``Model.train(epoch, train_dataset, callbacks, dataset_sink_mode=False, sink_size, ...)``: sinking is off by
  default (MSP501's sink-mode silence needs it asked for);
- MindSpore's own ``LossMonitor`` reads the loss on the host at every step even with ``per_print_times=1000``
  (why MSP401 leaves per-step callbacks alone), and ``Tensor.numpy()`` is ``asnumpy()``;
- ``Profiler()`` starts collecting when built and has no schedule; ``profile(...)`` takes ``start_profile`` (True)
  at position 5 and ``schedule`` (None); ``tensorboard_trace_handler`` parses synchronously by default (MSP502).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ms_perflint import catalogue as ms

pytestmark = pytest.mark.mindspore

PROBE = r'''
import inspect, json, tempfile
import numpy as np
import mindspore as ms
from mindspore import nn
import mindspore.dataset as ds
from mindspore.train import LossMonitor, Model, SummaryCollector
from mindspore.train.callback import _loss_monitor
from mindspore.train.summary.summary_record import SummaryRecord

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
facts = {"version": ms.__version__}
collector = inspect.signature(SummaryCollector.__init__).parameters
facts["collector_params"] = list(collector)[1:]
facts["collect_freq_default"] = collector["collect_freq"].default
train = inspect.signature(Model.train).parameters
facts["train_params"] = list(train)[1:]
facts["sink_default"] = train["dataset_sink_mode"].default
profile = inspect.signature(ms.profiler.profile.__init__).parameters
facts["profile_params"] = list(profile)[1:]
facts["profile_start_default"] = profile["start_profile"].default
facts["profile_schedule_default"] = profile["schedule"].default
facts["trace_handler_async"] = inspect.signature(ms.profiler.tensorboard_trace_handler).parameters["async_mode"].default
profiler = ms.Profiler(output_path=tempfile.mkdtemp())
facts["profiler_starts"] = profiler._prof_context.start_profile
facts["profiler_schedule"] = profiler.schedule_arg
profiler.stop()
tensor = ms.Tensor(np.arange(3, dtype=np.float32))
facts["numpy_is_asnumpy"] = bool((tensor.numpy() == tensor.asnumpy()).all())


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(x)


x = np.random.randn(40, 4).astype(np.float32)
y = np.random.randint(0, 2, 40).astype(np.int32)


def model():
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))


def data():
    return ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(2)  # 20 steps


recorded = []
record = SummaryRecord.record


def counting(self, step, *args, **kwargs):
    recorded.append(step)
    return record(self, step, *args, **kwargs)


SummaryRecord.record = counting
for freq in (1, 10):
    recorded.clear()
    model().train(1, data(), callbacks=[SummaryCollector(tempfile.mkdtemp(), collect_freq=freq)])
    facts["collected_steps_%d" % freq] = sorted(set(recorded) - {0})
SummaryRecord.record = record
reads = []
handle = _loss_monitor._handle_loss
_loss_monitor._handle_loss = lambda loss: reads.append(1) or handle(loss)
model().train(1, data(), callbacks=[LossMonitor(per_print_times=1000)])
facts["loss_monitor_reads"] = len(reads)
print("FACTS " + json.dumps(facts))
'''


@pytest.fixture(scope="module")
def facts(tmp_path_factory) -> dict:
    cwd = Path(tmp_path_factory.mktemp("facts"))
    (cwd / "probe.py").write_text(PROBE)  # graph mode compiles from source files, not from ``-c``
    completed = subprocess.run([sys.executable, "probe.py"], cwd=cwd, capture_output=True, text=True,
                               timeout=600, env={**os.environ, "GLOG_v": "3", "PYTHONDONTWRITEBYTECODE": "1"})
    assert completed.returncode == 0, completed.stderr[-3000:]
    line = next(line for line in completed.stdout.splitlines() if line.startswith("FACTS "))
    return json.loads(line[len("FACTS "):])


def test_the_release_is_2_10(facts):
    assert facts["version"].startswith("2.10")


def test_summary_collector_defaults_and_positions(facts):
    params = facts["collector_params"]
    assert facts["collect_freq_default"] == ms.SUMMARY_DEFAULT_FREQUENCY == 10
    assert params.index(ms.SUMMARY_FREQUENCY.keyword) == ms.SUMMARY_FREQUENCY.position
    specified = ms.SUMMARY_SPECIFIED_DATA[ms.SUMMARY_COLLECTOR]
    assert params.index(specified.keyword) == specified.position
    assert ms.SUMMARY_TENSOR_FREQUENCY.keyword in params and params[2] == "num_process"


def test_collect_freq_one_collects_at_every_step(facts):
    assert facts["collected_steps_1"] == list(range(1, 21))
    assert facts["collected_steps_10"] == [1, 10, 20]


def test_model_train_does_not_sink_by_default(facts):
    params = facts["train_params"]
    assert facts["sink_default"] is False
    assert params.index(ms.MODEL_TRAIN_SINK.keyword) == ms.MODEL_TRAIN_SINK.position
    assert params.index(ms.MODEL_TRAIN_SINK_SIZE.keyword) == ms.MODEL_TRAIN_SINK_SIZE.position


def test_loss_monitor_reads_the_loss_at_every_step_and_numpy_is_asnumpy(facts):
    assert facts["loss_monitor_reads"] == 20
    assert facts["numpy_is_asnumpy"] is True


def test_profilers_start_when_built_and_collect_every_step(facts):
    assert facts["profiler_starts"] is True and facts["profiler_schedule"] is None
    params = facts["profile_params"]
    start = ms.PROFILER_START[ms.PROFILE]
    assert params.index(start.keyword) == start.position and facts["profile_start_default"] is True
    assert params.index(ms.DATA_PROCESS[ms.PROFILE].keyword) == ms.DATA_PROCESS[ms.PROFILE].position
    assert ms.PROFILER_SCHEDULE in params and facts["profile_schedule_default"] is None
    assert facts["trace_handler_async"] is False
