"""The fixer's mechanics: choosing, composing, importing, discarding, converging, suppressing.

Small rules defined here (codes MSP9xx, never registered) exercise situations the
real rules produce only in combination: a wrap around a call whose argument another
fix rewrites, two fixes on one node, a fix that breaks the file, one that raises,
fixes that undo each other. The real MSP103 covers suppression and layout.
"""

from __future__ import annotations

import libcst as cst
import pytest

from ms_perflint.fixer import add_imports, choose_fixes, fix_source
from ms_perflint.rule import Fix, FixSafety, Rule, Violation
from ms_perflint.settings import Settings

DENSE = "mindspore.nn.Dense"


def _is_dense(rule: Rule, node: cst.Call) -> bool:
    return rule.context.qualified_name(node.func) == DENSE


def _wrapped_in_to_float(rule: Rule) -> bool:
    """The call being visited is the receiver of ``.to_float``: ``nn.Dense(...).to_float(...)``."""
    ancestors = rule.context.ancestors
    return len(ancestors) >= 2 and isinstance(ancestors[-2], cst.Attribute) and ancestors[-2].attr.value == "to_float"


def _to_float(node: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(node, cst.Call)
    return cst.Call(
        func=cst.Attribute(value=node, attr=cst.Name("to_float")),
        args=[cst.Arg(cst.parse_expression("ms.float16"))],
    )


class WrapDense(Rule):
    """Like MSP101's fix: chain ``.to_float(ms.float16)`` on ``nn.Dense(...)``, importing ``ms``."""

    code = "MSP901"
    markers = ("Dense",)

    def visit_Call(self, node: cst.Call) -> None:
        if _is_dense(self, node) and not _wrapped_in_to_float(self):
            fix = Fix(node, _to_float, FixSafety.UNSAFE, "Chain `.to_float(ms.float16)`", ("import mindspore as ms",))
            self.report(node, "fp32 Dense", fix)


class AlignDenseOut(Rule):
    """Like MSP102's fix: the literal output size 10 of ``nn.Dense`` becomes 16."""

    code = "MSP902"
    markers = ("Dense",)

    def visit_Call(self, node: cst.Call) -> None:
        if _is_dense(self, node) and len(node.args) >= 2:
            out = node.args[1].value
            if isinstance(out, cst.Integer) and out.value == "10":
                self.report(out, "unaligned", Fix(out, lambda n: n.with_changes(value="16"), FixSafety.UNSAFE, "10 -> 16"))


class DenseHasBias(Rule):
    """A second fix on the *same* node as WrapDense: append ``has_bias=True``."""

    code = "MSP903"
    markers = ("Dense",)

    def visit_Call(self, node: cst.Call) -> None:
        if _is_dense(self, node) and not any(arg.keyword and arg.keyword.value == "has_bias" for arg in node.args):
            self.report(node, "bias", Fix(node, _append_has_bias, FixSafety.SAFE, "Add `has_bias=True`"))


def _append_has_bias(node: cst.CSTNode) -> cst.CSTNode:
    from ms_perflint.edits import append_keyword

    assert isinstance(node, cst.Call)
    return append_keyword(node, "has_bias", cst.Name("True"))


class NameRule(Rule):
    """Reports every ``Name`` called ``target`` with a fix built by ``make_fix``; configured per test."""

    code = "MSP904"
    markers = ("target",)
    transform = staticmethod(lambda node: node)
    safety = FixSafety.SAFE

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "target":
            self.report(node, "target", Fix(node, type(self).transform, type(self).safety, "rewrite target"))


def name_rule(transform, code: str = "MSP904") -> type:
    return type(f"NameRule{code}", (NameRule,), {"code": code, "transform": staticmethod(transform)})


def fix(source: str, *rules: type, unsafe: bool = True, settings: Settings = Settings(), **kwargs):
    return fix_source(source, "model.py", settings, unsafe=unsafe, rules=rules, **kwargs)


# --- composition --------------------------------------------------------------------------------


def test_nested_fixes_compose_in_one_pass():
    source = "from mindspore import nn\nlayer = nn.Dense(10, 10)\n"
    result = fix(source, WrapDense, AlignDenseOut)
    assert result.fixed_text == (
        "from mindspore import nn\nimport mindspore as ms\nlayer = nn.Dense(10, 16).to_float(ms.float16)\n"
    )
    assert sorted((f.code, f.line) for f in result.applied) == [("MSP901", 2), ("MSP902", 2)]
    assert result.remaining.violations == []
    assert result.problems == []


def test_two_fixes_on_one_node_both_land_in_one_run():
    source = "from mindspore import nn\nlayer = nn.Dense(3, 4)\n"
    result = fix(source, WrapDense, DenseHasBias)
    assert result.fixed_text == (
        "from mindspore import nn\nimport mindspore as ms\nlayer = nn.Dense(3, 4, has_bias=True).to_float(ms.float16)\n"
    )
    assert [f.code for f in result.applied] == ["MSP901", "MSP903"]


def test_choose_fixes_keeps_one_fix_per_node_in_position_then_code_order():
    node = cst.Name("x")
    other = cst.Name("y")
    keep = lambda n: n  # noqa: E731

    def violation(code, target, line, column):
        return Violation(code, "m", node=target, fix=Fix(target, keep, FixSafety.SAFE, code), line=line, column=column)

    late = violation("MSP002", other, 3, 0)
    second = violation("MSP002", node, 1, 4)
    first = violation("MSP001", node, 1, 4)
    assert choose_fixes([late, second, first]) == [first, late]


def test_unsafe_fixes_need_the_flag():
    source = "from mindspore import nn\nlayer = nn.Dense(3, 10)\n"
    safe_only = fix(source, WrapDense, AlignDenseOut, DenseHasBias, unsafe=False)
    assert safe_only.fixed_text == "from mindspore import nn\nlayer = nn.Dense(3, 10, has_bias=True)\n"
    assert sorted(v.code for v in safe_only.remaining.violations) == ["MSP901", "MSP902"]


# --- imports ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "before, after",
    [
        (  # after docstring, __future__ and the top import block; code keeps its blank lines and comment
            '"""Doc."""\nfrom __future__ import annotations\nimport os\nfrom mindspore import nn\n\n# the net\nx = 1\n',
            '"""Doc."""\nfrom __future__ import annotations\nimport os\nfrom mindspore import nn\n'
            "import mindspore as ms\n\n# the net\nx = 1\n",
        ),
        (  # no import block at all: right after the docstring
            '"""Doc."""\n\nx = 1\n',
            '"""Doc."""\nimport mindspore as ms\n\nx = 1\n',
        ),
        (  # header comments (shebang, coding cookie) stay first
            "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n",
            "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport mindspore as ms\nx = 1\n",
        ),
        (  # an import inside a function does not bind at module level
            "def f():\n    import mindspore as ms\n",
            "import mindspore as ms\ndef f():\n    import mindspore as ms\n",
        ),
    ],
)
def test_add_imports_places_new_import_below_the_top_block(before, after):
    assert add_imports(cst.parse_module(before), ["import mindspore as ms"]).code == after


