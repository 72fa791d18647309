"""Project-level analysis: facts that span files, configs and launch scripts.

- :mod:`~ms_perflint.project.index` finds the project root and keeps a persisted,
  content-hashed index of per-file facts (:mod:`~ms_perflint.project.facts`) and
  config values (:mod:`~ms_perflint.project.configs`).
- :mod:`~ms_perflint.project.view` answers the rules' whole-program questions
  through ``context.project`` (None in per-file mode).
- :mod:`~ms_perflint.project.inference` infers values across modules with astroid,
  only when a rule asks about a value the file alone cannot decide.

See ``docs/project.md`` for how a project is discovered and what crosses files.
"""

from __future__ import annotations

import os
from typing import Any, Optional

from ms_perflint.project.roots import find_root

# The index (fact collectors, YAML) loads on first use: a file outside any project,
# or a run with --no-project, never needs it.
_LAZY = {"ProjectIndex", "load_index"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from ms_perflint.project import index

        return getattr(index, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def root_for(path: str, settings: Any) -> Optional[str]:
    """The project root ``path`` is linted with, or None for per-file mode.

    The nearest folder at or above the file with ``pyproject.toml``, ``setup.py``
    or ``.git``; else ``settings.project_fallback_root`` when the file is inside it.
    """
    if not getattr(settings, "project", False) or not path or path == "-":
        return None
    root = find_root(path)
    fallback = settings.project_fallback_root
    if root is None and fallback:
        absolute, fallback = os.path.abspath(path), os.path.abspath(fallback)
        if absolute == fallback or absolute.startswith(fallback.rstrip(os.sep) + os.sep):
            root = fallback
    return root


def view_for_path(path: str, settings: Any):
    """``context.project`` for ``path``: a :class:`~ms_perflint.project.view.ProjectView`, or None.

    None in per-file mode, and for a file the index does not hold (outside the
    root, in a nested project of its own, or not a ``.py`` file).
    """
    root = root_for(path, settings)
    if root is None:
        return None
    from ms_perflint.project.view import view_for

    return view_for(root, path, persist=getattr(settings, "project_cache", True))


def cache_token(path: str, settings: Any) -> str:
    """What a result cache must add to a file's key in project mode: the digest of its project's index.

    A finding in ``src/model.py`` may depend on ``train.py``, so any change in the
    project invalidates the cached results of its files; unchanged projects keep them.
    """
    root = root_for(path, settings)
    if not root:
        return ""
    from ms_perflint.project.index import load_index

    return load_index(root, persist=getattr(settings, "project_cache", True)).digest()


__all__ = ["ProjectIndex", "cache_token", "find_root", "load_index", "root_for", "view_for_path"]
