"""A constructor run with the sizes it is given (``project/unroll.py``): each call's arguments at each execution,
and the shapes a run cannot follow, where it gives up (the caller keeps its static count)."""

from __future__ import annotations

import textwrap
from typing import Any, Dict, List

from ms_perflint.project.unroll import STARRED, UNKNOWN, unroll


def executions(code: str, bound: Dict[str, Any], lookup=lambda name: UNKNOWN, callee: str = "Conv") -> List:
    """The argument tuples of every execution of the calls whose text starts with ``callee(``, in order."""
    text = textwrap.dedent(code).lstrip("\n")
    run = unroll(text, 0, bound, lookup)
    if run is None:
        return None  # type: ignore[return-value]
    found = run.executions
    starts = sorted(at for at in found if text.startswith(callee + "(", at))
    return [args for at in starts for args, _, _ in found[at]]


DCGAN = """
def __init__(self, isize, nz, nc, ngf=64):
    cngf, tisize = ngf // 2, 4
    while tisize != isize:
        cngf = cngf * 2
        tisize = tisize * 2
    Conv(nz, cngf, 4)
    csize = 4
    while csize < isize // 2:
        Conv(cngf, cngf // 2, 4)
        cngf = cngf // 2
        csize = csize * 2
    Conv(cngf, nc, 4)
"""


def test_a_while_loop_that_halves_the_channels_each_pass_is_run_pass_by_pass():
    assert executions(DCGAN, {"isize": 64, "nz": 100, "nc": 3}) == [
        (100, 512, 4), (512, 256, 4), (256, 128, 4), (128, 64, 4), (64, 3, 4)]


def test_a_parameter_passed_something_unknown_does_not_take_its_default():
    # ngf passed, value unknown: the loops' channels are unknown, the calls still run with UNKNOWN
    assert executions(DCGAN, {"isize": 64, "nz": 100, "nc": 3, "ngf": UNKNOWN})[0] == (100, UNKNOWN, 4)


def test_a_loop_test_on_an_unknown_value_stops_the_run():
    assert executions(DCGAN, {"nz": 100, "nc": 3}) is None  # isize is required and not given


def test_augmented_assignments_and_class_level_tables_are_followed():
    code = """
    def __init__(self, depth, stem=32):
        blocks = Darknet.depth2block[depth]
        channels = stem * 2
        for count in blocks:
            Stage(channels, count)
            channels *= 2
    """
    table = {"Darknet.depth2block": {53: [2, 8, 8, 4]}}
    found = executions(code, {"depth": 53}, lambda name: table.get(name, UNKNOWN), callee="Stage")
    assert found == [(64, 2), (128, 8), (256, 8), (512, 4)]


def test_comprehensions_starred_arguments_and_break():
    code = """
    def make(self, widths, n):
        layers = [Conv(w, w * 2) for w in widths if w > 8]
        Seq(*layers, Conv(1, 2))
        for i in range(100):
            if i == n:
                break
            Conv(i, i)
    """
    assert executions(code, {"widths": (8, 16, 32), "n": 2}) == [(16, 32), (32, 64), (1, 2), (0, 0), (1, 1)]
    assert executions(code, {"widths": (8,), "n": 0}, callee="Seq") == [(STARRED, UNKNOWN)]


def test_an_arm_that_only_raises_is_not_the_run_followed_and_an_unknown_test_over_calls_stops():
    code = """
    def __init__(self, mode, width=64):
        if mode not in ("a", "b"):
            raise ValueError(mode)
        Conv(width, width)
        if self.flag:
            Conv(1, 1)
    """
    assert executions(code, {"mode": UNKNOWN}) is None  # self.flag is unknown and guards a call
    assert executions(code.replace("Conv(1, 1)", "pass"), {"mode": "a"}) == [(64, 64)]


def test_a_run_that_never_ends_stops_within_its_budget():
    assert executions("""
    def __init__(self):
        c = 1
        while c > 0:
            Conv(c, c)
            c += 1
    """, {}) is None


