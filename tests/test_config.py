"""Configuration files: which one applies to each file, values and their errors, excludes, and what
``describe_settings`` says -- through the real CLI and flake8 where the front ends are the point.

Most cases observe which configuration applied through MSP103: every source file
is the same small training program with one MSP103 finding (line 3, column 14),
and each configuration ignores it in different files, so the files still reported
tell which configuration won.
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Dict, Iterable, List, Set, Tuple

import pytest

from ms_perflint import __version__
from ms_perflint.config import (
    REFERENCE_END,
    REFERENCE_START,
    Config,
    ConfigError,
    describe_settings,
    find_config_file,
    load_config,
    render_reference,
    rule_options,
    version_satisfies,
)
from ms_perflint.rules import ALL_RULES
from ms_perflint.sources.discovery import discover
from tests.conftest import REPO, run_cli, run_flake8

#: A training program: MSP103 at 3:14 (the CheckpointConfig call), with a safe fix.
PROGRAM = """\
from mindspore.train import CheckpointConfig, Model, ModelCheckpoint
if __name__ == "__main__":
    config = CheckpointConfig(save_checkpoint_steps=10)
    Model(net, loss, opt).train(1, data, callbacks=[ModelCheckpoint(config=config)])
"""
#: A training program on Ascend 910B with fp32 Dense layers and no mixed precision: MSP101 at 11:13.
#: On 910A (``ascend-target = "910a"``) the default precision mode already runs them in float16.
FP32_PROGRAM = """\
import mindspore.nn as nn
from mindspore.train import Model
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(1024, 1024)
        self.fc2 = nn.Dense(1024, 10)
    def construct(self, x):
        return self.fc2(self.fc1(x))
if __name__ == "__main__":
    model = Model(Net(), loss_fn=loss, optimizer=opt)
    model.train(1, data)
