"""MSP104 resnet50-1000-classes: ResNet-50 built with 1000 classes instead of Ascend's 1001.

The rule is split in two questions so that a project-level value resolver can
replace the second one:

1. *Where does this call take its class count from?* -- :func:`resnet50_builder`
   decides whether a call builds a ResNet-50 and with which :class:`Signature`, and
   :func:`class_count_site` picks the argument (or the library default) that
   carries the class count. Neither looks at values beyond what identifies the
   builder.
2. *What is that value?* -- :meth:`Resnet50ThousandClasses.class_count_value`,
   which asks the file context today.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from ms_perflint.callargs import argument, callee_name, has_double_star, has_star_args
from ms_perflint.edits import append_keyword
from ms_perflint.rule import FixAvailability, FixSafety, Fix, Invalid, Rule, RuleDocs, Valid
from ms_perflint.values import UNKNOWN
from ms_perflint.walker import walk

RESNET50_NAMES = frozenset(("resnet50", "ResNet50"))
IMAGENET_CLASSES = 1000
IMAGENET_WITH_BACKGROUND = 1001
#: Parameter names that carry a class count in model-zoo and mindcv builders.
CLASS_COUNT_KEYWORDS = ("num_classes", "class_num")
MINDCV_CREATE_MODEL = frozenset(
    ("mindcv.create_model", "mindcv.models.create_model", "mindcv.models.model_factory.create_model")
)
#: Top-level packages of other frameworks: their ResNet-50 builders are not MindSpore's business.
FOREIGN_PACKAGES = frozenset(
    (
        "torch", "torchvision", "timm", "tensorflow", "keras", "tf_keras", "paddle", "paddleclas",
        "jax", "flax", "haiku", "mxnet", "gluoncv", "oneflow", "flowvision", "jittor", "megengine",
        "mmcls", "mmpretrain", "mmcv", "tensorlayerx", "transformers", "onnx", "onnxruntime",
    )
)
#: Calls that load weights (MindSpore's and mindcv's loaders, whatever module they are reached through).
CHECKPOINT_LOADERS = frozenset(
    (
        "load_checkpoint", "load_checkpoint_async", "load_distributed_checkpoint", "load_segmented_checkpoints",
        "load_param_into_net", "load_pretrained", "load_model_checkpoint",
    )
)
CONVENTION = (
    "MindSpore's ResNet-50 on Ascend follows TensorFlow's 1001-class ImageNet convention "
    "(class 0 is background) and its kernels are tuned for it; use 1001"
)

Builder = Union[cst.FunctionDef, cst.ClassDef]


@dataclass(frozen=True)
class Signature:
    """How a ResNet-50 builder receives its class count and pretrained weights."""

    #: Keywords that name the class count.
    class_count_keywords: Tuple[str, ...]
    #: 0-based position of the class count when passed positionally (None: keyword only).
    class_count_position: Optional[int]
    #: The builder's own default, used when the call omits the class count (None: don't know / not ours).
    default_class_count: Optional[int] = None
    #: An unknown signature: a positional class count counts only as an int literal.
    positional_must_be_literal: bool = False
    pretrained_position: Optional[int] = None
    checkpoint_position: Optional[int] = None


#: ``mindcv.models.resnet50(pretrained=False, num_classes=1000, in_channels=3, **kwargs)`` (mindcv 0.3).
MINDCV_RESNET50 = Signature(("num_classes",), 1, IMAGENET_CLASSES, pretrained_position=0)
#: ``mindcv.create_model(model_name, num_classes=1000, pretrained=False, in_channels=3, checkpoint_path="", ...)``.
MINDCV_CREATE_MODEL_SIGNATURE = Signature(
    ("num_classes",), 1, IMAGENET_CLASSES, pretrained_position=2, checkpoint_position=4
)
#: An imported builder whose signature the linter cannot see.
UNKNOWN_SIGNATURE = Signature(CLASS_COUNT_KEYWORDS, 0, positional_must_be_literal=True)


@dataclass(frozen=True)
class LocalBuilder:
    """A ``def resnet50`` / ``class ResNet50`` at the top level of the linted file."""

    node: Builder
    signature: Signature
    #: The default of its class-count parameter, if it has one.
    default: Optional[cst.BaseExpression]
    #: The default of its ``pretrained`` parameter, if it has one.
    pretrained_default: Optional[cst.BaseExpression]


@dataclass(frozen=True)
class BuilderMatch:
    """A call that builds a ResNet-50: which builder (for messages), its signature, and its
    definition when it is the file's own."""

    label: str
    signature: Signature
    local: Optional[LocalBuilder] = None


