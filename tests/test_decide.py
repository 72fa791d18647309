"""The rules of a project run once for all its folders: what each file shows still follows its own settings."""

from __future__ import annotations

from ms_perflint.analysis import analyse_python
from ms_perflint.findings import FileResult
from ms_perflint.project.model import Project
from ms_perflint.rules.base import Rule
from ms_perflint.run.lint import decide, findings_for, finish
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


def test_a_rules_internal_error_is_shown_where_the_rule_is_on_only():
    raw = decide(project(), settings_for, [Failing])
    [(code, message)] = shown(raw, "a/x.py")
    assert code == "MSP000" and message.startswith("internal error in MSP999 (every-file): ValueError: a bug")
    assert shown(raw, "b/y.py") == []


def test_an_internal_error_is_not_shown_where_its_rule_is_ignored():
    class Plain(Failing):
        opt_in = False

    ignoring = Settings(ignore=("MSP999",))
    raw = decide(project(), lambda relative: ignoring if relative.startswith("b/") else PLAIN, [Plain])
    result = finish(FileResult("b/y.py"), findings_for(raw, "b/y.py"), ignoring, "import mindspore\n")
    assert result.findings == []
    result = finish(FileResult("a/x.py"), findings_for(raw, "a/x.py"), PLAIN, "import mindspore\n")
    assert [f.code for f in result.findings] == ["MSP000"]
