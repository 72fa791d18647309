"""What linting one file produces, as plain data that needs no libcst.

These types live apart from the engine so that results restored from the cache
(or sent back by a worker process) can be printed without importing libcst: a
fully cached run never parses, so it should not pay libcst's import either.
:mod:`ms_perflint.engine` re-exports them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, List, Optional, Union

from ms_perflint.rule import Violation

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst


@dataclass(frozen=True)
class FileError:
    """A file that could not be linted: unreadable, undecodable, or not valid Python."""

    kind: str
    message: str
    line: int = 1
    column: int = 0
    #: In a Jupyter notebook: the 1-based cell the error is in (``line`` counts within it), if any.
    cell: Optional[int] = None


@dataclass
class SourceText:
    """Decoded text plus what is needed to write it back byte-for-byte."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False


@dataclass
class FileResult:
    """What linting one file produced."""

    path: str
    violations: List[Violation] = field(default_factory=list)
    error: Optional[FileError] = None
    source: Optional[SourceText] = None
    #: The parsed module, kept only when the caller asks for it (the fixer does).
    module: Optional["cst.Module"] = field(default=None, repr=False)


def read_bytes(path: str) -> Union[bytes, FileError]:
    """The file's bytes, or the error that explains why they cannot be read.

    Opened without blocking, so that a FIFO named ``x.py`` is refused instead of
    waiting forever for a writer.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except IsADirectoryError:
        return FileError("ReadError", "is a folder, not a file")
    except OSError as error:
        return FileError("ReadError", f"cannot read file: {error.strerror or error}")
    try:
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            return FileError("ReadError", "is a folder, not a file")
        if not stat.S_ISREG(mode):
            return FileError("ReadError", "not a regular file (a pipe, socket or device)")
        with open(descriptor, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as error:
        return FileError("ReadError", f"cannot read file: {error.strerror or error}")
    finally:
        os.close(descriptor)
