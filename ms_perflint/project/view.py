"""Whole-program questions the rules ask about one file (``context.project``).

A *program* is a file together with every project file it imports, directly or
not. A fact in one file matters for another when some program holds both:
``train.py`` imports ``src/model.py`` and ``src/dataset.py``, so ``Model(...,
amp_level="O2")`` in ``train.py`` covers the Cells of ``src/model.py``, and a
Profiler started in ``train.py`` meets the AutoTune switched on in
``src/dataset.py``. Files that no program connects never influence each other,
which keeps unrelated scripts (and fixture folders) apart.

Config values (YAML files, argparse defaults, dict configs) count project-wide;
a shell script's ``--key value`` counts for the programs whose entry file it runs.
"""

from __future__ import annotations

import ast
import os
import posixpath
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ms_perflint.project.facts import AmpSite, CastSite, FileFacts, Guard, ProfilerSite
from ms_perflint.project.index import ProjectIndex

#: AMP levels that run Dense/MatMul in float16 (RULES.md: O1 and auto through the white list).
COVERING_AMP_LEVELS = frozenset(("O1", "O2", "O3", "AUTO"))
O1_NOTE = "O1 casts only nn.Dense, MatMul and BatchMatMul"
#: Ascend precision modes that keep an fp32 MatMul in fp32 (as MSP101 decides: any other mode casts).
FP32_PRECISION_MODES = ("must_keep_origin_dtype", "force_fp32")
#: The rule that reports class counts wherever their literal is (MSP104 resnet50-1000-classes).
CLASS_COUNT_CODE = "MSP104"
#: How far re-exports and builders are followed.
MAX_RESOLVE_DEPTH = 8


@dataclass(frozen=True)
class Where:
    """A place in the project: root-relative path, 1-based line, 0-based column."""

    path: str
    line: int
    column: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Coverage:
    """Why a Cell's MatMuls do not run in fp32: a mechanism and where it is."""

    mechanism: str
    where: Where
    detail: str = ""
    #: A deliberate float32 choice (``to_float(mstype.float32)``): not low precision, but not to be reported.
    deliberate_fp32: bool = False

    def __str__(self) -> str:
        text = f"covered by {self.mechanism} at {self.where}"
        return f"{text} ({self.detail})" if self.detail else text


@dataclass(frozen=True)
class AmpJudgement:
    """An AMP level or precision knob and the verdict: the coverage it gives (None: keeps fp32).

    ``level`` is ``"O1"`` when the mechanism casts only O1's white list (Dense,
    MatMul, BatchMatMul), None when it casts every MatMul.
    """

    coverage: Optional[Coverage]
    level: Optional[str] = None
    note: str = ""

    def __post_init__(self) -> None:
        if not self.note and self.coverage is not None:
            object.__setattr__(self, "note", str(self.coverage))


@dataclass(frozen=True)
class RemoteProfiler:
    """Profiling started in another file of a program that holds the asking file."""

    kind: str
    where: Where
    dataset: Optional[bool]
    guards: Tuple[Guard, ...]


@dataclass(frozen=True)
class ClassCountOrigin:
    """A literal ``1000`` in this file that becomes the class count of a ResNet-50 built elsewhere."""

    line: int
    column: int
    how: str
    consumer: Where
    expression: str

    def describe(self) -> str:
        """``the ResNet-50 built at train.py:12 (resnet50(class_num=config.class_num))``."""
        return f"the ResNet-50 built at {self.consumer} ({self.expression})"


@dataclass(frozen=True)
class ConfigValue:
    """One config source's value for a key, and where it is written."""

    value: Any
    where: Where
    source: str

    def __str__(self) -> str:
        return f"{self.source} {self.value!r} at {self.where}"


