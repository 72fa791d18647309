"""A project's parts: the files that can change each other's findings, decided together.

Two files are *linked* when one can import the other, when a YAML or JSON config lives
where an entry script reads its configs, or when a launch script runs an entry script of
its tree. A *part* is a set of files linked directly or through others: each model of a
model zoo is one or a few parts, and a file no other file names is a part of its own.

The rules decide each part as a project of its own (:func:`ms_perflint.run.lint.decide`),
so a part's findings depend on its files only. A file's links depend only on its own facts
(:class:`Summary`) and on the names of the project's files (:class:`ModuleTable`), never on
another file's facts: after an edit that adds or removes no file, only the edited files are
linked again, and every part none of whose files changed keeps its stored findings.

Why importing covers what the model asks: the model resolves a dotted name in a file
through that file's imports, among the modules the file can import
(:meth:`ModuleTable.module_file`), so every file whose facts a name can reach is a module
an import names, a package above one, or a module below one, that the importer can import.
"""

from __future__ import annotations

import bisect
import hashlib
import posixpath
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ms_perflint.analysis.facts import MAIN, PythonFacts, ShellFacts, YamlFacts
from ms_perflint.analysis.python import STANDARD_LIBRARY

#: Folders of scripts whose configs and sources live one folder up.
SCRIPT_FOLDERS = frozenset(("scripts", "script", "tools", "tool", "bin", "src", "examples"))
#: Path parts that make a file a test, never a program.
TEST_FOLDERS = frozenset(("tests", "test", "testing", "unittest", "unittests", "ut", "st", "it"))

#: The folder of a project's installed packages (the "src layout"): they import from anywhere in the project.
INSTALLED = "src"

PYTHON_PART, CONFIG_PART, SHELL_PART, OTHER_PART = "python", "config", "shell", "other"
KINDS = (PYTHON_PART, CONFIG_PART, SHELL_PART, OTHER_PART)


@dataclass(frozen=True)
class Summary:
    """What a file's facts say about its links: the modules it imports, whether it may run as a script, the
    scripts a launch script runs."""

    kind: str
    imports: Tuple[str, ...] = ()
    runs: bool = False
    scripts: Tuple[str, ...] = ()

    def to_json(self) -> list:
        return [self.kind, list(self.imports), self.runs, list(self.scripts)]

    @classmethod
    def from_json(cls, data: Sequence[object]) -> "Summary":
        """Raises ValueError on anything that is not a summary (the caller treats that as a miss)."""
        if not isinstance(data, list) or len(data) != 4:
            raise ValueError("not a summary")
        kind, imports, runs, scripts = data
        if kind not in KINDS or not isinstance(runs, bool) or not _strings(imports) or not _strings(scripts):
            raise ValueError("not a summary")
        return cls(kind, tuple(imports), runs, tuple(scripts))  # type: ignore[arg-type]


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def summary_of(path: str, facts: object) -> Summary:
    """A file's :class:`Summary`, from its facts."""
    if isinstance(facts, PythonFacts):
        runs = not is_test_file(path) and (path.endswith(".ipynb") or any(s.kind == MAIN for s in facts.scopes) or any(
            call.scope == 0 and not call.decorator for call in facts.calls))
        return Summary(PYTHON_PART, tuple(sorted({*facts.imports, *facts.star_imports})), runs)
    if isinstance(facts, YamlFacts):
        return Summary(CONFIG_PART)
    if isinstance(facts, ShellFacts):
        return Summary(SHELL_PART, scripts=tuple(sorted(set(facts.scripts))))
    return Summary(OTHER_PART)


def is_test_file(path: str) -> bool:
    """A test module or a file under a tests folder: checked by tests, never a program."""
    parts = path.split("/")
    name = parts[-1]
    if name.startswith("test_") or name.endswith(("_test.py", "_tests.py")) or name == "conftest.py":
        return True
    return any(part.lower() in TEST_FOLDERS for part in parts[:-1])


def config_belongs(config: str, entry: str) -> bool:
    """A YAML or JSON config is one of an entry's configs when it lives beside the entry (or above its scripts
    folder)."""
    base = _home(entry)
    return not base or config.startswith(base + "/")


def shell_belongs(shell: str, entry: str) -> bool:
    """A launch script runs an entry of its own tree: the entry lives under the script's folder (or the folder
    above a ``scripts/`` folder). A ``run_train.sh`` of another sub-project that also runs a ``train.py`` does not."""
    base = _home(shell)
    return not base or entry.startswith(base + "/")


