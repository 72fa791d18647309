"""MSP401 per-step-host-sync: step outputs read on the host at every step, and the look-alikes that are not.

The reported shapes are the ones met on the development set (loss histories appended as numpy values, running
sums on the host, accuracy computed from logits, tqdm descriptions, f-string prints); the silent ones are the
periodic logging, epoch-level reads and evaluation loops that real training scripts also have.
"""

from __future__ import annotations

import textwrap
from typing import List, Tuple

import pytest

from ms_perflint.rules.msp401_per_step_host_sync import PerStepHostSync
from ms_perflint.run.lint import check_folder, check_text
from ms_perflint.settings import Settings

RULE = [PerStepHostSync]

#: A train step built with value_and_grad, in a function (MindSpore's tutorial), and a loop around it.
TUTORIAL = """
import mindspore as ms

def train(model, dataset, loss_fn, optimizer):
    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
        loss = train_step(data, label)
{body}

if __name__ == "__main__":
    train(net, dataset, loss_fn, optimizer)
"""


def lint(code: str, path: str = "train.py"):
    result = check_text(textwrap.dedent(code).lstrip("\n"), path, Settings(), rules=RULE)
    assert result.error is None, result.error
    return [f for f in result.findings if f.code == "MSP401"]


def lines(code: str) -> List[Tuple[int, int]]:
    return [(f.line, f.column + 1) for f in lint(code)]


def tutorial(body: str) -> str:
    return TUTORIAL.format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8))


# --- reported ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, column, said", [
    ("print(f'loss: {loss.asnumpy():>7f}')", 24, "loss.asnumpy()"),
    ("losses.append(loss.asnumpy())", 23, "loss.asnumpy()"),
    ("history.append(loss.item())", 24, "loss.item()"),
    ("total += float(loss)", 18, "float(loss)"),
    ("print('loss', loss)", 9, "print(loss)"),
    ("print('loss {}'.format(loss))", 9, "print(loss)"),
    ("print('loss %f' % loss)", 9, "print(loss)"),
    ("bar.set_description(f'loss {loss.numpy()}')", 37, "loss.numpy()"),
])
def test_a_read_of_the_step_output_in_the_step_loop(body: str, column: int, said: str):
    found = lint(tutorial(body))
    assert [(f.line, f.column + 1) for f in found] == [(17, column)]
    assert found[0].message.startswith(said) and found[0].fix is None


@pytest.mark.parametrize("body, said", [
    ("logger.info(f'step {batch} loss {loss}')", "logger.info(loss)"),
    ("logging.info('loss %s', loss)", "logging.info(loss)"),
    ("logger.warning('loss {}'.format(loss))", "logger.warning(loss)"),
])
def test_logging_the_step_output_every_step(body: str, said: str):
    found = lint(tutorial(body).replace("import mindspore as ms\n", "import logging\nimport mindspore as ms\n"))
    assert [(f.line, f.column + 1) for f in found] == [(18, 9)] and found[0].message.startswith(said)


def test_debug_logging_is_usually_filtered():
    assert lint(tutorial("logger.debug('loss %s', loss)")) == []


def test_one_finding_per_step_counting_the_other_reads():
    found = lint(tutorial("""
        losses.append(loss.asnumpy())
        print("step", batch, "loss", loss)
    """))
    assert [(f.line, f.column + 1) for f in found] == [(17, 23)]
    assert "1 more read" in found[0].message


def test_outputs_unpacked_from_a_train_step_cell():
    code = """
    import mindspore.nn as nn
    if __name__ == "__main__":
        train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
        for data, label in dataset.create_tuple_iterator():
            outputs = train_net(data, label)
            g_losses.append(outputs[0].asnumpy())
    """
    assert lines(code) == [(6, 25)]


def test_a_project_cell_built_on_train_one_step_cell_trains():
    code = """
    import mindspore.nn as nn
    class ClipTrainStep(nn.TrainOneStepCell):
        def construct(self, *inputs):
            loss = self.network(*inputs)
            grads = self.grad(self.network, self.weights)(*inputs, self.sens)
            self.optimizer(grads)
            return loss, self.network.real, self.network.fake
    if __name__ == "__main__":
        step = ClipTrainStep(net_with_loss, opt)
        for data in loader:
            loss, real, fake = step(data)
            acc_loss += loss.asnumpy().item()
    """
    assert lines(code) == [(12, 21)]


