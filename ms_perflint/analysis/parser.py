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
validated), and a process forked during a parse starts with it on. A libcst without
the hook is parsed with as it is. ``tests/test_parser.py`` checks that the trees
equal libcst's own, that nothing is validated during a parse, and that validation
is back afterwards.
"""

from __future__ import annotations

import os
import threading

import libcst as cst

_VALIDATING = cst.CSTNode.__dict__.get("__post_init__")
_SWITCHED = threading.Lock()


def _unchecked(self: cst.CSTNode) -> None:
    """A node the parser built: the grammar has already checked its shape."""


def parse_module(text: str) -> cst.Module:
    """``libcst.parse_module(text)``, without validating each node the parser builds."""
    if _VALIDATING is None:
        return cst.parse_module(text)
    with _SWITCHED:
        cst.CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
        try:
            return cst.parse_module(text)
        finally:
            cst.CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign]


def _after_fork_in_child() -> None:
    """A fork during another thread's parse copies the hook switched off and the lock held: undo both."""
    global _SWITCHED
    if _VALIDATING is not None:
        cst.CSTNode.__post_init__ = _VALIDATING  # type: ignore[method-assign]
    _SWITCHED = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
