"""What the CLI does for project analysis: flags, settings, config-file findings and fixes, tracing.

The CLI calls four functions and stays thin:

- :func:`add_arguments` adds ``--no-project`` and ``--trace-coverage``;
- :func:`configure` turns project mode on in the settings (unless ``--no-project``);
- :func:`config_results` returns the findings in YAML configs under the linted
  folders, as :class:`~ms_perflint.results.FileResult` values the reporters print
  like any other (``config/resnet50.yaml:3:12: MSP104 ...``);
- :func:`fix_config_files` applies their fixes in fix mode; :func:`write_trace`
  prints why each Cell's MatMuls are (not) covered by an fp16 mechanism.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, TextIO, Tuple

from ms_perflint.rule import Fix, FixSafety, Violation

if TYPE_CHECKING:  # pragma: no cover
    from ms_perflint.project.configs import ConfigFinding, TextEdit

# The project package (index, YAML, facts) is imported inside the functions that use it:
# the CLI imports this module on every run, and a run outside any project, or with
# --no-project, should not pay for loading it.


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The project-analysis flags, as their own ``--help`` group."""
    group = parser.add_argument_group("project analysis")
    group.add_argument(
        "--no-project",
        action="store_true",
        help="lint each file on its own: no facts from other files, configs or launch scripts",
    )
    group.add_argument(
        "--trace-coverage",
        action="store_true",
        help="print, for each Cell class, which fp16 mechanism covers it (or why none does) to stderr",
    )


def configure(settings: Any, args: argparse.Namespace, paths: Sequence[str]) -> Any:
    """``settings`` with project mode on, unless ``--no-project`` or ``project = false`` (``--no-cache``: index in memory only).

    Every file is linted with its project (the nearest folder above it with
    pyproject.toml, setup.py or .git). A folder given on the command line is the
    project of files with no such folder above them; a file given alone with none
    above it is linted on its own.
    """
    from dataclasses import replace

    if getattr(args, "no_project", False) or not settings.project:  # the flag, or `project = false`
        return replace(settings, project=False, project_fallback_root=None)
    folders = [os.path.abspath(path) for path in paths if os.path.isdir(path)]
    fallback = os.path.commonpath(folders) if folders else None
    persist = not getattr(args, "no_cache", False)
    return replace(settings, project=True, project_fallback_root=fallback, project_cache=persist)


# --- findings in config files ----------------------------------------------------------


def config_results(paths: Sequence[str], settings: Any, unsafe_fixes: bool = False) -> List[Any]:
    """FileResults for YAML configs under ``paths`` (folders walked, files taken as given)."""
    from ms_perflint.results import FileResult

    if not getattr(settings, "project", False):
        return []
    results = []
    for path, relative, index in _config_files(paths, settings):
        record = index.files.get(relative)
        if record is None or record.yaml is None:
            continue
        findings = _kept_findings(path, record.yaml.findings, settings)
        if findings:
            results.append(FileResult(path, violations=[_violation(f) for f in findings]))
    return results


def _config_files(paths: Sequence[str], settings: Any) -> Iterable[Tuple[str, str, Any]]:
    """``(path as the user spells it, root-relative path, index)`` of each YAML file under ``paths``.

    pre-commit passes thousands of files by name: a Python file has no configs under
    it, and each project's configs are listed once, not once per path.
    """
    from ms_perflint.project import root_for

    seen = set()
    per_root: Dict[str, Tuple[Any, List[Tuple[str, str]]]] = {}
    for given in paths:
        root = root_for(given if os.path.isfile(given) else os.path.join(given, "_"), settings)
        if root is None:
            continue  # no project: nothing of the project package is loaded
        from ms_perflint.project.configs import YAML_SUFFIXES

        if os.path.isfile(given) and not given.endswith(YAML_SUFFIXES):
            continue
        if root not in per_root:
            per_root[root] = _project_configs(root, settings)
        index, configs = per_root[root]
        for relative, absolute in configs:
            if not _is_under(absolute, given) or absolute in seen:
                continue
            seen.add(absolute)
            yield _spelled(given, absolute), relative, index


def _project_configs(root: str, settings: Any) -> Tuple[Any, List[Tuple[str, str]]]:
    """The index of ``root`` and its YAML configs as ``(relative, absolute)``; none outside MindSpore projects."""
    from ms_perflint.project.configs import YAML_SUFFIXES
    from ms_perflint.project.index import load_index

    index = load_index(root, persist=settings.project_cache)
    if not any(facts.imports_mindspore for _, facts in index.python_facts()):
        return index, []  # not a MindSpore project: a PyTorch ResNet-50 config is not our business
    configs = [(relative, index.absolute(relative)) for relative, record in sorted(index.files.items())
               if record.kind == "yaml" and relative.endswith(YAML_SUFFIXES)]
    return index, configs


def _is_under(path: str, given: str) -> bool:
    given = os.path.abspath(given)
    return path == given or path.startswith(given.rstrip(os.sep) + os.sep)