def test_arithmetic_errors_and_syntax_errors_give_no_run():
    assert executions("def f(self, a):\n    Conv(a // 0, 1)\n", {"a": 3}) is None
    assert executions("def f(self:\n    pass\n", {}) is None


def test_offsets_are_the_files_for_an_indented_method_and_non_ascii_text():
    code = "    def __init__(self, c):\n        s = 'é'\n        x = (Conv(c, c))\n"
    found = unroll(code, 1000, {"c": 8}, lambda name: UNKNOWN)
    at = code.index("Conv(")
    assert found.executions[1000 + at] == [((8, 8), {}, None)]


RESNET = """
class ResNet:
    def __init__(self, block, layers, width=64):
        self.inplanes = width
        self.stem = Conv(3, self.inplanes, 7)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
    def _make_layer(self, block, planes, blocks, stride=1):
        cells = []
        for _ in range(blocks):
            cells.append(block(self.inplanes, planes, stride))
            self.inplanes = planes * block.expansion
            stride = 1
        return cells
"""


def test_a_method_called_on_self_runs_inline_and_the_attributes_it_sets_carry_over():
    text = RESNET.lstrip("\n")
    init = text[text.index("    def __init__"):text.index("    def _make_layer")]
    method = text[text.index("    def _make_layer"):]
    init_at, method_at = text.index("    def __init__"), text.index("    def _make_layer")
    bottleneck = object()
    run = unroll(init, init_at, {"block": bottleneck, "layers": (2, 2)}, lambda name: UNKNOWN,
                 member=lambda value, name: 4 if value is bottleneck and name == "expansion" else UNKNOWN,
                 method=lambda name: (method, method_at) if name == "_make_layer" else None)
    block_calls = run.executions[text.index("block(self.inplanes")]
    # 64 in, then planes x 4 (256, then 512): the attribute _make_layer sets is read by its next pass and next call
    assert [args for args, _, _ in block_calls] == [(64, 64, 1), (256, 64, 1), (256, 128, 2), (512, 128, 1)]
    assert run.inlined_programs == {method_at}
    assert {text.index("self._make_layer(block, 64"), text.index("self._make_layer(block, 128")} <= run.inlined_calls


def test_a_loop_left_under_an_unknown_test_stops_the_run():
    # ``if i + 1 >= depth: break`` with depth unknown: counting every pass could exceed what the network builds
    code = """
    def __init__(self, c, depth):
        for i in range(3):
            Conv(c, c * 2)
            c *= 2
            if i + 1 >= depth:
                break
    """
    assert executions(code, {"c": 64, "depth": UNKNOWN}) is None
    assert executions(code, {"c": 64, "depth": 2}) == [(64, 128), (128, 256)]


def test_runaway_arithmetic_and_lists_stop_the_run_quickly():
    assert executions("def f(self):\n    x = 3\n    for i in range(40):\n        x = x * x\n    Conv(x, 1)\n", {}) is None
    assert executions("def f(self):\n    a = [1]\n    for i in range(40):\n        a = a + a\n    Conv(1, 1)\n", {}) is None


def test_form_feeds_and_line_separators_in_comments_keep_the_offsets():
    for odd in ("\x0c", "\u2028"):
        code = f"def f(self, c):\n    # {odd} a comment\n    Conv(c, c)\n"
        found = unroll(code, 0, {"c": 8}, lambda name: UNKNOWN)
        assert found.executions[code.index("Conv(")] == [((8, 8), {}, None)], repr(odd)


def test_a_chained_call_records_its_receivers_call_not_its_own_arguments_under_the_same_start():
    code = "def f(self, c):\n    layer = Conv(c, c).to_float(half)\n"
    found = unroll(code, 0, {"c": 8}, lambda name: UNKNOWN)
    assert found.executions[code.index("Conv(")] == [((8, 8), {}, None)]


def test_a_try_whose_handler_chooses_a_value_stops_the_run():
    code = """
    def __init__(self, c):
        try:
            import apex
            fused = True
        except ImportError:
            fused = False
        if fused:
            Conv(c, c)
    """
    assert executions(code, {"c": 8}) is None
