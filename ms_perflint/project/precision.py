"""Precision in a training program: the MatMuls its network runs, and what casts them.

:func:`program_precisions` gathers, for each training call of a program, the MatMul-family
sites of the network it trains (:class:`MatmulSite`, with their sizes where
known), the AMP levels and Ascend precision knobs the program sets, and the
``to_float``/``add_flags_recursive`` casts that reach the network's layers or
cells, and says for each site what covers it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, CFG, LIT, NAME, OP, PARAM, REF, SELF, Call, Scope, Value, choices
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef
from ms_perflint.project.training import (
    NetworkUse, ParameterCount, Training, group_argument, holding_attribute, layer_groups, used_attributes,
)
from ms_perflint.project.unroll import STARRED, UNKNOWN, Execution, unroll
from ms_perflint.project.values import ARITHMETIC, ORDERINGS, Ref, Values, apply_numeric, compute, numeric_function

#: What a cast does to the layers it reaches.
LOW, FP32, UNKNOWN_DTYPE = "low", "fp32", "unknown"
#: A network whose MatMul layers hold fewer weights than this (a CNN's classifier head, a small MLP) does little
#: MatMul work: a million weights is a 1024x1024 layer, or four BERT-tiny encoder layers.
SIGNIFICANT_MATMUL_WEIGHTS = 1 << 20


@dataclass(frozen=True)
class Coverage:
    """Why a site does not run in float32 (or is kept there on purpose)."""

    mechanism: str
    deliberate_fp32: bool = False
    #: Set by ``to_float``/``add_flags_recursive`` (as opposed to a dtype argument or operand casts).
    by_cast: bool = False


@dataclass
class MatmulSite:
    """A MatMul-family layer, primitive, function call or ``@`` the network runs."""

    path: str
    call: Call
    op: str
    kind: str  # "layer", "primitive", "function", "operator"
    weights: Optional[int] = None
    dims: Tuple[Optional[int], Optional[int]] = (None, None)
    coverage: Optional[Coverage] = None
    #: An operand is cast to float32 right before it.
    operand_fp32: bool = False
    #: How many layers the site builds: a factory function (``fc(in, out)``) builds one per call.
    count: int = 1

    def describe(self) -> str:
        """``nn.Dense(2048, 1000) at src/model.py:97``."""
        short = self.op.replace("mindspore.", "")
        if self.kind == "layer" and any(d is not None for d in self.dims):
            shown = ", ".join("?" if d is None else str(d) for d in self.dims)
            short = f"{short}({shown})"
        return f"{short} at {self.path}:{self.call.line}"


@dataclass
class ProgramPrecision:
    """The precision facts of one training program and the network it trains."""

    program: Program
    use: NetworkUse
    sites: List[MatmulSite] = field(default_factory=list)
    #: AMP levels in force ("O0".."O3", "AUTO", or "?" for unknown), with where they are set.
    levels: List[Tuple[str, str]] = field(default_factory=list)
    #: A precision knob (precision_mode, hf32) that casts every MatMul, and where.
    knob: str = ""
    keeps_origin_dtype: bool = False
    #: Some layers are cast to float16 by hand (precision managed by the author).
    manual: bool = False
    #: A cast to float16 the program runs reaches something that is not known.
    unknown_casts: bool = False
    #: The whole network is kept in float32 on purpose.
    deliberate_fp32: bool = False
    #: Where a train step scales its loss (``TrainOneStepWithLossScaleCell``): built for float16 layers, perhaps.
    loss_scaled: str = ""
    #: The network is (or holds, or is built on) a pretrained transformer from a hub, described as the user wrote it
    #: (``AutoModelForSeq2SeqLM.from_pretrained``): MatMul-heavy although its layers are not in the project.
    pretrained: str = ""

    @property
    def has_mixed_precision(self) -> bool:
        return bool(self.knob) or bool(self.loss_scaled) or any(level != "O0" for level, _ in self.levels)

    @property
    def fp32_layers(self) -> bool:
        """As :attr:`all_fp32`, with a train step that scales its loss counted as float32: loss scaling casts no
        layer, so the convolutions run in float32 unless the network casts them by hand (MSP107 asks
        :func:`hand_cast`). MSP101 keeps the step's scaling as a sign of float16 MatMul layers it cannot see."""
        return not self.knob and all(level == "O0" for level, _ in self.levels) and not self.manual \
            and not self.deliberate_fp32

    @property
    def all_fp32(self) -> bool:
        """The program trains with no mixed precision at all, and not by the author's choice (no layer cast by
        hand, no deliberate float32): the program-level finding of MSP101 and MSP107."""
        return not self.has_mixed_precision and not self.manual and not self.deliberate_fp32

    def fp32_sites(self) -> List["MatmulSite"]:
        """The MatMul sites nothing casts."""
        return [site for site in self.sites if site.coverage is None]

    def significant_matmul_work(self) -> bool:
        """Enough float32 MatMul work to matter (MSP101's bound): a million weights in MatMul layers, or several
        MatMuls of sizes only known at run time (attention products, config-sized layers). One MatMul -- a CNN's
        classifier head -- is not: the network's work is elsewhere (its convolutions are MSP107's)."""
        if self.pretrained:
            return True  # a hub transformer: its Dense/MatMul layers are most of its work, whatever its size
        return _significant(self.fp32_sites())

    def small_matmul_work(self) -> bool:
        """The network's MatMul work, in any precision, is known and below MSP101's bound (a 2 M-parameter MLP):
        padding its dims buys nothing (MSP102). False when a site's size is not known or none is found."""
        return not self.pretrained and bool(self.sites) and all(site.weights is not None for site in self.sites) \
            and sum(site.weights * site.count for site in self.sites) < SIGNIFICANT_MATMUL_WEIGHTS  # type: ignore

    def covering_level(self) -> Optional[Tuple[str, str]]:
        """The AMP level that casts every MatMul, if one is set (an unknown level, and a loss-scaling step, count)."""
        found = next(((l, w) for l, w in self.levels if l in ("O2", "O3", "?")), None)
        return found or (("?", f"loss scaling at {self.loss_scaled}") if self.loss_scaled else None)

    def escape_reason(self, site: MatmulSite) -> Optional[str]:
        """Why a site stays float32 although the program uses mixed precision, or None when it does not."""
        if site.operand_fp32:
            return "an operand is cast to float32 right before it"
        if self.knob or self.covering_level() is not None:
            return None
        white = [(l, w) for l, w in self.levels if l in ms.WHITE_LIST_AMP_LEVELS]
        if white and not ms.MATMUL_OPS.get(site.op, ms.MatmulOp("function")).o1_casts:
            level, where = white[0]
            return (f'amp_level "{level}" ({where}) casts only nn.Dense, MatMul, BatchMatMul, bmm and mm '
                    f"(MindSpore 2.10)")
        return None


def _significant(sites: List[MatmulSite]) -> bool:
    """A million weights in MatMul layers, or several MatMuls of sizes only known at run time."""
    layers = sum(site.count for site in sites)
    if layers < 2:
        return False
    known = sum(site.weights * site.count for site in sites if site.weights is not None)
    unknown = sum(site.count for site in sites if site.weights is None)
    return known >= SIGNIFICANT_MATMUL_WEIGHTS or (unknown >= 2 and layers >= 4)


def program_precisions(check, training: Training, program: Program) -> List[ProgramPrecision]:
    """The precision facts of each training call of a program whose network can be identified (a second
    ``Model(...)`` training a second phase is decided on its own: its ``amp_level`` is its own). Found once per run
    (MSP101, MSP102 and MSP107 all ask)."""
    key = ("program-precisions", id(check.values), program.entry)
    return check.project.memo(key, lambda: _program_precisions(check, training, program))  # type: ignore[return-value]


def _program_precisions(check, training: Training, program: Program) -> List[ProgramPrecision]:
    project: Project = check.project
    values: Values = check.values
    found: List[ProgramPrecision] = []
    uses = training.networks(program)
    steps = {(u.path, u.anchor.id) for u in uses if u.kind == "step"}
    for use in uses:
        if not values.can_hold(use.path, use.anchor.scope, use.anchor.guards, program) \
                or _other_device_arm(use.anchor):
            continue  # a ``Model(...)`` in an arm this program's runs never take
        if use.kind == "model" and all(_built(project, use.path, v) in steps
                                       for v in choices(use.network) or (use.network,)):
            continue  # ``Model(TrainOneStepCell(...))``: one training, decided at its train step (each arm's)
        classes = training.network_classes(use.path, use.network, use.anchor.scope)
        hub = hub_network(project, values, training, use.path, use.network, use.anchor.scope)
        if not classes and hub is None:
            continue
        composition = training.composition(classes)
        precision = ProgramPrecision(program, use)
        used = used_attributes(project, composition)
        precision.sites = [site for site in _sites(project, values, training.building_scopes(composition))
                           if _runs(project, site, used)]
        _mechanisms(project, values, program, precision, check.ascend_target(program))
        _casts(project, values, training, program, composition, precision)
        if hub is not None:
            precision.pretrained = hub.name
            _hub_coverage(project, values, training, program, precision, hub)
        found.append(precision)
    return found


