"""Jupyter notebooks: lint the code cells of a Python notebook as one module, report by cell.

The code cells are joined into one *virtual module*, so an import in cell 1
resolves a call in cell 5, and the analysis reads it as any Python file. A cell
that is not Python on its own (another kernel's syntax, a broken cell) is left
out and named, so the rest of the notebook is still checked. Each cell keeps
its own line numbers in that module; IPython syntax that is not Python is
neutralised line for line:

- a cell that starts with a cell magic (``%%time``, ``%%writefile``) is skipped;
- a line magic (``%matplotlib inline``, or ``pip install x`` without its ``%``),
  shell escape (``!pip install``), help line (``np.ones?``, ``?np.ones``) or
  ``files = !ls`` becomes ``pass`` at its own indentation (plus a comment that
  finds it again), so an indented block around it stays valid.

Findings are mapped back to ``(cell, line)``; cells are numbered from 1 among
*all* cells, as Jupyter shows them and as ruff reports them (markdown cells count).

Writing fixed sources back splices only the changed cells' ``source`` values
into the original JSON text, so indentation, key order, escaping, outputs and
metadata are kept byte for byte.
"""

from __future__ import annotations

import ast
import codecs
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ms_perflint.findings import FileError
from ms_perflint.sources.guard import quiet_compiler

#: A comment line put between cells in the virtual module; it finds the cells again after a fix.
CELL_MARKER = "# >>> ms-perflint cell {} <<<"
#: What a neutralised IPython line becomes (after its indentation). The comment makes it unique.
PLACEHOLDER = "pass  # >>> ms-perflint ipython {} <<<"

