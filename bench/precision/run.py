#!/usr/bin/env python3
"""Precision benchmark: how many of ms-perflint's findings on real code are worth acting on.

The linter runs on each repository of ``manifest.toml`` (pinned public MindSpore
projects); a seeded random sample of each rule's findings is labelled by hand in
``labels.toml``; precision is the share of labelled findings whose verdict is
``act``. The target is at least 80 % per rule.

    python bench/precision/run.py run --checkouts DIR     # lint, sample, score, save findings
    python bench/precision/run.py show                    # unlabelled sampled findings, with code and a label stub
    python bench/precision/run.py score --write-docs      # re-score the saved findings, rewrite docs/precision.md
    python bench/precision/run.py smoke --checkouts DIR   # lint each repository at its root; exit 1 on an internal error
    python bench/precision/run.py compare audits/NAME.toml --checkouts DIR   # a judged blind draw: recall, precision

Standard library only (plus the linter it runs). See README.md beside this file.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None  # type: ignore[assignment]

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
MANIFEST = HERE / "manifest.toml"
CHECKOUTS = HERE / ".checkouts"
RESULTS = HERE / ".results"
DOCS = REPO_ROOT / "docs" / "precision.md"
SETS = ("development", "heldout")
VERDICTS = ("act", "wrong", "not-worth")
DOCS_START = "<!-- precision:start -->"
DOCS_END = "<!-- precision:end -->"
INTERNAL_ERROR = "MSP000"  # the linter's code for a rule that failed
COMMIT_RE = re.compile(r"[0-9a-f]{40}")
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*")
LABEL_KEYS = {"fingerprint", "verdict", "why", "repo", "path", "cell", "code", "line"}
GIT_TIMEOUT = 1800  # seconds; a blob-less clone of a large repository is slow but not that slow


class BenchError(Exception):
    """A problem the user can fix (bad input, missing checkout); printed without a traceback."""


# --------------------------------------------------------------------------- manifest


@dataclass(frozen=True)
class Repo:
    """One repository of the manifest."""

    name: str  # "owner/repo"
    url: str
    commit: str  # 40 hex digits, or "" when not pinned (held-out set only)
    what: str

    @property
    def short_name(self) -> str:
        """The part after the slash: ``mindcv``."""
        return self.name.split("/", 1)[1]

    @property
    def dir_name(self) -> str:
        """The folder name of its checkout: ``mindspore-lab+mindcv``."""
        return self.name.replace("/", "+")


def load_toml(path: Path) -> Dict[str, Any]:
    """Parse a TOML file; a missing file or a syntax error is a BenchError naming the file."""
    if tomllib is None:
        raise BenchError("reading TOML needs Python 3.11 or newer, or `pip install tomli`")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise BenchError(f"{path}: no such file") from None
    except OSError as error:
        raise BenchError(f"{path}: cannot read it: {error.strerror or error}") from None
    except tomllib.TOMLDecodeError as error:
        raise BenchError(f"{path}: not valid TOML: {error}") from None


def load_manifest(path: Path = MANIFEST) -> Dict[str, List[Repo]]:
    """The repositories of each set (``development``, ``heldout``), validated."""
    data = load_toml(path)
    unknown = sorted(set(data) - set(SETS))
    if unknown:
        raise BenchError(f"{path}: unknown table(s) {', '.join(unknown)}; expected [[development]] and [[heldout]]")
    sets: Dict[str, List[Repo]] = {}
    seen: Dict[str, str] = {}
    for set_name in SETS:
        entries = data.get(set_name, [])
        if not isinstance(entries, list):
            raise BenchError(f"{path}: `{set_name}` must be an array of tables ([[{set_name}]])")
        sets[set_name] = [_manifest_entry(path, set_name, i, entry) for i, entry in enumerate(entries, 1)]
        for repo in sets[set_name]:
            if repo.name in seen:
                raise BenchError(f"{path}: {repo.name} is listed twice ({seen[repo.name]} and {set_name})")
            seen[repo.name] = set_name
    if not sets["development"]:
        raise BenchError(f"{path}: the development set is empty")
    return sets


def _manifest_entry(path: Path, set_name: str, index: int, entry: Any) -> Repo:
    where = f"{path}: [[{set_name}]] entry {index}"
    if not isinstance(entry, dict):
        raise BenchError(f"{where} is not a table")
    for key in ("name", "url", "commit", "what"):
        if not isinstance(entry.get(key), str):
            raise BenchError(f"{where}: `{key}` is missing or not a string")
    unknown = sorted(set(entry) - {"name", "url", "commit", "what"})
    if unknown:
        raise BenchError(f"{where}: unknown key(s) {', '.join(unknown)}")
    repo = Repo(entry["name"], entry["url"], entry["commit"].lower(), entry["what"])
    if not NAME_RE.fullmatch(repo.name):
        raise BenchError(f"{where}: name {repo.name!r} is not owner/repo")
    if repo.commit and not COMMIT_RE.fullmatch(repo.commit):
        raise BenchError(f"{where} ({repo.name}): commit {repo.commit!r} is not 40 hex digits")
    if not repo.commit and set_name == "development":
        raise BenchError(f"{where} ({repo.name}): the development set needs a pinned commit")
    return repo


# --------------------------------------------------------------------------- checkouts


@dataclass
class Checkout:
    """Where a repository is on disk and which commit it is at ("" when it cannot be told)."""

    repo: Repo
    path: Path
    commit: str


def find_checkouts(repos: Sequence[Repo], folder: Path) -> List[Checkout]:
    """The checkouts of ``repos`` in ``folder`` (``owner+repo`` or ``repo``), all problems reported at once."""
    if not folder.is_dir():
        raise BenchError(f"--checkouts {folder}: no such folder")
    checkouts, problems = [], []
    for repo in repos:
        try:
            path = _checkout_folder(repo, folder)
            checkouts.append(Checkout(repo, path, _verified_commit(repo, path)))
        except BenchError as error:
            problems.append(str(error))
    if problems:
        raise BenchError("\n".join(problems))
    return checkouts


def _checkout_folder(repo: Repo, folder: Path) -> Path:
    candidates = [folder / repo.dir_name, folder / repo.short_name]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    looked = " or ".join(str(c) for c in candidates)
    raise BenchError(f"no checkout of {repo.name}: looked for {looked}")


def _verified_commit(repo: Repo, path: Path) -> str:
    """The checkout's commit when it is a git checkout (it must match the pin), else ""."""
    if not (path / ".git").exists():
        return ""  # a plain copy (an unpacked archive): nothing to verify against
    head = _git_head(path)
    if head and repo.commit and head != repo.commit:
        raise BenchError(
            f"{path} is at commit {head[:12]}, but the manifest pins {repo.name} to {repo.commit[:12]}: "
            f"run `git -C {path} checkout {repo.commit}`"
        )
    return head


def _git_head(path: Path) -> str:
    try:
        return _git(["rev-parse", "HEAD"], cwd=path).strip()
    except BenchError:
        return ""


def _git(args: Sequence[str], cwd: Optional[Path] = None) -> str:
    """Run git; its last error line becomes a BenchError. Never prompts for credentials."""
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=GIT_TIMEOUT
        )
    except FileNotFoundError:
        raise BenchError("git is not installed; install it, or pass --checkouts DIR") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"git {' '.join(args)} took more than {GIT_TIMEOUT} s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise BenchError(lines[-1] if lines else f"git {args[0]} failed with exit code {done.returncode}")
    return done.stdout


def clone_checkouts(repos: Sequence[Repo], folder: Path = CHECKOUTS) -> List[Checkout]:
    """Clone (or reuse) each repository under ``folder`` at its pinned commit; failures reported together."""
    checkouts, problems = [], []
    for repo in repos:
        try:
            path = _clone(repo, folder)
            checkouts.append(Checkout(repo, path, _git_head(path)))
        except BenchError as error:
            problems.append(f"could not fetch {repo.name} from {repo.url}: {error}")
    if problems:
        problems.append("(no network? clone them elsewhere and pass --checkouts DIR)")
        raise BenchError("\n".join(problems))
    return checkouts


