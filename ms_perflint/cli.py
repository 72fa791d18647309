"""The ``ms-perflint`` command: find files, check them with their projects, report, exit.

Exit codes follow ruff: 0 nothing to report, 1 findings (or files that could not be
checked), 2 usage, configuration or internal error. No traceback reaches a user.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from ms_perflint import __version__

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit 2."""


def _glob_list(text: str) -> List[str]:
    return [glob.strip() for glob in text.split(",") if glob.strip()]


def _code_list(text: str) -> List[str]:
    from ms_perflint.config import check_code_or_prefix

    codes = [code.strip().upper() for code in text.split(",") if code.strip()]
    for code in codes:
        problem = check_code_or_prefix(code)
        if problem:
            raise argparse.ArgumentTypeError(problem)
    return codes


def _job_count(text: str) -> int:
    if text == "auto":
        return 0
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (or auto)")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, grouped as users read ``--help``."""
    from ms_perflint.output.report import COLOR_CHOICES, FORMATS

    parser = argparse.ArgumentParser(prog="ms-perflint", description="Find (and fix) MindSpore code that is slow on Ascend.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or folders to check (folders are searched for *.py, *.ipynb and YAML configs); "
                             "- reads standard input; none: the current folder, on a terminal")
    parser.add_argument("--version", action="version", version=f"ms-perflint {__version__}")
    selection = parser.add_argument_group("rule selection")
    selection.add_argument("--select", type=_code_list, metavar="CODES", help="comma-separated codes or prefixes to enable (default: MSP)")
    selection.add_argument("--extend-select", type=_code_list, metavar="CODES", help="codes or prefixes to enable on top of --select")
    selection.add_argument("--ignore", type=_code_list, metavar="CODES", help="comma-separated codes or prefixes to disable")
    selection.add_argument("--extend-ignore", type=_code_list, metavar="CODES", help="codes or prefixes to disable on top of --ignore")
    output = parser.add_argument_group("output")
    output.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    output.add_argument("--allow-no-paths", action="store_true",
                        help="exit 0, checking nothing, when no PATH is given (the pre-commit hooks pass this)")
    output.add_argument("--output-format", choices=list(FORMATS), default="text", help="how findings are written (default: text)")
    output.add_argument("--color", choices=COLOR_CHOICES, default="auto",
                        help="colour the text output: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces it), always, never")
    output.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    output.add_argument("--statistics", action="store_true", help="print how often each code was reported, not the findings")
    output.add_argument("--explain", metavar="CODE", help="print the documentation of a rule (e.g. MSP103) and exit")
    output.add_argument("--stdin-filename", metavar="PATH", help="the name of the file read from `-` (for configuration and output)")
    output.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` comments that suppress the current findings")
    config = parser.add_argument_group("configuration")
    config.add_argument("--config", metavar="FILE", help="read [tool.ms-perflint] / [ms-perflint] from FILE for every file")
    config.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    config.add_argument("--exclude", type=_glob_list, metavar="GLOBS", help="comma-separated globs to skip (replaces the default list)")
    config.add_argument("--extend-exclude", type=_glob_list, metavar="GLOBS", help="globs to skip on top of --exclude")
    config.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                        help="apply excludes to paths named on the command line too")
    config.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                        help="skip files git ignores (default: on)")
    config.add_argument("--no-project", action="store_true",
                        help="check every file alone, not with the programs of its project")
    performance = parser.add_argument_group("performance")
    performance.add_argument("-j", "--jobs", type=_job_count, default=0, metavar="N",
                             help="worker processes (default: auto, one per 8 files to analyse, at most one per core)")
    performance.add_argument("--no-cache", action="store_true", help="neither read nor write the project indexes on disk")
    performance.add_argument("--cache-dir", metavar="DIR", help="where project indexes are kept (default: .ms_perflint_cache in the project root)")
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="apply safe fixes and write the files back")
    fixes.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply fixes that may change behaviour (with --fix or --diff); [*] then marks them too")
    fixes.add_argument("--diff", action="store_true", help="print the fixes as unified diffs and write nothing")
    fixes.add_argument("--show-fixes", action="store_true", help="list each fix applied (path:line: CODE description)")
    fixes.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when any file was fixed, even if no finding remains")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return int(exit_request.code or 0)
    from ms_perflint.config import ConfigError

    try:
        return run(args)
    except (UsageError, ConfigError) as error:
        print(f"ms-perflint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("ms-perflint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`ms-perflint src/ | head`): point stdout at devnull so the final flush cannot raise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FINDINGS
    except Exception as error:  # noqa: BLE001 -- the last line of defence: no traceback for users
        print(f"ms-perflint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("ms-perflint: please report this with the file that caused it", file=sys.stderr)
        return EXIT_ERROR


def run(args: argparse.Namespace) -> int:
    """Check the paths in ``args`` and report."""
    if args.explain is not None:
        return explain(args.explain)
    _check_combinations(args)
    if args.stdin_filename and not args.paths:
        args.paths = ["-"]  # as ruff does: a name for standard input means standard input is read
    if not args.paths:
        if args.allow_no_paths:  # pre-commit runs an always_run/pass_filenames: false hook with no files
            return EXIT_CLEAN
        if not sys.stdin.isatty():
            raise UsageError("no paths given; try `ms-perflint .`")
        args.paths = ["."]
    session = _session(args)
    if "-" in args.paths:
        return _run_stdin(args, session)
    files, missing, problems = _discover(args, session)
    for problem in problems:
        print(f"ms-perflint: warning: {problem}", file=sys.stderr)
    for path in missing:
        print(f"ms-perflint: error: {path}: no such file or folder", file=sys.stderr)
    if args.add_noqa:
        from ms_perflint.fix.noqa import add_noqa

        code = add_noqa(session, files, sys.stderr)
        return EXIT_ERROR if missing else code
    if args.fix or args.diff:
        code = _run_fix(args, session, files)
    else:
        results = session.check(files)
        write_report(results, args)
        code = EXIT_FINDINGS if any(r.findings or r.error for r in results) and not args.exit_zero else EXIT_CLEAN
    return EXIT_ERROR if missing else code


def _check_combinations(args: argparse.Namespace) -> None:
    if args.config and args.isolated:
        raise UsageError("--config and --isolated cannot be used together")
    if args.stdin_filename and args.paths and "-" not in args.paths:
        raise UsageError("--stdin-filename names the code read from standard input; pass `-` (or no paths) to read it")
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics is written as text or json, not " + args.output_format)
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff: run them one after the other")


def _session(args: argparse.Namespace):
    from ms_perflint.config import Config, ConfigError, load_config, check_rule_codes
    from ms_perflint.run.session import Session, SessionOptions

    config = None
    try:
        if args.isolated:
            config = Config(source=None, root=Path.cwd())
        elif args.config:
            config = load_config(Path(args.config), explicit=True)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    overrides = {
        "select": tuple(args.select) if args.select else None,
        "extend_select": tuple(args.extend_select) if args.extend_select else None,
        "ignore": tuple(args.ignore) if args.ignore else None,
        "extend_ignore": tuple(args.extend_ignore) if args.extend_ignore else None,
    }
    problem = check_rule_codes([c for v in overrides.values() if v for c in v])
    if problem:
        raise UsageError(problem)
    cache = None if args.no_cache else (args.cache_dir or _default_cache_folder(args.paths))
    options = SessionOptions(config=config, overrides={k: v for k, v in overrides.items() if v is not None},
                             cache_folder=cache, jobs=args.jobs, project=False if args.no_project else None,
                             fallback_roots=tuple(p for p in args.paths if os.path.isdir(p)))
    session = Session(options)
    session.excludes = {  # type: ignore[attr-defined]
        "exclude": tuple(args.exclude) if args.exclude is not None else None,
        "extend_exclude": tuple(args.extend_exclude) if args.extend_exclude is not None else None,
        "force_exclude": args.force_exclude,
        "respect_gitignore": args.respect_gitignore,
    }
    return session


def _default_cache_folder(paths: Sequence[str]) -> str:
    """One cache folder per run: ``.ms_perflint_cache`` in the project root of the first path (or here)."""
    from ms_perflint.project.roots import find_root

    first = next((p for p in paths if p != "-"), ".")
    root = find_root(first) or (first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first)))
    return os.path.join(os.path.abspath(root), ".ms_perflint_cache")


def _discover(args: argparse.Namespace, session):
    """Files to check, missing paths, and problems met while walking."""
    from ms_perflint.config import ConfigError
    from ms_perflint.sources.discovery import discover

    files: List[str] = []
    missing: List[str] = []
    problems: List[str] = []
    for path in args.paths:
        if not (os.path.exists(path) or os.path.islink(path)):
            missing.append(path)
            continue
        try:
            config = session.config_for(path).overridden(**session.excludes)
        except ConfigError as error:
            raise UsageError(str(error)) from None
        found = discover([path], excluded=config.is_excluded,
                         named_excluded=config.is_excluded_with_parents if config.force_exclude else None,
                         respect_gitignore=config.respect_gitignore)
        files.extend(found.files)
        problems.extend(found.problems)
    return _unique_files(files), missing, problems


def _unique_files(files: Sequence[str]) -> List[str]:
    """Each file once, however it was named (``x.py``, ``./x.py``, ``/abs/x.py``): the first spelling is kept."""
    seen = {}
    for path in files:
        seen.setdefault(os.path.realpath(path), path)
    return list(seen.values())


def _run_stdin(args: argparse.Namespace, session) -> int:
    if args.paths != ["-"]:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    if args.add_noqa or args.fix:
        raise UsageError("--add-noqa and --fix change files; they cannot be used with standard input (use --diff)")
    name = args.stdin_filename or "-"
    data = sys.stdin.buffer.read()
    target = os.path.abspath(name) if name != "-" else os.path.abspath("stdin.py")
    session.overlay[target] = data
    result = session.check([target if name != "-" else target])[0]
    result.path = name
    if args.diff:
        from ms_perflint.run.fixing import fix_files, unified_diff

        outcome = fix_files(session, [target], bool(args.unsafe_fixes))[0]
        outcome.path = name
        sys.stdout.write(unified_diff(outcome))
        return EXIT_FINDINGS if outcome.changed and not args.exit_zero else EXIT_CLEAN
    write_report([result], args)
    return EXIT_FINDINGS if (result.findings or result.error) and not args.exit_zero else EXIT_CLEAN


def _run_fix(args: argparse.Namespace, session, files: Sequence[str]) -> int:
    from ms_perflint.run.fixing import fix_files, unified_diff, write_fixed

    outcomes = fix_files(session, files, bool(args.unsafe_fixes))
    interrupted = False
    if args.fix:
        try:
            write_fixed(outcomes)
        except KeyboardInterrupt:
            interrupted = True
    for outcome in outcomes:
        for problem in outcome.problems:
            print(f"ms-perflint: warning: {problem.render(outcome.path)}", file=sys.stderr)
    notes = sys.stdout if args.output_format == "text" else sys.stderr
    if args.diff:
        for outcome in outcomes:
            sys.stdout.write(unified_diff(outcome))
    else:
        write_report([o.remaining for o in outcomes], args)
    if args.show_fixes:
        for outcome in outcomes:
            for fix in outcome.applied:
                where = f"{outcome.path}:cell {fix.cell}:{fix.line}" if fix.cell else f"{outcome.path}:{fix.line}"
                notes.write(f"{where}: {fix.code} {fix.description}\n")
    if not args.quiet:
        notes.write(_fixed_summary(outcomes, bool(args.diff), bool(args.unsafe_fixes)) + "\n")
    if interrupted:
        written = [o.path for o in outcomes if o.written]
        print(f"ms-perflint: interrupted after writing {len(written)} file(s): {', '.join(written) or 'none'}",
              file=sys.stderr)
        return 130
    if args.exit_zero:
        return EXIT_CLEAN
    if args.diff:
        return EXIT_FINDINGS if any(o.changed or o.remaining.error for o in outcomes) else EXIT_CLEAN
    remaining = any(o.remaining.findings or o.remaining.error for o in outcomes)
    fixed = any(o.changed for o in outcomes)
    return EXIT_FINDINGS if remaining or (fixed and args.exit_non_zero_on_fix) else EXIT_CLEAN


def _fixed_summary(outcomes, would: bool, unsafe: bool) -> str:
    from ms_perflint.findings import FixSafety

    fixed = sum(len(o.applied) for o in outcomes if o.changed)
    files = sum(1 for o in outcomes if o.changed)
    verb = "Would fix" if would else "Fixed"
    text = f"{verb} {_plural(fixed, 'finding')}" + (f" in {_plural(files, 'file')}." if fixed else ".")
    hidden = sum(1 for o in outcomes for f in o.remaining.findings if f.fix is not None and f.fix.safety is FixSafety.UNSAFE)
    if hidden and not unsafe:
        text += f" {_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes`."
    return text