def _has_work(project: Project, values: Values, precision: ProgramPrecision, scopes, cls: ClassRef) -> bool:
    """The cell (with what it builds) holds MatMul sites or convolutions: not a loss or metric cell."""
    if any((site.path, site.call.scope) in scopes for site in precision.sites):
        return True
    return bool(ConvWeights.shared(project, values).of_class(cls))


_DEVICE_NAMES = frozenset(target.lower() for target in ms.DEVICE_TARGETS)


def _other_device_arm(call: Call) -> bool:
    """The call sits in the arm of a test on the device (``if target == "Ascend": ... else: Model(step)``) that an
    Ascend run does not take: an Ascend rule decides the program's Ascend runs (an unknown device counts as Ascend,
    RULES.md), and this arm runs only on another device."""
    for condition, holds in call.guards:
        if condition.kind != OP or condition.data not in ("==", "!=") or len(condition.parts) != 2:
            continue
        for named in condition.parts:
            if named.kind == LIT and isinstance(named.data, str) and named.data.lower() in _DEVICE_NAMES:
                equal = named.data.lower() == ms.ASCEND.lower()
                if (equal if condition.data == "==" else not equal) != holds:
                    return True
    return False


def _built(project: Project, path: str, value: Value) -> Optional[Tuple[str, int]]:
    """The call that built a value, through calls returning their receiver (``StepCell(...).set_train()``)."""
    for _ in range(8):
        call = project.python[path].call(value.data) if value.kind == CALL else None
        if call is None:
            return None
        if call.method not in ms.RETURNS_SELF or call.receiver is None:
            return path, call.id
        value = call.receiver
    return None


# --- pretrained transformers from a hub --------------------------------------------------------------


@dataclass(frozen=True)
class HubNetwork:
    """A pretrained transformer the program trains: what built it and how the user named it."""

    #: ``AutoModelForSeq2SeqLM.from_pretrained``, or ``GPT2ForSummarization (built on GPT2LMHeadModel)``.
    name: str
    #: The call that built it, where known (its dtype keywords, its casts are looked up from there).
    path: str = ""
    call: Optional[Call] = None


def hub_network(project: Project, values: Values, training: Training, path: str, network: Value,
                scope: int) -> Optional[HubNetwork]:
    """The pretrained hub transformer a network value is (through PEFT and MindSpore wrappers): built by a hub
    loader or a hub model class (``BertForSequenceClassification.from_pretrained(...)``, ``T5Model(config)``), or an
    instance of a project class built on one or holding one (``class Summarizer(GPT2LMHeadModel)``,
    ``self.bert = BertModel.from_pretrained(...)``); None for anything else, a convolutional family included."""
    unwrapped = training.unwrap(path, network)
    found = _hub_made(project, values, path, unwrapped, scope)
    if found is not None:
        return found
    for cls in sorted(project.instance_classes(path, unwrapped, scope)):
        for current in project.ancestry(cls):
            facts = project.class_facts(current)
            if facts is None:
                continue
            base = next((b for b in facts.bases if ms.hub_transformer(ms.hub_model_class(b))), None)
            if base is not None:
                call = project.python[path].call(unwrapped.data) if unwrapped.kind == CALL else None
                return HubNetwork(f"{cls[1]} (built on {ms.hub_model_class(base)})", path, call)
            init = facts.methods.get("__init__", facts.scope)
            for value in facts.attrs.values():
                held = _hub_made(project, values, current[0], value, init)
                if held is not None:
                    return HubNetwork(f"{cls[1]} (holding {held.name})", held.path, held.call)
    return None


def _hub_made(project: Project, values: Values, path: str, value: Value, scope: int) -> Optional[HubNetwork]:
    """A hub transformer built by the call ``value`` holds (a loader, or a hub model class built from a config)."""
    made = project.made_by(path, value, scope=scope)
    name = ms.hub_model_class(made)
    if not name:
        return None
    found = project.making_call(path, value, made)
    checkpoints: Tuple[str, ...] = ()
    known = False
    if found is not None and made.rsplit(".", 1)[-1] in ms.HUB_LOADERS:
        resolved = values.resolve(found[0], found[1].argument("pretrained_model_name_or_path", 0), found[1].scope)
        checkpoints = tuple(str(k.value) for k in resolved.values if isinstance(k.value, str))
        known = resolved.complete and bool(checkpoints) and len(checkpoints) == len(resolved.values)
    if not ms.hub_transformer(name, checkpoints, known):
        return None
    loader = made.rsplit(".", 1)[-1]
    label = f"{name}.{loader}" if loader in ms.HUB_LOADERS else name
    return HubNetwork(label, found[0], found[1]) if found is not None else HubNetwork(label)


def _hub_coverage(project: Project, values: Values, training: Training, program: Program,
                  precision: ProgramPrecision, hub: HubNetwork) -> None:
    """What makes a hub transformer run in low precision: the dtype it is loaded in (``ms_dtype=``, also
    ``torch_dtype``/``dtype``), a cast of the loaded network (``half()``, ``bfloat16()``, ``to(float16)``), and
    mindnlp's ``TrainingArguments(fp16=True | bf16=True)``. Unknown values cover; an explicit float32 is deliberate."""
    if hub.call is not None:
        call = hub.call
        for keyword in ms.HUB_DTYPE_KEYWORDS:
            value = call.kwargs.get(keyword)
            if value is not None:
                _hub_dtype(precision, _dtype(values, hub.path, value, call.scope), f"{keyword}= at {hub.path}:{call.line}")
        if call.double_star:
            precision.levels.append(("?", f"**kwargs of {hub.path}:{call.line}"))
        for path, cast in project.calls_matching(_is_module_cast):
            if (path, cast.scope) not in program.scopes or cast.receiver is None:
                continue
            held = hub_network(project, values, training, path, cast.receiver, cast.scope)
            if held is None or held.call is None or (held.path, held.call.id) != (hub.path, call.id):
                continue
            _hub_dtype(precision, _module_cast_dtype(values, path, cast), f"{cast.method}() at {path}:{cast.line}")
    if precision.use.kind == "trainer":
        _trainer_precision(project, values, program, precision)


def _hub_dtype(precision: ProgramPrecision, dtype: Optional[str], where: str) -> None:
    if dtype == FP32:
        precision.deliberate_fp32 = True
    elif dtype is not None:
        precision.levels.append(("?" if dtype == UNKNOWN_DTYPE else "O3", where))


def _is_module_cast(project: Project, path: str, call: Call) -> bool:
    return call.receiver is not None and call.method in (*ms.MODULE_LOW_CASTS, ms.MODULE_TO)


def _module_cast_dtype(values: Values, path: str, call: Call) -> Optional[str]:
    """LOW for ``half()``/``bfloat16()``; for ``to(...)`` the dtype it names (None when it names a device)."""
    if call.method in ms.MODULE_LOW_CASTS:
        return LOW
    value = call.argument("dtype", 0)
    if value is None:
        return None
    found = values.resolve(path, value, call.scope)
    if found.complete and found.values and all(isinstance(k.value, str) and ms.dtype_of("mindspore." + k.value) is None
                                               for k in found.values):
        return None  # ``to("npu")``: a device
    dtype = _dtype(values, path, value, call.scope)
    return dtype if dtype != UNKNOWN_DTYPE or "dtype" in call.kwargs else None


def _trainer_precision(project: Project, values: Values, program: Program, precision: ProgramPrecision) -> None:
    """mindnlp ``Trainer(args=TrainingArguments(fp16=True))``: a half-precision flag on, or arguments the linter
    cannot see, count as mixed precision (mindnlp 0.4's Trainer in fact ignores the flags for training: see the
    catalogue; the user has asked for it, and the linter does not claim otherwise)."""
    trainer = precision.use.anchor
    path = precision.use.path
    where = f"{path}:{trainer.line}"
    args = trainer.argument(ms.MINDNLP_TRAINER_ARGS.keyword, ms.MINDNLP_TRAINER_ARGS.position)
    if args is None:
        if trainer.may_pass(ms.MINDNLP_TRAINER_ARGS.keyword, ms.MINDNLP_TRAINER_ARGS.position):
            precision.levels.append(("?", where))
        return
    made = _training_arguments(project, path, args)
    if made is None:
        precision.levels.append(("?", f"training arguments at {where}"))
        return
    args_path, call = made
    for flag in ms.HALF_PRECISION_FLAGS:
        value = call.kwargs.get(flag)
        if value is None:
            if call.double_star:
                precision.levels.append(("?", f"{args_path}:{call.line}"))
            continue
        found = values.resolve(args_path, value, call.scope, program=program)
        if not found.complete or not found.values or any(k.value is not False for k in found.values):
            precision.levels.append(("?" if not found.complete else "O2", f"{flag}= at {args_path}:{call.line}"))


def _training_arguments(project: Project, path: str, value: Value) -> Optional[Tuple[str, Call]]:
    """The ``TrainingArguments(...)`` call a value holds, through its ``set_*`` methods (each returns the arguments)."""
    setter = re.compile(rf"\.{ms.TRAINING_ARGUMENTS_SETTER_PREFIX}\w+\(")
    for _ in range(8):
        if value.kind == OP and value.data == "derived" and len(value.parts) == 1 and setter.search(value.text):
            value = value.parts[0]  # ``args.set_optimizer(...)``: a method the analysis does not record
            continue
        call = project.python[path].call(value.data) if value.kind == CALL else None
        if call is None or not call.method.startswith(ms.TRAINING_ARGUMENTS_SETTER_PREFIX) or call.receiver is None:
            break
        value = call.receiver
    for name in sorted(ms.MINDNLP_TRAINING_ARGUMENTS):
        found = project.making_call(path, value, name)
        if found is not None:
            return found
    return None


