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
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ms_perflint import __version__
from ms_perflint.analysis import analyse, module_name
from ms_perflint.findings import FileError
from ms_perflint.memory import fewer_collections
from ms_perflint.project.roots import is_root
from ms_perflint.sources import (DEFAULT_MAX_FILE_SIZE, NOTEBOOK, NOTEBOOK_JSON_FACTOR, PYTHON, kind_of, load_unit,
                                 names_mindspore, read_bytes, too_large)
from ms_perflint.sources.discovery import skipped_folder
from ms_perflint.sources.guard import nesting_error, python_syntax_error

#: The cache layout's version; changes to the analysis are noticed by themselves (see ``_format``).
INDEX_FORMAT = 3


@dataclass
class IndexedFile:
    """One file's record: how to tell it changed, and its facts (or why it has none).

    A record read back from disk has its facts still in JSON form (``raw``): they are
    turned into objects only when a check needs them (a re-run whose result is cached
    never does).
    """

    kind: str
    size: int
    mtime_ns: int
    digest: str
    facts: Any = None
    error: Optional[FileError] = None
    raw: Any = None
    #: A hash of the facts as stored ("" until they are): two texts with the same facts (an edit of a comment)
    #: give the same decisions.
    facts_digest: str = ""
    #: The facts as a worker process sends them (:meth:`pack`): pickled bytes, a fifth of the objects' memory,
    #: turned back into objects only by whoever decides the file's part.
    packed: Optional[bytes] = None
    #: The facts' stored text, made by the worker for the store to write (then dropped).
    stored: Optional[str] = None
    #: The file's link summary (:func:`~ms_perflint.project.parts.summary_of`), made beside its facts.
    summary: Any = None

    def manifest(self) -> List[Any]:
        error = self.error
        return [self.kind, self.size, self.mtime_ns, self.digest,
                [error.kind, error.message, error.line, error.column, error.cell] if error is not None else None,
                self.facts_digest]

    @classmethod
    def from_manifest(cls, data: Sequence[Any]) -> "IndexedFile":
        """Raises on anything that is not a valid record (the caller treats that as a miss)."""
        kind, size, mtime, digest, error, facts_digest = data
        record = cls(str(kind), int(size), int(mtime), str(digest), facts_digest=str(facts_digest))
        if error is not None:
            kind, message, line, column, cell = error
            record.error = FileError(str(kind), str(message), int(line), int(column), cell)
        return record

    def loaded_facts(self) -> Any:
        """The facts as objects (built from ``raw`` on first use); None when the file has none.

        Raises ValueError when the stored facts do not read back (the caller analyses the file again).
        """
        if self.facts is None and self.packed is not None:
            self.facts, self.packed = self.unpacked(), None
        if self.facts is None and self.raw is not None:
            raw, self.raw = self.raw, None
            self.facts = _facts_from(raw)
        return self.facts

    def unpacked(self) -> Any:
        """The facts from :attr:`packed`, not kept on the record."""
        import pickle

        return pickle.loads(self.packed) if self.packed is not None else None

    def pack(self, relative: str, storing: bool) -> "IndexedFile":
        """Make the record light to send and to hold: the facts pickled, their link summary made, and with
        ``storing`` their stored text and its digest (in the worker, not in the process that collects them)."""
        import pickle

        from ms_perflint.project.parts import summary_of

        if self.facts is not None:
            self.summary = summary_of(relative, self.facts)
            if storing:
                self.stored = stored_facts(self.facts)
                self.facts_digest = hashlib.sha256(self.stored.encode()).hexdigest()
            self.packed, self.facts = pickle.dumps(self.facts, pickle.HIGHEST_PROTOCOL), None
        return self

    def stored_text(self) -> str:
        """The facts as the store keeps them: the text the worker made, else made here (not keeping objects)."""
        if self.stored is not None:
            return self.stored
        return stored_facts(self.facts if self.facts is not None else self.unpacked() if self.packed is not None
                            else self.loaded_facts())

    def has_facts(self) -> bool:
        """Whether the record holds its facts in memory, in any form."""
        return self.facts is not None or self.packed is not None or self.raw is not None


