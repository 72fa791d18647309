"""MSP001 unused-noqa: the tool's noqa codes that suppress nothing (opt-in), and their removal."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings
from tests.conftest import run_cli

SELECTED = Settings(extend_select=("MSP001",))

PROGRAM = textwrap.dedent("""\
    from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

    if __name__ == "__main__":
        done = CheckpointConfig(save_checkpoint_steps=10, async_save=True)  # noqa: MSP103, E501
        stale = CheckpointConfig(save_checkpoint_steps=10, async_save=True)  # noqa: MSP103,MSP104 keep this note
        needed = CheckpointConfig(save_checkpoint_steps=10)  # noqa: MSP103
        blanket = CheckpointConfig(save_checkpoint_steps=10, async_save=True)  # noqa
        calls = [ModelCheckpoint(config=done), ModelCheckpoint(config=stale), ModelCheckpoint(config=needed),
                 ModelCheckpoint(config=blanket)]
        Model(net, loss, opt).train(5, data, callbacks=calls)
    """)


def test_unused_codes_are_reported_and_removed_keeping_other_tools_codes_and_notes():
    result = check_text(PROGRAM, "train.py", SELECTED)
    found = [(f.line, f.column + 1, f.message) for f in result.findings if f.code == "MSP001"]
    assert found == [(4, 73, "unused noqa: MSP103 suppresses nothing on this line"),
                     (5, 74, "unused noqa: MSP103, MSP104 suppresses nothing on this line")]
    fixes = [f.fix for f in result.findings if f.code == "MSP001"]
    fixed = apply_fix_text(PROGRAM, fixes).splitlines()
    assert fixed[3].endswith("async_save=True)  # noqa: E501")
    assert fixed[4].endswith("async_save=True)  # keep this note")  # the note stays a comment
    assert fixed[5].endswith("# noqa: MSP103") and fixed[6].endswith("# noqa")


def test_off_by_default_and_silent_for_codes_the_run_does_not_check():
    assert [f for f in check_text(PROGRAM, "train.py", Settings()).findings if f.code == "MSP001"] == []
    narrow = Settings(select=("MSP101", "MSP001"))  # MSP103 is not checked: its comments are someone else's
    assert [f.line for f in check_text(PROGRAM, "train.py", narrow).findings if f.code == "MSP001"] == []


def test_a_yaml_noqa_that_suppresses_nothing(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.ms-perflint]\nextend-select = ['MSP001']\n")
    config = "run_mode: train\ncallbacks:\n  - type: CheckpointMonitor  # noqa: MSP103\n    async_save: True\n"
    (tmp_path / "run.yaml").write_text(config)
    completed = run_cli("-q", ".", cwd=tmp_path)
    assert completed.stdout == "run.yaml:3:30: MSP001 [*] unused noqa: MSP103 suppresses nothing on this line\n"
    assert run_cli("--fix", ".", cwd=tmp_path).returncode == 0
    assert (tmp_path / "run.yaml").read_text() == config.replace("  # noqa: MSP103", "")


def test_a_file_directive_turns_it_off_for_the_file():
    text = "# ms-perflint: noqa: MSP001\n" + PROGRAM
    assert [f for f in check_text(text, "train.py", SELECTED).findings if f.code == "MSP001"] == []
