"""Where a project starts: the nearest folder with a root marker.

Kept apart from :mod:`~ms_perflint.project.index` (which loads the fact
collectors and YAML) because every file is asked for its root, including files
outside any project, where nothing else of the project package is needed.
"""

from __future__ import annotations

import functools
import os
from typing import Optional

#: Files or folders whose presence marks a project root.
ROOT_MARKERS = ("pyproject.toml", "setup.py", ".git")


def find_root(path: str) -> Optional[str]:
    """The nearest folder at or above ``path`` holding a root marker, or None."""
    folder = os.path.abspath(path)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    return folder_root(folder)


@functools.lru_cache(maxsize=1 << 14)
def folder_root(folder: str) -> Optional[str]:
    """:func:`find_root` of an absolute folder. Each folder is looked at once, its parent's answer reused: a run
    asks for every file of a tree (:func:`forget` clears the answers, for a process that outlives changes)."""
    if any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS):
        return folder
    parent = os.path.dirname(folder)
    return None if parent == folder else folder_root(parent)


def forget() -> None:
    """Look at the disk again: a marker may have been added or removed since."""
    folder_root.cache_clear()


def is_root(folder: str) -> bool:
    """True when ``folder`` is a project root of its own (a nested project is not part of the outer one)."""
    return any(os.path.exists(os.path.join(folder, marker)) for marker in ROOT_MARKERS)
