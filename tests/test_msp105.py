"""MSP105 autotune-with-profiler: spellings, the data_process cases, exclusive branches, pairing."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from ms_perflint.rules.msp105_autotune_with_profiler import (
    Guard,
    Site,
    guards_from_test,
    mutually_exclusive,
    pair_sites,
)
from tests.conftest import codes_at, lint

HEADER = "import mindspore as ms\nimport mindspore.dataset as ds\n"


def msp105(code: str):
    """MSP105 findings of a dedented snippet."""
    return [v for v in lint(textwrap.dedent(code).lstrip("\n")) if v.code == "MSP105"]


def positions(code: str):
    return codes_at(msp105(code))


# --- spellings of the AutoTune call -------------------------------------------


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import mindspore.dataset as ds", "ds.config.set_enable_autotune(True)"),
        ("import mindspore.dataset as ds", "ds.config.set_enable_autotune(enable=True)"),
        ("import mindspore.dataset as ds", "ds.config.set_enable_autotune(True, './autotune')"),
        ("from mindspore.dataset import config", "config.set_enable_autotune(True)"),
        ("from mindspore.dataset.config import set_enable_autotune", "set_enable_autotune(True)"),
        ("from mindspore.dataset.config import set_enable_autotune as tune", "tune(True)"),
        ("import mindspore", "mindspore.dataset.config.set_enable_autotune(True)"),
        ("from mindspore import dataset", "dataset.config.set_enable_autotune(True)"),
        ("from mindspore.dataset.core import config", "config.set_enable_autotune(True)"),
    ],
)
def test_every_spelling_of_autotune_is_recognised(imports, call):
    code = f"{imports}\nfrom mindspore import Profiler\nprofiler = Profiler(data_process=True)\n{call}\n"
    assert positions(code) == [("MSP105", 4, 1)]


@pytest.mark.parametrize(
    "call",
    [
        "ds.config.set_enable_autotune(False)",
        "ds.config.set_enable_autotune(enable=False)",
        "ds.config.set_enable_autotune(args.autotune)",
        "ds.config.set_enable_autotune(*flags)",
        "ds.config.get_enable_autotune()",
        "ds.config.set_autotune_interval(10)",
    ],
)
def test_autotune_off_unknown_or_other_config_calls_are_silent(call):
    assert msp105(HEADER + "profiler = ms.Profiler(data_process=True)\n" + call + "\n") == []


def test_parameter_default_true_is_known():
    code = HEADER + textwrap.dedent(
        """
        def build(autotune=True):
            ds.config.set_enable_autotune(autotune)
        profiler = ms.Profiler(data_process=True)
        """
    ).lstrip("\n")
    assert positions(code) == [("MSP105", 4, 5)]


def test_local_function_named_like_the_api_is_not_mindspore():
    code = """
        import mindspore as ms
        def set_enable_autotune(flag):
            pass
        set_enable_autotune(True)
        profiler = ms.Profiler(data_process=True)
        """
    assert msp105(code) == []


def test_file_without_mindspore_import_is_not_linted():
    code = """
        import config
        config.set_enable_autotune(True)
        profiler = Profiler(data_process=True)
        """
    assert msp105(code) == []


# --- profiling starts and their data_process case --------------------------------


@pytest.mark.parametrize(
    "imports, start",
    [
        ("import mindspore as ms", "ms.Profiler(data_process=True)"),
        ("import mindspore as ms", "ms.profiler.Profiler(output_path='./p', data_process=True)"),
        ("from mindspore import Profiler", "Profiler(data_process=True)"),
        ("from mindspore.profiler import Profiler", "Profiler(data_process=True)"),
        ("from mindspore.profiler import Profiler as P", "P(data_process=True)"),
        ("from mindspore.profiler import profile", "profile(data_process=True)"),
        ("import mindspore", "mindspore.profiler.profile(None, False, False, True)"),
    ],
)
def test_profilers_with_dataset_profiling_on(imports, start):
    code = f"import mindspore.dataset as ds\n{imports}\nds.config.set_enable_autotune(True)\nprof = {start}\n"
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 3, 1)]
    assert "line 4" in found[0].message
    assert "data_process=True" in found[0].message
    assert "Cannot enable AutoTune for the current data pipeline as Dataset Profiling is already enabled" in found[0].message


def test_profiler_with_default_data_process_names_the_release_dependent_case():
    found = msp105(HEADER + "ds.config.set_enable_autotune(True)\nprofiler = ms.Profiler(output_path='./p')\n")
    assert codes_at(found) == [("MSP105", 3, 1)]
    message = found[0].message
    assert message.startswith("AutoTune may be dropped")
    assert "defaults to True" in message and "2.3" in message
    assert "set data_process to False" in message


@pytest.mark.parametrize(
    "start",
    [
        "ms.Profiler(data_process=False)",
        "ms.Profiler(data_process=args.data_process)",
        "ms.Profiler(**profiler_kwargs)",
        "ms.Profiler(data_process=True, schedule=ms.profiler.schedule(wait=1, warmup=1, active=2))",
        "ms.profiler.profile()",
        "ms.profiler.profile(data_process=False)",
        "ms.profiler.Profiler.offline_analyse('./p')",
        "ms.profiler.DynamicProfilerMonitor()",
    ],
)
def test_profiling_that_leaves_the_dataset_alone_or_is_unknown_is_silent(start):
    assert msp105(HEADER + "ds.config.set_enable_autotune(True)\nprofiler = " + start + "\n") == []


def test_schedule_none_keeps_dataset_profiling():
    code = HEADER + "ds.config.set_enable_autotune(True)\np = ms.Profiler(data_process=True, schedule=None)\n"
    assert positions(code) == [("MSP105", 3, 1)]


@pytest.mark.parametrize(
    "imports, call",
    [
        ("import mindspore as ms", "ms.set_context(enable_profiling=True)"),
        ("import mindspore as ms", "ms.context.set_context(mode=ms.GRAPH_MODE, enable_profiling=True)"),
        ("from mindspore import context", "context.set_context(enable_profiling=True, profiling_options='{}')"),
        ("from mindspore import set_context", "set_context(enable_profiling=True)"),
    ],
)
def test_legacy_set_context_profiling(imports, call):
    code = f"import mindspore.dataset as ds\n{imports}\n{call}\nds.config.set_enable_autotune(True)\n"
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 4, 1)]
    assert "set_context(enable_profiling=True) on line 3" in found[0].message
    assert "set data_process to False" not in found[0].message  # set_context has no such knob


@pytest.mark.parametrize(
    "call",
    ["ms.set_context(enable_profiling=False)", "ms.set_context(mode=ms.GRAPH_MODE)", "ms.set_context(enable_profiling=flag)"],
)
def test_set_context_without_profiling_is_silent(call):
    assert msp105(HEADER + call + "\nds.config.set_enable_autotune(True)\n") == []


# --- MS_PROFILER_OPTIONS ------------------------------------------------------------

ON = '\'{"start": true, "data_process": true}\''


@pytest.mark.parametrize(
    "statement",
    [
        f'os.environ["MS_PROFILER_OPTIONS"] = {ON}',
        f'os.environ.setdefault("MS_PROFILER_OPTIONS", {ON})',
        f'os.putenv("MS_PROFILER_OPTIONS", {ON})',
        f'os.environ.update({{"MS_PROFILER_OPTIONS": {ON}}})',
        f"os.environ.update(MS_PROFILER_OPTIONS={ON})",
        'os.environ["MS_PROFILER_OPTIONS"] = json.dumps({"start": True, "data_process": True})',
        f'environ["MS_PROFILER_OPTIONS"] = {ON}',
    ],
)
def test_environment_variable_forms(statement):
    code = (
        "import json\nimport os\nfrom os import environ\nimport mindspore.dataset as ds\n"
        f"{statement}\nds.config.set_enable_autotune(True)\n"
    )
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 6, 1)]
    assert "MS_PROFILER_OPTIONS on line 5" in found[0].message
    assert "data_process=True" in found[0].message


def test_environment_variable_through_a_module_constant_name():
    code = """
        import os
        import mindspore.dataset as ds
        VARIABLE = "MS_PROFILER_OPTIONS"
        os.environ[VARIABLE] = '{"start": true}'
        ds.config.set_enable_autotune(True)
        """
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 5, 1)]
    assert found[0].message.startswith("AutoTune may be dropped")  # no data_process key: the default


@pytest.mark.parametrize(
    "value",
    [
        "'{\"output_path\": \"./p\", \"data_process\": true}'",  # no "start": MindSpore starts nothing
        "'{\"start\": false, \"data_process\": true}'",
        "'{\"start\": true, \"data_process\": false}'",
        "'not json'",
        "options_text",  # unknown
        "json.dumps(options)",  # unknown
        "json.dumps({\"start\": flag, \"data_process\": True})",  # unknown start
    ],
)
def test_environment_values_that_start_no_dataset_profiling_are_silent(value):
    code = f"import json\nimport os\nimport mindspore.dataset as ds\nos.environ['MS_PROFILER_OPTIONS'] = {value}\nds.config.set_enable_autotune(True)\n"
    assert msp105(code) == []


def test_other_environment_variables_are_silent():
    code = """
        import os
        import mindspore.dataset as ds
        os.environ["MS_PROFILER_OPTIONS_BACKUP"] = '{"start": true, "data_process": true}'
        os.environ["GLOG_v"] = "2"
        environ = {}
        environ["MS_PROFILER_OPTIONS"] = '{"start": true, "data_process": true}'
        ds.config.set_enable_autotune(True)
        """
    assert msp105(code) == []


# --- exclusive branches -----------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # if / else
        """
        if args.profile:
            profiler = ms.Profiler(data_process=True)
        else:
            ds.config.set_enable_autotune(True)
        """,
        # if / elif
        """
        if args.profile:
            profiler = ms.Profiler(data_process=True)
        elif args.autotune:
            ds.config.set_enable_autotune(True)
        """,
        # two arms of an elif chain, both below the first test
        """
        if args.mode == "debug":
            pass
        elif args.mode == "profile":
            profiler = ms.Profiler(data_process=True)
        else:
            ds.config.set_enable_autotune(True)
        """,
        # a flag and its negation, in separate statements and functions
        """
        def start_profiler(args):
            if args.profile:
                return ms.Profiler(data_process=True)
        def configure_dataset(args):
            if not args.profile:
                ds.config.set_enable_autotune(True)
        """,
        # nested: the negation is an outer condition
        """
        if not (args.profile):
            if args.autotune:
                ds.config.set_enable_autotune(True)
        if args.profile:
            profiler = ms.Profiler(data_process=True)
        """,
        # `a and b` holding implies `a`
        """
        if args.profile and args.rank == 0:
            profiler = ms.Profiler(data_process=True)
        if not args.profile:
            ds.config.set_enable_autotune(True)
        """,
        # `a or b` failing implies `not a`
        """
        if args.profile or args.debug:
            profiler = ms.Profiler(data_process=True)
        else:
            ds.config.set_enable_autotune(True)
        """,
        # guard clauses leaving the function, the program, or raising
        """
        def setup(args):
            if args.profile:
                return ms.Profiler(data_process=True)
            ds.config.set_enable_autotune(True)
        """,
        """
        def setup(args):
            if args.profile:
                profiler = ms.Profiler(data_process=True)
                return profiler
            for _ in range(1):
                ds.config.set_enable_autotune(True)
        """,
        """
        import sys
        if args.profile:
            profiler = ms.Profiler(data_process=True)
            run_profiled(); sys.exit(0)
        ds.config.set_enable_autotune(True)
        """,
        """
        def setup(args):
            if not args.profile: raise SystemExit("nothing to do")
            profiler = ms.Profiler(data_process=True)
        if not args.profile:
            ds.config.set_enable_autotune(True)
        """,
    ],
)
def test_mutually_exclusive_branches_are_silent(body):
    assert msp105(HEADER + textwrap.dedent(body)) == []


@pytest.mark.parametrize(
    "body, line, column",
    [
        # two independent flags: both may be given
        (
            """
            if args.autotune:
                ds.config.set_enable_autotune(True)
            if args.profile:
                profiler = ms.Profiler(data_process=True)
            """,
            4,
            5,
        ),
        # same arm of one if
        (
            """
            if args.profile:
                ds.config.set_enable_autotune(True)
                profiler = ms.Profiler(data_process=True)
            """,
            4,
            5,
        ),
        # `a or b` holding does not imply `a`
        (
            """
            if args.profile or args.debug:
                ds.config.set_enable_autotune(True)
            if not args.profile:
                profiler = ms.Profiler(data_process=True)
            """,
            4,
            5,
        ),
        # a guard clause in another function does not guard this one
        (
            """
            def start(args):
                if args.profile:
                    return None
                return 1
            def tune():
                ds.config.set_enable_autotune(True)
            if args.profile:
                profiler = ms.Profiler(data_process=True)
            """,
            8,
            5,
        ),
        # the guard clause's body does not always leave
        (
            """
            def setup(args):
                if args.profile:
                    print("profiling")
                ds.config.set_enable_autotune(True)
                if args.profile:
                    return ms.Profiler(data_process=True)
            """,
            6,
            5,
        ),
        # a guard clause after the AutoTune call does not guard it
        (
            """
            def setup(args):
                ds.config.set_enable_autotune(True)
                if args.profile:
                    return ms.Profiler(data_process=True)
            """,
            4,
            5,
        ),
    ],
)
def test_branches_that_can_both_run_are_reported(body, line, column):
    assert positions(HEADER + textwrap.dedent(body).lstrip("\n")) == [("MSP105", line, column)]


# --- one finding per AutoTune call, naming the worst profiler ----------------------


def test_each_autotune_call_is_reported_once_naming_the_dataset_profiler():
    code = """
        import mindspore as ms
        import mindspore.dataset as ds
        first = ms.Profiler(output_path="./a")
        second = ms.Profiler(output_path="./b", data_process=True)
        ds.config.set_enable_autotune(True)
        ds.config.set_enable_autotune(True, "./autotune")
        """
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 5, 1), ("MSP105", 6, 1)]
    assert all("on line 4" in v.message and "data_process=True" in v.message for v in found)


def test_default_profiler_is_named_when_it_is_the_only_candidate():
    code = """
        import mindspore as ms
        import mindspore.dataset as ds
        if args.profile:
            exact = ms.Profiler(data_process=True)
        else:
            ds.config.set_enable_autotune(True)
        default = ms.Profiler()
        """
    found = msp105(code)
    assert codes_at(found) == [("MSP105", 6, 5)]
    assert "on line 7" in found[0].message and "may be dropped" in found[0].message


def test_noqa_suppresses():
    code = HEADER + "ds.config.set_enable_autotune(True)  # noqa: MSP105\nprofiler = ms.Profiler(data_process=True)\n"
    assert msp105(code) == []


# --- the plain-data part that a project-wide pass will reuse ------------------------


def guards(source: str, holds: bool = True):
    return set(guards_from_test(cst.parse_expression(source), holds))


def test_guards_from_test_handles_not_and_or_and_parentheses():
    assert guards("args.profile") == {Guard("args.profile", True)}
    assert guards("not (args.profile)") == {Guard("args.profile", False)}
    assert guards("not not  args.profile") == {Guard("args.profile", True)}
    assert guards("a and not b") == {Guard("a and not b", True), Guard("a", True), Guard("b", False)}
    assert guards("a and b", holds=False) == {Guard("a and b", False)}
    assert guards("a or b", holds=False) == {Guard("a or b", False), Guard("a", False), Guard("b", False)}
    assert guards("a or b") == {Guard("a or b", True)}
    assert guards("f( x ,y)") == {Guard("f( x ,y)", True)}


def site(kind, *guard_list, dataset_profiling=None):
    return Site(kind, frozenset(guard_list), dataset_profiling)


def test_mutually_exclusive_needs_a_negated_guard():
    profiled = site("Profiler", Guard("args.profile", True), dataset_profiling=True)
    assert mutually_exclusive(profiled, site("autotune", Guard("args.profile", False)))
    assert mutually_exclusive(site("autotune", Guard("args.profile", False)), profiled)
    assert not mutually_exclusive(profiled, site("autotune", Guard("args.tune", False)))
    assert not mutually_exclusive(profiled, site("autotune"))


def test_pair_sites_prefers_certain_dataset_profiling_and_skips_data_process_false():
    autotune = site("autotune")
    off = site("Profiler", dataset_profiling=False)
    default = site("Profiler")
    on = site("Profiler", dataset_profiling=True)
    assert pair_sites([autotune], [off]) == []
    pairs = pair_sites([autotune], [off, default, on])
    assert [(p.autotune, p.profiling) for p in pairs] == [(autotune, on)]
    assert [p.profiling for p in pair_sites([autotune], [default, off])] == [default]
    exclusive = site("autotune", Guard("p", False))
    assert pair_sites([exclusive], [site("Profiler", Guard("p", True), dataset_profiling=True)]) == []
