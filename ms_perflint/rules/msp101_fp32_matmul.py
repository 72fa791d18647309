"""MSP101 fp32-matmul: a MatMul-family op inside a Cell will run in float32 on Ascend.

The rule works in two steps, so that facts from other files can be added later
without rewriting it:

1. While the engine walks the file, :class:`Fp32Matmul` records plain facts in a
   :class:`FileFacts`: the MatMul sites (constructions and calls, with the Cell
   class and ``self.<attribute>`` holding them), which class or function builds
   which, the dtype decisions made on attributes and on instances, and the
   file-wide AMP levels and Ascend precision knobs.
2. :func:`covering_marks` -- a pure function of those facts, plus optional facts
   of other files -- says for each site what keeps it out of float32, or None.
   Sites with None are reported.

Facts are flow-insensitive: a ``to_float`` inside ``if device_target == "Ascend":``
still counts, and a value the linter cannot know always counts as covering.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ms_perflint.callargs import argument, has_double_star, has_star_args
from ms_perflint.edits import mindspore_attribute
from ms_perflint.imports import dotted_name
from ms_perflint.rule import Fix, FixAvailability, FixSafety, Invalid, Option, Rule, RuleDocs, Valid
from ms_perflint.values import UNKNOWN
from ms_perflint.walker import walk

# --- What the rule looks for (canonical names, checked on MindSpore 2.10) -------------

#: Cells whose construction is reported, with the position of their ``dtype`` parameter.
CELL_OPS: Dict[str, Optional[int]] = {
    "mindspore.nn.Dense": 6,  # (in, out, weight_init, bias_init, has_bias, activation, dtype)
    "mindspore.nn.Linear": 5,  # = mint.nn.Linear: (in, out, bias, weight_init, bias_init, dtype)
    "mindspore.nn.MatMul": None,
}
#: Primitives: reported once where they are built, not at each call.
PRIMITIVE_OPS = frozenset(("mindspore.ops.MatMul", "mindspore.ops.BatchMatMul"))
#: Functional MatMul: reported at each call.
FUNCTIONAL_OPS = frozenset(
    (
        "mindspore.ops.matmul",
        "mindspore.mint.matmul",
        "mindspore.ops.bmm",
        "mindspore.mint.bmm",
        "mindspore.ops.mm",
        "mindspore.mint.mm",
        "mindspore.ops.dense",
    )
)
MATMUL_OPERATOR = "@"
TENSOR_MATMUL = "Tensor.matmul"

#: What ``amp_level="O1"`` casts to float16. Measured on 2.10 by dumping the network
#: ``auto_mixed_precision(net, "O1")`` rewrites: casts are inserted around these, but
#: not around nn.Linear/mint.nn.Linear, nn.MatMul, ops.matmul, mint.*, ops.dense, ``@``.
O1_COVERS = frozenset(
    ("mindspore.nn.Dense", "mindspore.ops.MatMul", "mindspore.ops.BatchMatMul", "mindspore.ops.bmm", "mindspore.ops.mm")
)
#: The primitive that does an op's MatMul: an AMP white list naming it covers the op too.
PRIMITIVE_INSIDE = {
    "mindspore.nn.Dense": "mindspore.ops.MatMul",
    "mindspore.ops.mm": "mindspore.ops.MatMul",
    "mindspore.ops.bmm": "mindspore.ops.BatchMatMul",
}

#: Callees that take an AMP level: (keyword, position). Every one defaults to "O0".
AMP_LEVEL_ARGUMENT = {
    "mindspore.train.Model": ("amp_level", 6),
    "mindspore.amp.auto_mixed_precision": ("amp_level", 1),
    "mindspore.amp.build_train_network": ("level", 3),
}
CUSTOM_MIXED_PRECISION = "mindspore.amp.custom_mixed_precision"
GET_WHITE_LIST = "mindspore.amp.get_white_list"
PRECISION_MODE = "mindspore.device_context.ascend.op_precision.precision_mode"
MATMUL_ALLOW_HF32 = "mindspore.device_context.ascend.op_precision.matmul_allow_hf32"
SET_CONTEXT = "mindspore.set_context"
#: Precision modes that keep an fp32 MatMul in fp32; every other value (and an unknown one) casts.
FP32_PRECISION_MODES = ("must_keep_origin_dtype", "force_fp32")
KEEP_ORIGIN_DTYPE = "must_keep_origin_dtype"

LOW_PRECISION_DTYPES = frozenset(("mindspore.float16", "mindspore.half", "mindspore.bfloat16"))
FLOAT32_DTYPES = frozenset(("mindspore.float32", "mindspore.single"))
CAST_FUNCTION = "mindspore.ops.cast"
CAST_PRIMITIVE = "mindspore.ops.Cast"
#: Tensor methods that cast to the dtype they are given, and ones that name it (MindSpore 2.10).
TENSOR_CAST_METHODS = ("astype", "to", "type")
TENSOR_DTYPE_METHODS = ("half", "bfloat16", "float")
#: ``add_flags_recursive`` flags that set a cell's compute dtype -> is it a float32 choice?
DTYPE_FLAGS = {"fp16": False, "bf16": False, "fp32": True}
#: Cell methods that return the cell itself, so a chain still names the same instance.
RETURNS_SELF = ("to_float", "add_flags_recursive", "add_flags", "set_train", "set_grad")
#: List methods through which a cell joins a list that later builds a SequentialCell.
GROWS_LIST = ("append", "extend", "insert")

ASCEND_TARGETS = ("910a", "910b", "910c")
DEFAULT_TARGET = "910b"


# --- Facts ----------------------------------------------------------------------------


class SiteKind(str, enum.Enum):
    """How a MatMul appears in the code; it decides the advice and whether there is a fix."""

    CELL = "cell"  # nn.Dense(...), nn.Linear(...), nn.MatMul(): fixable with .to_float
    PRIMITIVE = "primitive"  # ops.MatMul(), ops.BatchMatMul(): reported where built
    FUNCTIONAL = "functional"  # ops.matmul(x, w) and friends: reported per call
    OPERATOR = "operator"  # x @ w and x.matmul(w) in construct


@dataclass(frozen=True)
class Mark:
    """A decision that keeps a MatMul out of float32 -- or keeps it in float32 on purpose."""

    what: str
    #: True for an explicit float32 choice (``.to_float(mstype.float32)``, ``fp32=True``).
    deliberate_fp32: bool = False


@dataclass
class MatmulSite:
    """One MatMul the rule may report."""

    node: cst.CSTNode
    #: Canonical name (``mindspore.nn.Dense``), or ``"@"`` / ``"Tensor.matmul"``.
    op: str
    #: As written, for the message: ``nn.Dense``, ``P.MatMul``, ``@``.
    spelling: str
    kind: SiteKind
    #: The Cell class whose code holds the site.
    owner: str
    #: ``dense`` for ``self.dense = nn.Dense(...)`` (also inside a container built there).
    attribute: Optional[str] = None
    #: A decision on the site itself: chained ``.to_float``, explicit ``dtype=``, a cast operand.
    own_mark: Optional[Mark] = None


@dataclass(frozen=True)
class GlobalMark:
    """A file-wide mechanism: an AMP level or an Ascend precision knob."""

    mark: Mark
    #: The ops it casts (canonical names); None: every MatMul.
    covers: Optional[FrozenSet[str]] = None


@dataclass
class FileFacts:
    """Everything MSP101 knows about one file, as plain data."""

    sites: List[MatmulSite] = field(default_factory=list)
    #: Cell classes defined in the file.
    cell_classes: Set[str] = field(default_factory=set)
    #: Local class or module-level function -> the local classes/functions it builds or names.
    builds: Dict[str, Set[str]] = field(default_factory=dict)
    #: (class, attribute) -> a ``self.<attribute>.to_float(...)``-style decision in that class.
    attribute_marks: Dict[Tuple[str, str], Mark] = field(default_factory=dict)
    #: Local class or function -> a decision applied to an instance it makes.
    instance_marks: Dict[str, Mark] = field(default_factory=dict)
    #: (class, attribute) of primitives with a ``self.<attribute>(...)`` call that casts an operand.
    casting_calls: Set[Tuple[str, str]] = field(default_factory=set)
    global_marks: List[GlobalMark] = field(default_factory=list)
    #: ``precision_mode("must_keep_origin_dtype")`` is set explicitly.
    keeps_origin_dtype: bool = False


# --- Decision -------------------------------------------------------------------------


def covering_marks(
    facts: FileFacts, ascend_target: str = DEFAULT_TARGET, extra: Iterable[FileFacts] = ()
) -> List[Tuple[MatmulSite, Optional[Mark]]]:
    """For each site of ``facts``: the mark that keeps it out of float32, or None (report it).

    ``extra`` are facts of other files of the same program (their marks and global
    knobs apply here; their sites are not judged).
    """
    merged = _merge(facts, extra)
    if ascend_target == "910a" and not merged.keeps_origin_dtype:
        default = Mark("ascend-target 910a: the default precision mode already runs MatMul in float16")
        return [(site, default) for site in facts.sites]
    covered = _covered_classes(merged)
    return [(site, _mark_for(site, merged, covered)) for site in facts.sites]


def _merge(facts: FileFacts, extra: Iterable[FileFacts]) -> FileFacts:
    merged = FileFacts(
        sites=facts.sites,
        cell_classes=set(facts.cell_classes),
        builds={name: set(built) for name, built in facts.builds.items()},
        attribute_marks=dict(facts.attribute_marks),
        instance_marks=dict(facts.instance_marks),
        casting_calls=set(facts.casting_calls),
        global_marks=list(facts.global_marks),
        keeps_origin_dtype=facts.keeps_origin_dtype,
    )
    for other in extra:
        merged.cell_classes |= other.cell_classes
        for name, built in other.builds.items():
            merged.builds.setdefault(name, set()).update(built)
        for key, mark in other.attribute_marks.items():
            merged.attribute_marks.setdefault(key, mark)
        for name, mark in other.instance_marks.items():
            merged.instance_marks.setdefault(name, mark)
        merged.casting_calls |= other.casting_calls
        merged.global_marks.extend(other.global_marks)
        merged.keeps_origin_dtype = merged.keeps_origin_dtype or other.keeps_origin_dtype
    return merged


def _covered_classes(facts: FileFacts) -> Dict[str, Mark]:
    """Every class or function reached from a marked instance through ``builds``, with the mark."""
    covered: Dict[str, Mark] = {}
    for start, mark in facts.instance_marks.items():
        queue = [start]
        while queue:
            name = queue.pop()
            if name in covered:
                continue
            covered[name] = mark
            queue.extend(facts.builds.get(name, ()))
    return covered


def _mark_for(site: MatmulSite, facts: FileFacts, covered: Dict[str, Mark]) -> Optional[Mark]:
    if site.own_mark is not None:
        return site.own_mark
    if site.attribute is not None and (site.owner, site.attribute) in facts.attribute_marks:
        return facts.attribute_marks[(site.owner, site.attribute)]
    if site.owner in covered:
        return covered[site.owner]
    if site.kind is SiteKind.PRIMITIVE and (site.owner, site.attribute) in facts.casting_calls:
        return Mark(f"a call of self.{site.attribute} casts an operand")
    for global_mark in facts.global_marks:
        if _global_covers(global_mark, site.op):
            return global_mark.mark
    return None


def _global_covers(global_mark: GlobalMark, op: str) -> bool:
    covers = global_mark.covers
    return covers is None or op in covers or PRIMITIVE_INSIDE.get(op, "") in covers


def project_facts(project, facts: FileFacts) -> Tuple[FileFacts, ...]:
    """What other files of the program decide for this file's Cells (project mode), as facts to merge.

    ``project`` is ``context.project``: AMP levels and precision knobs set elsewhere
    (O1 keeps its white list), and ``to_float``/``add_flags_recursive`` on an instance,
    made elsewhere, of a class or factory that builds a Cell of this file.
    """
    extra = FileFacts()
    for judged in project.amp_mechanisms():
        extra.global_marks.append(GlobalMark(Mark(str(judged.coverage)), O1_COVERS if judged.level == "O1" else None))
    for name in facts.cell_classes:
        coverage = project.cast_coverage(name)
        if coverage is not None:
            extra.instance_marks[name] = Mark(str(coverage), coverage.deliberate_fp32)
    return (extra,)


def partial_amp(facts: FileFacts) -> bool:
    """The file enables AMP through a white list (O1, custom): messages then say it lacks the op."""
    return any(global_mark.covers is not None for global_mark in facts.global_marks)


# --- Collecting facts -----------------------------------------------------------------


@dataclass
class _PendingSite:
    """A site plus what is needed to finish judging it once the whole file is known."""

    site: MatmulSite
    function: Optional[cst.FunctionDef]
    #: Operand expressions whose casts cover the site (functional calls, ``@``, inline primitives).
    operands: Sequence[cst.BaseExpression] = ()
    #: ``mm = ops.MatMul()`` inside a function: its calls ``mm(a, b)`` are the call sites.
    local_name: Optional[str] = None
    #: First name of the callee (``nn`` of ``nn.Dense``): a local def of it shadows MindSpore's.
    callee_head: Optional[str] = None


@dataclass
class _Receiver:
    """``<receiver>.to_float(...)`` / ``.add_flags_recursive(...)``: resolved at the end of the file."""

    expression: cst.BaseExpression
    scope: cst.CSTNode
    owner: Optional[str]
    mark: Mark
    #: ``self.<attribute> = <receiver>.to_float(...)``: the attribute the decided cell is stored in.
    attribute: Optional[str] = None


@dataclass
class _WhiteList:
    """``custom_mixed_precision(net, white_list=[...])`` with a list the linter can read."""

    names: Set[str]
    mark: Mark


#: A binding whose value the linter does not follow (a parameter, a loop target).
_UNKNOWN_VALUE = None


class _Observations:
    """Raw observations made during the walk; :meth:`Fp32Matmul.finish` turns them into facts."""

    def __init__(self) -> None:
        self.local_classes: Set[str] = set()
        self.local_functions: Set[str] = set()
        self.cell_classes: Set[str] = set()
        #: class -> the names of its bases, as written.
        self.bases: Dict[str, Set[str]] = {}
        #: scope node -> name -> values assigned (None: unknown value).
        self.bindings: Dict[cst.CSTNode, Dict[str, List[Optional[cst.BaseExpression]]]] = {}
        #: (class, attribute) -> values assigned to ``self.<attribute>`` in that class.
        self.attribute_values: Dict[Tuple[str, str], List[cst.BaseExpression]] = {}
        #: builder (class, module-level function) -> names it mentions.
        self.mentions: Dict[str, Set[str]] = {}
        #: ``A(B, ...)``: A -> names passed to it bare (a block class handed to a network).
        self.passed: Dict[str, Set[str]] = {}
        self.sites: List[_PendingSite] = []
        self.receivers: List[_Receiver] = []
        #: (class, attribute) -> ``self.<attribute>(...)`` calls with their function.
        self.self_calls: Dict[Tuple[str, str], List[Tuple[cst.Call, Optional[cst.FunctionDef]]]] = {}
        #: (function, name) -> ``name(...)`` calls in that function.
        self.name_calls: Dict[Tuple[cst.FunctionDef, str], List[cst.Call]] = {}
        self.white_lists: List[_WhiteList] = []
        self.global_marks: List[GlobalMark] = []
        self.keeps_origin_dtype = False

    def bind(self, scope: cst.CSTNode, name: str, value: Optional[cst.BaseExpression]) -> None:
        """Record that ``name`` is assigned ``value`` (None: unknown) in ``scope``."""
        self.bindings.setdefault(scope, {}).setdefault(name, []).append(value)


class Fp32Matmul(Rule):
    """Report MatMul-family ops in Cells that no fp16 mechanism covers."""

    code = "MSP101"
    name = "fp32-matmul"
    summary = "A MatMul-family op in a Cell runs in float32 on Ascend"
    fix_availability = FixAvailability.SOMETIMES
    markers = ("Dense", "dense", "Linear", "MatMul", "matmul", "mm", "@")
    options = (
        Option(
            "ascend-target",
            DEFAULT_TARGET,
            "The Ascend chip the code runs on. On 910a (Atlas training series) the default "
            "precision mode already runs fp32 MatMul in float16, so the rule reports nothing "
            'unless the file sets precision_mode("must_keep_origin_dtype").',
            choices=ASCEND_TARGETS,
        ),
    )
    docs = RuleDocs(
        what_it_does="""
            Finds MatMul-family operations inside a MindSpore Cell that will run in
            float32: the construction of `nn.Dense`, `nn.Linear` / `mint.nn.Linear`,
            `nn.MatMul`, `ops.MatMul` / `P.MatMul` and `ops.BatchMatMul` / `P.BatchMatMul`;
            calls of `ops.matmul`, `mint.matmul`, `ops.bmm`, `mint.bmm`, `ops.mm`, `mint.mm`
            and `ops.dense` in the class's methods (not `__init__`, which runs once);
            and `x @ y` / `x.matmul(y)` in `construct`. A class is a Cell when a base is
            `nn.Cell` (any spelling) or a Cell of the same file, or when it defines `construct`.

            A site is not reported when something keeps it out of float32:

            - `.to_float(...)` chained on the construction, or
              `self.<attr>.to_float(...)` / `self.<attr>.add_flags_recursive(fp16=True)`
              on the attribute holding it, anywhere in the class;
            - `to_float` / `add_flags_recursive` applied to an instance of the class, or
              of a class or function that builds it (`self.to_float(...)`,
              `net = Net(); net.to_float(...)`, `Net().to_float(...)`, `self.body.to_float(...)`
              where `self.body = Body()`), or `custom_mixed_precision(net, white_list=[Net])`;
            - an AMP level anywhere in the file: `Model(..., amp_level=...)`,
              `amp.auto_mixed_precision(net, ...)`, `amp.build_train_network(..., level=...)`,
              `amp.custom_mixed_precision(...)`. "O2", "O3" and "auto" cover every MatMul.
              "O0" covers nothing. "O1" casts only its white list: measured on MindSpore
              2.10, it covers `nn.Dense`, `ops.MatMul`, `ops.BatchMatMul`, `ops.bmm` and
              `ops.mm`, but not `nn.Linear` / `mint.nn.Linear`, `nn.MatMul`, `ops.matmul`,
              `mint.*`, `ops.dense` or `@`. A literal `white_list` covers what it names;
              a `black_list` covers everything else;
            - an Ascend precision knob anywhere in the file: `precision_mode(...)` with any
              value except "must_keep_origin_dtype" and "force_fp32",
              `matmul_allow_hf32(True)`, or the same keys in
              `set_context(ascend_config={...})`;
            - for primitives, functional calls and `@`: an operand whose dtype was chosen
              in the same function -- its expression, or what the names in it are
              assigned there (followed back), contains a MindSpore cast (`ops.cast(x, d)`,
              `x.astype(d)`, `x.to(d)`, `x.half()`, a Cast primitive attribute
              `self.cast(x, mstype.float16)`) or the output of a cell with a dtype decision
              (`self.query(x)` where `self.query = nn.Dense(...).to_float(compute_type)`, as
              in the model zoo's BERT). For a primitive, one such call site
              (`self.matmul(...)`) anywhere in the class is enough.

            Any explicit dtype decision counts, including a float32 one: public code keeps
            hundreds of classifier heads in fp32 on purpose (`.to_float(mstype.float32)`,
            `add_flags_recursive(fp32=True)`, `nn.Dense(..., dtype=mstype.float32)`). A value
            the linter cannot know (an AMP level read from `args`, a dtype held in
            `self.compute_dtype`, `to_float` on an object it cannot follow) counts as
            covering: unknown values are never reported. The facts are flow-insensitive: a
            mechanism inside `if device_target == "Ascend":` still covers.

            Not reported: a numpy cast (`x.astype(np.float16)` is host data and does not
            cover anything either), `@` on numpy arrays, a user's own class named `MatMul`
            or `Dense`, a file that does not use MindSpore. A primitive is reported once, where
            it is built; functional calls and `@` once per call.

            Across files (project mode, the default of the CLI and the flake8 plugin): an
            AMP level or precision knob in another file of the same program (`Model(net,
            amp_level="O2")` in `train.py` that imports `src/model.py`) covers the file's
            Cells, with an AMP level read from config resolved through argparse defaults,
            YAML configs and launch scripts (`--amp_level O2`); so does `to_float` /
            `add_flags_recursive` on an instance of the Cell (or of a class or factory that
            builds it) made in another file. `ms-perflint --trace-coverage FILE` shows what
            covers each Cell, or why nothing does. See docs/project.md.
        """,
        why_bad="""
            The Cube unit of Ascend's AI Core, which does matrix products, is built for
            float16. The seed performance guide: "fp32 MatMul runs on AI CPU, much slower
            than fp16". On Atlas A2 (910B) and later, MindSpore's default precision mode is
            `must_keep_origin_dtype`, so a float32 MatMul stays float32 unless the code asks
            for float16. On the Atlas training series (910A) the default mode already casts
            matrix ops to float16; the `ascend-target` option exists for that chip.
        """,
        example="""
            import mindspore.nn as nn
            from mindspore.common import dtype as mstype

            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)

                def construct(self, x):
                    return self.fc(x)
        """,
        use_instead="""
            import mindspore.nn as nn
            from mindspore.common import dtype as mstype

            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024).to_float(mstype.float16)

                def construct(self, x):
                    return self.fc(x)
        """,
        fix_safety="""
            For Cell constructions (`nn.Dense`, `nn.Linear`, `mint.nn.Linear`, `nn.MatMul`)
            the fix chains `.to_float(<float16>)` on the construction, spelled with the
            file's own alias (`mstype.float16`, `ms.float16`, `float16`); it adds
            `import mindspore as ms` only when the file has no alias for MindSpore. The fix
            is *unsafe*: the layer's numerics change (float16 range and rounding), which
            can matter for losses, logits and heads kept in float32 on purpose. It does not
            cast only the input of the layer: the weight would stay float32 and MindSpore
            raises "the type of 'x2' should be same as 'x1'".

            There is no fix for primitives, functional calls and `@`: the message says to
            cast the operands to float16 (e.g. `ops.cast(x, mstype.float16)`) or to enable
            AMP, which needs a decision about where the result is cast back.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/nn/mindspore.nn.Cell.html#mindspore.nn.Cell.to_float",
            "https://www.mindspore.cn/docs/en/master/api_python/amp/mindspore.amp.auto_mixed_precision.html",
            "https://www.mindspore.cn/docs/en/master/api_python/device_context/mindspore.device_context.ascend.op_precision.precision_mode.html",
        ),
    )
    valid = (
        Valid(
            """
            from mindspore import nn
            from mindspore.common import dtype as mstype
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024).to_float(mstype.float16)
                def construct(self, x):
                    return self.fc(x)
            """,
            why="to_float chained on the construction",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.common import dtype as mstype
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                    self.fc.add_flags_recursive(fp16=True)
                def construct(self, x):
                    return self.fc(x)
            """,
            why="add_flags_recursive(fp16=True) on the attribute later in the class",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn
            class Block(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.proj = nn.Dense(512, 512)
                def construct(self, x):
                    return self.proj(x)
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.body = nn.SequentialCell([Block(), Block()])
                def construct(self, x):
                    return self.body(x)
            net = Net()
            net.to_float(ms.float16)
            """,
            why="to_float on an instance of a class that builds the Cell",
        ),
        Valid(
            """
            from mindspore import nn, ops
            from mindspore.train import Model
            class Attention(nn.Cell):
                def construct(self, q, k):
                    return ops.matmul(q, k)
            def train(net, loss, opt, dataset):
                model = Model(net, loss, opt, amp_level="O2")
                model.train(1, dataset)
            """,
            why="an AMP level other than O0/O1 in the file covers every MatMul",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            if ms.get_context("device_target") == "Ascend":
                ms.device_context.ascend.op_precision.precision_mode("allow_fp32_to_fp16")
            """,
            why="a precision knob that casts fp32 MatMul; inside an if it still counts",
        ),
        Valid(
            """
            from mindspore import nn, ops
            from mindspore.common import dtype as mstype
            class Attention(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.batch_matmul = ops.BatchMatMul(transpose_b=True)
                    self.cast = ops.Cast()
                def construct(self, q, k):
                    q = self.cast(q, mstype.float16)
                    return self.batch_matmul(q, self.cast(k, mstype.float16))
            """,
            why="operands cast to float16 through a Cast primitive attribute",
        ),
        Valid(
            """
            from mindspore import amp, nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            def build(loss, opt):
                net = amp.build_train_network(Head(), opt, loss, level="O3")
                return amp.custom_mixed_precision(net, white_list=[nn.Dense])
            """,
            why="build_train_network with a level above O0; a custom white list naming the layer",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn, ops
            from mindspore.device_context.ascend.op_precision import matmul_allow_hf32
            class Scores(nn.Cell):
                def construct(self, q, k):
                    return ops.bmm(q, k)
            matmul_allow_hf32(True)
            ms.set_context(ascend_config={"precision_mode": "allow_mix_precision"})
            """,
            why="HF32 MatMul, and the legacy ascend_config precision mode",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.ops import operations as P
            class SelfAttention(nn.Cell):
                def __init__(self, dim, compute_type):
                    super().__init__()
                    self.query = nn.Dense(dim, dim).to_float(compute_type)
                    self.key = nn.Dense(dim, dim).to_float(compute_type)
                    self.scores = P.BatchMatMul(transpose_b=True)
                def construct(self, x):
                    return self.scores(self.query(x), self.key(x))
            """,
            why="operands produced by cells put in compute_type (the model zoo's BERT)",
        ),
        Valid(
            """
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            head = Head().add_flags_recursive(fp16=True)
            """,
            why="add_flags_recursive(fp16=True) on an instance",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.common import dtype as mstype
            class Classifier(nn.Cell):
                def __init__(self, num_classes):
                    super().__init__()
                    self.head = nn.Dense(2048, num_classes).to_float(mstype.float32)
                def construct(self, x):
                    return self.head(x)
            """,
            why="a deliberate float32 head",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024, dtype=ms.float32)
                def construct(self, x):
                    return self.fc(x)
            """,
            why="an explicit dtype= is a deliberate choice",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.ops import MatMul
            class MatMul(nn.Cell):
                def construct(self, x, y):
                    return x * y
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mul = MatMul()
                def construct(self, x, y):
                    return self.mul(x, y)
            """,
            why="a user's own class MatMul shadows MindSpore's",
        ),
        Valid(
            """
            import numpy as np
            from mindspore import nn, Tensor
            class Projection(nn.Cell):
                def construct(self, x):
                    basis = np.eye(16, dtype=np.float32) @ np.ones((16, 16), np.float32)
                    return x + Tensor(basis)
            """,
            why="@ on numpy arrays is host arithmetic",
        ),
        Valid(
            """
            import torch
            class Head(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = torch.nn.Linear(2048, 1024)
                def forward(self, x):
                    return self.fc(x) @ x.T
            """,
            why="a PyTorch-only file is not MindSpore code",
        ),
        Valid(
            """
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            """,
            options={"ascend_target": "910a"},
            why="on 910A the default precision mode already casts",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore import nn
            from mindspore.common import dtype as mstype
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            """,
            line=6,
            column=19,
            fixed="""
            from mindspore import nn
            from mindspore.common import dtype as mstype
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024).to_float(mstype.float16)
                def construct(self, x):
                    return self.fc(x)
            """,
            message_contains="chain .to_float(mstype.float16) or enable AMP",
        ),
        Invalid(
            """
            import mindspore as ms
            from mindspore import mint, nn
            class FeedForward(nn.Cell):
                def __init__(self, hidden):
                    super().__init__()
                    self.layers = nn.SequentialCell(
                        mint.nn.Linear(hidden, 4 * hidden),
                        nn.GELU(),
                    )
                def construct(self, x):
                    return self.layers(x)
            """,
            line=7,
            column=13,
            fixed="""
            import mindspore as ms
            from mindspore import mint, nn
            class FeedForward(nn.Cell):
                def __init__(self, hidden):
                    super().__init__()
                    self.layers = nn.SequentialCell(
                        mint.nn.Linear(hidden, 4 * hidden).to_float(ms.float16),
                        nn.GELU(),
                    )
                def construct(self, x):
                    return self.layers(x)
            """,
        ),
        Invalid(
            """
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            """,
            line=5,
            column=19,
            fixed="""
            from mindspore import nn
            import mindspore as ms
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024).to_float(ms.float16)
                def construct(self, x):
                    return self.fc(x)
            """,
        ),
        Invalid(
            """
            from mindspore import nn
            from mindspore.ops import operations as P
            class Attention(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.batch_matmul = P.BatchMatMul(transpose_b=True)
                def construct(self, q, k):
                    return self.batch_matmul(q, k)
            """,
            line=6,
            column=29,
            message_contains="cast operands to float16 or enable AMP",
        ),
        Invalid(
            """
            import numpy as np
            from mindspore import nn, ops
            class Scores(nn.Cell):
                def construct(self, q, k):
                    k = k.astype(np.float16)
                    return ops.matmul(q, k)
            """,
            line=6,
            column=16,
            message_contains="ops.matmul",
        ),
        Invalid(
            """
            from mindspore import nn
            from mindspore.amp import auto_mixed_precision
            class Mixer(nn.Cell):
                def construct(self, x, w):
                    return x @ w
            net = auto_mixed_precision(Mixer(), "O1")
            """,
            line=5,
            column=16,
            message_contains="white list",
        ),
        Invalid(
            """
            import mindspore as ms
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024)
                def construct(self, x):
                    return self.fc(x)
            ms.device_context.ascend.op_precision.precision_mode("must_keep_origin_dtype")
            """,
            line=6,
            column=19,
            options={"ascend_target": "910a"},
            fixed="""
            import mindspore as ms
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Dense(2048, 1024).to_float(ms.float16)
                def construct(self, x):
                    return self.fc(x)
            ms.device_context.ascend.op_precision.precision_mode("must_keep_origin_dtype")
            """,
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._seen = _Observations()
        #: Innermost function/class first: the scope assignments belong to.
        self._scopes: List[cst.CSTNode] = [context.module]
        #: (node, name) of the classes and module-level functions being walked.
        self._builders: List[Tuple[cst.CSTNode, str]] = []

    # --- the walk: scopes, names, bindings ----------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        name = node.name.value
        self._seen.local_classes.add(name)
        self._seen.bases[name] = {dotted_name(base.value) or "" for base in node.bases}
        if self.context.is_cell_class(node):
            self._seen.cell_classes.add(name)
        self._scopes.append(node)
        self._builders.append((node, name))

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes.pop()
        self._builders.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if not self._builders:
            self._seen.local_functions.add(node.name.value)
            self._builders.append((node, node.name.value))
        self._scopes.append(node)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            self._seen.bind(node, param.name.value, _UNKNOWN_VALUE)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._seen.bind(node, star.name.value, _UNKNOWN_VALUE)

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes.pop()
        if self._builders and self._builders[-1][0] is node:
            self._builders.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind_target(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, node.value)  # layers += [Block()]

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target, _UNKNOWN_VALUE)

    def visit_Name(self, node: cst.Name) -> None:
        if not self._builders:
            return
        parent = self.context.ancestors[-2]
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        self._seen.mentions.setdefault(self._builders[-1][1], set()).add(node.value)

    def _bind_target(self, target: cst.BaseExpression, value: Optional[cst.BaseExpression]) -> None:
        if isinstance(target, cst.Name):
            self._seen.bind(self._scopes[-1], target.value, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value, _UNKNOWN_VALUE)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, _UNKNOWN_VALUE)
        else:
            attribute = _self_attribute(target)
            owner = self._owner_name()
            if attribute is not None and owner is not None and value is not None:
                self._seen.attribute_values.setdefault((owner, attribute), []).append(value)

    def _owner_name(self) -> Optional[str]:
        owner = self.context.enclosing_class()
        return owner.name.value if owner is not None else None

    # --- the walk: calls and operators ----------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        qualified = self.context.qualified_name(func)
        if qualified is not None and qualified.startswith("mindspore"):
            self._note_mindspore_call(node, qualified)
        elif isinstance(func, cst.Attribute):
            self._note_method_call(node, func)
        elif isinstance(func, cst.Name):
            self._note_name_call(node, func.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply) and self._in_construct():
            self._add_site(node, MATMUL_OPERATOR, MATMUL_OPERATOR, SiteKind.OPERATOR, operands=(node.left, node.right))

    def _note_mindspore_call(self, node: cst.Call, qualified: str) -> None:
        spelling = self.context.source_of(node.func)
        head = spelling.split(".", 1)[0]
        if qualified in CELL_OPS:
            self._add_site(node, qualified, spelling, SiteKind.CELL, callee_head=head)
        elif qualified in PRIMITIVE_OPS:
            self._add_site(node, qualified, spelling, SiteKind.PRIMITIVE, callee_head=head)
        elif qualified in FUNCTIONAL_OPS:
            method = self.context.enclosing_method()
            if method is not None and method.name.value != "__init__":
                operands = [arg.value for arg in node.args]
                self._add_site(node, qualified, spelling, SiteKind.FUNCTIONAL, operands=operands, callee_head=head)
        else:
            self._note_global_mechanism(node, qualified)

    def _note_method_call(self, node: cst.Call, func: cst.Attribute) -> None:
        method = func.attr.value
        if method in ("to_float", "add_flags_recursive"):
            mark = self._dtype_decision(node, method)
            if mark is not None:
                owner = self._owner_name()
                receiver = _Receiver(func.value, self._scopes[-1], owner, mark, self._assigned_attribute())
                self._seen.receivers.append(receiver)
        elif method == "matmul" and self._is_tensor_matmul(node, func):
            operands = (func.value, node.args[0].value)
            self._add_site(node, TENSOR_MATMUL, TENSOR_MATMUL, SiteKind.OPERATOR, operands=operands)
        elif method in GROWS_LIST and isinstance(func.value, cst.Name):
            for arg in node.args:
                self._seen.bind(self._scopes[-1], func.value.value, arg.value)
        attribute = _self_attribute(func)
        owner = self._owner_name()
        if attribute is not None and owner is not None:
            calls = self._seen.self_calls.setdefault((owner, attribute), [])
            calls.append((node, self.context.enclosing_function()))

    def _is_tensor_matmul(self, node: cst.Call, func: cst.Attribute) -> bool:
        """``x.matmul(y)`` in construct, where ``x`` is not ``self`` or an imported module (``np``)."""
        receiver = func.value
        if isinstance(receiver, cst.Name) and receiver.value == "self":
            return False
        if self.context.qualified_name(receiver) is not None:
            return False
        positional = [arg for arg in node.args if arg.keyword is None and not arg.star]
        return len(positional) == 1 and len(node.args) == 1 and self._in_construct()

    def _note_name_call(self, node: cst.Call, name: str) -> None:
        function = self.context.enclosing_function()
        if function is not None:
            self._seen.name_calls.setdefault((function, name), []).append(node)
        passed = {arg.value.value for arg in node.args if isinstance(arg.value, cst.Name)}
        if passed:
            self._seen.passed.setdefault(name, set()).update(passed)

    def _in_construct(self) -> bool:
        method = self.context.enclosing_method()
        if method is None or method.name.value != "construct":
            return False
        owner = self.context.enclosing_class()
        return owner is not None and self.context.is_cell_class(owner)

    # --- sites ------------------------------------------------------------------------

    def _add_site(
        self,
        node: cst.CSTNode,
        op: str,
        spelling: str,
        kind: SiteKind,
        operands: Sequence[cst.BaseExpression] = (),
        callee_head: Optional[str] = None,
    ) -> None:
        owner = self.context.enclosing_class()
        if owner is None or not self.context.is_cell_class(owner):
            return
        site = MatmulSite(node, op, spelling, kind, owner.name.value, attribute=self._assigned_attribute())
        pending = _PendingSite(site, self.context.enclosing_function(), operands, callee_head=callee_head)
        if kind is SiteKind.CELL:
            assert isinstance(node, cst.Call)
            site.own_mark = self._chained_mark() or self._explicit_dtype(node, CELL_OPS[op])
        elif kind is SiteKind.PRIMITIVE:
            self._primitive_call_sites(pending)
        self._seen.sites.append(pending)

    def _assigned_attribute(self) -> Optional[str]:
        """``x`` when the current node is (part of) the value of ``self.x = ...``."""
        ancestors = self.context.ancestors
        for index in range(len(ancestors) - 2, -1, -1):
            node = ancestors[index]
            if isinstance(node, cst.Assign):
                names = [_self_attribute(target.target) for target in node.targets]
                return next((name for name in names if name is not None), None)
            if isinstance(node, cst.AnnAssign):
                return _self_attribute(node.target)
            if isinstance(node, (cst.BaseStatement, cst.Lambda)):
                return None
        return None

    def _chained_mark(self) -> Optional[Mark]:
        """A dtype decision chained on the node being visited: ``nn.Dense(...).to_float(...)``."""
        ancestors = self.context.ancestors
        index = len(ancestors) - 1
        node = ancestors[index]
        while index >= 2:
            attribute, call = ancestors[index - 1], ancestors[index - 2]
            if not (isinstance(attribute, cst.Attribute) and attribute.value is node):
                return None
            if not (isinstance(call, cst.Call) and call.func is attribute):
                return None
            mark = self._dtype_decision(call, attribute.attr.value)
            if mark is not None:
                return mark
            node, index = call, index - 2
        return None

    def _dtype_decision(self, call: cst.Call, method: str) -> Optional[Mark]:
        """The dtype decision a ``.to_float(...)`` / ``.add_flags_recursive(...)`` call makes, if any."""
        if method == "to_float":
            return self._dtype_mark(".to_float", call.args[0].value) if call.args else None
        if method != "add_flags_recursive":
            return None
        if has_double_star(call):
            return Mark("add_flags_recursive(**...)")
        for flag, deliberate in DTYPE_FLAGS.items():
            arg = argument(call, flag)
            if arg is not None and self._static(arg.value) is not False:
                return Mark(f"add_flags_recursive({flag}=...)", deliberate_fp32=deliberate)
        return None

    def _explicit_dtype(self, call: cst.Call, position: Optional[int]) -> Optional[Mark]:
        """``nn.Dense(..., dtype=...)``: an explicit dtype is a decision (``*args``/``**kwargs`` may carry one)."""
        if position is None:
            return None
        arg = argument(call, "dtype", position)
        if arg is not None:
            return self._dtype_mark("dtype=", arg.value)
        if has_star_args(call):
            return Mark("*args/**kwargs may pass dtype")
        return None

    def _dtype_mark(self, what: str, dtype: cst.BaseExpression) -> Mark:
        deliberate = _dtype_kind(dtype, self.context.qualified_name) == "fp32"
        return Mark(f"{what}({self.context.source_of(dtype)})", deliberate_fp32=deliberate)

    def _primitive_call_sites(self, pending: _PendingSite) -> None:
        """Where a primitive built outside ``self.x`` is called: inline, or through a local name."""
        ancestors = self.context.ancestors
        parent = ancestors[-2] if len(ancestors) >= 2 else None
        if isinstance(parent, cst.Call) and parent.func is pending.site.node:
            pending.operands = [arg.value for arg in parent.args]  # ops.MatMul()(a, b)
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
            if isinstance(target, cst.Name):
                pending.local_name = target.value  # mm = ops.MatMul(); mm(a, b)

    # --- file-wide mechanisms ----------------------------------------------------------

    def _note_global_mechanism(self, node: cst.Call, qualified: str) -> None:
        if qualified in AMP_LEVEL_ARGUMENT:
            self._note_amp_level(node, qualified)
        elif qualified == CUSTOM_MIXED_PRECISION:
            self._note_custom_mixed_precision(node)
        elif qualified == PRECISION_MODE:
            arg = argument(node, "mode", 0)
            if arg is not None:
                self._note_precision_mode(self._static(arg.value), "precision_mode")
        elif qualified == MATMUL_ALLOW_HF32:
            arg = argument(node, "value", 0)
            if arg is not None and self._static(arg.value) is not False:
                self._seen.global_marks.append(GlobalMark(Mark("matmul_allow_hf32")))
        elif qualified == SET_CONTEXT:
            arg = argument(node, "ascend_config")
            if arg is not None:
                self._note_ascend_config(arg.value)
            elif has_double_star(node):
                self._seen.global_marks.append(GlobalMark(Mark("set_context(**...) may set ascend_config")))

    def _note_amp_level(self, node: cst.Call, qualified: str) -> None:
        keyword, position = AMP_LEVEL_ARGUMENT[qualified]
        arg = argument(node, keyword, position)
        if arg is None:
            level: object = UNKNOWN if has_star_args(node) else "O0"
        else:
            level = self._static(arg.value)
        level = self._with_cast_model_type(node, level)
        if level == "O0":
            return
        covers = O1_COVERS if level == "O1" else None
        shown = "an unknown level" if level is UNKNOWN else repr(level)
        self._seen.global_marks.append(GlobalMark(Mark(f"{keyword}={shown}"), covers))

    def _with_cast_model_type(self, node: cst.Call, level: object) -> object:
        """``cast_model_type`` overrides the level in Model/build_train_network (2.10 ``_config_level``)."""
        arg = argument(node, "cast_model_type")
        if arg is None:
            return level
        dtype = _dtype_kind(arg.value, self.context.qualified_name)
        if dtype == "low":
            return "O3"
        if dtype == "fp32" and level in ("O2", "O3"):
            return "O0"
        return level

    def _note_custom_mixed_precision(self, node: cst.Call) -> None:
        mark = Mark("custom_mixed_precision")
        white_list = argument(node, "white_list")
        names = None
        if white_list is not None and argument(node, "black_list") is None and not has_double_star(node):
            names = self._listed_names(white_list.value)
        if names is None:
            self._seen.global_marks.append(GlobalMark(mark))
        else:
            self._seen.white_lists.append(_WhiteList(names, mark))

    def _listed_names(self, expression: cst.BaseExpression) -> Optional[Set[str]]:
        """The names in a literal white list (canonical, or local class names); None if unreadable."""
        if isinstance(expression, (cst.List, cst.Tuple)):
            names: Set[str] = set()
            for element in expression.elements:
                if isinstance(element, cst.StarredElement):
                    return None
                name = self.context.qualified_name(element.value) or dotted_name(element.value)
                if name is None:
                    return None
                names.add(name)
            return names
        if isinstance(expression, cst.Call) and self.context.qualified_name(expression.func) == GET_WHITE_LIST:
            return set(O1_COVERS)
        if isinstance(expression, cst.BinaryOperation) and isinstance(expression.operator, cst.Add):
            left, right = self._listed_names(expression.left), self._listed_names(expression.right)
            return None if left is None or right is None else left | right
        return None

    def _note_precision_mode(self, mode: object, where: str) -> None:
        if mode == KEEP_ORIGIN_DTYPE:
            self._seen.keeps_origin_dtype = True
        if mode not in FP32_PRECISION_MODES:
            shown = "an unknown mode" if mode is UNKNOWN else repr(mode)
            self._seen.global_marks.append(GlobalMark(Mark(f"{where} {shown}")))

    def _note_ascend_config(self, config: cst.BaseExpression) -> None:
        """``set_context(ascend_config={"precision_mode": ..., "matmul_allow_hf32": ...})``."""
        entries = _dict_entries(config, self._static)
        if entries is None:
            self._seen.global_marks.append(GlobalMark(Mark("an ascend_config the linter cannot read")))
            return
        if "precision_mode" in entries:
            self._note_precision_mode(entries["precision_mode"], "ascend_config precision_mode")
        if "matmul_allow_hf32" in entries and entries["matmul_allow_hf32"] is not False:
            self._seen.global_marks.append(GlobalMark(Mark("ascend_config matmul_allow_hf32")))

    def _static(self, expression: cst.BaseExpression) -> object:
        """A literal or module constant; never a parameter default (a caller may pass anything)."""
        return self.context.constant_value_of(expression)

    # --- end of file: facts, decision, findings ---------------------------------------------

    def facts(self) -> FileFacts:
        """What the walk established about this file (call once the walk is over)."""
        return _FactBuilder(self._seen, self.context.module, self.context.qualified_name).build()

    def finish(self) -> None:
        facts = self.facts()
        target = self.option("ascend-target")
        uncovered = [site for site, mark in covering_marks(facts, target) if mark is None]
        if uncovered and self.context.project is not None:
            extra = project_facts(self.context.project, facts)
            uncovered = [site for site, mark in covering_marks(facts, target, extra) if mark is None]
        if not uncovered:
            return
        float16, imports = mindspore_attribute(self.context.imports, "mindspore.float16")
        fixable = not (imports and self._binds_anywhere(_root_name(float16)))
        float16_text = cst.Module([]).code_for_node(float16) if fixable else "mindspore.float16"
        partial = partial_amp(facts)
        for site in uncovered:
            fix = None
            if site.kind is SiteKind.CELL and fixable:
                fix = Fix(site.node, _chain_to_float(float16), FixSafety.UNSAFE, "Chain `.to_float(float16)`", imports)
            self.report(site.node, _message(site, float16_text, partial), fix)

    def _binds_anywhere(self, name: str) -> bool:
        """Does the file use ``name`` for something of its own (``ms = 3``, ``def ms()``)?

        Then a new ``import mindspore as ms`` would be shadowed, or shadow it: no fix.
        """
        seen = self._seen
        if name in seen.local_classes or name in seen.local_functions:
            return True
        return any(name in names for names in seen.bindings.values())


def _message(site: MatmulSite, float16: str, partial: bool) -> str:
    """What runs in float32, why it matters, and what to do."""
    if site.kind is SiteKind.CELL:
        subject = f"{site.spelling} runs its MatMul in float32"
        advice = f"chain .to_float({float16}) or enable AMP"
    elif site.kind is SiteKind.PRIMITIVE:
        subject = f"{site.spelling} primitive runs in float32"
        advice = "cast operands to float16 or enable AMP"
    elif site.op == MATMUL_OPERATOR:
        subject = "`@` runs MatMul in float32"
        advice = "cast operands to float16 or enable AMP"
    else:
        subject = f"{site.spelling} runs in float32"
        advice = "cast operands to float16 or enable AMP"
    if partial:
        advice += " O2/O3/auto (the file's AMP white list does not include it)"
    return f"{subject}, much slower than float16 on Ascend's Cube unit; {advice}"


def _root_name(expression: cst.BaseExpression) -> str:
    """``ms`` for ``ms.float16``."""
    while isinstance(expression, cst.Attribute):
        expression = expression.value
    return expression.value if isinstance(expression, cst.Name) else ""


def _chain_to_float(float16: cst.BaseExpression):
    """The fix: ``<construction>`` -> ``<construction>.to_float(<float16>)``, on the updated node."""

    def transform(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.BaseExpression)
        method = cst.Attribute(value=updated, attr=cst.Name("to_float"))
        return cst.Call(func=method, args=[cst.Arg(float16.deep_clone())])

    return transform


class _FactBuilder:
    """Turns the walk's observations into :class:`FileFacts` (runs once, at the end of the file)."""

    def __init__(self, seen: _Observations, module: cst.Module, qualified_name) -> None:
        self.seen = seen
        self.qualified_name = qualified_name
        self.local_names = seen.local_classes | seen.local_functions
        self.module_scope = module
        self.facts = FileFacts(cell_classes=set(seen.cell_classes), keeps_origin_dtype=seen.keeps_origin_dtype)
        self._cast_attributes: Dict[Tuple[str, str], bool] = {}
        #: (class, attribute) of cells with a dtype decision: their outputs carry a chosen dtype.
        self.decided: Set[Tuple[str, str]] = set()

    def build(self) -> FileFacts:
        self._builds()
        self._white_lists()
        self._receivers()
        self._decided_attributes()
        self._casting_calls()
        self._sites()
        self.facts.global_marks.extend(self.seen.global_marks)
        return self.facts

    def _builds(self) -> None:
        for builder, mentioned in self.seen.mentions.items():
            built = (mentioned & self.local_names) - {builder}
            if built:
                self.facts.builds.setdefault(builder, set()).update(built)
        for callee, passed in self.seen.passed.items():
            built = passed & self.local_names
            if callee in self.seen.local_classes and built:
                self.facts.builds.setdefault(callee, set()).update(built)

    def _white_lists(self) -> None:
        for white_list in self.seen.white_lists:
            local = white_list.names & self.seen.local_classes
            for name in local:
                self.facts.instance_marks.setdefault(name, white_list.mark)
            ops = frozenset(white_list.names - local)
            self.facts.global_marks.append(GlobalMark(white_list.mark, ops))

    def _receivers(self) -> None:
        for receiver in self.seen.receivers:
            expression = receiver.expression
            attribute = _self_attribute_root(expression)
            if attribute is not None and receiver.owner is not None:
                self.facts.attribute_marks.setdefault((receiver.owner, attribute), receiver.mark)
            roots = _Roots(self, receiver.scope, receiver.owner).of(expression)
            if roots is not None and _is_self(expression) and receiver.owner is not None:
                roots |= self._subclasses(receiver.owner)  # self.to_float() in __init__ runs for them too
            if roots is None:
                what = f"{receiver.mark.what} on a cell the linter cannot follow"
                self.facts.global_marks.append(GlobalMark(Mark(what, receiver.mark.deliberate_fp32)))
                continue
            for name in roots:
                self.facts.instance_marks.setdefault(name, receiver.mark)

    def _subclasses(self, name: str) -> Set[str]:
        """Local classes that inherit from ``name``, directly or not."""
        found: Set[str] = set()
        queue = [name]
        while queue:
            base = queue.pop()
            for child, bases in self.seen.bases.items():
                if base in bases and child not in found:
                    found.add(child)
                    queue.append(child)
        return found

    def _decided_attributes(self) -> None:
        self.decided.update(self.facts.attribute_marks)
        for receiver in self.seen.receivers:
            if receiver.owner is not None and receiver.attribute is not None:
                self.decided.add((receiver.owner, receiver.attribute))
        for pending in self.seen.sites:
            site = pending.site
            if site.kind is SiteKind.CELL and site.own_mark is not None and site.attribute is not None:
                self.decided.add((site.owner, site.attribute))

    def _casting_calls(self) -> None:
        for (owner, attribute), calls in self.seen.self_calls.items():
            for call, function in calls:
                if self.casts_an_operand([arg.value for arg in call.args], function, owner):
                    self.facts.casting_calls.add((owner, attribute))
                    break

    def _sites(self) -> None:
        for pending in self.seen.sites:
            site = pending.site
            if pending.callee_head in self.local_names:
                continue  # a local def shadows the MindSpore name (even one defined further down)
            if site.kind is SiteKind.OPERATOR and self._on_host(pending):
                continue  # numpy arithmetic on the host
            if site.own_mark is None and self._operands_cast(pending):
                site.own_mark = Mark("an operand is cast in the same function")
            self.facts.sites.append(site)

    def _on_host(self, pending: _PendingSite) -> bool:
        return any(self._is_host_value(operand, pending.function) for operand in pending.operands)

    def _operands_cast(self, pending: _PendingSite) -> bool:
        owner = pending.site.owner
        if pending.local_name is not None and pending.function is not None:
            calls = self.seen.name_calls.get((pending.function, pending.local_name), [])
            return any(self.casts_an_operand([a.value for a in call.args], pending.function, owner) for call in calls)
        return self.casts_an_operand(pending.operands, pending.function, owner)

    # --- questions about expressions -------------------------------------------------

    def values_of(self, name: str, scope: Optional[cst.CSTNode]) -> Optional[List[Optional[cst.BaseExpression]]]:
        """What ``name`` is assigned in ``scope``, else at module level; None if never assigned."""
        for where in (scope, self.module_scope):
            values = self.seen.bindings.get(where, {}).get(name) if where is not None else None
            if values:
                return values
        return None

    def casts_an_operand(
        self, operands: Sequence[cst.BaseExpression], function: Optional[cst.FunctionDef], owner: str
    ) -> bool:
        """Was any operand's dtype chosen explicitly, as far as its derivation in ``function`` shows?

        The derivation is the operand expression and, for each name in it, what the
        name is assigned in the same function, followed transitively. A MindSpore cast
        anywhere in it (``ops.cast``, ``x.astype(d)``, ``x.half()``, a Cast attribute) or
        the output of a cell with a dtype decision (``self.query = nn.Dense(...).to_float(t)``)
        counts -- including a float32 choice such as ``softmax(ops.cast(x, mstype.float32))``.
        """
        seen: Set[str] = set()
        pending = list(operands)
        while pending:
            calls, names = _calls_and_names(pending.pop())
            if any(self._is_cast(call, owner) or self._is_decided_cell_call(call, owner) for call in calls):
                return True
            for name in names - seen:
                seen.add(name)
                values = self.seen.bindings.get(function, {}).get(name, []) if function is not None else []
                pending.extend(value for value in values if value is not None)
        return False

    def _is_decided_cell_call(self, call: cst.Call, owner: str) -> bool:
        attribute = _self_attribute(call.func)
        return attribute is not None and (owner, attribute) in self.decided

    def _is_cast(self, call: cst.Call, owner: str) -> bool:
        func = call.func
        qualified = self.qualified_name(func)
        if qualified == CAST_FUNCTION:
            dtype = argument(call, "dtype", 1)
        elif isinstance(func, cst.Call) and self.qualified_name(func.func) == CAST_PRIMITIVE:
            dtype = argument(call, "type", 1)
        elif isinstance(func, cst.Attribute) and qualified is None and func.attr.value in TENSOR_CAST_METHODS:
            dtype = argument(call, "dtype", 0)  # x.astype(d), x.to(d), x.type(d)
        elif isinstance(func, cst.Attribute) and qualified is None and func.attr.value in TENSOR_DTYPE_METHODS:
            return not call.args  # x.half(), x.bfloat16(), x.float()
        elif _self_attribute(func) is not None:
            # self.cast(x, d): a Cast attribute of the class, or any self.<op>(x, <MindSpore dtype>)
            dtype = argument(call, "type", 1)
            names_a_dtype = dtype is not None and (self.qualified_name(dtype.value) or "").startswith("mindspore.")
            if not (names_a_dtype or self._is_cast_attribute(owner, _self_attribute(func) or "")):
                return False
        else:
            return False
        return dtype is not None and _dtype_kind(dtype.value, self.qualified_name) != "numpy"

    def _is_cast_attribute(self, owner: str, attribute: str) -> bool:
        """``self.<attribute> = ops.Cast()`` in the class."""
        key = (owner, attribute)
        if key not in self._cast_attributes:
            values = self.seen.attribute_values.get(key, [])
            casts = any(isinstance(v, cst.Call) and self.qualified_name(v.func) == CAST_PRIMITIVE for v in values)
            self._cast_attributes[key] = casts
        return self._cast_attributes[key]

    def _is_host_value(self, expression: cst.BaseExpression, function: Optional[cst.FunctionDef]) -> bool:
        """A numpy value: a ``numpy.*`` call or ``.asnumpy()``, or a name assigned only such values."""
        base = expression
        while True:
            if isinstance(base, cst.Call):
                qualified = self.qualified_name(base.func) or ""
                asnumpy = isinstance(base.func, cst.Attribute) and base.func.attr.value == "asnumpy"
                if qualified.startswith("numpy.") or asnumpy:
                    return True
                base = base.func
            elif isinstance(base, (cst.Attribute, cst.Subscript)):
                base = base.value
            else:
                break
        if isinstance(base, cst.Name) and function is not None:
            values = self.seen.bindings.get(function, {}).get(base.value, [])
            return bool(values) and all(v is not None and self._is_host_value(v, None) for v in values)
        return False


