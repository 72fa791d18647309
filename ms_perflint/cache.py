"""A results cache, so that re-checking an unchanged tree costs a read and a hash per file.

An entry holds what linting one file produced -- each finding's code, message and
range, and whether a fix exists (its safety, description and imports) -- keyed by
the SHA-256 of:

- the tool's fingerprint: its version, the Python and libcst versions, and the
  contents of every module of this package (so editing a rule in a development
  install invalidates too),
- ``Settings.cache_key()`` and the codes enabled for the file's path
  (per-file ignores make that path-dependent),
- in project mode, the digest of the project's index (a finding may depend on
  other files of the program),
- the file's bytes.

Entries live in ``.ms_perflint_cache/`` at the project root (or ``--cache-dir``),
one small JSON file each. Writers never overwrite in place: an entry is written to
a temporary file in the same folder and renamed over, so concurrent runs at worst
write the same entry twice. An entry that cannot be read or decoded (truncated,
corrupt, from a foreign format) is a miss, never an error.

Nothing here imports libcst: printing a fully cached run does not load it.
A finding restored from the cache has a :class:`~ms_perflint.rule.Fix` whose
``node`` and ``transform`` are None: it says what the fix would do, but applying
it needs a real lint of the file, which is what the fixer does (it never reads the cache).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
from functools import lru_cache
from typing import Any, Dict, List, Optional, Sequence

from ms_perflint import __version__
from ms_perflint.results import FileError, FileResult
from ms_perflint.rule import Fix, FixSafety, Violation
from ms_perflint.settings import Settings

#: The cache folder's name in the project root.
CACHE_FOLDER_NAME = ".ms_perflint_cache"
#: Files that mark a project root (the first folder upwards from the working directory holding one).
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "tox.ini", "setup.py", ".git")
#: Bumped when the entry layout changes, so old entries are never misread.
FORMAT = "1"

_PACKAGE_FOLDER = os.path.dirname(os.path.abspath(__file__))
#: Violation fields that exist only while the tree is alive; everything else is stored.
_LIVE_FIELDS = ("node", "fix")


def find_project_root(start: Optional[str] = None) -> str:
    """The nearest folder at or above ``start`` (default: the working directory) holding a project marker."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.abspath(start or os.getcwd())
        folder = parent


def default_cache_dir(start: Optional[str] = None) -> str:
    """``.ms_perflint_cache`` in the project root."""
    return os.path.join(find_project_root(start), CACHE_FOLDER_NAME)


@lru_cache(maxsize=None)
def tool_fingerprint() -> str:
    """A hash of everything about the tool itself that can change a result."""
    digest = hashlib.sha256(f"ms-perflint {__version__} format {FORMAT} python {sys.version_info[:2]}".encode())
    digest.update(_libcst_version().encode())
    for path in package_sources():
        digest.update(os.path.relpath(path, _PACKAGE_FOLDER).encode() + b"\0")
        with open(path, "rb") as handle:
            digest.update(handle.read() + b"\0")
    return digest.hexdigest()


def package_sources() -> List[str]:
    """Every ``.py`` file of this package, in a stable order."""
    found = []
    for folder, subfolders, names in os.walk(_PACKAGE_FOLDER):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        found.extend(os.path.join(folder, name) for name in sorted(names) if name.endswith(".py"))
    return found


def rule_codes() -> List[str]:
    """Codes of all rules, from the rule modules' names (``msp101_*.py`` -> ``MSP101``), without importing them."""
    folder = os.path.join(_PACKAGE_FOLDER, "rules")
    return sorted(name[:6].upper() for name in os.listdir(folder) if name.startswith("msp") and name.endswith(".py"))


