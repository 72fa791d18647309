"""MSP101 fp32-matmul: every spelling, every covering mechanism, the look-alikes, the option, messages and fix."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List, Optional, Tuple

import libcst as cst
import pytest

from ms_perflint.context import FileContext
from ms_perflint.engine import _Dispatcher, lint_source
from ms_perflint.fixer import fix_source
from ms_perflint.rule import FixSafety, Violation
from ms_perflint.rules.msp101_fp32_matmul import (
    FP32_PRECISION_MODES,
    O1_COVERS,
    FileFacts,
    Fp32Matmul,
    GlobalMark,
    Mark,
    SiteKind,
    covering_marks,
)
from ms_perflint.settings import Settings
from ms_perflint.walker import walk
from tests.conftest import FIXTURES, run_cli

CELL_ADVICE = "chain .to_float("
OPERAND_ADVICE = "cast operands to float16 or enable AMP"


def findings(source: str, **options) -> List[Violation]:
    """MSP101 findings for a snippet (dedented), with rule options such as ``ascend_target="910a"``."""
    settings = Settings(
        select=("MSP101",), rule_options={key.replace("_", "-"): value for key, value in options.items()}
    )
    result = lint_source(textwrap.dedent(source), "example.py", settings)
    assert result.error is None, result.error
    return result.violations


def found(source: str, **options) -> List[Tuple[int, int]]:
    """``[(line, 1-based column)]`` of the MSP101 findings."""
    return [(v.line, v.column + 1) for v in findings(source, **options)]


def facts_of(source: str) -> FileFacts:
    """Walk a snippet with MSP101 alone and return the facts it gathered."""
    module = cst.parse_module(textwrap.dedent(source))
    context = FileContext("example.py", module, Settings(select=("MSP101",)))
    rule = Fp32Matmul(context)
    walk(module, _Dispatcher(context, [rule]))
    return rule.facts()


def marks_of(source: str, ascend_target: str = "910b") -> List[Optional[Mark]]:
    """The covering mark of each site, in source order (None: reported)."""
    return [mark for _, mark in covering_marks(facts_of(source), ascend_target)]


def head_with(construction: str, imports: str = "from mindspore import nn", extra: str = "") -> str:
    """A Cell holding ``self.fc = <construction>`` (line 5, column 19 after one import line)."""
    return f"""\
{imports}
class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = {construction}
    def construct(self, x):
        return self.fc(x)
{extra}"""


DENSE_HEAD = head_with("nn.Dense(2048, 1024)")


# --- every spelling in RULES.md is reported, at the construction or call ------------------------

CONSTRUCTIONS = [
    ("import mindspore.nn as nn", "nn.Dense(16, 16)", SiteKind.CELL),
    ("from mindspore import nn", "nn.Dense(16, 16)", SiteKind.CELL),
    ("import mindspore as ms", "ms.nn.Dense(16, 16)", SiteKind.CELL),
    ("from mindspore.nn import Dense", "Dense(16, 16)", SiteKind.CELL),
    ("from mindspore import nn as layers", "layers.Dense(16, 16)", SiteKind.CELL),
    ("from mindspore import nn", "nn.Linear(16, 16)", SiteKind.CELL),
    ("from mindspore import mint", "mint.nn.Linear(16, 16)", SiteKind.CELL),
    ("from mindspore.mint import nn as mnn", "mnn.Linear(16, 16)", SiteKind.CELL),
    ("from mindspore.mint.nn import Linear", "Linear(16, 16)", SiteKind.CELL),
    ("from mindspore import nn", "nn.MatMul()", SiteKind.CELL),
    ("import mindspore.ops as ops", "ops.MatMul()", SiteKind.PRIMITIVE),
    ("from mindspore.ops import operations as P", "P.MatMul(transpose_b=True)", SiteKind.PRIMITIVE),
    ("from mindspore import ops", "ops.operations.MatMul()", SiteKind.PRIMITIVE),
    ("from mindspore.ops import MatMul", "MatMul()", SiteKind.PRIMITIVE),
    ("import mindspore.ops.operations as P", "P.MatMul()", SiteKind.PRIMITIVE),
    ("from mindspore.ops import MatMul as MM", "MM()", SiteKind.PRIMITIVE),
    ("from mindspore import ops", "ops.BatchMatMul()", SiteKind.PRIMITIVE),
    ("from mindspore.ops import operations as P", "P.BatchMatMul()", SiteKind.PRIMITIVE),
]


@pytest.mark.parametrize("imports, construction, kind", CONSTRUCTIONS, ids=[c[1] + " / " + c[0] for c in CONSTRUCTIONS])
def test_each_construction_spelling_is_reported_where_built(imports, construction, kind):
    source = f"""\
{imports}
import mindspore
class Net(mindspore.nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = {construction}
    def construct(self, x, w):
        return x
"""
    (violation,) = findings(source)
    assert (violation.line, violation.column + 1) == (6, 19)
    assert (CELL_ADVICE if kind is SiteKind.CELL else OPERAND_ADVICE) in violation.message
    assert (violation.fix is not None) == (kind is SiteKind.CELL)


CALLS = [
    ("import mindspore.ops as ops", "ops.matmul(x, w)"),
    ("from mindspore.ops import functional as F", "F.matmul(x, w)"),
    ("from mindspore.ops import matmul", "matmul(x, w)"),
    ("import mindspore as ms", "ms.ops.matmul(x, w)"),
    ("from mindspore import mint", "mint.matmul(x, w)"),
    ("from mindspore import ops", "ops.bmm(x, w)"),
    ("from mindspore import mint", "mint.bmm(x, w)"),
    ("from mindspore import mint", "mint.mm(x, w)"),
    ("from mindspore import ops", "ops.mm(x, w)"),
    ("from mindspore import ops", "ops.dense(x, w)"),
    ("import mindspore", "x @ w"),
    ("import mindspore", "x.matmul(w)"),
]


@pytest.mark.parametrize("imports, call", CALLS, ids=[c[1] + " / " + c[0] for c in CALLS])
def test_each_functional_spelling_and_the_operator_are_reported_per_call(imports, call):
    source = f"""\
{imports}
import mindspore
class Net(mindspore.nn.Cell):
    def construct(self, x, w):
        y = {call}
        return {call}
"""
    violations = findings(source)
    assert [(v.line, v.column + 1) for v in violations] == [(5, 13), (6, 16)]
    assert all(OPERAND_ADVICE in v.message and v.fix is None for v in violations)


def test_a_primitive_is_reported_once_however_often_it_is_called():
    source = """\
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.matmul = ops.MatMul()
            def construct(self, x, w):
                return self.matmul(x, w) + self.matmul(w, x) + self.matmul(x, x)
        """
    assert found(source) == [(5, 23)]


def test_the_markers_cover_every_spelling_the_rule_reports():
    """The prefilter reads the file's text: the import plus the use must hold a marker."""
    texts = [f"{imports}\n{construction}" for imports, construction, _ in CONSTRUCTIONS]
    texts += [f"{imports}\n{call}" for imports, call in CALLS]
    for text in texts:
        assert any(marker in text for marker in Fp32Matmul.markers), text


# --- only inside a Cell ---------------------------------------------------------------------------


def test_constructions_outside_a_cell_are_not_reported():
    source = """\
        from mindspore import nn, ops
        def make_head():
            return nn.Dense(2048, 1024)
        class Factory:
            def build(self):
                return ops.MatMul(), nn.Dense(16, 16)
        head = nn.Dense(16, 16)
        """
    assert found(source) == []


def test_a_cell_through_a_local_base_or_a_construct_method_is_a_cell():
    source = """\
        from mindspore import nn
        class Base(nn.Cell):
            pass
        class Head(Base):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 16)
        class Bare:
            def __init__(self):
                self.fc = nn.Dense(16, 16)
            def construct(self, x):
                return self.fc(x)
        """
    assert found(source) == [(7, 19), (10, 19)]


def test_operators_count_only_in_construct_and_functional_calls_not_in_init():
    source = """\
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self, table):
                super().__init__()
                self.table = ops.matmul(table, table)
            def helper(self, x, w):
                return x @ w, x.matmul(w), ops.matmul(x, w)
            def construct(self, x, w):
                return self.helper(x, w)
        """
    assert found(source) == [(7, 36)]


def test_method_calls_named_matmul_that_are_not_tensor_matmul_are_silent():
    source = """\
        import numpy as np
        from mindspore import nn
        class Net(nn.Cell):
            def matmul(self, a, b):
                return a * b
            def construct(self, x, w):
                return self.matmul(x, w) + np.matmul(x, w) + x.matmul(w, out=None)
        """
    assert found(source) == []


# --- covered: on the construction or its attribute ------------------------------------------------


@pytest.mark.parametrize(
    "construction",
    [
        "nn.Dense(2048, 1024).to_float(mstype.float16)",
        "nn.Dense(2048, 1024).to_float(mstype.bfloat16)",
        "nn.Dense(2048, 1024).to_float(self.compute_dtype)",
        "nn.Dense(2048, 1024).to_float(dst_type=mstype.float16)",
        "nn.Dense(2048, 1024).shard(((1, 1),)).to_float(mstype.float16)",
        "nn.Dense(2048, 1024).add_flags_recursive(fp16=True)",
        "nn.Dense(2048, 1024).add_flags_recursive(bf16=True)",
    ],
)
def test_a_decision_chained_on_the_construction_covers_it(construction):
    imports = "from mindspore import nn\nfrom mindspore.common import dtype as mstype"
    assert found(head_with(construction, imports)) == []


def test_a_decision_on_the_attribute_later_in_the_class_covers_it():
    source = """\
        from mindspore import nn
        import mindspore as ms
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(2048, 1024)
                self.proj = nn.Dense(1024, 1024)
                self.blocks = nn.SequentialCell([nn.Dense(16, 16), nn.ReLU()])
                self.proj.add_flags_recursive(fp16=True)
            def half(self):
                self.fc.to_float(ms.float16)
                self.blocks[0].to_float(ms.float16)
        class Other(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(2048, 1024)
        """
    assert found(source) == [(16, 19)]  # the same attribute name in another class is not covered


@pytest.mark.parametrize(
    "flags, reported",
    [("fp16=True", False), ("fp16=False", True), ("is_first_iteration=True", True), ("**flags", False)],
)
def test_add_flags_recursive_covers_only_with_a_dtype_flag(flags, reported):
    source = head_with("nn.Dense(2048, 1024)", extra=f"def apply(net, flags):\n    Head().add_flags_recursive({flags})\n")
    assert found(source) == ([(5, 19)] if reported else [])


def test_to_float_on_a_different_attribute_does_not_cover():
    source = head_with("nn.Dense(2048, 1024)", imports="from mindspore import nn\nimport mindspore as ms")
    source = source.replace("        return self.fc(x)", "        self.other.to_float(ms.float16)\n        return self.fc(x)")
    known = source.replace("        self.fc = nn.Dense", "        self.other = nn.Dense(16, 16)\n        self.fc = nn.Dense")
    assert found(known) == [(7, 19)]
    assert found(source) == []  # self.other is never assigned: an unknown object, which covers the file


# --- covered: an instance of the class or of a class that builds it ------------------------------

BLOCKS = """\
import mindspore as ms
from mindspore import nn
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = nn.Dense(512, 512)
class Stage(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(), Block()])
        self.down = nn.Dense(512, 256)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stage = Stage()
        self.head = nn.Dense(256, 16)
"""
BLOCK_SITE, STAGE_SITE, NET_SITE = (6, 21), (11, 21), (16, 21)


@pytest.mark.parametrize(
    "usage, reported",
    [
        ("", [BLOCK_SITE, STAGE_SITE, NET_SITE]),
        ("net = Net()\nnet.to_float(ms.float16)\n", []),
        ("Net().to_float(ms.float16)\n", []),
        ("def main():\n    net = Net()\n    net = net.to_float(ms.float16)\n", []),
        ("net = Stage().to_float(ms.float16)\n", [NET_SITE]),
        ("Block().to_float(ms.float16)\n", [STAGE_SITE, NET_SITE]),
        ("net = ms.amp.auto_mixed_precision(Net(), 'O0')\nnet.to_float(ms.float16)\n", []),
        ("net = nn.WithLossCell(Stage(), nn.MSELoss())\nnet.to_float(ms.float16)\n", [NET_SITE]),
        ("def build():\n    return Stage()\nbuild().to_float(ms.float16)\n", [NET_SITE]),
    ],
    ids=["none", "name", "inline", "in-function", "inner-class", "leaf", "through-amp-O0", "wrapper", "builder-function"],
)
def test_a_decision_on_an_instance_covers_what_it_builds(usage, reported):
    assert found(BLOCKS + usage) == reported


def test_to_float_on_self_covers_the_class_itself():
    source = BLOCKS.replace("        self.down = nn.Dense(512, 256)", "        self.down = nn.Dense(512, 256)\n        self.to_float(ms.float16)")
    assert found(source) == [(17, 21)]  # Block and Stage covered; Net's head (one line lower now) is not


def test_to_float_on_self_in_a_base_class_covers_its_subclasses():
    source = """\
        import mindspore as ms
        from mindspore import nn
        class HalfCell(nn.Cell):
            def __init__(self):
                super().__init__()
                self.to_float(ms.float16)
        class Head(HalfCell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)
        class Deeper(Head):
            def __init__(self):
                super().__init__()
                self.out = nn.Dense(64, 64)
        class Plain(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)
        """
    assert found(source) == [(18, 19)]


def test_a_block_class_handed_to_the_network_is_built_by_it():
    source = """\
        import mindspore as ms
        from mindspore import nn
        class Bottleneck(nn.Cell):
            def __init__(self, channels):
                super().__init__()
                self.fc = nn.Dense(channels, channels)
        class ResNet(nn.Cell):
            def __init__(self, block, layers):
                super().__init__()
                cells = []
                for _ in range(layers):
                    cells.append(block(64))
                self.body = nn.SequentialCell(cells)
        def build():
            return ResNet(Bottleneck, 3)
        build().to_float(ms.float16)
        """
    assert found(source) == []
    assert found(source.replace("build().to_float(ms.float16)", "")) == [(6, 19)]


def test_blocks_appended_to_a_list_follow_the_attribute_built_from_it():
    source = """\
        import mindspore as ms
        from mindspore import nn
        class Block(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                layers = []
                for _ in range(4):
                    layers.append(Block())
                self.body = nn.SequentialCell(layers)
                self.body.to_float(ms.float16)
                self.head = nn.Dense(64, 16)
        """
    assert found(source) == [(15, 21)]


def test_a_subclass_instance_covers_its_local_base():
    source = """\
        import mindspore as ms
        from mindspore import nn
        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)
        class Big(Base):
            pass
        class Unrelated(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 64)
        Big().to_float(ms.float16)
        """
    assert found(source) == [(12, 19)]


@pytest.mark.parametrize(
    "usage",
    [
        "def half(cell):\n    cell.to_float(ms.float16)\n",
        "def keep_heads(net):\n    for _, cell in net.cells_and_names():\n        cell.to_float(ms.float32)\n",
        "from model_zoo import get_net\nget_net().to_float(ms.float16)\n",
    ],
)
def test_a_decision_on_a_cell_the_linter_cannot_follow_covers_the_whole_file(usage):
    assert found(BLOCKS + usage) == []


def test_an_attribute_holding_an_unknown_cell_covers_the_file_when_marked():
    source = BLOCKS + """\
class Wrapper(nn.Cell):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.backbone.to_float(ms.float32)
"""
    assert found(source) == []


# --- covered: AMP levels anywhere in the file -----------------------------------------------------

AMP_TRAIN = "from mindspore import amp\nimport mindspore as ms\nfrom mindspore.train import Model"


@pytest.mark.parametrize(
    "call, reported",
    [
        ('Model(net, loss, opt, amp_level="O2")', False),
        ('Model(net, loss, opt, amp_level="O3")', False),
        ('Model(net, loss, opt, amp_level="auto")', False),
        ("Model(net, loss, opt, amp_level=args.amp_level)", False),
        ("Model(net, loss, opt, **config)", False),
        ('Model(net, loss, opt, None, None, None, "O2")', False),
        ('ms.Model(net, amp_level="O2")', False),
        ('Model(net, loss, opt, amp_level="O0")', True),
        ("Model(net, loss, opt)", True),
        ('amp.auto_mixed_precision(net, "O2")', False),
        ('amp.auto_mixed_precision(net, amp_level="O3")', False),
        ('ms.train.amp.auto_mixed_precision(net, "auto")', False),
        ("amp.auto_mixed_precision(net)", True),
        ('amp.build_train_network(net, opt, level="O2")', False),
        ('amp.build_train_network(net, opt, loss, "O3")', False),
        ("amp.build_train_network(net, opt)", True),
        ('Model(net, amp_level="O2", cast_model_type=ms.float32)', True),
        ('amp.build_train_network(net, opt, level="O0", cast_model_type=ms.float16)', False),
    ],
)
def test_amp_levels_cover_every_matmul_except_o0(call, reported):
    source = head_with("nn.Dense(2048, 1024)", imports="from mindspore import nn\n" + AMP_TRAIN)
    source += f"def train(net, loss, opt, args, config):\n    model = {call}\n"
    assert found(source) == ([(8, 19)] if reported else [])


O1_SITES = [
    ("from mindspore import nn", "self.op = nn.Dense(16, 16)", "mindspore.nn.Dense"),
    ("from mindspore import ops", "self.op = ops.MatMul()", "mindspore.ops.MatMul"),
    ("from mindspore import ops", "self.op = ops.BatchMatMul()", "mindspore.ops.BatchMatMul"),
    ("from mindspore import ops", "y = ops.bmm(x, w)", "mindspore.ops.bmm"),
    ("from mindspore import ops", "y = ops.mm(x, w)", "mindspore.ops.mm"),
    ("from mindspore import nn", "self.op = nn.Linear(16, 16)", "mindspore.nn.Linear"),
    ("from mindspore import mint", "self.op = mint.nn.Linear(16, 16)", "mindspore.nn.Linear"),
    ("from mindspore import nn", "self.op = nn.MatMul()", "mindspore.nn.MatMul"),
    ("from mindspore import ops", "y = ops.matmul(x, w)", "mindspore.ops.matmul"),
    ("from mindspore import mint", "y = mint.matmul(x, w)", "mindspore.mint.matmul"),
    ("from mindspore import mint", "y = mint.bmm(x, w)", "mindspore.mint.bmm"),
    ("from mindspore import mint", "y = mint.mm(x, w)", "mindspore.mint.mm"),
    ("from mindspore import ops", "y = ops.dense(x, w)", "mindspore.ops.dense"),
    ("import mindspore", "y = x @ w", "@"),
    ("import mindspore", "y = x.matmul(w)", "Tensor.matmul"),
]


@pytest.mark.parametrize("imports, statement, op", O1_SITES, ids=[s[1] for s in O1_SITES])
def test_amp_o1_covers_only_its_white_list(imports, statement, op):
    source = f"""\
{imports}
import mindspore
class Net(mindspore.nn.Cell):
    def construct(self, x, w):
        {statement}
        return x
net = mindspore.amp.auto_mixed_precision(Net(), "O1")
"""
    violations = findings(source)
    if op in O1_COVERS:
        assert violations == []
    else:
        (violation,) = violations
        assert violation.line == 5 and "the file's AMP white list does not include it" in violation.message


@pytest.mark.parametrize(
    "white_list, reported",
    [
        ("[nn.Dense]", [(10, 23)]),
        ("[ops.MatMul]", [(10, 23)]),
        ("amp.get_white_list()", [(10, 23)]),
        ("amp.get_white_list() + [nn.Linear]", []),
        ("[Block]", [(9, 22), (10, 23)]),
        ("[Block, Other]", []),
        ("custom_list", []),
    ],
)
def test_custom_mixed_precision_covers_what_its_white_list_names(white_list, reported):
    source = f"""\
from mindspore import amp, nn, ops
class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 16)
class Other(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(16, 16)
        self.linear = nn.Linear(16, 16)
def wrap(net, custom_list):
    return amp.custom_mixed_precision(net, white_list={white_list})
"""
    assert found(source) == reported


def test_custom_mixed_precision_with_a_black_list_covers_everything():
    source = head_with("nn.Linear(16, 16)", extra="def wrap(net):\n    return amp.custom_mixed_precision(net, black_list=[nn.BatchNorm2d])\n")
    assert found(source.replace("from mindspore import nn", "from mindspore import amp, nn")) == []


# --- covered: Ascend precision knobs ----------------------------------------------------------------

PRECISION_IMPORT = "from mindspore.device_context.ascend.op_precision import matmul_allow_hf32, precision_mode"


@pytest.mark.parametrize(
    "knob, reported",
    [
        ('precision_mode("force_fp16")', False),
        ('precision_mode("allow_fp32_to_fp16")', False),
        ('precision_mode("allow_mix_precision")', False),
        ('precision_mode("allow_mix_precision_fp16")', False),
        ('precision_mode("allow_mix_precision_bf16")', False),
        ('precision_mode("allow_fp32_to_bf16")', False),
        ('precision_mode("force_lowerprecision")', False),
        ('precision_mode("cube_fp16in_fp32out")', False),
        ("precision_mode(args.precision_mode)", False),
        ('precision_mode(mode="force_fp16")', False),
        ('precision_mode("must_keep_origin_dtype")', True),
        ('precision_mode("force_fp32")', True),
        ("matmul_allow_hf32(True)", False),
        ("matmul_allow_hf32(False)", True),
        ('ms.device_context.ascend.op_precision.precision_mode("force_fp16")', False),
        ('ms.set_context(ascend_config={"precision_mode": "force_fp16"})', False),
        ('ms.set_context(ascend_config={"precision_mode": "must_keep_origin_dtype"})', True),
        ('ms.set_context(ascend_config={"jit_compile": True})', True),
        ('ms.set_context(ascend_config=dict(precision_mode="allow_mix_precision"))', False),
        ('ms.set_context(ascend_config={"matmul_allow_hf32": True})', False),
        ("ms.set_context(ascend_config=args.ascend_config)", False),
        ('ms.set_context(ascend_config={**base, "jit_compile": True})', False),
        ('context.set_context(ascend_config={"precision_mode": "allow_fp32_to_fp16"})', False),
        ('ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")', True),
    ],
)
def test_precision_knobs_cover_unless_they_keep_fp32(knob, reported):
    imports = f"from mindspore import nn, context\nimport mindspore as ms\n{PRECISION_IMPORT}"
    source = head_with("nn.Dense(2048, 1024)", imports, extra=f"def setup(args, base):\n    {knob}\n")
    assert found(source) == ([(7, 19)] if reported else [])


def test_a_mechanism_inside_a_device_branch_still_covers():
    source = head_with(
        "nn.Dense(2048, 1024)",
        imports="from mindspore import nn\nimport mindspore as ms",
        extra='if ms.get_context("device_target") == "Ascend":\n    ms.device_context.ascend.op_precision.precision_mode("force_fp16")\n',
    )
    assert found(source) == []


def test_a_parameter_default_level_is_not_taken_as_known():
    """``def train(level="O0")``: a caller may pass "O2", so the level counts as unknown (covering)."""
    source = head_with(
        "nn.Dense(2048, 1024)",
        imports="from mindspore import nn\nfrom mindspore.train import Model",
        extra='def train(net, level="O0"):\n    return Model(net, amp_level=level)\n',
    )
    assert found(source) == []
    assert found(source.replace("amp_level=level", 'amp_level="O0"')) == [(6, 19)]


def test_a_module_constant_level_is_known():
    source = head_with(
        "nn.Dense(2048, 1024)",
        imports='from mindspore import nn\nfrom mindspore.train import Model\nAMP_LEVEL = "O0"',
        extra="def train(net):\n    return Model(net, amp_level=AMP_LEVEL)\n",
    )
    assert found(source) == [(7, 19)]


# --- covered: operands cast in the same function -------------------------------------------------

CAST_IMPORTS = """\
import numpy as np
import mindspore as ms
from mindspore import nn, ops
from mindspore.ops import functional as F
from mindspore.ops import operations as P
from mindspore.common import dtype as mstype
"""


@pytest.mark.parametrize(
    "body, reported",
    [
        ("return ops.matmul(ops.cast(x, mstype.float16), w)", False),
        ("return ops.matmul(F.cast(x, ms.bfloat16), w)", False),
        ("return ops.matmul(x.astype(ms.float16), w)", False),
        ("return ops.matmul(x.to(ms.float16), w)", False),
        ("return ops.matmul(x.type(ms.float16), w)", False),
        ("return ops.matmul(x.half(), w.half())", False),
        ("return x.bfloat16() @ w", False),
        ("x = ops.layer_norm(x.float()).to(x.dtype)\n        return x @ w", False),
        ("return ops.matmul(x.half(True), w)", True),
        ("return ops.matmul(x.to(np.float16), w)", True),
        ("return ops.matmul(P.Cast()(x, mstype.float16), w)", False),
        ("x = ops.cast(x, mstype.float16)\n        return ops.matmul(x, w)", False),
        ("k = ops.cast(w, mstype.float16)\n        return ops.matmul(x, k.T) + ops.matmul(x, k.transpose(1, 0))", False),
        ("return ops.matmul(ops.cast(x, self.compute_dtype), w)", False),
        ("return ops.matmul(ops.cast(x, mstype.float32), w)", False),
        ("return ops.cast(x, mstype.float16) @ w", False),
        ("return x @ w", True),
        ("return ops.matmul(x.astype(np.float16), w)", True),
        ("x = x.astype(np.float16)\n        return ops.matmul(x, w)", True),
        ("p = ops.softmax(ops.cast(x, mstype.float32))\n        return ops.matmul(p, w)", False),
        ("return ops.matmul(ops.relu(ops.cast(x, mstype.float16)), w)", False),
        ("h = ops.cast(x, mstype.float16)\n        q = ops.transpose(ops.reshape(h, (2, 8)), (1, 0))\n        return q @ w", False),
        ("p = ops.softmax(x)\n        return ops.matmul(p, w)", True),
        ("h = ops.reshape(x, (2, 8))\n        return ops.matmul(h, w.astype(np.float16))", True),
    ],
)
def test_a_cast_operand_covers_functional_calls_and_the_operator(body, reported):
    source = CAST_IMPORTS + f"class Net(nn.Cell):\n    def construct(self, x, w):\n        {body}\n"
    assert bool(found(source)) == reported


def test_the_output_of_a_cell_with_a_dtype_decision_covers_what_it_feeds():
    """The model zoo's BERT: q/k/v are ``nn.Dense(...).to_float(compute_type)``, so the scores are float16."""
    source = CAST_IMPORTS + """\
class Attention(nn.Cell):
    def __init__(self, dim, compute_type):
        super().__init__()
        self.query = nn.Dense(dim, dim).to_float(compute_type)
        self.key = nn.Dense(dim, dim)
        self.key.to_float(compute_type)
        self.value = nn.Dense(dim, dim)
        self.scores = P.BatchMatMul(transpose_b=True)
        self.context = P.BatchMatMul()
        self.reshape = P.Reshape()
    def construct(self, x):
        q = self.reshape(self.query(x), (2, 4, 8))
        k = self.reshape(self.key(x), (2, 4, 8))
        v = self.reshape(self.value(x), (2, 4, 8))
        return self.scores(q, k), self.context(v, v)
"""
    assert found(source) == [(13, 22), (15, 24)]  # the plain value Dense and the BatchMatMul fed only by it


def test_a_cast_in_another_function_does_not_cover():
    source = CAST_IMPORTS + """\
class Net(nn.Cell):
    def prepare(self, x):
        x = ops.cast(x, mstype.float16)
        return x
    def construct(self, x, w):
        return ops.matmul(x, w)
"""
    assert found(source) == [(12, 16)]


PRIMITIVE_NET = CAST_IMPORTS + """\
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = P.MatMul()
        self.cast = P.Cast()
    def construct(self, x, w):
        {body}
"""


@pytest.mark.parametrize(
    "body, reported",
    [
        ("return self.matmul(self.cast(x, mstype.float16), w)", False),
        ("x = self.cast(x, mstype.float16)\n        return self.matmul(x, w)", False),
        ("return self.matmul(x, w) + self.matmul(self.cast(x, mstype.float16), w)", False),
        ("return self.matmul(self.to_half(x, mstype.float16), w)", False),
        ("return self.matmul(x, w)", True),
        ("return self.matmul(self.cast(x, np.float16), w)", True),
        ("return self.matmul(self.norm(x, w), w)", True),
    ],
)
def test_any_casting_call_site_covers_a_primitive(body, reported):
    assert found(PRIMITIVE_NET.format(body=body)) == ([(10, 23)] if reported else [])


def test_inline_and_local_primitives_look_at_their_own_call():
    source = CAST_IMPORTS + """\
class Net(nn.Cell):
    def construct(self, x, w):
        a = ops.MatMul()(ops.cast(x, mstype.float16), w)
        mm = ops.BatchMatMul()
        b = mm(ops.cast(x, mstype.float16), w)
        c = ops.MatMul()(x, w)
        return a + b + c
"""
    assert found(source) == [(12, 13)]


def test_casting_the_input_of_a_dense_layer_does_not_cover_it():
    source = CAST_IMPORTS + """\
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 16)
    def construct(self, x):
        return self.fc(ops.cast(x, mstype.float16))
"""
    assert found(source) == [(10, 19)]


# --- not reported: deliberate float32 -------------------------------------------------------------

DELIBERATE = [
    head_with("nn.Dense(2048, 1024).to_float(mstype.float32)", "from mindspore import nn\nfrom mindspore.common import dtype as mstype"),
    head_with("nn.Dense(2048, 1024, dtype=mstype.float32)", "from mindspore import nn\nfrom mindspore.common import dtype as mstype"),
    head_with("nn.Dense(2048, 1024, None, None, True, None, mstype.float32)", "from mindspore import nn\nfrom mindspore.common import dtype as mstype"),
    head_with("nn.Linear(2048, 1024, True, None, None, mstype.float32)", "from mindspore import nn\nfrom mindspore.common import dtype as mstype"),
    head_with("nn.Dense(2048, 1024).add_flags_recursive(fp32=True)"),
    head_with("nn.Dense(2048, 1024)", extra="class Model(nn.Cell):\n    def __init__(self):\n        super().__init__()\n        self.head = Head()\n        self.add_flags_recursive(fp32=True)\n"),
]


@pytest.mark.parametrize("source", DELIBERATE, ids=["to_float", "dtype=", "dense-positional-dtype", "linear-positional-dtype", "fp32-flag", "enclosing-cell"])
def test_a_deliberate_float32_choice_is_not_reported_and_is_recorded_as_deliberate(source):
    assert found(source) == []
    (mark,) = marks_of(source)
    assert mark is not None and mark.deliberate_fp32


def test_an_explicit_low_precision_dtype_or_extra_arguments_are_decisions_too():
    imports = "from mindspore import nn\nfrom mindspore.common import dtype as mstype"
    assert found(head_with("nn.Dense(2048, 1024, dtype=mstype.float16)", imports)) == []
    assert found(head_with("nn.Dense(2048, 1024, **kwargs)", imports).replace("def __init__(self)", "def __init__(self, **kwargs)")) == []
    assert marks_of(head_with("nn.Dense(2048, 1024, dtype=mstype.float16)", imports))[0].deliberate_fp32 is False


# --- not reported: not MindSpore, or not MindSpore's op -------------------------------------------


def test_a_pytorch_only_file_is_not_linted():
    source = """\
        import torch
        class Head(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(2048, 1024)
            def construct(self, x, w):
                return self.fc(x) @ w
        """
    assert found(source) == []


def test_a_users_own_class_shadows_the_mindspore_name_even_when_defined_later():
    source = """\
        from mindspore import nn
        from mindspore.nn import Dense
        from mindspore.ops import MatMul
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = Dense(16, 16)
                self.mm = MatMul()
        class Dense(nn.Cell):
            def __init__(self, a, b):
                super().__init__()
        """
    assert found(source) == [(8, 19)]  # the local Dense shadows; MatMul is still MindSpore's


def test_numpy_values_on_either_side_of_the_operator_are_host_arithmetic():
    source = """\
        import numpy as np
        from mindspore import nn, Tensor
        class Net(nn.Cell):
            def construct(self, x, w):
                table = np.ones((16, 16), np.float32)
                a = x.asnumpy() @ table
                b = table.T @ table
                c = np.eye(16) @ w
                d = x @ w
                return Tensor(a + b) + c + d
        """
    assert found(source) == [(9, 13)]


# --- the ascend-target option ---------------------------------------------------------------------


def test_ascend_target_910a_turns_the_rule_off():
    assert found(DENSE_HEAD, ascend_target="910a") == []
    assert found(DENSE_HEAD, ascend_target="910b") == [(5, 19)]
    assert found(DENSE_HEAD, ascend_target="910c") == [(5, 19)]
    assert found(DENSE_HEAD) == [(5, 19)]  # the default targets Atlas A2 (910b)


@pytest.mark.parametrize(
    "knob",
    [
        'ms.device_context.ascend.op_precision.precision_mode("must_keep_origin_dtype")',
        'ms.set_context(ascend_config={"precision_mode": "must_keep_origin_dtype"})',
    ],
)
def test_ascend_target_910a_still_reports_where_the_file_keeps_the_original_dtype(knob):
    source = head_with("nn.Dense(2048, 1024)", imports="from mindspore import nn\nimport mindspore as ms", extra=knob + "\n")
    assert found(source, ascend_target="910a") == [(6, 19)]
    covered = source + 'ms.amp.auto_mixed_precision(Head(), "O2")\n'
    assert found(covered, ascend_target="910a") == []


def test_force_fp32_does_not_re_enable_the_rule_on_910a():
    source = head_with(
        "nn.Dense(2048, 1024)",
        imports="from mindspore import nn\nimport mindspore as ms",
        extra='ms.device_context.ascend.op_precision.precision_mode("force_fp32")\n',
    )
    assert found(source, ascend_target="910a") == []


def test_ascend_target_is_read_from_the_project_configuration_by_the_real_cli(tmp_project: Path):
    (tmp_project / "head.py").write_text(DENSE_HEAD)
    assert run_cli("head.py", cwd=tmp_project).returncode == 1
    (tmp_project / "pyproject.toml").write_text('[tool.ms-perflint]\nascend-target = "910a"\n')
    quiet = run_cli("head.py", cwd=tmp_project)
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    (tmp_project / "pyproject.toml").write_text('[tool.ms-perflint]\nascend-target = "910x"\n')
    wrong = run_cli("head.py", cwd=tmp_project)
    assert wrong.returncode == 2 and "910x" in wrong.stderr


# --- messages ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "imports, spelling",
    [
        ("from mindspore import nn\nfrom mindspore.common import dtype as mstype", "mstype.float16"),
        ("from mindspore import nn\nimport mindspore.common.dtype as mstype", "mstype.float16"),
        ("from mindspore import nn\nfrom mindspore import dtype as mstype", "mstype.float16"),
        ("from mindspore import nn\nimport mindspore as ms", "ms.float16"),
        ("from mindspore import nn, float16", "float16"),
        ("from mindspore import nn\nimport mindspore", "mindspore.float16"),
        ("from mindspore import nn", "ms.float16"),
    ],
)
def test_the_cell_message_and_fix_use_the_files_float16_spelling(imports, spelling):
    (violation,) = findings(head_with("nn.Dense(2048, 1024)", imports))
    assert f"chain .to_float({spelling}) or enable AMP" in violation.message
    assert "nn.Dense runs its MatMul in float32" in violation.message
    replacement = violation.fix.transform(violation.fix.node)
    assert cst.Module([]).code_for_node(replacement) == f"nn.Dense(2048, 1024).to_float({spelling})"


