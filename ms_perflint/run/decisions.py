"""The decisions of a project, kept between runs: a re-run of an unchanged project decides nothing.

The rules' raw findings for every file of a project depend only on the project's
files (the index digest), the settings of its folders (which say what rules run) and
the tool itself. They are stored in ``decisions-<root hash>.json`` in the cache folder under
a key made of those; a run that finds the same key reads them back instead of
loading every file's facts and running the rules. One file per project, rewritten
when the key changes, so the cache does not grow. An entry that does not read back
whole is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from dataclasses import replace
from typing import Dict, Iterable, List, Optional

from ms_perflint import __version__
from ms_perflint.findings import Finding

FORMAT = 1


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


def load(folder: Optional[str], root: str, wanted: str) -> Optional[Dict[str, List[Finding]]]:
    """The stored decisions for ``wanted`` (a :func:`key`), or None."""
    if folder is None:
        return None
    try:
        with open(_path(folder, root), encoding="utf-8") as handle:
            data = json.load(handle)
        if data.get("key") != wanted:
            return None
        from ms_perflint.project.index import mark_used

        mark_used(_path(folder, root))
        return {str(path): [Finding.from_json(item) for item in items] for path, items in data["findings"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None


def copied(findings: Dict[str, List[Finding]]) -> Dict[str, List[Finding]]:
    """A copy of raw findings that finishing them (positions filled in) leaves as they are."""
    return {path: [replace(finding) for finding in items] for path, items in findings.items()}


def store(folder: Optional[str], root: str, wanted: str, findings: Dict[str, List[Finding]]) -> None:
    """Keep a project's decisions; a cache that cannot be written is no error."""
    if folder is None:
        return
    from ms_perflint.project.index import _write_json

    payload = {"key": wanted, "findings": {path: [f.to_json() for f in items] for path, items in findings.items()}}
    try:
        _write_json(_path(folder, root), payload)
    except OSError:
        pass
