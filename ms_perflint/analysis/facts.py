"""The facts one pass over a file records: plain data that survives a JSON round trip.

A Python file becomes a :class:`PythonFacts`: its scopes (the module, the
``__main__`` block, classes, functions), the calls made in each with their
arguments as :class:`Value` s, the loops and ``if`` guards around each call, the
classes with the attributes their methods set, and config entries written as
Python (dict configs, config classes). Calls are recorded by what they name,
resolved through the file's imports to a canonical MindSpore name or to a
*reference* into the project (``src.model.resnet50``); the project model
(:mod:`ms_perflint.project.model`) links references across files and the rules
interpret calls with the tables of :mod:`ms_perflint.catalogue`.

A YAML config becomes a :class:`YamlFacts`, a launch script a :class:`ShellFacts`.

Everything is recorded once per file, whichever rules are enabled, so the same
facts serve per-file linting, the project index and every rule.
"""

from __future__ import annotations

import dataclasses
import operator
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

#: The many small facts (a large project has millions) are kept without a ``__dict__`` each where Python
#: allows it (3.10+): half the memory, and faster to send from a worker process.
_COMPACT: Dict[str, Any] = {"slots": True} if sys.version_info >= (3, 10) else {}


class _Compact:
    """A fact kept by the thousand: pickled (from a worker process to the one that decides) as its class called
    with its fields, trailing defaults left out. Pickle's own way for a slotted object writes a dict of every
    field: the facts of the benchmark corpus took 67 MB that way, 44 MB this way, and less time both to write
    and to read back."""

    __slots__ = ()

    def __reduce__(self):
        kind = type(self)
        spec = _PICKLING.get(kind)
        if spec is None:
            spec = _PICKLING[kind] = _pickling(kind)
        fields, defaults = spec
        values = fields(self)
        size = len(values)
        while size and type(values[size - 1]) is type(defaults[size - 1]) and values[size - 1] == defaults[size - 1]:
            size -= 1  # the same type too: 1 == True, and a 1 must not come back as the default True
        return kind, values[:size]


_NO_DEFAULT = object()
#: Per class: a getter of its fields' values as a tuple, and their defaults (:data:`_NO_DEFAULT` when required).
_PICKLING: Dict[type, Tuple[Callable[[Any], Tuple[Any, ...]], Tuple[Any, ...]]] = {}


def _pickling(kind: type) -> Tuple[Callable[[Any], Tuple[Any, ...]], Tuple[Any, ...]]:
    fields = dataclasses.fields(kind)
    getter = operator.attrgetter(*(f.name for f in fields))
    defaults = tuple(f.default if f.default is not dataclasses.MISSING
                     else f.default_factory() if f.default_factory is not dataclasses.MISSING  # type: ignore[misc]
                     else _NO_DEFAULT for f in fields)
    return (getter if len(fields) > 1 else lambda obj: (getter(obj),)), defaults

# --- values ------------------------------------------------------------------------------

LIT = "lit"  # data: a Python literal (int, float, str, bool, None, a tuple of them, or a dict display of them)
REF = "ref"  # data: a canonical qualified name or a project reference (``src.config.NUM_CLASSES``)
CFG = "cfg"  # data: a config key (``args.amp_level``, ``cfg["amp_level"]``); parts: (the object read, the default)
PARAM = "param"  # data: a parameter name of the scope the value is read in
CALL = "call"  # data: the id of a recorded call (its result)
SELF = "self"  # data: an attribute of ``self`` (``fc`` for ``self.fc``)
OP = "op"  # data: an operator (``+``, ``*``, ``not``, ``==``, ``ifexp``, ``tuple``, ``either``); parts: operands
NAME = "name"  # data: a local name whose value is not known
UNKNOWN = "unknown"
#: The operator of a value that is one of its parts in turn (a loop variable over ``(a, b, c)``).
EITHER = "either"
#: The operator of a value computed from its part by a method the analysis does not record (``logits.argmax(1)``):
#: kept only for parts that are call results, so that what a step returns can be followed into what is made of it.
DERIVED = "derived"
#: ``OP`` made of the elements of its one part: a comprehension over it, ``tuple(x)``, ``filter(f, x)``
#: (``tuple(p for p in model.parameters() if p.requires_grad)`` holds the network's parameters).
ITEMS = "items"
#: ``OP`` of ``container[key]`` whose key is not a literal: parts are the container and the key (``shapes[version]``,
#: ``versions[config.name]``). Apart from ``"[]"`` (a literal position), which other questions read as a step's output.
LOOKUP = "lookup"
#: ``OP`` of ``len(x)``: its one part is ``x``.
LENGTH = "len"
#: ``OP`` of a dict display whose values are not all literals, with string keys: parts alternate key (a ``LIT``)
#: and value (``{"params": [p for p in net.get_parameters()], "weight_decay": 0.0}``).
DICT = "dict"


