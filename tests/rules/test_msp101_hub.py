"""MSP101 on pretrained transformers loaded from a hub (mindnlp.transformers) and fine-tuned in float32 on Ascend:
mindnlp's Trainer, custom value_and_grad loops, PEFT wrappers, project classes built on a hub model -- and the
look-alikes that must stay silent (a dtype chosen at load, half(), fp16=True, GPU programs, inference only, CNN
families from the same hub)."""

from __future__ import annotations

import textwrap
from typing import Dict, List, Tuple

import pytest

from ms_perflint.rules.msp101_fp32_matmul import Fp32Matmul
from ms_perflint.rules.msp107_fp32_conv_training import Fp32ConvTraining
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

HEADER = """
import mindspore
from mindnlp.transformers import AutoModelForSequenceClassification, AutoModelForSeq2SeqLM, BertModel
from mindnlp.transformers import GPT2LMHeadModel, GPT2Config, ResNetForImageClassification
from mindnlp.engine import Trainer, TrainingArguments
from mindnlp.peft import get_peft_model, LoraConfig
from mindnlp.core import value_and_grad as torch_style_grad
from mindspore.experimental import optim
"""
FIRST = HEADER.count("\n")  # the line before the program's first line


def lint(code: str) -> List:
    settings = Settings(select=("MSP101", "MSP107"))
    text = textwrap.dedent(HEADER).lstrip("\n") + textwrap.dedent(code).lstrip("\n")
    result = check_text(text, "finetune.py", settings, rules=[Fp32Matmul, Fp32ConvTraining])
    assert result.error is None, result.error
    return result.findings


def found(code: str) -> Dict[str, List[Tuple[int, int]]]:
    """``{code: [(line in the program, column)]}``: line 1 is the program's first line after the header."""
    by_code: Dict[str, List[Tuple[int, int]]] = {}
    for finding in lint(code):
        by_code.setdefault(finding.code, []).append((finding.line - FIRST + 1, finding.column + 1))
    return by_code


TRAINER = """
model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2{load})
args = TrainingArguments(output_dir="out", num_train_epochs=3{args})
trainer = Trainer(model=model, args=args, train_dataset=train_set)
trainer.train()
"""

LOOP = """
model = AutoModelForSeq2SeqLM.from_pretrained(name{load})
optimizer = optim.AdamW(model.trainable_params(), lr=1e-3)
def forward_fn(**batch):
    return model(**batch).loss
grad_fn = mindspore.value_and_grad(forward_fn, None, model.trainable_params())
for batch in train_set.create_dict_iterator():
    loss, grads = grad_fn(**batch)
    optimizer(grads)
"""


# --- reported ------------------------------------------------------------------------------------------------


def test_a_hub_model_fine_tuned_by_mindnlps_trainer_is_reported_at_the_trainer():
    findings = lint(TRAINER.format(load="", args=""))
    assert [(f.code, f.line - FIRST + 1, f.column + 1) for f in findings] == [("MSP101", 3, 11)]
    message = findings[0].message
    assert "Trainer(...)" in message and "AutoModelForSequenceClassification.from_pretrained" in message
    assert "Dense/MatMul" in message and findings[0].fix is None


def test_a_custom_value_and_grad_loop_is_reported_at_its_gradient_function():
    findings = lint(LOOP.format(load=""))
    assert [(f.code, f.line - FIRST + 1) for f in findings] == [("MSP101", 5)]  # at its gradient function
    assert "AutoModelForSeq2SeqLM.from_pretrained" in findings[0].message and findings[0].fix is None


def test_mindnlps_torch_style_value_and_grad_trains():
    assert found("""
        model = AutoModelForSeq2SeqLM.from_pretrained(name)
        optimizer = optim.AdamW(model.trainable_params(), lr=1e-3)
        grad_fn = torch_style_grad(lambda **batch: model(**batch).loss, model.trainable_params())
        for batch in train_set.create_dict_iterator():
            loss = grad_fn(**batch)
            optimizer.step()
    """) == {"MSP101": [(3, 11)]}


