"""Writing a run's report: the format registry, ``--statistics``, colour, rule URLs, notices.

The CLI calls :func:`write_report` (or :func:`render_report` for a string),
:func:`use_color` to decide on ANSI colour, and :func:`notices` to print each
file's notices as warnings on standard error.

Formats (:data:`FORMATS`) and what they do with the parts of a result:

========== ============================================== ================ ===============
format      findings                                       file errors      notices
========== ============================================== ================ ===============
text        ``path:line:col: CODE [*] message`` + summary  a line each      CLI, on stderr
concise     the same lines, no summary                     a line each      CLI, on stderr
full        text + the source lines with carets + summary  a line + source  CLI, on stderr
grouped     findings under each file's name + summary      under the file   CLI, on stderr
pylint      ``path:line: [CODE] message``                  ``[Kind]`` line  CLI, on stderr
json        ruff's objects, edits as rows/columns          ``code`` null    ``name`` Notice
json-lines  the json objects, one per line                 as json          as json
sarif       SARIF 2.1.0 results (+ fixes)                  notifications    notifications
github      ``::error`` workflow commands                  ``::error``      ``::notice``
gitlab      GitLab Code Quality issues                     ``critical``     not included
junit       a testcase per file, a failure per finding     ``<error>``      ``<system-out>``
========== ============================================== ================ ===============

Formatters are imported only when selected, so the default text report loads
neither json nor XML code. Each is a function ``render(results, options) -> str``.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple, Union

from ms_perflint.findings import FileError, FileResult, Finding, FixSafety

#: ``--output-format`` name -> ``"module:function"`` rendering it (imported when chosen).
FORMATS: Dict[str, str] = {
    "text": "ms_perflint.output.text:render_text",
    "concise": "ms_perflint.output.text:render_concise",
    "full": "ms_perflint.output.full:render_full",
    "grouped": "ms_perflint.output.grouped:render_grouped",
    "pylint": "ms_perflint.output.pylint:render_pylint",
    "json": "ms_perflint.output.json:render_json",
    "json-lines": "ms_perflint.output.json:render_json_lines",
    "sarif": "ms_perflint.output.sarif:render_sarif",
    "github": "ms_perflint.output.github:render_github",
    "gitlab": "ms_perflint.output.gitlab:render_gitlab",
    "junit": "ms_perflint.output.junit:render_junit",
}
#: Formats ``--statistics`` can be written in.
STATISTICS_FORMATS = ("text", "json")
#: Values of ``--color``.
COLOR_CHOICES = ("auto", "always", "never")
#: Where the repository's files are served (e.g. ``https://github.com/<org>/ms-perflint/blob/main``);
#: None: rule URLs point at the docs pages installed with the package (below).
DOCS_BASE_URL: Optional[str] = None
#: The environment variable that overrides :data:`DOCS_BASE_URL` for a run: a team that hosts the docs
#: (an internal site, its fork's rendered pages) gives SARIF uploads links that everyone can open.
DOCS_URL_VARIABLE = "MS_PERFLINT_DOCS_URL"
#: The rules' pages in an installed package (setup.py copies ``docs/rules`` there), then in a source checkout.
_PAGE_FOLDERS = (
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_docs", "rules"),
    os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "docs", "rules"),
)


@dataclass(frozen=True)
class ReportOptions:
    """What a formatter may need beyond the results."""

    #: No summary after the findings (text formats).
    quiet: bool = False
    #: ANSI colour (text formats only; decide it with :func:`use_color`).
    color: bool = False
    #: The run has ``--unsafe-fixes``: ``[*]`` marks unsafe fixes too.
    unsafe_fixes: bool = False
    #: ``--sort cost``: the costliest findings first (findings without a measured cost last).
    by_cost: bool = False
    #: Paths named on the command line that do not exist (the summary says so instead of "All checks passed!").
    missing: int = 0


def write_report(
    results: Sequence[FileResult],
    stream: TextIO,
    output_format: str = "text",
    *,
    quiet: bool = False,
    show_statistics: bool = False,
    color: bool = False,
    unsafe_fixes: bool = False,
    by_cost: bool = False,
    missing: int = 0,
) -> None:
    """Write ``results`` to ``stream`` in ``output_format`` (a key of :data:`FORMATS`).

    ``show_statistics``: write :func:`statistics` instead of the findings, as text
    or (``output_format == "json"``) JSON; the CLI refuses the other formats.
    """
    options = ReportOptions(quiet=quiet, color=color, unsafe_fixes=unsafe_fixes, by_cost=by_cost, missing=missing)
    if show_statistics:
        stream.write(render_statistics(results, output_format, options))
    else:
        stream.write(render_report(results, output_format, options))


def render_report(results: Sequence[FileResult], output_format: str, options: ReportOptions = ReportOptions()) -> str:
    """The report as text; raises KeyError for an unknown format."""
    module, function = FORMATS[output_format].split(":")
    render = getattr(importlib.import_module(module), function)
    return render(results, options)


# --- what every format shares --------------------------------------------------------------------


def is_marked_fixable(finding: Finding, unsafe_fixes: bool = False) -> bool:
    """``[*]``: the finding would be fixed by ``--fix`` with the current unsafe-fixes setting."""
    fix = finding.fix
    return fix is not None and (fix.safety is FixSafety.SAFE or unsafe_fixes)


Entry = Tuple[FileResult, Union[Finding, FileError]]


def sorted_entries(results: Sequence[FileResult], by_cost: bool = False) -> List[Entry]:
    """Every finding and file error with its result, by path, (notebook cell,) line, column and code; with
    ``by_cost``, the costliest findings first (then the rest in that order)."""
    entries: List[Tuple[Tuple[Any, ...], Entry]] = []
    for result in results:
        if result.error is not None:
            error = result.error
            entries.append(((0.0, result.path, error.cell or 0, error.line, error.column, ""), (result, error)))
        for finding in result.findings:
            cost = -(finding.cost or 0.0) if by_cost else 0.0
            entries.append(((cost, result.path, *finding.sort_key()), (result, finding)))
    entries.sort(key=lambda item: item[0])
    return [entry for _, entry in entries]


def notices(results: Sequence[FileResult]) -> List[str]:
    """Each file's notices as ``path: notice`` lines, by path (the CLI prints them as warnings on stderr)."""
    return [f"{result.path}: {notice}" for result in sorted(results, key=lambda r: r.path) for notice in result.notices]


