"""Linting many files: cached results first, then the rest serially or in a process pool.

:func:`lint_paths` is what the CLI calls. Every result it returns is *detached*:
plain findings rebuilt from a record (:func:`~ms_perflint.cache.result_to_record`),
whether it came from the cache, from this process or from a worker. So the
three paths print byte-identical output, and no tree outlives the file it came
from. The fixer needs live fixes and therefore lints for itself.

The pool is used only when it pays: by default one worker per 8 files to lint
(so a pre-commit run on a few files stays in-process and never starts a pool),
at most one per available core. Workers receive paths, read and lint the files
themselves, write their cache entries, and send back records; results are put
back in the order of ``paths``, so output never depends on scheduling.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from ms_perflint.cache import ResultCache, result_from_record, result_to_record
from ms_perflint.results import FileError, FileResult, read_bytes
from ms_perflint.settings import Settings

#: Files per worker below which another worker is not worth its start-up.
FILES_PER_WORKER = 8


class WorkerDied(RuntimeError):
    """A worker process ended abruptly (killed, out of memory); the run cannot be completed."""


def available_cores() -> int:
    """Cores this process may run on (respects CPU affinity, as in containers and CI)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def auto_jobs(file_count: int) -> int:
    """``--jobs`` auto: one worker per :data:`FILES_PER_WORKER` files, at most one per core, at least one."""
    return max(1, min(available_cores(), file_count // FILES_PER_WORKER))


def lint_paths(
    paths: Sequence[str],
    settings: Settings,
    jobs: Optional[int] = None,
    cache: Optional[ResultCache] = None,
) -> List[FileResult]:
    """Lint ``paths``; results come back in the same order. ``jobs`` None or 0 means auto."""
    results: List[Optional[FileResult]] = [None] * len(paths)
    pending: List[int] = []
    for index, path in enumerate(paths):
        restored = _from_cache(path, cache) if cache is not None else None
        if restored is None:
            pending.append(index)
        else:
            results[index] = restored
    if pending:
        workers = min(len(pending), jobs if jobs else auto_jobs(len(pending)))
        todo = [paths[index] for index in pending]
        records = _lint_in_pool(todo, settings, cache, workers) if workers > 1 else _lint_here(todo, settings, cache)
        for index, record in zip(pending, records):
            results[index] = result_from_record(paths[index], record)
    return results  # type: ignore[return-value] -- every slot is filled above


def _from_cache(path: str, cache: ResultCache) -> Optional[FileResult]:
    data = read_bytes(path)
    if isinstance(data, FileError):
        return None  # linting reports the read error (and never caches it)
    return cache.get(cache.key(path, data), path)


def lint_one(path: str, settings: Settings, cache: Optional[ResultCache]) -> Dict[str, Any]:
    """Read and lint one file, store the result in ``cache``, and return its record."""
    from ms_perflint.engine import lint_data

    data = read_bytes(path)
    if isinstance(data, FileError):
        return result_to_record(FileResult(path, error=data))
    result = lint_data(data, path, settings)
    if cache is not None:
        cache.put(cache.key(path, data), result)
    return result_to_record(result)


def _lint_here(paths: Sequence[str], settings: Settings, cache: Optional[ResultCache]) -> List[Dict[str, Any]]:
    return [lint_one(path, settings, cache) for path in paths]


# --- the pool --------------------------------------------------------------------------

#: Set in each worker by :func:`_start_worker`: the run's settings and cache.
_WORKER: Dict[str, Any] = {}


def _start_worker(settings: Settings, cache_folder: Optional[str]) -> None:
    _WORKER["settings"] = settings
    _WORKER["cache"] = ResultCache(cache_folder, settings) if cache_folder is not None else None


def _work(path: str) -> Dict[str, Any]:
    return lint_one(path, _WORKER["settings"], _WORKER["cache"])


def _lint_in_pool(
    paths: Sequence[str], settings: Settings, cache: Optional[ResultCache], workers: int
) -> List[Dict[str, Any]]:
    from concurrent.futures import ProcessPoolExecutor  # imported here: a cached run starts no pool
    from concurrent.futures.process import BrokenProcessPool

    _preload_engine(settings)
    _preload_projects(paths, settings)
    # Largest files first, so no worker is left with a big file at the end; order is restored below.
    order = sorted(range(len(paths)), key=lambda index: -_size(paths[index]))
    chunk = max(1, min(16, len(paths) // (workers * 16)))
    executor = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=_context(),
        initializer=_start_worker,
        initargs=(settings, cache.folder if cache is not None else None),
    )
    records: List[Optional[Dict[str, Any]]] = [None] * len(paths)
    try:
        for index, record in zip(order, executor.map(_work, [paths[index] for index in order], chunksize=chunk)):
            records[index] = record
    except BrokenProcessPool as error:
        raise WorkerDied(f"a worker process died ({error}); try --jobs 1") from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return records  # type: ignore[return-value]


def _preload_engine(settings: Settings) -> None:
    """Import the engine and the rules before forking, so workers do not each pay for it."""
    from ms_perflint.engine import enabled_rules

    enabled_rules(settings)


def _preload_projects(paths: Sequence[str], settings: Settings) -> None:
    """Load (or build) the index of every project the files belong to before forking.

    Forked workers inherit it: the project is read once per run instead of once per
    worker (with ``--no-cache`` the index lives in memory only, so each worker would
    otherwise build it again).
    """
    if not settings.project:
        return
    from ms_perflint.project import root_for

    folders = {os.path.dirname(os.path.abspath(path)) for path in paths}
    roots = {root_for(folder, settings) for folder in folders} - {None}
    if roots:
        from ms_perflint.project.view import analysis_for

        for root in sorted(roots):  # type: ignore[type-var]
            analysis_for(root, persist=settings.project_cache)


def _context() -> Any:
    """fork where it is safe (Linux): workers inherit the loaded engine; spawn elsewhere."""
    import multiprocessing

    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0