# --- sites -----------------------------------------------------------------------------------------


def _runs(project: Project, site: "MatmulSite", used: Set[str]) -> bool:
    """A layer built into ``self.<attr>`` runs only if a method other than ``__init__`` uses that attribute
    (a VGG used as a loss network builds its classifier but calls only its features)."""
    if site.kind not in ("layer", "primitive"):
        return True
    attribute = holding_attribute(project.python[site.path], site.call)
    return attribute is None or attribute in used


def _sites(project: Project, values: Values, scopes: Set[ScopeRef]) -> List[MatmulSite]:
    sites: List[MatmulSite] = []
    for path, index in sorted(scopes):
        facts = project.python[path]
        method = facts.scopes[index].name.rsplit(".", 1)[-1]
        for call in facts.calls:
            if call.scope != index:
                continue
            site = _site(project, path, call, method)
            if site is None:
                continue
            if site.kind == "layer":
                _size(values, site, index)
                site.count = _builds(project, (path, index), scopes)
            operands = call.args[:2]
            site.operand_fp32 = any(v.cast == ms.FLOAT32 for v in operands)
            if site.kind != "layer" and operands and all(v.cast in ms.LOW_PRECISION for v in operands):
                site.coverage = Coverage("operands cast to float16 right before it")
            elif site.kind == "primitive" and _used_on_half_operands(project, path, call):
                site.coverage = Coverage("operands cast to float16 right before each use")
            sites.append(site)
    return sites


def _used_on_half_operands(project: Project, path: str, built: Call) -> bool:
    """A MatMul primitive held in ``self.<attr>`` whose every use in the cell's methods takes operands cast to
    float16 right before (a GloRe unit's ``self.matmul(self.cast(a, f16), self.cast(b, f16))``)."""
    attribute = holding_attribute(project.python[path], built)
    owner = project.owner_class(path, built.scope)
    if attribute is None or owner is None:
        return False
    uses = [call for method_path, index in project.methods(owner) for call in project.python[method_path].calls
            if call.scope == index and call.callee == f"self.{attribute}"]
    return bool(uses) and all(call.args[:2] and all(v.cast in ms.LOW_PRECISION for v in call.args[:2])
                              for call in uses)


def _builds(project: Project, scope: ScopeRef, scopes: Set[ScopeRef]) -> int:
    """How many times the network's building code runs ``scope``: once for a method, once per call for a factory."""
    path, index = scope
    if project.python[path].scopes[index].cls:
        return 1
    callers = [c for p, c in project.callers(scope) if (p, c.scope) in scopes]
    return max(1, len(callers))


def _site(project: Project, path: str, call: Call, method: str) -> Optional[MatmulSite]:
    if call.callee == ms.MATMUL_OPERATOR:
        return MatmulSite(path, call, "@", "operator") if method != "__init__" else None
    if call.method == ms.TENSOR_MATMUL_METHOD and call.receiver is not None and call.receiver.kind != REF:
        return MatmulSite(path, call, "Tensor.matmul", "function") if method != "__init__" else None
    qualified = project.qualified(path, call)
    op = ms.MATMUL_OPS.get(qualified)
    if op is None:
        return None
    if op.kind == "function" and method == "__init__":
        return None  # runs once, at construction
    site = MatmulSite(path, call, qualified, op.kind)
    if op.dtype is not None and call.argument(op.dtype.keyword, op.dtype.position) is not None:
        site.coverage = Coverage("an explicit dtype", deliberate_fp32=True)
    return site


def _size(values: Values, site: MatmulSite, scope: int) -> None:
    op = ms.MATMUL_OPS[site.op]
    dims: List[Optional[int]] = []
    for parameter in (op.in_dim, op.out_dim):
        value = site.call.argument(parameter.keyword, parameter.position) if parameter is not None else None
        found = values.resolve(site.path, value, scope) if value is not None else None
        numbers = [k.value for k in found.values if isinstance(k.value, int) and not isinstance(k.value, bool)] \
            if found is not None else []
        dims.append(max(numbers) if numbers else None)
    site.dims = (dims[0], dims[1])
    if dims[0] is not None and dims[1] is not None:
        site.weights = dims[0] * dims[1]


# --- program-wide mechanisms ----------------------------------------------------------------------


#: Catalogue names of the program-wide precision mechanisms :func:`_mechanisms` reads.
_MECHANISMS = frozenset((*ms.LOSS_SCALING, *ms.AMP_ENTRIES, ms.CUSTOM_MIXED_PRECISION, ms.PRECISION_MODE,
                         ms.MATMUL_ALLOW_HF32, ms.SET_CONTEXT))


def _mechanisms(project: Project, values: Values, program: Program, precision: ProgramPrecision,
                target: str = ms.DEFAULT_ASCEND_TARGET) -> None:
    for path, call in project.program_calls(program, _MECHANISMS):
        if _other_device_arm(call):
            continue  # ``if is_gpu: build_train_network(net, level="O2")``: not what the program's Ascend runs do
        qualified = project.qualified(path, call)
        where = f"{path}:{call.line}"
        if qualified in _KNOBS and _other_chips_only(call, target):
            continue  # ``if soc in ("ascend910", ...): precision_mode(...)``: not set on the chip the code runs on
        if qualified in ms.LOSS_SCALING and project.training_kind(path, call) == "step" \
                and not _trains_another_network(project, path, call, precision):
            # A train step that scales its loss is built for float16 layers (``Model`` instead says so
            # with ``amp_level``; a loss scale manager alone changes nothing there).
            precision.loss_scaled = precision.loss_scaled or where
        if qualified in ms.AMP_ENTRIES:
            if qualified == ms.MODEL and (path, call.id) != (precision.use.path, precision.use.anchor.id):
                continue  # another Model: its amp_level is its own training's (a train step's Model ignores it)
            if qualified == ms.MODEL and not call.may_pass(ms.MODEL_OPTIMIZER.keyword, ms.MODEL_OPTIMIZER.position):
                continue  # no optimizer: the Model runs the train step it is given as it is
            if qualified != ms.MODEL and _casts_another_network(project, path, call, qualified, precision):
                continue  # ``auto_mixed_precision(g_model)``: the generator's casts, not this training's network's
            _amp_entry(values, path, call, qualified, where, precision, program)
        elif qualified == ms.CUSTOM_MIXED_PRECISION:
            precision.levels.append(("?", where))
        elif qualified == ms.PRECISION_MODE:
            _precision_mode(values, path, call, call.argument("mode", 0), where, precision)
        elif qualified == ms.MATMUL_ALLOW_HF32:
            flag = call.argument("value", 0)
            if flag is None or not (flag.kind == LIT and flag.data is False):
                precision.knob = precision.knob or f"matmul_allow_hf32 at {where}"
        elif qualified == ms.SET_CONTEXT:
            config = call.kwargs.get(ms.ASCEND_CONFIG)
            if config is not None:
                mode = Value(LIT, config.data.get("precision_mode")) if config.kind == LIT and isinstance(
                    config.data, dict) and "precision_mode" in config.data else None
                if mode is not None or config.kind != LIT:
                    _precision_mode(values, path, call, mode, where, precision)


_KNOBS = frozenset((ms.PRECISION_MODE, ms.MATMUL_ALLOW_HF32, ms.SET_CONTEXT))


def _other_chips_only(call: Call, target: str) -> bool:
    """A guard of the call compares the chip's SoC version (``get_ascend_soc_version()``) with chip names and fails on
    the ``ascend-target`` chip: ``SOC in ("ascend910", "ascend310b")``, ``'910b' not in SOC``, ``SOC == ...``."""
    soc = ms.ASCEND_SOC_VERSIONS.get(target)
    if soc is None:
        return False
    return any(_soc_test(condition, soc) not in (None, holds) for condition, holds in call.guards)


def _soc_test(condition: Value, soc: str) -> Optional[bool]:
    """What a test of the SoC version gives on ``soc``; None when it is not such a test (or not known)."""
    if condition.kind != OP or condition.data not in ("==", "!=", "in", "not in") or len(condition.parts) != 2:
        return None
    left, right = condition.parts
    if _is_soc_version(left) and right.kind == LIT and isinstance(right.data, str):
        result = soc == right.data if condition.data in ("==", "!=") else soc in right.data
    elif _is_soc_version(left) and right.kind == OP and right.data in ("tuple", "list") and right.parts and all(
            p.kind == LIT and isinstance(p.data, str) for p in right.parts):
        if condition.data not in ("in", "not in"):
            return None
        result = soc in {p.data for p in right.parts}
    elif _is_soc_version(right) and left.kind == LIT and isinstance(left.data, str):
        result = soc == left.data if condition.data in ("==", "!=") else left.data in soc
    else:
        return None
    return result if condition.data in ("==", "in") else not result


def _is_soc_version(value: Value) -> bool:
    return value.text.replace(" ", "").endswith(f".{ms.ASCEND_SOC_VERSION_METHOD}()")


