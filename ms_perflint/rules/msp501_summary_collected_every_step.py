"""MSP501 summary-collected-every-step: a SummaryCollector that collects at every step of a training run."""

from __future__ import annotations

import re
from typing import List, Optional

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Value, YamlFacts, YamlMapping
from ms_perflint.findings import FixAvailability, FixSafety
from ms_perflint.project.model import Program, Project, is_test_file
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, replace_value

FIX_DESCRIPTION = f"Collect every {ms.SUMMARY_DEFAULT_FREQUENCY} steps (the default)"


class SummaryCollectedEveryStep(Rule):
    """Report summary collection at every training step."""

    code = "MSP501"
    name = "summary-collected-every-step"
    summary = "Summary data is collected at every training step"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds summary collection that runs at every training step:

            - `SummaryCollector(..., collect_freq=1)` (also positional: `SummaryCollector(dir, 1)`), or
              mindformers' `SummaryMonitor(collect_freq=1)`, in a program that trains;
            - a `collect_specified_data` whose `histogram_regular` matches every parameter (`".*"`): the
              histograms of all weights are copied to the host at each collection;
            - a mindformers YAML callback `type: SummaryMonitor` with `collect_freq: 1` in a training config.

            A value from a config counts when every configured value is 1.
        """,
        why_bad="""
            At each collection `SummaryCollector` waits for the step to finish, copies the loss, the input
            images and the selected parameters to the host, and hands them to the processes that write the
            summary file. MindSpore's own docs for `collect_freq` say not to collect too often because it
            affects performance, and default to every 10 steps; mindformers' `SummaryMonitor` has the same
            default. On MindSpore 2.10 (CPU) a 20-step `Model.train` records summary data at all 20 steps with
            `collect_freq=1` and at steps 1, 10 and 20 with the default (checked by the MindSpore test tier).
            Measured with MindSpore 2.10 on the CPU (a Dense 64-64-10 network, batches of 8, 200 steps per
            epoch, `Model.train`; the median time of epochs 2 to 6, in fresh processes alternating the two
            settings): epochs took 2.2 to 2.3 times as long with `collect_freq=1` as with the default 10.
        """,
        example="""
            from mindspore.train import Model, SummaryCollector

            summary = SummaryCollector(summary_dir="./summary", collect_freq=1)
            model.train(10, dataset, callbacks=[summary])
        """,
        use_instead="""
            from mindspore.train import Model, SummaryCollector

            summary = SummaryCollector(summary_dir="./summary", collect_freq=10)
            model.train(10, dataset, callbacks=[summary])
        """,
        fix_safety="""
            The fix writes the default, 10, in place of a literal 1 (in Python or YAML). It is *unsafe*: the
            summary then holds one point in ten, which changes what MindInsight shows (curves at coarser
            resolution, fewer images). A histogram expression that matches everything is not fixed: which
            parameters to watch is the author's choice.
        """,
        programs="""
            Training programs (a `Model.train` with the collector as a callback, or any training program that
            builds one) and mindformers YAML configs whose `run_mode` trains. The rule applies whatever the
            device.
        """,
        silent_on="""
            - `collect_freq` of 2 or more, the default, or a value the linter cannot know;
            - data sink mode on an accelerator (`Model.train(..., dataset_sink_mode=True)`, YAML
              `runner_config: sink_mode: True` with a `sink_size` other than 1): `collect_freq` then counts
              epochs (sinks), not steps (MindSpore 2.10, `SummaryCollector`);
            - a `histogram_regular` that picks some parameters (`"^conv1.*"`);
            - `collect_tensor_freq=1`: it only paces the `TensorSummary` operators a network adds itself (none in
              most networks), which the linter does not look for;
            - collectors no training program builds, under a condition no configuration turns on, and YAML
              configs whose `run_mode` is `predict` or `eval`.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings. Its SummaryCollectors (two
            copies of one GNMT notebook) collect every 50 steps, mindformers' SummaryMonitor passes its
            `collect_freq` through, and no YAML config uses SummaryMonitor. The tests carry the look-alikes.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.SummaryCollector.html",
            "https://www.mindspore.cn/mindformers/docs/en/dev/appendix/conf_files.html",
        ),
    )
    valid = (
        Valid(
            """
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector(summary_dir="./summary", collect_freq=50)
                Model(net, loss, opt).train(10, dataset, callbacks=[summary])
            """,
            why="every 50 steps",
        ),
        Valid(
            """
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector("./summary", collect_freq=1)
                Model(net, loss, opt).train(10, dataset, callbacks=[summary], dataset_sink_mode=True)
            """,
            why="in sink mode collect_freq counts epochs",
        ),
        Valid(
            """
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector("./summary", collect_specified_data={"histogram_regular": "^conv1.*"})
                Model(net, loss, opt).train(10, dataset, callbacks=[summary])
            """,
            why="histograms of some parameters, every 10 steps",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector(summary_dir="./summary", collect_freq=1)
                Model(net, loss, opt).train(10, dataset, callbacks=[summary])
            """,
            line=3,
            column=70,
            fixed="""
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector(summary_dir="./summary", collect_freq=10)
                Model(net, loss, opt).train(10, dataset, callbacks=[summary])
            """,
        ),
        Invalid(
            """
            from mindspore.train import Model, SummaryCollector
            if __name__ == "__main__":
                summary = SummaryCollector("./summary", collect_specified_data={"histogram_regular": ".*"})
                Model(net, loss, opt).train(10, dataset, callbacks=[summary])
            """,
            line=3,
            column=68,
            message_contains="every parameter",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        programs = project.training_programs()
        for path, facts in sorted(project.python.items()):
            for call in facts.calls:
                kind = _collector(project, path, call) if call.callee else ""
                if kind:
                    self._collector(check, programs, path, call, kind)
        for path, facts in sorted(project.yaml.items()):
            if not is_test_file(path) and _run_mode(facts) not in ms.NON_TRAINING_RUN_MODES:
                self._yaml(check, path, facts)

    def _collector(self, check: Check, programs: List[Program], path: str, call: Call, kind: str) -> None:
        frequency = call.argument(ms.SUMMARY_FREQUENCY.keyword, ms.SUMMARY_FREQUENCY.position)
        every_step = frequency is not None and _always_one(check, path, call, frequency)
        specified = ms.SUMMARY_SPECIFIED_DATA[kind]
        data = call.argument(specified.keyword, specified.position)
        everything = data is not None and data.kind == LIT and isinstance(data.data, dict) \
            and _matches_everything(data.data.get(ms.HISTOGRAM_REGULAR))
        if not every_step and not everything:
            return  # decided before asking which programs run the call (that costs more)
        running = [p for p in programs if _runs(check, p, path, call)]
        if not running:
            return
        if every_step and not all(_sinks(check, p) for p in running):
            fix = None
            if frequency.kind == LIT:  # type: ignore[union-attr]
                fix = replace_value(frequency, str(ms.SUMMARY_DEFAULT_FREQUENCY), FixSafety.UNSAFE,  # type: ignore[arg-type]
                                    FIX_DESCRIPTION)
            at = frequency if frequency.line else call  # type: ignore[union-attr]
            check.report(self.code, path, at, _message(_label(kind)), fix)
        if everything:
            check.report(self.code, path, data if data.line else call,
                         f"{_label(kind)}'s histogram_regular {data.data[ms.HISTOGRAM_REGULAR]!r} matches every parameter: "
                         f"the histograms of all weights are copied to the host at each collection; pick the "
                         f"parameters to watch")

    def _yaml(self, check: Check, path: str, facts: YamlFacts) -> None:
        for mapping in facts.mappings:
            kind = mapping.entries.get("type")
            if kind is None or kind.data != ms.SUMMARY_MONITOR:
                continue
            frequency = mapping.entries.get(ms.SUMMARY_FREQUENCY.keyword)
            if frequency is None or frequency.kind != LIT or frequency.data != 1 or type(frequency.data) is not int:
                continue
            if _yaml_sinks(facts):
                continue
            fix = replace_value(frequency, str(ms.SUMMARY_DEFAULT_FREQUENCY), FixSafety.UNSAFE, FIX_DESCRIPTION)
            check.report(self.code, path, frequency, _message(ms.SUMMARY_MONITOR), fix)


# --- helpers -----------------------------------------------------------------------------------------


def _collector(project: Project, path: str, call: Call) -> str:
    """:data:`~ms_perflint.catalogue.SUMMARY_COLLECTOR` or mindformers' ``SummaryMonitor`` (also when mindformers
    itself is linted), or ""."""
    if project.qualified(path, call) == ms.SUMMARY_COLLECTOR:
        return ms.SUMMARY_COLLECTOR
    parts = call.callee.split(".")
    if parts[0] == "mindformers" and parts[-1] == ms.SUMMARY_MONITOR:
        return ms.SUMMARY_MONITOR
    return ""


def _label(kind: str) -> str:
    return kind.rsplit(".", 1)[-1]


def _runs(check: Check, program: Program, path: str, call: Call) -> bool:
    values = check.values
    return (path, call.scope) in values.live_scopes(program) and values.can_hold(path, call.scope, call.guards,
                                                                                 program)


def _always_one(check: Check, path: str, call: Call, value: Value) -> bool:
    """Every value the frequency can take is 1."""
    found = check.values.resolve(path, value, call.scope)
    return found.complete and bool(found.values) and all(type(k.value) is int and k.value == 1 for k in found.values)


def _sinks(check: Check, program: Program) -> bool:
    """Every ``Model.train`` of the program sinks data to an accelerator: collection then counts sinks."""
    if not check.ascend(program).accelerator:
        return False  # MindSpore runs without sinking on the CPU
    calls = [(p, c) for p, c, kind in check.project.training_calls(program) if kind == "model"]
    if not calls:
        return False
    for path, call in calls:
        sink = call.argument(ms.MODEL_TRAIN_SINK.keyword, ms.MODEL_TRAIN_SINK.position)
        found = check.values.resolve(path, sink, call.scope, program=program) if sink is not None else None
        if found is None or not found.complete or not found.values or not all(k.value is True for k in found.values):
            return False
        size = call.argument(ms.MODEL_TRAIN_SINK_SIZE.keyword, ms.MODEL_TRAIN_SINK_SIZE.position)
        sizes = check.values.resolve(path, size, call.scope, program=program) if size is not None else None
        if sizes is not None and any(k.value == 1 for k in sizes.values):
            return False  # one step per sink
    return True


def _yaml_sinks(facts: YamlFacts) -> bool:
    """``runner_config: sink_mode: True`` with a ``sink_size`` other than 1."""
    runner = next((m for m in facts.mappings if m.path == ("runner_config",)), None)
    if runner is None:
        return False
    mode, size = runner.entries.get("sink_mode"), runner.entries.get("sink_size")
    return mode is not None and mode.data is True and size is not None and type(size.data) is int and size.data != 1


def _matches_everything(expression: object) -> bool:
    if not isinstance(expression, str):
        return False
    try:
        pattern = re.compile(expression)
    except re.error:
        return False
    return all(pattern.match(name) for name in ms.PARAMETER_NAME_SAMPLES)


def _run_mode(facts: YamlFacts) -> str:
    root: Optional[YamlMapping] = next((m for m in facts.mappings if not m.path), None)
    value = root.entries.get("run_mode") if root is not None else None
    return str(value.data).strip().lower() if value is not None and isinstance(value.data, str) else ""


def _message(kind: str) -> str:
    return (f"{kind} collects summary data at every training step (collect_freq=1): each collection waits for the "
            f"step and copies data to the host; collect every {ms.SUMMARY_DEFAULT_FREQUENCY} steps (the default) "
            f"or more")
