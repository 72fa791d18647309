"""The CLI's fix mode: ``--fix``, ``--unsafe-fixes``, ``--diff``, ``--show-fixes``, ``--exit-non-zero-on-fix``.

The CLI adds the flags with :func:`add_arguments` and, when :func:`requested`,
hands the discovered files to :func:`run`. Findings left after fixing are
printed by the CLI's own reporter (any output format); this module prints only
what belongs to fixing: diffs, the list of applied fixes, problems and a summary.
Nothing here imports libcst until files are actually fixed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Optional, Sequence, TextIO

EXIT_CLEAN = 0
EXIT_FINDINGS = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the fix flags to the CLI's parser, as their own ``--help`` group."""
    group = parser.add_argument_group("fixes")
    group.add_argument("--fix", action="store_true", help="apply safe fixes and write the files back")
    group.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="also apply fixes that may change behaviour (with --fix or --diff); [*] then marks them too",
    )
    group.add_argument("--diff", action="store_true", help="print the fixes as unified diffs and write nothing")
    group.add_argument("--show-fixes", action="store_true", help="list each fix applied (path:line: CODE description)")
    group.add_argument(
        "--exit-non-zero-on-fix",
        action="store_true",
        help="exit 1 when any file was fixed, even if no finding remains",
    )


def requested(args: argparse.Namespace) -> bool:
    """Did the user ask for fixing (``--fix`` or ``--diff``)?"""
    return bool(getattr(args, "fix", False) or getattr(args, "diff", False))


def run(
    args: argparse.Namespace,
    settings,
    files: Sequence[str],
    report: Callable[[list], None],
    out: Optional[TextIO] = None,
    err: Optional[TextIO] = None,
    lint: Optional[Callable[[Sequence[str]], list]] = None,
) -> int:
    """Fix (or diff) ``files``; ``report(results)`` prints the findings that remain. Returns the exit code.

    ``lint(files)`` is the CLI's linting (cache, ``--jobs``); with it, only files
    whose findings carry a fix this run applies are read again and fixed.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    diff = bool(args.diff)
    outcomes = fix_files(files, settings, bool(args.unsafe_fixes), write=not diff, lint=lint)
    for outcome in outcomes:
        for problem in outcome.problems:
            err.write(f"ms-perflint: warning: {problem.render(outcome.path)}\n")
    if diff:
        return _run_diff(outcomes, args, out, err)
    # Summaries go where they cannot corrupt a machine-readable format on stdout.
    notes = out if getattr(args, "output_format", "text") == "text" else err
    report([outcome.remaining for outcome in outcomes])
    if args.show_fixes:
        _write_applied(outcomes, notes)
    if not args.quiet:
        # The text reporter's own summary already counts the unsafe fixes left over.
        mention_hidden = not args.unsafe_fixes and notes is not out
        notes.write(fixed_summary(outcomes, mention_hidden) + "\n")
    return exit_code(outcomes, args)


def fix_files(
    files: Sequence[str], settings, unsafe: bool, write: bool, lint: Optional[Callable[[Sequence[str]], list]] = None,
) -> list:
    """A :class:`~ms_perflint.fixer.FixResult` per file, in order.

    Fixing is serial (it rewrites files and re-lints them), so a model zoo's
    clean files are left to ``lint``, which may use the cache and a pool: a
    file is fixed only when its lint result has a fix to apply.
    """
    from ms_perflint.fix_results import FixResult, wanted

    if lint is None:
        return [_fix_file(path, settings, unsafe, write) for path in files]
    outcomes = []
    for path, result in zip(files, lint(files)):
        if result.error is None and any(wanted(violation, unsafe) for violation in result.violations):
            outcomes.append(_fix_file(path, settings, unsafe, write))
        else:
            outcomes.append(FixResult(path, remaining=result, before=result))
    return outcomes


def _fix_file(path: str, settings, unsafe: bool, write: bool):
    from ms_perflint.fixer import fix_file  # libcst: only when a file is really fixed

    return fix_file(path, settings, unsafe=unsafe, write=write)


def _run_diff(outcomes: list, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    for outcome in outcomes:
        if outcome.remaining.error is not None:
            error = outcome.remaining.error
            err.write(f"{outcome.path}:{error.line}:{error.column + 1}: {error.kind}: {error.message}\n")
        if outcome.changed:
            from ms_perflint.fixer import unified_diff

            out.write(unified_diff(outcome))
    if args.show_fixes:
        _write_applied(outcomes, err)
    if not args.quiet:
        err.write(fixed_summary(outcomes, not args.unsafe_fixes, would=True) + "\n")
    has_diff = any(outcome.changed for outcome in outcomes)
    has_error = any(outcome.remaining.error is not None for outcome in outcomes)
    return EXIT_FINDINGS if has_diff or has_error else EXIT_CLEAN


def _write_applied(outcomes: list, stream: TextIO) -> None:
    for outcome in outcomes:
        for fix in outcome.applied:
            stream.write(f"{outcome.path}:{fix.line}: {fix.code} {fix.description}\n")


def fixed_summary(outcomes: list, mention_hidden: bool, would: bool = False) -> str:
    """``Fixed 3 findings in 2 files.``; with ``mention_hidden``, how many more ``--unsafe-fixes`` would fix."""
    from ms_perflint.rule import FixSafety

    fixed = sum(len(outcome.applied) for outcome in outcomes)
    files = sum(1 for outcome in outcomes if outcome.changed)
    verb = "Would fix" if would else "Fixed"
    text = f"{verb} {_plural(fixed, 'finding')}" + (f" in {_plural(files, 'file')}." if fixed else ".")
    hidden = sum(
        1
        for outcome in outcomes
        for violation in outcome.remaining.violations
        if violation.fix is not None and violation.fix.safety is FixSafety.UNSAFE
    )
    if hidden and mention_hidden:
        text += f" {_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes`."
    return text


def exit_code(outcomes: list, args: argparse.Namespace) -> int:
    """ruff's rules: 0 when nothing remains (all fixed counts as clean), 1 when findings remain.

    ``--exit-non-zero-on-fix`` makes any applied fix exit 1; ``--exit-zero`` wins over both.
    """
    if getattr(args, "exit_zero", False):
        return EXIT_CLEAN
    remaining = any(outcome.remaining.violations or outcome.remaining.error for outcome in outcomes)
    fixed = any(outcome.changed for outcome in outcomes)
    if remaining or (fixed and args.exit_non_zero_on_fix):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _plural(count: int, word: str, plural: Optional[str] = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"
