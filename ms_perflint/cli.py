"""The ``ms-perflint`` command: find files, check them with their projects, report, exit.

Exit codes follow ruff: 0 nothing to report, 1 findings (or files that could not be
checked), 2 usage, configuration or internal error. No traceback reaches a user.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ms_perflint import __version__
from ms_perflint.memory import CHECK_GC_THRESHOLDS

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
#: The cache folder made at a project root (or wherever --cache-dir says).
CACHE_FOLDER_NAME = ".ms_perflint_cache"


class UsageError(Exception):
    """A mistake in how the command was called; printed as one line, exit 2."""


def _glob_list(text: str) -> List[str]:
    return [glob.strip() for glob in text.split(",") if glob.strip()]


def _code_list(text: str) -> List[str]:
    """Codes as written; checked with the configuration's codes (:func:`_session`), in one style for all."""
    return [code.strip().upper() for code in text.split(",") if code.strip()]


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"a percentage is between 0 and 100, not {value:g}")
    return value


def _positive_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


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
                             "- reads standard input; none: the current folder, on a terminal. "
                             "`ms-perflint clean [PATH]` removes the caches of the projects at PATH; "
                             "`ms-perflint server` is the editor (LSP) server")
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
    output.add_argument("--list-rules", nargs="?", const="text", choices=("text", "json"), metavar="FORMAT",
                        help="list every rule (code, name, fix, default selection) as text or json, and exit")
    output.add_argument("--show-settings", metavar="PATH",
                        help="print the configuration that applies to PATH, key by key with where each value comes "
                             "from, and exit")
    output.add_argument("--show-files", action="store_true",
                        help="print the files that would be checked, and exit")
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
                             help="worker processes (default: auto, one per 8 files to analyse, at most one per core; "
                                  "a project's parts are decided in them from 200 files)")
    performance.add_argument("--no-cache", action="store_true", help="neither read nor write the project indexes on disk")
    performance.add_argument("--cache-dir", metavar="DIR", help="where project indexes are kept (default: .ms_perflint_cache in the project root)")
    profiling = parser.add_argument_group("profile (docs/profile.md)")
    profiling.add_argument("--profile", action="append", metavar="DIR",
                           help="a profiler output folder (MindSpore's Profiler or msprof; repeatable): weigh each "
                                "finding by its share of the profiled time, and add what the profile proves")
    profiling.add_argument("--sort", choices=("path", "cost"), default="path",
                           help="order findings by place (default) or by their profiled cost, costliest first")
    profiling.add_argument("--min-share", type=_percent, metavar="PCT",
                           help="with --profile: hide findings whose profiled share is below PCT percent")
    profiling.add_argument("--top", type=_positive_count, metavar="N",
                           help="with --profile: print the N costliest layers of the model and their source lines, "
                                "instead of the findings")
    profiling.add_argument("--profile-unmapped", action="store_true",
                           help="with --profile: list the operators that could not be mapped to a source line")
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="apply safe fixes and write the files back")
    fixes.add_argument("--fix-only", action="store_true",
                       help="apply fixes but do not report what is left (exit 0 unless a file could not be checked)")
    fixes.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply fixes that may change behaviour (with --fix or --diff); [*] then marks them too")
    fixes.add_argument("--diff", action="store_true", help="print the fixes as unified diffs and write nothing")
    fixes.add_argument("--show-fixes", action="store_true", help="list each fix applied (path:line: CODE description)")
    fixes.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when any file was fixed, even if no finding remains")
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as an interrupt so that a run stops the way Ctrl-C stops it (workers killed, writes said)."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def interrupt_code(interrupt: BaseException) -> int:
    """The exit code of an interrupted run: 128 + the signal, as a shell reports it."""
    return 128 + (signal.SIGTERM if isinstance(interrupt, Terminated) else signal.SIGINT)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of the console script; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return int(exit_request.code or 0)
    from ms_perflint.config import ConfigError

    previous = _handle_sigterm()
    # The process ends with the run: keep the run's collector thresholds to the end, so that restoring
    # the defaults does not buy one last full scan of every fact the project loaded (2 s on a large tree).
    gc.set_threshold(*CHECK_GC_THRESHOLDS)
    try:
        return run(args)
    except (UsageError, ConfigError) as error:
        print(f"ms-perflint: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as interrupt:
        if sys.stderr.isatty():
            sys.stderr.write("\r\x1b[K")  # over a progress line
        print("ms-perflint: interrupted", file=sys.stderr)
        _exit_now_if_a_pool_was_abandoned(interrupt_code(interrupt))
        return interrupt_code(interrupt)
    except BrokenPipeError:
        # The reader went away (`ms-perflint src/ | head`): point stdout at devnull so the final flush cannot raise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FINDINGS
    except Exception as error:  # noqa: BLE001 -- the last line of defence: no traceback for users
        print(f"ms-perflint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        print("ms-perflint: please report this with the file that caused it", file=sys.stderr)
        return EXIT_ERROR
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def console_main() -> int:
    """Entry point of the ``ms-perflint`` command and of ``python -m ms_perflint``: :func:`main`, in a process
    that ends with the run."""
    code = main()
    # Leave what the run built to the OS: the collector's last pass at interpreter exit walks every object
    # the run made (0.7 s of a 2.2 s run after an edit in a 2,000-file project; more after a full run).
    gc.freeze()
    return code


def _exit_now_if_a_pool_was_abandoned(code: int) -> None:
    """End the process at once when an interrupt killed a worker pool: Python's normal exit joins the pool's
    manager thread, which an interrupt at the wrong moment leaves waiting forever (its workers are dead)."""
    from ms_perflint.run import pool

    if pool.abandoned():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _handle_sigterm():
    """Turn SIGTERM into :class:`Terminated` for this run; returns the handler to restore (None: not changed)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _terminate)


def run(args: argparse.Namespace) -> int:
    """Check the paths in ``args`` and report."""
    if args.explain is not None:
        return explain(args.explain)
    if args.list_rules is not None:
        return list_rules(args.list_rules)
    if args.show_settings is not None:
        return show_settings(args)
    if args.paths and args.paths[0] == "clean" and not os.path.lexists("clean"):
        return clean(args.paths[1:] or ["."], args.cache_dir)
    if args.paths == ["server"] and not os.path.lexists("server"):
        return serve()
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
    code = _check_paths(args, session)
    # A rule that failed was reported once (MSP000, where the report shows findings): its findings are missing.
    return EXIT_ERROR if session.error_hosts and not args.exit_zero else code


def _check_paths(args: argparse.Namespace, session) -> int:
    """Check (or fix) the paths and report; the exit code by what was found."""
    if "-" in args.paths:
        return _run_stdin(args, session)
    files, missing, problems = _discover(args, session)
    for problem in problems + _folders_checked_alone(args.paths, session):
        print(f"ms-perflint: warning: {problem}", file=sys.stderr)
    for path in missing:
        print(f"ms-perflint: error: {path}: no such file or folder", file=sys.stderr)
    args.missing = missing
    if args.show_files:
        sys.stdout.writelines(f"{path}\n" for path in files)
        return EXIT_ERROR if missing else EXIT_CLEAN
    if args.add_noqa:
        from ms_perflint.fix.noqa import add_noqa

        code = add_noqa(session, files, sys.stderr)
        return EXIT_ERROR if missing else code
    if args.fix or args.diff or args.fix_only:
        args.fix = args.fix or (args.fix_only and not args.diff)
        code = _run_fix(args, session, files)
    else:
        results = session.check(files)
        if args.profile:
            results = _with_profile(args, session, results)
            if results is None:
                return EXIT_ERROR if missing else EXIT_CLEAN
        write_report(results, args)
        if args.profile and args.profile_unmapped:
            _write_unmapped(args)
        code = EXIT_FINDINGS if any(r.findings or r.error for r in results) and not args.exit_zero else EXIT_CLEAN
    return EXIT_ERROR if missing else code


def _with_profile(args: argparse.Namespace, session, results: list) -> Optional[list]:
    """Weigh the results with the profile; None when ``--top`` printed the costliest layers instead."""
    from ms_perflint.run.profiling import apply_profile, keep_costly, site_location

    results, outcome = apply_profile(session, results, args.profile)
    args.profile_outcome = outcome
    for problem in outcome.profile.problems:
        print(f"ms-perflint: warning: {problem}", file=sys.stderr)
    if outcome.profile.rows and not outcome.mapped:
        print("ms-perflint: warning: no operator of the profile maps to a Cell of these files: is it a profile "
              "of another model?", file=sys.stderr)
    if outcome.profile.rows and not args.quiet:
        print(outcome.summary(), file=sys.stderr)
    if args.top:
        for cell in outcome.cells[:args.top]:
            sys.stdout.write(f"{outcome.share(cell.time_us) * 100:5.1f} %  {site_location(session, cell)}  "
                             f"{cell.site.describe()}  (forward {cell.forward_us / 1000:.2f} ms, "
                             f"backward {cell.backward_us / 1000:.2f} ms)\n")
        return None
    if args.min_share is not None:
        results = keep_costly(results, args.min_share / 100)
    return results


def _write_unmapped(args: argparse.Namespace) -> None:
    outcome = args.profile_outcome
    stream = sys.stdout if args.output_format == "text" and not args.output_file else sys.stderr
    stream.write(f"Operators not mapped to a source line: {len(outcome.unmapped)} "
                 f"({outcome.share(sum(r.time_us for r in outcome.unmapped)) * 100:.1f} % of the profiled time)\n")
    for row in outcome.unmapped:
        stream.write(f"{outcome.share(row.time_us) * 100:6.2f} %  {row.op_type or '?':<24} {row.name}\n")


def _check_combinations(args: argparse.Namespace) -> None:
    if args.config and args.isolated:
        raise UsageError("--config and --isolated cannot be used together")
    if args.stdin_filename and args.paths and "-" not in args.paths:
        raise UsageError("--stdin-filename names the code read from standard input; pass `-` (or no paths) to read it")
    if args.statistics and args.output_format not in ("text", "json"):
        raise UsageError("--statistics is written as text or json, not " + args.output_format)
    if (args.top or args.min_share is not None or args.profile_unmapped or args.sort == "cost") and not args.profile:
        raise UsageError("--top, --min-share, --profile-unmapped and --sort cost need --profile DIR")
    if args.profile and (args.fix or args.diff or args.fix_only or args.add_noqa or args.statistics):
        raise UsageError("--profile weighs findings; run --fix, --diff, --add-noqa or --statistics without it")
    if args.add_noqa and (args.fix or args.diff or args.fix_only):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff: run them one after the other")
    _check_profile_folders(args.profile or ())


def _check_profile_folders(folders: Sequence[str]) -> None:
    """A ``--profile`` that names no profile is a mistake (a typo in CI), not an ordinary run."""
    from ms_perflint.profile.formats import folder_problem

    for folder in folders:
        problem = folder_problem(folder)
        if problem is not None:
            raise UsageError(f"--profile {problem}")


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
    from ms_perflint.output.progress import Progress, wanted

    options = SessionOptions(config=config, overrides={k: v for k, v in overrides.items() if v is not None},
                             cache_folder=cache, jobs=args.jobs, project=False if args.no_project else None,
                             working_folder=os.getcwd(),
                             progress=Progress() if wanted(args.quiet) else None)
    session = Session(options)
    session.excludes = {  # type: ignore[attr-defined]
        "exclude": tuple(args.exclude) if args.exclude is not None else None,
        "extend_exclude": tuple(args.extend_exclude) if args.extend_exclude is not None else None,
        "force_exclude": args.force_exclude,
        "respect_gitignore": args.respect_gitignore,
    }
    return session


def _default_cache_folder(paths: Sequence[str]) -> str:
    """One cache folder per run: ``.ms_perflint_cache`` in the project root of the first path (or its folder)."""
    from ms_perflint.project.roots import project_root

    first = next((p for p in paths if p != "-"), ".")
    root = project_root(first, os.getcwd())
    if root is None:
        root = first if os.path.isdir(first) else os.path.dirname(os.path.abspath(first))
    return os.path.join(os.path.abspath(root), CACHE_FOLDER_NAME)


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
        if os.path.isdir(path) and not (config.force_exclude and config.is_excluded_with_parents(path)):
            files.extend(_unreadable_sources(path, config, set(found.files)))
    return _unique_files(files), missing, problems


def _folders_checked_alone(paths: Sequence[str], session) -> List[str]:
    """Why the files of a folder named outside the working folder, with no project marker, are checked alone."""
    from ms_perflint.project.roots import NO_ROOT_TEXT, project_root

    said = []
    for path in paths:
        if os.path.isdir(path) and project_root(path, os.getcwd()) is None \
                and session.settings_for(os.path.join(path, "_")).project:
            said.append(f"{path}: {NO_ROOT_TEXT}: its files are checked alone; run ms-perflint inside it (or add a "
                        "pyproject.toml) to check them with their project")
    return said


def _unreadable_sources(folder: str, config, found: set) -> List[str]:
    """Source names in ``folder`` that are not regular files: a FIFO, a dangling link, a link loop.

    The walk in :mod:`~ms_perflint.sources.discovery` leaves them out; they are checked
    with the rest, so each is reported once as a file that could not be read, with why.
    """
    from ms_perflint.sources.discovery import SOURCE_SUFFIXES, gitignored

    odd: List[str] = []
    for parent, subfolders, names in os.walk(folder):
        subfolders[:] = [d for d in subfolders if not config.is_excluded(os.path.join(parent, d))]
        for name in names:
            path = os.path.join(parent, name)
            if name.endswith(SOURCE_SUFFIXES) and not os.path.isfile(path) and not config.is_excluded(path):
                odd.append(os.path.normpath(path) if folder != "." else os.path.relpath(path))
    odd = [path for path in odd if path not in found]
    if odd and config.respect_gitignore:
        ignored = gitignored(odd)
        odd = [path for path in odd if path not in ignored]
    return sorted(odd)


def _force_excluded(session, path: str) -> bool:
    config = session.config_for(path).overridden(**session.excludes)
    return bool(config.force_exclude) and config.is_excluded_with_parents(path)


def _unique_files(files: Sequence[str]) -> List[str]:
    """Each file once, however it was named (``x.py``, ``./x.py``, ``/abs/x.py``, a link): the first spelling is kept.

    A file is known by its device and inode (one ``stat``; ``realpath`` looks at every folder of the path), a
    path that cannot be looked at (a dangling link) by its real path.
    """
    seen: Dict[object, str] = {}
    for path in files:
        try:
            status = os.stat(path)
            identity: object = (status.st_dev, status.st_ino)
        except OSError:
            identity = os.path.realpath(path)
        seen.setdefault(identity, path)
    return list(seen.values())


def _run_stdin(args: argparse.Namespace, session) -> int:
    if args.paths != ["-"]:
        raise UsageError("`-` (standard input) cannot be combined with other paths")
    if args.add_noqa or args.fix:
        raise UsageError("--add-noqa and --fix change files; they cannot be used with standard input (use --diff)")
    name = args.stdin_filename or "-"
    if args.stdin_filename and _force_excluded(session, args.stdin_filename):
        return EXIT_CLEAN  # as ruff: an excluded name is not checked, even from standard input
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
    from ms_perflint.output.text import format_error
    from ms_perflint.run.fixing import fix_files, unified_diff, write_fixed

    try:
        outcomes = fix_files(session, files, bool(args.unsafe_fixes))
    except KeyboardInterrupt as interrupt:
        print("ms-perflint: interrupted; no file was written" if args.fix else "ms-perflint: interrupted",
              file=sys.stderr)
        _exit_now_if_a_pool_was_abandoned(interrupt_code(interrupt))
        return interrupt_code(interrupt)
    if args.fix:
        try:
            write_fixed(outcomes)
        except KeyboardInterrupt as interrupt:
            written = [o.path for o in outcomes if o.written]
            pending = sum(1 for o in outcomes if o.changed and not o.written)
            print(f"ms-perflint: interrupted after writing {_plural(len(written), 'fixed file')}"
                  f"{': ' + ', '.join(written) if written else ''}; {_plural(pending, 'file')} left as they were",
                  file=sys.stderr)
            return interrupt_code(interrupt)
        for outcome in outcomes:
            if outcome.changed and not outcome.written:  # refused by the writer: the file keeps its findings
                outcome.remaining, outcome.applied, outcome.fixed = outcome.before, [], None
    for outcome in outcomes:
        for problem in outcome.problems:
            print(f"ms-perflint: warning: {problem.render(outcome.path)}", file=sys.stderr)
    # With --diff, standard output is the patch alone (`ms-perflint --diff . | git apply`): notes go to stderr.
    notes = sys.stdout if args.output_format == "text" and not args.diff else sys.stderr
    if args.diff:
        for outcome in outcomes:
            sys.stdout.write(unified_diff(outcome))
    elif args.fix_only:  # what is left is not reported; files that could not be checked still are
        for outcome in outcomes:
            if outcome.remaining.error is not None:
                print(f"ms-perflint: error: {format_error(outcome.remaining.path, outcome.remaining.error)}",
                      file=sys.stderr)
    else:
        write_report([o.remaining for o in outcomes], args)
    if args.show_fixes:
        for outcome in outcomes:
            for fix in outcome.applied:
                where = f"{outcome.path}:cell {fix.cell}:{fix.line}" if fix.cell else f"{outcome.path}:{fix.line}"
                notes.write(f"{where}: {fix.code} {fix.description}\n")
    if not args.quiet:
        notes.write(_fixed_summary(outcomes, bool(args.diff), bool(args.unsafe_fixes)) + "\n")
    if args.exit_zero:
        return EXIT_CLEAN
    if args.diff:
        return EXIT_FINDINGS if any(o.changed or o.remaining.error for o in outcomes) else EXIT_CLEAN
    remaining = any((o.remaining.findings and not args.fix_only) or o.remaining.error for o in outcomes)
    fixed = any(o.changed for o in outcomes)
    return EXIT_FINDINGS if remaining or (fixed and args.exit_non_zero_on_fix) else EXIT_CLEAN


def _fixed_summary(outcomes, would: bool, unsafe: bool) -> str:
    """``Fixed N findings in M files.``; with ``--diff`` (no report printed) also the unsafe fixes left out."""
    from ms_perflint.findings import FixSafety

    fixed = sum(len(o.applied) for o in outcomes if o.changed)
    files = sum(1 for o in outcomes if o.changed)
    verb = "Would fix" if would else "Fixed"
    text = f"{verb} {_plural(fixed, 'finding')}" + (f" in {_plural(files, 'file')}." if fixed else ".")
    hidden = sum(1 for o in outcomes for f in o.remaining.findings if f.fix is not None and f.fix.safety is FixSafety.UNSAFE)
    if hidden and not unsafe and would:  # with --fix the report's summary already says so
        text += f" {_plural(hidden, 'more fix', 'more fixes')} available with `--unsafe-fixes`."
    return text


def _plural(count: int, word: str, plural: Optional[str] = None) -> str:
    return f"{count} {word if count == 1 else (plural or word + 's')}"


def write_report(results: list, args: argparse.Namespace) -> None:
    """Write the findings in ``--output-format`` to ``--output-file`` or standard output."""
    from ms_perflint.output.report import notices, use_color, write_report as write

    for line in notices(results):
        print(f"ms-perflint: warning: {line}", file=sys.stderr)
    if args.statistics:
        results = _statistics_view(results, bool(args.unsafe_fixes))
    options = dict(quiet=args.quiet, show_statistics=args.statistics, unsafe_fixes=args.unsafe_fixes,
                   by_cost=getattr(args, "sort", "path") == "cost", missing=len(getattr(args, "missing", ())))
    if not args.output_file:
        write(results, sys.stdout, args.output_format, color=use_color(sys.stdout, args.color), **options)
        return
    try:
        with open(args.output_file, "w", encoding="utf-8") as stream:
            write(results, stream, args.output_format, **options)
    except OSError as error:
        raise UsageError(f"{args.output_file}: cannot write the report: {error.strerror or error}") from None


def _statistics_view(results: list, unsafe: bool) -> list:
    """What ``--statistics`` counts: ``[*]`` only for fixes this run's ``--fix`` applies; files not checked said.

    The counts are of findings, so a file that could not be checked (a syntax error)
    is not a row: it is named on standard error instead of vanishing from the output.
    """
    from dataclasses import replace

    from ms_perflint.fix.edits import wanted
    from ms_perflint.output.text import format_error

    view = []
    for result in results:
        if result.error is not None:
            print(f"ms-perflint: error: {format_error(result.path, result.error)}", file=sys.stderr)
        findings = [f if wanted(f, unsafe) else replace(f, fix=None) for f in result.findings]
        view.append(replace(result, findings=findings))
    return view


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


def list_rules(form: str) -> int:
    """``--list-rules [text|json]``: every rule with its fix availability and whether ``MSP`` selects it."""
    from ms_perflint.rules import ALL_RULES

    rows = [{"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": rule.fix_availability.value,
             "default": not rule.opt_in} for rule in ALL_RULES]
    if form == "json":
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_CLEAN
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        marks = ("fix " + row["fix"]).ljust(16) + ("" if row["default"] else "opt-in")
        sys.stdout.write(f"{row['code']}  {row['name'].ljust(width)}  {marks.rstrip()}\n    {row['summary']}\n")
    return EXIT_CLEAN


def show_settings(args: argparse.Namespace) -> int:
    """``--show-settings PATH``: the configuration for PATH, each key with where its value comes from."""
    from ms_perflint.config import check_rule_codes, describe_settings

    if not (os.path.exists(args.show_settings) or os.path.islink(args.show_settings)):
        raise UsageError(f"{args.show_settings}: no such file or folder")
    problem = check_rule_codes([c for v in (args.select, args.extend_select, args.ignore, args.extend_ignore)
                                if v for c in v])
    if problem:
        raise UsageError(problem)
    overrides = {"select": args.select, "extend-select": args.extend_select, "ignore": args.ignore,
                 "extend-ignore": args.extend_ignore, "exclude": args.exclude, "extend-exclude": args.extend_exclude,
                 "force-exclude": args.force_exclude, "respect-gitignore": args.respect_gitignore,
                 "project": False if args.no_project else None}
    sys.stdout.write(describe_settings(args.show_settings, args.config, args.isolated, overrides))
    return EXIT_CLEAN


def clean(paths: Sequence[str], cache_dir: Optional[str]) -> int:
    """``ms-perflint clean [PATH...]``: remove the caches of the projects at PATH (and any below it), or
    ``--cache-dir``. Only folders ms-perflint made (their CACHEDIR.TAG says so) are removed."""
    import shutil

    from ms_perflint.project.roots import project_root
    from ms_perflint.sources.discovery import skipped_folder

    folders = [cache_dir] if cache_dir else []
    for path in paths:
        if not os.path.exists(path):
            raise UsageError(f"{path}: no such file or folder")
        if cache_dir:
            continue
        root = project_root(path, os.getcwd()) or path
        folders.append(os.path.join(root, CACHE_FOLDER_NAME))
        for parent, subfolders, _ in os.walk(path):
            if CACHE_FOLDER_NAME in subfolders:
                folders.append(os.path.join(parent, CACHE_FOLDER_NAME))
            subfolders[:] = [d for d in subfolders if not skipped_folder(d)]
    removed = 0
    for folder in dict.fromkeys(_shown(f) for f in folders):
        if _made_by_us(folder):
            shutil.rmtree(folder, ignore_errors=True)
            sys.stdout.write(f"Removed {folder}\n")
            removed += 1
    if not removed:
        sys.stdout.write("No cache to remove.\n")
    return EXIT_CLEAN


def _shown(path: str) -> str:
    """A path as the user reads it: relative to the current folder when inside it."""
    relative = os.path.relpath(os.path.abspath(path))
    return relative if not relative.startswith("..") else os.path.abspath(path)


def _made_by_us(folder: str) -> bool:
    try:
        with open(os.path.join(folder, "CACHEDIR.TAG"), encoding="utf-8") as handle:
            return "ms-perflint" in handle.read()
    except OSError:
        return False


def serve() -> int:
    """``ms-perflint server``: the Language Server Protocol server, over standard input and output."""
    try:
        from ms_perflint.server import main as serve_forever
    except ImportError as error:
        raise UsageError(f"the editor server needs pygls ({error}); install it with: pip install 'ms-perflint[server]'")
    return serve_forever()