"""
_REPORTED = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b", re.MULTILINE)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def programs(folder: Path, names: Iterable[str] = ("a.py", "b.py", "c.py")) -> None:
    for name in names:
        write(folder, name, PROGRAM)


def reported(stdout: str, code: str = "MSP103") -> Set[str]:
    """Paths (as printed, without a leading ``./``) reported with ``code``."""
    return {_clean(m["path"]) for m in _REPORTED.finditer(stdout) if m["code"] == code}


def findings(stdout: str) -> Set[Tuple[str, int, int, str]]:
    """Every ``(path, line, column, code)`` printed by the CLI or flake8."""
    return {(_clean(m["path"]), int(m["line"]), int(m["col"]), m["code"]) for m in _REPORTED.finditer(stdout)}


def _clean(path: str) -> str:
    return Path(path).as_posix()


def names(paths: Iterable[str]) -> Set[str]:
    return {Path(path).name for path in paths}


def pyproject_ignoring(name: str) -> str:
    return f'[tool.ms-perflint]\nper-file-ignores = {{ "{name}" = ["MSP103"] }}\n'


def ini_ignoring(name: str) -> str:
    return f"[ms-perflint]\nper-file-ignores =\n    {name}: MSP103\n"


PLAIN_PYPROJECT = '[build-system]\nrequires = ["setuptools"]\n'

# --------------------------------------------------------------------------- which file wins, per file

#: scenario -> (files written relative to the scenario's folder, files still reported)
SCENARIOS: Dict[str, Tuple[Dict[str, str], Set[str]]] = {
    "pyproject_before_setup_cfg_before_tox_ini": (
        {"pyproject.toml": pyproject_ignoring("a.py"), "setup.cfg": ini_ignoring("b.py"), "tox.ini": ini_ignoring("c.py")},
        {"b.py", "c.py"},
    ),
    "pyproject_without_our_table_is_passed_over": (
        {"pyproject.toml": PLAIN_PYPROJECT, "setup.cfg": ini_ignoring("b.py"), "tox.ini": ini_ignoring("c.py")},
        {"a.py", "c.py"},
    ),
    "tox_ini_alone": ({"tox.ini": ini_ignoring("c.py")}, {"a.py", "b.py"}),
    "nearest_folder_wins": (
        {"../pyproject.toml": pyproject_ignoring("a.py"), "tox.ini": ini_ignoring("c.py")},
        {"a.py", "b.py"},
    ),
    "a_parent_table_beats_a_nearer_file_without_one": (
        {"../pyproject.toml": pyproject_ignoring("a.py"), "pyproject.toml": PLAIN_PYPROJECT, "setup.cfg": "[flake8]\n"},
        {"b.py", "c.py"},
    ),
    "no_configuration_at_all": ({}, {"a.py", "b.py", "c.py"}),
}


@pytest.fixture(scope="module")
def scenario_runs(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Set[str], Set[str]]:
    """One CLI run and one flake8 run over all scenarios side by side: each file must get its own configuration."""
    root = tmp_path_factory.mktemp("scenarios")
    for scenario, (files, _) in SCENARIOS.items():
        folder = root / scenario / "project"
        programs(folder)
        for name, text in files.items():
            write(folder, name, text)
    cli = run_cli("--quiet", "--no-cache", ".", cwd=root)
    assert cli.returncode == 1, cli.stderr
    flake8 = run_flake8("--select", "MSP", ".", cwd=root, isolated=False)
    assert flake8.returncode == 1, flake8.stdout + flake8.stderr
    return reported(cli.stdout), reported(flake8.stdout)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_nearest_configuration_applies_in_cli_and_flake8(scenario_runs, scenario: str):
    _, expected = SCENARIOS[scenario]
    prefix = f"{scenario}/project/"
    cli, flake8 = scenario_runs
    assert {path[len(prefix):] for path in cli if path.startswith(prefix)} == expected
    assert {path[len(prefix):] for path in flake8 if path.startswith(prefix)} == expected


def test_each_file_is_checked_with_its_own_configuration_whatever_the_order(tmp_path: Path):
    """``ms-perflint a b`` and ``ms-perflint b a`` agree, and flake8 agrees with both (issue "one model").

    a/ and b/ are projects of their own with different ``ignore``; each program has
    an MSP103 (line 3), an MSP105 (line 4) and an MSP502 (line 5: the Profiler nothing stops) finding.
    """
    program = PROGRAM.replace(
        'if __name__ == "__main__":\n',
        'if __name__ == "__main__":\n    ms.dataset.config.set_enable_autotune(True)\n    profiler = ms.Profiler()\n',
    ).replace("from mindspore.train", "import mindspore as ms\nfrom mindspore.train")
    for folder, ignored in (("a", "MSP103"), ("b", "MSP105")):
        write(tmp_path, f"{folder}/train.py", program)
        write(tmp_path, f"{folder}/pyproject.toml", f'[tool.ms-perflint]\nignore = ["{ignored}"]\n')
    expected = {("a/train.py", 4, 5, "MSP105"), ("b/train.py", 6, 14, "MSP103"),
                ("a/train.py", 5, 16, "MSP502"), ("b/train.py", 5, 16, "MSP502")}
    forward = run_cli("--quiet", "a", "b", cwd=tmp_path)
    backward = run_cli("--quiet", "b", "a", cwd=tmp_path)
    files = run_cli("--quiet", "--no-cache", "b/train.py", "a/train.py", cwd=tmp_path)
    for completed in (forward, backward, files):
        assert findings(completed.stdout) == expected, completed.stdout + completed.stderr
    flake8 = run_flake8("--select", "MSP", "b", "a", cwd=tmp_path, isolated=False)
    assert findings(flake8.stdout) == expected, flake8.stdout + flake8.stderr
    diff = run_cli("--diff", "b", "a", cwd=tmp_path)  # only b's MSP103 has a fix, and b keeps MSP103
    assert "+++ b/train.py" in diff.stdout and "a/train.py" not in diff.stdout, diff.stdout + diff.stderr


def test_folders_of_one_project_with_their_own_configuration_agree_in_any_order(tmp_path: Path):
    """One git project; a/ is configured by setup.cfg, b/ by tox.ini: neither marks a project root."""
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    programs(tmp_path / "a", ["train.py"])
    programs(tmp_path / "b", ["train.py"])
    write(tmp_path, "a/setup.cfg", "[ms-perflint]\nignore = MSP103\n")
    write(tmp_path, "b/tox.ini", "[ms-perflint]\nselect = MSP103\n")
    runs = [run_cli("--quiet", *order, cwd=tmp_path) for order in (("a", "b"), ("b", "a"), (".",))]
    runs.append(run_flake8("--select", "MSP", "b", "a", cwd=tmp_path, isolated=False))
    for completed in runs:
        assert findings(completed.stdout) == {("b/train.py", 3, 14, "MSP103")}, completed.stdout + completed.stderr


def test_the_search_starts_at_each_file_not_at_the_current_folder(tmp_path: Path):
    project = tmp_path / "project"
    programs(project)
    write(project, "pyproject.toml", pyproject_ignoring("a.py"))
    assert names(reported(run_cli("--quiet", "project", cwd=tmp_path).stdout)) == {"b.py", "c.py"}
    assert names(reported(run_cli("--quiet", "project/b.py", "project/a.py", cwd=tmp_path).stdout)) == {"b.py"}


def test_command_line_flags_override_the_file(tmp_path: Path):
    programs(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nignore = ["MSP103"]\n')
    assert run_cli("--quiet", ".", cwd=tmp_path).returncode == 0
    # --ignore replaces the file's ignore
    assert reported(run_cli("--quiet", "--ignore", "MSP105", ".", cwd=tmp_path).stdout) == {"a.py"}
    # --select replaces select only: the file's ignore of MSP103 still wins the tie, as in ruff
    assert reported(run_cli("--quiet", "--select", "MSP103", ".", cwd=tmp_path).stdout) == set()
    assert reported(run_cli("--quiet", "--isolated", ".", cwd=tmp_path).stdout) == {"a.py"}


def test_config_flag_names_the_file_for_every_file(tmp_path: Path):
    programs(tmp_path, ["a.py", "b.py"])
    write(tmp_path, "pyproject.toml", pyproject_ignoring("a.py"))
    write(tmp_path, "ci/lint.toml", '[tool.ms-perflint]\nper-file-ignores = { "b.py" = ["MSP103"] }\n')
    write(tmp_path, "ci/lint.cfg", ini_ignoring("a.py") + "ignore = MSP103\n")
    assert reported(run_cli("--quiet", ".", cwd=tmp_path).stdout) == {"b.py"}
    assert reported(run_cli("--quiet", "--config", "ci/lint.toml", ".", cwd=tmp_path).stdout) == {"a.py"}
    assert run_cli("--quiet", "--config", "ci/lint.cfg", ".", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize(
    "name, message",
    [
        ("missing.toml", "no such configuration file"),
        (".", "is a folder, not a configuration file; name the file in it (pyproject.toml, "),
        ("plain.toml", "plain.toml: has no [tool.ms-perflint] table"),
        ("lint.json", "unknown configuration file type"),
    ],
)
def test_bad_config_file_named_explicitly(tmp_path: Path, name: str, message: str):
    write(tmp_path, "plain.toml", PLAIN_PYPROJECT)
    write(tmp_path, "lint.json", "{}")
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(tmp_path / name, explicit=True)


def test_bad_config_flags_are_usage_errors_without_a_traceback(tmp_path: Path):
    programs(tmp_path, ["a.py"])
    write(tmp_path, "plain.toml", PLAIN_PYPROJECT)
    for args, message in ((["--config", "plain.toml"], "plain.toml: has no [tool.ms-perflint] table"),
                          (["--config", "plain.toml", "--isolated"], "--config and --isolated cannot be used together")):
        completed = run_cli(*args, ".", cwd=tmp_path)
        assert completed.returncode == 2, completed.stderr
        assert message in completed.stderr and "Traceback" not in completed.stderr


# --------------------------------------------------------------------------- values and their errors


BAD_VALUES = {
    "select as a string": ('select = "MSP103"', "select: expected a list of codes or prefixes"),
    "a code of another tool": ('ignore = ["E501"]', "ignore: unknown rule code or prefix 'E501'; known codes: MSP001"),
    "per-file codes of no rule": ('per-file-ignores = { "t.py" = ["MSP9"] }',
                                  "per-file-ignores: 't.py': unknown rule code or prefix 'MSP9'; known codes: MSP001"),
    "per-file codes of another tool": ('per-file-ignores = { "t.py" = ["nope"] }',
                                       "per-file-ignores: 't.py': unknown rule code or prefix 'NOPE'; known codes: MSP001"),
    "a code of no rule": ('extend-select = ["MSP9"]', "unknown rule code or prefix 'MSP9'"),
    "a boolean as a string": ('respect-gitignore = "yes"', "respect-gitignore: expected true or false, got \"yes\""),
    "a typo": ('extend-selct = ["MSP1"]', "unknown key 'extend-selct'; did you mean 'extend-select'?"),
    "underscores in TOML": ('extend_exclude = ["x"]', "unknown key 'extend_exclude'; did you mean 'extend-exclude'?"),
    "per-file-ignores as a list": ('per-file-ignores = ["tests/*"]', "per-file-ignores: expected a table of glob = [codes]"),
    "per-file codes as a string": ('per-file-ignores = { "t.py" = "MSP103" }', "'t.py': expected a list of codes"),
    "a negative size": ("max-file-size = -1", "max-file-size: expected a number of bytes (0 or more), got -1"),
    "an unmet required version": ('required-version = ">=99"', f"ms-perflint {__version__} does not satisfy '>=99'"),
    "an unmet wildcard": ('required-version = "==99.*"', f"ms-perflint {__version__} does not satisfy '==99.*'"),
    "a bad version specifier": ('required-version = "latest"', "'latest' is not a version specifier"),
    "an empty clause": ('required-version = ">=0.1,"', "'>=0.1,' is not a version specifier"),
    "a choice not offered": ('ascend-target = "910x"', 'ascend-target: "910x" is not allowed; allowed values: "910a"'),
}


@pytest.mark.parametrize("case", BAD_VALUES)
def test_bad_value_names_file_key_and_allowed_values(tmp_path: Path, case: str):
    line, message = BAD_VALUES[case]
    config = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\n{line}\n")
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert str(error.value).startswith(f"{config.resolve()}: [tool.ms-perflint] ")
    assert message in str(error.value)


def test_a_bad_value_stops_the_cli_and_flake8_with_the_file_named(tmp_path: Path):
    programs(tmp_path, ["a.py"])
    config = write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nignroe = ["MSP103"]\n')
    expected = f"{config}: [tool.ms-perflint] unknown key 'ignroe'; did you mean 'ignore'?"
    completed = run_cli(".", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"ms-perflint: error: {expected}")
    assert completed.stdout == "" and "Traceback" not in completed.stderr
    flake8 = run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False)
    assert flake8.returncode == 1
    assert "failed during execution due to ConfigError" in flake8.stdout and expected in flake8.stdout
    assert "Traceback" not in flake8.stdout + flake8.stderr
    # with MSP codes deselected the plugin never reads the configuration
    deselected = run_flake8("--select", "E9", ".", cwd=tmp_path, isolated=False)
    assert (deselected.returncode, deselected.stdout) == (0, ""), deselected.stdout


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("pyproject.toml", "[tool.ms-perflint\nselect = 1\n", "invalid TOML"),
        ("pyproject.toml", "[tool]\nms-perflint = 1\n", "[tool.ms-perflint] must be a table, not a number"),
        ("setup.cfg", "[ms-perflint]\nforce-exclude = maybe\n", "force-exclude: expected true/false, yes/no, on/off or 1/0"),
        ("setup.cfg", "[ms-perflint]\nselect = MSP1\nselect = MSP10\n", "invalid INI syntax"),
        ("tox.ini", "[ms-perflint]\nper-file-ignores = tests/*\n", "expected `glob: CODE, CODE` groups"),
        ("tox.ini", "[ms-perflint]\nselct = MSP1\n", "unknown key 'selct'; did you mean 'select'?"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path: Path, name: str, text: str, message: str):
    config = write(tmp_path, name, text)
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert str(config.resolve()) in str(error.value)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def nested_array(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "line",
    [
        f"select = {nested_array(3000)}",  # too deep for tomllib: it raised RecursionError
        "select = " + "{ a = " * 600 + "1" + " }" * 600,
        f"select = {nested_array(450)}",  # tomllib reads it; the error message must not quote it whole
    ],
    ids=["arrays-3000", "tables-600", "arrays-450"],
)
def test_deeply_nested_values_are_a_configuration_error_naming_the_file(tmp_path: Path, line: str):
    config = write(tmp_path, "pyproject.toml", f"[tool.ms-perflint]\n{line}\n")
    with pytest.raises(ConfigError) as error:
        load_config(config)
    assert str(error.value).startswith(f"{config.resolve()}: ")
    assert len(str(error.value)) < 400  # a clipped quote, not thousands of brackets


def test_deeply_nested_pyproject_through_the_cli_and_flake8(tmp_path: Path):
    """Regression: the CLI printed "internal error: RecursionError" naming no file; flake8 named none either."""
    programs(tmp_path, ["a.py"])
    config = write(tmp_path, "pyproject.toml", f"[project]\nname = 'x'\n[tool.ms-perflint]\nselect = {nested_array(3000)}\n")
    completed = run_cli("a.py", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"ms-perflint: error: {config}: "), completed.stderr
    assert "internal error" not in completed.stderr and "RecursionError" not in completed.stderr
    flake8 = run_flake8("--select", "MSP", "a.py", cwd=tmp_path, isolated=False)
    assert "failed during execution due to ConfigError" in flake8.stdout, flake8.stdout + flake8.stderr
    assert f"{config}: cannot read: values nested too deeply" in flake8.stdout
    assert "RecursionError" not in flake8.stdout + flake8.stderr


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


@pytest.mark.parametrize("name", sorted(rule_options()))
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
        assert load_config(path).settings().rule_options[name] == parsed
        ini = write(tmp_path, "setup.cfg", f"[ms-perflint]\n{name} = {good.strip(chr(34))}\n")
        assert load_config(ini).settings().rule_options[name] == parsed


def test_rule_option_reaches_the_rule_in_cli_and_flake8(tmp_path: Path):
    """MSP101 reports fp32 Dense layers on 910B (the default target), not on 910A."""
    write(tmp_path, "train.py", FP32_PROGRAM)
    default = run_cli("--quiet", "--select", "MSP101", ".", cwd=tmp_path)
    assert findings(default.stdout) == {("train.py", 11, 13, "MSP101")}, default.stdout + default.stderr
    write(tmp_path, "setup.cfg", "[ms-perflint]\nascend-target = 910a\n")
    configured = run_cli("--quiet", "--select", "MSP101", ".", cwd=tmp_path)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    flake8 = run_flake8("--select", "MSP101", ".", cwd=tmp_path, isolated=False)
    assert flake8.returncode == 0, flake8.stdout + flake8.stderr


def test_a_wildcard_required_version_is_accepted(tmp_path: Path):
    """Regression: ``==0.1.*`` (PEP 440) was rejected as "not a version specifier"."""
    major_minor = ".".join(__version__.split(".")[:2])
    programs(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", f'[tool.ms-perflint]\nrequired-version = "=={major_minor}.*"\n')
    completed = run_cli("--quiet", ".", cwd=tmp_path)
    assert completed.returncode == 1 and reported(completed.stdout) == {"a.py"}, completed.stderr
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nrequired-version = "==99.*"\n')
    refused = run_cli("--quiet", ".", cwd=tmp_path)
    assert refused.returncode == 2 and "does not satisfy '==99.*'" in refused.stderr


@pytest.mark.parametrize(
    "version, specifier, expected",
    [
        ("0.1.0", ">=0.1", True),
        ("0.1.0", ">0.1", False),
        ("0.1.0", "==0.1", True),
        ("0.1.0", "0.1.0", True),  # a bare version means ==, as in ruff
        ("0.1.0", "!=0.1.0", False),
        ("0.1.0", "==0.1.*", True),
        ("0.2.0", "==0.1.*", False),
        ("0.1.7", "!=0.1.*", False),
        ("0.1.0", "~=0.1", True),
        ("1.0.0", "~=0.1", False),
        ("0.2.5", "~=0.2.1", True),
        ("0.3.0", "~=0.2.1", False),
        ("0.2.0", ">=0.1, <0.3", True),
        ("0.3.0", ">=0.1,<0.3", False),
        ("1.0", "<=0.9.9", False),
        ("0.2.0rc1", ">=0.1", True),  # a pre-release of ms-perflint counts as its version
        ("0.1.0", "===0.1.0", True),
        ("0.1.0", "latest", False),
        ("0.1.0", "", False),
    ],
)
def test_version_specifiers(version: str, specifier: str, expected: bool):
    assert version_satisfies(version, specifier) is expected


# --------------------------------------------------------------------------- per-file ignores and flake8's selection


def test_per_file_ignores_in_flake8_ini_format(tmp_path: Path):
    programs(tmp_path, ["tools/convert_a.py", "tools/train.py", "tests/test_x.py", "model.py"])
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
    assert reported(cli.stdout) == {"tools/train.py", "model.py"}, cli.stdout + cli.stderr
    flake8 = run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False)
    assert reported(flake8.stdout) == {"tools/train.py", "model.py"}, flake8.stdout + flake8.stderr


def test_flake8_own_selection_still_decides(tmp_path: Path):
    programs(tmp_path, ["a.py"])
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nselect = ["MSP103"]\n')
    assert reported(run_flake8("--select", "MSP", ".", cwd=tmp_path, isolated=False).stdout) == {"a.py"}
    assert reported(run_flake8("--select", "MSP101", ".", cwd=tmp_path, isolated=False).stdout) == set()
    shown = run_flake8("--select", "MSP", "--extend-ignore", "MSP103", ".", cwd=tmp_path, isolated=False)
    assert reported(shown.stdout) == set()


# --------------------------------------------------------------------------- excludes and .gitignore


TREE = ["src/model.py", "build/gen.py", "third_party/vendor.py", "examples/legacy/old.py"]


def walked(root: Path, config: Config, *paths: str, force: bool = False) -> Set[str]:
    """Files discovery finds under ``root`` with ``config`` (as the CLI calls it), relative to ``root``."""
    found = discover([str(root / p) for p in paths or (".",)], excluded=config.is_excluded,
                     named_excluded=config.is_excluded_with_parents if force or config.force_exclude else None,
                     respect_gitignore=config.respect_gitignore)
    return {Path(path).resolve().relative_to(root.resolve()).as_posix() for path in found.files}


def test_default_exclude_and_extend_exclude(tmp_path: Path):
    programs(tmp_path, TREE)
    assert walked(tmp_path, Config(source=None, root=tmp_path)) == {
        "src/model.py", "third_party/vendor.py", "examples/legacy/old.py"}
    config = load_config(write(tmp_path, "pyproject.toml",
                               '[tool.ms-perflint]\nextend-exclude = ["third_party", "examples/legacy/*"]\n'))
    assert walked(tmp_path, config) == {"src/model.py"}
    assert walked(tmp_path, config.overridden(exclude=("src", "build"), extend_exclude=())) == {
        "third_party/vendor.py", "examples/legacy/old.py"}
    # relative globs are rooted at the configuration's folder, wherever the run starts
    assert run_cli("--quiet", ".", cwd=tmp_path / "examples").stdout == ""
    assert reported(run_cli("--quiet", ".", cwd=tmp_path).stdout) == {"src/model.py"}


def test_exclude_replaces_the_defaults(tmp_path: Path):
    programs(tmp_path, TREE)
    config = load_config(write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nexclude = ["third_party"]\n'))
    assert walked(tmp_path, config) == {"src/model.py", "build/gen.py", "examples/legacy/old.py"}


def test_named_files_are_checked_unless_force_exclude(tmp_path: Path):
    programs(tmp_path, TREE)
    config = load_config(write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party"]\n'))
    named = ("src/model.py", "third_party/vendor.py", "build/gen.py")
    assert walked(tmp_path, config, *named) == set(named)
    assert walked(tmp_path, config, *named, force=True) == {"src/model.py"}
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party"]\nforce-exclude = true\n')
    assert reported(run_cli("--quiet", *named, cwd=tmp_path).stdout) == {"src/model.py"}
    assert reported(run_cli("--quiet", "--no-force-exclude", *named, cwd=tmp_path).stdout) == set(named)


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def test_gitignored_files_are_skipped_in_a_work_tree(tmp_path: Path):
    every = {"src/model.py", "generated/net_pb2.py", "src/cache_gen.py", "src/kept_gen.py"}
    programs(tmp_path, every)
    git(tmp_path, "init", "-q")
    write(tmp_path, ".gitignore", "generated/\n*_gen.py\n")
    git(tmp_path, "add", "-f", "src/kept_gen.py")  # tracked files are never ignored
    config = Config(source=None, root=tmp_path)
    assert walked(tmp_path, config) == {"src/model.py", "src/kept_gen.py"}
    assert walked(tmp_path, config, "src") == {"src/model.py", "src/kept_gen.py"}
    assert walked(tmp_path, config.overridden(respect_gitignore=False)) == every
    # a named file is checked unless force-exclude
    assert walked(tmp_path, config, "src/cache_gen.py") == {"src/cache_gen.py"}
    assert walked(tmp_path, config, "src/cache_gen.py", "src/model.py", force=True) == {"src/model.py"}
    assert reported(run_cli("--quiet", ".", cwd=tmp_path).stdout) == {"src/model.py", "src/kept_gen.py"}
    write(tmp_path, "pyproject.toml", "[tool.ms-perflint]\nrespect-gitignore = false\n")
    assert reported(run_cli("--quiet", ".", cwd=tmp_path).stdout) == every


def test_gitignore_is_not_read_outside_a_work_tree(tmp_path: Path):
    programs(tmp_path, ["src/model.py", "generated/net_pb2.py"])
    write(tmp_path, ".gitignore", "generated/\n")
    assert walked(tmp_path, Config(source=None, root=tmp_path)) == {"src/model.py", "generated/net_pb2.py"}


def test_discovery_walks_python_notebooks_and_yaml_and_reports_a_missing_path(tmp_path: Path):
    for name in ("train.py", "course.ipynb", "configs/run.yaml", "configs/run.yml", "run.sh", "notes.txt",
                 ".hidden/x.py", "pkg.egg-info/y.py", "__pycache__/z.py"):
        write(tmp_path, name, "")
    found = discover([str(tmp_path)])
    assert {Path(path).relative_to(tmp_path).as_posix() for path in found.files} == {
        "train.py", "course.ipynb", "configs/run.yaml", "configs/run.yml"}
    assert found.files == sorted(found.files)
    named = discover([str(tmp_path / "run.sh"), str(tmp_path / "notes.txt")])
    assert len(named.files) == 2  # a file named on the command line is always handed on
    with pytest.raises(Exception) as missing:
        discover([str(tmp_path / "gone.py")])
    assert type(missing.value).__name__ == "PathNotFound"


# --------------------------------------------------------------------------- describe_settings


def settings_rows(text: str) -> Dict[str, Tuple[str, str]]:
    """``{key: (value, source)}`` from the ``key = value  # source`` lines of :func:`describe_settings`."""
    rows = {}
    for line in text.splitlines():
        match = re.fullmatch(r"([a-z-]+) = (.*?)\s+# (.*)", line)
        if match:
            rows[match[1]] = (match[2], match[3])
    return rows


