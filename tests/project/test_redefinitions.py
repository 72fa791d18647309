"""A function defined twice at the top of one file (notebook cells, scripts): a call uses the definition above it."""

from __future__ import annotations

import textwrap

from ms_perflint.analysis import analyse, module_name
from ms_perflint.analysis.facts import CALL, Value
from ms_perflint.findings import SourceText
from ms_perflint.project.model import Project
from ms_perflint.sources import PYTHON, Unit

CODE = """
import mindspore.nn as nn

class Small(nn.Cell):
    pass

class Big(nn.Cell):
    pass

def build():
    return Small()

net = build()

def build():
    return Big()

other = build()
"""


def test_each_call_builds_what_the_definition_above_it_returns():
    text = textwrap.dedent(CODE).lstrip("\n")
    facts = analyse(Unit("train.py", PYTHON, text, SourceText(text)), module_name("train.py"), False)
    project = Project("", {"train.py": facts})
    first, second = [c for c in facts.calls if c.callee.endswith("build")]
    # Both values stay alive: the model memoises by the identity of the facts' values, which live as long as it.
    built_first, built_second = Value(CALL, first.id), Value(CALL, second.id)
    assert project.instance_classes("train.py", built_first, 0) == {("train.py", "Small")}
    assert project.instance_classes("train.py", built_second, 0) == {("train.py", "Big")}
