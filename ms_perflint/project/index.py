"""The project index: where the project is, and the facts of every file in it.

A *project* is the nearest folder at or above a linted file that holds
``pyproject.toml``, ``setup.py`` or ``.git`` (a folder given on the command line
when there is none). Its index holds :class:`~ms_perflint.project.facts.FileFacts`
for every Python file, config values of YAML files and launch scripts, and the
YAML findings. It is persisted in ``<root>/.ms_perflint_cache/`` keyed by
content hash: a re-run re-reads only files whose size or modification time
changed, and re-parses only those whose content hash changed. flake8's worker
processes share one build through a file lock: the first builds, the others
wait and read it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ms_perflint import __version__
from ms_perflint.discovery import SKIPPED_FOLDERS
from ms_perflint.project.configs import (
    SHELL_SUFFIXES,
    YAML_SUFFIXES,
    ConfigFinding,
    TextEdit,
    YamlScan,
    scan_shell,
    scan_yaml,
)
from ms_perflint.project.facts import ConfigEntry, FileFacts, collect_facts
from ms_perflint.project.roots import ROOT_MARKERS, find_root, is_root  # noqa: F401 -- re-exported

CACHE_FOLDER = ".ms_perflint_cache"
#: The cache layout's version; changes to the fact collectors are noticed by themselves (see ``_format``).
INDEX_FORMAT = 1
#: Files larger than this are not indexed (generated code, data dumped as Python).
MAX_FILE_BYTES = 2_000_000


@dataclass
class IndexedFile:
    """One file's record: how to tell it changed, and what it says."""

    kind: str  # "python", "yaml" or "shell"
    size: int
    mtime_ns: int
    digest: str
    facts: Optional[FileFacts] = None
    yaml: Optional[YamlScan] = None
    shell: List[ConfigEntry] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"kind": self.kind, "size": self.size, "mtime_ns": self.mtime_ns, "digest": self.digest}
        if self.facts is not None:
            data["facts"] = self.facts.to_json()
        if self.yaml is not None:
            data["yaml"] = {
                "entries": [vars(e) for e in self.yaml.entries],
                "findings": [_finding_json(f) for f in self.yaml.findings],
                "error": self.yaml.error,
            }
        if self.shell:
            data["shell"] = [vars(e) for e in self.shell]
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "IndexedFile":
        record = cls(data["kind"], data["size"], data["mtime_ns"], data["digest"])
        if "facts" in data:
            record.facts = FileFacts.from_json(data["facts"])
        if "yaml" in data:
            raw = data["yaml"]
            record.yaml = YamlScan(
                entries=[ConfigEntry(**e) for e in raw["entries"]],
                findings=[_finding_from_json(f) for f in raw["findings"]],
                error=raw.get("error"),
            )
        record.shell = [ConfigEntry(**e) for e in data.get("shell", [])]
        return record


def _finding_json(finding: ConfigFinding) -> Dict[str, Any]:
    data = dict(vars(finding))
    data["edit"] = vars(finding.edit) if finding.edit is not None else None
    return data


def _finding_from_json(data: Dict[str, Any]) -> ConfigFinding:
    edit = TextEdit(**data["edit"]) if data.get("edit") else None
    return ConfigFinding(data["code"], data["message"], data["line"], data["column"], edit, data.get("safety"),
                         data.get("end_line", 0), data.get("end_column", 0))