def _casts_another_network(project: Project, path: str, call: Call, qualified: str,
                           precision: ProgramPrecision) -> bool:
    """An AMP entry given a network of known project classes, none of which the trained network is made of (a
    program that casts its generation model and trains its evolution model in another run)."""
    entry = ms.AMP_ENTRIES[qualified]
    return _another_network(project, path, call, call.argument(entry.network.keyword, entry.network.position),
                            precision)


def _trains_another_network(project: Project, path: str, call: Call, precision: ProgramPrecision) -> bool:
    """A loss-scaling train step of another of the program's networks (the generator's, not the evolution's)."""
    if (path, call.id) == (precision.use.path, precision.use.anchor.id):
        return False
    return _another_network(project, path, call, call.argument("network", 0), precision)


def _another_network(project: Project, path: str, call: Call, network: Optional[Value],
                     precision: ProgramPrecision) -> bool:
    """``network`` (given to ``call``) is of known project classes, none of which the trained network is made of."""
    if network is None:
        return False
    training = Training.shared(project)
    given = training.network_classes(path, network, call.scope)
    trained = training.trained_classes(precision.use) if given else frozenset()
    return bool(trained) and not trained & given


def _amp_entry(values: Values, path: str, call: Call, qualified: str, where: str,
               precision: ProgramPrecision, program: Program) -> None:
    entry = ms.AMP_ENTRIES[qualified]
    level = call.argument(entry.level.keyword, entry.level.position)
    cast_type = call.kwargs.get(ms.CAST_MODEL_TYPE)
    if cast_type is not None and _dtype(values, path, cast_type, call.scope) == FP32:
        precision.deliberate_fp32 = True
        return
    if level is None:
        if call.may_pass(entry.level.keyword, entry.level.position):
            precision.levels.append(("?", where))
        return
    # the arm the program's Ascend runs take (a GPU launch command's --amp_level=O0 is not theirs)
    found = values.on_ascend(values.resolve(path, level, call.scope, program=program))
    if not found.complete or not found.values:
        precision.levels.append(("?", where))
        return
    for known in found.values:
        text = str(known.value).strip().upper() if isinstance(known.value, str) else "?"
        precision.levels.append((text if text in (*ms.COVERING_AMP_LEVELS, "O0") else "?", str(known.where or where)))


def _precision_mode(values: Values, path: str, call: Call, mode: Optional[Value], where: str,
                    precision: ProgramPrecision) -> None:
    found = values.resolve(path, mode, call.scope) if mode is not None else None
    if found is None or not found.complete or not found.values:
        precision.knob = precision.knob or f"precision_mode at {where}"
        return
    modes = {str(k.value) for k in found.values}
    if modes & ms.FP32_PRECISION_MODES:
        precision.keeps_origin_dtype = "must_keep_origin_dtype" in modes
    if modes - set(ms.FP32_PRECISION_MODES):
        precision.knob = precision.knob or f"precision_mode at {where}"


# --- casts on layers and cells ---------------------------------------------------------------------


def _casts(project: Project, values: Values, training: Training, program: Program,
           composition: FrozenSet[ClassRef], precision: ProgramPrecision) -> None:
    by_call: Dict[Tuple[str, int], MatmulSite] = {(s.path, s.call.id): s for s in precision.sites}
    covered_classes: Dict[ClassRef, Coverage] = {}
    paths = set(program.files) | {c[0] for c in composition}
    for path, call in project.calls_matching(_is_cast):
        if path not in paths or not values.can_hold(path, call.scope, call.guards, program):
            continue  # another file, or under a guard this program never takes (``if platform == "Ascend":``)
        dtype = _cast_dtype(values, path, call)
        if dtype is None:
            continue
        coverage = Coverage(f"{call.method or call.callee} at {path}:{call.line}", deliberate_fp32=dtype == FP32,
                            by_cast=True)
        targets = list(_cast_targets(project, training, path, call))
        for target in targets:
            if isinstance(target, tuple) and target in by_call:
                by_call[target].coverage = by_call[target].coverage or coverage
            elif isinstance(target, ClassTarget) and target.cls in composition:
                covered_classes.setdefault(target.cls, coverage)
        if not targets and dtype == LOW:
            # A cast to float16 of something not known (``cell.to_float(...)`` in a loop over the network's
            # cells, attributes assigned from each other): the author manages precision; what it covers is unknown.
            precision.unknown_casts = True
    network = training.network_classes(precision.use.path, precision.use.network, precision.use.anchor.scope)
    for cls, coverage in covered_classes.items():
        inside = training.composition(frozenset([cls]))
        scopes = training.building_scopes(inside)
        for site in precision.sites:
            if site.coverage is None and (site.path, site.call.scope) in scopes:
                site.coverage = coverage
        if cls in network:
            if coverage.deliberate_fp32:
                # ``criterion.add_flags_recursive(fp32=True)`` keeps a loss in float32, as mixed precision does:
                # only a cell with MatMul or convolution work of its own says its work is meant to stay float32
                if _has_work(project, values, precision, scopes, cls):
                    precision.deliberate_fp32 = True
            else:
                precision.levels.append(("O3", coverage.mechanism))
    # Precision managed by hand: most MatMul layers are cast to float16 with to_float/add_flags_recursive
    # (the model zoo's BERT with compute_type); the rest is then the author's choice.
    cast = [s for s in precision.sites if s.coverage is not None and s.coverage.by_cast and not s.coverage.deliberate_fp32]
    left = [s for s in precision.sites if s.coverage is None]
    precision.manual = (precision.unknown_casts or bool(cast) and len(cast) >= len(left)) \
        and not precision.has_mixed_precision


@dataclass(frozen=True)
class ClassTarget:
    """A cast applied to an instance of a class: everything the class builds."""

    cls: ClassRef


def _cast_name(call: Call) -> str:
    """The method a call makes (``to_float`` for ``net.to_float(...)`` and ``self.to_float(...)``), else ""."""
    return call.method or (call.callee.rsplit(".", 1)[-1] if call.callee.startswith("self.") else "")


def _is_cast(project: Project, path: str, call: Call) -> bool:
    return _cast_name(call) in (ms.TO_FLOAT, ms.ADD_FLAGS_RECURSIVE)


def _cast_dtype(values: Values, path: str, call: Call) -> Optional[str]:
    """LOW, FP32 or UNKNOWN_DTYPE for a ``to_float``/``add_flags_recursive`` call, None for any other call."""
    name = _cast_name(call)
    if name == ms.TO_FLOAT:
        argument = call.argument("dst_type", 0)
        return _dtype(values, path, argument, call.scope) if argument is not None else None
    if name == ms.ADD_FLAGS_RECURSIVE:
        for flag, dtype in ms.DTYPE_FLAGS.items():
            value = call.kwargs.get(flag)
            if value is not None and value.kind == LIT and value.data is True:
                return FP32 if dtype == ms.FLOAT32 else LOW
    return None


def _dtype(values: Values, path: str, value: Value, scope: int) -> str:
    found = values.resolve(path, value, scope)
    dtypes = set()
    for known in found.values:
        name = known.value.name if isinstance(known.value, Ref) else ("mindspore." + known.value if isinstance(
            known.value, str) else "")
        dtypes.add(ms.dtype_of(name))
    if not found.complete or not dtypes or None in dtypes:
        return UNKNOWN_DTYPE
    if dtypes <= ms.LOW_PRECISION:
        return LOW
    if dtypes == {ms.FLOAT32}:
        return FP32
    return UNKNOWN_DTYPE


def _cast_targets(project: Project, training: Training, path: str, call: Call,
                  seen: Optional[Set[Tuple[str, int]]] = None):
    """What a cast reaches: a MatMul layer's call ``(path, id)``, or :class:`ClassTarget` s.

    ``seen`` holds the casts already followed: ``self.res1 = self.res1.to_float(...)`` leads back to itself.
    """
    seen = set() if seen is None else seen
    if (path, call.id) in seen:
        return
    seen.add((path, call.id))
    if call.callee.startswith("self."):
        owner = project.owner_class(path, call.scope)
        if owner is not None:
            yield ClassTarget(owner)
        return
    receiver = call.receiver
    if receiver is None:
        return
    if receiver.kind == CALL:
        inner = project.python[path].call(receiver.data)
        if inner is not None and project.qualified(path, inner) in ms.MATMUL_OPS:
            yield path, inner.id
            return
    if receiver.kind == SELF:
        owner = project.owner_class(path, call.scope)
        found = project.attribute(owner, receiver.data) if owner is not None else None
        if found is not None and found[1].kind == CALL:
            inner = project.python[found[0]].call(found[1].data)
            if inner is not None and project.qualified(found[0], inner) in ms.MATMUL_OPS:
                yield found[0], inner.id
                return
            if inner is not None and inner.method in ms.RETURNS_SELF:
                yield from _cast_targets(project, training, found[0], inner, seen)
    for cls in project.instance_classes(path, training.unwrap(path, receiver), call.scope):
        yield ClassTarget(cls)
    if receiver.kind == "param":
        for caller_path, caller in project.callers((path, call.scope))[:16]:
            function = project.python[path].scopes[call.scope]
            if receiver.data not in function.params:
                continue
            position = function.params.index(receiver.data) - (1 if function.cls else 0)
            argument = caller.argument(receiver.data, position if position >= 0 else None)
            if argument is not None:
                for cls in project.instance_classes(caller_path, training.unwrap(caller_path, argument), caller.scope):
                    yield ClassTarget(cls)


