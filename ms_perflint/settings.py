"""Resolved settings for one run: which codes are on, rule options, noqa handling.

Both front ends build a :class:`Settings` and hand it to the engine, so the CLI
and the flake8 plugin make the same decisions. Reading config files lives in
:mod:`ms_perflint.config`; this module only holds and queries the result.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Tuple

DEFAULT_SELECT: Tuple[str, ...] = ("MSP",)
#: Files larger than this are not checked by default (``max-file-size``): libcst needs about 540 MB of
#: memory per MB of source (measured with libcst 1.9), and real model code is far smaller.
DEFAULT_MAX_FILE_SIZE = 2_000_000


def _longest_match(code: str, prefixes: Iterable[str]) -> int:
    return max((len(prefix) for prefix in prefixes if code.startswith(prefix)), default=-1)


@dataclass(frozen=True)
class Settings:
    """Everything that changes what the engine reports for a file."""

    select: Tuple[str, ...] = DEFAULT_SELECT
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    #: ``{glob: codes}``: codes ignored in files whose path matches the glob.
    per_file_ignores: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    #: Rule options by name (``alignment``, ``ascend-target``); missing ones take rule defaults.
    rule_options: Mapping[str, Any] = field(default_factory=dict)
    #: Honour ``# noqa`` comments. The flake8 plugin turns this off: flake8 does it.
    apply_noqa: bool = True
    #: Check a file with its project (the programs that run it); off: every file is a project of its own.
    project: bool = True
    #: Files larger than this many bytes are not checked (None or 0: no limit).
    max_file_size: Optional[int] = DEFAULT_MAX_FILE_SIZE
    #: Codes or prefixes whose fixes may be applied, and those whose may not (the most specific wins).
    fixable: Tuple[str, ...] = DEFAULT_SELECT
    unfixable: Tuple[str, ...] = ()
    #: The MindSpore release the project runs on (a PEP 440 version such as ``2.3.1``; None: unknown), set in the
    #: configuration or inferred from the project's requirements. Rules whose facts changed between releases
    #: read it; with None they take the reading that cannot be a false alarm.
    mindspore_version: Optional[str] = None
    #: Where the version came from (``inferred from requirements.txt:3 (mindspore==2.3.1)``), for messages.
    mindspore_version_source: str = ""

    def is_enabled(self, code: str, path: Optional[str] = None) -> bool:
        """ruff/flake8 semantics: the most specific matching prefix of select vs ignore wins."""
        selected = _longest_match(code, (*self.select, *self.extend_select))
        ignored = _longest_match(code, (*self.ignore, *self._per_file_ignored(path)))
        return selected >= 0 and selected > ignored

    def may_fix(self, code: str) -> bool:
        """May ``--fix`` apply this code's fixes (``fixable`` vs ``unfixable``, the most specific prefix wins)?"""
        fixable = _longest_match(code, self.fixable)
        return fixable >= 0 and fixable > _longest_match(code, self.unfixable)

    def may_enable(self, code: str, opt_in: bool = False) -> bool:
        """Could the code be on for some file? An opt-in rule needs its code (or family) selected explicitly."""
        prefixes = (*self.select, *self.extend_select)
        if opt_in:
            prefixes = tuple(p for p in prefixes if len(p) > len("MSP"))
        selected = _longest_match(code, prefixes)
        return selected >= 0 and selected > _longest_match(code, self.ignore)

    def _per_file_ignored(self, path: Optional[str]) -> Sequence[str]:
        if not path or not self.per_file_ignores:
            return ()
        normalized = path.replace("\\", "/")
        codes = []
        for pattern, ignored in self.per_file_ignores.items():
            if _path_matches(normalized, pattern):
                codes.extend(ignored)
        return codes

    def cache_key(self) -> str:
        """A stable string of everything here, for keying cached results."""
        options = sorted((key, repr(value)) for key, value in self.rule_options.items())
        ignores = sorted((key, tuple(value)) for key, value in self.per_file_ignores.items())
        return repr((self.select, self.extend_select, self.ignore, ignores, options, self.apply_noqa, self.project,
                     self.max_file_size, self.fixable, self.unfixable, self.mindspore_version,
                     self.mindspore_version_source))


def _path_matches(path: str, pattern: str) -> bool:
    """A per-file-ignores glob matches the whole path, any trailing part of it, or the file name."""
    pattern = pattern.replace("\\", "/")
    if fnmatch.fnmatch(path, pattern):
        return True
    parts = path.split("/")
    return any(fnmatch.fnmatch("/".join(parts[i:]), pattern) for i in range(1, len(parts)))


def with_overrides(settings: Settings, overrides: Dict[str, Any]) -> Settings:
    """A copy of ``settings`` with some fields replaced (command-line flags over config)."""
    from dataclasses import replace

    return replace(settings, **{key: value for key, value in overrides.items() if value is not None})