def test_a_custom_train_step_cell_that_keeps_its_grad_operation():
    code = """
    import mindspore.nn as nn
    import mindspore.ops as ops
    class TrainStep(nn.Cell):
        def __init__(self, network, optimizer):
            super().__init__()
            self.network, self.optimizer = network, optimizer
            self.grad = ops.GradOperation(get_by_list=True)
        def construct(self, x, y):
            loss = self.network(x, y)
            self.optimizer(self.grad(self.network, self.optimizer.parameters)(x, y))
            return loss
    if __name__ == "__main__":
        step = TrainStep(net_with_loss, opt)
        for x, y in loader:
            print(step(x, y))
    """
    assert lines(code) == [(15, 9)]


def test_a_read_in_the_step_function_called_from_a_loop():
    code = """
    import mindspore as ms
    from model import net, opt
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss.asnumpy()
    if __name__ == "__main__":
        for x, y in loader:
            train_step(x, y)
    """
    assert lines(code) == [(7, 12)]


HELPER = """
import mindspore as ms
def record(history, loss):
    history.append(loss.asnumpy())
if __name__ == "__main__":
    train_step = ms.nn.TrainOneStepCell(net, opt)
    for step, (x, y) in enumerate(loader):
        loss = train_step(x, y)
{call}
"""


def test_a_helper_handed_the_step_output_every_step():
    found = lint(HELPER.format(call="        record(history, loss)"))
    assert [(f.line, f.column + 1) for f in found] == [(3, 20)]
    assert found[0].message.startswith("loss.asnumpy() (handed the step's output by the call at line 8) reads")


def test_a_helper_handed_the_step_output_every_n_steps():
    assert lint(HELPER.format(call="        if step % 100 == 0:\n            record(history, loss)")) == []
    assert lint(HELPER.format(call="    record(history, loss)")) == []  # after the loop


def test_a_log_interval_that_is_one_in_every_configuration_is_every_step():
    code = """
    import argparse
    import mindspore as ms
    parser = argparse.ArgumentParser()
    parser.add_argument("--log_interval", type=int, default=1)
    args = parser.parse_args()
    train_step = ms.nn.TrainOneStepCell(net, opt)
    for step, (x, y) in enumerate(loader):
        loss = train_step(x, y)
        if step % args.log_interval == 0:
            print(f"loss {loss}")
    """
    assert lines(code) == [(10, 9)]
    assert lint(code.replace("default=1", "default=100")) == []


def test_a_read_on_rank_zero_only_still_runs_every_step():
    assert lines(tutorial("""
        if rank_id == 0:
            print(f"loss {loss}")
    """)) == [(18, 13)]


# --- silent ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    "if batch % 100 == 0:\n    print(f'loss: {loss.asnumpy():>7f}')",
    "if (batch + 1) % log_interval == 0 or batch == 0:\n    print(loss)",
    "if batch % 100:\n    continue\nprint(loss.asnumpy())",
    "if batch - last_log >= 50:\n    print(float(loss))\n    last_log = batch",
    "if batch == 0:\n    print('first loss', loss)",
    "if batch in log_steps:\n    print(loss)",
    "losses.append(loss)",
    "running = running + loss",
    "print('lr', lr.asnumpy(), 'label', label.asnumpy())",
    "print('step', batch)",
])
def test_periodic_reads_and_values_kept_on_the_device_are_silent(body: str):
    assert lint(tutorial(body)) == []


def test_a_read_after_the_step_loop_is_once_per_epoch():
    code = """
    import mindspore as ms
    def train(net, opt, dataset, epochs):
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for epoch in range(epochs):
            for x, y in dataset.create_tuple_iterator():
                loss = train_step(x, y)
            print(f"epoch {epoch}: loss {loss.asnumpy()}")
        print("final", float(loss))
    if __name__ == "__main__":
        train(net, opt, dataset, 10)
    """
    assert lint(code) == []


