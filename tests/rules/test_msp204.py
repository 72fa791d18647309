"""MSP204 dataset-sink-off-on-ascend: Model.train without data sinking on Ascend in graph mode -- explicit, from
an argparse default, or by 2.x's default -- and the look-alikes that must stay silent (sinking on, PyNative,
GPU/CPU, 1.x or unknown releases with the flag omitted, summaries collected per step)."""

from __future__ import annotations

import textwrap
from typing import List, Optional, Tuple

from ms_perflint.rules.msp204_dataset_sink_off_on_ascend import DatasetSinkOffOnAscend
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings

GRAPH = "ms.set_context(mode=ms.GRAPH_MODE)"


def lint(code: str, version: Optional[str] = None) -> List:
    settings = Settings(select=("MSP204",), mindspore_version=version,
                        mindspore_version_source="inferred from requirements.txt:1 (mindspore==x)" if version else "")
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", settings, rules=[DatasetSinkOffOnAscend])
    assert result.error is None, result.error
    return result.findings


def at(code: str, version: Optional[str] = None) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code, version)]


def script(*lines: str) -> str:
    """A script that imports MindSpore and Model and runs ``lines`` under ``__main__``."""
    body = "\n".join("    " + line for line in lines)
    return f"import mindspore as ms\nfrom mindspore.train import Model, SummaryCollector\nif __name__ == \"__main__\":\n{body}\n"


# --- reported ------------------------------------------------------------------------------------------------


def test_an_explicit_false_in_graph_mode_is_reported_at_the_call_with_a_fix():
    findings = lint(script(GRAPH, "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)"))
    assert [(f.line, f.column + 1) for f in findings] == [(5, 5)]
    assert findings[0].fix is not None and findings[0].fix.edits[0].new == "True"
    assert "dataset_sink_mode=False on Ascend in graph mode" in findings[0].message


def test_an_omitted_flag_on_2x_is_reported_and_the_flag_appended():
    findings = lint(script(GRAPH, "Model(net, loss, opt).train(10, data)"), version="2.3.1")
    assert [(f.line, f.column + 1) for f in findings] == [(5, 5)]
    assert "defaults to False since MindSpore 2.0" in findings[0].message
    assert "dataset_sink_mode=True" in findings[0].fix.edits[0].new


def test_a_positional_false_and_fit_are_read_at_their_positions():
    assert at(script(GRAPH, "Model(net, loss, opt).train(10, data, None, False)")) == [(5, 5)]
    assert at(script(GRAPH, "Model(net, loss, opt).fit(10, data, val, 1, None, False)")) == [(5, 5)]
    # fit's fourth argument is valid_frequency, not the sink flag
    assert at(script(GRAPH, "Model(net, loss, opt).fit(10, data, None, False, None, True)")) == []


def test_a_false_argparse_default_is_reported_naming_where_it_is_written_without_a_fix():
    findings = lint("""
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--sink", type=bool, default=False)
        args = parser.parse_args()
        ms.set_context(mode=ms.GRAPH_MODE)
        Model(net, loss, opt).train(10, data, dataset_sink_mode=args.sink)
    """)
    assert [(f.line, f.column + 1) for f in findings] == [(8, 1)]
    assert "argparse default at train.py:5" in findings[0].message
    assert findings[0].fix is None


def test_graph_mode_for_one_run_is_enough():
    assert at("""
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", type=int, default=0, help="0 graph, 1 pynative")
        args = parser.parse_args()
        ms.set_context(mode=args.mode)
        Model(net, loss, opt).train(10, data, dataset_sink_mode=False)
    """) == [(8, 1)]


def test_no_mode_on_1x_is_graph_mode():
    assert at(script("Model(net, loss, opt).train(10, data, dataset_sink_mode=False)"), version="1.10.1") == [(4, 5)]


# --- silent --------------------------------------------------------------------------------------------------


def test_sinking_on_or_unknown_is_silent():
    assert at(script(GRAPH, "Model(net, loss, opt).train(10, data, dataset_sink_mode=True)")) == []
    assert at(script(GRAPH, "Model(net, loss, opt).train(10, data, dataset_sink_mode=read_flag())")) == []
    assert at(script(GRAPH, "Model(net, loss, opt).train(10, data, **options)"), version="2.3.1") == []