#: ``np.ones?`` / ``np.ones??``: help on an object (``?np.ones`` starts with ``?``, caught before).
_HELP_LINE = re.compile(r"\s*[A-Za-z_*][\w*]*(\.[A-Za-z_*][\w*]*)*\s*\?\??\s*")
#: ``files = !ls`` / ``t = %timeit -o f()``: a shell or magic result assigned to names.
_ESCAPED_ASSIGNMENT = re.compile(r"\s*[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
#: A name, then optionally whitespace and the rest of the line.
_BARE_CALL = re.compile(r"([A-Za-z_]\w*)(?:\s+(.*))?", re.DOTALL)
#: A first character of the rest that makes the line Python for IPython (``x = ...``, ``x (...)``, ``x + 1``).
_PYTHON_AFTER_NAME = frozenset("!=()<>,+*/%^&|")
#: Line magics that notebooks call without ``%`` (automagic is on by default), as in ``pip install x``.
AUTOMAGICS = frozenset(
    ("pip", "conda", "mamba", "cd", "env", "set_env", "load_ext", "reload_ext", "matplotlib", "time", "timeit",
     "run", "pwd", "ls", "mkdir", "rm", "cp", "mv", "cat", "history", "reset", "store", "autoreload", "config",
     "precision", "pylab", "capture", "who", "whos", "xmode", "pdb", "prun", "tensorboard")
)


class NotebookError(Exception):
    """The file is not a notebook we can read; ``line``/``column`` point into the JSON (1-based, 0-based)."""

    def __init__(self, message: str, line: int = 1, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


@dataclass
class CodeCell:
    """A code cell that is linted: its stored source and its lines as the virtual module holds them."""

    #: 0-based position among all cells of the notebook.
    index: int
    source: str
    #: The cell's lines with IPython syntax neutralised; each ends with ``"\\n"``.
    lines: List[str]
    #: The original text of each neutralised line, by 0-based line index in the cell.
    ipython_lines: Dict[int, str] = field(default_factory=dict)

    @property
    def number(self) -> int:
        """The 1-based cell number a user reads (counting every cell, as Jupyter does)."""
        return self.index + 1

    def has_python(self) -> bool:
        """True when some line is Python (not blank, not IPython): a ``!pip install`` cell has none."""
        return any(line.strip() for number, line in enumerate(self.lines) if number not in self.ipython_lines)


@dataclass
class Notebook:
    """A parsed notebook: its JSON text, the decoded document, and the code cells to lint."""

    text: str
    document: Dict[str, Any]
    bom: bool = False
    #: False for an R, Julia, ... notebook: nothing to lint.
    is_python: bool = True
    cells: List[CodeCell] = field(default_factory=list)
    #: Why code cells were left out (not Python, unreadable source), one line each.
    skipped: List[str] = field(default_factory=list)
    #: "cpu" when the saved outputs show MindSpore ran on Windows (its Windows builds are CPU only), else "".
    recorded_device: str = ""
    #: The MindSpore release the saved outputs show the notebook ran (``mindspore.run_check()`` prints it), else "".
    recorded_release: str = ""


@dataclass
class VirtualModule:
    """The code cells joined into one Python module, with the way back to cells."""

    text: str
    #: ``origins[virtual_line - 1]`` is ``(cell number, line in cell)``, or None for a marker line.
    origins: List[Optional[Tuple[int, int]]]

    def origin(self, line: int) -> Optional[Tuple[int, int]]:
        """``(cell number, line in cell)`` of a 1-based virtual line; None for a marker line or out of range."""
        return self.origins[line - 1] if 0 < line <= len(self.origins) else None


# --- reading ------------------------------------------------------------------


def read_notebook(data: Union[str, bytes]) -> Notebook:
    """Parse a notebook's JSON and find its code cells; raises :class:`NotebookError`."""
    bom = False
    if isinstance(data, bytes):
        bom = data.startswith(codecs.BOM_UTF8)
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise NotebookError(f"not a Jupyter notebook: not UTF-8 ({error.reason} at byte {error.start})") from None
    try:
        document = json.loads(data)
    except json.JSONDecodeError as error:
        raise NotebookError(f"not a Jupyter notebook: invalid JSON: {error.msg}", error.lineno, error.colno - 1) from None
    except RecursionError:
        raise NotebookError("not a Jupyter notebook: JSON nested too deeply") from None
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        if isinstance(document, dict) and "worksheets" in document:
            raise NotebookError("nbformat 3 notebooks are not supported; convert with `jupyter nbconvert --to notebook`")
        raise NotebookError("not a Jupyter notebook: no list of cells")
    notebook = Notebook(data, document, bom=bom, is_python=_is_python(document.get("metadata")))
    if notebook.is_python:
        notebook.cells = _code_cells(document["cells"], notebook.skipped)
        notebook.recorded_device = _recorded_device(document["cells"])
        notebook.recorded_release = _recorded_release(document["cells"])
    return notebook


#: A MindSpore log line written on Windows names its source file with backslashes
#: (``[mindspore\dataset\engine\datasets.py:656]``).
_WINDOWS_LOG = re.compile(r"\[mindspore\\{1,2}[a-z_]+\\{1,2}")


#: ``mindspore.run_check()``'s first line: "MindSpore version:  1.8.1".
_RUN_CHECK_VERSION = re.compile(r"MindSpore version:\s*(\d+\.\d+(?:\.\d+)?)")


def _recorded_device(cells: Sequence[Any]) -> str:
    """Where the saved outputs show the notebook ran: "cpu" for MindSpore on Windows, else ""."""
    return "cpu" if any(_WINDOWS_LOG.search(text) for text in _output_texts(cells)) else ""


def _recorded_release(cells: Sequence[Any]) -> str:
    """The MindSpore release the saved outputs show the notebook ran, else "" (several different: "")."""
    found = {match.group(1) for text in _output_texts(cells) for match in _RUN_CHECK_VERSION.finditer(text)}
    return found.pop() if len(found) == 1 else ""


def _output_texts(cells: Sequence[Any]) -> Iterator[str]:
    """The text of every saved stream output."""
    for cell in cells:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else ():
            text = output.get("text") if isinstance(output, dict) else None
            text = "".join(part for part in text if isinstance(part, str)) if isinstance(text, list) else text
            if isinstance(text, str):
                yield text


def _is_python(metadata: Any) -> bool:
    """The kernel's language is Python, or the notebook does not say (then assume Python, as ruff does)."""
    if not isinstance(metadata, dict):
        return True
    for owner, key in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(owner)
        if isinstance(section, dict) and isinstance(section.get(key), str):
            return section[key].strip().lower() == "python"
    return True


def _code_cells(cells: Sequence[Any], skipped: List[str]) -> List[CodeCell]:
    """The code cells to lint; a cell that cannot be read as Python is skipped and said so in ``skipped``."""
    found = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            skipped.append(f"cell {index + 1} skipped: not a notebook cell (a JSON {type(cell).__name__})")
            continue
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            skipped.append(f"cell {index + 1} skipped: its `source` is neither a string nor a list of strings")
            continue
        code = neutralise(source, index)
        if code is None or not code.has_python():
            continue
        problem = _python_problem(code)
        if problem is not None:
            skipped.append(f"cell {index + 1} skipped: not Python ({problem})")
            continue
        found.append(code)
    return found


def _python_problem(cell: CodeCell) -> Optional[str]:
    """Why the cell's code is not Python on its own (it would make the whole notebook unreadable), or None."""
    with quiet_compiler():
        try:
            ast.parse("".join(cell.lines))
        except SyntaxError as error:
            return f"{error.msg} at line {error.lineno}"
        except (ValueError, RecursionError, MemoryError) as error:
            return type(error).__name__
    return None


# --- IPython syntax -------------------------------------------------------------


def neutralise(source: str, index: int) -> Optional[CodeCell]:
    """The cell's lines with IPython-only lines replaced by placeholders; None when the cell is skipped.

    A cell magic (``%%time``) hands the whole cell to something other than Python,
    so the cell is skipped. Other escapes are recognised only where a statement
    starts (not inside brackets, strings or after a backslash), as IPython does.
    """
    lines = [line if line.endswith("\n") else line + "\n" for line in _LINE.findall(source)]
    first = next((line for line in lines if line.strip()), "")
    if first.lstrip().startswith("%%"):
        return None
    cell = CodeCell(index=index, source=source, lines=lines)
    scanner = _StatementScanner()
    for number, line in enumerate(lines):
        if scanner.at_statement_start() and _is_ipython_line(line):
            cell.ipython_lines[number] = line
            indent = line[: len(line) - len(line.lstrip(" \t"))]
            lines[number] = indent + PLACEHOLDER.format(len(cell.ipython_lines)) + "\n"
        else:
            scanner.feed(line)
    return cell


def _is_ipython_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if stripped[0] in "%!?":
        return True
    return bool(_HELP_LINE.fullmatch(line.rstrip("\n")) or _ESCAPED_ASSIGNMENT.match(line) or _is_automagic(stripped))


def _is_automagic(stripped: str) -> bool:
    """``pip install x``: a line magic without its ``%`` (IPython's automagic), and not Python.

    As IPython decides: a magic's name, then a space and arguments that do not
    start with an operator (``config = CheckpointConfig(`` is Python). The line
    must also fail to parse on its own, so ``ls in names`` stays Python.
    """
    match = _BARE_CALL.fullmatch(stripped)
    if match is None or match.group(1) not in AUTOMAGICS:
        return False
    if (match.group(2) or "")[:1] in _PYTHON_AFTER_NAME:
        return False
    with quiet_compiler():  # an invalid escape in the user's line is not ours to print
        try:
            ast.parse(stripped)
        except (SyntaxError, ValueError):
            return True
    return False  # ``time = 5`` or ``cd(path)`` is Python


class _StatementScanner:
    """Follows brackets, strings and backslash continuations line by line.

    Just enough of Python's lexer to tell whether the next line starts a new
    statement: a ``%`` or ``!`` inside a triple-quoted string is text, not a magic.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.quote: Optional[str] = None
        self.continued = False

    def at_statement_start(self) -> bool:
        """True when the next line fed begins a statement."""
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> None:
        """Advance over one line (ending with ``"\\n"``)."""
        self.continued = False
        index, length = 0, len(line)
        while index < length:
            if self.quote is not None:
                index = self._skip_string(line, index)
                continue
            char = line[index]
            if char == "#":
                break
            if char in "\"'":
                self.quote = line[index : index + 3] if line[index : index + 3] in ('"""', "'''") else char
                index += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "\\" and line[index + 1 :].strip() == "":
                self.continued = True
            index += 1
        if self.quote in ("'", '"') and not line.rstrip("\r\n").endswith("\\"):
            self.quote = None  # an unterminated one-line string ends with its line

    def _skip_string(self, line: str, index: int) -> int:
        assert self.quote is not None
        while index < len(line):
            if line[index] == "\\":
                index += 2
            elif line.startswith(self.quote, index):
                index += len(self.quote)
                self.quote = None
                return index
            else:
                index += 1
        return index


# --- the virtual module -----------------------------------------------------------


def virtual_module(cells: Sequence[CodeCell]) -> VirtualModule:
    """Join the cells, a marker comment line before every cell but the first."""
    parts: List[str] = []
    origins: List[Optional[Tuple[int, int]]] = []
    for position, cell in enumerate(cells):
        if position:
            parts.append(CELL_MARKER.format(cell.number) + "\n")
            origins.append(None)
        parts.extend(cell.lines)
        origins.extend((cell.number, line) for line in range(1, len(cell.lines) + 1))
    return VirtualModule("".join(parts), origins)


# --- positions back into cells ----------------------------------------------------------


def map_position(module: VirtualModule, line: int) -> Optional[Tuple[int, int]]:
    """``(cell number, line in cell)`` of a virtual line (None on a marker line)."""
    return module.origin(line)


def map_finding(finding: Any, module: VirtualModule) -> Any:
    """Give a finding of the virtual module its cell and in-cell lines (in place; returned for chaining)."""
    start = module.origin(finding.line)
    if start is None:  # never on a marker comment; kept visible rather than dropped if it were
        return finding
    end = module.origin(finding.end_line) if finding.end_line else None
    finding.cell, finding.line = start
    if end is not None and end[0] == start[0]:
        finding.end_line = end[1]
    else:  # a node running into the next cell (Jupyter would not have parsed it): end on its first line
        finding.end_line, finding.end_column = finding.line, finding.column
    return finding


def map_error(error: FileError, module: VirtualModule) -> FileError:
    """A parse error of the virtual module, told as cell and line."""
    line = error.line
    while line > 1 and module.origin(line) is None:
        line -= 1  # an error reported on a marker line belongs to the cell before it
    origin = module.origin(line)
    if origin is None:
        return error
    message = re.sub(r"\s*@\s*\d+:\d+", "", error.message)  # libcst's position counts lines of the joined cells
    return FileError(error.kind, message, origin[1], error.column, cell=origin[0])


class NotebookFixError(Exception):
    """Fixed code cannot be written back into the notebook; nothing is written."""


# --- the fixed module back into cells ------------------------------------------------------

_MARKER = re.compile(r"# >>> ms-perflint cell (\d+) <<<")


def changed_sources(text: str, cells: Sequence[CodeCell]) -> Dict[int, str]:
    """Split the fixed module at the cell markers and restore IPython lines: ``{cell index: new source}``.

    Only cells whose source changed are returned. Raises :class:`NotebookFixError`
    when a marker or an IPython placeholder did not survive the fixes unchanged.
    """
    markers = {CELL_MARKER.format(cell.number) + "\n": position for position, cell in enumerate(cells) if position}
    segments: List[List[str]] = [[]]
    for line in _LINE.findall(text):
        if markers.get(line) == len(segments):
            segments.append([])
        else:
            segments[-1].append(line)
    if len(segments) != len(cells):
        raise NotebookFixError("a fix moved a cell boundary")
    changed = {}
    for cell, lines in zip(cells, segments):
        source = _restore_ipython(cell, lines)
        if source != cell.source:
            changed[cell.index] = source
    return changed


def _restore_ipython(cell: CodeCell, lines: List[str]) -> str:
    lines = list(lines)
    for number, original in cell.ipython_lines.items():
        placeholder = cell.lines[number]
        found = [index for index, line in enumerate(lines) if line == placeholder]
        if len(found) != 1:
            raise NotebookFixError(f"a fix would change the IPython line at cell {cell.number}, line {number + 1}")
        lines[found[0]] = original
    source = "".join(lines)
    if not cell.source.endswith("\n") and source.endswith("\n"):
        source = source[:-1]  # the newline the virtual module added after the cell's last line
    return source


# --- writing sources back into the JSON text ---------------------------------------------------


def replace_sources(notebook: Notebook, sources: Dict[int, str]) -> str:
    """The notebook's JSON text with the ``source`` of the given cells replaced, everything else as it was.

    Each new value keeps the old one's form (one string, or a list of lines laid
    out like the old list) and the notebook's escaping of non-ASCII characters.
    """
    if not sources:
        return notebook.text
    text = notebook.text
    try:
        spans = _source_spans(text)
    except (ValueError, IndexError):
        raise NotebookFixError("cannot locate the cells' sources in the JSON text") from None
    ascii_only = _escapes_non_ascii(text)
    pieces, position = [], 0
    for index in sorted(sources):
        if index not in spans:
            raise NotebookFixError(f"cannot locate the source of cell {index + 1} in the JSON text")
        start, end = spans[index]
        pieces.append(text[position:start])
        pieces.append(_encode_source(sources[index], text[start:end], ascii_only))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def _escapes_non_ascii(text: str) -> bool:
    """Does the file write non-ASCII as ``\\uXXXX``? (nbformat writes it raw: the default.)"""
    return text.isascii() and re.search(r"\\u(?!00[0-7])[0-9a-fA-F]{4}", text) is not None


def _encode_source(source: str, old: str, ascii_only: bool) -> str:
    """``source`` as JSON in the layout of ``old`` (the raw JSON of the previous value)."""
    if not old.startswith("["):
        return json.dumps(source, ensure_ascii=ascii_only)
    items = _JsonScanner(old).items(0)
    raw_by_line: Dict[str, str] = {}
    for start, end in items:
        raw_by_line.setdefault(json.loads(old[start:end]), old[start:end])
    lines = _LINE.findall(source)
    if not lines:
        return "[]"
    if items:
        opening, closing = old[1 : items[0][0]], old[items[-1][1] : -1]
    else:
        opening = closing = ""
    if len(items) >= 2:
        separator = old[items[0][1] : items[1][0]]
    else:
        separator = "," + opening if "\n" in opening else ", "
    encoded = [raw_by_line.get(line) or json.dumps(line, ensure_ascii=ascii_only) for line in lines]
    return "[" + opening + separator.join(encoded) + closing + "]"


def _source_spans(text: str) -> Dict[int, Tuple[int, int]]:
    """``{cell index: (start, end)}`` of each cell's ``source`` value in the JSON text (the last one, as json does)."""
    scanner = _JsonScanner(text)
    spans: Dict[int, Tuple[int, int]] = {}
    for key, start, _ in scanner.members(scanner.skip_whitespace(0)):
        if key != "cells":
            continue
        spans = {}
        for index, (cell_start, _) in enumerate(scanner.items(start)):
            if text[cell_start] != "{":
                continue
            for cell_key, value_start, value_end in scanner.members(cell_start):
                if cell_key == "source":
                    spans[index] = (value_start, value_end)
    return spans


def json_position(text: str, cell: int, line: int) -> Optional[Tuple[int, int]]:
    """Where line ``line`` of cell ``cell`` (both 1-based, as findings tell them) is written in the notebook's JSON.

    ``(1-based line, 0-based column)`` of the JSON string that holds the start of
    that line -- one string per line in nbformat's list layout, the whole source
    when it is one string -- for tools that only know positions in the file, such
    as flake8. None when the cell's source cannot be found.
    """
    from ms_perflint.findings import LineIndex

    try:
        span = _source_spans(text).get(cell - 1)
        if span is None:
            return None
        start = span[0]
        if text[start] == "[":
            start = _item_holding_line(text, start, line)
    except (ValueError, IndexError):
        return None
    return LineIndex(text).position(start)


def _item_holding_line(text: str, start: int, line: int) -> int:
    """The offset of the list item (of the source list at ``start``) where the cell's ``line`` starts."""
    items = _JsonScanner(text).items(start)
    current = 1
    for item_start, item_end in items:
        if current >= line:
            return item_start
        value = json.loads(text[item_start:item_end])
        current += value.count("\n") if isinstance(value, str) else 0
        if current > line:
            return item_start  # the line starts inside this item (it holds several lines)
    return items[-1][0] if items else start


class _JsonScanner:
    """Where values are in a JSON text: the spans :func:`json.loads` does not give."""

    _WHITESPACE = " \t\n\r"

    def __init__(self, text: str) -> None:
        self.text = text
        self.decoder = json.JSONDecoder()

    def skip_whitespace(self, index: int) -> int:
        """The index of the next non-whitespace character."""
        while index < len(self.text) and self.text[index] in self._WHITESPACE:
            index += 1
        return index

    def value_end(self, index: int) -> int:
        """The index just after the value starting at ``index``."""
        return self.decoder.raw_decode(self.text, index)[1]

    def _expect(self, char: str, index: int) -> None:
        if self.text[index : index + 1] != char:
            raise ValueError(f"expected {char!r} at offset {index}")

    def members(self, index: int) -> List[Tuple[str, int, int]]:
        """``(key, value start, value end)`` of the object starting at ``index``."""
        text = self.text
        self._expect("{", index)
        found: List[Tuple[str, int, int]] = []
        index = self.skip_whitespace(index + 1)
        if text[index] == "}":
            return found
        while True:
            self._expect('"', index)
            key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
            index = self.skip_whitespace(index)
            self._expect(":", index)
            start = self.skip_whitespace(index + 1)
            end = self.value_end(start)
            found.append((key, start, end))
            index = self.skip_whitespace(end)
            if text[index] == "}":
                return found
            self._expect(",", index)
            index = self.skip_whitespace(index + 1)

    def items(self, index: int) -> List[Tuple[int, int]]:
        """``(start, end)`` of each element of the array starting at ``index``."""
        text = self.text
        self._expect("[", index)
        found: List[Tuple[int, int]] = []
        index = self.skip_whitespace(index + 1)
        if text[index] == "]":
            return found
        while True:
            end = self.value_end(index)
            found.append((index, end))
            index = self.skip_whitespace(end)
            if text[index] == "]":
                return found
            self._expect(",", index)
            index = self.skip_whitespace(index + 1)
