"""Writing a fixed file back without losing a byte the fixer did not mean to change.

The new content goes to a temporary file in the same folder, is flushed and
fsynced, gets the original file's mode, and then atomically replaces the
original with :func:`os.replace`. The original is left alone -- and the caller
told why -- when it is read-only, is not a regular file, has other hard links
(replacing it would split them), or changed on disk since it was read.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile

from ms_perflint.findings import SourceText


class WriteRefused(Exception):
    """The file was not written; the message says why, in words for the user."""


def encode_source(text: str, source: SourceText) -> bytes:
    """``text`` as bytes in the original file's encoding, with its BOM if it had one.

    Raises UnicodeEncodeError when the text holds a character the encoding cannot hold.
    """
    data = text.encode(source.encoding)
    return codecs.BOM_UTF8 + data if source.bom else data


def write_atomic(path: str, data: bytes, expected: bytes) -> None:
    """Replace the content of ``path`` with ``data`` if it still holds exactly ``expected``.

    A symlink is followed: the file it points to is replaced and the link stays.
    Raises :class:`WriteRefused` when the file is left alone.
    """
    target = os.path.realpath(path)
    try:
        status = os.stat(target)
    except OSError as error:
        raise WriteRefused(f"cannot read file status: {error.strerror or error}") from None
    _check_replaceable(status)
    folder = os.path.dirname(target) or "."
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    except OSError as error:
        raise WriteRefused(f"cannot create a file in {folder}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        _copy_owner(temporary, status)
        if _read(target) != expected:
            raise WriteRefused("file changed on disk since it was read")
        os.replace(temporary, target)
    except OSError as error:
        raise WriteRefused(f"cannot write file: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    _fsync_folder(folder)


def _check_replaceable(status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise WriteRefused("not a regular file")
    # Mode bits, not os.access: as root, os.access calls every file writable.
    if not status.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteRefused("file is read-only")
    if status.st_nlink > 1:
        raise WriteRefused(f"file has {status.st_nlink} hard links; replacing it would split them")


def _read(path: str) -> bytes:
    with open(path, "rb") as stream:
        return stream.read()


def _copy_owner(path: str, status: os.stat_result) -> None:
    """Give the new file the original's owner where we may (root fixing a user's file)."""
    if not hasattr(os, "chown"):
        return
    new = os.stat(path)
    if (new.st_uid, new.st_gid) != (status.st_uid, status.st_gid):
        with contextlib.suppress(OSError):
            os.chown(path, status.st_uid, status.st_gid)


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (best effort: not every platform can open a folder)."""
    with contextlib.suppress(OSError, AttributeError):
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
