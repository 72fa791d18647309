"""astroid-backed value inference across modules (``ms_perflint.project.inference``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ms_perflint.project.inference import Inference

CONFIG = """
from easydict import EasyDict as ed
import argparse
from dataclasses import dataclass

NUM = 1000
REASSIGNED = 1000
if flag:
    REASSIGNED = 10
config = ed({"class_num": 1000, "lr": 0.1})
plain = {"class_num": 1000}


@dataclass
class Cfg:
    class_num: int = 1000


cfg = Cfg()
cfg_ten = Cfg(class_num=10)
cfg_positional = Cfg(10)


class Old:
    class_num = 1000


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--class_num", type=int, default=1000)
    parser.add_argument("--other", type=int)
    return parser.parse_args()


def two_ways(flag):
    if flag:
        return Cfg(class_num=10)
    return Cfg()
"""

TRAIN = """
from src.config import config, plain, cfg, cfg_ten, cfg_positional, Old, NUM, REASSIGNED, get_args, two_ways
import src.config as mod

args = get_args()
a = config.class_num
b = plain["class_num"]
c = cfg.class_num
d = cfg_ten.class_num
e = Old.class_num
f = NUM
g = mod.NUM
h = args.class_num
i = config["class_num"]
j = REASSIGNED
k = cfg_positional.class_num
m = args.other
n = two_ways(x).class_num


def main(num_classes=1000):
    local = get_args()
    return local.class_num, num_classes, undefined_name.class_num
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("inference")
    (root / "src").mkdir()
    (root / "src/__init__.py").write_text("")
    (root / "src/config.py").write_text(CONFIG.lstrip("\n"))
    (root / "train.py").write_text(TRAIN.lstrip("\n"))
    return root


def line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.lstrip("\n").splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    "expression, needle, how",
    [
        ("config.class_num", 'config = ed({"class_num": 1000', "dict config"),
        ("config['class_num']", 'config = ed({"class_num": 1000', "dict config"),
        ("plain['class_num']", 'plain = {"class_num": 1000}', "dict config"),
        ("cfg.class_num", "class_num: int = 1000", "class default"),
        ("Old.class_num", "    class_num = 1000", "constant"),
        ("NUM", "NUM = 1000", "constant"),
        ("mod.NUM", "NUM = 1000", "constant"),
        ("args.class_num", '"--class_num", type=int, default=1000', "argparse default"),
    ],
)
def test_values_defined_in_another_module(project: Path, expression, needle, how):
    inferred = Inference(str(project)).infer(str(project / "train.py"), expression)
    assert inferred is not None
    assert (inferred.value, inferred.how) == (1000, how)
    assert inferred.path == str(project / "src/config.py")
    assert inferred.line == line_of(CONFIG, needle)
    source_line = CONFIG.lstrip("\n").splitlines()[inferred.line - 1]
    assert source_line[inferred.column:].startswith("1000")


def test_a_keyword_given_to_the_constructor_wins_over_the_field_default(project: Path):
    inferred = Inference(str(project)).infer(str(project / "train.py"), "cfg_ten.class_num")
    assert inferred is not None and inferred.value == 10 and inferred.how == "keyword"


@pytest.mark.parametrize(
    "expression",
    ["REASSIGNED", "cfg_positional.class_num", "args.other", "two_ways(x).class_num", "config.lr_missing", "nope"],
)
def test_values_that_are_not_one_literal_are_unknown(project: Path, expression):
    assert Inference(str(project)).infer(str(project / "train.py"), expression) is None


def test_scope_names_the_enclosing_function(project: Path):
    inference = Inference(str(project))
    inferred = inference.infer(str(project / "train.py"), "local.class_num", ["main"])
    assert inferred is not None and inferred.value == 1000
    assert inference.infer(str(project / "train.py"), "local.class_num") is None  # not at module level
    assert inference.infer(str(project / "train.py"), "undefined_name.class_num", ["main"]) is None
    assert inference.infer(str(project / "train.py"), "num_classes", ["main"]) is None  # a parameter: any value


def test_bad_input_never_raises(project: Path, tmp_path: Path):
    broken = tmp_path / "broken.py"
    broken.write_text("def broken(:\n")
    inference = Inference(str(project))
    assert inference.infer(str(broken), "x") is None
    assert inference.infer(str(tmp_path / "missing.py"), "x") is None
    assert inference.infer(str(project / "train.py"), "config.(") is None
    assert inference.infer(str(project / "train.py"), "f", ["no_such_function"]) is None


def test_answers_are_cached(project: Path):
    inference = Inference(str(project))
    first = inference.infer(str(project / "train.py"), "NUM")
    assert inference.infer(str(project / "train.py"), "NUM") is first


def test_the_import_path_is_restored(project: Path):
    import sys

    before = list(sys.path)
    Inference(str(project)).infer(str(project / "train.py"), "NUM")
    assert sys.path == before