@pytest.mark.parametrize("params", [
    "tuple(param for param in model.parameters() if param.requires_grad)",
    "[p for p in model.trainable_params() if p.requires_grad]",
    "filter(lambda p: p.requires_grad, model.parameters())",
    "list(model.parameters())",
])
def test_an_optimizer_over_a_filtered_parameter_list_names_the_network(params: str):
    # report-2's mindnlp fine-tunes hand the optimizer only the parameters that need gradients (LoRA, prompt
    # tuning): the network is still the one whose parameters are filtered
    assert found(f"""
        model = AutoModelForSeq2SeqLM.from_pretrained(name)
        optimizer = optim.AdamW(params={params}, lr=1e-3)
        grad_fn = torch_style_grad(lambda **batch: model(**batch).loss, {params})
        for batch in train_set.create_dict_iterator():
            loss = grad_fn(**batch)
            optimizer.step()
    """) == {"MSP101": [(3, 11)]}


def test_a_peft_wrapper_keeps_the_base_network_and_its_fp32_matmuls():
    assert found("""
        model = AutoModelForSeq2SeqLM.from_pretrained(name)
        model = get_peft_model(model, LoraConfig(r=8))
        trainer = Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set)
        trainer.train()
    """) == {"MSP101": [(3, 11)]}


def test_a_project_class_built_on_a_hub_model_from_a_config_is_reported():
    findings = lint("""
        class Summarizer(GPT2LMHeadModel):
            def forward(self, input_ids, labels=None):
                return super().forward(input_ids)
        model = Summarizer(GPT2Config(n_layer=12))
        Trainer(model, TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """)
    assert [(f.code, f.line - FIRST + 1) for f in findings] == [("MSP101", 5)]
    assert "Summarizer (built on GPT2LMHeadModel)" in findings[0].message


def test_a_project_module_holding_a_hub_model_is_reported():
    assert found("""
        class Classifier:
            def __init__(self):
                self.bert = BertModel.from_pretrained("bert-base-uncased")
            def forward(self, ids):
                return self.bert(ids)
        net = Classifier()
        optimizer = optim.Adam(net.trainable_params(), lr=2e-5)
        grad_fn = mindspore.value_and_grad(lambda ids: net.forward(ids).sum(), None, optimizer.parameters)
        for ids in train_set:
            optimizer(grad_fn(ids)[1])
    """) == {"MSP101": [(8, 11)]}


def test_each_training_loop_gets_its_own_finding():
    two = LOOP.format(load="") + LOOP.format(load="")
    # each at its own gradient function, the one over its own model's parameters (the second LOOP starts with a
    # blank line)
    assert found(two) == {"MSP101": [(5, 11), (14, 11)]}


def test_fp16_false_and_a_float32_free_set_optimizer_chain_are_still_reported():
    assert found(TRAINER.format(load="", args=", fp16=False")) == {"MSP101": [(3, 11)]}
    assert found("""
        model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
        args = TrainingArguments(output_dir="out").set_optimizer(name="adamw")
        Trainer(model=model, args=args, train_dataset=train_set).train()
    """) == {"MSP101": [(3, 1)]}
    assert found("""
        def main():
            model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
            args = TrainingArguments(output_dir="out", save_strategy="epoch", logging_strategy="epoch", seed=1234)
            args = args.set_optimizer(name="adamw", beta1=0.8)
            Trainer(model=model, args=args, train_dataset=train_set).train()
        if __name__ == "__main__":
            main()
    """) == {"MSP101": [(5, 5)]}


# --- silent (each beside the same program reported without what silences it) --------------------------------

REPORTED_TRAINER = {"MSP101": [(3, 11)]}
REPORTED_LOOP = {"MSP101": [(5, 11)]}


def test_loading_in_a_low_precision_dtype_is_silent():
    assert found(TRAINER.format(load="", args="")) == REPORTED_TRAINER
    assert found(LOOP.format(load="")) == REPORTED_LOOP
    for load in (", ms_dtype=mindspore.float16", ", ms_dtype=mindspore.bfloat16", ", torch_dtype=mindspore.float16",
                 ', dtype="bfloat16"', ", ms_dtype=chosen_dtype"):
        assert found(TRAINER.format(load=load, args="")) == {}, load
        assert found(LOOP.format(load=load)) == {}, load


