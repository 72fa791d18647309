"""Values.live_scopes: the scopes a program can run, calls under dead guards left out."""

from __future__ import annotations

import textwrap

from ms_perflint.analysis import analyse, module_name
from ms_perflint.findings import SourceText
from ms_perflint.project.model import Project
from ms_perflint.project.values import Values
from ms_perflint.sources import PYTHON, Unit

CODE = """
import mindspore as ms

def load(net):
    ms.load_checkpoint("net.ckpt")

def build(pretrained=False):
    if pretrained:
        load(net)
    return net

def unused():
    load(net)

if __name__ == "__main__":
    build()
"""


def project_of(code: str) -> Project:
    text = textwrap.dedent(code).lstrip("\n")
    facts = analyse(Unit("train.py", PYTHON, text, SourceText(text)), module_name("train.py"), False)
    return Project("", {"train.py": facts})


def scope_index(project: Project, name: str) -> int:
    return project.python["train.py"].functions[name]


def test_a_call_under_a_guard_that_never_holds_enters_nothing():
    project = project_of(CODE)
    program = project.programs()[0]
    live = Values(project).live_scopes(program)
    assert ("train.py", scope_index(project, "build")) in live
    assert ("train.py", scope_index(project, "load")) not in live
    assert ("train.py", scope_index(project, "unused")) not in live  # never called


def test_a_guard_that_can_hold_keeps_the_callee():
    project = project_of(CODE.replace("    build()", "    build(pretrained=True)"))
    live = Values(project).live_scopes(project.programs()[0])
    assert ("train.py", scope_index(project, "load")) in live


def test_the_caller_decides_the_guards():
    project = project_of(CODE)
    program = project.programs()[0]
    live = Values(project).live_scopes(program, holds=lambda path, scope, guards: True)
    assert ("train.py", scope_index(project, "load")) in live
    assert live <= set(program.scopes)


def test_values_within_one_program_follow_only_the_callers_it_runs():
    files = {
        "lib.py": """
            import mindspore as ms
            def build(pretrained):
                if pretrained:
                    ms.load_checkpoint("net.ckpt")
        """,
        "train.py": """
            from lib import build
            if __name__ == "__main__":
                build(False)
        """,
        "finetune.py": """
            from lib import build
            if __name__ == "__main__":
                build(True)
        """,
    }
    analysed = {}
    for path, code in files.items():
        text = textwrap.dedent(code).lstrip("\n")
        analysed[path] = analyse(Unit(path, PYTHON, text, SourceText(text)), module_name(path), False)
    project = Project("", analysed)
    values = Values(project)
    programs = {p.entry: p for p in project.programs()}
    load = next(c for c in project.python["lib.py"].calls if c.callee.endswith("load_checkpoint"))
    assert values.can_hold("lib.py", load.scope, load.guards)  # some program passes True
    assert not values.can_hold("lib.py", load.scope, load.guards, programs["train.py"])
    assert values.can_hold("lib.py", load.scope, load.guards, programs["finetune.py"])


def test_a_check_that_raises_on_a_missing_dataset_does_not_end_the_default_run():
    # ``data_path: ""`` in the shipped config is a placeholder: ``if dataset is None: raise`` does not make the
    # training below it dead code.
    from ms_perflint.project.values import Values
    from tests.project.test_values_provenance import project

    source = (
        "from mindspore.train import Model\n"
        "DATA = ''\n"
        "def train(path):\n"
        "    dataset = load(path) if path else None\n"
        "    if dataset is None:\n"
        "        raise ValueError('a dataset is needed')\n"
        "    Model(net, loss, opt).train(10, dataset)\n"
        "if __name__ == '__main__':\n"
        "    train(DATA)\n")
    proj = project({"train.py": source})
    values = Values(proj)
    call = next(c for c in proj.python["train.py"].calls if c.method == "train")
    assert values.can_hold("train.py", call.scope, call.guards)
