"""String literals are read without Python's compiler, and read as Python reads them."""

from __future__ import annotations

import libcst as cst
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_perflint.analysis.python import _NOT_LITERAL, _literal


def value(source: str):
    return _literal(cst.parse_expression(source))


@pytest.mark.parametrize("source", [
    "'plain'", '"double"', "'''triple\nlines'''", 'u"unicode prefix"', "r'raw \\d+'", "R'RAW \\n'",
    "'escape \\n tab \\t'", "'\\x41\\u00e9'", "'line \\\ncontinued'", "r'''raw\\\nnewline'''", "'quote \\' inside'",
    "'a' 'b'", "'a' \"b\" '''c'''", "'é😀'",
])
def test_each_literal_reads_as_python_reads_it(source):
    assert value(source) == eval(source)  # noqa: S307 -- the literal under test


@pytest.mark.parametrize("source", ["b'bytes'", "'a' f'{x}'", "f'{x}'", "rb'raw bytes'"])
def test_bytes_and_formatted_strings_are_not_known(source):
    assert value(source) is _NOT_LITERAL


@settings(max_examples=300, deadline=None)
@given(st.text(), st.sampled_from(["'", '"', "'''", '"""']), st.sampled_from(["", "u", "U"]))
def test_any_text_written_as_a_literal_reads_back(text, quote, prefix):
    # Every backslash, line break and non-ASCII character escaped, then every quote: valid inside any quotes.
    body = text.encode("unicode_escape").decode("ascii").replace("'", "\\'").replace('"', '\\"')
    source = prefix + quote + body + quote
    assert value(source) == eval(source) == text  # noqa: S307
    if text.isprintable() and not any(c in text for c in "\\'\""):  # also as written, with nothing escaped
        assert value(prefix + quote + text + quote) == text