class ProjectAnalysis:
    """Program structure and cross-file answers for one index, computed lazily and cached."""

    def __init__(self, index: ProjectIndex) -> None:
        self.index = index
        self.facts: Dict[str, FileFacts] = dict(index.python_facts())
        self._by_module: Dict[str, List[str]] = {}
        for relative, facts in self.facts.items():
            parts = facts.module.split(".")
            for start in range(len(parts)):
                self._by_module.setdefault(".".join(parts[start:]), []).append(relative)
        self._imports: Dict[str, Set[str]] = {}
        self._importers: Optional[Dict[str, Set[str]]] = None
        self._entries: Dict[str, FrozenSet[str]] = {}
        self._programs: Dict[str, FrozenSet[str]] = {}
        self._mindspore_programs: Optional[FrozenSet[str]] = None
        self._cast_coverage: Optional[Dict[Tuple[str, str], Coverage]] = None
        self._origins: Optional[Dict[str, List[ClassCountOrigin]]] = None
        self._inference: Any = None

    # --- names to files ------------------------------------------------------------

    def resolve(self, reference: str, importer: str) -> Optional[Tuple[str, str]]:
        """``(file, symbol)`` a dotted reference made in ``importer`` points to; symbol "" for a module."""
        parts = reference.split(".")
        for cut in range(len(parts), 0, -1):
            candidates = self._by_module.get(".".join(parts[:cut]))
            if candidates:
                chosen = min(candidates, key=lambda c: (-_shared_folders(c, importer), len(c), c))
                return chosen, ".".join(parts[cut:])
        return None

    def definition(self, reference: str, importer: str, depth: int = 0) -> Optional[Tuple[str, str]]:
        """The file and top-level name that define what ``reference`` names, through re-exports."""
        found = self.resolve(reference, importer)
        if found is None or depth > MAX_RESOLVE_DEPTH:
            return None
        relative, symbol = found
        facts = self.facts[relative]
        head = symbol.split(".", 1)[0]
        if not symbol or head in facts.classes or head in facts.functions:
            return relative, head
        if head in facts.aliases:
            rest = symbol[len(head):]
            return self.definition(facts.aliases[head] + rest, relative, depth + 1)
        return None

    # --- programs --------------------------------------------------------------------

    def imports_of(self, relative: str) -> Set[str]:
        """Project files ``relative`` imports directly."""
        if relative not in self._imports:
            found = set()
            for target in self.facts[relative].imports:
                resolved = self.resolve(target, relative)
                if resolved is not None and resolved[0] != relative:
                    found.add(resolved[0])
            self._imports[relative] = found
        return self._imports[relative]

    def importers_of(self, relative: str) -> FrozenSet[str]:
        """Files that import ``relative``, directly or not, and the file itself (the entries of its programs)."""
        if relative not in self._entries:
            self._entries[relative] = frozenset(_reach([relative], self._direct_importers))
        return self._entries[relative]

    def _direct_importers(self, relative: str) -> Set[str]:
        if self._importers is None:
            self._importers = {name: set() for name in self.facts}
            for name in self.facts:
                for imported in self.imports_of(name):
                    self._importers[imported].add(name)
        return self._importers.get(relative, set())

    def closure(self, relative: str) -> FrozenSet[str]:
        """The program whose entry is ``relative``: it and everything it imports, directly or not."""
        return frozenset(_reach([relative], self.imports_of))

    def program_files(self, relative: str) -> FrozenSet[str]:
        """Every file that shares a program with ``relative`` (one walk from all the entries of its programs).

        The relation is symmetric, so questions about many files are asked of the
        few files that hold a fact (an AMP level, a profiler, a config value) instead.
        """
        if relative not in self._programs:
            self._programs[relative] = frozenset(_reach(self.importers_of(relative), self.imports_of))
        return self._programs[relative]

    def sharing_program(self, relative: str, holders: Iterable[str]) -> List[str]:
        """The ``holders`` that share a program with ``relative``, in path order."""
        return sorted(holder for holder in holders if relative in self.program_files(holder))

    def is_mindspore_code(self, relative: str) -> bool:
        """The file, or a file it shares a program with, imports MindSpore (or mindcv, mindformers, ...)."""
        if self._mindspore_programs is None:
            users = [name for name, facts in self.facts.items() if facts.imports_mindspore]
            entries = _reach(users, self._direct_importers)
            self._mindspore_programs = frozenset(_reach(entries, self.imports_of))
        return relative in self._mindspore_programs

    # --- config values ----------------------------------------------------------------

    def config_values(self, relative: str, key: str) -> List[ConfigValue]:
        """Values configured for ``key`` that reach programs holding ``relative``."""
        values: List[ConfigValue] = []
        holders = [name for name, facts in self.facts.items() if any(e.key == key for e in facts.config_entries)]
        for name in self.sharing_program(relative, holders):
            for entry in self.facts[name].config_entries:
                if entry.key == key:
                    source = "argparse default" if entry.owner == "argparse" else f"{entry.owner}[{key!r}]"
                    values.append(ConfigValue(entry.value, Where(name, entry.line, entry.column), source))
        entries = self.importers_of(relative) if relative in self.facts else frozenset()
        entry_names = {posixpath.basename(name) for name in entries}
        for path, record in sorted(self.index.files.items()):
            if record.yaml is not None:
                values.extend(ConfigValue(e.value, Where(path, e.line, e.column), f"{key}:")
                              for e in record.yaml.entries if e.key == key)
            for entry in record.shell:
                if entry.key == key and entry.owner.split(":", 1)[1] in entry_names:
                    values.append(ConfigValue(entry.value, Where(path, entry.line, entry.column), f"--{key}"))
        return values

    def flag_value(self, relative: str, expression: str) -> Optional[bool]:
        """A boolean flag read from config (``args.profile``): True/False when every source agrees."""
        key = config_key(expression)
        if key is None:
            return None
        values = {_truthy(v.value) for v in self.config_values(relative, key)}
        return values.pop() if len(values) == 1 else None

    # --- MSP101: fp16 coverage -------------------------------------------------------

    def coverage(self, relative: str, class_name: str) -> Tuple[Optional[Coverage], List[str]]:
        """The mechanism covering a Cell class of ``relative``, and a trace of what was considered."""
        cast = self.cast_coverage().get((relative, class_name))
        if cast is not None:
            return cast, [str(cast)]
        trace: List[str] = []
        for judged in self.amp_judgements(relative):
            trace.append(judged.note)
            if judged.coverage is not None:
                return judged.coverage, trace
        if not trace:
            trace.append("no mixed-precision mechanism in any program that uses this file")
        return None, trace

    def amp_judgements(self, relative: str) -> List[AmpJudgement]:
        """Every AMP level / precision knob in the programs holding ``relative``, judged (in path order)."""
        holders = [name for name, facts in self.facts.items() if facts.amp]
        return [self._judge_amp(name, site) for name in self.sharing_program(relative, holders)
                for site in self.facts[name].amp]

    def _judge_amp(self, relative: str, site: AmpSite) -> AmpJudgement:
        where = Where(relative, site.line, site.column)
        if site.level is not None:
            mechanism = _describe_amp(site, repr(site.level))
            if _covering_level(site.kind, site.level):
                level = _amp_level(site.kind, site.level)
                return AmpJudgement(Coverage(mechanism, where, O1_NOTE if level else ""), level)
            return AmpJudgement(None, None, f"{mechanism} at {where} keeps fp32")
        mechanism = _describe_amp(site, site.expression)
        key = config_key(site.expression)
        values = self.config_values(relative, key) if key else []
        covering = [v for v in values if isinstance(v.value, str) and _covering_level(site.kind, v.value)]
        if covering:
            levels = {_amp_level(site.kind, v.value) for v in covering}
            level = levels.pop() if len(levels) == 1 else None  # O1 in one config, O2 in another: all ops
            detail = f"{covering[0]}; {O1_NOTE}" if level else f"{covering[0]}"
            return AmpJudgement(Coverage(mechanism, where, detail), level)
        if values:
            listed = ", ".join(str(v) for v in values)
            note = f"{mechanism} at {where} keeps fp32: every configured value keeps fp32 ({listed})"
            return AmpJudgement(None, None, note)
        return AmpJudgement(Coverage(mechanism, where, "value not known, assumed to cover"), None)

    def cast_coverage(self) -> Dict[Tuple[str, str], Coverage]:
        """``(file, class)`` -> the ``to_float``/``add_flags_recursive`` applied to an instance that builds it."""
        if self._cast_coverage is None:
            covered: Dict[Tuple[str, str], Coverage] = {}
            for relative, facts in sorted(self.facts.items()):
                for cast in facts.casts:
                    for built in self._built_from(cast, relative):
                        covered.setdefault(built, _cast_coverage(cast, relative))
            self._cast_coverage = covered
        return self._cast_coverage

    def _built_from(self, cast: CastSite, relative: str) -> Set[Tuple[str, str]]:
        start = self.definition(cast.builder, relative)
        seen: Set[Tuple[str, str]] = set()
        stack = [start] if start is not None else []
        while stack:
            node = stack.pop()
            if node in seen or len(seen) > 10_000:
                continue
            seen.add(node)
            file, symbol = node
            facts = self.facts[file]
            for reference in facts.classes.get(symbol, facts.functions.get(symbol, [])):
                found = self.definition(reference, file)
                if found is not None and found[1]:
                    stack.append(found)
        return seen

    # --- MSP105: profiling elsewhere ---------------------------------------------------

    def profilers_elsewhere(self, relative: str) -> List[RemoteProfiler]:
        """Profiling started in other files of the programs holding ``relative`` (not switched off by config)."""
        found = []
        holders = [name for name, facts in self.facts.items() if facts.profilers and name != relative]
        for name in self.sharing_program(relative, holders):
            for site in self.facts[name].profilers:
                if not self._guard_is_off(name, site):
                    found.append(RemoteProfiler(site.kind, Where(name, site.line, site.column), site.dataset,
                                                tuple(site.guards)))
        return found

    def _guard_is_off(self, relative: str, site: ProfilerSite) -> bool:
        """``if args.profile: Profiler()`` where every configured ``profile`` is False never profiles."""
        for test, positive in site.guards:
            negated = test.startswith("not ")
            value = self.flag_value(relative, test[4:] if negated else test)
            if value is not None and (value != negated) != positive:
                return True
        return False

    # --- MSP104: class counts from configs -------------------------------------------

    def class_count_origins(self, relative: str) -> List[ClassCountOrigin]:
        """Literal 1000s in ``relative`` that reach a ResNet-50 builder's class count (astroid, on demand)."""
        if self._origins is None:
            self._origins = {}
            for name, facts in sorted(self.facts.items()):
                for use in facts.class_count_uses:
                    if use.loads_weights:
                        continue
                    inferred = self.inference().infer(self.index.absolute(name), use.expression, use.scope)
                    if inferred is None or inferred.value != 1000 or type(inferred.value) is not int:
                        continue
                    origin = self.index.relative(inferred.path)
                    if origin is None:
                        continue
                    consumer = Where(name, use.line, use.column)
                    self._origins.setdefault(origin, []).append(
                        ClassCountOrigin(inferred.line, inferred.column, inferred.how, consumer,
                                         f"{use.builder}({use.keyword}={use.expression})"))
        return self._origins.get(relative, [])

    def inference(self) -> Any:
        """The astroid-backed inference for this project (created on first use)."""
        if self._inference is None:
            from ms_perflint.project.inference import Inference

            self._inference = Inference(self.index.root)
        return self._inference


