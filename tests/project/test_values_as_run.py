"""Values as the program runs them: several candidates per name, each under the test that selects it.

Each test is a shape seen on public training programs the rules were not tuned on (issue "values as the program
runs them"), written as a small program of its own.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst

from ms_perflint.analysis.facts import EITHER, LIT, OP, UNKNOWN
from ms_perflint.analysis.python import extract_python
from tests.conftest import check, check_project, codes_at, write_project

MLP = """
import argparse
import mindspore as ms
from mindspore import nn
from mindspore.train import Model


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4096, 4096)
        self.fc2 = nn.Dense(4096, 4096)

    def construct(self, x):
        return self.fc2(self.fc1(x))


parser = argparse.ArgumentParser()
parser.add_argument("--device_target", default="{device}")
args = parser.parse_args()
ms.set_context(device_target=args.device_target)
"""


def _mlp(device: str, body: str) -> str:
    return textwrap.dedent(MLP).replace("{device}", device) + textwrap.dedent(body)


def _facts(code: str):
    return extract_python(cst.parse_module(textwrap.dedent(code)), textwrap.dedent(code), "m")


# --- the arm the run takes -----------------------------------------------------------------------


def test_an_amp_level_chosen_by_device_takes_the_ascend_arm_not_the_textually_last():
    code = _mlp("Ascend", """
    if args.device_target == "Ascend":
        amp = "O3"
    elif args.device_target == "GPU":
        amp = "O0"
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=amp)
    model.train(10, None)
    """)
    assert [f for f in check(code) if f.code == "MSP101"] == []


def test_an_ascend_run_that_takes_the_fp32_arm_is_reported():
    """The look-alike the other way round: the mixed-precision arm belongs to GPU runs; the Ascend default runs O0."""
    code = _mlp("Ascend", """
    if args.device_target == "GPU":
        amp = "O2"
    else:
        amp = "O0"
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=amp)
    model.train(10, None)
    """)
    assert [f.line for f in check(code) if f.code == "MSP101"] == [27]  # the Model(...) call


def test_an_undecided_test_keeps_both_arms_and_an_unknown_arm_covers():
    """``if os.environ.get(...)``: no run decides it, both arms are candidates, and O3 in one of them covers."""
    code = _mlp("Ascend", """
    import os
    amp = "O0"
    if os.environ.get("FAST"):
        amp = "O3"
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=amp)
    model.train(10, None)
    """)
    assert [f for f in check(code) if f.code == "MSP101"] == []


def test_a_branch_that_leaves_does_not_bind_what_follows():
    facts = _facts("""
    from mindspore.train import Model
    def f(flag):
        amp = "O2"
        if flag:
            amp = "O0"
            return None
        return Model(amp_level=amp)
    """)
    model = next(c for c in facts.calls if c.kwargs.get("amp_level") is not None)
    assert model.kwargs["amp_level"].kind == LIT and model.kwargs["amp_level"].data == "O2"


def test_a_name_bound_in_both_arms_holds_both_candidates_under_the_test():
    facts = _facts("""
    from mindspore.train import Model
    def f(mode):
        if mode == "train":
            drop = True
        else:
            drop = False
        return Model(drop)
    """)
    value = next(c for c in facts.calls if c.args).args[0]
    assert value.kind == OP and value.data == "ifexp"
    test, chosen, other = value.parts
    assert test.data == "==" and (chosen.data, other.data) == (True, False)


def test_self_attributes_set_in_the_arms_of_a_method_are_merged_too():
    facts = _facts("""
    import mindspore as ms
    class Net(ms.nn.Cell):
        def __init__(self, platform):
            super().__init__()
            self.dtype = ms.float32
            if platform == "Ascend":
                self.dtype = ms.float16
    """)
    value = facts.classes["Net"].attrs["dtype"]
    assert value.kind == OP and value.data == "ifexp"


# --- a helper called with mode="train" takes that arm --------------------------------------------------

DATASET = """
import mindspore as ms
import mindspore.dataset as ds
from mindspore import nn
from mindspore.train import Model

ms.set_context(mode=ms.GRAPH_MODE)


class Source:
    def __getitem__(self, index):
        return index, index

    def __len__(self):
        return 100


def create_dataset(mode="train", batch_size=32):
    if mode == "train":
        drop_last = True
    else:
        drop_last = False
    data = ds.GeneratorDataset(Source(), ["x", "y"], num_parallel_workers=8)
    return data.batch(batch_size, drop_remainder=drop_last)


