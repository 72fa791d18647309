"""End to end under real MindSpore: fix ``examples/`` with the real CLI, then train both copies.

Run by ``tox -e mindspore`` (``pytest -m mindspore``). In that tier MindSpore must be
installed: a missing MindSpore fails these tests, it never skips them.

A copy of ``examples/`` is fixed with ``ms-perflint --fix --unsafe-fixes``; a second,
untouched copy is the baseline. Then, as subprocesses on CPU:

- the fix leaves nothing fixable in one run, and changes exactly the lines it reports;
- both copies train for 2 steps and write checkpoints;
- the fixed copy's CheckpointConfig saves asynchronously and its Model trains with AMP O2
  (read from the objects the training script actually built), the original's does not;
- the fixed checkpoint holds the 1001-class head;
- finetune.py (the look-alikes, left alone by the fix) fine-tunes from the original's
  1000-class checkpoint in both copies;
- the fixed train.py asks for data sinking (MSP204) and still logs every step on CPU; train_cnn.py
  trains in both copies, in float32 before MSP107's fix and with AMP O2 after;
- the fixed dataset drops its short last batch (MSP203), and custom_loop.py (MSP401,
  no fix) trains in both copies;
- eager_loop.py (MSP202, no fix) trains in both copies, in float64 before MSP106's fix and
  float32 after; debug_train.py trains in both, writes IR files only before MSP201's fix, and
  the fixed GeneratorDataset over .npy files runs more than one worker (MSP301).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Set, Tuple

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.mindspore

EXAMPLES = REPO / "examples"
STEPS = 2
TIMEOUT = 1200
_SHOWN_FIX = re.compile(r"^(?P<path>[^:\s]+\.py):(?P<line>\d+): (?P<code>MSP\d{3}) ")
_FINDING = re.compile(r"^(?P<path>[^:\s]+\.py):(?P<line>\d+):\d+: (?P<code>MSP\d{3})")

#: Runs a script of the example (from the current folder) after wrapping CheckpointConfig and Model so the
#: async_save and amp_level of what the script builds are printed: what training really used.
RUN_AND_RECORD = """
import runpy, sys
import mindspore.train as train
config_init, model_init = train.CheckpointConfig.__init__, train.Model.__init__
def recording_config(self, *args, **kwargs):
    config_init(self, *args, **kwargs)
    print("CHECKPOINT_CONFIG async_save=%r" % (self.async_save,), flush=True)
def recording_model(self, *args, **kwargs):
    print("MODEL amp_level=%r" % (kwargs.get("amp_level", "O0"),), flush=True)
    model_init(self, *args, **kwargs)
train_method = train.Model.train
def recording_train(self, *args, **kwargs):
    sink = kwargs.get("dataset_sink_mode", args[3] if len(args) > 3 else False)
    print("TRAIN dataset_sink_mode=%r" % (sink,), flush=True)
    return train_method(self, *args, **kwargs)
