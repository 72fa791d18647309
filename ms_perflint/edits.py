"""Small CST edits shared by the rules' fixes, written to keep the user's layout."""

from __future__ import annotations

from typing import Tuple

import libcst as cst

from ms_perflint.imports import ImportTracker

_DEFAULT_SEPARATOR = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def append_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """``f(a, b)`` -> ``f(a, b, name=value)``, following the call's existing layout.

    One argument per line stays one per line with the same indentation; a
    trailing comma stays trailing; a call written on one line stays on one line.
    """
    new_arg = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    separator = _separator(call)
    if isinstance(last.comma, cst.Comma):
        # Trailing comma: the new argument takes over the old last comma (and its line break).
        args[-1] = last.with_changes(comma=separator)
        new_arg = new_arg.with_changes(comma=last.comma)
    else:
        args[-1] = last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace(""))
        new_arg = new_arg.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*args, new_arg])


def _separator(call: cst.Call) -> cst.Comma:
    """The comma (with the whitespace after it) that separates this call's arguments."""
    for arg in reversed(call.args[:-1]):
        if isinstance(arg.comma, cst.Comma):
            return arg.comma
    last = call.args[-1]
    if isinstance(last.comma, cst.Comma) and isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
        # f(\n    a,\n) -> indentation of the arguments is what comes after "(".
        return cst.Comma(whitespace_after=call.whitespace_before_args)
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=call.whitespace_before_args)
    return _DEFAULT_SEPARATOR


def mindspore_attribute(imports: ImportTracker, qualified: str) -> Tuple[cst.BaseExpression, Tuple[str, ...]]:
    """An expression for ``mindspore.<x>`` spelled with the file's own alias, and imports to add.

    ``mindspore.float16`` becomes ``mstype.float16`` where ``mstype`` is the dtype
    module, ``ms.float16`` where ``ms`` is mindspore, ``float16`` where imported
    directly; only when no alias exists is ``import mindspore as ms`` added.
    """
    attribute = qualified.rsplit(".", 1)[1]
    for local in imports.local_names_for(qualified):
        return cst.Name(local), ()
    for module in ("mindspore.common.dtype", "mindspore.dtype", "mindspore"):
        for local in imports.local_names_for(module):
            return cst.Attribute(value=cst.parse_expression(local), attr=cst.Name(attribute)), ()
    alias = "ms" if "ms" not in imports.bound_names() else "mindspore"
    statement = "import mindspore as ms" if alias == "ms" else "import mindspore"
    return cst.Attribute(value=cst.Name(alias), attr=cst.Name(attribute)), (statement,)
