"""MSP502 profiler-left-in-training: profiling switched on in a training program or config outside a profiling run."""

from __future__ import annotations

from typing import Any, Optional, Set

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Value, YamlFacts, YamlMapping
from ms_perflint.findings import FixAvailability
from ms_perflint.project.model import Program, Project, is_test_file
from ms_perflint.project.profiling import ProfilingSite, profiling_sites
from ms_perflint.project.training import Training
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

LABELS = {
    ms.PROFILER: "mindspore.Profiler",
    ms.PROFILE: "mindspore.profiler.profile",
    ms.SET_CONTEXT: "set_context(enable_profiling=True)",
    ms.PROFILER_OPTIONS_VARIABLE: "MS_PROFILER_OPTIONS",
}


class ProfilerLeftInTraining(Rule):
    """Report profiling that every run of a training program (or config) does, outside a profiling run."""

    code = "MSP502"
    name = "profiler-left-in-training"
    summary = "Profiling is switched on in every run of a training program or config"
    fix_availability = FixAvailability.NEVER
    docs = RuleDocs(
        what_it_does="""
            Finds profiling that a training program or config does in every run:

            - `mindspore.Profiler(...)` or `mindspore.profiler.profile(...)` that starts collecting when it
              is built (`start_profile` is not False), with no `schedule` and no `stop()` while training
              (in the training loop or a Callback), reached unconditionally by a training program;
            - the legacy `set_context(enable_profiling=True)`, and `MS_PROFILER_OPTIONS` set to options with
              `"start": true`, likewise unconditional;
            - a mindformers YAML config that trains with `profile: True`. The message names what it collects
              (`profile_memory`, `profile_communication`, `init_start_profile`) and the steps.

            Unconditional means that every guard on the way -- around the profiler and around the calls that
            reach it -- holds in every configuration the linter can see.
        """,
        why_bad="""
            A profiler adds collection to every step it covers (framework and device timelines, and memory or
            communication data when asked), writes that data on every rank, and parses it in the training
            process (`analyse()`, or `tensorboard_trace_handler`, whose `async_mode` defaults to False on 2.10),
            work that grows with the steps and ranks profiled. MindSpore 2.10's `Profiler()` starts collecting
            when it is built and has no schedule (checked by the MindSpore test tier); without a schedule or a
            `stop()` it collects every step of the run (2.10 docs of `schedule`: "Performance data of all steps
            is collected"). mindformers' `profile: True` collects the steps from `profile_start_step` to
            `profile_stop_step` (1 to 10 by default) of every run, parses them in the training process, and
            turns `auto_tune` off (mindformers' trainer logs "In profiler mode, auto-tune will be turned
            off"). Left in a training script or config, every production run pays for a profile nobody reads.
        """,
        example="""
            import mindspore as ms

            profiler = ms.Profiler(output_path="./profile")
            model.train(90, dataset)
            profiler.analyse()
        """,
        use_instead="""
            import mindspore as ms

            if args.profile:  # off by default: profile when measuring
                profiler = ms.Profiler(output_path="./profile")
            model.train(90, dataset)
            if args.profile:
                profiler.analyse()
        """,
        fix_safety="""
            No automatic fix: whether a run is a profiling run is the author's decision. Put the profiler
            behind a flag that defaults off, collect a few steps with `schedule=mindspore.profiler.schedule(...)`
            or `start_profile=False` with `start()`/`stop()` in a callback, or move it to a separate profiling
            script. In a mindformers config, set `profile: False` (keep a separate config for profiling).
        """,
        programs="""
            Training programs (scripts and notebooks that train, and the code they reach) and mindformers
            YAML configs whose `run_mode` trains. A program or config whose file or folder name says it is for
            profiling (`profile_train.py`, `profiling/run.py`, `llama_profile.yaml`) is a profiling run, not
            reported. The rule applies whatever the device.
        """,
        silent_on="""
            - a profiler behind a condition that some configuration turns off: `if args.profile:` with the flag
              off by default (also a `store_true` switch), a function that builds it called only under such a
              flag, the two arms of `if profile: ... else: ...`;
            - a profiler with a `schedule`, or built with `start_profile=False`, or one that is stopped in the
              training loop or in a Callback (`if step == stop_step: profiler.stop()`);
            - `Profiler.offline_analyse(...)`, which parses data collected before;
            - `MS_PROFILER_OPTIONS` without `"start": true` (no profiler starts);
            - programs that do not train (a benchmark of inference, an export), and profiling scripts by name;
            - YAML `profile: False`, `profile_memory: True` alone (it does nothing without `profile`), configs
              whose `run_mode` is `predict` or `eval`.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings. Its profilers are behind
            flags that default off (`need_profiler`, `enable_profiling`), stopped by a Callback after N steps
            (mindyolo), or built with `start_profile=False` (mindformers' ProfileMonitor), and every mindformers
            config has `profile: False`. The tests carry these look-alikes.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.Profiler.html",
            "https://www.mindspore.cn/mindformers/docs/en/dev/advanced_development/performance_optimization.html",
        ),
    )
    valid = (
        Valid(
            """
            import argparse
            import mindspore as ms
            from mindspore.train import Model
            parser = argparse.ArgumentParser()
            parser.add_argument("--profile", type=bool, default=False)
            args = parser.parse_args()
            if args.profile:
                profiler = ms.Profiler(output_path="./profile")
            Model(net, loss, opt).train(10, dataset)
            if args.profile:
                profiler.analyse()
            """,
            why="a flag that defaults off",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Callback, Model
            class StopProfiler(Callback):
                def __init__(self, profiler):
                    self.profiler = profiler
                def on_train_step_end(self, run_context):
                    if run_context.original_args().cur_step_num == 10:
                        self.profiler.stop()
            if __name__ == "__main__":
                profiler = ms.Profiler(output_path="./profile")
                Model(net, loss, opt).train(10, dataset, callbacks=[StopProfiler(profiler)])
            """,
            why="stopped by a Callback after 10 steps",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.profiler import schedule
            from mindspore.train import Model
            if __name__ == "__main__":
                profiler = ms.Profiler(schedule=schedule(wait=1, warmup=1, active=2, repeat=1))
                Model(net, loss, opt).train(10, dataset)
            """,
            why="a schedule collects a few steps",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                profiler = ms.Profiler(output_path="./profile")
                Model(net, loss, opt).train(10, dataset)
                profiler.analyse()
            """,
            line=4,
            column=16,
            message_contains="every step",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        programs = [p for p in project.training_programs() if not _profiling_path(p.entry)]
        if programs:
            sites = [s for s in profiling_sites(project) if s.starts and not s.scheduled]
            training = Training.shared(project)
            for site in sites:
                with check.deciding(site.path):
                    program = next((p for p in programs if _unconditional(check, p, site)), None)
                    if program is not None and not _stopped_while_training(project, training, program):
                        check.report(self.code, site.path, site.at, _message(site, program))
        for path, facts in sorted(project.yaml.items()):
            if not is_test_file(path) and not _profiling_path(path) and _trains(facts):
                self._yaml(check, path, facts)

    def _yaml(self, check: Check, path: str, facts: YamlFacts) -> None:
        root = _root(facts)
        if root is None or not _mindformers_config(facts):
            return
        flag = root.entries.get(ms.MINDFORMERS_PROFILE)
        if flag is None or flag.kind != LIT or flag.data is not True:
            return
        check.report(self.code, path, flag, _yaml_message(root))


# --- programs ----------------------------------------------------------------------------------------


def _profiling_path(path: str) -> bool:
    """A file (or folder) named for profiling: a profiling run on purpose."""
    return any(word in part.lower() for part in path.split("/") for word in ms.PROFILING_WORDS)


def _unconditional(check: Check, program: Program, site: ProfilingSite) -> bool:
    """The program reaches the site through calls and guards that hold in every configuration."""
    if not program.reaches(site.path, site.scope):
        return False
    if not check.values.always_holds(site.path, site.scope, site.guards, program):
        return False
    live = check.project.memo(("msp502-unconditional", program.entry), lambda: check.values.live_scopes(
        program, lambda path, scope, guards: check.values.always_holds(path, scope, guards, program)))
    return (site.path, site.scope) in live  # type: ignore[operator]


def _stopped_while_training(project: Project, training: Training, program: Program) -> bool:
    """A profiler ``stop()`` that the program runs while it trains: in a training loop or a Callback method."""
    for path in sorted(program.files):
        facts = project.python.get(path)
        if facts is None:
            continue
        loops = training.training_loops(path)
        for call in facts.calls:
            if call.method not in ms.PROFILER_STOP_METHODS or call.receiver is None or \
                    not program.reaches(path, call.scope) or not _a_profiler(project, path, call):
                continue
            if set(call.loops) & loops or _in_callback(project, path, call.scope):
                return True
    return False


def _a_profiler(project: Project, path: str, call: Call) -> bool:
    receiver = call.receiver
    made = project.made_by(path, receiver, scope=call.scope) if receiver is not None else ""
    if made in ms.PROFILER_CLASSES:
        return True
    text = (receiver.via or receiver.text or str(receiver.data or "")).lower() if receiver is not None else ""
    return "prof" in text


def _in_callback(project: Project, path: str, scope: int) -> bool:
    owner = project.owner_class(path, scope)
    return owner is not None and project.derives_from(owner, ms.CALLBACK_BASES)


def _message(site: ProfilingSite, program: Program) -> str:
    label = LABELS.get(site.kind, site.kind)
    return (f"{label} profiles every step of the training program {program.entry}: nothing limits it (no schedule, "
            f"no stop() while training, no flag that turns it off), so every run collects and parses a profile. "
            f"Put it behind a flag that defaults off, or profile a few steps with a schedule")


# --- mindformers configs -------------------------------------------------------------------------------


def _root(facts: YamlFacts) -> Optional[YamlMapping]:
    return next((m for m in facts.mappings if not m.path), None)


def _mindformers_config(facts: YamlFacts) -> bool:
    root = _root(facts)
    keys: Set[str] = {m.path[0] for m in facts.mappings if m.path}
    if root is not None:
        keys.update(root.entries)
    return bool(keys & ms.MINDFORMERS_CONFIG_KEYS)


def _trains(facts: YamlFacts) -> bool:
    root = _root(facts)
    mode = root.entries.get("run_mode") if root is not None else None
    return not (mode is not None and isinstance(mode.data, str) and mode.data.strip().lower()
                in ms.NON_TRAINING_RUN_MODES)


def _yaml_message(root: YamlMapping) -> str:
    on = [key for key in ms.MINDFORMERS_PROFILE_OPTIONS if _true(root.entries.get(key))]
    start, stop = (_number(root.entries.get(key), default)
                   for key, default in zip(ms.MINDFORMERS_PROFILE_STEPS, ms.MINDFORMERS_PROFILE_DEFAULT_STEPS))
    steps = f"steps {start} to {stop}" if "init_start_profile" not in on else f"from the start to step {stop}"
    what = f" with {', '.join(on)}" if on else ""
    return (f"profile: True profiles {steps} of every run with this config{what}, parses the data in the training "
            f"process and turns auto_tune off; set profile: False outside profiling runs (keep a separate "
            f"profiling config)")


def _true(value: Optional[Value]) -> bool:
    return value is not None and value.kind == LIT and value.data is True


def _number(value: Optional[Value], default: int) -> Any:
    return value.data if value is not None and value.kind == LIT and type(value.data) is int else default


__all__ = ["ProfilerLeftInTraining"]
