"""Per-file facts of the project index (``ms_perflint.project.facts``), read from small sources."""

from __future__ import annotations

import re
import textwrap

from hypothesis import given, settings
from hypothesis.strategies import text

from ms_perflint.project.facts import FileFacts, collect_facts


def facts_of(code: str, module: str = "train", is_package: bool = False) -> FileFacts:
    return collect_facts(textwrap.dedent(code).lstrip("\n"), module, is_package)


def test_imports_are_absolute_references_and_mindspore_is_only_a_flag():
    facts = facts_of(
        """
        import mindspore.nn as nn
        from .head import Head
        from ..common import utils
        from src.config import config as cfg
        """,
        module="src.models.net",
    )
    assert facts.imports_mindspore
    assert facts.imports == ["src.common.utils", "src.config.config", "src.models.head.Head"]
    assert facts.aliases == {"Head": "src.models.head.Head", "utils": "src.common.utils", "cfg": "src.config.config"}


def test_relative_import_in_a_package_init_is_relative_to_the_package_itself():
    facts = facts_of("from .resnet import resnet50\n", module="src", is_package=True)
    assert facts.imports == ["src.resnet.resnet50"]


def test_cells_and_what_classes_and_functions_build():
    facts = facts_of(
        """
        from mindspore import nn
        from src.head import Head

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.head = Head()
                self.fc = nn.Dense(2, 2)

        class Helper:
            pass

        class Block(Net):
            pass

        def build():
            return Net()
        """
    )
    assert facts.cells == {"Net": 4, "Block": 13}
    assert facts.classes == {"Net": ["src.head.Head"], "Helper": [], "Block": []}
    assert facts.functions == {"build": ["train.Net"]}


def test_amp_sites_with_literal_unknown_and_absent_levels():
    facts = facts_of(
        """
        import mindspore as ms
        from mindspore import Model, amp
        m1 = Model(net, amp_level="O2")
        m2 = ms.train.Model(net, loss_fn=loss, amp_level=config.amp_level)
        m3 = Model(net)
        m4 = Model(net, **kwargs)
        net = amp.auto_mixed_precision(net, "O1")
        ms.set_context(ascend_config={"precision_mode": "allow_mix_precision"})
        """
    )
    found = [(s.kind, s.level, s.expression, s.line, s.column) for s in facts.amp]
    assert found == [
        ("Model", "O2", "", 3, 5),
        ("Model", None, "config.amp_level", 4, 5),
        ("Model", None, "**kwargs", 6, 5),
        ("auto_mixed_precision", "O1", "", 7, 6),
        ("precision_mode", "allow_mix_precision", "", 8, 0),
    ]


def test_a_users_own_model_class_is_not_mindsporess():
    facts = facts_of(
        """
        import mindspore
        class Model:
            pass
        m = Model(net, amp_level="O2")
        """
    )
    assert facts.amp == []


def test_casts_record_the_builder_of_the_instance():
    facts = facts_of(
        """
        import numpy as np
        import mindspore as ms
        from mindspore.common import dtype as mstype
        from src.model import build, Head
        def main():
            net = build()
            net.to_float(mstype.float16)
            head = Head()
            head.to_float(ms.float32)
            Head().add_flags_recursive(fp16=True)
            other = build()
            other.to_float(np.float16)
        """
    )
    found = [(c.builder, c.low_precision, c.line) for c in facts.casts]
    assert found == [("src.model.build", True, 7), ("src.model.Head", False, 9), ("src.model.Head", True, 10)]


