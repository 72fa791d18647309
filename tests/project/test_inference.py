"""project/inference.py: astroid asked where the facts give no answer, and the traps around it.

Shapes the model alone missed (a method of an object held in an attribute, a factory returning a tuple, a
comprehension over config objects), then the traps: two programs' modules of one dotted name, an installed
package, astroid's own recursion, UTF-8 byte columns, and astroid loaded only when a question needs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

from ms_perflint import catalogue as ms
from ms_perflint.project import inference
from ms_perflint.project.index import ProjectIndex
from ms_perflint.project.model import Project
from ms_perflint.project.values import Values
from tests.conftest import REPO, write_project


def project_at(root: Path) -> Project:
    index = ProjectIndex(str(root), cache_folder=None).refresh()
    return Project(index.root, index.facts())


def make(tmp_path: Path, files: Dict[str, str]) -> Project:
    return project_at(write_project(tmp_path, files))


def scope(project: Project, path: str, name: str) -> tuple:
    facts = project.python[path]
    return path, next(i for i, s in enumerate(facts.scopes) if s.name == name)


def calls(project: Project, path: str, method: str = "", callee: str = ""):
    return [c for c in project.python[path].calls if (method and c.method == method) or (callee and c.callee == callee)]


READER = {
    "train.py": """
        import mindspore.dataset as ds
        from src.data import Poses

        if __name__ == "__main__":
            data = ds.GeneratorDataset(Poses(), ["image"])
    """,
    "src/__init__.py": "",
    "src/data.py": """
        import cv2

        class ImageReader:
            def load(self, index):
                return cv2.imread(f"{index}.jpg")

        class Poses:
            def __init__(self):
                self.reader = ImageReader()

            def __getitem__(self, index):
                return self.reader.load(index)

            def __len__(self):
                return 10
    """,
}


def test_a_method_of_an_object_held_in_an_attribute_runs_per_sample(tmp_path):
    project = make(tmp_path, READER)
    load = scope(project, "src/data.py", "ImageReader.load")
    [call] = calls(project, "src/data.py", method="load")
    assert project.targets("src/data.py", call) == (load,)
    assert project.programs()[0].reaches(*load)
    assert "cv2.imread" in project.python["src/data.py"].scopes[load[1]].work


FACTORY = {
    "train.py": """
        from src.loaders import create_loaders

        def main():
            train_ds, eval_ds = create_loaders(32)
            train_ds.batch(4)
            eval_ds.batch(1)

        if __name__ == "__main__":
            main()
    """,
    "src/__init__.py": "",
    "src/loaders.py": """
        class TrainSet:
            def batch(self, n):
                return n

        class EvalSet:
            def batch(self, n):
                return n

        def create_loaders(batch):
            train = TrainSet()
            return train, EvalSet()
    """,
}


def test_a_factory_returning_a_tuple_gives_each_name_its_own_item(tmp_path):
    project = make(tmp_path, FACTORY)
    first, second = sorted(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.instance_classes("train.py", first.receiver, first.scope) == {("src/loaders.py", "TrainSet")}
    assert project.instance_classes("train.py", second.receiver, second.scope) == {("src/loaders.py", "EvalSet")}
    assert project.targets("train.py", first) == (scope(project, "src/loaders.py", "TrainSet.batch"),)


CHECKPOINTS = {
    "train.py": """
        from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

        def main(net, data):
            every_epoch = CheckpointConfig(save_checkpoint_steps=100)
            fast = CheckpointConfig(save_checkpoint_steps=10)
            explicit = CheckpointConfig(save_checkpoint_steps=1000)
            choices = (every_epoch, fast, explicit)
            callbacks = [ModelCheckpoint(config=c) for c in choices]
            Model(net).train(10, data, callbacks=callbacks)

        if __name__ == "__main__":
            main(None, None)
    """,
}


def test_a_comprehension_over_config_objects_builds_a_callback_from_each(tmp_path):
    project = make(tmp_path, CHECKPOINTS)
    [callback] = calls(project, "train.py", callee="mindspore.train.ModelCheckpoint")
    config = callback.kwargs["config"]
    origins = project.inference.origins("train.py", config)
    steps = sorted(call.kwargs["save_checkpoint_steps"].data for _, call in origins)
    assert steps == [10, 100, 1000]
    assert project.making_call("train.py", config, ms.CHECKPOINT_CONFIG) in origins


def test_a_name_bound_in_two_branches_has_both_literals(tmp_path):
    project = make(tmp_path, {"train.py": """
        import mindspore as ms

        def main(device):
            choices = ("O2", "O3")
            for level in choices:
                ms.set_context(mode=level)

        if __name__ == "__main__":
            main("Ascend")
    """})
    [call] = calls(project, "train.py", callee="mindspore.set_context")
    found = Values(project).resolve("train.py", call.kwargs["mode"], call.scope)
    assert sorted(found.literals()) == ["O2", "O3"] and found.complete
    assert {known.where.line for known in found.values} == {4}


# --- traps ------------------------------------------------------------------------------------------


def two_programs(name_a: str, name_b: str) -> Dict[str, str]:
    """Two model folders, each with its own ``src/dataset.py`` of one dotted name, defining different methods."""
    files = {}
    for folder, method in (("model_a", name_a), ("model_b", name_b)):
        files[f"{folder}/train.py"] = f"""
            from src.dataset import Source

            if __name__ == "__main__":
                choices = (Source(),)
                for source in choices:
                    source.{method}(0)
        """
        files[f"{folder}/src/__init__.py"] = ""
        files[f"{folder}/src/dataset.py"] = f"""
            class Source:
                def {method}(self, index):
                    return index
        """
    return files


def test_two_programs_modules_of_one_dotted_name_do_not_collide(tmp_path):
    project = make(tmp_path, two_programs("batch", "map"))
    for folder, method in (("model_a", "batch"), ("model_b", "map")):
        [call] = calls(project, f"{folder}/train.py", method=method)
        expected = scope(project, f"{folder}/src/dataset.py", f"Source.{method}")
        assert project.targets(f"{folder}/train.py", call) == (expected,)


def test_a_project_asked_after_another_sees_only_its_own_modules(tmp_path):
    first = make(tmp_path / "one", two_programs("batch", "map"))
    [call] = calls(first, "model_a/train.py", method="batch")
    assert first.targets("model_a/train.py", call)
    # The same dotted names in a second project, with the methods swapped: astroid's name-keyed cache must not
    # hand it the first project's src.dataset.
    second = make(tmp_path / "two", {**two_programs("map", "batch")})
    [call] = calls(second, "model_a/train.py", method="map")
    assert second.targets("model_a/train.py", call) == (scope(second, "model_a/src/dataset.py", "Source.map"),)
    import astroid.manager

    cached = astroid.manager.AstroidManager().astroid_cache
    assert not [name for name in cached if name.startswith(("model_a", "model_b", "src"))]


FAKE_MINDSPORE = {
    "mindspore/__init__.py": "from mindspore import nn\nfrom mindspore.train import Model\n",
    "mindspore/nn.py": "class Cell:\n    def construct(self, *args):\n        return args\nclass Dense(Cell):\n"
                       "    def __init__(self, *args):\n        self.weight = 1\n",
    "mindspore/train.py": "class Model:\n    def __init__(self, network, **kwargs):\n        self.network = network\n"
                          "    def train(self, *args, **kwargs):\n        self.network.construct()\n",
}

USES_MINDSPORE = {
    "train.py": """
        import mindspore as ms
        from mindspore import nn
        from mindspore.train import Model

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(1000, 1001)

            def construct(self, x):
                return self.fc(x)

        def main():
            choices = (True,)
            for flag in choices:
                ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend", save_graphs=flag)
            choices = (Net(),)
            for net in choices:
                model = Model(net, amp_level="O0")
                model.train(10, None, dataset_sink_mode=True)
            choices = (nn.Dense(3, 5),)
            for layer in choices:
                layer.construct(1)

        if __name__ == "__main__":
            main()
    """,
}


def test_a_loop_variable_s_literal_is_reported_where_it_is_written(tmp_path):
    from tests.conftest import check_project

    root = write_project(tmp_path, USES_MINDSPORE)
    assert check_project(root) == {"train.py": [("MSP201", 14, 16)]}


def test_an_installed_mindspore_changes_no_finding(tmp_path):
    root = write_project(tmp_path / "project", USES_MINDSPORE)
    fake = write_project(tmp_path / "site", FAKE_MINDSPORE)

    def findings(extra_path: str) -> list:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), extra_path) if p)}
        # With the fake on the path, ``import mindspore`` must work: the package really is installed there.
        script = ("import sys, json; from ms_perflint.run.lint import check_folder; from ms_perflint.settings import "
                  "Settings; r = check_folder(sys.argv[1], Settings()); "
                  + ("import mindspore; " if extra_path else "")
                  + "print(json.dumps(sorted([p, f.code, f.line, f.column, f.message] for p, x in r.items() "
                  "for f in x.findings)))")
        done = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True, env=env,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    without = findings("")
    assert without  # the program is reported on, so an answer that changed would show
    assert findings(str(fake)) == without


def test_astroid_never_builds_an_installed_package(tmp_path, monkeypatch):
    root = write_project(tmp_path / "project", USES_MINDSPORE)
    fake = write_project(tmp_path / "site", FAKE_MINDSPORE)
    monkeypatch.syspath_prepend(str(fake))
    project = project_at(root)
    [call] = calls(project, "train.py", method="construct")
    assert project.inference.call_targets("train.py", call) is None
    assert set(project.inference._modules) == {"train.py"}
    import astroid.manager

    assert not any(name.split(".")[0] == "mindspore" for name in astroid.manager.AstroidManager().astroid_cache)


def test_astroid_recursing_without_end_is_no_answer(tmp_path):
    # Each name one more than the last, 3,000 deep: astroid recurses past Python's limit.
    chain = "\n".join(f"v{i} = v{i - 1} + 1" for i in range(1, 3000))
    project = make(tmp_path, {"train.py": f"""