def test_the_messages_name_the_op_as_written_and_say_what_to_do():
    source = """\
        from mindspore import nn, ops, mint
        from mindspore.ops import operations as P
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = mint.nn.Linear(16, 16)
                self.bmm = P.BatchMatMul()
            def construct(self, x, w):
                return ops.matmul(x, w) + x @ w
        """
    messages = [v.message for v in findings(source)]
    assert messages[0].startswith("mint.nn.Linear runs its MatMul in float32")
    assert messages[1].startswith("P.BatchMatMul primitive runs in float32")
    assert messages[2].startswith("ops.matmul runs in float32")
    assert messages[3].startswith("`@` runs MatMul in float32")
    assert all("Ascend" in message for message in messages)
    assert all("white list" not in message for message in messages)  # no AMP in the file
    assert CELL_ADVICE in messages[0] and all(OPERAND_ADVICE in m for m in messages[1:])


# --- the fix -------------------------------------------------------------------------------------


def unsafe_fixed(source: str) -> Optional[str]:
    return fix_source(textwrap.dedent(source), "example.py", Settings(select=("MSP101",)), unsafe=True).fixed_text


def test_the_fix_is_unsafe_and_only_for_cells():
    source = """\
        from mindspore import nn, ops
        import mindspore as ms
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 16)
                self.mm = ops.MatMul()
            def construct(self, x, w):
                return ops.matmul(self.fc(x), w)
        """
    dense, primitive, functional = findings(source)
    assert dense.fix.safety is FixSafety.UNSAFE and dense.fix.imports == ()
    assert dense.fix.description == "Chain `.to_float(float16)`"
    assert primitive.fix is None and functional.fix is None
    assert fix_source(textwrap.dedent(source), "example.py", Settings(select=("MSP101",))).fixed_text is None  # safe-only run