def _facts_from(raw: Any) -> Any:
    """Facts from their stored JSON form; raises ValueError when they do not read back."""
    from ms_perflint.analysis.facts import facts_from_json

    try:
        return facts_from_json(raw)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as error:
        raise ValueError(f"stored facts are not valid: {error}") from None


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
        #: Files analysed in this process whose facts are not stored yet.
        self._new: set = set()
        #: How many files this refresh had to read / analyse (for tests and benchmarks).
        self.read_count = 0
        self.analysed_count = 0
        self._digest: Optional[str] = None

    # --- paths ---------------------------------------------------------------------------------

    def relative(self, path: str) -> Optional[str]:
        """``path`` relative to the root with '/' separators, or None when it is outside the project."""
        absolute = os.path.abspath(path)
        inside = self.root.rstrip(os.sep) + os.sep
        if absolute.startswith(inside):  # the usual case, without relpath's work (asked twice for every file)
            return absolute[len(inside):].replace(os.sep, "/")
        relative = os.path.relpath(absolute, self.root)
        if relative.startswith(".." + os.sep) or relative == ".." or os.path.isabs(relative):
            return None
        return relative.replace(os.sep, "/")

    def absolute(self, relative: str) -> str:
        """The absolute path of a root-relative one."""
        return os.path.join(self.root, *relative.split("/"))

    def facts(self) -> Dict[str, Any]:
        """``{relative path: facts}`` of every file that has facts (loading cached ones on first use)."""
        return self.facts_of(list(self.files))

    def facts_of(self, paths: Sequence[str], keep: bool = True) -> Dict[str, Any]:
        """``{relative path: facts}`` of those of ``paths`` that have facts (loading cached ones on first use).

        A stored entry is taken only if it is the text whose digest the manifest holds: one changed by anything but
        this tool (an edit, a damaged disk) is a miss, whatever it holds -- valid JSON with a wrong type would read
        back and fail in a rule. A file whose entry is missing or does not read back is analysed again. Without
        ``keep``, facts read from the store are not kept in the index: a run that decides part by part holds one
        part's facts at a time.
        """
        analysed = []
        found = {}
        for path in paths:
            record = self.files.get(path)
            if record is None:
                continue
            try:
                facts = self._loaded(path, record, keep)
            except ValueError:  # a damaged entry in the store is a miss: analyse the file again
                record = self.files[path] = extract_record(path, self.absolute(path), record.kind, self.max_size)
                analysed.append(path)
                self._digest = None
                facts = record.facts
            if facts is not None:
                found[path] = facts
        self._store_facts(analysed)
        return found

    def _loaded(self, path: str, record: IndexedFile, keep: bool = True) -> Any:
        """A record's facts, read from the store when it has none in memory (kept on the record with ``keep``);
        raises ValueError on a miss."""
        if record.facts is None and record.packed is not None and not keep:
            return record.unpacked()
        if not record.has_facts() and record.error is None and self.cache_folder is not None:
            entry = _read_stored_facts(self._facts_path(path, record.digest), record.facts_digest)
            if not (isinstance(entry, dict) and entry.get("kind") in ("python", "yaml", "shell")):
                raise ValueError("no stored facts")
            if not keep:
                return _facts_from(entry)
            record.raw = entry
        return record.loaded_facts()

    def digest(self) -> str:
        """A hash of what every file says: its facts where they are stored (decisions depend on nothing else, so
        a text whose facts did not change -- an edited comment -- keeps the project's decisions), else its content."""
        if self._digest is None:
            joined = "\n".join(f"{path}:{record.facts_digest or record.digest}"
                                for path, record in sorted(self.files.items()))
            self._digest = hashlib.sha256(f"{_format()}:{__version__}\n{joined}".encode()).hexdigest()
        return self._digest

    # --- building ----------------------------------------------------------------------------

    def refresh(self, extract: Optional[Extractor] = None) -> "ProjectIndex":
        """Bring the index up to date with the files on disk, reusing the persisted one."""
        with fewer_collections():
            return self._refresh(extract)

    def _refresh(self, extract: Optional[Extractor]) -> "ProjectIndex":
        if self.cache_folder is None:
            self._update({}, extract)
            return self
        # Most runs find nothing changed. The manifest is replaced atomically, so it is read and compared with
        # the disk without the lock; the lock (and the module that provides it) is needed only to update it.
        previous = self._load()
        current, jobs = self._scan(previous)
        if previous and not jobs and current.keys() == previous.keys():
            self.files, self._digest = current, None
            mark_used(self._cache_path())
        else:
            with _locked(self._cache_path() + ".lock"):
                latest = self._load()  # another process may have updated it meanwhile
                if self._update(latest, extract, (current, jobs) if latest == previous else None):
                    self._save()
                else:
                    mark_used(self._cache_path())
        prune_cache(self.cache_folder)
        return self

    def _scan(self, previous: Dict[str, IndexedFile]) -> Tuple[Dict[str, IndexedFile], List[Tuple[str, str, str]]]:
        """The project's files on disk: the ``previous`` records that still hold (same size and modification
        time), and the files to read again as ``(relative, path, kind)`` jobs."""
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
        return current, jobs

    def _update(self, previous: Dict[str, IndexedFile], extract: Optional[Extractor],
                scanned: Optional[Tuple[Dict[str, IndexedFile], List[Tuple[str, str, str]]]] = None) -> bool:
        """Set :attr:`files` from disk, reusing ``previous`` records; True when anything changed.

        ``scanned``: what :meth:`_scan` of the same ``previous`` just found, not to stat every file twice.
        """
        current, jobs = scanned if scanned is not None else self._scan(previous)
        records = (extract or extract_records)(jobs)
        self.read_count += len(jobs)
        for (relative, _, _), record in zip(jobs, records):
            known = previous.get(relative)
            current[relative] = record
            if known is None or known.digest != record.digest:
                self.analysed_count += 1
                self._new.add(relative)
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

    def _cache_path(self, part: str = "project") -> str:
        name = hashlib.sha256(self.root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return os.path.join(self.cache_folder or "", f"{part}-{INDEX_FORMAT}-{name}.json")

    def _load(self) -> Dict[str, IndexedFile]:
        """The manifest of the last run (how each file looked, and its digest); facts come later, if needed."""
        data = _read_json(self._cache_path())
        if not isinstance(data, dict) or data.get("version") != __version__ or data.get("format") != _format() \
                or data.get("root") != self.root or not isinstance(data.get("files"), dict):
            return {}  # missing, unreadable or from another version: rebuild
        records = {}
        for path, raw in data["files"].items():
            try:
                records[str(path)] = IndexedFile.from_manifest(raw)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                continue  # one bad entry is a miss for that file, not for the project
        return records

    def _store_facts(self, analysed: Sequence[str]) -> None:
        """Rewrite the entries of files whose stored facts were missing or damaged (each entry is written whole,
        in place of the bad one, so the next run reads it back); a cache that cannot be written is no error."""
        if self.cache_folder is None:
            return
        for path in analysed:
            record = self.files.get(path)
            if record is None or record.facts is None:
                continue
            stored = stored_facts(record.facts)
            digest = hashlib.sha256(stored.encode()).hexdigest()
            if record.facts_digest and digest != record.facts_digest:
                self._new.add(path)  # the facts differ from the manifest's: the next refresh stores both
                continue
            record.facts_digest = digest
            try:
                _write_text(self._facts_path(path, record.digest), stored)
            except OSError:
                return

    def _facts_path(self, relative: str, digest: str) -> str:
        """Facts are stored by what they depend on: the file's content and its path (its module name)."""
        name = hashlib.sha256(f"{_format()}\0{relative}\0{digest}".encode("utf-8", "surrogateescape")).hexdigest()
        return os.path.join(self.cache_folder or "", "facts", name[:2], name[2:] + ".json")

    def _save(self) -> None:
        try:
            for path in sorted(self._new):
                record = self.files.get(path)
                if record is not None and (record.stored is not None or record.has_facts()):
                    stored = record.stored_text()
                    record.facts_digest = hashlib.sha256(stored.encode()).hexdigest()  # JSON escapes non-ASCII
                    record.stored = None
                    _write_text(self._facts_path(path, record.digest), stored)
            manifest = {"format": _format(), "version": __version__, "root": self.root,
                        "files": {path: record.manifest() for path, record in sorted(self.files.items())}}
            _write_json(self._cache_path(), manifest)
        except OSError:
            pass  # a read-only project is checked all the same, just without the cache
        self._new.clear()
        self._digest = None


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError, RecursionError):
        return None


