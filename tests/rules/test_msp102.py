"""MSP102 unaligned-matmul-dim: large MatMul output widths that are not multiples of 16, in code Ascend programs run."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from ms_perflint.project.index import ProjectIndex
from ms_perflint.project.model import Project
from ms_perflint.rules.check import Check
from ms_perflint.rules.msp102_unaligned_matmul_dim import DEFAULT_MIN_DIM, UnalignedMatmulDim
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings

PROJECTS = Path(__file__).resolve().parent.parent / "projects"

Found = Tuple[str, int, int, str]


def lint_project(root: Path, **options) -> List[Found]:
    """``(path, line, 1-based column, message)`` of every MSP102 finding in the project at ``root``."""
    settings = Settings(rule_options={key.replace("_", "-"): value for key, value in options.items()})
    index = ProjectIndex(str(root)).refresh()
    check = Check(Project(str(root), index.facts()), lambda _: settings, UnalignedMatmulDim.option_defaults())
    UnalignedMatmulDim().check(check)
    return sorted((path, f.line, f.column + 1, f.message) for path, found in check.findings.items() for f in found)


def lint_files(tmp_path: Path, files: Dict[str, str], **options) -> List[Found]:
    """Write a small project (``{relative path: text}``) and lint it."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    for relative, text in files.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    return lint_project(tmp_path, **options)


def lint(code: str, **options) -> List[Tuple[int, int, str]]:
    """One file, checked as a project of one file."""
    settings = Settings(rule_options={key.replace("_", "-"): value for key, value in options.items()})
    result = check_text(textwrap.dedent(code).lstrip("\n"), "example.py", settings, rules=[UnalignedMatmulDim])
    assert result.error is None, result.error
    return [(f.line, f.column + 1, f.message) for f in result.findings]


def places(found) -> List[tuple]:
    return [item[:-1] for item in found]


TRAIN = """
    from mindspore.train import Model
    if __name__ == "__main__":
        Model(NET, loss, opt).train(1, data)
"""


def program(body: str, net: str = "Net()") -> str:
    """A module whose ``__main__`` block trains ``net`` (the body defines it)."""
    return textwrap.dedent(body).lstrip("\n") + textwrap.dedent(TRAIN).replace("NET", net)


# --- what is reported -------------------------------------------------------------------------------


def test_vocabulary_head_is_reported_where_the_vocabulary_is_written():
    found = lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, hidden=768, vocab_size=50257):
                super().__init__()
                self.lm_head = nn.Dense(hidden, vocab_size, has_bias=False)
    """))
    assert places(found) == [(3, 47)]
    message = found[0][2]
    assert "vocab_size 50257" in message and "nn.Dense out_channels at example.py:5" in message
    assert "pad vocab_size to 50272 and slice the logits back to 50257" in message


def test_literal_constant_and_caller_values():
    found = lint(program("""
        from mindspore import nn
        VOCAB = 30522
        def head(width):
            return nn.Dense(768, width)
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.mlm = head(VOCAB)
                self.lm = nn.Dense(1024, 21128)
    """))
    assert places(found) == [(2, 9), (9, 34)]
    assert "VOCAB 30522" in found[0][2] and "at example.py:4" in found[0][2]


def test_linear_and_mint_linear_use_their_own_parameter_names():
    found = lint(program("""
        from mindspore import mint, nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.a = nn.Linear(in_features=768, out_features=50257)
                self.b = mint.nn.Linear(768, 21128)
    """))
    assert places(found) == [(5, 58), (6, 38)]
    assert "nn.Linear out_features" in found[0][2]


def test_hidden_width_is_reported_once_naming_its_consumers():
    found = lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, hidden=1000, ffn=3000):
                super().__init__()
                self.up = nn.Dense(768, ffn)
                self.down = nn.Dense(ffn, 768)
    """))
    assert places(found) == [(3, 41)]
    assert "also the input width of nn.Dense at example.py:6" in found[0][2]
    assert "never in one layer alone" in found[0][2]
    assert "slice" not in found[0][2]