def test_the_fix_adds_an_import_only_when_the_file_has_no_alias():
    (violation,) = findings(DENSE_HEAD)
    assert violation.fix.imports == ("import mindspore as ms",)
    other_ms = DENSE_HEAD.replace("from mindspore import nn", "from mindspore import nn\nimport mscompat as ms")
    (violation,) = findings(other_ms)
    assert violation.fix.imports == ("import mindspore",)
    assert "chain .to_float(mindspore.float16)" in violation.message


@pytest.mark.parametrize("binding", ["ms = 3", "def ms():\n    pass", "for ms in range(3):\n    pass"])
def test_no_fix_when_the_file_uses_the_alias_name_for_its_own_object(binding):
    """``ms = 3`` is not an import: adding ``import mindspore as ms`` would clash with it."""
    (violation,) = findings(DENSE_HEAD + binding + "\n")
    assert violation.fix is None
    assert "chain .to_float(mindspore.float16)" in violation.message


def test_the_fix_wraps_the_updated_node_so_nested_fixes_compose():
    (violation,) = findings(DENSE_HEAD.replace("from mindspore import nn", "from mindspore import nn\nimport mindspore as ms"))
    changed = violation.fix.node.with_changes(args=[cst.Arg(cst.Integer("16")), cst.Arg(cst.Integer("32"))])
    assert cst.Module([]).code_for_node(violation.fix.transform(changed)) == "nn.Dense(16, 32).to_float(ms.float16)"