def test_the_output_of_a_function_that_trains_a_whole_epoch():
    code = """
    import mindspore as ms
    def train_epoch(train_step, dataset):
        total = 0
        for x, y in dataset.create_tuple_iterator():
            total = total + train_step(x, y)
        return total
    if __name__ == "__main__":
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for epoch in range(10):
            loss = train_epoch(train_step, dataset)
            print(f"epoch {epoch} loss {loss.asnumpy()}")
    """
    assert lint(code) == []


def test_evaluation_loops_and_forward_outputs_are_not_steps():
    code = """
    import mindspore as ms
    if __name__ == "__main__":
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for x, y in dataset.create_tuple_iterator():
            train_step(x, y)
            fake = generator(x)
            images.append(fake.asnumpy())
        for x, y in val.create_tuple_iterator():
            print(net(x).asnumpy().argmax(1))
    """
    assert lint(code) == []


def test_a_flag_that_no_configuration_turns_on():
    code = tutorial("""
        if args.verbose:
            print(loss)
    """).replace("import mindspore as ms\n", "import argparse\nimport mindspore as ms\n"
                 "parser = argparse.ArgumentParser()\nparser.add_argument('--verbose', type=bool, default=False)\n"
                 "args = parser.parse_args()\n")
    assert lint(code) == []


def test_a_step_function_called_once_is_not_per_step():
    code = """
    import mindspore as ms
    from model import net, opt
    grad_fn = ms.value_and_grad(net, None, opt.parameters)
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss.asnumpy()
    if __name__ == "__main__":
        train_step(x, y)
    """
    assert lint(code) == []


def test_a_callback_under_model_train_with_an_omitted_sink_flag_follows_the_release():
    # dataset_sink_mode defaults to False on 2.x (the release taken when none is declared and the program uses no
    # API 2.10 removed), so step_end runs every step; 1.x sank by default, where it runs once per sink
    code = """
    from mindspore.train import Callback, Model
    class Monitor(Callback):
        def step_end(self, run_context):
            loss = run_context.original_args().net_outputs
            print("loss", loss.asnumpy())
    if __name__ == "__main__":
        Model(net, loss_fn, opt).train(10, dataset, callbacks=[Monitor()])
    """
    assert len(lint(code)) == 1
    # c_transforms is gone from 2.10: an older release, 1.x (sinking) or an early 2.x -- not known, silent
    assert lint("import mindspore.dataset.vision.c_transforms as C\n" + textwrap.dedent(code).lstrip("\n")) == []
    declared = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", Settings(mindspore_version="1.10.1"),
                          rules=RULE)
    assert [f for f in declared.findings if f.code == "MSP401"] == []


def test_a_cpu_program_is_not_reported():
    code = tutorial("print(loss)").replace('if __name__ == "__main__":\n',
                                           'if __name__ == "__main__":\n    ms.set_context(device_target="CPU")\n')
    assert lint(code) == []


def test_a_gpu_program_is_reported():
    code = tutorial("print(loss)").replace('if __name__ == "__main__":\n',
                                           'if __name__ == "__main__":\n    ms.set_context(device_target="GPU")\n')
    assert len(lint(code)) == 1


def test_code_no_training_program_runs(tmp_path):
    (tmp_path / "loops.py").write_text(textwrap.dedent("""
    import mindspore as ms
    def train(net, opt, dataset):
        train_step = ms.nn.TrainOneStepCell(net, opt)
        for x, y in dataset.create_tuple_iterator():
            print(train_step(x, y))
    """))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [f for result in found.values() for f in result.findings] == []


def test_an_accuracy_computed_from_the_steps_logits_is_read_every_step():
    """``correct += (logits.argmax(1) == label).asnumpy().sum()``: the expression is made of the step's output, so the
    host waits for the step as surely as with ``loss.asnumpy()``."""
    code = TUTORIAL.replace("        return loss\n", "        return loss, logits\n", 1).replace(
        "        (loss, _), grads = grad_fn(data, label)", "        (loss, logits), grads = grad_fn(data, label)")
    code = code.replace("        loss = train_step(data, label)\n{body}",
                        "        loss, logits = train_step(data, label)\n"
                        "        correct += (logits.argmax(1) == label).asnumpy().sum()")
    assert lines(code) == [(17, 20)]
    # The look-alike: the same accuracy in an evaluation loop, from the network's forward pass, is not a step.
    evaluation = code.replace("correct += (logits.argmax(1) == label)", "correct += (model(data).argmax(1) == label)")
    assert lines(evaluation) == []


