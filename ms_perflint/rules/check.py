"""What a rule decides with, and how it reports: :class:`Check`, and fixes built as text edits.

One :class:`Check` per project and run: it holds the project model, value
resolution, each file's settings (options may differ per file), and collects the
findings by file. Fix helpers build :class:`~ms_perflint.findings.Fix` objects
from the layout material the analysis recorded (where a keyword argument or an
import goes), so a rule never needs the syntax tree.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import Call, PythonFacts, Value
from ms_perflint.findings import Finding, Fix, FixSafety, TextEdit
from ms_perflint.project.model import Program, Project
from ms_perflint.project.training import NetworkUse
from ms_perflint.project.values import DeviceDecision, Values, device
from ms_perflint.settings import Settings


class Check:
    """The project a rule decides for, and where its findings go."""

    def __init__(self, project: Project, settings_for: Callable[[str], Settings],
                 defaults: Optional[Dict[str, Any]] = None) -> None:
        self.project = project
        #: Every option's default, by name (from the rules being run).
        self.defaults: Dict[str, Any] = dict(defaults or {})
        self.values = Values(project)
        self._settings_for = settings_for
        self.findings: Dict[str, List[Finding]] = {}
        self._devices: Dict[str, DeviceDecision] = {}
        #: The code of the rule deciding now (set by whoever runs the rules).
        self.rule = ""
        #: How rules failed, by rule code: ``(the file being decided or None, the error)``, in order.
        self.failures: Dict[str, List[Tuple[Optional[str], BaseException]]] = {}

    @contextlib.contextmanager
    def deciding(self, path: str) -> Iterator[None]:
        """Decide one program (named by its entry file) or one file: a failure is recorded for the rule and the
        file, and the rule goes on with the next one, so one program's crash keeps the others' findings."""
        try:
            yield
        except Exception as error:  # noqa: BLE001 -- a rule's bug (a RecursionError too) is one program's loss
            if not self.rule:
                raise  # no rule is being run by decide(): nobody would report the failure
            self.failed(error, path)

    def failed(self, error: BaseException, path: Optional[str] = None) -> None:
        """Record that the current rule failed (while deciding ``path``, when known)."""
        self.failures.setdefault(self.rule, []).append((path, error))

    def settings(self, path: str) -> Settings:
        """The settings that apply to ``path``."""
        return self._settings_for(path)

    def option(self, name: str, path: str) -> Any:
        """A rule option's value for ``path`` (its configuration's, else the rule's default)."""
        options = self._settings_for(path).rule_options
        return options[name] if name in options else self.defaults[name]

    def report(self, code: str, path: str, at: Any, message: str, fix: Optional[Fix] = None) -> None:
        """Record a finding in ``path`` at a call, a value or a :class:`~ms_perflint.project.model.Where`."""
        finding = Finding(code, message, at.line or 1, at.column, fix=fix, start=at.start, end=at.end)
        if isinstance(at, Call):
            finding.end_line, finding.end_column = at.end_line, at.end_column
        self.findings.setdefault(path, []).append(finding)

    def release_at_least(self, path: str, release: str, program: Optional[Program] = None) -> Optional[bool]:
        """Is the MindSpore release ``path`` runs on at least ``release``?

        The release is the ``mindspore-version`` of ``path``'s settings (written, or inferred from the project's
        requirements). When none is declared and ``program`` is given, the program decides (:meth:`program_release`).
        None when the release is unknown: the rule then takes the reading that cannot be a false alarm.
        """
        written = self._settings_for(path).mindspore_version
        if not written and program is not None:
            written = self.program_release(program)[0]
        if not written:
            return None
        from packaging.version import InvalidVersion, Version

        try:
            return Version(written) >= Version(release)
        except InvalidVersion:
            return None

    def sinks_off(self, program: Program, path: str, call: Call, ascend: bool = False) -> bool:
        """A ``Model.train``/``fit`` call that runs without data sinking in every run of the program (every Ascend
        run, ``ascend``): its ``dataset_sink_mode`` is False wherever it comes from, or omitted on MindSpore 2.0 or
        later (1.x sank by default; an unknown older release is taken as the one that sinks)."""
        flag = ms.MODEL_SINK_FLAGS.get(call.method or "")
        if flag is None:
            return False
        value = call.argument(flag.keyword, flag.position)
        if value is None:
            return not call.may_pass(flag.keyword, flag.position) and bool(
                self.release_at_least(program.entry, ms.SINK_OFF_BY_DEFAULT_SINCE, program))
        found = self.values.resolve(path, value, call.scope, program=program)
        if ascend:
            found = self.values.on_ascend(found)
        return found.complete and bool(found.values) and all(
            k.value is False or (type(k.value) is int and k.value == 0) for k in found.values)

    def program_release(self, program: Program) -> Tuple[Optional[str], str]:
        """The release a program with no declared release runs on (for comparisons), and a note saying why
        (memoised per program).

        A notebook whose saved outputs show the release it ran (``run_check()``'s "MindSpore version: 1.8.1") runs
        that one. A program that uses an API the current release removed
        (:data:`~ms_perflint.catalogue.REMOVED_APIS`) runs on an older one: the release before the one that removed
        it when the release notes say, else unknown (None). Otherwise the current release: code that runs on it, and
        declares nothing else, is run on it today.
        """
        def decide() -> Tuple[Optional[str], str]:
            entry = self.project.python.get(program.entry)
            if entry is not None and entry.recorded_release:
                return entry.recorded_release, (f"MindSpore {entry.recorded_release}: the notebook's saved outputs "
                                                f"show it ran that release")
            for path in sorted(program.files):
                facts = self.project.python.get(path)
                for name in facts.imports if facts is not None else ():
                    removed = _removed_api(name)
                    if removed is not None:
                        # any 1.x compares as "before 2.0"; the note never names it
                        before = "1.0" if removed[1] == "2.0.0" else None
                        return before, (f"a MindSpore release before {removed[1] or ms.CURRENT_RELEASE}: the program "
                                        f"imports {removed[0]} ({path})")
            return ms.CURRENT_RELEASE, (f"MindSpore {ms.CURRENT_RELEASE}: no release is declared and the program uses "
                                        f"no API it removed")

        return self.project.memo(("program-release", program.entry), decide)  # type: ignore[return-value]

    def release_note(self, path: str, program: Optional[Program] = None) -> str:
        """``MindSpore 2.3.1 per requirements.txt:3 (mindspore==2.3.1)`` for messages ("" when unknown)."""
        settings = self._settings_for(path)
        if not settings.mindspore_version:
            release, note = self.program_release(program) if program is not None else (None, "")
            return note if release else ""
        source = settings.mindspore_version_source.replace("inferred from ", "") or "the mindspore-version setting"
        return f"MindSpore {settings.mindspore_version} per {source}"

    def ascend_target(self, program: Program) -> str:
        """The program's chip: the ``ascend-target`` option."""
        options = self._settings_for(program.entry).rule_options
        return options.get(ms.ASCEND_TARGET_OPTION, self.defaults.get(ms.ASCEND_TARGET_OPTION, ms.DEFAULT_ASCEND_TARGET))

    def casts_by_default(self, program: Program) -> bool:
        """The program's chip (the ``ascend-target`` option) runs float32 Cube work in float16 by default (910A)."""
        return self.ascend_target(program) in ms.CASTING_BY_DEFAULT_TARGETS

    def ascend(self, program: Program) -> DeviceDecision:
        """Does the program run on Ascend (memoised)?"""
        if program.entry not in self._devices:
            self._devices[program.entry] = device(self.values, program)
        return self._devices[program.entry]

    def ascend_programs(self) -> List[Program]:
        """Training programs that run on Ascend (a program whose device cannot be decided for a failure is left
        out, the failure recorded)."""
        found = []
        for program in self.project.training_programs():
            with self.deciding(program.entry):
                if self.ascend(program).ascend:
                    found.append(program)
        return found