def choices(value: "Value") -> Tuple["Value", ...]:
    """The values a choice may be: both arms of ``a if test else b`` (also a name bound in both arms of an ``if``),
    each part of ``either``; empty for any other value."""
    if value.kind == OP and value.data == "ifexp" and len(value.parts) == 3:
        return value.parts[1:]
    if value.kind == OP and value.data == EITHER:
        return value.parts
    return ()


@dataclass(**_COMPACT)
class Value(_Compact):
    """What an expression is known to be, and where it is written."""

    kind: str
    data: Any = None
    parts: Tuple["Value", ...] = ()
    #: Source text, shortened, for messages.
    text: str = ""
    #: The dtype of the last explicit cast in the expression's local history ("" none): a catalogue dtype.
    cast: str = ""
    #: The name the value was reached through (``NUM_CLASSES``), "" when written in place.
    via: str = ""
    #: Root of a config read (``args``, ``self.config``), for CFG values.
    root: str = ""
    line: int = 0
    column: int = 0
    start: int = 0
    end: int = 0

    @property
    def known(self) -> bool:
        return self.kind == LIT

    def to_json(self) -> List[Any]:
        """A compact list: fields in order, trailing defaults left out."""
        data = self.data
        if isinstance(data, tuple):
            data = {"t": list(data)}
        elif isinstance(data, dict):
            data = {"d": data}
        fields = [self.kind, data, [p.to_json() for p in self.parts] if self.parts else 0, self.text, self.cast,
                  self.via, self.root, self.line, self.column, self.start, self.end]
        while len(fields) > 1 and fields[-1] in _DEFAULTS[len(fields) - 1]:
            fields.pop()
        return fields

    @classmethod
    def from_json(cls, raw: Sequence[Any]) -> "Value":
        kind, data, parts, text, cast, via, root, line, column, start, end = (*raw, *_PADDING[len(raw):])
        if isinstance(data, dict) and "t" in data:
            data = _tuple(data["t"])
        elif isinstance(data, dict) and "d" in data:
            data = dict(data["d"])
        return cls(kind, data, tuple(cls.from_json(p) for p in parts) if parts else (), text, cast, via, root,
                   line, column, start, end)


#: A Value's fields when not given (kind and data are always written; data None is its default).
_PADDING = ("unknown", None, 0, "", "", "", "", 0, 0, 0, 0)
_DEFAULTS = tuple((d,) if d is not None else (None,) for d in _PADDING)


def _tuple(items: List[Any]) -> Tuple[Any, ...]:
    return tuple(_tuple(i["t"]) if isinstance(i, dict) and "t" in i else i for i in items)


def unknown(text: str = "") -> Value:
    """A value the file does not decide."""
    return Value(UNKNOWN, text=text)


#: A condition a call runs under and whether it holds there (``if args.profile:`` body: True).
Guard = Tuple[Value, bool]

# --- calls, scopes, classes, loops --------------------------------------------------------