@dataclass(frozen=True)
class ClassCountSite:
    """Where a ResNet-50 builder call takes its class count from; the value is asked separately."""

    call: cst.Call
    builder: BuilderMatch
    #: The argument passed for the class count, or None when the call leaves it to the default.
    expression: Optional[cst.BaseExpression]


def local_builders(module: cst.Module) -> Dict[str, LocalBuilder]:
    """ResNet-50 builders defined at the top level of ``module``, by name."""
    found: Dict[str, LocalBuilder] = {}
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)) and statement.name.value in RESNET50_NAMES:
            builder = _local_builder(statement)
            if builder is not None:
                found[statement.name.value] = builder
    return found


def _local_builder(node: Builder) -> Optional[LocalBuilder]:
    params = _builder_params(node)
    if params is None:
        return None
    positional, keyword_only = params
    everything = positional + keyword_only
    count = next((p for p in everything if p.name.value in CLASS_COUNT_KEYWORDS), None)
    pretrained = next((p for p in everything if p.name.value == "pretrained"), None)
    if count is None:
        return None
    signature = Signature(
        (count.name.value,),
        positional.index(count) if count in positional else None,
        pretrained_position=positional.index(pretrained) if pretrained in positional else None,
    )
    return LocalBuilder(node, signature, count.default, pretrained.default if pretrained else None)