def test_a_width_shared_by_several_layers_is_one_finding():
    found = lint(program("""
        from mindspore import nn
        VOCAB = 50257
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.a = nn.Dense(768, VOCAB)
                self.b = nn.Dense(768, VOCAB)
    """))
    assert len(found) == 1
    assert "example.py:6" in found[0][2] and "example.py:7" in found[0][2]


def test_weight_multiplied_by_a_matmul_primitive_follows_transpose_b():
    code = program("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        from mindspore.common.initializer import initializer
        class Net(nn.Cell):
            def __init__(self, vocab=21128, hidden=768):
                super().__init__()
                self.table = ms.Parameter(initializer("normal", [vocab, hidden], ms.float32))
                self.matmul = ops.MatMul(transpose_b=TRANSPOSE)
            def construct(self, x):
                return self.matmul(x, self.table)
    """)
    assert places(lint(code.replace("TRANSPOSE", "True"))) == [(6, 30)]
    # Not transposed, the table is [K, N]: 21128 is the reduced dim and 768 the output width.
    assert lint(code.replace("TRANSPOSE", "False")) == []


@pytest.mark.parametrize("use", [
    "x @ self.w",
    "ops.matmul(x, self.w)",
    "self.w.matmul(x)",
    "ops.BatchMatMul()(x, self.w)",
    "self.mm(x, self.cast(self.w, ms.float16))",
    "self.w.matmul(x)",
])
def test_every_matmul_spelling_a_weight_can_feed(use):
    found = lint(program(f"""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Parameter(ms.Tensor(np.random.normal(0, 0.02, size=(768, 50257)).astype(np.float32)))
                self.mm = ops.MatMul()
                self.cast = ops.Cast()
            def construct(self, x):
                return {use}
    """))
    # ``self.w.matmul(x)`` multiplies from the left: the output width is the weight's 768 rows.
    expected = [] if use.startswith("self.w.matmul") else [(7, 78)]
    assert places(found) == expected


def test_ops_dense_weight_is_out_by_in():
    found = lint(program("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Parameter(ms.Tensor(np.zeros((30522, 768), np.float32)))
            def construct(self, x):
                return ops.dense(x, self.w)
    """))
    assert places(found) == [(7, 51)]


def test_self_w_matmul_x_multiplies_the_weight_from_the_left():
    found = lint(program("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.w = ms.Parameter(ms.Tensor(np.ones((50257, 768), np.float32)))
            def construct(self, x):
                return self.w.matmul(x)
    """))
    assert places(found) == [(7, 50)]


def test_tied_head_through_a_layers_embedding_table():
    found = lint(program("""
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self, vocab_size=21128):
                super().__init__()
                self.embedding = nn.Embedding(vocab_size, 768)
                self.matmul = ops.MatMul(transpose_b=True)
            def construct(self, ids, hidden):
                return self.matmul(hidden, self.embedding.embedding_table)
    """))
    assert places(found) == [(3, 35)]
    assert "weight self.embedding.embedding_table of a MatMul" in found[0][2]


def test_one_hot_embedding_multiplies_by_the_vocabulary():
    code = program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(50257, 768, use_one_hot=ONE_HOT)
    """)
    found = lint(code.replace("ONE_HOT", "True"))
    assert places(found) == [(5, 39)]
    assert "the vocabulary of nn.Embedding(use_one_hot=True)" in found[0][2]
    assert "pad the vocabulary to 50272" in found[0][2]
    assert lint(code.replace("ONE_HOT", "False")) == []