net = nn.Dense(16, 16)
model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
"""


def test_a_dataset_helper_called_with_the_training_mode_takes_the_training_arm():
    code = DATASET + textwrap.dedent("""
    train_ds = create_dataset(mode="train")
    eval_ds = create_dataset(mode="eval")
    model.train(10, train_ds)
    """)
    assert [f for f in check(code) if f.code == "MSP203"] == []


def test_a_dataset_helper_called_with_the_other_mode_for_training_is_reported():
    code = DATASET + textwrap.dedent("""
    train_ds = create_dataset(mode="eval")
    model.train(10, train_ds)
    """)
    assert [f.line for f in check(code) if f.code == "MSP203"] == [23]  # the helper's batch()


def test_a_tuple_returning_factory_feeds_its_first_item_to_training():
    code = DATASET + textwrap.dedent("""
    def create_loaders():
        train = ds.GeneratorDataset(Source(), ["x", "y"], num_parallel_workers=8).batch(32)
        evaluation = ds.GeneratorDataset(Source(), ["x", "y"], num_parallel_workers=8).batch(7)
        return train, evaluation


    train_ds, eval_ds = create_loaders()
    model.train(10, train_ds)
    """)
    assert [f.line for f in check(code) if f.code == "MSP203"] == [30]  # the first item's batch(32)


def test_a_false_passed_down_by_the_script_is_reported_where_the_script_writes_it(tmp_path: Path):
    root = write_project(tmp_path, {
        "src/data.py": """
            import mindspore.dataset as ds

            class Source:
                def __getitem__(self, index):
                    return index, index

                def __len__(self):
                    return 100

            def create_dataset(batch_size, drop_remainder=True):
                data = ds.GeneratorDataset(Source(), ["x", "y"], num_parallel_workers=8)
                return data.batch(batch_size, drop_remainder=drop_remainder)
            """,
        "train.py": """
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model
            from src.data import create_dataset

            ms.set_context(mode=ms.GRAPH_MODE)
            net = nn.Dense(16, 16)
            model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9))
            model.train(10, create_dataset(32, drop_remainder=False), dataset_sink_mode=True)
            """,
    })
    found = check_project(root)
    assert found == {"train.py": [("MSP203", 9, 51)]}  # the False the script writes


# --- loop and comprehension variables --------------------------------------------------------------


def test_a_comprehension_variable_is_each_item_of_a_literal_sequence():
    facts = _facts("""
    from mindspore.train import ModelCheckpoint, CheckpointConfig
    fast = CheckpointConfig(save_checkpoint_steps=10)
    slow = CheckpointConfig(save_checkpoint_steps=1000)
    callbacks = [ModelCheckpoint(config=c) for c in (fast, slow)]
    c = 3
    """)
    checkpoint = next(call for call in facts.calls if "config" in call.kwargs)
    value = checkpoint.kwargs["config"]
    assert value.kind == OP and value.data == EITHER and len(value.parts) == 2
    assert facts.constants.get("c") is None or facts.constants["c"].data == 3


def test_a_loop_over_pairs_binds_each_name_to_its_items():
    facts = _facts("""
    from mindspore import amp
    for name, level in (("a", "O2"), ("b", "O3")):
        amp.auto_mixed_precision(net, level)
    """)
    level = next(c for c in facts.calls if len(c.args) == 2).args[1]
    assert level.kind == OP and level.data == EITHER and [p.data for p in level.parts] == ["O2", "O3"]


# --- launch scripts that pass a value the shell decides ---------------------------------------------


LAUNCHED = """
    import argparse
    import mindspore.dataset as ds
    from mindspore import nn
    from mindspore.train import Model
    import cv2

    class Images:
        def __init__(self, files):
            self.files = files

        def __getitem__(self, index):
            return cv2.imread(self.files[index])

        def __len__(self):
            return len(self.files)

    parser = argparse.ArgumentParser()
    parser.add_argument("--device_num", type=int, default=1)
    args = parser.parse_args()
    if args.device_num != 8:
        data = ds.GeneratorDataset(Images([]), ["image"], num_parallel_workers=8)
    else:
        data = ds.GeneratorDataset(Images([]), ["image"], num_shards=8, shard_id=0)
    net = nn.Dense(16, 16)
    Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(10, data.batch(8))
    """


def _msp301(root: Path):
    return [line for code, line, _ in check_project(root).get("train.py", []) if code == "MSP301"]


def test_a_launch_script_decides_the_arm_its_run_takes(tmp_path: Path):
    """``--device_num=$RANK_SIZE`` after ``RANK_SIZE=8``: the default of 1 decides only the default run (8 workers);
    the run the launch script starts takes the other arm, whose one-worker GeneratorDataset reads every sample."""
    alone = write_project(tmp_path / "alone", {"train.py": LAUNCHED})
    assert _msp301(alone) == []
    launched = write_project(tmp_path / "launched", {
        "train.py": LAUNCHED,
        "scripts/run_distribute_train.sh": """
            #!/bin/bash
            export RANK_SIZE=8
            python train.py --device_num=$RANK_SIZE > log.txt 2>&1 &
            """,
    })
    assert _msp301(launched) == [23]  # the else arm


def test_a_launch_script_passing_what_its_caller_gives_leaves_the_arm_undecided(tmp_path: Path):
    """``RANK_SIZE=$1``: no run decides the test, so both arms are candidates, and only one of them has the problem:
    RULES.md asks for the problem in both, and the rule stays silent."""
    launched = write_project(tmp_path, {
        "train.py": LAUNCHED,
        "scripts/run_distribute_train.sh": """
            #!/bin/bash
            RANK_SIZE=$1
            python train.py --device_num=${RANK_SIZE}
            """,
    })
    assert _msp301(launched) == []
    # ... and once both arms read on one worker, both are reported.
    both = LAUNCHED.replace("num_parallel_workers=8", "shuffle=True")
    (launched / "train.py").write_text(textwrap.dedent(both).lstrip("\n"), encoding="utf-8")
    assert _msp301(launched) == [21, 23]


# --- MSP101: every training call, and the fix edits the arm the run takes ---------------------------------------


def test_a_second_model_training_a_second_phase_in_fp32_gets_its_own_finding():
    code = _mlp("Ascend", """
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    warmup = Model(net, nn.MSELoss(), opt, amp_level="O2")
    warmup.train(1, None)
    finetune = Model(net, nn.MSELoss(), opt)
    finetune.train(10, None)
    """)
    assert [f.line for f in check(code) if f.code == "MSP101"] == [26]  # the second Model(...)


def test_the_program_fix_edits_the_arm_the_ascend_run_takes():
    from ms_perflint.fix.edits import apply_fix_text

    code = _mlp("Ascend", """
    if args.device_target == "Ascend":
        amp = "O0"
    else:
        amp = "O2"
    net = Net()
    model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level=amp)
    model.train(10, None)
    """)
    found = [f for f in check(code) if f.code == "MSP101"]
    assert [f.line for f in found] == [27] and found[0].fix is not None
    source = textwrap.dedent(code).lstrip("\n")
    fixed = apply_fix_text(source, [found[0].fix])
    assert '    amp = "O2"\nelse:\n    amp = "O2"' in fixed and fixed.count('"O0"') == 0


# --- the network through the project's own wrappers ----------------------------------------------------


LM = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Model


class GPT(nn.Cell):
    def __init__(self, vocab_size=50257, hidden=1024):
        super().__init__()
        self.blocks = nn.SequentialCell([nn.Dense(hidden, hidden) for _ in range(4)])
        self.head = nn.Dense(hidden, vocab_size)

    def construct(self, x):
        return self.head(self.blocks(x))


class LMWithLoss(nn.Cell):
    def __init__(self, network, loss):
        super().__init__()
        self.network = network
        self.loss = loss

    def construct(self, x, y):
        return self.loss(self.network(x), y)


lm = GPT()
model = Model({network}, optimizer=nn.Adam(lm.trainable_params()){amp})
model.train(1, None)
"""


