"""flake8 plugin (entry point ``MSP``): a thin adapter over the engine.

Importing this module is cheap: no libcst until a file is actually checked with
an MSP code selected. The ms-perflint configuration of the file's project
(``[tool.ms-perflint]`` ...) supplies rule options, select/ignore and
per-file-ignores, so both front ends agree; flake8's own ``--select``/``--ignore``
still decide which MSP codes flake8 shows. (flake8 does not tell plugins about
``--isolated``, so that flag skips flake8's configuration files only.)

flake8 decides ``# noqa`` itself, so the engine is told not to; the 0-based
column is yielded and flake8 adds 1, so the output matches the CLI.
"""

from __future__ import annotations

import os
from pathlib import Path
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
        # Read the configuration here, not in run(): flake8 turns an exception raised
        # while creating the plugin into a one-line "plugin failed" message, not a traceback.
        self.settings = self._settings(codes) if codes else None

    @classmethod
    def parse_options(cls, options: Any) -> None:
        """Ask flake8's own decision engine which MSP codes are on, so ``--select E,F`` costs nothing."""
        from flake8.style_guide import Decision, DecisionEngine

        engine = DecisionEngine(options)
        cls.enabled_codes = tuple(code for code in rule_codes() if engine.decision_for(code) is Decision.Selected)

    def run(self) -> Generator[Tuple[int, int, str, type], None, None]:
        """Yield ``(line, 0-based column, "CODE message", type)`` for each finding."""
        settings = self.settings
        if settings is None or not settings.select:
            return
        from ms_perflint.engine import lint_source

        result = lint_source("".join(self.lines), self.filename, settings)
        for violation in result.violations:
            yield violation.line, violation.column, f"{violation.code} {violation.message}", type(self)

    def _settings(self, codes: Tuple[str, ...]) -> Any:
        """Engine settings: the project's ms-perflint configuration, narrowed to the codes flake8 shows.

        A bad configuration raises :class:`~ms_perflint.config.ConfigError`; flake8
        reports it as a failure of this plugin, with the message naming the file and key.
        """
        from dataclasses import replace

        from ms_perflint.config import config_for_file

        configured = config_for_file(self.filename).settings()
        enabled = tuple(code for code in codes if configured.is_enabled(code, self.filename))
        # Project mode as in the CLI (files with no pyproject.toml/setup.py/.git above them use flake8's folder),
        # unless the configuration says `project = false`.
        fallback = str(Path.cwd()) if configured.project else None
        return replace(configured, select=enabled, extend_select=(), ignore=(), per_file_ignores={}, apply_noqa=False,
                       project_fallback_root=fallback)