def test_project_layer_with_a_conditional_shape_and_a_transpose_parameter():
    """mindformers' Linear: ``[out, in] if transpose_b else [in, out]`` next to ``MatMul(transpose_b=transpose_b)``."""
    found = lint(program("""
        import mindspore as ms
        from mindspore import nn, ops
        from mindspore.common.initializer import initializer
        class Linear(nn.Cell):
            def __init__(self, in_channels, out_channels, transpose_b=True, **kwargs):
                super().__init__()
                shape = [out_channels, in_channels] if transpose_b else [in_channels, out_channels]
                self.weight = ms.Parameter(initializer("normal", shape, ms.float32))
                self.matmul = ops.MatMul(transpose_b=transpose_b)
                self.cast = ops.Cast()
            def construct(self, x):
                return self.matmul(x, self.cast(self.weight, self.dtype))
        class Net(nn.Cell):
            def __init__(self, vocab_size=50257):
                super().__init__()
                self.lm_head = Linear(768, vocab_size)
                self.ffn = Linear(768, 3072, transpose_b=False)
    """))
    assert places(found) == [(14, 35)]


def test_config_class_defaults_and_constructions():
    found = lint_files_inline("""
        import argparse
        from mindspore import nn
        class BertConfig:
            def __init__(self, vocab_size=32000, hidden_size=768):
                self.vocab_size = vocab_size
                self.hidden_size = hidden_size
        class Bert(nn.Cell):
            def __init__(self, config):
                super().__init__()
                self.head = nn.Dense(config.hidden_size, config.vocab_size)
        def parse():
            parser = argparse.ArgumentParser()
            parser.add_argument("--vocab_size", type=int, default=21128)
            return parser.parse_args()
        if __name__ == "__main__":
            args = parse()
            net = Bert(BertConfig(vocab_size=args.vocab_size))
            ms.nn.TrainOneStepCell(net, opt)
    """)
    # 32000 is the class default no construction uses; the argparse default is what runs.
    assert places(found) == [(14, 59)]
    assert "vocab_size 21128" in found[0][2]


def lint_files_inline(code: str) -> List[Tuple[int, int, str]]:
    return lint("import mindspore as ms\n" + textwrap.dedent(code).lstrip("\n"))


# --- options -----------------------------------------------------------------------------------------


HIDDEN = program("""
    from mindspore import nn
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.up = nn.Dense(768, 1500)
""")


def test_alignment_option():
    assert places(lint(HIDDEN, alignment=8)) == [(5, 33)]  # 1500 = 8 * 187 + 4
    assert lint(HIDDEN, alignment=4) == []
    assert "multiple of 32" in lint(HIDDEN, alignment=32)[0][2]


def test_min_unaligned_dim_option_and_its_default():
    assert DEFAULT_MIN_DIM == 512
    assert lint(HIDDEN, min_unaligned_dim=2000) == []
    small = HIDDEN.replace("1500", "500")
    assert lint(small) == []
    assert places(lint(small, min_unaligned_dim=100)) == [(5, 33)]


@pytest.mark.parametrize("bad", [0, -16, "x", True, None])
def test_invalid_option_values_fall_back_to_the_defaults(bad):
    assert places(lint(HIDDEN, alignment=bad, min_unaligned_dim=bad)) == [(5, 33)]


# --- what stays silent --------------------------------------------------------------------------------


@pytest.mark.parametrize("head", [
    "nn.Dense(2048, num_classes)",
    "nn.Dense(2048, config.num_labels)",
    "nn.Dense(2048, self.class_num)",
    "nn.Dense(2048, n_classes + 1)",
    "nn.Dense(2048, numClasses)",
    "nn.Dense(2048, nc)",
    "nn.Dense(2048, 1000)",
    "nn.Dense(2048, 1001)",
])
def test_class_count_heads_are_silent(head):
    code = program(f"""
        from mindspore import nn
        class Config:
            num_labels = 21841
        config = Config()
        class Net(nn.Cell):
            def __init__(self, num_classes=21841, n_classes=6624, numClasses=9605, nc=5003):
                super().__init__()
                self.class_num = 11221
                self.head = {head}
    """)
    assert lint(code) == []


