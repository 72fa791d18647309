"""Analysing many files at once: worker processes that cannot take the run down with them.

:class:`Extractor` is what a project index calls with the files it must (re)analyse.
Few files are analysed in this process; many are spread over forked workers (one per
:data:`FILES_PER_WORKER` files, at most one per core). :func:`spread` runs any
:class:`Work` that way (the session checks files that are each a project of their own
with it, analysis and decisions alike). Workers die with the parent
(``PR_SET_PDEATHSIG`` on Linux) and never outlive a run. A file that kills its
worker (a crash in the native parser, the memory killer) does not end the run: the
files the workers had started are analysed again, each in a process of its own, so
the one that crashes is named in its own error; the files not started yet go to a
fresh pool, and every other file gets its facts.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ms_perflint.findings import FileError

#: Files per worker below which another worker is not worth its start-up.
FILES_PER_WORKER = 8
#: How long one file may take in an isolated process before it is given up on (seconds).
ISOLATED_TIMEOUT = 300

Job = Tuple[str, str, str]


def available_cores() -> int:
    """Cores this process may run on (respects CPU affinity, as in containers and CI)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def auto_jobs(file_count: int) -> int:
    """``--jobs`` auto: one worker per :data:`FILES_PER_WORKER` files, at most one per core, at least one."""
    return max(1, min(available_cores(), file_count // FILES_PER_WORKER))


class Work:
    """What a pool's workers do with each job. Picklable: spawned workers (where ``fork`` is not used) get a copy."""

    def run(self, job):
        """The result of one job (in a worker, or in a process of its own after a crash); never None, which
        stands for a job not finished."""
        raise NotImplementedError

    def crashed(self, job, why: str):
        """The result of a job whose process died (``why``: killed by which signal, or the exit code)."""
        raise NotImplementedError

    def path(self, job) -> str:
        """The file a job reads."""
        raise NotImplementedError

    def weight(self, job) -> int:
        """How long a job may take, roughly: the heaviest go first (default: the size of its file)."""
        return _size(self.path(job))


class _Extract(Work):
    """Analyse an index job ``(relative, path, kind)`` into its record, packed (:meth:`IndexedFile.pack`): the
    parent holds every file's facts as bytes and never builds their objects, which the workers that decide parts
    do for their own files."""

    def __init__(self, max_size: Optional[int], storing: bool) -> None:
        self.max_size = max_size
        self.storing = storing

    def run(self, job: Job):
        from ms_perflint.project.index import extract_record

        relative, path, kind = job
        return extract_record(relative, path, kind, self.max_size).pack(relative, self.storing)

    def crashed(self, job: Job, why: str):
        from ms_perflint.project.index import IndexedFile

        return IndexedFile(job[2], _size(job[1]), 0, f"crash:{job[0]}", error=crash_error(why))

    def path(self, job: Job) -> str:
        return job[1]


def crash_error(why: str) -> FileError:
    """The error of a file whose analysis killed its process."""
    return FileError("Crash", f"analysing this file crashed its worker process ({why}); the file was skipped")


class Extractor:
    """Analyse index jobs ``(relative, path, kind)`` into records, in the jobs' order."""

    def __init__(self, jobs: int = 0, max_size: Optional[int] = None,
                 progress: Optional[Callable[[int, int], None]] = None, overlay: Optional[Dict[str, bytes]] = None,
                 storing: bool = False) -> None:
        self.jobs = jobs
        self.max_size = max_size
        self.progress = progress
        self.overlay = overlay or {}
        #: Whether the index stores the facts: workers then make their stored text too.
        self.storing = storing

    def __call__(self, jobs: Sequence[Job]) -> list:
        from ms_perflint.project.index import extract_record

        workers = min(len(jobs), self.jobs if self.jobs else auto_jobs(len(jobs)))
        if workers <= 1 or len(jobs) < 2:
            records = []
            for done, (relative, path, kind) in enumerate(jobs, start=1):
                records.append(extract_record(relative, path, kind, self.max_size, self.overlay.get(os.path.abspath(path))))
                if self.progress is not None:
                    self.progress(done, len(jobs))
            return records
        return self._in_pool(jobs, workers)

    def _in_pool(self, jobs: Sequence[Job], workers: int) -> list:
        return spread(jobs, workers, _Extract(self.max_size, self.storing), self.progress)


def spread(jobs: Sequence[object], workers: int, work: Work,
           progress: Optional[Callable[[int, int], None]] = None) -> list:
    """``work.run(job)`` for every job, in ``workers`` forked processes; the results in the jobs' order.

    A job whose process dies gets ``work.crashed(job, why)``; every other job its result.
    """
    results: List[object] = [None] * len(jobs)
    # Heaviest jobs first, so no worker is left with a big one at the end; order is restored by index.
    pending = sorted(range(len(jobs)), key=lambda i: -work.weight(jobs[i]))
    done = [0]

    def report() -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], len(jobs))

    while pending:
        suspects, pending = _pool_round(jobs, pending, workers, results, work, report)
        if suspects:
            _warm_up()  # each isolated process is forked from this one: import the parser once, here
        for index in suspects:
            results[index] = _isolated(jobs[index], work)
            report()
    return results


