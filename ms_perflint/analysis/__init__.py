"""Analysis: one pass per file that turns a :class:`~ms_perflint.sources.Unit` into facts.

:func:`analyse` is the one extractor both per-file linting and the project index use:
Python files and notebooks go through one libcst pass
(:mod:`~ms_perflint.analysis.python`), YAML configs and launch scripts through
:mod:`~ms_perflint.analysis.configs`. The facts are plain data (``to_json``), so a
project's index stores them and the rules never need the tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from ms_perflint.findings import FileError
from ms_perflint.sources import JSON, NOTEBOOK, PYTHON, SHELL, YAML, Unit

if TYPE_CHECKING:  # the facts' classes load with the analysis itself: a cached run needs neither
    from ms_perflint.analysis.facts import PythonFacts, ShellFacts, YamlFacts

    Facts = Union[PythonFacts, YamlFacts, ShellFacts]


def analyse(unit: Unit, module_name: str, is_package: bool = False) -> Union["Facts", FileError]:
    """The facts of a loaded unit, or the error that kept it from being read."""
    if unit.error is not None:
        return unit.error
    if unit.kind in (PYTHON, NOTEBOOK):
        facts = analyse_python(unit.text, module_name, is_package)
        if unit.kind == NOTEBOOK and not isinstance(facts, FileError):
            facts.recorded_device = getattr(unit.notebook, "recorded_device", "")
            facts.recorded_release = getattr(unit.notebook, "recorded_release", "")
        return facts
    if unit.kind == YAML:
        from ms_perflint.analysis.configs import extract_yaml

        facts = extract_yaml(unit.text)
        if facts.error is not None:
            return FileError("YamlError", facts.error, facts.error_line)
        return facts
    if unit.kind == JSON:
        from ms_perflint.analysis.configs import extract_yaml

        facts = extract_yaml(unit.text)  # JSON is YAML; a JSON file YAML cannot read gives no config values
        return facts if facts.error is None else type(facts)()
    if unit.kind == SHELL:
        from ms_perflint.analysis.configs import extract_shell

        return extract_shell(unit.text)
    return FileError("ReadError", f"not a kind of file ms-perflint reads: {unit.kind}")


def analyse_python(text: str, module_name: str, is_package: bool = False) -> Union["PythonFacts", FileError]:
    """Parse ``text`` with libcst and record its facts; invalid or hostile input comes back as an error."""
    import libcst as cst

    from ms_perflint.analysis.parser import parse_module
    from ms_perflint.analysis.python import extract_python
    from ms_perflint.sources.guard import nesting_error, python_syntax_error, too_deep_error

    error = nesting_error(text)  # deep enough to crash or stall libcst's parser
    if error is not None:
        return error
    try:
        module = parse_module(text)
    except cst.ParserSyntaxError as problem:
        message = str(problem).splitlines()[0] if str(problem) else "invalid syntax"
        return python_syntax_error(text) or FileError("SyntaxError", message, problem.raw_line, problem.raw_column)
    except (RecursionError, MemoryError):
        return FileError("SyntaxError", "file is too deeply nested to parse")
    try:
        return extract_python(module, text, module_name, is_package)
    except RecursionError:  # a tree too deep for Python's stack, though not deep enough for the guard
        return too_deep_error()


def module_name(relative: str) -> str:
    """``src/model.py`` -> ``src.model``; ``src/__init__.py`` -> ``src``; other kinds keep their path."""
    if not relative.endswith((".py", ".ipynb")):
        return relative
    stem = relative.rsplit(".", 1)[0]
    parts = [part for part in stem.split("/") if part]
    if parts and parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)
