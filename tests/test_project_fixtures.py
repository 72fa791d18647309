"""Fixture projects (tests/projects/<case>/): one cross-file situation each, with look-alikes.

Each project has a ``pyproject.toml`` (so it is its own project root) and an
``expected.txt`` listing every finding of the whole project as
``path:LINE:COL CODE`` (1-based column, paths relative to the project). The
engine, the real CLI process and the real flake8 process must all report exactly
those; flake8 sees Python files only, so config-file findings are the CLI's.
Projects are copied to a temporary folder first: linting writes the index cache.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from ms_perflint.engine import lint_file
from ms_perflint.settings import Settings
from tests.conftest import run_cli, run_flake8

PROJECTS = Path(__file__).resolve().parent / "projects"
CASES = sorted(path.name for path in PROJECTS.iterdir() if (path / "expected.txt").exists())
_FINDING = re.compile(r"^(?:\./)?(?P<path>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b")

Finding = Tuple[str, int, int, str]


def expected(case: str) -> Set[Finding]:
    rows = set()
    for raw in (PROJECTS / case / "expected.txt").read_text().splitlines():
        if raw.strip():
            where, code = raw.split()
            path, line, col = where.rsplit(":", 2)
            rows.add((path, int(line), int(col), code))
    return rows


def python_only(findings: Set[Finding]) -> Set[Finding]:
    return {finding for finding in findings if finding[0].endswith(".py")}


def parse(stdout: str) -> List[Finding]:
    found = []
    for raw in stdout.splitlines():
        match = _FINDING.match(raw)
        if match:
            found.append((match["path"], int(match["line"]), int(match["col"]), match["code"]))
    return found


@pytest.fixture
def project(request, tmp_path: Path) -> Path:
    copy = tmp_path / request.param
    shutil.copytree(PROJECTS / request.param, copy, ignore=shutil.ignore_patterns("expected.txt", ".ms_perflint_cache"))
    return copy


def test_every_project_is_its_own_root_and_has_expectations():
    assert CASES, "no fixture projects"
    for case in CASES:
        assert (PROJECTS / case / "pyproject.toml").exists(), case


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_engine_matches_expected(project: Path):
    settings = Settings(project=True)
    found = set()
    for path in sorted(project.rglob("*.py")):
        result = lint_file(str(path), settings)
        assert result.error is None, result.error
        relative = path.relative_to(project).as_posix()
        found |= {(relative, v.line, v.column + 1, v.code) for v in result.violations}
    assert found == python_only(expected(project.name))


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_cli_matches_expected_including_config_files(project: Path):
    completed = run_cli(".", "--quiet", cwd=project)
    assert completed.returncode == (1 if expected(project.name) else 0), completed.stderr
    found = parse(completed.stdout)
    assert len(found) == len(set(found)), "a finding was reported twice"
    assert set(found) == expected(project.name)


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_cli_without_cache_matches_expected_and_writes_no_cache(project: Path):
    # The project index is then built in memory: same cross-file findings, nothing on disk.
    completed = run_cli(".", "--quiet", "--no-cache", cwd=project)
    assert set(parse(completed.stdout)) == expected(project.name), completed.stderr
    assert not (project / ".ms_perflint_cache").exists()


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_add_noqa_silences_every_finding_python_and_yaml_by_appending_comments(project: Path):
    before = {path: path.read_text() for path in project.rglob("*") if path.is_file()}
    added = run_cli(".", "--add-noqa", cwd=project)
    assert added.returncode == 0, added.stderr
    after = run_cli(".", "--quiet", cwd=project)
    assert after.returncode == 0 and parse(after.stdout) == [], after.stdout
    for path, old in before.items():
        new = path.read_text()
        if new == old:
            continue
        old_lines, new_lines = old.splitlines(), new.splitlines()
        assert len(old_lines) == len(new_lines), path
        for old_line, new_line in zip(old_lines, new_lines):  # a changed line only gains a comment at its end
            assert new_line == old_line or (new_line.startswith(old_line.rstrip()) and "# noqa: MSP" in new_line), path
    changed_yaml = [path for path, old in before.items() if path.suffix == ".yaml" and path.read_text() != old]
    yaml_expected = {finding[0] for finding in expected(project.name) if finding[0].endswith(".yaml")}
    assert {path.relative_to(project).as_posix() for path in changed_yaml} == yaml_expected


@pytest.mark.parametrize("project", ["resnet50_class_counts"], indirect=True)
def test_json_output_gives_the_edit_of_a_yaml_fix(project: Path):
    import json

    completed = run_cli(".", "--quiet", "--output-format", "json", cwd=project)
    [finding] = [item for item in json.loads(completed.stdout) if item["filename"].endswith(".yaml")]
    assert finding["location"] == {"row": 4, "column": 12}
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["fix"]["edits"] == [
        {"content": "1001", "location": {"row": 4, "column": 12}, "end_location": {"row": 4, "column": 16}}
    ]


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_flake8_agrees_with_the_cli_on_python_files(project: Path):
    completed = run_flake8("--select", "MSP", ".", cwd=project)
    assert completed.returncode in (0, 1), completed.stderr
    assert set(parse(completed.stdout)) == python_only(expected(project.name))


@pytest.mark.parametrize("project", CASES, indirect=True)
def test_flake8_with_parallel_workers_agrees(project: Path):
    completed = run_flake8("--select", "MSP", "-j", "3", ".", cwd=project)
    assert completed.returncode in (0, 1), completed.stderr
    assert set(parse(completed.stdout)) == python_only(expected(project.name))


@pytest.mark.parametrize("project", ["amp_in_train"], indirect=True)
def test_no_project_lints_each_file_alone(project: Path):
    completed = run_cli(".", "--quiet", "--no-project", cwd=project)
    # Without train.py's Model(amp_level="O2") every Dense is fp32.
    assert set(parse(completed.stdout)) == {
        ("src/head.py", 7, 22, "MSP101"),
        ("src/model.py", 11, 19, "MSP101"),
        ("tools/probe.py", 8, 19, "MSP101"),
    }


@pytest.mark.parametrize("project", ["amp_in_train"], indirect=True)
def test_project_false_in_the_configuration_turns_project_mode_off_for_cli_and_flake8(project: Path):
    alone = run_cli(".", "--quiet", "--no-project", cwd=project)
    with_project = run_cli(".", "--quiet", cwd=project)
    assert set(parse(alone.stdout)) != set(parse(with_project.stdout))  # the project matters here
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.ms-perflint]\nproject = false\n")
    configured = run_cli(".", "--quiet", cwd=project)
    assert set(parse(configured.stdout)) == set(parse(alone.stdout)), configured.stderr
    flake8 = run_flake8("--select", "MSP", ".", cwd=project)
    assert set(parse(flake8.stdout)) == python_only(set(parse(alone.stdout))), flake8.stderr


@pytest.mark.parametrize("project", ["amp_in_train"], indirect=True)
def test_a_single_file_inside_a_project_still_uses_the_project(project: Path):
    completed = run_cli("src/model.py", "--quiet", cwd=project)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert parse(completed.stdout) == []


@pytest.mark.parametrize("project", ["amp_level_from_configs"], indirect=True)
def test_trace_coverage_names_the_mechanism_and_the_config_that_decides_it(project: Path):
    completed = run_cli("--trace-coverage", "src/network.py", cwd=project)
    assert completed.returncode == 0
    assert completed.stderr.splitlines() == [
        "src/network.py:4: Network: covered by Model(amp_level=args.amp_level) at train.py:13 "
        "(--amp_level 'O2' at scripts/run_train.sh:4)"
    ]


@pytest.mark.parametrize("project", ["amp_level_o0_everywhere"], indirect=True)
def test_trace_coverage_lists_why_nothing_covers(project: Path):
    completed = run_cli("--trace-coverage", "--quiet", "src/network.py", cwd=project)
    assert completed.stderr.splitlines() == [
        "src/network.py:4: Network: not covered",
        "    Model(amp_level=args.amp_level) at train.py:13 keeps fp32: every configured value keeps fp32 "
        "(argparse default 'O0' at src/args.py:6, amp_level: 'O0' at config/default_config.yaml:3, "
        "--amp_level 'O0' at scripts/run_train.sh:2)",
    ]


@pytest.mark.parametrize("project", ["autotune_and_profiler"], indirect=True)
def test_msp105_message_names_the_other_file(project: Path):
    completed = run_cli("src/dataset.py", cwd=project)
    assert "mindspore.Profiler at train.py:7" in completed.stdout  # line 7: `    profiler = ms.Profiler(...)`


@pytest.mark.parametrize("project", ["mindformers_checkpoint"], indirect=True)
def test_yaml_fix_inserts_async_save_and_keeps_everything_else(project: Path):
    config = project / "configs/run_llama_7b.yaml"
    before = config.read_text()
    completed = run_cli(".", "--fix", cwd=project)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert config.read_text() == before.replace(
        "  - type: CheckpointMonitor\n", "  - type: CheckpointMonitor\n    async_save: True\n"
    )
    assert parse(run_cli(".", "--quiet", cwd=project).stdout) == []


@pytest.mark.parametrize("project", ["resnet50_class_counts"], indirect=True)
def test_diff_shows_the_yaml_fix_and_writes_nothing(project: Path):
    config = project / "config/resnet50_imagenet2012_config.yaml"
    before = config.read_text()
    completed = run_cli(".", "--diff", "--unsafe-fixes", cwd=project)
    assert completed.returncode == 1
    assert "-class_num: 1000      # ImageNet classes\n+class_num: 1001      # ImageNet classes" in completed.stdout
    assert config.read_text() == before


@pytest.mark.parametrize("project", ["resnet50_class_counts"], indirect=True)
def test_unsafe_fixes_change_every_class_count_source_to_1001(project: Path):
    names = ("config/resnet50_imagenet2012_config.yaml", "src/config.py", "eval.py",
             "config/resnet18_imagenet2012_config.yaml")
    files = {name: (project / name).read_text() for name in names}
    safe_only = run_cli(".", "--fix", cwd=project)
    assert safe_only.returncode == 1  # the fixes are unsafe: nothing changes without --unsafe-fixes
    assert all((project / name).read_text() == text for name, text in files.items())

    completed = run_cli(".", "--fix", "--unsafe-fixes", cwd=project)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert (project / "config/resnet50_imagenet2012_config.yaml").read_text() == files[
        "config/resnet50_imagenet2012_config.yaml"].replace("class_num: 1000 ", "class_num: 1001 ")
    assert (project / "src/config.py").read_text() == files["src/config.py"].replace(
        '    "class_num": 1000,\n    "lr"', '    "class_num": 1001,\n    "lr"')
    assert (project / "eval.py").read_text() == files["eval.py"].replace(
        '"--class_num", type=int, default=1000', '"--class_num", type=int, default=1001')
    assert (project / "config/resnet18_imagenet2012_config.yaml").read_text() == files[
        "config/resnet18_imagenet2012_config.yaml"]
    assert parse(run_cli(".", "--quiet", cwd=project).stdout) == []


@pytest.mark.parametrize("project", ["resnet50_class_counts"], indirect=True)
def test_config_findings_cost_one_listing_per_project_however_many_files_are_named(project: Path, monkeypatch):
    from ms_perflint.project import cli_support

    listed = []
    original = cli_support._project_configs
    monkeypatch.setattr(cli_support, "_project_configs", lambda root, settings: listed.append(root) or original(root, settings))
    settings = Settings(project=True)
    named = [str(path) for path in sorted(project.rglob("*.py"))] * 50  # pre-commit passes files by name
    assert cli_support.config_results(named, settings) == []  # a Python file has no config under it
    assert listed == []
    results = cli_support.config_results([*named, str(project / "config"), str(project)], settings)
    assert listed == [str(project)]
    assert [Path(result.path).name for result in results] == ["resnet50_imagenet2012_config.yaml"]
