"""Every suppression comment decides the same in the CLI and in ``flake8 --select MSP`` (real processes),
and ``--add-noqa`` writes comments both front ends honour.

The snippets are training programs at module level: each ``x = CheckpointConfig(...)``
reaches a ModelCheckpoint of the ``Model.train`` call at the end of the file, so
MSP103 reports it at the call, column 5 of ``x = CheckpointConfig(...)``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterable, List, Tuple

from hypothesis import given, settings as hypothesis_settings, strategies as st

from ms_perflint.fix.noqa import add_noqa_to_config_text, add_noqa_to_text
from ms_perflint.sources.noqa import LineSuppressions, file_directives, physical_lines
from tests.conftest import run_cli, run_flake8

IMPORT = "from mindspore.train import CheckpointConfig, Model, ModelCheckpoint\n"
_FINDING = re.compile(r"^(?:\./)?(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b")


def train(names: Iterable[str]) -> str:
    """The closing training call: one ModelCheckpoint per config name."""
    callbacks = "".join(f"    ModelCheckpoint(config={name}),\n" for name in names)
    return f"Model(net, loss, opt).train(1, data, callbacks=[\n{callbacks}])\n"


# Line numbers are those of the file written below (the import is line 1).
INLINE_FORMS = IMPORT + (
    "a = CheckpointConfig()  # noqa\n"  # 2 suppressed
    "b = CheckpointConfig()  # noqa: MSP103\n"  # 3 suppressed
    "c = CheckpointConfig()  # noqa:MSP103\n"  # 4 suppressed
    "d = CheckpointConfig()  # NOQA: MSP1\n"  # 5 suppressed: a prefix
    "e = CheckpointConfig()  # noqa: E501,MSP103\n"  # 6 suppressed
    "f = CheckpointConfig()  # noqa: E501 MSP103\n"  # 7 suppressed: whitespace separates codes too
    "g = CheckpointConfig()  # noqa: E501\n"  # 8 reported: another code
    "h = CheckpointConfig()  # noqa: MSP101\n"  # 9 reported: another MSP code
    "i = CheckpointConfig()  #noqa\n"  # 10 reported: flake8 wants "# noqa"
    "j = CheckpointConfig()  # noqa: msp103\n"  # 11 reported: codes are case-sensitive
    "k = CheckpointConfig()  # noqa:MSP\n"  # 12 suppressed: no digits, so a blanket noqa
    "l = CheckpointConfig()  # see the noqa docs\n"  # 13 reported
    "m = CheckpointConfig()  # type: ignore  # noqa: MSP103\n"  # 14 suppressed
    "n = CheckpointConfig(  # noqa: MSP103\n"  # 15 suppressed: on the call's first line
    "    keep_checkpoint_max=5,\n"
    ")\n"
    "o = CheckpointConfig(\n"  # 18 reported: the comment is on a later line of the call
    "    keep_checkpoint_max=5,  # noqa: MSP103\n"
    ")\n"
    'p = CheckpointConfig(format="""\n'  # 21 suppressed from the string's last line
    'ckpt""")  # noqa: MSP103\n'
    'q = CheckpointConfig(format="""\n'  # 23 reported
    'ckpt""")\n'
    "r = CheckpointConfig(keep_checkpoint_max=\\\n"  # 25 suppressed from the continued line
    "    5)  # noqa: MSP103\n"
) + train("abcdefghijklmnopqr")
INLINE_REPORTED = [8, 9, 10, 11, 13, 18, 23]


def findings(stdout: str) -> Dict[str, List[Tuple[int, int, str]]]:
    """``{file name: [(line, col, code)]}`` parsed from CLI or flake8 output."""
    found: Dict[str, List[Tuple[int, int, str]]] = {}
    for raw in stdout.splitlines():
        match = _FINDING.match(raw)
        if match:
            name = Path(match["path"]).name
            found.setdefault(name, []).append((int(match["line"]), int(match["col"]), match["code"]))
    return {name: sorted(rows) for name, rows in found.items()}


def both_front_ends(folder: Path) -> Tuple[dict, dict]:
    """Findings of the CLI and of flake8 over ``folder`` (Python files only: flake8 reads no YAML)."""
    cli = run_cli("--quiet", "--no-cache", ".", cwd=folder)
    assert cli.returncode in (0, 1), cli.stderr
    flake8 = run_flake8("--select", "MSP", ".", cwd=folder)
    assert flake8.returncode in (0, 1), flake8.stdout + flake8.stderr
    return findings(cli.stdout), findings(flake8.stdout)


