"""Checking: rules run over a project, and each file's findings finished for the user.

:func:`decide` runs the enabled rules over a :class:`~ms_perflint.project.model.Project`
and returns the raw findings by file. :func:`finish` turns one file's raw findings
into what the user sees: selected codes only, ``# noqa`` honoured, end positions
filled in, notebook lines told by cell, sorted. :func:`check_text` is the whole way
for one piece of text: a project of one file.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple, Type

from ms_perflint.findings import FileResult, Finding, LineIndex
from ms_perflint.run.pool import Work
from ms_perflint.settings import Settings

if TYPE_CHECKING:
    from ms_perflint.run.decisions import PartStore


def enabled_rules(settings: Settings) -> List[type]:
    """Rule classes the settings turn on (for some file)."""
    from ms_perflint.rules import ALL_RULES

    return [rule for rule in ALL_RULES if settings.may_enable(rule.code, rule.opt_in)]


def enabled_union(settings: Iterable[Settings]) -> List[type]:
    """Rule classes some of these settings turn on."""
    from ms_perflint.rules import ALL_RULES

    distinct = {s.cache_key(): s for s in settings}.values()
    return [rule for rule in ALL_RULES if any(s.may_enable(rule.code, rule.opt_in) for s in distinct)]


def decide(project, settings_for: Callable[[str], Settings], rules: Sequence[type],
           progress: Optional[Callable[..., None]] = None, stored: Optional["PartStore"] = None) -> Dict[str, List[Finding]]:
    """Run ``rules`` over the project; raw findings by root-relative path.

    The project's parts (:mod:`ms_perflint.project.parts`) are decided one by one, each as a project of its own,
    so a part's findings depend on its own files only; ``stored`` gives back the findings of parts decided before
    and keeps the new ones (see :func:`decide_parts`).
    """
    from ms_perflint.project.parts import partition, summary_of

    parts = partition({path: summary_of(path, facts) for path, facts in project.files.items()})
    whole = lambda part: project if len(part) == len(project.files) else project.part(part)  # noqa: E731
    return decide_parts(parts, whole, settings_for, rules, progress, stored)


def decide_parts(parts: Sequence[Sequence[str]], make: Callable[[Sequence[str]], object],
                 settings_for: Callable[[str], Settings], rules: Sequence[type],
                 progress: Optional[Callable[..., None]] = None,
                 stored: Optional["PartStore"] = None, jobs: int = 1) -> Dict[str, List[Finding]]:
    """Decide each part (``make(part)`` builds its project) unless ``stored`` holds its findings; merged raw findings.

    A rule that fails is one internal error of that rule for the whole run (a finding of code ``MSP000`` under
    :data:`PROJECT_WIDE`, naming the file it was deciding when known), and the other rules still report. Rules
    decide program by program (:meth:`Check.deciding`): a failure in one program loses that program's findings
    only. A part where a rule failed is not stored: the next run decides it again and reports the failure again.
    ``progress(done, total, "parts")`` is called as parts are decided and when all are. With ``jobs`` above 1 (0:
    automatic, :func:`part_workers`), many parts are decided in forked workers.
    """
    findings: Dict[str, List[Finding]] = {}
    failures: Dict[str, List[Failure]] = {}
    waiting = []
    for part in parts:
        found = stored.get(part) if stored is not None else None
        if found is None:
            waiting.append(part)
        else:
            _merge(findings, found)
    for part, (decided, failed) in zip(waiting, _decided(waiting, make, settings_for, rules, progress, jobs)):
        _merge(findings, decided)
        for code, items in failed.items():
            failures.setdefault(code, []).extend(items)
        if stored is not None and not failed:
            stored.put(part, decided)
    for rule in rules:
        if rule.code in failures:
            error = Finding(INTERNAL_ERROR, _failure_message(rule, failures[rule.code]))
            findings.setdefault(PROJECT_WIDE, []).append(error)
    if CRASHED in failures:
        findings.setdefault(PROJECT_WIDE, []).append(Finding(INTERNAL_ERROR, _crash_message(failures[CRASHED])))
    return findings


#: Where a part whose worker died records its failure: no rule is known to have caused it.
CRASHED = ""


def _crash_message(crashes: Sequence[Failure]) -> str:
    """One line for the parts whose worker process died: the first part's first file, how many parts, why."""
    path, _, why = crashes[0]
    others = f" (and {len(crashes) - 1} other part{'s' if len(crashes) > 2 else ''})" if len(crashes) > 1 else ""
    return (f"internal error: deciding the files linked with {path}{others} crashed its worker process ({why}); "
            f"their findings are missing -- please report this")