def test_an_omitted_flag_on_1x_or_an_unknown_older_release_is_silent():
    assert at(script(GRAPH, "Model(net, loss, opt).train(10, data)"), version="1.10.1") == []
    # c_transforms is gone from 2.10: the program runs on an older release, 1.x (sinking) or an early 2.x
    assert at(script(GRAPH, "import mindspore.dataset.vision.c_transforms as C",
                     "Model(net, loss, opt).train(10, data)")) == []


def test_an_omitted_flag_with_no_release_declared_is_read_on_the_current_release():
    found = lint(script(GRAPH, "Model(net, loss, opt).train(10, data)"))
    assert [f.line for f in found] == [5]
    assert "MindSpore 2.10.0: no release is declared" in found[0].message


def test_pynative_programs_are_silent():
    assert at(script("ms.set_context(mode=ms.PYNATIVE_MODE)",
                     "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == []
    # no mode on 2.x: PyNative, the default
    assert at(script("Model(net, loss, opt).train(10, data, dataset_sink_mode=False)"), version="2.3.1") == []
    # no mode and no release declared: the current release, PyNative by default
    assert at(script("Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == []
    # no mode on an older release that is not known: graph on 1.x, PyNative on 2.x -- not known
    assert at(script("import mindspore.dataset.vision.py_transforms as P",
                     "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == []


def test_gpu_and_cpu_programs_are_silent():
    for target in ("GPU", "CPU"):
        assert at(script(f'ms.set_context(mode=ms.GRAPH_MODE, device_target="{target}")',
                         "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == [], target


def test_a_program_collecting_summaries_is_silent_but_a_per_step_loss_monitor_is_not():
    assert at(script(GRAPH, 'summary = SummaryCollector("./summary", collect_freq=1)',
                     "Model(net, loss, opt).train(10, data, callbacks=[summary], dataset_sink_mode=False)")) == []
    assert at(script(GRAPH, "from mindspore.train import LossMonitor",
                     "Model(net, loss, opt).train(10, data, callbacks=[LossMonitor(1)], dataset_sink_mode=False)")) \
        == [(6, 5)]
    # Yolact++: a SummaryCollector built and never handed to training collects nothing
    assert at(script(GRAPH, 'summary = SummaryCollector("./summary", collect_freq=10)', "callbacks = [monitor]",
                     "Model(net, loss, opt).train(10, data, callbacks=callbacks, dataset_sink_mode=False)")) == [(7, 5)]
    assert at(script(GRAPH, 'summary = SummaryCollector("./summary", collect_freq=10)', "callbacks = [monitor]",
                     "callbacks.append(summary)",
                     "Model(net, loss, opt).train(10, data, callbacks=callbacks, dataset_sink_mode=False)")) == []


def test_a_custom_loop_is_not_this_rules_business():
    assert at(script(GRAPH, "step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)",
                     "for x, y in data:", "    step(x, y)"), version="2.3.1") == []


def test_bucketed_batches_are_silent():
    assert at(script(GRAPH, "import mindspore.dataset as ds",
                     "data = ds.GeneratorDataset(source, ['x', 'y']).bucket_batch_by_length(['x'], [10, 20], [8, 8, 8])",
                     "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == []
    assert at("""
        import mindspore as ms
        import mindspore.dataset as ds
        from mindspore.train import Model
        class BucketSpeechDataset:
            def __getitem__(self, index):
                return self.batches[index]
        def create_dataset():
            source = BucketSpeechDataset()
            return 1000, ds.GeneratorDataset(source, ["x", "y"])
        if __name__ == "__main__":
            ms.set_context(mode=ms.GRAPH_MODE)
            vocab, data = create_dataset()
            Model(net, loss, opt).train(10, data, dataset_sink_mode=False)
    """) == []
    assert at(script(GRAPH, "import mindspore.dataset as ds",
                     "data = ds.GeneratorDataset(source, ['x', 'y']).batch(8)",
                     "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)")) == [(7, 5)]


def test_a_module_constant_is_reported_without_editing_the_constant():
    """The fix edits the call only: a constant may be shared by other calls."""
    findings = lint("import mindspore as ms\nfrom mindspore.train import Model\nSINK = False\n"
                    + script(GRAPH, "Model(net, loss, opt).train(10, data, dataset_sink_mode=SINK)").split("\n", 2)[2])
    assert [(f.line, f.column + 1) for f in findings] == [(6, 5)]
    assert findings[0].fix is None and "literal at train.py:3" in findings[0].message


def test_a_flag_set_per_mode_in_a_local_variable_is_silent():
    """mindface's shape: the graph arm sinks, the PyNative arm does not; the last assignment alone says False."""
    assert at("""
        import mindspore as ms
        from mindspore.train import Model
        def main(args):
            if args.mode == "GRAPH":
                sink = True
                ms.set_context(mode=ms.GRAPH_MODE)
            else:
                sink = False
                ms.set_context(mode=ms.PYNATIVE_MODE)
            Model(net, loss, opt).train(10, data, dataset_sink_mode=sink)
        if __name__ == "__main__":
            main(parse())
    """) == []


def test_a_local_flag_the_graph_run_sets_false_is_reported():
    """A local flag is read as the program runs it: the arm every run takes decides (Mask R-CNN's
    ``dataset_sink_mode_flag = False`` was dropped while locals were read by their last assignment)."""
    code = """
        import mindspore as ms
        from mindspore.train import Model
        def main():
            ms.set_context(mode=ms.GRAPH_MODE)
            sink_flag = False
            Model(net, loss, opt).train(10, data, dataset_sink_mode=sink_flag)
        if __name__ == "__main__":
            main()
    """
    assert at(code) == [(6, 5)]
    # A flag chosen by a test every run decides: the graph-mode arm does not sink.
    chosen = """
        import mindspore as ms
        from mindspore.train import Model
        MODE = "graph"
        def main():
            ms.set_context(mode=ms.GRAPH_MODE)
            sink_flag = True
            if MODE == "graph":
                sink_flag = False
            Model(net, loss, opt).train(10, data, dataset_sink_mode=sink_flag)
        if __name__ == "__main__":
            main()
    """
    assert at(chosen) == [(9, 5)]


def test_graph_mode_set_further_down_the_top_level_does_not_apply_to_an_earlier_training_call():
    # a notebook trains in an early cell and sets GRAPH_MODE in a later one: the early training ran in the
    # release's default mode (PyNative on 2.x); the later training runs in graph mode
    code = "\n".join([
        "import mindspore as ms",
        "from mindspore.train import Model",
        "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)",
        "ms.set_context(mode=ms.GRAPH_MODE)",
        "Model(net, loss, opt).train(10, data, dataset_sink_mode=False)",
    ])
    assert at(code) == [(5, 1)]


def test_a_mode_chosen_by_a_normalised_flag_is_decided():
    # ``args.mode.upper().startswith("GRAPH")``: a str method of a known default is a known value.
    code = """
        import argparse
        import mindspore as ms
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--mode", type=str, default="{mode}")
        args = parser.parse_args()
        ms.set_context(mode=ms.GRAPH_MODE if args.mode.upper().startswith("GRAPH") else ms.PYNATIVE_MODE,
                       device_target="Ascend")
        Model(net, loss, opt).train(10, data, dataset_sink_mode=False)
    """
    assert at(code.format(mode="graph")) == [(9, 1)]
    assert at(code.format(mode="pynative")) == []


def test_a_model_kept_on_self_by_a_trainer_class_trains():
    # ``self.solver = self.get_solver()`` (a method returning the Model) and ``self.model = Model(...)``, trained
    # in another method: both are Model.train calls.
    code = """
        import mindspore as ms
        from mindspore.train import Model
        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        class Trainer:
            def __init__(self, net):
                self.net = net
                self.solver = self.get_solver()
            def get_solver(self):
                solver = Model(self.net, loss_fn=loss, optimizer=opt)
                return solver
            def train(self):
                self.solver.train(10, data, dataset_sink_mode=False)
        class Plain:
            def __init__(self, net):
                self.model = Model(net, loss_fn=loss, optimizer=opt)
            def train(self):
                self.model.train(10, data, dataset_sink_mode=False)
        if __name__ == "__main__":
            Trainer(net).train()
            Plain(net).train()
    """
    assert at(code) == [(12, 9), (17, 9)]
