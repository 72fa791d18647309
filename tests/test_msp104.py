"""MSP104 resnet50-1000-classes: which calls build a ResNet-50, where their class count comes from, when to keep quiet.

Expected positions are counted by hand from the snippets (1-based columns, as users read them).
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from ms_perflint.fixer import fix_source
from ms_perflint.settings import Settings
from tests.conftest import lint

CODE = "MSP104"


def found(source: str) -> list:
    """``[(line, column)]`` of MSP104 findings in a dedented snippet."""
    return [(v.line, v.column + 1) for v in lint(textwrap.dedent(source)) if v.code == CODE]


def violations(source: str) -> list:
    return [v for v in lint(textwrap.dedent(source)) if v.code == CODE]


def fixed(source: str, select=(CODE,)) -> str:
    """The snippet after ``--fix --unsafe-fixes`` (unchanged text when nothing is fixed)."""
    text = textwrap.dedent(source)
    result = fix_source(text, "example.py", Settings(select=select), unsafe=True)
    assert result.problems == [], [p.message for p in result.problems]
    return text if result.fixed_text is None else result.fixed_text


# --- mindcv ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, call",
    [
        ("from mindcv.models import resnet50", "resnet50"),
        ("import mindcv", "mindcv.resnet50"),
        ("import mindcv", "mindcv.models.resnet50"),
        ("from mindcv.models.resnet import resnet50 as build", "build"),
    ],
)
def test_mindcv_resnet50_with_1000_classes_in_every_spelling(header, call):
    source = f"{header}\nnet = {call}(num_classes=1000)\n"
    column = len(f"net = {call}(num_classes=") + 1
    assert found(source) == [(2, column)]


def test_mindcv_positional_class_count_is_the_second_argument():
    assert found("from mindcv.models import resnet50\nnet = resnet50(False, 1000)\n") == [(2, 23)]
    assert found("from mindcv.models import resnet50\nnet = resnet50(1000)\n") == []  # that is pretrained


def test_mindcv_default_is_reported_at_the_call_and_fixed_by_appending_the_keyword():
    source = "from mindcv.models import resnet50\nnet = resnet50(pretrained=False)\n"
    (violation,) = violations(source)
    assert (violation.line, violation.column + 1) == (2, 7)
    assert "defaults to num_classes=1000" in violation.message and "1001" in violation.message
    assert fixed(source) == "from mindcv.models import resnet50\nnet = resnet50(pretrained=False, num_classes=1001)\n"


@pytest.mark.parametrize(
    "call",
    [
        "resnet50(num_classes=1001)",
        "resnet50(num_classes=10)",
        "resnet50(True)",
        "resnet50(pretrained=True)",
        "resnet50(pretrained=True, num_classes=1000)",
        "resnet50(pretrained=args.pretrained)",
        "resnet50(num_classes=args.num_classes)",
        "resnet50(**cfg)",
        "resnet50(*options)",
        "resnet50(num_classes=1000.0)",
        "resnet50(num_classes=True)",
        "resnet101(num_classes=1000)",
        "resnet50_gn(num_classes=1000)",
    ],
)
def test_mindcv_look_alikes_are_silent(call):
    header = "from mindcv.models import resnet50, resnet101, resnet50_gn\n"
    source = f"{header}def f(args, cfg, options):\n    return {call}\n"
    assert found(source) == []


def test_create_model_positional_keyword_and_constant_model_names():
    source = """\
        import mindcv
        from mindcv.models import create_model
        BACKBONE = "resnet50"
        a = mindcv.create_model("resnet50", 1000)
        b = create_model(model_name="resnet50", num_classes=1000)
        c = create_model(BACKBONE)
        """
    assert found(source) == [(4, 37), (5, 53), (6, 5)]


def test_create_model_default_is_fixed_following_a_one_per_line_layout():
    source = """\
        import mindcv
        net = mindcv.create_model(
            "resnet50",
            drop_rate=0.2,
        )
        """
    assert fixed(source) == textwrap.dedent(
        """\
        import mindcv
        net = mindcv.create_model(
            "resnet50",
            drop_rate=0.2,
            num_classes=1001,
        )
        """
    )


@pytest.mark.parametrize(
    "call",
    [
        'create_model("resnet50", pretrained=True)',
        'create_model("resnet50", 1000, True)',
        'create_model("resnet50", checkpoint_path="imagenet.ckpt")',
        'create_model("resnet50", 1000, False, 3, "imagenet.ckpt")',
        'create_model("resnet50", checkpoint_path=args.ckpt)',
        'create_model("resnet101")',
        'create_model("resnet50_v2")',
        "create_model(args.model)",
        "create_model()",
        "create_model(model_name=None)",
        'timm.create_model("resnet50")',
    ],
)
def test_create_model_look_alikes_are_silent(call):
    source = f"import timm\nfrom mindcv.models import create_model\ndef f(args):\n    return {call}\n"
    assert found(source) == []


def test_create_model_with_an_empty_checkpoint_path_is_reported():
    source = 'from mindcv.models import create_model\nnet = create_model("resnet50", checkpoint_path="")\n'
    assert found(source) == [(2, 7)]


# --- builders of the file's own (model zoo) ------------------------------------------------------


def test_local_default_is_reported_once_at_the_default_not_at_calls_relying_on_it():
    source = """\
        import mindspore.nn as nn
        def resnet50(class_num=1000):
            return ResNet(class_num)
        net = resnet50()
        other = resnet50(class_num=1000)
        """
    assert found(source) == [(2, 24), (5, 28)]
    assert "class_num=1000 by default" in violations(source)[0].message


def test_local_class_uses_its_init_signature_without_self():
    source = """\
        from mindspore import nn
        class ResNet50(nn.Cell):
            def __init__(self, num_classes=10, include_top=True):
                super().__init__()
        a = ResNet50(1000)
        b = ResNet50(include_top=False, num_classes=1000)
        c = ResNet50(10, 1000)
        """
    assert found(source) == [(5, 14), (6, 45)]


def test_local_default_through_a_constant_is_reported_without_a_fix():
    source = "import mindspore\nCLASSES = 1000\ndef resnet50(class_num=CLASSES):\n    pass\n"
    (violation,) = violations(source)
    assert (violation.line, violation.column + 1) == (3, 24)
    assert violation.fix is None


def test_keyword_only_class_count():
    source = "import mindspore\ndef resnet50(*, num_classes=1000):\n    pass\nnet = resnet50(1000)\n"
    assert found(source) == [(2, 29)]


@pytest.mark.parametrize(
    "source",
    [
        "import mindspore\ndef resnet50(class_num=10):\n    pass\n",
        "import mindspore\ndef resnet50(class_num=1001):\n    pass\n",
        "import mindspore\ndef resnet50(num_classes=1000, pretrained=True):\n    pass\n",
        "import mindspore\ndef resnet50(class_num=1000):\n    net = ResNet(class_num)\n"
        "    mindspore.load_param_into_net(net, mindspore.load_checkpoint('r50.ckpt'))\n    return net\n",
        "import mindspore\ndef resnet50(class_num=1000):\n    pass\nnet = resnet50(pretrained=True)\n",
        "import mindspore\ndef resnet50(class_num=1000):\n    pass\n"
        "def build(path):\n    net = resnet50()\n    mindspore.load_checkpoint(path, net)\n    return net\n",
        "import mindspore\ndef resnet50(depth, class_num):\n    pass\nnet = resnet50(50, class_num=10)\n",
        "import mindspore\ndef resnet50(depth=50):\n    pass\nnet = resnet50(num_classes=1000)\n",
        "import mindspore\nclass Zoo:\n    def resnet50(self, class_num=1000):\n        pass\n",
        "import mindspore\ndef resnet18(class_num=1000):\n    pass\n",
    ],
    ids=[
        "ten", "1001", "pretrained-default", "loads-in-builder", "call-pretrained", "call-then-load",
        "no-default", "no-class-count-param", "method", "other-depth",
    ],
)
def test_local_look_alikes_are_silent(source):
    assert found(source) == []


# --- imported builders ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "header, call",
    [
        ("from src.resnet import resnet50", "resnet50(class_num=1000)"),
        ("from src.resnet import resnet50 as resnet", "resnet(class_num=1000)"),
        ("from .resnet import resnet50", "resnet50(num_classes=1000)"),
        ("from ..models import ResNet50", "ResNet50(num_classes=1000)"),
        ("import src.resnet as models", "models.resnet50(class_num=1000)"),
        ("from mindspore.model_zoo.resnet import resnet50", "resnet50(class_num=1000)"),
        ("from src.resnet import resnet50", "resnet50(1000)"),
    ],
)
def test_imported_builders_of_unknown_signature(header, call):
    source = f"import mindspore\n{header}\nnet = {call}\n"
    assert found(source) == [(3, len("net = " + call) - 4)]


@pytest.mark.parametrize(
    "header, call",
    [
        ("from src.resnet import resnet50", "resnet50()"),
        ("from src.resnet import resnet50", "resnet50(NUM)"),
        ("from src.resnet import resnet50", "resnet50(True, num_classes=1000)"),
        ("from src.resnet import resnet50", "resnet50(class_num=1000, pretrained=True)"),
        ("from src.resnet import resnet50", "resnet50(class_num=1000, checkpoint_path='r50.ckpt')"),
        ("from src.resnet import resnet50", "resnet50(**cfg)"),
        ("import torchvision", "torchvision.models.resnet50(num_classes=1000)"),
        ("from torchvision.models import resnet50 as tv_resnet50", "tv_resnet50(num_classes=1000)"),
        ("import paddle", "paddle.vision.models.resnet50(num_classes=1000)"),
        ("import timm", "timm.models.resnet50(num_classes=1000)"),
        ("from tensorflow.keras.applications import ResNet50", "ResNet50(num_classes=1000)"),
    ],
)
def test_imported_look_alikes_are_silent(header, call):
    source = f"import mindspore\nNUM = 1000\ncfg = {{}}\n{header}\nnet = {call}\n"
    assert found(source) == []


def test_torchvision_next_to_mindspore_is_not_reported_but_mindcv_is():
    source = """\
        import mindspore
        import torchvision
        from mindcv.models import resnet50
        teacher = torchvision.models.resnet50(num_classes=1000)
        student = resnet50(num_classes=1000)
        """
    assert found(source) == [(5, 32)]


def test_files_that_are_not_mindspore_code_are_not_linted():
    assert found("import torchvision\nnet = torchvision.models.resnet50(num_classes=1000)\n") == []
    assert found("from src.resnet import resnet50\nnet = resnet50(class_num=1000)\n") == []


# --- checkpoints loaded in the same function -------------------------------------------------------


@pytest.mark.parametrize(
    "load",
    [
        "ms.load_checkpoint(path, net)",
        "ms.load_param_into_net(net, ms.load_checkpoint(path))",
        "load_checkpoint(path, net=net)",
        "serialization.load_param_into_net(net, params)",
        "ms.load_checkpoint_async(path)",
        "load_pretrained(net, cfg)",
    ],
)
def test_a_checkpoint_loaded_in_the_same_function_silences(load):
    source = f"""\
        import mindspore as ms
        from mindspore import load_checkpoint
        from mindspore.train import serialization
        from mindcv.models.helpers import load_pretrained
        from mindcv.models import resnet50
        def build(path, params, cfg):
            net = resnet50(num_classes=1000)
            {load}
            return net
        """
    assert found(source) == []


def test_a_loader_elsewhere_does_not_silence():
    source = """\
        import mindspore as ms
        from mindcv.models import resnet50
        def restore(net, path):
            ms.load_checkpoint(path, net)
        def build():
            net = resnet50(num_classes=1000)
            def later(path):
                ms.load_checkpoint(path, net)
            return net, later
        """
    assert found(source) == [(6, 32)]


def test_module_level_builder_and_loader():
    source = "import mindspore as ms\nfrom mindcv.models import resnet50\n"
    source += "net = resnet50()\nms.load_checkpoint('r50.ckpt', net)\n"
    assert found(source) == []


# --- fixes -------------------------------------------------------------------------------------


def test_literal_becomes_1001_and_nothing_else_changes():
    source = """\
        from src.resnet import resnet50  # model zoo
        import mindspore
        net = resnet50(
            class_num=1_000,  # ImageNet
        )
        """
    assert fixed(source) == textwrap.dedent(
        """\
        from src.resnet import resnet50  # model zoo
        import mindspore
        net = resnet50(
            class_num=1001,  # ImageNet
        )
        """
    )


def test_fixes_are_unsafe_and_work_on_the_updated_node():
    (violation,) = violations("from mindcv.models import resnet50\nnet = resnet50(pretrained=False)\n")
    assert violation.fix.safety.value == "unsafe"
    updated = cst.parse_expression("resnet50(pretrained=False, in_channels=1)")
    result = cst.Module([]).code_for_node(violation.fix.transform(updated))
    assert result == "resnet50(pretrained=False, in_channels=1, num_classes=1001)"


def test_name_gets_no_fix():
    (violation,) = violations("import mindcv\nN = 1000\nnet = mindcv.create_model('resnet50', num_classes=N)\n")
    assert violation.fix is None


def test_fixed_code_is_clean():
    source = """\
        import mindcv
        from mindcv.models import resnet50
        def resnet50_local(class_num=1000):
            pass
        a = resnet50()
        b = mindcv.create_model("resnet50", num_classes=1000)
        """
    once = fixed(source)
    assert found(once) == []
    assert fixed(once) == once


def test_msp102_and_msp104_fixed_together_agree_on_1001():
    source = """\
        from mindspore import nn
        class ResNet50(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.fc = nn.Dense(2048, num_classes)
        class Probe(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(2048, 10)
        """
    once = fixed(source, select=("MSP102", "MSP104"))
    assert "def __init__(self, num_classes=1001):" in once
    assert "nn.Dense(2048, num_classes)" in once  # MSP102 never rounds the ResNet-50 class count
    assert "nn.Dense(2048, 16)" in once
    assert [v.code for v in lint(once) if v.code in ("MSP102", "MSP104")] == []


def test_vendored_mindcv_resnet_fixed_with_msp102_keeps_1001_classes():
    """The builder's default reaches the head in a generic ``class ResNet``: MSP102 must not round it."""
    source = """\
        from mindspore import nn
        class ResNet(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.classifier = nn.Dense(2048, num_classes)
        def resnet50(pretrained=False, num_classes=1000, in_channels=3):
            return ResNet(num_classes=num_classes)
        """
    once = fixed(source, select=("MSP102", "MSP104"))
    assert "def resnet50(pretrained=False, num_classes=1001, in_channels=3):" in once
    assert "nn.Dense(2048, num_classes)" in once
    assert "def __init__(self, num_classes=1000):" in once  # a generic ResNet, not a ResNet-50 builder


def test_noqa_suppresses():
    assert found("from mindcv.models import resnet50\nnet = resnet50(num_classes=1000)  # noqa: MSP104\n") == []