#: A rule's failure: the file it was deciding (None: outside any), the error's type name and its text.
Failure = Tuple[Optional[str], str, str]
#: Files in the parts to decide from which automatic jobs decide them in workers (fewer: forking costs more).
POOL_FILES = 200


def part_workers(jobs: int, parts: Sequence[Sequence[str]]) -> int:
    """How many workers decide ``parts``: ``jobs`` (0: one per core when the parts hold :data:`POOL_FILES` files or
    more), at most one per part; 1 where workers cannot be forked (they inherit the facts)."""
    import sys

    from ms_perflint.run.pool import available_cores

    if len(parts) < 2 or not sys.platform.startswith("linux"):
        return 1
    if not jobs:
        jobs = available_cores() if sum(len(part) for part in parts) >= POOL_FILES else 1
    return max(1, min(jobs, len(parts)))


def _decided(waiting: Sequence[Sequence[str]], make, settings_for, rules, progress, jobs: int) -> list:
    """``(findings, failures)`` of each part, in order: here, or spread over forked workers."""
    workers = part_workers(jobs, waiting)
    if workers > 1:
        from ms_perflint.run.pool import spread

        shown = (lambda done, total: progress(done, total, "parts")) if progress is not None else None
        return spread(list(waiting), workers, _DecidePart(make, settings_for, rules), shown)
    results = []
    for done, part in enumerate(waiting):
        if progress is not None:
            progress(done, len(waiting), "parts")
        results.append(_decide_part(make(part), settings_for, rules))
    if progress is not None and waiting:
        progress(len(waiting), len(waiting), "parts")
    return results


def _merge(into: Dict[str, List[Finding]], findings: Dict[str, List[Finding]]) -> None:
    for path, found in findings.items():
        into.setdefault(path, []).extend(found)


def _decide_part(project, settings_for: Callable[[str], Settings],
                 rules: Sequence[type]) -> Tuple[Dict[str, List[Finding]], Dict[str, List[Failure]]]:
    """One project's raw findings and its rules' failures by rule code."""
    from ms_perflint.rules.check import Check

    defaults = {option.name: option.default for rule in rules for option in rule.options}
    check = Check(project, settings_for, defaults)
    try:
        for rule in rules:
            check.rule = rule.code
            try:
                rule().check(check)
            except Exception as error:  # noqa: BLE001 -- one rule's bug (a RecursionError too) must not hide the others'
                check.failed(error)
            if rule.opt_in:
                _keep_where_chosen(check.findings, rule.code, settings_for)
        check.rule = ""
    finally:
        project.close()  # astroid's modules (and its process-wide cache of them) are not needed once decided
    failed = {code: [(path, type(error).__name__, str(error)) for path, error in items]
              for code, items in check.failures.items()}
    return check.findings, failed


class _DecidePart(Work):
    """The pool's work for parts decided in workers (see :class:`~ms_perflint.run.pool.Work`): forked, each worker
    builds a part's project from the facts it inherits (or reads from the store) and sends back its findings."""

    def __init__(self, make, settings_for, rules) -> None:
        self.make, self.settings_for, self.rules = make, settings_for, rules

    def run(self, part):
        import gc

        found = _decide_part(self.make(part), self.settings_for, self.rules)
        # The part's model is garbage in cycles, which the run's thresholds would keep to the worker's end; what
        # survives (imports, astroid's builtins) is frozen, so the next part's collection scans that part alone.
        gc.collect()
        gc.freeze()
        return found

    def crashed(self, part, why: str):
        return {}, {CRASHED: [(part[0], "Crash", why)]}

    def path(self, part) -> str:
        return part[0]

    def weight(self, part) -> int:
        return len(part)


