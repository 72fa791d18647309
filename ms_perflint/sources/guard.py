"""Input the CST parser must not see: nesting deep enough to crash or stall it.

Measured with libcst 1.9: its native parser kills the whole process (a stack
overflow, exit 139) on about 3000 nested brackets; its time grows with the square
of an operator chain's depth (``a + a + ...``: 1500 terms 2.7 s, 3000 terms 13 s,
10000 never finished); and walking a tree nested about 330 levels deep exhausts
Python's recursion limit. Python's own parser refuses more than 200 nested
brackets and fails cleanly (SyntaxError, RecursionError) on the rest.

So before libcst parses a file, :func:`nesting_error` looks for the cheap signs of
deep nesting (deep brackets, a very long line, a bracketed region spanning many
lines). Only then does it ask Python's ``ast`` whether the file parses and how deep
it goes. Ordinary files pay for one regular-expression scan of their brackets.
"""

from __future__ import annotations

import ast
import re
import warnings
from contextlib import contextmanager
from typing import Iterator, Optional

from ms_perflint.findings import FileError

#: Deeper brackets than this make the scan ask ``ast`` (Python itself stops at 200).
SUSPICIOUS_BRACKET_DEPTH = 100
#: A physical line longer than this may hold a long operator chain.
SUSPICIOUS_LINE_LENGTH = 2000
#: A bracketed region, or a run of backslash-continued lines, spanning more lines than this may
#: hold a long chain or deep nesting (``x = lambda: \`` continued 4000 times crashed libcst).
SUSPICIOUS_REGION_LINES = 500
#: More backslash-continued lines in one logical line than this also make the scan ask ``ast``.
SUSPICIOUS_CONTINUATIONS = 100
#: Syntax trees deeper than this are not given to libcst (it would take seconds, then fail).
MAX_TREE_DEPTH = 1000

_NOT_BRACKET_OR_NEWLINE = re.compile(r"[^()\[\]{}\n]+")
_OPENING = "([{"


@contextmanager
def quiet_compiler() -> Iterator[None]:
    """Python's compiler run on the user's code (``ast.parse``, ``literal_eval``) says nothing.

    Its warnings about that code (an invalid escape such as ``"\\l"``: SyntaxWarning on Python 3.12+,
    DeprecationWarning before) would reach the terminal as ``<unknown>:815: ...`` with no file name, and
    under ``-W error`` they are exceptions that would change what the file is read as.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def parse_quietly(text: str) -> ast.Module:
    """``ast.parse(text)`` under :func:`quiet_compiler`."""
    with quiet_compiler():
        return ast.parse(text)


def nesting_error(text: str) -> Optional[FileError]:
    """Why ``text`` must not be parsed with libcst, or None when it is safe to."""
    if not _looks_deep(text):
        return None
    with quiet_compiler():
        try:
            tree = ast.parse(text)
        except SyntaxError as error:
            return _from_syntax_error(error)
        except (RecursionError, MemoryError, ValueError):
            return too_deep_error()
    if _deeper_than(tree, MAX_TREE_DEPTH):
        return too_deep_error()
    return None


def python_syntax_error(text: str) -> Optional[FileError]:
    """Python's own account of a syntax error in ``text`` (message and position), or None if it parses."""
    with quiet_compiler():
        try:
            ast.parse(text)
        except SyntaxError as error:
            return _from_syntax_error(error)
        except (RecursionError, MemoryError):
            return too_deep_error()
        except ValueError as error:  # "source code string cannot contain null bytes" (Python < 3.12)
            return FileError("SyntaxError", str(error))
    return None


def _from_syntax_error(error: SyntaxError) -> FileError:
    column = (error.offset or 1) - 1
    return FileError("SyntaxError", error.msg or "invalid syntax", error.lineno or 1, max(column, 0))


def too_deep_error() -> FileError:
    """The error for a file nested too deeply to analyse."""
    return FileError("TooComplex", "expressions are nested too deeply to analyse")


def _looks_deep(text: str) -> bool:
    """Cheap signs of deep nesting; strings and comments may fake them, which only costs an ast parse."""
    if len(text) > SUSPICIOUS_LINE_LENGTH and max(map(len, text.splitlines()), default=0) > SUSPICIOUS_LINE_LENGTH:
        return True
    if ("\\\n" in text or "\\\r" in text) and _longest_continuation(text) > SUSPICIOUS_CONTINUATIONS:
        return True
    depth = 0
    region_start_line = line = 1
    for char in _NOT_BRACKET_OR_NEWLINE.sub("", text):  # a short string: the loop stays cheap
        if char == "\n":
            line += 1
            if depth and line - region_start_line > SUSPICIOUS_REGION_LINES:
                return True
        elif char in _OPENING:
            if depth == 0:
                region_start_line = line
            depth += 1
            if depth > SUSPICIOUS_BRACKET_DEPTH:
                return True
        elif depth:
            depth -= 1
    return False


_LINE_CONTINUATION = re.compile(r"\\\r?\n")


def _longest_continuation(text: str) -> int:
    """The most physical lines one logical line spans through backslash continuations.

    Counts runs of backslash-newlines with no other line break between them; a regular expression
    matching whole continued lines backtracked over every line and cost more than the rest of the guard.
    """
    longest = run = 0
    previous_end = -1
    for match in _LINE_CONTINUATION.finditer(text):
        start = match.start()
        run = run + 1 if previous_end >= 0 and text.find("\n", previous_end, start) < 0 else 1
        longest = max(longest, run)
        previous_end = match.end()
    return longest


def _deeper_than(tree: ast.AST, limit: int) -> bool:
    """Is any node of ``tree`` more than ``limit`` levels down? (Iterative: the tree may be deep.)"""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False