def _pool_round(jobs: Sequence[object], indexes: List[int], workers: int, results: List[object], work: Work,
                report: Callable[[], None]) -> Tuple[List[int], List[int]]:
    """Run ``indexes`` in a pool; when a worker dies: (jobs it may have died on, jobs never started).

    Workers flag each job as they start it, so after a crash only the jobs that were
    started and not finished (at most one per worker) are suspects; the rest go to a
    fresh pool. Without any such flag every unfinished job is a suspect.
    """
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    context = _context()
    started = context.Array("b", len(jobs), lock=False)
    executor = ProcessPoolExecutor(max_workers=min(workers, len(indexes)), mp_context=context,
                                   initializer=_start_worker, initargs=(work, os.getpid(), started))
    broken = False
    finished = False
    try:
        futures = {}
        try:
            for index in indexes:
                futures[executor.submit(_work, index, jobs[index])] = index
        except BrokenProcessPool:  # a worker died while the jobs were still being handed out
            broken = True
        for future in as_completed(futures):
            try:
                results[futures[future]] = future.result()
            except BrokenProcessPool:
                broken = True
                continue
            report()
        finished = True
    finally:
        _shutdown(executor, kill=not finished)
    unfinished = [index for index in indexes if results[index] is None]
    if not broken or not unfinished:
        return [], []
    suspects = [index for index in unfinished if started[index]]
    if not suspects:
        return unfinished, []
    return suspects, [index for index in unfinished if not started[index]]


def _warm_up() -> None:
    from ms_perflint.analysis import analyse_python

    analyse_python("x = 1\n", "warm_up")


# --- the workers --------------------------------------------------------------------------------

_WORKER: Dict[str, object] = {}


def _start_worker(work: Work, parent: int, started) -> None:
    import gc

    gc.freeze()  # what the worker inherits is alive: a collection in it scans only what the worker made
    _become_worker(parent)
    _WORKER["work"] = work
    _WORKER["started"] = started


def _become_worker(parent: int) -> None:
    """A forked worker: dies with the parent, leaves interrupts to it, and ends at once when told to."""
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt means
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, inherited by the fork


def _work(index: int, job: object):
    _WORKER["started"][index] = 1  # type: ignore[index]
    return _WORKER["work"].run(job)  # type: ignore[attr-defined]


def _isolated(job: object, work: Work):
    """Run one job in a process of its own; a crash becomes that job's ``work.crashed`` result."""
    context = _context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_isolated_main, args=(job, work, sender, os.getpid()), daemon=True)
    process.start()
    sender.close()
    result = None
    if receiver.poll(ISOLATED_TIMEOUT):
        try:
            result = receiver.recv()
        except (EOFError, OSError):
            result = None
    process.join(1)
    if process.is_alive():
        process.kill()
        process.join()
    if result is None:
        code = process.exitcode
        return work.crashed(job, f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}")
    return result


def _isolated_main(job: object, work: Work, sender, parent: int) -> None:
    _become_worker(parent)
    sender.send(work.run(job))
    sender.close()


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when its parent (pid ``parent``) dies (Linux); elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before the call (we were adopted, not always by pid 1)
            os._exit(1)
    except (OSError, AttributeError):
        pass


#: Set when a pool was abandoned (killed on an interrupt or an error): its manager thread may never end.
ABANDONED: List[object] = []


def _shutdown(executor, kill: bool) -> None:
    """Stop the pool; with ``kill`` (an interrupt, an error) at once: the workers are killed, not waited for.

    An interrupt can land while the main thread holds some of the futures' locks (``as_completed`` takes
    them all): the pool's manager thread can then never finish, so a killed pool is not waited for, and the
    CLI ends an interrupted run without joining it (:func:`abandoned`).
    """
    if kill:
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            if process.is_alive():
                process.kill()
        ABANDONED.append(executor)
        executor.shutdown(wait=False, cancel_futures=True)
        return
    executor.shutdown(wait=True, cancel_futures=True)


def abandoned() -> bool:
    """A pool of this process was killed: exiting normally would join its manager thread, which may hang."""
    return bool(ABANDONED)


def _context():
    """fork where it is safe (Linux): workers inherit the loaded package; spawn elsewhere."""
    import multiprocessing

    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