def test_a_project_loss_wrapper_does_not_hide_the_network_it_keeps():
    wrapped = LM.replace("{network}", "LMWithLoss(lm, nn.CrossEntropyLoss())")
    found = check(wrapped.replace("{amp}", ", amp_level=\"O2\""))
    assert [(f.code, f.line) for f in found if f.code == "MSP102"] == [("MSP102", 7)]  # where 50257 is written
    assert [(f.code, f.line) for f in check(wrapped.replace("{amp}", "")) if f.code == "MSP101"] == [("MSP101", 27)]


def test_a_wrapper_that_keeps_no_network_adds_nothing():
    """The look-alike: a loss cell built around a network of its own that is small."""
    code = LM.replace("lm = GPT()", "lm = nn.Dense(16, 16)").replace("{network}", "LMWithLoss(lm, nn.MSELoss())")
    assert [f.code for f in check(code.replace("{amp}", "")) if f.code in ("MSP101", "MSP102")] == []


def test_a_model_around_a_train_step_is_one_training_call():
    code = _mlp("Ascend", """
    net = Net()
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    model = Model(step)
    model.train(10, None)
    """)
    assert [f.line for f in check(code) if f.code == "MSP101"] == [23]  # the train step, once (not Model at 24)


def test_a_model_built_in_both_arms_of_an_if_still_trains():
    """``if loss_scale_manager is not None: model = Model(..., loss_scale_manager=m) else: model = Model(...)``:
    ``model.train`` is a training call whichever arm built the model."""
    code = _mlp("Ascend", """
    import os
    net = Net()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    if os.environ.get("SCALE"):
        model = Model(net, nn.MSELoss(), opt, loss_scale_manager=None)
    else:
        model = Model(net, nn.MSELoss(), opt)
    model.train(10, None)
    """)
    # each arm's Model trains the network in float32 in the runs that take that arm: each gets its finding and fix
    found = [f for f in check(code) if f.code == "MSP101"]
    lines = textwrap.dedent(code).lstrip("\n").splitlines()
    assert [lines[f.line - 1].strip().split("(")[0] for f in found] == ["model = Model", "model = Model"]
    assert len({f.line for f in found}) == 2 and all(f.fix is not None for f in found)