def test_the_fix_keeps_a_multi_line_construction_and_the_rest_of_the_file():
    source = """\
        import mindspore as ms
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.head = nn.SequentialCell([
                    nn.Dense(
                        dim,  # features
                        dim,
                    ),
                    nn.ReLU(),
                ])  # trailing comment
        """
    expected = source.replace("                    ),\n                    nn.ReLU", "                    ).to_float(ms.float16),\n                    nn.ReLU")
    assert unsafe_fixed(source) == textwrap.dedent(expected)
    assert unsafe_fixed(expected) is None


def test_a_suppressed_finding_is_neither_reported_nor_fixed():
    source = DENSE_HEAD.replace("nn.Dense(2048, 1024)", "nn.Dense(2048, 1024)  # noqa: MSP101")
    assert found(source) == []
    assert unsafe_fixed(source) is None


# --- facts and the decision ------------------------------------------------------------------------


def test_facts_record_sites_with_owner_attribute_and_kind():
    facts = facts_of(BLOCKS + "net = Net()\nnet.to_float(ms.float16)\n")
    assert [(s.owner, s.attribute, s.kind, s.op) for s in facts.sites] == [
        ("Block", "proj", SiteKind.CELL, "mindspore.nn.Dense"),
        ("Stage", "down", SiteKind.CELL, "mindspore.nn.Dense"),
        ("Net", "head", SiteKind.CELL, "mindspore.nn.Dense"),
    ]
    assert facts.cell_classes == {"Block", "Stage", "Net"}
    assert facts.builds == {"Stage": {"Block"}, "Net": {"Stage"}}
    assert set(facts.instance_marks) == {"Net"}
    assert facts.global_marks == []


