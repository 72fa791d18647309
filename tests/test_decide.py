"""The rules of a project run once for all its folders: what each file shows still follows its own settings."""

from __future__ import annotations

from ms_perflint.analysis import analyse_python
from ms_perflint.findings import FileResult
from ms_perflint.project.model import Project
from ms_perflint.rules.base import Rule
from ms_perflint.run.lint import decide, findings_for, finish, hosted_errors, internal_errors, shows_failure
from ms_perflint.settings import Settings

CHOSEN = Settings(extend_select=("MSP999",))  # folder a/ chooses the opt-in rule
PLAIN = Settings()  # folder b/: select = ["MSP"], which leaves opt-in rules out


def settings_for(relative: str) -> Settings:
    return CHOSEN if relative.startswith("a/") else PLAIN


class EveryFile(Rule):
    """An opt-in rule that reports at the top of every Python file."""

    code = "MSP999"
    name = "every-file"
    opt_in = True

    def check(self, check) -> None:
        for path in check.project.python:
            check.report(self.code, path, _Top(), "a finding")


class Failing(EveryFile):
    """The same rule, failing."""

    def check(self, check) -> None:
        raise ValueError("a bug in the rule")


class _Top:
    line, column, start, end = 1, 0, 0, 0


def project() -> Project:
    facts = {path: analyse_python("import mindspore\n", path[:-3].replace("/", ".")) for path in ("a/x.py", "b/y.py")}
    return Project("", facts)


def shown(raw, relative: str):
    result = finish(FileResult(relative), findings_for(raw, relative), settings_for(relative), "import mindspore\n")
    return [(f.code, f.message) for f in result.findings]


def test_an_opt_in_rule_reports_only_in_files_whose_settings_choose_it():
    raw = decide(project(), settings_for, [EveryFile])
    assert shown(raw, "a/x.py") == [("MSP999", "a finding")]
    assert raw.get("b/y.py", []) == [] and shown(raw, "b/y.py") == []


def _hosts(raw, checked, settings_for, opt_in=("MSP999",)):
    """Which checked file shows each internal error, and the message."""
    shows = lambda code, relative: shows_failure(settings_for(relative), code, relative, opt_in)  # noqa: E731
    hosted = hosted_errors(internal_errors(raw), checked, shows)
    return {relative: [f.message for f in errors] for relative, errors in hosted.items()}


def test_a_rules_internal_error_is_shown_once_where_the_rule_is_on_only():
    raw = decide(project(), settings_for, [Failing])
    assert raw.get("a/x.py", []) == [] and raw.get("b/y.py", []) == []
    for checked in (["a/x.py", "b/y.py"], ["b/y.py", "a/x.py"]):
        [(host, [message])] = _hosts(raw, checked, settings_for).items()
        assert host == "a/x.py" and message.startswith("internal error in MSP999 (every-file): ValueError: a bug")
    assert _hosts(raw, ["b/y.py"], settings_for) == {}
    [(code, message)] = shown_with_errors(raw, "a/x.py", ["a/x.py", "b/y.py"])
    assert code == "MSP000"


def test_an_internal_error_is_not_shown_where_its_rule_is_ignored():
    class Plain(Failing):
        opt_in = False

    ignoring = Settings(ignore=("MSP999",))
    settings = lambda relative: ignoring if relative.startswith("b/") else PLAIN  # noqa: E731
    raw = decide(project(), settings, [Plain])
    assert _hosts(raw, ["b/y.py", "a/x.py"], settings, ()) == {"a/x.py": [internal_errors(raw)[0].message]}
    assert _hosts(raw, ["b/y.py"], settings, ()) == {}


class FailingInOneFile(EveryFile):
    """Reports in every file, and fails while deciding ``b/y.py``."""

    opt_in = False

    def check(self, check) -> None:
        for path in sorted(check.project.python):
            with check.deciding(path):
                if path == "b/y.py":
                    raise RecursionError("maximum recursion depth exceeded")
                check.report(self.code, path, _Top(), "a finding")


def test_a_rule_failing_in_one_file_keeps_its_findings_elsewhere_and_names_that_file():
    raw = decide(project(), lambda _: PLAIN, [FailingInOneFile])
    assert [f.code for f in raw["a/x.py"]] == ["MSP999"]
    [error] = internal_errors(raw)
    assert error.message == ("internal error in MSP999 (every-file) while deciding b/y.py: RecursionError: maximum "
                             "recursion depth exceeded; its findings there are missing -- please report this")
    assert _hosts(raw, ["a/x.py", "b/y.py"], lambda _: PLAIN, ()) == {"b/y.py": [error.message]}
    assert _hosts(raw, ["a/x.py"], lambda _: PLAIN, ()) == {"a/x.py": [error.message]}


def shown_with_errors(raw, relative, checked):
    hosted = hosted_errors(internal_errors(raw), checked, lambda code, r: shows_failure(settings_for(r), code, r, {"MSP999"}))
    result = finish(FileResult(relative), findings_for(raw, relative, hosted.get(relative, ())), settings_for(relative),
                    "import mindspore\n")
    return [(f.code, f.message) for f in result.findings]
