"""The ``ms-perflint`` command: find files, lint them with the engine, report, exit.

Exit codes follow ruff: 0 no findings, 1 findings (or files that could not be
checked), 2 usage, configuration or internal error. No traceback reaches a user.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from ms_perflint import __version__, fix_runner
from ms_perflint.project import cli_support as project_cli
from ms_perflint.output.report import FORMATS

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit 2."""


def _glob_list(text: str) -> List[str]:
    return [glob.strip() for glob in text.split(",") if glob.strip()]


def _code_list(text: str) -> List[str]:
    codes = [code.strip().upper() for code in text.split(",") if code.strip()]
    for code in codes:
        if not (code.startswith("MSP") and (code == "MSP" or code[3:].isdigit())):
            raise argparse.ArgumentTypeError(f"{code!r} is not an ms-perflint code or prefix (e.g. MSP, MSP1, MSP101)")
    return codes


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, grouped as users read ``--help``."""
    parser = argparse.ArgumentParser(
        prog="ms-perflint",
        description="Find (and fix) MindSpore code that is slow on Ascend.",
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or folders to check (folders are searched for *.py and *.ipynb); - reads standard input"
    )
    parser.add_argument("--version", action="version", version=f"ms-perflint {__version__}")
    selection = parser.add_argument_group("rule selection")
    selection.add_argument("--select", type=_code_list, metavar="CODES", help="comma-separated codes or prefixes to enable (default: MSP)")
    selection.add_argument("--extend-select", type=_code_list, metavar="CODES", help="codes or prefixes to enable on top of --select")
    selection.add_argument("--ignore", type=_code_list, metavar="CODES", help="comma-separated codes or prefixes to disable")
    output = parser.add_argument_group("output")
    output.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    output.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    output.add_argument(
        "--allow-no-paths",
        action="store_true",
        help="exit 0, checking nothing, when no PATH is given (the pre-commit hooks pass this)",
    )
    output.add_argument("--output-format", choices=FORMATS, default="text", help="how findings are written (default: text)")
    output.add_argument("-o", "--output-file", metavar="FILE", help="write the report to FILE instead of standard output")
    output.add_argument("--statistics", action="store_true", help="print how often each code was reported, not the findings")
    output.add_argument("--explain", metavar="CODE", help="print the documentation of a rule (e.g. MSP103) and exit")
    output.add_argument("--stdin-filename", metavar="PATH", help="the name of the file read from `-` (for per-file-ignores and output)")
    output.add_argument("--add-noqa", action="store_true", help="add `# noqa: CODE` comments that suppress the current findings")
    config = parser.add_argument_group("configuration")
    config.add_argument("--config", metavar="FILE", help="read [tool.ms-perflint] / [ms-perflint] from FILE, not the nearest file")
    config.add_argument("--isolated", action="store_true", help="ignore all configuration files")
    config.add_argument("--exclude", type=_glob_list, metavar="GLOBS", help="comma-separated globs to skip (replaces the default list)")
    config.add_argument("--extend-exclude", type=_glob_list, metavar="GLOBS", help="globs to skip on top of --exclude")
    config.add_argument(
        "--force-exclude", action=argparse.BooleanOptionalAction, default=None, help="apply excludes to paths named on the command line too"
    )
    config.add_argument(
        "--respect-gitignore", action=argparse.BooleanOptionalAction, default=None, help="skip files git ignores (default: on)"
    )
    performance = parser.add_argument_group("performance")
    performance.add_argument(
        "-j", "--jobs", type=_job_count, default=0, metavar="N",
        help="worker processes (default: auto, one per 8 files to lint, at most one per core)",
    )
    performance.add_argument("--no-cache", action="store_true", help="neither read nor write cached results, nor the project index (built in memory instead)")
    performance.add_argument("--cache-dir", metavar="DIR", help="where cached results live (default: .ms_perflint_cache in the project root)")
    fix_runner.add_arguments(parser)
    project_cli.add_arguments(parser)
    return parser


def _job_count(text: str) -> int:
    if text == "auto":
        return 0
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (or auto)")
    return int(text)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return int(exit_request.code or 0)
    try:
        return run(args)
    except UsageError as error:
        print(f"ms-perflint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("ms-perflint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`ms-perflint src/ | head`): not an error worth a message.
        # Point stdout at devnull so the interpreter's final flush cannot raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FINDINGS
    except Exception as error:  # noqa: BLE001 -- the last line of defence: no traceback for users
        print(f"ms-perflint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("ms-perflint: please report this with the file that caused it", file=sys.stderr)
        return EXIT_ERROR


def config_from_args(args: argparse.Namespace):
    """The run's configuration: ``--isolated``, ``--config FILE`` or the file nearest the first path, then flags."""
    from ms_perflint.config import ConfigError, resolve_config

    first = args.paths[0] if args.paths else None
    start = (args.stdin_filename or None) if first == "-" else first
    if args.config and args.isolated:
        raise UsageError("--config and --isolated cannot be used together")
    try:
        config = resolve_config(start=start, config_file=args.config, isolated=args.isolated)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    return config.overridden(
        exclude=tuple(args.exclude) if args.exclude is not None else None,
        extend_exclude=tuple(args.extend_exclude) if args.extend_exclude is not None else None,
        force_exclude=args.force_exclude,
        respect_gitignore=args.respect_gitignore,
    )


def settings_from_args(args: argparse.Namespace, config=None):
    """Settings for this run: the configuration (defaults without one) overridden by command-line flags."""
    from ms_perflint.config import Config

    if config is None:
        config = Config(source=None, root=Path.cwd())
    return config.settings(
        select=tuple(args.select) if args.select else None,
        extend_select=tuple(args.extend_select) if args.extend_select else None,
        ignore=tuple(args.ignore) if args.ignore else None,
    )