def test_a_batch_in_an_arm_no_run_decides_needs_the_problem_in_both_arms():
    """``if dataset.test_mode:`` read off an object the linter cannot see: the test arm's short last batch is not a
    finding while the other arm drops it; when both keep it, it is."""
    code = DATASET + textwrap.dedent("""
    def build_loader(source, batch_size):
        data = ds.GeneratorDataset(source, ["x", "y"], num_parallel_workers=8)
        if source.test_mode:
            loader = data.batch(batch_size, drop_remainder=False)
        else:
            loader = data.batch(batch_size, drop_remainder=True)
        return loader


    model.train(10, build_loader(Source(), 32))
    """)
    assert [f for f in check(code) if f.code == "MSP203"] == []
    both = code.replace("drop_remainder=True)", "drop_remainder=False)")
    assert [f.line for f in check(both) if f.code == "MSP203"] == [32, 34]


def test_a_package_reexporting_a_function_named_like_its_submodule_binds_the_function(tmp_path: Path):
    """``from engine import train_net`` with ``engine/__init__.py`` doing ``from .train_net import *``: Python binds
    the function over the submodule; the step it runs, and the host read of its loss, are followed."""
    root = write_project(tmp_path, {
        "src/engine/__init__.py": "from .train_net import *\n",
        "src/engine/train_net.py": """
            def train_net(step, rays, target):
                loss = step(rays, target)
                return float(loss)
            """,
        "src/train.py": """
            import mindspore as ms
            from mindspore import nn
            from engine import train_net

            net = nn.Dense(16, 16)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params()))
            for rays, target in loader:
                loss = train_net(step, rays, target)
            """,
    })
    assert check_project(root).get("src/engine/train_net.py") == [("MSP401", 3, 12)]


# --- MSP103: the arm the run takes, each item of a comprehension ---------------------------------------------

CHECKPOINTED = """
import argparse
import mindspore as ms
from mindspore import nn
from mindspore.train import Model, CheckpointConfig, ModelCheckpoint


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(2048, 2048)
        self.fc2 = nn.Dense(2048, 1024)

    def construct(self, x):
        return self.fc2(self.fc1(x))


parser = argparse.ArgumentParser()
parser.add_argument("--device_target", default="Ascend")
args = parser.parse_args()
net = Net()
data = ms.dataset.GeneratorDataset(source, ["x", "y"])
steps = data.get_dataset_size()
model = Model(net, nn.MSELoss(), nn.Momentum(net.trainable_params(), 0.1, 0.9), amp_level="O2")
"""


def test_a_checkpoint_config_in_both_arms_of_a_device_test_reports_the_ascend_arm():
    code = CHECKPOINTED + textwrap.dedent("""
    if args.device_target == "Ascend":
        ckpt_config = CheckpointConfig(save_checkpoint_steps=steps)
    else:
        ckpt_config = CheckpointConfig(save_checkpoint_steps=steps, async_save=True)
    model.train(90, data, callbacks=[ModelCheckpoint(prefix="net", config=ckpt_config)])
    """)
    assert [f.line for f in check(code) if f.code == "MSP103"] == [26]  # every epoch, 90 epochs, 6.3 M parameters


