"""Where a project starts: the nearest folder with a root marker, else the working folder.

The one rule every front end uses (docs/project.md, "How the project is found"):
:func:`project_root`.

Kept apart from :mod:`~ms_perflint.project.index` (which loads the fact
collectors and YAML) because every file is asked for its root, including files
outside any project, where nothing else of the project package is needed.
"""

from __future__ import annotations

import functools
import os
from typing import Optional

#: Files or folders whose presence marks a project root: a repository, a package's setup files, and every file a
#: configuration can be read from (:data:`ms_perflint.config.CONFIG_FILES`), so that a project's configuration is
#: never below its root.
ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", ".git")
#: The markers as a sentence names them.
MARKERS_TEXT = "pyproject.toml, setup.py, setup.cfg, tox.ini or .git"
#: Why a path has no project root, as messages say it.
NO_ROOT_TEXT = (f"no {MARKERS_TEXT} at or above it, and the current folder does not hold it (the home and root "
                "folders never do)")


def project_root(path: str, working_folder: Optional[str]) -> Optional[str]:
    """The root of the project ``path`` (a file or a folder) is checked with, or None: checked alone.

    The nearest folder at or above ``path`` holding a root marker; else the working folder (the CLI's and
    flake8's current folder, the editor's workspace) when ``path`` is inside it, unless the working folder is
    the file system's root or the home folder (no project lives there: a run in it would index the disk).
    Naming a file, its folder or the working folder gives one root, so a file's findings never depend on how
    it was named.
    """
    root = find_root(path)
    if root is not None or not working_folder:
        return root
    absolute, folder = os.path.abspath(path), os.path.abspath(working_folder)
    if folder == os.path.dirname(folder) or folder == os.path.abspath(os.path.expanduser("~")):
        return None
    inside = absolute == folder or absolute.startswith(folder.rstrip(os.sep) + os.sep)
    return folder if inside else None


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
