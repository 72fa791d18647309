"""Every MindSpore fact the linter relies on, written once.

The extractor (:mod:`ms_perflint.analysis`) reads source with these tables and the
rules decide with them; nothing else in the package names a MindSpore API. Facts
were checked on MindSpore 2.10.0 (the CPU wheel on PyPI) unless a comment says
otherwise. Names are *canonical*: :func:`canonical_name` maps every spelling of an
object (``mindspore.ops.operations.MatMul``, ``P.MatMul``) to one string.

This module imports nothing from the package (it is the bottom layer).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple

# --- packages and spellings -------------------------------------------------------------

#: Top-level packages whose import marks a file as MindSpore code.
MINDSPORE_PACKAGES: Tuple[str, ...] = ("mindspore", "mindcv", "mindformers", "mindnlp", "mindocr", "mindyolo",
                                       "mindvision")

#: Top-level packages of other frameworks: their objects are never MindSpore's.
FOREIGN_PACKAGES: FrozenSet[str] = frozenset(
    (
        "torch", "torchvision", "timm", "tensorflow", "keras", "tf_keras", "paddle", "paddleclas",
        "jax", "flax", "haiku", "mxnet", "gluoncv", "oneflow", "flowvision", "jittor", "megengine",
        "mmcls", "mmpretrain", "mmcv", "tensorlayerx", "transformers", "onnx", "onnxruntime",
    )
)

# Longest prefix first: each entry rewrites a module path to the public spelling the
# same object has at the top of the API.
_PREFIX_ALIASES: Tuple[Tuple[str, str], ...] = (
    ("mindspore.ops.operations.", "mindspore.ops."),
    ("mindspore.ops.functional.", "mindspore.ops."),
    ("mindspore.ops.function.", "mindspore.ops."),
    ("mindspore.ops.auto_generate.", "mindspore.ops."),
    ("mindspore.mint.nn.functional.", "mindspore.mint.nn.functional."),
    ("mindspore.mint.nn.", "mindspore.nn."),
    ("mindspore.nn.layer.", "mindspore.nn."),
    ("mindspore.nn.wrap.", "mindspore.nn."),
    ("mindspore.common.dtype.", "mindspore."),
    ("mindspore.dtype.", "mindspore."),
    ("mindspore.common.tensor.", "mindspore."),
    ("mindspore.common.parameter.", "mindspore."),
    ("mindspore.common.api.", "mindspore."),
    # The modules that define Callback, ModelCheckpoint and CheckpointConfig (2.10), imported directly by some code.
    ("mindspore.train.callback._callback.", "mindspore.train."),
    ("mindspore.train.callback._checkpoint.", "mindspore.train."),
    ("mindspore.train.callback.", "mindspore.train."),
    ("mindspore.train.loss_scale_manager.", "mindspore.train."),
    ("mindspore.amp.loss_scaler.", "mindspore.amp."),
    ("mindspore.train.model.", "mindspore.train."),
    ("mindspore.train.amp.", "mindspore.amp."),
    ("mindspore.train.serialization.", "mindspore."),
    ("mindspore.train.summary.", "mindspore.train."),
    ("mindspore.context.", "mindspore."),
    # ``import mindspore.ops.composite as C; C.GradOperation(...)``: the model zoo's train-step cells.
    ("mindspore.ops.composite.base.", "mindspore.ops."),
    ("mindspore.ops.composite.", "mindspore.ops."),
    ("mindspore.communication.management.", "mindspore.communication."),
    ("mindspore.dataset.core.config.", "mindspore.dataset.config."),
    ("mindspore.dataset.engine.datasets_user_defined.", "mindspore.dataset."),
    ("mindspore.dataset.engine.datasets.", "mindspore.dataset."),
    ("mindspore.dataset.engine.", "mindspore.dataset."),
    ("mindspore.profiler.profiler.", "mindspore.profiler."),
    ("mindcv.models.model_factory.", "mindcv."),
    ("mindcv.models.resnet.", "mindcv.models."),
)
#: Objects MindSpore also exports at the top level under the same name.
_TOP_LEVEL_HOMES = {
    **{name: "mindspore.train." for name in (
        "Model", "CheckpointConfig", "ModelCheckpoint", "Callback", "LossMonitor", "TimeMonitor",
        "SummaryCollector", "FixedLossScaleManager", "DynamicLossScaleManager",
    )},
    "Profiler": "mindspore.profiler.",
}
_NN_SUBMODULES = frozenset(("basic", "conv", "normalization", "activation", "container", "math", "cell"))


@functools.lru_cache(maxsize=1 << 16)
def canonical_name(qualified: str) -> str:
    """The one spelling the rules compare for a qualified MindSpore name (a pure function of the name, so its
    answers are kept: the rules ask again for every call of a large project)."""
    if not qualified.startswith(("mindspore", "mindcv")):
        return qualified
    for prefix, replacement in _PREFIX_ALIASES:
        if qualified.startswith(prefix):
            qualified = replacement + qualified[len(prefix):]
            break
    parts = qualified.split(".")
    if len(parts) > 3 and _is_private_submodule(parts[1], parts[2]):
        parts = parts[:2] + parts[3:]
        qualified = ".".join(parts)
    if parts[0] == "mindcv" and len(parts) == 3 and parts[1] == "models" and parts[2] == "create_model":
        return "mindcv.create_model"
    if len(parts) == 2 and parts[1] in _TOP_LEVEL_HOMES:
        return _TOP_LEVEL_HOMES[parts[1]] + parts[1]
    return qualified


def _is_private_submodule(package: str, module: str) -> bool:
    """``nn.basic``, ``ops.math_ops``, ``ops.gen_ops_prim``: homes of objects ``nn``/``ops`` re-export."""
    if package == "nn":
        return module in _NN_SUBMODULES
    return package == "ops" and (module.endswith("_ops") or module.startswith("gen_ops_"))


def is_mindspore_name(qualified: Optional[str]) -> bool:
    """True for a name inside one of :data:`MINDSPORE_PACKAGES`."""
    return bool(qualified) and qualified.split(".", 1)[0] in MINDSPORE_PACKAGES  # type: ignore[union-attr]


# --- releases (the ``mindspore-version`` setting) ------------------------------------------

#: Distributions on PyPI that install the MindSpore framework itself (names normalised as pip compares them):
#: the one wheel of 2.x, the per-device wheels of 1.x, and the nightly builds (PyPI's package list, 2026).
MINDSPORE_DISTRIBUTIONS: FrozenSet[str] = frozenset(
    ("mindspore", "mindspore-ascend", "mindspore-gpu", "mindspore-dev", "mindspore-ascend-dev", "mindspore-cuda11-dev")
)


# --- call signatures --------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """A parameter the linter reads: its keyword and 0-based position (None: keyword only)."""

    keyword: str
    position: Optional[int] = None


# --- dtypes -----------------------------------------------------------------------------

FLOAT16 = "mindspore.float16"
BFLOAT16 = "mindspore.bfloat16"
FLOAT32 = "mindspore.float32"
FLOAT64 = "mindspore.float64"
#: Every spelling of a dtype -> the dtype (``half`` is float16, ``single`` float32, ``double`` float64).
DTYPE_SPELLINGS: Dict[str, str] = {
    "mindspore.float16": FLOAT16, "mindspore.half": FLOAT16,
    "mindspore.bfloat16": BFLOAT16,
    "mindspore.float32": FLOAT32, "mindspore.single": FLOAT32,
    "mindspore.float64": FLOAT64, "mindspore.double": FLOAT64,
    "numpy.float16": FLOAT16, "numpy.float32": FLOAT32, "numpy.float64": FLOAT64,
}
LOW_PRECISION: FrozenSet[str] = frozenset((FLOAT16, BFLOAT16))


def dtype_of(qualified: Optional[str]) -> Optional[str]:
    """The dtype a qualified name spells (:data:`FLOAT16`, ...), or None."""
    return DTYPE_SPELLINGS.get(qualified or "")


# --- MatMul family (MSP101, MSP102) -----------------------------------------------------


@dataclass(frozen=True)
class MatmulOp:
    """A MatMul-family API: how it appears, where its dims and dtype are, and whether O1 casts it."""

    kind: str  # "layer" (a Cell built once), "primitive" (built once, called in construct), "function"
    in_dim: Optional[Param] = None
    out_dim: Optional[Param] = None
    dtype: Optional[Param] = None
    #: AMP O1/auto inserts casts around it (measured on 2.10 by dumping the rewritten network).
    o1_casts: bool = False
    #: Where a primitive (or cell) takes its transpose flags for the first and second operand (default False).
    transpose: Tuple[Optional[Param], Optional[Param]] = (None, None)
    #: The second operand is always transposed (``ops.dense(x, weight)``: weight is ``[out, in]``).
    second_transposed: bool = False


#: Keyed by canonical name. ``nn.Linear`` is ``mint.nn.Linear``; O1 does not cast it, nor
#: ``ops.matmul``, ``mint.*``, ``ops.dense``, ``Tensor.matmul`` or ``@`` (2.10).
MATMUL_OPS: Dict[str, MatmulOp] = {
    "mindspore.nn.Dense": MatmulOp("layer", Param("in_channels", 0), Param("out_channels", 1), Param("dtype", 6), True),
    "mindspore.nn.Linear": MatmulOp("layer", Param("in_features", 0), Param("out_features", 1), Param("dtype", 5)),
    "mindspore.nn.MatMul": MatmulOp("layer", transpose=(Param("transpose_x1", 0), Param("transpose_x2", 1))),
    "mindspore.ops.MatMul": MatmulOp("primitive", o1_casts=True,
                                     transpose=(Param("transpose_a", 0), Param("transpose_b", 1))),
    "mindspore.ops.BatchMatMul": MatmulOp("primitive", o1_casts=True,
                                          transpose=(Param("transpose_a", 0), Param("transpose_b", 1))),
    "mindspore.ops.matmul": MatmulOp("function"),
    "mindspore.mint.matmul": MatmulOp("function"),
    "mindspore.ops.bmm": MatmulOp("function", o1_casts=True),
    "mindspore.mint.bmm": MatmulOp("function"),
    "mindspore.ops.mm": MatmulOp("function", o1_casts=True),
    "mindspore.mint.mm": MatmulOp("function"),
    "mindspore.ops.dense": MatmulOp("function", second_transposed=True),
}
@dataclass(frozen=True)
class WeightedLayer:
    """A layer whose weight size follows from its arguments: in x out (x kernel) parameters."""

    inputs: Param
    outputs: Param
    kernel: Optional[Param] = None
    #: The kernel's spatial dimensions when given as one int (``kernel_size=3`` for a 3x3 Conv2d).
    dims: int = 0
    #: A grouped convolution's groups: its weights are in x out x kernel / groups (a depthwise convolution holds
    #: one kernel per channel).
    group: Optional[Param] = None


#: ``mint``'s convolutions (recorded under ``nn``'s names below) take their groups as ``groups``, sixth after ``self``
#: in MindSpore 2.10, where ``nn``'s take ``dilation`` (``nn``'s ``group`` is seventh or eighth): read by keyword only.
MINT_GROUPS = Param("groups", 6)
#: Layers that hold most of a network's weights (for the size of its checkpoint).
WEIGHTED_LAYERS: Dict[str, WeightedLayer] = {
    "mindspore.nn.Dense": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1)),
    "mindspore.nn.Linear": WeightedLayer(Param("in_features", 0), Param("out_features", 1)),
    # ``group`` by position as MindSpore 2.10's ``nn`` signatures place it (``mint``'s: :data:`MINT_GROUPS`).
    "mindspore.nn.Conv1d": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1), Param("kernel_size", 2), 1,
                                         Param("group", 7)),
    "mindspore.nn.Conv2d": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1), Param("kernel_size", 2), 2,
                                         Param("group", 7)),
    "mindspore.nn.Conv3d": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1), Param("kernel_size", 2), 3,
                                         Param("group", 7)),
    "mindspore.nn.Conv2dTranspose": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1),
                                                  Param("kernel_size", 2), 2, Param("group", 8)),
    "mindspore.nn.Conv1dTranspose": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1),
                                                  Param("kernel_size", 2), 1, Param("group", 7)),
    "mindspore.nn.Conv3dTranspose": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1),
                                                  Param("kernel_size", 2), 3, Param("group", 7)),
    # ``mint.nn.ConvTranspose2d`` (``mint.nn.Conv1d/2d/3d`` are the ``nn`` names above after canonical_name).
    "mindspore.nn.ConvTranspose2d": WeightedLayer(Param("in_channels", 0), Param("out_channels", 1),
                                                  Param("kernel_size", 2), 2, MINT_GROUPS),
    "mindspore.nn.Embedding": WeightedLayer(Param("vocab_size", 0), Param("embedding_size", 1)),
}
#: Convolution layers (sized by :data:`WEIGHTED_LAYERS`; ``mint.nn.Conv2d`` is ``nn.Conv2d`` by canonical name).
#: Convolutions run on the Ascend Cube, as MatMuls do (MSP107).
CONV_LAYERS: FrozenSet[str] = frozenset(
    ("mindspore.nn.Conv1d", "mindspore.nn.Conv2d", "mindspore.nn.Conv3d", "mindspore.nn.Conv1dTranspose",
     "mindspore.nn.Conv2dTranspose", "mindspore.nn.Conv3dTranspose", "mindspore.nn.ConvTranspose2d")
)
#: Convolution primitives and functions (2.10): their weights are Parameters the linter does not size.
CONV_OPS: FrozenSet[str] = frozenset(
    ("mindspore.ops.Conv2D", "mindspore.ops.Conv3D", "mindspore.ops.Conv2DTranspose", "mindspore.ops.Conv3DTranspose",
     "mindspore.ops.conv1d", "mindspore.ops.conv2d", "mindspore.ops.conv3d", "mindspore.ops.conv_transpose2d",
     "mindspore.mint.nn.functional.conv1d", "mindspore.mint.nn.functional.conv2d",
     "mindspore.mint.nn.functional.conv3d", "mindspore.mint.nn.functional.conv_transpose2d")
)
#: A network trained in float32 is worth mixed precision for its convolutions from this many convolution weights:
#: LeNet-5's two convolutions hold 2.5 k, a CIFAR ResNet-20 0.27 M; ResNet-18 holds 11 M, ResNet-50 23 M.
SIGNIFICANT_CONV_WEIGHTS = 1_000_000
#: Layers whose weights the linter does not size: a network that builds one has an unknown size.
UNSIZED_WEIGHT_LAYERS = frozenset(
    ("mindspore.Parameter", "mindspore.nn.LSTM", "mindspore.nn.GRU", "mindspore.nn.RNN", "mindspore.nn.LSTMCell",
     "mindspore.nn.GRUCell", "mindspore.nn.RNNCell", "mindspore.nn.MultiheadAttention", "mindspore.nn.Transformer",
     "mindspore.nn.TransformerEncoder", "mindspore.nn.TransformerDecoder", "mindspore.nn.TransformerEncoderLayer",
     "mindspore.nn.TransformerDecoderLayer", "mindspore.nn.BiDense")
)
#: A save is worth making asynchronous when it repeats at least every this many steps: at Ascend step times (tens
#: to hundreds of milliseconds) a rarer save comes every few minutes or more, a stall of well under 1 % even for a
#: checkpoint of gigabytes (RULES.md, MSP103).
FREQUENT_SAVE_STEPS = 5000
#: ... or at least every this many epochs (``save_checkpoint_steps=2 * steps_per_epoch``).
FREQUENT_SAVE_EPOCHS = 2
#: ... and, where the length of the run is known, at least this many times in the run.
MIN_SAVES_IN_RUN = 3
#: The call that gives the steps of one epoch: ``Dataset.get_dataset_size()`` (batches per epoch).
DATASET_SIZE_METHOD = "get_dataset_size"
#: Calls that keep a number a number (``int(dataset.get_dataset_size())``).
NUMBER_CASTS = frozenset(("int", "math.ceil", "math.floor", "round"))
#: ``Model.train(epoch, train_dataset, ...)``: the epochs a run trains.
MODEL_TRAIN_EPOCH = Param("epoch", 0)
#: Words that name an evaluation: ``Model.eval(...)``, ``self.eval_function(...)``, ``evaluator.eval()``,
#: ``apply_eval`` (a MindSpore Cell has no ``eval`` method: the word means a run over a validation set).
EVALUATION_WORDS = ("eval",)
#: Words naming an evaluation dataset in what a loop iterates (``ds_eval``, ``val_loader``, ``valid_data``).
EVALUATION_DATA_WORDS = ("eval", "val_", "_val", "valid", "test")
#: Below this many parameters (a float32 checkpoint of about 12 MB) a save takes tens of milliseconds:
#: LeNet (60 k), SqueezeNet (1.2 M), MobileViT-XXS (1.3 M), OSNet (2.2 M). Not worth a finding about saving.
SMALL_NETWORK_PARAMETERS = 3_000_000
#: A run of at most this many training steps of networks under :data:`SMALL_NETWORK_PARAMETERS` is a demo that ends
#: in a minute or two: a per-step cost (a host read, an uncompiled step) is not worth a change there. Blind audits
#: judged 300- to 1,000-step runs of such networks not worth acting on, and a 9,370-step LeNet run worth it.
SHORT_RUN_STEPS = 2_000
#: Model-zoo networks under :data:`SMALL_NETWORK_PARAMETERS`, by the name their factory or ``create_model``
#: takes (mindcv, mindvision), with their published parameter counts.
SMALL_ZOO_NETWORKS: Dict[str, int] = {
    "lenet": 61_706, "lenet5": 61_706,
    "squeezenet1_0": 1_248_424, "squeezenet1_1": 1_235_496,
    "mobilenet_v1_025": 470_000, "mobilenet_v1_050": 1_340_000, "mobilenet_v1_075": 2_600_000,
    "mobilenet_v2_035": 1_700_000, "mobilenet_v2_050": 2_000_000, "mobilenet_v2_075": 2_640_000,
    "mobilenet_v3_small_075": 2_040_000, "mobilenet_v3_small_100": 2_550_000,
    "shufflenet_v2_x0_5": 1_370_000, "shufflenet_v2_x1_0": 2_290_000,
    "ghostnet_050": 2_600_000, "mnasnet_050": 2_220_000,
    "mobilevit_xx_small": 1_270_000, "mobilevit_x_small": 2_320_000,
}
#: Architecture families none of whose published variants reaches :data:`SMALL_NETWORK_PARAMETERS`, by the
#: lower-case start of a project class's name (``LeNet5``, ``SqueezeNet_Residual``, ``OSNet``), with the
#: parameters of their largest variant.
SMALL_ARCHITECTURES: Dict[str, int] = {"lenet": 61_706, "squeezenet": 1_248_424, "osnet": 2_600_000,
                                       "litehrnet": 1_800_000}
#: Model-zoo factories that take the model's name (``create_model(model_name="squeezenet1_0")``).
MODEL_NAME_FACTORIES = {"create_model": Param("model_name", 0)}

#: Loss scaling exists for float16 training: a program that scales its loss runs mixed precision.
LOSS_SCALING = frozenset(
    ("mindspore.nn.TrainOneStepWithLossScaleCell", "mindspore.boost.BoostTrainOneStepWithLossScaleCell",
     "mindspore.nn.DynamicLossScaleUpdateCell", "mindspore.nn.FixedLossScaleUpdateCell",
     "mindspore.train.FixedLossScaleManager", "mindspore.train.DynamicLossScaleManager",
     "mindspore.amp.DynamicLossScaler", "mindspore.amp.StaticLossScaler", "mindspore.amp.all_finite")
)
LOSS_SCALE_MANAGER = "loss_scale_manager"

#: The ``@`` operator and ``Tensor.matmul``, recorded as calls of these names.
MATMUL_OPERATOR = "@"
TENSOR_MATMUL_METHOD = "matmul"

# --- MatMul shapes on the Cube (MSP102) ---------------------------------------------------

#: The Cube multiplies fractals of 16 x 16 fp16/bf16 values (C0 = 32 bytes = 16 halves; M0 = 16), and data
#: is moved to it in that fractal (NZ) layout: a dim that is not a multiple of 16 is padded on the way.
CUBE_FRACTAL = 16
#: Operator types of the MatMul family in profiles (MindSpore on CPU, CANN kernels on Ascend), by prefix.
PROFILE_MATMUL_TYPES: Tuple[str, ...] = ("MatMul", "BatchMatMul", "Dense", "GroupedMatmul", "QuantBatchMatmul")
#: AI cores that share one MatMul, each taking whole fractals of the output: 32 Da Vinci cores on Ascend 910,
#: 20-24 Cube cores on Atlas A2 (910B). A dim below CUBE_FRACTAL * AI_CORES cannot give every core a fractal.
AI_CORES = 32
#: ``nn.Embedding(vocab_size, embedding_size, use_one_hot=False, ...)``: with ``use_one_hot=True`` the lookup
#: is a MatMul of ``[N, vocab_size]`` one-hot rows by the ``[vocab_size, embedding_size]`` table.
EMBEDDING = "mindspore.nn.Embedding"
EMBEDDING_VOCAB = Param("vocab_size", 0)
EMBEDDING_SIZE = Param("embedding_size", 1)
EMBEDDING_ONE_HOT = Param("use_one_hot", 2)
#: Weights MindSpore layers keep as attributes, with their shapes as the layer's parameters (first axis first).
LAYER_WEIGHTS: Dict[Tuple[str, str], Tuple[Param, Param]] = {
    (EMBEDDING, "embedding_table"): (EMBEDDING_VOCAB, EMBEDDING_SIZE),
    ("mindspore.nn.Dense", "weight"): (Param("out_channels", 1), Param("in_channels", 0)),
    ("mindspore.nn.Linear", "weight"): (Param("out_features", 1), Param("in_features", 0)),
}
#: Calls that build a tensor from a shape argument (numpy and MindSpore), and where the shape is.
SHAPE_BUILDERS: Dict[str, Param] = {
    "numpy.ones": Param("shape", 0), "numpy.zeros": Param("shape", 0), "numpy.empty": Param("shape", 0),
    "numpy.full": Param("shape", 0), "numpy.random.standard_normal": Param("size", 0),
    "numpy.random.normal": Param("size", 2), "numpy.random.uniform": Param("size", 2),
    "numpy.random.random": Param("size", 0), "numpy.random.randint": Param("size", 2),
    "mindspore.ops.ones": Param("shape", 0), "mindspore.ops.zeros": Param("size", 0),
    "mindspore.mint.ones": Param("size", 0), "mindspore.mint.zeros": Param("size", 0),
    "mindspore.common.initializer.initializer": Param("shape", 1),
    # Tensor(shape=(a, b), dtype=..., init=...): the shape is keyword-only in practice.
    "mindspore.Tensor": Param("shape"),
}
#: Calls whose positional arguments are the dims: ``np.random.randn(a, b)``.
DIMS_AS_ARGUMENTS = frozenset(("numpy.random.randn", "numpy.random.rand"))
#: Wrappers whose result has the shape of one argument: ``Parameter(Tensor(array))``.
SHAPE_KEEPING: Dict[str, Param] = {"mindspore.Parameter": Param("default_input", 0),
                                   "mindspore.Tensor": Param("input_data", 0)}
#: Tile and Div, whose unaligned shapes cannot be split evenly across the AI cores either (the seed guide).
TILE_OPS: Dict[str, Tuple[Param, Param]] = {
    "mindspore.ops.Tile": (Param("input_x", 0), Param("multiples", 1)),
    "mindspore.ops.tile": (Param("input", 0), Param("dims", 1)),
    "mindspore.mint.tile": (Param("input", 0), Param("dims", 1)),
}
DIV_OPS = frozenset(("mindspore.ops.Div", "mindspore.ops.div", "mindspore.mint.div"))
#: Words that name a dataset's class count (``num_classes``, ``class_num``, ``num_labels``, YOLO's ``nc``).
CLASS_COUNT_WORDS = frozenset(("class", "classes", "cls", "label", "labels", "categories", "category", "nc"))

# --- casting and mixed precision (MSP101) -----------------------------------------------

#: Cell methods that set a cell's compute dtype; both return the cell, so they chain.
TO_FLOAT = "to_float"
ADD_FLAGS_RECURSIVE = "add_flags_recursive"
#: ``add_flags_recursive`` flags -> the dtype they select.
DTYPE_FLAGS = {"fp16": FLOAT16, "bf16": BFLOAT16, "fp32": FLOAT32}
#: Cell methods that return the cell itself, so a chain still names the same instance.
RETURNS_SELF = frozenset((TO_FLOAT, ADD_FLAGS_RECURSIVE, "add_flags", "set_train", "set_grad"))

# --- pretrained transformers from a hub (MSP101) -------------------------------------------------

#: Class methods that build a pretrained network from a hub checkpoint (the Hugging Face mechanism mindnlp mirrors:
#: ``AutoModelForSeq2SeqLM.from_pretrained(name)``; ``from_config`` builds the same architecture untrained).
HUB_LOADERS = frozenset(("from_pretrained", "from_config"))
#: Packages whose model classes are the Hugging Face model zoo ported to MindSpore (mindnlp 0.3/0.4's
#: ``mindnlp.transformers``): their size is not in the project, but nearly every family is a transformer whose work
#: is Dense/MatMul (BERT-base: 85 M of its 110 M weights are Dense). mindformers is not listed: its models compute in
#: the ``compute_dtype`` of their config (float16/bfloat16 in its shipped configs), not in float32.
HUB_MODEL_PACKAGES = ("mindnlp.transformers.",)
#: Hub model classes are named ``<Family>Model``, ``<Family>For<Task>``, ``<Family>LMHeadModel`` and built on
#: ``<Family>PreTrainedModel``; ``Auto*`` classes pick the family from the checkpoint.
HUB_MODEL_CLASS = re.compile(r"^(?P<family>[A-Z][A-Za-z0-9]*?)(PreTrainedModel|Model|For[A-Z][A-Za-z0-9]*|LMHeadModel)$")
#: Families of the Hugging Face model zoo that are convolutional networks (their work is convolutions: MSP107's, not
#: MatMul), matched at the start of the class or checkpoint name, lower case (transformers' model list).
CONVOLUTIONAL_HUB_FAMILIES = ("resnet", "convnext", "regnet", "mobilenet", "mobilevit", "efficientnet", "bit",
                              "van", "poolformer", "upernet", "timm")
#: Tasks of ``Auto*`` classes whose checkpoint may be a CNN: reported only when the checkpoint is known.
VISION_AUTO_TASKS = ("Image", "Object", "Segmentation", "Depth", "Video", "Vision", "Backbone")
#: ``from_pretrained`` keywords that choose the dtype the weights are loaded (and run) in.
HUB_DTYPE_KEYWORDS = ("ms_dtype", "torch_dtype", "dtype", "mindspore_dtype")
#: torch-style module casts: ``half()``/``bfloat16()`` cast every parameter, ``to(dtype)`` the given one.
MODULE_LOW_CASTS = frozenset(("half", "bfloat16"))
MODULE_TO = "to"
#: Calls that wrap a pretrained network and train it (PEFT: LoRA, IA3, prompt tuning keep the base network, whose
#: MatMuls still run forward and backward), taking it as their first argument.
HUB_NETWORK_WRAPPERS = frozenset(("mindnlp.peft.get_peft_model", "mindnlp.peft.PeftModel",
                                  "mindnlp.peft.PeftModel.from_pretrained", "mindnlp.peft.PeftModelForSeq2SeqLM",
                                  "mindnlp.peft.PeftModelForCausalLM",
                                  "mindnlp.peft.PeftModelForSequenceClassification"))


def hub_transformer(class_name: str, checkpoints: Tuple[str, ...] = (), checkpoints_known: bool = False) -> bool:
    """A hub model class (``BertForSequenceClassification``, ``GPT2PreTrainedModel``, ``AutoModelForSeq2SeqLM``) that
    is a transformer: not a convolutional family, and for an ``Auto*`` class not a CNN checkpoint (a vision
    ``Auto*`` class needs a known checkpoint)."""
    match = HUB_MODEL_CLASS.match(class_name)
    if match is None:
        return False
    family = match.group("family").lower()
    if family.startswith("auto"):
        names = [c.lower().rsplit("/", 1)[-1] for c in checkpoints]
        if any(name.startswith(CONVOLUTIONAL_HUB_FAMILIES) for name in names):
            return False
        return checkpoints_known or not any(task in class_name for task in VISION_AUTO_TASKS)
    return bool(family) and family not in ("pre", "pretrained") and not family.startswith(CONVOLUTIONAL_HUB_FAMILIES)


def hub_model_class(qualified: str) -> str:
    """``BertModel`` for ``mindnlp.transformers.BertModel`` (or ``...BertModel.from_pretrained``), else ""."""
    if not qualified.startswith(HUB_MODEL_PACKAGES):
        return ""
    parts = qualified.split(".")
    if parts[-1] in HUB_LOADERS:
        parts = parts[:-1]
    return parts[-1] if HUB_MODEL_CLASS.match(parts[-1]) else ""

#: Casting a tensor: ``ops.cast(x, dtype)`` / ``P.Cast()(x, dtype)``.
CAST_FUNCTIONS = frozenset(("mindspore.ops.cast", "mindspore.mint.cast"))
CAST_PRIMITIVE = "mindspore.ops.Cast"
#: Tensor methods taking a dtype, and methods that name theirs.
TENSOR_CAST_METHODS = frozenset(("astype", "to", "type"))
TENSOR_DTYPE_METHODS = {"half": FLOAT16, "bfloat16": BFLOAT16, "float": FLOAT32, "double": FLOAT64}


@dataclass(frozen=True)
class AmpEntry:
    """An API that applies an AMP level to a network: where the level and the network are."""

    level: Param
    network: Param
    #: Builds a training network (Model, build_train_network) as opposed to only casting one.
    trains: bool = False


#: ``amp.auto_mixed_precision(network, amp_level)``: returns the network it is given, cast.
AUTO_MIXED_PRECISION = "mindspore.amp.auto_mixed_precision"
AMP_ENTRIES: Dict[str, AmpEntry] = {
    "mindspore.train.Model": AmpEntry(Param("amp_level", 6), Param("network", 0), trains=True),
    AUTO_MIXED_PRECISION: AmpEntry(Param("amp_level", 1), Param("network", 0)),
    "mindspore.amp.build_train_network": AmpEntry(Param("level", 3), Param("network", 0), trains=True),
}
#: Every AMP entry defaults to "O0" (no casting).
AMP_DEFAULT_LEVEL = "O0"
#: AMP levels that cast MatMuls; O1 and auto cast only the ops whose ``o1_casts`` is True.
COVERING_AMP_LEVELS = frozenset(("O1", "O2", "O3", "AUTO"))
WHITE_LIST_AMP_LEVELS = frozenset(("O1", "AUTO"))
CAST_MODEL_TYPE = "cast_model_type"
CUSTOM_MIXED_PRECISION = "mindspore.amp.custom_mixed_precision"
#: Ascend operator precision knobs that run fp32 MatMuls in fp16/hf32 for a whole process.
PRECISION_MODE = "mindspore.device_context.ascend.op_precision.precision_mode"
MATMUL_ALLOW_HF32 = "mindspore.device_context.ascend.op_precision.matmul_allow_hf32"
#: Precision modes that keep an fp32 MatMul in fp32; every other mode casts.
FP32_PRECISION_MODES = frozenset(("must_keep_origin_dtype", "force_fp32"))
#: The ``ascend-target`` option (declared by MSP101, read by every precision rule): the Ascend chip the code runs on.
ASCEND_TARGET_OPTION = "ascend-target"
ASCEND_TARGETS = ("910a", "910b", "910c")
DEFAULT_ASCEND_TARGET = "910b"
#: Chips whose default precision mode already runs float32 Cube work (MatMul, convolution) in float16: the
#: Atlas training series (910A) defaults to ``allow_fp32_to_fp16``; A2 and later to ``must_keep_origin_dtype``.
CASTING_BY_DEFAULT_TARGETS = frozenset(("910a",))
#: What ``MSContext.get_instance().get_ascend_soc_version()`` returns on each chip (mindformers' version_control.py
#: compares it with these: 'ascend910' is 910A, 'ascend910b' 910B). Code that sets a precision knob only for some
#: chips (mindnlp sets ``allow_mix_precision`` on 'ascend910' and 'ascend310b') does not set it on the others.
ASCEND_SOC_VERSIONS = {"910a": "ascend910", "910b": "ascend910b"}
ASCEND_SOC_VERSION_METHOD = "get_ascend_soc_version"
SET_CONTEXT = "mindspore.set_context"
#: ``get_context("device_target")`` reads back what ``set_context`` set.
GET_CONTEXT = "mindspore.get_context"
ASCEND_CONFIG = "ascend_config"

# --- training, programs and devices -------------------------------------------------------

MODEL = "mindspore.train.Model"
#: ``Model(network, loss_fn=None, optimizer=None, ...)`` applies its ``amp_level`` only when it has an optimizer: given a
#: train step alone it runs the step as it is (MindSpore 2.10 ``Model._build_train_network``).
MODEL_OPTIMIZER = Param("optimizer", 2)
#: Methods of a ``Model`` that train, and ones that only evaluate or predict.
MODEL_TRAIN_METHODS = frozenset(("train", "fit"))
MODEL_EVAL_METHODS = frozenset(("eval", "predict", "infer_predict_layout"))
#: ``Model.train(epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1, initial_epoch=0)``
#: (2.10: sinking is off by default, and MindSpore does not sink on the CPU). With sinking, callbacks' ``step_end``
#: runs once per sink of ``sink_size`` steps (-1: a whole epoch).
MODEL_TRAIN_SINK = Param("dataset_sink_mode", 3)
MODEL_TRAIN_SINK_SIZE = Param("sink_size", 4)
#: Where each training method of ``Model`` takes ``dataset_sink_mode`` (2.10): ``fit(epoch, train_dataset,
#: valid_dataset=None, valid_frequency=1, callbacks=None, dataset_sink_mode=False, ...)``.
MODEL_SINK_FLAGS: Dict[str, Param] = {"train": MODEL_TRAIN_SINK, "fit": Param("dataset_sink_mode", 5)}
#: Where each training method of ``Model`` takes its callbacks (2.10): ``train(epoch, train_dataset, callbacks=None,
#: ...)``, ``fit(epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None, ...)``.
MODEL_CALLBACKS: Dict[str, Param] = {"train": Param("callbacks", 2), "fit": Param("callbacks", 4)}
#: ``dataset_sink_mode`` defaults to False since 2.0 and to True on 1.x (the 1.x ``Model.train`` signature:
#: ``dataset_sink_mode=True``; 2.10's: ``dataset_sink_mode=False``).
SINK_OFF_BY_DEFAULT_SINCE = "2.0.0a0"
#: Pipelines whose batches change shape from batch to batch, which sinking cannot feed to one compiled graph:
#: ``bucket_batch_by_length``, and a ``GeneratorDataset`` whose source is named for buckets (``BucketASRDataset``).
VARYING_SHAPE_BATCHES = frozenset(("bucket_batch_by_length",))
VARYING_SHAPE_WORDS = ("bucket",)
#: Classes a library module does not build at import time: built at module level, they make a file a script.
SCRIPT_CLASSES = frozenset((MODEL, "mindspore.profiler.Profiler", "mindspore.train.CheckpointConfig",
                            "mindspore.train.ModelCheckpoint"))
#: Cells that wrap a network into one training step.
TRAIN_STEP_CELLS = frozenset(
    (
        "mindspore.nn.TrainOneStepCell", "mindspore.nn.TrainOneStepWithLossScaleCell",
        "mindspore.boost.BoostTrainOneStepCell", "mindspore.boost.BoostTrainOneStepWithLossScaleCell",
    )
)
#: Functions that return a train step (a cell that runs forward, backward and the optimizer when called).
TRAIN_STEP_BUILDERS = frozenset(("mindspore.amp.build_train_network",))
#: MindSpore's optimizers (``mindspore.nn.<name>``, 2.10). A training wrapper that keeps one saves its state with
#: the network; the state grows with the network, so a network's size alone says whether its saves matter.
OPTIMIZERS = frozenset(
    ("Optimizer", "Adam", "AdamWeightDecay", "AdamOffload", "AdaFactor", "AdaSumByDeltaWeightWrapCell",
     "AdaSumByGradWrapCell", "Adadelta", "Adagrad", "Adamax", "ASGD", "FTRL", "Lamb", "LARS", "LazyAdam",
     "Momentum", "ProximalAdagrad", "RMSProp", "Rprop", "SGD", "thor")
)


#: The base class of MindSpore's optimizers, by the names code imports it under. A project optimizer's
#: ``construct`` runs the parameter update, not the network's forward and backward.
OPTIMIZER_BASES = frozenset(("mindspore.nn.Optimizer", "mindspore.nn.optim.Optimizer",
                             "mindspore.nn.optim.optimizer.Optimizer"))


def is_optimizer(qualified: str) -> bool:
    """``mindspore.nn.Adam``, ``mindspore.nn.optim.Momentum``, mindcv's ``create_optimizer``."""
    last = qualified.rsplit(".", 1)[-1]
    return qualified.split(".", 1)[0] in MINDSPORE_PACKAGES and (last in OPTIMIZERS or last == "create_optimizer")


