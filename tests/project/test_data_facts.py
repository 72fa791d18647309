"""The facts MSP301 and MSP106 decide with: self attributes read as values, sample reads, datasets fed to training."""

from __future__ import annotations

import textwrap
from typing import Dict

from ms_perflint.analysis import analyse, module_name
from ms_perflint.analysis.facts import OP, PythonFacts, facts_from_json
from ms_perflint.findings import SourceText
from ms_perflint.project.model import Project
from ms_perflint.project.training import Training
from ms_perflint.sources import PYTHON, Unit

CELL = """
import cv2
import random
import numpy as np
import mindspore.ops as ops
from mindspore import nn
from mindspore.common import dtype as mstype

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cast = ops.Cast()
        self.shape = ops.Shape()

    def construct(self, x):
        if self.policy == "jitter":
            x = x * self.noise
        x = ops.reshape(x, self.template.shape) + len(self.table) + self.shape(self.mask)[0]
        x = x + self.cast(self.scale, mstype.float32) + self.bias.astype(mstype.float32) + self.double.double()
        self.cache = x
        return self.layer(x.expand_as(self.example))

class Source:
    def __getitem__(self, index):
        image = cv2.imread(self.paths[index])
        return image[random.randint(0, 8):], np.load(self.labels[index])
"""


def facts_of(code: str, path: str = "m.py") -> PythonFacts:
    text = textwrap.dedent(code).lstrip("\n")
    return analyse(Unit(path, PYTHON, text, SourceText(text)), module_name(path))


def project_of(files: Dict[str, str]) -> Project:
    return Project("/p", {path: facts_of(code, path) for path, code in files.items()})


def scope(facts: PythonFacts, name: str):
    return next(s for s in facts.scopes if s.name == name)


def test_reads_of_self_are_values_not_shapes_casts_stores_or_calls():
    facts = facts_of(CELL)
    reads = scope(facts, "Net.construct").reads
    assert [name for name, _ in reads] == ["policy", "noise", "double"]
    noise_guards = dict(reads)["noise"]
    assert [(guard.text, holds) for guard, holds in noise_guards] == [('self.policy == "jitter"', True)]


def test_sample_reads_and_random_draws_are_noted_on_the_scope_and_survive_json():
    facts = facts_of(CELL)
    assert sorted(scope(facts, "Source.__getitem__").work) == ["cv2.imread", "numpy.load", "random.randint"]
    restored = facts_from_json(facts.to_json())
    assert scope(restored, "Source.__getitem__").work == scope(facts, "Source.__getitem__").work
    assert [(n, [(g.text, h) for g, h in gs]) for n, gs in scope(restored, "Net.construct").reads] == \
        [(n, [(g.text, h) for g, h in gs]) for n, gs in scope(facts, "Net.construct").reads]


def test_unpacking_a_calls_result_keeps_each_item():
    facts = facts_of("""
        def make():
            return [1], [2]

        def use(first, second):
            return first, second

        def main():
            train, val = make()
            use(train, val)
        """)
    call = next(c for c in facts.calls if c.callee.endswith("use"))
    assert [(v.kind, v.parts[1].data) for v in call.args] == [(OP, 0), (OP, 1)]


DATASETS = """
import mindspore as ms
import mindspore.dataset as ds
from mindspore.train import Model

def make():
    train = ds.GeneratorDataset(Source(), ["x"]).shuffle(10).batch(8)
    val = ds.GeneratorDataset(Source(), ["x"]).batch(8)
    return train, val

def loop(dataset, step):
    for i, batch in enumerate(dataset.create_dict_iterator()):
        step(batch["x"])

if __name__ == "__main__":
    train, val = make()
    Model(net).train(1, train)
    Model(net).eval(val)
    loop(ds.GeneratorDataset(Other(), ["x"]).repeat(2), ms.nn.TrainOneStepCell(net, opt))
"""


def test_fed_datasets_are_traced_back_from_training_calls_and_loops():
    project = project_of({"train.py": DATASETS})
    program = project.training_programs()[0]
    fed = Training(project).fed_datasets(program)
    facts = project.python["train.py"]
    generators = {c.line for c in facts.calls if c.callee == "mindspore.dataset.GeneratorDataset"
                  and ("train.py", c.id) in fed}
    assert generators == {6, 18}  # the training half of make(), and the dataset the loop iterates


HAND_WRITTEN_STEP = """
import mindspore.nn as nn
import mindspore.ops as ops

class TrainStep(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network, self.optimizer = network, optimizer
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, x):
        return self.optimizer(self.grad(self.network, self.optimizer.parameters)(x))

if __name__ == "__main__":
    step = TrainStep(net, opt)
    for x in data:
        step(x)
"""


def test_a_loop_calling_a_hand_written_train_step_trains():
    # A cell whose construct calls ``self.grad = ops.GradOperation(...)`` is a train step: the loop calling it
    # trains, for every rule (the checkpoint rule's 14 saves this added on the development set are labelled).
    project = project_of({"train.py": HAND_WRITTEN_STEP})
    training = Training(project)
    loop = project.python["train.py"].loops[-1].id
    assert loop in training.training_loops("train.py")