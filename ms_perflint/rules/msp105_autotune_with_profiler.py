"""MSP105 autotune-with-profiler: Dataset AutoTune and dataset profiling exclude each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Guard
from ms_perflint.findings import FixAvailability
from ms_perflint.project.model import Program
from ms_perflint.project.profiling import ProfilingSite, profiling_sites
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

LABELS = {
    ms.PROFILER: "mindspore.Profiler",
    ms.PROFILE: "mindspore.profiler.profile",
    ms.SET_CONTEXT: "set_context(enable_profiling=True)",
    ms.PROFILER_OPTIONS_VARIABLE: "MS_PROFILER_OPTIONS",
}


@dataclass(frozen=True)
class Site:
    """Where AutoTune is enabled, with the guards it runs under."""

    kind: str
    path: str
    scope: int
    guards: Tuple[Guard, ...]
    at: Call


class AutotuneWithProfiler(Rule):
    """Report Dataset AutoTune enabled in a program that also profiles the data pipeline."""

    code = "MSP105"
    name = "autotune-with-profiler"
    summary = "Dataset AutoTune is enabled in a program that also profiles; one of them does not take effect"
    fix_availability = FixAvailability.NEVER
    docs = RuleDocs(
        what_it_does="""
            Finds `mindspore.dataset.config.set_enable_autotune(True)` in a program that also starts
            profiling: `mindspore.Profiler(...)`, `mindspore.profiler.profile(...)`,
            `set_context(enable_profiling=True)`, or the `MS_PROFILER_OPTIONS` environment variable
            set to options with `"start": true`. The two may be in different files of the program
            (AutoTune in `src/dataset.py`, the profiler in `train.py`). The finding is reported at the
            AutoTune call and names the place that starts profiling. The message says which case it is:

            - *dataset profiling on* (`data_process=True`, or `"data_process": true` in
              `MS_PROFILER_OPTIONS`): AutoTune is dropped on every release;
            - *default `data_process`* (`mindspore.Profiler` without it, the legacy
              `set_context(enable_profiling=True)`, `MS_PROFILER_OPTIONS` without the key): the
              default was `True` before MindSpore ~2.3 and is `False` since, so the conflict depends
              on the release.
        """,
        why_bad="""
            Dataset AutoTune and dataset profiling both hook into the data pipeline, and MindSpore runs
            only one of them. A pipeline that is profiled is not tuned: MindSpore logs "Cannot enable
            AutoTune for the current data pipeline as Dataset Profiling is already enabled" and trains
            with the untuned pipeline (reproduced on MindSpore 2.10). The warning is easy to miss, so a
            production run silently loses AutoTune, or a profile is taken of a pipeline that is not the
            one that runs in production.
        """,
        example="""
            import mindspore as ms
            import mindspore.dataset as ds

            ds.config.set_enable_autotune(True)
            profiler = ms.Profiler(output_path="./profile", data_process=True)
        """,
        use_instead="""
            import mindspore as ms
            import mindspore.dataset as ds

            if args.profile:
                # Measuring: profile the pipeline as it is, without AutoTune.
                profiler = ms.Profiler(output_path="./profile", data_process=True)
            else:
                # Production: let AutoTune tune the pipeline; no profiler.
                ds.config.set_enable_autotune(True)
        """,
        fix_safety="""
            No automatic fix: which of the two to keep depends on the purpose of the run. When measuring,
            turn AutoTune off (or profile with `data_process=False` if the dataset profile is not
            needed); in production, remove the profiler. Putting them in the two arms of one `if` on a
            command-line flag keeps both available.
        """,
        programs="""
            Every program (a script, a notebook, a training or a benchmark run) that reaches both calls,
            in one file or across files it imports. The rule applies whatever the device.
        """,
        silent_on="""
            - the two in mutually exclusive branches, compared as values whatever the spelling
              (`if args.profile:` / `else:`, `config["profile"]` / `not config['profile']`, `a and b`
              implying `a`), and a guard clause that returns or exits first;
            - a profiler under a condition every configuration turns off (`if args.profile:` where
              every configured `profile` -- argparse default, YAML, launch script -- is False);
            - `data_process=False`, or a value the linter cannot know; `schedule=...` with
              `data_process=True` (MindSpore 2.10 turns `data_process` off then);
            - `mindspore.profiler.profile(...)` without `data_process` (it has always defaulted to False);
            - `MS_PROFILER_OPTIONS` without `"start": true` (no profiler starts), or not JSON;
            - an AutoTune value the linter cannot know (`set_enable_autotune(args.tune)`).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings; real projects keep AutoTune
            and the profiler apart. See docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/mindspore.dataset.config.set_enable_autotune.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.Profiler.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            if args.profile:
                profiler = ms.Profiler(output_path="./prof", data_process=True)
            else:
                ds.config.set_enable_autotune(True)
            """,
            why="the two arms of one if",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.dataset import config
            if cfg["profile"]:
                profiler = ms.Profiler(data_process=True)
            if not cfg['profile']:
                config.set_enable_autotune(True)
            """,
            why="a flag and its negation, whatever the quotes",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            def setup(args):
                if args.profile:
                    return ms.Profiler(data_process=True)
                ds.config.set_enable_autotune(True)
            if __name__ == "__main__":
                setup(parse())
            """,
            why="a guard clause: AutoTune is reached only when not profiling",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            ds.config.set_enable_autotune(True)
            profiler = ms.Profiler(output_path="./prof", data_process=False)
            """,
            why="data_process=False leaves the pipeline to AutoTune (checked on 2.10)",
        ),
        Valid(
            """
            import os
            import mindspore.dataset as ds
            os.environ["MS_PROFILER_OPTIONS"] = '{"output_path": "./prof", "data_process": true}'
            ds.config.set_enable_autotune(True)
            """,
            why='no "start": true, so MindSpore starts no profiler',
        ),
        Valid(
            """
            import argparse
            import mindspore as ms
            import mindspore.dataset as ds
            parser = argparse.ArgumentParser()
            parser.add_argument("--profile", default=False)
            args = parser.parse_args()
            ds.config.set_enable_autotune(True)
            if args.profile:
                profiler = ms.Profiler(data_process=True)
            """,
            why="every configured value of the flag turns the profiler off",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            ds.config.set_enable_autotune(True)
            profiler = ms.Profiler(output_path="./prof", data_process=True)
            """,
            line=3,
            column=1,
            message_contains="line 4",
        ),
        Invalid(
            """
            from mindspore import Profiler
            from mindspore.dataset.config import set_enable_autotune
            profiler = Profiler(output_path="./prof")
            set_enable_autotune(enable=True)
            """,
            line=4,
            column=1,
            message_contains="defaults to True",
        ),
        Invalid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            if cfg["autotune"]:
                ds.config.set_enable_autotune(True, "./autotune")
            if cfg["profile"]:
                profiler = ms.profiler.Profiler(data_process=True)
            """,
            line=4,
            column=5,
            message_contains="data_process=True",
        ),
        Invalid(
            """
            import json
            import os
            import mindspore.dataset as ds
            os.environ["MS_PROFILER_OPTIONS"] = json.dumps({"start": True, "data_process": True})
            ds.config.set_enable_autotune(True)
            """,
            line=5,
            column=1,
            message_contains="MS_PROFILER_OPTIONS",
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        autotunes, profilers = _sites(check)
        if not autotunes or not profilers:
            return
        reported = set()
        for program in project.programs():
            with check.deciding(program.entry):
                for autotune in autotunes:
                    if (autotune.path, autotune.at.id) in reported or \
                            not program.reaches(autotune.path, autotune.scope):
                        continue
                    partner = _partner(check, program, autotune, profilers)
                    if partner is not None:
                        reported.add((autotune.path, autotune.at.id))
                        check.report(self.code, autotune.path, autotune.at, _message(autotune, partner))


def _sites(check: Check) -> Tuple[List[Site], List[ProfilingSite]]:
    """AutoTune switched on, and profilers that profile the dataset (surely, or by the release's default)."""
    project = check.project
    autotunes: List[Site] = []
    for path, facts in sorted(project.python.items()):
        for call in facts.calls:
            if call.callee and project.qualified(path, call) == ms.SET_ENABLE_AUTOTUNE:
                enable = call.argument("enable", 0)
                if enable is not None and enable.kind == LIT and enable.data is True:
                    autotunes.append(Site("autotune", path, call.scope, call.guards, call))
    profilers = [s for s in profiling_sites(project) if s.dataset is not False
                 and check.values.can_hold(s.path, s.scope, s.guards)]
    return [s for s in autotunes if check.values.can_hold(s.path, s.scope, s.guards)], profilers


def _partner(check: Check, program: Program, autotune: Site,
             profilers: List[ProfilingSite]) -> Optional[ProfilingSite]:
    """The profiling site that defeats ``autotune`` in ``program``: a sure one first, else the first."""
    from ms_perflint.project.values import exclusive

    candidates = [p for p in profilers if program.reaches(p.path, p.scope)
                  and not exclusive(check.values, autotune.guards, p.guards)]
    if not candidates:
        return None
    return next((p for p in candidates if p.dataset), candidates[0])


def _message(autotune: Site, profiler: ProfilingSite) -> str:
    label = LABELS.get(profiler.kind, profiler.kind)
    place = f"line {profiler.where.line}" if profiler.path == autotune.path else str(profiler.where)
    if profiler.dataset:
        case = "profiles the dataset pipeline (data_process=True)"
        if profiler.kind == ms.PROFILER_OPTIONS_VARIABLE:
            case = 'profiles the dataset pipeline ("data_process": true)'
        return (f"Dataset AutoTune is enabled, but {label} at {place} {case}: MindSpore drops AutoTune for a "
                f"profiled pipeline. Disable AutoTune when profiling, or profile with data_process=False")
    return (f"Dataset AutoTune is enabled, but {label} at {place} starts profiling, and data_process defaults to True "
            f"before MindSpore ~2.3: AutoTune is dropped there. Pass data_process=False, or keep the two apart")
