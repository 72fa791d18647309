"""Configuration files: ``[tool.ms-perflint]`` in pyproject.toml, ``[ms-perflint]`` in setup.cfg or tox.ini.

Finding the file (as ruff does): starting at a folder, the first folder, going
up, that has one of :data:`CONFIG_FILES` *with our table* wins; inside one
folder pyproject.toml comes before setup.cfg, then tox.ini. Files without our
table are passed over, so a project's plain pyproject.toml does not hide the
setup.cfg that configures us.

Every key is declared once, in :data:`KEYS`, or -- for rule options such as
``alignment`` -- in the rule's own :class:`~ms_perflint.rule.Option`. Parsing,
validation, error messages and the configuration reference in docs/usage.md are
all driven by those declarations. A bad value raises :class:`ConfigError` whose
message names the file, the key and what is allowed.

Importing this module is cheap (no libcst): the flake8 plugin loads it for every run.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ms_perflint import __version__
from ms_perflint.settings import DEFAULT_MAX_FILE_SIZE, DEFAULT_SELECT, Settings

#: Searched in every folder, in this order of precedence.
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini")
#: The section name in setup.cfg / tox.ini (and in any other ``.cfg``/``.ini`` given with ``--config``).
INI_SECTION = "ms-perflint"
#: The table in a TOML file: ``[tool.ms-perflint]``.
TOML_TABLE = ("tool", "ms-perflint")

#: Folders and files skipped while walking folders unless ``exclude`` replaces this list.
DEFAULT_EXCLUDE: Tuple[str, ...] = (
    ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".ms_perflint_cache", ".nox", ".pytest_cache",
    ".ruff_cache", ".svn", ".tox", ".venv", "__pycache__", "build", "dist", "node_modules", "venv", "*.egg-info",
)

_CODE_OR_PREFIX = re.compile(r"MSP[0-9]{0,3}")


class ConfigError(Exception):
    """A configuration file or value that cannot be used. The message is meant for the user as is."""


class _BadValue(Exception):
    """A value of the wrong shape; the message says what was expected."""


# --------------------------------------------------------------------------- keys


@dataclass(frozen=True)
class Key:
    """A configuration key: its name in the file, how its value is read, its default, its help."""

    name: str
    kind: str
    default: Any
    help: str
    #: A TOML value shown in the configuration reference.
    example: str


CODES, GLOBS, BOOL, PER_FILE, VERSION, SIZE, RELEASE = (
    "codes", "globs", "bool", "per-file-ignores", "version", "size", "release")

KEYS: Tuple[Key, ...] = (
    Key("select", CODES, DEFAULT_SELECT,
        "Codes or prefixes to enable. The most specific of `select` and `ignore` wins.",
        '["MSP1"]'),
    Key("extend-select", CODES, (), "Codes or prefixes to enable on top of `select`.", '["MSP103"]'),
    Key("ignore", CODES, (), "Codes or prefixes to disable.", '["MSP104"]'),
    Key("extend-ignore", CODES, (), "Codes or prefixes to disable on top of `ignore`.", '["MSP102"]'),
    Key("per-file-ignores", PER_FILE, {},
        "Codes to ignore in files whose path matches a glob (matched against the whole path, "
        "any trailing part of it, or the file name).",
        '{ "tests/*" = ["MSP103"], "scripts/convert_*.py" = ["MSP1"] }'),
    Key("fixable", CODES, DEFAULT_SELECT,
        "Codes or prefixes whose fixes `--fix` may apply (and `[*]` marks).", '["MSP103"]'),
    Key("unfixable", CODES, (),
        "Codes or prefixes whose fixes are never applied: their findings are reported without `[*]`. "
        "The most specific of `fixable` and `unfixable` wins.", '["MSP104"]'),
    Key("exclude", GLOBS, DEFAULT_EXCLUDE,
        "Files and folders skipped while walking folders, as globs matched against the name and "
        "the path relative to the project root (the folder of the config file). Setting it "
        "replaces the default list; use `extend-exclude` to add to it.",
        '["build", "third_party"]'),
    Key("extend-exclude", GLOBS, (), "Globs skipped on top of `exclude`.", '["examples/legacy/*"]'),
    Key("force-exclude", BOOL, False,
        "Apply `exclude`, `extend-exclude` and `.gitignore` to files named on the command line "
        "too (pre-commit passes every changed file by name).",
        "true"),
    Key("respect-gitignore", BOOL, True,
        "Skip files that git ignores (asks `git check-ignore` once per run; outside a git work "
        "tree, or without git, nothing is skipped).",
        "false"),
    Key("project", BOOL, True,
        "Lint each file with its project: facts from the other files, YAML configs and launch "
        "scripts of the nearest folder with pyproject.toml, setup.py, setup.cfg, tox.ini or .git, else of the current folder "
        "(docs/project.md). "
        "`false` lints every file on its own, in the CLI (as `--no-project` does) and in flake8.",
        "false"),
    Key("max-file-size", SIZE, DEFAULT_MAX_FILE_SIZE,
        "Files larger than this many bytes are not checked, and say so (`0`: no limit). Parsing needs about "
        "540 MB of memory per MB of source (libcst 1.9), so the default, 2 MB, keeps a run under about 1.1 GB "
        "per worker; a notebook's limit applies to its code cells, not to its JSON.",
        "4000000"),
    Key("required-version", VERSION, None,
        "Fail (exit 2) unless the running ms-perflint satisfies this PEP 440 version specifier, as pip reads "
        "it: e.g. `>=0.1`, `==0.1.*`, `~=0.1` or `>=0.1,<0.3` (a bare version such as `0.1.0` means `==`).",
        '">=0.1"'),
    Key("mindspore-version", RELEASE, None,
        "The MindSpore release the project runs on, a PEP 440 version such as `2.3.1`. Rules whose facts changed "
        "between releases read it (MSP202: the default execution mode is PyNative since 2.0). When not set it is "
        "inferred, the way ruff infers its target from `requires-python`, from the requirements on `mindspore` in "
        "`requirements.txt`, `pyproject.toml` `[project] dependencies` and `setup.py` `install_requires` in the "
        "configuration file's folder (without one, the project root): a pin gives its release, a range its lowest "
        "allowed release (`>=2.2,<2.4` gives 2.2). Requirements that conflict or set no lower bound leave it "
        "unknown, and a rule then takes the reading that cannot be a false alarm. `--show-settings` shows where the "
        "value came from.",
        '"2.3.1"'),
)
KEYS_BY_NAME: Dict[str, Key] = {key.name: key for key in KEYS}


def rule_options() -> Dict[str, Tuple[str, Any]]:
    """Every rule option as ``{name: (rule code, Option)}``, read from the rules' declarations."""
    from ms_perflint.rules import ALL_RULES  # late: the rule modules import libcst

    return {option.name: (rule.code, option) for rule in ALL_RULES for option in rule.options}


