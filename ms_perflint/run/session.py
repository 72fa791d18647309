"""A session: what one run -- or a long-running process such as the editor server -- knows.

It resolves each file's configuration (the nearest config at or above the file,
or the one ``--config``/``--isolated`` names), finds each file's project, keeps
the project indexes, and checks files: index the project (only changed files are
analysed; many are spread over worker processes), build the project model, run
the rules once per project, and finish each requested file's findings.

Nothing here is process-wide: a long-running process calls :meth:`Session.forget`
(or makes a new session) to see changes it was not told about.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ms_perflint.findings import FileError, FileResult
from ms_perflint.memory import fewer_collections
from ms_perflint.run.pool import Extractor, Work, auto_jobs, crash_error, spread
from ms_perflint.settings import Settings


@dataclass
class SessionOptions:
    """How a session checks: the command line's choices."""

    #: The one configuration to use for every file (``--config``/``--isolated``); None: the nearest per file.
    config: object = None
    #: Settings fields given on the command line (``--select`` ...), applied over every file's configuration.
    overrides: Dict[str, object] = field(default_factory=dict)
    #: Where project indexes are kept; None keeps them in memory (``--no-cache``).
    cache_folder: Optional[str] = None
    #: Worker processes for analysing files (0: automatic).
    jobs: int = 0
    #: Check files with their project (None: as the configuration says).
    project: Optional[bool] = None
    #: The project of files under it that have no project marker above them (the current folder, the editor's
    #: workspace); None: such files are checked alone. See :func:`~ms_perflint.project.roots.project_root`.
    working_folder: Optional[str] = None
    #: ``progress(done, total)`` while files are analysed, ``progress(done, total, "rules")`` while the project's
    #: rules decide (the CLI's progress line).
    progress: Optional[Callable[..., None]] = None