def test_facts_of_other_files_cover_this_files_sites():
    facts = facts_of(BLOCKS)
    assert all(mark is None for _, mark in covering_marks(facts))
    train = FileFacts(global_marks=[GlobalMark(Mark('amp_level="O2"'))])
    assert all(mark == Mark('amp_level="O2"') for _, mark in covering_marks(facts, extra=[train]))
    o1 = FileFacts(global_marks=[GlobalMark(Mark('amp_level="O1"'), O1_COVERS)])
    assert all(mark is not None for _, mark in covering_marks(facts, extra=[o1]))  # all three are nn.Dense
    builder = FileFacts(instance_marks={"Stage": Mark(".to_float(ms.float16)")})
    assert [mark is None for _, mark in covering_marks(facts, extra=[builder])] == [False, False, True]
    keeps = FileFacts(keeps_origin_dtype=True)
    assert all(mark is not None for _, mark in covering_marks(facts, "910a"))
    assert all(mark is None for _, mark in covering_marks(facts, "910a", extra=[keeps]))


def test_the_decision_does_not_change_the_facts():
    facts = facts_of(BLOCKS + 'Block().to_float(ms.float16)\n')
    first = covering_marks(facts)
    assert covering_marks(facts) == first
    assert set(facts.instance_marks) == {"Block"}


