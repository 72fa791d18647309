"""Applying fixes: choose fixes that do not overlap, apply their edits to the text."""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence, Tuple

from ms_perflint.findings import Finding, Fix, FixSafety, TextEdit


def wanted(finding: Finding, unsafe: bool) -> bool:
    """The finding has a fix this run applies (safe ones always, unsafe ones with ``--unsafe-fixes``)."""
    return finding.fix is not None and (finding.fix.safety is FixSafety.SAFE or unsafe)


def choose(findings: Sequence[Finding], unsafe: bool) -> List[Finding]:
    """Findings whose fixes apply together: in source order, each skipped when it overlaps one chosen.

    Identical edits (the same import added by two fixes) combine.
    """
    chosen: List[Finding] = []
    for finding in sorted((f for f in findings if wanted(f, unsafe)), key=lambda f: (f.start, f.code)):
        fix = finding.fix
        assert fix is not None
        if any(_conflict(fix, other.fix) for other in chosen if other.fix is not None):
            continue
        chosen.append(finding)
    return chosen


def _conflict(first: Fix, second: Fix) -> bool:
    for a in first.edits:
        for b in second.edits:
            if a == b:
                continue
            if a.start < b.end and b.start < a.end:
                return True
            if a.start == a.end == b.start == b.end:
                continue  # two different insertions at one point: both go in, in order
            if (a.start == a.end and b.start < a.start < b.end) or (b.start == b.end and a.start < b.start < a.end):
                return True
    return False


def apply_edits(text: str, edits: Iterable[TextEdit]) -> str:
    """Apply edits (non-overlapping; identical ones once), from the end of the text back."""
    unique = sorted(set(edits), key=lambda e: (e.start, e.end, e.new))
    pieces: List[str] = []
    position = 0
    for edit in unique:
        if edit.start < position or edit.end > len(text):
            raise ValueError(f"overlapping or out-of-range edit at offset {edit.start}")
        pieces.append(text[position:edit.start])
        pieces.append(edit.new)
        position = edit.end
    pieces.append(text[position:])
    return "".join(pieces)


def apply_fix_text(text: str, fixes: Sequence[Optional[Fix]]) -> str:
    """Apply every given fix (they must not overlap): for tests and examples."""
    return apply_edits(text, [edit for fix in fixes if fix is not None for edit in fix.edits])


def line_column_edits(text: str, fix: Fix) -> List[Tuple[Tuple[int, int], Tuple[int, int], str]]:
    """The fix's edits as ``((line, column), (end line, end column), new text)`` (1-based lines, 0-based columns)."""
    from ms_perflint.findings import LineIndex

    index = LineIndex(text)
    return [(index.position(e.start), index.position(e.end), e.new) for e in fix.edits]