# --- convolution work (MSP107) --------------------------------------------------------------------


@dataclass(frozen=True)
class ClassArgument:
    """A project class passed as an argument, as the value a counted scope's parameter holds."""

    ref: ClassRef


#: At most this many calls building a class are counted to size it (more: it is counted without their arguments).
_SITES = 32


#: At most this many counts of one scope nest (each entered with other sizes) before the innermost counts nothing.
MAX_SCOPE_NESTING = 8


class ConvWeights(ParameterCount):
    """How many convolution weights a network's classes build, at least: every construction counts, as
    :class:`ParameterCount` counts weights (a block built in a loop once per iteration), but a convolution whose
    size takes several values counts at its smallest, what cannot be sized (a convolution of unknown channels, a
    block class handed in, another package's network) counts 0, and a loop of unknown count runs once."""

    CONTEXTUAL = False  # a run's bindings size the layers (:meth:`_bound`), not the values engine's context

    def __init__(self, project: Project, values) -> None:
        super().__init__(project, values)
        #: The scopes each counted scope runs (itself, the methods, factories and classes it builds, transitively).
        self._reach: Dict[Tuple[ScopeRef, tuple], Set[ScopeRef]] = {}
        self._collecting: List[Set[ScopeRef]] = []
        #: Counts by scope and the argument values it was called with (see :meth:`_bound`).
        self._bound_counts: Dict[Tuple[ScopeRef, tuple], int] = {}
        #: The scope being entered by a call, with its parameters' values at that call.
        self._bindings: List[Tuple[ScopeRef, Dict[str, Any]]] = []
        #: Classes being counted at the calls that build them.
        self._sited: Set[ClassRef] = set()
        #: How many counts of each scope are under way (one inside another: a recursive builder).
        self._active: Dict[ScopeRef, int] = {}

    @classmethod
    def shared(cls, project: Project, values) -> "ConvWeights":
        """The project's counter (counts are shared by the rules of one run)."""
        return project.memo(("conv-weights", id(values)), lambda: cls(project, values))  # type: ignore[return-value]

    def reach(self, classes: FrozenSet[ClassRef]) -> Set[ScopeRef]:
        """Every scope that building one instance of each class runs, as the count follows them (networks kept
        by a project train-step cell included)."""
        collector: Set[ScopeRef] = set()
        self._collecting.append(collector)
        try:
            self.of_classes(classes)
        finally:
            self._collecting.pop()
        return collector

    def of_call(self, path: str, call: Call) -> int:
        """Convolution weights one call builds (a layer, a project block or factory), at least."""
        return self._call(path, call) or 0

    def of_class(self, cls: ClassRef) -> Optional[int]:
        """The class's convolution weights (no published size of a family: those count every weight). A class
        counted outside a call that builds it counts as the smallest instance the project builds of it."""
        counted = self._counted(cls)
        init = self.project.method(cls, "__init__")
        if init is None or (self._bindings and self._bindings[-1][0] == init) or cls in self._sited:
            return counted
        self._sited.add(cls)
        try:
            built = self.project.constructions(cls)
            sites = [self.of_call(path, call) for path, call in built] if len(built) <= _SITES else []
        finally:
            self._sited.discard(cls)
        return max(counted or 0, min(sites)) if sites else counted

    def of_scope(self, scope: ScopeRef) -> Optional[int]:
        """Convolution weights built when the scope runs once, at least: what cannot be sized counts 0, and a
        loop whose count is unknown once. A scope entered by a call is counted with that call's arguments."""
        key = (scope, tuple(sorted(self._bound(scope).items())))
        if key in self._bound_counts:
            for collector in self._collecting:
                collector |= self._reach.get(key, {scope})
            return self._bound_counts[key]
        if self._active.get(scope, 0) >= MAX_SCOPE_NESTING:
            return 0  # a function that builds through itself with new sizes each time (``build(depth - 1)``): not kept
        self._bound_counts[key] = 0  # recursion: nothing more
        self._active[scope] = self._active.get(scope, 0) + 1
        reached = {scope}
        self._collecting.append(reached)
        path, index = scope
        total = 0
        try:
            calls = [call for call in self.project.python[path].calls
                     if call.scope == index and not self.held_elsewhere(path, call)]
            sized = []
            for call in calls:
                if any(self._holds(path, condition, index) is (not holds) for condition, holds in call.guards):
                    continue  # not built in this call context (``if in_channels != out_channels:`` with equal sizes)
                size = self._call(path, call) or 0
                sized.append((call.guards, size * ((self._iterations(path, call) or 1) if size else 1)))
            total = max(_arms_total(sized), self._unrolled(scope, calls))
        finally:
            self._collecting.pop()
            self._active[scope] -= 1
        self._bound_counts[key], self._reach[key] = total, reached
        for collector in self._collecting:
            collector |= reached
        return total

    # --- a constructor run with its sizes (``project/unroll.py``) -----------------------------------------

    def _unrolled(self, scope: ScopeRef, calls: List[Call]) -> int:
        """The scope's weights from running its source with the sizes it was entered with, each call counted once
        per execution with that execution's arguments; 0 when the scope keeps no source or the run stops."""
        path, index = scope
        function = self.project.python[path].scopes[index]
        if not function.program:
            return 0
        run = unroll(function.program, function.program_start, self._bound(scope),
                     lambda dotted: self._known(path, index, dotted), self._member,
                     lambda name: self._method_source(path, index, name))
        if run is None:
            return 0
        facts = self.project.python[path]
        ran = [(function, calls)] + [
            (inlined, [c for c in facts.calls if c.scope == at]) for at, inlined in enumerate(facts.scopes)
            if inlined.program and inlined.program_start in run.inlined_programs and at != index]
        total = 0
        for source, made in ran:
            for call in made:
                start = self._call_start(source, call)
                if start in run.inlined_calls:
                    continue  # its own calls are counted where it ran
                for execution in run.executions.get(start, ()):
                    total += self._executed(path, call, execution) or 0
        return total

    def _method_source(self, path: str, scope: int, name: str) -> Optional[Tuple[str, int]]:
        """The kept source of the calling class's method ``name``, when it is in the same file (to run inline)."""
        owner = self.project.owner_class(path, scope)
        method = self.project.method(owner, name) if owner is not None else None
        if method is None or method[0] != path:
            return None
        function = self.project.python[path].scopes[method[1]]
        return (function.program, function.program_start) if function.program else None

    def _member(self, value: Any, name: str) -> Any:
        """An attribute of a value bound in a run: a class attribute of a class handed in (``block.expansion``)."""
        if not isinstance(value, ClassArgument):
            return UNKNOWN
        for current in self.project.ancestry(value.ref):
            facts = self.project.class_facts(current)
            found = facts.class_attrs.get(name) if facts is not None else None
            if found is not None:
                return found.data if found.kind == LIT else UNKNOWN
        return UNKNOWN

    @staticmethod
    def _call_start(function: Scope, call: Call) -> int:
        """Where the called expression starts: a parenthesised call's span starts at its parenthesis."""
        text = function.program
        at = call.start - function.program_start
        while 0 <= at < len(text) and (text[at] == "(" or text[at].isspace()):
            at += 1
        return function.program_start + at

    def _known(self, path: str, scope: int, dotted: str) -> Any:
        """A value an unrolled run reads but does not assign: ``self.<attr>``, a module constant, an attribute of a
        project class (``Darknet.depth2block``, through its bases); ``UNKNOWN`` when not a literal."""
        head, _, attribute = dotted.partition(".")
        if "." in attribute:
            return UNKNOWN
        if head == "self" and attribute:
            known = _known_size(self._evaluate(path, Value(SELF, attribute), scope))
            return known if known is not None else UNKNOWN
        cls = self._class_named(path, head)
        if attribute:
            return self._member(cls, attribute) if cls is not None else UNKNOWN
        if cls is not None:
            return cls
        value = self.project.python[path].constants.get(head)
        return value.data if value is not None and value.kind == LIT else UNKNOWN

    def _executed(self, path: str, call: Call, execution: Execution) -> Optional[int]:
        """What one execution of a call builds, with the arguments it was made with."""
        qualified = self.project.qualified(path, call)
        if qualified in ms.CONV_LAYERS:
            return self._layer_size(path, call, ms.WEIGHTED_LAYERS[qualified], execution)
        handed = execution.callee.ref if isinstance(execution.callee, ClassArgument) else \
            self._handed_class(path, call)
        target = self.project.method(handed, "__init__") if handed is not None else \
            None if qualified else self._entered(path, call)
        if target is None:
            return self._call(path, call)
        self._bindings.append((target, self._passed(target, execution)))
        try:
            return self.of_class(handed) if handed is not None else super()._call(path, call)
        finally:
            self._bindings.pop()

    def _class_named(self, path: str, name: str) -> Optional["ClassArgument"]:
        """The project cell class a bare name of the file refers to (``PreActBottleNeck``), as a run's value."""
        facts = self.project.python[path]
        if name in facts.classes:
            ref: ClassRef = (path, name)
        else:
            symbol = self.project.resolve(facts.aliases[name], path) if name in facts.aliases else None
            if symbol is None or symbol.kind != "class":
                return None
            ref = (symbol.path, symbol.name)
        return ClassArgument(ref) if self.project.is_cell(ref) else None

    def _configured(self, path: str, value: Value, scope: int) -> Any:
        """A size a config value, module constant or name holds in every configuration (``args.enc_dim`` with
        ``default=64``), else None."""
        found = self.values.resolve(path, value, scope)
        sizes = {_known_size(k.value) for k in found.values}
        return sizes.pop() if found.complete and len(sizes) == 1 and None not in sizes else None

    def _configured_flag(self, path: str, value: Value, scope: int) -> Any:
        """A flag or mode (a bool or a string) a value holds in every configuration (``cifar_stem=args.dataset ==
        "cifar10"`` with the argparse default ``"cifar10"``), for an unrolled constructor's ``if``; else None."""
        found = self.values.resolve(path, value, scope)
        flags = {k.value for k in found.values if isinstance(k.value, (bool, str))}
        if not found.complete or len(flags) != 1 or len(flags) != len({repr(k.value) for k in found.values}):
            return None
        return flags.pop()

    def _class_argument(self, path: str, value: Value) -> Optional["ClassArgument"]:
        """A project cell class passed as an argument (``PreActResNet(PreActBottleNeck, ...)``)."""
        if value.kind != REF:
            return None
        symbol = self.project.resolve(value.data, path)
        if symbol is None or symbol.kind != "class" or not self.project.is_cell((symbol.path, symbol.name)):
            return None
        return ClassArgument((symbol.path, symbol.name))

    def _handed_class(self, path: str, call: Call) -> Optional[ClassRef]:
        """``block(inplanes, planes)`` where the scope's parameter ``block`` was given a project class."""
        receiver = call.receiver
        if call.method != "__call__" or receiver is None or receiver.kind != PARAM:
            return None
        bound = self._bound((path, call.scope)).get(receiver.data)
        return bound.ref if isinstance(bound, ClassArgument) else None

    def _passed(self, target: ScopeRef, execution: Execution) -> Dict[str, Any]:
        """The target's parameters one execution passes (``UNKNOWN`` where its value is not known); those it does
        not pass take their defaults when the target runs."""
        function = self.project.python[target[0]].scopes[target[1]]
        names = function.params[1 if function.cls else 0:]
        args, keywords, _ = execution
        binding: Dict[str, Any] = {}
        for position, name in enumerate(names):
            if name in keywords:
                binding[name] = _hashable(keywords[name])
            elif position < len(args):
                if args[position] is STARRED or STARRED in args[:position]:
                    break
                binding[name] = _hashable(args[position])
        return binding

    # --- call context: a block counted with the arguments of the call that builds it ----------------------

    def _bound(self, scope: ScopeRef) -> Dict[str, Any]:
        """The parameter values ``scope`` was entered with (``{}`` unless the innermost call enters it)."""
        return self._bindings[-1][1] if self._bindings and self._bindings[-1][0] == scope else {}

    def _entered(self, path: str, call: Call) -> Optional[ScopeRef]:
        """The scope a call runs: a ``self.<method>``, a project class's ``__init__`` (also one handed in as an
        argument), a project function."""
        method = self.project.own_method(path, call)
        if method is not None:
            return method
        handed = self._handed_class(path, call)
        if handed is not None:
            return self.project.method(handed, "__init__")
        symbol = self.project.callee(path, call) if call.callee else None
        if symbol is None:
            return None
        if symbol.kind == "class":
            facts = self.project.class_facts((symbol.path, symbol.name))
            index = facts.methods.get("__init__") if facts is not None else None
            return (symbol.path, index) if index is not None else None
        function = self.project.function_of(symbol)
        return (symbol.path, function) if function is not None else None

    def _arguments(self, path: str, call: Call, target: ScopeRef) -> Dict[str, Any]:
        """The target's parameters the call gives known sizes (ints, int tuples), evaluated where it is made."""
        function = self.project.python[target[0]].scopes[target[1]]
        offset = 1 if function.cls else 0
        binding: Dict[str, Any] = {}
        for position, name in enumerate(function.params[offset:]):
            argument = call.argument(name, position)
            default = function.defaults.get(name) if argument is None else None
            known = self._evaluate(path, argument, call.scope) if argument is not None else \
                self._evaluate(target[0], default, target[1], bound=False)
            if known is None and default is not None and default.kind == LIT:
                known = _hashable(default.data)  # a literal default as it is (a width factor, a flag)
            if known is None and argument is not None and argument.kind in (CFG, REF, NAME, CALL, SELF, OP):
                known = self._configured(path, argument, call.scope)
            if known is None and argument is not None and argument.kind in (CFG, REF, NAME, OP):
                known = self._configured_flag(path, argument, call.scope)
            if known is not None:
                binding[name] = known
            elif argument is not None:
                # passed, not a size: a project class (``block``), a literal flag or mode as it is, what the caller's
                # own parameter holds, else unknown (an unrolled run must not take the default)
                binding[name] = self._class_argument(path, argument) or (
                    _hashable(argument.data) if argument.kind == LIT else
                    self._bound((path, call.scope)).get(argument.data, UNKNOWN) if argument.kind == PARAM else UNKNOWN)
        return binding

    def _evaluate(self, path: str, value: Optional[Value], scope: int, depth: int = 0, bound: bool = True) -> Any:
        """An int (or tuple of ints) ``value`` has in the current call context; None when not known so."""
        if value is None or depth > 8:
            return None
        if value.kind == LIT:
            return value.data if _dimension_size(value.data, 1) is not None else None
        if value.kind == PARAM:
            return _known_size(self._bound((path, scope)).get(value.data)) if bound else None
        if value.kind == OP and value.data == "[]" and len(value.parts) == 2:
            container = self._evaluate(path, value.parts[0], scope, depth + 1, bound)
            index = self._evaluate(path, value.parts[1], scope, depth + 1, bound)
            if isinstance(container, tuple) and type(index) is int and -len(container) <= index < len(container):
                return container[index]
            return None
        if value.kind == OP and value.data == "tuple" and value.parts:
            items = [self._evaluate(path, part, scope, depth + 1, bound) for part in value.parts]
            return tuple(items) if all(type(i) is int for i in items) else None
        if (value.kind == OP and value.data in ARITHMETIC) or value.kind == CALL:
            number = self._number(path, value, scope, depth, bound)
            return number if type(number) is int else None  # ``int(c2 * e)`` is a size, ``c2 * 0.5`` is not
        if value.kind == SELF:
            assigned = self._assigned(path, value, scope)
            if assigned is not None:
                return self._evaluate(path, assigned, scope, depth + 1, bound)
            owner = self.project.owner_class(path, scope)
            if owner is not None and self.project.attribute(owner, value.data) is None:  # ``self.expansion``
                return _known_size(self._member(ClassArgument(owner), value.data))
        return None

    def _number(self, path: str, value: Value, scope: int, depth: int, bound: bool) -> Any:
        """A number (int or float) ``value`` has in the current call context: arithmetic and the pure numeric
        functions over sizes, literals and the numbers the call passes (a width factor ``e=0.5``); None when not
        known so."""
        if depth > 8:
            return None
        if value.kind == LIT or value.kind == PARAM:
            number = value.data if value.kind == LIT else self._bound((path, scope)).get(value.data) if bound else None
            return number if isinstance(number, (int, float)) and not isinstance(number, bool) else None
        if value.kind == OP and value.data in ARITHMETIC and value.parts:
            operands = [self._number(path, part, scope, depth + 1, bound) for part in value.parts]
            return compute(value.data, operands) if None not in operands else None
        if value.kind == CALL:
            call = self.project.python[path].call(value.data)
            function = numeric_function(call) if call is not None else None
            if function is None:
                return None
            operands = [self._number(path, argument, scope, depth + 1, bound) for argument in call.args]
            return apply_numeric(function, operands) if None not in operands else None
        return self._evaluate(path, value, scope, depth + 1, bound)

    def _holds(self, path: str, value: Value, scope: int, depth: int = 0) -> Optional[bool]:
        """Whether a guard holds in the current call context: sizes compared, ``not``/``and``/``or``, a ``self``
        attribute set to such a test in the same file (``self.downsample = in_channels != out_channels``); None when
        not known so."""
        if depth > 8:
            return None
        if value.kind == SELF:  # ``self.downsample`` set to a test of this call's sizes
            assigned = self._assigned(path, value, scope)
            return self._holds(path, assigned, scope, depth + 1) if assigned is not None else None
        if value.kind != OP or not value.parts:
            known = self._scalar(path, value, scope, depth + 1)
            return bool(known) if known is not None else None
        op, parts = value.data, value.parts
        if op == "not":
            inner = self._holds(path, parts[0], scope, depth + 1)
            return None if inner is None else not inner
        if op in ("and", "or") and len(parts) == 2:
            sides = [self._holds(path, part, scope, depth + 1) for part in parts]
            decisive = op == "or"  # a True decides ``or``, a False decides ``and``
            if decisive in sides:
                return decisive
            return None if None in sides else not decisive
        if op in ("==", "!=", "is", "is not") and len(parts) == 2:
            left, right = (self._scalar(path, part, scope, depth + 1) for part in parts)
            if left is None or right is None:
                return None
            return (left == right) is (op in ("==", "is"))
        if op in ORDERINGS and len(parts) == 2:
            left, right = (self._evaluate(path, part, scope, depth + 1) for part in parts)
            return ORDERINGS[op](left, right) if type(left) is int and type(right) is int else None
        return None

    def _scalar(self, path: str, value: Value, scope: int, depth: int) -> Any:
        """A bool, str or int ``value`` has in the current call context (a literal, a parameter the call binds, a
        ``self`` attribute set from either, a size computed from them); None when not known so."""
        if depth > 8:
            return None
        if value.kind == LIT:
            return value.data if isinstance(value.data, (bool, str, int)) else None
        if value.kind == PARAM:
            bound = self._bound((path, scope))
            known = bound.get(value.data) if value.data in bound else None
            return known if isinstance(known, (bool, str, int)) else None
        if value.kind == SELF:
            assigned = self._assigned(path, value, scope)
            return self._scalar(path, assigned, scope, depth + 1) if assigned is not None else None
        return self._evaluate(path, value, scope, depth + 1) if value.kind == OP else None

    def _assigned(self, path: str, value: Value, scope: int) -> Optional[Value]:
        """What the class whose method ``scope`` is assigns to the ``self`` attribute ``value`` reads, when it does so
        in this file (its ``__init__``), else None."""
        owner = self.project.owner_class(path, scope)
        found = self.project.attribute(owner, value.data) if owner is not None else None
        return found[1] if found is not None and found[0] == path else None

    def _iterations(self, path: str, call: Call) -> Optional[int]:
        """As :class:`ParameterCount` counts loops, with ``range(...)`` bounds taken from the call context."""
        facts = self.project.python[path]
        times = 1
        for loop_id in call.loops:
            loop = facts.loops[loop_id]
            inner = facts.call(loop.iterable.data) if loop.iterable is not None and loop.iterable.kind == CALL else None
            bounds = [self._evaluate(path, a, loop.scope) for a in inner.args[:2]] \
                if inner is not None and inner.callee == "range" and 1 <= len(inner.args) <= 3 else [None]
            if all(type(b) is int for b in bounds):
                times *= max(0, bounds[0] if len(bounds) == 1 else bounds[1] - bounds[0])
                continue
            count = super()._iterations(path, call) if len(call.loops) == 1 else None
            if count is None:
                return None
            times *= count
        return times

    def _held_networks(self, cls: ClassRef, init: int) -> Optional[int]:
        """Networks handed to ``__init__`` and kept on ``self`` to be used, each at the smallest of the classes its
        callers pass (two scripts that wrap different networks in same-named wrappers are not one network)."""
        project = self.project
        facts = project.class_facts(cls)
        used = used_attributes(project, frozenset([cls]))
        total = 0
        for name, value in (facts.attrs.items() if facts is not None else ()):
            if value.kind != PARAM or name not in used:
                continue
            sizes = [self.of_class(c) or 0 for c in project.instance_classes(cls[0], value, init) if project.is_cell(c)]
            total += min(sizes) if sizes else 0
        return total

    def _call(self, path: str, call: Call) -> Optional[int]:
        qualified = self.project.qualified(path, call)
        if qualified in ms.CONV_LAYERS:
            return self._layer_size(path, call, ms.WEIGHTED_LAYERS[qualified])
        if qualified in ms.WEIGHTED_LAYERS or qualified in ms.UNSIZED_WEIGHT_LAYERS:
            return 0
        handed = self._handed_class(path, call)
        target = None if qualified else self._entered(path, call)
        if target is None:
            return super()._call(path, call)
        self._bindings.append((target, self._arguments(path, call, target)))
        try:
            return self.of_class(handed) if handed is not None else super()._call(path, call)
        finally:
            self._bindings.pop()

    def _layer_size(self, path: str, call: Call, layer: ms.WeightedLayer,
                    execution: Optional[Execution] = None) -> Optional[int]:
        """A convolution's weights: each size from the execution or call context when known there, else at its
        smallest."""
        product = 1
        for parameter in (layer.inputs, layer.outputs, layer.kernel):
            if parameter is None:
                continue
            dims = layer.dims if parameter is layer.kernel else 0
            argument = call.argument(parameter.keyword, parameter.position)
            known = _executed_argument(execution, parameter.keyword, parameter.position) \
                if execution is not None else None
            if known is None:
                known = self._evaluate(path, argument, call.scope)
            size = _dimension_size(known, dims) if known is not None else \
                _smallest_size(self.values, path, call, argument, dims)
            if size is None:
                return None
            product *= size
        groups = self._groups(path, call, layer, execution)
        return product // groups if groups else None

    def _groups(self, path: str, call: Call, layer: ms.WeightedLayer, execution: Optional[Execution]) -> Optional[int]:
        """The most groups a convolution can be built with (its weights divide by them: at least as few as
        that); 1 when it names none, None when not known."""
        argument = group_argument(call, layer)
        if argument is None:
            return 1
        known = None
        if execution is not None and layer.group is not None:
            known = _executed_argument(execution, layer.group.keyword, layer.group.position) \
                or _executed_argument(execution, ms.MINT_GROUPS.keyword, None)
        if known is None:
            known = self._evaluate(path, argument, call.scope)
        if type(known) is int:
            return known if known > 0 else None
        groups = layer_groups(self.values, path, call, layer)
        return max(groups) if groups else None