class ProjectView:
    """What ``context.project`` is: the project's answers for one file."""

    def __init__(self, analysis: ProjectAnalysis, relative: str) -> None:
        self.analysis = analysis
        self.relative = relative

    def fp16_coverage(self, class_name: str) -> Optional[Coverage]:
        """How a Cell class of this file is covered anywhere in its programs, or None."""
        return self.analysis.coverage(self.relative, class_name)[0]

    def cast_coverage(self, class_name: str) -> Optional[Coverage]:
        """A ``to_float``/``add_flags_recursive`` in any file on an instance that builds this file's class."""
        return self.analysis.cast_coverage().get((self.relative, class_name))

    def amp_mechanisms(self) -> List[AmpJudgement]:
        """AMP levels and precision knobs in *other* files of this file's programs that cast MatMuls."""
        return [judged for judged in self.analysis.amp_judgements(self.relative)
                if judged.coverage is not None and judged.coverage.where.path != self.relative]

    def coverage_trace(self, class_name: str) -> List[str]:
        """Every mechanism considered for the class, and the verdict on each (``--trace-coverage``)."""
        return self.analysis.coverage(self.relative, class_name)[1]

    def profilers_elsewhere(self) -> List[RemoteProfiler]:
        """Profiling started in other files of programs that hold this file."""
        return self.analysis.profilers_elsewhere(self.relative)

    def class_count_origins(self) -> List[ClassCountOrigin]:
        """Literal 1000s in this file that become a ResNet-50's class count elsewhere."""
        return self.analysis.class_count_origins(self.relative)

    def is_mindspore_code(self) -> bool:
        """This file is part of a program that uses MindSpore."""
        return self.analysis.is_mindspore_code(self.relative)

    def needs_lint(self, text: str, rules: Sequence[Any]) -> bool:
        """Lint this file although it does not mention MindSpore: it is in a MindSpore program and a rule may fire."""
        if not self.is_mindspore_code():
            return False
        if any(marker in text for rule in rules for marker in rule.markers):
            return True
        return any(rule.code == CLASS_COUNT_CODE for rule in rules) and bool(self.class_count_origins())


