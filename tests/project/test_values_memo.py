"""Value resolution answers each question once, however many paths lead to it."""

from __future__ import annotations

from ms_perflint.project.values import Values
from tests.project.test_values_provenance import project


def test_a_question_asked_along_many_paths_is_answered_once(monkeypatch):
    # mindformers: a guard's parameter passed down through layers of functions, each called from several places,
    # was resolved once per path to it (4 ** depth here); its project took 16 s to decide one rule.
    layers = ["def f0(flag):\n    if flag:\n        print('on')\n"]
    for level in range(1, 7):
        layers.append(f"def f{level}(flag):\n" + f"    f{level - 1}(flag)\n" * 4)
    proj = project({"train.py": "".join(layers) + "f6(False)\n"})
    values = Values(proj)
    asked = []
    resolve = Values._resolve
    monkeypatch.setattr(Values, "_resolve", lambda self, *args: asked.append(args) or resolve(self, *args))
    guard = next(c for c in proj.python["train.py"].calls if c.callee == "print").guards[0][0]
    found = values.resolve("train.py", guard, 1)
    assert found.complete and [k.value for k in found.values] == [False] * 4 ** 6
    assert len(asked) < 100, len(asked)