def _read_stored_facts(path: str, digest: str) -> Any:
    """A facts entry, if its text is the one the manifest's ``digest`` names (else None: a miss)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if digest and hashlib.sha256(data).hexdigest() != digest:
            return None
        return json.loads(data)
    except (OSError, ValueError, RecursionError):
        return None


def _write_json(target: str, payload: Any) -> None:
    """Write ``payload`` as JSON, atomically (:func:`_write_text`)."""
    _write_text(target, json.dumps(payload, separators=(",", ":")))


def _write_text(target: str, text: str) -> None:
    """Write atomically (a temporary file in the same folder, then a rename): readers never see half a file."""
    folder = os.path.dirname(target)
    prepare_cache_folder(folder)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".index-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


def extract_record(relative: str, path: str, kind: str, max_size: Optional[int] = DEFAULT_MAX_FILE_SIZE,
                   data: Optional[bytes] = None, alone: bool = False) -> IndexedFile:
    """Read and analyse one file into its record (never raises for bad input).

    ``alone``: the file is checked as a project of its own. A Python file that then names no MindSpore
    package cannot import one, so no rule can report in it: when this Python's own parser accepts it (a
    tenth of the analysis) it is not analysed. One too deeply nested is still refused, and one Python
    rejects is analysed, so that libcst (which may accept newer syntax) decides its error as in a project.
    """
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
    if alone and kind == PYTHON and unit.error is None and not names_mindspore(data):
        record.error = nesting_error(unit.text)
        if record.error is not None or python_syntax_error(unit.text) is None:
            return record
    result = analyse(unit, module_name(relative), relative.endswith("/__init__.py") or relative == "__init__.py")
    if isinstance(result, FileError):
        record.error = result
    else:
        record.facts = result
    return record


def stored_facts(facts: Any) -> str:
    """Facts as the store keeps them (JSON text); its hash is a record's ``facts_digest``."""
    return json.dumps(facts.to_json(), separators=(",", ":"))


