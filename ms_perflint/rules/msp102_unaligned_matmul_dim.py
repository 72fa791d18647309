"""MSP102 unaligned-matmul-dim: MatMul, Tile and Div operands whose dims are not multiples of 16."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ms_perflint.callargs import argument, has_star_args
from ms_perflint.imports import dotted_name
from ms_perflint.rule import FixAvailability, FixSafety, Fix, Invalid, Option, Rule, RuleDocs, Valid
from ms_perflint.values import UNKNOWN

DEFAULT_ALIGNMENT = 16
#: The ImageNet-with-background class count that MSP104 recommends; never reported here,
#: so that the two rules can never undo each other.
IMAGENET_WITH_BACKGROUND = 1001
#: Inside a ResNet definition (``class ResNet``, ``def resnet50``, ...) a class count of 1000 is
#: MSP104's business: it becomes 1001 there, and rounding it to 1008 here would undo that.
RESNET_PREFIX = "resnet"
IMAGENET_CLASSES = 1000

#: Dense-like layers: qualified name -> (input dim parameter, output dim parameter), positions 0 and 1.
DENSE_LAYERS: Dict[str, Tuple[str, str]] = {
    "mindspore.nn.Dense": ("in_channels", "out_channels"),
    "mindspore.nn.Linear": ("in_features", "out_features"),  # also mint.nn.Linear
}
#: Op primitives (constructed, then called) -> the op they run.
PRIMITIVES: Dict[str, str] = {
    "mindspore.ops.MatMul": "MatMul",
    "mindspore.ops.BatchMatMul": "BatchMatMul",
    "mindspore.nn.MatMul": "MatMul",
    "mindspore.ops.Tile": "Tile",
    "mindspore.ops.Div": "Div",
}
#: Functional forms -> the op they run.
FUNCTIONS: Dict[str, str] = {
    "mindspore.ops.matmul": "MatMul",
    "mindspore.mint.matmul": "MatMul",
    "mindspore.mint.mm": "MatMul",
    "mindspore.ops.bmm": "BatchMatMul",
    "mindspore.mint.bmm": "BatchMatMul",
    "mindspore.ops.tile": "Tile",
    "mindspore.mint.tile": "Tile",
    "mindspore.ops.div": "Div",
    "mindspore.mint.div": "Div",
}
#: Calls that build an array from a shape argument: qualified name -> (keyword, position).
SHAPE_BUILDERS: Dict[str, Tuple[str, int]] = {
    "numpy.ones": ("shape", 0),
    "numpy.zeros": ("shape", 0),
    "numpy.empty": ("shape", 0),
    "numpy.full": ("shape", 0),
    "numpy.random.standard_normal": ("size", 0),
    "numpy.random.normal": ("size", 2),
    "numpy.random.uniform": ("size", 2),
    "mindspore.ops.ones": ("shape", 0),
    "mindspore.ops.zeros": ("size", 0),
    "mindspore.mint.ones": ("size", 0),
    "mindspore.mint.zeros": ("size", 0),
    "mindspore.common.initializer.initializer": ("shape", 1),
}
#: Calls whose positional arguments are the dims: ``np.random.randn(a, b)``.
DIMS_AS_ARGUMENTS = frozenset(("numpy.random.randn", "numpy.random.rand"))
#: Wrappers that keep their first argument's shape: qualified name -> keyword of that argument.
SHAPE_KEEPING_WRAPPERS: Dict[str, str] = {"mindspore.Parameter": "default_input", "mindspore.Tensor": "input_data"}
AXIS_NAMES = {-2: "second-to-last axis", -1: "last axis"}


@dataclass(frozen=True)
class _Dim:
    """One axis of a literal shape: the expression written and its value (or UNKNOWN)."""

    node: cst.BaseExpression
    value: object


Shape = Tuple[_Dim, ...]


@dataclass(frozen=True)
class _Assigned:
    """What one ``self.<attr> = value`` assigns: a literal-shaped tensor, an op primitive, or neither."""

    shape: Optional[Shape] = None
    primitive: Optional[str] = None


@dataclass(frozen=True)
class _Use:
    """A MatMul/Tile/Div whose operands include ``self.<attr>`` weights.

    ``op`` is known at once for functional calls and ``@``; for ``self.<prim>(...)``
    it is found from the class's assignments when the class ends (``primitive_attr``).
    """

    node: cst.CSTNode
    operands: Tuple[str, ...]
    op: Optional[str] = None
    primitive_attr: Optional[str] = None
    #: For a possible Tile: its input, as ``self.<attr>`` or as a literal shape built in place.
    tile_input: Optional[str] = None
    tile_input_shape: Optional[Shape] = None
    multiples: Optional["_Multiples"] = None


@dataclass(frozen=True)
class _Multiples:
    """A Tile's multiples argument and its value (a tuple of ints) when known."""

    node: cst.BaseExpression
    value: Tuple[int, ...]