def test_loading_in_float32_on_purpose_is_silent():
    assert found(TRAINER.format(load=", num_layers=12", args="")) == REPORTED_TRAINER
    assert found(TRAINER.format(load=", ms_dtype=mindspore.float32", args="")) == {}


def test_half_precision_training_arguments_are_silent():
    assert found(TRAINER.format(load="", args=", fp32=True")) == REPORTED_TRAINER
    for args in (", fp16=True", ", bf16=True", ", fp16=use_fp16"):
        assert found(TRAINER.format(load="", args=args)) == {}, args
    assert found("""
        model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
        Trainer(model=model, args=parse_arguments(), train_dataset=train_set).train()
    """) == {}


def test_casting_the_loaded_network_is_silent():
    assert found(TRAINER.format(load="", args="").replace("args = ", "model.set_train()\nargs = ", 1)) == \
        {"MSP101": [(4, 11)]}
    for cast in ("model.half()", "model = model.to(mindspore.float16)", "model.to(dtype=mindspore.bfloat16)",
                 "model.bfloat16()", "model.to_float(mindspore.float16)"):
        code = TRAINER.format(load="", args="").replace("args = ", cast + "\nargs = ", 1)
        assert found(code) == {}, cast


def test_moving_the_network_to_a_device_is_not_a_cast():
    code = TRAINER.format(load="", args="").replace("args = ", 'model.to("npu")\nargs = ', 1)
    assert found(code) == {"MSP101": [(4, 11)]}


def test_mixed_precision_and_precision_knobs_are_silent():
    assert found("import mindspore.amp as amp\n" + TRAINER.format(load="", args="")) == {"MSP101": [(5, 11)]}
    assert found("import mindspore.amp as amp\namp.auto_mixed_precision(model, 'O2')\n"
                 + TRAINER.format(load="", args="")) == {}
    assert found('mindspore.device_context.ascend.op_precision.precision_mode("allow_mix_precision")\n'
                 + LOOP.format(load="")) == {}


def test_gpu_and_cpu_programs_are_silent():
    assert found('mindspore.set_context(device_target="Ascend")\n' + TRAINER.format(load="", args="")) == \
        {"MSP101": [(5, 11)]}  # TRAINER starts with a blank line
    for target in ("GPU", "CPU"):
        assert found(f'mindspore.set_context(device_target="{target}")\n' + TRAINER.format(load="", args="")) == {}
    collective = "from mindspore.communication import init\ninit({})\n"
    assert found(collective.format('"hccl"') + TRAINER.format(load="", args="")) == {"MSP101": [(6, 11)]}
    assert found(collective.format("") + TRAINER.format(load="", args="")) == {"MSP101": [(6, 11)]}
    assert found(collective.format('"nccl"') + TRAINER.format(load="", args="")) == {}  # NVIDIA's collectives: GPU


def test_inference_only_is_silent():
    assert found(LOOP.format(load="")) == REPORTED_LOOP
    assert found("""
        model = AutoModelForSeq2SeqLM.from_pretrained(name)
        model.set_train(False)
        for batch in test_set.create_dict_iterator():
            print(model.generate(**batch))
    """) == {}


def test_convolutional_hub_families_are_neither_msp101s_nor_msp107s():
    assert found("""
        from mindnlp.transformers import AutoModelForImageClassification
        model = AutoModelForImageClassification.from_pretrained("google/vit-base-patch16-224")
        Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """) == {"MSP101": [(3, 1)]}
    assert found("""
        model = ResNetForImageClassification.from_pretrained("microsoft/resnet-50")
        Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """) == {}
    assert found("""
        from mindnlp.transformers import AutoModelForImageClassification
        model = AutoModelForImageClassification.from_pretrained("microsoft/resnet-50")
        Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """) == {}
    assert found("""
        from mindnlp.transformers import AutoModelForImageClassification
        model = AutoModelForImageClassification.from_pretrained(checkpoint)
        Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """) == {}


