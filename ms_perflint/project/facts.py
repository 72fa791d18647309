"""Per-file facts for the project index, collected with the standard library's ``ast``.

The index pass reads every Python file of a project before any rule runs, so it
must be cheap: ``ast.parse`` costs about a tenth of ``libcst.parse_module``
(DESIGN.md), and a file is parsed only when its text mentions something the
facts are about. Everything here is plain data that survives a JSON round trip,
so the index can be persisted and shared by flake8's worker processes.

Names are recorded as *references*: a dotted name whose head was mapped through
the file's imports to an absolute module path (``from .resnet import ResNet`` in
``src/model.py`` becomes ``src.resnet.ResNet``; a class of the file itself
becomes ``<module>.<Class>``). The index resolves references to project files.
"""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

#: Substrings that make a file worth parsing for facts (imports, configs, mechanisms).
FACT_MARKERS = ("import", "add_argument", "class_num", "num_classes", "amp_level", "config")

#: ``(test source, positive)`` for each ``if`` arm around a site, innermost first.
Guard = Tuple[str, bool]

#: Callees that take an AMP level: kind shown in messages, (keyword, position). All default to "O0".
AMP_CALLS = {
    "mindspore.train.Model": ("Model", "amp_level", 6),
    "mindspore.amp.auto_mixed_precision": ("auto_mixed_precision", "amp_level", 1),
    "mindspore.amp.build_train_network": ("build_train_network", "level", 3),
}
PRECISION_MODE_SUFFIX = ".precision_mode"
HF32_SUFFIX = ".matmul_allow_hf32"
SET_CONTEXT = "mindspore.set_context"
#: Profiling sites, named as MSP105 names them. ``data_process`` defaults: None where the default changed
#: across releases (``Profiler``: True before ~2.3, False since), False where it was always False.
PROFILER_CALLS = {"mindspore.profiler.Profiler": None, "mindspore.profiler.profile": False}
PROFILE_POSITION = {"mindspore.profiler.profile": 3}
PROFILER_ENV = "MS_PROFILER_OPTIONS"
LOW_PRECISION_DTYPES = frozenset(("mindspore.float16", "mindspore.bfloat16"))
FP32_DTYPES = frozenset(("mindspore.float32",))
#: Names of ResNet-50 builders (RULES.md MSP104) and the keywords that carry a class count.
RESNET50_NAMES = frozenset(("resnet50", "ResNet50"))
CLASS_COUNT_KEYWORDS = ("num_classes", "class_num")
WEIGHT_LOADERS = frozenset(("load_checkpoint", "load_param_into_net"))
#: Keys of config values the project analysis follows.
CONFIG_KEYS = frozenset(("amp_level", "class_num", "num_classes", "profile", "enable_profiling", "profiler"))


@dataclass
class Site:
    """Where something is: 1-based line and 0-based column (characters), as violations use."""

    line: int
    column: int


@dataclass
class AmpSite(Site):
    """A mechanism that runs MatMuls in low precision for a whole network or process.

    ``level`` is the literal AMP level or precision mode, None when the file does
    not say (``amp_level=config.amp_level``); ``expression`` is then its source.
    """

    kind: str = ""
    level: Optional[str] = None
    expression: str = ""


@dataclass
class CastSite(Site):
    """``net.to_float(<dtype>)``/``add_flags_recursive(fp16=True)`` on an instance built by ``builder``.

    A cast of a sub-cell (``net.head.to_float(...)``) counts for the whole instance,
    as MSP101 decides within one file: the sub-cell's own classes are not known here,
    and a cast the linter cannot place must silence findings, never cause them.
    """

    builder: str = ""
    low_precision: bool = True
    text: str = ""


@dataclass
class ProfilerSite(Site):
    """A place that starts profiling; ``dataset`` says whether dataset profiling is on (None: unknown)."""

    kind: str = ""
    dataset: Optional[bool] = None
    guards: List[Guard] = field(default_factory=list)


@dataclass
class ConfigEntry(Site):
    """A config value in Python: an argparse default, a dict config entry, or a class attribute.

    ``owner`` is ``argparse`` or the config's name (``config`` for ``config = {...}``);
    ``value`` is the literal value (None when not a literal: then it is not recorded).
    """

    owner: str = ""
    key: str = ""
    value: Any = None


