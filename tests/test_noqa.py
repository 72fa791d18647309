"""Every suppression comment decides the same in the CLI and in ``flake8 --select MSP`` (real processes),
and ``--add-noqa`` writes comments both front ends honour.

The snippets use MSP103: ``CheckpointConfig(...)`` without ``async_save`` is reported
at the call, column 5 of ``x = CheckpointConfig(...)``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, List, Tuple

from hypothesis import given, settings as hypothesis_settings, strategies as st

from ms_perflint.add_noqa import add_noqa_to_config_text, add_noqa_to_text
from ms_perflint.noqa import LineSuppressions
from tests.conftest import run_cli, run_flake8

IMPORT = "from mindspore.train import CheckpointConfig\n"
_FINDING = re.compile(r"^(?:\./)?(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>MSP\d{3})\b")

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
    'p = CheckpointConfig(directory="""\n'  # 21 suppressed from the string's last line
    'ckpt""")  # noqa: MSP103\n'
    'q = CheckpointConfig(directory="""\n'  # 23 reported
    'ckpt""")\n'
    "r = CheckpointConfig() if True else \\\n"  # 25 suppressed from the continued line
    "    None  # noqa: MSP103\n"
)
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
    """Findings of the CLI and of flake8 over ``folder``."""
    cli = run_cli("--quiet", ".", cwd=folder)
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


FILE_DIRECTIVES = {
    "flake8_noqa.py": ("# flake8: noqa\n", False),
    "flake8_noqa_codes.py": ("# flake8: noqa: E501\n", False),  # flake8 7 skips the file even with codes
    "flake8_noqa_no_space.py": ("#flake8: noqa\n", True),  # not a directive for flake8
    "flake8_noqa_after_code.py": ("x = 1  # flake8: noqa\n", True),  # only at the start of a line
    "own_noqa.py": ("# ms-perflint: noqa\n", False),
    "own_noqa_code.py": ("# ms-perflint: noqa: MSP103\n", False),
    "own_noqa_other_code.py": ("# ms-perflint: noqa: MSP101\n", True),
}


def test_file_level_directives_decide_the_same_in_cli_and_flake8(tmp_path: Path):
    for name, (directive, _) in FILE_DIRECTIVES.items():
        (tmp_path / name).write_text(IMPORT + directive + "config = CheckpointConfig()\n")
    cli, flake8 = both_front_ends(tmp_path)
    expected = {name: [(3, 10, "MSP103")] for name, (_, reported) in FILE_DIRECTIVES.items() if reported}
    assert cli == expected
    assert flake8 == expected


def test_lines_are_counted_as_python_counts_them(tmp_path: Path):
    """A form feed or a CR-only line break must not shift which line a noqa belongs to."""
    text = IMPORT + "\x0c\n" + "a = CheckpointConfig()  # noqa: MSP103\n" + "b = CheckpointConfig()\n"
    (tmp_path / "form_feed.py").write_bytes(text.encode())
    (tmp_path / "crlf.py").write_bytes(text.replace("\n", "\r\n").encode())
    cli, flake8 = both_front_ends(tmp_path)
    expected = {"form_feed.py": [(4, 5, "MSP103")], "crlf.py": [(4, 5, "MSP103")]}
    assert cli == expected
    assert flake8 == expected


def test_suppressed_finding_is_not_counted_or_fixed(tmp_path: Path):
    path = tmp_path / "train.py"
    source = IMPORT + "config = CheckpointConfig()  # noqa: MSP103\n"
    path.write_text(source)
    completed = run_cli("--fix", str(path))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert path.read_text() == source


# --------------------------------------------------------------------------- --add-noqa


ADD_NOQA_BEFORE = IMPORT + (
    "a = CheckpointConfig()\n"
    "b = CheckpointConfig(\n"
    "    keep_checkpoint_max=5,\n"
    ")\n"
    'c = CheckpointConfig(directory="""\n'
    'ckpt""")\n'
    "d = CheckpointConfig()  # noqa: E501\n"
    "e = CheckpointConfig()  # keep this comment   \n"
    "f = CheckpointConfig()  # noqa: E501 because the line is long\n"
    "g = CheckpointConfig() if True else \\\n"
    "    None\n"
    "h = 1\n"
)
ADD_NOQA_AFTER = IMPORT + (
    "a = CheckpointConfig()  # noqa: MSP103\n"
    "b = CheckpointConfig(  # noqa: MSP103\n"
    "    keep_checkpoint_max=5,\n"
    ")\n"
    'c = CheckpointConfig(directory="""\n'
    'ckpt""")  # noqa: MSP103\n'
    "d = CheckpointConfig()  # noqa: E501,MSP103\n"
    "e = CheckpointConfig()  # keep this comment  # noqa: MSP103\n"
    "f = CheckpointConfig()  # noqa: E501,MSP103 because the line is long\n"
    "g = CheckpointConfig() if True else \\\n"
    "    None  # noqa: MSP103\n"
    "h = 1\n"
)


