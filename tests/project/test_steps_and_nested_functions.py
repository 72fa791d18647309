"""What the model knows about training steps written the ways real scripts write them.

A train step defined inside the training function (MindSpore's tutorial), results unpacked from a call
(``loss, grads = grad_fn(x, y)``), text formatted from values (f-strings, ``str.format``), ``continue`` as a guard,
and train-step cells that derive from ``TrainOneStepCell``.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from ms_perflint.analysis.facts import CALL, OP, PythonFacts
from ms_perflint.analysis.python import FORMATTED, extract_python
from ms_perflint.project.model import Project
from ms_perflint.project.training import Training


def facts_of(code: str, module: str = "train") -> PythonFacts:
    text = textwrap.dedent(code).lstrip("\n")
    return extract_python(cst.parse_module(text), text, module)


def project_of(code: str) -> Project:
    return Project("/p", {"train.py": facts_of(code)})


NESTED = """
import mindspore as ms
def train(net, opt, dataset):
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    for x, y in dataset:
        loss = train_step(x, y)
        print(f"loss {loss}", "{}".format(loss))
if __name__ == "__main__":
    train(net, opt, dataset)
"""


def test_a_function_defined_in_a_function_is_called_by_its_dotted_name():
    facts = facts_of(NESTED)
    step = next(c for c in facts.calls if c.callee == "train.train.train_step")
    assert facts.functions["train.train_step"] == facts.scopes.index(
        next(s for s in facts.scopes if s.name == "train.train_step"))
    project = Project("/p", {"train.py": facts})
    assert project.targets("train.py", step) == (("train.py", facts.functions["train.train_step"]),)
    assert Training(project).call_trains("train.py", step)


def test_results_unpacked_from_a_call_are_its_items():
    facts = facts_of(NESTED)
    grads_call = next(c for c in facts.calls if c.method == "__call__" and c.receiver.via == "grad_fn")
    returned = facts.scopes[facts.functions["train.train_step"]].returns[0]
    assert returned.kind == OP and returned.data == "[]"
    assert returned.parts[0].kind == CALL and returned.parts[0].data == grads_call.id and returned.parts[1].data == 0


def test_formatted_text_carries_the_values_it_formats():
    facts = facts_of(NESTED)
    printed = next(c for c in facts.calls if c.callee == "print")
    assert [a.kind for a in printed.args] == [OP, OP]
    assert all(a.data == FORMATTED for a in printed.args)
    assert all(a.parts[-1].via == "loss" for a in printed.args)


def test_continue_guards_the_rest_of_the_loop_body():
    facts = facts_of("""
    for step, x in enumerate(data):
        if step % 10:
            continue
        print(x)
    """)
    printed = next(c for c in facts.calls if c.callee == "print")
    assert [(value.text, holds) for value, holds in printed.guards] == [("step % 10", False)]


def test_an_early_exit_in_a_nested_block_guards_only_the_rest_of_that_block():
    # DBNet's init_env: a validation ``raise`` inside ``if cfg.device_target != "None":`` guarded the rest of the
    # function by the outer test, so its set_context(mode=...) never ran when the device was left to the default
    facts = facts_of("""
    def init_env(cfg):
        if cfg.device_target != "None":
            if cfg.device_target not in ["Ascend", "GPU"]:
                raise ValueError(cfg.device_target)
            print("device")
        if cfg.mode not in ["graph", "pynative"]:
            raise ValueError(cfg.mode)
        print("mode")
    print("after")
    """)
    guards = {c.args[0].data: [(value.text, holds) for value, holds in c.guards] for c in facts.calls
              if c.callee == "print"}
    assert guards["device"] == [('cfg.device_target != "None"', True),
                                ('cfg.device_target not in ["Ascend", "GPU"]', False)]
    assert guards["mode"] == [('cfg.mode not in ["graph", "pynative"]', False)]
    assert guards["after"] == []


def test_a_def_in_the_main_block_is_a_module_function():
    facts = facts_of("""
    if __name__ == "__main__":
        def main():
            pass
        main()
    """)
    assert "main" in facts.functions
    assert any(c.callee == "train.main" for c in facts.calls)


def test_a_cell_built_on_train_one_step_cell_is_a_train_step():
    project = project_of("""
    import mindspore.nn as nn
    class ClipStep(nn.TrainOneStepCell):
        def construct(self, *inputs):
            return self.network(*inputs)
    if __name__ == "__main__":
        step = ClipStep(net, opt)
        for x in data:
            step(x)
    """)
    facts = project.python["train.py"]
    built = next(c for c in facts.calls if c.callee == "train.ClipStep")
    called = next(c for c in facts.calls if c.method == "__call__")
    assert project.training_kind("train.py", built) == "step"
    assert Training(project).call_trains("train.py", called)
    assert [p.entry for p in project.training_programs()] == ["train.py"]