def known_keys() -> List[str]:
    """All keys a config table may hold."""
    return [*KEYS_BY_NAME, *rule_options()]


# --------------------------------------------------------------------------- the resolved configuration


@dataclass(frozen=True)
class Config:
    """The configuration of one run (or, for flake8, of one file's project)."""

    #: The file it was read from; None with defaults only.
    source: Optional[Path]
    #: Relative ``exclude`` globs are matched from here: the config file's folder, else the current folder.
    root: Path
    select: Tuple[str, ...] = DEFAULT_SELECT
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    extend_ignore: Tuple[str, ...] = ()
    per_file_ignores: Mapping[str, Tuple[str, ...]] = field(default_factory=dict)
    fixable: Tuple[str, ...] = DEFAULT_SELECT
    unfixable: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    project: bool = True
    required_version: Optional[str] = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    rule_options: Mapping[str, Any] = field(default_factory=dict)
    mindspore_version: Optional[str] = None
    #: Where an inferred ``mindspore_version`` came from, or why none was inferred ("" when the file sets it).
    mindspore_version_source: str = ""

    def settings(self, **overrides: Any) -> Settings:
        """Settings from this configuration; ``overrides`` replace fields (None: keep).

        ``extend_ignore`` (from the file and from ``overrides``) adds to ``ignore``.
        """
        values: Dict[str, Any] = dict(
            select=self.select,
            extend_select=self.extend_select,
            ignore=self.ignore,
            per_file_ignores=dict(self.per_file_ignores),
            rule_options=dict(self.rule_options),
            project=self.project,
            max_file_size=self.max_file_size or None,
            fixable=self.fixable,
            unfixable=self.unfixable,
            mindspore_version=self.mindspore_version,
            mindspore_version_source=self.mindspore_version_source if self.mindspore_version else "",
        )
        extend_ignore = tuple(overrides.pop("extend_ignore", None) or ())
        values.update({name: value for name, value in overrides.items() if value is not None})
        values["ignore"] = tuple(values["ignore"]) + self.extend_ignore + extend_ignore
        return Settings(**values)

    def overridden(self, **values: Any) -> "Config":
        """A copy with some keys replaced (command-line flags over the file); None keeps the file's value."""
        return replace(self, **{name: value for name, value in values.items() if value is not None})

    def is_excluded(self, path: str) -> bool:
        """Does an ``exclude``/``extend-exclude`` glob match this file or folder?"""
        patterns = [pattern.strip().rstrip("/").replace("\\", "/") for pattern in (*self.exclude, *self.extend_exclude)]
        patterns = [pattern[2:] if pattern.startswith("./") else pattern for pattern in patterns if pattern]
        if not patterns:
            return False
        absolute = os.path.abspath(path)
        candidates = {os.path.basename(absolute), absolute.replace(os.sep, "/")}
        relative = _relative_to(absolute, self.root)
        if relative is not None:
            candidates.add(relative)
        return any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates for pattern in patterns)

    def is_excluded_with_parents(self, path: str) -> bool:
        """:meth:`is_excluded` for a path named on the command line: the path or a folder above it (up to the root)."""
        absolute = Path(os.path.abspath(path))
        inside_root = [folder for folder in absolute.parents if self.root in folder.parents]
        return any(self.is_excluded(str(candidate)) for candidate in (absolute, *inside_root))