def test_profiler_sites_and_dataset_profiling_as_msp105_reads_them():
    facts = facts_of(
        """
        import os, json
        import mindspore as ms
        from mindspore.profiler import Profiler, profile
        p1 = ms.Profiler(output_path="./prof")
        p2 = Profiler(data_process=True)
        p3 = Profiler(data_process=args.dp)
        p4 = profile()
        os.environ["MS_PROFILER_OPTIONS"] = '{"start": true, "data_process": true}'
        os.environ["MS_PROFILER_OPTIONS"] = '{"output_path": "./prof"}'
        os.environ.setdefault("MS_PROFILER_OPTIONS", json.dumps({"start": True}))
        ms.set_context(enable_profiling=True)
        ms.set_context(enable_profiling=False)
        """
    )
    found = [(s.kind, s.dataset, s.line) for s in facts.profilers]
    assert found == [
        ("mindspore.profiler.Profiler", None, 4),  # the data_process default changed across releases
        ("mindspore.profiler.Profiler", True, 5),
        ("mindspore.profiler.Profiler", False, 6),  # unknown counts as off: unknown values are never reported
        ("mindspore.profiler.profile", False, 7),
        ("MS_PROFILER_OPTIONS", True, 8),  # line 9 has no "start": true, so MindSpore starts nothing
        ("MS_PROFILER_OPTIONS", None, 10),
        ("mindspore.set_context", None, 11),
    ]


def test_guards_see_through_not_and_and():
    facts = facts_of(
        """
        import mindspore as ms
        if not args.profile:
            pass
        else:
            if args.profile and args.rank == 0:
                p = ms.Profiler()
        """
    )
    assert facts.profilers[0].guards == [
        ("args.profile and args.rank == 0", True),
        ("args.profile", True),
        ("args.rank == 0", True),
        ("args.profile", True),
    ]


def test_argparse_defaults_are_recorded_at_the_default_value():
    facts = facts_of(
        """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--amp_level", type=str, default="O2", help="AMP")
        parser.add_argument("-n", "--class-num", type=int, default=1000)
        parser.add_argument("--level", dest="amp_level", default=LEVEL)
        parser.add_argument("--lr", default=0.1)
        """
    )
    found = [(e.owner, e.key, e.value, e.line, e.column) for e in facts.config_entries]
    # `parser.add_argument(` 20 + `"--amp_level"` 13 + `, type=str, ` 12 + `default=` 8 = column 53;
    # `parser.add_argument(` 20 + `"-n", ` 6 + `"--class-num", ` 15 + `type=int, ` 10 + `default=` 8 = 59.
    assert found == [("argparse", "amp_level", "O2", 3, 53), ("argparse", "class_num", 1000, 4, 59)]


def test_dict_configs_at_module_level():
    facts = facts_of(
        """
        from easydict import EasyDict as ed
        config = ed({
            "class_num": 1000,
            "lr": 0.1,
        })
        other = {"num_classes": 10, "amp_level": "O3"}
        def f():
            local = {"class_num": 5}
        """
    )
    found = [(e.owner, e.key, e.value, e.line, e.column) for e in facts.config_entries]
    assert found == [("config", "class_num", 1000, 3, 17), ("other", "num_classes", 10, 6, 24),
                     ("other", "amp_level", "O3", 6, 41)]


def test_class_count_uses_only_when_the_value_is_not_a_literal():
    facts = facts_of(
        """
        from src.resnet import resnet50
        import mindspore as ms
        net0 = resnet50(class_num=1000)
        def main(config):
            net = resnet50(class_num=config.class_num)
            pre = resnet50(num_classes=config.class_num, pretrained=True)
        def evaluate(config):
            net = resnet50(class_num=config.class_num)
            ms.load_checkpoint("resnet.ckpt", net)
        """
    )
    found = [(u.builder, u.expression, u.scope, u.loads_weights, u.line) for u in facts.class_count_uses]
    assert found == [
        ("resnet50", "config.class_num", ["main"], False, 5),
        ("resnet50", "config.class_num", ["main"], True, 6),
        ("resnet50", "config.class_num", ["evaluate"], True, 8),
    ]