def test_a_vision_transformer_from_the_hub_is_reported():
    assert found("""
        from mindnlp.transformers import BeitForImageClassification, AutoModelForImageClassification
        model = BeitForImageClassification.from_pretrained("microsoft/beit-base-patch16-224")
        Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
        vit = AutoModelForImageClassification.from_pretrained("google/vit-base-patch16-224")
        Trainer(model=vit, args=TrainingArguments(output_dir="out"), train_dataset=train_set).train()
    """) == {"MSP101": [(3, 1), (5, 1)]}


def test_tokenizers_and_configs_are_not_networks():
    assert found("""
        from mindnlp.transformers import AutoTokenizer
        tokenizer = AutoModelForSeq2SeqLM.from_pretrained(name)
        optimizer = optim.AdamW(tokenizer.trainable_params(), lr=1e-3)
        grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
        for batch in train_set:
            optimizer(grad_fn(batch)[1])
    """) == {"MSP101": [(4, 11)]}
    assert found("""
        from mindnlp.transformers import AutoTokenizer
        tokenizer = AutoTokenizer.from_pretrained(name)
        optimizer = optim.AdamW(tokenizer.trainable_params(), lr=1e-3)
        grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
        for batch in train_set:
            optimizer(grad_fn(batch)[1])
    """) == {}


def test_examples_of_mindnlp_linted_as_a_project_that_no_longer_defines_the_api_they_import(tmp_path):
    """mindnlp 0.6 linted as a project: its package holds ``mindnlp/transformers.py`` (a shim) and no
    ``mindnlp.engine``; the examples' ``mindnlp.engine.Trainer`` and ``mindnlp.transformers.BertModel`` are the
    released API, not definitions of the project."""
    from ms_perflint.run.lint import check_folder

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mindnlp'\n")
    package = tmp_path / "src" / "mindnlp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import os\nVERSION = '0.6'\n")
    (package / "transformers.py").write_text("import warnings\nwarnings.warn('moved')\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "finetune.py").write_text(textwrap.dedent(HEADER).lstrip("\n")
                                                       + textwrap.dedent(TRAINER.format(load="", args="")))
    results = check_folder(str(tmp_path), Settings(select=("MSP101",)), rules=[Fp32Matmul])
    assert [(f.code, f.line - FIRST + 1) for f in results["examples/finetune.py"].findings] == [("MSP101", 4)]


def test_a_precision_knob_set_only_for_other_chips_does_not_cover():
    """mindnlp sets ``allow_mix_precision`` only when the SoC version is 910A's or 310B's: on the 910B target (the
    default) the fine-tuning still runs in float32; on 910A the knob is set (and the default mode casts anyway)."""
    chips = """
        from mindspore._c_expression import MSContext
        soc = MSContext.get_instance().get_ascend_soc_version()
        if soc in ("ascend910", "ascend310b"):
            mindspore.device_context.ascend.op_precision.precision_mode("allow_mix_precision")
        if "910b" not in soc:
            mindspore.set_context(ascend_config={"precision_mode": "allow_fp32_to_fp16"})
    """
    code = textwrap.dedent(chips) + textwrap.dedent(LOOP.format(load=""))
    assert found(code) == {"MSP101": [(12, 11)]}
    for this_chip in ('soc in ("ascend910b", "ascend910")', 'soc == "ascend910b"', '"910b" in soc'):
        covered = code.replace('soc in ("ascend910", "ascend310b")', this_chip)
        assert found(covered) == {}, this_chip


def test_a_notebook_names_its_own_classes_not_those_of_a_script_of_the_same_name(tmp_path):
    import json

    from ms_perflint.run.lint import check_folder

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'examples'\n")
    cells = [textwrap.dedent(HEADER).lstrip("\n"), textwrap.dedent("""
        class Summarizer(GPT2LMHeadModel):
            def forward(self, input_ids, labels=None):
                return super().forward(input_ids)
        model = Summarizer(GPT2Config(n_layer=12))
    """).lstrip("\n"), 'trainer = Trainer(model=model, args=TrainingArguments(output_dir="out"), train_dataset=data)\n',
             "trainer.train()\n"]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": cell.splitlines(keepends=True)} for cell in cells],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "summarize.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "summarize.py").write_text("import mindspore\nclass Summarizer:\n    pass\nprint(Summarizer())\n")
    results = check_folder(str(tmp_path), Settings(select=("MSP101",)), rules=[Fp32Matmul])
    assert [f.code for f in results["summarize.ipynb"].findings] == ["MSP101"]
    assert "Summarizer (built on GPT2LMHeadModel)" in results["summarize.ipynb"].findings[0].message


