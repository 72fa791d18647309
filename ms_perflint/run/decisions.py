"""The decisions of a project, kept between runs: a re-run decides only the parts whose files changed.

The rules' raw findings for every file of a project depend only on the project's
files (the index digest), the settings of its folders (which say what rules run) and
the tool itself. They are stored in ``decisions-<root hash>.json`` in the cache folder under
a key made of those; a run that finds the same key reads them back instead of
loading every file's facts and running the rules.

The same file keeps each part's findings (:mod:`ms_perflint.project.parts`) under a key
made of the part's files, the rules that run and the settings of the part's folders, and
each file's link summary under its facts digest: after an edit, the parts are found
again from the summaries (only the edited files' facts are read), and only the parts
whose key changed are decided (:class:`PartStore`). One file per project, rewritten
when anything changes and holding only the current parts, so the cache does not grow.
An entry that does not read back whole is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from dataclasses import replace
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Set

from ms_perflint import __version__
from ms_perflint.findings import Finding

FORMAT = 2


@functools.lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """A hash of everything about the tool that can change a decision: version, Python, the package's sources.

    The sources by name, size and modification time (an install or an edit gives each changed file a new time):
    reading them all cost more than the rest of a cached run of a small project.
    """
    digest = hashlib.sha256(f"ms-perflint {__version__} {FORMAT} {sys.version_info[:2]}".encode())
    folders = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    while folders:
        with os.scandir(folders.pop()) as found:
            entries = sorted(found, key=lambda entry: entry.name)
        for entry in entries:
            if entry.is_dir():
                if entry.name != "__pycache__":
                    folders.append(entry.path)
            elif entry.name.endswith(".py"):
                status = entry.stat()
                digest.update(f"{entry.path}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def key(index_digest: str, settings_keys: Iterable[str]) -> str:
    """The key of a project's decisions: its files, its folders' settings (which enable the rules) and the tool."""
    parts = [tool_fingerprint(), index_digest, *sorted(set(settings_keys))]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _path(folder: str, root: str) -> str:
    name = hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(folder, f"decisions-{FORMAT}-{name}.json")


def load(data: dict, folder: Optional[str], root: str, wanted: str) -> Optional[Dict[str, List[Finding]]]:
    """The decisions for ``wanted`` (a :func:`key`) in ``data`` (what :func:`read` gave), or None."""
    try:
        if data.get("key") != wanted:
            return None
        from ms_perflint.project.index import mark_used

        mark_used(_path(folder, root))  # type: ignore[arg-type]
        return _findings(data["findings"])
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def read(folder: Optional[str], root: str) -> dict:
    """What the decisions file of a project holds ({} when there is none, or it does not read back), read once for
    :func:`load` and :class:`PartStore`."""
    if folder is None:
        return {}
    try:
        with open(_path(folder, root), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _findings(data: dict) -> Dict[str, List[Finding]]:
    """Raises on anything that is not findings by path (the caller treats that as a miss)."""
    return {str(path): [Finding.from_json(item) for item in items] for path, items in data.items()}


def _as_json(findings: Dict[str, List[Finding]]) -> dict:
    return {path: [f.to_json() for f in items] for path, items in findings.items()}


def copied(findings: Dict[str, List[Finding]]) -> Dict[str, List[Finding]]:
    """A copy of raw findings that finishing them (positions filled in) leaves as they are."""
    return {path: [replace(finding) for finding in items] for path, items in findings.items()}


def store(folder: Optional[str], root: str, wanted: str, findings: Dict[str, List[Finding]],
          parts: Optional["PartStore"] = None) -> None:
    """Keep a project's decisions (and its parts' findings and files' summaries); a cache that cannot be written is
    no error."""
    if folder is None:
        return
    from ms_perflint.project.index import _write_json

    payload = {"key": wanted, "findings": _as_json(findings)}
    if parts is not None:
        payload.update(parts.to_json())
    try:
        _write_json(_path(folder, root), payload)
    except OSError:
        pass


class PartStore:
    """The parts' findings and the files' link summaries of a project's last run, and those of this run.

    ``digest_of(path)`` is a file's facts digest, ``folder_key(path)`` the settings key of its folder, ``rules`` the
    codes of the rules that run; ``held`` is what :meth:`to_json` gave in this process before (a session keeps it,
    so that an editor's edits, never stored on disk, are decided part by part too).
    """

    def __init__(self, data: dict, digest_of: Callable[[str], str], folder_key: Callable[[str], str],
                 rules: Sequence[str], held: Optional[dict] = None) -> None:
        stored = _tables(data)
        if held:  # what this process decided last (an editor's unsaved buffers are never written to disk)
            kept = _tables(held)
            stored = {name: {**stored[name], **kept[name]} for name in ("parts", "summaries")} | {
                "links": kept["links"], "modules": kept["modules"]}
        self._stored: Dict[str, object] = stored["parts"]
        self._summaries: Dict[str, object] = stored["summaries"]
        self._digest_of = digest_of
        self._folder_key = folder_key
        self._folder_keys: Dict[str, str] = {}  # settings apply per folder
        self._rules = "\0".join(sorted(rules))
        #: This run's parts' findings (JSON) and files' summaries: what the next run finds.
        self._parts: Dict[str, object] = {}
        self._kept_summaries: Dict[str, list] = {}
        self._stored_links: Dict[str, object] = stored["links"]
        self._stored_modules = stored["modules"]
        self._modules = ""
        self._kept_links: Dict[str, List[str]] = {}
        #: Files whose stored summaries were taken (their facts did not change): their stored links hold.
        self._reused: Set[str] = set()

    def key(self, part: Sequence[str]) -> str:
        """What a part's findings depend on: its files, the rules that run, its folders' settings and the tool."""
        digest = hashlib.sha256(f"{tool_fingerprint()}\0{self._rules}".encode())
        for path in part:
            folder = path.rpartition("/")[0]
            if folder not in self._folder_keys:
                self._folder_keys[folder] = self._folder_key(path)
            digest.update(f"\0{path}\0{self._digest_of(path)}\0{self._folder_keys[folder]}".encode(
                "utf-8", "surrogateescape"))
        return digest.hexdigest()

    def get(self, part: Sequence[str]) -> Optional[Dict[str, List[Finding]]]:
        """The stored findings of a part, or None."""
        key = self.key(part)
        stored = self._stored.get(key)
        if not isinstance(stored, dict):
            return None
        try:
            found = _findings(stored)
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        self._parts[key] = stored
        return found

    def put(self, part: Sequence[str], findings: Dict[str, List[Finding]]) -> None:
        """Keep a part's findings, just decided."""
        self._parts[self.key(part)] = _as_json(findings)

    def summary(self, path: str):
        """The stored link summary of a file whose facts are unchanged, or None."""
        from ms_perflint.project.parts import Summary

        stored = self._summaries.get(path)
        try:
            if isinstance(stored, list) and len(stored) == 2 and stored[0] == self._digest_of(path):
                summary = Summary.from_json(stored[1])
                self._kept_summaries[path] = stored
                self._reused.add(path)
                return summary
        except (ValueError, TypeError):
            pass
        return None

    def keep_summary(self, path: str, summary) -> None:
        """Keep a file's link summary, just made from its facts."""
        self._kept_summaries[path] = [self._digest_of(path), summary.to_json()]

    def links(self, modules: str) -> Dict[str, List[str]]:
        """The stored links of the Python files whose summaries are kept, when the project's Python files (their
        digest, ``modules``: :func:`~ms_perflint.project.parts.python_digest`) are the same; the table
        :func:`~ms_perflint.project.parts.partition` completes, and this run keeps."""
        self._modules = modules
        stored = self._stored_links if self._stored_modules == modules else {}
        self._kept_links = {path: list(found) for path, found in stored.items()
                            if path in self._reused and isinstance(found, list)
                            and all(isinstance(other, str) for other in found)}
        return self._kept_links

    def to_json(self) -> dict:
        return {"tool": tool_fingerprint(), "parts": self._parts, "summaries": self._kept_summaries,
                "modules": self._modules, "links": self._kept_links}


def _tables(data: dict) -> dict:
    """The part tables of a decisions file (or of what a session held), each a dict, empty when it is not one or
    when another build of the tool wrote it: how files link and what they say about links depend on the tool's code
    and on the Python running it (its standard library), not only on the files' facts."""
    if data.get("tool") != tool_fingerprint():
        data = {}
    tables = {name: data.get(name) for name in ("parts", "summaries", "links")}
    found = {name: table if isinstance(table, dict) else {} for name, table in tables.items()}
    found["modules"] = data.get("modules") if isinstance(data.get("modules"), str) else ""
    return found
