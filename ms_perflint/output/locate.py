"""Where a result's things are, as users read them: fix edits as rows and columns, source lines.

A fix's :class:`~ms_perflint.findings.TextEdit` holds character offsets. They
refer to ``result.source.text`` for a Python file, a YAML config or a launch
script, and to the notebook's *virtual module* (its code cells joined, see
:mod:`ms_perflint.sources.notebook`) for a notebook. The virtual module is not
kept on the result: :class:`EditLocator` rebuilds it from the notebook's JSON
(``result.source.text``) with the functions the linter built it with, so the
offsets land exactly where the rule computed them. No file is read and nothing
is linted again; a result without ``source`` has no positions for its edits.

In a notebook an edit's place is told in its cell (``cell``, the row within it),
as findings are. An edit that would run from one cell into the next (through the
line the virtual module puts between cells) ends where its first cell ends, as
ruff does for the newline it puts between cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from ms_perflint.findings import FileResult, Fix, LineIndex, TextEdit


@dataclass(frozen=True)
class Position:
    """A place as users read it: 1-based row and column; ``cell`` (1-based) in a notebook, else None."""

    row: int
    column: int
    cell: Optional[int] = None


class EditLocator:
    """Offsets of one result's fix edits -> :class:`Position`; ``usable`` is False when there is no text."""

    def __init__(self, result: FileResult) -> None:
        self.index: Optional[LineIndex] = None
        #: ``origins[line - 1]``: (cell, row in cell) of a virtual module line, None between cells.
        self.origins: Optional[List[Optional[Tuple[int, int]]]] = None
        self._text = ""
        if result.source is None:
            return
        if result.kind == "notebook":
            from ms_perflint.sources.notebook import NotebookError, read_notebook, virtual_module

            try:
                virtual = virtual_module(read_notebook(result.source.text).cells)
            except NotebookError:
                return
            self._text, self.origins = virtual.text, virtual.origins
        else:
            self._text = result.source.text
        self.index = LineIndex(self._text)

    @property
    def usable(self) -> bool:
        """True when positions can be computed."""
        return self.index is not None

    def span(self, edit: TextEdit) -> Tuple[Position, Position]:
        """Where an edit starts and ends (the end is exclusive: the first character kept)."""
        start, end = self.position(edit.start), self.position(edit.end)
        if start.cell is not None and end.cell != start.cell:
            end = self._after_cell(start.cell)
        return start, end

    def position(self, offset: int) -> Position:
        """The place of an offset (for a notebook: in its cell)."""
        assert self.index is not None, "no text to locate offsets in"
        line, column = self.index.position(offset)
        if self.origins is None:
            return Position(line, column + 1)
        origin = self._origin(line)
        if origin is not None:
            return Position(origin[1], column + 1, origin[0])
        # On the line between two cells, or after the last one: just after the previous line's break.
        previous = self._origin(line - 1) if line > 1 else None
        if previous is None:
            return Position(1, 1, None)
        return Position(previous[1] + 1, 1, previous[0])

    def _origin(self, line: int) -> Optional[Tuple[int, int]]:
        assert self.origins is not None
        return self.origins[line - 1] if 0 < line <= len(self.origins) else None

    def _after_cell(self, cell: int) -> Position:
        assert self.origins is not None
        last = max(origin[1] for origin in self.origins if origin is not None and origin[0] == cell)
        return Position(last + 1, 1, cell)


def applied_order(fix: Fix) -> List[TextEdit]:
    """A fix's edits in the order the one writer applies them (``ms_perflint.fix.edits.apply_edits``):
    by place, identical edits once, two insertions at one point by their text."""
    return sorted(set(fix.edits), key=lambda edit: (edit.start, edit.end, edit.new))


class SourceLines:
    """The lines users see in a result's file (a notebook: in each cell's stored source), read lazily."""

    def __init__(self, result: FileResult) -> None:
        self.result = result
        self._texts: Dict[Optional[int], Optional[Tuple[str, LineIndex]]] = {}
        self._cells: Optional[List[Any]] = None

    def line(self, number: int, cell: Optional[int] = None) -> Optional[str]:
        """Line ``number`` (1-based) without its line break, or None when it is not known."""
        known = self._text(cell)
        if known is None:
            return None
        text, index = known
        if not 0 < number <= len(index.starts):
            return None
        start = index.starts[number - 1]
        end = index.starts[number] if number < len(index.starts) else len(text)
        return text[start:end].rstrip("\r\n")

    def _text(self, cell: Optional[int]) -> Optional[Tuple[str, LineIndex]]:
        if cell not in self._texts:
            text = self._read(cell)
            self._texts[cell] = None if text is None else (text, LineIndex(text))
        return self._texts[cell]

    def _read(self, cell: Optional[int]) -> Optional[str]:
        source = self.result.source
        if source is None:
            return None
        if self.result.kind != "notebook":
            return source.text
        if cell is None:
            return None  # a place in the notebook's JSON (an unreadable notebook): no code line to show
        cells = self._notebook_cells()
        if not 0 < cell <= len(cells) or not isinstance(cells[cell - 1], dict):
            return None
        text = cells[cell - 1].get("source", "")
        if isinstance(text, list) and all(isinstance(part, str) for part in text):
            text = "".join(text)
        return text if isinstance(text, str) else None

    def _notebook_cells(self) -> List[Any]:
        if self._cells is None:
            import json

            assert self.result.source is not None
            try:
                document = json.loads(self.result.source.text)
            except (ValueError, RecursionError):
                document = None
            cells = document.get("cells") if isinstance(document, dict) else None
            self._cells = cells if isinstance(cells, list) else []
        return self._cells