# --- truth tests, callbacks, formatting methods, project objects and held functions -------------------------


#: A value_and_grad step that skips the update on overflow, called from a loop.
OVERFLOW_STEP = """
import mindspore as ms
from mindspore.amp import all_finite

def fit(model, dataset, loss_fn, optimizer):
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(model(x), y), None, optimizer.parameters)

    {decorator}def train_step(x, y):
        loss, grads = grad_fn(x, y)
        if all_finite(grads):
            optimizer(grads)
        return loss

    for x, y in dataset.create_tuple_iterator():
        losses.append(train_step(x, y))

if __name__ == "__main__":
    fit(net, dataset, loss_fn, optimizer)
"""


def test_a_python_if_on_a_tensor_in_an_uncompiled_step_reads_it():
    found = lint(OVERFLOW_STEP.format(decorator=""))
    assert [(f.line, f.column + 1) for f in found] == [(9, 12)]
    assert found[0].message.startswith("if all_finite(grads)")


def test_an_if_on_a_tensor_that_jit_compiles_is_a_graph_op():
    assert lint(OVERFLOW_STEP.format(decorator="@ms.jit\n    ")) == []
    compiled_later = OVERFLOW_STEP.format(decorator="").replace(
        "    for x, y", "    train_step = ms.jit(train_step)\n    for x, y")
    assert lint(compiled_later) == []


def test_an_if_on_a_tensor_in_a_cells_construct_is_not_reported():
    code = """
    import mindspore as ms
    from mindspore import nn
    from mindspore.amp import all_finite
    class Step(nn.TrainOneStepCell):
        def construct(self, x, y):
            loss = self.network(x, y)
            grads = self.grad(self.network, self.weights)(x, y, self.sens)
            if all_finite(grads):
                self.optimizer(grads)
            return loss
    if __name__ == "__main__":
        step = Step(net, opt)
        for x, y in dataset.create_tuple_iterator():
            losses.append(step(x, y))
    """
    assert lint(code) == []


def test_a_python_if_on_a_plain_flag_is_not_a_read():
    code = tutorial("""
        if verbose:
            losses.append(loss)
    """)
    assert lint(code) == []


def test_a_helper_object_a_project_class_built_is_handed_the_step_output():
    code = """
    import mindspore as ms
    class Recorder:
        def __init__(self):
            self.history = []
        def step_end(self, loss):
            self.history.append(float(loss.asnumpy()))
    def train(net, opt, dataset):
        step = ms.nn.TrainOneStepCell(net, opt)
        recorder = Recorder()
        for x, y in dataset.create_tuple_iterator():
            recorder.step_end(step(x, y))
    if __name__ == "__main__":
        train(net, opt, dataset)
    """
    found = lint(code)
    assert [(f.line, f.column + 1) for f in found] == [(6, 35)]
    assert "handed the step's output by the call at line 11" in found[0].message


#: A project Callback reading the step's output in ``step_end``, handed to ``Model.train``.
MONITOR = """
from mindspore.train import Callback, Model
class Monitor(Callback):
    def step_end(self, run_context):
        params = run_context.original_args()
        loss = params.net_outputs
{read}
if __name__ == "__main__":
    Model(net, loss_fn, opt).train(10, dataset, callbacks=[Monitor()]{sink})
"""


def monitor(read: str, sink: str) -> str:
    return MONITOR.format(read=textwrap.indent(textwrap.dedent(read).strip("\n"), " " * 8), sink=sink)


@pytest.mark.parametrize("read, column", [
    ("print('loss', loss.asnumpy())", 23),
    ("history.append(float(loss[0].asnumpy()))", 30),
])
def test_a_callback_reading_net_outputs_every_step_without_sinking(read: str, column: int):
    found = lint(monitor(read, ", dataset_sink_mode=False"))
    assert [(f.line, f.column + 1) for f in found] == [(6, column)]
    assert "Monitor.step_end" in found[0].message