def _arms_total(sized: List[Tuple[tuple, int]], depth: int = 0) -> int:
    """What a scope builds, at least, from its calls' sizes and guards: the arms of an ``if``/``else`` are
    alternatives (``if res_base: return nn.Conv2d(...)`` / ``return nn.Conv2d(...)`` builds one convolution, not
    two), so the smaller arm counts; an ``if`` without an ``else`` counts its arm."""
    total = 0
    arms: Dict[Tuple[int, int, str], Dict[bool, List[Tuple[tuple, int]]]] = {}
    for guards, size in sized:
        if len(guards) <= depth:
            total += size
            continue
        condition, holds = guards[depth]
        arms.setdefault((condition.start, condition.end, condition.text), {}).setdefault(holds, []).append(
            (guards, size))
    for sides in arms.values():
        counts = [_arms_total(items, depth + 1) for items in sides.values()]
        total += min(counts) if len(counts) == 2 else counts[0]
    return total


def _executed_argument(execution: Execution, keyword: str, position: Optional[int]) -> Any:
    """An argument one execution passed for a parameter, when it is a size (None otherwise)."""
    args, keywords, _ = execution
    if keyword in keywords:
        return _known_size(keywords[keyword])
    if position is None or position >= len(args) or STARRED in args[:position + 1]:
        return None
    return _known_size(args[position])