def test_inline_noqa_forms_decide_the_same_in_cli_and_flake8(tmp_path: Path):
    (tmp_path / "forms.py").write_text(INLINE_FORMS)
    cli, flake8 = both_front_ends(tmp_path)
    expected = [(line, 5, "MSP103") for line in INLINE_REPORTED]
    assert cli.get("forms.py") == expected
    assert flake8.get("forms.py") == expected


def test_without_comments_every_form_is_reported():
    """The forms test is honest: with its comments removed, all 18 configs are findings."""
    from tests.conftest import check

    bare = re.sub(r"  #.*", "", INLINE_FORMS)
    assert len([f for f in check(bare) if f.code == "MSP103"]) == 18


FILE_DIRECTIVES = {
    "flake8_noqa.py": ("# flake8: noqa\n", False),
    "flake8_noqa_codes.py": ("# flake8: noqa: E501\n", False),  # flake8 7 skips the file even with codes
    "flake8_noqa_no_space.py": ("#flake8: noqa\n", True),  # not a directive for flake8
    "flake8_noqa_after_code.py": ("x = 1  # flake8: noqa\n", True),  # only at the start of a line
    "own_noqa.py": ("# ms-perflint: noqa\n", False),
    "own_noqa_code.py": ("# ms-perflint: noqa: MSP103\n", False),
    "own_noqa_prefix.py": ("# ms-perflint: noqa: MSP1\n", False),
    "own_noqa_other_code.py": ("# ms-perflint: noqa: MSP101\n", True),
}


def test_file_level_directives_decide_the_same_in_cli_and_flake8(tmp_path: Path):
    for name, (directive, _) in FILE_DIRECTIVES.items():
        (tmp_path / name).write_text(IMPORT + directive + "config = CheckpointConfig()\n" + train(["config"]))
    cli, flake8 = both_front_ends(tmp_path)
    expected = {name: [(3, 10, "MSP103")] for name, (_, reported) in FILE_DIRECTIVES.items() if reported}
    assert cli == expected
    assert flake8 == expected


def test_lines_are_counted_as_python_counts_them(tmp_path: Path):
    """A form feed or a CR-only line break must not shift which line a noqa belongs to."""
    text = IMPORT + "\x0c\n" + "a = CheckpointConfig()  # noqa: MSP103\n" + "b = CheckpointConfig()\n" + train("ab")
    (tmp_path / "form_feed.py").write_bytes(text.encode())
    (tmp_path / "crlf.py").write_bytes(text.replace("\n", "\r\n").encode())
    cli, flake8 = both_front_ends(tmp_path)
    expected = {"form_feed.py": [(4, 5, "MSP103")], "crlf.py": [(4, 5, "MSP103")]}
    assert cli == expected
    assert flake8 == expected


def test_suppressed_finding_is_not_counted_or_fixed(tmp_path: Path):
    path = tmp_path / "train.py"
    source = IMPORT + "config = CheckpointConfig()  # noqa: MSP103\n" + train(["config"])
    path.write_text(source)
    completed = run_cli("--fix", str(path))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert path.read_text() == source


# --------------------------------------------------------------------------- the decision, in-process


def test_line_suppressions_follow_multi_line_tokens_in_python_but_not_in_yaml():
    text = 'x = f("""\nabc""")  # noqa: MSP103\ny = 1\n'
    python = LineSuppressions(text)
    assert python.is_suppressed(1, "MSP103") and python.is_suppressed(2, "MSP103")
    assert not python.is_suppressed(3, "MSP103") and not python.is_suppressed(1, "MSP101")
    yaml = LineSuppressions(text, tokenize=False)  # a YAML config: the comment counts on its own line only
    assert not yaml.is_suppressed(1, "MSP103") and yaml.is_suppressed(2, "MSP103")
    broken = LineSuppressions('x = """\nnever closed  # noqa\n')  # not tokenizable: each line alone
    assert broken.is_suppressed(2, "MSP103") and not broken.is_suppressed(1, "MSP103")


def test_file_directives_and_physical_lines():
    assert physical_lines("a\r\nb\rc\x0cd\ne") == ["a\r\n", "b\r", "c\x0cd\n", "e"]
    directives = file_directives(physical_lines("# ms-perflint: noqa: MSP101, MSP105\nx = 1\n"))
    assert directives.skips("MSP101", honour_flake8=True) and directives.skips("MSP105", honour_flake8=True)
    assert not directives.skips("MSP103", honour_flake8=True)
    flake8_style = file_directives(["  # flake8: noqa\n"])
    assert flake8_style.skips("MSP103", honour_flake8=True) and not flake8_style.skips("MSP103", honour_flake8=False)