def test_a_project_subclass_of_mindnlps_trainer_trains_as_the_trainer():
    # bloom_alpaca: ``class ModifiedTrainer(Trainer)`` overriding compute_loss
    code = """
class ModifiedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        return model(**inputs).loss
""" + TRAINER.format(load="", args="").replace("trainer = Trainer(", "trainer = ModifiedTrainer(")
    assert found(code) == {"MSP101": [(7, 11)]}  # the ModifiedTrainer(...) line
    assert found(code.replace('num_train_epochs=3', 'num_train_epochs=3, fp16=True')) == {}


def test_an_optimizer_over_weight_decay_groups_of_the_hub_models_parameters():
    # the Hugging Face "no_decay" idiom: two groups of the same model's (name, parameter) pairs
    code = """
model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=2)
no_decay = ["bias", "layer_norm.weight"]
groups = [
    {"params": [p for n, p in model.parameters_and_names() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.parameters_and_names() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = mindspore.nn.AdamWeightDecay(groups, learning_rate=2e-5)
def forward_fn(**batch):
    return model(**batch).loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for batch in train_set.create_dict_iterator():
    loss, grads = grad_fn(**batch)
    optimizer(grads)
"""
    assert found(code) == {"MSP101": [(10, 11)]}
    # groups of two different networks name no one network
    two = code.replace('{"params": [p for n, p in model.parameters_and_names() if any',
                       '{"params": [p for n, p in head.parameters_and_names() if any')
    assert found(two) == {}


def test_a_gradient_function_in_library_code_the_program_reaches_does_not_hide_the_scripts_own(tmp_path):
    # mindnlp notebooks: the script's grad_fn = value_and_grad(forward_fn, model.trainable_params()); the package
    # the program imports builds a GradOperation of its own in a helper cell
    (tmp_path / "helpers.py").write_text(
        "import mindspore.ops.composite as C\n"
        "from mindspore import nn\n"
        "class Accumulator(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.grad = C.GradOperation(get_by_list=True)\n")
    loop = LOOP.format(load="").replace("mindspore.value_and_grad(forward_fn, None, model.trainable_params())",
                                        "torch_style_grad(forward_fn, model.trainable_params())")  # (fn, params)
    assert "torch_style_grad" in loop
    script = textwrap.dedent(HEADER).lstrip("\n") + textwrap.dedent(loop).lstrip("\n") + \
        "from helpers import Accumulator\naccumulator = Accumulator()\n"
    (tmp_path / "finetune.py").write_text(script)
    found = check_folder(str(tmp_path), Settings(select=("MSP101",)), rules=[Fp32Matmul])
    lines = script.splitlines()
    reported = [lines[f.line - 1].split(" =")[0] for result in found.values() for f in result.findings]
    assert reported == ["grad_fn"]


def test_mindnlps_earlier_engine_trains_a_network_handed_in_by_keyword_when_run():
    # mindnlp 0.2's engine: ``Trainer(network=..., optimizer=...)`` trained by ``trainer.run(tgt_columns=...)``
    code = """
model = GPT2LMHeadModel(GPT2Config(n_layer=12))
optimizer = mindspore.nn.Adam(model.trainable_params(), learning_rate=2e-5)
trainer = Trainer(network=model, train_dataset=train_set, epochs=3, optimizer=optimizer)
trainer.run(tgt_columns="labels")
"""
    assert found(code) == {"MSP101": [(3, 11)]}
    assert found(code.replace('trainer.run(tgt_columns="labels")', "print(trainer)")) == {}  # built, never run
    assert found(code.replace("trainer.run(", "runner.run(")) == {}  # run on something else