def mutually_exclusive(first: Iterable[Guard], second: Iterable[Guard]) -> bool:
    """Two sites in opposite arms of the same test (``if args.profile:`` / ``else:``, or ``not args.profile``)."""
    normalized = {_normalize(guard) for guard in first}
    return any((test, not positive) in normalized for test, positive in map(_normalize, second))


def _normalize(guard: Guard) -> Guard:
    test, positive = guard
    while test.startswith("not "):
        test, positive = test[4:], not positive
    return test, positive


def config_key(expression: str) -> Optional[str]:
    """The key an expression reads from a config: ``args.amp_level`` / ``config["amp_level"]`` -> ``amp_level``."""
    try:
        node = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def _covering_level(kind: str, level: str) -> bool:
    if kind == "matmul_allow_hf32":
        return True
    if kind == "precision_mode":
        return level not in FP32_PRECISION_MODES
    return level.upper() in COVERING_AMP_LEVELS


def _amp_level(kind: str, level: str) -> Optional[str]:
    """``"O1"`` for an O1 AMP level (white list only); None for levels and knobs that cast every MatMul."""
    return "O1" if kind in ("Model", "auto_mixed_precision", "build_train_network") and level.upper() == "O1" else None


def _describe_amp(site: AmpSite, level: str) -> str:
    argument = {"Model": "amp_level=", "build_train_network": "level=", "precision_mode": ""}.get(site.kind, "")
    if site.kind == "auto_mixed_precision":
        return f"auto_mixed_precision(net, {level})"
    if site.kind == "matmul_allow_hf32":
        return "matmul_allow_hf32(True)"
    return f"{site.kind}({argument}{level})"