def _libcst_version() -> str:
    """libcst's version without importing it (its parser decides what is a syntax error)."""
    import importlib.util

    spec = importlib.util.find_spec("libcst")
    if spec is None or spec.origin is None:
        return "libcst missing"
    version_file = os.path.join(os.path.dirname(spec.origin), "_version.py")
    try:
        with open(version_file, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return f"libcst at {spec.origin}"


# --- results as plain data -------------------------------------------------------------


def result_to_record(result: FileResult) -> Dict[str, Any]:
    """A JSON-able record of ``result``'s findings and error (the tree and fix callables are dropped)."""
    return {
        "violations": [_violation_to_record(violation) for violation in result.violations],
        "error": dataclasses.asdict(result.error) if result.error is not None else None,
    }


def _violation_to_record(violation: Violation) -> Dict[str, Any]:
    record = {
        field.name: getattr(violation, field.name)
        for field in dataclasses.fields(violation)
        if field.name not in _LIVE_FIELDS
    }
    fix = violation.fix
    if fix is not None:
        record["fix"] = {"safety": fix.safety.value, "description": fix.description, "imports": list(fix.imports)}
    return record


def result_from_record(path: str, record: Dict[str, Any]) -> FileResult:
    """Rebuild a :class:`FileResult` from :func:`result_to_record`'s output.

    Raises (KeyError, TypeError, ValueError, AttributeError) for a malformed record.
    """
    violations = [_violation_from_record(item) for item in record["violations"]]
    error = record["error"]
    return FileResult(path, violations=violations, error=FileError(**error) if error is not None else None)


def _violation_from_record(item: Dict[str, Any]) -> Violation:
    fields = dict(item)
    fix = fields.pop("fix", None)
    violation = Violation(**fields)
    if fix is not None:
        violation.fix = Fix(
            node=None,  # type: ignore[arg-type] -- a restored fix describes, it cannot apply
            transform=None,  # type: ignore[arg-type]
            safety=FixSafety(fix["safety"]),
            description=fix["description"],
            imports=tuple(fix["imports"]),
        )
    return violation


def is_restored(violation: Violation) -> bool:
    """True for a finding rebuilt from a record: its fix (if any) cannot be applied without re-linting."""
    return violation.node is None and violation.fix is not None and violation.fix.transform is None


# --- the cache ---------------------------------------------------------------------------


class ResultCache:
    """Entries under ``folder`` for one run's settings."""

    def __init__(self, folder: str, settings: Settings, codes: Optional[Sequence[str]] = None) -> None:
        self.folder = folder
        self.settings = settings
        self._codes = tuple(codes) if codes is not None else tuple(rule_codes())
        self._base = hashlib.sha256(tool_fingerprint().encode() + b"\0" + settings.cache_key().encode() + b"\0")
        self._per_path = bool(settings.per_file_ignores)
        self._prepared = False
        #: Why entries stopped being written (an unwritable folder, a full disk), or None.
        self.problem: Optional[str] = None

    def key(self, path: str, data: bytes) -> str:
        """The entry key for ``path`` holding ``data``."""
        digest = self._base.copy()
        if self._per_path:
            enabled = [code for code in self._codes if self.settings.is_enabled(code, path)]
            digest.update(",".join(enabled).encode() + b"\0")
        if getattr(self.settings, "project", False):
            # Project mode: a finding may depend on other files; their index's digest joins the key.
            from ms_perflint.project import cache_token

            digest.update(cache_token(path, self.settings).encode() + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.folder, key[:2], key[2:] + ".json")

    def get(self, key: str, path: str) -> Optional[FileResult]:
        """The cached result for ``key`` (reported under ``path``), or None when absent or unreadable."""
        try:
            with open(self._entry_path(key), "rb") as handle:
                record = json.loads(handle.read())
            return result_from_record(path, record)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def put(self, key: str, result: FileResult) -> None:
        """Store ``result`` under ``key``; a failure to write disables writing, it never raises."""
        if self.problem is not None:
            return
        data = json.dumps(result_to_record(result), separators=(",", ":")).encode("utf-8")
        target = self._entry_path(key)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(target), exist_ok=True)
            import tempfile  # here: a run that only reads the cache never needs it

            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                os.replace(temporary, target)
            except BaseException:
                _remove_quietly(temporary)
                raise
        except OSError as error:
            self.problem = f"cannot write the cache in {self.folder}: {error.strerror or error}"

    def _prepare(self) -> None:
        """Create the folder with a CACHEDIR.TAG and a .gitignore, so backups and git skip it."""
        if self._prepared:
            return
        os.makedirs(self.folder, exist_ok=True)
        for name, text in (
            ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n# ms-perflint results cache\n"),
            (".gitignore", "# Created by ms-perflint; delete the folder at any time.\n*\n"),
        ):
            marker = os.path.join(self.folder, name)
            if not os.path.exists(marker):
                with open(marker, "w", encoding="utf-8") as handle:
                    handle.write(text)
        self._prepared = True


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
