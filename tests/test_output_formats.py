"""``--output-format json|sarif|github``, ``--statistics``, ``-o`` and colour, through the real CLI.

Positions below are read off the sources by hand (1-based columns, exclusive ends):

    config = CheckpointConfig(save_checkpoint_steps=10)     call: columns 10..51, ends before 52
    legacy = CheckpointConfig(async_save=False)             call: columns 10..43; ``False`` at 38..42
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import jsonschema
import pytest

from ms_perflint.output.github import escape_data, escape_property
from ms_perflint.rules import ALL_RULES
from tests.conftest import REPO, run_cli

TRAIN = (
    "from mindspore.train import CheckpointConfig\n"
    "config = CheckpointConfig(save_checkpoint_steps=10)\n"
    "legacy = CheckpointConfig(async_save=False)\n"
)
BROKEN = "from mindspore.train import CheckpointConfig\nconfig = CheckpointConfig(\n"
SAFE_MESSAGE = "CheckpointConfig saves checkpoints synchronously, stalling training; pass async_save=True"
UNSAFE_MESSAGE = "CheckpointConfig saves checkpoints synchronously, stalling training (async_save=False); use async_save=True"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "broken.py").write_text(BROKEN)
    return tmp_path


def loc(row: int, column: int) -> Dict[str, int]:
    return {"row": row, "column": column}


def test_json_objects(project: Path):
    completed = run_cli("--output-format", "json", ".", cwd=project)
    assert completed.returncode == 1, completed.stderr
    objects = json.loads(completed.stdout)
    assert [o["filename"] for o in objects] == ["broken.py", "train.py", "train.py"]
    broken, safe, unsafe = objects
    assert broken["code"] is None and broken["name"] == "SyntaxError" and broken["fix"] is None
    assert broken["message"].startswith("SyntaxError: ")
    assert safe == {
        "code": "MSP103",
        "name": "sync-checkpoint-save",
        "message": SAFE_MESSAGE,
        "filename": "train.py",
        "cell": None,
        "location": loc(2, 10),
        "end_location": loc(2, 52),
        "fix": {
            "applicability": "safe",
            "message": "Add `async_save=True`",
            "edits": [{"content": ", async_save=True", "location": loc(2, 51), "end_location": loc(2, 51)}],
        },
        "url": "docs/rules/MSP103.md",
    }
    assert unsafe["location"] == loc(3, 10) and unsafe["end_location"] == loc(3, 44)
    assert unsafe["fix"] == {
        "applicability": "unsafe",
        "message": "Replace `async_save=False` with `True`",
        "edits": [{"content": "True", "location": loc(3, 38), "end_location": loc(3, 43)}],
    }
    assert (REPO / safe["url"]).is_file()


def apply_edits(text: str, edits: List[Dict[str, Any]]) -> str:
    """Apply JSON edits (1-based, exclusive ends) from the bottom up."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: Dict[str, int]) -> int:
        return starts[position["row"] - 1] + position["column"] - 1

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[: offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]) :]
    return text


def test_json_edits_do_what_fix_does(tmp_path: Path):
    """Applying every edit of the JSON report gives what ``--fix --unsafe-fixes`` writes, imports included."""
    source = (
        '"""Training."""\n'
        "import mindspore.nn as nn\n"
        "from mindspore.train import CheckpointConfig\n"
        "\n"
        "class Net(nn.Cell):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Dense(64, 32)\n"
        "\n"
        "config = CheckpointConfig(\n"
        "    save_checkpoint_steps=10,\n"
        "    keep_checkpoint_max=5,\n"
        ")\n"
        "legacy = CheckpointConfig(async_save=False)\n"
    )
    (tmp_path / "train.py").write_text(source)
    report = json.loads(run_cli("--output-format", "json", "train.py", cwd=tmp_path).stdout)
    fixable = [o for o in report if o["fix"] is not None]
    assert {o["code"] for o in fixable} >= {"MSP103"}
    edited = source
    for finding in sorted(fixable, key=lambda o: (o["location"]["row"], o["location"]["column"]), reverse=True):
        assert finding["fix"]["edits"], finding
        edited = apply_edits(edited, finding["fix"]["edits"])
    copy = tmp_path / "copy" / "train.py"
    copy.parent.mkdir()
    copy.write_text(source)
    run_cli("--fix", "--unsafe-fixes", str(copy))
    assert edited == copy.read_text()


