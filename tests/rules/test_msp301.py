"""MSP301 generator-dataset-single-worker: training GeneratorDatasets that read every sample on one worker.

The silent cases are the look-alikes the issue names and the ones met on the precision benchmark's development
set: generator functions, in-memory sources, sources that only transform arrays, eval datasets, a test dataset in
the other arm of an ``if`` that chooses between a training and a test source.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import List

from ms_perflint.findings import Finding, FixSafety
from ms_perflint.fix.edits import apply_fix_text
from ms_perflint.rules.msp301_generator_dataset_single_worker import GeneratorDatasetSingleWorker
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings
from tests.conftest import check_project, write_project

RULE = [GeneratorDatasetSingleWorker]

#: A source reading one image per sample.
IMAGES = """
import cv2
import mindspore.dataset as ds
from mindspore.train import Model

class Images:
    def __init__(self, paths, labels):
        self.paths, self.labels = paths, labels

    def __getitem__(self, index):
        return cv2.imread(self.paths[index]), self.labels[index]

    def __len__(self):
        return len(self.paths)
"""


def source(code: str) -> str:
    return textwrap.dedent(code).lstrip("\n")


def lint(code: str, path: str = "train.py") -> List[Finding]:
    result = check_text(source(code), path, Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP301"]


def fixed(code: str) -> str:
    found = lint(code)
    assert len(found) == 1 and found[0].fix is not None
    assert found[0].fix.safety is FixSafety.UNSAFE
    return apply_fix_text(source(code), [found[0].fix])


# --- reported ------------------------------------------------------------------------------------------


def test_model_train_on_a_factorys_batched_dataset_is_reported_at_the_generator_dataset():
    code = IMAGES + """
def create_dataset(paths, labels, batch_size):
    dataset = ds.GeneratorDataset(Images(paths, labels), ["image", "label"], shuffle=True)
    dataset = dataset.map(operations=[lambda x: x], input_columns=["image"], num_parallel_workers=8)
    return dataset.batch(batch_size, drop_remainder=True)

if __name__ == "__main__":
    train_data = create_dataset(paths, labels, 32)
    Model(net, loss, opt).train(90, train_data)
"""
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(16, 15)]
    assert "Images.__getitem__" in found[0].message and "cv2.imread" in found[0].message
    assert "defaults to 1" in found[0].message
    assert "ds.GeneratorDataset(Images(paths, labels), [\"image\", \"label\"], shuffle=True, " \
           "num_parallel_workers=ds.config.get_num_parallel_workers())" in fixed(code)


def test_a_literal_one_is_replaced_in_place():
    code = IMAGES + """
if __name__ == "__main__":
    data = ds.GeneratorDataset(Images(p, l), ["image", "label"], num_parallel_workers=1, shuffle=True)
    Model(net, loss, opt).train(90, data.batch(32))
"""
    assert "num_parallel_workers=1" in lint(code)[0].message
    assert "num_parallel_workers=ds.config.get_num_parallel_workers(), shuffle=True)" in fixed(code)


def test_a_multi_line_call_keeps_its_layout():
    code = IMAGES + """
if __name__ == "__main__":
    data = ds.GeneratorDataset(
        Images(p, l),
        column_names=["image", "label"],
        shuffle=True,
    )
    Model(net, loss, opt).train(90, data.batch(32))
"""
    assert "        shuffle=True,\n        num_parallel_workers=ds.config.get_num_parallel_workers(),\n    )" \
        in fixed(code)


def test_a_custom_training_loop_over_a_parameter_and_a_helper_that_reads():
    code = """
from PIL import Image
import mindspore as ms
from mindspore.dataset import GeneratorDataset

class Photos:
    def __getitem__(self, index):
        return self.load(self.files[index]), 0

    def load(self, path):
        return Image.open(path).convert("RGB")

    def __len__(self):
        return len(self.files)

def train(net, dataset, step):
    for epoch in range(10):
        for image, label in dataset.create_tuple_iterator():
            step(image, label)

if __name__ == "__main__":
    data = GeneratorDataset(Photos(), ["image", "label"]).batch(16)
    train(net, data, ms.nn.TrainOneStepCell(net, opt))
"""
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(21, 12)]
    assert "PIL.Image.open" in found[0].message
    assert "ms.dataset.config.get_num_parallel_workers()" in fixed(code)


def test_a_loop_whose_step_cell_computes_gradients_through_an_attribute_trains():
    # A GAN's hand-written train-step cells: self.grad = ops.GradOperation(...) called in construct.
    code = IMAGES + """