def test_a_classifiers_mlp_head_is_silent_with_its_class_count():
    """``nn.Dense(1080, num_classes)`` at the end of a CNN: the whole head runs once per image on pooled features."""
    code = program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.pre_logits = nn.Dense(2048, 1500)
                self.head = nn.Dense(1500, num_classes)
    """)
    assert lint(code) == []
    # Without the class-count head, the same 1500 is a hidden width worth reporting.
    assert places(lint(code.replace("num_classes)", "768)"))) == [(5, 42)]


def test_a_vocabulary_head_next_to_a_class_count_head_is_still_reported():
    found = lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, vocab_size=50257, num_labels=2):
                super().__init__()
                self.lm_head = nn.Dense(768, vocab_size)
                self.score = nn.Dense(768, num_labels)
                self.proj = nn.Dense(768, 1500)
    """))
    assert places(found) == [(3, 35)]


def test_input_dims_and_small_widths_are_silent():
    assert lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Dense(9000, 30)
                self.fc2 = nn.Dense(30, 7)
                self.qkv = nn.Dense(120, 360)
    """)) == []


@pytest.mark.parametrize("vocab", ["len(tokenizer)", "clusters.shape[0]", "args.vocab"])
def test_unknown_dims_are_silent(vocab):
    assert lint(program(f"""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, tokenizer, clusters, args):
                super().__init__()
                self.head = nn.Dense(768, {vocab})
    """, net="Net(tok, km, parse())")) == []


def test_plain_embedding_lookup_is_silent():
    assert lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.embedding = nn.Embedding(21128, 768)
                self.classifier = nn.Dense(768, 2)
    """)) == []


def test_unknown_transpose_leaves_the_weight_alone():
    assert lint(program("""
        import mindspore as ms
        from mindspore import nn, ops
        from mindspore.common.initializer import initializer
        class Net(nn.Cell):
            def __init__(self, flag):
                super().__init__()
                self.w = ms.Parameter(initializer("normal", [768, 50257], ms.float32))
                self.matmul = ops.MatMul(transpose_b=flag)
            def construct(self, x):
                return self.matmul(x, self.w)
    """, net="Net(args.flag)")) == []


def test_a_dim_passed_through_kwargs_is_unknown():
    """``Config(**yaml)``: a default that the mapping may override is not the value that runs."""
    assert lint(program("""
        from mindspore import nn
        class Config:
            def __init__(self, vocab_size=50257, **kwargs):
                self.vocab_size = vocab_size
        class Net(nn.Cell):
            def __init__(self, config):
                super().__init__()
                self.head = nn.Dense(768, config.vocab_size)
    """, net="Net(Config(**loaded))")) == []


def test_code_no_program_runs_is_silent():
    assert lint("""
        from mindspore import nn
        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.lm_head = nn.Dense(768, 50257)
    """) == []


def test_non_ascend_programs_are_silent():
    code = """
        import mindspore as ms
        from mindspore import nn
        from mindspore.train import Model
        if __name__ == "__main__":
            ms.set_context(device_target=TARGET)
            Model(nn.SequentialCell([nn.Dense(768, 50257)]), loss, opt).train(1, data)
    """
    assert lint(code.replace("TARGET", '"GPU"')) == []
    assert places(lint(code.replace("TARGET", '"Ascend"'))) == [(6, 44)]


def test_zoo_models_the_trained_network_is_not_built_from_are_silent(tmp_path):
    found = lint_files(tmp_path, {
        "src/__init__.py": "",
        "src/registry.py": """
            MODELS = {}
            def register_model(cls):
                MODELS[cls.__name__] = cls
                return cls
        """,
        "src/models.py": """
            from mindspore import nn
            from src.registry import register_model
            @register_model
            class Small(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Dense(768, 3000)
            @register_model
            class Big(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.head = nn.Dense(768, 50257)
        """,
        "train.py": """
            from mindspore.train import Model
            from src.models import Small
            from src import registry
            if __name__ == "__main__":
                Model(Small(), loss, opt).train(1, data)
        """,
    })
    assert places(found) == [("src/models.py", 7, 35)]