# --------------------------------------------------------------------------- --add-noqa


ADD_NOQA_BEFORE = IMPORT + (
    "a = CheckpointConfig()\n"
    "b = CheckpointConfig(\n"
    "    keep_checkpoint_max=5,\n"
    ")\n"
    'c = CheckpointConfig(format="""\n'
    'ckpt""")\n'
    "d = CheckpointConfig()  # noqa: E501\n"
    "e = CheckpointConfig()  # keep this comment   \n"
    "f = CheckpointConfig()  # noqa: E501 because the line is long\n"
    "g = CheckpointConfig(keep_checkpoint_max=\\\n"
    "    5)\n"
    "h = 1\n"
) + train("abcdefg")
ADD_NOQA_AFTER = IMPORT + (
    "a = CheckpointConfig()  # noqa: MSP103\n"
    "b = CheckpointConfig(  # noqa: MSP103\n"
    "    keep_checkpoint_max=5,\n"
    ")\n"
    'c = CheckpointConfig(format="""\n'
    'ckpt""")  # noqa: MSP103\n'
    "d = CheckpointConfig()  # noqa: E501,MSP103\n"
    "e = CheckpointConfig()  # keep this comment  # noqa: MSP103\n"
    "f = CheckpointConfig()  # noqa: E501,MSP103 because the line is long\n"
    "g = CheckpointConfig(keep_checkpoint_max=\\\n"
    "    5)  # noqa: MSP103\n"
    "h = 1\n"
) + train("abcdefg")


def test_add_noqa_writes_comments_where_flake8_reads_them_and_twice_changes_nothing(tmp_path: Path):
    path = tmp_path / "train.py"
    path.write_text(ADD_NOQA_BEFORE)
    completed = run_cli("--add-noqa", str(path))
    assert completed.returncode == 0, completed.stderr
    assert "Added 7 noqa directives." in completed.stderr
    assert path.read_text() == ADD_NOQA_AFTER
    cli, flake8 = both_front_ends(tmp_path)
    assert cli == {} and flake8 == {}
    again = run_cli("--add-noqa", str(path))
    assert again.returncode == 0 and "Added 0 noqa directives." in again.stderr
    assert path.read_text() == ADD_NOQA_AFTER


def test_add_noqa_keeps_crlf_encoding_and_bom(tmp_path: Path):
    latin = tmp_path / "latin.py"
    crlf = (IMPORT + "name = 'XtX'\nconfig = CheckpointConfig()\n" + train(["config"])).replace("\n", "\r\n")
    latin.write_bytes(b"# -*- coding: latin-1 -*-\r\n" + crlf.encode().replace(b"XtX", b"\xe9t\xe9"))
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + (IMPORT + "config = CheckpointConfig()\n" + train(["config"]))[:-1].encode())
    completed = run_cli("--add-noqa", str(latin), str(bom))
    assert completed.returncode == 0, completed.stderr
    assert latin.read_bytes() == b"# -*- coding: latin-1 -*-\r\n" + crlf.replace(
        "config = CheckpointConfig()\r\n", "config = CheckpointConfig()  # noqa: MSP103\r\n").encode().replace(
        b"XtX", b"\xe9t\xe9")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + (IMPORT + "config = CheckpointConfig()  # noqa: MSP103\n"
                                                  + train(["config"]))[:-1].encode()  # still no final newline
    cli, flake8 = both_front_ends(tmp_path)
    assert cli == {} and flake8 == {}


def test_add_noqa_respects_existing_suppression_and_selection(tmp_path: Path):
    path = tmp_path / "train.py"
    source = IMPORT + "a = CheckpointConfig()  # noqa\nb = CheckpointConfig()\n" + train("ab")
    path.write_text(source)
    completed = run_cli("--add-noqa", "--ignore", "MSP103", str(path))
    assert completed.returncode == 0
    assert path.read_text() == source  # nothing is reported, so nothing is added


def test_add_noqa_does_not_edit_a_noqa_inside_a_string(tmp_path: Path):
    """flake8 reads the first ``# noqa`` on the line, even inside a string; a comment after it would not count."""
    path = tmp_path / "train.py"
    source = IMPORT + 'config = CheckpointConfig(format="# noqa: E501")\n' + train(["config"])
    path.write_text(source)
    completed = run_cli("--add-noqa", str(path))
    assert completed.returncode == 1
    assert "outside a comment" in completed.stderr
    assert path.read_text() == source