def _plural(count: int, word: str, plural: Optional[str] = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def write_report(results: list, args: argparse.Namespace) -> None:
    """Write the findings in ``--output-format`` to ``--output-file`` or standard output."""
    from ms_perflint.output.report import notices, use_color, write_report as write

    for line in notices(results):
        print(f"ms-perflint: warning: {line}", file=sys.stderr)
    options = dict(quiet=args.quiet, show_statistics=args.statistics, unsafe_fixes=args.unsafe_fixes)
    if not args.output_file:
        write(results, sys.stdout, args.output_format, color=use_color(sys.stdout, args.color), **options)
        return
    try:
        with open(args.output_file, "w", encoding="utf-8") as stream:
            write(results, stream, args.output_format, **options)
    except OSError as error:
        raise UsageError(f"{args.output_file}: cannot write the report: {error.strerror or error}") from None


def explain(code: str) -> int:
    """``--explain CODE``: print the rule's documentation; an unknown code is a usage error listing the codes."""
    from ms_perflint.rules import ALL_RULES
    from ms_perflint.rules.docs import render_rule

    wanted = code.strip()
    for rule in ALL_RULES:
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            sys.stdout.write(render_rule(rule))
            return EXIT_CLEAN
    known = ", ".join(f"{rule.code} ({rule.name})" for rule in ALL_RULES)
    raise UsageError(f"unknown rule {code!r}; known rules: {known}")
