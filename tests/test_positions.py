"""Positions of findings must be exactly libcst's ``PositionProvider`` ranges."""

from __future__ import annotations

from typing import List

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from ms_perflint.analysis.positions import positions_of
from ms_perflint.analysis.walker import walk
from tests.test_walker import ALL_SYNTAX, SOURCES

#: Newline styles and characters that make line/column counting go wrong if done naively.
AWKWARD = {
    "crlf": "import mindspore as ms\r\nclass A:\r\n    def f(self):\r\n        return ms.ops.matmul(1, 2)\r\n",
    "lone-cr": "x = 1\ry = (\r  2,\r)\r",
    "mixed-newlines": "a = [\r\n    1,\n    2,\r]\n",
    "unicode-and-tabs": "def f():\n\treturn 'é😀', g(  'ü' )\n",
    "continuation": "x = 1 + \\\n    2\nif x:\n    y = f(\n        a,\n    )  # trailing comment\n",
    "no-final-newline": "import os\nprint(os.sep)",
}


def all_nodes(module: cst.Module) -> List[cst.CSTNode]:
    nodes: List[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    walk(module, Collect())
    return nodes


CASES = [(name, code) for name, code in SOURCES] + sorted(AWKWARD.items())


@pytest.mark.parametrize("name, code", CASES, ids=[name for name, _ in CASES])
def test_every_node_has_the_position_provider_range(name: str, code: str):
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = all_nodes(module)
    assert positions_of(module, nodes) == {node: expected[node] for node in nodes}


def test_asking_for_a_few_nodes_gives_only_those_with_the_same_ranges():
    module = cst.parse_module(ALL_SYNTAX)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = all_nodes(module)
    # Nodes whose range libcst borrows from children (decorated functions, calls, attributes) are included.
    wanted = [node for node in nodes if isinstance(node, (cst.FunctionDef, cst.Call, cst.Attribute, cst.ImportFrom))]
    wanted += nodes[-3:]
    found = positions_of(module, wanted)
    assert set(found) == set(wanted)
    assert all(found[node] == expected[node] for node in wanted)


def test_a_node_from_another_module_gets_no_position():
    module = cst.parse_module("x = 1\n")
    stranger = cst.parse_module("y = 2\n").body[0]
    assert positions_of(module, [stranger]) == {}


@pytest.mark.parametrize("name, code", CASES, ids=[name for name, _ in CASES])
def test_ranges_read_off_ast_are_the_position_provider_ranges(name: str, code: str):
    """With the text, most ranges come from CPython's ast, the rest from generating code: all must agree."""
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = all_nodes(module)
    found = positions_of(module, nodes, code)
    wrong = {type(node).__name__: (found.get(node), expected[node]) for node in nodes if found.get(node) != expected[node]}
    assert wrong == {}