def _clone(repo: Repo, folder: Path) -> Path:
    dest = folder / repo.dir_name
    if (dest / ".git").exists():
        if repo.commit and _git_head(dest) != repo.commit:
            _progress(f"checking out {repo.name} @ {repo.commit[:12]}")
            _git(["fetch", "--quiet", "--filter=blob:none", "origin", repo.commit], cwd=dest)
            _git(["checkout", "--quiet", "--detach", repo.commit], cwd=dest)
        return dest  # an unpinned clone is reused as it is: its commit is recorded with the results
    # Clone next to the destination and move it in place only once complete,
    # so an interrupted clone is never mistaken for a checkout.
    partial = folder / (repo.dir_name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    _progress(f"cloning {repo.url}")
    if repo.commit:
        _git(["clone", "--quiet", "--filter=blob:none", "--no-checkout", repo.url, str(partial)])
        _git(["checkout", "--quiet", "--detach", repo.commit], cwd=partial)
    else:
        _git(["clone", "--quiet", "--filter=blob:none", repo.url, str(partial)])
    partial.rename(dest)
    return dest


# --------------------------------------------------------------------------- source lines


def split_lines(text: str) -> List[str]:
    """Lines as Python counts them: ``\\n``, ``\\r\\n`` and ``\\r`` end a line (form feeds do not)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def notebook_cell_lines(notebook_text: str, cell: int) -> List[str]:
    """The source lines of cell ``cell`` (1-based, counting every cell, markdown too); [] when absent."""
    try:
        cells = json.loads(notebook_text).get("cells")
        source = cells[cell - 1]["source"] if cell >= 1 else None
    except (ValueError, AttributeError, LookupError, TypeError):
        return []
    if isinstance(source, list):
        source = "".join(part for part in source if isinstance(part, str))
    return split_lines(source) if isinstance(source, str) else []


class SourceFiles:
    """Reads each file of a checkout once; lines of ``.py``/YAML files, or of one notebook cell."""

    def __init__(self) -> None:
        self._texts: Dict[Path, str] = {}

    def lines(self, file: Path, cell: Optional[int] = None) -> List[str]:
        """The lines of ``file`` (of its cell ``cell`` for a notebook); [] when it cannot be read."""
        text = self._text(file)
        if cell is not None:
            return notebook_cell_lines(text, cell)
        return split_lines(text) if text else []

    def line(self, file: Path, row: int, cell: Optional[int] = None) -> str:
        """Line ``row`` (1-based) with its indentation; "" when there is no such line."""
        lines = self.lines(file, cell)
        return lines[row - 1] if 1 <= row <= len(lines) else ""

    def text(self, file: Path) -> str:
        """The whole text of ``file``; "" when it cannot be read."""
        return self._text(file)

    def _text(self, file: Path) -> str:
        if file not in self._texts:
            try:
                self._texts[file] = file.read_bytes().decode("utf-8-sig", errors="replace")
            except OSError:
                self._texts[file] = ""
        return self._texts[file]


# --------------------------------------------------------------------------- findings


@dataclass
class Finding:
    """One finding of the linter, normalised."""

    repo: str
    path: str  # relative to the checkout, forward slashes
    code: str
    row: int  # 1-based; within the cell for a notebook
    column: int  # 1-based; 0 when the linter gave none
    message: str
    cell: Optional[int] = None  # 1-based notebook cell, counting every cell
    fixable: bool = False
    applicability: str = ""  # "safe" / "unsafe" when fixable
    fix_message: str = ""
    line: str = ""  # the source line's text, stripped
    fingerprint: str = ""

    @property
    def where(self) -> str:
        """``path:row``, or ``path:cell N:row`` in a notebook."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.row}"

    def sort_key(self) -> Tuple[str, str, int, int, int, str]:
        """(repo, path, cell, row, column): the order sampling starts from."""
        return (self.repo, self.path, self.cell or 0, self.row, self.column, self.fingerprint)


@dataclass
class NotChecked:
    """A file the linter could not check (syntax error, unreadable, ...): an entry whose code is not MSP."""

    repo: str
    path: str
    kind: str
    message: str


@dataclass
class LintOutput:
    """What the linter printed for one repository, sorted out."""

    findings: List[Finding]
    not_checked: List[NotChecked]
    internal_errors: List[NotChecked]  # MSP000: a rule failed, its findings are missing
    malformed: int


def parse_linter_output(text: str, repo: str, checkout: Path) -> LintOutput:
    """Findings, files not checked, internal errors and the number of malformed entries in the linter's JSON.

    Unknown keys are ignored and optional ones (``cell``, ``fix``, column) may be missing; an
    MSP entry without a file name or a row is malformed and only counted. An ``MSP000`` entry
    is an internal error of the linter (a rule failed), never a finding.
    """
    try:
        entries = json.loads(text)
    except ValueError as error:
        start = text.strip()[:200] or "(nothing)"
        raise BenchError(
            f"the linter's output for {repo} is not valid JSON ({error}); it starts with: {start}"
        ) from None
    if not isinstance(entries, list):
        raise BenchError(f"the linter's output for {repo} is not a JSON list of findings")
    findings, not_checked, internal, malformed = [], [], [], 0
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
            malformed += 1
            continue
        path = repo_relative(entry["filename"], checkout)
        code = entry.get("code")
        if not (isinstance(code, str) and code.startswith("MSP")):
            kind = entry.get("name") if isinstance(entry.get("name"), str) else str(code)
            not_checked.append(NotChecked(repo, path, kind, str(entry.get("message", ""))))
            continue
        if code == INTERNAL_ERROR:
            internal.append(NotChecked(repo, path, code, str(entry.get("message", ""))))
            continue
        finding = _finding(entry, repo, path, code)
        if finding is None:
            malformed += 1
        else:
            findings.append(finding)
    return LintOutput(findings, not_checked, internal, malformed)


def _finding(entry: Dict[str, Any], repo: str, path: str, code: str) -> Optional[Finding]:
    location = entry.get("location")
    row = location.get("row") if isinstance(location, dict) else None
    if not _is_int(row) or row < 1:
        return None
    column = location.get("column")
    cell = entry.get("cell")
    fix = entry.get("fix")
    return Finding(
        repo=repo,
        path=path,
        code=code,
        row=row,
        column=column if _is_int(column) else 0,
        message=str(entry.get("message", "")),
        cell=cell if _is_int(cell) and cell >= 1 else None,
        fixable=isinstance(fix, dict),
        applicability=str(fix.get("applicability", "")) if isinstance(fix, dict) else "",
        fix_message=str(fix.get("message", "")) if isinstance(fix, dict) else "",
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def repo_relative(filename: str, checkout: Path) -> str:
    """``filename`` (absolute, or relative to the checkout) relative to the checkout, with forward slashes."""
    path = Path(filename)
    if not path.is_absolute():
        path = checkout / path
    for base, target in (
        (os.path.abspath(checkout), os.path.abspath(path)),
        (os.path.realpath(checkout), os.path.realpath(path)),
    ):
        relative = os.path.relpath(target, base)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative.replace(os.sep, "/")
    return filename.replace("\\", "/")


def add_fingerprints(findings: List[Finding], checkouts: Dict[str, Path], sources: SourceFiles) -> None:
    """Fill in each finding's stripped source line and its fingerprint.

    The fingerprint hashes (repo, path, code, line text), so it survives edits that
    only move the line. Findings that share one are told apart by an occurrence
    index in (cell, row, column) order: the first keeps the bare hash, later ones
    get ``-2``, ``-3``...
    """
    for finding in findings:
        file = checkouts[finding.repo] / finding.path
        finding.line = sources.line(file, finding.row, finding.cell).strip()
    seen: Dict[str, int] = {}
    for finding in sorted(findings, key=lambda f: (f.repo, f.path, f.cell or 0, f.row, f.column)):
        base = fingerprint(finding.repo, finding.path, finding.code, finding.line)
        seen[base] = seen.get(base, 0) + 1
        finding.fingerprint = base if seen[base] == 1 else f"{base}-{seen[base]}"


def fingerprint(repo: str, path: str, code: str, line: str) -> str:
    """The first 16 hex digits of sha1 over the repo, path, code and stripped line text."""
    text = "\0".join((repo, path, code, line.strip()))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- running the linter


def default_linter_command() -> List[str]:
    """``python -m ms_perflint`` with the interpreter running this script."""
    return [sys.executable, "-m", "ms_perflint"]


def parse_command(text: str) -> List[str]:
    """Split ``--linter-command``; a relative program path is made absolute, as the linter runs in the checkout."""
    try:
        command = shlex.split(text)
    except ValueError as error:
        raise BenchError(f"--linter-command {text!r}: {error}") from None
    if not command:
        raise BenchError("--linter-command is empty")
    if os.sep in command[0] or "/" in command[0]:
        command[0] = os.path.abspath(command[0])
    return command


def linter_version(command: Sequence[str]) -> str:
    """What ``<command> --version`` prints, e.g. ``ms-perflint 0.1.0``."""
    done = _run_linter([*command, "--version"], cwd=None, what="--version", timeout=120)
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return lines[0].strip() if lines else "unknown"


def linter_source(command: Sequence[str]) -> str:
    """The last git commit that changed the linter's package ("" when unknown), marked when it has uncommitted changes.

    Only for a ``... -m ms_perflint`` command: the same interpreter is asked where the
    package is. The version number alone does not tell rule revisions apart.
    """
    if list(command[-2:]) != ["-m", "ms_perflint"]:
        return ""
    probe = "import os, ms_perflint; print(os.path.dirname(os.path.abspath(ms_perflint.__file__)))"
    try:
        done = subprocess.run([*command[:-2], "-c", probe], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return ""
    package = Path(done.stdout.strip())
    if done.returncode != 0 or not package.is_dir():
        return ""
    try:  # the last commit that changed the package: it outlives the branch it was run from
        head = _git(["log", "-1", "--format=%H", "--", "."], cwd=package).strip()
    except BenchError:
        return ""
    if not head:
        return ""
    try:
        dirty = _git(["status", "--porcelain", "--", "."], cwd=package).strip()
    except BenchError:
        dirty = ""
    return head[:12] + (" with uncommitted changes" if dirty else "")


def lint(checkout: Checkout, command: Sequence[str], timeout: float) -> LintOutput:
    """Run the linter on one checkout as its own project; parse what it prints."""
    args = [*command, "--output-format", "json", "--no-cache", "--exit-zero", "-j2", os.path.abspath(checkout.path)]
    done = _run_linter(args, cwd=checkout.path, what=checkout.repo.name, timeout=timeout)
    return parse_linter_output(done.stdout, checkout.repo.name, checkout.path)


def count_files(checkout: Checkout, command: Sequence[str], timeout: float) -> int:
    """How many files the linter checks in the checkout (``--show-files``)."""
    args = [*command, "--show-files", os.path.abspath(checkout.path)]
    done = _run_linter(args, cwd=checkout.path, what=f"{checkout.repo.name} (--show-files)", timeout=timeout)
    return sum(1 for line in done.stdout.splitlines() if line.strip())


def _run_linter(args: Sequence[str], cwd: Optional[Path], what: str, timeout: float) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(
            list(args), cwd=cwd, capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout
        )
    except FileNotFoundError:
        raise BenchError(f"cannot run the linter: {args[0]} not found (see --linter-command)") from None
    except PermissionError:
        raise BenchError(f"cannot run the linter: {args[0]} is not executable (see --linter-command)") from None
    except subprocess.TimeoutExpired:
        raise BenchError(f"the linter took more than {timeout:g} s on {what} (see --timeout)") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:]) or "(no error output)"
        raise BenchError(f"the linter failed on {what} (exit code {done.returncode}):\n{tail}")
    return done


# --------------------------------------------------------------------------- saved results


@dataclass
class RunResult:
    """Everything one ``run`` learned: saved as JSON so that ``show`` and ``score`` need no re-lint."""

    set_name: str
    linter: str  # `--version` output, plus the source commit when known
    command: List[str]
    date: str  # ISO date (UTC) of the run
    repos: List[Dict[str, str]]  # name, url, commit (pinned), checkout_commit, checkout, what
    findings: List[Finding]
    not_checked: List[NotChecked] = field(default_factory=list)
    malformed: int = 0
    internal_errors: List[NotChecked] = field(default_factory=list)  # MSP000 entries: a rule failed
    seconds: Dict[str, float] = field(default_factory=dict)  # the lint's wall time per repository
    files: Dict[str, int] = field(default_factory=dict)  # files the linter checks per repository


def results_file(set_name: str) -> Path:
    """Where ``run`` saves the findings of a set."""
    return RESULTS / ("findings.json" if set_name == "development" else f"findings-{set_name}.json")


def save_results(result: RunResult, path: Path) -> None:
    """Write ``result`` to ``path`` (folders created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(result), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_results(path: Path, set_name: str) -> RunResult:
    """Read a findings file written by ``run``; a missing or damaged file is a BenchError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = RunResult(**data)
        result.findings = [Finding(**f) for f in data["findings"]]
        result.not_checked = [NotChecked(**n) for n in data["not_checked"]]
        result.internal_errors = [NotChecked(**n) for n in data.get("internal_errors", [])]
    except FileNotFoundError:
        raise BenchError(f"{path}: no saved findings; run `run.py run --set {set_name}` first") from None
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise BenchError(f"{path}: not a findings file written by run.py ({error}); run `run` again") from None
    if result.set_name != set_name:
        raise BenchError(f"{path} holds the {result.set_name} set, not {set_name}")
    return result


# --------------------------------------------------------------------------- sampling and labels


def sample(findings: Iterable[Finding], size: int, seed: int) -> Dict[str, List[Finding]]:
    """Each rule's sample: ``size`` findings drawn with ``Random(f"{seed}:{code}")``, or all when fewer.

    Each rule draws from its own findings with its own generator, so a change in
    one rule's findings never moves another rule's sample.
    """
    by_code: Dict[str, List[Finding]] = {}
    for finding in findings:
        by_code.setdefault(finding.code, []).append(finding)
    samples = {}
    for code in sorted(by_code):
        ordered = sorted(by_code[code], key=Finding.sort_key)
        chosen = ordered if len(ordered) <= size else random.Random(f"{seed}:{code}").sample(ordered, size)
        samples[code] = sorted(chosen, key=Finding.sort_key)
    return samples


@dataclass
class Label:
    """One hand label. ``verdict`` is act / wrong / not-worth, or "" while still to be decided."""

    fingerprint: str
    verdict: str
    why: str


def labels_file(set_name: str) -> Path:
    """The labels file of a set."""
    return HERE / ("labels.toml" if set_name == "development" else f"labels-{set_name}.toml")


def load_labels(path: Path) -> Dict[str, Label]:
    """Labels by fingerprint; a missing file means none yet. Mistakes name the file and the entry."""
    if not path.exists():
        return {}
    data = load_toml(path)
    unknown = sorted(set(data) - {"label"})
    if unknown:
        raise BenchError(f"{path}: unknown key(s) {', '.join(unknown)}; each label is a [[label]] table")
    entries = data.get("label", [])
    if not isinstance(entries, list):
        raise BenchError(f"{path}: `label` must be an array of tables ([[label]])")
    labels: Dict[str, Label] = {}
    for index, entry in enumerate(entries, 1):
        label = _label(path, index, entry)
        if label.fingerprint in labels:
            raise BenchError(f"{path}: label {index}: fingerprint {label.fingerprint} is labelled twice")
        labels[label.fingerprint] = label
    return labels


def _label(path: Path, index: int, entry: Any) -> Label:
    where = f"{path}: label {index}"
    if not isinstance(entry, dict):
        raise BenchError(f"{where} is not a table")
    fp = entry.get("fingerprint")
    if not isinstance(fp, str) or not fp:
        raise BenchError(f"{where}: `fingerprint` is missing (copy it from the stub `show` prints)")
    where += f" ({fp})"
    unknown = sorted(set(entry) - LABEL_KEYS)
    if unknown:
        raise BenchError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(LABEL_KEYS))}")
    verdict, why = entry.get("verdict", ""), entry.get("why", "")
    if verdict not in ("", *VERDICTS):
        raise BenchError(f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
    if not isinstance(why, str) or (verdict and not why.strip()):
        raise BenchError(f"{where}: `why` must say in one line why the verdict is {verdict}")
    return Label(fp, verdict, " ".join(why.split()))


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (quotes, backslashes and control characters escaped)."""
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif char == "\t":
            escaped.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            escaped.append(f"\\u{ord(char):04x}")
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


def label_stub(finding: Finding) -> str:
    """A ``[[label]]`` table for ``finding`` to paste into the labels file and complete."""
    lines = [
        "[[label]]",
        f"fingerprint = {toml_string(finding.fingerprint)}",
        f"code = {toml_string(finding.code)}",
        f"repo = {toml_string(finding.repo)}",
        f"path = {toml_string(finding.path)}",
    ]
    if finding.cell is not None:
        lines.append(f"cell = {finding.cell}")
    lines += [
        f"line = {toml_string(finding.line)}",
        'verdict = ""  # act | wrong | not-worth',
        'why = ""',
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- scoring


@dataclass
class RuleScore:
    """The benchmark's result for one rule."""

    code: str
    total: int
    per_repo: Dict[str, int]
    sampled: List[Finding]
    labelled: List[Tuple[Finding, Label]]
    unlabelled: List[Finding]

    def count(self, verdict: str) -> int:
        """How many labelled sampled findings have ``verdict``."""
        return sum(1 for _, label in self.labelled if label.verdict == verdict)

    @property
    def precision(self) -> Optional[float]:
        """act / labelled; None before anything is labelled."""
        return self.count("act") / len(self.labelled) if self.labelled else None


def score(result: RunResult, labels: Dict[str, Label], size: int, seed: int) -> List[RuleScore]:
    """One RuleScore per rule that has findings, in code order."""
    repo_names = [repo["name"] for repo in result.repos]
    scores = []
    for code, sampled in sample(result.findings, size, seed).items():
        per_repo = {name: 0 for name in repo_names}
        for finding in result.findings:
            if finding.code == code:
                per_repo[finding.repo] = per_repo.get(finding.repo, 0) + 1
        decided = [(f, labels[f.fingerprint]) for f in sampled if _has_verdict(labels, f)]
        undecided = [f for f in sampled if not _has_verdict(labels, f)]
        scores.append(RuleScore(code, sum(per_repo.values()), per_repo, sampled, decided, undecided))
    return scores


def _has_verdict(labels: Dict[str, Label], finding: Finding) -> bool:
    label = labels.get(finding.fingerprint)
    return label is not None and label.verdict != ""


def unused_labels(result: RunResult, labels: Dict[str, Label], scores: Sequence[RuleScore]) -> Tuple[int, int]:
    """(labels matching no current finding, labels of findings outside the sample)."""
    current = {f.fingerprint for f in result.findings}
    sampled = {f.fingerprint for s in scores for f in s.sampled}
    stale = sum(1 for fp in labels if fp not in current)
    outside = sum(1 for fp in labels if fp in current and fp not in sampled)
    return stale, outside


def check_failures(scores: Sequence[RuleScore], min_precision: float) -> List[str]:
    """Why ``--check`` fails: rules under the bar and sampled findings without a verdict."""
    failures = []
    for rule in scores:
        if rule.precision is not None and rule.precision < min_precision:
            failures.append(
                f"{rule.code}: precision {percent(rule.precision)} ({rule.count('act')} of {len(rule.labelled)}) "
                f"is under {percent(min_precision)}"
            )
        if rule.unlabelled:
            failures.append(f"{rule.code}: {len(rule.unlabelled)} sampled finding(s) have no verdict")
    return failures


def percent(value: Optional[float]) -> str:
    """``0.8`` -> ``80%``; None -> ``-``."""
    return "-" if value is None else f"{100 * value:.0f}%"


# --------------------------------------------------------------------------- text report


def column_names(repo_names: Sequence[str]) -> Dict[str, str]:
    """Short column titles: the repository name without its owner, unless two share it."""
    shorts = [name.split("/", 1)[-1] for name in repo_names]
    return {name: short if shorts.count(short) == 1 else name for name, short in zip(repo_names, shorts)}


def text_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An aligned plain-text table: first column left, the others right-aligned."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = []
    for row in cells:
        parts = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def report(
    result: RunResult, scores: Sequence[RuleScore], labels: Dict[str, Label], size: int, seed: int, verbose: bool
) -> str:
    """The summary ``run`` and ``score`` print."""
    out = [
        f"Precision benchmark, {result.set_name} set: {len(result.repos)} repositories, {result.linter}, "
        f"linted {result.date}; seed {seed}, up to {size} sampled findings per rule",
        "",
    ]
    if not scores:
        out.append("No findings.")
    else:
        header = ["rule", "findings", "sampled", "labelled", "act", "wrong", "not-worth", "precision"]
        rows = [
            [s.code, s.total, len(s.sampled), len(s.labelled), s.count("act"), s.count("wrong"),
             s.count("not-worth"), percent(s.precision)]
            for s in scores
        ]
        out += [text_table(header, rows), "", "Findings per repository:"]
        names = column_names([repo["name"] for repo in result.repos])
        split_rows = [[s.code, *(s.per_repo.get(name, 0) for name in names)] for s in scores]
        out.append(text_table(["rule", *names.values()], split_rows))
    out += ["", _not_checked_line(result)]
    if result.internal_errors:
        out.append(f"Internal errors (MSP000, a rule failed): {len(result.internal_errors)}"
                   f"{_per_repo(result.internal_errors)}")
    if result.malformed:
        out.append(f"Malformed linter entries skipped (no file name or row): {result.malformed}")
    unverified = [repo["name"] for repo in result.repos if not repo["checkout_commit"]]
    if unverified:
        out.append(f"Commits not verified (checkouts without .git): {', '.join(unverified)}")
    out += _label_lines(result, scores, labels, verbose)
    return "\n".join(out)


def _not_checked_line(result: RunResult) -> str:
    """Files the linter could not check, and (apart) notebooks checked with some cells skipped (notices)."""
    errors = [item for item in result.not_checked if item.kind != "Notice"]
    line = f"Files not checked (the linter could not read or parse them): {len(errors)}" + _per_repo(errors)
    notices = [item for item in result.not_checked if item.kind == "Notice"]
    if notices:
        files = {(item.repo, item.path) for item in notices}
        line += f"\nNotebook cells skipped as not Python (the rest of each notebook was checked): {len(notices)} " \
                f"in {len(files)} notebook(s)"
    return line


def _per_repo(items: Sequence[NotChecked]) -> str:
    counts: Dict[str, int] = {}
    for item in items:
        counts[item.repo] = counts.get(item.repo, 0) + 1
    return " (" + ", ".join(f"{name} {n}" for name, n in counts.items()) + ")" if counts else ""


def _label_lines(result: RunResult, scores: Sequence[RuleScore], labels: Dict[str, Label], verbose: bool) -> List[str]:
    out = []
    waiting = [(s.code, len(s.unlabelled)) for s in scores if s.unlabelled]
    if waiting:
        split = ", ".join(f"{code} {n}" for code, n in waiting)
        out.append(f"Sampled findings without a verdict: {sum(n for _, n in waiting)} ({split}); "
                   "`run.py show` prints them with their code and a label stub")
    stale, outside = unused_labels(result, labels, scores)
    if stale:
        out.append(f"Labels matching no current finding (code or rule changed): {stale}")
    if outside:
        out.append(f"Labels of findings outside the current sample (not counted): {outside}")
    if verbose:
        for rule in scores:
            out += [f"  {rule.code} {f.fingerprint} {f.repo} {f.where}" for f in rule.unlabelled]
        out += [f"  not checked: {n.repo} {n.path}: {n.message}" for n in result.not_checked]
    return out


# --------------------------------------------------------------------------- show


def show(
    result: RunResult, scores: Sequence[RuleScore], labels_path: Path, context: int, codes: Sequence[str], limit: int
) -> str:
    """Each sampled finding without a verdict: where it is, its message, the code around it and a label stub."""
    wanted = {code.upper() for code in codes}
    todo = [
        (rule.code, number, len(rule.unlabelled), finding)
        for rule in scores
        if not wanted or rule.code in wanted
        for number, finding in enumerate(rule.unlabelled, 1)
    ]
    if limit:
        todo = todo[:limit]
    if not todo:
        return "Every sampled finding has a verdict."
    sources = SourceFiles()
    intro = (
        f"{len(todo)} sampled finding(s) without a verdict. Read the code, paste each [[label]] stub into "
        f"{_display(labels_path)} and fill in verdict and why (bench/precision/README.md says how); "
        "`ms-perflint --explain CODE` prints what a rule claims."
    )
    blocks = [
        _show_one(result, sources, finding, f"{code} {number}/{count}", context)
        for code, number, count, finding in todo
    ]
    return "\n".join([intro, *blocks])


def _show_one(result: RunResult, sources: SourceFiles, finding: Finding, title: str, context: int) -> str:
    repo = next(repo for repo in result.repos if repo["name"] == finding.repo)
    file = Path(repo["checkout"]) / finding.path
    lines = ["=" * 100, f"{title}  {finding.repo}  {finding.where}:{finding.column}", f"file: {file}"]
    url = github_url(finding, repo["checkout_commit"] or repo["commit"])
    if url:
        lines.append(f"web:  {url}")
    lines.append(f"message: {finding.message}")
    if finding.fixable:
        lines.append(f"fix ({finding.applicability or 'unknown safety'}): {finding.fix_message}")
    lines += ["", *source_context(sources, file, finding, context), "", label_stub(finding)]
    return "\n".join(lines)


def source_context(sources: SourceFiles, file: Path, finding: Finding, context: int) -> List[str]:
    """``context`` numbered lines before and after the finding's line, which is marked with ``>``."""
    lines = sources.lines(file, finding.cell)
    if not lines:
        return [f"(cannot read {file}{f' cell {finding.cell}' if finding.cell else ''})"]
    first, last = max(1, finding.row - context), min(len(lines), finding.row + context)
    width = len(str(last))
    shown = [
        f"{'>' if row == finding.row else ' '} {row:>{width}} | {lines[row - 1].rstrip()}"
        for row in range(first, last + 1)
    ]
    if finding.row > len(lines) or lines[finding.row - 1].strip() != finding.line:
        shown.append("(warning: the file changed since `run`; this line is not the one that was reported)")
    return shown


def github_url(finding: Finding, commit: str) -> str:
    """A link to the finding's line on GitHub at ``commit`` ("" without a commit)."""
    if not commit:
        return ""
    anchor = "" if finding.cell is not None else f"#L{finding.row}"
    return f"https://github.com/{finding.repo}/blob/{commit}/{finding.path}{anchor}"


# --------------------------------------------------------------------------- blind draw of training programs
#
# A *training program* is decided here from the file's text alone, with a small test of
# its own, so that recall is measured independently of the linter's notion of a program:
#
# 1. an entry: a ``.ipynb`` notebook, or a ``.py`` file with an ``if __name__ == "__main__":``
#    block or module-level code (a top-level loop or ``with``, or a call statement; calls of
#    private names and of ``register*`` are library set-up, not code that runs a program);
# 2. MindSpore code: it imports a package whose name starts with ``mind`` (mindspore,
#    mindformers, mindnlp, mindtorch, mindcv, ...); a plain PyTorch copy is not one;
# 3. it trains: its code holds one of TRAINING_MARKERS;
# 4. it is not a test, documentation or a setup file (EXCLUDED_DIRS, EXCLUDED_FILES,
#    ``test_*.py``, ``*_test.py``); hidden folders are skipped.
#
# Only the code cells of a notebook count.

TRAINING_MARKERS = {
    ".train(": re.compile(r"\.train\("),  # Model.train(...), trainer.train(), a torch-style model.train()
    ".fit( on a Model": re.compile(r"\.fit\((?s:.*)(?<!\w)Model\(|(?<!\w)Model\((?s:.*)\.fit\("),
    "TrainOneStepCell": re.compile(r"TrainOneStep\w*Cell"),  # and ...WithLossScaleCell
    "value_and_grad": re.compile(r"\bvalue_and_grad\b"),
    "run_mindformer": re.compile(r"\brun_mindformer\b"),
    "mindformers Trainer(": re.compile(r"\bmindformers\b(?s:.*)(?<!\w)Trainer\(|(?<!\w)Trainer\((?s:.*)\bmindformers\b"),
    "build_train_network": re.compile(r"\bbuild_train_network\b"),
}
EXCLUDED_DIRS = {"test", "tests", "testing", "unittest", "unittests", "doc", "docs", "__pycache__"}
EXCLUDED_FILES = {"setup.py", "conftest.py", "conf.py", "__init__.py"}
MIND_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+mind\w*", re.M)
MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*(['\"])__main__\1\s*:", re.M)
MAIN_GUARD_REVERSED = re.compile(r"^if\s+(['\"])__main__\1\s*==\s*__name__\s*:", re.M)


def training_markers(code: str) -> List[str]:
    """The TRAINING_MARKERS found in ``code`` (the names, in the table's order)."""
    return [name for name, pattern in TRAINING_MARKERS.items() if pattern.search(code)]


def notebook_code(text: str) -> Optional[str]:
    """The code cells of a notebook joined by blank lines; None when it is not a notebook."""
    try:
        cells = json.loads(text).get("cells")
    except (ValueError, AttributeError):
        return None
    if not isinstance(cells, list):
        return None
    parts = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        if isinstance(source, list):
            source = "".join(part for part in source if isinstance(part, str))
        if isinstance(source, str):
            parts.append(source)
    return "\n\n".join(parts)


def has_entry_code(code: str) -> bool:
    """A ``__main__`` block, or module-level code that runs something (see the section's comment)."""
    if MAIN_GUARD.search(code) or MAIN_GUARD_REVERSED.search(code):
        return True
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False  # nothing can be told about code that does not parse
    return any(_runs_something(statement) for statement in tree.body)


def _runs_something(statement: ast.stmt) -> bool:
    if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
        return True
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    target = func.value if isinstance(func, ast.Attribute) else None
    if isinstance(target, ast.Name) and target.id == "__all__":
        return False  # __all__.extend(...)
    return not (name.startswith("_") or "register" in name.lower())


def is_excluded(relative: str) -> bool:
    """A test, documentation or setup file, or one under a hidden folder (``relative`` uses forward slashes)."""
    *folders, name = relative.split("/")
    if any(folder.startswith(".") or folder.lower() in EXCLUDED_DIRS for folder in folders):
        return True
    stem = name.rsplit(".", 1)[0]
    return name in EXCLUDED_FILES or stem.startswith("test_") or stem.endswith("_test")


def program_markers(relative: str, text: str) -> List[str]:
    """The training markers of ``relative`` when it is a training program by the test above, else []."""
    if is_excluded(relative):
        return []
    if relative.endswith(".ipynb"):
        code = notebook_code(text)
        if code is None:
            return []
    elif relative.endswith(".py"):
        code = text
        if not has_entry_code(code):
            return []
    else:
        return []
    if not MIND_IMPORT.search(code):
        return []
    return training_markers(code)


def find_programs(root: Path) -> List[str]:
    """The training programs under ``root``: paths relative to it (forward slashes), sorted."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(s for s in subfolders if not s.startswith(".") and s.lower() not in EXCLUDED_DIRS)
        for name in files:
            if not name.endswith((".py", ".ipynb")):
                continue
            file = Path(folder) / name
            relative = file.relative_to(root).as_posix()
            try:
                text = file.read_bytes().decode("utf-8-sig", errors="replace")
            except OSError:
                continue
            if program_markers(relative, text):
                found.append(relative)
    return sorted(found)


def draw_programs(programs: Dict[str, List[str]], count: int, seed: int) -> List[Tuple[str, str]]:
    """``count`` (repo, path) pairs drawn uniformly from all programs with ``Random(f"draw:{seed}")``.

    The pool is sorted first, so the draw depends only on the programs and the seed;
    the result is sorted by repository (in ``programs``' order) and path.
    """
    pool = sorted((repo, path) for repo, paths in programs.items() for path in paths)
    chosen = pool if count >= len(pool) else random.Random(f"draw:{seed}").sample(pool, count)
    order = {repo: index for index, repo in enumerate(programs)}
    return sorted(chosen, key=lambda pair: (order[pair[0]], pair[1]))


@dataclass(frozen=True)
class Rule:
    """A rule the auditor may judge: its code and name."""

    code: str
    name: str


def linter_rules(command: Sequence[str]) -> List[Rule]:
    """The default-selected rules, from ``<command> --list-rules json``."""
    done = _run_linter([*command, "--list-rules", "json"], cwd=None, what="--list-rules", timeout=120)
    try:
        entries = json.loads(done.stdout)
        return [Rule(e["code"], e["name"]) for e in entries if e.get("default")]
    except (ValueError, TypeError, KeyError, AttributeError):
        raise BenchError("`--list-rules json` did not print a JSON list of rules") from None


def audit_template(
    drawn: Sequence[Tuple[str, str]], commits: Dict[str, str], programs: Dict[str, List[str]],
    rules: Sequence[Rule], set_name: str, seed: int, count: int, date: str,
) -> str:
    """The judgement template of a draw: a header, then one ``[[program]]`` table per drawn program."""
    drawn_per_repo = {repo: 0 for repo in programs}
    for repo, _ in drawn:
        drawn_per_repo[repo] += 1
    total = sum(len(paths) for paths in programs.values())
    width = max(len(repo) for repo in programs)
    out = [
        f"# Blind audit of {set_name}-set training programs (bench/precision/audits/README.md).",
        f"# Drawn {date}: {len(drawn)} of {total} programs, seed {seed}, with",
        f"#   python bench/precision/run.py draw --checkouts DIR --set {set_name} --count {count} --seed {seed}",
        "# Judge each program from its code with shared/RULES.md in hand, and commit the judgements",
        "# BEFORE looking at the linter's output for these programs.",
        "#",
        "# programs per repository (drawn / all):",
        *(f"#   {repo:<{width}}  {drawn_per_repo[repo]:>3} / {len(paths)}" for repo, paths in programs.items()),
        "#",
        "# rules:",
        *(f"#   {rule.code} {rule.name}" for rule in rules),
        "",
        f"set = {toml_string(set_name)}",
        f"seed = {seed}",
        f"count = {count}",
        f"drawn = {toml_string(date)}",
    ]
    judged = "[" + ", ".join(toml_string(rule.code) for rule in rules) + "]"
    for repo, path in drawn:
        out += [
            "",
            "[[program]]",
            f"repo = {toml_string(repo)}",
            f"commit = {toml_string(commits[repo])}",
            f"entry = {toml_string(path)}",
            'device = ""  # the device the default run targets, as you read it: "Ascend", "GPU", "CPU"',
            "files = []  # the other files read as part of the program (paths in the repo); the entry always counts",
            f"judged = {judged}  # the rules you considered; drop a rule you did not judge",
            'notes = ""',
            "# [[program.problem]]   # one per problem a performance engineer would change, per rule",
            '# code = "MSP103"',
            f"# path = {toml_string(path)}  # where the finding should be reported (the user's line)",
            "# line = 120",
            '# why = "every-epoch synchronous save of a 25 M-parameter ResNet over 90 epochs"',
        ]
    return "\n".join(out) + "\n"


def command_draw(args: argparse.Namespace) -> int:
    """Find the training programs of the set, draw ``--count`` of them and write the judgement template."""
    if not args.checkouts:
        raise BenchError("draw needs --checkouts DIR (the checkouts the auditors will read)")
    if args.out.exists() and not args.force:
        raise BenchError(f"{args.out} exists: it may hold judgements; pass --force to overwrite it")
    repos = load_manifest(args.manifest)[args.set]
    checkouts = find_checkouts(repos, Path(args.checkouts))
    programs = {checkout.repo.name: find_programs(checkout.path) for checkout in checkouts}
    if not any(programs.values()):
        raise BenchError(f"no training programs found in the {args.set} set")
    command = parse_command(args.linter_command) if args.linter_command else default_linter_command()
    for earlier in args.exclude or ():  # a report draw never repeats the programs a tuning draw held
        taken = {(p.get("repo"), p.get("entry")) for p in load_toml(earlier).get("program", [])}
        programs = {repo: [path for path in paths if (repo, path) not in taken] for repo, paths in programs.items()}
    drawn = draw_programs(programs, args.count, args.seed)
    commits = {c.repo.name: c.commit or c.repo.commit for c in checkouts}
    date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    text = audit_template(drawn, commits, programs, linter_rules(command), args.set, args.seed, args.count, date)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    total = sum(len(paths) for paths in programs.values())
    print(f"{len(drawn)} of {total} training programs drawn (seed {args.seed}); template written to {_display(args.out)}")
    for repo, path in drawn:
        print(f"  {repo}  {path}")
    return 0


# --------------------------------------------------------------------------- blind audit: compare
#
# The judged problems of a draw (audits/README.md) are compared with the linter's findings in
# the drawn programs' files. Lines are compared in the judgements' coordinates: a ``.py`` or
# YAML file's own lines; a notebook's lines counted through its code cells joined in order
# (the first line of each code cell follows the last line of the one before), as the judges
# count them. A finding answers a judged problem of its program with the same rule and file
# when its line is within MATCH_LINES of the problem's, or on the same statement.

MATCH_LINES = 3
PROGRAM_KEYS = {"repo", "commit", "entry", "device", "files", "judged", "notes", "problem", "adjudicated"}
PROBLEM_KEYS = {"code", "path", "line", "why"}
ADJUDICATED_KEYS = {"code", "path", "line", "verdict", "why"}
ALONE = 5  # a rule with fewer cases (judged problems + findings) in a draw is not judged alone


@dataclass
class Problem:
    """A judged problem: where the finding should be, and why."""

    code: str
    path: str
    line: int
    why: str


@dataclass
class Adjudication:
    """The verdict on a finding that answered no judged problem, added after comparing."""

    code: str
    path: str
    line: int
    verdict: str
    why: str


@dataclass
class Program:
    """A drawn, judged program."""

    number: int  # 1-based, in the file's order
    repo: str
    commit: str
    entry: str
    files: List[str]  # the entry first, then the judged files, then any problem's file not listed
    judged: List[str]
    problems: List[Problem]
    adjudicated: List[Adjudication]


def load_audit(path: Path) -> List[Program]:
    """The programs of a judgement file, validated; mistakes name the file and the program."""
    data = load_toml(path)
    entries = data.get("program")
    if not isinstance(entries, list) or not entries:
        raise BenchError(f"{path}: no [[program]] tables; is it a judgement file written by `run.py draw`?")
    return [_program(path, number, entry) for number, entry in enumerate(entries, 1)]


def _program(path: Path, number: int, entry: Any) -> Program:
    where = f"{path}: program {number}"
    if not isinstance(entry, dict):
        raise BenchError(f"{where} is not a table")
    for key in ("repo", "commit", "entry"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise BenchError(f"{where}: `{key}` is missing or not a string")
    where += f" ({entry['entry']})"
    _no_unknown_keys(where, entry, PROGRAM_KEYS)
    files, judged = entry.get("files", []), entry.get("judged", [])
    for key, value in (("files", files), ("judged", judged)):
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise BenchError(f"{where}: `{key}` must be a list of strings")
    problems = [Problem(**_item(where, "problem", i, item, PROBLEM_KEYS))
                for i, item in enumerate(_tables(where, entry, "problem"), 1)]
    adjudicated = [Adjudication(**_item(where, "adjudicated", i, item, ADJUDICATED_KEYS))
                   for i, item in enumerate(_tables(where, entry, "adjudicated"), 1)]
    for i, item in enumerate(adjudicated, 1):
        if item.verdict not in VERDICTS:
            raise BenchError(f"{where}: adjudicated {i}: verdict {item.verdict!r} is not one of {', '.join(VERDICTS)}")
    ordered = [entry["entry"], *files, *(p.path for p in problems)]
    return Program(number, entry["repo"], entry["commit"].lower(), entry["entry"],
                   list(dict.fromkeys(ordered)), [code.upper() for code in judged], problems, adjudicated)


def _tables(where: str, entry: Dict[str, Any], key: str) -> List[Any]:
    items = entry.get(key, [])
    if not isinstance(items, list):
        raise BenchError(f"{where}: `{key}` must be an array of tables ([[program.{key}]])")
    return items


def _item(where: str, kind: str, index: int, item: Any, keys: set) -> Dict[str, Any]:
    where = f"{where}: {kind} {index}"
    if not isinstance(item, dict):
        raise BenchError(f"{where} is not a table")
    _no_unknown_keys(where, item, keys)
    for key in sorted(keys):
        want = int if key == "line" else str
        value = item.get(key)
        if not isinstance(value, want) or isinstance(value, bool) or (want is int and value < 1):
            raise BenchError(f"{where}: `{key}` is missing or not a {'line number' if want is int else 'string'}")
    return {key: (item[key].upper() if key == "code" else item[key]) for key in keys}


def _no_unknown_keys(where: str, table: Dict[str, Any], keys: set) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise BenchError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(keys))}")


# ----- lines in the judgements' coordinates


def code_cell_offsets(notebook_text: str) -> Dict[int, int]:
    """For each cell (1-based, counting every cell), the number of code-cell lines before it."""
    try:
        cells = json.loads(notebook_text).get("cells")
    except (ValueError, AttributeError):
        return {}
    if not isinstance(cells, list):
        return {}
    offsets, total = {}, 0
    for number, cell in enumerate(cells, 1):
        offsets[number] = total
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source")
            if isinstance(source, list):
                source = "".join(part for part in source if isinstance(part, str))
            total += len(split_lines(source)) if isinstance(source, str) else 0
    return offsets


class Statements:
    """The line of a finding in the judgements' coordinates, and the statement a line belongs to."""

    def __init__(self, sources: SourceFiles) -> None:
        self._sources = sources
        self._offsets: Dict[Path, Dict[int, int]] = {}
        self._spans: Dict[Tuple[Path, Optional[int]], List[Tuple[int, int]]] = {}

    def line(self, file: Path, finding: Finding) -> int:
        """The finding's line: its row, or in a notebook its row counted through the code cells."""
        if finding.cell is None:
            return finding.row
        return self._cell_offsets(file).get(finding.cell, 0) + finding.row

    def statement(self, file: Path, line: int) -> Optional[Tuple[int, int]]:
        """The first and last line of the innermost statement holding ``line`` (the header of a compound one)."""
        cell, row, offset = None, line, 0
        if file.suffix == ".ipynb":
            located = self._locate(file, line)
            if located is None:
                return None
            cell, offset = located
            row = line - offset
        spans = [span for span in self._statement_spans(file, cell) if span[0] <= row <= span[1]]
        if not spans:
            return None
        first, last = min(spans, key=lambda span: (span[1] - span[0], -span[0]))
        return first + offset, last + offset

    def _cell_offsets(self, file: Path) -> Dict[int, int]:
        if file not in self._offsets:
            self._offsets[file] = code_cell_offsets(self._sources.text(file))
        return self._offsets[file]

    def _locate(self, file: Path, line: int) -> Optional[Tuple[int, int]]:
        """The code cell holding a notebook line, with that cell's offset."""
        offsets = self._cell_offsets(file)
        for cell in sorted(offsets, reverse=True):
            if offsets[cell] < line and self._sources.lines(file, cell) and self._is_code(file, cell):
                return cell, offsets[cell]
        return None

    def _is_code(self, file: Path, cell: int) -> bool:
        try:
            return json.loads(self._sources.text(file))["cells"][cell - 1].get("cell_type") == "code"
        except (ValueError, LookupError, TypeError, AttributeError):
            return False

    def _statement_spans(self, file: Path, cell: Optional[int]) -> List[Tuple[int, int]]:
        key = (file, cell)
        if key not in self._spans:
            lines = self._sources.lines(file, cell)
            if cell is not None:  # IPython magics and shell lines are not Python: keep their place, drop the text
                lines = ["" if re.match(r"\s*[%!]", text) else text for text in lines]
            self._spans[key] = statement_spans("\n".join(lines)) if file.suffix in (".py", ".ipynb") else []
        return self._spans[key]


def statement_spans(code: str) -> List[Tuple[int, int]]:
    """(first, last) line of every statement of ``code``: a simple one whole, a compound one its header."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    spans = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            spans.append((node.lineno, max(node.lineno, body[0].lineno - 1)))
        else:
            spans.append((node.lineno, node.end_lineno or node.lineno))
    return spans


# ----- matching


@dataclass
class Compared:
    """A finding in a drawn program, as compared: ``problem`` is the index of the judged problem it answers."""

    program: int
    finding: Finding
    line: int  # in the judgements' coordinates
    problem: Optional[int] = None
    adjudication: Optional[Adjudication] = None
    near: Optional[int] = None  # not judged, but near a judged problem another finding answers: its line

    @property
    def status(self) -> str:
        """found, or the adjudication's verdict, or pending."""
        if self.problem is not None:
            return "found"
        return self.adjudication.verdict if self.adjudication else "pending"


@dataclass
class ProgramResult:
    """One program's comparison: each judged problem's finding (or None) and its findings of judged rules."""

    program: Program
    answers: List[Optional[Compared]]  # per problem
    findings: List[Compared]
    other_rules: int  # findings of rules not in the program's `judged`
    stale: List[Adjudication]  # adjudications that match no unjudged finding


def match(problems: Sequence[Tuple[int, Optional[Tuple[int, int]]]],
          findings: Sequence[Tuple[int, Optional[Tuple[int, int]]]]) -> Dict[int, int]:
    """The most problems answered, one finding each: {problem index: finding index}.

    Each item is (line, statement span or None). A finding may answer a problem when its line
    is within MATCH_LINES of the problem's, or when both are in the same statement. Nearer
    findings are tried first (augmenting paths, so an early choice never costs a later problem).
    """
    def near(problem: Tuple[int, Any], finding: Tuple[int, Any]) -> bool:
        same = problem[1] is not None and problem[1] == finding[1]
        return same or abs(problem[0] - finding[0]) <= MATCH_LINES

    candidates = [
        sorted((j for j, f in enumerate(findings) if near(p, f)), key=lambda j: (abs(findings[j][0] - p[0]), j))
        for p in problems
    ]
    owner: Dict[int, int] = {}  # finding index -> problem index

    def assign(i: int, seen: set) -> bool:
        for j in candidates[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or assign(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(len(problems)):
        assign(i, set())
    return {i: j for j, i in owner.items()}


def compare_program(program: Program, findings: Sequence[Finding], checkout: Path, statements: Statements
                    ) -> ProgramResult:
    """Match the findings in ``program``'s files to its judged problems, rule by rule and file by file."""
    files = set(program.files)
    mine = [f for f in findings if f.repo == program.repo and f.path in files]
    judged = [f for f in mine if f.code in program.judged]
    compared = [Compared(program.number, f, statements.line(checkout / f.path, f)) for f in judged]
    answers: List[Optional[Compared]] = [None] * len(program.problems)
    groups = {(p.code, p.path) for p in program.problems}
    for code, path in sorted(groups):
        indexes = [i for i, p in enumerate(program.problems) if (p.code, p.path) == (code, path)]
        hits = [c for c in compared if (c.finding.code, c.finding.path) == (code, path)]
        file = checkout / path
        pairs = match([(program.problems[i].line, statements.statement(file, program.problems[i].line))
                       for i in indexes],
                      [(c.line, statements.statement(file, c.line)) for c in hits])
        for i, j in pairs.items():
            hits[j].problem = indexes[i]
            answers[indexes[i]] = hits[j]
        for j, hit in enumerate(hits):  # a second finding on an answered problem: left to the adjudication
            if hit.problem is None:
                hit.near = next((program.problems[indexes[i]].line for i in pairs
                                 if match([(program.problems[indexes[i]].line,
                                            statements.statement(file, program.problems[indexes[i]].line))],
                                          [(hit.line, statements.statement(file, hit.line))])), None)
    stale = []
    for adjudication in program.adjudicated:
        target = next((c for c in compared if c.problem is None and c.adjudication is None
                       and (c.finding.code, c.finding.path, c.line) ==
                       (adjudication.code, adjudication.path, adjudication.line)), None)
        if target is None:
            stale.append(adjudication)
        else:
            target.adjudication = adjudication
    compared.sort(key=lambda c: (c.finding.code, c.finding.path, c.line))
    return ProgramResult(program, answers, compared, len(mine) - len(judged), stale)


# ----- scoring


@dataclass
class RuleTally:
    """A rule's figures over a draw."""

    code: str
    judged: int = 0  # judged problems
    found: int = 0
    findings: int = 0  # findings of the rule in programs that judge it
    verdicts: Dict[str, int] = field(default_factory=lambda: {verdict: 0 for verdict in (*VERDICTS, "pending")})

    @property
    def missed(self) -> int:
        """Judged problems without a finding."""
        return self.judged - self.found

    @property
    def unjudged(self) -> int:
        """Findings that answer no judged problem."""
        return self.findings - self.found

    @property
    def cases(self) -> int:
        """Judged problems plus findings: under ALONE, the rule is not judged alone."""
        return self.judged + self.findings

    @property
    def recall(self) -> Optional[float]:
        """found / judged problems; None without judged problems."""
        return self.found / self.judged if self.judged else None

    def precision(self) -> Optional[Tuple[float, float]]:
        """(lowest, highest) precision: pending findings counted wrong, then right; None without findings."""
        if not self.findings:
            return None
        right = self.found + self.verdicts["act"]
        return right / self.findings, (right + self.verdicts["pending"]) / self.findings


def tally(results: Sequence[ProgramResult]) -> List[RuleTally]:
    """Per rule (code order), over all programs; a rule counts only in the programs that judged it."""
    rules: Dict[str, RuleTally] = {}
    for result in results:
        for code in result.program.judged:
            rules.setdefault(code, RuleTally(code))
        for problem, answer in zip(result.program.problems, result.answers):
            rule = rules.setdefault(problem.code, RuleTally(problem.code))
            rule.judged += 1
            rule.found += answer is not None
        for item in result.findings:
            rule = rules[item.finding.code]
            rule.findings += 1
            if item.problem is None:
                rule.verdicts[item.status] += 1
    return [rules[code] for code in sorted(rules)]


def total_tally(rules: Sequence[RuleTally]) -> RuleTally:
    """All rules together."""
    total = RuleTally("all")
    for rule in rules:
        total.judged += rule.judged
        total.found += rule.found
        total.findings += rule.findings
        for verdict, count in rule.verdicts.items():
            total.verdicts[verdict] += count
    return total


def precision_text(rule: RuleTally) -> str:
    """``80%``, or ``40-80%`` while findings are pending; ``-`` without findings."""
    bounds = rule.precision()
    if bounds is None:
        return "-"
    low, high = bounds
    return percent(low) if low == high else f"{percent(low)[:-1]}-{percent(high)}"


# ----- report


def compare_report(audit: Path, run: RunResult, results: Sequence[ProgramResult], rules: Sequence[RuleTally]) -> str:
    """What ``compare`` prints: per-rule figures, then every miss and every finding not judged."""
    problems = sum(len(r.program.problems) for r in results)
    out = [
        f"Blind audit {_display(audit)}: {len(results)} programs, {problems} judged problems; "
        f"{run.linter}, linted {run.date}",
    ]
    unverified = [repo["name"] for repo in run.repos if not repo["checkout_commit"]]
    if unverified:
        out.append(f"Commits not verified (plain copies without .git, taken as the judged commit): "
                   f"{', '.join(unverified)}")
    if run.internal_errors:
        out.append(f"WARNING: {len(run.internal_errors)} internal error(s) (MSP000): some rules' findings are "
                   f"missing, so their recall is too low:")
        out += internal_error_lines(run.internal_errors, verbose=False)
    header = ["rule", "judged", "found", "missed", "findings", "not judged", "act", "wrong", "not-worth",
              "pending", "recall", "precision", ""]
    rows = [_tally_row(rule) for rule in [*rules, total_tally(rules)] if rule.cases or rule.code == "all"]
    out += ["", text_table(header, rows),
            f"(judged = judged problems; recall = found / judged; precision = (found + act) / findings, a range "
            f"while findings are pending; fewer than {ALONE} cases (judged + findings): not judged alone)"]
    silent = [rule.code for rule in rules if not rule.cases]
    if silent:
        out.append(f"Judged, with no problem and no finding in these programs: {', '.join(silent)}")
    out += ["", "Per program (problems found / judged, findings of judged rules, findings of other rules):"]
    for result in results:
        found = sum(answer is not None for answer in result.answers)
        out.append(f"  {result.program.number:>2}. {result.program.repo} {result.program.entry}: "
                   f"{found}/{len(result.program.problems)}, {len(result.findings)}, {result.other_rules}")
    out += ["", "Missed (judged problems without a finding):"]
    missed = [(r, p) for r in results for p, answer in zip(r.program.problems, r.answers) if answer is None]
    out += [f"  {p.code}  {r.program.repo}  {p.path}:{p.line}  (program {r.program.number})  {_short(p.why)}"
            for r, p in sorted(missed, key=lambda item: (item[1].code, item[0].program.number))] or ["  none"]
    out += ["", "Found (judged problem <- finding):"]
    found_pairs = [(r, p, a) for r in results for p, a in zip(r.program.problems, r.answers) if a is not None]
    out += [f"  {p.code}  {r.program.repo}  {p.path}:{p.line} <- {a.finding.where} (line {a.line})"
            for r, p, a in sorted(found_pairs, key=lambda item: (item[1].code, item[0].program.number))] or ["  none"]
    out += ["", "Not judged (findings that answer no judged problem; adjudicate each, by hand, in a "
                "[[program.adjudicated]] table of its program):"]
    pending = [(r, c) for r in results for c in r.findings if c.problem is None]
    if not pending:
        out.append("  none")
    for r, c in sorted(pending, key=lambda item: (item[1].finding.code, item[0].program.number)):
        cell = f" (cell {c.finding.cell}, row {c.finding.row})" if c.finding.cell is not None else ""
        verdict = f"  [{c.adjudication.verdict}: {_short(c.adjudication.why)}]" if c.adjudication else "  [pending]"
        near = f"  (near the judged problem at line {c.near}, answered by another finding)" if c.near else ""
        out.append(f"  {c.finding.code}  {r.program.repo}  {c.finding.path}:{c.line}{cell}  "
                   f"(program {r.program.number}){verdict}{near}")
        out.append(f"      {c.finding.message}")
    stale = [(r, a) for r in results for a in r.stale]
    if stale:
        out += ["", "Adjudications that match no finding not judged (the code or the rule changed; not counted):"]
        out += [f"  program {r.program.number}: {a.code} {a.path}:{a.line} {a.verdict}" for r, a in stale]
    stubs = _adjudication_stubs(results)
    if stubs:
        out += ["", "Stubs for the pending findings, to paste after each program's judgements and complete:", *stubs]
    return "\n".join(out)


def _tally_row(rule: RuleTally) -> List[Any]:
    alone = "" if rule.cases >= ALONE or rule.code == "all" else "not judged alone"
    return [rule.code, rule.judged, rule.found, rule.missed, rule.findings, rule.unjudged, rule.verdicts["act"],
            rule.verdicts["wrong"], rule.verdicts["not-worth"], rule.verdicts["pending"], percent(rule.recall),
            precision_text(rule), alone]


def _short(text: str, width: int = 110) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _adjudication_stubs(results: Sequence[ProgramResult]) -> List[str]:
    out = []
    for result in results:
        pending = [c for c in result.findings if c.status == "pending"]
        if not pending:
            continue
        out.append(f"# program {result.program.number}: {result.program.repo} {result.program.entry}")
        for c in pending:
            out += [
                "[[program.adjudicated]]",
                f"code = {toml_string(c.finding.code)}",
                f"path = {toml_string(c.finding.path)}",
                f"line = {c.line}",
                'verdict = ""  # act | wrong | not-worth',
                'why = ""',
                "",
            ]
    return out


def compare_results(audit: Path, run: RunResult, results: Sequence[ProgramResult], rules: Sequence[RuleTally]
                    ) -> Dict[str, Any]:
    """The results file written beside the judgements: figures, every program's matches, and the findings."""
    return {
        "audit": _display(audit),
        "linter": run.linter,
        "command": run.command,
        "date": run.date,
        "repos": run.repos,
        "internal_errors": [asdict(e) for e in run.internal_errors],
        "rules": [_tally_record(rule) for rule in [*rules, total_tally(rules)]],
        "programs": [
            {
                "number": r.program.number,
                "repo": r.program.repo,
                "entry": r.program.entry,
                "problems": [
                    {"code": p.code, "path": p.path, "line": p.line,
                     "found": None if a is None else {"line": a.line, "where": a.finding.where,
                                                      "message": a.finding.message}}
                    for p, a in zip(r.program.problems, r.answers)
                ],
                "findings": [
                    {"code": c.finding.code, "path": c.finding.path, "line": c.line, "where": c.finding.where,
                     "message": c.finding.message, "status": c.status, "near_answered_problem": c.near}
                    for c in r.findings
                ],
                "other_rules": r.other_rules,
            }
            for r in results
        ],
        # The linter's findings in the programs' files, all rules: `compare --saved` scores them again.
        "findings": [asdict(f) for f in _program_findings(run.findings, [r.program for r in results])],
    }


def _tally_record(rule: RuleTally) -> Dict[str, Any]:
    bounds = rule.precision()
    return {
        "code": rule.code, "judged": rule.judged, "found": rule.found, "missed": rule.missed,
        "findings": rule.findings, "not_judged": rule.unjudged, **rule.verdicts,
        "recall": rule.recall, "precision_low": bounds and bounds[0], "precision_high": bounds and bounds[1],
        "judged_alone": rule.cases >= ALONE,
    }


def _program_findings(findings: Sequence[Finding], programs: Sequence[Program]) -> List[Finding]:
    wanted = {(p.repo, path) for p in programs for path in p.files}
    return [f for f in findings if (f.repo, f.path) in wanted]


def results_beside(audit: Path) -> Path:
    """``audits/tune-1.toml`` -> ``audits/tune-1.results.json``."""
    return audit.with_name(audit.stem + ".results.json")


# ----- the command


def audit_checkouts(programs: Sequence[Program], manifest: Path, folder: Optional[str]) -> List[Checkout]:
    """The checkouts of the draw's repositories, each at the commit its programs were judged at."""
    known = {repo.name: repo for repos in load_manifest(manifest).values() for repo in repos}
    commits: Dict[str, str] = {}
    for program in programs:
        if commits.setdefault(program.repo, program.commit) != program.commit:
            raise BenchError(f"{program.repo} is judged at two commits ({commits[program.repo][:12]} and "
                             f"{program.commit[:12]}); one draw is judged at one commit per repository")
    repos = []
    for name, commit in commits.items():
        base = known.get(name)
        url = base.url if base else f"https://github.com/{name}"
        repos.append(Repo(name, url, commit, base.what if base else ""))
    return find_checkouts(repos, Path(folder)) if folder else clone_checkouts(repos)


def load_saved_lint(path: Path) -> RunResult:
    """The findings of an earlier compare: a ``.results.json`` beside the judgements, or a file ``run`` saved."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = RunResult(
            set_name=data.get("set_name", "development"), linter=data["linter"], command=data["command"],
            date=data["date"], repos=data["repos"], findings=[Finding(**f) for f in data["findings"]],
            internal_errors=[NotChecked(**e) for e in data.get("internal_errors", [])],
        )
    except FileNotFoundError:
        raise BenchError(f"{path}: no saved findings; run `compare` without --saved first") from None
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise BenchError(f"{path}: not a results file written by run.py ({error})") from None
    return result


def command_compare(args: argparse.Namespace) -> int:
    """Lint the draw's repositories (or take saved findings), compare, print, write the results file."""
    programs = load_audit(args.audit)
    if args.saved:
        run = load_saved_lint(args.saved)
        linted = {repo["name"] for repo in run.repos}
        missing = sorted({p.repo for p in programs} - linted)
        if missing:
            raise BenchError(f"{args.saved} holds no findings of {', '.join(missing)}")
        if args.checkouts:
            folders = {c.repo.name: c.path for c in audit_checkouts(programs, args.manifest, args.checkouts)}
        else:
            folders = {repo["name"]: Path(repo["checkout"]) for repo in run.repos}
    else:
        checkouts = audit_checkouts(programs, args.manifest, args.checkouts)
        command = parse_command(args.linter_command) if args.linter_command else default_linter_command()
        run = lint_checkouts(checkouts, command, args.timeout, "audit")
        lint_file = RESULTS / f"audit-{args.audit.stem}.json"
        save_results(run, lint_file)
        _progress(f"all findings of these repositories saved to {_display(lint_file)}")
        folders = {c.repo.name: c.path for c in checkouts}
    statements = Statements(SourceFiles())
    results = [compare_program(p, run.findings, folders[p.repo], statements) for p in programs]
    rules = tally(results)
    print(compare_report(args.audit, run, results, rules))
    out = results_beside(args.audit)
    out.write_text(json.dumps(compare_results(args.audit, run, results, rules), indent=1, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    print(f"\nResults written to {_display(out)}")
    return 0


# --------------------------------------------------------------------------- smoke run


def repo_table(result: RunResult) -> str:
    """Per repository: files checked, findings, internal errors and the lint's time."""
    header = ["repository", "files", "findings", "internal errors", "seconds"]
    rows = []
    for repo in result.repos:
        name = repo["name"]
        rows.append([
            name, result.files.get(name, "-"), sum(1 for f in result.findings if f.repo == name),
            sum(1 for e in result.internal_errors if e.repo == name),
            f"{result.seconds[name]:.0f}" if name in result.seconds else "-",
        ])
    total_seconds = sum(result.seconds.values())
    rows.append(["all", sum(result.files.values()) if result.files else "-", len(result.findings),
                 len(result.internal_errors), f"{total_seconds:.0f}" if result.seconds else "-"])
    return text_table(header, rows)


def internal_error_lines(errors: Sequence[NotChecked], verbose: bool, shown: int = 3) -> List[str]:
    """The internal errors, one line per repository and message with the files it was reported in.

    A rule that fails on a project is reported in every file, so the same message is grouped;
    ``verbose`` lists every file.
    """
    groups: Dict[Tuple[str, str], List[str]] = {}
    for error in errors:
        groups.setdefault((error.repo, error.message), []).append(error.path)
    out = []
    for (repo, message), paths in groups.items():
        listed = paths if verbose else paths[:shown]
        more = f" and {len(paths) - len(listed)} more" if len(paths) > len(listed) else ""
        out.append(f"  {repo}: {message}")
        out.append(f"    in {len(paths)} file(s): {', '.join(listed) or '(no file)'}{more}")
    return out


def smoke_report(result: RunResult, verbose: bool) -> str:
    """What ``smoke`` prints: the per-repository table, findings per rule, and every internal error."""
    out = [
        f"Smoke run, {result.set_name} set: {len(result.repos)} repositories at their roots, {result.linter}, "
        f"linted {result.date}",
        "",
        repo_table(result),
    ]
    codes = sorted({f.code for f in result.findings})
    if codes:
        names = column_names([repo["name"] for repo in result.repos])
        rows = [[code, sum(1 for f in result.findings if f.code == code),
                 *(sum(1 for f in result.findings if f.code == code and f.repo == name) for name in names)]
                for code in codes]
        out += ["", "Findings per rule:", text_table(["rule", "all", *names.values()], rows)]
    out += ["", _not_checked_line(result)]
    unverified = [repo["name"] for repo in result.repos if not repo["checkout_commit"]]
    if unverified:
        out.append(f"Commits not verified (checkouts without .git): {', '.join(unverified)}")
    out += ["", *internal_error_verdict(result, verbose)]
    return "\n".join(out)


def internal_error_verdict(result: RunResult, verbose: bool) -> List[str]:
    """``smoke failed`` with every internal error listed, or ``smoke passed``."""
    if not result.internal_errors:
        return ["smoke passed: no internal errors"]
    files = {(e.repo, e.path) for e in result.internal_errors}
    return [f"smoke failed: {len(result.internal_errors)} internal error(s) (MSP000) in {len(files)} file(s):",
            *internal_error_lines(result.internal_errors, verbose)]


# --------------------------------------------------------------------------- docs


DOCS_INTRO = """\
# Precision benchmark

How many of ms-perflint's findings on real public MindSpore code are worth acting on,
per rule. The bar every rule is held to is **at least 80 %** of a random sample of its
findings; a rule that cannot reach it becomes opt-in.

## How it is measured

1. `bench/precision/manifest.toml` lists the **development set**: public MindSpore
   repositories, each pinned to a commit. The linter runs on each as its own project
   (`python -m ms_perflint --output-format json --no-cache --exit-zero -j2 <checkout>`).
2. A seeded random sample of up to 50 findings per rule is drawn (seed 1). Each rule
   draws from its own findings with its own generator, so a change in one rule never
   moves another rule's sample.
3. Each sampled finding is labelled by hand in `bench/precision/labels.toml`, after
   reading the code behind it. Labels are keyed by a fingerprint of the repository, file,
   rule and source line, so they survive edits that only move the line.
4. Precision is `act / labelled`. A sample is an estimate: 40 `act` out of 50 labelled
   (80 %) has a 95 % confidence interval of about 67-89 % (Wilson), so a rule measured just
   above the bar is borderline.

## The three verdicts

- **act**: the finding is factually right *and* an Ascend performance engineer would
  change the code (and the change keeps the model working).
- **wrong**: the finding is factually wrong (the layer is covered by AMP, the target is
  not Ascend, the value is not what the rule thinks...).
- **not-worth**: true, but not worth a change (code no program runs, a tiny layer, a
  one-off save at the end of training...).

## Held out

`mindspore-ai/models` is the **held-out set**: the independent check of the rules after
tuning. It is never sampled, labelled or looked at while rules are tuned against the
development set; `run.py run --set heldout` lints it only when asked.

## Reproduce

```
python bench/precision/run.py run --checkouts DIR --write-docs
```

`DIR` holds one checkout per repository (`owner+repo` or `repo`) at the pinned commits;
without `--checkouts` the script clones them into `bench/precision/.checkouts/`.
`bench/precision/README.md` says how to label.

"""


def docs_section(result: RunResult, scores: Sequence[RuleScore], size: int, seed: int) -> str:
    """The generated Markdown between the markers: manifest, versions, a table and the labelled sample per rule."""
    out = [
        DOCS_START,
        "<!-- Generated by `bench/precision/run.py --write-docs`; edits between these markers are overwritten. -->",
        "",
        "## Results",
        "",
        f"{result.set_name.capitalize()} set, linted on {result.date} with {result.linter}; "
        f"seed {seed}, up to {size} findings sampled per rule.",
        "",
        "| repository | commit | what |",
        "|---|---|---|",
    ]
    for repo in result.repos:
        commit = repo["checkout_commit"] or repo["commit"]
        out.append(f"| [{repo['name']}]({repo['url']}) | `{commit[:7] or 'unpinned'}` | {_md(repo['what'])} |")
    out += ["", _not_checked_line(result).replace("\n", ".\n\n") + ".", ""]
    if not scores:
        out += ["No findings.", ""]
    names = column_names([repo["name"] for repo in result.repos])
    commits = {repo["name"]: repo["checkout_commit"] or repo["commit"] for repo in result.repos}
    for rule in scores:
        out += _docs_rule(rule, names, commits)
    out.append("Rules without findings in this set are not listed.")
    out += ["", DOCS_END]
    return "\n".join(out) + "\n"


def _docs_rule(rule: RuleScore, names: Dict[str, str], commits: Dict[str, str]) -> List[str]:
    header = ["findings", *names.values(), "sampled", "labelled", "act", "wrong", "not-worth", "precision"]
    row = [rule.total, *(rule.per_repo.get(name, 0) for name in names), len(rule.sampled), len(rule.labelled),
           rule.count("act"), rule.count("wrong"), rule.count("not-worth"), percent(rule.precision)]
    out = [
        f"### {rule.code}",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---:|" * len(header),
        "| " + " | ".join(str(cell) for cell in row) + " |",
        "",
    ]
    if rule.labelled:
        out += ["| repository | where | verdict | why |", "|---|---|---|---|"]
        for finding, label in rule.labelled:
            url = github_url(finding, commits.get(finding.repo, ""))
            where = f"[`{finding.where}`]({url})" if url else f"`{finding.where}`"
            out.append(f"| {names.get(finding.repo, finding.repo)} | {where} | {label.verdict} | {_md(label.why)} |")
        out.append("")
    if rule.unlabelled:
        out += [f"{len(rule.unlabelled)} sampled finding(s) not labelled yet.", ""]
    return out


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def rewrite_docs(path: Path, section: str) -> None:
    """Replace the generated section of ``path`` (between the markers), keeping everything else.

    A missing page is created with the hand-written intro; a page without the
    markers gets the section appended.
    """
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else DOCS_INTRO
    except (OSError, UnicodeDecodeError) as error:
        raise BenchError(f"{path}: cannot read it: {error}") from None
    starts, ends = text.count(DOCS_START), text.count(DOCS_END)
    if starts == 0 and ends == 0:
        new = text.rstrip("\n") + "\n\n" + section
    elif starts == 1 and ends == 1 and text.index(DOCS_START) < text.index(DOCS_END):
        before, rest = text.split(DOCS_START, 1)
        after = rest.split(DOCS_END, 1)[1]
        new = before + section.rstrip("\n") + after
    else:
        raise BenchError(f"{path}: expected one {DOCS_START} followed by one {DOCS_END}; fix the markers by hand")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")


# --------------------------------------------------------------------------- commands


def command_run(args: argparse.Namespace) -> RunResult:
    """Lint every repository of the set and save the findings."""
    repos = load_manifest(args.manifest)[args.set]
    if args.checkouts:
        checkouts = find_checkouts(repos, Path(args.checkouts))
    else:
        checkouts = clone_checkouts(repos)
    command = parse_command(args.linter_command) if args.linter_command else default_linter_command()
    result = lint_checkouts(checkouts, command, args.timeout, args.set)
    save_results(result, args.results)
    _progress(f"findings saved to {_display(args.results)}")
    return result


def lint_checkouts(checkouts: Sequence[Checkout], command: Sequence[str], timeout: float, set_name: str) -> RunResult:
    """Lint each checkout once, as its own project; time each lint and count the files it checks."""
    version = linter_version(command)
    source = linter_source(command)
    if source:
        version += f" (source {source})"
    findings, not_checked, internal, malformed = [], [], [], 0
    seconds: Dict[str, float] = {}
    files: Dict[str, int] = {}
    for checkout in checkouts:
        name = checkout.repo.name
        _progress(f"linting {name} ({checkout.path}) ...")
        files[name] = count_files(checkout, command, timeout)
        started = time.monotonic()
        output = lint(checkout, command, timeout)
        seconds[name] = round(time.monotonic() - started, 1)
        _progress(f"  {files[name]} files, {len(output.findings)} findings, {len(output.not_checked)} not checked, "
                  f"{len(output.internal_errors)} internal errors, {seconds[name]:.0f} s")
        findings += output.findings
        not_checked += output.not_checked
        internal += output.internal_errors
        malformed += output.malformed
    add_fingerprints(findings, {c.repo.name: c.path for c in checkouts}, SourceFiles())
    return RunResult(
        set_name=set_name,
        linter=version,
        command=list(command),
        date=datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        repos=[_repo_record(c) for c in checkouts],
        findings=sorted(findings, key=Finding.sort_key),
        not_checked=not_checked,
        malformed=malformed,
        internal_errors=internal,
        seconds=seconds,
        files=files,
    )


def _repo_record(checkout: Checkout) -> Dict[str, str]:
    repo = checkout.repo
    return {
        "name": repo.name,
        "url": repo.url,
        "commit": repo.commit,
        "checkout_commit": checkout.commit,
        "checkout": os.path.abspath(checkout.path),
        "what": repo.what,
    }


def _display(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``run``, ``show``, ``score``, ``smoke``, ``draw`` and ``compare``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--set", choices=SETS, default="development",
                        help="which repositories (default: development; heldout only when asked)")
    common.add_argument("--sample", type=_positive, default=50, metavar="N",
                        help="findings sampled per rule (default: 50)")
    common.add_argument("--seed", type=int, default=1, metavar="S", help="sampling seed (default: 1)")
    common.add_argument("--labels", type=Path, metavar="FILE",
                        help="labels file (default: bench/precision/labels.toml)")
    common.add_argument("--results", type=Path, metavar="FILE",
                        help="saved findings (default: bench/precision/.results/findings.json)")
    common.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)

    scoring = argparse.ArgumentParser(add_help=False)
    scoring.add_argument("--check", action="store_true",
                         help="exit 1 when a rule is under --min-precision or a sampled finding has no verdict")
    scoring.add_argument("--min-precision", type=float, default=0.80, metavar="P",
                         help="the bar for --check (default: 0.80)")
    scoring.add_argument("--write-docs", action="store_true",
                         help="rewrite the generated section of docs/precision.md")
    scoring.add_argument("--docs", type=Path, default=DOCS, help=argparse.SUPPRESS)
    scoring.add_argument("-v", "--verbose", action="store_true",
                         help="also list unlabelled findings and files not checked")

    parser = argparse.ArgumentParser(prog="run.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser("run", parents=[common, scoring], help="lint the repositories, sample, score, print")
    _lint_options(run)
    show_parser = commands.add_parser("show", parents=[common],
                                      help="print the sampled findings that have no verdict yet")
    show_parser.add_argument("--code", action="append", default=[], metavar="CODE",
                             help="only this rule (repeatable)")
    show_parser.add_argument("--context", type=int, default=8, metavar="N",
                             help="source lines before and after (default: 8)")
    show_parser.add_argument("--limit", type=int, default=0, metavar="N", help="print at most N findings")
    commands.add_parser("score", parents=[common, scoring], help="score the saved findings again (no re-lint)")
    smoke = commands.add_parser("smoke", parents=[common],
                                help="lint every repository at its root; exit 1 on any internal error (MSP000)")
    _lint_options(smoke)
    smoke.add_argument("-v", "--verbose", action="store_true", help="list every file an internal error was reported in")
    draw = commands.add_parser("draw", help="draw training programs at random and write a blind-audit template")
    draw.add_argument("--checkouts", metavar="DIR", required=True,
                      help="folder with one checkout per repository (owner+repo or repo)")
    draw.add_argument("--count", type=_positive, required=True, metavar="N", help="programs to draw")
    draw.add_argument("--seed", type=int, required=True, metavar="S", help="the draw's seed")
    draw.add_argument("--set", choices=SETS, default="development",
                      help="which repositories (default: development)")
    draw.add_argument("--out", type=Path, required=True, metavar="FILE",
                      help="the template to write, e.g. bench/precision/audits/tune-1.toml")
    draw.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    draw.add_argument("--exclude", type=Path, action="append", metavar="FILE",
                      help="an earlier draw whose programs are not drawn again (repeatable)")
    draw.add_argument("--linter-command", metavar="CMD",
                      help='command prefix of the linter, asked only for its rule list (default: "python -m ms_perflint")')
    draw.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    compare = commands.add_parser("compare", help="compare a judged draw with the linter's findings in its programs")
    compare.add_argument("audit", type=Path, metavar="FILE", help="the judgements, e.g. bench/precision/audits/tune-1.toml")
    _lint_options(compare)
    compare.add_argument("--saved", type=Path, metavar="RESULTS",
                         help="do not lint: take the findings saved in RESULTS (the FILE's .results.json written by "
                              "an earlier compare, or a findings file of `run`), e.g. after adding adjudications")
    compare.add_argument("--manifest", type=Path, default=MANIFEST, help=argparse.SUPPRESS)
    return parser


def _lint_options(parser: argparse.ArgumentParser) -> None:
    """--checkouts, --linter-command and --timeout: the options of a command that lints."""
    parser.add_argument("--checkouts", metavar="DIR",
                        help="folder with one checkout per repository (owner+repo or repo); "
                             "default: clone into bench/precision/.checkouts/")
    parser.add_argument("--linter-command", metavar="CMD",
                        help='command prefix of the linter (default: "python -m ms_perflint" with this interpreter)')
    parser.add_argument("--timeout", type=float, default=1800, metavar="S",
                        help="seconds the linter may take per repository (default: 1800)")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns the exit code (0 fine, 1 --check failed, 2 error)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")  # source lines may hold characters the terminal cannot show
    args = build_parser().parse_args(argv)
    try:
        if args.command == "draw":
            return command_draw(args)
        if args.command == "compare":
            return command_compare(args)
        args.labels = args.labels or labels_file(args.set)
        args.results = args.results or results_file(args.set)
        return _dispatch(args)
    except BenchError as error:
        lines = str(error).splitlines()
        text = f" {lines[0]}" if len(lines) == 1 else "".join(f"\n  {line}" for line in lines)
        print(f"run.py: error:{text}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    if getattr(args, "write_docs", False) and args.set != "development":
        raise BenchError("--write-docs reports the development set only; the held-out check is not published there")
    if args.command == "smoke":
        result = command_run(args)
        print(smoke_report(result, args.verbose))
        return 1 if result.internal_errors else 0
    labels = load_labels(args.labels)  # read first: a broken labels file should not cost a lint
    if args.command == "run":
        result = command_run(args)
    else:
        result = load_results(args.results, args.set)
    scores = score(result, labels, args.sample, args.seed)
    if args.command == "show":
        print(show(result, scores, args.labels, args.context, args.code, args.limit))
        return 0
    print(report(result, scores, labels, args.sample, args.seed, args.verbose))
    if args.write_docs:
        rewrite_docs(args.docs, docs_section(result, scores, args.sample, args.seed))
        print(f"\nRewrote the generated section of {_display(args.docs)}")
    status = 0
    if args.command == "run":
        print("\n" + repo_table(result))
        if result.internal_errors:
            print("\n" + "\n".join(internal_error_verdict(result, args.verbose)).replace("smoke failed", "run failed"))
            status = 1
    if args.check:
        failures = check_failures(scores, args.min_precision)
        if result.internal_errors:
            failures.append(f"{len(result.internal_errors)} internal error(s) (MSP000): some rules' findings are missing")
        if failures:
            print("\ncheck failed:\n" + "\n".join(f"  {line}" for line in failures))
            return 1
        print("\ncheck passed")
    return status


if __name__ == "__main__":
    sys.exit(main())