def _cast_coverage(cast: CastSite, relative: str) -> Coverage:
    mechanism = cast.text if cast.low_precision else f"{cast.text} (a deliberate fp32 choice)"
    return Coverage(mechanism, Where(relative, cast.line, cast.column), deliberate_fp32=not cast.low_precision)


def _truthy(value: Any) -> Any:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return bool(value) if isinstance(value, (bool, int)) else value


def _reach(starts: Iterable[str], neighbours: Any) -> Set[str]:
    """Every node reachable from any of ``starts`` (included) through ``neighbours``: one walk, O(nodes + edges)."""
    seen = set(starts)
    stack = list(seen)
    while stack:
        for name in neighbours(stack.pop()):
            if name not in seen:
                seen.add(name)
                stack.append(name)
    return seen


def _shared_folders(candidate: str, importer: str) -> int:
    count = 0
    for left, right in zip(posixpath.dirname(candidate).split("/"), posixpath.dirname(importer).split("/")):
        if left != right:
            break
        count += 1
    return count


# --- one analysis per loaded index ----------------------------------------------------

_ANALYSES: Dict[str, ProjectAnalysis] = {}


def analysis_for(root: str, persist: bool = True) -> ProjectAnalysis:
    """The analysis of the loaded index at ``root`` (loading it on first use; ``persist``: see ``load_index``)."""
    from ms_perflint.project.index import load_index

    root = os.path.abspath(root)
    if root not in _ANALYSES:
        _ANALYSES[root] = ProjectAnalysis(load_index(root, persist=persist))
    return _ANALYSES[root]


def view_for(root: str, path: str, persist: bool = True) -> Optional[ProjectView]:
    """The view of ``path`` in the project at ``root``; None when the file is not indexed there."""
    analysis = analysis_for(root, persist)
    relative = analysis.index.relative(path)
    if relative is None or relative not in analysis.facts:
        return None
    return ProjectView(analysis, relative)


def forget(root: str) -> None:
    """Drop the cached analysis of ``root`` (its index was rebuilt)."""
    _ANALYSES.pop(os.path.abspath(root), None)
