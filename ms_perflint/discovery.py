"""Finding the files to lint from the paths a user gives."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, List

#: Suffixes linted when a folder is walked. A file named on the command line is always linted.
SOURCE_SUFFIXES = (".py",)
#: Folders never walked into: tool caches, virtual environments, VCS metadata.
SKIPPED_FOLDERS = frozenset(
    (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".ms_perflint_cache", "node_modules", "build", "dist", ".eggs")
)


class PathNotFound(Exception):
    """A path given on the command line does not exist."""


@dataclass
class Discovered:
    """Files to lint, in a stable order, and problems met on the way."""

    files: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)


def discover(paths: Iterable[str]) -> Discovered:
    """Expand files and folders into source files; a missing path raises :class:`PathNotFound`."""
    found = Discovered()
    for path in paths:
        if os.path.isdir(path):
            found.files.extend(_walk(path, found))
        elif os.path.exists(path) or os.path.islink(path):
            found.files.append(path)
        else:
            raise PathNotFound(path)
    found.files = sorted(dict.fromkeys(found.files))
    return found


def _walk(root: str, found: Discovered) -> List[str]:
    files = []

    def on_error(error: OSError) -> None:
        found.problems.append(f"{error.filename}: cannot read folder: {error.strerror}")

    for folder, subfolders, names in os.walk(root, onerror=on_error):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.endswith(".egg-info"))
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(folder, name)
                if os.path.isfile(path):
                    files.append(os.path.normpath(path) if root != "." else os.path.relpath(path))
    return files
