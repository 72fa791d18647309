"""MSP105 autotune-with-profiler: Dataset AutoTune and dataset profiling exclude each other.

The rule works in two steps so that a project-wide analysis can reuse the second:

1. While the engine walks a file, collect *sites* as plain data: every call that
   turns AutoTune on, and every place that starts profiling, each with the ``if``
   conditions it runs under (:class:`Guard`) and whether it profiles the dataset
   pipeline.
2. :func:`pair_sites` decides, for each AutoTune site, which profiling site can run
   in the same program (not in a mutually exclusive branch) and conflicts with it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence

import libcst as cst

from ms_perflint.callargs import argument, has_double_star
from ms_perflint.imports import dotted_name
from ms_perflint.positions import positions_of
from ms_perflint.rule import FixAvailability, Invalid, Rule, RuleDocs, Valid
from ms_perflint.values import UNKNOWN

SET_ENABLE_AUTOTUNE = "mindspore.dataset.config.set_enable_autotune"
PROFILER = "mindspore.profiler.Profiler"
PROFILE = "mindspore.profiler.profile"
SET_CONTEXT = "mindspore.set_context"
OS_ENVIRON = "os.environ"
OS_PUTENV = "os.putenv"
PROFILER_OPTIONS_VARIABLE = "MS_PROFILER_OPTIONS"
JSON_DUMPS = "json.dumps"

#: Profiling APIs and how their ``data_process`` default behaves.
#: ``None``: the default changed across releases (True before ~2.3, False since);
#: ``False``: the API has always defaulted to no dataset profiling.
DATA_PROCESS_DEFAULT: Dict[str, Optional[bool]] = {PROFILER: None, PROFILE: False}
#: Positional index of ``data_process`` (``Profiler`` takes keywords only).
DATA_PROCESS_POSITION = {PROFILE: 3}
#: Profiling sites whose dataset profiling the user can switch off with a ``data_process`` setting.
DATA_PROCESS_KNOB = frozenset((PROFILER, PROFILE, PROFILER_OPTIONS_VARIABLE))
#: What the message calls each kind of profiling site.
SITE_LABELS = {
    PROFILER: "mindspore.Profiler",
    PROFILE: "mindspore.profiler.profile",
    SET_CONTEXT: "set_context(enable_profiling=True)",
    PROFILER_OPTIONS_VARIABLE: "MS_PROFILER_OPTIONS",
}


@dataclass(frozen=True)
class Guard:
    """A condition a site runs under: ``test`` (normalised source) is true (``holds``) or false."""

    test: str
    holds: bool

    def negated(self) -> "Guard":
        """The guard that can never hold together with this one."""
        return Guard(self.test, not self.holds)


@dataclass(frozen=True)
class Site:
    """Where AutoTune is enabled or profiling starts, as plain data.

    ``dataset_profiling`` (profiling sites only): True when the dataset pipeline is
    profiled for sure, False when it is not, None when it depends on the release
    (the ``data_process`` default changed).
    """

    kind: str
    guards: FrozenSet[Guard]
    dataset_profiling: Optional[bool] = None
    node: Optional[cst.CSTNode] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Conflict:
    """An AutoTune site and the profiling site that defeats it."""

    autotune: Site
    profiling: Site


def mutually_exclusive(first: Site, second: Site) -> bool:
    """True when no run of the program reaches both sites: one needs a condition the other negates."""
    return any(guard.negated() in second.guards for guard in first.guards)


def pair_sites(autotune_sites: Sequence[Site], profiling_sites: Sequence[Site]) -> List[Conflict]:
    """For each AutoTune site, the profiling site that conflicts with it, if any.

    A profiling site that surely leaves the dataset pipeline alone
    (``dataset_profiling is False``) never conflicts. Among several candidates the
    one that surely profiles the dataset is named, else the first in source order.
    """
    conflicts = []
    for autotune in autotune_sites:
        candidates = [
            site
            for site in profiling_sites
            if site.dataset_profiling is not False and not mutually_exclusive(autotune, site)
        ]
        if candidates:
            chosen = next((site for site in candidates if site.dataset_profiling), candidates[0])
            conflicts.append(Conflict(autotune, chosen))
    return conflicts


def guards_from_test(test: cst.BaseExpression, holds: bool) -> Iterator[Guard]:
    """The facts known when ``test`` is ``holds``: the test itself, through ``not``, ``and`` and ``or``."""
    test = _without_parentheses(test)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from guards_from_test(test.expression, not holds)
        return
    yield Guard(_normalised_source(test), holds)
    if isinstance(test, cst.BooleanOperation):
        # ``a and b`` true: both true. ``a or b`` false: both false.
        if isinstance(test.operator, cst.And) == holds:
            yield from guards_from_test(test.left, holds)
            yield from guards_from_test(test.right, holds)


def _without_parentheses(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _normalised_source(node: cst.BaseExpression) -> str:
    return " ".join(cst.Module([]).code_for_node(node).split())


class AutotuneWithProfiler(Rule):
    """Report Dataset AutoTune enabled in a file that also starts profiling, outside exclusive branches."""

    code = "MSP105"
    name = "autotune-with-profiler"
    summary = "Dataset AutoTune is enabled in a program that also profiles; one of them does not take effect"
    fix_availability = FixAvailability.NEVER
    markers = ("set_enable_autotune",)
    docs = RuleDocs(
        what_it_does="""
            Finds `mindspore.dataset.config.set_enable_autotune(True)` in a file that
            also starts profiling: `mindspore.Profiler(...)` (also spelled
            `mindspore.profiler.Profiler`), `mindspore.profiler.profile(...)`,
            `set_context(enable_profiling=True)` (any spelling of `set_context`), or
            setting the `MS_PROFILER_OPTIONS` environment variable
            (`os.environ[...] = ...`, `os.environ.setdefault`, `os.environ.update`,
            `os.putenv`). The finding is reported at the AutoTune call and names the
            line that starts profiling. The message says which case it is:

            - *dataset profiling on* (`data_process=True`, or `"data_process": true`
              in `MS_PROFILER_OPTIONS`): AutoTune is dropped on every release;
            - *default `data_process`* (`mindspore.Profiler` without it, the legacy
              `set_context(enable_profiling=True)`, or `MS_PROFILER_OPTIONS`
              without the key): the default was `True` before MindSpore ~2.3 and is
              `False` since, so the conflict depends on the release.

            Not reported:

            - the two in mutually exclusive branches: the arms of one `if`/`elif`/`else`,
              a flag and its negation (`if args.profile:` ... `if not args.profile:`),
              conditions joined with `and`/`or` that imply them, and a guard clause
              that returns, raises or exits first (`if args.profile: return ...`
              before the AutoTune call in the same function);
            - `data_process=False` (checked on MindSpore 2.10: with the dataset
              profiler off, AutoTune runs and writes its tuned configuration), and
              a `data_process` the linter cannot know (`data_process=args.dp`,
              `**kwargs`);
            - `schedule=...` together with `data_process=True`: MindSpore 2.10 turns
              `data_process` off when a schedule is set;
            - `mindspore.profiler.profile(...)` without `data_process`: it has always
              defaulted to `False`;
            - `MS_PROFILER_OPTIONS` set to a JSON literal without `"start": true`
              (MindSpore starts no profiler then), or to text that is not JSON;
            - an AutoTune value the linter cannot know (`set_enable_autotune(args.tune)`).

            Across files (project mode, the default of the CLI and the flake8 plugin):
            AutoTune in `src/dataset.py` and a profiler started in `train.py` that
            imports it are paired too, and the message names the other file and line
            (`mindspore.Profiler at train.py:41`). A profiler under `if args.profile:`
            where every configured `profile` (argparse default, YAML, launch script)
            is False is not counted. See docs/project.md.
        """,
        why_bad="""
            Dataset AutoTune and dataset profiling both hook into the data pipeline,
            and MindSpore runs only one of them. Whichever is started first, a pipeline
            that is profiled is not tuned: MindSpore logs "Cannot enable AutoTune for
            the current data pipeline as Dataset Profiling is already enabled for the
            current data pipeline" and trains with the untuned pipeline (reproduced on
            MindSpore 2.10 by starting the dataset profiler the way
            `Profiler(data_process=True)` does on Ascend and GPU: no AutoTune
            configuration is written). The warning is easy to miss, so a production run
            silently loses AutoTune, or a profile is taken of a pipeline that is not the
            one that runs in production. On the CPU backend the profiler never profiles
            the dataset, so the conflict shows on Ascend and GPU only.
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
            No automatic fix: which of the two to keep depends on the purpose of the
            run. When measuring, turn AutoTune off (or profile with
            `data_process=False` if the dataset profile is not needed); in production,
            remove the profiler. Putting them in the two arms of one `if` on a command
            line flag keeps both available.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/mindspore.dataset.config.set_enable_autotune.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.Profiler.html",
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.profiler.profile.html",
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
            if args.profile:
                profiler = ms.Profiler(data_process=True)
            if not args.profile:
                config.set_enable_autotune(True)
            """,
            why="a flag and its negation",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            def setup(args):
                if args.profile and args.rank == 0:
                    return ms.Profiler(data_process=True)
                if not args.profile:
                    ds.config.set_enable_autotune(True)
            """,
            why="`a and b` implies `a`",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            def setup(args):
                if args.profile:
                    return ms.Profiler(data_process=True)
                ds.config.set_enable_autotune(True)
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
            import mindspore.dataset as ds
            from mindspore.profiler import profile
            ds.config.set_enable_autotune(True)
            with profile() as prof:
                pass
            """,
            why="profile() has always defaulted to data_process=False",
        ),
        Valid(
            """
            import mindspore as ms
            import mindspore.dataset as ds
            def build(args):
                ds.config.set_enable_autotune(args.autotune)
                ds.config.set_enable_autotune(False)
                return ms.Profiler(data_process=True)
            """,
            why="unknown or False AutoTune values",
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
            import mindspore.dataset as ds
            class Profiler:
                pass
            ds.config.set_enable_autotune(True)
            profiler = Profiler()
            """,
            why="a local class, not MindSpore's profiler",
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
            def main(args):
                if args.autotune:
                    ds.config.set_enable_autotune(True, "./autotune")
                if args.profile:
                    profiler = ms.profiler.Profiler(data_process=True)
            """,
            line=5,
            column=9,
            message_contains="data_process=True",
        ),
        Invalid(
            """
            from mindspore import context
            import mindspore.dataset as ds
            context.set_context(mode=context.GRAPH_MODE, enable_profiling=True)
            ds.config.set_enable_autotune(True)
            """,
            line=4,
            column=1,
            message_contains="set_context(enable_profiling=True)",
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
        Invalid(
            """
            import mindspore.dataset as ds
            from mindspore.profiler import profile
            ds.config.set_enable_autotune(True)
            with profile(data_process=True) as prof:
                pass
            """,
            line=3,
            column=1,
            message_contains="line 4",
        ),
    )

    def __init__(self, context) -> None:
        super().__init__(context)
        self._autotune: List[Site] = []
        self._profiling: List[Site] = []

    # --- collecting sites ----------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified is None:
            return
        if qualified == SET_ENABLE_AUTOTUNE:
            if self.context.value_of(_argument_value(node, "enable", 0)) is True:
                self._autotune.append(self._site("autotune", None, node))
        elif qualified in DATA_PROCESS_DEFAULT:
            self._add_profiling(qualified, self._profiler_dataset_profiling(node, qualified), node)
        elif qualified == SET_CONTEXT:
            if self.context.value_of(_argument_value(node, "enable_profiling")) is True:
                self._add_profiling(SET_CONTEXT, None, node)
        else:
            self._check_environment_call(node, qualified)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if self._is_profiler_options_item(target.target):
                self._add_options_site(node.value, node)

    def _check_environment_call(self, node: cst.Call, qualified: str) -> None:
        if qualified in (OS_ENVIRON + ".setdefault", OS_PUTENV):
            key, value = _argument_value(node, "key", 0), _argument_value(node, "value", 1)
            if self.context.value_of(key) == PROFILER_OPTIONS_VARIABLE and value is not None:
                self._add_options_site(value, node)
        elif qualified == OS_ENVIRON + ".update":
            for value in self._options_in_update(node):
                self._add_options_site(value, node)

    def _options_in_update(self, node: cst.Call) -> Iterator[cst.BaseExpression]:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == PROFILER_OPTIONS_VARIABLE:
                yield arg.value
            elif arg.keyword is None and not arg.star and isinstance(arg.value, cst.Dict):
                for element in arg.value.elements:
                    if isinstance(element, cst.DictElement) and self.context.value_of(element.key) == PROFILER_OPTIONS_VARIABLE:
                        yield element.value

    def _is_profiler_options_item(self, target: cst.BaseExpression) -> bool:
        if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
            return False
        index = target.slice[0].slice
        return (
            self.context.qualified_name(target.value) == OS_ENVIRON
            and isinstance(index, cst.Index)
            and self.context.value_of(index.value) == PROFILER_OPTIONS_VARIABLE
        )

    def _profiler_dataset_profiling(self, node: cst.Call, qualified: str) -> Optional[bool]:
        """True/False when ``data_process`` is known or defaulted; None when the default depends on the release.

        An unknown value (``data_process=args.dp``, ``**kwargs``) counts as False:
        unknown values are never reported.
        """
        data_process = _argument_value(node, "data_process", DATA_PROCESS_POSITION.get(qualified))
        if data_process is None:
            return False if has_double_star(node) else DATA_PROCESS_DEFAULT[qualified]
        if self.context.value_of(data_process) is not True:
            return False
        schedule = _argument_value(node, "schedule")
        if schedule is not None and self.context.value_of(schedule) is not None:
            return False  # 2.10 turns data_process off when a schedule is set
        return True

    def _add_options_site(self, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        options = self._profiler_options(value)
        if options is None or options.get("start") is not True:
            return  # MindSpore's EnvProfiler starts nothing without "start": true
        dataset_profiling = None if "data_process" not in options else options["data_process"] is True
        self._add_profiling(PROFILER_OPTIONS_VARIABLE, dataset_profiling, node)

    def _profiler_options(self, value: cst.BaseExpression) -> Optional[Dict[str, object]]:
        """The options an ``MS_PROFILER_OPTIONS`` value holds, or None when the linter cannot read them.

        A JSON text or a ``json.dumps({...})`` of a dict literal is read. Text that
        is not JSON starts nothing (MindSpore logs an error); any other value is
        unknown, and unknown values are never reported.
        """
        text = self.context.value_of(value)
        options: object = None
        if isinstance(text, str):
            try:
                options = json.loads(text)
            except ValueError:
                return None
        elif isinstance(value, cst.Call) and self.context.qualified_name(value.func) == JSON_DUMPS and value.args:
            options = self._dict_literal(value.args[0].value)
        return options if isinstance(options, dict) else None

    def _dict_literal(self, node: Optional[cst.BaseExpression]) -> object:
        if not isinstance(node, cst.Dict):
            return UNKNOWN
        result = {}
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return UNKNOWN
            key = self.context.value_of(element.key)
            if not isinstance(key, str):
                return UNKNOWN
            result[key] = self.context.value_of(element.value)
        return result

    def _add_profiling(self, kind: str, dataset_profiling: Optional[bool], node: cst.CSTNode) -> None:
        self._profiling.append(self._site(kind, dataset_profiling, node))

    def _site(self, kind: str, dataset_profiling: Optional[bool], node: cst.CSTNode) -> Site:
        return Site(kind, frozenset(self._guards()), dataset_profiling, node)

    def _guards(self) -> Iterator[Guard]:
        """Conditions the node being visited runs under: enclosing ``if`` arms and earlier guard clauses."""
        for branch in self.context.branches():
            yield from guards_from_test(branch.statement.test, branch.positive)
        yield from _guard_clauses(self.context.ancestors)

    # --- deciding ------------------------------------------------------------

    def finish(self) -> None:
        conflicts = pair_sites(self._autotune, self._profiling)
        paired = {id(conflict.autotune) for conflict in conflicts}
        self._report_other_files([site for site in self._autotune if id(site) not in paired])
        if not conflicts:
            return
        positions = positions_of(self.context.module, [c.profiling.node for c in conflicts if c.profiling.node])
        for conflict in conflicts:
            autotune, profiling = conflict.autotune.node, conflict.profiling
            if autotune is not None and profiling.node in positions:
                self.report(autotune, _message(profiling, positions[profiling.node].start.line))

    def _report_other_files(self, autotune_sites: List[Site]) -> None:
        """Project mode: pair AutoTune here with profiling started in another file of the same program."""
        project = self.context.project if autotune_sites else None
        if project is None:
            return
        remote = {}
        for started in project.profilers_elsewhere():
            guards = frozenset(Guard(test, holds) for test, holds in started.guards)
            remote[Site(started.kind, guards, started.dataset)] = started.where
        for conflict in pair_sites(autotune_sites, list(remote)):
            where = remote[conflict.profiling]
            if conflict.autotune.node is not None:
                self.report(conflict.autotune.node, _message(conflict.profiling, where.line, where.path))


def _argument_value(node: cst.Call, keyword: str, position: Optional[int] = None) -> Optional[cst.BaseExpression]:
    arg = argument(node, keyword, position)
    return arg.value if arg is not None else None


#: Calls that end the program, so an ``if`` whose body ends with one is a guard clause.
_EXIT_CALLS = frozenset(("sys.exit", "exit", "quit", "os._exit"))


def _guard_clauses(ancestors: Sequence[cst.CSTNode]) -> Iterator[Guard]:
    """``if cond: return`` before the node, in the same function: the node runs only when ``cond`` is false."""
    for index in range(len(ancestors) - 2, -1, -1):
        block, child = ancestors[index], ancestors[index + 1]
        if isinstance(block, (cst.Module, cst.IndentedBlock)):
            for statement in block.body:
                if statement is child:
                    break
                if isinstance(statement, cst.If) and statement.orelse is None and _always_exits(statement.body):
                    yield from guards_from_test(statement.test, False)
        if isinstance(block, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return


def _always_exits(body: cst.BaseSuite) -> bool:
    """The block's last statement returns, raises or exits the program."""
    if isinstance(body, cst.SimpleStatementSuite):
        smalls: Sequence[cst.BaseSmallStatement] = body.body
    elif body.body and isinstance(body.body[-1], cst.SimpleStatementLine):
        smalls = body.body[-1].body
    else:
        return False
    return bool(smalls) and _is_exit(smalls[-1])


def _is_exit(statement: cst.BaseSmallStatement) -> bool:
    if isinstance(statement, (cst.Return, cst.Raise)):
        return True
    if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
        return dotted_name(statement.value.func) in _EXIT_CALLS
    return False


def _message(profiling: Site, line: int, path: str = "") -> str:
    where = f"{SITE_LABELS[profiling.kind]} " + (f"at {path}:{line}" if path else f"on line {line}")
    advice = "to measure, turn AutoTune off; in production, remove the profiler"
    if profiling.dataset_profiling:
        return (
            f"AutoTune is dropped: {where} profiles the dataset pipeline (data_process=True), and MindSpore "
            f'then logs "Cannot enable AutoTune for the current data pipeline as Dataset Profiling is already '
            f'enabled"; {advice}'
        )
    if profiling.kind in DATA_PROCESS_KNOB:
        advice += " or set data_process to False"
    return (
        f"AutoTune may be dropped: {where} profiles the dataset pipeline where data_process defaults to "
        f"True (MindSpore before ~2.3; the default is False since), and a profiled pipeline is not AutoTuned; "
        f"{advice}"
    )