import mindspore as ms
v0 = 1
{chain}

def main():
    choices = (v2999,)
    for level in choices:
        ms.set_context(mode=level)

if __name__ == "__main__":
    main()
"""})
    [call] = calls(project, "train.py", callee="mindspore.set_context")
    assert project.inference.literals("train.py", call.kwargs["mode"]) is None
    assert not Values(project).resolve("train.py", call.kwargs["mode"], call.scope).complete


def test_a_question_over_its_budget_is_no_answer(tmp_path, monkeypatch):
    monkeypatch.setattr(inference, "MAX_STEPS", 0)
    project = make(tmp_path, FACTORY)
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.inference.instance_classes("train.py", first.receiver) is None


#: A loop over what a factory returns: the model follows no loop over a call's result, astroid does.
LOOPED = {**FACTORY, "train.py": """
        from src.loaders import create_loaders

        def main():
            for loader in create_loaders(32):
                loader.batch(4)

        if __name__ == "__main__":
            main()
    """}


def test_any_error_of_astroid_is_no_answer(tmp_path, monkeypatch):
    answered = make(tmp_path / "answered", LOOPED)
    [call] = calls(answered, "train.py", method="batch")
    assert answered.targets("train.py", call)  # astroid answers while it works
    project = make(tmp_path, LOOPED)

    def broken(self, node):
        raise RuntimeError("astroid went wrong")

    monkeypatch.setattr(inference.Inference, "_infer", broken)
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.targets("train.py", first) == ()


def test_non_ascii_text_before_a_call_on_its_line(tmp_path):
    # libcst's columns count characters, astroid's UTF-8 bytes: "é" and "数据" shift them apart.
    files = dict(FACTORY)
    files["train.py"] = """
        from src.loaders import create_loaders

        def main():
            train_ds, eval_ds = create_loaders(32)
            label = "étiquette, 数据"; train_ds.batch(4); print(label)

        if __name__ == "__main__":
            main()
    """
    project = make(tmp_path, files)
    [call] = calls(project, "train.py", method="batch")
    assert project.targets("train.py", call) == (scope(project, "src/loaders.py", "TrainSet.batch"),)


def test_literal_positions_are_characters(tmp_path):
    project = make(tmp_path, {"train.py": """
        import mindspore as ms

        def main():
            choices = ("é", "O3")
            for level in choices:
                ms.set_context(mode=level)

        if __name__ == "__main__":
            main()
    """})
    [call] = calls(project, "train.py", callee="mindspore.set_context")
    found = Values(project).resolve("train.py", call.kwargs["mode"], call.scope)
    text = (Path(project.root) / "train.py").read_text(encoding="utf-8")
    assert sorted(text[k.where.start:k.where.end] for k in found.values) == ['"O3"', '"é"']
    assert sorted(k.where.column for k in found.values) == [15, 20]


def test_a_run_that_asks_nothing_never_imports_astroid(tmp_path):
    root = write_project(tmp_path, {"train.py": """
        import mindspore as ms
        from mindspore.train import Model

        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            Model(None, amp_level="O0").train(10, None)
    """})
    script = ("import sys; from ms_perflint.cli import main; code = main(['--no-cache', '--exit-zero', sys.argv[1]]); "
              "print('astroid' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script, str(root)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_only_the_modules_a_question_needs_are_parsed(tmp_path):
    files = dict(LOOPED)
    files["src/unrelated.py"] = "class Other:\n    def batch(self, n):\n        return n\n"
    project = make(tmp_path, files)
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    project.targets("train.py", first)
    built = {path for path, module in project.inference._modules.items() if module is not None}
    assert built == {"train.py", "src/loaders.py"}


def test_the_session_reads_texts_through_its_overlay(tmp_path):
    from ms_perflint.run.session import Session, SessionOptions

    root = write_project(tmp_path, FACTORY)
    session = Session(SessionOptions(jobs=1))
    edited = (root / "train.py").read_text(encoding="utf-8").replace("train_ds.batch(4)", "eval_ds.batch(4)")
    session.overlay[str(root / "train.py")] = edited.encode("utf-8")
    index = session.index(str(root))
    session._apply_overlay(index)
    project = Project(index.root, index.facts(), texts=session.texts(index))
    assert project.text("train.py") == edited
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.instance_classes("train.py", first.receiver, first.scope) == {("src/loaders.py", "EvalSet")}
    # A file changed on disk since its facts were recorded has no text: no answer rather than a wrong one.
    (root / "src" / "loaders.py").write_text("# changed\n", encoding="utf-8")
    assert project.text("src/loaders.py") is None


def test_a_list_or_dict_changed_after_it_is_written_is_not_complete(tmp_path):
    # astroid reads ``["O0"]`` and ``{"level": "O0"}`` as written; the append and the item assignment escape it.
    project = make(tmp_path, {"train.py": """
        import mindspore as ms

        def main(fast):
            levels = ["O0"]
            if fast:
                levels.append("O3")
            for level in levels:
                ms.set_context(mode=level)
            options = {"level": "O0"}
            options["level"] = "O3"
            choices = (options["level"],)
            for value in choices:
                ms.set_context(mode=value)

        if __name__ == "__main__":
            main(True)
    """})
    values = Values(project)
    for call in calls(project, "train.py", callee="mindspore.set_context"):
        assert not values.resolve("train.py", call.kwargs["mode"], call.scope).complete


def test_astroid_answers_a_call_s_targets_itself(tmp_path):
    project = make(tmp_path, FACTORY)
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.inference.call_targets("train.py", first) == (scope(project, "src/loaders.py", "TrainSet.batch"),)
    funcs = make(tmp_path / "functions", {"train.py": """
        def build():
            return 1

        if __name__ == "__main__":
            choices = (build,)
            for make in choices:
                make()
    """})
    [call] = calls(funcs, "train.py", method="__call__")
    assert funcs.targets("train.py", call) == (scope(funcs, "train.py", "build"),)


def test_a_closed_project_is_not_kept_alive_by_astroid(tmp_path):
    # A worker decides part after part: astroid's process-wide caches (its memoised lookups among them) must not
    # keep the models of the parts decided before alive.
    import gc
    import weakref

    project = make(tmp_path, FACTORY)
    first = min(calls(project, "train.py", method="batch"), key=lambda c: c.line)
    assert project.inference.call_targets("train.py", first)
    watched = weakref.ref(project)
    project.close()
    del project, first
    gc.collect()
    assert watched() is None


def test_facts_read_back_from_the_index_ask_what_fresh_facts_ask(tmp_path):
    # A guard is one object in fresh facts and a copy per call once read back: questions are keyed by place.
    from ms_perflint.analysis.facts import facts_from_json
    from ms_perflint.run.lint import decide, enabled_rules
    from ms_perflint.settings import Settings

    files = dict(USES_MINDSPORE)
    files["train.py"] = files["train.py"].replace(
        "            for net in (Net(),):", "            if switch:\n                print(1)\n                print(2)\n"
        "            for net in (Net(),):")
    root = write_project(tmp_path, files)
    index = ProjectIndex(str(root), cache_folder=None).refresh()
    fresh = Project(index.root, index.facts())
    copied = Project(index.root, {path: facts_from_json(facts.to_json()) for path, facts in index.facts().items()})
    settings = Settings()
    found = []
    for project in (fresh, copied):
        inference = project.inference
        found.append((decide(project, lambda _: settings, enabled_rules(settings)), inference.asked))
    assert found[0][1] > 0 and found[0] == found[1]