MINDFORMERS_CONFIG = """\
run_mode: 'train'
callbacks:
  - type: MFLossMonitor
  - type: CheckpointMonitor   # saves every 100 steps
    prefix: "llama_7b"
    save_checkpoint_steps: 100
"""


def test_noqa_and_add_noqa_in_a_yaml_config(tmp_path: Path):
    """A YAML finding (a mindformers CheckpointMonitor without async_save) is suppressed on its own line."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    config = tmp_path / "configs" / "run_llama.yaml"
    config.parent.mkdir()
    config.write_text(MINDFORMERS_CONFIG)
    before = run_cli("--quiet", ".", cwd=tmp_path)
    assert before.stdout.startswith("configs/run_llama.yaml:4:11: MSP103 [*] "), before.stdout + before.stderr
    added = run_cli("--add-noqa", ".", cwd=tmp_path)
    assert added.returncode == 0 and "Added 1 noqa directive." in added.stderr, added.stderr
    assert config.read_text() == MINDFORMERS_CONFIG.replace(
        "CheckpointMonitor   # saves every 100 steps", "CheckpointMonitor   # saves every 100 steps  # noqa: MSP103")
    after = run_cli("--quiet", ".", cwd=tmp_path)
    assert after.returncode == 0 and after.stdout == "", after.stdout


# --------------------------------------------------------------------------- --add-noqa on generated files

FRAGMENTS = [
    "x = 1\n",
    "y = f(\n    1,\n)\n",
    's = """\nabc # noqa\n"""\n',
    "z = 1 + \\\n    2\n",
    "w = 2  # a comment   \n",
    "v = 3  # noqa: E501\n",
    "if True:\n    u = 4\n",
    "# a comment line\n",
    "\n",
    "\x0c\n",
]


@st.composite
def files_and_findings(draw):
    text = "".join(draw(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12)))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    lines = text.count("\n")
    found = draw(st.lists(st.tuples(st.integers(1, lines), st.sampled_from(["MSP101", "MSP103", "MSP105"])), max_size=8))
    return text, found


@hypothesis_settings(max_examples=150, deadline=None)
@given(files_and_findings())
def test_add_noqa_suppresses_every_finding_and_changes_only_comments(case):
    text, found = case
    outcome = add_noqa_to_text(text, found)
    assert outcome.problems == []
    suppressions = LineSuppressions(outcome.text)
    for line, code in found:
        assert suppressions.is_suppressed(line, code), (line, code, outcome.text)
    assert ast.dump(ast.parse(outcome.text)) == ast.dump(ast.parse(text))
    assert outcome.text.count("\n") == text.count("\n")
    assert ("\r\n" in outcome.text) == ("\r\n" in text)
    again = add_noqa_to_text(outcome.text, found)
    assert again.added == 0 and again.text == outcome.text


# --------------------------------------------------------------------------- --add-noqa on YAML configs, in-process


def test_config_noqa_is_appended_kept_extended_and_idempotent():
    text = (
        "net_name: resnet50\r\n"
        "class_num: 1000\r\n"
        "batch_size: 30   # noqa: MSP101\r\n"
        "other: 1000  # noqa\r\n"
        "last: 1000"
    )
    found = [(2, "MSP103"), (3, "MSP103"), (4, "MSP103"), (5, "MSP103"), (5, "MSP101")]
    outcome = add_noqa_to_config_text(text, found)
    assert outcome.text == (
        "net_name: resnet50\r\n"
        "class_num: 1000  # noqa: MSP103\r\n"
        "batch_size: 30   # noqa: MSP101,MSP103\r\n"
        "other: 1000  # noqa\r\n"
        "last: 1000  # noqa: MSP101,MSP103"
    )
    assert outcome.added == 3 and outcome.problems == []
    again = add_noqa_to_config_text(outcome.text, found)
    assert (again.text, again.added) == (outcome.text, 0)
    suppressions = LineSuppressions(outcome.text, tokenize=False)
    assert all(suppressions.is_suppressed(line, code) for line, code in found)


def test_config_noqa_reports_a_line_outside_the_file():
    outcome = add_noqa_to_config_text("class_num: 1000\n", [(7, "MSP103")])
    assert outcome.text == "class_num: 1000\n"
    assert outcome.problems == ["7: line is outside the file"]