#: Optimizer modules besides ``mindspore.nn`` (torch-style, ``Optimizer(params, lr=...)``): MindSpore's
#: ``experimental.optim`` and ``mint.optim`` (2.10), mindnlp 0.4's ``core.optim``.
OPTIMIZER_MODULES = ("mindspore.experimental.optim.", "mindspore.mint.optim.", "mindnlp.core.optim.")
#: Their optimizers not named in :data:`OPTIMIZERS`.
TORCH_STYLE_OPTIMIZERS = frozenset(("AdamW", "NAdam", "RAdam", "RMSprop", "Adam", "SGD", "Adagrad", "Adadelta",
                                    "Adamax", "ASGD", "Rprop"))


def is_parameter_optimizer(qualified: str) -> bool:
    """An optimizer of a torch-style optimizer module (``mindspore.experimental.optim.AdamW``), which takes the
    trained network's parameters first."""
    return qualified.startswith(OPTIMIZER_MODULES) and qualified.rsplit(".", 1)[-1] in TORCH_STYLE_OPTIMIZERS


def is_weightless_cell(qualified: str) -> bool:
    """A MindSpore cell with no weights of its own: a loss (``mindspore.nn.MSELoss``,
    ``mindspore.nn.SoftmaxCrossEntropyWithLogits``) or an activation (``mindspore.nn.ReLU``)."""
    if not qualified.startswith("mindspore.nn."):
        return False
    last = qualified.rsplit(".", 1)[-1]
    return last.endswith(("Loss", "WithLogits")) or last in WEIGHTLESS_ACTIVATIONS


