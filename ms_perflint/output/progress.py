"""A progress line on standard error while a long run analyses files (only on a terminal)."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

#: Runs shorter than this print nothing: a progress line that flashes by is noise.
SHOW_AFTER = 1.0
#: At most this many updates a second.
UPDATES_PER_SECOND = 10


class Progress:
    """``progress(done, total)`` callback that draws ``Analysing 120/818 files (12 s)`` over itself.

    The project's rules then decide, part by part (``progress(done, total, "parts")``): ``Deciding 3/13 parts
    (14 s)``. The time is counted from the start of the first phase, so a rule phase that follows a long analysis
    shows at once.
    """

    def __init__(self, stream: Optional[TextIO] = None, clock=time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.started: Optional[float] = None
        self.last = 0.0
        self.width = 0
        self.unit = "files"

    def __call__(self, done: int, total: int, unit: str = "files") -> None:
        now = self.clock()
        if self.started is None:
            self.started, self.last = now, 0.0
        if done >= total:
            self.clear()
            if unit == "parts":
                self.started, self.unit = None, "files"  # the run's last phase: the next run starts its own clock
            return
        elapsed = now - self.started
        changed, self.unit = unit != self.unit, unit  # a new phase is shown at once, however recent the last line
        if elapsed < SHOW_AFTER or (now - self.last < 1 / UPDATES_PER_SECOND and not changed):
            return
        self.last = now
        text = f"Deciding {done}/{total} parts" if unit == "parts" else f"Analysing {done}/{total} files"
        self._draw(f"{text} ({elapsed:.0f} s)")

    def clear(self) -> None:
        """Remove the line (before findings are printed, and at the end)."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def _draw(self, text: str) -> None:
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(text))


def wanted(quiet: bool, stream: Optional[TextIO] = None) -> bool:
    """Progress is shown on a terminal only, and not with ``-q``."""
    stream = stream if stream is not None else sys.stderr
    try:
        return not quiet and stream.isatty()
    except (AttributeError, ValueError):
        return False
