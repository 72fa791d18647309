"""MSP502 profiler-left-in-training: profiling every run of a training program or config does.

The development set has no finding: its profilers sit behind flags that default off (``need_profiler``,
``enable_profiling`` in a ModelArts wrapper), are stopped by a callback after N steps (mindyolo), and its mindformers
configs say ``profile: False``. Those shapes are the silent cases below.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ms_perflint.rules.msp502_profiler_left_in_training import ProfilerLeftInTraining
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

RULE = [ProfilerLeftInTraining]

TRAIN = """
import argparse
import mindspore as ms
from mindspore.train import Model

parser = argparse.ArgumentParser()
parser.add_argument("--profile", type=bool, default={default})
args = parser.parse_args()

def main():
{body}
    Model(net, loss, opt).train(10, dataset)

if __name__ == "__main__":
    main()
"""


def lint(code: str, path: str = "train.py"):
    result = check_text(textwrap.dedent(code).lstrip("\n"), path, Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP502"]


def train(body: str, default: str = "False") -> str:
    return TRAIN.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "), default=default)


# --- reported ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, column, label", [
    ('profiler = ms.Profiler(output_path="./profile")', 16, "mindspore.Profiler"),
    ("profiler = ms.profiler.profile(profile_memory=True)", 16, "mindspore.profiler.profile"),
    ("ms.set_context(enable_profiling=True)", 5, "set_context(enable_profiling=True)"),
    ("""os.environ["MS_PROFILER_OPTIONS"] = '{"start": true, "output_path": "./prof"}'""", 41, "MS_PROFILER_OPTIONS"),
])
def test_profiling_every_run_of_a_training_program(body: str, column: int, label: str):
    code = train(body).replace("import argparse\n", "import argparse\nimport os\n")
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(11, column)]
    assert found[0].message.startswith(label) and found[0].fix is None


def test_a_flag_that_defaults_on_profiles_every_run():
    code = train('if args.profile:\n    profiler = ms.Profiler(output_path="./profile")', default="True")
    assert [(f.line, f.column + 1) for f in lint(code)] == [(11, 20)]


def test_a_helper_that_builds_the_profiler_called_unconditionally():
    code = """
    import mindspore as ms
    from mindspore.train import Model
    def start_profiling(path):
        return ms.Profiler(output_path=path)
    if __name__ == "__main__":
        profiler = start_profiling("./profile")
        Model(net, loss, opt).train(10, dataset)
        profiler.analyse()
    """
    assert [(f.line, f.column + 1) for f in lint(code)] == [(4, 12)]


def test_a_profiler_stopped_after_training_still_profiles_every_step():
    code = """
    import mindspore as ms
    if __name__ == "__main__":
        profiler = ms.Profiler()
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for x, y in dataset.create_tuple_iterator():
            train_step(x, y)
        profiler.stop()
        profiler.analyse()
    """
    assert len(lint(code)) == 1


# --- silent ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    'if args.profile:\n    profiler = ms.Profiler(output_path="./profile")',
    'if not args.profile:\n    pass\nelse:\n    profiler = ms.Profiler()',
    "profiler = ms.Profiler(schedule=ms.profiler.schedule(wait=1, warmup=1, active=2, repeat=1))",
    "profiler = ms.Profiler(start_profile=False)",
    "profiler = ms.profiler.profile(start_profile=False)",
    "profiler = ms.Profiler(**profiler_options)",
    "ms.Profiler.offline_analyse(path='./profile')",
    """os.environ["MS_PROFILER_OPTIONS"] = '{"output_path": "./prof"}'""",
])
def test_profiling_that_is_off_limited_or_not_started(body: str):
    code = train(body).replace("import argparse\n", "import argparse\nimport os\n")
    assert lint(code) == []


def test_a_store_true_switch_is_off_by_default():
    code = train('if args.profile:\n    profiler = ms.Profiler()').replace(
        'parser.add_argument("--profile", type=bool, default=False)', 'parser.add_argument("--profile", action="store_true")')
    assert lint(code) == []


def test_a_helper_called_only_under_a_flag_that_defaults_off():
    code = """
    import argparse
    import mindspore as ms
    from mindspore.train import Model
    parser = argparse.ArgumentParser()
    parser.add_argument("--need_profiler", type=int, default=0)
    cfg = parser.parse_args()
    def network_init(cfg):
        return ms.Profiler(output_path="./profile")
    if __name__ == "__main__":
        if cfg.need_profiler:
            profiler = network_init(cfg)
        Model(net, loss, opt).train(10, dataset)
    """
    assert lint(code) == []


def test_a_profiler_a_callback_stops_after_some_steps():
    code = """
    import mindspore as ms
    from mindspore.train import Callback, Model
    class ProfilerCallback(Callback):
        def __init__(self, steps):
            self.steps = steps
        def on_train_begin(self, run_context):
            self.prof = ms.Profiler(output_path="./profiling_data")
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == self.steps:
                self.prof.stop()
                self.prof.analyse()
    if __name__ == "__main__":
        Model(net, loss, opt).train(10, dataset, callbacks=[ProfilerCallback(20)])
    """
    assert lint(code) == []


def test_a_profiler_stopped_in_the_training_loop():
    code = """
    import mindspore as ms
    if __name__ == "__main__":
        profiler = ms.Profiler()
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for step, (x, y) in enumerate(dataset.create_tuple_iterator()):
            train_step(x, y)
            if step == 10:
                profiler.stop()
    """
    assert lint(code) == []


def test_a_profiling_script_by_name(tmp_path: Path):
    code = train('profiler = ms.Profiler(output_path="./profile")')
    assert lint(code, "profile_train.py") == []
    (tmp_path / "profiling").mkdir()
    (tmp_path / "profiling" / "train.py").write_text(textwrap.dedent(code))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [f for result in found.values() for f in result.findings] == []


def test_a_program_that_does_not_train():
    code = """
    import mindspore as ms
    if __name__ == "__main__":
        profiler = ms.Profiler()
        for x in dataset.create_tuple_iterator():
            net(x)
        profiler.analyse()
    """
    assert lint(code) == []


# --- mindformers YAML ------------------------------------------------------------------------------------

CONFIG = """\
run_mode: '{mode}'
seed: 0
profile: {profile}
profile_start_step: 4
profile_stop_step: 8
profile_memory: True
profile_communication: False
runner_config:
  epochs: 2
  sink_mode: True
"""


def yaml_findings(tmp_path: Path, name: str = "finetune_llama.yaml", **values):
    settings = {"mode": "finetune", "profile": "True", **values}
    (tmp_path / name).write_text(CONFIG.format(**settings))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    return [f for result in found.values() for f in result.findings]


def test_a_training_config_that_profiles(tmp_path: Path):
    found = yaml_findings(tmp_path)
    assert [(f.line, f.column + 1) for f in found] == [(3, 10)]
    assert "steps 4 to 8" in found[0].message and "profile_memory" in found[0].message
    assert "profile_communication" not in found[0].message and found[0].fix is None


@pytest.mark.parametrize("name, values", [
    ("finetune_llama.yaml", {"profile": "False"}),
    ("finetune_llama.yaml", {"mode": "predict"}),
    ("profile_llama.yaml", {}),
])
def test_configs_that_do_not_profile_a_training_run(tmp_path: Path, name: str, values):
    assert yaml_findings(tmp_path, name, **values) == []


def test_a_yaml_that_is_not_a_mindformers_config(tmp_path: Path):
    (tmp_path / "tool.yaml").write_text("profile: True\noutput: ./out\n")
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [f for result in found.values() for f in result.findings] == []
