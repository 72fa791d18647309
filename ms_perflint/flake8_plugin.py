"""flake8 plugin (entry point ``MSP``): a thin adapter over the engine.

Importing this module is cheap: no libcst until a file is actually checked with
an MSP code selected. The ms-perflint configuration of the file's project
(``[tool.ms-perflint]`` ...) supplies rule options, select/ignore and
per-file-ignores, so both front ends agree; flake8's own ``--select``/``--ignore``
still decide which MSP codes flake8 shows. (flake8 does not tell plugins about
``--isolated``, so that flag skips flake8's configuration files only.)

flake8 decides ``# noqa`` itself, so the check is told not to; the 0-based
column is yielded and flake8 adds 1, so the output matches the CLI. The file is
checked with its project, as the CLI checks it (one session per flake8 process
keeps the project's index). A file that cannot be checked, and a rule that failed,
are reported as ``MSP000``, so flake8 is never silent about them: a failed rule once
per flake8 process (by the first file checked that shows it), as the CLI does once per run.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar, Generator, List, Optional, Tuple

from ms_perflint import __version__

_RULES_FOLDER = os.path.join(os.path.dirname(__file__), "rules")


def rule_codes() -> List[str]:
    """Codes of all rules, read from the rule modules' file names (``msp101_*.py`` -> ``MSP101``)."""
    return sorted(
        name[:6].upper() for name in os.listdir(_RULES_FOLDER) if name.startswith("msp") and name.endswith(".py")
    )


class Plugin:
    """flake8 calls ``Plugin(tree, lines, filename).run()`` for each file.

    ``tree`` (flake8's AST) is requested only because flake8 classifies a plugin by
    its first parameter; the engine parses with libcst from ``lines``.
    """

    name = "ms-perflint"
    version = __version__
    #: Codes flake8 selected for this run; set by :meth:`parse_options`, None before.
    enabled_codes: ClassVar[Optional[Tuple[str, ...]]] = None

    def __init__(self, tree: Any, lines: List[str], filename: str) -> None:
        self.lines = lines
        self.filename = filename
        codes = self.enabled_codes if self.enabled_codes is not None else tuple(rule_codes())
        self.enabled = set(codes)
        if codes:
            # Read the configuration here, not in run(): flake8 turns an exception raised
            # while creating the plugin into a one-line "plugin failed" message, not a traceback.
            _session().settings_for(os.path.abspath(filename))

    @classmethod
    def parse_options(cls, options: Any) -> None:
        """Ask flake8's own decision engine which MSP codes are on, so ``--select E,F`` costs nothing."""
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        cls.enabled_codes = tuple(code for code in rule_codes() if engine.decision_for(code) is Decision.Selected)
        _say_what_flake8_cannot_report(options)

    def run(self) -> Generator[Tuple[int, int, str, type], None, None]:
        """Yield ``(line, 0-based column, "CODE message", type)`` for each finding."""
        if not self.enabled:
            return
        from ms_perflint.sources.noqa import file_directives

        session = _session()
        path = _checked_path(self.filename)
        text = "".join(self.lines)
        if path != os.path.abspath(self.filename) or _as_flake8_reads(_disk_text(session, path)) != _as_flake8_reads(text):
            session.overlay[path] = text.encode("utf-8")  # standard input, or an editor's unsaved buffer
        try:
            result = session.check([path])[0]
        finally:
            session.overlay.pop(path, None)
        if result.error is not None:
            error = result.error
            yield (*_place(text, error.cell, error.line, error.column), f"MSP000 {error.kind}: {error.message}",
                   type(self))
        # flake8 decides `# noqa` and `# flake8: noqa`; `# ms-perflint: noqa[: codes]` is ours to honour.
        directives = file_directives(self.lines)
        for finding in result.findings:
            if finding.code == "MSP000" or (finding.code in self.enabled
                                            and not directives.skips(finding.code, honour_flake8=False)):
                where = f"(cell {finding.cell}, line {finding.line}) " if finding.cell else ""
                yield (*_place(text, finding.cell, finding.line, finding.column),
                       f"{finding.code} {where}{finding.message}", type(self))


def _say_what_flake8_cannot_report(options: Any) -> None:
    """A code the user selected by name that only the ``ms-perflint`` command reports (MSP001: flake8 decides
    ``# noqa`` itself, so the plugin never sees a suppression) is said once per run, on standard error.

    flake8 has no channel for a plugin's notes (its log shows only with ``-v``, and a violation belongs to a
    file): ``parse_options`` runs once in flake8's main process -- and again in each worker where workers are
    spawned rather than forked, which stays silent.
    """
    named = [code.strip().upper() for option in ("select", "extend_select", "enable_extensions")
             for code in (getattr(options, option, None) or ())]
    if "MSP001" not in named:  # written out: run.lint (its UNUSED_NOQA) is imported only when it is named
        return
    import multiprocessing
    import sys

    from ms_perflint.run.lint import UNUSED_NOQA

    if multiprocessing.parent_process() is None:
        print(f"ms-perflint: {UNUSED_NOQA} (unused-noqa) is reported by the ms-perflint command only: flake8 applies "
              f"`# noqa` itself; run `ms-perflint --select {UNUSED_NOQA} PATH` to find unused suppressions",
              file=sys.stderr)


def _checked_path(filename: str) -> str:
    """The absolute path checked for flake8's ``filename``; standard input (``-``/``stdin``) is ``stdin.py`` here."""
    if filename in ("-", "stdin") and not os.path.exists(filename):
        return os.path.abspath("stdin.py")
    return os.path.abspath(filename)


def _place(text: str, cell: Optional[int], line: int, column: int) -> Tuple[int, int]:
    """flake8's position (line, 0-based column) for a finding; a notebook cell's line is found in the JSON."""
    if cell is None:
        return line, column
    from ms_perflint.sources.notebook import json_position

    return json_position(text, cell, line) or (1, 0)


#: One session per flake8 process: it keeps the project indexes its files share.
_SESSIONS: List[Any] = []


def _session() -> Any:
    if not _SESSIONS:
        from ms_perflint.project.roots import project_root
        from ms_perflint.run.session import Session, SessionOptions

        here = os.getcwd()
        root = project_root(here, here) or here  # the home folder is no project, but the cache has to go somewhere
        options = SessionOptions(overrides={"apply_noqa": False}, cache_folder=os.path.join(root, ".ms_perflint_cache"),
                                 jobs=1, working_folder=here)
        _SESSIONS.append(Session(options))
    return _SESSIONS[0]


def _as_flake8_reads(text: Optional[str]) -> Optional[str]:
    """``text`` as flake8 hands a file over: universal newlines, no byte-order mark.

    A file saved with CRLF line ends is the file on disk, not an unsaved buffer: compared as written,
    every such file would be checked as an overlay, deciding the whole project's rules again for it.
    """
    if text is None:
        return None
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _disk_text(session: Any, path: str) -> Optional[str]:
    from ms_perflint.sources import decode_python

    data = session.read(path)
    if not isinstance(data, bytes):
        return None
    try:
        return decode_python(data).text
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return None
