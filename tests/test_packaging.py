"""What the wheel ships: the rules' docs pages, so an installed copy's JSON ``url`` and SARIF ``helpUri`` open.

The wheel is built the way pip builds it for a user (an isolated build of a copy of the source tree), then
the CLI runs from the unpacked wheel alone -- not from this checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from ms_perflint.rules import ALL_RULES
from tests.conftest import REPO

#: What a source tree holds that is not source (caches, virtual environments, benchmark corpora).
NOT_SOURCE = shutil.ignore_patterns(".git", ".tox", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*cache*",
                                    ".hypothesis", "bench")


TRAIN = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True)
net = nn.Dense(16, 4)
Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(1, dataset)
"""


def test_the_wheel_ships_every_rule_page_and_its_urls_open_them(tmp_path):
    source, wheels, unpacked = tmp_path / "source", tmp_path / "wheels", tmp_path / "unpacked"
    shutil.copytree(REPO, source, ignore=NOT_SOURCE)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = wheels.glob("ms_perflint-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        pages = {name.rsplit("/", 1)[-1] for name in archive.namelist() if name.startswith("ms_perflint/_docs/rules/")}
        archive.extractall(unpacked)
    assert pages == {f"{rule.code}.md" for rule in ALL_RULES}

    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    env = {"PYTHONPATH": str(unpacked), "PATH": "", "HOME": str(tmp_path), "NO_COLOR": "1"}
    run = subprocess.run([sys.executable, "-m", "ms_perflint", "--no-cache", "--output-format", "json", "--exit-zero",
                          "--no-project", "--select", "MSP201", "--isolated", "train.py"],
                         cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    [finding] = json.loads(run.stdout)
    page = Path(urllib.request.url2pathname(urllib.parse.urlparse(finding["url"]).path))
    assert page == unpacked / "ms_perflint" / "_docs" / "rules" / "MSP201.md"
    assert page.read_bytes() == (REPO / "docs" / "rules" / "MSP201.md").read_bytes()