def run(args: argparse.Namespace) -> int:
    """Lint the paths in ``args`` and report."""
    from ms_perflint.discovery import PathNotFound, discover

    if args.explain is not None:
        return explain(args.explain)
    if args.stdin_filename and not args.paths:
        args.paths = ["-"]  # as ruff does: a name for standard input means standard input is read
    if args.stdin_filename and "-" not in args.paths:
        raise UsageError("--stdin-filename names the code read from standard input; pass `-` (or no paths) to read it")
    if not args.paths:
        if args.allow_no_paths:  # pre-commit runs an always_run/pass_filenames: false hook with no files
            if not args.quiet:
                print("ms-perflint: no paths given; nothing to check", file=sys.stderr)
            return EXIT_CLEAN
        raise UsageError("no paths given; try `ms-perflint .`")
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics is written as text or json, not " + args.output_format)
    config = config_from_args(args)
    settings = project_cli.configure(settings_from_args(args, config), args, args.paths)
    if "-" in args.paths:
        results = lint_stdin(args, config, settings)
        write_report(results, args, settings)
        return EXIT_FINDINGS if any(r.violations or r.error for r in results) and not args.exit_zero else EXIT_CLEAN
    try:
        found = discover(
            args.paths,
            excluded=config.is_excluded,
            named_excluded=config.is_excluded_with_parents if config.force_exclude else None,
            respect_gitignore=config.respect_gitignore,
        )
    except PathNotFound as missing:
        raise UsageError(f"{missing}: no such file or folder") from None
    for problem in found.problems:
        print(f"ms-perflint: warning: {problem}", file=sys.stderr)
    if args.add_noqa:
        from ms_perflint.add_noqa import add_noqa_to_files

        configs = project_cli.config_results(args.paths, settings)
        return add_noqa_to_files(found.files, settings, sys.stderr, config_results=configs)
    if args.trace_coverage:
        project_cli.write_trace(found.files, settings, sys.stderr)
    if fix_runner.requested(args):
        configs = project_cli.fix_configs(args, settings, sys.stdout)  # YAML fixes are text edits, not CST
        code = fix_runner.run(args, settings, found.files, report=lambda fixed: write_report(fixed + configs, args, settings),
                              lint=lambda files: lint_files(files, args, config, settings))
        return EXIT_FINDINGS if configs and not args.exit_zero else code
    results = lint_files(found.files, args, config, settings) + project_cli.config_results(args.paths, settings)
    write_report(results, args, settings)
    has_findings = any(result.violations or result.error for result in results)
    return EXIT_FINDINGS if has_findings and not args.exit_zero else EXIT_CLEAN


def lint_files(files: Sequence[str], args: argparse.Namespace, config, settings) -> list:
    """Lint ``files``: cached results first, the rest in-process or in a pool (``--jobs``); in ``files``' order."""
    from ms_perflint.cache import ResultCache, default_cache_dir
    from ms_perflint.parallel import lint_paths

    cache = None
    if not args.no_cache:
        folder = args.cache_dir or default_cache_dir(str(config.root) if config.source is not None else None)
        cache = ResultCache(folder, settings)
    results = lint_paths(files, settings, jobs=args.jobs, cache=cache)
    if cache is not None and cache.problem:
        print(f"ms-perflint: warning: {cache.problem}; results were not cached", file=sys.stderr)
    return results


def lint_stdin(args: argparse.Namespace, config, settings) -> list:
    """Lint standard input as ``--stdin-filename`` (or ``-``); nothing when that name is force-excluded."""
    from ms_perflint.engine import lint_source

    if args.paths != ["-"]:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    if args.add_noqa or fix_runner.requested(args):
        raise UsageError("--add-noqa, --fix and --diff change files; they cannot be used with standard input")
    name = args.stdin_filename or "-"
    if args.stdin_filename and config.force_exclude and config.is_excluded_with_parents(name):
        return []
    data = sys.stdin.buffer.read()
    if name.lower().endswith(".ipynb"):
        from ms_perflint.notebook import lint_notebook

        return [lint_notebook(data, name, settings)]
    return [lint_source(data, name, settings)]


def write_report(results: list, args: argparse.Namespace, settings) -> None:
    """Write the findings in ``--output-format`` to ``--output-file`` or standard output."""
    from ms_perflint.output.report import use_color, write_report as write

    options = dict(quiet=args.quiet, show_statistics=args.statistics, unsafe_fixes=args.unsafe_fixes)
    if not args.output_file:
        write(results, sys.stdout, args.output_format, settings, color=use_color(sys.stdout), **options)
        return
    try:
        with open(args.output_file, "w", encoding="utf-8") as stream:
            write(results, stream, args.output_format, settings, **options)
    except OSError as error:
        raise UsageError(f"{args.output_file}: cannot write the report: {error.strerror or error}") from None


def explain(code: str) -> int:
    """``--explain CODE``: print the rule's documentation; an unknown code is a usage error listing the codes."""
    from ms_perflint.docs import render_rule
    from ms_perflint.rules import ALL_RULES

    wanted = code.strip()
    for rule in ALL_RULES:
        if wanted.upper() == rule.code or wanted.lower() == rule.name:
            sys.stdout.write(render_rule(rule))
            return EXIT_CLEAN
    known = ", ".join(f"{rule.code} ({rule.name})" for rule in ALL_RULES)
    raise UsageError(f"unknown rule {code!r}; known rules: {known}")
