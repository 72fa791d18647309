"""The project cache stays bounded: entries no run has used for a month are pruned, at most once a day."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ms_perflint.project.index import CACHE_MAX_AGE, ProjectIndex, prune_cache

PROGRAM = "import mindspore as ms\nms.set_context(device_target='Ascend')\n"


def build(root: Path, cache: Path) -> ProjectIndex:
    return ProjectIndex(str(root), str(cache)).refresh()


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def stored(cache: Path) -> set:
    return {p.relative_to(cache).as_posix() for p in (cache / "facts").rglob("*.json")}


def test_facts_of_an_old_version_of_a_file_are_pruned_and_current_ones_kept(tmp_path: Path):
    root, cache = tmp_path / "project", tmp_path / "cache"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM)
    build(root, cache)
    first = stored(cache)
    (root / "train.py").write_text(PROGRAM + "x = 1\n")
    build(root, cache)
    second = stored(cache) - first
    assert len(first) == 1 and len(second) == 1  # the edit stored new facts beside the old ones
    for path in (cache / "facts").rglob("*.json"):
        age(path, CACHE_MAX_AGE + 3600)  # a month and more: the current entry too, written long ago
    (cache / "last-pruned").unlink()
    deleted = prune_cache(str(cache))
    assert deleted == 1 and stored(cache) == second  # still named by the manifest: kept however old


def test_a_manifest_no_run_has_used_for_a_month_goes_with_its_facts(tmp_path: Path):
    root, cache = tmp_path / "gone", tmp_path / "cache"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM)
    build(root, cache)
    for path in cache.rglob("*.json"):
        age(path, CACHE_MAX_AGE + 3600)
    (cache / "last-pruned").unlink()
    assert prune_cache(str(cache)) >= 2
    assert not list(cache.glob("project-*.json")) and stored(cache) == set()


def test_pruning_runs_at_most_once_a_day(tmp_path: Path):
    root, cache = tmp_path / "project", tmp_path / "cache"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM)
    build(root, cache)  # prunes (nothing to delete) and stamps the folder
    for path in cache.rglob("*.json"):
        age(path, CACHE_MAX_AGE + 3600)
    assert prune_cache(str(cache)) == 0  # stamped less than a day ago
    assert prune_cache(str(cache), now=time.time() + 2 * 24 * 3600) > 0


def test_a_run_on_an_unchanged_project_marks_its_manifest_used(tmp_path: Path):
    root, cache = tmp_path / "project", tmp_path / "cache"
    root.mkdir()
    (root / "train.py").write_text(PROGRAM)
    build(root, cache)
    manifest = next(cache.glob("project-*.json"))
    age(manifest, 10 * 24 * 3600)
    build(root, cache)  # nothing changed: the manifest is not rewritten, but it is marked as used
    assert time.time() - manifest.stat().st_mtime < 3600
