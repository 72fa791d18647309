"""The project index: the facts of every file of a project, kept up to date and on disk.

A *project* is the nearest folder at or above a checked file that holds
``pyproject.toml``, ``setup.py`` or ``.git`` (a folder given on the command line
when there is none). Its index holds the facts (:mod:`ms_perflint.analysis`) of
every Python file, notebook, YAML config and launch script in it, keyed by path.
It is persisted in ``<cache folder>/project-<hash of root>.json`` keyed by content
hash: a re-run re-reads only files whose size or modification time changed, and
re-analyses only those whose content changed. Processes share one build through a
file lock: the first builds, the others wait and read it. An entry that does not
read back as valid facts is a miss, and is rebuilt.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ms_perflint import __version__
from ms_perflint.analysis import analyse, module_name
from ms_perflint.analysis.facts import facts_from_json
from ms_perflint.findings import FileError
from ms_perflint.project.roots import is_root
from ms_perflint.sources import DEFAULT_MAX_FILE_SIZE, NOTEBOOK, NOTEBOOK_JSON_FACTOR, kind_of, load_unit, read_bytes, too_large
from ms_perflint.sources.discovery import skipped_folder

#: The cache layout's version; changes to the analysis are noticed by themselves (see ``_format``).
INDEX_FORMAT = 2


@dataclass
class IndexedFile:
    """One file's record: how to tell it changed, and its facts (or why it has none)."""

    kind: str
    size: int
    mtime_ns: int
    digest: str
    facts: Any = None
    error: Optional[FileError] = None

    def to_json(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"kind": self.kind, "size": self.size, "mtime_ns": self.mtime_ns, "digest": self.digest}
        if self.facts is not None:
            data["facts"] = self.facts.to_json()
        if self.error is not None:
            data["error"] = [self.error.kind, self.error.message, self.error.line, self.error.column, self.error.cell]
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "IndexedFile":
        """Raises on anything that is not a valid record (the caller treats that as a miss)."""
        record = cls(str(data["kind"]), int(data["size"]), int(data["mtime_ns"]), str(data["digest"]))
        if data.get("facts") is not None:
            record.facts = facts_from_json(data["facts"])
        if data.get("error") is not None:
            kind, message, line, column, cell = data["error"]
            record.error = FileError(str(kind), str(message), int(line), int(column), cell)
        return record


#: ``extract(jobs)``: analyse ``(relative, path, kind)`` jobs, returning records in the same order.
Extractor = Callable[[Sequence[Tuple[str, str, str]]], List["IndexedFile"]]