#: ``mindspore.nn`` activations (2.10), which hold no weights (``PReLU`` does: not listed).
WEIGHTLESS_ACTIVATIONS = frozenset(("ReLU", "ReLU6", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
                                    "LeakyReLU", "ELU", "HSwish", "HSigmoid", "Mish", "FastGelu", "Softplus"))

#: Gradient APIs: a program that calls one and an optimizer trains.
GRAD_FUNCTIONS = frozenset(
    ("mindspore.value_and_grad", "mindspore.ops.value_and_grad", "mindspore.grad", "mindspore.ops.grad",
     "mindspore.ops.GradOperation")
)
#: mindnlp's torch-style gradient function (``mindnlp.core`` re-exports ``autograd.function.value_and_grad(fn,
#: params_or_argnums, has_aux=False, attach_grads=True)``; mindnlp 0.4, read in its git history).
MINDNLP_GRAD_FUNCTIONS = frozenset(("mindnlp.core.value_and_grad", "mindnlp.core.autograd.value_and_grad",
                                    "mindnlp.core.autograd.function.value_and_grad"))
GRAD_FUNCTIONS = GRAD_FUNCTIONS | MINDNLP_GRAD_FUNCTIONS
#: mindformers' training entry points.
MINDFORMERS_TRAINERS = frozenset(("mindformers.Trainer", "mindformers.trainer.Trainer"))
MINDFORMERS_TRAIN_METHODS = frozenset(("train", "finetune"))
MINDFORMERS_RUN_MODES = frozenset(("train", "finetune"))
#: mindnlp's Hugging-Face-style trainer (``mindnlp.engine``, 0.4): ``Trainer(model=None, args=None, ...)``, trained by
#: ``trainer.train()``. Its ``TrainingArguments`` accept ``fp16``/``bf16``, but the 0.4 Trainer keeps
#: ``self.use_amp = False`` and never casts for training (only ``fp16_full_eval``/``bf16_full_eval`` cast, for
#: evaluation): read in mindnlp's sources (mindnlp/engine/trainer/base.py, train_args/base.py, git history).
MINDNLP_TRAINERS = frozenset(("mindnlp.engine.Trainer", "mindnlp.engine.trainer.Trainer",
                              "mindnlp.engine.trainer.base.Trainer"))