class _Roots:
    """Which local classes/functions made the object an expression stands for (None: unknown).

    ``net`` after ``net = Net()`` -> {Net}; ``self`` in class A -> {A}; ``self.body``
    after ``self.body = nn.SequentialCell([Block(), Block()])`` -> {Block};
    ``amp.auto_mixed_precision(net, "O2")`` -> the roots of ``net``; ``nn.Dense(...)`` -> {}.
    """

    def __init__(self, builder: _FactBuilder, scope: cst.CSTNode, owner: Optional[str]) -> None:
        self.builder = builder
        self.scope = scope
        self.owner = owner
        self._resolving: Set[str] = set()

    def of(self, expression: cst.BaseExpression) -> Optional[Set[str]]:
        if isinstance(expression, cst.Name):
            return self._name(expression.value)
        if isinstance(expression, cst.Call):
            return self._call(expression)
        if isinstance(expression, (cst.List, cst.Tuple)):
            return self._union(element.value for element in expression.elements)
        if isinstance(expression, cst.IfExp):
            return self._union((expression.body, expression.orelse))
        attribute = _self_attribute(expression)
        if attribute is not None:
            return self._attribute(attribute)
        if isinstance(expression, (cst.Attribute, cst.Subscript)):
            return self.of(expression.value)  # net.backbone, self.layers[0]: the whole object
        return None

    def _union(self, expressions: Iterable[cst.BaseExpression]) -> Optional[Set[str]]:
        found: Set[str] = set()
        for expression in expressions:
            roots = self.of(expression)
            if roots is None:
                return None
            found |= roots
        return found

    def _name(self, name: str) -> Optional[Set[str]]:
        if name == "self":
            return {self.owner} if self.owner is not None else None
        if name in self._resolving:
            return set()  # net = wrap(net): the first binding answers
        values = self.builder.values_of(name, self.scope)
        if values is None or any(value is None for value in values):
            return None
        self._resolving.add(name)
        try:
            return self._union(value for value in values if value is not None)
        finally:
            self._resolving.discard(name)

    def _attribute(self, attribute: str) -> Optional[Set[str]]:
        values = self.builder.seen.attribute_values.get((self.owner or "", attribute))
        if not values:
            return None
        return self._union(values)

    def _call(self, call: cst.Call) -> Optional[Set[str]]:
        func = call.func
        if isinstance(func, cst.Name) and func.value in self.builder.local_names:
            return {func.value}
        if isinstance(func, cst.Attribute) and func.attr.value in RETURNS_SELF:
            return self.of(func.value)
        qualified = self.builder.qualified_name(func)
        if qualified is None or not qualified.startswith("mindspore"):
            return None
        if _is_layer(qualified):
            return set()
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        return self.of(positional[0]) if positional else set()  # wrappers take the network first