def _removed_api(name: str) -> Optional[Tuple[str, str]]:
    """The removed API (and the release that removed it) an imported name is or lies under, else None."""
    canonical = ms.canonical_name(name)
    for api, removed in ms.REMOVED_APIS.items():
        if canonical == api or canonical.startswith(api + "."):
            return api, removed
    return None


# --- fixes as text edits ---------------------------------------------------------------------


def append_keyword(call: Call, keyword: str, value: str, safety: FixSafety, description: str,
                   extra: Sequence[TextEdit] = ()) -> Optional[Fix]:
    """``f(a)`` -> ``f(a, keyword=value)`` in the call's layout; None when the layout is not known."""
    if call.insert is None:
        return None
    offset, before, after = call.insert
    return Fix(safety, description, (TextEdit(offset, offset, f"{before}{keyword}={value}{after}"), *extra))


#: The program-level precision fix (MSP101, MSP107).
AMP_SWITCH_FIX = "Enable mixed precision for the whole network (amp_level=\"O2\")"


def amp_switch_fix(use: NetworkUse, values=None, program=None) -> Optional[Fix]:
    """``amp_level="O2"`` on the ``Model(...)`` that trains a network in float32: appended, or replacing an explicit
    ``"O0"`` (unsafe: it changes numerics) -- also the ``"O0"`` a name holds in the arm of an ``if`` the program's
    runs take (``values`` and ``program`` given), never another arm's. None for a custom loop, or a level the call
    may pass through ``**kw``."""
    if not use.amp_at_anchor:
        return None  # a custom loop, or a Model given a train step without an optimizer (it ignores amp_level)
    entry = ms.AMP_ENTRIES[ms.MODEL].level
    level = use.anchor.argument(entry.keyword, entry.position)
    if level is None:
        if use.anchor.may_pass(entry.keyword, entry.position):
            return None
        return append_keyword(use.anchor, entry.keyword, '"O2"', FixSafety.UNSAFE, AMP_SWITCH_FIX)
    if level.kind == "lit" and isinstance(level.data, str) and level.data.upper() == "O0":
        return replace_value(level, level.text.replace("O0", "O2").replace("o0", "O2"), FixSafety.UNSAFE,
                             AMP_SWITCH_FIX)
    if values is None:
        return None
    found = values.on_ascend(values.resolve(use.path, level, use.anchor.scope, program=program))
    places = {k.where for k in found.values}
    written = places.pop() if found.complete and len(places) == 1 else None
    if written is None or written.path != use.path or written.end - written.start != len('"O0"') or not all(
            isinstance(k.value, str) and k.value.upper() == "O0" and k.source == "literal" for k in found.values):
        return None  # elsewhere, several places, or a prefixed or triple-quoted string: not edited blind
    return Fix(FixSafety.UNSAFE, AMP_SWITCH_FIX, (TextEdit(written.start + 1, written.end - 1, "O2"),))


