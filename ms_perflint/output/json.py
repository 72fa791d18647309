"""``--output-format json``: one object per finding, in ruff's shape.

Each object has ``code``, ``name``, ``message``, ``filename``, ``location`` and
``end_location`` (``{"row", "column"}``, both 1-based; the end is exclusive;
in a notebook ``cell`` is the 1-based cell and the row counts within it, else null),
``fix`` (``{"applicability": "safe"|"unsafe", "message", "edits"}`` or null) and
``url`` (the rule's docs page). A file that could not be checked appears as an
object whose ``code`` is null and whose ``name`` is the error kind
(``SyntaxError``, ``DecodeError``, ``ReadError``).

A fix's ``edits`` are the text changes that fix alone makes, each
``{"content", "location", "end_location"}``: the file is linted again with the
parsed tree kept, the one fix is applied, and the two texts are compared. A fix
in a YAML config is a text edit of its own, applied alone and compared the same way.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ms_perflint.results import FileResult
from ms_perflint.noqa import physical_lines
from ms_perflint.rule import Fix, Violation
from ms_perflint.settings import Settings


@dataclass(frozen=True)
class Edit:
    """Replace the text from ``start`` up to (not including) ``end`` with ``content``; 1-based (row, column)."""

    content: str
    start: Tuple[int, int]
    end: Tuple[int, int]

    def as_json(self) -> Dict[str, Any]:
        """ruff's edit object."""
        return {"content": self.content, "location": _location(*self.start), "end_location": _location(*self.end)}


def render_json(results: Sequence[FileResult], settings: Settings) -> str:
    """The JSON document: a list of findings sorted by file, line and column."""
    return json.dumps(finding_objects(results, settings), indent=2, ensure_ascii=False) + "\n"


def finding_objects(results: Sequence[FileResult], settings: Settings) -> List[Dict[str, Any]]:
    """Every finding and file error as a JSON-ready object."""
    from ms_perflint.rules import RULES_BY_CODE

    objects = []
    for result in sorted(results, key=lambda r: r.path):
        if result.error is not None:
            objects.append(_error_object(result))
        edits = fix_edits(result, settings) if any(v.fix is not None for v in result.violations) else {}
        for violation in result.violations:
            rule = RULES_BY_CODE.get(violation.code)
            objects.append(
                {
                    "code": violation.code,
                    "name": rule.name if rule else None,
                    "message": violation.message,
                    "filename": result.path,
                    "cell": violation.cell,
                    "location": _location(violation.line, violation.column + 1),
                    "end_location": _location(*_end(violation)),
                    "fix": _fix_object(violation.fix, edits.get(_key(violation), [])),
                    "url": rule.docs_url() if rule else None,
                }
            )
    return objects


def _error_object(result: FileResult) -> Dict[str, Any]:
    error = result.error
    assert error is not None
    return {
        "code": None,
        "name": error.kind,
        "message": f"{error.kind}: {error.message}",
        "filename": result.path,
        "cell": error.cell,
        "location": _location(error.line, error.column + 1),
        "end_location": _location(error.line, error.column + 1),
        "fix": None,
        "url": None,
    }


def _fix_object(fix: Optional[Fix], edits: List[Edit]) -> Optional[Dict[str, Any]]:
    if fix is None:
        return None
    return {
        "applicability": fix.safety.value,
        "message": fix.description,
        "edits": [edit.as_json() for edit in edits],
    }


def _location(row: int, column: int) -> Dict[str, int]:
    return {"row": row, "column": column}


def _end(violation: Violation) -> Tuple[int, int]:
    """The exclusive end (1-based); a finding without a known end ends where it starts."""
    if violation.end_line:
        return violation.end_line, violation.end_column + 1
    return violation.line, violation.column + 1


def _key(violation: Violation) -> Tuple[str, int, int]:
    return violation.code, violation.line, violation.column


