"""Progress on long runs: on a terminal only, never with -q, never in piped output."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from ms_perflint.output.progress import Progress, wanted
from tests.conftest import REPO


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_line_shows_files_done_of_total_and_elapsed_time_then_is_cleared():
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, clock)
    progress(1, 500)
    clock.now = 0.5
    progress(10, 500)
    assert stream.getvalue() == ""  # under a second: nothing flashes by
    clock.now = 2.0
    progress(120, 500)
    clock.now = 2.01
    progress(121, 500)  # throttled
    clock.now = 12.4
    progress(400, 500)
    progress(500, 500)
    written = stream.getvalue()
    assert written.split("\r")[1:] == ["Analysing 120/500 files (2 s)", "Analysing 400/500 files (12 s)",
                                       " " * 30, ""]


def test_the_rules_phase_follows_on_the_same_clock_then_the_next_run_starts_its_own():
    # mindformers: the rules decided for 10 s after "Analysing 765/895 files" with nothing on the screen.
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, clock)
    progress(1, 300)
    clock.now = 9.0
    progress(300, 300)
    progress(0, 13, "parts")  # shown at once: the run has been going for 9 s
    clock.now = 14.2
    progress(5, 13, "parts")
    progress(13, 13, "parts")
    assert [part.strip() for part in stream.getvalue().split("\r") if part.strip()] == [
        "Deciding 0/13 parts (9 s)", "Deciding 5/13 parts (14 s)"]
    assert stream.getvalue().endswith("\r")  # cleared
    clock.now = 100.0
    progress(1, 300)
    clock.now = 100.5
    progress(2, 300)
    assert "(100 s)" not in stream.getvalue() and "Analysing 2/300" not in stream.getvalue()


def test_the_rules_phase_is_shown_at_once_however_recently_the_analysis_was_drawn():
    stream, clock = io.StringIO(), Clock()
    progress = Progress(stream, clock)
    progress(1, 300)
    clock.now = 2.0
    progress(299, 300)
    clock.now = 2.03
    progress(300, 300)
    progress(0, 13, "parts")  # 30 ms after the last line: a new phase all the same
    clock.now = 2.05
    progress(1, 13, "parts")  # throttled again within the phase
    progress(13, 13, "parts")
    assert [part.strip() for part in stream.getvalue().split("\r") if part.strip()] == [
        "Analysing 299/300 files (2 s)", "Deciding 0/13 parts (2 s)"]


def test_progress_is_wanted_on_a_terminal_only_and_not_when_quiet():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert wanted(False, Terminal()) and not wanted(True, Terminal())
    assert not wanted(False, io.StringIO())


def on_a_terminal(*args: str, cwd: Path):
    """Run the CLI with standard error on a pseudo-terminal and standard output on a pipe."""
    leader, follower = os.openpty()
    completed = subprocess.run([sys.executable, "-m", "ms_perflint", *args], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=follower, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=600)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal is closed once the process and our end are done with it
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return completed, shown


def test_a_cold_run_on_a_terminal_shows_progress_on_standard_error(tmp_path: Path):
    for index in range(120):  # long enough to analyse (over a second) that progress shows
        (tmp_path / f"model_{index}.py").write_text(
            "import mindspore.nn as nn\n" + "".join(f"x{i} = nn.Dense({i + 1}, 16)\n" for i in range(300)))
    completed, shown = on_a_terminal("--no-cache", "-j1", ".", cwd=tmp_path)
    assert completed.returncode == 0, shown
    assert b"Analysing " in shown and b"/120 files (" in shown
    assert re.search(rb"Deciding \d+/\d+ parts \(\d+ s\)", shown)  # the project's rules decide after the analysis
    assert b"Analysing" not in completed.stdout
    quiet, shown = on_a_terminal("--no-cache", "-j1", "-q", ".", cwd=tmp_path)
    assert quiet.returncode == 0 and b"Analysing" not in shown + quiet.stdout
