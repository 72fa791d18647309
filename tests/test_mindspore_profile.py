"""``--profile`` with a real profile: ``examples/`` trained for a few steps under MindSpore 2.10's Profiler on CPU.

Run by ``tox -e mindspore``. The profile is what MindSpore writes (``FRAMEWORK/cpu_op_detail_info_0.csv``, every
operator with its full scope name); the test checks that findings map to the right lines with non-zero shares
and that ``--top`` names the model's Dense layers at the lines that build them.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.test_mindspore_e2e import cli, mindspore_installed, python  # noqa: F401 (a fixture)

pytestmark = pytest.mark.mindspore

#: Runs examples/train.py on CPU for 4 steps with its --profile switch (the real mindspore.Profiler).
PROFILE_RUN = """
import runpy, sys
sys.argv = ["train.py", "--device-target", "CPU", "--steps", "4", "--profile", "--output-dir", "out"]
runpy.run_path("train.py", run_name="__main__")
"""


def line_of(path: Path, text: str) -> int:
    """The 1-based line of ``path`` that holds ``text``."""
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def profiled(tmp_path_factory, mindspore_installed: None) -> Path:
    project = tmp_path_factory.mktemp("profiled") / "examples"
    shutil.copytree(REPO / "examples", project)
    run = python(PROFILE_RUN, cwd=project)
    assert run.returncode == 0, run.stderr[-3000:]
    assert list((project / "out" / "profile").rglob("cpu_op_detail_info_*.csv")), "the Profiler wrote no table"
    return project


def test_findings_of_examples_carry_their_profiled_share(profiled: Path):
    completed = cli("--profile", "out/profile", "--sort", "cost", ".", cwd=profiled)
    assert completed.returncode == 1, completed.stderr
    shares = {}
    for line in completed.stdout.splitlines():
        match = re.match(r"(\S+?):(\d+):\d+: (MSP\d{3}) \[(\d+\.\d) %\]", line)
        if match:
            shares[(match[1], int(match[2]), match[3])] = float(match[4])
    model = line_of(profiled / "train.py", "model = Model(")
    assert shares[("train.py", model, "MSP101")] > 0  # the MatMul-family operators of the whole network
    width = line_of(profiled / "src" / "model.py", "hidden_channels=1500")
    assert shares[("src/model.py", width, "MSP102")] > 0  # the MLP block that 1500 sizes
    assert "mapped to source lines" in completed.stderr


def test_top_names_the_dense_layers_at_the_lines_that_build_them(profiled: Path):
    completed = cli("--profile", "out/profile", "--top", "40", ".", cwd=profiled)
    assert completed.returncode == 0, completed.stderr
    listed = {}
    for line in completed.stdout.splitlines():
        match = re.match(r"\s*(\d+\.\d) %  (\S+):(\d+)  (\w+)\.(\w+) \((\w+)\)", line)
        assert match, line
        listed[(match[4], match[5])] = (match[2], int(match[3]), match[6], float(match[1]))
    source = profiled / "src" / "model.py"
    for owner, attribute, built in (("ResNet", "head", "self.head = nn.Dense("),
                                    ("SelfAttention", "qkv", "self.qkv = nn.Dense("),
                                    ("MLPBlock", "fc1", "self.fc1 = nn.Dense(")):
        assert listed[(owner, attribute)][:3] == ("src/model.py", line_of(source, built), "Dense"), listed
    shares = [share for *_, share in listed.values()]
    assert shares == sorted(shares, reverse=True) and shares[0] > 0