def amp_switch_text(use: NetworkUse) -> str:
    """How to switch mixed precision on for this training, in a finding's message."""
    if use.amp_at_anchor:
        return 'pass amp_level="O2" (or "O3")'
    if use.kind == "model":
        return ('wrap the network with amp.auto_mixed_precision(net, "O2") (a Model given no optimizer ignores '
                "amp_level)")
    return 'wrap the network with amp.auto_mixed_precision(net, "O2") for this custom training loop'


def replace_value(value: Value, new: str, safety: FixSafety, description: str) -> Optional[Fix]:
    """Replace the text of one value (a literal) with ``new``."""
    if value.end <= value.start:
        return None
    return Fix(safety, description, (TextEdit(value.start, value.end, new),))


def spelled(facts: PythonFacts, qualified: str) -> Tuple[str, Tuple[TextEdit, ...]]:
    """``mindspore.float16`` written with the file's own names, and the import to add when it has none.

    ``mstype.float16`` where ``mstype`` is the dtype module, ``ms.float16`` where ``ms``
    is mindspore, ``float16`` where imported directly; else ``ms.float16`` plus an
    ``import mindspore as ms`` after the file's imports.
    """
    attribute = qualified.rsplit(".", 1)[1]
    for local, target in sorted(facts.aliases.items()):
        if target == qualified:
            return local, ()
    for module in ("mindspore.common.dtype", "mindspore.dtype", "mindspore"):
        for local, target in sorted(facts.aliases.items()):
            if target == module:
                return f"{local}.{attribute}", ()
    alias = "ms" if "ms" not in facts.aliases and "ms" not in facts.constants else "mindspore"
    statement = "import mindspore as ms" if alias == "ms" else "import mindspore"
    offset, before, newline = facts.import_insert
    return f"{alias}.{attribute}", (TextEdit(offset, offset, f"{before}{statement}{newline}"),)


def spelled_name(facts: PythonFacts, qualified: str, avoid: Sequence[str] = ()) -> Tuple[str, Tuple[TextEdit, ...]]:
    """A MindSpore function or object (``mindspore.dataset.config.get_num_parallel_workers``) written with the
    file's own imports, and the import to add when it has none.

    The name itself when imported, else through ``mindspore``'s alias (``ms.dataset.config...``), else the
    longest imported module it is in (``ds.config...``); a name in ``avoid`` (one the code assigns, like the
    ``ds`` of ``ds = GeneratorDataset(...)``) is not used. Otherwise ``mindspore.<...>`` with an
    ``import mindspore`` after the file's imports.
    """
    aliases = sorted((local, target) for local, target in facts.aliases.items() if local not in avoid)
    for local, target in aliases:
        if target == qualified:
            return local, ()
    for local, target in aliases:
        if target == "mindspore":
            return local + qualified[len(target):], ()
    inside = [(len(target), local, target) for local, target in aliases if qualified.startswith(target + ".")]
    if inside:
        _, local, target = max(inside)
        return local + qualified[len(target):], ()
    offset, before, newline = facts.import_insert
    return qualified, (TextEdit(offset, offset, f"{before}import mindspore{newline}"),)


def dtype_name(qualified: str) -> str:
    """``mindspore.float16`` -> ``float16`` (for messages)."""
    return qualified.rsplit(".", 1)[-1]


ASYNC_TRUE = "True"
__all__ = ["Check", "amp_switch_fix", "append_keyword", "replace_value", "spelled", "spelled_name", "dtype_name", "ms"]