def fix_edits(result: FileResult, settings: Settings) -> Dict[Tuple[str, int, int], List[Edit]]:
    """``{(code, line, column): edits}`` for each fixable finding of ``result``.

    The findings are recomputed from the file's text with the parsed tree kept,
    because a fix is a transform of tree nodes. A finding that no longer matches
    (the file changed on disk) gets no edits.
    """
    from ms_perflint.engine import lint_source

    config_edits = {_key(v): v.edit for v in result.violations if getattr(v, "edit", None) is not None}
    if config_edits:
        return _config_fix_edits(result.path, config_edits)
    if result.path.lower().endswith(".ipynb"):
        return {}  # cells are strings inside JSON: their fixes are not edits of the file's text
    text = result.source.text if result.source is not None else _read_text(result.path)
    if text is None:
        return {}
    again = lint_source(text, result.path, settings, keep_module=True)
    if again.module is None or again.module.code != text:
        return {}
    edits = {}
    for violation in again.violations:
        if violation.fix is not None:
            edits[_key(violation)] = _edits_of(again.module, violation.fix, text)
    return edits


def _config_fix_edits(path: str, fixes: Dict[Tuple[str, int, int], Any]) -> Dict[Tuple[str, int, int], List[Edit]]:
    """Edits of a YAML config's fixes (text edits, applied alone the way ``--fix`` applies them)."""
    from ms_perflint.project.configs import apply_edits

    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    return {key: text_edits(text, apply_edits(text, [edit])) for key, edit in fixes.items()}


def _read_text(path: str) -> Optional[str]:
    from ms_perflint.engine import decode_source

    try:
        with open(path, "rb") as handle:
            return decode_source(handle.read()).text
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
        return None


def _edits_of(module: Any, fix: Fix, text: str) -> List[Edit]:
    """Apply one fix (and the imports it needs) to ``module`` and describe the change as edits."""
    try:
        fixed = module.deep_replace(fix.node, fix.transform(fix.node))
        if fix.imports:
            from ms_perflint.fixer import add_imports

            fixed = add_imports(fixed, fix.imports)
        new_text = fixed.code
    except Exception:  # noqa: BLE001 -- a failing transform means no edits to show, not a crash
        return []
    return text_edits(text, new_text)


def text_edits(old: str, new: str) -> List[Edit]:
    """The smallest line-aligned replacements turning ``old`` into ``new``, trimmed to the changed characters."""
    old_lines, new_lines = physical_lines(old), physical_lines(new)
    edits = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        prefix = _common_prefix(before, after)
        suffix = _common_prefix(before[prefix:][::-1], after[prefix:][::-1])
        prefix, suffix = _widen_to_words(before, after, prefix, suffix)
        start = _position(old_lines, i1, before[:prefix])
        end = _position(old_lines, i1, before[: len(before) - suffix])
        edits.append(Edit(after[prefix : len(after) - suffix], start, end))
    return edits


def _widen_to_words(before: str, after: str, prefix: int, suffix: int) -> Tuple[int, int]:
    """Shrink the common prefix/suffix so the edit never starts or ends inside a word ("False" -> "True", not "Fals" -> "Tru")."""

    def changed_starts_word(text: str, at: int) -> bool:
        return _is_word(text[at : at + 1])

    while prefix and _is_word(before[prefix - 1]) and (changed_starts_word(before, prefix) or changed_starts_word(after, prefix)):
        prefix -= 1
    while suffix and _is_word(before[len(before) - suffix]) and (
        changed_starts_word(before, len(before) - suffix - 1) or changed_starts_word(after, len(after) - suffix - 1)
    ):
        suffix -= 1
    return prefix, suffix


def _is_word(char: str) -> bool:
    return len(char) == 1 and (char.isalnum() or char == "_")


def _common_prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b):
        if x != y:
            break
        size += 1
    return size


def _position(lines: List[str], first_line: int, consumed: str) -> Tuple[int, int]:
    """The 1-based (row, column) reached after reading ``consumed`` from the start of line ``first_line`` (0-based)."""
    row, column = first_line + 1, 1
    for part in physical_lines(consumed):
        if part.endswith(("\n", "\r")):
            row, column = row + 1, 1
        else:
            column += len(part)
    return row, column


def render_statistics_json(rows: Iterable[Any]) -> str:
    """``--statistics --output-format json``: ``[{"code", "name", "count", "fixable"}]``."""
    return json.dumps([row.as_json() for row in rows], indent=2) + "\n"