def _is_layer(qualified: str) -> bool:
    """A MindSpore layer or op (not a wrapper around a network, which takes it as first argument)."""
    if qualified.startswith("mindspore.ops."):
        return True
    return qualified.startswith("mindspore.nn.") and "Cell" not in qualified.rsplit(".", 1)[1]


# --- small helpers ----------------------------------------------------------------------


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _self_attribute(node: cst.BaseExpression) -> Optional[str]:
    """``x`` for ``self.x``, else None."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _self_attribute_root(node: cst.BaseExpression) -> Optional[str]:
    """``x`` for ``self.x``, ``self.x.y``, ``self.x[0]``: the attribute of self the object hangs from."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        attribute = _self_attribute(node)
        if attribute is not None:
            return attribute
        node = node.value
    return None


def _dtype_kind(expression: cst.BaseExpression, qualified_name) -> str:
    """``low`` (float16/bfloat16), ``fp32``, ``numpy`` (a host dtype), ``other`` MindSpore dtype, or ``unknown``."""
    qualified = qualified_name(expression) or ""
    if qualified in LOW_PRECISION_DTYPES:
        return "low"
    if qualified in FLOAT32_DTYPES:
        return "fp32"
    if qualified.startswith("numpy."):
        return "numpy"
    return "other" if qualified.startswith("mindspore.") else "unknown"


def _dict_entries(expression: cst.BaseExpression, static) -> Optional[Dict[str, object]]:
    """``{"k": v}`` or ``dict(k=v)`` with string keys -> {k: static value}; None when unreadable."""
    entries: Dict[str, object] = {}
    if isinstance(expression, cst.Dict):
        for element in expression.elements:
            if not isinstance(element, cst.DictElement):
                return None  # **other
            key = static(element.key)
            if not isinstance(key, str):
                return None
            entries[key] = static(element.value)
        return entries
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value == "dict":
        for arg in expression.args:
            if arg.keyword is None:
                return None
            entries[arg.keyword.value] = static(arg.value)
        return entries
    return None


class _CallsAndNames(cst.CSTVisitor):
    """The calls and the plain names (not attribute names like ``x`` of ``a.x``) in an expression."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: List[cst.Call] = []
        self.names: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        walk(node.value, self)  # the value only: ``attr`` is not a variable
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _calls_and_names(expression: cst.BaseExpression) -> Tuple[List[cst.Call], Set[str]]:
    collector = _CallsAndNames()
    walk(expression, collector)
    return collector.calls, collector.names