@dataclass(**_COMPACT)
class Call(_Compact):
    """One call (or ``a @ b``, recorded as a call of ``@``) and its context.

    ``callee`` is set when the called thing has a name the file can resolve: a
    canonical MindSpore name, a project reference, or ``self.<attr>``. Otherwise
    the call is a method call: ``method`` on ``receiver`` (``model.train(...)``:
    method ``train``, receiver the value of ``model``); a call of a value
    (``train_step(x)``) has method ``__call__``.
    """

    id: int
    callee: str = ""
    method: str = ""
    receiver: Optional[Value] = None
    args: List[Value] = field(default_factory=list)
    kwargs: Dict[str, Value] = field(default_factory=dict)
    #: ``*args`` / ``**kwargs`` in the call: any argument may be passed.
    star: bool = False
    double_star: bool = False
    scope: int = 0
    #: Ids of the loops around the call within its scope, outermost first.
    loops: Tuple[int, ...] = ()
    guards: Tuple[Guard, ...] = ()
    #: The name or ``self.<attr>`` the result is assigned to ("" none).
    target: str = ""
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    start: int = 0
    end: int = 0
    #: Where a keyword argument can be appended, keeping the call's layout: (offset, before, after).
    insert: Optional[Tuple[int, str, str]] = None
    #: The call is a decorator (``@register(...)``): it runs where the definition is made, to decorate it.
    decorator: bool = False

    def argument(self, keyword: str, position: Optional[int] = None) -> Optional[Value]:
        """The value bound to a parameter, by keyword or position (None when not passed or unknowable)."""
        if keyword in self.kwargs:
            return self.kwargs[keyword]
        if position is not None and position < len(self.args) and not self.star:
            return self.args[position]
        return None

    def may_pass(self, keyword: str, position: Optional[int] = None) -> bool:
        """The call passes the parameter, or may through ``*args``/``**kwargs``."""
        if self.argument(keyword, position) is not None:
            return True
        return self.double_star or (self.star and position is not None)

    def to_json(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"id": self.id, "at": [self.scope, self.line, self.column, self.end_line,
                                                      self.end_column, self.start, self.end]}
        if self.callee:
            data["callee"] = self.callee
        if self.method:
            data["method"] = self.method
        if self.receiver is not None:
            data["receiver"] = self.receiver.to_json()
        if self.args:
            data["args"] = [a.to_json() for a in self.args]
        if self.kwargs:
            data["kwargs"] = {k: v.to_json() for k, v in self.kwargs.items()}
        if self.star or self.double_star:
            data["star"] = [self.star, self.double_star]
        if self.loops:
            data["loops"] = list(self.loops)
        if self.guards:
            data["guards"] = [[v.to_json(), holds] for v, holds in self.guards]
        if self.target:
            data["target"] = self.target
        if self.insert is not None:
            data["insert"] = list(self.insert)
        if self.decorator:
            data["decorator"] = True
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Call":
        scope, line, column, end_line, end_column, start, end = data["at"]
        star, double_star = data.get("star", (False, False))
        insert = data.get("insert")
        return cls(
            id=data["id"], callee=data.get("callee", ""), method=data.get("method", ""),
            receiver=Value.from_json(data["receiver"]) if "receiver" in data else None,
            args=[Value.from_json(a) for a in data.get("args", [])],
            kwargs={k: Value.from_json(v) for k, v in data.get("kwargs", {}).items()},
            star=star, double_star=double_star, scope=scope, loops=tuple(data.get("loops", ())),
            guards=tuple((Value.from_json(v), bool(h)) for v, h in data.get("guards", [])),
            target=data.get("target", ""), line=line, column=column, end_line=end_line, end_column=end_column,
            start=start, end=end, insert=(insert[0], insert[1], insert[2]) if insert else None,
            decorator=bool(data.get("decorator", False)),
        )


MODULE = "module"
MAIN = "main"
CLASS = "class"
FUNCTION = "function"