def test_a_callback_with_an_omitted_sink_flag_on_mindspore_2():
    code = textwrap.dedent(monitor("print(loss.asnumpy())", "")).lstrip("\n")
    result = check_text(code, "train.py", Settings(mindspore_version="2.3.0"), rules=RULE)
    assert [f.line for f in result.findings] == [6]


@pytest.mark.parametrize("read, sink", [
    ("print(loss.asnumpy())", ", dataset_sink_mode=True"),  # step_end runs once per sink
    ("""
    if params.cur_step_num % 100 == 0:
        print(loss.asnumpy())
    """, ", dataset_sink_mode=False"),
    ("""
    if params.cur_step_num - self.last >= self.interval:
        print(loss.asnumpy())
    """, ", dataset_sink_mode=False"),
    ("print(params.cur_step_num)", ", dataset_sink_mode=False"),  # not the step's output
])
def test_callbacks_that_sink_or_read_every_n_steps_are_silent(read: str, sink: str):
    assert lint(monitor(read, sink)) == []


def test_a_callback_of_a_program_that_also_sinks_is_silent():
    code = monitor("print(loss.asnumpy())", ", dataset_sink_mode=False").replace(
        "    Model(net", "    Model(net, loss_fn, opt).train(1, dataset, callbacks=[Monitor()], dataset_sink_mode=True)\n"
        "    Model(net")
    assert lint(code) == []


@pytest.mark.parametrize("body, said", [
    ("bar.set_postfix(train_loss=loss)", "bar.set_postfix(loss)"),
    ("writer.add_scalar('train/loss', loss, batch)", "writer.add_scalar(loss)"),
])
def test_formatting_methods_read_a_tensor(body: str, said: str):
    found = lint(tutorial(body))
    assert [f.line for f in found] == [17] and found[0].message.startswith(said)


@pytest.mark.parametrize("body", [
    "bar.set_postfix(lr=lr)",
    "bar.set_postfix(step=batch)",
    "if batch % 50 == 0:\n    writer.add_scalar('train/loss', loss, batch)",
])
def test_formatting_other_values_or_every_n_steps_is_silent(body: str):
    assert lint(tutorial(body)) == []


def test_formatting_a_python_float_read_every_n_steps_is_silent():
    code = tutorial("""
        if batch % 100 == 0:
            value = loss.asnumpy()
            bar.set_postfix(loss=value)
    """)
    assert lint(code) == []


def test_a_step_held_in_a_name_compiled_or_not():
    code = tutorial("print(loss)").replace(
        "    for batch,", "    train_step = ms.jit(train_step) if fast else train_step\n    for batch,").replace(
        "        loss = train_step(", "        loss = train_step(")
    found = lint(code)
    assert [f.line for f in found] == [18]


def test_a_project_value_and_grad_factory_returning_a_nested_function(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "grads.py").write_text(textwrap.dedent("""
    from mindspore.ops import GradOperation
    grad_by_list = GradOperation(get_by_list=True)
    def value_and_grad(fn, params):
        def run(*args):
            return fn(*args), grad_by_list(fn, params)(*args)
        return run
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
    import mindspore as ms
    from grads import value_and_grad
    def train(net, loss_fn, opt, dataset):
        grad_fn = value_and_grad(lambda x, y: loss_fn(net(x), y), opt.parameters)
        def train_step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss
        for x, y in dataset.create_tuple_iterator():
            loss = train_step(x, y)
            print(loss.asnumpy())
    if __name__ == "__main__":
        train(net, loss_fn, opt, dataset)
    """))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    assert [(path, f.line) for path, result in found.items() for f in result.findings] == [("train.py", 11)]


