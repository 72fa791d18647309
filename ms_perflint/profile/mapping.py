"""From an operator's scope name to the line that built its Cell.

MindSpore names every operator after the Cells it ran in: ``Default/network-WithLossCell/
_backbone-ResNet/head-Dense/MatMul-op3`` is the ``MatMul`` of the attribute ``head`` (an ``nn.Dense``) of
class ``ResNet``, reached through the training wrappers; backward operators carry the same path under
``Gradients/``. Each ``attribute-Class`` step is followed through the project model: the attribute's
assignment (``self.head = nn.Dense(...)``) is the source site, and a project class leads one step deeper.
A numbered step (``0-ResidualBlock`` inside a ``SequentialCell``) keeps the container's site and goes on
into the class it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ms_perflint.project.model import ClassRef, Project
from ms_perflint.profile.formats import OpRow


@dataclass(frozen=True)
class Site:
    """Where a Cell is built: the assignment of one attribute of a project class."""

    path: str
    #: Character offsets of the built value (``nn.Dense(768, 10)``) in the file's analysed text.
    start: int
    end: int
    line: int
    owner: str
    attribute: str
    #: The class the profile names for it (``Dense``).
    cell: str

    def describe(self) -> str:
        return f"{self.owner}.{self.attribute} ({self.cell})"


@dataclass(frozen=True)
class Mapped:
    """An operator and the sites it runs in, outermost first (the last is where its own layer is built)."""

    row: OpRow
    sites: Tuple[Site, ...]
    backward: bool


class ScopeMapper:
    """Maps operator names to sites of one project (memoised per scope path)."""

    def __init__(self, project: Project) -> None:
        #: The project the sites are in.
        self.project = project
        self._by_name: Dict[str, List[ClassRef]] = {}
        for path, facts in sorted(project.python.items()):
            for name in facts.classes:
                self._by_name.setdefault(name, []).append((path, name))
        self._memo: Dict[Tuple[str, ...], Tuple[Site, ...]] = {}

    def map(self, row: OpRow) -> Optional[Mapped]:
        """The sites of one operator; None when no step of its path is a project class."""
        backward, steps = scope_steps(row.name)
        key = tuple(steps)
        if key not in self._memo:
            self._memo[key] = self._sites(steps)
        sites = self._memo[key]
        return Mapped(row, sites, backward) if sites else None

    def _sites(self, steps: List[Tuple[str, str]]) -> Tuple[Site, ...]:
        sites: List[Site] = []
        current: Optional[ClassRef] = None
        for attribute, cell in steps:
            site = self._site(current, attribute, cell) if current is not None else None
            if site is not None:
                sites.append(site)
            current = self._class(current, attribute, cell)
        return tuple(sites)

    def _site(self, owner: ClassRef, attribute: str, cell: str) -> Optional[Site]:
        found = self.project.attribute(owner, attribute)
        if found is None:
            return None
        path, value = found
        return Site(path, value.start, value.end, value.line, owner[1], attribute, cell)

    def _class(self, owner: Optional[ClassRef], attribute: str, cell: str) -> Optional[ClassRef]:
        """The project class this step enters: what the attribute was built as, else the class named ``cell``."""
        if owner is not None:
            found = self.project.attribute(owner, attribute)
            if found is not None:
                path, value = found
                facts = self.project.class_facts(owner)
                init = facts.methods.get("__init__", 0) if facts is not None else 0
                classes = [c for c in self.project.instance_classes(path, value, init) if c[1] == cell]
                if len(classes) == 1:
                    return classes[0]
        named = self._by_name.get(cell, [])
        return named[0] if len(named) == 1 and self.project.is_cell(named[0]) else None


def scope_steps(name: str) -> Tuple[bool, List[Tuple[str, str]]]:
    """``(backward, [(attribute, Cell class), ...])`` of an operator's full name.

    ``Gradients/Default/network-WithLossCell/_backbone-Net/fc-Dense/Grad_MatMul/MatMul-op4`` ->
    ``(True, [("network", "WithLossCell"), ("_backbone", "Net"), ("fc", "Dense")])``.
    """
    parts = name.split("/")
    backward = bool(parts) and parts[0].startswith("Gradients")
    steps = []
    for part in parts[:-1]:  # the last part is the operator itself
        attribute, dash, cell = part.rpartition("-")
        if dash and attribute and cell and not part.startswith("Grad_"):
            steps.append((attribute, cell))
    return backward, steps