def test_a_value_passed_only_by_code_no_program_runs_is_silent(tmp_path):
    found = lint_files(tmp_path, {
        "src/__init__.py": "",
        "src/layers.py": """
            from mindspore import nn
            def head(width):
                return nn.Dense(768, width)
        """,
        "src/unused.py": """
            from src.layers import head
            def build_other():
                return head(50257)
        """,
        "train.py": """
            import mindspore as ms
            from src.layers import head
            if __name__ == "__main__":
                ms.nn.TrainOneStepCell(head(3000), opt)
        """,
    })
    assert places(found) == [("train.py", 4, 33)]


def test_language_models_fixture_project(tmp_path):
    import shutil

    root = tmp_path / "project"
    shutil.copytree(PROJECTS / "msp102_language_models", root)
    expected = (root / "expected.txt").read_text().split()
    found = lint_project(root)
    assert [f"{path}:{line}:{column}" for path, line, column, _ in found] == expected[0::2]
    messages = {path: message for path, _, _, message in found}
    assert "nn.Dense out_channels at src/gpt.py:10" in messages["configs/gpt2_small.yaml"]
    assert "weight self.word_embeddings.embedding_table of a MatMul at src/bert.py:21" in messages["src/bert.py"]


def test_there_is_never_a_fix():
    for code in (HIDDEN, program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.head = nn.Dense(768, 50257)
    """)):
        settings = Settings()
        result = check_text(code, "example.py", settings, rules=[UnalignedMatmulDim])
        assert result.findings and all(f.fix is None for f in result.findings)


# --- Tile and Div, and guarded code --------------------------------------------------------------------


@pytest.mark.parametrize("tile, expected", [
    ("self.tile(self.query, (1, 7))", [(9, 39)]),  # 100 * 7 = 700, reported at the multiples
    ("ops.tile(self.query, (4, 7))", [(9, 38)]),
    ("self.tile(self.query, (7, 1))", []),  # 100 on the last axis: below the threshold
    ("self.tile(self.query, (1, 16))", []),  # 1600: aligned
    ("self.tile(self.query, multiples)", []),  # unknown multiples
])
def test_tile_result_last_axis(tile, expected):
    found = lint(program(f"""
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.tile = ops.Tile()
                self.query = ops.zeros((8, 100))
            def construct(self, x, multiples):
                y = x
                return {tile}
    """))
    assert places(found) == expected
    if found:
        assert "700 (the last axis of a Tile result" in found[0][2]


def test_div_of_a_weight_with_a_large_ragged_last_axis():
    found = lint(program("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.scale = ms.Parameter(ms.Tensor(np.ones((4, 50257), np.float32)))
                self.div = ops.Div()
            def construct(self, x):
                return self.div(x, self.scale)
    """))
    assert places(found) == [(7, 57)]
    assert "weight self.scale of a Div" in found[0][2]


def test_a_matmul_behind_a_flag_that_is_always_off_is_silent():
    code = program("""
        import numpy as np
        import mindspore as ms
        from mindspore import nn, ops
        class Net(nn.Cell):
            def __init__(self, vocab_size=39284, use_one_hot=FLAG):
                super().__init__()
                self.use_one_hot = use_one_hot
                self.table = ms.Parameter(ms.Tensor(np.zeros((vocab_size, 512), np.float32)))
                self.matmul = ops.MatMul(transpose_b=True)
            def construct(self, x):
                if self.use_one_hot:
                    return self.matmul(x, self.table)
                return x
    """)
    assert lint(code.replace("FLAG", "False")) == []
    assert places(lint(code.replace("FLAG", "True"))) == [(5, 35)]


# --- real-code look-alikes -------------------------------------------------------------------------------


def test_ocr_character_head_configured_as_num_classes_is_silent(tmp_path):
    """mindocr: ``out_channels: *num_classes`` (6624 characters + blank) in the YAML beside the script."""
    found = lint_files(tmp_path, {
        "configs/rec.yaml": """
            common:
              num_classes: 6625
            head:
              name: CTCHead
        """,
        "train.py": """
            import yaml
            from mindspore import nn
            from mindspore.train import Model
            class CTCHead(nn.Cell):
                def __init__(self, in_channels, out_channels):
                    super().__init__()
                    self.fc = nn.Dense(in_channels, out_channels)
            if __name__ == "__main__":
                cfg = yaml.safe_load(open("configs/rec.yaml"))
                Model(CTCHead(96, cfg["num_classes"]), loss, opt).train(1, data)
        """,
    })
    assert found == []