def facts_digest(facts: Any) -> str:
    """The hash of facts as stored: two texts with the same facts (an edited comment) have the same."""
    return hashlib.sha256(stored_facts(facts).encode()).hexdigest()  # JSON escapes non-ASCII


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


#: Cache entries not used for this long are deleted (at most one pruning pass a day).
CACHE_MAX_AGE = 30 * 24 * 3600
_PRUNED_STAMP = "last-pruned"


def prune_cache(folder: Optional[str], now: Optional[float] = None) -> int:
    """Delete what no run has used for :data:`CACHE_MAX_AGE`: manifests (``project-*``, ``decisions-*``) not
    rewritten or read since, and stored facts that no remaining manifest names. Runs at most once a day per
    folder; returns the number of files deleted. Never raises: a cache that cannot be pruned is still a cache."""
    if folder is None or not os.path.isdir(folder):
        return 0
    now = time.time() if now is None else now
    stamp = os.path.join(folder, _PRUNED_STAMP)
    try:
        if now - os.stat(stamp).st_mtime < 24 * 3600:
            return 0
    except OSError:
        pass
    deleted = 0
    try:
        with open(stamp, "w", encoding="utf-8") as handle:
            handle.write(f"{now}\n")
        used: Set[str] = set()
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if not name.endswith(".json") or not name.startswith(("project-", "decisions-")):
                continue
            if now - _last_use(path) > CACHE_MAX_AGE:
                deleted += _remove(path) + _remove(path + ".lock")
            elif name.startswith("project-"):
                used.update(_stored_facts(folder, _read_json(path)))
        facts_root = os.path.join(folder, "facts")
        for parent, _, names in os.walk(facts_root):
            for name in names:
                path = os.path.join(parent, name)
                if path not in used and now - _last_use(path) > CACHE_MAX_AGE:
                    deleted += _remove(path)
    except OSError:
        pass
    return deleted