MINDNLP_TRAINER_MODEL = Param("model", 0)
#: mindnlp's earlier engine API: ``Trainer(network=model, optimizer=..., ...)`` trained by ``trainer.run(...)``.
MINDNLP_TRAINER_NETWORK = Param("network", 0)
MINDNLP_TRAIN_METHODS = frozenset(("train", "run"))
MINDNLP_TRAINER_ARGS = Param("args", 1)
#: Training entry points a project subclasses to customise (``class ModifiedTrainer(Trainer)`` overriding
#: ``compute_loss``): the subclass trains as its base does.
SUBCLASSED_ENTRY_POINTS = frozenset((MODEL, *MINDFORMERS_TRAINERS, *MINDNLP_TRAINERS))
MINDNLP_TRAINING_ARGUMENTS = frozenset(("mindnlp.engine.TrainingArguments", "mindnlp.engine.train_args.TrainingArguments",
                                        "mindnlp.engine.train_args.base.TrainingArguments",
                                        "mindnlp.engine.Seq2SeqTrainingArguments",
                                        "mindnlp.engine.train_args.seq2seq.Seq2SeqTrainingArguments"))
#: ``TrainingArguments`` flags that ask for half-precision training.
HALF_PRECISION_FLAGS = ("fp16", "bf16")
#: ``TrainingArguments.set_training/set_optimizer/...`` return the arguments themselves.
TRAINING_ARGUMENTS_SETTER_PREFIX = "set_"
#: ``set_context(device_target=...)`` and ``set_device(target)`` (2.3+).
SET_DEVICE = "mindspore.set_device"
DEVICE_TARGET = "device_target"
ASCEND = "Ascend"
DEVICE_TARGETS = frozenset(("Ascend", "GPU", "CPU"))
#: Keys and words that name a device target in configs, launch scripts and file names.
DEVICE_KEYS = frozenset(("device_target", "device", "target", "platform"))
NON_ASCEND_WORDS = frozenset(("gpu", "cpu", "cuda"))
#: ``mindspore.communication.init(backend_name=None)``: each backend is one hardware platform (2.10's docstring:
#: "hccl" for Ascend, "nccl" for GPU, "mccl" for CPU), so a program that always initialises one runs there.
COMMUNICATION_INIT = "mindspore.communication.init"
COMMUNICATION_BACKEND = Param("backend_name", 0)
BACKEND_DEVICES: Dict[str, str] = {"hccl": "Ascend", "nccl": "GPU", "mccl": "CPU"}