@dataclass(**_COMPACT)
class Scope(_Compact):
    """The module body, its ``if __name__ == "__main__":`` block, a class body or a function."""

    name: str
    kind: str
    #: The class a method (or class body) belongs to ("" otherwise).
    cls: str = ""
    parent: int = -1
    params: List[str] = field(default_factory=list)
    defaults: Dict[str, Value] = field(default_factory=dict)
    #: What decorates the definition: canonical names or project references (``mindspore.jit``).
    decorators: List[str] = field(default_factory=list)
    #: Values the function returns.
    returns: List[Value] = field(default_factory=list)
    line: int = 0
    #: Attributes of ``self`` the scope reads as values (not only their shape, not straight into a cast), each with
    #: the guards of a place it is read at (once per distinct set of guards).
    reads: List[Tuple[str, Tuple[Guard, ...]]] = field(default_factory=list)
    #: Calls that read or decode a sample from storage (``cv2.imread``, ``PIL.Image.open``) or draw from a global
    #: random stream (``numpy.random.rand``): qualified names, once each.
    work: List[str] = field(default_factory=list)
    #: The source of a function that builds objects in a loop or rebinds a name (``cngf = cngf // 2``), and the
    #: offset it starts at in the file: run with known sizes to tell each construction's arguments
    #: (``project/unroll.py``). Empty for other scopes.
    program: str = ""
    program_start: int = 0

    def to_json(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"name": self.name, "kind": self.kind, "parent": self.parent, "line": self.line}
        if self.program:
            data["program"] = [self.program_start, self.program]
        if self.reads:
            data["reads"] = [[name, [[v.to_json(), holds] for v, holds in guards]] for name, guards in self.reads]
        if self.work:
            data["work"] = self.work
        if self.cls:
            data["cls"] = self.cls
        if self.params:
            data["params"] = self.params
        if self.defaults:
            data["defaults"] = {k: v.to_json() for k, v in self.defaults.items()}
        if self.decorators:
            data["decorators"] = self.decorators
        if self.returns:
            data["returns"] = [v.to_json() for v in self.returns]
        return data

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "Scope":
        return cls(
            name=data["name"], kind=data["kind"], cls=data.get("cls", ""), parent=data["parent"],
            params=list(data.get("params", [])),
            defaults={k: Value.from_json(v) for k, v in data.get("defaults", {}).items()},
            decorators=list(data.get("decorators", [])),
            returns=[Value.from_json(v) for v in data.get("returns", [])], line=data["line"],
            reads=[(name, tuple((Value.from_json(v), bool(h)) for v, h in guards))
                   for name, guards in data.get("reads", [])],
            work=list(data.get("work", [])),
            program=data["program"][1] if "program" in data else "",
            program_start=data["program"][0] if "program" in data else 0,
        )


@dataclass(**_COMPACT)
class ClassFacts(_Compact):
    """A class: its bases, whether it is a MindSpore Cell, and what its methods set on ``self``."""

    name: str
    line: int = 0
    column: int = 0
    #: Canonical names or project references of the bases.
    bases: List[str] = field(default_factory=list)
    decorators: List[str] = field(default_factory=list)
    #: A direct MindSpore Cell (an ``nn`` base) or a class with a ``construct`` method.
    is_cell: bool = False
    #: ``self.<name> = value`` in its methods (``__init__``'s assignment wins).
    attrs: Dict[str, Value] = field(default_factory=dict)
    #: ``name = value`` in the class body.
    class_attrs: Dict[str, Value] = field(default_factory=dict)
    #: Method name -> scope index.
    methods: Dict[str, int] = field(default_factory=dict)
    #: The class body's scope index.
    scope: int = 0

    def to_json(self) -> Dict[str, Any]:
        return {
            "name": self.name, "at": [self.line, self.column, self.scope], "bases": self.bases,
            "decorators": self.decorators, "cell": self.is_cell,
            "attrs": {k: v.to_json() for k, v in self.attrs.items()},
            "class_attrs": {k: v.to_json() for k, v in self.class_attrs.items()}, "methods": self.methods,
        }

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "ClassFacts":
        line, column, scope = data["at"]
        return cls(
            name=data["name"], line=line, column=column, bases=list(data["bases"]),
            decorators=list(data["decorators"]), is_cell=bool(data["cell"]),
            attrs={k: Value.from_json(v) for k, v in data["attrs"].items()},
            class_attrs={k: Value.from_json(v) for k, v in data["class_attrs"].items()},
            methods=dict(data["methods"]), scope=scope,
        )


@dataclass(**_COMPACT)
class Loop(_Compact):
    """A ``for``/``while`` loop: its scope, the loop it is nested in, what a ``for`` iterates."""

    id: int
    scope: int
    kind: str
    parent: int = -1
    iterable: Optional[Value] = None
    line: int = 0

    def to_json(self) -> List[Any]:
        return [self.id, self.scope, self.kind, self.parent,
                self.iterable.to_json() if self.iterable is not None else None, self.line]

    @classmethod
    def from_json(cls, raw: Sequence[Any]) -> "Loop":
        id_, scope, kind, parent, iterable, line = raw
        return cls(id_, scope, kind, parent, Value.from_json(iterable) if iterable is not None else None, line)