def _builder_params(node: Builder) -> Optional[Tuple[List[cst.Param], List[cst.Param]]]:
    """(positional, keyword-only) parameters as a caller sees them: a class's ``__init__`` without ``self``."""
    if isinstance(node, cst.FunctionDef):
        params = node.params
        return [*params.posonly_params, *params.params], list(params.kwonly_params)
    init = next(
        (s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None
    )
    if init is None:
        return None
    params = init.params
    return [*params.posonly_params, *params.params][1:], list(params.kwonly_params)


def resnet50_builder(call: cst.Call, context, builders: Dict[str, LocalBuilder]) -> Optional[BuilderMatch]:
    """The builder when ``call`` builds a ResNet-50, else None.

    Counts: a top-level ``def resnet50``/``class ResNet50`` of this file; an imported
    ``resnet50``/``ResNet50`` (relative, mindcv, model zoo, any package that is not another
    framework's); ``mindcv.create_model("resnet50", ...)``.
    """
    qualified = context.qualified_name(call.func)
    if qualified is None:
        name = call.func.value if isinstance(call.func, cst.Name) else ""
        local = builders.get(name)
        return BuilderMatch(name, local.signature, local) if local is not None else None
    if qualified in MINDCV_CREATE_MODEL:
        model = argument(call, "model_name", 0)
        is_resnet50 = model is not None and context.value_of(model.value) == "resnet50"
        label = 'mindcv.create_model("resnet50")'
        return BuilderMatch(label, MINDCV_CREATE_MODEL_SIGNATURE) if is_resnet50 else None
    last = qualified.rsplit(".", 1)[-1]
    top = qualified.split(".", 1)[0]
    if last not in RESNET50_NAMES or top in FOREIGN_PACKAGES:
        return None
    if top == "mindcv" and last == "resnet50":
        return BuilderMatch("mindcv resnet50", MINDCV_RESNET50)
    return BuilderMatch(last, UNKNOWN_SIGNATURE)


def class_count_site(call: cst.Call, builder: BuilderMatch) -> Optional[ClassCountSite]:
    """The argument of ``call`` that carries the class count; None when it cannot be told."""
    signature = builder.signature
    for keyword in signature.class_count_keywords:
        arg = argument(call, keyword)
        if arg is not None:
            return ClassCountSite(call, builder, arg.value)
    if signature.class_count_position is not None and not has_star_args(call):
        arg = argument(call, "", signature.class_count_position)
        if arg is not None and arg.keyword is None:
            if signature.positional_must_be_literal and not isinstance(arg.value, cst.Integer):
                return None
            return ClassCountSite(call, builder, arg.value)
    if has_star_args(call) or has_double_star(call):
        return None  # *args/**kwargs may carry it
    return ClassCountSite(call, builder, None)


class Resnet50ThousandClasses(Rule):
    """Report ResNet-50 builders called (or defined) with a class count of exactly 1000."""

    code = "MSP104"
    name = "resnet50-1000-classes"
    summary = "ResNet-50 is built with 1000 classes; Ascend's ResNet-50 is tuned for 1001"
    fix_availability = FixAvailability.SOMETIMES
    markers = ("resnet50", "ResNet50")
    docs = RuleDocs(
        what_it_does="""
            Finds ResNet-50 models built with exactly 1000 classes:

            - calls of a ResNet-50 builder -- a top-level `def resnet50`/`class ResNet50`
              of the same file (model-zoo style), an imported `resnet50`/`ResNet50`
              (`from src.resnet import resnet50`, relative imports, `mindcv.models.resnet50`),
              or `mindcv.create_model("resnet50", ...)` -- whose class count
              (`num_classes=`, `class_num=`, or the positional class-count argument) is
              known to be 1000, reported at that argument;
            - mindcv calls that leave `num_classes` out: mindcv's `resnet50` and
              `create_model` default to 1000 (reported at the call);
            - a builder of the file's own whose class-count parameter defaults to 1000
              (`def resnet50(class_num=1000)`), reported at the default.

            A builder's signature decides which positional argument is the class count:
            the file's own `def`/`__init__` signature; mindcv `resnet50(pretrained,
            num_classes, ...)` and `create_model(model_name, num_classes, pretrained, ...)`
            (position 1 in both); for an imported builder whose signature the linter
            cannot see, only the keywords, or a first positional argument that is an
            integer literal.

            Not reported: models that load 1000-class weights -- `pretrained=True` (or
            any value not known to be false, positional for mindcv), a non-empty
            `checkpoint_path=` for `create_model`, or a checkpoint loaded in the same
            function (`load_checkpoint`, `load_param_into_net`, `load_checkpoint_async`,
            mindcv's `load_pretrained`/`load_model_checkpoint`, whatever module they come
            from). A default of the file's own builder is left alone when a call in the
            file that relies on it loads weights. Builders of other frameworks
            (`torchvision.models.resnet50`, `timm`, `paddle`, `tensorflow`/`keras`, ...)
            are never reported, even in a file that also imports MindSpore; other
            imported `resnet50`s are taken to be model-zoo code.

            Across files (project mode, the default of the CLI and the flake8 plugin):
            a class count passed by keyword from a value the call's file cannot see
            (`resnet50(class_num=config.class_num)`, `args.class_num`) is followed to
            where its `1000` is written -- a dict or EasyDict config, a dataclass or
            class default, a module constant, an argparse default -- and reported
            there, naming the call; a ResNet-50 YAML config (`net_name: resnet50` or
            `model: resnet50` with `class_num`/`num_classes: 1000`, no pretrained
            weights or checkpoint) is reported at the value, with the same fix. See
            docs/project.md.
        """,
        why_bad="""
            MindSpore's ResNet-50 for Ascend inherits TensorFlow's optimisation for 1001
            classes: the ImageNet-with-background convention in which class 0 is
            "background". The Ascend kernels behind the final Dense layer and its softmax
            were tuned for that size, so a 1000-class head misses the deeper optimisation.
        """,
        example="""
            from mindcv.models import resnet50

            net = resnet50(num_classes=1000)
        """,
        use_instead="""
            from mindcv.models import resnet50

            net = resnet50(num_classes=1001)  # label i of the 1000-class data set becomes i + 1
        """,
        fix_safety="""
            The fix is *unsafe*: the network's output grows by one, so 1000-class
            checkpoints no longer load into the head and labels must be shifted by one (or
            class 0 left unused). A literal `1000` becomes `1001`; where mindcv's default is
            used, `num_classes=1001` is appended, following the call's layout. A class count
            that reaches the call through a name (`num_classes=NUM_CLASSES`) is reported
            without a fix: the name may be used elsewhere.

            MSP102 (unaligned-matmul-dim) never reports 1001, and leaves an output dim of
            1000 inside a ResNet definition (`class ResNet`, `def resnet50`, ...) to this
            rule, so the two never undo each other.
        """,
        references=(
            "https://github.com/mindspore-lab/mindcv/blob/main/mindcv/models/resnet.py",
            "https://github.com/mindspore-ai/models/tree/master/official/cv/ResNet",
        ),
    )
    valid = (
        Valid(
            """
            from mindcv.models import resnet50
            net = resnet50(num_classes=1001)
            small = resnet50(num_classes=10)
            """,
            why="already 1001, or a different data set",
        ),
        Valid(
            """
            import mindcv
            backbone = mindcv.create_model("resnet50", pretrained=True)
            tuned = mindcv.create_model("resnet50", checkpoint_path="resnet50_imagenet.ckpt")
            """,
            why="loads 1000-class ImageNet weights",
        ),
        Valid(
            """
            import mindspore as ms
            from src.resnet import resnet50
            def build(ckpt):
                net = resnet50(class_num=1000)
                ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
                return net
            """,
            why="a checkpoint is loaded into the net in the same function",
        ),
        Valid(
            """
            import mindspore
            import torchvision
            teacher = torchvision.models.resnet50(num_classes=1000)
            """,
            why="torchvision's builder, not MindSpore's",
        ),
        Valid(
            """
            from mindcv.models import resnet50, resnet101
            def build(args, **kwargs):
                return resnet50(num_classes=args.num_classes), resnet50(**kwargs), resnet101()
            """,
            why="unknown class count, **kwargs that may carry it, not a ResNet-50",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindcv.models import resnet50
            net = resnet50(num_classes=1000)
            """,
            line=2,
            column=28,
            fixed="""
            from mindcv.models import resnet50
            net = resnet50(num_classes=1001)
            """,
        ),
        Invalid(
            """
            import mindcv
            net = mindcv.create_model("resnet50")
            """,
            line=2,
            column=7,
            fixed="""
            import mindcv
            net = mindcv.create_model("resnet50", num_classes=1001)
            """,
            message_contains="defaults to num_classes=1000",
        ),
        Invalid(
            """
            import mindspore.nn as nn
            def resnet50(class_num=1000):
                return ResNet(class_num)
            """,
            line=2,
            column=24,
            fixed="""
            import mindspore.nn as nn
            def resnet50(class_num=1001):
                return ResNet(class_num)
            """,
        ),
        Invalid(
            """
            import mindspore as ms
            from src.resnet import resnet50 as resnet
            NUM_CLASSES = 1000
            net = resnet(class_num=NUM_CLASSES)
            """,
            line=4,
            column=24,
            message_contains="1001",
        ),
        Invalid(
            """
            from mindcv.models import create_model
            net = create_model(
                model_name="resnet50",
                pretrained=False,
            )
            """,
            line=2,
            column=7,
            fixed="""
            from mindcv.models import create_model
            net = create_model(
                model_name="resnet50",
                pretrained=False,
                num_classes=1001,
            )
            """,
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._builders: Dict[str, LocalBuilder] = {}
        #: Names of local builders whose default a weight-loading call in this file relies on.
        self._defaults_needed_by_weights: Set[str] = set()
        self._loader_scopes: Dict[int, bool] = {}

    # --- question 2: what is the value -------------------------------------------

    def class_count_value(self, site: ClassCountSite) -> object:
        """The class count ``site`` gives the model, or UNKNOWN.

        The project-level analysis plugs in here: today only the file's own values count.
        """
        if site.expression is None:
            default = site.builder.signature.default_class_count
            return UNKNOWN if default is None else default
        return self.context.value_of(site.expression)

    # --- visitors -------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> None:
        self._builders = local_builders(node)

    def visit_Call(self, node: cst.Call) -> None:
        builder = resnet50_builder(node, self.context, self._builders)
        site = class_count_site(node, builder) if builder is not None else None
        if site is None:
            return
        uses_own_default = site.expression is None and site.builder.local is not None
        if self._loads_weights(node, site.builder.signature):
            if uses_own_default:
                self._defaults_needed_by_weights.add(site.builder.label)
            return
        if uses_own_default:
            return  # reported once, at the builder's default
        if _is_imagenet_count(self.class_count_value(site)):
            self._report_site(site)

    def finish(self) -> None:
        self._report_project_origins()
        for name, builder in self._builders.items():
            if builder.default is None or name in self._defaults_needed_by_weights:
                continue
            if self._function_loads_weights(builder) or not self._is_false(builder.pretrained_default, absent=True):
                continue
            if _is_imagenet_count(self.context.value_of(builder.default)):
                keyword = builder.signature.class_count_keywords[0]
                self.report(
                    builder.default,
                    f"{name} builds ResNet-50 with {keyword}={IMAGENET_CLASSES} by default; {CONVENTION}",
                    _literal_fix(builder.default),
                )

    def _report_project_origins(self) -> None:
        """Project mode: a literal 1000 here that reaches a ResNet-50's class count (a config, an argparse default)."""
        project = self.context.project
        origins = project.class_count_origins() if project is not None else []
        if not origins:
            return
        from ms_perflint.project.nodes import integers_at

        literals = integers_at(self.context.module, [(origin.line, origin.column) for origin in origins])
        for origin in origins:
            node = literals.get((origin.line, origin.column))
            if node is not None and _is_imagenet_count(self.context.value_of(node)):  # the index may predate a fix
                message = f"{IMAGENET_CLASSES} here ({origin.how}) becomes the class count of {origin.describe()}; {CONVENTION}"
                self.report(node, message, _literal_fix(node))

    # --- reporting ----------------------------------------------------------------

    def _report_site(self, site: ClassCountSite) -> None:
        if site.expression is not None:
            self.report(
                site.expression,
                f"ResNet-50 is built with {IMAGENET_CLASSES} classes; {CONVENTION}",
                _literal_fix(site.expression),
            )
            return
        fix = Fix(
            site.call,
            lambda updated: append_keyword(updated, "num_classes", cst.Integer(str(IMAGENET_WITH_BACKGROUND))),
            FixSafety.UNSAFE,
            f"Pass `num_classes={IMAGENET_WITH_BACKGROUND}` (the output size and checkpoints change)",
        )
        self.report(
            site.call,
            f"{site.builder.label} defaults to num_classes={IMAGENET_CLASSES}; {CONVENTION}: "
            f"pass num_classes={IMAGENET_WITH_BACKGROUND}",
            fix,
        )

    # --- pretrained weights -------------------------------------------------------

    def _loads_weights(self, call: cst.Call, signature: Signature) -> bool:
        """The built net gets 1000-class weights: pretrained, a checkpoint path, or a loader nearby."""
        pretrained = argument(call, "pretrained", signature.pretrained_position)
        if pretrained is not None and not self._is_false(pretrained.value):
            return True
        if signature.pretrained_position is None and self._any_positional_true(call):
            return True
        checkpoint = argument(call, "checkpoint_path", signature.checkpoint_position)
        if checkpoint is not None and self.context.value_of(checkpoint.value) not in ("", None):
            return True
        scope = self.context.enclosing_function() or self.context.module
        return self._scope_loads_weights(scope)

    def _any_positional_true(self, call: cst.Call) -> bool:
        """An unknown signature may take ``pretrained`` positionally: a positional ``True`` counts."""
        return any(
            arg.keyword is None and not arg.star and self.context.value_of(arg.value) is True for arg in call.args
        )

    def _function_loads_weights(self, builder: LocalBuilder) -> bool:
        node = builder.node
        if isinstance(node, cst.ClassDef):
            node = next(s for s in node.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__")
        return self._scope_loads_weights(node)

    def _scope_loads_weights(self, scope: Union[cst.Module, cst.FunctionDef]) -> bool:
        key = id(scope)
        if key not in self._loader_scopes:
            self._loader_scopes[key] = _LoaderScan().finds_in(scope)
        return self._loader_scopes[key]

    def _is_false(self, node: Optional[cst.BaseExpression], absent: bool = False) -> bool:
        if node is None:
            return absent
        return self.context.value_of(node) in (False, None, 0)


def _is_imagenet_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == IMAGENET_CLASSES


def _literal_fix(node: cst.BaseExpression) -> Optional[Fix]:
    """``1000`` -> ``1001`` at a literal; a name or expression gets no fix (it may be used elsewhere)."""
    if not isinstance(node, cst.Integer):
        return None
    return Fix(
        node,
        lambda updated: updated.with_changes(value=str(IMAGENET_WITH_BACKGROUND)),
        FixSafety.UNSAFE,
        f"Use {IMAGENET_WITH_BACKGROUND} classes (the output size and checkpoints change)",
    )


class _LoaderScan(cst.CSTVisitor):
    """Does a function (or the module's top level) call a checkpoint loader? Nested defs are other scopes."""

    def __init__(self) -> None:
        self.found = False
        self._root: Optional[cst.CSTNode] = None

    def finds_in(self, scope: cst.CSTNode) -> bool:
        self._root = scope
        walk(scope, self)
        return self.found

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return node is self._root

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        if callee_name(node) in CHECKPOINT_LOADERS:
            self.found = True
        return not self.found
