"""YAML configs and shell launch scripts (``ms_perflint.project.configs``)."""

from __future__ import annotations

import textwrap

import pytest

from ms_perflint.project.configs import ConfigFinding, TextEdit, apply_edits, is_suppressed, scan_shell, scan_yaml


def yaml_text(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


MINDCV_STYLE = yaml_text(
    """
    # system
    mode: 0
    # model
    model: 'resnet50'
    num_classes: 1000   # ImageNet
    amp_level: "O2"
    """
)


def test_mindcv_style_resnet50_with_1000_classes_is_reported_at_the_value():
    scan = scan_yaml(MINDCV_STYLE)
    assert scan.error is None
    assert [(f.code, f.line, f.column, f.safety) for f in scan.findings] == [("MSP104", 5, 13, "unsafe")]
    assert (scan.findings[0].end_line, scan.findings[0].end_column) == (5, 17)  # just past "1000"
    assert "model: resnet50 at line 4" in scan.findings[0].message


def test_fix_changes_only_the_number_keeping_comments_and_quotes():
    scan = scan_yaml(MINDCV_STYLE)
    fixed = apply_edits(MINDCV_STYLE, [f.edit for f in scan.findings])
    assert fixed == MINDCV_STYLE.replace("num_classes: 1000   # ImageNet", "num_classes: 1001   # ImageNet")


def test_config_values_are_recorded_with_positions():
    scan = scan_yaml(MINDCV_STYLE)
    assert [(e.key, e.value, e.line, e.column) for e in scan.entries] == [
        ("num_classes", 1000, 5, 13),
        ("amp_level", "O2", 6, 11),
    ]


def test_model_zoo_style_nested_config():
    text = yaml_text(
        """
        net_name: "resnet50"
        train:
          class_num: 1000
          epoch_size: 90
        """
    )
    scan = scan_yaml(text)
    assert [(f.line, f.column) for f in scan.findings] == [(3, 13)]


@pytest.mark.parametrize(
    "text",
    [
        "model: resnet50\nnum_classes: 1001\n",
        "model: resnet18\nnum_classes: 1000\n",
        "model: resnet50\nnum_classes: '1000'\n",
        "model: resnet50\nnum_classes: 1000\npretrained: True\n",
        "net_name: resnet50\nclass_num: 1000\ncheckpoint_file_path: './resnet50_imagenet.ckpt'\n",
        "description: train resnet50 on imagenet\nnum_classes: 1000\n",
        "model: resnet50\nnum_classes: 10\n---\nnum_classes: 1000\n",
    ],
    ids=["1001", "resnet18", "string", "pretrained", "checkpoint", "mention-only", "other-document"],
)
def test_look_alikes_are_not_reported(text):
    assert scan_yaml(text).findings == []


def test_checkpoint_monitor_without_async_save_gets_a_line_inserted():
    text = yaml_text(
        """
        callbacks:
          - type: MFLossMonitor
          - type: CheckpointMonitor
            prefix: "llama2_7b"
            save_checkpoint_steps: 100
        """
    )
    scan = scan_yaml(text)
    assert [(f.code, f.line, f.column, f.safety) for f in scan.findings] == [("MSP103", 3, 10, "safe")]
    fixed = apply_edits(text, [scan.findings[0].edit])
    assert fixed == text.replace("  - type: CheckpointMonitor\n", "  - type: CheckpointMonitor\n    async_save: True\n")
    assert scan_yaml(fixed).findings == []


def test_checkpoint_monitor_async_save_false_is_an_unsafe_fix():
    text = "callbacks:\n  - type: CheckpointMonitor\n    async_save: False  # keep\n"
    scan = scan_yaml(text)
    assert [(f.line, f.column, f.safety) for f in scan.findings] == [(3, 16, "unsafe")]
    fixed = apply_edits(text, [scan.findings[0].edit])
    assert fixed == "callbacks:\n  - type: CheckpointMonitor\n    async_save: True  # keep\n"


def test_checkpoint_monitor_already_async_or_in_flow_style():
    assert scan_yaml("callbacks:\n  - type: CheckpointMonitor\n    async_save: True\n").findings == []
    flow = scan_yaml("callbacks: [{type: CheckpointMonitor, prefix: x}]\n").findings
    # Reported, but a line cannot be inserted into a flow mapping: no fix.
    assert [(f.code, f.line, f.column, f.edit, f.safety) for f in flow] == [("MSP103", 1, 19, None, None)]


def test_invalid_yaml_is_an_error_not_an_exception():
    scan = scan_yaml("model: resnet50\nnum_classes: [1000\n")
    assert scan.error and scan.findings == []


def test_yaml_noqa_comment_suppresses_the_finding():
    lines = ["model: resnet50", "num_classes: 1000  # noqa: MSP104", "x: 1  # noqa: MSP103"]
    finding = ConfigFinding("MSP104", "m", 2, 13)
    assert is_suppressed(lines, finding)
    assert not is_suppressed(lines, ConfigFinding("MSP104", "m", 3, 3))


def test_apply_edits_skips_an_edit_whose_text_moved_and_keeps_crlf():
    text = "model: resnet50\r\nnum_classes: 1000\r\n"
    assert apply_edits(text, [TextEdit(2, 13, "1000", "1001")]) == "model: resnet50\r\nnum_classes: 1001\r\n"
    assert apply_edits(text, [TextEdit(2, 12, "1000", "1001")]) == text


def test_shell_arguments_of_python_commands():
    script = textwrap.dedent(
        """\
        #!/bin/bash
        # python train.py --amp_level O3   (a comment)
        python ${BASE}/../train.py --data_path=$1 \\
            --amp_level O2 \\
            --profile=False > log.txt 2>&1 &
        python3 eval.py --amp_level="O0" --class_num 1000
        python train.py --amp_level $LEVEL
        echo --amp_level O1
        """
    )
    found = [(e.owner, e.key, e.value, e.line, e.column) for e in scan_shell(script)]
    assert found == [
        ("shell:train.py", "amp_level", "O2", 4, 16),
        ("shell:train.py", "profile", False, 5, 14),
        ("shell:eval.py", "amp_level", "O0", 6, 29),
        ("shell:eval.py", "class_num", 1000, 6, 45),
    ]


def test_shell_with_unbalanced_quotes_is_skipped_quietly():
    assert scan_shell('python train.py --amp_level "O2\n') == []


def test_absurdly_nested_yaml_is_an_error_not_a_crash():
    text = "model: resnet50\nnum_classes: " + "[" * 5000 + "]" * 5000 + "\n"
    scan = scan_yaml(text)
    assert scan.findings == [] and scan.error
