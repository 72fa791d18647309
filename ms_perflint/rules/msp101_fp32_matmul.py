"""MSP101 fp32-matmul: a training program runs its MatMuls in float32 on Ascend.

Decided per training program, at the level where the user decides: a program
with no mixed precision at all is reported once, at ``Model(...)`` (or the
train-step / optimizer construction of a custom loop), naming how many
MatMul-family layers its network runs in float32 and the largest; a program with
AMP on is reported per layer only where a layer escapes AMP. The facts live in
:mod:`ms_perflint.project.precision`.
"""

from __future__ import annotations

from typing import Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.findings import Fix, FixAvailability, FixSafety, TextEdit
from ms_perflint.project.training import NetworkUse, Training
from ms_perflint.rules.base import Invalid, Option, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, amp_switch_fix, amp_switch_text, spelled
from ms_perflint.project.precision import Coverage, MatmulSite, ProgramPrecision, convolutional, program_precisions

#: A MatMul of at least this many weights (in x out) is worth running in float16; smaller ones
#: (LeNet's 400x120) are not worth a finding on their own.
SIGNIFICANT_WEIGHTS = 256 * 256
LAYER_FIX = "Run this layer in float16 (.to_float(float16))"


class Fp32Matmul(Rule):
    """Report training programs, and layers escaping AMP, whose MatMuls run in float32 on Ascend."""

    code = "MSP101"
    name = "fp32-matmul"
    summary = "A training program runs its MatMul-family layers in float32 on Ascend"
    fix_availability = FixAvailability.SOMETIMES
    options = (
        Option(
            ms.ASCEND_TARGET_OPTION,
            ms.DEFAULT_ASCEND_TARGET,
            "The Ascend chip the code runs on. On 910a (Atlas training series) the default precision mode "
            "already runs fp32 MatMul in float16, so the rule reports nothing unless the program sets "
            'precision_mode("must_keep_origin_dtype").',
            choices=ms.ASCEND_TARGETS,
        ),
    )
    docs = RuleDocs(
        what_it_does="""
            Decides, for each program that trains on Ascend, whether its network's MatMul-family layers
            (`nn.Dense`, `nn.Linear` / `mint.nn.Linear`, `nn.MatMul`, `ops.MatMul`, `ops.BatchMatMul`,
            `ops.matmul`, `ops.bmm`, `ops.mm`, `mint.*`, `ops.dense`, `x @ y`, `Tensor.matmul`) run in
            float32, and reports at the level where the user decides:

            - **No mixed precision at all** (no AMP level, no Ascend precision knob, no `to_float` on the
              network): one finding at `Model(...)` -- or, in a custom loop, at the train-step cell or the
              optimizer -- naming how many MatMul-family layers run in float32 and the largest. Reported
              only when the MatMul work matters: at least two MatMul-family sites, one of them of at least
              256x256 weights or of a size the linter cannot know (an attention product). A CNN whose only
              MatMul is its classifier, or LeNet's small heads, are not reported.
            - **AMP on, a layer escapes it:** `amp_level="O1"`/`"auto"` casts only nn.Dense, MatMul,
              BatchMatMul, bmm and mm (measured on 2.10), so `nn.Linear`, `ops.matmul`, `mint.*`, `@` stay
              float32; and an operand cast back to float32 right before a MatMul keeps it float32 under any
              level. Those layers are reported one by one.

            - **A pretrained transformer from a hub, fine-tuned in float32** (no dtype at load, no cast, no
              mixed precision): one finding at the training call naming the loader
              (`AutoModelForSeq2SeqLM.from_pretrained`), whatever the model's size, which the project does not
              hold. A hub network is one built by `from_pretrained`/`from_config` or by a model class of
              `mindnlp.transformers` (named `<Family>Model`, `<Family>For<Task>`, `<Family>LMHeadModel`), an
              instance of a project class built on one (`class Summarizer(GPT2LMHeadModel)`), or a project
              module holding one (`self.bert = BertModel.from_pretrained(...)`); PEFT wrappers
              (`get_peft_model`, `PeftModel`) keep the base network, whose MatMuls still run forward and backward.
              The family decides, not a list of models: transformer families (BERT, T5, GPT-2, BEiT, ViT, ...)
              count; the convolutional families of the same zoo (ResNet, ConvNeXt, RegNet, MobileNet, MobileViT,
              EfficientNet, BiT, VAN, PoolFormer, UperNet, timm backbones) do not; an `Auto*` class counts
              unless its checkpoint names one of those families, and a vision `Auto*` class
              (`AutoModelForImageClassification`) only with a checkpoint the linter can read.

            The network is what the program trains: `Model(network, ...)`, the network of a train-step cell
            (through `WithLossCell`), the `model=` of mindnlp's `Trainer` (trained by `trainer.train()`), or the
            cell whose `trainable_params()` (or torch-style `parameters()`) an optimizer receives, also filtered
            (`tuple(p for p in model.parameters() if p.requires_grad)`, `filter(...)`, `list(...)`; `mindspore.nn`,
            `mindspore.experimental.optim`, `mindspore.mint.optim`, `mindnlp.core.optim`); and every Cell it builds, across files, through
            factories and registries. mindnlp's torch-style `mindnlp.core.value_and_grad` is a gradient function.
        """,
        why_bad="""
            The Cube unit of Ascend's AI Core, which does matrix products, is built for float16 and bfloat16.
            On Atlas A2 (910B) and later, MindSpore's default precision mode is `must_keep_origin_dtype`: a
            float32 MatMul stays float32 and runs on the Cube at a fraction of its float16 rate (the older
            guide's "fp32 MatMul runs on AI CPU" describes early software, not A2; CANN's documentation of
            precision modes and the A2 Cube's fp32 path say it runs on the Cube, slower). On the Atlas
            training series (910A) the default mode already casts matrix ops to float16; the `ascend-target`
            option exists for that chip. Mixed precision (`amp_level="O2"` keeps BatchNorm/LayerNorm in
            float32 and uses dynamic loss scaling) is the documented way to train on Ascend.
        """,
        example="""
            from mindspore.train import Model

            model = Model(net, loss_fn=loss, optimizer=opt)
            model.train(10, dataset)
        """,
        use_instead="""
            from mindspore.train import Model

            model = Model(net, loss_fn=loss, optimizer=opt, amp_level="O2")
            model.train(10, dataset)
        """,
        fix_safety="""
            Both fixes are *unsafe*: they change numerics. The program-level fix appends `amp_level="O2"` to
            `Model(...)` (or replaces an explicit `"O0"`, also one the `Model` reads through a name bound in the
            arm of an `if` the Ascend run takes -- never another arm's): O2 casts the network to float16 except
            BatchNorm/LayerNorm and adds dynamic loss scaling. On the CPU backend (tests, laptops) MindSpore
            2.10 accepts O2 only with `loss_scale_manager=None` or `FixedLossScaleManager(...,
            drop_overflow_update=False)`. A custom loop gets no automatic fix: wrap the network with
            `mindspore.amp.auto_mixed_precision(net, "O2")` and add loss scaling. The layer-level fix chains
            `.to_float(mstype.float16)` on an `nn.Linear` that escapes O1 (spelled with the file's own
            imports); functional MatMuls and `@` get no fix: cast their operands to float16.

            A pretrained transformer gets no fix. Loading it in float16 (`ms_dtype=mindspore.float16`) or
            `model.half()` trains the weights themselves in half precision, which changes the fine-tuning's
            numerics and needs loss scaling -- a decision, not an edit. `TrainingArguments(fp16=True)` is not offered
            either: mindnlp 0.4's `Trainer` accepts the flag but keeps `use_amp = False` and never casts for
            training (only `fp16_full_eval`/`bf16_full_eval` cast, for evaluation; read in mindnlp's
            `engine/trainer/base.py` and `engine/train_args/base.py`).
        """,
        programs="""
            Programs that train on Ascend: scripts and notebooks that call `Model.train`/`fit`, build a
            train-step cell, use a gradient function, or run a mindformers trainer -- and the network they
            train, wherever it is defined. A program that pins `device_target`/`set_device` to GPU or CPU
            (in code, argparse defaults, configs or launch scripts), or starts NVIDIA's collectives
            (`mindspore.communication.init("nccl")`), is not an Ascend program; an unknown target counts as Ascend. Cells no training program trains (a module zoo's unused classes, an
            eval-only converted model, a `__main__` demo) are not reported. Each training call is decided on
            its own: a second `Model(...)` that trains a second phase in float32 gets its own finding, whatever
            the first one's `amp_level`. An `amp_level` chosen by `if device_target == "Ascend":` takes the arm
            the Ascend run takes.
        """,
        silent_on="""
            - programs with mixed precision: an AMP level that casts (`"O1"`, `"O2"`, `"O3"`, `"auto"`) or is
              not known (read from a config the linter cannot see), an Ascend precision knob
              (`precision_mode(...)` other than `must_keep_origin_dtype`/`force_fp32`, `matmul_allow_hf32(True)`,
              `set_context(ascend_config={"precision_mode": ...})`), `to_float(float16)` on the network; a knob set
              only under a test of the SoC version that the `ascend-target` chip fails (mindnlp sets
              `allow_mix_precision` when `get_ascend_soc_version()` is 'ascend910' or 'ascend310b') does not
              count;
            - pretrained transformers loaded in a low or unknown dtype (`from_pretrained(..., ms_dtype=` /
              `torch_dtype=` / `dtype=` float16 or bfloat16, or a value the linter cannot know), cast after loading
              (`half()`, `bfloat16()`, `to(float16)`, `to(dtype=...)`, `to_float(...)`; `to("npu")` moves, it does
              not cast), or trained by mindnlp's `Trainer` with `TrainingArguments(fp16=True)` or `bf16=True` (or
              arguments the linter cannot see). The flags count although mindnlp 0.4 ignores them for training
              (see the fix notes): the author asked for half precision, and the linter does not second-guess the
              library's version. An explicit float32 at load is deliberate;
            - networks whose precision is managed by hand: some layers set to float16 with `to_float`
              (as the model zoo's BERT does with `compute_type`) -- the rest is the author's choice;
            - deliberate float32: `to_float(mstype.float32)`, `add_flags_recursive(fp32=True)`,
              `cast_model_type=mstype.float32`, an explicit `dtype=` on Dense/Linear;
            - networks whose MatMul work is small: one classifier head, LeNet-sized layers; convolutional families
              loaded from a hub;
            - convolutional networks with a few Dense heads: when the network's convolution weights (1 M or more)
              outnumber its float32 MatMul weights and at most one MatMul is sized only at run time, the work is
              the convolutions and MSP107 reports it (a GloRe ResNet-50 with a 2048x1000 head was reported here on
              a blind audit; the same `amp_level` fix, said as what it is). A backbone topped by attention keeps
              its products of unknown size here;
            - programs that only load and run a hub model (`generate`, evaluation): nothing trains it;
            - networks the linter cannot identify (built by a registry from a name it cannot resolve);
            - the 910a target, whose default precision mode already casts.
        """,
        precision="""
            On the precision benchmark's development set (five public MindSpore repositories, 2026-11-23):
            3 findings, all 3 worth acting on (100 %). The same set gave 445 findings when each file was judged
            alone. See docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/tutorials/en/master/beginner/mixed_precision.html",
            "https://www.mindspore.cn/docs/en/master/api_python/amp/mindspore.amp.auto_mixed_precision.html",
            "https://www.mindspore.cn/docs/en/master/api_python/device_context/mindspore.device_context.ascend.op_precision.precision_mode.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(1024, 1024)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                net = Net()
                Model(net, loss, nn.Adam(net.trainable_params()), amp_level="O2").train(1, data)
            """,
            why="AMP O2 covers every MatMul",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(1024, 1024)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                ms.set_context(device_target="GPU")
                net = Net()
                Model(net, loss, opt).train(1, data)
            """,
            why="a GPU program: not Ascend's business",
        ),
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            class LeNet(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(400, 120)
                    self.fc2 = nn.Dense(120, 84)
                    self.fc3 = nn.Dense(84, 10)
                def construct(self, x):
                    return self.fc3(self.fc2(self.fc1(x)))
            if __name__ == "__main__":
                Model(LeNet(), loss, opt).train(1, data)
            """,
            why="small MatMuls: float16 buys little",
        ),
        Valid(
            """
            import mindspore.nn as nn
            class Attention(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.qkv = nn.Dense(768, 2304)
                    self.proj = nn.Dense(768, 768)
                def construct(self, x):
                    return self.proj(self.qkv(x))
            if __name__ == "__main__":
                print(Attention()(x).shape)
            """,
            why="a module's demo: no program trains it",
        ),
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.common import dtype as mstype
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(1024, 1024).to_float(mstype.float16)
                    self.fc2 = nn.Dense(1024, 1024)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                Model(Net(), loss, opt).train(1, data)
            """,
            why="precision managed by hand: the float32 layer is the author's choice",
        ),
        Valid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(1024, 1024)
                    self.fc2 = nn.Linear(1024, 1024)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            def main(args):
                Model(Net(), loss, opt, amp_level=args.amp_level).train(1, data)
            if __name__ == "__main__":
                main(parse())
            """,
            why="an AMP level the linter cannot know counts as covering",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(1024, 1024)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                model = Model(Net(), loss_fn=loss, optimizer=opt)
                model.train(1, data)
            """,
            line=11,
            column=13,
            message_contains="2 MatMul-family layers",
            fixed="""
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Dense(1024, 1024)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                model = Model(Net(), loss_fn=loss, optimizer=opt, amp_level="O2")
                model.train(1, data)
            """,
        ),
        Invalid(
            """
            import mindspore.nn as nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(1024, 1024)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                Model(Net(), loss, opt, amp_level="O1").train(1, data)
            """,
            line=6,
            column=20,
            message_contains="O1",
            fixed="""
            import mindspore.nn as nn
            from mindspore.train import Model
            import mindspore as ms
            class Net(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.fc1 = nn.Linear(1024, 1024).to_float(ms.float16)
                    self.fc2 = nn.Dense(1024, 10)
                def construct(self, x):
                    return self.fc2(self.fc1(x))
            if __name__ == "__main__":
                Model(Net(), loss, opt, amp_level="O1").train(1, data)
            """,
        ),
        Invalid(
            """
            import mindspore.nn as nn
            import mindspore.ops as ops
            class Attention(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.qkv = nn.Dense(768, 2304)
                def construct(self, x):
                    q, k, v = ops.split(self.qkv(x), 768, axis=-1)
                    return ops.matmul(ops.softmax(ops.matmul(q, k.swapaxes(-1, -2))), v)
            if __name__ == "__main__":
                net = Attention()
                step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params()))
                for x, y in data:
                    step(x, y)
            """,
            line=12,
            column=12,
            message_contains="custom",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        training = Training.shared(project)
        reported: Set[Tuple[str, int]] = set()
        for program in check.ascend_programs():
            with check.deciding(program.entry):
                for precision in program_precisions(check, training, program):  # each training call on its own
                    if check.casts_by_default(program) and not precision.keeps_origin_dtype:
                        continue
                    if precision.has_mixed_precision:
                        self._escaping_layers(check, precision, reported)
                    elif precision.all_fp32:
                        self._whole_program(check, precision, reported)

    # --- no mixed precision ----------------------------------------------------------------------

    def _whole_program(self, check: Check, precision: ProgramPrecision, reported: Set[Tuple[str, int]]) -> None:
        sites = precision.fp32_sites()
        if not precision.significant_matmul_work() or convolutional(check, Training.shared(check.project), precision):
            return  # too little MatMul work, or a convolutional network's (MSP107's)
        use = precision.use
        key = (use.path, use.anchor.id)
        if key in reported:
            return
        reported.add(key)
        if precision.pretrained:
            self._pretrained(check, precision)
            return
        largest = max(sites, key=lambda s: (s.weights or 0))
        biggest = f"largest: {largest.describe()}" if largest.weights else f"for example {largest.describe()}"
        where = "" if use.path == precision.program.entry else f" (trained by {precision.program.entry})"
        fix = amp_switch_fix(use, check.values, precision.program)
        switch = amp_switch_text(use)
        layers = sum(site.count for site in sites)
        message = (f"{_anchor_name(use)} trains{where} in float32 with no mixed precision: {layers} MatMul-family "
                   f"layers run in fp32 on the Cube ({biggest}); {switch}")
        check.report(self.code, *use.site, message, fix)

    def _pretrained(self, check: Check, precision: ProgramPrecision) -> None:
        """A hub transformer fine-tuned in float32: no automatic fix (loading it in float16 changes the training's
        numerics, and mindnlp 0.4's Trainer does not apply ``fp16=True``)."""
        use = precision.use
        where = "" if use.path == precision.program.entry else f" (trained by {precision.program.entry})"
        message = (f"{_anchor_name(use)} trains{where} a pretrained transformer ({precision.pretrained}) in float32 "
                   f"with no mixed precision: its Dense/MatMul layers run in fp32 on the Cube; load or cast it in "
                   f"float16/bfloat16 (from_pretrained(..., ms_dtype=...), .half()) with loss scaling")
        check.report(self.code, *use.site, message)

    # --- AMP on, layers escaping it -----------------------------------------------------------------

    def _escaping_layers(self, check: Check, precision: ProgramPrecision, reported: Set[Tuple[str, int]]) -> None:
        for site in precision.sites:
            if site.coverage is not None or (site.path, site.call.id) in reported:
                continue
            reason = precision.escape_reason(site)
            if reason is None or (site.weights is not None and site.weights < SIGNIFICANT_WEIGHTS):
                continue
            reported.add((site.path, site.call.id))
            fix = _layer_fix(check, site) if site.kind == "layer" and not site.operand_fp32 else None
            advice = "chain .to_float(mstype.float16)" if fix is not None else "cast its operands to float16"
            message = f"{site.describe()} runs in float32 although {reason}; {advice}"
            check.report(self.code, site.path, site.call, message, fix)


def _anchor_name(use: NetworkUse) -> str:
    return {"model": "Model(...)", "step": "This train step", "trainer": "Trainer(...)",
            "optimizer": "This custom training loop"}[use.kind]


def _layer_fix(check: Check, site: MatmulSite) -> Optional[Fix]:
    facts = check.project.python[site.path]
    spelling, imports = spelled(facts, ms.FLOAT16)
    edit = TextEdit(site.call.end, site.call.end, f".to_float({spelling})")
    return Fix(FixSafety.UNSAFE, LAYER_FIX, (edit, *imports))


__all__ = ["Fp32Matmul", "Coverage"]