#: Where :func:`decide` puts findings about the whole project (a rule that failed): one checked file shows each.
PROJECT_WIDE = ""
#: The code of a rule's internal error (the rule failed; its findings are missing).
INTERNAL_ERROR = "MSP000"


def _failure_message(rule, failures: Sequence[Failure]) -> str:
    """One line for all of a rule's failures in a project: the first error, the file it was deciding, how many
    others failed, and what is lost (a program's findings, or the whole project's when it failed outside one)."""
    paths = sorted({path for path, _, _ in failures if path is not None})
    whole = any(path is None for path, _, _ in failures)
    path, kind, text = next((f for f in failures if f[0] is not None), failures[0])
    where = f" while deciding {path}" if path is not None else ""
    others = len(paths) - 1 if path is not None else len(paths)
    also = f" (and {others} other file{'s' if others != 1 else ''})" if others > 0 else ""
    lost = "for this project" if whole else "there"
    return (f"internal error in {rule.code} ({rule.name}){where}{also}: {kind}: {text}; "
            f"its findings {lost} are missing -- please report this")


#: The rule an internal error is about and the file it was deciding, read back from its message
#: (:func:`_failure_message`).
_FAILED_RULE = re.compile(r"internal error in (MSP\d+) \([^)]*\)"
                          r"(?: while deciding (.+?)(?: \(and \d+ other files?\))?)?: ")


def failed_rule(finding: Finding) -> Tuple[str, Optional[str]]:
    """``(rule code, the root-relative file it was deciding or None)`` of an internal error."""
    failed = _FAILED_RULE.match(finding.message)
    return (failed.group(1), failed.group(2)) if failed is not None else ("", None)


def internal_errors(raw: Dict[str, List[Finding]]) -> List[Finding]:
    """The project's internal errors (failed rules), each to be shown once (see :func:`host_of`)."""
    return raw.get(PROJECT_WIDE, [])


def host_of(error: Finding, checked: Sequence[str], shows: Callable[[str, str], bool]) -> Optional[str]:
    """The one checked file (root-relative) that shows an internal error: the file the rule was deciding when it
    is checked and the rule is on there, else the first checked file where the rule is on; None when none is.
    ``shows(rule code, relative path)`` says whether a file shows that rule."""
    code, deciding = failed_rule(error)
    if not code:  # a part whose worker died: no rule to be on, shown by the first checked file
        return checked[0] if checked else None
    if deciding is not None and deciding in checked and shows(code, deciding):
        return deciding
    return next((relative for relative in checked if shows(code, relative)), None)


def shows_failure(settings: Settings, code: str, path: str, opt_in_codes: Iterable[str]) -> bool:
    """Does a file show a failed rule's internal error? Where the rule is on (an opt-in rule: where it is chosen):
    elsewhere its findings would not be shown either."""
    return settings.may_enable(code, code in opt_in_codes) and settings.is_enabled(code, path)


def opt_in_codes(rules: Optional[Sequence[type]] = None) -> FrozenSet[str]:
    """The codes of the opt-in rules among ``rules`` (default: every rule; asked only when a rule failed)."""
    if rules is None:
        from ms_perflint.rules import ALL_RULES

        rules = ALL_RULES
    return frozenset(rule.code for rule in rules if rule.opt_in)


def _failed_rule_enabled(finding: Finding, settings: Settings, path: str) -> bool:
    """An internal error is shown where its rule is on: elsewhere the rule's findings would not be shown either."""
    code, _ = failed_rule(finding)
    return not code or settings.is_enabled(code, path)


