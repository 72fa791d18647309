"""Fuzz: generated hostile files among good ones, through a real folder run with two workers.

Each example is a folder of good programs (each with one MSP103 finding) and generated bad files: deep
nesting by brackets and by backslash continuations, files over the size limit, bytes that are not the
declared encoding, notebooks that are not notebooks, YAML that is not YAML. The run must name every bad
file exactly once (as its error), print every good file's finding, exit 1, and leave no process behind.
Bounded: a handful of examples, each a few seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO

GOOD = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
#: The size limit of the fuzzed runs (set in the folder's pyproject.toml), so that "huge" stays cheap.
LIMIT = 50_000


def brackets(depth: int) -> bytes:
    return ("import mindspore\nx = " + "(" * depth + "1" + ")" * depth + "\n").encode()


def continuations(count: int) -> bytes:
    return ("import mindspore\nx = " + "lambda: \\\n" * count + "1\n").encode()


def huge(extra: int) -> bytes:
    line = "import mindspore  # " + "x" * 70 + "\n"
    return (line * (LIMIT // len(line) + 1 + extra)).encode()


def bad_encoding(junk: bytes) -> bytes:
    return b"import mindspore\nname = '" + b"\xff\xfe" + junk + b"'\n"


def declared_wrongly(junk: bytes) -> bytes:
    return b"# -*- coding: ascii -*-\nimport mindspore\nname = '\xc3\xa9" + junk + b"'\n"


NOTEBOOKS = {
    "invalid JSON": b'{"cells": [',
    "cells as strings": json.dumps({"cells": ["import mindspore"], "metadata": {}, "nbformat": 4}).encode(),
    "nbformat 3": json.dumps({"worksheets": [], "metadata": {}, "nbformat": 3}).encode(),
    "a list": b"[1, 2, 3]",
}
YAMLS = {
    "unclosed": b"model:\n  type: CheckpointMonitor\n  prefix: [llama\n",
    "tab indent": b"model:\n\ttype: CheckpointMonitor\n",
    "bad alias": b"run_mode: train\ncallbacks:\n  - *missing\n",
}

bad_python = st.one_of(
    st.integers(min_value=1_000, max_value=5_000).map(brackets),
    st.integers(min_value=1_000, max_value=5_000).map(continuations),
    st.integers(min_value=0, max_value=200).map(huge),
    st.binary(min_size=0, max_size=20).map(bad_encoding),
    st.binary(min_size=0, max_size=20).map(declared_wrongly),
)
bad_files = st.lists(
    st.one_of(
        bad_python.map(lambda data: (".py", data)),
        st.sampled_from(sorted(NOTEBOOKS)).map(lambda kind: (".ipynb", NOTEBOOKS[kind])),
        st.sampled_from(sorted(YAMLS)).map(lambda kind: (".yaml", YAMLS[kind])),
    ),
    min_size=1, max_size=6,
)


def lingering(folder: Path) -> List[int]:
    """Processes still running in ``folder`` (workers that outlived the run)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if os.readlink(f"/proc/{entry}/cwd") == str(folder):
                    found.append(int(entry))
            except OSError:
                continue
    return found


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(bad=bad_files, good_count=st.integers(min_value=2, max_value=8))
def test_every_bad_file_is_named_once_and_every_good_file_is_checked(tmp_path_factory, bad, good_count):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "pyproject.toml").write_text(f"[tool.ms-perflint]\nmax-file-size = {LIMIT}\n")
    good = [f"good_{n}.py" for n in range(good_count)]
    for name in good:
        (folder / name).write_text(GOOD)
    bad_names: Dict[str, bytes] = {f"bad_{n}{suffix}": data for n, (suffix, data) in enumerate(bad)}
    for name, data in bad_names.items():
        (folder / name).write_bytes(data)

    completed = subprocess.run(
        [sys.executable, "-m", "ms_perflint", "--no-cache", "-j", "2", "--output-format", "json", "."],
        cwd=folder, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})

    assert completed.returncode == 1, completed.stderr
    assert "Traceback" not in completed.stderr and "internal error" not in completed.stderr, completed.stderr
    entries = json.loads(completed.stdout)
    reported: List[Tuple[str, str]] = [(Path(e["filename"]).name, e["code"] or e.get("name", "")) for e in entries]
    for name in good:
        assert reported.count((name, "MSP103")) == 1, (name, reported)
    for name in bad_names:
        about = [code for file, code in reported if file == name]
        assert len(about) == 1 and not about[0].startswith("MSP"), (name, about, completed.stderr)
    assert {file for file, _ in reported} == {*good, *bad_names}
    deadline = time.monotonic() + 5
    while lingering(folder) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert lingering(folder) == []
