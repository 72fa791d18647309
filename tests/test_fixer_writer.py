"""Writing fixes back: byte-for-byte preservation, atomic replace, files that must be left alone."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

import libcst as cst
import pytest

from ms_perflint import fixer
from ms_perflint.fixer import fix_file, fix_source, unified_diff
from ms_perflint.rule import Fix, FixSafety, Rule
from ms_perflint.settings import Settings
from ms_perflint.writer import WriteRefused, write_atomic

SETTINGS = Settings()
CALL = b"CheckpointConfig(save_checkpoint_steps=10)"
FIXED_CALL = b"CheckpointConfig(save_checkpoint_steps=10, async_save=True)"


def checkpoint_file(newline: bytes = b"\n", header: bytes = b"", indent: bytes = b"    ") -> bytes:
    lines = [
        b"from mindspore.train import CheckpointConfig",
        b"",
        b"def build(steps):  # trailing comment   ",
        indent + b"if steps:",
        indent + indent + b"# keep me",
        indent + indent + b"return " + CALL,
        b"",
    ]
    return header + newline.join(lines)


@pytest.mark.parametrize(
    "newline, header, indent",
    [
        (b"\r\n", b"", b"    "),
        (b"\n", codecs.BOM_UTF8, b"    "),
        (b"\n", b"", b"\t"),
        (b"\r\n", b"# -*- coding: latin-1 -*-\r\n# Gr\xfc\xdfe, caf\xe9\r\n", b"\t"),
        (b"\r\n", codecs.BOM_UTF8 + "# caf\u00e9 \u2603\r\n".encode("utf-8"), b"  "),
    ],
    ids=["crlf", "bom", "tabs", "latin1-cookie-crlf-tabs", "bom-crlf-non-ascii"],
)
def test_only_the_fixed_bytes_change(tmp_path: Path, newline, header, indent):
    original = checkpoint_file(newline, header, indent)
    path = tmp_path / "train.py"
    path.write_bytes(original)
    outcome = fix_file(str(path), SETTINGS)
    assert outcome.problems == []
    assert path.read_bytes() == original.replace(CALL, FIXED_CALL)


def test_mixed_newlines_are_kept_line_by_line(tmp_path: Path):
    original = b"from mindspore.train import CheckpointConfig\r\nx = 1\nc = " + CALL + b"\r\ny = 2\n"
    path = tmp_path / "train.py"
    path.write_bytes(original)
    fix_file(str(path), SETTINGS)
    assert path.read_bytes() == original.replace(CALL, FIXED_CALL)


def test_file_without_findings_is_not_touched(tmp_path: Path):
    path = tmp_path / "clean.py"
    path.write_bytes(b"from mindspore.train import CheckpointConfig\nc = CheckpointConfig(async_save=True)\n")
    before = os.stat(path)
    outcome = fix_file(str(path), SETTINGS)
    after = os.stat(path)
    assert not outcome.changed
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_file_mode_is_kept(tmp_path: Path, mode: int):
    path = tmp_path / "train.py"
    path.write_bytes(checkpoint_file())
    os.chmod(path, mode)
    assert fix_file(str(path), SETTINGS).changed
    assert stat.S_IMODE(os.stat(path).st_mode) == mode
    assert FIXED_CALL in path.read_bytes()


def test_no_temporary_file_is_left_behind(tmp_path: Path):
    path = tmp_path / "train.py"
    path.write_bytes(checkpoint_file())
    fix_file(str(path), SETTINGS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_read_only_file_is_reported_and_left_alone(tmp_path: Path):
    original = checkpoint_file()
    path = tmp_path / "train.py"
    path.write_bytes(original)
    os.chmod(path, 0o444)
    outcome = fix_file(str(path), SETTINGS)
    assert path.read_bytes() == original
    assert [p.message for p in outcome.problems] == ["not written: file is read-only"]
    assert not outcome.changed and outcome.applied == []
    assert [(v.code, v.line) for v in outcome.remaining.violations] == [("MSP103", 6)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_file_changed_on_disk_after_reading_is_left_alone(tmp_path: Path, monkeypatch):
    path = tmp_path / "train.py"
    path.write_bytes(checkpoint_file())
    edited_by_user = checkpoint_file() + b"# an editor saved this meanwhile\n"
    real_fix_source = fixer.fix_source

    def fix_while_user_saves(*args, **kwargs):
        outcome = real_fix_source(*args, **kwargs)
        path.write_bytes(edited_by_user)
        return outcome

    monkeypatch.setattr(fixer, "fix_source", fix_while_user_saves)
    outcome = fix_file(str(path), SETTINGS)
    assert path.read_bytes() == edited_by_user
    assert [p.message for p in outcome.problems] == ["not written: file changed on disk since it was read"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_symlink_is_followed_and_kept(tmp_path: Path):
    real = tmp_path / "real.py"
    real.write_bytes(checkpoint_file())
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert fix_file(str(link), SETTINGS).changed
    assert link.is_symlink()
    assert FIXED_CALL in real.read_bytes()


def test_hard_linked_file_is_left_alone(tmp_path: Path):
    original = checkpoint_file()
    path = tmp_path / "train.py"
    path.write_bytes(original)
    os.link(path, tmp_path / "other.py")
    outcome = fix_file(str(path), SETTINGS)
    assert path.read_bytes() == original == (tmp_path / "other.py").read_bytes()
    assert [p.message for p in outcome.problems] == ["not written: file has 2 hard links; replacing it would split them"]


def test_diff_mode_writes_nothing(tmp_path: Path):
    original = checkpoint_file()
    path = tmp_path / "train.py"
    path.write_bytes(original)
    outcome = fix_file(str(path), SETTINGS, write=False)
    assert outcome.changed and path.read_bytes() == original
    assert unified_diff(outcome) == (
        f"--- {path}\n+++ {path}\n@@ -3,4 +3,4 @@\n"
        " def build(steps):  # trailing comment   \n"
        "     if steps:\n"
        "         # keep me\n"
        "-        return CheckpointConfig(save_checkpoint_steps=10)\n"
        "+        return CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n"
    )


def test_diff_marks_a_last_line_without_newline():
    source = b"from mindspore.train import CheckpointConfig\nc = " + CALL
    outcome = fix_source(source, "t.py", SETTINGS)
    assert unified_diff(outcome).endswith(
        "-c = CheckpointConfig(save_checkpoint_steps=10)\n\\ No newline at end of file\n"
        "+c = CheckpointConfig(save_checkpoint_steps=10, async_save=True)\n\\ No newline at end of file\n"
    )


class EuroSign(Rule):
    """A fix whose replacement the file's encoding (latin-1) cannot hold."""

    code = "MSP907"
    markers = ("price",)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "price":
            self.report(node, "price", Fix(node, lambda n: cst.parse_expression("'\u20ac'"), FixSafety.SAFE, "euro"))


def test_fix_the_encoding_cannot_hold_is_not_written():
    source = b"# -*- coding: latin-1 -*-\nimport mindspore\nx = price  # caf\xe9\n"
    outcome = fix_source(source, "t.py", SETTINGS, rules=[EuroSign])
    assert outcome.fixed_bytes is None and outcome.applied == []
    assert len(outcome.problems) == 1 and "cannot be encoded as iso-8859-1" in outcome.problems[0].message


def test_write_atomic_refuses_a_folder_or_missing_file(tmp_path: Path):
    with pytest.raises(WriteRefused, match="not a regular file"):
        write_atomic(str(tmp_path), b"x", expected=b"")
    with pytest.raises(WriteRefused, match="cannot read file status"):
        write_atomic(str(tmp_path / "missing.py"), b"x", expected=b"")


def test_fix_file_reports_a_folder_or_missing_file_as_a_read_error(tmp_path: Path):
    for path in (tmp_path, tmp_path / "missing.py"):
        outcome = fix_file(str(path), SETTINGS)
        assert outcome.remaining.error is not None and outcome.remaining.error.kind == "ReadError"
        assert not outcome.changed