def _spelled(given: str, absolute: str) -> str:
    """``absolute`` written the way the user wrote ``given`` (relative stays relative)."""
    if os.path.isabs(given):
        return absolute
    return os.path.relpath(absolute)


def _kept_findings(path: str, findings: Sequence[ConfigFinding], settings: Any) -> List[ConfigFinding]:
    if not findings:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    return _kept_findings_in(text, findings, path, settings)


def _kept_findings_in(text: str, findings: Sequence[ConfigFinding], path: str, settings: Any) -> List[ConfigFinding]:
    """The findings that ``select``/``ignore``/per-file-ignores and ``# noqa`` leave."""
    from ms_perflint.project.configs import is_suppressed

    lines = text.splitlines()
    kept = []
    for finding in findings:
        if not settings.is_enabled(finding.code, path):
            continue
        if getattr(settings, "apply_noqa", True) and is_suppressed(lines, finding):
            continue
        kept.append(finding)
    return kept


@dataclass
class ConfigViolation(Violation):
    """A finding in a config file; ``edit`` is its fix as a text edit (applied by :func:`fix_config_files`)."""

    edit: Optional[TextEdit] = None


def _violation(finding: ConfigFinding) -> ConfigViolation:
    fix = None
    if finding.edit is not None and finding.safety:
        description = f"Replace `{finding.edit.old}` with `{finding.edit.new}`" if finding.edit.old else (
            f"Add `{finding.edit.new.strip()}`")
        fix = Fix(None, _no_transform, FixSafety(finding.safety), description)  # type: ignore[arg-type]
    return ConfigViolation(finding.code, finding.message, fix=fix, line=finding.line, column=finding.column,
                           end_line=finding.end_line, end_column=finding.end_column, edit=finding.edit)


def _no_transform(node: Any) -> Any:
    """Config fixes are text edits (:func:`fix_config_files`), never CST transforms."""
    return node


def fix_config_files(results: Sequence[Any], unsafe: bool, write: bool = True) -> List[Tuple[str, str, str]]:
    """Apply the fixes of config-file results; returns ``(path, old text, new text)`` per changed file.

    Safe fixes always, unsafe ones with ``unsafe``. Only the fixed scalars change;
    with ``write`` the file is replaced atomically, keeping its mode.
    """
    from ms_perflint.project.configs import apply_edits

    changed = []
    for result in results:
        edits = [v.edit for v in result.violations
                 if isinstance(v, ConfigViolation) and v.fix is not None and v.edit is not None
                 and (unsafe or v.fix.safety.value == "safe")]
        if not edits:
            continue
        try:
            with open(result.path, "rb") as handle:
                data = handle.read()
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        fixed = apply_edits(text, edits)
        if fixed == text:
            continue
        if write:
            _write_atomically(result.path, fixed.encode("utf-8"))
        changed.append((result.path, text, fixed))
    return changed


def fix_configs(args: argparse.Namespace, settings: Any, out: TextIO) -> List[Any]:
    """Fix mode for config files: apply their fixes (``--diff``: print them instead).

    Returns the config results still to report: with ``--fix``, the findings left
    after fixing (re-read from the fixed text); with ``--diff``, the files that
    would change, so the exit code says a diff was shown.
    """
    from ms_perflint.project.configs import scan_yaml

    import difflib

    from ms_perflint.results import FileResult

    results = config_results(args.paths, settings)
    diff = bool(getattr(args, "diff", False))
    changed = fix_config_files(results, bool(getattr(args, "unsafe_fixes", False)), write=not diff)
    changed_paths = {path for path, _, _ in changed}
    if diff:
        for path, old, new in changed:
            out.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path))
        return [result for result in results if result.path in changed_paths]
    remaining = [result for result in results if result.path not in changed_paths]
    for path, _, new in changed:
        findings = _kept_findings_in(new, scan_yaml(new).findings, path, settings)
        if findings:
            remaining.append(FileResult(path, violations=[_violation(f) for f in findings]))
    return remaining


def _write_atomically(path: str, data: bytes) -> None:
    import tempfile

    folder = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".ms-perflint-", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# --- tracing -------------------------------------------------------------------------


def write_trace(files: Sequence[str], settings: Any, stream: TextIO) -> None:
    """For each Cell class of ``files``: the covering mechanism, or every mechanism considered and why it fails."""
    from ms_perflint.project import view_for_path

    for path in files:
        view = view_for_path(path, settings) if getattr(settings, "project", False) else None
        if view is None:
            stream.write(f"{path}: per-file mode (no project): only mechanisms in this file count\n")
            continue
        cells = view.analysis.facts[view.relative].cells
        for name, line in sorted(cells.items(), key=lambda item: item[1]):
            coverage = view.fp16_coverage(name)
            verdict = str(coverage) if coverage is not None else "not covered"
            stream.write(f"{path}:{line}: {name}: {verdict}\n")
            if coverage is None:
                for note in view.coverage_trace(name):
                    stream.write(f"    {note}\n")