# --- checkpoints (MSP103, MSP104) ----------------------------------------------------------

CHECKPOINT_CONFIG = "mindspore.train.CheckpointConfig"
MODEL_CHECKPOINT = "mindspore.train.ModelCheckpoint"
SAVE_CHECKPOINT = "mindspore.save_checkpoint"
ASYNC_SAVE: Dict[str, Param] = {
    CHECKPOINT_CONFIG: Param("async_save", 5),
    SAVE_CHECKPOINT: Param("async_save", 3),
}
#: ``CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5, ...)``.
SAVE_STEPS = Param("save_checkpoint_steps", 0)
SAVE_SECONDS = Param("save_checkpoint_seconds", 1)
MODEL_CHECKPOINT_CONFIG = Param("config", 2)
#: Values of ``async_save`` that save asynchronously (2.10 accepts False, True, "thread", "process").
ASYNC_VALUES = (True, "thread", "process")
#: Callback methods that run every step or every epoch.
PER_STEP_CALLBACKS = frozenset(
    ("step_end", "epoch_end", "on_train_step_end", "on_train_epoch_end", "on_train_step_begin", "on_train_epoch_begin")
)
#: MindSpore's Callback base; its other spellings (``mindspore.train.callback.Callback``, the defining module
#: ``mindspore.train.callback._callback``) are aliases in :data:`_PREFIX_ALIASES`.
CALLBACK_BASES = frozenset(("mindspore.train.Callback",))
#: Methods the framework calls on an object it is handed (a Cell's ``construct``, a Callback's hooks, a
#: dataset source's ``__getitem__``): building the object reaches them; any other method runs only when called.
FRAMEWORK_METHODS = frozenset(
    ("__init__", "construct", "__call__", "bprop", "__getitem__", "__len__", "__iter__", "__next__",
     "begin", "end", "step_begin", "step_end", "epoch_begin", "epoch_end", "on_train_begin", "on_train_end",
     "on_train_step_begin", "on_train_step_end", "on_train_epoch_begin", "on_train_epoch_end",
     "on_eval_begin", "on_eval_end", "on_eval_step_begin", "on_eval_step_end", "on_eval_epoch_begin",
     "on_eval_epoch_end")
)
#: mindformers' checkpoint callback in YAML ``callbacks``; 265 real configs spell it ``CheckpointMointor``.
CHECKPOINT_MONITORS = frozenset(("CheckpointMonitor", "CheckpointMointor"))
#: Its ``save_checkpoint_steps`` default (mindformers' CheckpointMonitor docstring: "Default: 1").
MINDFORMERS_MONITOR_DEFAULT_STEPS = 1
#: YAML ``run_mode`` values that do not train.
NON_TRAINING_RUN_MODES = frozenset(("predict", "eval", "evaluate", "infer", "export"))
#: Calls that load weights, by their last name (MindSpore's, mindcv's and mindformers' loaders).
WEIGHT_LOADERS = frozenset(
    (
        "load_checkpoint", "load_checkpoint_async", "load_distributed_checkpoint", "load_segmented_checkpoints",
        "load_param_into_net", "load_pretrained", "load_model_checkpoint", "load_ckpt", "load_weights",
        "from_pretrained",
    )
)
#: Where the weight loaders that read a file take its path (by last name); an empty path loads nothing.
#: Loaders that fill a network only when given one (``load_checkpoint(path)`` alone returns a dict: an export
#: script reading trained checkpoints loads nothing into the network it trains).
LOADER_NETWORKS: Dict[str, Param] = {"load_checkpoint": Param("net", 1), "load_checkpoint_async": Param("net", 1)}
LOADER_PATHS: Dict[str, Param] = {
    "load_checkpoint": Param("ckpt_file_name", 0), "load_checkpoint_async": Param("ckpt_file_name", 0),
    "load_model_checkpoint": Param("checkpoint_path", 1),
}
#: Calls that read, copy, list or upload a file (last names): a save followed by one must finish first.
FILE_READERS = frozenset(
    ("copy", "copyfile", "copy2", "copytree", "move", "listdir", "scandir", "glob", "upload", "copy_parallel",
     "load_checkpoint", "load_param_into_net", "open", "getsize", "exists", "walk", "make_archive", "put_object",
     "upload_file", "file_copy")
)

