"""Value resolution: the names and calls a value passes through, config objects, computed values' places.

Added for MSP102 (a width's meaning is in the names it travels under; a value passed by
code no program runs must not count), but general: any rule may read them.
"""

from __future__ import annotations

import textwrap
from typing import Dict

from ms_perflint.analysis import analyse_python, module_name
from ms_perflint.analysis.facts import CALL
from ms_perflint.project.model import Project
from ms_perflint.project.values import Values


def project(files: Dict[str, str]) -> Project:
    facts = {}
    for path, text in files.items():
        text = textwrap.dedent(text).lstrip("\n")
        facts[path] = analyse_python(text, module_name(path), path.endswith("__init__.py"))
    return Project("", facts)


def argument_of(proj: Project, path: str, callee_end: str, position: int):
    """The value of one argument of the first call whose callee ends with ``callee_end``, and its scope."""
    call = next(c for c in proj.python[path].calls if c.callee.endswith(callee_end))
    return call.args[position], call.scope


def test_trail_names_parameters_constants_and_keys_from_where_written_to_where_read():
    proj = project({
        "model.py": """
            from mindspore import nn
            VOCAB = 50257
            def head(width):
                return nn.Dense(768, width)
            def build():
                return head(VOCAB)
        """,
    })
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    assert [(k.value, k.trail) for k in found.values] == [(50257, ("VOCAB", "width"))]
    assert found.complete


def test_hops_are_the_scopes_of_the_calls_a_value_was_passed_by():
    proj = project({
        "model.py": """
            from mindspore import nn
            def head(width=3000):
                return nn.Dense(768, width)
            def big():
                return head(50257)
            def default():
                return head()
        """,
    })
    facts = proj.python["model.py"]
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    hops = {k.value: k.hops for k in found.values}
    assert hops == {50257: (("model.py", facts.functions["big"]),), 3000: (("model.py", facts.functions["default"]),)}


def test_config_object_attribute_follows_its_construction():
    proj = project({
        "model.py": """
            from mindspore import nn
            class BertConfig:
                def __init__(self, vocab_size=32000, hidden_size=768):
                    self.vocab_size = vocab_size
            class Bert(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.head = nn.Dense(768, config.vocab_size)
        """,
        "train.py": """
            from model import Bert, BertConfig
            if __name__ == "__main__":
                net = Bert(BertConfig(vocab_size=21128))
        """,
    })
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    assert found.literals() == [21128] and found.complete
    assert found.values[0].trail == ("vocab_size",)  # the parameter and the key, one name


def test_config_object_default_and_self_attribute_root():
    proj = project({
        "model.py": """
            from mindspore import nn
            class Config:
                def __init__(self, vocab_size=21128):
                    self.vocab_size = vocab_size
            class Bert(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.config = config
                    self.head = nn.Dense(768, self.config.vocab_size)
            if __name__ == "__main__":
                Bert(Config())
        """,
    })
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    assert Values(proj).resolve("model.py", value, scope).literals() == [21128]


def test_config_object_built_from_kwargs_is_incomplete():
    proj = project({
        "model.py": """
            from mindspore import nn
            class Config:
                def __init__(self, vocab_size=50257, **kwargs):
                    self.vocab_size = vocab_size
            class Net(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.head = nn.Dense(768, config.vocab_size)
            if __name__ == "__main__":
                Net(Config(**loaded))
        """,
    })
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    assert not Values(proj).resolve("model.py", value, scope).complete


def test_a_computed_value_is_written_where_its_expression_is():
    proj = project({
        "model.py": """
            from mindspore import nn
            def head(vocab_size=50256):
                return nn.Dense(768, vocab_size + 1)
        """,
    })
    value, scope = argument_of(proj, "model.py", "nn.Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    assert found.literals() == [50257]
    where = found.values[0].where
    assert (where.line, where.column) == (3, 25)
    assert found.values[0].trail == ("vocab_size",)


def test_numpy_shape_builders_are_recorded_as_calls():
    proj = project({
        "model.py": """
            import numpy as np
            import mindspore as ms
            table = ms.Parameter(ms.Tensor(np.random.normal(0, 1, size=[50257, 768]).astype(np.float32)))
            ones = np.ones((3, 4))
            other = np.concatenate([a, b])
        """,
    })
    facts = proj.python["model.py"]
    callees = [c.callee for c in facts.calls]
    assert "numpy.random.normal" in callees and "numpy.ones" in callees
    assert "numpy.concatenate" not in callees
    tensor = next(c for c in facts.calls if c.callee == "mindspore.Tensor")
    assert tensor.args[0].kind == CALL and facts.call(tensor.args[0].data).callee == "numpy.random.normal"


def test_json_configs_named_as_configs_give_values_to_the_programs_beside_them(tmp_path):
    from ms_perflint.project.index import ProjectIndex
    from ms_perflint.sources import JSON, kind_of

    assert kind_of("bert_config.json") == JSON and kind_of("model/config.json") == JSON
    assert kind_of("vocab.json") is None and kind_of("instances_train2017.json") is None
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "config.json").write_text('{"vocab_size":21128,"nested":{"hidden_size":768}}')
    (tmp_path / "broken_config.json").write_text('{"vocab_size": ')
    (tmp_path / "train.py").write_text('import json\nimport mindspore\nif __name__ == "__main__":\n'
                                       '    config = json.load(open("config.json"))\n')
    (tmp_path / "export.py").write_text('import mindspore\nif __name__ == "__main__":\n    pass\n')
    facts = ProjectIndex(str(tmp_path)).refresh().facts()
    proj = Project(str(tmp_path), facts)
    assert set(proj.json) == {"config.json", "broken_config.json"} and not proj.yaml
    values = Values(proj)
    configs = values.config(next(p for p in proj.programs() if p.entry == "train.py"))
    found = [(k.value, k.source, k.where.line, k.where.column) for k in configs["vocab_size"]]
    assert found == [(21128, "json", 1, 14)]
    assert [k.value for k in configs["hidden_size"]] == [768]
    # a script that reads no config file takes nothing from the ones beside it
    assert values.config(next(p for p in proj.programs() if p.entry == "export.py")) == {}
