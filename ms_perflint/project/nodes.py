"""From a position the index knows to the CST node a rule reports at.

The index records where a literal is (line, column) when the *reason* to report it
is in another file (``config = {"class_num": 1000}`` feeds ``resnet50`` in
``train.py``). The rule running on the file holds libcst nodes without positions;
this finds the literal nodes at those positions, paying for positions only in the
rare files that have such literals.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Tuple

import libcst as cst

from ms_perflint.positions import positions_of


def integers_at(module: cst.Module, places: Iterable[Tuple[int, int]]) -> Dict[Tuple[int, int], cst.Integer]:
    """``{(line, column): Integer node}`` for the integer literals that start at ``places``."""
    wanted = set(places)
    if not wanted:
        return {}
    collector = _Integers()
    module.visit(collector)
    found = {}
    for node, where in positions_of(module, collector.found).items():
        place = (where.start.line, where.start.column)
        if place in wanted:
            found[place] = node
    return found


class _Integers(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: List[cst.Integer] = []

    def visit_Integer(self, node: cst.Integer) -> None:
        self.found.append(node)
