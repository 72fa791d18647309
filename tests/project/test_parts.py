"""A project's parts: the files that can change each other's findings, each part decided as a project of its own.

Issue 25: an edit re-decides what it touches. A model zoo holds many models whose files share names
(``src/config.py``, ``train.py``); each model must be a part of its own, linked only through what its files can
import, the configs its entries read and the launch scripts that run them. A run after an edit decides only the
parts whose files changed, and reports what a run from nothing reports.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List

import pytest

from ms_perflint.project.index import ProjectIndex
from ms_perflint.project.model import Project
from ms_perflint.project.parts import partition, summary_of
from ms_perflint.run import lint as lint_module
from ms_perflint.run.session import Session, SessionOptions
from tests.project.test_cache_incremental import PROJECT, _findings, _write

needs_linux = pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="parts are decided in forked workers on Linux")


def _parts(root: Path) -> List[List[str]]:
    index = ProjectIndex(str(root), cache_folder=None).refresh()
    facts = index.facts()
    return partition({path: summary_of(path, found) for path, found in facts.items()})


def _project(root: Path) -> Project:
    index = ProjectIndex(str(root), cache_folder=None).refresh()
    return Project(index.root, index.facts())


def _zoo(root: Path, models: Dict[str, Dict[str, str]]) -> Path:
    root.mkdir()
    (root / "pyproject.toml").write_text("[project]\nname = 'zoo'\n", encoding="utf-8")
    for folder, files in models.items():
        for relative, text in files.items():
            _write(root, f"{folder}/{relative}" if folder else relative, text)
    return root


def _model(head: str) -> Dict[str, str]:
    files = dict(PROJECT)
    files["train.py"] = files["train.py"].replace("Head(2048, 1500)", head)
    return files


@pytest.fixture
def zoo(tmp_path: Path) -> Path:
    return _zoo(tmp_path / "zoo", {"cv/resnet": _model("Head(2048, 1500)"), "cv/vit": _model("Head(768, 1000)")})


def test_each_model_of_a_zoo_is_a_part_of_its_own(zoo: Path):
    # Both models have nets/blocks.py, tools/callbacks.py and config.yaml: the same module names, two programs.
    parts = _parts(zoo)
    model = ["config.yaml", "nets/__init__.py", "nets/blocks.py", "tools/__init__.py", "tools/callbacks.py",
             "tools/data.py", "train.py"]
    assert [f"cv/resnet/{name}" for name in model] in parts
    assert [f"cv/vit/{name}" for name in model] in parts
    assert ["cv/resnet/unused.py"] in parts and ["cv/vit/unused.py"] in parts  # imports nothing of the project
    assert len(parts) == 4


def test_a_standard_library_name_is_not_another_models_file(tmp_path: Path):
    # ``import logging`` in one model is the standard library, though another model has its own src/logging.py;
    # the model's own src/logging.py is still the one its src code imports.
    root = _zoo(tmp_path / "zoo", {
        "cv/a": {"train.py": "import logging\nimport mindspore\nlogging.info('x')\n"},
        "cv/b": {"train.py": "from src.logging import get_logger\nget_logger()\n",
                 "src/__init__.py": "", "src/logging.py": "import logging\n\ndef get_logger():\n    return 1\n"}})
    project = _project(root)
    assert project.resolve("logging", "cv/a/train.py") is None
    assert project.resolve("src.logging.get_logger", "cv/b/train.py").path == "cv/b/src/logging.py"
    parts = _parts(root)
    assert ["cv/a/train.py"] in parts
    assert ["cv/b/src/__init__.py", "cv/b/src/logging.py", "cv/b/train.py"] in parts


def test_a_package_of_the_src_layout_is_imported_from_anywhere_in_the_project(tmp_path: Path):
    root = _zoo(tmp_path / "repo", {"": {
        "src/toolkit/__init__.py": "from .nets import Net\n",
        "src/toolkit/nets.py": "from mindspore import nn\n\nclass Net(nn.Cell):\n    pass\n",
        "notebooks/tools/finetune.py": "from toolkit import Net\nNet()\n"}})
    project = _project(root)
    assert project.resolve("toolkit.Net", "notebooks/tools/finetune.py").path == "src/toolkit/nets.py"
    assert ["notebooks/tools/finetune.py", "src/toolkit/__init__.py", "src/toolkit/nets.py"] in _parts(root)


def test_a_module_reached_through_its_package_is_in_the_importers_part(tmp_path: Path):
    # ``import src`` names only src/__init__.py, but ``src.models.resnet.ResNet()`` reaches the module below it.
    root = _zoo(tmp_path / "zoo", {"cv/r": {
        "train.py": "import src\nnet = src.models.resnet.ResNet()\n",
        "src/__init__.py": "",
        "src/models/resnet.py": "from mindspore import nn\n\nclass ResNet(nn.Cell):\n    pass\n"},
        "cv/other": {"src/models/resnet.py": "X = 1\n"}})
    project = _project(root)
    call = next(c for c in project.python["cv/r/train.py"].calls if c.callee.endswith("ResNet"))
    assert project.callee("cv/r/train.py", call).path == "cv/r/src/models/resnet.py"
    parts = _parts(root)
    assert ["cv/r/src/__init__.py", "cv/r/src/models/resnet.py", "cv/r/train.py"] in parts
    assert ["cv/other/src/models/resnet.py"] in parts


def test_a_plain_module_named_as_a_folder_does_not_join_that_folders_files(tmp_path: Path):
    # ``from audio import mel`` of the model's own src/utils/audio.py: the zoo's top folder audio/ holds other
    # models, whose modules are named audio.<model>... from the root; a plain module has none below it.
    root = _zoo(tmp_path / "zoo", {"audio": {
        "tts/src/utils/convert.py": "from audio import mel\nmel()\n",
        "tts/src/utils/audio.py": "def mel():\n    return 1\n",
        "asr/train.py": "import mindspore\nmindspore.set_context(mode=0)\n"}})
    parts = _parts(root)
    assert ["audio/tts/src/utils/audio.py", "audio/tts/src/utils/convert.py"] in parts
    assert ["audio/asr/train.py"] in parts


def test_configs_and_launch_scripts_join_the_entries_they_belong_to(zoo: Path):
    _write(zoo, "cv/resnet/configs/r50.yaml", "epochs: 3\n")
    _write(zoo, "cv/resnet/scripts/run_train.sh", "python ../train.py --epochs 3\n")
    _write(zoo, "cv/vit/scripts/run_train.sh", "python train.py --epochs 4\n")
    parts = _parts(zoo)
    resnet = next(part for part in parts if "cv/resnet/train.py" in part)
    vit = next(part for part in parts if "cv/vit/train.py" in part)
    assert {"cv/resnet/configs/r50.yaml", "cv/resnet/scripts/run_train.sh", "cv/resnet/config.yaml"} <= set(resnet)
    assert "cv/vit/scripts/run_train.sh" in vit and not any(path.startswith("cv/vit") for path in resnet)


def _spy_on_parts(monkeypatch) -> List[List[str]]:
    decided: List[List[str]] = []
    real = lint_module._decide_part

    def spied(project, *args, **kwargs):
        decided.append(sorted(project.files))
        return real(project, *args, **kwargs)

    monkeypatch.setattr(lint_module, "_decide_part", spied)
    return decided


def test_an_edit_decides_only_the_part_it_touches_and_reports_what_a_run_from_nothing_reports(
        zoo: Path, tmp_path: Path, monkeypatch):
    cache = str(tmp_path / "cache")
    before = _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)
    assert any(path.startswith("cv/resnet/") for path in before) and any(path.startswith("cv/vit/") for path in before)
    decided = _spy_on_parts(monkeypatch)
    read: List[str] = []
    real_facts_of = ProjectIndex.facts_of
    monkeypatch.setattr(ProjectIndex, "facts_of", lambda self, paths, **kwargs: read.extend(paths) or real_facts_of(
        self, paths, **kwargs))
    blocks = zoo / "cv/resnet/nets/blocks.py"
    blocks.write_text(blocks.read_text(encoding="utf-8").replace("nn.Dense(inputs, outputs)", "nn.Dense(inputs, 2048)"),
                      encoding="utf-8")  # the head's width is aligned now: its MSP102 goes

    after = _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)

    resnet = [path for path in decided[0] if path.startswith("cv/resnet/")] if decided else []
    assert len(decided) == 1 and resnet == decided[0] and "cv/resnet/nets/blocks.py" in resnet
    assert set(read) <= set(resnet)  # no other file's facts were read: the other parts' links were stored
    assert {p: f for p, f in after.items() if p.startswith("cv/vit/")} == \
        {p: f for p, f in before.items() if p.startswith("cv/vit/")}
    monkeypatch.undo()
    assert after == _findings(Session(SessionOptions(jobs=1)), zoo) and after != before


def test_an_edit_that_links_two_parts_decides_them_together(zoo: Path, tmp_path: Path, monkeypatch):
    cache = str(tmp_path / "cache")
    _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)
    decided = _spy_on_parts(monkeypatch)
    _write(zoo, "cv/vit/unused.py", "import mindspore as ms\nfrom nets.blocks import Head\n\nRATE = 0.1\n")
    after = _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)
    assert len(decided) == 1 and {"cv/vit/unused.py", "cv/vit/train.py"} <= set(decided[0])
    monkeypatch.undo()
    assert after == _findings(Session(SessionOptions(jobs=1)), zoo)


def test_the_editor_decides_only_the_part_an_unsaved_edit_touches(zoo: Path, tmp_path: Path, monkeypatch):
    editor = Session(SessionOptions(jobs=1, cache_folder=str(tmp_path / "cache")))
    train = zoo / "cv/vit/train.py"
    before = _findings(editor, zoo)
    decided = _spy_on_parts(monkeypatch)
    text = train.read_text(encoding="utf-8").replace("Head(768, 1000)", "Head(2048, 1500)")
    editor.overlay[str(train)] = text.encode("utf-8")
    try:
        [unsaved] = editor.check([str(train)])
        assert len(decided) == 1 and "cv/vit/train.py" in decided[0]
        assert not any(path.startswith("cv/resnet/") for path in decided[0])
        editor.check([str(zoo / "cv/resnet/train.py")])
        assert len(decided) == 1  # the same buffer: nothing new to decide
    finally:
        del editor.overlay[str(train)]
    monkeypatch.undo()
    train.write_text(text, encoding="utf-8")
    [saved] = Session(SessionOptions(jobs=1)).check([str(train)])
    assert [(f.code, f.line, f.message) for f in unsaved.findings] == [(f.code, f.line, f.message) for f in saved.findings]
    assert _findings(Session(SessionOptions(jobs=1)), zoo) != before  # the edit mattered: vit has an MSP102 of its own now


@needs_linux
def test_parts_decided_in_workers_report_what_one_process_reports(zoo: Path, tmp_path: Path, monkeypatch):
    pids = tmp_path / "pids.txt"
    real = lint_module._decide_part

    def spied(project, *args, **kwargs):
        with open(pids, "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
        return real(project, *args, **kwargs)

    alone = _findings(Session(SessionOptions(jobs=1)), zoo)
    monkeypatch.setattr(lint_module, "_decide_part", spied)
    pooled = _findings(Session(SessionOptions(jobs=2)), zoo)
    assert pooled == alone and alone
    workers = set(pids.read_text().split())
    assert str(os.getpid()) not in workers and len(workers) >= 1


@needs_linux
def test_files_analysed_in_workers_are_held_packed_and_stored_as_one_process_stores_them(zoo: Path, tmp_path: Path):
    # Peak memory of a run with workers: the parent holds each file's facts as the bytes a worker sent, with the link
    # summary and the stored text the worker made; the parts' workers build the objects.
    one, two = tmp_path / "one", tmp_path / "two"
    alone = _findings(Session(SessionOptions(jobs=1, cache_folder=str(one))), zoo)
    session = Session(SessionOptions(jobs=2, cache_folder=str(two)))
    assert _findings(session, zoo) == alone and alone
    [index] = session._indexes.values()
    python = {path: record for path, record in index.files.items() if record.kind == "python"}
    assert len(python) > 8 and all(r.facts is None and r.packed and r.stored is None for r in python.values())
    assert all(r.summary == summary_of(path, r.unpacked()) for path, r in python.items())
    stored = lambda cache: {p.relative_to(cache): p.read_bytes() for p in (cache / "facts").rglob("*.json")}  # noqa: E731
    assert stored(two) == stored(one) and len(stored(one)) == len(index.files)


def test_a_rule_that_fails_in_two_parts_is_one_internal_error(zoo: Path, monkeypatch):
    from ms_perflint.rules.msp103_sync_checkpoint_save import SyncCheckpointSave

    def broken(self, check):
        for path in sorted(check.project.python):
            with check.deciding(path):
                raise ValueError("broken on purpose")

    monkeypatch.setattr(SyncCheckpointSave, "check", broken)
    found = _findings(Session(SessionOptions(jobs=1)), zoo)
    errors = [f for findings in found.values() for f in findings if f[0] == "MSP000"]
    assert len(errors) == 1
    assert "internal error in MSP103" in errors[0][3] and "ValueError: broken on purpose" in errors[0][3]
    assert "other files)" in errors[0][3]


def test_a_dot_in_a_file_name_is_no_package(tmp_path: Path):
    # ``0.quick_start.ipynb`` is the module ``notebooks.0.quick_start`` of two names, not three: a call of its own
    # function resolves (the per-step read in its training loop was missed when it did not).
    root = _zoo(tmp_path / "repo", {"notebooks": {"0.quick_start.py": "def train_step():\n    return 1\n\ntrain_step()\n"}})
    project = _project(root)
    call = next(c for c in project.python["notebooks/0.quick_start.py"].calls if c.callee.endswith("train_step"))
    assert project.callee("notebooks/0.quick_start.py", call).name == "train_step"


def test_a_cached_run_keeps_no_part_facts_it_read_from_the_store(zoo: Path, tmp_path: Path):
    # Peak memory of a run that decides from the cache: each part's facts are read for that part and let go, so the
    # index holds none of them afterwards (the edited file's own facts, analysed in this run, stay).
    cache = str(tmp_path / "cache")
    _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)
    blocks = zoo / "cv/resnet/nets/blocks.py"
    blocks.write_text(blocks.read_text(encoding="utf-8") + "\nWIDTH = 3\n", encoding="utf-8")
    session = Session(SessionOptions(jobs=1, cache_folder=cache))
    _findings(session, zoo)
    [index] = session._indexes.values()
    held = sorted(path for path, record in index.files.items() if record.has_facts())
    assert held == ["cv/resnet/nets/blocks.py"]


def _decisions_file(cache: str) -> Path:
    [found] = Path(cache).glob("decisions-*.json")
    return found


def _edit_a_comment_free_line(zoo: Path) -> None:
    unused = zoo / "cv/resnet/unused.py"
    unused.write_text(unused.read_text(encoding="utf-8") + "OTHER = 2\n", encoding="utf-8")  # new facts, no link


def test_links_and_summaries_stored_by_another_build_of_the_tool_are_not_used(zoo: Path, tmp_path: Path):
    # How files link depends on the tool's code and the Python running it (its standard library), not only on the
    # files' facts: a cache another build wrote (here: links emptied, as a build that linked nothing would store)
    # must not decide this build's parts.
    import json

    cache = str(tmp_path / "cache")
    _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo)
    stored = _decisions_file(cache)
    data = json.loads(stored.read_text(encoding="utf-8"))
    data["tool"] = "another build"
    data["links"] = {path: [] for path in data["links"]}
    stored.write_text(json.dumps(data), encoding="utf-8")
    _edit_a_comment_free_line(zoo)
    assert _findings(Session(SessionOptions(jobs=1, cache_folder=cache)), zoo) == _findings(
        Session(SessionOptions(jobs=1)), zoo)


@pytest.mark.parametrize("damage", [{"parts": [1]}, {"summaries": "x"}, {"links": 3, "modules": []},
                                    {"summaries": {"cv/resnet/train.py": ["d", "python"]}}])
def test_a_damaged_decisions_file_is_a_miss_for_a_session_that_holds_parts(zoo: Path, tmp_path: Path, damage):
    import json

    cache = str(tmp_path / "cache")
    session = Session(SessionOptions(jobs=1, cache_folder=cache))
    _findings(session, zoo)
    stored = _decisions_file(cache)
    data = json.loads(stored.read_text(encoding="utf-8"))
    data.update(damage)
    stored.write_text(json.dumps(data), encoding="utf-8")
    _edit_a_comment_free_line(zoo)
    assert _findings(session, zoo) == _findings(Session(SessionOptions(jobs=1)), zoo)


def test_a_summary_that_is_not_one_does_not_read_back():
    from ms_perflint.project.parts import Summary

    good = Summary("python", ("a.b",), True, ())
    assert Summary.from_json(good.to_json()) == good
    for bad in (["[1]", [], False, []], "abcd", ["python", "a", True, []], ["python", [], 1, []], ["shell", [], False, [2]]):
        with pytest.raises(ValueError):
            Summary.from_json(bad)


@needs_linux
def test_a_part_that_kills_its_worker_is_one_internal_error_and_the_other_parts_report(zoo: Path, monkeypatch):
    from ms_perflint.rules.msp103_sync_checkpoint_save import SyncCheckpointSave

    real = SyncCheckpointSave.check

    def dies_in_vit(self, check):
        if any(path.startswith("cv/vit/") for path in check.project.python):
            os._exit(3)
        return real(self, check)

    alone = _findings(Session(SessionOptions(jobs=1)), zoo)
    monkeypatch.setattr(SyncCheckpointSave, "check", dies_in_vit)
    found = _findings(Session(SessionOptions(jobs=2)), zoo)
    errors = [f for findings in found.values() for f in findings if f[0] == "MSP000"]
    assert len(errors) == 1
    assert errors[0][3].startswith("internal error: deciding the files linked with cv/vit/")
    assert "crashed its worker process (exit code 3)" in errors[0][3] and "MSP1" not in errors[0][3]
    resnet = {path: f for path, f in alone.items() if path.startswith("cv/resnet/")}
    assert resnet and all(found.get(path) == f or (path in found and set(f) <= set(found[path]))
                          for path, f in resnet.items())
    assert not any(path.startswith("cv/vit/") and any(f[0] != "MSP000" for f in findings)
                   for path, findings in found.items())
