"""Sources: what kind a file is and the text the analysis reads, decided before any linting.

A file is one of five kinds (:func:`kind_of`): a Python file, a Jupyter notebook
(its code cells joined into one virtual module), a YAML config, a JSON config (read
as YAML, whose syntax JSON's is) or a shell launch script. :func:`load_unit` reads
its bytes into a :class:`Unit`: the text the analysis reads, how to write a changed text back (encoding, BOM, the notebook's
JSON), and why it cannot be checked when it cannot. Nothing here parses Python.
"""

from __future__ import annotations

import codecs
import io
import os
import stat
import tokenize
from dataclasses import dataclass, field
from typing import List, Optional, Union

from ms_perflint.catalogue import MINDSPORE_PACKAGES
from ms_perflint.findings import FileError, SourceText
from ms_perflint.settings import DEFAULT_MAX_FILE_SIZE  # noqa: F401 -- the one definition, re-exported

PYTHON = "python"
NOTEBOOK = "notebook"
YAML = "yaml"
JSON = "json"
SHELL = "shell"
#: Suffixes checked when a folder is walked, by kind (config files are checked as part of their project).
PYTHON_SUFFIXES = (".py",)
NOTEBOOK_SUFFIXES = (".ipynb",)
YAML_SUFFIXES = (".yaml", ".yml")
#: JSON files are configs only when their name says so (``config.json``, ``bert_config.json``): the others are
#: data (annotations, vocabularies) that no rule reads. Like launch scripts, they are read only as part of a project.
JSON_SUFFIXES = (".json",)
JSON_CONFIG_WORD = "config"
SHELL_SUFFIXES = (".sh",)
#: A notebook's JSON may be this many times the size limit (outputs, images) before it is not read at all.
NOTEBOOK_JSON_FACTOR = 20


def kind_of(path: str) -> Optional[str]:
    """The kind of a file by its name, or None for a file the linter does not read."""
    lowered = path.lower()
    if lowered.endswith(PYTHON_SUFFIXES):
        return PYTHON
    if lowered.endswith(NOTEBOOK_SUFFIXES):
        return NOTEBOOK
    if lowered.endswith(YAML_SUFFIXES):
        return YAML
    if lowered.endswith(SHELL_SUFFIXES):
        return SHELL
    if lowered.endswith(JSON_SUFFIXES) and JSON_CONFIG_WORD in lowered.replace("\\", "/").rsplit("/", 1)[-1]:
        return JSON
    return None


@dataclass
class Unit:
    """One file as the analysis reads it."""

    path: str
    kind: str
    #: What the analysis reads: the file's text, or a notebook's virtual module.
    text: str = ""
    #: The file as decoded, to write a changed version back byte for byte (a notebook: its JSON).
    source: Optional[SourceText] = None
    error: Optional[FileError] = None
    #: A notebook's parsed document and virtual module (None for other kinds).
    notebook: object = None
    virtual: object = None
    #: Things that did not stop the check (a notebook cell left out), one line each.
    notices: List[str] = field(default_factory=list)


_PACKAGE_NAMES = tuple(package.encode("ascii") for package in MINDSPORE_PACKAGES)


def names_mindspore(data: bytes) -> bool:
    """Whether Python source bytes name a MindSpore-family package anywhere (an import needs its name)."""
    return any(name in data for name in _PACKAGE_NAMES)


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


def too_large(size: int, limit: Optional[int]) -> Optional[FileError]:
    """The error for a file over the size limit (None: within it, or no limit)."""
    if limit is None or limit <= 0 or size <= limit:
        return None
    return FileError("TooLarge", f"not checked: {_megabytes(size)} is over the size limit of {_megabytes(limit)} "
                                 f"(max-file-size)")


def _megabytes(size: int) -> str:
    """``2.4 MB``; under 1 MB in kB, and in bytes when rounding would make the file and the limit look equal."""
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1000:.1f} kB" if size >= 10_000 else f"{size} bytes"


def decode_python(data: bytes) -> SourceText:
    """Decode bytes as Python does: BOM, then a PEP 263 coding cookie, else UTF-8.

    Raises UnicodeDecodeError or SyntaxError (bad cookie) for undecodable input.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText(text=text, encoding="utf-8" if encoding == "utf-8-sig" else encoding, bom=bom)


def decode_utf8(data: bytes) -> SourceText:
    """Decode a UTF-8 config file, keeping whether it starts with a byte-order mark."""
    bom = data.startswith(codecs.BOM_UTF8)
    return SourceText(text=data.decode("utf-8-sig"), encoding="utf-8", bom=bom)


def load_unit(path: str, data: bytes, kind: Optional[str] = None, max_size: Optional[int] = None) -> Unit:
    """Read ``data`` (the bytes of ``path``) as a unit of its kind; problems come back as ``Unit.error``."""
    kind = kind or kind_of(path) or PYTHON
    unit = Unit(path, kind)
    # A notebook's JSON carries outputs (images): its limit is on the code it holds, checked once read.
    unit.error = too_large(len(data), max_size * NOTEBOOK_JSON_FACTOR if kind == NOTEBOOK and max_size else max_size)
    if unit.error is not None:
        return unit
    try:
        if kind == NOTEBOOK:
            _load_notebook(unit, data)
            if unit.error is None:
                unit.error = too_large(len(unit.text.encode("utf-8", "surrogatepass")), max_size)
            return unit
        unit.source = decode_python(data) if kind == PYTHON else decode_utf8(data)
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        unit.error = FileError("DecodeError", f"cannot decode file: {error}")
        return unit
    unit.text = unit.source.text
    return unit


def _load_notebook(unit: Unit, data: bytes) -> None:
    from ms_perflint.sources.notebook import NotebookError, read_notebook, virtual_module

    try:
        notebook = read_notebook(data)
    except NotebookError as error:
        unit.error = FileError("NotebookError", str(error), error.line, error.column)
        return
    unit.notebook = notebook
    unit.source = SourceText(notebook.text, bom=notebook.bom)
    if notebook.skipped and not notebook.cells:  # nothing could be read: the notebook was not checked at all
        unit.error = FileError("NotebookError", f"no code cell could be read ({'; '.join(notebook.skipped[:3])})")
        return
    unit.notices.extend(notebook.skipped)
    virtual = virtual_module(notebook.cells)
    unit.virtual = virtual
    unit.text = virtual.text
