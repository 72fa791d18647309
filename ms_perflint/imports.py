"""Per-file import tracking: which local names stand for which MindSpore objects.

This replaces libcst's ``QualifiedNameProvider`` (measured at 500-850 us per line)
with a table filled while the engine walks the module once. Names are bound in
source order, so a later ``class MatMul`` or ``def resnet50`` shadows an earlier
``from mindspore.ops import MatMul``: a user's own object is never MindSpore's.

Qualified names are canonicalised (``mindspore.ops.operations.MatMul`` and
``mindspore.ops.MatMul`` are the same primitive) so that rules compare one spelling.
"""

from __future__ import annotations

from typing import Dict, Optional, Sequence, Tuple

import libcst as cst

#: Top-level packages whose import marks a file as MindSpore code.
MINDSPORE_PACKAGES = ("mindspore", "mindcv", "mindformers", "mindnlp")

# Longest prefix first: each entry rewrites a module path to the public spelling
# that the same object has at the top of the API (checked on MindSpore 2.10).
_PREFIX_ALIASES: Tuple[Tuple[str, str], ...] = (
    ("mindspore.ops.operations.", "mindspore.ops."),
    ("mindspore.ops.functional.", "mindspore.ops."),
    ("mindspore.ops.function.", "mindspore.ops."),
    ("mindspore.ops.auto_generate.", "mindspore.ops."),
    ("mindspore.mint.nn.functional.", "mindspore.mint.nn.functional."),
    ("mindspore.mint.nn.", "mindspore.nn."),
    ("mindspore.nn.layer.", "mindspore.nn."),
    ("mindspore.common.dtype.", "mindspore."),
    ("mindspore.dtype.", "mindspore."),
    ("mindspore.common.tensor.", "mindspore."),
    ("mindspore.common.parameter.", "mindspore."),
    ("mindspore.train.callback.", "mindspore.train."),
    ("mindspore.train.model.", "mindspore.train."),
    ("mindspore.train.amp.", "mindspore.amp."),
    ("mindspore.train.serialization.", "mindspore."),
    ("mindspore.context.", "mindspore."),
    ("mindspore.dataset.core.config.", "mindspore.dataset.config."),
    ("mindspore.profiler.profiler.", "mindspore.profiler."),
)

# Objects that MindSpore also exports at the top level under the same name.
_TOP_LEVEL_TRAIN = frozenset(
    ("Model", "CheckpointConfig", "ModelCheckpoint", "Callback", "LossMonitor", "TimeMonitor")
)
_TOP_LEVEL_PROFILER = frozenset(("Profiler",))

#: Sentinel for a name that the file rebinds to something of its own.
LOCAL = "<local>"


def canonical_name(qualified: str) -> str:
    """Return the one spelling the rules compare for a qualified MindSpore name."""
    if not qualified.startswith("mindspore"):
        return qualified
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified.startswith(prefix):
            qualified = replacement + qualified[len(prefix) :]
            break
    # Sub-module layers such as ``mindspore.nn.basic.Dense`` -> ``mindspore.nn.Dense``.
    parts = qualified.split(".")
    if len(parts) > 3 and _is_private_submodule(parts[1], parts[2]):
        qualified = ".".join(parts[:2] + parts[3:])
        parts = qualified.split(".")
    if len(parts) == 2 and parts[1] in _TOP_LEVEL_TRAIN:
        return "mindspore.train." + parts[1]
    if len(parts) == 2 and parts[1] in _TOP_LEVEL_PROFILER:
        return "mindspore.profiler." + parts[1]
    return qualified


_NN_SUBMODULES = frozenset(("basic", "conv", "normalization", "activation", "container", "math"))


def _is_private_submodule(package: str, module: str) -> bool:
    """``nn.basic``, ``ops.math_ops``, ``ops.gen_ops_prim``: homes of objects ``nn``/``ops`` re-export."""
    if package == "nn":
        return module in _NN_SUBMODULES
    return package == "ops" and (module.endswith("_ops") or module.startswith("gen_ops_"))


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None (calls, subscripts, ...)."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def _module_path(node: Optional[cst.BaseExpression]) -> str:
    return dotted_name(node) if node is not None else ""


class ImportTracker:
    """Maps local names to canonical qualified names, in source order.

    Feed it every ``Import``/``ImportFrom`` and every local binding that can
    shadow an import (``class``/``def``); ask it with :meth:`resolve`.
    """

    def __init__(self) -> None:
        self._names: Dict[str, str] = {}
        self.imports_mindspore = False

    def bind_import(self, node: cst.Import) -> None:
        """Record ``import a.b`` and ``import a.b as c``."""
        for alias in node.names:
            module = _module_path(alias.name)
            self._note_package(module)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._names[alias.asname.name.value] = module
            else:
                top = module.split(".", 1)[0]
                self._names[top] = top

    def bind_import_from(self, node: cst.ImportFrom) -> None:
        """Record ``from a import b as c``; relative imports are local to the project."""
        module = _module_path(node.module)
        if node.relative:
            base = "." * len(node.relative) + module
            self._bind_from(node, base, relative=True)
            return
        self._note_package(module)
        self._bind_from(node, module, relative=False)

    def _bind_from(self, node: cst.ImportFrom, module: str, relative: bool) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            name = _module_path(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            separator = "" if module.endswith(".") else "."
            target = f"{module}{separator}{name}" if module else name
            self._names[local] = target if relative else canonical_name(target)

    def bind_local(self, name: str) -> None:
        """A ``def``/``class`` of the file's own rebinds ``name``: it is no longer imported."""
        if name in self._names:
            self._names[name] = LOCAL

    def _note_package(self, module: str) -> None:
        if module.split(".", 1)[0] in MINDSPORE_PACKAGES:
            self.imports_mindspore = True

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """The canonical qualified name of ``node`` if it reaches an import, else None."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        return self.resolve_dotted(dotted)

    def resolve_dotted(self, dotted: str) -> Optional[str]:
        """Like :meth:`resolve`, for an already dotted string."""
        head, _, rest = dotted.partition(".")
        target = self._names.get(head)
        if target is None or target == LOCAL:
            return None
        full = f"{target}.{rest}" if rest else target
        return canonical_name(full) if not full.startswith(".") else full

    def local_names_for(self, qualified: str) -> Sequence[str]:
        """Local names bound exactly to ``qualified`` (for spelling fixes with the file's alias)."""
        return [name for name, target in self._names.items() if target == qualified]

    def bound_names(self) -> Sequence[str]:
        """Every name the file imported (for choosing a new alias that collides with none)."""
        return list(self._names)
