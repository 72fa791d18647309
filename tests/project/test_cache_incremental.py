"""After an edit, a run that reuses what earlier runs stored reports what a ``--no-cache`` run reports.

Issue 25: decisions are kept between runs (``run/decisions.py``) and, in the editor, in the session. Whatever
is reused, the findings after an edit must be the findings of a run that starts from nothing. A small project
with one training program (its network, its YAML config and its checkpoint callback each in a file of their
own) goes through edits that add, remove and move each of them, edit a file no program reaches and add a second
training script; after every edit three runs must agree: a new session with the cache of every earlier run (the
CLI, pre-commit), the editor's long-lived session told of the edit, and a session with no cache at all.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import pytest

from ms_perflint.project.index import walk_project
from ms_perflint.run.session import Session, SessionOptions

TRAIN = textwrap.dedent("""\
    import argparse

    import mindspore as ms
    from mindspore import nn
    from mindspore.train import LossMonitor, Model

    from nets.blocks import Head
    from tools.callbacks import make_checkpoints
    from tools.data import make_dataset


    def main():
        parser = argparse.ArgumentParser()
        parser.add_argument("--config", default="config.yaml")
        args = parser.parse_args()
        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        net = Head(2048, 1500)
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
        opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
        model = Model(net, loss, opt)
        model.train(2, make_dataset(), callbacks=[make_checkpoints(), LossMonitor()])


    if __name__ == "__main__":
        main()
""")

BLOCKS = textwrap.dedent("""\
    from mindspore import nn


    class Head(nn.Cell):
        def __init__(self, inputs, outputs):
            super().__init__()
            self.fc = nn.Dense(inputs, outputs)

        def construct(self, x):
            return self.fc(x)
""")

CALLBACKS = textwrap.dedent("""\
    from mindspore.train import CheckpointConfig, ModelCheckpoint


    def make_checkpoints():
        config = CheckpointConfig(save_checkpoint_steps=10)
        return ModelCheckpoint(prefix="head", config=config)
""")

DATA = textwrap.dedent("""\
    import numpy as np
    import mindspore.dataset as ds


    class Samples:
        def __init__(self, files):
            self.files = files

        def __getitem__(self, index):
            return np.load(self.files[index]), 0

        def __len__(self):
            return len(self.files)


    def make_dataset():
        dataset = ds.GeneratorDataset(Samples(["a.npy", "b.npy"]), ["image", "label"])
        return dataset.batch(32)
