#!/usr/bin/env python3
"""Benchmark ms-perflint on a real corpus and write docs/performance.md.

Not a test: it downloads ~800 MB once, builds four throwaway virtual environments
and takes tens of minutes. Everything it fetches or builds lives in
``bench/.corpus/`` (gitignored); a second run reuses it.

    python bench/run.py                  # everything, 3 repetitions, writes docs/performance.md
    python bench/run.py --repeat 1 --no-write --skip-fixit   # a quicker look
    python bench/run.py --repeat 1 --no-write --no-baseline --only edit,jobs,memory   # some sections only
    python bench/run.py --repeat 3 --no-write --no-baseline --only zoo --zoo ~/models/official   # a model zoo

The corpus: the ``.py`` files of the ``mindspore==2.10.0`` (CPU), ``mindcv==0.3.0``
and ``mindformers==2.1.0`` wheels from PyPI (``pip download --no-deps``), plus the
repository's ``examples/``. If the MindSpore wheel cannot be downloaded,
``--mindspore-from DIR`` takes the sources of an installed copy instead (the report
says so). Every number is a ratio measured in the same run on the same files, the
median of ``--repeat`` runs of a real process, so that a busy machine slows both
sides of a ratio alike; CPU seconds are reported next to wall seconds for that reason.

The model-zoo rows (``--zoo DIR``, section ``zoo``): a copy of a model zoo (a checkout of
mindspore-ai/models' ``official/`` folder: many models, each a few programs, sharing module
names) made into one project, where ``-j`` scaling, peak memory and the edit latency of one
edited file are measured. The zoo is not on PyPI, so the section is skipped without ``--zoo``.

The baseline: ``--baseline REV`` (default :data:`PREVIOUS_COMMIT`, the last commit before
the package was rewritten into layers) is exported with ``git archive`` into
``<corpus>/baseline-SHA/`` and installed, not editable, with the same flake8 into
``<corpus>/venvs/baseline-SHA``. Its CLI runs the full runs of (a), the cached re-run of
(b), the start-up rows of (d) and the ``-j2``/``-j1`` runs of (e) in the same run,
alternating with this checkout's, and the report ends with the figures of both, each marked
no worse or worse. ``--no-baseline`` skips it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO / "bench" / ".corpus"
#: Wheels the corpus is made of (pinned, so that the corpus is the same every time).
WHEELS = ("mindspore==2.10.0", "mindcv==0.3.0", "mindformers==2.1.0")
#: TorchFix's published cost on its own benchmark (DESIGN.md), microseconds per source line.
TORCHFIX_US_PER_LINE = 888.0
#: A small, clean MindSpore file: what a pre-commit hook typically hands over.
SMALL_FILE = '''\
import mindspore as ms
from mindspore import nn
from mindspore.train import CheckpointConfig, ModelCheckpoint


class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(2048, 1001).to_float(ms.float16)

    def construct(self, x):
        return self.fc(x)


config = CheckpointConfig(save_checkpoint_steps=100, async_save=True)
callback = ModelCheckpoint(prefix="head", config=config)
'''


# --- processes ------------------------------------------------------------------------------------


@dataclass
class Sample:
    """One measured process: wall seconds, CPU seconds of it and its children, peak RSS (MiB) of the largest one."""

    wall: float
    cpu: float
    max_rss_mib: float
    returncode: int


@dataclass
class Measure:
    """The median of several samples of the same command."""

    label: str
    samples: List[Sample] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(sample.wall for sample in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(sample.cpu for sample in self.samples)

    @property
    def max_rss_mib(self) -> float:
        return max(sample.max_rss_mib for sample in self.samples)

    def line(self) -> str:
        """The progress line printed once the command has been measured."""
        return f"  {self.label:<58} wall {self.wall:8.2f} s   cpu {self.cpu:8.2f} s   rss {self.max_rss_mib:7.1f} MiB"


#: Where measured processes run. Not this checkout: ``python -m`` puts the working folder first on
#: sys.path, so the checkout's sources would be imported instead of the installed package (and,
#: with PYTHONDONTWRITEBYTECODE set, compiled again by every process).
NEUTRAL_CWD = Path(tempfile.gettempdir())


def run_once(command: Sequence[str], cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
             ok: Sequence[int] = (0, 1)) -> Sample:
    """Run ``command`` to completion with output discarded; time it and read its rusage (os.wait4).

    An exit code outside ``ok`` is a failure (a linter's "findings" codes are not).
    """
    start = time.perf_counter()
    process = subprocess.Popen(
        list(command), cwd=cwd or NEUTRAL_CWD, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    stderr_file = process.stderr
    assert stderr_file is not None
    stderr = stderr_file.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok:
        raise RuntimeError(f"{' '.join(command[:6])} ... exited {process.returncode}: {stderr.decode(errors='replace')[-2000:]}")
    # ru_maxrss (KiB on Linux) of a waited child covers the largest of it and its own waited children.
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode)


def measure_command(
    label: str, command: Sequence[str], repeat: int, warmup: bool = False, before: Optional[Callable[[], None]] = None,
    cwd: Optional[Path] = None, ok: Sequence[int] = (0, 1),
) -> Measure:
    """Median of ``repeat`` runs (after one unmeasured run, with ``warmup``); ``before`` runs, untimed, before each."""
    if warmup:
        if before is not None:
            before()
        run_once(command, cwd=cwd, ok=ok)
    result = Measure(label)
    for _ in range(repeat):
        if before is not None:
            before()
        result.samples.append(run_once(command, cwd=cwd, ok=ok))
    print(result.line(), flush=True)
    return result


def measure_alternating(commands: Sequence[Tuple[str, Sequence[str]]], repeat: int,
                        before: Optional[Callable[[], None]] = None) -> List[Measure]:
    """``repeat`` rounds of running each command once, in turn: a drift in the machine's speed hits all alike.

    ``before`` runs, untimed, before each run of each command.
    """
    results = [Measure(label) for label, _ in commands]
    for _ in range(repeat):
        for result, (_, command) in zip(results, commands):
            if before is not None:
                before()
            result.samples.append(command.sample() if isinstance(command, Together) else run_once(command))
    for result in results:
        print(result.line(), flush=True)
    return results


@dataclass
class Together:
    """Copies of one command started at once, measured as one sample: the wall until the last ends, the CPU
    seconds of one copy (their mean). Two ``-j1`` runs at once against one alone show what two busy cores give
    this machine, whatever the code: where they share caches, memory or a host, each runs slower."""

    command: Sequence[str]
    copies: int = 2

    def sample(self) -> Sample:
        start = time.perf_counter()
        processes = [subprocess.Popen(list(self.command), cwd=NEUTRAL_CWD, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL) for _ in range(self.copies)]
        usages = [os.wait4(process.pid, 0)[2] for process in processes]
        return Sample(time.perf_counter() - start, statistics.mean(u.ru_utime + u.ru_stime for u in usages),
                      max(u.ru_maxrss for u in usages) / 1024, 0)


def run_checked(command: Sequence[str], **kwargs) -> str:
    kwargs.setdefault("cwd", NEUTRAL_CWD)
    completed = subprocess.run(list(command), capture_output=True, text=True, **kwargs)
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}")
    return completed.stdout


# --- corpus -----------------------------------------------------------------------------------------


def download_wheels(folder: Path) -> List[Path]:
    """``pip download --no-deps`` each pinned wheel once; returns the wheel files."""
    folder.mkdir(parents=True, exist_ok=True)
    wheels = []
    for requirement in WHEELS:
        name, version = requirement.split("==")
        found = sorted(folder.glob(f"{name}-{version}-*.whl"))
        if not found:
            print(f"downloading {requirement} ...", flush=True)
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", requirement, "-d", str(folder)],
                check=False,
            )
            found = sorted(folder.glob(f"{name}-{version}-*.whl"))
        if found:
            wheels.append(found[0])
    return wheels


def unpack(wheel: Path, target: Path) -> None:
    """Extract the wheel's .py files (only) into ``target``."""
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.endswith(".py") and ".dist-info/" not in member and ".data/" not in member:
                archive.extract(member, target)


def build_corpus(corpus: Path, mindspore_from: Optional[Path]) -> Dict[str, str]:
    """Fill ``corpus/src`` once; returns where each part came from."""
    source = corpus / "src"
    origins: Dict[str, str] = {}
    marker = source / ".complete.json"
    if marker.exists():
        _mark_as_project(source)
        return json.loads(marker.read_text())
    if source.exists():
        shutil.rmtree(source)
    wheels = download_wheels(corpus / "wheels")
    for wheel in wheels:
        name = wheel.name.split("-")[0]
        unpack(wheel, source / name)
        origins[name] = f"PyPI wheel {wheel.name}"
    if "mindspore" not in origins:
        if mindspore_from is None:
            raise SystemExit("the mindspore wheel could not be downloaded; pass --mindspore-from SITE_PACKAGES/mindspore")
        shutil.copytree(mindspore_from, source / "mindspore" / "mindspore", ignore=_only_python)
        origins["mindspore"] = f"installed copy at {mindspore_from} (fallback: the wheel could not be downloaded)"
    if (REPO / "examples").is_dir():
        shutil.copytree(REPO / "examples", source / "examples", ignore=_only_python)
        origins["examples"] = "this repository's examples/"
    marker.write_text(json.dumps(origins, indent=1))
    _mark_as_project(source)
    return origins


def _mark_as_project(source: Path) -> None:
    """The corpus is one project, as a model zoo is: project mode indexes all of it."""
    (source / "pyproject.toml").write_text("[project]\nname = 'ms-perflint-bench-corpus'\n")


def _only_python(folder: str, names: List[str]) -> List[str]:
    return [name for name in names if not (name.endswith(".py") or os.path.isdir(os.path.join(folder, name)))]


def corpus_files(corpus: Path) -> List[Path]:
    return sorted(path for path in (corpus / "src").rglob("*.py") if path.is_file())


def subset(files: Sequence[Path], fraction: float) -> List[Path]:
    """A deterministic sample (ranked by a hash of the path), so 25% is part of 50% is part of 100%."""
    if fraction >= 1:
        return list(files)
    ranked = sorted(files, key=lambda path: hashlib.sha256(str(path).encode()).hexdigest())
    return sorted(ranked[: max(1, round(fraction * len(ranked)))])


def count_lines(files: Sequence[Path]) -> int:
    return sum(path.read_bytes().count(b"\n") for path in files)


# --- tool environments ---------------------------------------------------------------------------------


def make_venv(folder: Path, packages: Sequence[str], refresh: Sequence[str] = ()) -> Path:
    """A virtual environment with ``packages``; ``refresh`` is reinstalled every time (this checkout)."""
    python = folder / "bin" / "python"
    if not python.exists():
        print(f"creating {folder.name} venv ...", flush=True)
        run_checked([sys.executable, "-m", "venv", str(folder)])
        run_checked([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        if packages:
            run_checked([str(python), "-m", "pip", "install", "-q", *packages])
        if refresh:
            run_checked([str(python), "-m", "pip", "install", "-q", *refresh])  # with their dependencies, once
    if refresh:  # this checkout as it is now (delete the venv if its dependencies changed)
        run_checked([str(python), "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps", *refresh])
    return python


def baseline_venv(corpus: Path, revision: str) -> Tuple[Path, str]:
    """This repository at ``revision``, installed (not editable) with this flake8; returns its python and short sha.

    ``git archive`` exports it once into ``corpus/baseline-SHA``; the venv is ``corpus/venvs/baseline-SHA``.
    """
    short = run_checked(["git", "-C", str(REPO), "rev-parse", "--short", f"{revision}^{{commit}}"]).strip()
    source = corpus / f"baseline-{short}"
    if not source.is_dir():
        print(f"exporting {revision} ({short}) ...", flush=True)
        partial = Path(tempfile.mkdtemp(prefix=f"baseline-{short}-", dir=corpus))
        try:
            archive = partial / "export.tar"
            run_checked(["git", "-C", str(REPO), "archive", "--format=tar", "-o", str(archive), short])
            with tarfile.open(archive) as exported:
                exported.extractall(partial / "tree", **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
            (partial / "tree").rename(source)  # complete, or absent
        finally:
            shutil.rmtree(partial, ignore_errors=True)
    python = make_venv(corpus / "venvs" / f"baseline-{short}", ["flake8==" + _dev_flake8(), str(source)])
    return python, short


def versions(python: Path) -> Dict[str, str]:
    code = (
        "import importlib.metadata as m, platform, json\n"
        "out = {'python': platform.python_version()}\n"
        "for name in ('libcst', 'flake8', 'fixit', 'ms-perflint'):\n"
        "    try: out[name] = m.version(name)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))\n"
    )
    return json.loads(run_checked([str(python), "-c", code]))


# --- the measurements ------------------------------------------------------------------------------------

#: The libcst parse floor: decode each file as ms-perflint does (``sources.decode_python``), then
#: ``libcst.parse_module`` it. Since the rewrite there is no text prefilter: every Python file of a
#: project (or named with ``--no-project``) is parsed, so the floor of a run is the parse of all its files.
PARSE_SCRIPT = """\
import sys, libcst
from ms_perflint.sources import decode_python
for path in open(sys.argv[1]).read().splitlines():
    try:
        text = decode_python(open(path, 'rb').read()).text
        libcst.parse_module(text)
    except Exception:
        pass
"""

#: The project index alone: ``ProjectIndex(root, cache_folder).refresh()`` -- the libcst facts of every
#: file of the project (``-``: in memory, as ``--no-cache`` builds it, one process). Prints how many files
#: the refresh read and analysed, so that the benchmark can check a warm run only stats files.
INDEX_SCRIPT = """\
import json, sys
from ms_perflint.project.index import ProjectIndex
index = ProjectIndex(sys.argv[1], cache_folder=None if sys.argv[2] == "-" else sys.argv[2]).refresh()
print(json.dumps({"files": len(index.files), "read": index.read_count, "analysed": index.analysed_count}))
"""

#: The revision ``--baseline`` measures by default: the last benchmark run before the package was rewritten
#: into layers (then a text prefilter chose which files were parsed and the project index was an ``ast`` pass).
PREVIOUS_COMMIT = "532c8a1"


def write_list(folder: Path, name: str, files: Sequence[Path]) -> Path:
    target = folder / name
    target.write_text("\n".join(str(path) for path in files) + "\n")
    return target


def cli(python: Path, *args: str) -> List[str]:
    return [str(python), "-m", "ms_perflint", "--isolated", "--quiet", "--exit-zero", *args]


def copy_project(files: Sequence[Path], source_root: Path, target: Path) -> List[Path]:
    """Copy ``files`` (under ``source_root``) into a project of their own at ``target``; returns the copies."""
    copies = []
    for path in files:
        copy = target / path.relative_to(source_root)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
        copies.append(copy)
    _mark_as_project(target)
    return copies


@dataclass
class Report:
    """Everything docs/performance.md is written from."""

    machine: Dict[str, str]
    origins: Dict[str, str]
    tool_versions: Dict[str, str]
    counts: Dict[str, int]
    rows: List[tuple] = field(default_factory=list)  # (what, value, target, met)
    measures: List[Measure] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    #: This run's figures under the keys of :data:`COMPARED`, for this checkout and for the baseline.
    figures: Dict[str, float] = field(default_factory=dict)
    baseline: Dict[str, float] = field(default_factory=dict)
    #: The baseline revision as measured ("532c8a1"), or "" with --no-baseline.
    baseline_commit: str = ""
    command: str = ""
    commit: str = ""


#: The benchmark's sections, in the order they run (``--only`` picks some): (a) full runs against the parse floor,
#: (b) the cached re-run, (h) one edited file in the corpus project, (g) the project index alone, (c) flake8,
#: (d) start-up for one small file, (e) -j scaling, (m) peak memory, (f) Fixit.
SECTIONS = ("full", "cached", "edit", "index", "flake8", "startup", "jobs", "memory", "zoo", "fixit")


def _sections(text: str) -> Tuple[str, ...]:
    chosen = tuple(part.strip() for part in text.split(",") if part.strip())
    unknown = [part for part in chosen if part not in SECTIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"unknown section {', '.join(unknown) or '(none)'}: choose from {', '.join(SECTIONS)}")
    return tuple(section for section in SECTIONS if section in chosen)


#: The file (under the corpus's src/) the edit-latency row edits, and the line appended to it: a layer built at
#: module level, which changes the file's facts (a new call), in a file some program of the corpus reaches.
EDITED_FILE = "examples/src/model.py"
EDITED_LINE = "_edit_{n} = nn.Dense(1024, 1024)\n"


def benchmark(args: argparse.Namespace) -> Report:
    corpus: Path = args.corpus
    origins = build_corpus(corpus, args.mindspore_from)
    files = subset(corpus_files(corpus), args.fraction)
    for path in files:  # warm the page cache once, so that no measured run pays for the disk
        path.read_bytes()
    work = Path(tempfile.mkdtemp(prefix="bench-", dir=corpus))
    venvs = corpus / "venvs"
    plugin = make_venv(venvs / "with-plugin", ["flake8==" + _dev_flake8()], refresh=[str(REPO)])
    plain = make_venv(venvs / "without-plugin", ["flake8==" + _dev_flake8()])
    base, short = baseline_venv(corpus, args.baseline) if not args.no_baseline else (None, "")
    tool_versions = versions(plugin)
    everything = write_list(work, "all.txt", files)
    lines_all = count_lines(files)
    report = Report(
        machine=machine_info(),
        origins=origins,
        tool_versions=tool_versions,
        counts={"files": len(files), "lines": lines_all},
        command=" ".join(["python", "bench/run.py", *sys.argv[1:]]),
        commit=_commit(),
        baseline_commit=short,
    )
    if base is not None:
        base_versions = versions(base)
        if "ms-perflint" not in base_versions:
            raise SystemExit(f"ms-perflint is not installed in {base.parent.parent}: delete that venv and run again")
        tool_versions[f"baseline ({short})"] = f"ms-perflint {base_versions['ms-perflint']}, libcst {base_versions.get('libcst', '?')}"
    print(f"corpus: {len(files)} files, {lines_all} lines (every one is parsed: there is no prefilter)")
    paths = [str(path) for path in files]
    repeat = args.repeat
    figures, base_figures = report.figures, report.baseline

    def tag(label: str) -> str:
        """The label of the baseline's run of ``label``."""
        return f"baseline {short}: {label}"

    def measure(label: str, command: Sequence[str], repeat: int, warmup: bool = False, before=None, cwd=None,
                ok: Sequence[int] = (0, 1)) -> Measure:
        taken = measure_command(label, command, repeat, warmup, before, cwd, ok)
        report.measures.append(taken)
        return taken

    load_before = os.getloadavg()[0]
    loads = _sample_load()

    def alternate(commands: Sequence[Tuple[str, Sequence[str]]], rounds: Optional[int] = None,
                  before: Optional[Callable[[], None]] = None) -> List[Measure]:
        taken = measure_alternating(commands, rounds or repeat, before)
        report.measures.extend(taken)
        return taken

    wanted = set(args.only)
    full = engine = parse_all = project_two = None
    cache_dir = work / "cache"

    if wanted & {"full", "index", "memory"}:
        print("(a) full run vs libcst parse (alternating)")
        commands = [
            ("ms-perflint --no-cache -j1 (all files, project mode)", cli(plugin, "--no-cache", "-j", "1", *paths)),
            ("ms-perflint --no-cache --no-project -j1 (all files)", cli(plugin, "--no-cache", "--no-project", "-j", "1", *paths)),
            ("libcst parse, all files", [str(plugin), "-c", PARSE_SCRIPT, str(everything)]),
        ]
        if base is not None:
            commands += [
                (tag("--no-cache -j1 (all files, project mode)"), cli(base, "--no-cache", "-j", "1", *paths)),
                (tag("--no-cache --no-project -j1 (all files)"), cli(base, "--no-cache", "--no-project", "-j", "1", *paths)),
            ]
        full, engine, parse_all, *base_runs = alternate(commands)
        figures.update(_full_run_figures(full, engine, parse_all, lines_all))
        if base_runs:
            base_figures.update(_full_run_figures(*base_runs, parse_all, lines_all))
        report.notes.append(
            "The corpus is one project (a pyproject.toml at its top), so the default run is in project mode: every file "
            "of the project gets one libcst pass that records its facts (the project index), then the rules decide for "
            "the whole project. '--no-project' checks each file as a project of its own. There is no text prefilter any "
            "more: both modes parse every Python file, so the libcst parse of all files is the floor of both (the code "
            "before the rewrite still had a text prefilter and parsed fewer files; the baseline's runs are set against "
            "the same floor, so the comparison is of the whole cost). Rows measured alternating ran their commands in "
            "turn, round by round, so that a drift in the machine's speed hits all of them alike."
        )
        report.rows.append(("project mode: full run (-j1, --no-cache: the index built in memory) / libcst parse of all files "
                            "(every file is parsed)", _ratio(full, parse_all), "<= 2.0 (CPU)", _met(full.cpu / parse_all.cpu, 2.0)))
        report.rows.append(("--no-project: full run (-j1, each file alone) / libcst parse of all files",
                            _ratio(engine, parse_all), "<= 2.0 (CPU)", _met(engine.cpu / parse_all.cpu, 2.0)))
        us_line = figures["us_per_line"]
        report.rows.append(("ms-perflint CPU us per line, whole corpus (project mode)", f"{us_line:.1f}",
                            f"<= {TORCHFIX_US_PER_LINE / 5:.0f} (TorchFix 888 / 5)", _met(us_line, TORCHFIX_US_PER_LINE / 5)))
        report.rows.append(("speed-up over TorchFix's 888 us/line (whole corpus)", f"{TORCHFIX_US_PER_LINE / us_line:.1f}x",
                            ">= 5x", _met(5, TORCHFIX_US_PER_LINE / us_line)))

    if "cached" in wanted:
        print("(b) cached re-run (alternating)")
        cache_dir = work / "cache"
        run_once(cli(plugin, "--cache-dir", str(cache_dir), *paths))  # fills the cache
        commands = [
            ("ms-perflint --no-cache (auto jobs)", cli(plugin, "--no-cache", *paths)),
            ("ms-perflint, every file cached", cli(plugin, "--cache-dir", str(cache_dir), *paths)),
        ]
        # The baseline keeps its project index in <project>/.ms_perflint_cache whatever --cache-dir says (--no-cache
        # reads and writes none): its fill builds it afresh, and it is removed once (b) is measured.
        base_index = corpus / "src" / ".ms_perflint_cache"
        if base is not None:
            base_cache = work / "baseline-cache"
            shutil.rmtree(base_index, ignore_errors=True)
            run_once(cli(base, "--cache-dir", str(base_cache), *paths))  # fills its own cache
            commands += [
                (tag("--no-cache (auto jobs)"), cli(base, "--no-cache", *paths)),
                (tag("every file cached"), cli(base, "--cache-dir", str(base_cache), *paths)),
            ]
        auto, cached, *base_runs = alternate(commands)
        report.rows.append(("cached re-run / full run (auto jobs)", _ratio(cached, auto, percent=True), "<= 5%", _met(cached.wall / auto.wall, 0.05)))
        figures["cached"] = cached.wall / auto.wall
        if base_runs:
            base_figures["cached"] = base_runs[1].wall / base_runs[0].wall
            shutil.rmtree(base_index, ignore_errors=True)
        report.notes.append(
            "A cached re-run stats every file of the project against the index's manifest, finds the project's "
            "decisions (the rules' findings) stored under the index digest, then reads and hashes each named file and "
            "decodes those with findings to place them; it loads no facts and runs no rule."
        )

    if "edit" in wanted:
        print("(h) one edited file in the corpus project")
        report.rows += edit_latency(work, corpus / "src", plugin, paths, repeat, measure)
        report.notes.append(
            f"The edit-latency rows are pre-commit's case in a large project: after a run over the whole corpus "
            f"project has filled the cache, one line that changes a file's facts "
            f"(`{EDITED_LINE.strip().format(n='N')}`, a new name each run) is appended to {EDITED_FILE}, which "
            "programs of the corpus reach, and `ms-perflint "
            "<that file>` is timed; the full run is `--no-cache` over every file, auto jobs. The file is restored "
            "afterwards. The edited run's report is compared with a `--no-cache` run's of the same file."
        )

    if "index" in wanted:
        print("(g) the project index alone")
        index_root = corpus / "src"
        index_cold = measure("project index of the corpus (libcst facts of every file), built in memory, one process",
                             [str(plugin), "-c", INDEX_SCRIPT, str(index_root), "-"], repeat)
        warm_counts = json.loads(run_checked([str(plugin), "-c", INDEX_SCRIPT, str(index_root), str(cache_dir)]))  # stored by (b)
        warm_counts = json.loads(run_checked([str(plugin), "-c", INDEX_SCRIPT, str(index_root), str(cache_dir)]))
        if warm_counts["read"] or warm_counts["analysed"]:
            raise RuntimeError(f"the warm index re-read files: {warm_counts}")
        index_warm = measure("project index of the corpus, unchanged since the last run (stat pass)",
                             [str(plugin), "-c", INDEX_SCRIPT, str(index_root), str(cache_dir)], repeat)
        report.rows.append(("project index (the libcst facts of every file) built from scratch, one process / "
                            "project-mode full run (CPU)", f"{index_cold.cpu:.1f} s = {index_cold.cpu / full.cpu:.0%}", "", ""))
        report.rows.append(("project index, unchanged tree: the cached re-run's stat pass (s)", f"{index_warm.wall:.2f}", "", ""))
        report.notes.append(
            f"The project index is no longer a separate `ast` pass: it is the store of each file's libcst facts, so "
            f"building it from scratch is the cold analysis of every file ({warm_counts['files']} indexed files), and "
            "the rest of a full run is deciding the rules and reporting. The warm row refreshes the index the cached "
            "runs of (b) stored; the benchmark checks that it read and analysed no file."
        )

    if "flake8" in wanted:
        print("(c) flake8")
        flake_files = [str(path) for path in subset(files, args.flake8_fraction)]
        flake_lines = count_lines([Path(p) for p in flake_files])
        flake8 = lambda python, select: [str(python), "-m", "flake8", "--isolated", "-j", "1", "--exit-zero", "--select", select, *flake_files]  # noqa: E731
        efw_plain, efw_plugin = alternate([
            ("flake8 --select E,F,W (no plugin installed)", flake8(plain, "E,F,W")),
            ("flake8 --select E,F,W (plugin installed)", flake8(plugin, "E,F,W")),
        ])
        # The plugin keeps its cache in .ms_perflint_cache of the project of flake8's working folder: a fresh
        # folder outside any project, emptied before each cold run.
        flake8_cwd = Path(tempfile.mkdtemp(prefix="ms-perflint-bench-flake8-"))
        plugin_cache = flake8_cwd / ".ms_perflint_cache"
        msp = measure("flake8 --select MSP (plugin installed, no cache)", flake8(plugin, "MSP"), repeat,
                      before=lambda: shutil.rmtree(plugin_cache, ignore_errors=True), cwd=flake8_cwd)
        msp_cached = measure("flake8 --select MSP (plugin installed, cached)", flake8(plugin, "MSP"), repeat, cwd=flake8_cwd)
        shutil.rmtree(flake8_cwd, ignore_errors=True)
        overhead = efw_plugin.cpu / efw_plain.cpu - 1
        report.rows.append(("flake8 E,F,W with plugin installed vs without (CPU)", f"{overhead:+.1%}", "<= +5%", _met(overhead, 0.05)))
        report.rows.append(("flake8 --select MSP, no cache / flake8 E,F,W without plugin (CPU)", _ratio(msp, efw_plain, cpu=True), "", ""))
        report.rows.append(("flake8 --select MSP, cached / flake8 E,F,W without plugin (CPU)", _ratio(msp_cached, efw_plain, cpu=True), "", ""))
        report.notes.append(
            f"flake8 rows use a {args.flake8_fraction:.0%} sample of the corpus ({len(flake_files)} files, {flake_lines} "
            "lines), one process (-j1). The plugin checks each file with its project, as the CLI does, so its first file "
            "indexes the whole corpus project (every file, not only the sample); 'no cache' empties the plugin's cache "
            "before each run, 'cached' keeps what the previous run stored."
        )

    if "startup" in wanted:
        print("(d) start-up for one small file")
        tools = [(plugin, lambda label: label, figures)] + ([(base, tag, base_figures)] if base is not None else [])
        start_rows = start_up(work, tools, max(repeat, 5), measure, alternate)
        report.rows += start_rows
        report.notes.append(
            "Start-up rows lint one small file inside a copy of examples/ (a project of its own, so the project "
            "index is part of the cost). 'Just edited' changes the file before each run, as a pre-commit hook sees it: "
            "the index re-analyses that one file and the project's rules decide again from the stored facts; "
            "'--no-cache' analyses every file of the small project in memory."
        )

    if "jobs" in wanted:
        print("(e) jobs and memory")

        def jobs(python: Path, name: Callable[[str], str]) -> List[Tuple[str, List[str]]]:
            """The -j1 and -j2 runs of both modes."""
            return [
                (name("--no-cache --no-project -j1 (all files)"), cli(python, "--no-cache", "--no-project", "-j", "1", *paths)),
                (name("--no-cache --no-project -j2 (all files)"), cli(python, "--no-cache", "--no-project", "-j", "2", *paths)),
                (name("--no-cache -j1 (all files, project mode)"), cli(python, "--no-cache", "-j", "1", *paths)),
                (name("--no-cache -j2 (all files, project mode)"), cli(python, "--no-cache", "-j", "2", *paths)),
            ]

        # -j1 and -j2 alternate (ours and the baseline's), so that a change in the machine's load hits all alike.
        one, two, project_one, project_two, *base_runs = alternate(
            jobs(plugin, lambda label: f"ms-perflint {label}") + (jobs(base, tag) if base is not None else []))
        figures.update(_speed_ups(one, two, project_one, project_two))
        if base_runs:
            base_figures.update(_speed_ups(*base_runs))
        report.rows.append(("--no-project: --jobs 2 speed-up over --jobs 1 (wall)", f"{one.wall / two.wall:.2f}x", ">= 1.7x", _met(1.7, one.wall / two.wall)))
        report.rows.append(("project mode: --jobs 2 speed-up over --jobs 1 (wall; the index's analysis is spread over the "
                            "workers, the rules decide in the parent)",
                            f"{project_one.wall / project_two.wall:.2f}x", ">= 1.8x", _met(1.8, project_one.wall / project_two.wall)))
    if "zoo" in wanted:
        if args.zoo is None:
            report.notes.append("The model-zoo rows were not measured in this run (no --zoo).")
        else:
            print("(z) a model zoo")
            rows, notes = zoo_rows(work, args.zoo, args.zoo_edit or ZOO_EDITED_FILES, plugin, repeat, measure, alternate)
            report.rows += rows
            report.notes += notes

    if "memory" in wanted:
        # Per file, peak memory is set by the largest single file's tree (nothing accumulates across files), so
        # each step is compared with a process that only parses the same files. Project mode also holds every
        # file's facts: each step is a project of its own (a copy of the same files), so that the index grows
        # with it.
        whole_at: Dict[float, Measure] = {}
        for fraction in (0.25, 0.5, 1.0):
            part = subset(files, fraction)
            names = [str(path) for path in part]
            biggest = max(part, key=lambda path: path.stat().st_size)
            if fraction == 1.0:
                ours, floor, whole = engine, parse_all, full
            else:
                ours = measure(f"ms-perflint --no-cache --no-project -j1, {fraction:.0%} of the files ({len(part)})", cli(plugin, "--no-cache", "--no-project", "-j", "1", *names), 1)
                floor = measure(f"libcst parse, {fraction:.0%} of the files", [str(plugin), "-c", PARSE_SCRIPT, str(write_list(work, f"part{fraction}.txt", part))], 1)
                copies = copy_project(part, corpus / "src", work / f"project-{fraction}")
                whole = measure(f"ms-perflint --no-cache -j1, project mode, a project of {fraction:.0%} of the files",
                                cli(plugin, "--no-cache", "-j", "1", *map(str, copies)), 1)
                shutil.rmtree(work / f"project-{fraction}", ignore_errors=True)
            whole_at[fraction] = whole
            report.rows.append((
                f"peak RSS, {fraction:.0%} of the corpus: --no-project -j1 / project mode -j1 / parsing alone",
                f"{ours.max_rss_mib:.0f} / {whole.max_rss_mib:.0f} / {floor.max_rss_mib:.0f} MiB (largest file {biggest.stat().st_size // 1024} KiB)",
                "flat: --no-project <= 1.2x parsing alone",
                _met(ours.max_rss_mib / floor.max_rss_mib, 1.2),
            ))
        growth = whole_at[1.0].max_rss_mib / whole_at[0.25].max_rss_mib
        report.rows.append(("peak RSS of a project-mode run (-j1): whole corpus / a quarter of it (the parent holds "
                            "every file's facts while the rules decide, so it grows with the project)",
                            f"{whole_at[1.0].max_rss_mib:.0f} / {whole_at[0.25].max_rss_mib:.0f} MiB = {growth:.2f}x",
                            "bounded: <= 1.2x", _met(growth, 1.2)))
        if project_two is not None:
            report.rows.append(("peak RSS of the largest process, -j2 (all files, project mode)",
                                f"{project_two.max_rss_mib:.0f} MiB", "", ""))
        report.notes.append(
            "Peak RSS is of the largest single process (ru_maxrss of the run and its waited children). The 25% and 50% "
            "project-mode figures are copies of those files made into projects of their own. A project-mode run's "
            "peak is its parent's: it loads the facts of every file of the project and keeps them, with the model "
            "built from them, until the rules have decided (the workers hold one file's tree at a time), so it is "
            "bounded by nothing but the project's size."
        )

    fixit = None
    if not args.skip_fixit and "fixit" in wanted:
        print("(f) Fixit")
        try:
            fixit = make_venv(venvs / "fixit", ["fixit"])
        except RuntimeError as error:  # the rest of the report stands without it
            report.notes.append(f"Fixit was not timed: it could not be installed ({str(error).splitlines()[0]}).")
    if fixit is not None:
        report.tool_versions["fixit"] = versions(fixit).get("fixit", "?")
        # Fixit skips files git ignores (bench/.corpus is), so both tools get a copy outside the repository.
        outside = Path(tempfile.mkdtemp(prefix="ms-perflint-bench-fixit-"))
        fixit_files = []
        for path in subset(files, args.fixit_fraction):
            copy = outside / path.relative_to(corpus / "src")
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
            fixit_files.append(str(copy))
        fixit_lines = count_lines([Path(p) for p in fixit_files])
        ours = measure(f"ms-perflint --no-cache -j1, Fixit's sample ({len(fixit_files)} files)", cli(plugin, "--no-cache", "-j", "1", *fixit_files), repeat)
        # Fixit's exit code is a bit mask: 1 lint errors, 2 fixes available.
        theirs = measure("fixit lint (built-in rules), same files", [str(fixit), "-m", "fixit", "lint", *fixit_files], repeat,
                         ok=(0, 1, 2, 3))
        report.rows.append(("Fixit CPU us per line (its built-in rules)", f"{theirs.cpu / fixit_lines * 1e6:.1f}", "", ""))
        report.rows.append(("Fixit / ms-perflint (CPU, same files)", f"{theirs.cpu / ours.cpu:.1f}x", "", ""))
        said = subprocess.run([str(fixit), "-m", "fixit", "lint", *fixit_files], capture_output=True, text=True)
        summary = (said.stdout + said.stderr).strip().splitlines()[-1:] or ["(no output)"]
        report.notes.append(
            f"Fixit rows use a {args.fixit_fraction:.0%} sample ({len(fixit_files)} files, {fixit_lines} lines), copied outside "
            f"the repository because Fixit skips git-ignored files (the copies are in no project, so ms-perflint checks "
            f"each file alone); Fixit's own summary: {summary[0]!r}. Fixit runs its own worker processes, so compare CPU seconds."
        )
        shutil.rmtree(outside, ignore_errors=True)
    elif args.skip_fixit:
        report.notes.append("Fixit was not timed in this run (--skip-fixit).")

    report.notes.append(
        f"load average (1 min) before the run: {load_before:.2f}, after: {os.getloadavg()[0]:.2f}; sampled every "
        f"{LOAD_EVERY} s during the run ({len(loads)} samples): min {min(loads, default=0):.2f}, median "
        f"{statistics.median(loads) if loads else 0:.2f}, max {max(loads, default=0):.2f}. The benchmark itself "
        "keeps one core busy (two in -j2 and auto-jobs rows); more than that is other work on the shared machine, "
        "which slows wall seconds more than CPU seconds."
    )
    shutil.rmtree(work, ignore_errors=True)
    return report


#: Seconds between two samples of the load average while the benchmark runs.
LOAD_EVERY = 30


def _sample_load() -> List[float]:
    """A list a daemon thread appends the 1-minute load average to, every :data:`LOAD_EVERY` seconds."""
    import threading

    samples: List[float] = []

    def sample() -> None:
        while True:
            samples.append(os.getloadavg()[0])
            time.sleep(LOAD_EVERY)

    threading.Thread(target=sample, daemon=True).start()
    return samples


def edit_latency(work: Path, root: Path, plugin: Path, paths: Sequence[str], repeat: int,
                 measure: Callable[..., Measure]) -> List[tuple]:
    """(h): one file of the corpus project edited after a cached run, then checked alone (pre-commit); the rows."""
    full, one, same = _edited_run(root / EDITED_FILE, work / "edit-cache", paths, plugin, repeat, measure,
                                  "all files, project mode")
    share = one.wall / full.wall
    return [
        ("one edited file in the corpus project, after a cached run (pre-commit) / full --no-cache run (wall)",
         f"{one.wall:.2f} s / {full.wall:.2f} s = {share:.0%} (CPU {one.cpu / full.cpu:.0%})", "<= 10%, about 1 s",
         _met(share, 0.10)),
        ("its findings equal a --no-cache run's", "yes" if same else "NO", "yes", "met" if same else "NOT met"),
    ]


def _edited_run(edited: Path, cache: Path, paths: Sequence[str], plugin: Path, repeat: int,
                measure: Callable[..., Measure], what: str) -> Tuple[Measure, Measure, bool]:
    """A full ``--no-cache`` run over ``paths``; then, after a cached run over them, ``edited`` checked alone just
    after a line that changes its facts is appended (a new name each run); and whether that run's report equals a
    ``--no-cache`` run's. The file is restored afterwards."""
    original = edited.read_bytes()
    edits = iter(range(10**6))

    def edit() -> None:  # a new line each time: the file's facts change, so it is decided again
        with open(edited, "a", encoding="utf-8") as handle:
            handle.write(EDITED_LINE.format(n=next(edits)))

    try:
        full = measure(f"ms-perflint --no-cache (auto jobs, {what})", cli(plugin, "--no-cache", *paths), repeat)
        run_once(cli(plugin, "--cache-dir", str(cache), *paths))  # the cache after a run over the project
        one = measure(f"ms-perflint {edited.name}, just edited, cached ({what})",
                      cli(plugin, "--cache-dir", str(cache), str(edited)), repeat, before=edit)
        report = lambda *flags: subprocess.run([*cli(plugin, *flags), str(edited)], capture_output=True, text=True,  # noqa: E731
                                               cwd=NEUTRAL_CWD).stdout
        edit()
        same = report("--cache-dir", str(cache)) == report("--no-cache")
    finally:
        edited.write_bytes(original)
    return full, one, same


#: The files of a mindspore-ai/models ``official/`` checkout the zoo's edit rows edit: one of the largest model's
#: (its part holds 97 files) and a typical one's (33 files; the median part with a training script holds 29).
ZOO_EDITED_FILES = ("cv/ResNet/src/resnet.py", "cv/VIT/src/vit.py")


def zoo_rows(work: Path, zoo: Path, edited: Sequence[str], plugin: Path, repeat: int, measure: Callable[..., Measure],
             alternate: Callable[..., List[Measure]]) -> Tuple[List[tuple], List[str]]:
    """(z): a model zoo made into one project: -j2 against -j1, peak memory, one edited file; the rows and notes."""
    outside = Path(tempfile.mkdtemp(prefix="ms-perflint-bench-zoo-"))  # bench/.corpus is git-ignored: a folder
    project = outside / "zoo"                                            # there would be walked as holding no files
    try:
        return _zoo_rows(zoo, project, edited, plugin, repeat, measure, alternate, work)
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def _zoo_rows(zoo: Path, project: Path, edited: Sequence[str], plugin: Path, repeat: int,
              measure: Callable[..., Measure], alternate: Callable[..., List[Measure]],
              work: Path) -> Tuple[List[tuple], List[str]]:
    shutil.copytree(zoo, project, ignore=shutil.ignore_patterns(".git"))
    (project / "pyproject.toml").write_text("[project]\nname = 'zoo'\n")
    files = [path for path in project.rglob("*.py")]
    single = cli(plugin, "--no-cache", "-j", "1", str(project))
    one, two, together = alternate([
        ("ms-perflint --no-cache -j1, the zoo project", single),
        ("ms-perflint --no-cache -j2, the zoo project", cli(plugin, "--no-cache", "-j", "2", str(project))),
        ("two ms-perflint --no-cache -j1 at once, the zoo project", Together(single)),
    ])
    ceiling = 2 * one.wall / together.wall
    rows = [
        ("zoo project mode: --jobs 2 speed-up over --jobs 1 (wall; parts decided in the workers)",
         f"{one.wall / two.wall:.2f}x", ">= 1.8x", _met(1.8, one.wall / two.wall)),
        ("this machine's ceiling for it: 2 x one -j1 run alone / two -j1 runs at once (wall; CPU of one run alone / "
         "at once)", f"{ceiling:.2f}x ({one.cpu:.1f} s / {together.cpu:.1f} s)", "", ""),
        ("zoo peak RSS, project mode --no-cache: -j1 / -j2 (largest process)",
         f"{one.max_rss_mib:.0f} / {two.max_rss_mib:.0f} MiB", "", ""),
    ]
    for relative in edited:
        full, just, same = _edited_run(project / relative, work / "zoo-cache", [str(project)], plugin, repeat, measure,
                                       "the zoo project")
        share = just.wall / full.wall
        rows += [
            (f"zoo: {relative} edited, after a cached run (pre-commit) / full --no-cache run (wall)",
             f"{just.wall:.2f} s / {full.wall:.2f} s = {share:.0%} (CPU {just.cpu / full.cpu:.0%}), peak RSS "
             f"{just.max_rss_mib:.0f} MiB", "<= 10%, about 1 s", _met(share, 0.10)),
            (f"zoo: {relative} edited: findings equal a --no-cache run's", "yes" if same else "NO", "yes",
             "met" if same else "NOT met"),
        ]
    notes = [
        f"Zoo rows: {zoo} copied into one project ({len(files)} Python files, a pyproject.toml at its top). Each "
        f"edit row appends `{EDITED_LINE.strip().format(n='N')}` (a new name each run) to the file after a cached run "
        "of the whole zoo and times `ms-perflint <that file>`; only the part that file belongs to is decided again. "
        "The full run it is set against uses automatic jobs (two workers here). The -j rows and the two runs at once "
        "alternate, so a drift in the machine's speed hits all three alike."
    ]
    return rows, notes


def start_up(work: Path, tools: Sequence[Tuple[Path, Callable[[str], str], Dict[str, float]]], repeat: int,
             measure: Callable[..., Measure], alternate: Callable[..., List[Measure]]) -> List[tuple]:
    """(d): one small MindSpore file in a small project, the way pre-commit hands it over; the report's rows.

    ``tools`` are (python, label of a run, figures to fill): this checkout first, then the baseline if any.
    All lint the same project, each with its own cache dir, their runs alternating (the baseline also keeps its
    project index in the project's .ms_perflint_cache, whatever --cache-dir says).
    """
    project = work / "precommit"
    shutil.copytree(REPO / "examples", project)
    (project / "pyproject.toml").write_text("[project]\nname = 'precommit'\n")
    small = project / "small_train.py"
    small.write_text(SMALL_FILE)
    edits = iter(range(10**6))

    def edit() -> None:  # new bytes each time, as after a commit's edit: the file's cached result no longer applies
        small.write_text(SMALL_FILE + f"# edit {next(edits)}\n")

    warm = [cli(python, "--cache-dir", str(work / f"precommit-cache-{n}"), str(small)) for n, (python, _, _) in enumerate(tools)]
    cold = [cli(python, "--no-cache", str(small)) for python, _, _ in tools]
    for command in warm + cold:  # the index and the other files' results exist, as after the first commit with the hook
        run_once(command)
    edited = alternate([(name("one small file just edited (pre-commit)"), command) for (_, name, _), command in zip(tools, warm)],
                       repeat, before=edit)
    for command in warm:  # each tool's cache holds the file as it is now (the others' runs edited it after)
        run_once(command)
    cached = alternate([(name("one small file, cached"), command) for (_, name, _), command in zip(tools, warm)], repeat)
    cold_runs = alternate([(name("one small file, --no-cache"), command) for (_, name, _), command in zip(tools, cold)], repeat)
    plugin = tools[0][0]
    measure("ms-perflint --version (interpreter + CLI import)", [str(plugin), "-m", "ms_perflint", "--version"], repeat)
    for (_, _, figures), ed, ca, co in zip(tools, edited, cached, cold_runs):
        figures.update(edited=ed.wall, no_cache_small=co.wall, cached_small=ca.wall,
                       edited_cpu=ed.cpu, no_cache_small_cpu=co.cpu, cached_small_cpu=ca.cpu)
    edited, cached, cold = edited[0], cached[0], cold_runs[0]
    return [
        ("one small file via the CLI, just edited, in a project (s)", f"{edited.wall:.3f} (CPU {edited.cpu:.3f})", "<= 0.35", _met(edited.wall, 0.35)),
        ("one small file via the CLI, --no-cache (s)", f"{cold.wall:.3f} (CPU {cold.cpu:.3f})", "<= 0.35", _met(cold.wall, 0.35)),
        ("one small file via the CLI, cached (s)", f"{cached.wall:.3f} (CPU {cached.cpu:.3f})", "<= 0.35", _met(cached.wall, 0.35)),
    ]


def _full_run_figures(full: Measure, engine: Measure, parse_all: Measure, lines: int) -> Dict[str, float]:
    """(a)'s figures of one tool: its -j1 runs of both modes over the parse floor, CPU per line, peak RSS."""
    return {
        "project_floor": full.cpu / parse_all.cpu,
        "engine_floor": engine.cpu / parse_all.cpu,
        "us_per_line": full.cpu / lines * 1e6,
        "rss_project": full.max_rss_mib,
        "rss_engine": engine.max_rss_mib,
    }


def _speed_ups(one: Measure, two: Measure, project_one: Measure, project_two: Measure) -> Dict[str, float]:
    """(e)'s figures of one tool: -j1 wall / -j2 wall, --no-project and project mode."""
    return {"j2_engine": one.wall / two.wall, "j2_project": project_one.wall / project_two.wall}


def _ratio(numerator: Measure, denominator: Measure, percent: bool = False, cpu: bool = False) -> str:
    if cpu:
        return f"{numerator.cpu / denominator.cpu:.2f}x"
    value = numerator.wall / denominator.wall
    cpu_value = numerator.cpu / denominator.cpu
    if percent:
        return f"{value:.1%} (CPU {cpu_value:.1%})"
    return f"{value:.2f}x (CPU {cpu_value:.2f}x)"


def _met(value: float, limit: float) -> str:
    return "met" if value <= limit else "NOT met"


def _commit() -> str:
    """The checkout's commit (short), with ``+changes`` when its tracked files differ from it."""
    try:
        commit = run_checked(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"]).strip()
        dirty = run_checked(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"]).strip()
    except (OSError, RuntimeError):
        return "unknown"
    return commit + (" +changes" if dirty else "")


def _dev_flake8() -> str:
    import flake8

    return flake8.__version__


def machine_info() -> Dict[str, str]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor()
    return {
        "cores (nproc)": str(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()),
        "CPU": model or "unknown",
        "memory": f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB",
        "OS": platform.platform(),
    }


# --- the report -------------------------------------------------------------------------------------------


def render(report: Report) -> str:
    """docs/performance.md."""
    out = ["# Performance", ""]
    out += [
        "Measured by `bench/run.py` on a real corpus; every ratio compares two runs made in the same",
        "benchmark run on the same files (medians of real processes). How the speed is obtained is",
        "described at the end.",
        "",
        "## Machine and versions",
        "",
        "| | |",
        "|---|---|",
    ]
    out += [f"| {key} | {value} |" for key, value in {**report.machine, **report.tool_versions}.items()]
    out += ["", "## Corpus", ""]
    out += [f"- {name}: {origin}" for name, origin in report.origins.items()]
    counts = report.counts
    out += [
        f"- {counts['files']} files, {counts['lines']} lines; every file is parsed by libcst, in project mode and with "
        "`--no-project` alike (the text prefilter of earlier versions is gone).",
        "",
        "## Results",
        "",
        f"Benchmark run on commit {report.commit}.",
        "",
        "| what | measured | target | |",
        "|---|---|---|---|",
    ]
    out += [f"| {what} | {value} | {target} | {met} |" for what, value, target, met in report.rows]
    out += ["", "Notes:", ""] + [f"- {note}" for note in report.notes]
    out += render_comparison(report)
    out += ["", "## Raw measurements (median wall s, median CPU s of the process tree, peak RSS MiB)", ""]
    out += ["| run | wall s | CPU s | peak RSS MiB |", "|---|---|---|---|"]
    out += [f"| {m.label} | {m.wall:.2f} | {m.cpu:.2f} | {m.max_rss_mib:.0f} |" for m in report.measures]
    out += ["", "## Reproduce", "", "```", report.command, "```", ""]
    out.append(HOW_IT_IS_FAST)
    return "\n".join(out) + "\n"


def render_comparison(report: Report) -> List[str]:
    """The section setting this run's figures against the baseline's, measured in the same run."""
    if not report.baseline_commit:
        return ["", "## Against the code before the rewrite", "", "Skipped in this run (--no-baseline)."]
    name = "the code before the rewrite" if report.baseline_commit == PREVIOUS_COMMIT else "the baseline"
    out = ["", f"## Against {name} ({report.baseline_commit}), measured in this run on this machine", ""]
    out += [
        f"Commit {report.baseline_commit}, exported with `git archive` and installed like this checkout, ran the same",
        "commands on the same files in this benchmark run, alternating with this checkout's round by round; every",
        "figure is a ratio (or a size) of runs made here. 'no worse' and 'WORSE' compare the numbers as they are,",
        "with no allowance for noise. The figures this section used to hard-code (docs/performance.md at 26b8929,",
        "measured on an Intel machine) are no longer used: figures from different machines are not comparable.",
        "",
        "| figure | baseline | now | better is | verdict |",
        "|---|---|---|---|---|",
    ]
    rows = comparison(report.figures, report.baseline)
    return out + [f"| {what} | {before} | {now} | {better} | {verdict} |" for what, before, now, better, verdict in rows]


#: How each compared figure is shown and which way is better: (key, what, format, lower is better).
COMPARED = (
    ("project_floor", "project mode -j1 / libcst parse of all files (CPU)", "{:.2f}x", True),
    ("engine_floor", "--no-project -j1 / libcst parse of all files (CPU)", "{:.2f}x", True),
    ("us_per_line", "project mode -j1 CPU us per line", "{:.1f}", True),
    ("cached", "cached re-run / full run (auto jobs, wall)", "{:.1%}", True),
    ("edited", "one small file, just edited, in a project (s)", "{:.3f}", True),
    ("no_cache_small", "one small file, --no-cache (s)", "{:.3f}", True),
    ("cached_small", "one small file, cached (s)", "{:.3f}", True),
    ("edited_cpu", "one small file, just edited, in a project (CPU s)", "{:.2f}", True),
    ("no_cache_small_cpu", "one small file, --no-cache (CPU s)", "{:.2f}", True),
    ("cached_small_cpu", "one small file, cached (CPU s)", "{:.2f}", True),
    ("j2_engine", "--no-project: -j2 speed-up over -j1 (wall)", "{:.2f}x", False),
    ("j2_project", "project mode: -j2 speed-up over -j1 (wall)", "{:.2f}x", False),
    ("rss_project", "peak RSS, project mode -j1 (MiB)", "{:.0f}", True),
    ("rss_engine", "peak RSS, --no-project -j1 (MiB)", "{:.0f}", True),
)


def comparison(figures: Dict[str, float], baseline: Dict[str, float]) -> List[Tuple[str, str, str, str, str]]:
    """Rows (what, baseline, now, better is, verdict) for the figures of :data:`COMPARED`."""
    rows = []
    for key, what, form, lower_is_better in COMPARED:
        if key not in baseline or key not in figures:
            continue  # a section not measured in this run (--only)
        before, now = baseline[key], figures[key]
        worse = now > before if lower_is_better else now < before
        change = (now - before) / abs(before) if before else 0.0
        verdict = f"WORSE ({change:+.0%})" if worse else "no worse"
        rows.append((what, form.format(before), form.format(now), "lower" if lower_is_better else "higher", verdict))
    return rows


#: Everything after this line in docs/performance.md is written by hand (the reading of the numbers) and kept.
KEPT_MARKER = "<!-- everything below is written by hand and kept by bench/run.py -->"

HOW_IT_IS_FAST = """\
## Where the time goes, and what keeps it low

- **One libcst pass per file.** Every Python file (a notebook: its code cells) is parsed once and
  walked once by one visitor that records plain facts (`ms_perflint/analysis/python.py`): scopes,
  calls with their argument values, classes, loops, guards, config entries. The rules never see a
  tree; they decide from the facts. There is no text prefilter: a file that never names MindSpore
  can still be part of a MindSpore program (a config module), so every file is parsed.
- **A guard before the parser.** `ms_perflint/sources/guard.py` scans brackets with one regular
  expression and asks `ast` only when a file looks deeply nested, so hostile input cannot crash or
  stall libcst; ordinary files pay for the scan only.
- **One read-only walk.** libcst's `Module.visit` rebuilds every node it passes, even for a
  visitor that changes nothing; `ms_perflint/analysis/walker.py` calls the same `on_visit`/`on_leave`
  in the same order without copying, and passes whitespace and punctuation by (`tests/test_walker.py`
  compares the event streams).
- **Positions for recorded nodes only, read off `ast`.** `PositionProvider` records a range for every
  node of the module (more than the parse itself). `ms_perflint/analysis/ast_positions.py` pairs the
  libcst tree with CPython's own `ast` of the same text (a tenth of libcst's parse) and reads each
  recorded node's range off its twin; what does not pair (an f-string's insides, pattern matching) is
  found by regenerating the code of its nearest paired statement or expression only
  (`analysis/positions.py`). Identical ranges: `tests/test_positions.py` compares every node of the
  fixtures with `PositionProvider`, and the corpus gave the same ranges both ways for all 2800 files.
- **Caches.** In `.ms_perflint_cache/` (`--no-cache` keeps everything in memory, `--cache-dir`
  moves it): the project index's manifest (each file's size, modification time and content hash),
  each file's facts keyed by its content, its path and the analysis code, and the project's
  decisions keyed by the index digest, the rules, the settings and the tool's own sources, with each
  part's findings keyed by its files and each file's links. A re-run of an unchanged project stats
  each file, finds its decisions stored, and loads no facts and runs no rule; after an edit, only the
  edited files are analysed and linked again, and only the parts holding them are decided, from the
  facts of their files alone.
- **Pool.** `--jobs` (default: one worker per 8 files to analyse, at most one per core) forks
  workers that analyse the index's files, largest first, and send back plain facts; the parts to
  decide are then spread over forked workers too (from 200 files, or as `--jobs` says), heaviest
  first. A worker that crashes costs a re-run of the files it had started, each alone. With
  `--no-project` each file is checked alone in the main process.
- **flake8.** The plugin asks flake8 which MSP codes are selected and returns at once when none is;
  `tests/test_flake8.py` checks that `flake8 --select E,F,W` never imports libcst.
"""


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="where downloads, sources and venvs live")
    parser.add_argument("--repeat", type=int, default=3, help="measured runs per command (median)")
    parser.add_argument("--fraction", type=float, default=1.0, help="share of the corpus to use (a quick look: 0.05)")
    parser.add_argument("--flake8-fraction", type=float, default=0.25, help="share of the corpus flake8 is timed on")
    parser.add_argument("--fixit-fraction", type=float, default=0.25, help="share of the corpus Fixit is timed on")
    parser.add_argument("--skip-fixit", action="store_true", help="do not install or time Fixit")
    parser.add_argument("--mindspore-from", type=Path, help="fallback: an installed mindspore package folder")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "performance.md")
    parser.add_argument("--no-write", action="store_true", help="print the report instead of writing it")
    parser.add_argument("--baseline", default=PREVIOUS_COMMIT, metavar="REV",
                        help="the revision of this repository measured alongside, in the same run (default: %(default)s)")
    parser.add_argument("--no-baseline", action="store_true", help="do not measure a baseline revision")
    parser.add_argument("--zoo", type=Path, help="a model zoo folder (mindspore-ai/models' official/) for the zoo rows")
    parser.add_argument("--zoo-edit", action="append", metavar="PATH",
                        help=f"a zoo file an edit row edits (repeatable; default: {', '.join(ZOO_EDITED_FILES)})")
    parser.add_argument("--only", type=_sections, default=SECTIONS, metavar="SECTION,...",
                        help=f"measure only these sections (of {', '.join(SECTIONS)}; default: all); "
                             "docs/performance.md is written only from a run of all of them")
    args = parser.parse_args(argv)
    if args.only != SECTIONS and not args.no_write:
        parser.error("--only measures part of the report: pass --no-write as well")
    report = benchmark(args)
    text = render(report)
    print()
    for what, value, target, met in report.rows:
        print(f"{what:<62} {value:>28}  {target:<24} {met}")
    if report.baseline_commit:
        print(f"\nagainst {report.baseline_commit}, measured in this run:")
        for what, before, now, _, verdict in comparison(report.figures, report.baseline):
            print(f"{what:<62} {before:>10} -> {now:>10}  {verdict}")
    if args.no_write:
        print(text)
    else:
        kept = ""
        if args.output.exists() and KEPT_MARKER in args.output.read_text():
            kept = args.output.read_text().split(KEPT_MARKER, 1)[1]
        args.output.write_text(text + "\n" + KEPT_MARKER + kept)
        print(f"\nwrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