def _home(path: str) -> str:
    """The folder a script's tree starts at: its own, or the one above its scripts folder (an entry's configs live
    under it; a launch script runs the entries under it)."""
    base = posixpath.dirname(path)
    return posixpath.dirname(base) if posixpath.basename(base) in SCRIPT_FOLDERS else base


class ModuleTable:
    """The dotted module names of a project's Python files, and which file a name means in an importer."""

    def __init__(self, paths: Iterable[str]) -> None:
        #: Every dotted suffix of every file's module name -> the files it names, each with the folder it is
        #: imported from under that name (``src.config`` names each ``<model>/src/config.py``, from ``<model>``).
        self._by_module: Dict[str, List[Tuple[str, str]]] = {}
        #: The same for the folders that hold modules (packages, with or without ``__init__.py``).
        self._folders: Dict[str, List[Tuple[str, str]]] = {}
        folders: Set[str] = set()
        for path in sorted(paths):
            names = _module_parts(path)
            for start in range(len(names)):
                self._by_module.setdefault(".".join(names[start:]), []).append((path, "/".join(names[:start])))
            folders.update(_folders_above(path))
        for folder in sorted(folders - {""}):
            names = folder.split("/")
            for start in range(len(names)):
                self._folders.setdefault(".".join(names[start:]), []).append((folder, "/".join(names[:start])))
        self._seen: Dict[Tuple[str, str], List[str]] = {}

    def candidates(self, module: str, importer: str) -> List[str]:
        """The files ``importer`` can import as ``module`` (:func:`_reaches`)."""
        where = posixpath.dirname(importer)
        key = (module, where)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = [path for path, root in self._by_module.get(module, ())
                                       if _reaches(root, module, where)]
        if any(c.endswith(".ipynb") for c in found):
            # A notebook names its own definitions through its module; no other file can import it.
            found = [c for c in found if not c.endswith(".ipynb") or c == importer]
        return found

    def packages(self, module: str, importer: str) -> List[str]:
        """The folders ``importer`` can import as the package ``module``."""
        where = posixpath.dirname(importer)
        return [folder for folder, root in self._folders.get(module, ()) if _reaches(root, module, where)]

    def module_file(self, module: str, importer: str) -> Optional[str]:
        """The file a dotted module name means in ``importer``: the nearest of the files it can import. None when
        none is: ``import logging`` in one model of a zoo is the standard library, not another model's
        ``src/logging.py``."""
        candidates = self.candidates(module, importer)
        if importer in candidates and importer.endswith(".ipynb"):
            return importer  # not a sibling ``.py`` of the same stem (often the notebook's export, or another script)
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        return min(candidates, key=lambda c: (-_shared_folders(c, importer), len(c), c))

def _module_parts(path: str) -> List[str]:
    """The names a file's dotted module name is made of, one per folder and one for the file (``a/b.c.py``:
    ``a``, ``b.c``: a dot in a file name is no package); a package is named by its folder."""
    names = [name for name in path.rsplit(".", 1)[0].split("/") if name]
    return names[:-1] if len(names) > 1 and names[-1] == "__init__" else names


def _reaches(root: str, module: str, where: str) -> bool:
    """Can a file in the folder ``where`` import, as ``module``, a module whose import root is ``root``? When that root
    is the project's root, its ``src/`` folder (a package there is installed: the "src layout"), or a folder that
    holds the importer (a script's own folder, or one above it that a launch script or ``sys.path.append("..")``
    puts on the path), or a folder below the importer's own (a script that puts its ``src/`` on the path). A module
    of another model's tree is not, nor a file named as a standard library module outside the importer's folders."""
    if not root or root == INSTALLED or where == root or where.startswith(root + "/"):
        return True
    return (not where or root.startswith(where + "/")) and module.split(".", 1)[0] not in STANDARD_LIBRARY


def _shared_folders(candidate: str, importer: str) -> int:
    count = 0
    for left, right in zip(posixpath.dirname(candidate).split("/"), posixpath.dirname(importer).split("/")):
        if left != right:
            break
        count += 1
    return count


