"""Finding the files to lint from the paths a user gives."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

#: Suffixes checked when a folder is walked: Python files, notebooks and YAML configs. A file named on the
#: command line is always checked (launch scripts are read as part of their project, not reported on).
SOURCE_SUFFIXES = (".py", ".ipynb", ".yaml", ".yml")
YAML_SUFFIXES = (".yaml", ".yml")
#: Folders never walked into: tool caches, virtual environments, VCS metadata.
SKIPPED_FOLDERS = frozenset(
    (".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache", ".ipynb_checkpoints",
     ".pytest_cache", ".ruff_cache", ".ms_perflint_cache", "node_modules", "build", "dist", ".eggs")
)


def skipped_folder(name: str) -> bool:
    """A folder never walked into: tool caches, virtual environments, VCS metadata, hidden folders."""
    return name in SKIPPED_FOLDERS or name.endswith(".egg-info") or (name.startswith(".") and name not in (".", ".."))


class PathNotFound(Exception):
    """A path given on the command line does not exist."""


@dataclass
class Discovered:
    """Files to lint, in a stable order, and problems met on the way."""

    files: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)


#: ``excluded(path)``: should this file or folder be skipped? (``exclude``/``extend-exclude``)
Excluded = Callable[[str], bool]


def _default_excluded(path: str) -> bool:
    return skipped_folder(os.path.basename(path))


def discover(
    paths: Iterable[str],
    excluded: Optional[Excluded] = None,
    named_excluded: Optional[Excluded] = None,
    respect_gitignore: bool = False,
) -> Discovered:
    """Expand files and folders into source files; a missing path raises :class:`PathNotFound`.

    ``excluded`` prunes the walk of folders (default: :data:`SKIPPED_FOLDERS`).
    A path named in ``paths`` is skipped only when ``named_excluded`` (force-exclude)
    says so. With ``respect_gitignore``, files git ignores are dropped from the
    walk's results (and from the named ones when ``named_excluded`` is given).
    """
    found = Discovered()
    walked: List[str] = []
    named: List[str] = []
    for path in paths:
        if not (os.path.exists(path) or os.path.islink(path)):
            raise PathNotFound(path)
        if named_excluded is not None and named_excluded(path):
            continue
        if os.path.isdir(path):
            walked.extend(_walk(path, found, excluded or _default_excluded))
        else:
            named.append(path)
    if respect_gitignore:
        ignored = gitignored(walked + named if named_excluded is not None else walked)
        walked = [path for path in walked if path not in ignored]
        named = [path for path in named if path not in ignored]
    found.files = sorted(dict.fromkeys(named + walked))
    return found


def _walk(root: str, found: Discovered, excluded: Excluded) -> List[str]:
    files = []

    def on_error(error: OSError) -> None:
        found.problems.append(f"{error.filename}: cannot read folder: {error.strerror}")

    for folder, subfolders, names in os.walk(root, onerror=on_error):
        subfolders[:] = sorted(d for d in subfolders if not excluded(os.path.join(folder, d)))
        hidden = _in_hidden_folder(root, folder)
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES) and not (hidden and name.endswith(YAML_SUFFIXES)):
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not excluded(path):
                    files.append(os.path.normpath(path) if root != "." else os.path.relpath(path))
    return files


def _in_hidden_folder(root: str, folder: str) -> bool:
    """``folder`` is inside a hidden folder below ``root`` (``.github/``, ``.gitee/ISSUE_TEMPLATE/``): YAML there
    is CI or issue-form configuration, never a model's."""
    relative = os.path.relpath(folder, root)
    return relative != "." and any(part.startswith(".") for part in relative.split(os.sep))


def gitignored(paths: Sequence[str]) -> Set[str]:
    """The paths git ignores, asking one ``git check-ignore --stdin`` per work tree.

    Paths outside a git work tree, or when git is missing or fails, are kept
    (nothing is filtered). Tracked files are never reported as ignored by git.
    """
    by_work_tree: Dict[str, List[str]] = {}
    work_trees: Dict[str, Optional[str]] = {}  # per call: a long-lived process sees a `git init` done since
    for path in paths:
        root = _work_tree(os.path.dirname(os.path.abspath(path)), work_trees)
        if root is not None:
            by_work_tree.setdefault(root, []).append(path)
    ignored: Set[str] = set()
    for root, members in by_work_tree.items():
        ignored.update(_check_ignore(root, members))
    return ignored


def _work_tree(folder: str, known: Dict[str, Optional[str]]) -> Optional[str]:
    """The nearest folder at or above ``folder`` holding ``.git`` (a folder, or a file for worktrees/submodules).

    ``known`` remembers the answers of one :func:`gitignored` call (folder -> work tree, None: not in one).
    """
    if folder not in known:
        if os.path.exists(os.path.join(folder, ".git")):
            known[folder] = folder
        else:
            parent = os.path.dirname(folder)
            known[folder] = None if parent == folder else _work_tree(parent, known)
    return known[folder]


def _check_ignore(root: str, paths: List[str]) -> List[str]:
    by_absolute = {os.path.realpath(path): path for path in paths}
    request = "".join(absolute + "\0" for absolute in by_absolute).encode("utf-8", "surrogateescape")
    try:
        completed = subprocess.run(
            ["git", "-C", os.path.realpath(root), "check-ignore", "--stdin", "-z"],
            input=request,
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if completed.returncode not in (0, 1):  # 1: nothing ignored; 128: not a work tree, bad path, ...
        return []
    answers = completed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [by_absolute[answer] for answer in answers if answer in by_absolute]
