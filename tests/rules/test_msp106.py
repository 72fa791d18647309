"""MSP106 float64-constant-in-cell: numpy float64 data a Cell keeps as a Tensor and computes with.

The development set has no finding (its Cells spell their dtypes out); the silent cases are the look-alikes met
there: explicit dtypes and casts (`.astype(self.np_cast_type)`), integer data (`np.arange`), tensors used only for
their shape (`expand_as`), and mindformers' MoE router, whose float64 jitter noise is used only under a policy
its `__init__` sets to None.
"""

from __future__ import annotations

import textwrap
from typing import List

from ms_perflint.findings import Finding, FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp106_float64_constant_in_cell import Float64ConstantInCell
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

RULE = [Float64ConstantInCell]

TRAINS = """
if __name__ == "__main__":
    net = {cell}
    Model(net, loss, opt).train(10, data)
"""


def source(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def program(cell_code: str, cell: str = "Net()") -> str:
    return source(cell_code) + TRAINS.format(cell=cell)


def lint(code: str) -> List[Finding]:
    result = check_text(code, "train.py", Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP106"]


def fixed(code: str) -> str:
    found = lint(code)
    assert len(found) == 1 and found[0].fix is not None and found[0].fix.safety is FixSafety.UNSAFE
    return apply_fix_text(code, [found[0].fix])


# --- reported ------------------------------------------------------------------------------------------


def test_random_noise_kept_and_multiplied_in_construct_gets_dtype_in_the_files_spelling():
    code = program("""
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.noise = ms.Tensor(np.random.uniform(0.99, 1.01, (64,)))

            def construct(self, x):
                return x * self.noise
    """)
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(9, 22)]
    assert "self.noise" in found[0].message and "np.random.uniform" in found[0].message
    assert "Net.construct" in found[0].message
    assert "self.noise = ms.Tensor(np.random.uniform(0.99, 1.01, (64,)), dtype=ms.float32)" in fixed(code)


def test_the_dtype_module_alias_is_used_and_an_import_added_when_there_is_none():
    with_mstype = program("""
        import numpy as np
        import mindspore.nn as nn
        from mindspore import Tensor
        from mindspore.common import dtype as mstype
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.bias = Tensor(np.zeros((1, 64)))

            def construct(self, x):
                return x + self.bias
    """)
    assert "Tensor(np.zeros((1, 64)), dtype=mstype.float32)" in fixed(with_mstype)
    without = with_mstype.replace("from mindspore.common import dtype as mstype\n", "")
    result = fixed(without)
    assert "import mindspore as ms\n" in result and "Tensor(np.zeros((1, 64)), dtype=ms.float32)" in result
    compile(result, "train.py", "exec")


def test_a_parameter_of_float64_data_is_reported_at_its_tensor_or_without_a_fix():
    code = program("""
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Parameter, Tensor
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.weight = Parameter(
                    Tensor(np.random.randn(64, 64) * 0.02),
                    name="weight")
                self.scale = Parameter(np.ones((64,)), name="scale")

            def construct(self, x):
                return ms.ops.matmul(x, self.weight) * self.scale
    """)
    found = sorted(lint(code), key=lambda f: f.line)
    assert [(f.line, f.column + 1) for f in found] == [(11, 13), (13, 22)]
    assert found[0].fix is not None and "np.random.randn" in found[0].message
    assert found[1].fix is None and "wrap it in Tensor(..., dtype=ms.float32)" in found[1].message
    result = apply_fix_text(code, [found[0].fix])
    assert "Tensor(np.random.randn(64, 64) * 0.02, dtype=ms.float32),\n" in result


def test_float_arrays_local_names_helper_methods_and_inherited_attributes():
    code = program("""
        import numpy as np
        import mindspore.nn as nn
        from mindspore import Tensor
        from mindspore.train import Model

        class Base(nn.Cell):
            def __init__(self):
                super().__init__()
                mean = np.array([0.485, 0.456, 0.406])
                self.mean = Tensor(mean)
                self.std = Tensor(np.array([[0.229], [0.224], [0.225]]))
                self.eye = Tensor(np.eye(3))

        class Net(Base):
            def construct(self, x):
                return self.normalize(x) @ self.eye

            def normalize(self, x):
                return (x - self.mean) / self.std
    """)
    assert sorted(f.line for f in lint(code)) == [10, 11, 12]


# --- silent -------------------------------------------------------------------------------------------


def test_silent_on_explicit_dtypes_and_casts():
    assert lint(program("""
        import numpy as np
        import mindspore as ms
        import mindspore.nn as nn
        from mindspore import Tensor
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self, np_cast_type=np.float16):
                super().__init__()
                self.a = Tensor(np.random.randn(8), ms.float32)
                self.b = Tensor(np.random.randn(8), dtype=ms.float16)
                self.c = Tensor(np.random.randn(8).astype(np.float32))
                self.d = Tensor(np.ones((8,)).astype(np_cast_type))
                self.e = Tensor(np.float32(np.random.rand(8)))
                self.f = Tensor(np.zeros((8,), dtype=np.float32))
                self.g = Tensor(np.zeros((8,), np.float32) * 0.5)
                self.h = Tensor(np.random.randn(8), ms.float64)
                self.i = Tensor(np.full((8,), 0.5, np.float32))

            def construct(self, x):
                return x * self.a * self.b * self.c * self.d * self.e * self.f * self.g * self.h * self.i
    """)) == []


def test_silent_on_integer_data_and_python_floats():
    assert lint(program("""
        import numpy as np
        import mindspore.nn as nn
        from mindspore import Tensor
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self, k):
                super().__init__()
                self.positions = Tensor(np.arange(16))
                self.fill = Tensor(np.full((4,), 3))
                self.zeros = Tensor(np.array([0] * k))
                self.scale = Tensor(64 ** -0.5)
                self.weights = Tensor([0.2, 0.8])

            def construct(self, x):
                return (x + self.positions + self.fill + self.zeros) * self.scale * self.weights
    """)) == []


def test_silent_on_tensors_used_only_for_their_shape_or_cast_before_use():
    assert lint(program("""
        import numpy as np
        import mindspore.nn as nn
        import mindspore.ops as ops
        from mindspore import Tensor
        from mindspore.common import dtype as mstype
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.template = Tensor(np.ones((1, 16, 64)))
                self.table = Tensor(np.random.randn(16, 64))
                self.cls = Tensor(np.zeros((1, 1, 64)))
                self.scale = Tensor(np.ones((64,)))
                self.cast = ops.Cast()
                self.shape = ops.Shape()

            def construct(self, x):
                x = ops.reshape(x, self.template.shape) + len(self.table)
                x = ops.concat((x.expand_as(self.cls), x))
                y = self.cast(self.scale, mstype.float32) * ops.cast(self.table, mstype.float32)
                return x * y * self.shape(self.template)[0] * ops.shape(self.cls)[1] * self.scale.astype(mstype.float32)
    """)) == []


def test_silent_on_data_construct_does_not_use_or_uses_under_a_condition_that_never_holds():
    assert lint(program("""
        import numpy as np
        import mindspore.nn as nn
        from mindspore import Tensor
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.noisy_policy = None  # candidates: "jitter", "rsample"
                self.noise = Tensor(np.random.uniform(0.99, 1.01, (64,)))
                self.init_table = Tensor(np.random.randn(64, 64))
                self.weight = self.init_table * 2

            def construct(self, x):
                if self.noisy_policy == "jitter" and self.training:
                    x = x * self.noise
                return x

            def describe(self):
                return self.init_table.asnumpy()
    """)) == []


def test_silent_on_a_tensor_built_in_a_method_for_its_shape():
    # mindcv's CoaT: Tensor(np.ones(...)) made in a method only to expand a token to its shape.
    assert lint(program("""
        import numpy as np
        import mindspore.nn as nn
        import mindspore.ops as ops
        from mindspore import Tensor
        from mindspore.train import Model

        class Net(nn.Cell):
            def insert_cls(self, x, cls_token):
                y = Tensor(np.ones((x.shape[0], cls_token.shape[1], cls_token.shape[2])))
                return ops.concat((cls_token.expand_as(y), x), axis=1)

            def construct(self, x):
                return self.insert_cls(x, self.cls_token)
    """)) == []


CELL = """
import numpy as np
import mindspore as ms
import mindspore.nn as nn
from mindspore import Tensor
from mindspore.train import Model

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.noise = Tensor(np.random.rand(64))

    def construct(self, x):
        return x * self.noise
"""


def test_silent_without_a_training_program_or_on_the_cpu():
    assert lint(source(CELL)) == []
    cpu = source(CELL) + TRAINS.format(cell='Net()\n    ms.set_context(device_target="CPU")')
    assert lint(cpu) == []
    assert [f.line for f in lint(source(CELL) + TRAINS.format(cell="Net()"))] == [10]


def test_a_cell_module_trained_by_another_file(tmp_path):
    (tmp_path / "model.py").write_text(source(CELL))
    (tmp_path / "train.py").write_text(source("""
        from mindspore.train import Model
        from model import Net

        if __name__ == "__main__":
            Model(Net(), loss, opt).train(10, data)
    """))
    results = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [(path, f.line) for path, result in results.items() for f in result.findings
            if f.code == "MSP106"] == [("model.py", 10)]
