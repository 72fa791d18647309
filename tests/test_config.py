"""Configuration files, their precedence, command-line overrides and errors -- through the real CLI and flake8.

Most cases observe which configuration applied through per-file ignores of MSP103:
three files a.py, b.py, c.py each have one finding, and each configuration file
ignores a different one, so the files still reported tell which file won.
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Iterable, List, Set

import pytest

from ms_perflint import __version__
from ms_perflint.config import (
    Config,
    ConfigError,
    find_config_file,
    load_config,
    render_reference,
    rule_options,
    version_satisfies,
    REFERENCE_END,
    REFERENCE_START,
)
from tests.conftest import REPO, run_cli, run_flake8

FINDING = "from mindspore.train import CheckpointConfig\nconfig = CheckpointConfig()\n"
_REPORTED = re.compile(r"^(?:\./)?(?P<path>[^:\s]+):\d+:\d+: MSP103\b", re.MULTILINE)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def sources(folder: Path, names: Iterable[str] = ("a.py", "b.py", "c.py")) -> None:
    for name in names:
        write(folder, name, FINDING)


def reported(stdout: str) -> Set[str]:
    """File names reported with MSP103."""
    return {Path(match["path"]).name for match in _REPORTED.finditer(stdout)}


def pyproject_ignoring(name: str) -> str:
    return f'[tool.ms-perflint]\nper-file-ignores = {{ "{name}" = ["MSP103"] }}\n'


def ini_ignoring(name: str) -> str:
    return f"[ms-perflint]\nper-file-ignores =\n    {name}: MSP103\n"


# --------------------------------------------------------------------------- which file wins


PLAIN_PYPROJECT = '[build-system]\nrequires = ["setuptools"]\n'

SCENARIOS = {
    # files written (relative to the project folder) -> files still reported
    "pyproject before setup.cfg before tox.ini": (
        {"pyproject.toml": pyproject_ignoring("a.py"), "setup.cfg": ini_ignoring("b.py"), "tox.ini": ini_ignoring("c.py")},
        {"b.py", "c.py"},
    ),
    "a pyproject without our table is passed over": (
        {"pyproject.toml": PLAIN_PYPROJECT, "setup.cfg": ini_ignoring("b.py"), "tox.ini": ini_ignoring("c.py")},
        {"a.py", "c.py"},
    ),
    "tox.ini alone": ({"tox.ini": ini_ignoring("c.py")}, {"a.py", "b.py"}),
    "the nearest folder wins": (
        {"../pyproject.toml": pyproject_ignoring("a.py"), "tox.ini": ini_ignoring("c.py")},
        {"a.py", "b.py"},
    ),
    "a parent folder's table beats a nearer file without one": (
        {"../pyproject.toml": pyproject_ignoring("a.py"), "pyproject.toml": PLAIN_PYPROJECT, "setup.cfg": "[flake8]\n"},
        {"b.py", "c.py"},
    ),
    "no configuration at all": ({}, {"a.py", "b.py", "c.py"}),
}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=list(SCENARIOS))
def test_nearest_configuration_applies_in_cli_and_flake8(tmp_path: Path, scenario: str):
    files, expected = SCENARIOS[scenario]
    project = tmp_path / "project"
    sources(project)
    for name, text in files.items():
        write(project, name, text)
    cli = run_cli("--quiet", ".", cwd=project)
    assert cli.returncode == (1 if expected else 0), cli.stderr
    assert reported(cli.stdout) == expected
    flake8 = run_flake8("--select", "MSP", ".", cwd=project, isolated=False)
    assert flake8.returncode == (1 if expected else 0), flake8.stdout + flake8.stderr
    assert reported(flake8.stdout) == expected


def test_search_starts_at_the_first_path_not_the_current_folder(tmp_path: Path):
    project = tmp_path / "project"
    sources(project)
    write(project, "pyproject.toml", pyproject_ignoring("a.py"))
    cli = run_cli("--quiet", "project", cwd=tmp_path)
    assert reported(cli.stdout) == {"b.py", "c.py"}
    cli = run_cli("--quiet", "project/b.py", "project/a.py", cwd=tmp_path)
    assert reported(cli.stdout) == {"b.py"}


def test_command_line_flags_override_the_file(tmp_path: Path):
    sources(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nignore = ["MSP103"]\n')
    assert run_cli("--quiet", ".", cwd=tmp_path).returncode == 0
    # --ignore replaces the file's ignore
    assert reported(run_cli("--quiet", "--ignore", "MSP104", ".", cwd=tmp_path).stdout) == {"a.py"}
    # --select replaces select only: the file's ignore of MSP103 still wins the tie, as in ruff
    assert reported(run_cli("--quiet", "--select", "MSP103", ".", cwd=tmp_path).stdout) == set()
    assert reported(run_cli("--quiet", "--isolated", ".", cwd=tmp_path).stdout) == {"a.py"}


def test_config_flag_names_the_file(tmp_path: Path):
    sources(tmp_path, ["a.py", "b.py"])
    write(tmp_path, "pyproject.toml", pyproject_ignoring("a.py"))
    write(tmp_path, "ci/lint.toml", '[tool.ms-perflint]\nper-file-ignores = { "b.py" = ["MSP103"] }\n')
    write(tmp_path, "ci/lint.cfg", ini_ignoring("a.py") + "ignore = MSP103\n")
    assert reported(run_cli("--quiet", ".", cwd=tmp_path).stdout) == {"b.py"}
    assert reported(run_cli("--quiet", "--config", "ci/lint.toml", ".", cwd=tmp_path).stdout) == {"a.py"}
    assert run_cli("--quiet", "--config", "ci/lint.cfg", ".", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--config", "missing.toml"], "no such configuration file"),
        (["--config", "."], "is a folder, not a configuration file; name the file in it (pyproject.toml, "),
        (["--config", "plain.toml"], "plain.toml: has no [tool.ms-perflint] table"),
        (["--config", "lint.json"], "unknown configuration file type"),
        (["--config", "plain.toml", "--isolated"], "--config and --isolated cannot be used together"),
    ],
)
def test_bad_config_flag_is_a_usage_error(tmp_path: Path, args: List[str], message: str):
    sources(tmp_path, ["a.py"])
    write(tmp_path, "plain.toml", PLAIN_PYPROJECT)
    write(tmp_path, "lint.json", "{}")
    completed = run_cli(*args, ".", cwd=tmp_path)
    assert completed.returncode == 2
    assert message in completed.stderr
    assert "Traceback" not in completed.stderr


# --------------------------------------------------------------------------- errors


BAD_VALUES = {
    "select as a string": ('select = "MSP103"', "select: expected a list of codes or prefixes"),
    "a code of another tool": ('ignore = ["E501"]', "ignore: 'E501' is not an ms-perflint code or prefix"),
    "a boolean as a string": ('respect-gitignore = "yes"', "respect-gitignore: expected true or false, got \"yes\""),
    "a typo": ('extend-selct = ["MSP1"]', "unknown key 'extend-selct'; did you mean 'extend-select'?"),
    "underscores in TOML": ('extend_exclude = ["x"]', "unknown key 'extend_exclude'; did you mean 'extend-exclude'?"),
    "per-file-ignores as a list": ('per-file-ignores = ["tests/*"]', "per-file-ignores: expected a table of glob = [codes]"),
    "per-file codes as a string": ('per-file-ignores = { "t.py" = "MSP103" }', "'t.py': expected a list of codes"),
    "an unmet required version": ('required-version = ">=99"', f"ms-perflint {__version__} does not satisfy '>=99'"),
    "a bad version specifier": ('required-version = "latest"', "'latest' is not a version specifier"),
    "an alignment of zero": ("alignment = 0", "alignment: must be at least 1, got 0"),
    "a negative alignment": ("alignment = -16", "alignment: must be at least 1, got -16"),
}


@pytest.mark.parametrize("case", BAD_VALUES)
def test_bad_value_names_file_key_and_allowed_values(tmp_path: Path, case: str):
    line, message = BAD_VALUES[case]
    sources(tmp_path, ["a.py"])
    config = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\n{line}\n")
    completed = run_cli(".", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"ms-perflint: error: {config}: [tool.ms-perflint] ")
    assert message in completed.stderr
    assert "Traceback" not in completed.stderr
    assert completed.stdout == ""


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("pyproject.toml", "[tool.ms-perflint\nselect = 1\n", "invalid TOML"),
        ("pyproject.toml", '[tool]\nms-perflint = 1\n', "[tool.ms-perflint] must be a table, not a number"),
        ("setup.cfg", "[ms-perflint]\nforce-exclude = maybe\n", "force-exclude: expected true/false, yes/no, on/off or 1/0"),
        ("setup.cfg", "[ms-perflint]\nselect = MSP1\nselect = MSP2\n", "invalid INI syntax"),
        ("tox.ini", "[ms-perflint]\nper-file-ignores = tests/*\n", "expected `glob: CODE, CODE` groups"),
        ("tox.ini", "[ms-perflint]\nselct = MSP1\n", "unknown key 'selct'; did you mean 'select'?"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path: Path, name: str, text: str, message: str):
    sources(tmp_path, ["a.py"])
    config = write(tmp_path, name, text)
    completed = run_cli(".", cwd=tmp_path)
    assert completed.returncode == 2
    assert str(config) in completed.stderr
    assert message in completed.stderr
    assert "Traceback" not in completed.stderr


def _wrong_and_right(option: Any) -> List[tuple]:
    """(bad TOML value, good TOML value, parsed good value) for a declared rule option."""
    if option.choices:
        choice = option.choices[-1]
        return [('"no-such-choice"', f'"{str(choice).upper()}"' if isinstance(choice, str) else str(choice), choice)]
    if isinstance(option.default, bool):
        return [('"yes"', "true", True)]
    if isinstance(option.default, int):
        return [('"32"', "32", 32), ("true", "48", 48)]
    return [("1", '"value"', "value")]


OPTIONS = sorted(rule_options())


@pytest.mark.parametrize("name", OPTIONS)
def test_rule_options_are_validated_from_their_declarations(tmp_path: Path, name: str):
    code, option = rule_options()[name]
    for bad, good, parsed in _wrong_and_right(option):
        path = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\n{name} = {bad}\n")
        with pytest.raises(ConfigError) as error:
            load_config(path)
        assert f"[tool.ms-perflint] {name}: " in str(error.value)
        if option.choices:
            assert "allowed values: " + ", ".join(f'"{c}"' for c in option.choices) in str(error.value)
        path = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\n{name} = {good}\n")
        assert load_config(path).settings().option(name) == parsed
        ini = write(tmp_path, "setup.cfg", f"[ms-perflint]\n{name} = {good.strip(chr(34))}\n")
        assert load_config(ini).settings().option(name) == parsed


def test_an_alignment_below_one_in_a_flake8_config_is_an_error_too(tmp_path: Path):
    sources(tmp_path, ["a.py"])
    write(tmp_path, "setup.cfg", "[ms-perflint]\nalignment = 0\n")
    completed = run_cli(".", cwd=tmp_path)
    assert completed.returncode == 2
    assert "alignment: must be at least 1, got 0" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_rule_option_reaches_the_rule(tmp_path: Path):
    """MSP102 reports a Dense dim of 24 with the default alignment 16, but not with alignment 8."""
    if "alignment" not in rule_options():
        pytest.fail("MSP102's alignment option is not declared")
    write(
        tmp_path,
        "net.py",
        """
        import mindspore.nn as nn

        class Head(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(64, 24)
        """,
    )
    default = run_cli("--quiet", "--select", "MSP102", ".", cwd=tmp_path)
    assert "MSP102" in default.stdout, default.stdout + default.stderr
    write(tmp_path, "setup.cfg", "[ms-perflint]\nalignment = 8\n")
    configured = run_cli("--quiet", "--select", "MSP102", ".", cwd=tmp_path)
    assert configured.returncode == 0, configured.stdout
    flake8 = run_flake8("--select", "MSP102", ".", cwd=tmp_path, isolated=False)
    assert flake8.returncode == 0, flake8.stdout


def test_required_version_that_holds_is_accepted(tmp_path: Path):
    sources(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", f'[tool.ms-perflint]\nrequired-version = ">={__version__},<99"\n')
    assert run_cli("--quiet", ".", cwd=tmp_path).returncode == 1


@pytest.mark.parametrize(
    "version, specifier, expected",
    [
        ("0.1.0", ">=0.1", True),
        ("0.1.0", ">0.1", False),
        ("0.1.0", "==0.1", True),
        ("0.1.0", "0.1.0", True),
        ("0.1.0", "!=0.1.0", False),
        ("0.2.5", "~=0.2.1", True),
        ("0.3.0", "~=0.2.1", False),
        ("0.2.0", ">=0.1,<0.3", True),
        ("0.3.0", ">=0.1,<0.3", False),
        ("1.0", "<=0.9.9", False),
    ],
)
def test_version_specifiers(version: str, specifier: str, expected: bool):
    assert version_satisfies(version, specifier) is expected


# --------------------------------------------------------------------------- per-file ignores


def test_per_file_ignores_in_flake8_ini_format(tmp_path: Path):
    sources(tmp_path, ["tools/convert_a.py", "tools/train.py", "tests/test_x.py", "model.py"])
    write(
        tmp_path,
        "setup.cfg",
        """
        [ms-perflint]
        per-file-ignores =
            tools/convert_*.py: MSP103
            tests/*,legacy/*:MSP1
        """,
    )
    cli = run_cli("--quiet", ".", cwd=tmp_path)
    assert reported(cli.stdout) == {"train.py", "model.py"}
    flake8 = run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False)
    assert reported(flake8.stdout) == {"train.py", "model.py"}


def test_flake8_own_selection_still_decides(tmp_path: Path):
    sources(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nselect = ["MSP103"]\n')
    assert reported(run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False).stdout) == {"a.py"}
    assert reported(run_flake8("--select", "MSP101", ".", cwd=tmp_path, isolated=False).stdout) == set()
    shown = run_flake8("--select", "MSP", "--extend-ignore", "MSP103", ".", cwd=tmp_path, isolated=False)
    assert reported(shown.stdout) == set()


def test_flake8_reports_a_bad_configuration_without_a_traceback(tmp_path: Path):
    sources(tmp_path, ["a.py"])
    config = write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nignroe = ["MSP103"]\n')
    completed = run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False)
    assert completed.returncode == 1
    assert "failed during execution due to ConfigError" in completed.stdout
    assert f"{config}: [tool.ms-perflint] unknown key 'ignroe'; did you mean 'ignore'?" in completed.stdout
    assert "Traceback" not in completed.stdout + completed.stderr
    # with MSP codes deselected the plugin never reads the configuration
    assert run_flake8("--select", "E", ".", cwd=tmp_path, isolated=False).returncode == 0


# --------------------------------------------------------------------------- excludes and .gitignore


def exclusion_tree(root: Path) -> None:
    sources(root, ["src/model.py", "build/gen.py", "third_party/vendor.py", "examples/legacy/old.py"])


def checked(completed: subprocess.CompletedProcess) -> Set[str]:
    return {str(Path(m["path"])) for m in _REPORTED.finditer(completed.stdout)}


def test_default_exclude_and_extend_exclude(tmp_path: Path):
    exclusion_tree(tmp_path)
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == {
        "src/model.py", "third_party/vendor.py", "examples/legacy/old.py"
    }
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party", "examples/legacy/*"]\n')
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == {"src/model.py"}
    # relative globs are rooted at the configuration's folder, wherever the run starts
    assert checked(run_cli("--quiet", ".", cwd=tmp_path / "examples")) == set()


def test_exclude_replaces_the_defaults(tmp_path: Path):
    exclusion_tree(tmp_path)
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nexclude = ["third_party"]\n')
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == {"src/model.py", "build/gen.py", "examples/legacy/old.py"}
    assert checked(run_cli("--quiet", "--exclude", "src,build", ".", cwd=tmp_path)) == {
        "third_party/vendor.py", "examples/legacy/old.py"
    }


def test_named_files_are_checked_unless_force_exclude(tmp_path: Path):
    exclusion_tree(tmp_path)
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party"]\n')
    named = ("src/model.py", "third_party/vendor.py", "build/gen.py")
    assert checked(run_cli("--quiet", *named, cwd=tmp_path)) == set(named)
    assert checked(run_cli("--quiet", "--force-exclude", *named, cwd=tmp_path)) == {"src/model.py"}
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party"]\nforce-exclude = true\n')
    assert checked(run_cli("--quiet", *named, cwd=tmp_path)) == {"src/model.py"}
    assert checked(run_cli("--quiet", "--no-force-exclude", *named, cwd=tmp_path)) == set(named)


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_gitignored_files_are_skipped_in_a_work_tree(tmp_path: Path):
    sources(tmp_path, ["src/model.py", "generated/net_pb2.py", "src/cache_gen.py", "src/kept_gen.py"])
    git(tmp_path, "init", "-q")
    write(tmp_path, ".gitignore", "generated/\n*_gen.py\n")
    git(tmp_path, "add", "-f", "src/kept_gen.py")  # tracked files are never ignored
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == {"src/model.py", "src/kept_gen.py"}
    assert checked(run_cli("--quiet", "src", cwd=tmp_path)) == {"src/model.py", "src/kept_gen.py"}
    every = {"src/model.py", "generated/net_pb2.py", "src/cache_gen.py", "src/kept_gen.py"}
    assert checked(run_cli("--quiet", "--no-respect-gitignore", ".", cwd=tmp_path)) == every
    write(tmp_path, "pyproject.toml", "[tool.ms-perflint]\nrespect-gitignore = false\n")
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == every
    # a named file is checked unless force-exclude
    assert checked(run_cli("--quiet", "--respect-gitignore", "src/cache_gen.py", cwd=tmp_path)) == {"src/cache_gen.py"}
    forced = run_cli("--quiet", "--respect-gitignore", "--force-exclude", "src/cache_gen.py", "src/model.py", cwd=tmp_path)
    assert checked(forced) == {"src/model.py"}


def test_gitignore_is_not_read_outside_a_work_tree(tmp_path: Path):
    sources(tmp_path, ["src/model.py", "generated/net_pb2.py"])
    write(tmp_path, ".gitignore", "generated/\n")
    assert checked(run_cli("--quiet", ".", cwd=tmp_path)) == {"src/model.py", "generated/net_pb2.py"}


# --------------------------------------------------------------------------- API details


def test_find_config_file_starts_at_a_file_folder(tmp_path: Path):
    config = write(tmp_path, "tox.ini", "[ms-perflint]\nignore = MSP104\n")
    source = write(tmp_path, "pkg/mod.py", "")
    assert find_config_file(source) == config.resolve()
    assert find_config_file(tmp_path / "pkg") == config.resolve()


def test_ini_lists_accept_commas_and_new_lines(tmp_path: Path):
    config = write(tmp_path, "setup.cfg", "[ms-perflint]\nextend_select = MSP1,\n    MSP2\nrespect-gitignore = off\n")
    loaded = load_config(config)
    assert loaded.extend_select == ("MSP1", "MSP2")
    assert loaded.respect_gitignore is False
    assert loaded.root == tmp_path.resolve()


def test_defaults_match_the_settings_defaults():
    settings = Config(source=None, root=Path(".")).settings()
    assert settings.select == ("MSP",) and settings.ignore == () and dict(settings.per_file_ignores) == {}


def test_configuration_reference_in_usage_docs_is_generated():
    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    section = text[text.index(REFERENCE_START) + len(REFERENCE_START) : text.index(REFERENCE_END)]
    assert section == "\n\n" + render_reference() + "\n", "regenerate with `python -m ms_perflint.docs`"
    for name in [*rule_options(), "select", "per-file-ignores", "required-version"]:
        assert f"| `{name}` |" in section


def test_reference_lists_every_declared_option_with_its_rule():
    reference = render_reference()
    for name, (code, option) in rule_options().items():
        row = next(line for line in reference.splitlines() if line.startswith(f"| `{name}` |"))
        assert code in row
        for choice in option.choices:
            assert str(choice) in row