def _known_size(value: Any) -> Any:
    """``value`` when it is a size (an int, a tuple of ints), else None."""
    return value if value is not None and _dimension_size(value, 1) is not None else None


def _hashable(value: Any) -> Any:
    """A value to key counts by: lists as tuples, anything unhashable as ``UNKNOWN``."""
    if isinstance(value, list):
        value = tuple(value)
    try:
        hash(value)
    except TypeError:
        return UNKNOWN
    return value


def _smallest_size(values: Values, path: str, call: Call, argument: Optional[Value], dims: int) -> Optional[int]:
    """The smallest size an argument can take (None when unknown): a block class built with 64 and with 2048
    channels, and not counted at a call that says which, counts 64, so the count never exceeds the truth."""
    if argument is None:
        return None
    found = values.resolve(path, argument, call.scope)
    sizes = [_dimension_size(k.value, dims) for k in found.values]
    if not found.complete or not sizes or None in sizes:
        return None
    return min(sizes)  # type: ignore[type-var]


def _dimension_size(value: object, dims: int) -> Optional[int]:
    """``3`` -> 3 (or 3**dims for a kernel), ``(3, 3)`` -> 9; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value ** dims if dims else value
    if isinstance(value, tuple) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        product = 1
        for item in value:
            product *= item
        return product
    return None


def hand_cast(check, training: Training, precision: ProgramPrecision) -> Optional[str]:
    """Where the code that builds the trained network casts a layer or cell to float16 (or to a dtype the linter
    cannot know, ``to_float(self.cast_type)``), or a convolution to float32, with ``to_float``/
    ``add_flags_recursive``: precision managed by hand (the model zoo's Faster R-CNN casts its convolutions on
    Ascend). None when it casts nothing that way."""
    project = check.project
    use = precision.use
    network = training.network_classes(use.path, use.network, use.anchor.scope)
    scopes = training.building_scopes(training.composition(network))
    counter = ConvWeights.shared(project, check.values)
    scopes |= counter.reach(network)
    for path, call in project.calls_matching(_is_cast):
        if (path, call.scope) not in scopes:
            continue
        dtype = _cast_dtype(check.values, path, call)
        if dtype in (LOW, UNKNOWN_DTYPE) or (dtype == FP32 and _casts_a_convolution(counter, path, call)):
            return f"{path}:{call.line}"
    return _tensor_cast_to_half(check, counter, training.composition(network))


def _tensor_cast_to_half(check, counter: "ConvWeights", classes) -> Optional[str]:
    """Where a method of the network's convolutional cells casts a tensor to a dtype that may be float16
    (``x.astype(dtype)`` with ``dtype = ms.float16 if use_fp16 else ms.float32``, ``self.cast(x, mstype.float16)``,
    ``x.half()``): a StyleGAN port choosing fp16 per block manages its precision by hand. A cell that builds no
    convolution of its own -- a loss cell holding the network and computing its matching costs in float16 (YOLOX)
    -- leaves the convolutions' precision as it is. None when none does."""
    project = check.project
    for cls in sorted(classes):
        if not _builds_layers(counter.project, cls):
            continue
        for path, index in project.methods(cls):
            for call in project.python[path].calls:
                if call.scope != index:
                    continue
                if call.method in ("half", "bfloat16") and call.receiver is not None and not call.args:
                    return f"{path}:{call.line}"
                dtype = _tensor_cast_argument(project, path, call)
                if dtype is not None and _may_be_low(check.values, path, dtype, call.scope) \
                        and not _cast_back(check.values, path, call) and not _feeds_only_matmuls(project, path, call):
                    return f"{path}:{call.line}"
    return None