@pytest.mark.parametrize(
    "source",
    [
        "import mindspore as ms\nx = 1\n",
        "import os, mindspore as ms\n",
        "try:\n    import mindspore as ms\nexcept ImportError:\n    ms = None\n",
        "x = 1\nimport mindspore as ms\n",
    ],
)
def test_add_imports_never_duplicates_a_module_level_import(source):
    assert add_imports(cst.parse_module(source), ["import mindspore as ms", "import mindspore as ms"]).code == source


def test_add_imports_adds_a_different_alias():
    source = "import mindspore\n"
    assert add_imports(cst.parse_module(source), ["import mindspore as ms"]).code == source + "import mindspore as ms\n"


def test_import_needed_by_several_fixes_is_added_once():
    source = "from mindspore import nn\na = nn.Dense(3, 4)\nb = nn.Dense(5, 6)\n"
    result = fix(source, WrapDense)
    assert result.fixed_text is not None
    assert result.fixed_text.count("import mindspore as ms") == 1
    assert len(result.applied) == 2


# --- fixes that must not be written --------------------------------------------------------------


def test_fix_that_breaks_compilation_is_discarded_and_the_others_kept():
    # `(yield)` at module level parses but does not compile: only compile() catches it.
    breaks = name_rule(lambda node: cst.parse_expression("(yield)"))
    source = "import mindspore\nfrom mindspore import nn\nlayer = nn.Dense(3, 4)\nvalue = target\n"
    result = fix(source, breaks, DenseHasBias)
    assert result.fixed_text == source.replace("nn.Dense(3, 4)", "nn.Dense(3, 4, has_bias=True)")
    assert [f.code for f in result.applied] == ["MSP903"]
    assert [(p.line, "MSP904 fix discarded" in p.message and "outside function" in p.message) for p in result.problems] == [
        (4, True)
    ]
    assert [v.code for v in result.remaining.violations] == ["MSP904"]


def test_discarded_fix_is_not_also_reported_as_not_converging():
    breaks = name_rule(lambda node: cst.parse_expression("(yield)"))
    result = fix("import mindspore\nvalue = target\n", breaks, max_passes=1)
    assert result.fixed_text is None
    assert len(result.problems) == 1 and "fix discarded" in result.problems[0].message