def _keep_where_chosen(findings: Dict[str, List[Finding]], code: str, settings_for: Callable[[str], Settings]) -> None:
    """An opt-in rule's findings only in files whose settings choose it: the rules that run are those some folder
    of the project turns on, and ``select = ["MSP"]`` elsewhere turns on every rule but the opt-in ones."""
    for path, found in findings.items():
        if path == PROJECT_WIDE or settings_for(path).may_enable(code, opt_in=True):
            continue
        found[:] = [f for f in found if f.code != code]


def findings_for(raw: Dict[str, List[Finding]], relative: str, errors: Sequence[Finding] = ()) -> List[Finding]:
    """A file's raw findings, with the internal errors it is the one to show (:func:`host_of`)."""
    return [*raw.get(relative, []), *(replace(f) for f in errors)]


def hosted_errors(errors: Sequence[Finding], checked: Sequence[str],
                  shows: Callable[[str, str], bool]) -> Dict[str, List[Finding]]:
    """Internal errors by the checked file (root-relative) that shows each (:func:`host_of`): one line per failed
    rule."""
    hosted: Dict[str, List[Finding]] = {}
    for error in errors:
        host = host_of(error, checked, shows)
        if host is not None:
            hosted.setdefault(host, []).append(error)
    return hosted


def finish(result: FileResult, raw: Iterable[Finding], settings: Settings, text: str,
           virtual: object = None, is_yaml: bool = False) -> FileResult:
    """Give ``result`` the findings the user sees, from the raw findings of its file."""
    from ms_perflint.sources.noqa import LineSuppressions, file_directives, physical_lines

    kept = [f for f in raw if (_failed_rule_enabled(f, settings, result.path) if f.code == INTERNAL_ERROR
                               else settings.is_enabled(f.code, result.path))]
    audit = "noqa" in text and audits_noqa(settings, result.path)
    if not kept and not audit:
        return result
    index = LineIndex(text)
    for finding in kept:
        _fill_end(finding, index)
    if settings.apply_noqa:
        directives = file_directives(physical_lines(text))
        suppressions = LineSuppressions(text, tokenize=not is_yaml)
        suppressed = [f for f in kept if f.code != INTERNAL_ERROR and suppressions.is_suppressed(f.line, f.code)]
        kept = [f for f in kept if f.code == INTERNAL_ERROR or not (
            directives.skips(f.code, honour_flake8=True) or suppressions.is_suppressed(f.line, f.code))]
        if audit and not directives.skips(UNUSED_NOQA, honour_flake8=True):
            kept += _unused_noqa(text, suppressed, settings, result.path, is_yaml)
    kept = [f if f.fix is None or settings.may_fix(f.code) else replace(f, fix=None) for f in kept]
    if virtual is not None:
        from ms_perflint.sources.notebook import map_finding

        kept = [map_finding(f, virtual) for f in kept]
    result.findings = sorted(_unique(kept), key=Finding.sort_key)
    return result


UNUSED_NOQA = "MSP001"


def audits_noqa(settings: Settings, path: str) -> bool:
    """Are the tool's ``# noqa`` comments in ``path`` checked for codes that suppress nothing (MSP001)?"""
    return settings.apply_noqa and settings.may_enable(UNUSED_NOQA, opt_in=True) and \
        settings.is_enabled(UNUSED_NOQA, path)


def _unused_noqa(text: str, suppressed: Sequence[Finding], settings: Settings, path: str,
                 is_yaml: bool) -> List[Finding]:
    """MSP001 for the tool's ``# noqa`` codes that suppressed none of ``suppressed``."""
    from ms_perflint.findings import Fix, FixSafety, TextEdit
    from ms_perflint.rules import ALL_RULES
    from ms_perflint.sources.noqa import unused_noqa

    checked = [rule.code for rule in ALL_RULES if rule.code != UNUSED_NOQA and settings.is_enabled(rule.code, path)]
    found = []
    index = LineIndex(text)
    for unused in unused_noqa(text, [(f.line, f.code) for f in suppressed], checked, tokenize_text=not is_yaml):
        said = ", ".join(unused.codes)
        fix = Fix(FixSafety.SAFE, f"Remove the unused noqa code{'s' if len(unused.codes) > 1 else ''} {said}",
                  (TextEdit(unused.start, unused.end, unused.replacement),))
        finding = Finding(UNUSED_NOQA, f"unused noqa: {said} suppresses nothing on this line", start=unused.at,
                          end=unused.end, fix=fix)
        _fill_end(finding, index)
        found.append(finding)
    return found


