"""The parse guard's cheap signs of deep nesting (``ms_perflint.sources.guard``)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ms_perflint.sources import guard

#: The definition the scan must agree with: a maximal run of physical lines that each end in a backslash.
_WHOLE_CONTINUED_LINES = re.compile(r"(?:[^\n]*\\\r?\n)+")


def longest_by_definition(text: str) -> int:
    return max((match.group(0).count("\n") for match in _WHOLE_CONTINUED_LINES.finditer(text)), default=0)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["x = 1", "y = (", "\\", " \\", "a \\ b", "\\\\", "", "\r", "'s\\", "# c \\"]),
                max_size=40),
       st.sampled_from(["\n", "\r\n"]))
def test_longest_continuation_agrees_with_the_whole_line_definition(pieces, newline):
    text = newline.join(pieces) + newline
    assert guard._longest_continuation(text) == longest_by_definition(text)


def test_continued_lines_are_counted_per_logical_line():
    text = "a = 1 + \\\n  2 + \\\n  3\nb = \\\n  4\n"
    assert guard._longest_continuation(text) == 2
    assert guard._longest_continuation("no continuation\n") == 0


def test_many_continuations_look_deep_with_either_line_ending():
    body = "x = " + "lambda: \\\n" * (guard.SUSPICIOUS_CONTINUATIONS + 1) + "1\n"
    assert guard._looks_deep(body)
    assert guard._looks_deep(body.replace("\n", "\r\n"))
    few = "x = " + "lambda: \\\n" * 3 + "1\n"
    assert not guard._looks_deep(few)
    assert not guard._looks_deep(few.replace("\n", "\r\n"))


def test_continuations_in_many_logical_lines_do_not_add_up():
    text = "x = 1 + \\\n  2\n" * (guard.SUSPICIOUS_CONTINUATIONS * 3)
    assert guard._longest_continuation(text) == 1
    assert not guard._looks_deep(text)