def test_add_noqa_writes_comments_where_flake8_reads_them(tmp_path: Path):
    path = tmp_path / "train.py"
    path.write_text(ADD_NOQA_BEFORE)
    completed = run_cli("--add-noqa", str(path))
    assert completed.returncode == 0, completed.stderr
    assert "Added 7 noqa directives." in completed.stderr
    assert path.read_text() == ADD_NOQA_AFTER
    cli, flake8 = both_front_ends(tmp_path)
    assert cli == {} and flake8 == {}


def test_add_noqa_twice_changes_nothing(tmp_path: Path):
    path = tmp_path / "train.py"
    path.write_text(ADD_NOQA_BEFORE)
    assert run_cli("--add-noqa", str(path)).returncode == 0
    once = path.read_bytes()
    again = run_cli("--add-noqa", str(path))
    assert again.returncode == 0
    assert "Added 0 noqa directives." in again.stderr
    assert path.read_bytes() == once


def test_add_noqa_keeps_crlf_encoding_and_bom(tmp_path: Path):
    latin = tmp_path / "latin.py"
    latin.write_bytes(
        b"# -*- coding: latin-1 -*-\r\n" + IMPORT.encode().replace(b"\n", b"\r\n")
        + b"name = '\xe9t\xe9'\r\nconfig = CheckpointConfig()\r\n"
    )
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + IMPORT.encode() + b"config = CheckpointConfig()")  # no final newline
    completed = run_cli("--add-noqa", str(latin), str(bom))
    assert completed.returncode == 0, completed.stderr
    assert latin.read_bytes() == (
        b"# -*- coding: latin-1 -*-\r\n" + IMPORT.encode().replace(b"\n", b"\r\n")
        + b"name = '\xe9t\xe9'\r\nconfig = CheckpointConfig()  # noqa: MSP103\r\n"
    )
    assert bom.read_bytes() == b"\xef\xbb\xbf" + IMPORT.encode() + b"config = CheckpointConfig()  # noqa: MSP103"
    cli, flake8 = both_front_ends(tmp_path)
    assert cli == {} and flake8 == {}


def test_add_noqa_respects_existing_suppression_and_selection(tmp_path: Path):
    path = tmp_path / "train.py"
    source = IMPORT + "a = CheckpointConfig()  # noqa\nb = CheckpointConfig()\n"
    path.write_text(source)
    completed = run_cli("--add-noqa", "--ignore", "MSP103", str(path))
    assert completed.returncode == 0
    assert path.read_text() == source  # nothing is reported, so nothing is added


def test_add_noqa_does_not_edit_a_noqa_inside_a_string(tmp_path: Path):
    """flake8 reads the first ``# noqa`` on the line, even inside a string; a comment after it would not count."""
    path = tmp_path / "train.py"
    source = IMPORT + 'config = CheckpointConfig(directory="# noqa: E501")\n'
    path.write_text(source)
    completed = run_cli("--add-noqa", str(path))
    assert completed.returncode == 1
    assert "outside a comment" in completed.stderr
    assert path.read_text() == source


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
    findings = draw(
        st.lists(st.tuples(st.integers(1, lines), st.sampled_from(["MSP101", "MSP103", "MSP104"])), max_size=8)
    )
    return text, findings


@hypothesis_settings(max_examples=300, deadline=None)
@given(files_and_findings())
def test_add_noqa_suppresses_every_finding_and_changes_only_comments(case):
    text, findings = case
    outcome = add_noqa_to_text(text, findings)
    assert outcome.problems == []
    suppressions = LineSuppressions(outcome.text)
    for line, code in findings:
        assert suppressions.is_suppressed(line, code), (line, code, outcome.text)
    assert ast.dump(ast.parse(outcome.text)) == ast.dump(ast.parse(text))
    assert outcome.text.count("\n") == text.count("\n")
    assert ("\r\n" in outcome.text) == ("\r\n" in text)
    again = add_noqa_to_text(outcome.text, findings)
    assert again.added == 0 and again.text == outcome.text


# --------------------------------------------------------------------------- --add-noqa on YAML configs


def test_config_noqa_is_appended_kept_extended_and_idempotent():
    text = (
        "net_name: resnet50\r\n"
        "class_num: 1000\r\n"
        "batch_size: 30   # noqa: MSP102\r\n"
        "other: 1000  # noqa\r\n"
        "last: 1000"
    )
    findings = [(2, "MSP104"), (3, "MSP104"), (4, "MSP104"), (5, "MSP104"), (5, "MSP102")]
    outcome = add_noqa_to_config_text(text, findings)
    assert outcome.text == (
        "net_name: resnet50\r\n"
        "class_num: 1000  # noqa: MSP104\r\n"
        "batch_size: 30   # noqa: MSP102,MSP104\r\n"
        "other: 1000  # noqa\r\n"
        "last: 1000  # noqa: MSP102,MSP104"
    )
    assert outcome.added == 3 and outcome.problems == []
    again = add_noqa_to_config_text(outcome.text, findings)
    assert (again.text, again.added) == (outcome.text, 0)


def test_config_noqa_reports_a_line_outside_the_file():
    outcome = add_noqa_to_config_text("class_num: 1000\n", [(7, "MSP104")])
    assert outcome.text == "class_num: 1000\n"
    assert outcome.problems == ["7: line is outside the file"]
