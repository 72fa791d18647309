"""Writing a run's report in the chosen format: ``--output-format``, ``--statistics``, colour.

Formatters are imported only when selected, so the default text report never
loads json, SARIF or GitHub code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, TextIO

from ms_perflint.findings import FileResult
from ms_perflint.settings import Settings

FORMATS = ("text", "json", "sarif", "github")
#: Formats ``--statistics`` can be written in.
STATISTICS_FORMATS = ("text", "json")


@dataclass(frozen=True)
class Statistic:
    """How often one code was reported in a run."""

    code: str
    name: str
    count: int
    fixable: bool

    def as_json(self) -> Dict[str, Any]:
        """The JSON object of ``--statistics --output-format json``."""
        return {"code": self.code, "name": self.name, "count": self.count, "fixable": self.fixable}


def statistics(results: Sequence[FileResult]) -> List[Statistic]:
    """One row per reported code, most frequent first (ties by code)."""
    from ms_perflint.rules import RULES_BY_CODE

    counts: Dict[str, int] = {}
    fixable: Dict[str, bool] = {}
    for result in results:
        for violation in result.findings:
            counts[violation.code] = counts.get(violation.code, 0) + 1
            fixable[violation.code] = fixable.get(violation.code, False) or violation.fix is not None
    rows = [
        Statistic(code, RULES_BY_CODE[code].name if code in RULES_BY_CODE else "", count, fixable[code])
        for code, count in counts.items()
    ]
    return sorted(rows, key=lambda row: (-row.count, row.code))


def format_statistics(rows: Sequence[Statistic]) -> str:
    """``COUNT  CODE  [*] name`` lines with aligned columns (``[*]``: some of them can be fixed)."""
    if not rows:
        return ""
    width = max(len(str(row.count)) for row in rows)
    return "".join(f"{row.count:>{width}}  {row.code}  {'[*] ' if row.fixable else '    '}{row.name}\n" for row in rows)


def use_color(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set to anything non-empty (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def write_report(
    results: Sequence[FileResult],
    stream: TextIO,
    output_format: str,
    settings: Settings,
    quiet: bool = False,
    show_statistics: bool = False,
    color: bool = False,
    unsafe_fixes: bool = False,
) -> None:
    """Write ``results`` to ``stream`` in ``output_format`` (one of :data:`FORMATS`).

    ``unsafe_fixes`` (the run has ``--unsafe-fixes``): the text format's ``[*]`` marks unsafe fixes too.
    """
    if show_statistics:
        rows = statistics(results)
        if output_format == "json":
            from ms_perflint.output.json import render_statistics_json

            stream.write(render_statistics_json(rows))
        else:
            stream.write(format_statistics(rows))
        return
    if output_format == "json":
        from ms_perflint.output.json import render_json

        stream.write(render_json(results, settings))
    elif output_format == "sarif":
        from ms_perflint.output.sarif import render_sarif

        stream.write(render_sarif(results, settings))
    elif output_format == "github":
        from ms_perflint.output.github import render_github

        stream.write(render_github(results))
    else:
        from ms_perflint.output.text import write_text

        write_text(results, stream, quiet=quiet, color=color, unsafe_fixes=unsafe_fixes)
