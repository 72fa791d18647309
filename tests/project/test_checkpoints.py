"""How often a CheckpointConfig saves, computed from values (issue 22, section 3): ``k * get_dataset_size()`` is
every ``k`` epochs whatever the names say; a number is a step count even under a key named ``..._epochs``."""

from __future__ import annotations

import pytest

from ms_perflint.project.checkpoints import EPOCH, STEP, Checkpoints, Period
from ms_perflint.project.values import Values
from tests.project.test_values_provenance import project

PROGRAM = """
import argparse
from mindspore.train import CheckpointConfig

parser = argparse.ArgumentParser()
parser.add_argument("--save_checkpoint_epochs", type=int, default=2)
parser.add_argument("--save_steps", type=int, default=100)
args = parser.parse_args()

def build(dataset):
    steps_per_epoch = dataset.get_dataset_size()
    batches = int(dataset.get_dataset_size())
    return CheckpointConfig({arguments})
"""


def period(arguments: str) -> Period:
    proj = project({"train.py": PROGRAM.format(arguments=arguments)})
    call = next(c for c in proj.python["train.py"].calls if c.callee.endswith("CheckpointConfig"))
    return Checkpoints(proj, Values(proj)).config_period("train.py", call)


@pytest.mark.parametrize("arguments, expected", [
    ("save_checkpoint_steps=args.save_checkpoint_epochs * steps_per_epoch", Period(EPOCH, (2,))),
    ("save_checkpoint_steps=batches * 3", Period(EPOCH, (3,))),
    ("save_checkpoint_steps=dataset.get_dataset_size()", Period(EPOCH, (1,))),
    ("save_checkpoint_steps=int(steps_per_epoch / 10)", Period(EPOCH, (1,))),  # ten saves an epoch: every epoch
    ("save_checkpoint_steps=steps_per_epoch // 4", Period(EPOCH, (1,))),
    ("save_checkpoint_steps=args.save_checkpoint_epochs", Period(STEP, (2,))),
    ("save_checkpoint_steps=args.save_steps", Period(STEP, (100,))),
    ("keep_checkpoint_max=5", Period(STEP, (1,))),  # MindSpore's default: every step
    ("save_checkpoint_seconds=600", Period(STEP, ())),  # a time interval: unknown
    ("save_checkpoint_steps=args.save_checkpoint_epochs * unknown", Period(STEP, ())),
])
def test_the_period_of_a_checkpoint_config(arguments: str, expected: Period):
    assert period(arguments) == expected


@pytest.mark.parametrize("found, saves, epochs, frequent", [
    (Period(EPOCH, (1,)), None, (), True),
    (Period(EPOCH, (2,)), None, (90,), True),
    (Period(EPOCH, (3,)), None, (90,), False),      # rarer than every 2 epochs
    (Period(EPOCH, (1,)), None, (2,), False),       # two saves in the run
    (Period(EPOCH, (30,)), None, (30,), False),     # one save at the end
    (Period(STEP, (5000,)), None, (), True),
    (Period(STEP, (6000,)), None, (), False),
    (Period(STEP, (10,)), 2, (), False),            # a loop of 20 steps saving every 10
    (Period(STEP, ()), None, (), False),            # unknown
])
def test_worth_acting_on(found: Period, saves, epochs, frequent: bool):
    assert Checkpoints.frequent(found, saves, epochs) is frequent