# --- ResNet-50 (MSP104) ---------------------------------------------------------------------

RESNET50_NAMES = frozenset(("resnet50", "ResNet50", "resnet_50"))
IMAGENET_CLASSES = 1000
IMAGENET_WITH_BACKGROUND = 1001
CLASS_COUNT_KEYWORDS = ("num_classes", "class_num", "n_classes", "classes")
MINDCV_CREATE_MODEL = "mindcv.create_model"
MINDCV_RESNET50 = "mindcv.models.resnet50"
#: ``mindcv.create_model(model_name, num_classes=1000, pretrained=False, in_channels=3, checkpoint_path="")`` and
#: ``mindcv.models.resnet50(pretrained=False, num_classes=1000, in_channels=3)`` (mindcv 0.3).
MINDCV_SIGNATURES: Dict[str, Dict[str, Param]] = {
    MINDCV_CREATE_MODEL: {"model": Param("model_name", 0), "classes": Param("num_classes", 1),
                          "pretrained": Param("pretrained", 2), "checkpoint": Param("checkpoint_path", 4)},
    MINDCV_RESNET50: {"classes": Param("num_classes", 1), "pretrained": Param("pretrained", 0)},
}
#: Keys whose value names the network in configs (``model: resnet50``, ``backbone: {type: ResNet50}``).
MODEL_KEYS = frozenset(("model", "model_name", "arch", "network", "net", "net_name", "backbone", "type", "name"))
#: Keys (and mapping names) that name a network used as a feature extractor of a larger one, not trained with its head.
BACKBONE_KEYS = frozenset(("backbone",))
#: Config keys that *load* weights (a 1000-class checkpoint must still load); save keys do not count.
LOAD_KEYS = frozenset(
    ("pretrained", "pretrained_ckpt", "pretrain_ckpt", "pre_trained", "ckpt_path", "checkpoint_path",
     "checkpoint_file_path", "resume", "resume_ckpt", "load_checkpoint", "load_ckpt", "pretrained_model",
     "ckpt_file", "checkpoint_file", "resume_training", "load_path", "pre_trained_path")
)
#: Words in a config key that make it name a file or a folder (``fp32_ckpt``, ``float32_model_path``): what it
#: says is which weights are read, not a setting of the run.
FILE_KEY_WORDS = ("ckpt", "checkpoint", "path", "file", "dir", "url")
#: Keywords of a builder that drop or replace the classification head (a feature extractor).
HEADLESS_KEYWORDS = frozenset(("features_only", "include_top", "with_head", "return_features"))
#: Of those, the ones that keep the head when true (``include_top=False`` drops it; ``features_only=True`` does).
HEAD_KEEPING_KEYWORDS = frozenset(("include_top", "with_head"))

# --- profiling and AutoTune (MSP105) -------------------------------------------------------

SET_ENABLE_AUTOTUNE = "mindspore.dataset.config.set_enable_autotune"
PROFILER = "mindspore.profiler.Profiler"
PROFILE = "mindspore.profiler.profile"
PROFILER_OPTIONS_VARIABLE = "MS_PROFILER_OPTIONS"
#: ``data_process`` defaults: None where it changed across releases (True before ~2.3, False since).
DATA_PROCESS_DEFAULT: Dict[str, Optional[bool]] = {PROFILER: None, PROFILE: False}
DATA_PROCESS: Dict[str, Param] = {PROFILER: Param("data_process"), PROFILE: Param("data_process", 3)}
ENABLE_PROFILING = "enable_profiling"
#: The profiler classes: ``Profiler(**kwargs)`` and ``profile(activities, with_stack, profile_memory, data_process,
#: parallel_strategy, start_profile=True, ..., schedule=None, on_trace_ready=None, ...)`` (2.10).
PROFILER_CLASSES = frozenset((PROFILER, PROFILE))
#: ``start_profile`` (default True: collection starts when the profiler is built) and ``schedule`` (default None:
#: every step is collected), 2.10.
PROFILER_START: Dict[str, Param] = {PROFILER: Param("start_profile"), PROFILE: Param("start_profile", 5)}
PROFILER_SCHEDULE = "schedule"
#: Profiler methods that end collection.
PROFILER_STOP_METHODS = frozenset(("stop",))

# --- profiling and monitoring left on (MSP501, MSP502) ------------------------------------------

SUMMARY_COLLECTOR = "mindspore.train.SummaryCollector"
#: mindformers' wrapper, a callback in YAML ``callbacks`` (``type: SummaryMonitor``) or built in Python; it returns
#: a SummaryCollector with the same frequencies.
SUMMARY_MONITOR = "SummaryMonitor"
#: Where each collector takes its frequencies: ``SummaryCollector(summary_dir, collect_freq=10, num_process=32,
#: collect_specified_data=None, keep_default_action=True, custom_lineage_data=None, collect_tensor_freq=None, ...)``
#: (2.10; ``num_process`` is new in 2.x, so ``collect_tensor_freq`` is read by keyword only) and mindformers'
#: ``SummaryMonitor(summary_dir=None, collect_freq=10, collect_specified_data=None, ...)``.
SUMMARY_FREQUENCY = Param("collect_freq", 1)
SUMMARY_TENSOR_FREQUENCY = Param("collect_tensor_freq")
SUMMARY_SPECIFIED_DATA: Dict[str, Param] = {SUMMARY_COLLECTOR: Param("collect_specified_data", 3),
                                            SUMMARY_MONITOR: Param("collect_specified_data", 2)}
#: ``collect_freq``'s default (2.10, and mindformers' SummaryMonitor): data is collected every 10 steps.
SUMMARY_DEFAULT_FREQUENCY = 10
#: ``collect_specified_data`` key whose regular expression picks the parameters whose histograms are collected.
HISTOGRAM_REGULAR = "histogram_regular"
#: Parameter names of real networks: a ``histogram_regular`` that matches them all collects every parameter.
PARAMETER_NAME_SAMPLES = ("conv1.weight", "fc.bias", "layer4.2.bn3.gamma", "backbone.blocks.0.attn.qkv.weight",
                          "model.layers.31.feed_forward.w1.weight", "moments.embedding_table")
#: mindformers' YAML profiling switches (top level of a config): ``profile`` turns the ProfileMonitor callback on;
#: it collects steps ``profile_start_step``..``profile_stop_step`` (defaults 1 and 10) unless ``init_start_profile``
#: starts it when the profiler is built; ``profile_memory`` (default True) and ``profile_communication`` (default
#: False) add memory and communication data. mindformers turns ``auto_tune`` off when profiling.
MINDFORMERS_PROFILE = "profile"
MINDFORMERS_PROFILE_OPTIONS = ("profile_memory", "profile_communication", "init_start_profile")
MINDFORMERS_PROFILE_STEPS = ("profile_start_step", "profile_stop_step")
MINDFORMERS_PROFILE_DEFAULT_STEPS = (1, 10)
#: Top-level keys that make a YAML file a mindformers config.
MINDFORMERS_CONFIG_KEYS = frozenset(("runner_config", "trainer", "run_mode", "model", "callbacks"))
#: Words in a file's name or folder that say it exists to profile (``profile_llama.yaml``, ``tools/profiling/``).
PROFILING_WORDS = ("prof",)