import mindspore.nn as nn
import mindspore.ops as ops

class TrainStep(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network, self.optimizer = network, optimizer
        self.grad = ops.GradOperation(get_by_list=True)

    def construct(self, image):
        grads = self.grad(self.network, self.optimizer.parameters)(image)
        return self.optimizer(grads)

if __name__ == "__main__":
    data = ds.GeneratorDataset(Images(p, l), ["image", "label"]).batch(4)
    step = TrainStep(net, opt)
    for epoch in range(100):
        for batch in enumerate(data.create_dict_iterator()):
            step(batch[1]["image"])
"""
    assert [f.line for f in lint(code)] == [29]


def test_the_training_half_of_a_factory_returning_train_and_eval_datasets():
    code = IMAGES + """
def create_datasets():
    train = ds.GeneratorDataset(Images(a, b), ["image", "label"], shuffle=True)
    val = ds.GeneratorDataset(Images(c, d), ["image", "label"])
    return train.batch(32), val.batch(32)

if __name__ == "__main__":
    train_data, val_data = create_datasets()
    model = Model(net, loss, opt, metrics={"acc"})
    model.train(90, train_data)
    model.eval(val_data)
"""
    assert [f.line for f in lint(code)] == [16]


def test_concatenated_datasets_and_a_mindformers_trainer():
    code = IMAGES + """
from mindformers import Trainer

if __name__ == "__main__":
    first = ds.GeneratorDataset(Images(a, b), ["image", "label"])
    second = ds.GeneratorDataset(Images(c, d), ["image", "label"])
    Trainer(args=config, model=net, train_dataset=(first + second).batch(8)).train()
"""
    assert [f.line for f in lint(code)] == [18, 19]


def test_the_global_setting_and_random_draws_are_named_in_the_message():
    code = """
import random
import numpy as np
import mindspore.dataset as ds
from mindspore.train import Model

class Crops:
    def __getitem__(self, index):
        image = np.load(self.files[index])
        top = random.randint(0, 32)
        return image[top:top + 224],

    def __len__(self):
        return len(self.files)

if __name__ == "__main__":
    ds.config.set_num_parallel_workers(8)
    Model(net, loss, opt).train(10, ds.GeneratorDataset(Crops(), ["image"]).batch(8))
"""
    message = lint(code)[0].message
    assert "set_num_parallel_workers at train.py:16 does not apply to GeneratorDataset" in message
    assert "random.randint" in message and "ds.config.set_seed" in message


def test_the_fix_adds_import_mindspore_when_the_file_has_no_name_for_it():
    code = """
import cv2
from mindspore.dataset import GeneratorDataset
from mindspore.train import Model

class Images:
    def __getitem__(self, index):
        return cv2.imread(self.paths[index]),

    def __len__(self):
        return len(self.paths)

if __name__ == "__main__":
    Model(net, loss, opt).train(10, GeneratorDataset(Images(), ["image"]).batch(8))
"""
    result = fixed(code)
    assert result.startswith("import cv2\nfrom mindspore.dataset import GeneratorDataset\n"
                             "from mindspore.train import Model\nimport mindspore\n")
    assert "num_parallel_workers=mindspore.dataset.config.get_num_parallel_workers())" in result
    compile(result, "train.py", "exec")


def test_the_fix_does_not_spell_through_a_name_the_call_assigns():
    # ``ds`` is the dataset module here, but the call's result is assigned to ``ds``: inside a function that
    # makes ``ds`` local, so ``ds.config`` would fail.
    code = """
import cv2
import mindspore.dataset as ds
from mindspore.dataset import GeneratorDataset
from mindspore.train import Model

class Images:
    def __getitem__(self, index):
        return cv2.imread(self.paths[index]),

    def __len__(self):
        return len(self.paths)

def build():
    ds = GeneratorDataset(Images(), ["image"])
    return ds.batch(8)

if __name__ == "__main__":
    Model(net, loss, opt).train(10, build())
"""
    result = fixed(code)
    assert "ds = GeneratorDataset(Images(), [\"image\"], " \
           "num_parallel_workers=mindspore.dataset.config.get_num_parallel_workers())" in result


def test_a_dataset_module_in_another_file_feeding_the_training_script(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    (tmp_path / "src" / "dataset.py").write_text(source(IMAGES + """
def create_dataset(paths, labels):
    return ds.GeneratorDataset(Images(paths, labels), ["image", "label"], shuffle=True).batch(32)
"""))
    (tmp_path / "train.py").write_text(source("""
from mindspore.train import Model
from src.dataset import create_dataset

if __name__ == "__main__":
    Model(net, loss, opt).train(90, create_dataset(paths, labels))
"""))
    results = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [(path, f.line) for path, result in results.items() for f in result.findings
            if f.code == "MSP301"] == [("src/dataset.py", 16)]


# --- silent -------------------------------------------------------------------------------------------


def test_silent_on_a_generator_function():
    assert lint("""
import numpy as np
import mindspore.dataset as ds
from mindspore.train import Model

def samples(files):
    for path in files:
        yield np.load(path),

if __name__ == "__main__":
    Model(net, loss, opt).train(10, ds.GeneratorDataset(lambda: samples(files), ["x"]).batch(8))
    Model(net, loss, opt).train(10, ds.GeneratorDataset(samples, ["x"]).batch(8))
""") == []


def test_silent_on_an_iterable_source_that_reads_files():
    assert lint("""
from PIL import Image
import mindspore.dataset as ds
from mindspore.train import Model

class Stream:
    def __iter__(self):
        for path in self.paths:
            yield Image.open(path),

if __name__ == "__main__":
    Model(net, loss, opt).train(10, ds.GeneratorDataset(Stream(), ["image"]).batch(8))
""") == []


def test_silent_on_in_memory_sources_and_sources_that_only_index_or_transform_arrays():
    assert lint("""
import cv2
import numpy as np
import mindspore.dataset as ds
from mindspore.train import Model

class InMemory:
    def __init__(self, path):
        self.data = np.load(path)
        self.images = [np.fromfile(p, dtype=np.uint8) for p in open("list.txt")]

    def __getitem__(self, index):
        return self.data[index], self.images[index]

    def __len__(self):
        return len(self.data)

class Augmented(InMemory):
    def __getitem__(self, index):
        return cv2.resize(self.data[index], (224, 224)), cv2.flip(self.data[index], 1)

if __name__ == "__main__":
    Model(net, loss, opt).train(10, ds.GeneratorDataset(InMemory("a.npy"), ["x", "y"]).batch(8))
    Model(net, loss, opt).train(10, ds.GeneratorDataset(Augmented("a.npy"), ["x", "y"]).batch(8))
    Model(net, loss, opt).train(10, ds.GeneratorDataset([(np.ones(3),)] * 10, ["x"]).batch(8))
""") == []


def test_silent_when_workers_are_configured_or_may_come_through_kwargs():
    assert lint(IMAGES + """
def create(config, **kwargs):
    first = ds.GeneratorDataset(Images(a, b), ["image", "label"], num_parallel_workers=config.workers)
    second = ds.GeneratorDataset(Images(a, b), ["image", "label"], **kwargs)
    third = ds.GeneratorDataset(Images(a, b), ["image", "label"], None, None, None, 8)
    return first + second + third

if __name__ == "__main__":
    Model(net, loss, opt).train(10, create(config, shuffle=True))
""") == []


def test_silent_on_datasets_only_evaluated_or_not_used():
    assert lint(IMAGES + """
import mindspore as ms

def evaluate(net, dataset):
    for image, label in dataset.create_tuple_iterator():
        print(net(image))

if __name__ == "__main__":
    train_step = ms.nn.TrainOneStepCell(net, opt)
    val = ds.GeneratorDataset(Images(a, b), ["image", "label"]).batch(8)
    unused = ds.GeneratorDataset(Images(c, d), ["image", "label"])
    Model(net, loss, opt).eval(val)
    evaluate(net, val)
""") == []


def test_silent_on_a_cpu_program():
    assert lint(IMAGES + """
import mindspore as ms

if __name__ == "__main__":
    ms.set_context(device_target="CPU")
    Model(net, loss, opt).train(10, ds.GeneratorDataset(Images(a, b), ["image", "label"]).batch(8))
""") == []


def test_silent_on_a_source_whose_class_is_not_known():
    assert lint(IMAGES + """
if __name__ == "__main__":
    source = eval(config.dataset_class)(config.root)
    Model(net, loss, opt).train(10, ds.GeneratorDataset(source, ["image", "label"]).batch(8))
""") == []


TRAIN_OR_TEST = IMAGES + """
from src.config import load_config

def create_dataset(args):
    if args.phase == "train":
        data = ds.GeneratorDataset(Images(a, b), ["image", "label"], shuffle=True)
        data = data.batch(8)
    else:
        data = ds.GeneratorDataset(Images(c, d), ["image", "label"])
        data = data.batch(1)
    return data

if __name__ == "__main__":
    {setup}
    Model(net, loss, opt).train(10, create_dataset(args))
"""


def test_an_if_else_choosing_train_or_test_data_is_decided_by_the_run_and_needs_both_arms_when_undecided():
    # With a phase from a config the linter cannot read, no run decides the test: RULES.md keeps both arms and asks
    # for the problem in both -- here both read on one worker, so both are reported; with a phase it knows, only
    # the arm the program takes is.
    assert [f.line for f in lint(TRAIN_OR_TEST.replace("{setup}", "args = load_config()"))] == [19, 22]
    # The look-alike: only one arm reads on one worker, and no run decides which arm trains: silent.
    one_arm = TRAIN_OR_TEST.replace('data = ds.GeneratorDataset(Images(c, d), ["image", "label"])',
                                    'data = ds.GeneratorDataset(Images(c, d), ["image", "label"], num_parallel_workers=4)')
    assert one_arm != TRAIN_OR_TEST
    assert lint(one_arm.replace("{setup}", "args = load_config()")) == []
    parsed = ("parser = argparse.ArgumentParser()\n    parser.add_argument('--phase', default={})\n"
              "    args = parser.parse_args()")
    for phase, line in (('"train"', 20), ('"test"', 23)):
        code = TRAIN_OR_TEST.replace("{setup}", parsed.format(phase)).replace(
            "from src.config", "import argparse\nfrom src.config")
        assert [f.line for f in lint(code)] == [line], phase


def _reader_source(call: str, imports: str) -> str:
    return f"""
{imports}
import mindspore.dataset as ds
from mindspore.train import Model

class Utterances:
    def __init__(self, paths):
        self.paths = paths

    def __getitem__(self, index):
        return {call}

    def __len__(self):
        return len(self.paths)

data = ds.GeneratorDataset(Utterances([]), ["feature"])
Model(net, loss, opt).train(10, data.batch(8))
"""


def test_a_reader_of_any_io_library_counts_by_its_verb_not_a_list_of_names():
    """Speech feature readers and other I/O libraries are too many to list: ``kaldiio.load_mat``, ``soundfile.read``,
    ``imageio.v3.imread`` read each sample whatever their package."""
    for imports, call in (("import kaldiio", "kaldiio.load_mat(self.paths[index])"),
                          ("import soundfile as sf", "sf.read(self.paths[index])[0]"),
                          ("from audio_tools.io import read_wav", "read_wav(self.paths[index])")):
        found = lint(_reader_source(call, imports))
        assert [f.line for f in found] == [15], imports  # the GeneratorDataset


def test_a_project_function_named_like_a_reader_is_followed_not_trusted(tmp_path: Path):
    """``src.io.load_sample`` is the project's own: what it does decides (here it only indexes memory)."""
    root = write_project(tmp_path, {
        "src/__init__.py": "",
        "src/io.py": """
            CACHE = {}

            def load_sample(path):
                return CACHE[path]
            """,
        "train.py": _reader_source("load_sample(self.paths[index])", "from src.io import load_sample"),
    })
    assert "MSP301" not in [code for code, _, _ in check_project(root).get("train.py", [])]
    # The same helper reading a file is followed into: reported.
    (root / "src" / "io.py").write_text("import cv2\n\ndef load_sample(path):\n    return cv2.imread(path)\n")
    assert "MSP301" in [code for code, _, _ in check_project(root).get("train.py", [])]


def test_a_worker_count_configured_to_one_is_reported_where_the_one_is_written():
    """``--workers`` defaults to 1 and reaches ``GeneratorDataset(..., num_parallel_workers=args.workers)``: the run
    reads on one worker as surely as with a literal 1; the finding goes to the default the user would change."""
    code = IMAGES + """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=1)
args = parser.parse_args()
data = ds.GeneratorDataset(Images(a, b), ["image", "label"], num_parallel_workers=args.workers)
Model(net, loss, opt).train(10, data.batch(8))
"""
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(18, 52)]  # default=1
    assert "GeneratorDataset at train.py:20" in found[0].message and found[0].fix is None
    # The look-alike: a default of 4 workers.
    assert lint(code.replace("default=1)", "default=4)")) == []