class ProjectIndex:
    """Facts of every file of one project, by path relative to the root ('/'-separated)."""

    def __init__(self, root: str, persist: bool = True) -> None:
        self.root = os.path.abspath(root)
        #: Read and write the index under ``<root>/.ms_perflint_cache/``; without, it lives in memory only.
        self.persist = persist
        self.files: Dict[str, IndexedFile] = {}
        #: How many files this refresh had to read / parse (for tests and ``--statistics``-style notes).
        self.read_count = 0
        self.parsed_count = 0
        self._digest: Optional[str] = None

    # --- paths ---------------------------------------------------------------

    def relative(self, path: str) -> Optional[str]:
        """``path`` relative to the root with '/' separators, or None when it is outside the project."""
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative.startswith(".." + os.sep) or relative == ".." or os.path.isabs(relative):
            return None
        return relative.replace(os.sep, "/")

    def absolute(self, relative: str) -> str:
        """The absolute path of a root-relative one."""
        return os.path.join(self.root, *relative.split("/"))

    def python_facts(self) -> Iterator[Tuple[str, FileFacts]]:
        """``(relative path, facts)`` of every indexed Python file."""
        for relative, record in sorted(self.files.items()):
            if record.facts is not None:
                yield relative, record.facts

    def digest(self) -> str:
        """A hash of every file's content hash: changes whenever any indexed file changes.

        A result cache must include it in the key of any file linted with the
        project: a finding in ``model.py`` may depend on ``train.py``.
        """
        if self._digest is None:
            joined = "\n".join(f"{path}:{record.digest}" for path, record in sorted(self.files.items()))
            self._digest = hashlib.sha256(f"{_format()}:{__version__}\n{joined}".encode()).hexdigest()
        return self._digest

    # --- building ----------------------------------------------------------------

    def refresh(self) -> "ProjectIndex":
        """Bring the index up to date with the files on disk, reusing the persisted one."""
        if not self.persist:
            self._update({})
            return self
        with _locked(self._cache_path() + ".lock"):
            if self._update(self._load()):
                self._save()
        return self

    def _update(self, previous: Dict[str, "IndexedFile"]) -> bool:
        """Set :attr:`files` from disk, reusing ``previous`` records; True when anything changed."""
        current: Dict[str, IndexedFile] = {}
        for relative, kind in _walk(self.root):
            record = self._record(relative, kind, previous.get(relative))
            if record is not None:
                current[relative] = record
        changed = current.keys() != previous.keys() or any(
            previous[p].digest != r.digest or previous[p].mtime_ns != r.mtime_ns for p, r in current.items()
        )
        self.files = current
        self._digest = None
        return changed

    def _record(self, relative: str, kind: str, previous: Optional[IndexedFile]) -> Optional[IndexedFile]:
        path = self.absolute(relative)
        try:
            status = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_FILE_BYTES:
            return None  # a FIFO would block the read; devices and sockets are not source files
        if previous is not None and previous.size == status.st_size and previous.mtime_ns == status.st_mtime_ns:
            return previous
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            return None
        self.read_count += 1
        digest = hashlib.sha256(data).hexdigest()
        if previous is not None and previous.digest == digest:
            return replace(previous, size=status.st_size, mtime_ns=status.st_mtime_ns)
        self.parsed_count += 1
        record = IndexedFile(kind, status.st_size, status.st_mtime_ns, digest)
        text = _decode(data, kind)
        if kind == "python":
            record.facts = collect_facts(text, module_name(relative), relative.endswith("/__init__.py"))
        elif kind == "yaml":
            record.yaml = scan_yaml(text)
        else:
            record.shell = scan_shell(text)
        return record

    # --- persistence ------------------------------------------------------------

    def _cache_path(self) -> str:
        return os.path.join(self.root, CACHE_FOLDER, f"project-index-{INDEX_FORMAT}.json")

    def _load(self) -> Dict[str, IndexedFile]:
        try:
            with open(self._cache_path(), encoding="utf-8") as handle:
                data = json.load(handle)
            if data.get("version") != __version__ or data.get("format") != _format():
                return {}
            return {path: IndexedFile.from_json(record) for path, record in data["files"].items()}
        except (OSError, ValueError, KeyError, TypeError):
            return {}  # missing, unreadable or from another version: rebuild

    def _save(self) -> None:
        payload = {
            "format": _format(),
            "version": __version__,
            "files": {path: record.to_json() for path, record in sorted(self.files.items())},
        }
        folder = os.path.dirname(self._cache_path())
        try:
            os.makedirs(folder, exist_ok=True)
            _ignore_cache_folder(folder)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".project-index-", suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(payload, stream)
            os.replace(temporary, self._cache_path())
        except OSError:
            pass  # a read-only project is linted all the same, just without the cache


@functools.lru_cache(maxsize=None)
def _format() -> str:
    """The index format: :data:`INDEX_FORMAT` plus a hash of the code that collects facts.

    Any change to what facts mean or look like (a new release, or a development
    checkout) makes older caches unusable, so they are rebuilt instead of misread.
    """
    from ms_perflint.project import configs, facts

    digest = hashlib.sha256()
    for module in (facts, configs):
        with open(module.__file__, "rb") as handle:
            digest.update(handle.read())
    return f"{INDEX_FORMAT}:{digest.hexdigest()[:16]}"


def module_name(relative: str) -> str:
    """``src/model.py`` -> ``src.model``; ``src/__init__.py`` -> ``src``."""
    parts = relative[: -len(".py")].split("/") if relative.endswith(".py") else relative.split("/")
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def _decode(data: bytes, kind: str) -> str:
    """Python files as Python reads them (BOM, coding cookie); configs as UTF-8. Bad bytes never raise."""
    if kind == "python":
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            return data.decode(encoding)
        except (UnicodeDecodeError, SyntaxError, LookupError):
            pass
    return data.decode("utf-8-sig", errors="replace")


def _kind_of(name: str) -> Optional[str]:
    if name.endswith(".py"):
        return "python"
    if name.endswith(YAML_SUFFIXES):
        return "yaml"
    if name.endswith(SHELL_SUFFIXES):
        return "shell"
    return None


def _walk(root: str) -> Iterator[Tuple[str, str]]:
    """``(relative path, kind)`` of the project's files, not entering tool folders or nested projects."""
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders
            if name not in SKIPPED_FOLDERS and not name.startswith(".") and not name.endswith(".egg-info")
            and not is_root(os.path.join(folder, name))
        )
        relative_folder = os.path.relpath(folder, root)
        for name in sorted(names):
            kind = _kind_of(name)
            if kind is None or name.startswith("."):
                continue
            relative = name if relative_folder == "." else f"{relative_folder}/{name}".replace(os.sep, "/")
            yield relative, kind


def _ignore_cache_folder(folder: str) -> None:
    marker = os.path.join(folder, ".gitignore")
    if not os.path.exists(marker):
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write("# Created by ms-perflint\n*\n")


@contextlib.contextmanager
def _locked(lock_path: str) -> Iterator[None]:
    """An exclusive lock between processes (flake8's workers); without fcntl or a writable folder, none."""
    try:
        import fcntl
    except ImportError:  # Windows: each process builds; the atomic replace keeps the file whole
        yield
        return
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        handle = open(lock_path, "a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- one index per root per process ------------------------------------------------

_LOADED: Dict[str, ProjectIndex] = {}


def load_index(root: str, refresh: bool = False, persist: bool = True) -> ProjectIndex:
    """The index of the project at ``root``, built or refreshed once per process (again with ``refresh``).

    With ``persist`` false (``--no-cache``) the index is built in memory, and no
    file under ``<root>/.ms_perflint_cache/`` is read or written.
    """
    root = os.path.abspath(root)
    index = _LOADED.get(root)
    if index is None or refresh:
        index = ProjectIndex(root, persist=persist).refresh()
        _LOADED[root] = index
        from ms_perflint.project import view

        view.forget(root)
    return index