def _fill_end(finding: Finding, index: LineIndex) -> None:
    if finding.start or finding.end:
        line, column = index.position(finding.start)
        finding.line, finding.column = line, column
        if not finding.end_line:
            finding.end_line, finding.end_column = index.position(max(finding.end, finding.start))
    elif not finding.end_line:
        finding.end_line, finding.end_column = finding.line, finding.column


def _unique(findings: List[Finding]) -> List[Finding]:
    """Drop exact repeats (same code at the same place), keeping the first, which may carry a fix."""
    seen: Dict[tuple, Finding] = {}
    for finding in findings:
        seen.setdefault((finding.code, finding.line, finding.column, finding.cell), finding)
    return list(seen.values())


def check_text(text: str, path: str, settings: Settings, kind: Optional[str] = None,
               rules: Optional[Sequence[Type]] = None) -> FileResult:
    """Check one file's text as a project of one file (the per-file mode, and rule examples)."""
    from ms_perflint.analysis import analyse, module_name
    from ms_perflint.findings import FileError, SourceText
    from ms_perflint.project.model import Project
    from ms_perflint.sources import PYTHON, YAML, Unit, kind_of, load_unit

    kind = kind or kind_of(path) or PYTHON
    unit = load_unit(path, text.encode("utf-8"), kind) if kind != PYTHON else Unit(path, kind, text, SourceText(text))
    result = FileResult(path, source=unit.source, kind=kind, notices=list(unit.notices))
    name = _relative_name(path)
    facts = analyse(unit, module_name(name), name.endswith("__init__.py"))
    if isinstance(facts, FileError):
        result.error = facts
        return result
    project = Project("", {name: facts}, lambda relative: unit.text if relative == name else None)
    raw = decide(project, lambda _: settings, rules if rules is not None else enabled_rules(settings))
    return finish(result, findings_for(raw, name, internal_errors(raw)), settings, unit.text, unit.virtual,
                  is_yaml=kind == YAML)


def _relative_name(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1] if path not in ("", "-") else "stdin.py"
    return name or "stdin.py"


def check_folder(root: str, settings: Settings, rules: Optional[Sequence[Type]] = None) -> Dict[str, FileResult]:
    """Check every file of the project at ``root`` (index built in memory); results by root-relative path."""
    from ms_perflint.project.index import ProjectIndex
    from ms_perflint.project.model import Project
    from ms_perflint.sources import YAML, load_unit, read_bytes

    index = ProjectIndex(root, cache_folder=None).refresh()
    project = Project(index.root, index.facts())
    raw = decide(project, lambda _: settings, rules if rules is not None else enabled_rules(settings))
    results: Dict[str, FileResult] = {}
    chosen = opt_in_codes(rules) if internal_errors(raw) else frozenset()
    hosted = hosted_errors(internal_errors(raw), sorted(index.files),
                           lambda code, relative: shows_failure(settings, code, relative, chosen))
    for relative, record in sorted(index.files.items()):
        result = FileResult(relative, kind=record.kind, error=record.error)
        findings = findings_for(raw, relative, hosted.get(relative, ()))
        if findings:
            data = read_bytes(index.absolute(relative))
            if isinstance(data, bytes):
                unit = load_unit(relative, data, record.kind)
                result.source = unit.source
                finish(result, findings, settings, unit.text, unit.virtual, is_yaml=record.kind == YAML)
        results[relative] = result
    return results