""")

PROJECT = {
    "train.py": TRAIN,
    "config.yaml": "epochs: 2\nsave_graphs: True\n",
    "nets/__init__.py": "",
    "nets/blocks.py": BLOCKS,
    "tools/__init__.py": "",
    "tools/callbacks.py": CALLBACKS,
    "tools/data.py": DATA,
    "unused.py": "import mindspore as ms\n\nRATE = 0.1\n",
}

Findings = Dict[str, List[Tuple[str, int, int, str]]]


def _write(root: Path, relative: str, text: str) -> None:
    target = root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _replace(root: Path, relative: str, old: str, new: str) -> None:
    text = (root / relative).read_text(encoding="utf-8")
    assert old in text, (relative, old)
    (root / relative).write_text(text.replace(old, new), encoding="utf-8")


def _move(root: Path, source: str, target: str) -> None:
    _write(root, target, (root / source).read_text(encoding="utf-8"))
    (root / source).unlink()


def add_a_second_network(root: Path) -> None:
    _write(root, "nets/blocks.py", BLOCKS + textwrap.dedent("""
        class Wide(nn.Cell):
            def __init__(self):
                super().__init__()
                self.head = Head(2048, 2048)
                self.fc = nn.Dense(2048, 4100)

            def construct(self, x):
                return self.fc(self.head(x))
    """))
    _replace(root, "train.py", "from nets.blocks import Head", "from nets.blocks import Wide")
    _replace(root, "train.py", "net = Head(2048, 1500)", "net = Wide()")


def move_the_network(root: Path) -> None:
    _move(root, "nets/blocks.py", "nets/layers.py")
    _replace(root, "train.py", "from nets.blocks import", "from nets.layers import")


def remove_the_network(root: Path) -> None:
    _replace(root, "train.py", "net = Wide()", "net = nn.Dense(2048, 1024)")


def edit_the_config(root: Path) -> None:
    _replace(root, "config.yaml", "save_graphs: True", "save_graphs: False")


def add_a_config(root: Path) -> None:
    _write(root, "configs/debug.yaml", "save_graphs: 2\n")


def move_the_config(root: Path) -> None:
    _move(root, "config.yaml", "configs/run.yaml")
    _replace(root, "configs/run.yaml", "save_graphs: False", "save_graphs: True")


def remove_the_config(root: Path) -> None:
    (root / "configs/debug.yaml").unlink()


def add_a_callback(root: Path) -> None:
    _write(root, "tools/callbacks.py", CALLBACKS + textwrap.dedent("""

        def make_saver():
            return ModelCheckpoint(prefix="all", config=CheckpointConfig(save_checkpoint_steps=1))
    """))
    _replace(root, "train.py", "from tools.callbacks import make_checkpoints",
             "from tools.callbacks import make_checkpoints, make_saver")
    _replace(root, "train.py", "callbacks=[make_checkpoints(), LossMonitor()]",
             "callbacks=[make_checkpoints(), make_saver(), LossMonitor()]")


def move_the_callback(root: Path) -> None:
    _move(root, "tools/callbacks.py", "tools/saving.py")
    _replace(root, "train.py", "from tools.callbacks import", "from tools.saving import")


def remove_the_callbacks(root: Path) -> None:
    _replace(root, "train.py", "callbacks=[make_checkpoints(), make_saver(), LossMonitor()]",
             "callbacks=[LossMonitor()]")


def make_the_callback_asynchronous(root: Path) -> None:
    _replace(root, "train.py", "callbacks=[LossMonitor()]", "callbacks=[make_checkpoints(), LossMonitor()]")
    _replace(root, "tools/saving.py", "CheckpointConfig(save_checkpoint_steps=10)",
             "CheckpointConfig(save_checkpoint_steps=10, async_save=True)")


def edit_a_file_no_program_reaches(root: Path) -> None:
    with open(root / "unused.py", "a", encoding="utf-8") as handle:
        handle.write("_x = ms.nn.Dense(1024, 1024)\n")


def add_a_training_script(root: Path) -> None:
    _write(root, "finetune.py", TRAIN.replace("from nets.blocks import", "from nets.layers import")
           .replace("from tools.callbacks import", "from tools.saving import")
           .replace("Head(2048, 1500)", "Head(2048, 2050)"))


def remove_the_training_script(root: Path) -> None:
    (root / "finetune.py").unlink()


EDITS: List[Callable[[Path], None]] = [
    add_a_second_network, move_the_network, remove_the_network,
    edit_the_config, add_a_config, move_the_config, remove_the_config,
    add_a_callback, move_the_callback, remove_the_callbacks, make_the_callback_asynchronous,
    edit_a_file_no_program_reaches, add_a_training_script, remove_the_training_script,
]


def _files(root: Path) -> List[str]:
    return sorted(str(root / relative) for relative, _ in walk_project(str(root)))


def _findings(session: Session, root: Path) -> Findings:
    found: Findings = {}
    for result in session.check(_files(root)):
        assert result.error is None, (result.path, result.error)
        if result.findings:
            relative = Path(result.path).relative_to(root).as_posix()
            found[relative] = [(f.code, f.line, f.column, f.message) for f in result.findings]
    return found


def _fresh(root: Path) -> Findings:
    return _findings(Session(SessionOptions(jobs=1)), root)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "zoo"
    (root).mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'zoo'\n", encoding="utf-8")
    for relative, text in PROJECT.items():
        _write(root, relative, text)
    return root


def test_every_edit_is_reported_as_a_run_from_nothing_reports_it(project: Path, tmp_path: Path):
    cache = str(tmp_path / "cache")
    editor = Session(SessionOptions(jobs=1, cache_folder=cache))
    before = _fresh(project)
    assert _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), project) == before
    assert _findings(editor, project) == before
    seen = [before]
    for edit in EDITS:
        edit(project)
        expected = _fresh(project)
        cached = _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), project)
        assert cached == expected, edit.__name__
        editor.forget()  # what the editor does when a file is saved
        assert _findings(editor, project) == expected, edit.__name__
        seen.append(expected)
    # The edits matter: each kind of change (network, config, callback, a new program) changed the findings.
    codes = [sorted({code for found in state.values() for code, *_ in found}) for state in seen]
    assert "MSP102" in codes[0] and "MSP201" in codes[0] and "MSP103" in codes[0]
    assert len({repr(state) for state in seen}) >= 10


def test_an_unsaved_edit_is_reported_as_a_run_from_nothing_reports_the_saved_text(project: Path, tmp_path: Path):
    """The editor's buffers: the text is in the session's overlay, not on disk."""
    editor = Session(SessionOptions(jobs=1, cache_folder=str(tmp_path / "cache")))
    train = str(project / "train.py")
    _findings(editor, project)
    for old, new in (("Head(2048, 1500)", "Head(2048, 1000)"), ("Head(2048, 1000)", "Head(2048, 1500)"),
                     ("LossMonitor()]", "LossMonitor()]  # a comment"), ("mode=ms.GRAPH_MODE", "mode=ms.PYNATIVE_MODE")):
        text = Path(train).read_text(encoding="utf-8").replace(old, new)
        editor.overlay[train] = text.encode("utf-8")
        [unsaved] = editor.check([train])
        del editor.overlay[train]
        Path(train).write_text(text, encoding="utf-8")
        [saved] = Session(SessionOptions(jobs=1)).check([train])
        assert [(f.code, f.line, f.column, f.message) for f in unsaved.findings] == \
            [(f.code, f.line, f.column, f.message) for f in saved.findings], (old, new)


def test_the_editor_decides_again_only_when_some_file_says_something_new(project: Path, tmp_path: Path, monkeypatch):
    """The session holds its last decisions: a buffer sent again, or changed only in a comment after the code (the
    same facts), is answered without deciding; a changed value is decided again, and the answers are a fresh run's."""
    from ms_perflint.run import lint

    decided = []
    real = lint.decide_parts
    monkeypatch.setattr(lint, "decide_parts", lambda *a, **k: decided.append(1) or real(*a, **k))
    editor = Session(SessionOptions(jobs=1, cache_folder=str(tmp_path / "cache")))
    train = str(project / "train.py")
    text = Path(train).read_text(encoding="utf-8")

    def unsaved(buffer: str):
        editor.overlay[train] = buffer.encode("utf-8")
        try:
            [result] = editor.check([train])
        finally:
            del editor.overlay[train]
        return [(f.code, f.line, f.column, f.message) for f in result.findings]

    first = unsaved(text)
    assert decided == [1] and first
    assert unsaved(text) == first and decided == [1]
    assert unsaved(text + "# a comment: the same facts\n") == first and decided == [1]
    changed = text.replace("Head(2048, 1500)", "Head(2048, 2050)")
    answer = unsaved(changed)
    assert decided == [1, 1] and answer != first
    Path(train).write_text(changed, encoding="utf-8")
    [fresh] = Session(SessionOptions(jobs=1)).check([train])
    assert answer == [(f.code, f.line, f.column, f.message) for f in fresh.findings]


def test_held_decisions_are_placed_afresh_each_time(project: Path, tmp_path: Path, monkeypatch):
    """Placing findings changes them (a notebook's virtual lines become lines of a cell): the session holds copies,
    so a notebook checked again is told by the same cell and line. The finding here is placed by its line alone
    (no offsets), which is placed from what it holds, not recomputed from an offset."""
    import json

    from ms_perflint.findings import Finding
    from ms_perflint.run import lint

    cells = [["import mindspore as ms\n", "x = 1\n"], ["y = 2\n", "z = 3\n", "w = 4\n"]]
    document = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": c}
                          for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook = project / "course.ipynb"
    notebook.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    monkeypatch.setattr(lint, "decide_parts", lambda *a, **k: {"course.ipynb": [Finding("MSP103", "at a line", line=5)]})
    editor = Session(SessionOptions(jobs=1, cache_folder=str(tmp_path / "cache")))

    def told():
        [result] = editor.check([str(notebook)])
        return [(f.cell, f.line) for f in result.findings]

    first = told()
    assert first == [(2, 2)]  # virtual line 5: the second line of cell 2 (line 3 marks the cell)
    assert told() == first and told() == first