def test_precision_modes_that_keep_fp32_are_the_documented_ones():
    assert set(FP32_PRECISION_MODES) == {"must_keep_origin_dtype", "force_fp32"}


# --- robustness --------------------------------------------------------------------------------------


def test_odd_sites_never_raise_and_are_judged():
    source = """\
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            head = nn.Dense
            def __init__(self, *args, **kwargs):
                super().__init__()
                self.a, self.b = nn.Dense(16, 16), ops.MatMul()
                self.c: nn.Cell = nn.Dense(*args)
                self.d = (lambda: nn.Dense(16, 16))()
                self.to_float()
                self.add_flags_recursive()
            def construct(self, x, *w):
                x @= w[0]
                y = ops.matmul(*w)
                return (x @ (w @ x)) @ ops.MatMul()(*w)
        """
    # nn.Dense(*args) may pass dtype; x @= w is not tracked; to_float() without a dtype decides nothing.
    assert found(source) == [(7, 26), (7, 44), (9, 27), (14, 13), (15, 16), (15, 17), (15, 22), (15, 32)]


@pytest.mark.parametrize(
    "mechanism",
    [
        "amp.auto_mixed_precision(*[Net()])",
        "amp.custom_mixed_precision(Net(), white_list=[*[nn.Dense]])",
        "ms.set_context(ascend_config={1: 2})",
        "[x for x in cells][0].to_float(ms.float16)",
        "ms.set_context(**options)",
    ],
)
def test_odd_mechanisms_never_raise_and_count_as_unknown(mechanism):
    source = head_with("nn.Dense(2048, 1024)", imports="import mindspore as ms\nfrom mindspore import amp, nn")
    source += f"def setup(cells, options):\n    {mechanism}\n"
    assert found(source) == []
    assert found(source.replace(mechanism, "ms.device_context.ascend.op_precision.precision_mode()")) == [(6, 19)]


