"""MSP102 unaligned-matmul-dim: Dense/Linear dims, literal-shaped weights feeding MatMul/Tile/Div, Tile results.

Expected positions are counted by hand from the snippets (1-based columns, as users read them).
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from ms_perflint.fixer import fix_source
from ms_perflint.settings import Settings
from tests.conftest import lint

CODE = "MSP102"


def found(source: str, **options) -> list:
    """``[(line, column)]`` of MSP102 findings in a dedented snippet."""
    return [(v.line, v.column + 1) for v in lint(textwrap.dedent(source), **options) if v.code == CODE]


def messages(source: str, **options) -> list:
    return [v.message for v in lint(textwrap.dedent(source), **options) if v.code == CODE]


def violations(source: str, **options) -> list:
    return [v for v in lint(textwrap.dedent(source), **options) if v.code == CODE]


def fixed(source: str, **options) -> str:
    """The snippet after ``--fix --unsafe-fixes`` with only MSP102 selected (unchanged text when nothing is fixed)."""
    text = textwrap.dedent(source)
    settings = Settings(select=(CODE,), rule_options=options)
    result = fix_source(text, "example.py", settings, unsafe=True)
    assert result.problems == [], [p.message for p in result.problems]
    return text if result.fixed_text is None else result.fixed_text


# --- nn.Dense / nn.Linear --------------------------------------------------------------------


def test_dense_output_dim_is_reported_at_the_argument():
    assert found("from mindspore import nn\nhead = nn.Dense(512, 10)\n") == [(2, 22)]


def test_both_dims_unaligned_give_one_finding_each_naming_dim_value_and_next_multiple():
    source = "from mindspore import nn\nlayer = nn.Dense(100, 10)\n"
    assert found(source) == [(2, 18), (2, 23)]
    first, second = messages(source)
    assert "in_channels is 100" in first and "next multiple: 112" in first
    assert "out_channels is 10" in second and "next multiple: 16" in second


def test_keywords_in_any_order():
    source = "from mindspore import nn\nlayer = nn.Dense(out_channels=10, in_channels=100)\n"
    assert found(source) == [(2, 31), (2, 47)]


def test_linear_and_mint_linear_use_their_own_parameter_names():
    source = """\
        from mindspore import mint, nn
        a = mint.nn.Linear(768, 10)
        b = nn.Linear(in_features=24, out_features=32)
        """
    assert found(source) == [(2, 25), (3, 27)]
    assert "out_features is 10" in messages(source)[0]
    assert "in_features is 24" in messages(source)[1]


@pytest.mark.parametrize(
    "header, call",
    [
        ("import mindspore as ms", "ms.nn.Dense"),
        ("import mindspore", "mindspore.nn.Dense"),
        ("from mindspore.nn import Dense as FC", "FC"),
        ("from mindspore.nn.layer.basic import Dense", "Dense"),
    ],
)
def test_every_spelling_of_dense(header, call):
    assert len(found(f"{header}\nlayer = {call}(512, 10)\n")) == 1


def test_values_through_constants_expressions_and_parameter_defaults():
    source = """\
        from mindspore import nn
        HIDDEN = 2 * 100
        class Head(nn.Cell):
            def __init__(self, num_classes=10):
                super().__init__()
                self.fc = nn.Dense(HIDDEN, num_classes)
        """
    assert found(source) == [(6, 28), (6, 36)]
    assert "in_channels is 200" in messages(source)[0]


@pytest.mark.parametrize(
    "source",
    [
        "from mindspore import nn\nhead = nn.Dense(512, 16)\n",
        "from mindspore import nn\nscore = nn.Dense(1, 1)\n",
        "from mindspore import nn\nhead = nn.Dense(2048, 1001)\n",
        "from mindspore import nn\nmix = nn.Dense(1001, 1024)\n",
        "from mindspore import nn\ndef f(args):\n    return nn.Dense(args.hidden, args.classes)\n",
        "from mindspore import nn\ndef f(hidden, classes):\n    return nn.Dense(hidden, classes)\n",
        "from mindspore import nn\nN = 10\nN = 12\nhead = nn.Dense(512, N)\n",
        "from mindspore import nn\nimport os\nif os.environ.get('X'):\n    N = 10\nhead = nn.Dense(512, N)\n",
        "from mindspore import nn\ndef f(dims):\n    return nn.Dense(*dims)\n",
        "from mindspore import nn\nhead = nn.Dense(512, 10.0)\n",
        "from mindspore import nn\nhead = nn.Dense(512, True)\n",
        "from mindspore import nn\nhead = nn.Dense(512, -10)\n",
        "from mindspore import nn\nhead = nn.Dense(512, 10 ** 30)\n",
        "from mindspore import nn\nclass Dense:\n    pass\nhead = Dense(512, 10)\n",
        "from mindspore import nn\nhead = nn.Conv2d(3, 10, 3)\n",
        "head = Dense(512, 10)\n",
    ],
    ids=[
        "aligned", "ones", "1001-out", "1001-in", "attributes", "unknown-params", "assigned-twice",
        "assigned-in-if", "star-args", "float", "bool", "negative", "too-big", "local-class", "conv", "not-mindspore",
    ],
)
def test_silent_look_alikes(source):
    assert found(source) == []


def test_class_count_1000_inside_a_resnet_definition_is_left_to_msp104():
    source = """\
        from mindspore import nn
        class ResNet50(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.fc = nn.Dense(2048, num_classes)
        def resnet50():
            return nn.Dense(2048, 1000)
        def classifier_head():
            return nn.Dense(2048, 1000)
        """
    assert found(source) == [(9, 27)]
    assert "next multiple: 1008" in messages(source)[0]
    codes = [(v.code, v.line) for v in lint(textwrap.dedent(source))]
    assert ("MSP104", 3) in codes  # the default 1000 of ResNet50 is MSP104's


def test_mindcv_style_generic_resnet_class_keeps_its_1000_class_head():
    """mindcv's ``class ResNet`` holds the head that its ``resnet50`` builder's class count reaches."""
    source = """\
        from mindspore import nn
        class ResNet(nn.Cell):
            def __init__(self, block, layers, num_classes: int = 1000, in_channels: int = 3):
                super().__init__()
                self.classifier = nn.Dense(2048, num_classes)
                self.stem = nn.Dense(in_channels, 64)
        class ViT(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.head = nn.Dense(768, num_classes)
        """
    assert found(source) == [(6, 30), (10, 35)]  # the stem's 3 inputs and the ViT head are not MSP104's


def test_alignment_option():
    source = "from mindspore import nn\nhead = nn.Dense(512, 48)\n"
    assert found(source) == []
    assert found(source, alignment=32) == [(2, 22)]
    assert "next multiple: 64" in messages(source, alignment=32)[0]
    assert found("from mindspore import nn\nhead = nn.Dense(24, 40)\n", alignment=8) == []
    assert found(source, alignment="32") == [(2, 22)]  # a config file may hand over text


@pytest.mark.parametrize("bad", [0, -16, "sixteen", True, 2.5, None])
def test_invalid_alignment_falls_back_to_16(bad):
    assert found("from mindspore import nn\nhead = nn.Dense(512, 24)\n", alignment=bad) == [(2, 22)]
    assert found("from mindspore import nn\nhead = nn.Dense(512, 32)\n", alignment=bad) == []


# --- fixes ---------------------------------------------------------------------------------


def test_literal_output_dim_becomes_the_next_multiple_keeping_the_layout():
    source = """\
        from mindspore import nn
        head = nn.Dense(
            512,   # features
            0xA,  # classes
            has_bias=False,
        )
        """
    assert fixed(source) == textwrap.dedent(
        """\
        from mindspore import nn
        head = nn.Dense(
            512,   # features
            16,  # classes
            has_bias=False,
        )
        """
    )


def test_name_output_dim_is_rounded_with_the_configured_alignment():
    source = "from mindspore import nn\ndef head(num_classes=10):\n    return nn.Dense(512, num_classes)\n"
    assert fixed(source).endswith("nn.Dense(512, (num_classes + 15) // 16 * 16)\n")
    assert fixed(source, alignment=32).endswith("nn.Dense(512, (num_classes + 31) // 32 * 32)\n")


def test_expressions_are_rounded_the_same_way():
    source = "from mindspore import nn\nN = 5\na = nn.Dense(512, N * 2)\nb = nn.Dense(512, (N))\n"
    assert fixed(source) == (
        "from mindspore import nn\nN = 5\n"
        "a = nn.Dense(512, (N * 2 + 15) // 16 * 16)\n"
        "b = nn.Dense(512, ((N) + 15) // 16 * 16)\n"
    )


def test_the_written_formula_rounds_up_and_keeps_aligned_values():
    text = fixed("from mindspore import nn\ndef head(n=10):\n    return nn.Dense(512, n)\n")
    expression = text.rsplit("nn.Dense(512, ", 1)[1][: -len(")\n")]
    assert expression == "(n + 15) // 16 * 16"
    for n, rounded in [(1, 16), (10, 16), (16, 16), (17, 32), (1000, 1008)]:
        assert eval(expression, {"n": n}) == rounded  # noqa: S307 -- the text the fix wrote


def test_input_dims_have_no_fix():
    (violation,) = violations("from mindspore import nn\nlayer = nn.Dense(1000, 512)\n")
    assert violation.fix is None
    assert "align the layer that produces this input" in violation.message


def test_fix_is_unsafe_and_uses_the_updated_node():
    source = "from mindspore import nn\ndef head(num_classes=10):\n    return nn.Dense(512, num_classes)\n"
    (violation,) = violations(source)
    assert violation.fix.safety.value == "unsafe"
    replaced = violation.fix.transform(cst.Name("renamed"))
    assert cst.Module([]).code_for_node(replaced) == "(renamed + 15) // 16 * 16"
    conditional = violation.fix.transform(cst.parse_expression("a if c else b"))
    assert cst.Module([]).code_for_node(conditional) == "((a if c else b) + 15) // 16 * 16"


def test_fixed_code_is_clean_and_fixing_again_changes_nothing():
    source = "from mindspore import nn\nN = 7\na = nn.Dense(512, 10)\nb = nn.Dense(512, N)\nc = nn.Dense(24, 3 * N)\n"
    once = fixed(source)
    assert fixed(once) == once
    assert all(v.fix is None for v in violations(once))
    assert found(once) == [(5, 14)]  # only c's input dim (24) is left, and it has no fix


# --- weights feeding MatMul / BatchMatMul / Tile / Div ------------------------------------------


def test_parameter_of_numpy_ones_feeding_a_matmul_primitive():
    source = """\
        import numpy as np
        from mindspore import nn, ops, Parameter, Tensor
        class Proj(nn.Cell):
            def __init__(self):
                super().__init__()
                self.weight = Parameter(Tensor(np.ones((100, 10), np.float32)), name="w")
                self.matmul = ops.MatMul(transpose_b=True)
            def construct(self, x):
                return self.matmul(x, self.weight)
        """
    assert found(source) == [(6, 49), (6, 54)]
    rows, columns = messages(source)
    assert "self.weight has 100 on its second-to-last axis" in rows and "feeds MatMul" in rows
    assert "10 on its last axis" in columns and "next multiple: 16" in columns
    assert all(v.fix is None for v in violations(source))


def test_initializer_list_shape_batch_matmul_reports_only_the_last_two_axes():
    source = """\
        import mindspore as ms
        from mindspore import nn, Parameter
        from mindspore.common.initializer import initializer
        from mindspore.ops import operations as P
        class Mix(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = Parameter(initializer("normal", [8, 64, 30], ms.float32))
                self.bmm = P.BatchMatMul()
            def construct(self, x):
                return self.bmm(x, self.w)
        """
    assert found(source) == [(8, 58)]
    assert "feeds BatchMatMul" in messages(source)[0]


WEIGHT_CLASS = """\
from mindspore import nn, ops, mint
from mindspore.ops import operations as P
from mindspore.ops import functional as F
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ops.zeros((24, 16))
        self.dense = nn.Dense(16, 16)
    def construct(self, x):
        return {use}
"""


@pytest.mark.parametrize(
    "use",
    [
        "ops.matmul(x, self.w)",
        "F.matmul(x, self.w)",
        "mint.matmul(x, self.w)",
        "mint.mm(x, self.w)",
        "ops.bmm(x, self.w)",
        "mint.bmm(x, self.w)",
        "x @ self.w",
        "self.w @ x",
        "self.w.matmul(x)",
        "ops.MatMul()(x, self.w)",
        "P.BatchMatMul()(x, self.w)",
        "ops.div(x, self.w)",
        "mint.div(self.w, x)",
        "ops.Div()(x, self.w)",
    ],
)
def test_every_op_spelling_that_a_weight_can_feed(use):
    assert found(WEIGHT_CLASS.format(use=use)) == [(7, 29)]


@pytest.mark.parametrize(
    "use",
    [
        "ops.mul(x, self.w)",
        "x * self.w",
        "self.w + x",
        "ops.add(x, self.w)",
        "x.matmul(self.w)",
        "self.helper(x, self.w)",
        "self.dense(self.w)",
        "ops.matmul(x, self.w.T)",
    ],
    ids=["mul", "star", "plus", "add", "unknown-receiver", "unknown-attr", "cell", "transposed-view"],
)
def test_weights_that_feed_no_matmul_tile_or_div_are_silent(use):
    assert found(WEIGHT_CLASS.format(use=use)) == []


@pytest.mark.parametrize(
    "weight",
    [
        "ops.zeros((24,))",
        "ops.zeros((2048, 1001))",
        "ops.zeros((16, 1))",
        "ops.zeros(shape)",
        "ops.zeros((*shape, 10))",
        "ops.zeros((hidden, hidden))",
        "x_of(24, 10)",
    ],
    ids=["1-d", "1001", "one", "shape-name", "starred", "unknown", "unknown-call"],
)
def test_weights_whose_dims_are_unknown_aligned_or_exempt_are_silent(weight):
    source = f"""\
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self, hidden, shape=(3, 10)):
                super().__init__()
                self.w = {weight}
            def construct(self, x):
                return ops.matmul(x, self.w)
        """
    assert found(source) == []


def test_weight_assigned_twice_is_unknown():
    source = """\
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ops.zeros((24, 16))
            def reset(self):
                self.w = ops.zeros((32, 16))
            def construct(self, x):
                return ops.matmul(x, self.w)
        """
    assert found(source) == []


def test_weight_and_matmul_in_different_classes_are_not_linked():
    source = """\
        from mindspore import nn, ops
        class Holder(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ops.zeros((24, 16))
        class User(nn.Cell):
            def construct(self, x):
                return ops.matmul(x, self.w)
        """
    assert found(source) == []


def test_a_users_own_matmul_class_is_not_a_primitive():
    source = """\
        from mindspore import nn, ops
        class MatMul:
            def __call__(self, a, b):
                return a
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ops.zeros((24, 16))
                self.matmul = MatMul()
            def construct(self, x):
                return self.matmul(x, self.w)
        """
    assert found(source) == []


def test_known_dims_are_reported_even_when_another_dim_is_unknown():
    source = """\
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self, hidden):
                super().__init__()
                self.w: ms.Parameter = ms.Parameter(ms.Tensor(np.random.randn(hidden, 10).astype(np.float32)))
            def construct(self, x):
                return ops.matmul(x, self.w)
        """
    assert found(source) == [(7, 79)]


def test_tensor_built_from_shape_and_init():
    source = """\
        import mindspore as ms
        from mindspore import nn, ops
        from mindspore.common.initializer import Normal
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Tensor(shape=(24, 16), dtype=ms.float32, init=Normal())
            def construct(self, x):
                return x @ self.w
        """
    assert found(source) == [(7, 35)]


# --- Tile ------------------------------------------------------------------------------------


def test_tile_of_a_weight_reports_the_result_at_the_multiples():
    source = """\
        from mindspore import nn, ops
        class Expand(nn.Cell):
            def __init__(self):
                super().__init__()
                self.tile = ops.Tile()
                self.query = ops.zeros((32,))
            def construct(self, batch):
                return self.tile(self.query, (2, 3, 1))
        """
    assert found(source) == [(8, 39)]
    (message,) = messages(source)
    assert "3 on the second-to-last axis" in message and "next multiple: 16" in message


def test_tile_of_an_unaligned_weight_reports_the_weight_and_the_result():
    source = """\
        from mindspore import nn, ops
        class Expand(nn.Cell):
            def __init__(self):
                super().__init__()
                self.table = ops.ones((16, 10))
            def construct(self, x):
                return ops.tile(self.table, (1, 2))
        """
    assert found(source) == [(5, 36), (7, 38)]
    weight, result = messages(source)
    assert "feeds Tile" in weight
    assert "20 on the last axis" in result and "next multiple: 32" in result


def test_tile_of_a_literal_shape_outside_any_class():
    source = """\
        from mindspore import mint, ops
        def mask(n):
            return ops.tile(ops.ones((1, 16)), (10, 2))
        def table():
            return mint.tile(ops.ones((2, 16)), (8, 3))
        """
    assert found(source) == [(3, 41)]
    assert "10 on the second-to-last axis" in messages(source)[0]


@pytest.mark.parametrize(
    "call",
    [
        "ops.tile(ops.ones((1, 16)), (n, 1))",
        "ops.tile(ops.ones((1, 16)), (16, 1))",
        "ops.tile(ops.ones((16, 16)), (3, 1))",
        "ops.tile(x, (3, 1))",
        "ops.tile(ops.ones((1, 16)), multiples)",
        "ops.tile(ops.ones((1, 16)), (0, 1))",
        "ops.tile(ops.ones((1, 16)), ())",
        "ops.tile(*args)",
        "ops.tile(ops.ones((1, 16)), ((3, 1),))",
    ],
)
def test_tile_results_that_are_aligned_or_unknown_are_silent(call):
    source = f"from mindspore import ops\ndef f(x, n, multiples, args):\n    return {call}\n"
    assert found(source) == []


def test_tile_result_shapes_follow_numpy_padding_rules():
    """Shorter multiples are padded with leading 1s, and so is a shorter input (checked on MindSpore below)."""
    source = "from mindspore import ops\ndef f():\n    return ops.tile(ops.ones((3, 16)), (2,))\n"
    assert "3 on the second-to-last axis" in messages(source)[0]  # (3, 16) x (1, 2) -> (3, 32)
    assert "on the last axis" not in messages(source)[0]


# --- real MindSpore ------------------------------------------------------------------------------


@pytest.mark.mindspore
def test_fixed_dense_runs_under_mindspore_with_an_aligned_output():
    import numpy as np
    import mindspore as ms

    source = """\
        import mindspore as ms
        from mindspore import nn
        class Head(nn.Cell):
            def __init__(self, num_classes=10):
                super().__init__()
                self.fc = nn.Dense(64, num_classes)
                self.out = nn.Dense(16, 7)
            def construct(self, x):
                return self.out(self.fc(x))
        """
    text = fixed(source)
    assert "nn.Dense(64, (num_classes + 15) // 16 * 16)" in text and "nn.Dense(16, 16)" in text
    namespace: dict = {}
    exec(compile(text, "fixed_head.py", "exec"), namespace)  # noqa: S102 -- our own fixed snippet
    output = namespace["Head"]()(ms.Tensor(np.ones((2, 64), np.float32)))
    assert output.shape == (2, 16)


@pytest.mark.mindspore
def test_tile_result_reported_matches_mindspore():
    from mindspore import ops

    cases = [((32,), (2, 3, 1)), ((3, 16), (2,)), ((1, 16), (10, 2)), ((16, 10), (1, 2))]
    for shape, multiples in cases:
        source = f"from mindspore import ops\ndef f():\n    return ops.tile(ops.ones({shape}), {multiples})\n"
        (message,) = messages(source)
        real = ops.tile(ops.ones(shape), multiples).shape
        for axis, name in ((-2, "second-to-last"), (-1, "last")):
            reported = f"{real[axis]} on the {name} axis" in message
            assert reported == (real[axis] % 16 != 0), (shape, multiples, real, message)
