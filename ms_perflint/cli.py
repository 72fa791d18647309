"""The ``ms-perflint`` command: find files, lint them with the engine, report, exit.

Exit codes follow ruff: 0 no findings, 1 findings (or files that could not be
checked), 2 usage, configuration or internal error. No traceback reaches a user.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional, Sequence

from ms_perflint import __version__, fix_runner

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit 2."""


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
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders to check (folders are searched for *.py)")
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
    fix_runner.add_arguments(parser)
    return parser


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
    except Exception as error:  # noqa: BLE001 -- the last line of defence: no traceback for users
        print(f"ms-perflint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("ms-perflint: please report this with the file that caused it", file=sys.stderr)
        return EXIT_ERROR


def settings_from_args(args: argparse.Namespace):
    """Settings for this run: defaults overridden by command-line flags."""
    from ms_perflint.settings import Settings, with_overrides

    return with_overrides(
        Settings(),
        {
            "select": tuple(args.select) if args.select else None,
            "extend_select": tuple(args.extend_select) if args.extend_select else None,
            "ignore": tuple(args.ignore) if args.ignore else None,
        },
    )


def run(args: argparse.Namespace) -> int:
    """Lint the paths in ``args`` and report."""
    from ms_perflint.discovery import PathNotFound, discover
    from ms_perflint.engine import lint_file
    from ms_perflint.output.text import write_text

    if not args.paths:
        if args.allow_no_paths:  # pre-commit runs an always_run/pass_filenames: false hook with no files
            if not args.quiet:
                print("ms-perflint: no paths given; nothing to check", file=sys.stderr)
            return EXIT_CLEAN
        raise UsageError("no paths given; try `ms-perflint .`")
    settings = settings_from_args(args)
    try:
        found = discover(args.paths)
    except PathNotFound as missing:
        raise UsageError(f"{missing}: no such file or folder") from None
    for problem in found.problems:
        print(f"ms-perflint: warning: {problem}", file=sys.stderr)
    if fix_runner.requested(args):
        return fix_runner.run(args, settings, found.files, report=lambda fixed: write_text(fixed, sys.stdout, quiet=args.quiet))
    results = [lint_file(path, settings) for path in found.files]
    write_text(results, sys.stdout, quiet=args.quiet)
    has_findings = any(result.violations or result.error for result in results)
    return EXIT_FINDINGS if has_findings and not args.exit_zero else EXIT_CLEAN