train.CheckpointConfig.__init__, train.Model.__init__ = recording_config, recording_model
train.Model.train = recording_train
script = sys.argv[1]
sys.argv = [script, "--device-target", "CPU", *sys.argv[2:]]
runpy.run_path(script, run_name="__main__")
"""

#: Loads a checkpoint and prints the shapes of its parameters.
CHECKPOINT_SHAPES = """
import json, sys
import mindspore as ms
print("SHAPES " + json.dumps({k: list(v.shape) for k, v in ms.load_checkpoint(sys.argv[1]).items()}))
"""


def python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``code`` with this interpreter (the one that has MindSpore) in ``cwd``."""
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=_env()
    )


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real ms-perflint CLI."""
    return subprocess.run(
        [sys.executable, "-m", "ms_perflint", *args], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, env=_env()
    )


def _env() -> Dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1", "GLOG_v": "3"}


def tagged(output: str, tag: str) -> List[str]:
    """Payloads of the lines a probe printed as ``TAG payload``."""
    prefix = tag + " "
    return [line[len(prefix):] for line in output.splitlines() if line.startswith(prefix)]


def python_files(root: Path) -> Dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*.py"))}


@pytest.fixture(scope="module")
def mindspore_installed() -> None:
    """Fail (never skip) when MindSpore is missing: this tier exists to run it."""
    probe = python("import mindspore; print(mindspore.__version__)", cwd=REPO)
    assert probe.returncode == 0, f"MindSpore is not importable by {sys.executable}; run `tox -e mindspore`\n{probe.stderr}"


@pytest.fixture(scope="module")
def copies(tmp_path_factory, mindspore_installed) -> SimpleNamespace:
    """``original`` and ``fixed`` copies of examples/, the findings before, and what --fix reported."""
    assert (EXAMPLES / "train.py").is_file(), "examples/train.py is missing"
    root = tmp_path_factory.mktemp("e2e")
    original, fixed = root / "original", root / "fixed"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "output", "*.ckpt")
    shutil.copytree(EXAMPLES, original, ignore=ignore)
    shutil.copytree(EXAMPLES, fixed, ignore=ignore)
    before = cli(".", cwd=original)
    assert before.returncode == 1, before.stdout + before.stderr
    fixing = cli("--fix", "--unsafe-fixes", "--show-fixes", ".", cwd=fixed)
    assert fixing.returncode in (0, 1), fixing.stdout + fixing.stderr
    assert fixing.stderr == "", fixing.stderr  # no discarded fix, no refused write, no non-convergence
    return SimpleNamespace(original=original, fixed=fixed, before=before.stdout, fixing=fixing.stdout)


def shown_fixes(output: str) -> Set[Tuple[str, int, str]]:
    return {(m["path"], int(m["line"]), m["code"]) for m in map(_SHOWN_FIX.match, output.splitlines()) if m}


def test_one_fix_run_leaves_nothing_fixable(copies):
    again = cli("--diff", "--unsafe-fixes", ".", cwd=copies.fixed)
    assert (again.returncode, again.stdout) == (0, ""), again.stdout + again.stderr
    assert shown_fixes(copies.fixing), "the examples are meant to have fixable findings"


def test_fix_changes_exactly_the_lines_it_reports(copies):
    before, after = python_files(copies.original), python_files(copies.fixed)
    assert before.keys() == after.keys()
    fixes = shown_fixes(copies.fixing)
    findings = {(m["path"], int(m["line"]), m["code"]) for m in map(_FINDING.match, copies.before.splitlines()) if m}
    assert fixes <= findings, "every fix applied is at a finding reported before fixing"
    for name in before:
        expected_lines = {line for path, line, _ in fixes if path == name}
        old = before[name].decode("utf-8").splitlines()
        new = after[name].decode("utf-8").splitlines()
        changed: Set[int] = set()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag in ("replace", "delete"):
                changed.update(range(i1 + 1, i2 + 1))
            if tag == "insert":  # only imports a fix needs may be added
                assert all(line.startswith(("import ", "from ")) for line in new[j1:j2]), new[j1:j2]
        assert changed == expected_lines, name
        if not expected_lines:
            assert before[name] == after[name], f"{name} has no fix but changed"


@pytest.fixture(scope="module")
def trained(copies) -> Dict[str, SimpleNamespace]:
    """Train both copies for a few steps on CPU; keep what each printed and wrote."""
    runs = {}
    for label, folder in (("original", copies.original), ("fixed", copies.fixed)):
        output_dir = folder / "output"
        done = python(RUN_AND_RECORD, "train.py", "--steps", str(STEPS), "--output-dir", str(output_dir), cwd=folder)
        runs[label] = SimpleNamespace(done=done, output_dir=output_dir)
    return runs


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_both_copies_train_and_write_checkpoints(trained, label):
    run = trained[label]
    assert run.done.returncode == 0, run.done.stdout[-3000:] + run.done.stderr[-3000:]
    steps = re.findall(r"epoch: 1 step: (\d+), loss is ([-0-9.e]+)", run.done.stdout)
    assert [int(step) for step, _ in steps] == list(range(1, STEPS + 1)), run.done.stdout[-3000:]
    assert all(float(loss) == float(loss) for _, loss in steps), "loss is NaN"
    assert list(run.output_dir.glob(f"resnet50-1_{STEPS}.ckpt")), sorted(p.name for p in run.output_dir.iterdir())


def test_fixed_copy_saves_asynchronously_and_trains_with_mixed_precision(trained):
    assert tagged(trained["original"].done.stdout, "CHECKPOINT_CONFIG") == ["async_save=False"]
    assert tagged(trained["fixed"].done.stdout, "CHECKPOINT_CONFIG") == ["async_save=True"]
    assert tagged(trained["original"].done.stdout, "MODEL") == ["amp_level='O0'"]
    assert tagged(trained["fixed"].done.stdout, "MODEL") == ["amp_level='O2'"]


def test_fixed_copy_asks_for_data_sinking_and_still_trains_every_step_on_cpu(trained):
    """MSP204's fix: the fixed Model.train asks for sinking; on the CPU MindSpore 2.x trains without sinking
    whatever the flag says, so LossMonitor(1) still logs every step (test_both_copies_train_and_write_checkpoints)."""
    assert tagged(trained["original"].done.stdout, "TRAIN") == ["dataset_sink_mode=False"]
    assert tagged(trained["fixed"].done.stdout, "TRAIN") == ["dataset_sink_mode=True"]


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_the_cnn_trains_in_both_copies_in_float32_before_the_fix_and_o2_after(copies, label):
    """train_cnn.py: MSP107's fix (amp_level="O2") trains, with a finite loss at every step."""
    folder = getattr(copies, label)
    done = python(RUN_AND_RECORD, "train_cnn.py", "--steps", str(STEPS), cwd=folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    steps = re.findall(r"epoch: 1 step: (\d+), loss is ([-0-9.e]+)", done.stdout)
    assert [int(step) for step, _ in steps] == list(range(1, STEPS + 1)), done.stdout[-3000:]
    assert all(float(loss) == float(loss) for _, loss in steps), "loss is NaN"
    assert tagged(done.stdout, "MODEL") == ["amp_level='O0'" if label == "original" else "amp_level='O2'"]
    assert tagged(done.stdout, "TRAIN") == ["dataset_sink_mode=True"]


def checkpoint_shapes(run) -> Dict[str, List[int]]:
    probe = python(CHECKPOINT_SHAPES, str(run.output_dir / f"resnet50-1_{STEPS}.ckpt"), cwd=run.output_dir)
    assert probe.returncode == 0, probe.stderr[-3000:]
    [payload] = tagged(probe.stdout, "SHAPES")
    return json.loads(payload)


def test_fixed_checkpoint_has_the_1001_class_head(trained):
    assert trained["original"].done.returncode == trained["fixed"].done.returncode == 0
    assert checkpoint_shapes(trained["original"])["head.weight"][0] == 1000
    assert checkpoint_shapes(trained["fixed"])["head.weight"][0] == 1001


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_finetune_loads_the_1000_class_weights_and_trains_with_mixed_precision(trained, copies, label):
    """The look-alikes are left alone: both copies' finetune.py load a 1000-class checkpoint and train."""
    original = trained["original"]
    assert original.done.returncode == 0
    weights = original.output_dir / f"resnet50-1_{STEPS}.ckpt"
    folder = getattr(copies, label)
    done = python(RUN_AND_RECORD, "finetune.py", "--pretrained", str(weights), "--steps", str(STEPS),
                  "--output-dir", str(folder / "finetuned"), cwd=folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert tagged(done.stdout, "MODEL") == ["amp_level='O2'"]
    assert tagged(done.stdout, "CHECKPOINT_CONFIG") == ["async_save=True"]


#: Prints how many batches the example's pipeline makes of 5 samples in batches of 2.
BATCH_COUNT = """
from src.dataset import create_dataset
print("BATCHES %d" % create_dataset(5, 2).get_dataset_size())
"""


def test_fixed_dataset_drops_the_short_last_batch(copies):
    """MSP203's fix: 5 samples in batches of 2 make 3 batches (the last of 1) before, 2 equal ones after."""
    counts = {}
    for label in ("original", "fixed"):
        done = python(BATCH_COUNT, cwd=getattr(copies, label))
        assert done.returncode == 0, done.stderr[-3000:]
        counts[label] = tagged(done.stdout, "BATCHES")
    assert counts == {"original": ["3"], "fixed": ["2"]}


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_the_hand_written_loop_trains_in_both_copies(copies, label):
    """custom_loop.py (MSP401, reported with no fix) trains and logs a finite loss, before and after the fix."""
    folder = getattr(copies, label)
    done = python(RUN_AND_RECORD, "custom_loop.py", "--steps", str(STEPS), "--log-every", "1", cwd=folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    logged = re.findall(r"^step (\d+): loss ([-0-9.e]+|nan)", done.stdout, re.MULTILINE)
    assert [int(step) for step, _ in logged] == list(range(1, STEPS + 1)), done.stdout[-3000:]
    assert all(float(loss) == float(loss) for _, loss in logged), "loss is NaN"
    assert f"trained {STEPS} steps" in done.stdout


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_the_eager_loop_trains_in_both_copies_and_the_fix_keeps_it_in_float32(copies, label):
    """eager_loop.py (MSP202, no fix) trains before and after; MSP106's fix turns its float64 outputs to float32."""
    folder = getattr(copies, label)
    done = python(RUN_AND_RECORD, "eager_loop.py", "--samples", "32", "--batch-size", "8", "--epochs", "2",
                  "--data-dir", str(folder / "regression_data"), cwd=folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    logged = re.findall(r"^epoch (\d+): mean loss ([-0-9.e]+|nan), dtype (\w+)", done.stdout, re.MULTILINE)
    assert [int(epoch) for epoch, _, _ in logged] == [1, 2], done.stdout[-3000:]
    assert all(float(loss) == float(loss) for _, loss, _ in logged), "loss is NaN"
    assert {dtype for *_, dtype in logged} == {"Float64" if label == "original" else "Float32"}


@pytest.mark.parametrize("label", ["original", "fixed"])
def test_the_debug_script_trains_in_both_copies_and_the_fix_stops_the_graph_dumps(copies, label):
    """debug_train.py: MSP201's fix stops the IR files, MSP501's keeps a summary, MSP502 (no fix) still profiles."""
    folder = getattr(copies, label)
    output = folder / "debug_output"
    done = python(RUN_AND_RECORD, "debug_train.py", "--samples", "32", "--batch-size", "8", "--epochs", "2",
                  "--data-dir", str(folder / "regression_data_debug"), "--output-dir", str(output), cwd=folder)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert tagged(done.stdout, "MODEL") == ["amp_level='O0'"]
    graphs = [p for p in (output / "graphs").rglob("*") if p.is_file()] if (output / "graphs").exists() else []
    assert (len(graphs) > 10) if label == "original" else graphs == [], len(graphs)
    assert [p for p in (output / "summary").rglob("*summary*") if p.is_file()], "no summary written"
    assert [p for p in (output / "profile").rglob("*") if p.is_file()], "no profile written"


#: Builds the regression pipeline over 8 files in batches of 4: the GeneratorDataset's workers and the batches.
REGRESSION_PIPELINE = """
import tempfile
from src.regression import create_npy_dataset, write_samples
folder = tempfile.mkdtemp()
write_samples(folder, 8)
batched = create_npy_dataset(folder, 4)
print("WORKERS %d" % batched.children[0].num_parallel_workers)
print("BATCHES %d" % sum(1 for _ in batched.create_tuple_iterator(num_epochs=1)))
"""


def test_fixed_generator_dataset_reads_files_on_more_than_one_worker(copies):
    """MSP301's fix: the GeneratorDataset over .npy files gets the global worker count (capped at the host's
    cores, so at least 2 on any host this tier runs on), and still yields every batch."""
    seen = {}
    for label in ("original", "fixed"):
        done = python(REGRESSION_PIPELINE, cwd=getattr(copies, label))
        assert done.returncode == 0, done.stderr[-3000:]
        seen[label] = (int(tagged(done.stdout, "WORKERS")[0]), tagged(done.stdout, "BATCHES"))
    assert seen["original"] == (1, ["2"])
    assert seen["fixed"][0] > 1 and seen["fixed"][1] == ["2"], seen
