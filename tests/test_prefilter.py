"""The text prefilter (skip files no enabled rule can fire on) must never hide a finding.

``engine.could_fire`` decides from the text alone whether a file is parsed. These
tests lint every fixture and every rule example with the prefilter and with it
forced open, both with all rules and with each rule alone (a rule whose markers
miss a spelling would otherwise be hidden by another rule's marker letting the
file through), and require identical findings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from ms_perflint import engine
from ms_perflint.rules import ALL_RULES, RULES_BY_CODE
from ms_perflint.settings import Settings
from tests.conftest import FIXTURES

#: (name, code, rule options) for every example the rules carry.
EXAMPLES = [
    (f"{rule.code}-{kind}-{index}", example.source, dict(example.options))
    for rule in ALL_RULES
    for kind, examples in (("valid", rule.valid), ("invalid", rule.invalid))
    for index, example in enumerate(examples)
]
#: Single-file fixtures (project fixtures need their whole folder, see test_project_fixtures).
FIXTURE_FILES = sorted(path for path in FIXTURES.glob("MSP*/*.py"))


def findings(code: str, path: str, options: dict, codes: Tuple[str, ...]) -> List[tuple]:
    settings = Settings(select=codes, rule_options=options)
    result = engine.lint_source(code, path, settings)
    assert result.error is None, result.error
    return [(v.code, v.line, v.column, v.message, v.fix is not None) for v in result.violations]


def with_and_without_prefilter(monkeypatch, code: str, path: str, options: dict, codes: Tuple[str, ...]):
    filtered = findings(code, path, options, codes)
    with monkeypatch.context() as patch:
        patch.setattr(engine, "could_fire", lambda text, rules: True)
        unfiltered = findings(code, path, options, codes)
    return filtered, unfiltered


CODE_SETS = [("MSP",)] + [(rule.code,) for rule in ALL_RULES]


@pytest.mark.parametrize("codes", CODE_SETS, ids=["all"] + [rule.code for rule in ALL_RULES])
@pytest.mark.parametrize("name, code, options", EXAMPLES, ids=[name for name, _, _ in EXAMPLES])
def test_rule_examples_same_with_and_without_prefilter(monkeypatch, name, code, options, codes):
    filtered, unfiltered = with_and_without_prefilter(monkeypatch, code, "example.py", options, codes)
    assert filtered == unfiltered


@pytest.mark.parametrize("codes", CODE_SETS, ids=["all"] + [rule.code for rule in ALL_RULES])
@pytest.mark.parametrize("case", FIXTURE_FILES, ids=[f"{p.parent.name}/{p.name}" for p in FIXTURE_FILES])
def test_fixtures_same_with_and_without_prefilter(monkeypatch, case: Path, codes):
    filtered, unfiltered = with_and_without_prefilter(monkeypatch, case.read_text(encoding="utf-8"), str(case), {}, codes)
    assert filtered == unfiltered


def test_the_comparison_can_see_a_missed_finding(monkeypatch):
    """Control: a prefilter that rejects everything does hide an invalid example's finding."""
    rule = RULES_BY_CODE["MSP103"]
    code = rule.invalid[0].source
    monkeypatch.setattr(engine, "could_fire", lambda text, rules: False)
    assert findings(code, "example.py", {}, ("MSP",)) == []


def test_invalid_examples_contain_a_marker_of_their_rule():
    for rule in ALL_RULES:
        for example in rule.invalid:
            assert engine.could_fire(example.source, [rule]), f"{rule.code} marker missing from {example.source!r}"


def test_a_file_without_mindspore_is_never_parsed(monkeypatch):
    def no_parsing(*args, **kwargs):
        raise AssertionError("parsed a file the prefilter should have skipped")

    monkeypatch.setattr(engine.cst, "parse_module", no_parsing)
    torch_code = "import torch\nfrom torchvision.models import resnet50\nnet = resnet50(num_classes=1000)\nx = a @ b\n"
    result = engine.lint_source(torch_code, "train.py", Settings())
    assert result.error is None and result.violations == []


def test_a_mindspore_file_without_any_marker_is_never_parsed(monkeypatch):
    monkeypatch.setattr(engine.cst, "parse_module", lambda *a, **k: (_ for _ in ()).throw(AssertionError("parsed")))
    code = "import mindspore\nprint(mindspore.__version__)\n"
    assert engine.lint_source(code, "version.py", Settings()).violations == []


def _imports_libcst(*flake8_args: str, folder: Path) -> bool:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "flake8", "--isolated", *flake8_args, str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert completed.returncode in (0, 1), completed.stderr[-2000:]
    imported = [line.rsplit("|", 1)[-1].strip() for line in completed.stderr.splitlines() if line.startswith("import time:")]
    return any(name == "libcst" or name.startswith("libcst.") for name in imported)


@pytest.fixture(scope="module")
def mindspore_file(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("flake8-imports")
    (folder / "train.py").write_text(
        "import mindspore\nfrom mindspore.train import CheckpointConfig\nconfig = CheckpointConfig(save_checkpoint_steps=10)\n"
    )
    return folder


def test_flake8_without_msp_selected_never_imports_libcst(mindspore_file: Path):
    assert not _imports_libcst("--select", "E,F,W", "-j", "1", folder=mindspore_file)


def test_flake8_with_msp_selected_does_import_libcst(mindspore_file: Path):
    """Control for the test above: the import check sees libcst when the plugin really runs."""
    assert _imports_libcst("--select", "MSP", "-j", "1", folder=mindspore_file)