def test_a_loop_that_already_reads_a_device_result_to_feed_the_step_is_silent():
    """``mask = make_mask(flow)`` computes on the device and converts with ``asnumpy()`` before every step: that read
    waits for the previous step already, so printing this step's loss adds no wait of its own."""
    code = """
    import mindspore as ms
    from mindspore import ops
    def make_mask(flow):
        mask = ops.abs(flow) > 0.5
        return ms.Tensor(mask.asnumpy())
    def train(net, opt, dataset):
        step = ms.nn.TrainOneStepCell(net, opt)
        for x, flow in dataset.create_tuple_iterator():
            mask = make_mask(flow)
            loss = step(x, mask)
            print(loss)
    if __name__ == "__main__":
        train(net, opt, dataset)
    """
    assert lint(code) == []
    # Reading a batch value on the host (a parameter, not a device result) is no wait on the previous step.
    assert len(lint(code.replace("mask = ops.abs(flow) > 0.5\n        return ms.Tensor(mask.asnumpy())",
                                 "return ms.Tensor(flow.asnumpy() > 0.5)"))) == 1


def test_only_the_training_calls_handed_the_callback_decide():
    """A notebook that pretrains without sinking (with the monitor) and fine-tunes with sinking (without it)."""
    code = monitor("print(loss.asnumpy())", ", dataset_sink_mode=False").replace(
        "if __name__", "class Other(Callback):\n    pass\nif __name__") + \
        "    Model(net, loss_fn, opt).train(5, dataset, callbacks=[Other()], dataset_sink_mode=True)\n"
    assert [f.line for f in lint(code)] == [6]
    # A callbacks list the linter cannot read may hold the monitor: the sinking call then counts, and it is silent.
    unknown = code.replace("callbacks=[Other()]", "callbacks=make_callbacks()")
    assert lint(unknown) == []


def test_a_callback_list_a_project_function_returns_may_hold_the_monitor():
    code = monitor("print(loss.asnumpy())", ", dataset_sink_mode=False").replace(
        "callbacks=[Monitor()]", "callbacks=make_callbacks()").replace(
        "if __name__", "def make_callbacks():\n    return [Monitor()]\nif __name__")
    assert [f.line for f in lint(code)] == [6]


def test_graph_mode_does_not_compile_a_plain_python_step():
    """GRAPH_MODE compiles Cells' ``construct`` and jit functions; a plain function's ``if`` on a Tensor still asks
    the host for its truth (the WaveNet notebook sets GRAPH_MODE and steps this way)."""
    code = OVERFLOW_STEP.format(decorator="").replace(
        'if __name__ == "__main__":\n', 'if __name__ == "__main__":\n    ms.set_context(mode=ms.GRAPH_MODE)\n')
    assert [f.line for f in lint(code)] == [9]


def test_mindspores_own_loss_monitor_without_sinking_is_not_reported():
    code = """
    from mindspore.train import LossMonitor, Model
    if __name__ == "__main__":
        Model(net, loss_fn, opt).train(10, dataset, callbacks=[LossMonitor()], dataset_sink_mode=False)
    """
    assert lint(code) == []


#: YOLOX: an EMA Callback's ``on_train_step_end`` calls a method of the train-step cell it holds, which copies the
#: BatchNorm statistics to the host (``param.asnumpy()``) to average them; a profiling arm trains sunk.
EMA = """
import mindspore as ms
from mindspore import nn
from mindspore.train import Callback, Model
class StepWithEMA(nn.TrainOneStepCell):
    def ema_update(self):
        for name, param in self.network.parameters_and_names():
            if "moving_mean" in name:
                self.averages[name] = 0.9 * self.averages[name] + 0.1 * param.asnumpy()
class EMACallback(Callback):
    def __init__(self, network):
        self.network = network
    def on_train_step_end(self, run_context):
{hook}
def main(profile=False):
    step = StepWithEMA(nn.WithLossCell(net, loss), opt).set_train()
    model = Model(step)
    if profile:
        model.train(3, dataset, callbacks=[EMACallback(step)], dataset_sink_mode=True, sink_size=100)
    else:
        model.train(90, dataset, callbacks=[EMACallback(step)], dataset_sink_mode=False)
if __name__ == "__main__":
    main()
"""


def test_a_callback_that_calls_a_method_copying_parameters_to_the_host_every_step():
    code = EMA.format(hook="        self.network.ema_update()")
    found = lint(code)
    read = textwrap.dedent(code).lstrip("\n").splitlines()[7]  # the line that copies the statistic
    assert [(f.line, f.column) for f in found] == [(8, read.index("param.asnumpy()"))]
    message = found[0].message
    assert "StepWithEMA.ema_update, called by EMACallback.on_train_step_end" in message
    assert "reads a device tensor on the host every step" in message


