"""Which names of a file stand for which objects: its import table, in source order.

This replaces libcst's ``QualifiedNameProvider`` (measured at 500-850 us per line)
with a table filled while the extractor walks the module once. A name maps to an
absolute dotted target: canonical for MindSpore-family objects
(``P.MatMul`` -> ``mindspore.ops.MatMul``), absolute for project modules
(``from .resnet import ResNet`` in ``src/model.py`` -> ``src.resnet.ResNet``), and
``<module>.<name>`` for the file's own top-level definitions. A later ``class
MatMul`` or ``def resnet50`` rebinds the name: a user's own object is never MindSpore's.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional

import libcst as cst

from ms_perflint.catalogue import MINDSPORE_PACKAGES, canonical_name


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None (calls, subscripts, ...)."""
    parts = []
    while type(node) is cst.Attribute:  # exact types: isinstance against libcst's ABCs is slow, and this is hot
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _canonical(target: str) -> str:
    """MindSpore names get their one spelling; others stay as written, so a linted package
    (mindcv, mindformers) resolves to its own files before the catalogue's spellings apply."""
    return canonical_name(target) if target.startswith("mindspore") else target


class Names:
    """A file's name table: local name -> absolute target."""

    def __init__(self, module: str, is_package: bool, local_definitions: Iterable[str] = ()) -> None:
        self.module = module
        package = module if is_package else module.rpartition(".")[0]
        self._package_parts = package.split(".") if package else []
        self.table: Dict[str, str] = {name: f"{module}.{name}" for name in local_definitions}
        self.local = set(local_definitions)
        #: Absolute modules and names imported anywhere in the file.
        self.imported: List[str] = []
        self.imports_mindspore = False
        #: Modules whose names ``from module import *`` brings in, in source order.
        self.star: List[str] = []

    def bind_import(self, node: cst.Import) -> None:
        """``import a.b`` binds ``a``; ``import a.b as c`` binds ``c`` to ``a.b``."""
        for alias in node.names:
            module = dotted_name(alias.name) or ""
            self._note(module)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, module)
            else:
                head = module.split(".", 1)[0]
                self._bind(head, head)

    def bind_import_from(self, node: cst.ImportFrom) -> None:
        """``from a import b as c``; relative imports are resolved against the file's package."""
        module = dotted_name(node.module) if node.module is not None else ""
        base = self._absolute(module or "", len(node.relative))
        if base is None:
            return
        self._note(base)
        if isinstance(node.names, cst.ImportStar):
            self.star.append(base)
            return
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            target = f"{base}.{name}" if base else name
            self.imported.append(target)
            self._bind(local, target)

    def bind_definition(self, name: str, top_level: bool) -> None:
        """A ``def``/``class`` rebinds ``name`` (top level: to ``<module>.<name>``; nested: to nothing)."""
        if top_level:
            self.table[name] = f"{self.module}.{name}"
            self.local.add(name)
        else:
            self.table.pop(name, None)

    def _bind(self, local: str, target: str) -> None:
        self.table[local] = _canonical(target)
        self.local.discard(local)

    def _note(self, module: str) -> None:
        if module:
            self.imported.append(module)
            if module.split(".", 1)[0] in MINDSPORE_PACKAGES:
                self.imports_mindspore = True

    def _absolute(self, module: str, level: int) -> Optional[str]:
        if level == 0:
            return module
        if level - 1 > len(self._package_parts):
            return None
        parts = self._package_parts[: len(self._package_parts) - (level - 1)]
        return ".".join([*parts, module] if module else parts)

    def resolve(self, dotted: Optional[str]) -> Optional[str]:
        """The absolute target of a dotted local name, or None when its head is not bound here."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        target = self.table.get(head)
        if target is None:
            return None
        return _canonical(f"{target}.{rest}") if rest else target

    def is_local_definition(self, dotted: str) -> bool:
        """The head of ``dotted`` is a top-level definition of this file."""
        return dotted.partition(".")[0] in self.local