@dataclass
class ClassCountUse(Site):
    """A ResNet-50 builder call whose class count is an expression the file cannot evaluate."""

    builder: str = ""
    #: The keyword that passes it (``class_num``) and the expression (``config.class_num``).
    keyword: str = ""
    expression: str = ""
    #: Names of the functions/classes around the call, outermost first.
    scope: List[str] = field(default_factory=list)
    #: ``pretrained=`` other than False, or a checkpoint loaded in the same function: 1000 must stay.
    loads_weights: bool = False


@dataclass
class FileFacts:
    """Everything the index knows about one Python file."""

    module: str
    imports_mindspore: bool = False
    #: Absolute module paths this file imports (candidates: ``a.b.c`` may be module ``a.b`` + name ``c``).
    imports: List[str] = field(default_factory=list)
    #: Module-level import table of non-MindSpore names: local name -> absolute target (for re-exports).
    aliases: Dict[str, str] = field(default_factory=dict)
    #: Top-level classes -> references of what their bodies call (the Cells they build).
    classes: Dict[str, List[str]] = field(default_factory=dict)
    #: Top-level MindSpore Cell classes -> the line of their ``class`` statement.
    cells: Dict[str, int] = field(default_factory=dict)
    #: Top-level functions -> references of what they call (factories such as ``resnet50``).
    functions: Dict[str, List[str]] = field(default_factory=dict)
    amp: List[AmpSite] = field(default_factory=list)
    casts: List[CastSite] = field(default_factory=list)
    profilers: List[ProfilerSite] = field(default_factory=list)
    config_entries: List[ConfigEntry] = field(default_factory=list)
    class_count_uses: List[ClassCountUse] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        """A dict of JSON types."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "FileFacts":
        """Inverse of :meth:`to_json`."""
        kinds = {"amp": AmpSite, "casts": CastSite, "profilers": ProfilerSite,
                 "config_entries": ConfigEntry, "class_count_uses": ClassCountUse}
        values = dict(data)
        for name, kind in kinds.items():
            values[name] = [kind(**_with_tuple_guards(item)) for item in data.get(name, [])]
        return cls(**values)


def _with_tuple_guards(item: Dict[str, Any]) -> Dict[str, Any]:
    if "guards" in item:
        item = dict(item, guards=[(test, bool(positive)) for test, positive in item["guards"]])
    return item


def collect_facts(text: str, module: str, is_package: bool = False) -> FileFacts:
    """Facts of one file's source. Invalid Python yields empty facts, never an exception."""
    facts = FileFacts(module=module)
    if not any(marker in text for marker in FACT_MARKERS):
        return facts
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return facts
    try:
        _Collector(facts, text, module, is_package).run(tree)
    except RecursionError:
        return FileFacts(module=module)  # absurdly deep nesting: no facts rather than a crash
    return facts


class _Names:
    """The file's import table for ``ast``: local name -> absolute dotted target."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.table: Dict[str, str] = {}
        #: Bumped by every binding, so that answers derived from the table can be reused until it changes.
        self.version = 0
        package = module if is_package else module.rpartition(".")[0]
        self.package_parts = package.split(".") if package else []

    def bind_import(self, node: ast.Import) -> Iterator[str]:
        for alias in node.names:
            if alias.asname:
                self.table[alias.asname] = alias.name
                self.version += 1
            else:
                head = alias.name.split(".", 1)[0]
                self.table[head] = head
                self.version += 1
            yield alias.name

    def bind_import_from(self, node: ast.ImportFrom) -> Iterator[str]:
        base = self._absolute(node.module or "", node.level)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                yield base
                continue
            target = f"{base}.{alias.name}" if base else alias.name
            self.table[alias.asname or alias.name] = target
            self.version += 1
            yield target

    def _absolute(self, module: str, level: int) -> Optional[str]:
        if level == 0:
            return module
        if level - 1 > len(self.package_parts):
            return None
        parts = self.package_parts[: len(self.package_parts) - (level - 1)]
        return ".".join([*parts, module] if module else parts)

    def reference(self, dotted: Optional[str]) -> Optional[str]:
        """The absolute dotted target of a local dotted name, None when its head is not imported."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        target = self.table.get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def qualified(self, dotted: Optional[str]) -> Optional[str]:
        """The canonical MindSpore spelling of a dotted name (``ms.Model`` -> ``mindspore.train.Model``)."""
        reference = self.reference(dotted)
        from ms_perflint.imports import canonical_name  # libcst comes with it: only when a file is parsed

        return canonical_name(reference) if reference else None