@dataclass
class _ClassState:
    """What one class assigns to ``self`` and which of those attributes feed which ops."""

    assignments: Dict[str, List[_Assigned]] = field(default_factory=dict)
    uses: List[_Use] = field(default_factory=list)

    def single(self, attr: str) -> Optional[_Assigned]:
        """The one value ``self.<attr>`` is ever assigned, or None when it is assigned 0 or 2+ times."""
        values = self.assignments.get(attr, [])
        return values[0] if len(values) == 1 else None


class UnalignedMatmulDim(Rule):
    """Report MatMul, Tile and Div operand dims that are known and not multiples of the alignment."""

    code = "MSP102"
    name = "unaligned-matmul-dim"
    summary = "A MatMul, Tile or Div operand has a dimension that is not a multiple of 16"
    fix_availability = FixAvailability.SOMETIMES
    markers = ("Dense", "Linear", "MatMul", "matmul", "mm", "@", "Tile", "tile", "Div", "div")
    options = (
        Option(
            "alignment",
            DEFAULT_ALIGNMENT,
            "the multiple every MatMul/Tile/Div dim should be",
            minimum=1,
        ),
    )
    docs = RuleDocs(
        what_it_does="""
            Finds matrix-product, Tile and Div operands whose size is known and is not a
            multiple of 16 (option `alignment`):

            - `nn.Dense(in_channels, out_channels)`, `nn.Linear`/`mint.nn.Linear(in_features,
              out_features)`, by keyword or position: one finding per unaligned dim, at
              that argument, naming the dim, its value and the next multiple;
            - weights of 2 or more dims built from a literal shape and assigned to
              `self.<name>` -- `Parameter(Tensor(np.ones((a, b))))`,
              `Parameter(initializer(init, [a, b]))`, `ops.ones/zeros((a, b))`,
              `np.random.randn(a, b)`, ... -- that the same class passes to a MatMul or
              BatchMatMul (a primitive such as `self.matmul = ops.MatMul()`, a functional
              `ops.matmul`/`mint.matmul`/`ops.bmm`/`mint.bmm`/`mint.mm`, `x @ self.w`,
              `self.w.matmul(x)`), to a Tile or to a Div: the unaligned dims of the last
              two axes, each at its place in the shape;
            - `ops.tile`/`mint.tile`/`Tile` calls whose result shape is known (the input is
              such a literal-shaped weight or tensor, the multiples a tuple of known
              values): the unaligned result dims of the last two axes, at the multiples.

            A dim counts as known when it is a literal, a constant expression, a module
            constant assigned once, or a default of the enclosing function's parameter.

            Never reported: a dim of 1 (a vector, not a matrix); a dim the linter cannot
            know; the value 1001 anywhere (the ImageNet-with-background class count that
            MSP104 recommends for ResNet-50 and that other Ascend/TensorFlow model-zoo heads
            use too -- reporting it would make the two rules undo each other); and a class
            count of 1000 as the output dim inside a ResNet definition (a class or function
            whose name starts with `resnet` in any case: mindcv's and the model zoo's
            `class ResNet`, `def resnet50`), which MSP104 turns into 1001 instead.
        """,
        why_bad="""
            Data movement on the Ascend chip is 16-aligned, and its Cube unit multiplies
            fp16 matrices in 16x16 blocks. An operand whose dims are not multiples of 16
            has to be padded on the fly and cannot be split evenly across the AI cores, so
            MatMul, Tile and Div run on fewer cores or with extra copies (the MindSpore
            performance guide's advice for these three ops). Padding the model itself --
            16 outputs instead of 10, the extra ones ignored -- removes that work.
        """,
        example="""
            from mindspore import nn

            head = nn.Dense(512, 10)
        """,
        use_instead="""
            from mindspore import nn

            head = nn.Dense(512, 16)  # 6 padding outputs, ignored by the loss and metrics
        """,
        fix_safety="""
            The fix is *unsafe*: the layer's output shape changes, so a loaded checkpoint,
            the loss and anything reading the outputs must allow for the padding. It is
            offered only for the *output* dim of `nn.Dense`/`nn.Linear`: a literal becomes
            the next multiple (`10` -> `16`); a name becomes `(n + 15) // 16 * 16` (computed
            from the configured alignment, and right for an `n` that is already aligned);
            any other expression is rounded the same way, in parentheses where needed.

            Input dims are never rewritten: the previous layer would no longer match.
            Weights and Tile multiples are not rewritten either: which axis of a weight is
            the output axis depends on how it is multiplied (`transpose_a`/`transpose_b`,
            operand order), and the linter does not prove it.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/nn/mindspore.nn.Dense.html",
            "https://www.mindspore.cn/docs/en/master/api_python/ops/mindspore.ops.Tile.html",
        ),
    )
    valid = (
        Valid(
            """
            from mindspore import nn
            head = nn.Dense(512, 16)
            proj = nn.Linear(in_features=768, out_features=3072)
            """,
            why="aligned dims",
        ),
        Valid(
            """
            from mindspore import nn
            score = nn.Dense(256, 1)
            head = nn.Dense(2048, 1001)
            """,
            why="a dim of 1 is a vector; 1001 is the ImageNet-with-background class count (MSP104)",
        ),
        Valid(
            """
            from mindspore import nn
            def build(cfg, hidden):
                return nn.Dense(hidden, cfg.num_classes)
            """,
            why="unknown dims are never reported",
        ),
        Valid(
            """
            from mindspore import nn
            class Dense:
                def __init__(self, a, b):
                    pass
            head = Dense(512, 10)
            """,
            why="a local class, not MindSpore's nn.Dense",
        ),
        Valid(
            """
            import numpy as np
            from mindspore import nn, ops, Parameter, Tensor
            class Scale(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.w = Parameter(Tensor(np.ones((3, 10), np.float32)))
                    self.mul = ops.Mul()
                def construct(self, x):
                    return self.mul(x, self.w)
            """,
            why="the unaligned weight feeds a Mul, not a MatMul, Tile or Div",
        ),
        Valid(
            """
            from mindspore import nn
            head = nn.Dense(512, 10)
            """,
            options={"alignment": 2},
            why="with alignment 2, 512 and 10 are both aligned",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore import nn
            head = nn.Dense(512, 10)
            """,
            line=2,
            column=22,
            fixed="""
            from mindspore import nn
            head = nn.Dense(512, 16)
            """,
            message_contains="out_channels is 10",
        ),
        Invalid(
            """
            from mindspore import mint
            NUM_LABELS = 7
            head = mint.nn.Linear(in_features=768, out_features=NUM_LABELS)
            """,
            line=3,
            column=53,
            fixed="""
            from mindspore import mint
            NUM_LABELS = 7
            head = mint.nn.Linear(in_features=768, out_features=(NUM_LABELS + 15) // 16 * 16)
            """,
            message_contains="next multiple: 16",
        ),
        Invalid(
            """
            import mindspore.nn as nn
            layer = nn.Dense(1000, 512)
            """,
            line=2,
            column=18,
            message_contains="in_channels is 1000",
        ),
        Invalid(
            """
            import mindspore.nn as nn
            head = nn.Dense(512, 10)
            """,
            line=2,
            column=22,
            options={"alignment": 32},
            fixed="""
            import mindspore.nn as nn
            head = nn.Dense(512, 32)
            """,
            message_contains="multiple of 32",
        ),
        Invalid(
            """
            import numpy as np
            import mindspore as ms
            from mindspore import nn, ops
            class Attention(nn.Cell):
                def __init__(self, hidden=64, heads=12):
                    super().__init__()
                    self.w = ms.Parameter(ms.Tensor(np.random.randn(hidden, heads * 5).astype(np.float32)))
                    self.matmul = ops.MatMul()
                def construct(self, x):
                    return self.matmul(x, self.w)
            """,
            line=7,
            column=65,
            message_contains="60 on its last axis",
        ),
        Invalid(
            """
            from mindspore import nn, ops
            class Expand(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.tile = ops.Tile()
                    self.query = ops.zeros((32,))
                def construct(self, batch):
                    return self.tile(self.query, (24, 1))
            """,
            line=8,
            column=39,
            message_contains="24 on the second-to-last axis",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._classes: List[_ClassState] = []

    # --- visitors ---------------------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(_ClassState())

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._report_class(self._classes.pop())

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._note_assignment(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._note_assignment(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._note_assignment(node.target, None)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified in DENSE_LAYERS:
            self._check_dense(node, DENSE_LAYERS[qualified])
            return
        use = self._use_of_call(node, qualified)
        if use is not None:
            self._note_use(use)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            operands = tuple(a for a in (_self_attr(node.left), _self_attr(node.right)) if a)
            if operands:
                self._note_use(_Use(node, operands, op="MatMul"))

    # --- Dense / Linear -----------------------------------------------------------

    def _check_dense(self, call: cst.Call, parameters: Tuple[str, str]) -> None:
        label = dotted_name(call.func) or "Dense"
        for position, parameter in enumerate(parameters):
            arg = argument(call, parameter, position)
            if arg is None:
                continue
            is_output = position == 1
            value = self.context.value_of(arg.value)
            if not self._is_unaligned(value) or (is_output and self._is_resnet_class_count(value)):
                continue
            self._report_dense_dim(arg.value, label, parameter, value, is_output)  # type: ignore[arg-type]

    def _report_dense_dim(
        self, node: cst.BaseExpression, label: str, parameter: str, value: int, is_output: bool
    ) -> None:
        alignment = self._alignment()
        target = _next_multiple(value, alignment)
        message = (
            f"{label} {parameter} is {value}, not a multiple of {alignment} (next multiple: {target}); "
            "unaligned MatMul dims cannot be split evenly across Ascend cores"
        )
        if not is_output:
            self.report(node, f"{message}; align the layer that produces this input")
            return
        fix = Fix(
            node,
            lambda updated: _round_up(updated, alignment),
            FixSafety.UNSAFE,
            "Round the output dim up to the next multiple of the alignment (the output shape changes)",
        )
        self.report(node, f"{message}; pad the outputs to {target}", fix)

    def _is_resnet_class_count(self, value: int) -> bool:
        """1000 outputs inside ``class ResNet``/``def resnet50``/...: MSP104 makes ResNet-50's 1001.

        The head usually lives in a generic ``class ResNet`` that the ``resnet50`` builder passes
        its class count to, so the whole family is left alone.
        """
        if value != IMAGENET_CLASSES:
            return False
        return any(
            isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value.lower().startswith(RESNET_PREFIX)
            for node in self.context.ancestors
        )

    # --- weights and the ops they feed ---------------------------------------------

    def _note_assignment(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        if not self._classes:
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._note_assignment(element.value, None)
            return
        attr = _self_attr(target)
        if attr is None:
            return
        assigned = _Assigned() if value is None else _Assigned(self._literal_shape(value), self._primitive_of(value))
        self._classes[-1].assignments.setdefault(attr, []).append(assigned)

    def _primitive_of(self, value: cst.BaseExpression) -> Optional[str]:
        if isinstance(value, cst.Call):
            return PRIMITIVES.get(self.context.qualified_name(value.func) or "")
        return None

    def _use_of_call(self, call: cst.Call, qualified: Optional[str]) -> Optional[_Use]:
        """A MatMul/Tile/Div call: functional, an inline primitive ``ops.MatMul()(a, b)``,
        a primitive attribute ``self.matmul(a, b)``, or ``self.w.matmul(x)``."""
        op = FUNCTIONS.get(qualified or "")
        primitive_attr = None
        if op is None and isinstance(call.func, cst.Call):
            op = self._primitive_of(call.func)
        if op is None:
            primitive_attr = _self_attr(call.func)
            if primitive_attr is None:
                return self._tensor_matmul_method(call)
        operands = tuple(a for a in (_self_attr(arg.value) for arg in call.args) if a)
        use = _Use(call, operands, op, primitive_attr)
        maybe_tile = op == "Tile" or (op is None and self._classes)  # ``self.tile(...)``: known at class end
        tile = self._tile_arguments(call) if maybe_tile else None
        if tile is not None:
            source, multiples = tile
            use = replace(
                use, tile_input=_self_attr(source), tile_input_shape=self._literal_shape(source), multiples=multiples
            )
        return use if operands or use.multiples is not None else None

    def _tensor_matmul_method(self, call: cst.Call) -> Optional[_Use]:
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "matmul":
            owner = _self_attr(func.value)
            if owner is not None:
                return _Use(call, (owner,), op="MatMul")
        return None

    def _tile_arguments(self, call: cst.Call) -> Optional[Tuple[cst.BaseExpression, _Multiples]]:
        """For a call that may be a Tile: its input expression and its multiples, when they are known."""
        if has_star_args(call):
            return None
        source = argument(call, "input", 0) or argument(call, "input_x", 0)
        dims = argument(call, "dims", 1) or argument(call, "multiples", 1)
        if source is None or not (dims is not None and isinstance(dims.value, (cst.Tuple, cst.List))):
            return None  # multiples are written as a tuple; anything else is rarely known and costly to ask
        value = self.context.value_of(dims.value)
        if not (isinstance(value, tuple) and value and all(_is_int(v) and v >= 1 for v in value)):
            return None
        return source.value, _Multiples(dims.value, value)  # type: ignore[arg-type]

    def _note_use(self, use: _Use) -> None:
        """Inside a class, keep the use for the class's end; outside, only an inline Tile can be judged."""
        if self._classes:
            self._classes[-1].uses.append(use)
        elif use.op == "Tile" and use.tile_input_shape is not None and use.multiples is not None:
            self._check_tile(use.tile_input_shape, use.multiples)

    def _literal_shape(self, node: cst.BaseExpression) -> Optional[Shape]:
        """The shape of a tensor built from a literal shape, seen through Parameter/Tensor/astype."""
        for _ in range(8):
            inner = self._unwrap_shape_keeping(node)
            if inner is None:
                break
            node = inner
        if not isinstance(node, cst.Call) or has_star_args(node):
            return None
        qualified = self.context.qualified_name(node.func) or ""
        if qualified in DIMS_AS_ARGUMENTS:
            if any(arg.keyword is not None for arg in node.args):
                return None
            return tuple(_Dim(arg.value, self.context.value_of(arg.value)) for arg in node.args)
        if qualified in SHAPE_BUILDERS:
            keyword, position = SHAPE_BUILDERS[qualified]
            shape = argument(node, keyword, position)
            return self._dims_of(shape.value) if shape is not None else None
        if qualified == "mindspore.Tensor":  # Tensor(shape=(a, b), dtype=..., init=...)
            shape = argument(node, "shape")
            return self._dims_of(shape.value) if shape is not None else None
        return None

    def _unwrap_shape_keeping(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        if not isinstance(node, cst.Call):
            return None
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "astype":
            return func.value
        keyword = SHAPE_KEEPING_WRAPPERS.get(self.context.qualified_name(func) or "")
        if keyword is None:
            return None
        arg = argument(node, keyword, 0)
        return arg.value if arg is not None else None

    def _dims_of(self, node: cst.BaseExpression) -> Optional[Shape]:
        if not isinstance(node, (cst.Tuple, cst.List)):
            return None
        if any(isinstance(element, cst.StarredElement) for element in node.elements):
            return None
        return tuple(_Dim(element.value, self.context.value_of(element.value)) for element in node.elements)

    # --- reporting at the end of a class --------------------------------------------

    def _report_class(self, state: _ClassState) -> None:
        fed: Dict[str, Set[str]] = {}
        for use in state.uses:
            op = use.op or _primitive_attr_op(state, use.primitive_attr)
            if op is None:
                continue
            for attr in use.operands:
                weight = state.single(attr)
                if weight is not None and weight.shape is not None and len(weight.shape) >= 2:
                    fed.setdefault(attr, set()).add(op)
            if op == "Tile" and use.multiples is not None:
                shape = use.tile_input_shape or _weight_shape(state, use.tile_input)
                if shape is not None:
                    self._check_tile(shape, use.multiples)
        for attr, ops in fed.items():
            shape = state.single(attr).shape  # type: ignore[union-attr]
            self._check_weight(attr, shape, sorted(ops))  # type: ignore[arg-type]

    def _check_weight(self, attr: str, shape: Shape, ops: Sequence[str]) -> None:
        alignment = self._alignment()
        for axis in (-2, -1):
            dim = shape[axis]
            if self._is_unaligned(dim.value):
                self.report(
                    dim.node,
                    f"weight self.{attr} has {dim.value} on its {AXIS_NAMES[axis]}, not a multiple of "
                    f"{alignment} (next multiple: {_next_multiple(dim.value, alignment)}); "  # type: ignore[arg-type]
                    f"it feeds {'/'.join(ops)}, which cannot split it evenly across Ascend cores",
                )

    def _check_tile(self, shape: Shape, multiples: _Multiples) -> None:
        result = _tile_result([dim.value for dim in shape], multiples.value)
        unaligned = [(axis, result[axis]) for axis in (-2, -1) if len(result) >= -axis]
        unaligned = [(axis, value) for axis, value in unaligned if self._is_unaligned(value)]
        if not unaligned:
            return
        alignment = self._alignment()
        described = " and ".join(
            f"{value} on the {AXIS_NAMES[axis]} (next multiple: {_next_multiple(value, alignment)})"  # type: ignore
            for axis, value in unaligned
        )
        plural = "multiples" if len(unaligned) > 1 else "a multiple"
        self.report(
            multiples.node,
            f"Tile result has {described}, not {plural} of {alignment}; choose multiples that give aligned dims",
        )

    # --- values -------------------------------------------------------------------

    def _alignment(self) -> int:
        value = self.option("alignment")
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        return value if _is_int(value) and value > 0 else DEFAULT_ALIGNMENT

    def _is_unaligned(self, value: object) -> bool:
        """A known dim worth reporting: an int above 1, not aligned, and not the 1001 class count."""
        if not _is_int(value) or value <= 1 or value == IMAGENET_WITH_BACKGROUND:  # type: ignore[operator]
            return False
        return value % self._alignment() != 0  # type: ignore[operator]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _self_attr(node: cst.BaseExpression) -> Optional[str]:
    """``w`` for ``self.w``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _weight_shape(state: _ClassState, attr: Optional[str]) -> Optional[Shape]:
    assigned = state.single(attr) if attr else None
    return assigned.shape if assigned is not None else None


def _primitive_attr_op(state: _ClassState, attr: Optional[str]) -> Optional[str]:
    assigned = state.single(attr) if attr else None
    return assigned.primitive if assigned is not None else None


def _tile_result(shape: Sequence[object], multiples: Sequence[int]) -> Tuple[object, ...]:
    """Tile's result shape: the shorter of shape and multiples is padded with leading 1s."""
    rank = max(len(shape), len(multiples))
    shape = (1,) * (rank - len(shape)) + tuple(shape)
    multiples = (1,) * (rank - len(multiples)) + tuple(multiples)
    return tuple(s * m if _is_int(s) else UNKNOWN for s, m in zip(shape, multiples))  # type: ignore[operator]


def _next_multiple(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _round_up(updated: cst.CSTNode, alignment: int) -> cst.BaseExpression:
    """``10`` -> ``16``; anything else ``x`` -> ``(x + 15) // 16 * 16``."""
    if isinstance(updated, cst.Integer):
        value = int(updated.value.replace("_", ""), 0)
        return updated.with_changes(value=str(_next_multiple(value, alignment)))
    assert isinstance(updated, cst.BaseExpression)
    operand = updated if not _needs_parentheses(updated) else updated.with_changes(
        lpar=[cst.LeftParen()], rpar=[cst.RightParen()]
    )
    padded = cst.BinaryOperation(
        left=operand,
        operator=cst.Add(),
        right=cst.Integer(str(alignment - 1)),
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )
    floored = cst.BinaryOperation(left=padded, operator=cst.FloorDivide(), right=cst.Integer(str(alignment)))
    return cst.BinaryOperation(left=floored, operator=cst.Multiply(), right=cst.Integer(str(alignment)))


#: Operators that bind at least as tightly as ``+`` (left-associative), so ``a * b + 15`` keeps its meaning.
_TIGHT_OPERATORS = (
    cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.MatrixMultiply
)


def _needs_parentheses(node: cst.BaseExpression) -> bool:
    """Would ``node + 15`` parse differently from ``(node) + 15``?"""
    if node.lpar:
        return False
    if isinstance(node, cst.BinaryOperation):
        return not isinstance(node.operator, _TIGHT_OPERATORS)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    return not isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float))