def _relative_to(absolute: str, root: Path) -> Optional[str]:
    try:
        return Path(absolute).relative_to(root).as_posix()
    except ValueError:
        return None


# --------------------------------------------------------------------------- finding and reading files


def find_config_file(start: Path) -> Optional[Path]:
    """The nearest file at or above ``start`` (a folder, or a file whose folder is used) that configures us."""
    return search_config_file(start)[0]


def search_config_file(start: Path) -> Tuple[Optional[Path], List[Path]]:
    """:func:`find_config_file`, and the nearer configuration files passed over because they lack our table."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    found, passed_over = _nearest_config(str(folder))
    return (Path(found) if found is not None else None), [Path(path) for path in passed_over]


@lru_cache(maxsize=1 << 14)
def _nearest_config(folder: str) -> Tuple[Optional[str], Tuple[str, ...]]:
    """:func:`search_config_file` of a resolved folder: each folder is looked at once, its parent's answer reused
    (a run asks for every folder of a tree; :func:`forget` clears the answers)."""
    passed_over: List[str] = []
    for name in CONFIG_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            if read_table(Path(path)) is not None:
                return path, tuple(passed_over)
            passed_over.append(path)
    parent = os.path.dirname(folder)
    if parent == folder:
        return None, tuple(passed_over)
    found, further = _nearest_config(parent)
    return found, (*passed_over, *further)


def read_table(path: Path) -> Optional[Dict[str, Any]]:
    """The raw ms-perflint table of ``path`` (TOML values typed, INI values strings); None when absent."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read configuration file: {_describe(error)}") from None
    if "ms-perflint" not in text:
        return None  # cheap: most pyproject.toml files never mention us
    if path.suffix == ".toml":
        return _read_toml_table(path, text)
    return _read_ini_section(path, text)


def _read_toml_table(path: Path, text: str) -> Optional[Dict[str, Any]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python < 3.11 only
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per level: a few hundred nested arrays or tables exhaust the stack
        raise ConfigError(f"{path}: cannot read: values nested too deeply for Python's TOML reader") from None
    table: Any = data
    for part in TOML_TABLE:
        if not isinstance(table, dict) or part not in table:
            return None
        table = table[part]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.ms-perflint] must be a table, not {_toml_type(table)}")
    return table


def _read_ini_section(path: Path, text: str) -> Optional[Dict[str, Any]]:
    import configparser  # late: most projects configure us in pyproject.toml

    parser = configparser.RawConfigParser()
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep the key as written
    try:
        parser.read_string(text, source=str(path))
    except configparser.Error as error:
        raise ConfigError(f"{path}: invalid INI syntax: {' '.join(str(error).split())}") from None
    if not parser.has_section(INI_SECTION):
        return None
    return dict(parser.items(INI_SECTION))


def load_config(path: Path, explicit: bool = False) -> Config:
    """Read and validate the configuration in ``path``; raises :class:`ConfigError`."""
    path = path.resolve() if path.exists() else path
    if path.is_dir():
        names = ", ".join(CONFIG_FILES)
        raise ConfigError(f"{path}: is a folder, not a configuration file; name the file in it ({names})")
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    if explicit and path.suffix not in (".toml", ".cfg", ".ini"):
        raise ConfigError(f"{path}: unknown configuration file type; use a .toml, .cfg or .ini file")
    table = read_table(path)
    if table is None:
        where = "[tool.ms-perflint] table" if path.suffix == ".toml" else f"[{INI_SECTION}] section"
        raise ConfigError(f"{path}: has no {where}")
    return with_inferred_version(parse_table(table, path), path.parent)


def parse_table(table: Mapping[str, Any], path: Path) -> Config:
    """Validate a raw table into a :class:`Config` rooted at ``path``'s folder."""
    is_ini = path.suffix != ".toml"
    section = f"[{INI_SECTION}]" if is_ini else "[tool.ms-perflint]"
    options = rule_options()
    values: Dict[str, Any] = {}
    chosen_options: Dict[str, Any] = {}
    for raw_name, raw_value in table.items():
        name = raw_name.replace("_", "-") if is_ini else raw_name
        where = f"{path}: {section} {raw_name}"
        try:
            if name in KEYS_BY_NAME:
                values[name.replace("-", "_")] = _parse_key(KEYS_BY_NAME[name], raw_value, is_ini)
            elif name in options:
                chosen_options[name] = _parse_option(options[name][1], raw_value, is_ini)
            else:
                raise ConfigError(_unknown_key_message(path, section, raw_name))
        except _BadValue as bad:
            raise ConfigError(f"{where}: {bad}") from None
    config = Config(source=path, root=path.parent, rule_options=chosen_options, **values)
    if config.required_version is not None and not version_satisfies(__version__, config.required_version):
        raise ConfigError(
            f"{path}: {section} required-version: ms-perflint {__version__} does not satisfy "
            f"{config.required_version!r}; install a matching version"
        )
    return config