def dotted(node: ast.AST) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def literal(node: Optional[ast.AST]) -> Any:
    """The value of a literal (``"O2"``, ``1000``, ``-1``, ``True``), else :data:`NOT_LITERAL`."""
    if node is None:
        return NOT_LITERAL
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL
    return value if isinstance(value, (str, int, float, bool)) or value is None else NOT_LITERAL


NOT_LITERAL = object()


def keyword(call: ast.Call, name: str, position: Optional[int] = None) -> Optional[ast.AST]:
    """The argument bound to ``name``: by keyword, or the positional one at ``position``."""
    for item in call.keywords:
        if item.arg == name:
            return item.value
    if position is not None and len(call.args) > position:
        if not any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
            return call.args[position]
    return None


#: Callee names (the last part, after following the file's imports) worth a closer look;
#: every other call only tells what a class or function builds.
_INTERESTING_CALLEES = frozenset(
    ("Model", "auto_mixed_precision", "build_train_network", "precision_mode", "matmul_allow_hf32", "set_context",
     "Profiler", "profile", "to_float", "add_flags_recursive", "add_argument", "setdefault",
     "putenv", "create_model", *RESNET50_NAMES)
)
_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


class _Collector:
    """One pass over a module, filling :class:`FileFacts`.

    The pass is statement-driven: it follows ``def``/``class``/``if`` structure
    (for scopes and guards) and scans each statement's expressions for calls with
    a small hand-written walk -- ``ast.NodeVisitor`` cost several times more
    than parsing (measured on MindSpore's own sources), which the index must not.
    """

    def __init__(self, facts: FileFacts, text: str, module: str, is_package: bool) -> None:
        from ms_perflint.imports import MINDSPORE_PACKAGES  # not at import time: a cached index needs no libcst

        self.packages = MINDSPORE_PACKAGES
        self.facts = facts
        self.text = text
        self.lines = text.splitlines()
        self.names = _Names(module, is_package)
        self.module = module
        self.scope: List[ast.AST] = []
        #: ``(test, positive)`` for each ``if`` arm around the statement, innermost first (made into guards lazily).
        self.branches: List[Tuple[ast.AST, bool]] = []
        #: Variable name (in the current function or module) -> reference of the builder it was made by.
        self.instances: List[Dict[str, str]] = [{}]
        self.track_instances = "to_float" in text or "add_flags_recursive" in text
        self.sets_profiler_options = PROFILER_ENV in text
        #: Words whose presence in an expression's lines makes its calls worth reading.
        self.words = _words_pattern(_INTERESTING_CALLEES)
        self.local_definitions: Dict[str, str] = {}
        #: Names assigned at module level (their value, if any, is the file's own business).
        self.module_assigned: set = set()
        #: Dotted callee names in the top-level definition being read.
        self.called: Optional[set] = None
        #: :meth:`_project_heads`, valid while the import table is at ``_heads_version``.
        self._heads: set = set()
        self._heads_version = -1

    def run(self, tree: ast.Module) -> None:
        self.tree = tree
        for statement in tree.body:
            if isinstance(statement, _DEFINITIONS):
                self.local_definitions[statement.name] = f"{self.module}.{statement.name}"
            elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                self.module_assigned.update(t.id for t in targets if isinstance(t, ast.Name))
        self._block(tree.body)
        facts = self.facts
        facts.imports = sorted(set(facts.imports))
        facts.aliases = {
            name: target for name, target in self.names.table.items()
            if target.split(".", 1)[0] not in self.packages and name not in self.local_definitions
        }
        for sites in (facts.amp, facts.casts, facts.profilers, facts.config_entries,
                      facts.class_count_uses):
            sites.sort(key=lambda site: (site.line, site.column))

    # --- positions and names -------------------------------------------------

    def site(self, node: ast.AST) -> Tuple[int, int]:
        """(line, character column) of a node; ``ast`` columns count UTF-8 bytes."""
        line = getattr(node, "lineno", 1)
        offset = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return line, len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))

    def reference(self, node: ast.AST) -> Optional[str]:
        """Reference of a called name: imported, or a top-level class/function of this file."""
        return self._reference_of(dotted(node))

    def _reference_of(self, name: Optional[str]) -> Optional[str]:
        if name is None:
            return None
        head = name.split(".", 1)[0]
        if head in self.local_definitions and head not in self.names.table:
            return self.local_definitions[head] + name[len(head):]
        return self.names.reference(name)

    def guards(self) -> List[Guard]:
        """The guards of the statement being read, innermost first."""
        return [guard for test, positive in self.branches for guard in guards_from_test(test, positive)]

    # --- statements ------------------------------------------------------------

    def _block(self, statements: Sequence[ast.stmt]) -> None:
        for statement in statements:
            self._statement(statement)

    def _statement(self, node: ast.stmt) -> None:
        kind = type(node)
        if kind is ast.Import:
            for target in self.names.bind_import(node):  # type: ignore[arg-type]
                self._note_import(target)
            self._note_aliases(node)
        elif kind is ast.ImportFrom:
            for target in self.names.bind_import_from(node):  # type: ignore[arg-type]
                self._note_import(target)
            self._note_aliases(node)
        elif kind in _DEFINITIONS:
            self._definition(node)
        elif kind is ast.If:
            self._scan(node.test)  # type: ignore[attr-defined]
            for positive, body in ((True, node.body), (False, node.orelse)):  # type: ignore[attr-defined]
                self.branches.insert(0, (node.test, positive))  # type: ignore[attr-defined]
                self._block(body)
                self.branches.pop(0)
        else:
            self._parts(node)
            if kind is ast.Assign:
                self._assign(node)  # type: ignore[arg-type]

    def _parts(self, node: ast.AST) -> None:
        """Expressions of a statement, and the statements nested in it (loops, ``with``, ``try``, ``match``)."""
        for field_name in node._fields:
            value = getattr(node, field_name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.stmt):
                        self._statement(item)
                    elif isinstance(item, (ast.excepthandler, ast.match_case)):
                        self._parts(item)
                    elif isinstance(item, ast.AST):
                        self._scan(item)
            elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                self._scan(value)

    def _definition(self, node: ast.AST) -> None:
        top_level = not self.scope
        if top_level:
            self.called = self._called_names(node)
        header = (*node.decorator_list, *getattr(node, "bases", ()), *getattr(node, "keywords", ()))  # type: ignore
        for part in header:
            self._scan(part)
        self.scope.append(node)
        self.instances.append({})
        saved, self.branches = self.branches, []
        self._block(node.body)  # type: ignore[attr-defined]
        self.branches = saved
        self.instances.pop()
        self.scope.pop()
        if top_level:
            built = {self._reference_of(name) for name in self.called or ()}
            references = sorted(r for r in built if r and r.split(".", 1)[0] not in self.packages)
            if isinstance(node, ast.ClassDef):
                self.facts.classes[node.name] = references
                if self._is_cell(node):
                    self.facts.cells[node.name] = node.lineno
            else:
                self.facts.functions[node.name] = references  # type: ignore[attr-defined]
            self.called = None

    def _is_cell(self, node: ast.ClassDef) -> bool:
        """A base is ``nn.Cell`` (any MindSpore ``nn`` class) or a Cell of this file, or it defines ``construct``."""
        for base in node.bases:
            qualified = self.names.qualified(dotted(base)) or ""
            if qualified.startswith("mindspore.nn.") or dotted(base) in self.facts.cells:
                return True
        return any(isinstance(s, ast.FunctionDef) and s.name == "construct" for s in node.body)

    def _note_import(self, target: str) -> None:
        if target.split(".", 1)[0] in self.packages:
            self.facts.imports_mindspore = True
        else:
            self.facts.imports.append(target)

    def _assign(self, node: ast.Assign) -> None:
        if self.track_instances and isinstance(node.value, ast.Call):
            builder = self.reference(node.value.func)
            for target in node.targets:
                name = dotted(target)
                if builder and name:
                    self.instances[-1][name] = builder
        if not self.scope and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self._dict_config(node.targets[0].id, node.value)
        if self.sets_profiler_options and any(
            isinstance(t, ast.Subscript) and _is_environ(t.value) and _is_profiler_key(t.slice) for t in node.targets
        ):
            self._profiler_options(node, node.value)

    # --- calls -------------------------------------------------------------------

    def _called_names(self, node: ast.AST) -> set:
        """Dotted names followed by ``(`` in a definition's lines that may name a project class or function.

        Read from the text (a regular expression runs in C) rather than by walking
        every expression, and only for names the file defines or imports from
        outside MindSpore; a name in a string or comment can only add an edge,
        which makes coverage wider, never a finding more.
        """
        heads = self._project_heads()
        if not heads:
            return set()
        first, last = node.lineno, getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        segment = "\n".join(self.lines[first - 1 : last])
        called = {reversed_name[::-1] for reversed_name in _DOTTED_CALL_REVERSED.findall(segment[::-1])}
        return {name for name in called if name.split(".", 1)[0] in heads} - {node.name}  # type: ignore[attr-defined]

    def _project_heads(self) -> set:
        """Names the file defines, or imports from outside MindSpore: calls of them may reach project code."""
        if self._heads_version != self.names.version:  # local definitions are fixed by run()
            heads = set(self.local_definitions)
            heads.update(name for name, target in self.names.table.items() if target.split(".", 1)[0] not in self.packages)
            self._heads, self._heads_version = heads, self.names.version
        return self._heads

    def _note_aliases(self, node: ast.AST) -> None:
        """``from mindspore import Model as M``: ``M`` now marks an interesting call too."""
        aliases = [alias.asname for alias in node.names  # type: ignore[attr-defined]
                   if alias.asname and alias.name.rsplit(".", 1)[-1] in _INTERESTING_CALLEES]
        if aliases:
            self.words = _words_pattern([*_INTERESTING_CALLEES, *aliases, *self.words.pattern.split("|")])

    def _scan(self, expression: ast.AST) -> None:
        """Read the calls of an expression whose lines mention an interesting callee."""
        first = getattr(expression, "lineno", None)
        if first is None:
            self._expressions(expression)
            return
        last = getattr(expression, "end_lineno", None) or first
        segment = self.lines[first - 1] if last == first else "\n".join(self.lines[first - 1 : last])
        if self.words.search(segment):
            self._expressions(expression)

    def _expressions(self, root: ast.AST) -> None:
        """Every call inside an expression (lambdas and comprehensions included)."""
        stack = [root]
        while stack:
            node = stack.pop()
            if type(node) is ast.Call:
                self._call(node)  # type: ignore[arg-type]
            for field_name in node._fields:
                value = getattr(node, field_name, None)
                if type(value) is list:
                    stack.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST) and not isinstance(value, ast.expr_context):
                    stack.append(value)

    def _call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        if name is not None:
            target = self.names.reference(name) or name
            last = target.rsplit(".", 1)[-1]
        else:
            last = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if last not in _INTERESTING_CALLEES:
            return
        qualified = self.names.qualified(name) if name is not None else None
        if qualified:
            self._mindspore_call(node, qualified)
        attribute = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if attribute in ("to_float", "add_flags_recursive"):
            self._cast(node, attribute)
        elif attribute == "add_argument":
            self._argparse(node)
        elif attribute in ("setdefault", "putenv") and len(node.args) > 1 and _is_profiler_key(node.args[0]):
            self._profiler_options(node, node.args[1])
        self._class_count_use(node)

    # --- fp16 mechanisms -------------------------------------------------------

    def _mindspore_call(self, node: ast.Call, qualified: str) -> None:
        if qualified in AMP_CALLS:
            kind, name, position = AMP_CALLS[qualified]
            self._amp(node, kind, keyword(node, name, position))
        elif qualified.endswith(PRECISION_MODE_SUFFIX):
            self._amp(node, "precision_mode", keyword(node, "mode", 0))
        elif qualified.endswith(HF32_SUFFIX) and literal(keyword(node, "value", 0)) is True:
            self._add_amp(node, "matmul_allow_hf32", "hf32", "")
        elif qualified == SET_CONTEXT:
            self._set_context(node)
        elif qualified in PROFILER_CALLS:
            self._profiler(node, qualified, _dataset_profiling(node, qualified))

    def _amp(self, node: ast.Call, kind: str, level: Optional[ast.AST]) -> None:
        if level is None:
            if any(item.arg is None for item in node.keywords):
                self._add_amp(node, kind, None, "**kwargs")
            return
        value = literal(level)
        if value is NOT_LITERAL:
            self._add_amp(node, kind, None, ast.unparse(level))
        elif isinstance(value, str):
            self._add_amp(node, kind, value, "")

    def _add_amp(self, node: ast.AST, kind: str, level: Optional[str], expression: str) -> None:
        line, column = self.site(node)
        self.facts.amp.append(AmpSite(line, column, kind=kind, level=level, expression=expression))

    def _set_context(self, node: ast.Call) -> None:
        profiling = keyword(node, "enable_profiling")
        if profiling is not None and literal(profiling) is True:
            self._profiler(node, SET_CONTEXT, None)
        ascend = keyword(node, "ascend_config")
        if isinstance(ascend, ast.Dict):
            for key, value in zip(ascend.keys, ascend.values):
                if key is not None and literal(key) == "precision_mode":
                    self._amp(node, "precision_mode", value)

    def _cast(self, node: ast.Call, method: str) -> None:
        low = self._cast_precision(node, method)
        if low is None or not isinstance(node.func, ast.Attribute):
            return
        target = node.func.value
        while isinstance(target, ast.Attribute) and self._instance_builder(dotted(target)) is None:
            target = target.value  # net.head.to_float(...): the instance net holds the sub-cell
        if isinstance(target, ast.Call):
            builder = self.reference(target.func)
        else:
            builder = self._instance_builder(dotted(target))
        if builder:
            line, column = self.site(node)
            text = ast.unparse(node)
            self.facts.casts.append(CastSite(line, column, builder=builder, low_precision=low, text=text[:80]))

    def _instance_builder(self, name: Optional[str]) -> Optional[str]:
        """What built the instance bound to ``name`` (innermost scope first), if known."""
        for table in reversed(self.instances):
            if name in table:
                return table[name]
        return None

    def _cast_precision(self, node: ast.Call, method: str) -> Optional[bool]:
        """True for low precision, False for a deliberate fp32 choice, None for anything else."""
        if method == "to_float":
            dtype = self.names.qualified(dotted(node.args[0])) if node.args else None
            if dtype in LOW_PRECISION_DTYPES:
                return True
            return False if dtype in FP32_DTYPES else None
        for flag, low in (("fp16", True), ("bf16", True), ("fp32", False)):
            if literal(keyword(node, flag)) is True:
                return low
        return None

    # --- AutoTune and profiling ------------------------------------------------

    def _profiler_options(self, node: ast.AST, value: ast.AST) -> None:
        """``MS_PROFILER_OPTIONS`` set to JSON (text or ``json.dumps({...})``) with ``"start": true``."""
        options = _json_options(value)
        if not isinstance(options, dict) or options.get("start") is not True:
            return  # MindSpore starts no profiler without "start": true; unreadable values are unknown
        dataset = None if "data_process" not in options else options["data_process"] is True
        self._profiler(node, PROFILER_ENV, dataset)

    def _profiler(self, node: ast.AST, kind: str, dataset: Optional[bool]) -> None:
        line, column = self.site(node)
        self.facts.profilers.append(ProfilerSite(line, column, kind=kind, dataset=dataset, guards=self.guards()))

    # --- configs and class counts ---------------------------------------------

    def _argparse(self, node: ast.Call) -> None:
        key = _argparse_dest(node)
        default = keyword(node, "default")
        if key not in CONFIG_KEYS or default is None:
            return
        value = literal(default)
        if value is not NOT_LITERAL:
            line, column = self.site(default)
            self.facts.config_entries.append(ConfigEntry(line, column, owner="argparse", key=key, value=value))

    def _dict_config(self, owner: str, value: ast.AST) -> None:
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            value = value.args[0]  # ed({...}), EasyDict({...}), dict({...})
        if not isinstance(value, ast.Dict):
            return
        for key_node, value_node in zip(value.keys, value.values):
            key = literal(key_node) if key_node is not None else NOT_LITERAL
            item = literal(value_node)
            if key in CONFIG_KEYS and item is not NOT_LITERAL:
                line, column = self.site(value_node)
                self.facts.config_entries.append(ConfigEntry(line, column, owner=owner, key=key, value=item))

    def _class_count_use(self, node: ast.Call) -> None:
        name = dotted(node.func)
        if name is None or not self._builds_resnet50(node, name):
            return
        given = next((k for k in CLASS_COUNT_KEYWORDS if keyword(node, k) is not None), None)
        argument = keyword(node, given) if given else None
        if argument is None or literal(argument) is not NOT_LITERAL or self._decided_here(argument):
            return
        line, column = self.site(node)
        scope = [getattr(owner, "name", "") for owner in self.scope]
        use = ClassCountUse(line, column, builder=name, keyword=given or "", expression=ast.unparse(argument),
                            scope=scope)
        use.loads_weights = self._loads_weights(node)
        self.facts.class_count_uses.append(use)

    def _decided_here(self, argument: ast.AST) -> bool:
        """A name the file itself gives a value (a module-level assignment, a parameter): MSP104 judges it there."""
        if not isinstance(argument, ast.Name):
            return False
        if argument.id in self.module_assigned:
            return True
        return any(
            argument.id in {a.arg for a in (*owner.args.posonlyargs, *owner.args.args, *owner.args.kwonlyargs)}
            for owner in self.scope if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef))
        )

    def _builds_resnet50(self, node: ast.Call, name: str) -> bool:
        """A ResNet-50 builder as MSP104 tells them: imported or defined here, not another framework's."""
        from ms_perflint.rules.msp104_resnet50_1000_classes import FOREIGN_PACKAGES, MINDCV_CREATE_MODEL

        reference = self._reference_of(name)
        if reference is None:
            return False
        if self.names.qualified(name) in MINDCV_CREATE_MODEL:
            return literal(keyword(node, "model_name", 0)) == "resnet50"
        return reference.rsplit(".", 1)[-1] in RESNET50_NAMES and reference.split(".", 1)[0] not in FOREIGN_PACKAGES

    def _loads_weights(self, node: ast.Call) -> bool:
        pretrained = keyword(node, "pretrained")
        if pretrained is not None and literal(pretrained) is not False:
            return True
        body = self.scope[-1] if self.scope else self.tree
        return any(
            isinstance(call, ast.Call) and (dotted(call.func) or "").rsplit(".", 1)[-1] in WEIGHT_LOADERS
            for call in ast.walk(body)
        )