def links(path: str, summary: Summary, table: ModuleTable) -> Set[str]:
    """What ``path`` can import: each module an import names and the packages above it, among the files it can
    import (all of them, not only the nearest: which one is nearest depends on every file that could be), and the
    folder of each package it imports (``/`` and its path), whose every module it can reach (``import src`` then
    ``src.models.resnet.ResNet``). A plain module has no modules below it (``from audio import melspectrogram`` of a
    ``src/audio.py`` names no folder ``audio``)."""
    found: Set[str] = set()
    for reference in summary.imports:
        parts = reference.split(".")
        for cut in range(1, len(parts) + 1):
            found.update(table.candidates(".".join(parts[:cut]), path))
        named = table.candidates(reference, path)
        if not named or any(c.endswith("__init__.py") for c in named):
            found.update(FOLDER + folder for folder in table.packages(reference, path))
    found.discard(path)
    return found


#: How :func:`links` names a folder (a package) rather than a file.
FOLDER = "/"


def partition(summaries: Dict[str, Summary], known: Optional[Dict[str, List[str]]] = None) -> List[List[str]]:
    """The parts of a project: sorted lists of root-relative paths, in the order of their first paths.
    ``known`` holds Python files' :func:`links` found before with the same Python files (:func:`python_digest`)
    and summaries; the others' are added to it."""
    known = {} if known is None else known
    python = sorted(path for path, summary in summaries.items() if summary.kind == PYTHON_PART)
    table: Optional[ModuleTable] = None
    joined = _Joined(summaries)
    for path in python:
        if path not in known:
            table = table or ModuleTable(python)
            known[path] = sorted(links(path, summaries[path], table))
        for other in known[path]:
            if other.startswith(FOLDER) and joined.add(other):
                for below in _under(python, other[1:]):
                    joined.join(other, below)
            joined.join(path, other)
    entries = sorted(path for path, summary in summaries.items() if summary.runs)
    by_home: Dict[str, List[str]] = {}
    for entry in entries:
        by_home.setdefault(_home(entry), []).append(entry)
    for path, summary in summaries.items():
        if summary.kind == CONFIG_PART:
            for folder in _folders_above(path):
                for entry in by_home.get(folder, ()):
                    joined.join(path, entry)
        elif summary.kind == SHELL_PART and summary.scripts:
            names = {posixpath.basename(script) for script in summary.scripts}
            for entry in _under(entries, _home(path)):
                if posixpath.basename(entry) in names:
                    joined.join(path, entry)
    return joined.groups()


def _under(paths: List[str], folder: str) -> List[str]:
    """The paths (sorted) under ``folder`` ("" : all of them)."""
    if not folder:
        return paths
    return paths[bisect.bisect_left(paths, folder + "/"):bisect.bisect_left(paths, folder + "0")]


def _folders_above(path: str) -> Iterable[str]:
    """Every folder that holds ``path``, the root ("") last."""
    folder = posixpath.dirname(path)
    while folder:
        yield folder
        folder = posixpath.dirname(folder)
    yield ""


class _Joined:
    """Union-find over paths (and the folders :func:`links` names, which are not part of any group)."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._parent = {path: path for path in paths}
        self._nodes: Set[str] = set()

    def add(self, node: str) -> bool:
        """Add a node that is no path; False when it is there already."""
        if node in self._parent:
            return False
        self._parent[node] = node
        self._nodes.add(node)
        return True

    def find(self, path: str) -> str:
        parent = self._parent
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    def join(self, left: str, right: str) -> None:
        if right not in self._parent or left not in self._parent:
            return
        left, right = self.find(left), self.find(right)
        if left != right:
            self._parent[max(left, right)] = min(left, right)

    def groups(self) -> List[List[str]]:
        grouped: Dict[str, List[str]] = {}
        for path in sorted(self._parent):
            if path not in self._nodes:
                grouped.setdefault(self.find(path), []).append(path)
        return sorted(grouped.values())


def python_digest(summaries: Dict[str, Summary]) -> str:
    """A hash of a project's Python files (their paths name its modules: what :func:`links` depend on besides a
    file's own summary)."""
    paths = sorted(path for path, summary in summaries.items() if summary.kind == PYTHON_PART)
    return hashlib.sha256("\0".join(paths).encode("utf-8", "surrogateescape")).hexdigest()


__all__ = ["Summary", "summary_of", "ModuleTable", "partition", "links", "config_belongs",
           "shell_belongs", "is_test_file", "python_digest", "SCRIPT_FOLDERS"]