def test_the_same_update_every_n_steps_or_in_a_sunk_training_is_silent():
    every_100 = "        if run_context.original_args().cur_step_num % 100 == 0:\n            self.network.ema_update()"
    assert lint(EMA.format(hook=every_100)) == []
    assert lint(EMA.format(hook="        self.network.ema_update()").replace("main()", "main(profile=True)")) == []
    sunk = EMA.format(hook="        self.network.ema_update()").replace(
        "callbacks=[EMACallback(step)], dataset_sink_mode=False", "callbacks=[EMACallback(step)], dataset_sink_mode=True")
    assert lint(sunk) == []


def test_a_project_callback_the_program_never_builds_is_not_its_callback(tmp_path):
    # mindaudio: utils/callback.py defines its own TimeMonitor (reading net_outputs every step); wavegrad's
    # train.py imports the package and trains with MindSpore's ms.TimeMonitor()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg.callback import TimeMonitor\n")
    (tmp_path / "pkg" / "callback.py").write_text(
        "from mindspore.train import Callback\n"
        "class TimeMonitor(Callback):\n"
        "    def step_end(self, run_context):\n"
        "        print(run_context.original_args().net_outputs.asnumpy())\n")
    train = ("import mindspore as ms\n"
             "import pkg\n"
             "from mindspore.train import Model\n"
             "if __name__ == '__main__':\n"
             "    callbacks = []\n"
             "    callbacks.append(ms.TimeMonitor())\n"
             "    Model(net, loss, opt).train(10, data, callbacks=callbacks, dataset_sink_mode=False)\n")
    (tmp_path / "train.py").write_text(train)

    def codes():
        found = check_folder(str(tmp_path), Settings(), rules=RULE)
        return [(path, f.line) for path, result in found.items() for f in result.findings]

    assert codes() == []
    # the same program building the project's monitor is reported
    (tmp_path / "train.py").write_text(train.replace("ms.TimeMonitor()", "pkg.TimeMonitor()"))
    assert codes() == [("pkg/callback.py", 4)]


SINK_LOOP = """
import mindspore as ms
from mindspore import nn, ops, jit, data_sink

def main(model, dataset, epochs):
    optimizer = nn.Adam(model.trainable_params(), 1e-3)

    def forward_fn(x, y):
        return ops.mse_loss(model(x), y)

    grad_fn = ops.value_and_grad(forward_fn, None, optimizer.parameters)

    @jit
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        return ops.depend(loss, optimizer(grads))

    sink_process = data_sink(train_step, dataset{sink})
    for epoch in range(epochs):
        for _ in range(dataset.get_dataset_size()):
            loss = sink_process()
            print(loss.asnumpy())

if __name__ == "__main__":
    main(Net(), data, 100)
"""


def test_a_one_batch_data_sink_is_one_step_a_call():
    # ``data_sink(train_step, dataset, sink_size=1)`` (also the default): every call runs one step, and reading its
    # output is a read every step; a sink of many batches a call is read once per sink.
    assert lines(SINK_LOOP.format(sink=", sink_size=1")) == [(21, 19)]
    assert lines(SINK_LOOP.format(sink="")) == [(21, 19)]
    assert lines(SINK_LOOP.format(sink=", sink_size=dataset.get_dataset_size()")) == []


def test_a_callback_shared_by_a_sinking_and_a_non_sinking_program_names_the_non_sinking_one(tmp_path):
    # ViT's train.py sinks, its ModelArts entry does not: the callback's per-step read is the ModelArts run's.
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "monitor.py").write_text(textwrap.dedent("""
    from mindspore.train import Callback
    class Monitor(Callback):
        def step_end(self, run_context):
            loss = run_context.original_args().net_outputs
            print(loss.asnumpy())
    """))
    script = textwrap.dedent("""
    import mindspore as ms
    from mindspore.train import Model
    from monitor import Monitor
    if __name__ == "__main__":
        ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend")
        Model(net, loss_fn, opt).train(10, dataset, callbacks=[Monitor()]{sink})
    """)
    (tmp_path / "train.py").write_text(script.format(sink=", dataset_sink_mode=True"))
    (tmp_path / "train_modelarts.py").write_text(script.format(sink=", dataset_sink_mode=False"))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    messages = [f.message for result in found.values() for f in result.findings]
    assert len(messages) == 1 and "without data sinking in train_modelarts.py)" in messages[0]
    (tmp_path / "train.py").write_text(script.format(sink=", dataset_sink_mode=False"))
    found = check_folder(str(tmp_path), Settings(), rules=RULE)
    messages = [f.message for result in found.values() for f in result.findings]
    assert len(messages) == 1 and "without data sinking)" in messages[0]  # every program: no program named