#: A dotted name followed by ``(`` (``net.build(``), matched in the *reversed* text: a pattern that
#: starts with a literal ``(`` lets the regex engine skip straight to the calls, about 10x faster
#: on MindSpore's sources than scanning every identifier forwards (same matches on the whole
#: benchmark corpus). One pattern for every file: compiling each file's own names cost more.
_DOTTED_CALL_REVERSED = re.compile(r"\(\s*((?:\w+\.)*\w*[^\W\d])(?![\w.])")


def _words_pattern(words: Iterable[str]) -> "re.Pattern[str]":
    return re.compile("|".join(sorted({re.escape(word) for word in words})))


def _argparse_dest(node: ast.Call) -> Optional[str]:
    dest = literal(keyword(node, "dest"))
    if isinstance(dest, str):
        return dest
    flags = [literal(arg) for arg in node.args]
    long_flags = [f for f in flags if isinstance(f, str) and f.startswith("--")]
    chosen = long_flags[0] if long_flags else next((f for f in flags if isinstance(f, str)), None)
    if not chosen:
        return None
    return chosen.lstrip("-").replace("-", "_")


def _dataset_profiling(node: ast.Call, qualified: str) -> Optional[bool]:
    """As MSP105 decides: the release-dependent default, True, or False (also for unknown values)."""
    argument = keyword(node, "data_process", PROFILE_POSITION.get(qualified))
    if argument is None:
        return False if any(item.arg is None for item in node.keywords) else PROFILER_CALLS[qualified]
    if literal(argument) is not True:
        return False
    schedule = keyword(node, "schedule")
    if schedule is not None and literal(schedule) is not None:
        return False  # 2.10 turns data_process off when a schedule is set
    return True


def _json_options(value: ast.AST) -> Any:
    import json

    text = literal(value)
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return None
    if isinstance(value, ast.Call) and dotted(value.func) == "json.dumps" and value.args:
        try:
            return ast.literal_eval(value.args[0])
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return None


def guards_from_test(test: ast.AST, holds: bool) -> Iterator[Guard]:
    """What is known when ``test`` is ``holds``, as MSP105 reads it: through ``not``, ``and``, ``or``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from guards_from_test(test.operand, not holds)
        return
    yield " ".join(ast.unparse(test).split()), holds
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == holds:
        for value in test.values:
            yield from guards_from_test(value, holds)


def _is_environ(node: ast.AST) -> bool:
    return dotted(node) in ("os.environ", "environ")


def _is_profiler_key(node: ast.AST) -> bool:
    return literal(node) == PROFILER_ENV