@pytest.mark.parametrize("case", sorted((FIXTURES / "MSP101").glob("*.py")), ids=lambda p: p.stem)
def test_fixture_findings_disappear_when_their_covering_mechanism_is_removed(case: Path):
    """Each silent part of a fixture is silent because of its mechanism: removing it makes it fire."""
    text = case.read_text()
    removals = {
        "resnet_amp_train": ('amp_level="O2"', 'amp_level="O0"'),
        "fp32_heads": (".add_flags_recursive(fp32=True)", ""),
        "transformer_block": ("        self.pooler.to_float(mstype.float16)\n", ""),
        "amp_o1_train": ('"O1"', '"O0"'),
        "lookalikes": ("class Dense(Cell):", "class OwnDense(Cell):"),
    }
    old, new = removals[case.stem]
    before = len(findings(text))
    assert old in text
    assert len(findings(text.replace(old, new))) > before


# --- real MindSpore 2.10 (tox -e mindspore): the facts the rule relies on --------------------------

#: One network using every MatMul spelling; each result variable names the op it exercises.
PROBE_NET = """\
import numpy as np
import mindspore as ms
from mindspore import mint, nn, ops

SEEN = []


class Probe(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.linear = mint.nn.Linear(4, 4)
        self.nn_matmul = nn.MatMul()
        self.matmul = ops.MatMul()
        self.batch_matmul = ops.BatchMatMul()
        self.w = ms.Parameter(ms.Tensor(np.ones((4, 4), np.float32)))
        self.b = ms.Parameter(ms.Tensor(np.ones((4,), np.float32)))

    def construct(self, x, x3, w3):
        dense = self.dense(x)
        linear = self.linear(x)
        nn_matmul = self.nn_matmul(x, self.w)
        matmul = self.matmul(x, self.w)
        batch_matmul = self.batch_matmul(x3, w3)
        ops_matmul = ops.matmul(x, self.w)
        mint_matmul = mint.matmul(x, self.w)
        ops_bmm = ops.bmm(x3, w3)
        mint_bmm = mint.bmm(x3, w3)
        ops_mm = ops.mm(x, self.w)
        mint_mm = mint.mm(x, self.w)
        ops_dense = ops.dense(x, self.w, self.b)
        operator = x @ self.w
        tensor_matmul = x.matmul(self.w)
        return dense, linear, nn_matmul, matmul, batch_matmul, ops_matmul, mint_matmul, ops_bmm, mint_bmm, ops_mm, mint_mm, ops_dense, operator, tensor_matmul
"""
PROBE_OPS = {
    "dense": "mindspore.nn.Dense",
    "linear": "mindspore.nn.Linear",
    "nn_matmul": "mindspore.nn.MatMul",
    "matmul": "mindspore.ops.MatMul",
    "batch_matmul": "mindspore.ops.BatchMatMul",
    "ops_matmul": "mindspore.ops.matmul",
    "mint_matmul": "mindspore.mint.matmul",
    "ops_bmm": "mindspore.ops.bmm",
    "mint_bmm": "mindspore.mint.bmm",
    "ops_mm": "mindspore.ops.mm",
    "mint_mm": "mindspore.mint.mm",
    "ops_dense": "mindspore.ops.dense",
    "operator": "@",
    "tensor_matmul": "Tensor.matmul",
}


