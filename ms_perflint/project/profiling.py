"""Where a project starts profiling, read once for the rules that care (MSP105, MSP502).

A profiling site is a call or setting that starts MindSpore's profiler:
``mindspore.Profiler(...)``, ``mindspore.profiler.profile(...)``, the legacy
``set_context(enable_profiling=True)``, or ``MS_PROFILER_OPTIONS`` set to options
with ``"start": true`` (in ``os.environ[...] = ...``, ``os.environ.setdefault`` or
``os.putenv``). Each site says whether it profiles the dataset pipeline, whether a
``schedule`` limits collection to some steps, and whether collection starts when the
profiler is built.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Guard, Value
from ms_perflint.project.model import Project, Where, call_where, where


@dataclass(frozen=True)
class ProfilingSite:
    """Where profiling starts, with the guards it runs under.

    ``dataset``: the pipeline is profiled for sure (True), it depends on the release's default (None), or it is
    not (or not known to be) profiled (False). ``scheduled``: a ``schedule`` limits collection to some steps.
    ``starts``: collection starts when the profiler is built (``start_profile`` is not False).
    """

    kind: str
    path: str
    scope: int
    guards: Tuple[Guard, ...]
    at: Any
    dataset: Optional[bool] = None
    scheduled: bool = False
    starts: bool = True

    @property
    def where(self) -> Where:
        return call_where(self.path, self.at) if isinstance(self.at, Call) else where(self.path, self.at)


def profiling_sites(project: Project) -> List[ProfilingSite]:
    """Every place the project's Python code starts profiling (memoised per project)."""
    return project.memo("profiling-sites", lambda: _find(project))  # type: ignore[return-value]


def _find(project: Project) -> List[ProfilingSite]:
    found: List[ProfilingSite] = []
    for path, facts in sorted(project.python.items()):
        for call in facts.calls:
            site = None
            qualified = project.qualified(path, call) if call.callee else ""
            if qualified in ms.PROFILER_CLASSES:
                site = _profiler(path, call, qualified)
            elif qualified == ms.SET_CONTEXT:
                flag = call.kwargs.get(ms.ENABLE_PROFILING)
                if flag is not None and flag.kind == LIT and flag.data is True:
                    site = ProfilingSite(ms.SET_CONTEXT, path, call.scope, call.guards, call, None)
            elif call.method in ("setdefault", "putenv") or call.callee == "os.putenv":
                site = _environment_call(path, call)
            if site is not None:
                found.append(site)
        for entry in facts.config:
            if entry.owner == "env" and entry.key == ms.PROFILER_OPTIONS_VARIABLE:
                starts, dataset = environment_options(entry.value)
                if starts:
                    found.append(ProfilingSite(ms.PROFILER_OPTIONS_VARIABLE, path, entry.scope, entry.guards,
                                               entry.value, dataset))
    return found


def _profiler(path: str, call: Call, qualified: str) -> ProfilingSite:
    schedule = call.kwargs.get(ms.PROFILER_SCHEDULE)
    scheduled = schedule is not None and not (schedule.kind == LIT and schedule.data is None)
    start = call.argument(ms.PROFILER_START[qualified].keyword, ms.PROFILER_START[qualified].position)
    starts = not (start is not None and (start.kind != LIT or start.data is not True))
    if start is None and call.may_pass(ms.PROFILER_START[qualified].keyword, ms.PROFILER_START[qualified].position):
        starts = False  # ``**kwargs`` may turn it off: not known to start
    return ProfilingSite(qualified, path, call.scope, call.guards, call, _dataset(call, qualified, scheduled),
                         scheduled, starts)


def _dataset(call: Call, qualified: str, scheduled: bool) -> Optional[bool]:
    """Does the profiler profile the dataset pipeline: True, None (the release's default decides), False."""
    parameter = ms.DATA_PROCESS[qualified]
    argument = call.argument(parameter.keyword, parameter.position)
    if argument is None:
        if call.may_pass(parameter.keyword, parameter.position):
            return False  # not known
        return ms.DATA_PROCESS_DEFAULT[qualified]
    if argument.kind != LIT or argument.data is not True:
        return False
    return False if scheduled else True  # 2.10 turns data_process off when a schedule is set


def _environment_call(path: str, call: Call) -> Optional[ProfilingSite]:
    if len(call.args) < 2 or call.args[0].kind != LIT or call.args[0].data != ms.PROFILER_OPTIONS_VARIABLE:
        return None
    starts, dataset = environment_options(call.args[1])
    if not starts:
        return None
    return ProfilingSite(ms.PROFILER_OPTIONS_VARIABLE, path, call.scope, call.guards, call, dataset)


def environment_options(value: Value) -> Tuple[bool, Optional[bool]]:
    """``MS_PROFILER_OPTIONS`` JSON: does it start a profiler (``"start": true``), and does that profile the dataset
    (True; None: the release's default decides; False)."""
    if value.kind != LIT or not isinstance(value.data, str):
        return False, False
    try:
        options = json.loads(value.data)
    except ValueError:
        return False, False
    if not isinstance(options, dict) or options.get("start") is not True:
        return False, False  # MindSpore starts no profiler without "start": true
    if "data_process" not in options:
        return True, None
    return True, options["data_process"] is True