# --- host reads of device values (MSP401) ---------------------------------------------------

#: Tensor methods that copy a tensor to the host, waiting for the device to compute it (``numpy`` is an alias of
#: ``asnumpy`` in 2.x).
HOST_READ_METHODS = frozenset(("asnumpy", "numpy", "item", "tolist"))
#: Of those, the methods only a MindSpore tensor has: whatever its receiver, the call copies device memory to the
#: host (``param.asnumpy()``; ``.item()`` and ``.tolist()`` are NumPy's too).
DEVICE_READ_METHODS = frozenset(("asnumpy",))
#: Builtins that read a tensor's value on the host: ``float(t)``, ``int(t)``, and ``print`` (printing formats it).
HOST_READ_CONVERSIONS = frozenset(("float", "int"))
HOST_READ_PRINT = "print"
#: Logging calls (a logger's methods, the ``logging`` module's functions) format their arguments when the record is
#: emitted -- at INFO and above in a training script's usual configuration -- which reads a tensor on the host.
#: ``debug`` is left out: it is usually filtered before anything is formatted.
HOST_READ_LOGGING_METHODS = frozenset(("info", "warning", "error"))
HOST_READ_LOGGING_FUNCTIONS = frozenset(("logging.info", "logging.warning", "logging.error"))
#: Methods that turn every value they are handed into text or a Python number on the host: tqdm's ``set_postfix``
#: (``str()`` of any value that is not a number or a string), ``set_description``, ``set_postfix_str``, and a
#: tensorboard writer's ``add_scalar(tag, value, step)`` (tensorboardX, torch, VisualDL convert ``value`` to a float).
HOST_READ_FORMATTING_METHODS = frozenset(("set_postfix", "set_description", "set_postfix_str", "add_scalar"))
#: The callee of the call the analysis records for an ``if`` whose test is a call's result (``if all_finite(grads):``):
#: Python asks a Tensor for its truth, which reads it on the host (``Tensor.__bool__``), unless ``jit`` or a graph-mode
#: Cell compiles the ``if``. A keyword: never the name of a real callee.
TRUTH_TEST = "if"
#: ``run_context.original_args().net_outputs``: what the training step returned, in a Callback's hooks.
CALLBACK_NET_OUTPUTS = "net_outputs"
#: Callback hooks that ``Model.train`` runs after every step without data sinking (once per sink with it).
PER_STEP_HOOKS = frozenset(("step_begin", "step_end", "on_train_step_begin", "on_train_step_end"))
#: Words in an equality guard that say it compares the process's rank (``if rank == 0:``), not a step counter: the
#: read still runs every step there.
RANK_WORDS = ("rank", "device_id", "local", "main", "master")

# --- data pipeline (MSP301) -----------------------------------------------------------------

GENERATOR_DATASET = "mindspore.dataset.GeneratorDataset"
#: Where MindSpore's dataset sources live (``mindspore.dataset.MindDataset``, ``...ImageFolderDataset``).
DATASET_PACKAGE = "mindspore.dataset."
#: ``GeneratorDataset(source, column_names=None, column_types=None, schema=None, num_samples=None,
#: num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None, python_multiprocessing=True,
#: max_rowsize=None, batch_sampler=None, collate_fn=None)`` (2.10).
GENERATOR_SOURCE = Param("source", 0)
GENERATOR_WORKERS = Param("num_parallel_workers", 5)
#: GeneratorDataset's own default: ``ds.config.set_num_parallel_workers`` does not change it (measured on 2.10),
#: unlike the other datasets' and ``map``'s, which read the global setting.
GENERATOR_DEFAULT_WORKERS = 1
SET_NUM_PARALLEL_WORKERS = "mindspore.dataset.config.set_num_parallel_workers"
#: The global setting, capped at the host's cores (2.10 returns min(8, cores) until it is set); always a valid
#: ``num_parallel_workers`` (GeneratorDataset raises ValueError above the host's core count).
GET_NUM_PARALLEL_WORKERS = "mindspore.dataset.config.get_num_parallel_workers"
#: The method MindSpore's workers call: only a source with it runs on more than one worker (a generator function
#: or an iterable is read by one worker whatever ``num_parallel_workers`` says; 2.10 ``prepare_multiprocessing``).
RANDOM_ACCESS_METHOD = "__getitem__"
#: Calls that read a sample from storage or decode it: per-sample work that extra workers overlap. Exact names.
SAMPLE_READERS = frozenset(
    (
        "open", "io.open", "codecs.open", "PIL.Image.open", "cv2.imread", "cv2.imdecode", "cv2.imreadmulti",
        "cv2.VideoCapture", "imageio.imread", "imageio.mimread", "imageio.v2.imread", "imageio.v3.imread",
        "imageio.get_reader", "skimage.io.imread", "numpy.load", "numpy.fromfile", "numpy.loadtxt",
        "numpy.genfromtxt", "scipy.io.loadmat", "scipy.io.wavfile.read", "h5py.File", "librosa.load",
        "soundfile.read", "wave.open", "nibabel.load", "SimpleITK.ReadImage", "pydicom.dcmread", "pydicom.read_file",
        "tifffile.imread", "pickle.load", "json.load", "pandas.read_csv", "mindspore.dataset.vision.read_image",
        "mindspore.dataset.vision.read_file", "mindspore.dataset.vision.read_video", "mindspore.dataset.vision.decode",
        "mindspore.dataset.vision.Decode",
    )
)
#: Readers and decoders of ``mindspore.dataset.vision``, whatever module spells them (``c_transforms.Decode``).
VISION_READERS = frozenset(("Decode", "decode", "read_image", "read_file", "read_video"))


#: A function of any I/O library whose name says it reads or decodes (``soundfile.read``, ``kaldiio.load_mat``,
#: ``imageio.v3.imread``, ``pandas.read_parquet``, ``av.open``): readers are too many to list, their verbs are few.
#: ``loads``/``decodes`` of in-memory bytes do not match.
_READ_VERB = re.compile(r"^(?:im)?(?:read|load|open|decode)(?:_\w+)?$|_(?:read|load|open|decode)$")


def is_sample_reader(qualified: str) -> bool:
    """Does a call of ``qualified`` (a function of a package outside the project) read or decode a sample?"""
    if qualified in SAMPLE_READERS:
        return True
    head, _, rest = qualified.partition(".")
    if head in MINDSPORE_PACKAGES:
        return qualified.startswith("mindspore.dataset.vision.") and qualified.rsplit(".", 1)[-1] in VISION_READERS
    return bool(rest) and bool(_READ_VERB.match(qualified.rsplit(".", 1)[-1]))


def is_random_draw(qualified: str) -> bool:
    """Does a call of ``qualified`` draw from numpy's or Python's global random stream?"""
    return qualified.startswith(("numpy.random.", "random.")) and qualified not in RANDOM_STREAM_SETUP


#: Calls on the random modules that draw nothing (seeding, building a generator of one's own).
RANDOM_STREAM_SETUP = frozenset(("numpy.random.seed", "random.seed", "numpy.random.RandomState",
                                 "numpy.random.default_rng", "numpy.random.Generator", "random.Random"))