#: The ``owner`` prefix of a :class:`ConfigEntry` stored on an object's attribute (``args.rank = 0``).
ATTRIBUTE_OWNER = "attr:"


@dataclass(**_COMPACT)
class ConfigEntry(_Compact):
    """A config value written in code or a config file: an argparse default, a dict entry, a YAML key.

    ``owner`` says which: ``argparse``, ``dict:<name>``, ``class:<name>``, ``attr:<name>`` (``args.rank = 0``, a
    store on an object other than ``self``), ``yaml``, ``shell:<script>``, ``env``. ``value`` is a :class:`Value` (literal where known). ``run`` is, for a launch script's argument, the
    first line of the command that passes it: the arguments of one command are one run of the program.
    """

    key: str
    value: Value
    owner: str
    scope: int = 0
    guards: Tuple[Guard, ...] = ()
    run: int = 0

    def to_json(self) -> List[Any]:
        return [self.key, self.value.to_json(), self.owner, self.scope, [[v.to_json(), h] for v, h in self.guards],
                self.run]

    @classmethod
    def from_json(cls, raw: Sequence[Any]) -> "ConfigEntry":
        key, value, owner, scope, guards, run = raw
        return cls(key, Value.from_json(value), owner, scope, tuple((Value.from_json(v), bool(h)) for v, h in guards),
                   run)


@dataclass
class PythonFacts:
    """Everything one pass records about a Python file (or a notebook's code cells)."""

    module: str
    #: Imports a MindSpore-family package.
    imports_mindspore: bool = False
    #: Modules and names this file imports, as absolute dotted references.
    imports: List[str] = field(default_factory=list)
    #: Module-level import table: local name -> absolute target (for re-exports and spelling fixes).
    aliases: Dict[str, str] = field(default_factory=dict)
    #: Top-level functions (and those of the ``__main__`` block) -> scope index, functions defined in functions by
    #: their dotted name (``train.train_step``); top-level and nested classes by name.
    functions: Dict[str, int] = field(default_factory=dict)
    classes: Dict[str, ClassFacts] = field(default_factory=dict)
    scopes: List[Scope] = field(default_factory=list)
    calls: List[Call] = field(default_factory=list)
    loops: List[Loop] = field(default_factory=list)
    config: List[ConfigEntry] = field(default_factory=list)
    #: Module-level names bound once to a value (constants).
    constants: Dict[str, Value] = field(default_factory=dict)
    #: Where an import statement can be inserted: (offset, text to put before it, the file's line break).
    import_insert: Tuple[int, str, str] = (0, "", "\n")
    #: Modules this file star-imports (``from .models import *``): their names are its names too.
    star_imports: List[str] = field(default_factory=list)
    #: A notebook whose saved outputs show the device it ran on ("cpu"), else "".
    recorded_device: str = ""
    #: A notebook whose saved outputs show the MindSpore release it ran (``run_check()``'s "MindSpore version:
    #: 1.8.1"), else "".
    recorded_release: str = ""
    #: Comments that mention a catalogue marker (``# ms.set_context(mode=ms.GRAPH_MODE)``): (line, comment text).
    comments: List[Tuple[int, str]] = field(default_factory=list)

    def scope_calls(self) -> Dict[int, List[Call]]:
        """Calls grouped by scope index."""
        grouped: Dict[int, List[Call]] = {}
        for call in self.calls:
            grouped.setdefault(call.scope, []).append(call)
        return grouped

    def call(self, call_id: int) -> Optional[Call]:
        """The call with this id."""
        if 0 <= call_id < len(self.calls) and self.calls[call_id].id == call_id:
            return self.calls[call_id]
        return next((c for c in self.calls if c.id == call_id), None)

    def to_json(self) -> Dict[str, Any]:
        return {
            "kind": "python", "module": self.module, "ms": self.imports_mindspore, "imports": self.imports,
            "aliases": self.aliases, "functions": self.functions,
            "classes": {k: v.to_json() for k, v in self.classes.items()},
            "scopes": [s.to_json() for s in self.scopes], "calls": [c.to_json() for c in self.calls],
            "loops": [l.to_json() for l in self.loops], "config": [c.to_json() for c in self.config],
            "constants": {k: v.to_json() for k, v in self.constants.items()},
            "import_insert": list(self.import_insert), "star": self.star_imports,
            "device": self.recorded_device, "release": self.recorded_release, "comments": [list(c) for c in self.comments],
        }

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "PythonFacts":
        offset, before, newline = data["import_insert"]
        return cls(
            module=data["module"], imports_mindspore=bool(data["ms"]), imports=list(data["imports"]),
            aliases=dict(data["aliases"]), functions=dict(data["functions"]),
            classes={k: ClassFacts.from_json(v) for k, v in data["classes"].items()},
            scopes=[Scope.from_json(s) for s in data["scopes"]], calls=[Call.from_json(c) for c in data["calls"]],
            loops=[Loop.from_json(l) for l in data["loops"]], config=[ConfigEntry.from_json(c) for c in data["config"]],
            constants={k: Value.from_json(v) for k, v in data["constants"].items()},
            import_insert=(offset, before, newline), star_imports=list(data.get("star", [])),
            recorded_device=str(data.get("device", "")),
            recorded_release=str(data.get("release", "")),
            comments=[(int(line), str(text)) for line, text in data.get("comments", [])],
        )