def test_columns_count_characters_not_bytes():
    facts = facts_of('parser.add_argument("--amp_level", help="精度", default="O2")\n')
    entry = facts.config_entries[0]
    # 20 + 13 + `, help=` 7 + `"精度"` 4 characters (8 bytes) + `, default=` 10 = 54 (56 in bytes).
    assert (entry.line, entry.column) == (1, 54)


def test_invalid_python_gives_empty_facts():
    assert collect_facts("import mindspore\ndef broken(:\n", "broken") == FileFacts(module="broken")


def test_a_file_without_any_marker_is_not_parsed():
    assert collect_facts("x = 1\n", "plain") == FileFacts(module="plain")


def test_json_round_trip_keeps_every_fact():
    facts = facts_of(
        """
        import mindspore as ms
        from src.model import build
        if flag:
            p = ms.Profiler()
        net = build()
        net.to_float(ms.float16)
        parser.add_argument("--amp_level", default="O2")
        """
    )
    assert FileFacts.from_json(facts.to_json()) == facts
    assert facts.profilers and facts.casts and facts.config_entries


def test_class_count_uses_follow_msp104s_idea_of_a_resnet50_builder():
    facts = facts_of(
        """
        import torchvision
        from mindcv import create_model
        from timm import create_model as timm_model
        a = create_model("resnet50", num_classes=cfg.n)
        b = create_model("resnet18", num_classes=cfg.n)
        c = torchvision.models.resnet50(num_classes=cfg.n)
        d = resnet50(num_classes=cfg.n)
        """
    )
    # Only mindcv's create_model("resnet50"): resnet18 is another model, torchvision another
    # framework, and an undefined, unimported resnet50 is nobody's builder.
    assert [(u.builder, u.line) for u in facts.class_count_uses] == [("create_model", 4)]


def test_class_counts_the_file_decides_itself_are_left_to_the_per_file_rule():
    facts = facts_of(
        """
        from src.resnet import resnet50
        from src.consts import IMPORTED
        LOCAL = 1000
        def build(num=1000):
            return resnet50(class_num=num), resnet50(class_num=LOCAL), resnet50(class_num=IMPORTED)
        """
    )
    assert [u.expression for u in facts.class_count_uses] == ["IMPORTED"]


def test_absurdly_nested_statements_give_no_facts_rather_than_a_crash():
    depth = 90  # ast.parse accepts this; a recursive reader of statements may not, at a low recursion limit
    text = "import mindspore\n" + "".join("    " * i + "if x:\n" for i in range(depth)) + "    " * depth + "pass\n"
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        facts = collect_facts(text, "deep")
    finally:
        sys.setrecursionlimit(limit)
    assert facts.module == "deep"  # reached only if no RecursionError escaped


# The index reads dotted calls from reversed text (fast); it must find exactly what the plain
# forward reading finds: a dotted name, not preceded by a word character or a dot, before `(`.
_FORWARD_DOTTED_CALL = re.compile(r"(?<![\w.])([^\W\d]\w*(?:\.\w+)*)\s*\(")


@settings(max_examples=400, deadline=None)
@given(text(alphabet="ab1_.( \né\t", max_size=40))
def test_reversed_call_pattern_finds_what_the_forward_one_finds(source: str):
    from ms_perflint.project.facts import _DOTTED_CALL_REVERSED

    forward = set(_FORWARD_DOTTED_CALL.findall(source))
    backward = {name[::-1] for name in _DOTTED_CALL_REVERSED.findall(source[::-1])}
    assert backward == forward


def test_reversed_call_pattern_on_real_shapes():
    from ms_perflint.project.facts import _DOTTED_CALL_REVERSED

    source = "net = models.resnet50(pretrained=False)\nx = self.head (y)\nz = 1abc(2) + obj .m(3) + f(g(h))\n"
    found = {name[::-1] for name in _DOTTED_CALL_REVERSED.findall(source[::-1])}
    assert found == {"models.resnet50", "self.head", "f", "g"}