def rules_on(*off: str) -> str:
    """The codes --show-settings lists as on when ``off`` are turned off (every rule on by default but those)."""
    from ms_perflint.rules import ALL_RULES

    return ", ".join(rule.code for rule in ALL_RULES if rule.code not in off and not rule.opt_in)


def test_describe_settings_names_the_file_and_each_keys_value_and_source(tmp_path: Path):
    write(tmp_path, "pyproject.toml", PLAIN_PYPROJECT)
    config = write(tmp_path, "setup.cfg", "[ms-perflint]\nignore = MSP105\nascend_target = 910a\n"
                                          "per-file-ignores =\n    tests/*: MSP103\n")
    source = write(tmp_path, "tests/test_train.py", PROGRAM)
    text = describe_settings(str(source))
    assert f"Configuration file: {config.resolve()} ([ms-perflint] section" in text
    assert f"Passed over (no ms-perflint table): {(tmp_path / 'pyproject.toml').resolve()}" in text
    rows = settings_rows(text)
    every_key = {"select", "extend-select", "ignore", "extend-ignore", "per-file-ignores", "fixable", "unfixable", "exclude",
                 "extend-exclude", "force-exclude", "respect-gitignore", "project", "max-file-size",
                 "required-version", "mindspore-version", *rule_options()}
    assert set(rows) == every_key
    origin = str(config.resolve())
    assert rows["ignore"] == ('["MSP105"]', origin)
    assert rows["per-file-ignores"] == ('{ "tests/*" = ["MSP103"] }', origin)
    assert rows["ascend-target"] == ('"910a"', f"{origin} (MSP101 option)")
    assert rows["select"] == ('["MSP"]', "default")
    assert rows["max-file-size"] == ("2000000", "default")
    assert rows["required-version"] == ("(not set)", "default")
    assert f"Rules on: {rules_on('MSP103', 'MSP105')}\n" in text
    assert "Rules off: MSP001 (opt-in: select it by code), MSP103 (per-file-ignores), MSP105 (select/ignore)\n" in text
    assert f"Checked with its project: {tmp_path.resolve()}" in text