# --- configs and launch scripts ---------------------------------------------------------------


@dataclass(**_COMPACT)
class YamlMapping(_Compact):
    """One mapping of a YAML document: its scalar entries and where a new key can be inserted."""

    id: int
    #: Keys from the document root to this mapping (list items as ``-``).
    path: Tuple[str, ...]
    entries: Dict[str, Value] = field(default_factory=dict)
    #: Where a ``key: value`` line can be inserted in the mapping: (offset, text before the key -- its
    #: indentation --, the file's line break); None for a flow-style mapping (``{a: 1}``).
    insert: Optional[Tuple[int, str, str]] = None
    line: int = 0

    def to_json(self) -> List[Any]:
        return [self.id, list(self.path), {k: v.to_json() for k, v in self.entries.items()},
                list(self.insert) if self.insert else None, self.line]

    @classmethod
    def from_json(cls, raw: Sequence[Any]) -> "YamlMapping":
        id_, path, entries, insert, line = raw
        return cls(id_, tuple(path), {k: Value.from_json(v) for k, v in entries.items()},
                   (insert[0], insert[1], insert[2]) if insert else None, line)


@dataclass
class YamlFacts:
    """A YAML config: its mappings (each once, however often an alias repeats it) and any parse error."""

    mappings: List[YamlMapping] = field(default_factory=list)
    error: Optional[str] = None
    error_line: int = 1

    def entries(self) -> Iterator[Tuple[YamlMapping, str, Value]]:
        """Every ``key: scalar`` of the file, with its mapping."""
        for mapping in self.mappings:
            for key, value in mapping.entries.items():
                yield mapping, key, value

    def to_json(self) -> Dict[str, Any]:
        return {"kind": "yaml", "mappings": [m.to_json() for m in self.mappings], "error": self.error,
                "error_line": self.error_line}

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "YamlFacts":
        return cls([YamlMapping.from_json(m) for m in data["mappings"]], data["error"], data.get("error_line", 1))


@dataclass
class ShellFacts:
    """A launch script: ``--key value`` arguments of the Python commands it runs, and exported variables."""

    #: ``owner`` is ``shell:<script.py>`` for arguments and ``env`` for ``export NAME=value``.
    entries: List[ConfigEntry] = field(default_factory=list)
    #: File names of the Python scripts it runs.
    scripts: List[str] = field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {"kind": "shell", "entries": [e.to_json() for e in self.entries], "scripts": self.scripts}

    @classmethod
    def from_json(cls, data: Dict[str, Any]) -> "ShellFacts":
        return cls([ConfigEntry.from_json(e) for e in data["entries"]], list(data["scripts"]))


def facts_from_json(data: Dict[str, Any]) -> Any:
    """Rebuild the facts of any kind from :meth:`to_json` output; raises on malformed data."""
    kind = data["kind"]
    if kind == "python":
        return PythonFacts.from_json(data)
    if kind == "yaml":
        return YamlFacts.from_json(data)
    if kind == "shell":
        return ShellFacts.from_json(data)
    raise ValueError(f"unknown facts kind {kind!r}")