def import_from(folder: Path, name: str, source: str):
    """Write ``source`` as ``<folder>/<name>.py`` and import it (MindSpore's rewrite and graph mode read the file)."""
    import importlib
    import sys

    (folder / f"{name}.py").write_text(source)
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


class _CastAnalysis:
    """Reads the source MindSpore generates for an O1 network: which results come from cast inputs."""

    def __init__(self, module_source: str) -> None:
        import ast

        self.ast = ast
        tree = ast.parse(module_source)
        self.functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        self.classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def _calls_amp_cast(self, node, seen) -> bool:
        ast = self.ast
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            name = call.func.id if isinstance(call.func, ast.Name) else None
            if name == "amp_cast":
                return True
            if name in self.functions and name not in seen:
                seen.add(name)
                if self._calls_amp_cast(self.functions[name], seen):
                    return True
        return False

    def cell_casts(self, class_name: str) -> bool:
        construct = next(n for n in self.classes[class_name].body if getattr(n, "name", "") == "construct")
        return self._calls_amp_cast(construct, set())

    def covered_results(self, network) -> set:
        ast = self.ast
        construct = next(n for n in self.classes[type(network).__name__].body if getattr(n, "name", "") == "construct")
        assigned = {}
        for statement in construct.body:
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                assigned.setdefault(statement.targets[0].id, statement.value)
        cast_names = {name for name, value in assigned.items() if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "amp_cast"}
        covered = set()
        for result in PROBE_OPS:
            value = assigned[result]
            operands = list(value.args) if isinstance(value, ast.Call) else [value.left, value.right]
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "matmul" and getattr(value.func.value, "id", "") == "x":
                operands.append(value.func.value)
            if any(isinstance(o, ast.Name) and o.id in cast_names for o in operands):
                covered.add(result)
            elif isinstance(value, ast.Call) and getattr(value.func, "id", "") in self.functions:
                if self._calls_amp_cast(self.functions[value.func.id], {value.func.id}):
                    covered.add(result)
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and getattr(value.func.value, "id", "") == "self":
                cell = getattr(network, value.func.attr)
                if type(cell).__name__ in self.classes and self.cell_casts(type(cell).__name__):
                    covered.add(result)
        return covered


@pytest.mark.mindspore
def test_amp_o1_casts_exactly_the_ops_the_rule_says_it_covers(tmp_path: Path, monkeypatch):
    import inspect

    from mindspore import amp

    # O1 rewrites the network's source, and MindSpore's rewrite treats every module
    # under the working folder as user code -- including MindSpore itself when it is
    # installed in a virtualenv inside the project (tox's .tox/). Work where a user's
    # script would: in the probe's own folder.
    monkeypatch.chdir(tmp_path)
    probe = import_from(tmp_path, "msp101_o1_probe", PROBE_NET)
    network = amp.auto_mixed_precision(probe.Probe(), "O1")
    analysis = _CastAnalysis(inspect.getsource(inspect.getmodule(type(network))))
    covered = analysis.covered_results(network)
    assert "matmul" in covered and "operator" not in covered  # the analysis sees both kinds
    assert {PROBE_OPS[result] for result in covered} == set(O1_COVERS)


@pytest.mark.mindspore
@pytest.mark.parametrize("level", ["O2", "O3", "auto"])
def test_amp_o2_o3_and_auto_run_every_matmul_in_float16(tmp_path: Path, level: str):
    import numpy as np
    import mindspore as ms
    from mindspore import amp

    recording = PROBE_NET.replace(
        "        return dense, linear,",
        "        SEEN.append({name: value.dtype for name, value in locals().items() if name in RESULTS})\n        return dense, linear,",
    ).replace("SEEN = []", f"SEEN = []\nRESULTS = {sorted(PROBE_OPS)!r}")
    probe = import_from(tmp_path, f"msp101_probe_{level.lower()}", recording.replace("mint_mm = mint.mm(x, self.w)", "mint_mm = ops.mm(x, self.w)"))
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.PYNATIVE_MODE)  # construct runs as Python, so it can record its values' dtypes
    try:
        network = amp.auto_mixed_precision(probe.Probe(), level)
        x, x3 = ms.Tensor(np.ones((2, 4), np.float32)), ms.Tensor(np.ones((2, 4, 4), np.float32))
        network(x, x3, x3)
    finally:
        ms.set_context(mode=previous)
    (seen,) = probe.SEEN
    assert set(seen) == set(PROBE_OPS)
    not_half = {name for name, dtype in seen.items() if dtype != ms.float16 and name not in ("dense", "ops_dense")}
    assert not_half == set()  # (Dense layers add a float32 bias after the float16 product under "auto")


@pytest.mark.mindspore
def test_dense_and_linear_take_dtype_where_the_rule_looks_for_it():
    import inspect

    from mindspore import mint, nn

    from ms_perflint.rules.msp101_fp32_matmul import CELL_OPS

    assert mint.nn.Linear is nn.Linear
    for layer, qualified in ((nn.Dense, "mindspore.nn.Dense"), (nn.Linear, "mindspore.nn.Linear")):
        parameters = list(inspect.signature(layer.__init__).parameters)[1:]  # without self
        assert parameters.index("dtype") == CELL_OPS[qualified]


@pytest.mark.mindspore
@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_fixed_layers_run_in_float16_where_casting_only_the_input_fails(tmp_path: Path, mode: str):
    import numpy as np
    import mindspore as ms

    source = """\
        from mindspore import mint, nn, ops
        from mindspore.common import dtype as mstype
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(16, 16)
                self.proj = mint.nn.Linear(16, 16)
            def construct(self, x):
                return self.fc(x), self.proj(x)
        class InputOnly(nn.Cell):
            def __init__(self):
                super().__init__()
                self.proj = mint.nn.Linear(16, 16)
            def construct(self, x):
                return self.proj(ops.cast(x, mstype.float16))
        """
    text = unsafe_fixed(source)
    assert text.count(".to_float(mstype.float16)") == 3
    module = import_from(tmp_path, f"msp101_fixed_{mode}", text)
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        x = ms.Tensor(np.ones((2, 16), np.float32))
        assert [out.dtype for out in module.Head()(x)] == [ms.float16, ms.float16]
        unfixed = import_from(tmp_path, f"msp101_unfixed_{mode}", textwrap.dedent(source))
        with pytest.raises(TypeError):
            unfixed.InputOnly()(x).asnumpy()  # the weight stays float32: why the fix never casts only the input
    finally:
        ms.set_context(mode=previous)


@pytest.mark.mindspore
def test_to_float_and_add_flags_recursive_return_the_cell_so_chains_name_it():
    import mindspore as ms
    from mindspore import nn

    dense = nn.Dense(16, 16)
    assert dense.to_float(ms.float16) is dense
    assert dense.add_flags_recursive(fp32=True) is dense