def mark_used(path: str) -> None:
    """Note that a cache file is still in use (its mtime, at most once a day), so pruning keeps it; file systems
    mounted ``noatime`` do not record reads."""
    try:
        if time.time() - os.stat(path).st_mtime > 24 * 3600:
            os.utime(path)
    except OSError:
        pass


def _last_use(path: str) -> float:
    """When a cache file was last written or (where the file system records it) read."""
    try:
        status = os.stat(path)
    except OSError:
        return 0.0
    return max(status.st_mtime, status.st_atime)


def _stored_facts(folder: str, manifest: Any) -> Set[str]:
    """The facts files a manifest's records point to."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return set()
    index = ProjectIndex(str(manifest.get("root", "")), folder)
    found = set()
    for relative, raw in manifest["files"].items():
        try:
            found.add(index._facts_path(str(relative), IndexedFile.from_manifest(raw).digest))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue
    return found


def _remove(path: str) -> int:
    try:
        os.remove(path)
        return 1
    except OSError:
        return 0


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


#: How long a run waits for another process's index update before going on without the lock (seconds).
LOCK_TIMEOUT = 300


@contextlib.contextmanager
def _locked(lock_path: str) -> Iterator[None]:
    """An exclusive lock between processes (flake8's workers, concurrent runs); none when it cannot be had.

    On POSIX an ``flock`` on the lock file; elsewhere the ``filelock`` package, which a POSIX install does
    not need (importing it costs about 30 ms, paid by every pre-commit run that updates an index).
    """
    try:
        import fcntl
    except ImportError:  # Windows
        yield from _filelock_locked(lock_path)
        return
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        descriptor = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        _flock(fcntl, descriptor)
        yield
    finally:
        # Closing the descriptor releases the lock: no process forked under it (the index's workers) outlives
        # the update, so no copy of it keeps the lock.
        os.close(descriptor)


def _flock(fcntl, descriptor: int) -> bool:
    """Wait up to :data:`LOCK_TIMEOUT` for an exclusive ``flock``; False when it could not be had (the run goes
    on unlocked, as on a file system without locks)."""
    deadline = time.monotonic() + LOCK_TIMEOUT
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        except OSError:
            return False


def _filelock_locked(lock_path: str) -> Iterator[None]:
    try:
        from filelock import FileLock, Timeout
    except ImportError:  # pragma: no cover - filelock is a dependency where fcntl is missing
        yield
        return
    try:
        os.makedirs(os.path.dirname(lock_path), exist_ok=True)
        lock = FileLock(lock_path, timeout=LOCK_TIMEOUT)
        lock.acquire()
    except (OSError, Timeout):
        yield
        return
    try:
        yield
    finally:
        lock.release()
