"""MSP501 summary-collected-every-step: SummaryCollector / SummaryMonitor collecting at every training step.

The development set has no finding (its one SummaryCollector collects every 50 steps, and no mindformers config
uses SummaryMonitor), so the look-alikes below are written after what real code does: a frequency from a config,
sink mode, histograms of a few layers, collectors in evaluation-only or unreached code.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_perflint.findings import FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp501_summary_collected_every_step import SummaryCollectedEveryStep
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

RULE = [SummaryCollectedEveryStep]

PROGRAM = """
from mindspore.train import Model, SummaryCollector

if __name__ == "__main__":
    summary = SummaryCollector({arguments})
    model = Model(net, loss_fn=loss, optimizer=opt)
    model.train(10, dataset, callbacks=[summary]{train})
"""


def lint(code: str, path: str = "train.py"):
    result = check_text(textwrap.dedent(code).lstrip("\n"), path, Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP501"]


def program(arguments: str, train: str = "", prelude: str = "") -> str:
    return prelude + PROGRAM.format(arguments=arguments, train=train)


# --- reported ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, column", [
    ('summary_dir="./summary", collect_freq=1', 70),
    ('"./summary", 1', 45),
])
def test_collect_freq_one_gets_the_default_as_an_unsafe_fix(arguments: str, column: int):
    code = program(arguments)
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(4, column)]
    assert found[0].fix is not None and found[0].fix.safety is FixSafety.UNSAFE
    fixed = apply_fix_text(textwrap.dedent(code).lstrip("\n"), [found[0].fix])
    assert f"SummaryCollector({arguments.replace('1', '10')})" in fixed
    assert lint(fixed) == []


def test_a_frequency_of_one_from_every_configuration_is_reported_without_a_fix():
    prelude = ("import argparse\nparser = argparse.ArgumentParser()\n"
               "parser.add_argument('--summary_freq', type=int, default=1)\nargs = parser.parse_args()\n")
    found = lint(program("'./summary', collect_freq=args.summary_freq", prelude=prelude))
    assert len(found) == 1 and found[0].fix is None


def test_mindformers_summary_monitor_in_python():
    code = """
    from mindformers.core import SummaryMonitor
    from mindspore.train import Model
    if __name__ == "__main__":
        Model(net).train(1, dataset, callbacks=[SummaryMonitor(collect_freq=1)])
    """
    assert [(f.line, f.column + 1) for f in lint(code)] == [(4, 73)]


def test_sink_mode_of_one_step_per_sink_still_collects_every_step():
    assert len(lint(program("'./summary', collect_freq=1", ", dataset_sink_mode=True, sink_size=1"))) == 1


def test_sink_mode_on_the_cpu_does_not_sink():
    code = program("'./summary', collect_freq=1", ", dataset_sink_mode=True").replace(
        'if __name__ == "__main__":\n',
        'import mindspore as ms\nif __name__ == "__main__":\n    ms.set_context(device_target="CPU")\n')
    assert len(lint(code)) == 1


def test_histograms_of_every_parameter():
    found = lint(program("'./summary', collect_specified_data={'histogram_regular': '.*'}"))
    assert len(found) == 1 and found[0].fix is None and "every parameter" in found[0].message


# --- silent ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, train", [
    ("'./summary'", ""),
    ("'./summary', collect_freq=50", ""),
    ("'./summary', collect_freq=args.freq", ""),
    ("'./summary', collect_freq=1", ", dataset_sink_mode=True"),
    ("'./summary', collect_freq=1", ", dataset_sink_mode=True, sink_size=100"),
    ("'./summary', collect_specified_data={'histogram_regular': '^conv1.*'}", ""),
    ("'./summary', collect_specified_data={'collect_graph': False}", ""),
    ("'./summary', collect_tensor_freq=1", ""),
])
def test_look_alikes_are_silent(arguments: str, train: str):
    assert lint(program(arguments, train)) == []


def test_a_collector_no_training_program_builds(tmp_path: Path):
    (tmp_path / "callbacks.py").write_text(textwrap.dedent("""
    from mindspore.train import SummaryCollector
    def summary_callback():
        return SummaryCollector("./summary", collect_freq=1)
    """))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [f for result in found.values() for f in result.findings] == []


def test_a_collector_under_a_flag_no_configuration_turns_on():
    prelude = ("import argparse\nparser = argparse.ArgumentParser()\n"
               "parser.add_argument('--summary', type=bool, default=False)\nargs = parser.parse_args()\n")
    code = prelude + textwrap.dedent("""
    from mindspore.train import Model, SummaryCollector
    callbacks = []
    if args.summary:
        callbacks.append(SummaryCollector("./summary", collect_freq=1))
    Model(net, loss, opt).train(10, dataset, callbacks=callbacks)
    """)
    assert lint(code) == []


# --- mindformers YAML ------------------------------------------------------------------------------------

YAML = """\
run_mode: '{mode}'
runner_config:
  epochs: 2
  batch_size: 1
  sink_mode: True
  sink_size: {sink_size}
callbacks:
  - type: MFLossMonitor
  - type: SummaryMonitor
    summary_dir: ./summary
    collect_freq: {frequency}
"""


def yaml_findings(tmp_path: Path, **values):
    settings = {"mode": "finetune", "sink_size": 1, "frequency": 1, **values}
    (tmp_path / "finetune_llama.yaml").write_text(YAML.format(**settings))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    return [f for result in found.values() for f in result.findings]


def test_a_yaml_summary_monitor_every_step_gets_the_default(tmp_path: Path):
    found = yaml_findings(tmp_path)
    assert [(f.line, f.column + 1) for f in found] == [(11, 19)]
    assert found[0].fix is not None and found[0].fix.safety is FixSafety.UNSAFE
    fixed = apply_fix_text((tmp_path / "finetune_llama.yaml").read_text(), [found[0].fix])
    assert fixed == YAML.format(mode="finetune", sink_size=1, frequency=10)


@pytest.mark.parametrize("values", [
    {"frequency": 10},
    {"mode": "predict"},
    {"sink_size": 100},
])
def test_yaml_look_alikes(tmp_path: Path, values):
    assert yaml_findings(tmp_path, **values) == []