def test_describe_settings_with_defaults_isolated_config_flag_and_command_line(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # without a configuration file, relative excludes start at the current folder
    source = write(tmp_path, "build/train.py", PROGRAM)
    text = describe_settings(str(source))
    assert "Configuration file: none found at or above" in text
    assert all(where == "default" or where.startswith("default (") for _, where in settings_rows(text).values())
    assert "Skipped when a folder above it is checked (exclude, extend-exclude): yes" in text  # build/
    written = write(tmp_path, "ci/lint.toml", '[tool.ms-perflint]\nextend-ignore = ["MSP101"]\n')
    named = describe_settings(str(source), config_file=str(written),
                              overrides={"extend_ignore": ["MSP105"], "select": None, "force-exclude": True,
                                         "project": False})
    rows = settings_rows(named)
    assert f"Configuration file: {written.resolve()} (--config" in named
    assert rows["extend-ignore"] == ('["MSP101", "MSP105"]', f"{written.resolve()}, then command line")
    assert rows["force-exclude"] == ("true", "command line")
    assert rows["project"] == ("false", "command line")
    assert "Checked with its project: no (project = false)" in named
    assert rows["select"] == ('["MSP"]', "default")
    assert f"Rules on: {rules_on('MSP101', 'MSP105')}\n" in named
    isolated = describe_settings(str(source), isolated=True)
    assert "Configuration file: none (--isolated)" in isolated
    with pytest.raises(ValueError, match="not command-line keys: alignment"):
        describe_settings(str(source), overrides={"alignment": 8})


def test_describe_settings_of_a_bad_configuration_raises_the_configuration_error(tmp_path: Path):
    write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nselect = "MSP1"\n')
    with pytest.raises(ConfigError, match="select: expected a list"):
        describe_settings(str(write(tmp_path, "train.py", PROGRAM)))


# --------------------------------------------------------------------------- API details


def test_find_config_file_starts_at_a_file_folder(tmp_path: Path):
    config = write(tmp_path, "tox.ini", "[ms-perflint]\nignore = MSP105\n")
    source = write(tmp_path, "pkg/mod.py", "")
    assert find_config_file(source) == config.resolve()
    assert find_config_file(tmp_path / "pkg") == config.resolve()


def test_ini_lists_accept_commas_and_new_lines(tmp_path: Path):
    config = write(tmp_path, "setup.cfg", "[ms-perflint]\nextend_select = MSP1,\n    MSP10\nrespect-gitignore = off\n")
    loaded = load_config(config)
    assert loaded.extend_select == ("MSP1", "MSP10")
    assert loaded.respect_gitignore is False
    assert loaded.root == tmp_path.resolve()


def test_defaults_match_the_settings_defaults():
    settings = Config(source=None, root=Path(".")).settings()
    assert settings.select == ("MSP",) and settings.ignore == () and dict(settings.per_file_ignores) == {}


def test_configuration_reference_in_usage_docs_is_generated():
    text = (REPO / "docs" / "usage.md").read_text(encoding="utf-8")
    section = text[text.index(REFERENCE_START) + len(REFERENCE_START) : text.index(REFERENCE_END)]
    assert section == "\n\n" + render_reference() + "\n", "regenerate with `python -m ms_perflint.config`"
    for name in [*rule_options(), "select", "per-file-ignores", "required-version"]:
        assert f"| `{name}` |" in section


def test_reference_lists_every_declared_option_with_its_rule():
    reference = render_reference()
    for name, (code, option) in rule_options().items():
        row = next(line for line in reference.splitlines() if line.startswith(f"| `{name}` |"))
        assert code in row
        for choice in option.choices:
            assert str(choice) in row


def test_config_for_a_folder_starts_at_the_folder_itself(tmp_path: Path):
    """Regression: ``ms-perflint .`` looked for the configuration above the current folder, so its excludes were lost."""
    from ms_perflint.config import config_for_file, forget

    config = write(tmp_path, "pyproject.toml", '[tool.ms-perflint]\nextend-exclude = ["third_party"]\n')
    write(tmp_path, "src/model.py", "")
    forget()
    assert config_for_file(str(tmp_path)).source == config.resolve()
    assert config_for_file(str(tmp_path / "src" / "model.py")).source == config.resolve()


def test_jupyter_checkpoint_copies_are_not_walked(tmp_path: Path):
    """Regression: Jupyter's autosaved ``.ipynb_checkpoints/*-checkpoint.ipynb`` copies were reported twice over."""
    programs(tmp_path, ["train.py", ".ipynb_checkpoints/train-checkpoint.py"])
    write(tmp_path, ".ipynb_checkpoints/course-checkpoint.ipynb", "{}")
    assert walked(tmp_path, Config(source=None, root=tmp_path)) == {"train.py"}
    assert {Path(p).name for p in discover([str(tmp_path)]).files} == {"train.py"}


def test_yaml_in_hidden_folders_is_ci_configuration_not_a_model_config(tmp_path: Path):
    """mindyolo's .gitee/ISSUE_TEMPLATE/*.yml are issue forms (one is invalid YAML): a walk leaves them out;
    Python files there, and a YAML file named on the command line, are still checked."""
    programs(tmp_path, ["train.py", ".github/tools/check.py"])
    for name in (".gitee/ISSUE_TEMPLATE/Intern.yml", ".github/workflows/ci.yaml", "configs/run.yaml"):
        write(tmp_path, name, "run_mode: train\n")
    assert walked(tmp_path, Config(source=None, root=tmp_path)) == {
        "train.py", ".github/tools/check.py", "configs/run.yaml"}
    assert walked(tmp_path, Config(source=None, root=tmp_path), ".gitee/ISSUE_TEMPLATE/Intern.yml") == {
        ".gitee/ISSUE_TEMPLATE/Intern.yml"}


def test_a_git_work_tree_made_after_a_first_walk_is_seen(tmp_path: Path):
    """Nothing about work trees is remembered between calls: a long-lived process sees a later `git init`."""
    from ms_perflint.sources.discovery import gitignored

    programs(tmp_path, ["generated/net_pb2.py"])
    write(tmp_path, ".gitignore", "generated/\n")
    path = str(tmp_path / "generated" / "net_pb2.py")
    assert gitignored([path]) == set()
    git(tmp_path, "init", "-q")
    assert gitignored([path]) == {path}
