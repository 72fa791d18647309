"""Rule documentation rendered from the rules' own metadata (never written twice).

``python -m ms_perflint.docs_build`` writes ``docs/rules/*.md`` with it; ``--explain``
prints the same text; a test fails when the committed pages differ from what this renders.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Type

from ms_perflint.findings import FixAvailability
from ms_perflint.rules.base import Rule

_FIX_LABEL = {
    FixAvailability.ALWAYS: "Fix is always available.",
    FixAvailability.SOMETIMES: "Fix is sometimes available.",
    FixAvailability.NEVER: "No automatic fix.",
}


def render_rule(rule: Type[Rule]) -> str:
    """A rule's page in Markdown: what it does, why, example, use instead, fix safety, options, references."""
    docs = rule.docs
    parts: List[str] = [
        f"# {rule.code} {rule.name}",
        "",
        f"{rule.summary}. {_FIX_LABEL[rule.fix_availability]}",
        "",
        "## What it does",
        "",
        docs.section("what_it_does"),
        "",
        "## Why is this bad?",
        "",
        docs.section("why_bad"),
        "",
        "## Example",
        "",
        "```python",
        docs.section("example"),
        "```",
        "",
        "## Use instead",
        "",
        "```python",
        docs.section("use_instead"),
        "```",
        "",
        "## Fix safety",
        "",
        docs.section("fix_safety"),
        "",
    ]
    if docs.programs:
        parts += ["## Which programs", "", docs.section("programs"), ""]
    if docs.silent_on:
        parts += ["## Not reported", "", docs.section("silent_on"), ""]
    if docs.precision:
        parts += ["## Precision on real code", "", docs.section("precision"), ""]
    parts += [
        "## Options",
        "",
    ]
    if rule.options:
        for option in rule.options:
            choices = f" One of: {', '.join(repr(c) for c in option.choices)}." if option.choices else ""
            least = f", at least `{option.minimum!r}`" if option.minimum is not None else ""
            parts.append(f"- `{option.name}` (default `{option.default!r}`{least}): {option.help}{choices}")
    else:
        parts.append("None.")
    if docs.references:
        parts += ["", "## References", ""]
        parts += [f"- <{reference}>" for reference in docs.references]
    return "\n".join(parts) + "\n"


def write_rule_pages(folder: Path) -> List[Path]:
    """Write one page per rule into ``folder``; return the paths written."""
    from ms_perflint.rules import ALL_RULES

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rule in ALL_RULES:
        path = folder / f"{rule.code}.md"
        path.write_text(render_rule(rule), encoding="utf-8")
        written.append(path)
    return written