def test_each_config_of_a_comprehension_building_callbacks_is_decided():
    code = CHECKPOINTED + textwrap.dedent("""
    fast = CheckpointConfig(save_checkpoint_steps=steps)
    slow = CheckpointConfig(save_checkpoint_steps=steps * 50, async_save=True)
    callbacks = [ModelCheckpoint(prefix="net", config=c) for c in (fast, slow)]
    model.train(90, data, callbacks=callbacks)
    """)
    assert [f.line for f in check(code) if f.code == "MSP103"] == [25]  # fast; slow is asynchronous


def test_a_model_zoo_config_is_its_first_document_not_its_help_texts(tmp_path: Path):
    """Model-zoo YAML configs follow their values with a document of help texts under the same keys: the text
    ``"Save checkpoint steps, default is 1000."`` is not a period, and the 458 is."""
    root = write_project(tmp_path, {
        "default_config.yaml": """
            save_checkpoint_steps: 458
            epoch_size: 140
            ---
            save_checkpoint_steps: "Save checkpoint steps, default is 1000."
            epoch_size: "Epoch size, default is 1."
            """,
        "train.py": CHECKPOINTED.replace('parser.add_argument("--device_target", default="Ascend")\n', "") + textwrap.dedent("""
            import yaml
            config = load_config("default_config.yaml")
            ckpt = CheckpointConfig(save_checkpoint_steps=config.save_checkpoint_steps)
            model.train(config.epoch_size, data, callbacks=[ModelCheckpoint(prefix="net", config=ckpt)])
            """),
    })
    assert [code for code, _, _ in check_project(root).get("train.py", []) if code == "MSP103"] == ["MSP103"]


# --- the device a communication backend names --------------------------------------------------------------

SINK_OFF = """
import mindspore as ms
from mindspore.communication.management import init
from mindspore.train import Model
{setup}
if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE)
    {call}
    Model(net, loss, opt).train(10, data, dataset_sink_mode=False)
"""


def _sink_off(setup: str, call: str) -> list:
    return [f.code for f in check(SINK_OFF.format(setup=textwrap.dedent(setup), call=call))]


def test_a_program_that_always_initialises_nccl_runs_on_gpu():
    # nccl is GPU's backend (hccl Ascend's, mccl the CPU's): an Ascend rule stays silent, also through a helper
    assert _sink_off("def setup():\n    init('nccl')\n", "setup()") == []
    assert _sink_off("", "init(backend_name='mccl')") == []
    assert _sink_off("", "init('hccl')") == ["MSP204"]
    assert _sink_off("", "init()") == ["MSP204"]


def test_nccl_in_one_arm_of_an_undecided_test_says_nothing_about_the_other_arm():
    setup = "import os\ndef setup():\n    if os.environ.get('USE_GPU'):\n        init('nccl')\n    else:\n        init()\n"
    assert _sink_off(setup, "setup()") == ["MSP204"]


# --- the device set in the arm the program runs ---------------------------------------------------------------

DEVICE_ARMS = """
import argparse
import mindspore as ms
from mindspore.train import Model
def train(arg):
    ms.set_context(mode=ms.GRAPH_MODE)
    if arg.device_target == "Ascend":
        ms.set_context(device_id=arg.device_id, device_target="Ascend")
    elif arg.device_target == "GPU":
        ms.set_context(device_target="GPU")
    Model(net, loss, opt).train(10, data, dataset_sink_mode=False)
def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device_target", default="{default}", choices=["GPU", "Ascend"])
    parser.add_argument("--device_id", default=0, type=int)
    return parser.parse_known_args()[0]
if __name__ == "__main__":
    train(parse_args())
"""


def test_a_device_set_in_an_arm_the_programs_default_never_takes_does_not_make_it_an_ascend_program():
    # pix2pix: each device's set_context sits in its own arm; the default run takes the GPU arm only
    assert [f.code for f in check(DEVICE_ARMS.format(default="GPU"))] == []
    assert [f.code for f in check(DEVICE_ARMS.format(default="Ascend"))] == ["MSP204"]
    assert [f.code for f in check(DEVICE_ARMS.replace('default="{default}", ', ""))] == ["MSP204"]  # unknown
