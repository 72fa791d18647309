"""libcst's parser without the per-node validation a parsed tree does not need.

Every libcst node validates itself when it is built (``CSTNode.__post_init__`` calls
``_validate``): the checks guard trees built by hand, such as a codemod's replacement
nodes, against shapes that would generate invalid code. The native parser builds
its nodes through the same constructors, so parsing a file re-checks, node by node,
what the grammar has just accepted: measured with libcst 1.9 on the benchmark corpus,
about 11 % of ``parse_module`` (3.1 s of 28 s). libcst's own source marks the call
as a cost it would rather not pay when parsing.

:func:`parse_module` parses with that hook switched off and switches it back on
afterwards, also when parsing fails, so nodes built anywhere else in the process
(another flake8 plugin, a test) are validated as usual; a lock keeps two threads'
parses from leaving it off (a node another thread builds during a parse is not
validated). ``tests/test_parser.py`` checks that the trees equal libcst's own and
that validation is back afterwards.
"""

from __future__ import annotations

import threading

import libcst as cst
from libcst._nodes.base import CSTNode

_VALIDATING = CSTNode.__dict__["__post_init__"]
_SWITCHED = threading.Lock()


def _unchecked(self: CSTNode) -> None:
    """A node the parser built: the grammar has already checked its shape."""


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module(text)``, without validating each node the parser builds."""
    with _SWITCHED:
        CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        try:
            return cst.parse_module(text)
        finally:
            CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign]