def rule_for(code: Optional[str]) -> Any:
    """The rule class of a code, or None (``MSP000``, internal errors, is no rule)."""
    from ms_perflint.rules import RULES_BY_CODE

    return RULES_BY_CODE.get(code) if code else None


def rule_url(rule: Any) -> str:
    """The rule's docs page: under ``$MS_PERFLINT_DOCS_URL`` or :data:`DOCS_BASE_URL` when set; else the
    ``file:`` URI of the page installed with the package; else (no page found) its path in the repository."""
    path = rule.docs_url()
    base = os.environ.get(DOCS_URL_VARIABLE) or DOCS_BASE_URL
    if base:
        return base.rstrip("/") + "/" + path
    page = rule_page(rule.code)
    return Path(page).as_uri() if page is not None else path


def rule_page(code: str) -> Optional[str]:
    """The path of a rule's docs page on this machine (installed with the package, or in a checkout)."""
    for folder in _PAGE_FOLDERS:
        page = os.path.join(folder, f"{code}.md")
        if os.path.isfile(page):
            return page
    return None


# --- colour ------------------------------------------------------------------------------------------


def use_color(stream: TextIO, choice: str = "auto", environ: Optional[Mapping[str, str]] = None) -> bool:
    """Whether to write ANSI colour to ``stream`` for ``--color choice`` (``auto``, ``always``, ``never``).

    - ``never`` and ``always`` are the user's explicit word for this run and win
      over the environment (no-color.org: command-line arguments override
      ``NO_COLOR``; ruff's ``--color always`` does the same).
    - ``auto``: ``NO_COLOR`` set to anything non-empty disables colour; else
      ``FORCE_COLOR`` set to anything non-empty enables it even when the stream is
      not a terminal; else colour only on a terminal whose ``TERM`` is not ``dumb``.
      When both are set ``NO_COLOR`` wins, as in CPython 3.13 and Rust's anstream:
      it is the user's standing refusal, FORCE_COLOR is usually a CI default.
      Empty values count as unset, as both conventions say.
    """
    if choice not in COLOR_CHOICES:
        raise ValueError(f"--color must be one of {', '.join(COLOR_CHOICES)}, not {choice!r}")
    if choice != "auto":
        return choice == "always"
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        terminal = bool(isatty and isatty())
    except ValueError:  # a closed stream
        terminal = False
    return terminal and environ.get("TERM") != "dumb"


# --- --statistics ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Statistic:
    """How often one code was reported in a run."""

    code: str
    name: str
    count: int
    #: Some of them would be fixed by ``--fix`` (with the run's unsafe-fixes setting).
    fixable: bool

    def as_json(self) -> Dict[str, Any]:
        """The JSON object of ``--statistics --output-format json``."""
        return {"code": self.code, "name": self.name, "count": self.count, "fixable": self.fixable}


def statistics(results: Sequence[FileResult], unsafe_fixes: bool = False) -> List[Statistic]:
    """One row per reported code, most frequent first (ties by code). File errors are not codes: not counted."""
    counts: Dict[str, int] = {}
    fixable: Dict[str, bool] = {}
    for result in results:
        for finding in result.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
            fixable[finding.code] = fixable.get(finding.code, False) or is_marked_fixable(finding, unsafe_fixes)
    rows = []
    for code, count in counts.items():
        rule = rule_for(code)
        rows.append(Statistic(code, rule.name if rule is not None else "", count, fixable[code]))
    return sorted(rows, key=lambda row: (-row.count, row.code))


def format_statistics(rows: Sequence[Statistic]) -> str:
    """``COUNT  CODE  [*] name`` lines with aligned columns (``[*]``: some of them can be fixed)."""
    if not rows:
        return ""
    width = max(len(str(row.count)) for row in rows)
    code_width = max(len(row.code) for row in rows)
    return "".join(
        f"{row.count:>{width}}  {row.code:<{code_width}}  {'[*] ' if row.fixable else '    '}{row.name}".rstrip() + "\n"
        for row in rows
    )


def render_statistics(results: Sequence[FileResult], output_format: str = "text",
                      options: ReportOptions = ReportOptions()) -> str:
    """``--statistics`` as text, or as a JSON list of :meth:`Statistic.as_json` when ``output_format`` is json."""
    rows = statistics(results, options.unsafe_fixes)
    if output_format == "json":
        import json

        return json.dumps([row.as_json() for row in rows], indent=2) + "\n"
    return format_statistics(rows)