# --- host reads in what the step runs forward (traced from report-7 and report-5) --------------------------------

#: A network whose forward flips its input with numpy (read on the host), trained by Model.train.
FLIPPING_NET = """
import numpy as np
import mindspore as ms
import mindspore.nn as nn
{mode}
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3)

    def flip(self, image):
        return ms.Tensor(np.fliplr(image.asnumpy()))

    def construct(self, x):
        return self.conv(self.flip(x))

if __name__ == "__main__":
    model = ms.Model(Net(), loss_fn=nn.MSELoss(), optimizer=opt)
    model.train(10, dataset)
"""


def test_a_host_read_in_the_networks_forward_is_read_every_step_in_pynative():
    found = lint(FLIPPING_NET.format(mode='ms.set_context(mode=ms.PYNATIVE_MODE, device_target="Ascend")'))
    assert [(f.line, f.column + 1) for f in found] == [(11, 36)]  # at the read, in Net.flip
    assert "Net.flip" in found[0].message and "runs forward in PyNative" in found[0].message
    assert lint(FLIPPING_NET.format(mode="")) != []  # 2.x: PyNative by default
    # on the CPU no rule of the host-device family applies
    assert lint(FLIPPING_NET.format(mode='ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")')) == []


def test_a_host_read_in_the_function_value_and_grad_differentiates_is_read_every_step():
    code = TUTORIAL.replace("return loss_fn(logits, label), logits",
                            "loss = loss_fn(logits, label)\n        return loss, loss.asnumpy()")
    found = lint(code.format(body="        pass"))
    assert len(found) == 1 and "forward_fn" in found[0].message
    # compiled with jit, the forward is a graph: the step stays on the device (or fails to compile)
    jitted = code.replace("    def train_step(data, label):", "    @ms.jit\n    def train_step(data, label):")
    assert lint(jitted.format(body="        pass")) == []


def test_shape_arithmetic_in_the_forward_is_not_a_host_read():
    code = FLIPPING_NET.format(mode="").replace("return ms.Tensor(np.fliplr(image.asnumpy()))",
                                                 "return image[:int(image.shape[0] / 2)]")
    assert lint(code) == []


#: A demo: an MLP trained for a known number of full-batch steps, printing the loss each step.
DEMO = """
import mindspore as ms
import mindspore.nn as nn

class MLP(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Dense(8, width)
        self.fc2 = nn.Dense(width, 1)

    def construct(self, x):
        return self.fc2(self.fc1(x))

net = MLP({width})
loss_fn = nn.MSELoss()
optimizer = nn.SGD(net.trainable_params(), 0.01)

def forward_fn(x, y):
    return loss_fn(net(x), y)

grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)

def train_step(x, y):
    loss, grads = grad_fn(x, y)
    optimizer(grads)
    return loss

for step in range({steps}):
    loss = train_step(x, y)
    print(loss)
"""


def test_a_short_run_of_a_small_network_is_a_demo_and_its_per_step_reads_are_not_reported():
    assert lint(DEMO.format(width=64, steps=300)) == []  # 300 steps of a 0.6 K-parameter MLP: seconds
    assert len(lint(DEMO.format(width=64, steps=5000))) == 1  # a longer run
    assert len(lint(DEMO.format(width=1_000_000, steps=300))) == 1  # a large network: each step counts
    unknown = DEMO.format(width=64, steps=300).replace("for step in range(300):", "for x, y in loader:")
    assert len(lint(unknown)) == 1  # steps over data: the run's length is not known