def test_cifar_vgg_with_an_imagenet_sized_hidden_layer_is_silent():
    """A VGG for CIFAR-10 keeping ImageNet's 4096 -> 1000 layer before its 10-class head."""
    assert lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, num_class=10):
                super().__init__()
                self.fc1 = nn.Dense(8 * 8 * 512, 4096)
                self.fc2 = nn.Dense(4096, 4096)
                self.fc3 = nn.Dense(4096, 1000)
                self.fc4 = nn.Dense(1000, num_class)
    """)) == []


def test_nasnet_head_input_width_is_silent():
    assert lint(program("""
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.classifier = nn.Dense(1080, num_classes)
    """)) == []


def test_vocabulary_from_a_json_config_beside_the_script_is_reported_at_the_layer(tmp_path):
    """A Hugging Face style ``bert_config.json``: JSON configs are read, but findings stay in Python files."""
    files = {
        "bert_config.json": '{\n  "hidden_size": 768,\n  "vocab_size": 21128\n}\n',
        "vocab.json": '{\n  "vocab_size": 99999\n}\n',  # not named as a config: data, never read
        "train.py": """
            import json
            from mindspore import nn
            from mindspore.train import Model
            class BertHead(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.decoder = nn.Dense(config["hidden_size"], config["vocab_size"])
            if __name__ == "__main__":
                config = json.load(open("bert_config.json"))
                Model(BertHead(config), loss, opt).train(1, data)
        """,
    }
    found = lint_files(tmp_path, files)
    assert places(found) == [("train.py", 7, 24)]
    assert "vocab_size 21128 (set in bert_config.json:3)" in found[0][3]
    index = ProjectIndex(str(tmp_path)).refresh()
    assert "bert_config.json" in index.facts() and "vocab.json" not in index.facts()


def test_a_small_mlp_is_silent_and_a_large_one_is_reported():
    # RULES.md: a network whose MatMul work is small (MSP101's bound: a 2 M-parameter MLP) gains nothing from padding.
    # 312 x 700 + 700 x 85 = 277,900 MatMul weights; the same 700-wide hidden layer between 4096-wide ones is 5.7 M
    mlp = """
        from mindspore import nn
        class Net(nn.Cell):
            def __init__(self, inputs=312, hidden=700, outputs=85):
                super().__init__()
                self.fc1 = nn.Dense(inputs, hidden)
                self.fc2 = nn.Dense(hidden, outputs)
            def construct(self, x):
                return self.fc2(self.fc1(x))
    """
    assert lint(program(mlp)) == []
    large = program(mlp.replace("inputs=312", "inputs=4096").replace("outputs=85", "outputs=4096"))
    assert [line for line, _, _ in lint(large)] == [3]


def test_a_width_from_a_family_table_is_silent_and_the_same_width_written_alone_is_reported():
    # EdgeNeXt-like stages: each stage's block takes dims[i] from a table of per-stage widths. 584 is unaligned, but
    # it is one of the architecture's widths: padding it changes every stage and every checkpoint of the family.
    staged = """
        from mindspore import nn
        class Block(nn.Cell):
            def __init__(self, dim):
                super().__init__()
                self.qkv = nn.Dense(dim, dim * 3)
            def construct(self, x):
                return self.qkv(x)
        class Net(nn.Cell):
            def __init__(self, dims=(584, 1024, 2048)):
                super().__init__()
                self.stages = nn.SequentialCell([Block(dims[i]) for i in range(3)])
            def construct(self, x):
                return self.stages(x)
    """
    assert lint(program(staged)) == []
    written = staged.replace("[Block(dims[i]) for i in range(3)]", "[Block(dims[0]), Block(dims[1]), Block(dims[2])]")
    assert [message.split(" (")[0] for _, _, message in lint(program(written))] == ["dim 1752"]