def test_fix_that_raises_is_discarded_not_propagated():
    def explode(node):
        raise RuntimeError("boom")

    result = fix("import mindspore\ntarget = 1\n", name_rule(explode))
    assert result.fixed_text is None
    assert len(result.problems) == 1 and "RuntimeError: boom" in result.problems[0].message


def test_fix_that_changes_nothing_is_reported_once():
    result = fix("import mindspore\ntarget = 1\n", name_rule(lambda node: node))
    assert result.fixed_text is None
    assert [p.message for p in result.problems] == ["MSP904 fix discarded: the fix changed nothing"]


def test_a_file_the_compiler_already_rejects_is_checked_by_the_parser():
    # `return` outside a function is the user's own compile error; the fix still applies.
    source = "from mindspore import nn\nreturn nn.Dense(3, 4)\n"
    result = fix(source, DenseHasBias)
    assert result.fixed_text == "from mindspore import nn\nreturn nn.Dense(3, 4, has_bias=True)\n"


def test_fixes_that_undo_each_other_stop_and_are_reported():
    to_other = name_rule(lambda node: node.with_changes(value="other"), "MSP905")

    class Back(NameRule):
        code = "MSP906"
        markers = ("other",)

        def visit_Name(self, node: cst.Name) -> None:
            if node.value == "other":
                self.report(node, "other", Fix(node, lambda n: n.with_changes(value="target"), FixSafety.SAFE, "back"))

    result = fix("import mindspore\nx = target\n", to_other, Back)
    assert any("did not converge (fixes undo each other)" in p.message for p in result.problems)
    assert result.fixed_text == "import mindspore\nx = other\n"


def test_a_fix_that_never_settles_stops_after_max_passes():
    grow = name_rule(lambda node: cst.parse_expression("[target]"))
    result = fix("import mindspore\nx = target\n", grow, max_passes=3)
    assert result.fixed_text == "import mindspore\nx = [[[target]]]\n"
    assert [p.message for p in result.problems] == ["fixes did not converge (still fixable after 3 passes): MSP904"]


# --- suppression and settings (real MSP103) --------------------------------------------------------


CHECKPOINT = """\
from mindspore.train import CheckpointConfig
a = CheckpointConfig(save_checkpoint_steps=10)  # noqa: MSP103
b = CheckpointConfig(save_checkpoint_steps=10)  # noqa
c = CheckpointConfig(save_checkpoint_steps=10)  # noqa: MSP101
"""


def test_noqa_suppressed_findings_are_never_fixed():
    result = fix_source(CHECKPOINT, "train.py", Settings())
    assert result.fixed_text == CHECKPOINT.replace(
        "c = CheckpointConfig(save_checkpoint_steps=10)", "c = CheckpointConfig(save_checkpoint_steps=10, async_save=True)"
    )


@pytest.mark.parametrize(
    "settings",
    [
        Settings(ignore=("MSP103",)),
        Settings(select=("MSP101",)),
        Settings(per_file_ignores={"scripts/*.py": ("MSP1",)}),
    ],
    ids=["ignore", "not-selected", "per-file-ignore"],
)
def test_disabled_or_ignored_codes_are_never_fixed(settings):
    result = fix_source(CHECKPOINT, "scripts/train.py", settings)
    assert result.fixed_text is None and result.applied == []


def test_file_level_directive_blocks_fixes():
    source = "# ms-perflint: noqa: MSP103\n" + CHECKPOINT
    assert fix_source(source, "train.py", Settings()).fixed_text is None


# --- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"from mindspore.train import CheckpointConfig\nx = CheckpointConfig(\n",
        b"# -*- coding: no-such-codec -*-\nimport mindspore\n",
        b"import mindspore\nx = '\xff\xfe'\n",
        b"",
    ],
    ids=["syntax-error", "bad-cookie", "not-utf8", "empty"],
)
def test_bad_input_is_an_error_or_nothing_never_an_exception(data):
    result = fix_source(data, "bad.py", Settings(), unsafe=True)
    assert result.fixed_text is None and result.applied == []
    assert (result.remaining.error is not None) == (data != b"")


def test_a_file_libcst_cannot_reproduce_is_not_fixed():
    # A form feed at the start of a line is dropped by libcst's code generator.
    data = b"from mindspore.train import CheckpointConfig\n\x0cc = CheckpointConfig(save_checkpoint_steps=1)\n"
    result = fix_source(data, "train.py", Settings())
    assert result.fixed_bytes is None
    assert [p.message for p in result.problems] == ["not fixed: libcst cannot reproduce this file byte for byte"]
