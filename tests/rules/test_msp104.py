"""MSP104 resnet50-1000-classes: where the 1000 is written, and the look-alikes that must stay silent."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

from ms_perflint.findings import FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp104_resnet50_1000_classes import Resnet50ThousandClasses
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

PROJECTS = Path(__file__).resolve().parent.parent / "projects"
RULE = [Resnet50ThousandClasses]


def findings(code: str) -> List[Tuple[int, int]]:
    """``(line, 1-based column)`` of MSP104 findings in one program."""
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", Settings(), rules=RULE)
    assert result.error is None, result.error
    return [(f.line, f.column + 1) for f in result.findings if f.code == "MSP104"]


def only(code: str):
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", Settings(), rules=RULE)
    found = [f for f in result.findings if f.code == "MSP104"]
    assert len(found) == 1, found
    return found[0]


def fixed(code: str) -> str:
    source = textwrap.dedent(code).lstrip("\n")
    finding = only(code)
    assert finding.fix is not None and finding.fix.safety is FixSafety.UNSAFE
    return apply_fix_text(source, [finding.fix])


def folder(root: Path) -> Dict[str, List[Tuple[int, int, bool]]]:
    """``{path: [(line, 1-based column, has fix)]}`` of MSP104 findings in a project folder."""
    results = check_folder(str(root), Settings(), rules=RULE)
    found = {}
    for path, result in results.items():
        assert result.error is None, (path, result.error)
        mine = [(f.line, f.column + 1, f.fix is not None) for f in result.findings if f.code == "MSP104"]
        if mine:
            found[path] = mine
    return found


def write(root: Path, files: Dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


# --- what is reported, and where ------------------------------------------------------------------------


def test_literal_argument_of_a_trained_mindcv_resnet50_is_fixed_to_1001():
    code = """
        from mindcv.models import resnet50
        from mindspore.train import Model
        if __name__ == "__main__":
            net = resnet50(num_classes=1000)
            Model(net, loss, opt).train(90, data)
    """
    assert findings(code) == [(4, 32)]
    assert "net = resnet50(num_classes=1001)" in fixed(code)


def test_positional_class_count_follows_the_signature():
    code = """
        from mindcv.models import resnet50
        from mindspore.train import Model
        if __name__ == "__main__":
            net = resnet50(False, 1000)
            Model(net, loss, opt).train(90, data)
    """
    assert findings(code) == [(4, 27)]


def test_mindcv_default_is_reported_at_the_call_without_a_fix():
    finding = only("""
        import mindcv
        from mindspore.train import Model
        if __name__ == "__main__":
            net = mindcv.create_model("resnet50")
            Model(net, loss, opt).train(90, data)
    """)
    assert (finding.line, finding.column + 1) == (4, 11)
    assert finding.fix is None
    assert "pass num_classes=1001" in finding.message and "train.py" in finding.message


def test_project_builder_default_relied_on_by_a_training_call():
    code = """
        from mindspore import nn
        from mindspore.train import Model
        class ResNet(nn.Cell):
            def __init__(self, class_num):
                super().__init__()
                self.fc = nn.Dense(2048, class_num)
        def resnet50(class_num=1000):
            return ResNet(class_num)
        if __name__ == "__main__":
            Model(resnet50(), loss, opt).train(90, data)
    """
    assert findings(code) == [(7, 24)]
    assert "def resnet50(class_num=1001):" in fixed(code)


def test_default_that_every_call_overrides_is_silent():
    assert findings("""
        from mindspore import nn
        from mindspore.train import Model
        class ResNet50(nn.Cell):
            def __init__(self, num_classes=1000):
                super().__init__()
                self.fc = nn.Dense(2048, num_classes)
        if __name__ == "__main__":
            Model(ResNet50(num_classes=10), loss, opt).train(90, data)
    """) == []


def test_value_through_a_constant_is_reported_where_written_without_a_fix():
    finding = only("""
        from mindspore.train import Model
        from src.resnet import resnet50
        NUM_CLASSES = 1000
        if __name__ == "__main__":
            Model(resnet50(class_num=NUM_CLASSES), loss, opt).train(90, data)
    """)
    assert (finding.line, finding.column + 1) == (3, 15)
    assert finding.fix is None and "NUM_CLASSES" in finding.message


def test_dict_config_value_is_reported_where_written():
    code = """
        from easydict import EasyDict as ed
        from mindspore.train import Model
        from src.resnet import resnet50
        config = ed({"class_num": 1000, "lr": 0.1})
        def main():
            net = resnet50(class_num=config.class_num)
            Model(net, loss, opt).train(90, data)
        if __name__ == "__main__":
            main()
    """
    assert findings(code) == [(4, 27)]
    assert '{"class_num": 1001, "lr": 0.1}' in fixed(code)


def test_loader_under_a_guard_that_never_holds_loads_nothing():
    assert findings("""
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import resnet50
        def build(pretrained=False):
            net = resnet50(class_num=1000)
            if pretrained:
                ms.load_param_into_net(net, ms.load_checkpoint("resnet50.ckpt"))
            return net
        if __name__ == "__main__":
            Model(build(), loss, opt).train(90, data)
    """) == [(5, 30)]


def test_helper_that_loads_behind_a_dead_guard_loads_nothing():
    # mindcv's shape: the builder calls the loading helper only ``if pretrained:``.
    assert findings("""
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import ResNet
        def load_pretrained(net, url):
            ms.load_param_into_net(net, ms.load_checkpoint(url))
        def resnet50(pretrained=False, num_classes=1000):
            net = ResNet(num_classes)
            if pretrained:
                load_pretrained(net, "https://example.com/resnet50.ckpt")
            return net
        if __name__ == "__main__":
            Model(resnet50(), loss, opt).train(90, data)
    """) == [(6, 44)]


def test_loader_given_an_empty_path_loads_nothing():
    loads = """
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import resnet50
        if __name__ == "__main__":
            net = resnet50(class_num=1000)
            ms.load_checkpoint("resnet50.ckpt", net=net, filter_prefix=None)
            Model(net, loss, opt).train(90, data)
    """
    assert findings(loads) == []  # only the path says whether anything loads
    assert findings("""
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import resnet50
        def restore(net, path=""):
            params = ms.load_checkpoint(path)
            ms.load_param_into_net(net, params)
        if __name__ == "__main__":
            net = resnet50(class_num=1000)
            restore(net)
            Model(net, loss, opt).train(90, data)
    """) == [(8, 30)]


# --- silent: weights are loaded -----------------------------------------------------------------------


def test_pretrained_loaded_one_call_away_is_silent():
    assert findings("""
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import resnet50
        def build(pretrained=False):
            net = resnet50(class_num=1000)
            if pretrained:
                ms.load_param_into_net(net, ms.load_checkpoint("resnet50.ckpt"))
            return net
        if __name__ == "__main__":
            Model(build(pretrained=True), loss, opt).train(90, data)
    """) == []


def test_pretrained_flag_not_known_to_be_false_is_silent():
    assert findings("""
        from mindcv.models import create_model
        from mindspore.train import Model
        def main(args):
            net = create_model("resnet50", num_classes=1000, pretrained=args.pretrained)
            Model(net, loss, opt).train(90, data)
        if __name__ == "__main__":
            main(parse())
    """) == []


def test_checkpoint_path_of_create_model_is_silent():
    assert findings("""
        from mindcv.models import create_model
        from mindspore.train import Model
        if __name__ == "__main__":
            net = create_model("resnet50", checkpoint_path="resnet50_224.ckpt")
            Model(net, loss, opt).train(90, data)
    """) == []


def test_default_needed_by_pretrained_weights_elsewhere_gets_no_fix(tmp_path):
    files = {
        "src/__init__.py": "",
        "src/resnet.py": """
            from mindspore import nn
            class ResNet(nn.Cell):
                def __init__(self, num_classes):
                    super().__init__()
                    self.fc = nn.Dense(2048, num_classes)
            def resnet50(num_classes=1000):
                return ResNet(num_classes)
        """,
        "train.py": """
            from mindspore.train import Model
            from src.resnet import resnet50
            if __name__ == "__main__":
                Model(resnet50(), loss, opt).train(90, data)
        """,
        "eval.py": """
            import mindspore as ms
            from mindspore.train import Model
            from src.resnet import resnet50
            if __name__ == "__main__":
                net = resnet50()
                ms.load_param_into_net(net, ms.load_checkpoint("resnet50_imagenet.ckpt"))
                print(Model(net).eval(data))
        """,
    }
    assert folder(write(tmp_path, files)) == {"src/resnet.py": [(6, 26, False)]}
    message = check_folder(str(tmp_path), Settings(), rules=RULE)["src/resnet.py"].findings[0].message
    assert "the builder's default" in message and "eval.py loads weights" in message
    (tmp_path / "eval.py").unlink()
    assert folder(tmp_path) == {"src/resnet.py": [(6, 26, True)]}


def test_weights_another_program_loads_do_not_silence_the_training_program(tmp_path):
    files = {
        "models/__init__.py": "",
        "models/resnet.py": """
            import mindspore as ms
            from mindspore import nn
            class ResNet(nn.Cell):
                def __init__(self, num_classes):
                    super().__init__()
                    self.fc = nn.Dense(2048, num_classes)
            def resnet50(num_classes=1000, pretrained=False):
                net = ResNet(num_classes)
                if pretrained:
                    ms.load_param_into_net(net, ms.load_checkpoint("resnet50_imagenet.ckpt"))
                return net
        """,
        "train.py": """
            from mindspore.train import Model
            from models.resnet import resnet50
            if __name__ == "__main__":
                Model(resnet50(), loss, opt).train(90, data)
        """,
        "finetune.py": """
            from mindspore.train import Model
            from models.resnet import resnet50
            if __name__ == "__main__":
                Model(resnet50(pretrained=True), loss, opt).train(5, flowers)
        """,
    }
    assert folder(write(tmp_path, files)) == {"models/resnet.py": [(7, 26, False)]}
    message = check_folder(str(tmp_path), Settings(), rules=RULE)["models/resnet.py"].findings[0].message
    assert "trained from scratch by train.py" in message and "finetune.py loads weights" in message


def test_class_count_another_program_passes_is_not_this_programs(tmp_path):
    files = {
        "common.py": """
            from mindspore.train import Model
            from src.resnet import resnet50
            def train(classes, epochs):
                Model(resnet50(class_num=classes), loss, opt).train(epochs, data)
        """,
        "train_gpu.py": """
            import mindspore as ms
            from common import train
            if __name__ == "__main__":
                ms.set_context(device_target="GPU")
                train(1000, 90)
        """,
        "train_flowers.py": """
            from common import train
            if __name__ == "__main__":
                train(102, 30)
        """,
    }
    assert folder(write(tmp_path, files)) == {}


# --- silent: the head is not used ---------------------------------------------------------------------


def test_feature_extractor_is_silent():
    assert findings("""
        from mindcv.models import create_model
        from mindspore.train import Model
        if __name__ == "__main__":
            backbone = create_model("resnet50", features_only=True, out_indices=[2, 3, 4])
            Model(Detector(backbone), loss, opt).train(90, data)
    """) == []


def test_include_top_keeps_the_head_only_when_true():
    code = """
        from mindspore.train import Model
        from zoo import ResNet50
        if __name__ == "__main__":
            Model(ResNet50(num_classes=1000, include_top={}), loss, opt).train(90, data)
    """
    assert findings(code.format("True")) == [(4, 32)]
    assert findings(code.format("False")) == []


def test_backbone_stored_on_another_cell_is_silent():
    assert findings("""
        from mindspore import nn
        from mindspore.train import Model
        from src.resnet import resnet50
        class Segmenter(nn.Cell):
            def __init__(self):
                super().__init__()
                self.backbone = resnet50(class_num=1000)
            def construct(self, x):
                return self.backbone(x)
        if __name__ == "__main__":
            Model(Segmenter(), loss, opt).train(90, data)
    """) == []


def test_backbone_returned_by_a_factory_and_passed_to_a_cell_is_silent():
    assert findings("""
        from mindspore import nn
        from mindspore.train import Model
        from src.resnet import resnet50
        class RetinaFace(nn.Cell):
            def __init__(self, backbone):
                super().__init__()
                self.body = backbone
            def construct(self, x):
                return self.body(x)
        def get_backbone():
            return resnet50(class_num=1000)
        if __name__ == "__main__":
            Model(RetinaFace(backbone=get_backbone()), loss, opt).train(90, data)
    """) == []


# --- silent: not trained, not on Ascend, not a MindSpore ResNet-50 -------------------------------------------


def test_builder_no_training_program_reaches_is_silent():
    assert findings("""
        from mindspore.train import Model
        from src.resnet import resnet50
        if __name__ == "__main__":
            net = resnet50(class_num=1000)
            print(Model(net).eval(data))
    """) == []


def test_cpu_program_is_silent():
    assert findings("""
        import mindspore as ms
        from mindspore.train import Model
        from src.resnet import resnet50
        if __name__ == "__main__":
            ms.set_context(device_target="CPU")
            Model(resnet50(class_num=1000), loss, opt).train(90, data)
    """) == []


def test_other_frameworks_and_other_networks_are_silent():
    assert findings("""
        import mindcv
        import torchvision
        from mindspore.train import Model
        if __name__ == "__main__":
            teacher = torchvision.models.resnet50(num_classes=1000)
            net = mindcv.create_model("seresnet50", num_classes=1000)
            Model(net, loss, opt).train(90, data)
    """) == []


def test_unknown_signature_counts_only_keywords_and_a_positional_true_may_be_pretrained():
    assert findings("""
        from mindspore.train import Model
        from zoo import resnet50
        if __name__ == "__main__":
            Model(resnet50(True, num_classes=1000), loss, opt).train(90, data)
            Model(resnet50(1000), loss, opt).train(90, data)
    """) == []


# --- projects: YAML configs, decided one by one -----------------------------------------------------------


def test_mindcv_like_configs_are_decided_one_by_one():
    found = folder(PROJECTS / "msp104_mindcv_like")
    # resnet_50_gpu (GPU), resnet_18 (another network), finetune (pretrained: True), resume
    # (ckpt_path set), 1001 and seresnet50 stay silent; ckpt_save_dir and save_best_ckpt are save keys.
    assert found == {"configs/resnet/resnet_50_ascend.yaml": [(3, 14, True)]}


def test_mindcv_like_fix_rewrites_only_the_scalar():
    source = (PROJECTS / "msp104_mindcv_like" / "configs/resnet/resnet_50_ascend.yaml").read_text()
    result = check_text(source, "configs/resnet/resnet_50_ascend.yaml", Settings(), rules=RULE)
    assert result.findings == []  # alone, no training program uses the config
    results = check_folder(str(PROJECTS / "msp104_mindcv_like"), Settings(), rules=RULE)
    finding = results["configs/resnet/resnet_50_ascend.yaml"].findings[0]
    assert apply_fix_text(source, [finding.fix]) == source.replace("num_classes: 1000", "num_classes: 1001")
    assert "train.py" in finding.message


def test_zoo_like_load_keys_count_only_when_the_training_program_reads_them():
    found = folder(PROJECTS / "msp104_zoo_like")
    # checkpoint_path and load_path are set, but train.py loads only pre_trained (empty here);
    # fine_tune.py loads checkpoint_path with the same class_num, so the value gets no fix.
    assert found == {"config/resnet50_imagenet2012_config.yaml": [(6, 12, False)]}


def test_yaml_model_key_without_a_visible_builder(tmp_path):
    write(tmp_path, {
        "train.py": """
            import mindspore as ms
            from src.config import config
            from src.registry import get_network
            if __name__ == "__main__":
                net = get_network(config.net_name, config.class_num)
                ms.Model(net, loss, opt).train(config.epochs, data)
        """,
        "src/__init__.py": "",
        "src/config.py": """
            import yaml
            config = yaml.safe_load(open("configs/default.yaml"))
        """,
        "src/registry.py": """
            NETWORKS = {}
            def get_network(name, classes):
                return NETWORKS[name](classes)
        """,
        "configs/default.yaml": """
            net_name: "ResNet50"
            class_num: 1000
            save_ckpt_dir: "./ckpt"
            epochs: 90
        """,
        "configs/detector.yaml": """
            net_name: "retinanet"
            backbone: "resnet50"
            class_num: 1000
        """,
        "configs/eval.yaml": """
            run_mode: "eval"
            net_name: "resnet50"
            class_num: 1000
        """,
        "configs/feature.yaml": """
            model:
              name: "resnet50"
              features_only: True
            class_num: 1000
        """,
    })
    assert folder(tmp_path) == {"configs/default.yaml": [(2, 12, True)]}


def test_yaml_naming_resnet50_for_a_variant_the_program_builds_is_silent(tmp_path):
    # GloRe-ResNet-50: the config says ``net: resnet50``, the program builds its own variant.
    write(tmp_path, {
        "train.py": """
            import mindspore as ms
            from src.config import config
            from src.glore_resnet import glore_resnet50
            if __name__ == "__main__":
                if config.net == "resnet50":
                    net = glore_resnet50(class_num=config.class_num, use_glore=config.use_glore)
                ms.Model(net, loss, opt).train(config.epoch_size, data)
        """,
        "src/__init__.py": "",
        "src/config.py": """
            import yaml
            config = yaml.safe_load(open("config/config_resnet50_ascend.yaml"))
        """,
        "src/glore_resnet.py": """
            from mindspore import nn
            class GloreResNet(nn.Cell):
                def __init__(self, class_num, use_glore):
                    super().__init__()
                    self.head = nn.Dense(2048, class_num)
            def glore_resnet50(class_num=1000, use_glore=True):
                return GloreResNet(class_num, use_glore)
        """,
        "config/config_resnet50_ascend.yaml": """
            net: "resnet50"
            class_num: 1000
            pretrained_ckpt: ""
            use_glore: true
            epoch_size: 120
        """,
    })
    assert folder(tmp_path) == {}


def test_yaml_naming_another_network_is_silent_even_when_a_resnet50_reads_it(tmp_path):
    root = tmp_path / "zoo"
    shutil.copytree(PROJECTS / "msp104_zoo_like", root)
    config = root / "config" / "resnet50_imagenet2012_config.yaml"
    config.write_text(config.read_text().replace('net_name: "resnet50"', 'net_name: "resnet18"'))
    assert folder(root) == {}


def test_yaml_of_a_program_that_does_not_read_its_model_and_class_count_is_silent(tmp_path):
    write(tmp_path, {
        "train.py": """
            import mindspore as ms
            if __name__ == "__main__":
                ms.Model(net, loss, opt).train(10, data)
        """,
        "configs/resnet50.yaml": """
            model: resnet50
            num_classes: 1000
        """,
    })
    assert folder(tmp_path) == {}
    # reading the class count is not enough: the program builds the network its ``arch`` key names
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import mindspore as ms
        from src.factory import build
        def main(args):
            ms.Model(build(args.arch, args.num_classes), loss, opt).train(10, data)
        if __name__ == "__main__":
            main(parse())
    """))
    assert folder(tmp_path) == {}
    (tmp_path / "train.py").write_text((tmp_path / "train.py").read_text().replace("args.arch", "args.model"))
    assert folder(tmp_path) == {"configs/resnet50.yaml": [(2, 14, True)]}