def _unknown_key_message(path: Path, section: str, name: str) -> str:
    import difflib

    known = known_keys()
    close = difflib.get_close_matches(name.replace("_", "-"), known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{path}: {section} unknown key {name!r}{hint} Known keys: {', '.join(sorted(known))}"


# --------------------------------------------------------------------------- values


def _parse_key(key: Key, raw: Any, is_ini: bool) -> Any:
    parse: Callable[[Any, bool], Any] = {
        CODES: _parse_codes,
        GLOBS: _parse_globs,
        BOOL: _parse_bool,
        PER_FILE: _parse_per_file_ignores,
        VERSION: _parse_version,
        SIZE: _parse_size,
        RELEASE: _parse_release,
    }[key.kind]
    return parse(raw, is_ini)


def _parse_codes(raw: Any, is_ini: bool) -> Tuple[str, ...]:
    items = _string_list(raw, is_ini, "a list of codes or prefixes such as [\"MSP103\", \"MSP1\"]")
    return _checked_codes(items)


def _checked_codes(items: Sequence[str], where: str = "") -> Tuple[str, ...]:
    codes = tuple(item.strip().upper() for item in items)
    problem = check_rule_codes(codes)
    if problem:
        raise _BadValue(where + problem)
    return codes


def check_rule_codes(codes: Sequence[str]) -> Optional[str]:
    """Why some of ``codes`` (codes or prefixes, upper case) name no rule, or None (as ruff: an unknown code is an
    error). One sentence, naming the real codes, for every code the user gets wrong wherever it is written
    (``--select``, ``--ignore`` ..., ``select``, ``per-file-ignores`` ... in a configuration file)."""
    if not codes:
        return None
    from ms_perflint.rules import ALL_RULES

    known = [rule.code for rule in ALL_RULES]
    unknown = [code for code in codes
               if not _CODE_OR_PREFIX.fullmatch(code) or not any(k.startswith(code) for k in known)]
    if not unknown:
        return None
    return f"unknown rule code or prefix {', '.join(repr(c) for c in unknown)}; known codes: {', '.join(known)}"


def _parse_size(raw: Any, is_ini: bool) -> int:
    value = raw
    if is_ini and isinstance(raw, str) and raw.strip().isdigit():
        value = int(raw.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _BadValue(f"expected a number of bytes (0 or more), got {_shown(raw)}")
    return value


def _parse_globs(raw: Any, is_ini: bool) -> Tuple[str, ...]:
    return tuple(_string_list(raw, is_ini, "a list of glob strings such as [\"build\", \"tests/data/*\"]"))


def _string_list(raw: Any, is_ini: bool, expected: str) -> List[str]:
    if is_ini:
        return [item for item in re.split(r"[,\s]+", raw) if item]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        raise _BadValue(f"expected {expected}, got {_shown(raw)}")
    return list(raw)


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _parse_bool(raw: Any, is_ini: bool) -> bool:
    if is_ini and raw.strip().lower() in _TRUE + _FALSE:
        return raw.strip().lower() in _TRUE
    if isinstance(raw, bool):
        return raw
    allowed = "true or false" if not is_ini else "true/false, yes/no, on/off or 1/0"
    raise _BadValue(f"expected {allowed}, got {_shown(raw) if not is_ini else _clipped(repr(raw))}")


def _parse_per_file_ignores(raw: Any, is_ini: bool) -> Dict[str, Tuple[str, ...]]:
    if is_ini:
        pairs = _parse_ini_per_file_ignores(raw)
    elif isinstance(raw, dict):
        pairs = []
        for pattern, codes in raw.items():
            if not isinstance(codes, list) or not all(isinstance(code, str) for code in codes):
                raise _BadValue(f"{pattern!r}: expected a list of codes such as [\"MSP103\"], got {_shown(codes)}")
            pairs.append((pattern, codes))
    else:
        raise _BadValue(f"expected a table of glob = [codes], e.g. {{ \"tests/*\" = [\"MSP103\"] }}, got {_shown(raw)}")
    result: Dict[str, Tuple[str, ...]] = {}
    for pattern, codes in pairs:
        result[pattern] = result.get(pattern, ()) + _checked_codes(codes, f"{pattern!r}: ")
    return result


def _parse_ini_per_file_ignores(raw: str) -> List[Tuple[str, List[str]]]:
    """flake8's format: ``glob[, glob]: code[, code]`` groups, separated by whitespace or new lines."""
    pairs: List[Tuple[str, List[str]]] = []
    globs: List[str] = []
    codes: List[str] = []
    after_colon = False
    for token in re.findall(r"[^\s,:]+|:", raw):
        if token == ":":
            if not globs or after_colon:
                raise _BadValue(f"expected `glob: CODE, CODE` groups (flake8's format), got {raw!r}")
            after_colon = True
        elif after_colon and (_CODE_OR_PREFIX.fullmatch(token.upper()) or not codes):
            codes.append(token)
        else:
            if after_colon:
                pairs.extend((glob, codes) for glob in globs)
                globs, codes, after_colon = [], [], False
            globs.append(token)
    if globs and not codes:
        raise _BadValue(f"expected `glob: CODE, CODE` groups (flake8's format), got {raw!r}")
    pairs.extend((glob, codes) for glob in globs)
    return pairs


def _parse_version(raw: Any, is_ini: bool) -> str:
    if not isinstance(raw, str):
        raise _BadValue(f"expected a version specifier string such as \">=0.1\", got {_shown(raw)}")
    if _specifier_set(raw) is None:
        raise _BadValue(
            f"{_clipped(repr(raw))} is not a version specifier (PEP 440); use e.g. \">=0.1\", \"==0.1.*\", "
            "\"~=0.1\" or \">=0.1,<0.3\""
        )
    return raw.strip()


def _parse_release(raw: Any, is_ini: bool) -> str:
    """A release number (PEP 440): ``2.3.1``, ``2.3``, ``2.0.0rc1`` -- not a specifier."""
    from packaging.version import InvalidVersion, Version

    if not isinstance(raw, str):
        raise _BadValue(f"expected a MindSpore release as a string such as \"2.3.1\", got {_shown(raw)}")
    try:
        return str(Version(raw.strip()))
    except InvalidVersion:
        raise _BadValue(f"{_clipped(repr(raw))} is not a release number (PEP 440); use e.g. \"2.3.1\" or \"2.2\"") \
            from None


def with_inferred_version(config: Config, folder: Path) -> Config:
    """``config`` with ``mindspore-version`` inferred from the requirements in ``folder`` when the file does not set it."""
    if config.mindspore_version is not None:
        return config
    from ms_perflint.project.requirements import infer_mindspore_version

    inferred = infer_mindspore_version(folder)
    return replace(config, mindspore_version=inferred.version, mindspore_version_source=inferred.source)


def _parse_option(option: Any, raw: Any, is_ini: bool) -> Any:
    """A rule option's value, checked against its declared choices or its default's type."""
    if is_ini:
        raw = _ini_value_like(option.default, raw)
    if option.choices:
        for choice in option.choices:
            if raw == choice or (isinstance(raw, str) and isinstance(choice, str) and raw.lower() == choice.lower()):
                return choice
        allowed = ", ".join(_toml_repr(choice) for choice in option.choices)
        raise _BadValue(f"{_shown(raw)} is not allowed; allowed values: {allowed}")
    expected = type(option.default)
    if expected is bool:
        valid = isinstance(raw, bool)
    elif expected is int:
        valid = isinstance(raw, int) and not isinstance(raw, bool)
    elif expected is float:
        valid = isinstance(raw, (int, float)) and not isinstance(raw, bool)
    else:
        valid = isinstance(raw, expected)
    if not valid:
        raise _BadValue(f"expected {_type_word(expected)} (default {_toml_repr(option.default)}), got {_shown(raw)}")
    if option.minimum is not None and raw < option.minimum:
        raise _BadValue(f"must be at least {_toml_repr(option.minimum)}, got {_shown(raw)}")
    return raw


def _ini_value_like(default: Any, raw: str) -> Any:
    """Convert an INI string to the type of ``default`` where it reads as one; else leave the string."""
    text = raw.strip()
    if isinstance(default, bool):
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else text
    if isinstance(default, int):
        return int(text) if re.fullmatch(r"[+-]?[0-9]+", text) else text
    if isinstance(default, float):
        try:
            return float(text)
        except ValueError:
            return text
    return text


def _type_word(kind: type) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(kind, kind.__name__)


def _toml_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "a table" if isinstance(value, dict) else type(value).__name__


def _toml_repr(value: Any, depth: int = 0) -> str:
    """A value as the user wrote it in TOML (nesting past :data:`_SHOWN_DEPTH` levels is shown as ``...``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple, dict)) and depth >= _SHOWN_DEPTH:
        return "[...]" if not isinstance(value, dict) else "{...}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_repr(item, depth + 1) for item in value) + "]"
    if isinstance(value, dict):
        items = ", ".join(f"{_toml_repr(k)} = {_toml_repr(v, depth + 1)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    return str(value)


#: Error messages quote a bad value this deep and this long at most: a hostile file must not flood the terminal.
_SHOWN_DEPTH = 4
_SHOWN_LENGTH = 120


def _shown(value: Any) -> str:
    """A bad value as an error message quotes it: in TOML, cut short."""
    return _clipped(_toml_repr(value))


def _clipped(text: str) -> str:
    return text if len(text) <= _SHOWN_LENGTH else text[: _SHOWN_LENGTH - 3] + "..."


def _describe(error: Exception) -> str:
    return getattr(error, "strerror", None) or str(error)


def version_satisfies(version: str, specifier: str) -> bool:
    """Does ``version`` satisfy the PEP 440 ``specifier`` (``>=0.1``, ``==0.1.*``, ``~=0.1``, ``>=0.1,<0.3``)?

    A clause that is a bare version (``0.1.0``) means ``==``, as in ruff's
    ``required-version``. Pre-releases of ms-perflint count as their version
    (``0.2.0rc1`` satisfies ``>=0.1``). An invalid specifier is satisfied by nothing.
    """
    from packaging.version import InvalidVersion, Version

    specifiers = _specifier_set(specifier)
    if specifiers is None:
        return False
    try:
        return specifiers.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def _specifier_set(text: str) -> Any:
    """``text`` as a :class:`packaging.specifiers.SpecifierSet`, or None when it is not one.

    packaging is imported here, not at the top: the flake8 plugin imports this
    module on every run, and only a configuration with ``required-version`` needs it.
    """
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    clauses = [clause.strip() for clause in text.split(",")]
    if not all(clauses):
        return None  # "", ">=0.1,", ",": packaging would accept an empty clause as "any version"
    clauses = ["==" + clause if clause[0].isdigit() else clause for clause in clauses]
    try:
        return SpecifierSet(",".join(clauses))
    except InvalidSpecifier:
        return None


# --------------------------------------------------------------------------- entry points for the front ends


def resolve_config(start: Optional[str] = None, config_file: Optional[str] = None, isolated: bool = False) -> Config:
    """The configuration of a CLI run: ``--isolated`` (defaults), ``--config FILE``, or the nearest file to ``start``."""
    cwd = Path.cwd()
    if isolated:
        return Config(source=None, root=cwd, mindspore_version_source=ISOLATED_VERSION)
    if config_file is not None:
        return load_config(Path(config_file), explicit=True)
    found = find_config_file(Path(start) if start else cwd)
    if found is None:
        return _defaults_for(Path(start) if start else cwd, cwd)
    status = found.stat()
    return _shared_config(found, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=256)
def _shared_config(path: Path, mtime_ns: int, size: int) -> Config:
    """:func:`load_config` of the file that configures a folder, read once for every folder under it (as long as
    the file keeps its size and modification time)."""
    return load_config(path)


#: Why ``--isolated`` knows no MindSpore release: it reads no project files.
ISOLATED_VERSION = "not inferred: --isolated reads no project files"


def _defaults_for(start: Path, cwd: Path) -> Config:
    """The configuration without a file: defaults, with ``mindspore-version`` inferred at the project root of ``start``."""
    from ms_perflint.project.roots import NO_ROOT_TEXT, project_root

    root = project_root(str(start), str(cwd))
    if root is None:
        return replace(Config(source=None, root=cwd), mindspore_version_source=f"not inferred: no project root for "
                       f"{_folder_of(start)} ({NO_ROOT_TEXT})")
    return _defaults_at_root(root, str(cwd))


@lru_cache(maxsize=256)
def _defaults_at_root(root: str, cwd: str) -> Config:
    """:func:`_defaults_for` in a project, once per root in a run (the requirements are read to infer the release)."""
    return with_inferred_version(Config(source=None, root=Path(cwd)), Path(root))


@lru_cache(maxsize=1 << 14)
def config_for_folder(folder: str) -> Config:
    """The configuration of the project a folder belongs to (cached: flake8 asks for every file)."""
    return resolve_config(start=folder)


def forget() -> None:
    """Read the disk again: configuration files, project roots and requirements may have changed since."""
    from ms_perflint.project import roots

    for cached in (config_for_folder, _nearest_config, _shared_config, _defaults_at_root):
        cached.cache_clear()
    roots.forget()


def config_for_file(filename: str) -> Config:
    """The configuration that applies to a file (or a folder: the nearest at or above the folder itself).

    flake8's ``stdin`` (and ``-``) uses the current folder.
    """
    if filename in ("-", "stdin") and not os.path.exists(filename):
        return config_for_folder(os.getcwd())
    absolute = os.path.abspath(filename)
    return config_for_folder(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))


# --------------------------------------------------------------------------- what applies to one file

#: Keys the command line can set (``--select`` ...), by their configuration name.
COMMAND_LINE_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude", "extend-exclude",
                     "force-exclude", "respect-gitignore", "project")


def describe_settings(path: str, config_file: Optional[str] = None, isolated: bool = False,
                      overrides: Optional[Mapping[str, Any]] = None) -> str:
    """What applies to ``path`` (a file or folder), as text for ``--show-settings``.

    Names the configuration file used (and nearer files passed over because they
    have no ms-perflint table), then every key -- rule options included -- with its
    value in TOML and where the value comes from: the file, ``default``, or
    ``command line``. Ends with the rules on and off for this path and whether
    walking a folder skips it. ``config_file``/``isolated`` are ``--config``/``--isolated``;
    ``overrides`` are command-line values by key name (``"extend-select"`` or
    ``"extend_select"``; None: not given). Raises :class:`ConfigError` for a bad configuration.
    """
    given = {name.replace("_", "-"): value for name, value in (overrides or {}).items() if value is not None}
    unknown = sorted(set(given) - set(COMMAND_LINE_KEYS))
    if unknown:
        raise ValueError(f"not command-line keys: {', '.join(unknown)}")
    config, lines = _described_config(Path(path), config_file, isolated)
    lines += ["", "# every key: its value, and where the value comes from"]
    rows = _setting_rows(config, given)
    width = min(_ALIGN_AT, max(len(f"{name} = {value}") for name, value, _ in rows))
    lines += [f"{name} = {value}".ljust(width) + f"  # {source}" for name, value, source in rows]
    lines += [""] + _effect_on(path, config, given)
    return "\n".join(lines) + "\n"


#: Command-line keys that change the settings (the rest change the configuration: excludes, project mode).
_SETTINGS_KEYS = ("select", "extend-select", "ignore", "extend-ignore")


def _setting_rows(config: Config, given: Mapping[str, Any]) -> List[Tuple[str, str, str]]:
    """``(key, value as TOML, source)`` for every key and rule option."""
    written = _keys_in(config.source)
    rows = []
    for key in KEYS:
        value = getattr(config, key.name.replace("-", "_"))
        source = str(config.source) if key.name in written else "default"
        if key.name == "mindspore-version" and key.name not in written and config.mindspore_version_source:
            inferred = config.mindspore_version_source
            source = inferred if config.mindspore_version is not None else f"default ({inferred})"
        if key.name in given:
            value, source = _with_command_line(key.name, value, source, given[key.name])
        rows.append((key.name, _setting_text(value), source))
    for name, (code, option) in sorted(rule_options().items()):
        source = str(config.source) if name in written else "default"
        rows.append((name, _toml_repr(config.rule_options.get(name, option.default)), f"{source} ({code} option)"))
    return rows


def _effect_on(path: str, config: Config, given: Mapping[str, Any]) -> List[str]:
    """What the configuration and the command line mean for ``path``: rules on and off, project, excludes."""
    settings = config.settings(**{name.replace("-", "_"): tuple(given[name]) for name in _SETTINGS_KEYS
                                  if name in given})
    config = config.overridden(**{name.replace("-", "_"): value for name, value in given.items()
                                  if name not in _SETTINGS_KEYS})
    excluded = config.is_excluded_with_parents(path)
    return [*_rules_for(settings, path), _project_line(path, config.project),
            "Skipped when a folder above it is checked (exclude, extend-exclude): "
            + ("yes; checked when named, unless force-exclude" if excluded else "no")]


#: Sources are aligned after this many characters of ``key = value`` (longer lines just get two spaces).
_ALIGN_AT = 40


def _described_config(path: Path, config_file: Optional[str], isolated: bool) -> Tuple[Config, List[str]]:
    """The configuration that applies to ``path``, and the lines saying where it was found."""
    lines = [f"Settings for {path}"]
    if isolated:
        lines.append("Configuration file: none (--isolated): defaults")
        return Config(source=None, root=Path.cwd(), mindspore_version_source=ISOLATED_VERSION), lines
    if config_file is not None:
        config = load_config(Path(config_file), explicit=True)
        lines.append(f"Configuration file: {config.source} (--config, for every file)")
    else:
        found, passed_over = search_config_file(path)
        if passed_over:
            lines.append("Passed over (no ms-perflint table): " + ", ".join(str(p) for p in passed_over))
        if found is None:
            lines.append(f"Configuration file: none found at or above {_folder_of(path)}: defaults")
            return _defaults_for(path, Path.cwd()), lines
        config = load_config(found)
        where = "[tool.ms-perflint] table" if found.suffix == ".toml" else f"[{INI_SECTION}] section"
        lines.append(f"Configuration file: {found} ({where}; the nearest at or above {_folder_of(path)})")
    lines.append(f"Relative exclude globs start at: {config.root}")
    return config, lines


def _folder_of(path: Path) -> Path:
    resolved = path.resolve()
    return resolved if resolved.is_dir() else resolved.parent


def _keys_in(source: Optional[Path]) -> set:
    """Names of the keys the configuration file sets (INI spellings with ``_`` normalised)."""
    if source is None:
        return set()
    table = read_table(source) or {}
    is_ini = source.suffix != ".toml"
    return {name.replace("_", "-") if is_ini else name for name in table}


def _with_command_line(name: str, value: Any, source: str, given: Any) -> Tuple[Any, str]:
    """A key's value once the command line is applied (``--extend-ignore`` adds to the file's list)."""
    if name == "extend-ignore" and value:
        return tuple(value) + tuple(given), f"{source}, then command line"
    return given, "command line"


def _setting_text(value: Any) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, Mapping):
        return _toml_repr({pattern: list(codes) for pattern, codes in value.items()})
    return _toml_repr(list(value) if isinstance(value, tuple) else value)


def _project_line(path: str, project: bool) -> str:
    """The project the file is checked with (the nearest folder with pyproject.toml, setup.py, setup.cfg, tox.ini or .git, else the
    current folder when the file is in it)."""
    from ms_perflint.project.roots import NO_ROOT_TEXT, project_root  # a small module: no libcst, no YAML

    if not project:
        return "Checked with its project: no (project = false): the file is checked alone"
    root = project_root(path, os.getcwd())
    if root is None:
        return f"Checked with its project: no ({NO_ROOT_TEXT}): the file is checked alone"
    return f"Checked with its project: {root}"


def _rules_for(settings: Settings, path: str) -> List[str]:
    """Which rules are on for ``path``, and why the others are off."""
    from ms_perflint.rules import ALL_RULES

    on, off = [], []
    for rule in ALL_RULES:
        if not settings.may_enable(rule.code, rule.opt_in):
            off.append(f"{rule.code} ({'opt-in: select it by code' if rule.opt_in else 'select/ignore'})")
        elif not settings.is_enabled(rule.code, path):
            off.append(f"{rule.code} ({'per-file-ignores' if settings.is_enabled(rule.code) else 'select/ignore'})")
        else:
            on.append(rule.code)
    return [f"Rules on: {', '.join(on) or 'none'}", f"Rules off: {', '.join(off) or 'none'}"]


# --------------------------------------------------------------------------- the configuration reference


REFERENCE_START = "<!-- begin configuration reference (generated by `python -m ms_perflint.config`) -->"
REFERENCE_END = "<!-- end configuration reference -->"


def render_reference() -> str:
    """The configuration reference in Markdown, from :data:`KEYS` and the rules' option declarations."""
    lines = ["| Key | Type | Default | Description |", "| --- | --- | --- | --- |"]
    for key in KEYS:
        lines.append(f"| `{key.name}` | {_kind_word(key.kind)} | {_default_text(key)} | {key.help} |")
    for name, (code, option) in sorted(rule_options().items()):
        kind = (
            "one of " + ", ".join(f"`{_toml_repr(c)}`" for c in option.choices)
            if option.choices
            else re.sub(r"^an? ", "", _type_word(type(option.default)))
        )
        if option.minimum is not None:
            kind += f" (at least `{_toml_repr(option.minimum)}`)"
        help_text = " ".join(option.help.split())
        lines.append(f"| `{name}` | {kind} | `{_toml_repr(option.default)}` | {code}: {help_text} |")
    lines += ["", "Examples of each key, as TOML:", "", "```toml", "[tool.ms-perflint]"]
    lines += [f"{key.name} = {key.example}" for key in KEYS]
    lines += ["```"]
    return "\n".join(lines) + "\n"


def _kind_word(kind: str) -> str:
    return {
        CODES: "list of codes",
        GLOBS: "list of globs",
        BOOL: "boolean",
        PER_FILE: "table: glob = list of codes",
        VERSION: "version specifier",
        SIZE: "number of bytes",
        RELEASE: "release (PEP 440 version)",
    }[kind]


def _default_text(key: Key) -> str:
    if key.default is None:
        return "none"
    if key.kind == GLOBS and key.default:
        return "`" + _toml_repr(list(key.default)) + "`"
    return f"`{_toml_repr(key.default if not isinstance(key.default, tuple) else list(key.default))}`"


def update_reference(document: Path) -> bool:
    """Rewrite the generated reference between the markers in ``document``; True when it changed."""
    text = document.read_text(encoding="utf-8")
    start, end = text.index(REFERENCE_START) + len(REFERENCE_START), text.index(REFERENCE_END)
    updated = text[:start] + "\n\n" + render_reference() + "\n" + text[end:]
    if updated != text:
        document.write_text(updated, encoding="utf-8")
    return updated != text


def usage_document() -> Path:
    """docs/usage.md of the source tree."""
    return Path(__file__).resolve().parent.parent / "docs" / "usage.md"


if __name__ == "__main__":  # pragma: no cover - exercised by the docs-in-sync test
    print(usage_document(), "updated" if update_reference(usage_document()) else "unchanged")