def _feeds_only_matmuls(project: Project, path: str, call: Call) -> bool:
    """Every call of the method that takes a half-precision value is a MatMul (or another cast): a GloRe unit's
    ``BatchMatMul`` run in float16 between casts, while the cell's convolutions stay in float32."""
    consumers = [other for other in project.python[path].calls
                 if other.scope == call.scope and other.id != call.id
                 and any(a.cast in ms.LOW_PRECISION for a in (*other.args, *other.kwargs.values()))]
    return bool(consumers) and all(_calls_matmul(project, path, other)
                                   or _tensor_cast_argument(project, path, other) is not None for other in consumers)


def _calls_matmul(project: Project, path: str, call: Call) -> bool:
    """``ops.matmul(a, b)``, or ``self.matmul(a, b)`` where the cell holds a ``MatMul``/``BatchMatMul``."""
    return _operation_name(project, path, call) in ms.MATMUL_OPS


def _operation_name(project: Project, path: str, call: Call) -> str:
    """The catalogue name of what a call runs: its callee's, or for ``self.pool(x)`` what built the cell's
    ``self.pool`` (``mindspore.nn.MaxPool2d``); "" when not known."""
    qualified = project.qualified(path, call)
    if qualified:
        return qualified
    owner = project.owner_class(path, call.scope) if call.callee.startswith("self.") else None
    held = project.attribute(owner, call.callee[5:]) if owner is not None and call.callee.count(".") == 1 else None
    return project.made_by(held[0], held[1]) if held is not None else ""


def _cast_back(values: Values, path: str, call: Call) -> bool:
    """The half-precision result goes through one operation and is cast back to float32 in the same expression
    (``self.maxpool(x.astype(ms.float16)).astype(ms.float32)``): a pooling run in float16, not the network's
    convolutions."""
    facts = values.project.python[path]
    for other in facts.calls:
        if other.scope != call.scope or other.receiver is None or other.receiver.kind != CALL:
            continue
        dtype = _tensor_cast_argument(values.project, path, other)
        if dtype is None or _dtype(values, path, dtype, other.scope) != FP32:
            continue
        inner = facts.call(other.receiver.data)
        if inner is None:
            continue
        if inner.id == call.id:
            return True  # ``x.astype(ms.float16).astype(ms.float32)``
        # the cast's result is recorded as what it casts (with ``cast`` set): found by where it is written
        if any(a.start == call.start and a.end == call.end for a in inner.args) \
                and _off_the_cube(_operation_name(values.project, path, inner)):
            return True
    return False


def _off_the_cube(name: str) -> bool:
    """A MindSpore operation that is no convolution or MatMul (a pooling, an activation): known, and not Cube work."""
    return name.startswith("mindspore.") and name not in ms.CONV_LAYERS and name not in ms.CONV_OPS \
        and name not in ms.MATMUL_OPS and name not in ms.WEIGHTED_LAYERS


def _builds_layers(project: Project, cls: ClassRef) -> bool:
    """The class builds layers of its own in ``__init__`` -- a weighted MindSpore layer, a ``Parameter``, a project
    cell (StyleGAN's blocks build modulated-convolution layers holding their own weights) -- not only keeps the
    networks it is handed and weightless losses (YOLOX's loss cell)."""
    init = project.method(cls, "__init__")
    if init is None:
        return False
    for call in project.python[init[0]].calls:
        if call.scope != init[1]:
            continue
        qualified = project.qualified(init[0], call)
        if qualified in ms.WEIGHTED_LAYERS or qualified in ms.UNSIZED_WEIGHT_LAYERS or qualified == ms.PARAMETER:
            return True
        symbol = project.callee(init[0], call) if call.callee and not qualified else None
        if symbol is not None and symbol.kind == "class" and project.is_cell((symbol.path, symbol.name)):
            return True
    return False


def _tensor_cast_argument(project: Project, path: str, call: Call) -> Optional[Value]:
    """The dtype a tensor cast names: ``ops.cast(x, t)``, ``self.cast(x, t)`` (a ``Cast`` primitive), ``x.astype(t)``."""
    if len(call.args) >= 2 and (call.callee == ms.CAST_PRIMITIVE or project.qualified(path, call) in ms.CAST_FUNCTIONS
                                or _holds_cast_primitive(project, path, call)):
        return call.args[1]
    if call.method in ms.TENSOR_CAST_METHODS and call.receiver is not None and call.args:
        return call.args[0]
    return None


def _holds_cast_primitive(project: Project, path: str, call: Call) -> bool:
    """``self.cast(x, t)`` where the cell's ``self.cast`` is a ``Cast`` primitive."""
    owner = project.owner_class(path, call.scope) if call.callee.startswith("self.") else None
    held = project.attribute(owner, call.callee[5:]) if owner is not None and call.callee.count(".") == 1 else None
    return held is not None and project.made_by(held[0], held[1]) == ms.CAST_PRIMITIVE


def _may_be_low(values: Values, path: str, value: Value, scope: int) -> bool:
    """Some value the dtype can take is float16 or bfloat16."""
    for known in values.resolve(path, value, scope).values:
        name = known.value.name if isinstance(known.value, Ref) else ""
        if ms.dtype_of(name) in ms.LOW_PRECISION:
            return True
    return False


def _casts_a_convolution(counter: "ConvWeights", path: str, call: Call) -> bool:
    """``nn.Conv2d(...).to_float(...)``, ``_conv(...).to_float(...)``: the cast's receiver is built in place and
    builds convolutions (a convolution layer, a project factory or block that makes some)."""
    receiver = call.receiver
    inner = counter.project.python[path].call(receiver.data) if receiver is not None and receiver.kind == CALL else None
    return inner is not None and counter.of_call(path, inner) > 0


def conv_weights(check, training: Training, precision: ProgramPrecision) -> Optional[int]:
    """The convolution weights of the network a program trains (None when they cannot be counted)."""
    use = precision.use
    classes = training.network_classes(use.path, use.network, use.anchor.scope)
    if not classes:
        return None
    counter = ConvWeights.shared(check.project, check.values)
    built = training.unwrap(use.path, use.network)
    call = check.project.python[use.path].call(built.data) if built.kind == CALL else None
    symbol = check.project.callee(use.path, call) if call is not None and call.callee else None
    if symbol is not None and symbol.kind == "class" and (symbol.path, symbol.name) in classes and len(classes) == 1:
        return counter.of_call(use.path, call)  # ``Net(width=16)``: with the arguments (and defaults) it is built with
    # The classes are those the network may be (``DcganG(...) if bn else DcgannobnG(...)``: alternatives, so at
    # least the smallest) and those of the cells it keeps (``WithLossCell(netG, netD)``), kept in turn
    # (``StepCell(BuildTrainNetwork(net, loss))``), which the network's own count already holds: at least the
    # largest of them, never their sum.
    project = check.project
    own = frozenset(c for c in project.instance_classes(use.path, built, use.anchor.scope) if c in classes)
    alternatives = [counter.of_class(c) for c in sorted(own)]
    counts = [min(alternatives) if alternatives and None not in alternatives else None,
              *(counter.of_class(c) for c in sorted(classes - own))]
    known = [count for count in counts if count is not None]
    return max(known) if known else None


def convolutional(check, training: Training, precision: ProgramPrecision) -> bool:
    """The network's float32 work is its convolutions: at least :data:`~ms_perflint.catalogue.SIGNIFICANT_CONV_WEIGHTS`
    convolution weights, no fewer than the weights of its float32 MatMul layers, and at most one MatMul sized only
    at run time (a ResNet-50 with a few Dense heads: MSP107's, not MSP101's; a VGG's 124 M Dense weights outweigh
    its 15 M convolution weights, and a backbone topped by attention has products of any size: MSP101's)."""
    if precision.pretrained:
        return False
    convolutions = conv_weights(check, training, precision)
    if convolutions is None or convolutions < ms.SIGNIFICANT_CONV_WEIGHTS:
        return False
    sites = precision.fp32_sites()
    if sum(site.count for site in sites if site.weights is None) >= 2:
        return False  # MatMuls sized only at run time (attention products): any amount of work, MSP101's
    return convolutions >= sum(site.weights * site.count for site in sites if site.weights is not None)
