"""MSP201 save-graphs-enabled: a training program writes the IR of every graph it compiles."""

from __future__ import annotations

from typing import Any, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Value
from ms_perflint.findings import Fix, FixAvailability, FixSafety, TextEdit
from ms_perflint.project.model import Program, Where, is_test_file, where
from ms_perflint.project.modes import context_calls
from ms_perflint.project.parts import shell_belongs
from ms_perflint.project.values import Known
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

FIX_DESCRIPTION = "Stop saving compiled graphs (save_graphs off)"
COST = "on MindSpore 2.10 a compile took 5.37 s instead of 1.29 s and wrote 113 MB"


class SaveGraphsEnabled(Rule):
    """Report ``save_graphs`` (or ``MS_DEV_SAVE_GRAPHS``) switched on in training."""

    code = "MSP201"
    name = "save-graphs-enabled"
    summary = "A training program saves the IR of every compiled graph (save_graphs / MS_DEV_SAVE_GRAPHS)"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds graph dumping left on in a training program:

            - `set_context(save_graphs=True)` or a level 1-3, written in the call or reaching it from a
              config default (an argparse default, a dict or class config, a YAML config beside the entry
              script, a launch script's `--save_graphs True`), in a training program;
            - the environment variable `MS_DEV_SAVE_GRAPHS` set to a level other than 0, in the program's code
              (`os.environ[...] = "1"`, `setdefault`, `putenv`) or exported by a launch script that runs a
              training script;
            - `save_graphs: True` (or a level) in a YAML config (mindformers' `context:` section) whose
              `run_mode` is not `predict`/`eval`.

            The finding is reported where the value is written, so the fix changes the default that every run
            without an override gets.
        """,
        why_bad="""
            With graph saving on, MindSpore writes the intermediate representation of every graph it compiles,
            at every optimisation pass, to disk: compiling takes several times longer and fills the disk. Measured
            on MindSpore 2.10 (CPU wheel, one script compiling the same network with and without it; issue 12's
            measurement): compile 1.29 s -> 5.37 s with 113 MB written; at level 3, 24.5 s and 588 MB. Measured
            again for this rule: one `nn.Dense(8, 2)` compiled in GRAPH_MODE under `save_graphs=True` wrote 139
            files (770 kB), under `MS_DEV_SAVE_GRAPHS=1` 107 files, without either none (the MindSpore test tier
            checks this). Real LLM fine-tuning configs ship with it on (issue 12). MindSpore 2.10 also warns that the `save_graphs` parameter is deprecated
            in favour of `MS_DEV_SAVE_GRAPHS`: it is a debugging switch.
        """,
        example="""
            import mindspore as ms

            ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path="./ir")
            model.train(epochs, dataset)
        """,
        use_instead="""
            import mindspore as ms

            ms.set_context(mode=ms.GRAPH_MODE)  # export MS_DEV_SAVE_GRAPHS=1 only while debugging a compile
            model.train(epochs, dataset)
        """,
        fix_safety="""
            The fix is *safe*: it writes `False` (or `0` for a level or the environment variable) where the value
            is written -- the call, the argparse default, the YAML key, the launch script. Graph saving changes
            nothing the program computes. No fix is offered when the value reaches `save_graphs` through a name
            that other code may read too (`save_graphs=DEBUG`).
        """,
        programs="""
            Training programs (scripts and notebooks that train, and the code they reach), whatever the device:
            the cost is paid by the host while compiling. YAML configs are reported unless their `run_mode` says
            they do not train.
        """,
        silent_on="""
            - `save_graphs=False`, `0`, or a value the linter cannot know (`save_graphs=args.save_graphs` where
              every configured value is False -- the boilerplate most model-zoo scripts carry);
            - `save_graphs_path=...` alone (it saves nothing);
            - `MS_DEV_SAVE_GRAPHS=0`, and variables exported by a launch script that runs no training script;
            - graph saving in evaluation, export and inference programs (one compile, no training to slow down);
            - a `set_context(save_graphs=True)` under a condition that may not hold (`if args.debug:`): a
              debugging switch that is off unless asked for;
            - YAML configs whose `run_mode` is `predict` or `eval`, and test files.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings. The 5 projects carry the
            switch only as `save_graphs=False` boilerplate or argparse defaults of False, which the rule leaves
            alone; its tests carry those look-alikes and the real shapes of the problem (a config default of True,
            a mindformers YAML, a launch script's export).
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.set_context.html",
            "https://www.mindspore.cn/docs/en/master/api_python/env_var_list.html",
        ),
    )
    valid = (
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE, save_graphs=False)
                Model(net, loss, opt).train(10, data)
            """,
            why="the boilerplate that turns it off",
        ),
        Valid(
            """
            import argparse
            import mindspore as ms
            from mindspore.train import Model
            parser = argparse.ArgumentParser()
            parser.add_argument("--save_graphs", type=bool, default=False)
            args = parser.parse_args()
            ms.set_context(mode=ms.GRAPH_MODE, save_graphs=args.save_graphs)
            Model(net, loss, opt).train(10, data)
            """,
            why="every configured value is False",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True)
                ms.export(net, inputs, file_name="net", file_format="MINDIR")
            """,
            why="an export program: one compile, no training",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore.train import Model
            def main(args):
                if args.debug:
                    ms.set_context(save_graphs=True, save_graphs_path="./ir")
                Model(net, loss, opt).train(10, data)
            if __name__ == "__main__":
                main(parse())
            """,
            why="a debugging switch, off unless asked for",
        ),
    )
    invalid = (
        Invalid(
            """
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE, save_graphs=True, save_graphs_path="./ir")
                Model(net, loss, opt).train(10, data)
            """,
            line=4,
            column=52,
            fixed="""
            import mindspore as ms
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(mode=ms.GRAPH_MODE, save_graphs=False, save_graphs_path="./ir")
                Model(net, loss, opt).train(10, data)
            """,
            message_contains="save_graphs=True",
        ),
        Invalid(
            """
            import argparse
            from mindspore import context
            from mindspore.train import Model
            parser = argparse.ArgumentParser()
            parser.add_argument("--save_graphs", type=int, default=3)
            args = parser.parse_args()
            context.set_context(save_graphs=args.save_graphs)
            Model(net, loss, opt).train(10, data)
            """,
            line=5,
            column=56,
            fixed="""
            import argparse
            from mindspore import context
            from mindspore.train import Model
            parser = argparse.ArgumentParser()
            parser.add_argument("--save_graphs", type=int, default=0)
            args = parser.parse_args()
            context.set_context(save_graphs=args.save_graphs)
            Model(net, loss, opt).train(10, data)
            """,
            message_contains="argparse default",
        ),
        Invalid(
            """
            import os
            from mindspore.train import Model
            os.environ["MS_DEV_SAVE_GRAPHS"] = "1"
            Model(net, loss, opt).train(10, data)
            """,
            line=3,
            column=36,
            fixed="""
            import os
            from mindspore.train import Model
            os.environ["MS_DEV_SAVE_GRAPHS"] = "0"
            Model(net, loss, opt).train(10, data)
            """,
            message_contains="MS_DEV_SAVE_GRAPHS",
        ),
    )

    def check(self, check: Check) -> None:
        programs = check.project.training_programs()
        reported: Set[Tuple[str, int]] = set()
        if programs:
            self._contexts(check, programs, reported)
            self._environment(check, programs, reported)
            self._shell(check, programs, reported)
        self._yaml(check, reported)

    # --- set_context(save_graphs=...) --------------------------------------------------------------

    def _contexts(self, check: Check, programs: List[Program], reported: Set[Tuple[str, int]]) -> None:
        for path, call in context_calls(check.project):
            argument = call.kwargs.get(ms.SAVE_GRAPHS)
            if argument is None:
                continue
            for program in programs:
                if not _runs_surely(check, program, path, call.scope, call.guards):
                    continue
                for known in check.values.resolve(path, argument, call.scope, program=program).values:
                    level = _level(known.value)
                    at = known.where or where(path, argument)
                    if not level or (at.path, at.start) in reported:
                        continue
                    reported.add((at.path, at.start))
                    fix = _fix(at, known) if _only_about_graphs(known) else None
                    check.report(self.code, at.path, at, _message(f"save_graphs={known.value!r}", known, path, call),
                                 fix)

    # --- MS_DEV_SAVE_GRAPHS ---------------------------------------------------------------------

    def _environment(self, check: Check, programs: List[Program], reported: Set[Tuple[str, int]]) -> None:
        project = check.project
        for path, facts in sorted(project.python.items()):
            sites: List[Tuple[int, tuple, Value]] = [
                (entry.scope, entry.guards, entry.value) for entry in facts.config
                if entry.owner == "env" and entry.key == ms.SAVE_GRAPHS_VARIABLE]
            sites += [(call.scope, call.guards, call.args[1]) for call in facts.calls if _sets_variable(call)]
            for scope, guards, value in sites:
                if value.kind != LIT or not _level(value.data) or (path, value.start) in reported:
                    continue
                if any(_runs_surely(check, program, path, scope, guards) for program in programs):
                    reported.add((path, value.start))
                    message = (f"{ms.SAVE_GRAPHS_VARIABLE}={value.data!r} makes MindSpore save the IR of every graph "
                               f"it compiles while training: {COST}; set it only while debugging a compile")
                    check.report(self.code, path, value, message, _text_fix(value))

    def _shell(self, check: Check, programs: List[Program], reported: Set[Tuple[str, int]]) -> None:
        project = check.project
        entries = {program.entry.rsplit("/", 1)[-1]: program for program in programs}
        for path, facts in sorted(project.shell.items()):
            trains = [entries[s] for s in facts.scripts if s in entries
                      and shell_belongs(path, entries[s].entry)]
            if not trains:
                continue
            for entry in facts.entries:
                value = entry.value
                if entry.owner == "env" and entry.key == ms.SAVE_GRAPHS_VARIABLE and _level(value.data) \
                        and (path, value.start) not in reported:
                    reported.add((path, value.start))
                    message = (f"export {ms.SAVE_GRAPHS_VARIABLE}={value.data} makes the training it launches save "
                               f"the IR of every graph it compiles: {COST}; export it only while debugging a compile")
                    check.report(self.code, path, value, message, _text_fix(value))

    # --- YAML configs ---------------------------------------------------------------------------

    def _yaml(self, check: Check, reported: Set[Tuple[str, int]]) -> None:
        for path, facts in sorted(check.project.yaml.items()):
            if is_test_file(path) or _run_mode(facts) in ms.NON_TRAINING_RUN_MODES:
                continue
            for mapping, key, value in facts.entries():
                if key != ms.SAVE_GRAPHS or not _level(value.data) or (path, value.start) in reported:
                    continue
                reported.add((path, value.start))
                message = (f"save_graphs: {value.data} makes every training run with this config save the IR of "
                           f"every graph it compiles: {COST}; set it to False outside debugging")
                check.report(self.code, path, value, message, _text_fix(value))


# --- helpers -----------------------------------------------------------------------------------------


def _level(value: Any) -> int:
    """The graph-saving level a value sets (True is 2, as in 2.10's set_context), 0 for off or unknown."""
    if value is True:
        return 2
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "true":
            return 2
        value = int(text) if text.isdigit() else 0
    return value if isinstance(value, int) and value in ms.SAVE_GRAPHS_LEVELS else 0


def _runs_surely(check: Check, program: Program, path: str, scope: int, guards) -> bool:
    """The code runs in the program, and every condition around it holds in every configuration (a switch
    such as ``if args.debug:`` that may be off is a debugging aid, not a setting left on)."""
    if (path, scope) not in check.values.live_scopes(program):
        return False
    for condition, holds in guards:
        found = check.values.resolve(path, condition, scope, program=program)
        if not found.complete or not found.values or any(bool(_plain(k.value)) != holds for k in found.values):
            return False
    return True


def _plain(value: Any) -> Any:
    return getattr(value, "name", value)


def _sets_variable(call: Call) -> bool:
    """``os.environ.setdefault("MS_DEV_SAVE_GRAPHS", "1")`` or ``os.putenv(...)``."""
    if not (call.method in ("setdefault", "putenv") or call.callee in ("os.putenv", "os.environ.setdefault")):
        return False
    return len(call.args) >= 2 and call.args[0].kind == LIT and call.args[0].data == ms.SAVE_GRAPHS_VARIABLE


def _only_about_graphs(known: Known) -> bool:
    """Every name the value passed through is about graph saving (``save_graphs``), not a shared flag (``DEBUG``)."""
    return all("graph" in name.lower() for name in known.trail)


def _fix(at: Where, known: Known) -> Optional[Fix]:
    if at.end <= at.start:
        return None
    if isinstance(known.value, bool):
        new = "False"
    elif isinstance(known.value, int):
        new = "0"
    else:
        return None
    return Fix(FixSafety.SAFE, FIX_DESCRIPTION, (TextEdit(at.start, at.end, new),))


def _text_fix(value: Value) -> Optional[Fix]:
    """The level written in a literal (``"1"``, ``1``, ``True``) replaced by off, keeping its quotes."""
    if value.end <= value.start:
        return None
    data = value.data
    if data is True or (isinstance(data, str) and data.strip().lower() == "true"):
        new = value.text.replace(str(data).strip(), "False") if isinstance(data, str) and value.text else "False"
    else:
        written = str(data).strip()
        new = value.text.replace(written, "0", 1) if value.text and written in value.text else "0"
    return Fix(FixSafety.SAFE, FIX_DESCRIPTION, (TextEdit(value.start, value.end, new),))


def _message(setting: str, known: Known, path: str, call: Call) -> str:
    origin = ""
    if known.source != "literal" or (known.where is not None and known.where.path != path):
        origin = f" ({known.source}, read by set_context at {path}:{call.line})"
    return (f"{setting}{origin} makes MindSpore save the IR of every graph it compiles while training: {COST}; "
            f"turn it off outside debugging")


def _run_mode(facts) -> str:
    for mapping in facts.mappings:
        if not mapping.path and "run_mode" in mapping.entries:
            value = mapping.entries["run_mode"].data
            return str(value).strip().lower() if isinstance(value, str) else ""
    return ""

