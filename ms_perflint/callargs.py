"""Reading a call's arguments the way Python binds them (by keyword or by position)."""

from __future__ import annotations

from typing import Optional

import libcst as cst


def argument(call: cst.Call, keyword: str, position: Optional[int] = None) -> Optional[cst.Arg]:
    """The argument bound to parameter ``keyword``: passed by name, or at ``position`` (0-based)."""
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None  # *args: later positions are unknown
        if position is not None and positional == position:
            return arg
        positional += 1
    return None


def has_star_args(call: cst.Call) -> bool:
    """``f(*args)`` or ``f(**kwargs)``: the call may pass anything."""
    return any(arg.star for arg in call.args)


def has_double_star(call: cst.Call) -> bool:
    """``f(**kwargs)``: any keyword may be passed."""
    return any(arg.star == "**" for arg in call.args)


def callee_name(call: cst.Call) -> Optional[str]:
    """The last name of the callee: ``train`` for ``model.train(...)``, ``f`` for ``f(...)``."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None