def validator() -> jsonschema.Draft4Validator:
    schema = json.loads((REPO / "tests" / "data" / "sarif-2.1.0.json").read_text())
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def test_sarif_is_valid_and_complete(project: Path):
    completed = run_cli("--output-format", "sarif", ".", cwd=project)
    assert completed.returncode == 1, completed.stderr
    log = json.loads(completed.stdout)
    errors = sorted(validator().iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ms-perflint"
    assert [rule["id"] for rule in driver["rules"]] == [rule.code for rule in ALL_RULES]
    for descriptor, rule in zip(driver["rules"], ALL_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"]
        assert descriptor["help"]["markdown"].startswith(f"# {rule.code} {rule.name}")
    results = run["results"]
    assert [(r["ruleId"], r["message"]["text"]) for r in results] == [("MSP103", SAFE_MESSAGE), ("MSP103", UNSAFE_MESSAGE)]
    for result in results:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error"
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "train.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 2, "startColumn": 10, "endLine": 2, "endColumn": 52}
    replacement = results[1]["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert replacement == {
        "deletedRegion": {"startLine": 3, "startColumn": 38, "endLine": 3, "endColumn": 43},
        "insertedContent": {"text": "True"},
    }
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    notifications = run["invocations"][0]["toolExecutionNotifications"]
    assert len(notifications) == 1
    assert notifications[0]["message"]["text"].startswith("SyntaxError: ")
    assert notifications[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "broken.py"


def test_sarif_uris_for_odd_and_outside_paths(tmp_path: Path):
    inside = tmp_path / "work" / "my model.py"
    outside = tmp_path / "elsewhere" / "train.py"
    for path in (inside, outside):
        path.parent.mkdir(parents=True)
        path.write_text(TRAIN)
    completed = run_cli("--output-format", "sarif", "my model.py", str(outside), cwd=tmp_path / "work")
    log = json.loads(completed.stdout)
    assert not list(validator().iter_errors(log))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"my%20model.py", outside.resolve().as_uri()}


def test_sarif_for_a_clean_run_is_valid(tmp_path: Path):
    (tmp_path / "ok.py").write_text("x = 1\n")
    completed = run_cli("--output-format", "sarif", ".", cwd=tmp_path)
    assert completed.returncode == 0
    log = json.loads(completed.stdout)
    assert not list(validator().iter_errors(log))
    assert log["runs"][0]["results"] == []


def test_github_commands(project: Path):
    completed = run_cli("--output-format", "github", ".", cwd=project)
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0].startswith("::error title=ms-perflint (SyntaxError),file=broken.py,line=")
    assert lines[1:] == [
        f"::error title=ms-perflint (MSP103),file=train.py,line=2,col=10,endLine=2,endColumn=52::MSP103 {SAFE_MESSAGE}",
        f"::error title=ms-perflint (MSP103),file=train.py,line=3,col=10,endLine=3,endColumn=44::MSP103 {UNSAFE_MESSAGE}",
    ]


def test_github_escapes_file_names(tmp_path: Path):
    (tmp_path / "a,b:c%.py").write_text(TRAIN)
    completed = run_cli("--output-format", "github", "a,b:c%.py", cwd=tmp_path)
    assert "file=a%2Cb%3Ac%25.py,line=2," in completed.stdout


@pytest.mark.parametrize(
    "text, data, prop",
    [
        ("plain", "plain", "plain"),
        ("50% of steps", "50%25 of steps", "50%25 of steps"),
        ("a\r\nb", "a%0D%0Ab", "a%0D%0Ab"),
        ("x: y, z", "x: y, z", "x%3A y%2C z"),
        ("%0A", "%250A", "%250A"),
    ],
)
def test_github_escaping_rules(text: str, data: str, prop: str):
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_statistics_text_and_json(tmp_path: Path):
    (tmp_path / "a.py").write_text(TRAIN)
    (tmp_path / "b.py").write_text("from mindspore.train import CheckpointConfig\nc = CheckpointConfig()\n")
    text = run_cli("--statistics", ".", cwd=tmp_path)
    assert text.returncode == 1
    assert text.stdout == "3  MSP103  [*] sync-checkpoint-save\n"
    as_json = run_cli("--statistics", "--output-format", "json", ".", cwd=tmp_path)
    assert json.loads(as_json.stdout) == [{"code": "MSP103", "name": "sync-checkpoint-save", "count": 3, "fixable": True}]
    refused = run_cli("--statistics", "--output-format", "sarif", ".", cwd=tmp_path)
    assert refused.returncode == 2 and "--statistics" in refused.stderr


def test_output_file(project: Path):
    completed = run_cli("--output-format", "json", "-o", "report.json", ".", cwd=project)
    assert completed.returncode == 1
    assert completed.stdout == ""
    assert len(json.loads((project / "report.json").read_text())) == 3
    missing_folder = run_cli("-o", "no/such/folder/report.txt", ".", cwd=project)
    assert missing_folder.returncode == 2
    assert "no/such/folder/report.txt: cannot write the report" in missing_folder.stderr


PLAIN = (
    f"train.py:2:10: MSP103 [*] {SAFE_MESSAGE}\n"
    f"train.py:3:10: MSP103 {UNSAFE_MESSAGE}\n"
    "Found 2 findings in 1 file.\n"
    "[*] 1 fixable with the `--fix` option.\n"
    "1 more fix available with `--fix --unsafe-fixes`.\n"
)


def run_in_terminal(args: List[str], cwd: Path, env: Dict[str, str]) -> bytes:
    """Run the CLI with a pseudo-terminal as standard output; return what it wrote."""
    controller, terminal = pty.openpty()
    try:
        subprocess.run([sys.executable, "-m", "ms_perflint", *args], cwd=cwd, stdout=terminal, stderr=subprocess.PIPE,
                       env=env, timeout=300)
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(controller)


def test_colour_only_on_a_terminal_without_no_color(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    env = {key: value for key, value in os.environ.items() if key != "NO_COLOR"}
    coloured = run_in_terminal(["train.py"], tmp_path, env).decode()
    assert "\x1b[1mtrain.py\x1b[0m:2:10: \x1b[1;31mMSP103\x1b[0m \x1b[36m[*]\x1b[0m " in coloured
    plain_terminal = run_in_terminal(["train.py"], tmp_path, {**env, "NO_COLOR": "1"}).decode()
    assert "\x1b" not in plain_terminal
    assert plain_terminal.replace("\r\n", "\n") == PLAIN
    piped = subprocess.run([sys.executable, "-m", "ms_perflint", "train.py"], cwd=tmp_path, capture_output=True, env=env)
    assert piped.stdout.decode() == PLAIN


def test_nothing_printed_to_stdout_but_the_report(project: Path):
    """Warnings and summaries of machine formats go to stderr, so stdout parses."""
    for output_format in ("json", "sarif"):
        completed = run_cli("--output-format", output_format, ".", str(project / "missing_dir_is_error"), cwd=project)
        assert completed.returncode == 2 and completed.stdout == ""
        completed = run_cli("--output-format", output_format, ".", cwd=project)
        json.loads(completed.stdout)


def test_json_is_the_same_when_results_come_from_the_cache(tmp_path: Path):
    """A cached finding keeps no fix transform; the report re-lints the file for its edits."""
    (tmp_path / "train.py").write_text(TRAIN)
    first = run_cli("--output-format", "json", "train.py", cwd=tmp_path)
    second = run_cli("--output-format", "json", "train.py", cwd=tmp_path)
    assert first.returncode == second.returncode == 1
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert all(finding["fix"]["edits"] for finding in json.loads(second.stdout))
