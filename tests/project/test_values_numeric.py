"""Sizes computed by pure numeric functions: ``int(math.log(upscale_factor, 2))`` is a size like a literal.

From SRGAN in the development set: the generator's up-sampling blocks are built ``int(math.log(4, 2))`` times,
so its parameter count (1.5 M, a small network) was unknown and a save of it was reported.
"""

from __future__ import annotations

import pytest

from ms_perflint.project.values import Values
from tests.project.test_values_provenance import argument_of, project


def resolved(expression: str, prelude: str = ""):
    proj = project({"model.py": f"import math\nfrom mindspore import nn\n{prelude}\nnn.Dense(8, {expression})\n"})
    value, scope = argument_of(proj, "model.py", "Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    return found.complete, sorted(k.value for k in found.values)


@pytest.mark.parametrize("expression, value", [
    ("int(math.log(16, 2))", 4),
    ("max(16, 100 // 4)", 25),
    ("min(64, 2048)", 64),
    ("round(2.6)", 3),
    ("abs(-8)", 8),
    ("int(math.sqrt(WIDTH))", 32),
    ("math.ceil(WIDTH / 3)", 342),
])
def test_pure_numeric_functions_of_known_numbers_are_computed(expression, value):
    assert resolved(expression, "WIDTH = 1024") == (True, [value])


def test_every_combination_of_values_is_computed():
    prelude = "def head(scale):\n    return nn.Dense(8, int(math.log(scale, 2)))\nhead(4)\nhead(8)\n"
    proj = project({"model.py": f"import math\nfrom mindspore import nn\n{prelude}"})
    value, scope = argument_of(proj, "model.py", "Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    assert found.complete and sorted(k.value for k in found.values) == [2, 3]


@pytest.mark.parametrize("expression", [
    "int(math.log(unknown, 2))",  # an argument the model does not know
    "int('12')",                  # not a number
    "math.log(-1)",               # raises: no value, not a crash
    "max(*sizes)",                # arguments the model cannot list
    "int(x, base=2)",             # keywords
])
def test_unknown_or_failing_calls_are_unknown(expression):
    complete, values = resolved(expression)
    assert not (complete and values)


def test_a_project_function_named_like_a_builtin_is_not_computed():
    assert resolved("max(4, 8)", "def max(a, b):\n    return a\n") != (True, [8])



def dense_width(body: str, call: str):
    """The output width of ``nn.Dense`` built by ``def build(width, extra=None)`` with ``body``, called as ``call``."""
    source = "from mindspore import nn\n\ndef build(width, extra=None):\n" + body + \
        "    return nn.Dense(8, width)\n\n" + call + "\n"
    proj = project({"model.py": source})
    value, scope = argument_of(proj, "model.py", "Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)
    return found.complete, sorted(k.value for k in found.values)


@pytest.mark.parametrize("body, call, expected", [
    # an augmented assignment outside a loop applies its operation to the value before
    ("    width *= 2\n", "build(64)", (True, [128])),
    # in one arm of an ``if`` decided by an identity test of a default None: the other arm's value
    ("    if extra is not None:\n        width += extra\n", "build(64)", (True, [64])),
    ("    if extra is not None:\n        width += extra\n", "build(64, extra=4)", (True, [68])),
    ("    if extra is None:\n        pass\n    else:\n        width += extra\n", "build(64)", (True, [64])),
])
def test_augmented_assignments_and_identity_tests_are_followed(body, call, expected):
    assert dense_width(body, call) == expected


def test_an_augmented_assignment_in_a_loop_is_a_running_value():
    complete, values = dense_width("    for _ in range(3):\n        width += 1\n", "build(64)")
    assert not complete or values != [65]


def test_an_item_from_the_end_of_what_a_function_returns_and_an_empty_return():
    source = ("from mindspore import nn\n\ndef sizes(flag):\n    if flag:\n        return ()\n"
              "    return (16, 32)\n\nnn.Dense(8, sizes(True)[-1])\n")
    proj = project({"model.py": source})
    value, scope = argument_of(proj, "model.py", "Dense", 1)
    found = Values(proj).resolve("model.py", value, scope)  # raised IndexError on the empty tuple
    assert 32 in [k.value for k in found.values]