class Session:
    """Checks files; remembers configurations and project indexes until told to forget them."""

    def __init__(self, options: Optional[SessionOptions] = None) -> None:
        self.options = options or SessionOptions()
        self._indexes: Dict[str, object] = {}
        self._settings: Dict[str, Settings] = {}
        #: Texts that replace files on disk (an editor's unsaved buffer, a fix in progress), by absolute path.
        self.overlay: Dict[str, bytes] = {}
        #: The bytes each file's latest findings were computed from, by absolute path (files with findings only):
        #: fixes and noqa comments are applied to these, never to a later read of the file.
        self.analysed: Dict[str, bytes] = {}
        #: The file (absolute path) that shows each failed rule's internal error, by rule code: one line per
        #: failed rule for the session, shown again each time that file is checked.
        self.error_hosts: Dict[str, str] = {}
        #: The last decisions of each project (by root): ``(their key, the raw findings)``. An editor's session
        #: checks a buffer whose facts did not change (a comment typed after the code, the same text sent again,
        #: a file saved as it was checked) without deciding again; the disk cache is not written for unsaved text.
        self._decided: Dict[str, Tuple[str, Dict[str, list]]] = {}
        #: The parts' findings and files' links of each project's last decisions (by root), as the decisions cache
        #: keeps them: an editor's edit decides only the parts it touches, though unsaved text is never stored.
        self._held_parts: Dict[str, dict] = {}

    # --- configuration ----------------------------------------------------------------------------

    def config_for(self, path: str):
        """The configuration that applies to ``path``."""
        from ms_perflint.config import config_for_file

        return self.options.config if self.options.config is not None else config_for_file(path)

    def settings_for(self, path: str) -> Settings:
        """The settings that apply to ``path`` (its configuration, then the command line's flags)."""
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._settings:
            settings = self.config_for(path).settings(**self.options.overrides)
            if self.options.project is not None:
                from dataclasses import replace

                settings = replace(settings, project=self.options.project)
            self._settings[folder] = settings
        return self._settings[folder]

    def forget(self) -> None:
        """Drop what was learnt (indexes, configurations): the next check reads everything again."""
        from ms_perflint import config

        self._indexes.clear()
        self._settings.clear()
        self.analysed.clear()
        self.error_hosts.clear()
        config.forget()

    # --- projects --------------------------------------------------------------------------------

    def root_for(self, path: str) -> Optional[str]:
        """The project root ``path`` is checked with, or None for a project of that one file."""
        from ms_perflint.project.roots import project_root

        if path in ("", "-") or not self.settings_for(path).project:
            return None
        return project_root(path, self.options.working_folder)

    def index(self, root: str):
        """The project index of ``root``, refreshed on first use in this session."""
        from ms_perflint.project.index import ProjectIndex

        if root not in self._indexes:
            limit = self.settings_for(os.path.join(root, "_")).max_file_size
            index = ProjectIndex(root, self.options.cache_folder, limit)
            index.refresh(Extractor(self.options.jobs, limit, self.options.progress, self.overlay,
                                    storing=self.options.cache_folder is not None))
            self._indexes[root] = index
        return self._indexes[root]

    # --- checking ----------------------------------------------------------------------------------

    def check(self, paths: Sequence[str]) -> List[FileResult]:
        """Check files; results come back in the order of ``paths``.

        A rule that failed is one line for the session (:attr:`error_hosts`), however many files or projects
        it failed in: shown by the first file that shows it, and by that file only.
        """
        with fewer_collections():
            results = self._check(paths)
        self._one_line_per_failed_rule(results)
        return results

    def _one_line_per_failed_rule(self, results: Sequence[FileResult]) -> None:
        from ms_perflint.run.lint import INTERNAL_ERROR, failed_rule

        for result in results:
            path = os.path.abspath(result.path)
            if not any(f.code == INTERNAL_ERROR for f in result.findings):
                for code in [code for code, host in self.error_hosts.items() if host == path]:
                    del self.error_hosts[code]  # checked again without the failure: the next one is shown anew
                continue
            kept = []
            for finding in result.findings:
                code = failed_rule(finding)[0] if finding.code == INTERNAL_ERROR else ""
                if not code or self.error_hosts.setdefault(code, path) == path:
                    kept.append(finding)
            result.findings = kept

    def _check(self, paths: Sequence[str]) -> List[FileResult]:
        groups: Dict[Optional[str], List[str]] = {}
        for path in paths:
            groups.setdefault(self.root_for(path), []).append(path)
        results: Dict[str, FileResult] = {}
        for root, members in groups.items():
            if root is None:
                results.update(self._checked_alone(members))
            else:
                results.update(self._check_project(root, members))
        return [results[path] for path in paths]

    def _check_project(self, root: str, members: Sequence[str]) -> Dict[str, FileResult]:
        from ms_perflint.run.lint import findings_for

        index = self.index(root)
        self._apply_overlay(index)
        texts = self._read_members(index, members)
        settings_for = lambda relative: self.settings_for(index.absolute(relative))  # noqa: E731
        raw = self._decisions(index, settings_for)
        hosted = self._hosted_errors(index, raw, members)
        results: Dict[str, FileResult] = {}
        for path in members:
            relative = index.relative(path)
            record = index.files.get(relative) if relative is not None else None
            if record is None:
                results[path] = self.check_alone(path)
                continue
            results[path] = self._finish(path, record.kind, record.error,
                                         findings_for(raw, relative, hosted.get(relative, ())), digest=record.digest,
                                         data=texts.get(path))
        return results

    def _hosted_errors(self, index, raw, members: Sequence[str]):
        """The project's internal errors by the checked file (root-relative) that shows each: the file that showed
        the rule's failure before in this session, else the file it was deciding, else the first checked file
        where the rule is on."""
        from ms_perflint.run.lint import failed_rule, hosted_errors, internal_errors, opt_in_codes, shows_failure

        errors = internal_errors(raw)
        if not errors:
            return {}
        given = {index.relative(path): path for path in members}
        checked = [relative for relative in given if relative is not None and relative in index.files]
        chosen = opt_in_codes()
        shows = lambda code, relative: shows_failure(self.settings_for(given[relative]), code,  # noqa: E731
                                                     given[relative], chosen)
        hosted = hosted_errors([e for e in errors if failed_rule(e)[0] not in self.error_hosts], checked, shows)
        for error in errors:
            known = self.error_hosts.get(failed_rule(error)[0])
            relative = index.relative(known) if known is not None else None
            if relative in checked:
                hosted.setdefault(relative, []).append(error)
        return hosted

    def _decisions(self, index, settings_for):
        """The rules' raw findings for the project: stored ones when nothing changed, else decided afresh.

        The rules that run are those some folder of the project enables, whichever of its files were asked
        for: the decisions are the project's, so the key needs only the project's files, the settings of its
        folders and the tool (which decides what each setting enables), and a cached run never loads a rule.
        """
        from ms_perflint.run import decisions

        folders = {relative.rpartition("/")[0] for relative in index.files}
        settings = [settings_for(f"{folder}/_" if folder else "_") for folder in folders]
        cache = self.options.cache_folder if not self.overlay else None
        wanted = decisions.key(index.digest(), [s.cache_key() for s in settings])
        held = self._decided.get(index.root)
        if held is not None and held[0] == wanted:
            return decisions.copied(held[1])  # finishing fills positions in: the held findings stay as decided
        data = decisions.read(cache, index.root)
        stored = decisions.load(data, cache, index.root, wanted)
        if stored is not None:
            self._decided[index.root] = (wanted, decisions.copied(stored))
            return stored
        from ms_perflint.run.lint import decide_parts, enabled_union

        rules = enabled_union(settings)
        parts = decisions.PartStore(data, lambda path: index.files[path].facts_digest or
                                    index.files[path].digest, lambda path: settings_for(path).cache_key(),
                                    [rule.code for rule in rules], self._held_parts.get(index.root))
        raw = decide_parts(self._parts(index, parts), lambda part: self._part_project(index, part), settings_for,
                           rules, self.options.progress, parts, self.options.jobs)
        decisions.store(cache, index.root, wanted, raw, parts)
        self._held_parts[index.root] = parts.to_json()
        self._decided[index.root] = (wanted, decisions.copied(raw))
        return raw

    def _parts(self, index, store) -> List[List[str]]:
        """The project's parts (:func:`~ms_perflint.project.parts.partition`), from the files' link summaries: the
        stored ones of files whose facts did not change, else made from the facts (read for those files only)."""
        from ms_perflint.project.parts import partition, python_digest, summary_of

        summaries = {}
        missing = []
        for path, record in index.files.items():
            summary = store.summary(path) if record.error is None else None
            if summary is None and record.summary is not None:  # made by the worker that analysed the file
                summary = record.summary
                store.keep_summary(path, summary)
            if summary is not None:
                summaries[path] = summary
            elif record.error is None:
                missing.append(path)
        for path in missing:  # one file's facts at a time: a run that lost its summaries holds no project's facts
            for facts in index.facts_of([path], keep=False).values():
                summaries[path] = summary_of(path, facts)
                store.keep_summary(path, summaries[path])
        return partition(summaries, store.links(python_digest(summaries)))

    def _part_project(self, index, part: Sequence[str]):
        """A part's project, from facts read for it alone (not kept: the next part's replace them)."""
        from ms_perflint.project.model import Project

        return Project(index.root, index.facts_of(part, keep=False), texts=self.texts(index))

    def texts(self, index) -> Callable[[str], Optional[str]]:
        """A project's reader of its files' decoded texts (the overlay's where this session holds one), for the
        questions the model asks astroid: None for a file whose bytes are not the ones its facts were recorded from."""

        def text(relative: str) -> Optional[str]:
            import hashlib

            from ms_perflint.sources import load_unit

            record = index.files.get(relative)
            path = index.absolute(relative)
            data = self.read(path)
            if record is None or not isinstance(data, bytes) or hashlib.sha256(data).hexdigest() != record.digest:
                return None
            unit = load_unit(path, data, record.kind)
            return unit.text if unit.error is None else None

        return text

    def _read_members(self, index, members: Sequence[str]) -> Dict[str, object]:
        """The bytes of the files to report on, read once; a file whose bytes are not the ones indexed is analysed again.

        The index trusts size and modification time: a file rewritten since it was
        indexed (by another run's fix a moment ago, or copied with its time kept)
        would otherwise have its findings decided on one text and placed in another.
        """
        import hashlib

        from ms_perflint.project.index import extract_record

        texts: Dict[str, object] = {}
        for path in members:
            relative = index.relative(path)
            record = index.files.get(relative) if relative is not None else None
            if record is None:
                continue
            data = texts[path] = self.read(path)
            if record.error is None and isinstance(data, bytes) and hashlib.sha256(data).hexdigest() != record.digest:
                index.put(relative, extract_record(relative, path, record.kind, index.max_size, data=data))
        return texts

    def _apply_overlay(self, index) -> None:
        """Files whose text this session holds (an editor buffer, a fix in progress) replace the disk."""
        from ms_perflint.project.index import extract_record, facts_digest
        from ms_perflint.sources import kind_of

        for path, data in self.overlay.items():
            relative = index.relative(path)
            kind = kind_of(path)
            if relative is not None and kind is not None:
                record = extract_record(relative, path, kind, index.max_size, data=data)
                if record.facts is not None:  # the project's decisions are keyed by what its files say
                    record.facts_digest = facts_digest(record.facts)
                index.put(relative, record)

    def _finish(self, path: str, kind: str, error: Optional[FileError], raw, digest: Optional[str] = None,
                data: Optional[bytes] = None) -> FileResult:
        """The user's view of a file's raw findings, placed in ``data`` (read again when not given).

        ``digest`` is the content hash of the text the findings were decided on: findings
        are never placed in a text their offsets do not belong to (a file read again
        after another process changed it is reported as changed instead).
        """
        import hashlib

        from ms_perflint.run.lint import audits_noqa, finish
        from ms_perflint.sources import NOTEBOOK, YAML, load_unit

        result = FileResult(path, kind=kind, error=error)
        if data is None:
            data = self.read(path)
        if isinstance(data, FileError):
            result.error = result.error or data
            return result
        absolute = os.path.abspath(path)
        self.analysed.pop(absolute, None)
        if raw and digest is not None and hashlib.sha256(data).hexdigest() != digest:
            result.error = FileError("Changed", "the file changed while it was being checked; check it again")
            return result
        if not raw and kind != NOTEBOOK and not audits_noqa(self.settings_for(path), path):
            return result  # nothing to place and nothing to say (a notebook may say which cells it skipped)
        unit = load_unit(path, data, kind, None)
        result.source = unit.source
        result.notices = list(unit.notices)
        result.virtual_text = unit.text if unit.virtual is not None else None  # type: ignore[attr-defined]
        if unit.error is None:
            finish(result, raw, self.settings_for(path), unit.text, unit.virtual, is_yaml=kind == YAML)
            if result.findings:
                self.analysed[absolute] = data
        return result

    def _checked_alone(self, members: Sequence[str]) -> Dict[str, FileResult]:
        """Files each checked as a project of its own; many are spread over worker processes, each of which
        checks whole files (analysis and decisions), so only their results come back."""
        workers = min(len(members), self.options.jobs or auto_jobs(len(members)))
        if workers <= 1:
            return {path: self.check_alone(path) for path in members}
        checked = spread(members, workers, _CheckAlone(self.options, self.overlay), self.options.progress)
        results: Dict[str, FileResult] = {}
        for path, (result, data) in zip(members, checked):
            results[path] = result
            self.analysed.pop(os.path.abspath(path), None)
            if data is not None:  # what fixes and noqa comments apply to, as if checked here
                self.analysed[os.path.abspath(path)] = data
        return results

    def check_alone(self, path: str) -> FileResult:
        """Check one file as a project of its own."""
        from ms_perflint.project.index import extract_record
        from ms_perflint.project.model import Project
        from ms_perflint.run.lint import decide, enabled_rules, findings_for, internal_errors
        from ms_perflint.sources import PYTHON, kind_of, load_unit

        kind = kind_of(path) or PYTHON
        name = os.path.basename(path) or "stdin.py"
        settings = self.settings_for(path)
        data = self.read(path)
        if isinstance(data, FileError):
            return FileResult(path, kind=kind, error=data)
        record = extract_record(name, path, kind, settings.max_file_size, data=data, alone=True)
        if record.facts is None:
            return self._finish(path, kind, record.error, [], data=data)
        texts = lambda relative: load_unit(path, data, kind).text if relative == name else None  # noqa: E731
        raw = decide(Project("", {name: record.facts}, texts), lambda _: settings, enabled_rules(settings))
        return self._finish(path, kind, record.error, findings_for(raw, name, internal_errors(raw)), data=data)

    def place(self, path: str, raw: Sequence[object]) -> List[object]:
        """Findings made outside the rules (from a profile), placed in ``path`` as the rules' are: positions,
        notebook cells, selection and ``# noqa``."""
        from ms_perflint.sources import PYTHON, kind_of

        absolute = os.path.abspath(path)
        data = self.analysed.get(absolute) or self.read(path)
        if isinstance(data, FileError):
            return []
        kept = self.analysed.get(absolute)
        result = self._finish(path, kind_of(path) or PYTHON, None, list(raw), data=data)
        if kept is not None:
            self.analysed[absolute] = kept
        return list(result.findings)

    def notebook_line(self, path: str, line: int) -> Optional[Tuple[int, int]]:
        """``(cell, line in cell)`` of a line of a notebook's virtual module, or None."""
        from ms_perflint.sources import NOTEBOOK, load_unit

        data = self.read(path)
        if isinstance(data, FileError):
            return None
        unit = load_unit(path, data, NOTEBOOK, None)
        return unit.virtual.origin(line) if unit.virtual is not None else None  # type: ignore[attr-defined]

    def read(self, path: str):
        """The bytes of ``path`` (the overlay's when this session holds a text for it)."""
        from ms_perflint.sources import read_bytes

        absolute = os.path.abspath(path)
        if absolute in self.overlay:
            return self.overlay[absolute]
        return read_bytes(path)


class _CheckAlone(Work):
    """The pool's work for files checked alone: a worker checks whole files with a session of its own, made from
    the parent's options (no progress: the parent reports it), and sends back each result with the bytes it was
    decided on when it has findings."""

    def __init__(self, options: SessionOptions, overlay: Dict[str, bytes]) -> None:
        from dataclasses import replace

        self.options = replace(options, progress=None, jobs=1)
        self.overlay = overlay
        self._session: Optional[Session] = None

    def run(self, path: str) -> Tuple[FileResult, Optional[bytes]]:
        if self._session is None:
            self._session = Session(self.options)
            self._session.overlay = self.overlay
        result = self._session.check_alone(path)
        return result, self._session.analysed.pop(os.path.abspath(path), None)

    def crashed(self, path: str, why: str) -> Tuple[FileResult, Optional[bytes]]:
        from ms_perflint.sources import PYTHON, kind_of

        return FileResult(path, kind=kind_of(path) or PYTHON, error=crash_error(why)), None

    def path(self, path: str) -> str:
        return path
