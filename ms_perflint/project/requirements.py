"""The MindSpore release a project declares: read from its requirements, as ruff reads ``requires-python``.

:func:`infer_mindspore_version` looks in one folder (the configuration file's, or
the project root) at ``requirements.txt``, ``pyproject.toml`` ``[project]
dependencies`` and ``setup.py`` ``install_requires`` (string literals, or a
module-level list of them) for requirements on a MindSpore distribution, and
answers the lowest release they allow together: ``mindspore==2.3.1`` gives 2.3.1,
``mindspore>=2.2,<2.4`` gives 2.2. Requirements that allow no release at all
(``==2.2.0`` in one file, ``>=2.3`` in another) leave the version unknown, and say why.

Kept small and free of libcst (the configuration layer asks for every run);
``packaging`` is imported only when a file names MindSpore.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.sources.guard import parse_quietly

#: Read in this order; the first requirement that decides the lowest release is the one shown as the source.
REQUIREMENT_FILES = ("requirements.txt", "pyproject.toml", "setup.py")
#: Larger files are not read (a requirements file is a few kB).
MAX_SIZE = 1_000_000


@dataclass(frozen=True)
class Declared:
    """One requirement on MindSpore: its text, and where it is written (``requirements.txt:3``)."""

    text: str
    where: str


@dataclass(frozen=True)
class Inferred:
    """The outcome: the lowest release the requirements allow (None: unknown), and how it was found."""

    version: Optional[str]
    #: ``inferred from requirements.txt:3 (mindspore>=2.2,<2.4)``, or why nothing was inferred.
    source: str


def infer_mindspore_version(folder: Path) -> Inferred:
    """The MindSpore release the requirements in ``folder`` declare (see the module docs)."""
    declared: List[Declared] = []
    for name in REQUIREMENT_FILES:
        path = folder / name
        text = _read(path)
        if text is None or not re.search(r"mind[-_.]?spore", text, re.IGNORECASE):
            continue
        reader = {"requirements.txt": _requirements_txt, "pyproject.toml": _pyproject, "setup.py": _setup_py}[name]
        declared.extend(d for d in reader(text, name) if _is_mindspore(d.text))
    if not declared:
        return Inferred(None, f"not inferred: no requirement on mindspore in {', '.join(REQUIREMENT_FILES)} of {folder}")
    return _lowest(declared)


def _read(path: Path) -> Optional[str]:
    try:
        if not path.is_file() or path.stat().st_size > MAX_SIZE:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


# --- the three file kinds -----------------------------------------------------------------------------


def _requirements_txt(text: str, name: str) -> List[Declared]:
    """pip's requirements format: one requirement a line, ``#`` comments, ``\\`` continuations, options skipped."""
    found = []
    pending, first = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            first = number
        line = re.sub(r"(^|\s)#.*", "", line).rstrip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = (pending + line).strip(), ""
        if line and not line.startswith("-"):
            found.append(Declared(line, f"{name}:{first}"))
    return found


def _pyproject(text: str, name: str) -> List[Declared]:
    """``[project] dependencies`` (optional dependencies are not the project's own requirements)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    project = data.get("project")
    dependencies = project.get("dependencies") if isinstance(project, dict) else None
    if not isinstance(dependencies, list):
        return []
    return [Declared(item, f"{name}:{_line_of(text, item)}") for item in dependencies if isinstance(item, str)]


def _line_of(text: str, item: str) -> int:
    """The line a dependency string is written on (1 when it cannot be found)."""
    for quote in ('"', "'"):
        position = text.find(quote + item + quote)
        if position >= 0:
            return text.count("\n", 0, position) + 1
    return 1


def _setup_py(text: str, name: str) -> List[Declared]:
    """``setup(install_requires=[...])`` string literals, also through a module-level name bound to a list."""
    try:
        tree = parse_quietly(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    lists = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg != "install_requires":
                continue
            value: Any = keyword.value
            if isinstance(value, ast.Name):
                value = lists.get(value.id)
            if isinstance(value, (ast.List, ast.Tuple)):
                found.extend(Declared(element.value, f"{name}:{element.lineno}") for element in value.elts
                             if isinstance(element, ast.Constant) and isinstance(element.value, str))
    return found


# --- deciding ---------------------------------------------------------------------------------------------


def _parsed(text: str) -> Any:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def _is_mindspore(text: str) -> bool:
    requirement = _parsed(text)
    return requirement is not None and _normalized(requirement.name) in ms.MINDSPORE_DISTRIBUTIONS


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _lowest(declared: List[Declared]) -> Inferred:
    """The lowest release every requirement allows, or why there is none."""
    from packaging.version import InvalidVersion, Version

    bounds: List[Tuple[Any, bool, Declared]] = []  # (version, strict, requirement): a lower bound
    uppers: List[Tuple[Any, bool, Declared]] = []
    pins: List[Tuple[Any, Declared]] = []
    for item in declared:
        for clause in _parsed(item.text).specifier:
            operator, written = clause.operator, clause.version
            try:
                version = Version(written.rstrip(".*").rstrip("."))
            except InvalidVersion:
                continue
            if operator in ("==", "===") and not written.endswith("*"):
                pins.append((version, item))
                uppers.append((version, False, item))  # a pin is an upper bound too
            if operator in ("==", "===", ">=", "~="):
                bounds.append((version, False, item))
            elif operator == ">":
                bounds.append((version, True, item))
            elif operator in ("<", "<="):
                uppers.append((version, operator == "<", item))
    conflict = _conflict(pins, bounds, uppers)
    if conflict:
        return Inferred(None, f"not inferred: {conflict}")
    if not bounds:
        shown = ", ".join(f"{d.where} ({d.text})" for d in declared)
        return Inferred(None, f"not inferred: {shown} sets no lowest release")
    version, _, item = max(bounds, key=lambda bound: (bound[0], bound[1]))
    return Inferred(str(version), f"inferred from {item.where} ({item.text})")


def _conflict(pins, bounds, uppers) -> str:
    """Why the requirements together allow no release ("" when they do)."""
    for version, item in pins:
        for other, other_item in pins:
            if other != version:
                return f"{item.where} ({item.text}) conflicts with {other_item.where} ({other_item.text})"
    for lower, strict, item in bounds:
        for upper, below, other in uppers:
            if lower > upper or (lower == upper and (strict or below)):
                return f"{item.where} ({item.text}) conflicts with {other.where} ({other.text})"
    return ""