class ProjectIndex:
    """Facts of every file of one project, by path relative to the root ('/'-separated)."""

    def __init__(self, root: str, cache_folder: Optional[str] = None, max_size: Optional[int] = DEFAULT_MAX_FILE_SIZE) -> None:
        self.root = os.path.abspath(root)
        #: Where the index is kept between runs; None keeps it in memory only (``--no-cache``).
        self.cache_folder = cache_folder
        self.max_size = max_size
        self.files: Dict[str, IndexedFile] = {}
        #: How many files this refresh had to read / analyse (for tests and benchmarks).
        self.read_count = 0
        self.analysed_count = 0
        self._digest: Optional[str] = None

    # --- paths ---------------------------------------------------------------------------------

    def relative(self, path: str) -> Optional[str]:
        """``path`` relative to the root with '/' separators, or None when it is outside the project."""
        relative = os.path.relpath(os.path.abspath(path), self.root)
        if relative.startswith(".." + os.sep) or relative == ".." or os.path.isabs(relative):
            return None
        return relative.replace(os.sep, "/")

    def absolute(self, relative: str) -> str:
        """The absolute path of a root-relative one."""
        return os.path.join(self.root, *relative.split("/"))

    def facts(self) -> Dict[str, Any]:
        """``{relative path: facts}`` of every file that has facts."""
        return {path: record.facts for path, record in self.files.items() if record.facts is not None}

    def digest(self) -> str:
        """A hash of every file's content hash: it changes whenever any indexed file changes."""
        if self._digest is None:
            joined = "\n".join(f"{path}:{record.digest}" for path, record in sorted(self.files.items()))
            self._digest = hashlib.sha256(f"{_format()}:{__version__}\n{joined}".encode()).hexdigest()
        return self._digest

    # --- building ----------------------------------------------------------------------------

    def refresh(self, extract: Optional[Extractor] = None) -> "ProjectIndex":
        """Bring the index up to date with the files on disk, reusing the persisted one."""
        if self.cache_folder is None:
            self._update({}, extract)
            return self
        with _locked(self._cache_path() + ".lock"):
            if self._update(self._load(), extract):
                self._save()
        return self

    def _update(self, previous: Dict[str, IndexedFile], extract: Optional[Extractor]) -> bool:
        """Set :attr:`files` from disk, reusing ``previous`` records; True when anything changed."""
        current: Dict[str, IndexedFile] = {}
        jobs: List[Tuple[str, str, str]] = []
        for relative, kind in walk_project(self.root):
            path = self.absolute(relative)
            try:
                status = os.stat(path)
            except OSError:
                continue
            if not stat.S_ISREG(status.st_mode):
                continue  # a FIFO would block the read; devices and sockets are not source files
            known = previous.get(relative)
            if known is not None and known.size == status.st_size and known.mtime_ns == status.st_mtime_ns:
                current[relative] = known
            else:
                jobs.append((relative, path, kind))
        records = (extract or extract_records)(jobs)
        self.read_count += len(jobs)
        for (relative, _, _), record in zip(jobs, records):
            known = previous.get(relative)
            if known is not None and known.digest == record.digest:
                known.size, known.mtime_ns = record.size, record.mtime_ns
                current[relative] = known
                continue
            self.analysed_count += 1
            current[relative] = record
        changed = current.keys() != previous.keys() or any(
            previous[p].digest != r.digest or previous[p].mtime_ns != r.mtime_ns for p, r in current.items())
        self.files = current
        self._digest = None
        return changed

    def put(self, relative: str, record: IndexedFile) -> None:
        """Replace one file's record (a file just fixed, or unsaved text from an editor)."""
        self.files[relative] = record
        self._digest = None

    # --- persistence -----------------------------------------------------------------------------

    def _cache_path(self) -> str:
        name = hashlib.sha256(self.root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return os.path.join(self.cache_folder or "", f"project-{INDEX_FORMAT}-{name}.json")

    def _load(self) -> Dict[str, IndexedFile]:
        try:
            with open(self._cache_path(), encoding="utf-8") as handle:
                data = json.load(handle)
            if data.get("version") != __version__ or data.get("format") != _format() or data.get("root") != self.root:
                return {}
            records = {}
            for path, raw in data["files"].items():
                try:
                    records[str(path)] = IndexedFile.from_json(raw)
                except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                    continue  # one bad entry is a miss for that file, not for the project
            return records
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return {}  # missing, unreadable or from another version: rebuild

    def _save(self) -> None:
        payload = {"format": _format(), "version": __version__, "root": self.root,
                   "files": {path: record.to_json() for path, record in sorted(self.files.items())}}
        target = self._cache_path()
        folder = os.path.dirname(target)
        try:
            prepare_cache_folder(folder)
            handle, temporary = tempfile.mkstemp(dir=folder, prefix=".project-", suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    json.dump(payload, stream, separators=(",", ":"))
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.remove(temporary)
                raise
        except OSError:
            pass  # a read-only project is checked all the same, just without the cache


def extract_record(relative: str, path: str, kind: str, max_size: Optional[int] = DEFAULT_MAX_FILE_SIZE,
                   data: Optional[bytes] = None) -> IndexedFile:
    """Read and analyse one file into its record (never raises for bad input)."""
    try:
        status = os.stat(path)
        size, mtime = status.st_size, status.st_mtime_ns
    except OSError:
        size, mtime = 0, 0
    factor = NOTEBOOK_JSON_FACTOR if kind == NOTEBOOK else 1
    error = too_large(size, max_size * factor if max_size else None) if data is None else None
    if error is not None:
        return IndexedFile(kind, size, mtime, f"size:{size}:{mtime}", error=error)
    if data is None:
        read = read_bytes(path)
        if isinstance(read, FileError):
            return IndexedFile(kind, size, mtime, "unreadable", error=read)
        data = read
    record = IndexedFile(kind, size, mtime, hashlib.sha256(data).hexdigest())
    unit = load_unit(path, data, kind, max_size)
    result = analyse(unit, module_name(relative), relative.endswith("/__init__.py") or relative == "__init__.py")
    if isinstance(result, FileError):
        record.error = result
    else:
        record.facts = result
    return record


def extract_records(jobs: Sequence[Tuple[str, str, str]]) -> List[IndexedFile]:
    """Analyse jobs one after the other, in this process."""
    return [extract_record(relative, path, kind) for relative, path, kind in jobs]


@functools.lru_cache(maxsize=None)
def _format() -> str:
    """The index format: :data:`INDEX_FORMAT` plus a hash of the analysis package's sources.

    Any change to what facts mean or look like (a new release, or a development
    checkout) makes older caches unusable, so they are rebuilt instead of misread.
    """
    from ms_perflint import analysis, catalogue

    digest = hashlib.sha256()
    folder = os.path.dirname(analysis.__file__)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as handle:
                digest.update(handle.read())
    with open(catalogue.__file__, "rb") as handle:
        digest.update(handle.read())
    return f"{INDEX_FORMAT}:{digest.hexdigest()[:16]}"


def walk_project(root: str) -> Iterator[Tuple[str, str]]:
    """``(relative path, kind)`` of the project's files, not entering tool folders or nested projects."""
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(
            name for name in subfolders
            if not skipped_folder(name) and not is_root(os.path.join(folder, name))
        )
        relative_folder = os.path.relpath(folder, root)
        for name in sorted(names):
            kind = kind_of(name)
            if kind is None or name.startswith("."):
                continue
            relative = name if relative_folder == "." else f"{relative_folder}/{name}".replace(os.sep, "/")
            yield relative, kind


def prepare_cache_folder(folder: str) -> None:
    """Create the cache folder with a CACHEDIR.TAG and a .gitignore, so backups and git skip it."""
    os.makedirs(folder, exist_ok=True)
    for name, text in (
        ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# ms-perflint cache\n"),
        (".gitignore", "# Created by ms-perflint; delete the folder at any time.\n*\n"),
    ):
        marker = os.path.join(folder, name)
        if not os.path.exists(marker):
            with open(marker, "w", encoding="utf-8") as handle:
                handle.write(text)


@contextlib.contextmanager
def _locked(lock_path: str) -> Iterator[None]:
    """An exclusive lock between processes (flake8's workers, concurrent runs); none when it cannot be had."""
    try:
        from filelock import FileLock, Timeout
    except ImportError:  # pragma: no cover - filelock is a dependency
        yield
        return
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        lock = FileLock(lock_path, timeout=300)
        lock.acquire()
    except (OSError, Timeout):
        yield
        return
    try:
        yield
    finally:
        lock.release()
