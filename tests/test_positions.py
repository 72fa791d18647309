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
    # Where CPython's ast and libcst disagree about a range, or count columns differently (ast_positions.py).
    "non-ascii-columns": "\u00e9 = 1\nz = \u00e9 + g(\u00e9, '\u00fc', k='\u00df')\n",
    "tuples": "x = a, b,  # c\nx = (a, b,  )\nf((a, b))\nf(((a, b)))\nf(())\nf(( ))\nx = (a, (b, c))\nx = a, (b, c)\n",
    "generators": "g(x for x in y)\ng((x for x in y))\nz = ((x for x in y if x))\n",
    "boolean-chains": "a or b or (c)\n(a) or b or c\na and (b) and c and d\nx = 1 < y <= (z) != w\n",
    "comment-before-comma": "f(a  # c\n  , b)\nf(\n  a,\n)\n",
    "definitions": ("@d(1)\nclass A(B, *c, metaclass=M, **k):\n    x: int = 5\n"
                    "def \\\n  f(a, /, b=(1, 2), *, c: int = 2, **k) -> (int): pass\nf = lambda a, b=2, *c, d=3, **e: a\n"),
    "strings": "x = f'{a!r:>{w}} {b=}' f\"{c}\" 'd'\ns = ('a'\n     'b'\n     f'{c}')\nx = \"\"\"a\nb\"\"\" + f(1)\n",
    "statements": ("if x: a(); b()\nx = 1; y = f(2)\ntry:\n    pass\nexcept* E as e:\n    f(e)\n"
                   "async def f():\n    async with a as b, c:\n        await z\n"),
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


def test_the_ranges_above_are_read_off_ast_wherever_python_can_parse_the_code():
    """So the comparison above tests the pairing, not only the fallback of generating code."""
    import ast

    from ms_perflint.analysis.ast_positions import AstPositions

    unpaired = []
    for name, code in CASES:
        try:
            ast.parse(code)
        except SyntaxError:  # newer syntax than this Python's (``type X = ...`` before 3.12): code is generated
            continue
        if not AstPositions(code, set()).pair(cst.parse_module(code)):
            unpaired.append(name)
    assert unpaired == []