#: Dataset methods that return a new dataset over the one they are called on (the pipeline goes on).
DATASET_METHODS = frozenset(
    ("batch", "map", "shuffle", "repeat", "project", "rename", "take", "skip", "filter", "apply", "padded_batch",
     "bucket_batch_by_length", "sync_wait", "device_que")
)
#: Methods that iterate a dataset (a loop over one consumes the dataset).
DATASET_ITERATORS = frozenset(("create_tuple_iterator", "create_dict_iterator"))
#: Where a training call takes its dataset: ``Model.train(epoch, train_dataset, ...)``, ``Model.fit`` likewise,
#: mindformers ``Trainer(..., train_dataset=...)`` and ``Trainer.train/finetune(train_dataset=...)``,
#: ``mindspore.data_sink(fn, dataset, ...)``.
TRAIN_DATASET = Param("train_dataset", 1)
TRAINER_DATASET = Param("train_dataset")
DATA_SINK = "mindspore.data_sink"
DATA_SINK_DATASET = Param("dataset", 1)
#: Calls that hand their first argument's items on unchanged (``enumerate(dataset.create_tuple_iterator())``).
ITERATION_WRAPPERS = frozenset(("enumerate", "zip", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm"))

# --- float64 data (MSP106) ---------------------------------------------------------------------

TENSOR = "mindspore.Tensor"
PARAMETER = "mindspore.Parameter"
#: ``Tensor(input_data=None, dtype=None, ...)``; a Python float or list becomes float32, a numpy array keeps its
#: dtype (2.10).
TENSOR_DATA = Param("input_data", 0)
TENSOR_DTYPE = Param("dtype", 1)
PARAMETER_DATA = Param("default_input", 0)


@dataclass(frozen=True)
class NumpyBuilder:
    """A numpy call that makes float64 data unless told otherwise.

    ``dtype``: where it takes a dtype (None: it has none, the result is always float64). ``floats``: the result is
    float64 only when one of these arguments is a float (``np.full((2,), 3)`` is int64, ``np.arange(3)`` too).
    """

    dtype: Optional[Param] = None
    floats: Tuple[Param, ...] = ()


#: numpy calls whose default dtype is float64 (numpy's default), keyed by qualified name.
NUMPY_FLOAT64: Dict[str, NumpyBuilder] = {
    "numpy.random.randn": NumpyBuilder(), "numpy.random.rand": NumpyBuilder(),
    "numpy.random.random": NumpyBuilder(), "numpy.random.random_sample": NumpyBuilder(),
    "numpy.random.sample": NumpyBuilder(), "numpy.random.uniform": NumpyBuilder(),
    "numpy.random.normal": NumpyBuilder(), "numpy.random.standard_normal": NumpyBuilder(),
    "numpy.random.beta": NumpyBuilder(), "numpy.random.gamma": NumpyBuilder(),
    "numpy.random.exponential": NumpyBuilder(), "numpy.random.laplace": NumpyBuilder(),
    "numpy.ones": NumpyBuilder(Param("dtype", 1)), "numpy.zeros": NumpyBuilder(Param("dtype", 1)),
    "numpy.empty": NumpyBuilder(Param("dtype", 1)), "numpy.identity": NumpyBuilder(Param("dtype", 1)),
    "numpy.eye": NumpyBuilder(Param("dtype", 3)), "numpy.linspace": NumpyBuilder(Param("dtype", 5)),
    "numpy.full": NumpyBuilder(Param("dtype", 2), (Param("fill_value", 1),)),
    "numpy.array": NumpyBuilder(Param("dtype", 1), (Param("object", 0),)),
    "numpy.asarray": NumpyBuilder(Param("dtype", 1), (Param("a", 0),)),
    "numpy.arange": NumpyBuilder(Param("dtype", 3), (Param("start", 0), Param("stop", 1), Param("step", 2))),
}
#: numpy calls that name their dtype (``np.float32(x)`` is a float32 array).
NUMPY_DTYPE_CALLS: Dict[str, str] = {"numpy.float32": FLOAT32, "numpy.float16": FLOAT16, "numpy.float64": FLOAT64}
#: Reading these of a tensor uses its shape, not its values or dtype (``self.mask.shape``). ``dtype`` is not one:
#: ``x.astype(self.t.dtype)`` carries float64 on.
SHAPE_ATTRIBUTES = frozenset(("shape", "ndim", "size"))
#: Calls that read only the shape of their argument (``len(t)``, ``ops.shape(t)``, ``x.expand_as(t)``), by
#: qualified name or method name.
SHAPE_FUNCTIONS = frozenset(("len", "mindspore.ops.shape", "mindspore.ops.rank", "mindspore.ops.size",
                             "mindspore.ops.Shape", "mindspore.ops.Rank"))
SHAPE_METHODS = frozenset(("expand_as", "view_as", "reshape_as"))

# --- configuration sources -----------------------------------------------------------------

#: Calls that parse command-line arguments or read config files: what they return is a config object.
CONFIG_READERS = frozenset(
    ("parse_args", "parse_known_args", "safe_load", "load", "full_load", "get_config", "parse_cli_to_yaml",
     "MindFormerConfig", "Config", "EasyDict", "edict", "get_args", "parse_config")
)
#: Environment variables the linter reads values from.
ENVIRONMENT = frozenset(("os.environ", "os.putenv", "os.environ.setdefault"))

# --- what a call site is recorded for ---------------------------------------------------------

#: Methods that give a network's parameters to an optimizer or a gradient function; ``parameters()`` is the
#: torch-style spelling of mindnlp's modules; ``parameters_and_names()`` and torch-style ``named_parameters()``
#: yield (name, parameter) pairs that weight-decay groups filter by name.
PARAMETER_METHODS = frozenset(("trainable_params", "get_parameters", "parameters_dict", "parameters",
                               "parameters_and_names", "named_parameters"))

#: Pure ``str`` methods the value model computes when their receiver and arguments are known: a flag normalised
#: before it is compared (``args.mode.upper().startswith("GRAPH")``, ``args.device_target.lower() == "ascend"``).
STRING_METHODS = frozenset(
    ("upper", "lower", "casefold", "strip", "lstrip", "rstrip", "title", "capitalize", "startswith", "endswith")
)
#: Method names worth recording on any receiver (the receiver's type is decided later).
INTERESTING_METHODS = frozenset(
    (
        *MODEL_TRAIN_METHODS, *MODEL_EVAL_METHODS, *MINDNLP_TRAIN_METHODS, "finetune", TO_FLOAT, ADD_FLAGS_RECURSIVE,
        TENSOR_MATMUL_METHOD,
        *TENSOR_CAST_METHODS, *TENSOR_DTYPE_METHODS, "add_argument", "set_defaults", "setdefault", "putenv", "get",
        "construct", "start", "stop", "analyse", "asnumpy", "numpy", "item", "tolist", "batch", "map",
        "info", "warning", "error", *HOST_READ_FORMATTING_METHODS,
        "create_dict_iterator", "create_tuple_iterator", "append", "extend", "insert", "update",
        *PARAMETER_METHODS, "set_train", DATASET_SIZE_METHOD,
        *FILE_READERS, *WEIGHT_LOADERS, *DATASET_METHODS, *STRING_METHODS,
    )
)
#: Pure numeric functions the value model computes when their arguments are known: sizes written as
#: ``int(math.log(upscale_factor, 2))`` or ``max(16, channels // 4)`` are sizes like any literal.
NUMERIC_FUNCTIONS = frozenset(
    ("int", "float", "round", "abs", "min", "max",
     "math.log", "math.log2", "math.log10", "math.ceil", "math.floor", "math.sqrt", "math.pow")
)
#: Builtins and standard-library calls worth recording.
INTERESTING_GLOBALS = frozenset(
    ("print", "range", "enumerate", "open", "zip", "setattr", "getattr",
     *(name for name in NUMERIC_FUNCTIONS if "." not in name))
)

# --- execution mode, jit and graph dumps (MSP201, MSP202, MSP203) ---------------------------------------

#: ``set_context(mode=...)``: ``GRAPH_MODE`` is 0, ``PYNATIVE_MODE`` 1 (2.10). mindformers' YAML ``context: mode:``
#: takes the same numbers.
MODE = "mode"
GRAPH_MODE = "mindspore.GRAPH_MODE"
PYNATIVE_MODE = "mindspore.PYNATIVE_MODE"
GRAPH_MODE_VALUE = 0
PYNATIVE_MODE_VALUE = 1
#: With ``mode`` never set, MindSpore runs PyNative since 2.0.0-alpha (the 2.0.0-alpha and 2.0.0 release notes:
#: "the default mode is switched to PyNative"; 1.x defaulted to GRAPH_MODE). ``get_context("mode")`` is 1 on 2.10.
PYNATIVE_DEFAULT_SINCE = "2.0.0a0"
#: The release a program is taken to run on when its project declares none (no ``mindspore-version`` setting, no
#: requirement) and it uses no API that release no longer has: the release these facts were measured on. Programs on
#: today's Ascend hardware run 2.x; a script written for 1.x that sets no mode runs PyNative there.
CURRENT_RELEASE = "2.10.0"
#: APIs the 2.10 wheel no longer has (each import fails on 2.10): a program that uses one runs on an older release.
#: The value is the release that removed it where the release notes say so ("2.0.0": ``mindspore.nn.transformer``
#: moved to MindFormers in 2.0.0), else "" (the older release is unknown: 2.x releases still warned about
#: ``c_transforms``).
REMOVED_APIS: Dict[str, str] = {
    "mindspore.nn.transformer": "2.0.0",
    "mindspore.dataset.vision.py_transforms": "", "mindspore.dataset.vision.c_transforms": "",
    "mindspore.dataset.transforms.py_transforms": "", "mindspore.dataset.transforms.c_transforms": "",
    "mindspore.ms_function": "",
}
#: What compiles a function in PyNative mode: ``mindspore.jit`` (2.x) and its 1.x name ``ms_function``.
JIT_DECORATORS = frozenset(("mindspore.jit", "mindspore.ms_function"))
#: ``mindspore.data_sink(fn, dataset, sink_size=1, ...)`` (2.x): a function that runs ``fn`` on ``sink_size`` batches
#: of a device-side queue per call; with one batch a call (the default) it is one step of ``fn``.
DATA_SINK = "mindspore.data_sink"
DATA_SINK_SIZE = Param("sink_size", 2)
#: Comments that mention these are recorded with their line (``# ms.set_context(mode=ms.GRAPH_MODE)``).
#: ``fp32``/``float32`` in a comment may say a network needs float32 (MSP107: a GAN's ``# D must stay fp32``).
COMMENT_MARKERS: Tuple[str, ...] = ("GRAPH_MODE", "fp32", "FP32", "float32")

#: ``set_context(save_graphs=True | 1..3)`` writes the IR of every compiled graph (True is level 2; 2.10 warns that
#: the parameter is deprecated in favour of ``MS_DEV_SAVE_GRAPHS``); ``save_graphs_path`` alone writes nothing.
SAVE_GRAPHS = "save_graphs"
SAVE_GRAPHS_VARIABLE = "MS_DEV_SAVE_GRAPHS"
SAVE_GRAPHS_LEVELS = (1, 2, 3)

#: ``Dataset.batch(batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs)`` (2.10).
BATCH = "batch"
BATCH_SIZE = Param("batch_size", 0)
DROP_REMAINDER = Param("drop_remainder", 1)
