"""Reading profiler output: the operator tables MindSpore's Profiler and msprof write.

Each table becomes :class:`OpRow` records: the operator's full scope name (the join key with the
source), its type, the time it took, and -- where the table has them -- its input dtypes and shapes,
its output shapes and the core it ran on. Columns are found by name in the header, tolerating the
spellings of different releases; a missing optional column leaves that field empty, a table without
a name or a time column is skipped with a note.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

#: Table files, by the glob of their name, and how their time column is counted.
#: ``cpu_op_detail_info_<rank>.csv`` (MindSpore 2.x on CPU): one row per operator, total milliseconds.
#: ``kernel_details.csv`` (MindSpore on Ascend): one row per kernel launch, microseconds.
#: ``op_summary_*.csv`` (msprof): one row per task, microseconds.
TABLES: Tuple[Tuple[str, str], ...] = (
    ("cpu_op_detail_info_*.csv", "total_ms"),
    ("kernel_details*.csv", "us"),
    ("op_summary_*.csv", "us"),
)
NAME_COLUMNS = ("full_op_name", "name", "op name", "op_name")
TYPE_COLUMNS = ("op_type", "type", "op type")
TIME_COLUMNS = ("op_total_time(ms)", "duration(us)", "task duration(us)", "duration (us)", "task_duration(us)")
COUNT_COLUMNS = ("op_occurrences",)
INPUT_TYPES_COLUMNS = ("input data types", "input_data_types", "input dtypes")
INPUT_SHAPES_COLUMNS = ("input shapes", "input_shapes")
OUTPUT_SHAPES_COLUMNS = ("output shapes", "output_shapes")
CORE_COLUMNS = ("accelerator core", "task type", "core type")
#: Cores that are not the AI Core (an operator there runs on the AI CPU, slowly).
AI_CPU_CORES = ("ai_cpu", "aicpu")


@dataclass(frozen=True)
class OpRow:
    """One operator of a profile (rows of the same name are summed)."""

    name: str
    op_type: str
    time_us: float
    input_dtypes: Tuple[str, ...] = ()
    input_shapes: Tuple[Tuple[int, ...], ...] = ()
    output_shapes: Tuple[Tuple[int, ...], ...] = ()
    on_ai_cpu: bool = False


@dataclass
class Profile:
    """The operators of one or more profile folders, and what could not be read."""

    rows: List[OpRow] = field(default_factory=list)
    #: The tables read.
    tables: List[str] = field(default_factory=list)
    #: Notes for the user: a table skipped, a folder with no table.
    problems: List[str] = field(default_factory=list)

    @property
    def total_us(self) -> float:
        return sum(row.time_us for row in self.rows)


def read_profiles(folders: Sequence[str]) -> Profile:
    """Every operator table under ``folders`` (searched recursively), merged by operator name."""
    profile = Profile()
    merged: Dict[str, OpRow] = {}
    for folder in folders:
        problem = folder_problem(folder)
        if problem is not None:
            profile.problems.append(problem)
            continue
        for path, unit in _tables(folder):
            rows = _read_table(path, unit, profile.problems)
            if rows is None:
                continue
            profile.tables.append(path)
            for row in rows:
                merged[row.name] = _merge(merged.get(row.name), row)
    profile.rows = sorted(merged.values(), key=lambda row: -row.time_us)
    return profile


def folder_problem(folder: str) -> Optional[str]:
    """Why ``folder`` holds no profile (it is not a folder, or no operator table is in it), or None."""
    if not os.path.isdir(folder):
        return f"{folder}: {'not a folder' if os.path.exists(folder) else 'no such folder'}"
    if next(_tables(folder), None) is None:
        return f"{folder}: no profile found (looked for {', '.join(g for g, _ in TABLES)})"
    return None


def _tables(folder: str) -> Iterator[Tuple[str, str]]:
    import fnmatch

    for parent, subfolders, names in os.walk(folder):
        subfolders.sort()
        for name in sorted(names):
            for pattern, unit in TABLES:
                if fnmatch.fnmatch(name, pattern):
                    yield os.path.join(parent, name), unit
                    break


def _read_table(path: str, unit: str, problems: List[str]) -> Optional[List[OpRow]]:
    try:
        with open(path, newline="", encoding="utf-8-sig", errors="replace") as handle:
            reader = csv.reader(handle)
            header = next(reader, None)
            if header is None:
                problems.append(f"{path}: empty table, skipped")
                return None
            columns = {name.strip().lower(): index for index, name in enumerate(header)}
            name_at, time_at = _column(columns, NAME_COLUMNS), _column(columns, TIME_COLUMNS)
            if name_at is None or time_at is None:
                missing = "operator name" if name_at is None else "time"
                problems.append(f"{path}: its header has no {missing} column, skipped")
                return None
            return [row for row in (_row(cells, columns, name_at, time_at, unit) for cells in reader) if row]
    except (OSError, csv.Error) as error:
        problems.append(f"{path}: cannot read the table ({error}), skipped")
        return None


def _column(columns: Dict[str, int], names: Sequence[str]) -> Optional[int]:
    return next((columns[name] for name in names if name in columns), None)


def _row(cells: List[str], columns: Dict[str, int], name_at: int, time_at: int, unit: str) -> Optional[OpRow]:
    def cell(names: Sequence[str]) -> str:
        index = _column(columns, names)
        return cells[index].strip() if index is not None and index < len(cells) else ""

    if name_at >= len(cells) or time_at >= len(cells):
        return None  # a truncated line
    name = cells[name_at].strip()
    try:
        time = float(cells[time_at])
    except ValueError:
        return None
    if not name:
        return None
    time_us = time * 1000.0 if unit == "total_ms" else time
    core = cell(CORE_COLUMNS).lower().replace(" ", "_")
    return OpRow(name, cell(TYPE_COLUMNS), time_us, tuple(_dtypes(cell(INPUT_TYPES_COLUMNS))),
                 tuple(_shapes(cell(INPUT_SHAPES_COLUMNS))), tuple(_shapes(cell(OUTPUT_SHAPES_COLUMNS))),
                 core.startswith(AI_CPU_CORES))


def _merge(known: Optional[OpRow], row: OpRow) -> OpRow:
    if known is None:
        return row
    return OpRow(row.name, known.op_type or row.op_type, known.time_us + row.time_us,
                 known.input_dtypes or row.input_dtypes, known.input_shapes or row.input_shapes,
                 known.output_shapes or row.output_shapes, known.on_ai_cpu or row.on_ai_cpu)


_NUMBER = re.compile(r"-?\d+")


def _shapes(text: str) -> List[Tuple[int, ...]]:
    """``"8,1024;1024,30522"`` or ``"[8, 1024];[1024, 30522]"`` -> ``[(8, 1024), (1024, 30522)]``."""
    text = text.strip().strip('"')
    if not text:
        return []
    return [tuple(int(n) for n in _NUMBER.findall(part)) for part in text.split(";")]


def _dtypes(text: str) -> List[str]:
    """``"FLOAT;FLOAT16"`` / ``"DT_FLOAT;DT_FLOAT"`` -> ``["float32", "float16"]``."""
    text = text.strip().strip('"')
    if not text:
        return []
    return [_DTYPE_NAMES.get(part.strip().upper().removeprefix("DT_"), part.strip().lower())
            for part in text.split(";")]


_DTYPE_NAMES = {"FLOAT": "float32", "FLOAT32": "float32", "FLOAT16": "float16", "BF16": "bfloat16",
                "BFLOAT16": "bfloat16", "DOUBLE": "float64", "FLOAT64": "float64", "INT32": "int32",
                "INT64": "int64", "BOOL": "bool"}
