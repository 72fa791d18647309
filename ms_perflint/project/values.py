"""What a value is across the project: literals, config keys, parameters, constants -- and devices.

:func:`resolve` follows a :class:`~ms_perflint.analysis.facts.Value` to the literals
it may take, each with the place it is written:

- a literal is itself;
- a parameter takes the arguments of the calls that reach its function (or class),
  and its default where a call leaves it out;
- a config read (``args.amp_level``, ``cfg["num_classes"]``, ``config.vocab_size``)
  takes the values the program's configs give the key: argparse defaults, dict
  and class configs, YAML configs beside the entry script, the entry's launch
  scripts;
- a project constant takes its value; arithmetic is computed.

The answer says whether it is *complete*: a value the linter cannot follow
everywhere leaves it incomplete, and rules never report on a value they could not
see whole. Guards are compared the same way, as values (:func:`same_condition`).
"""

from __future__ import annotations

import builtins
import math
import operator
import posixpath
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import (
    ATTRIBUTE_OWNER, CALL, CFG, CLASS, DICT, EITHER, LENGTH, LIT, LOOKUP, MAIN, NAME, OP, PARAM, REF, SELF, Call, ConfigEntry, Value, choices,
)
from ms_perflint.project.model import MAX_DEPTH, ClassRef, Program, Project, ScopeRef, Where, call_where, where
from ms_perflint.project.parts import config_belongs, shell_belongs

#: Top-level packages that read YAML or JSON config files: a program that imports none of them (and names no such
#: file) takes no value from the configs lying beside it. MindSpore's family libraries read YAML configs themselves.
CONFIG_FILE_READERS = frozenset(("yaml", "ruamel", "omegaconf", "hydra", "json", "ujson", "mmengine", "mmcv",
                                 "addict", "easydict", *ms.MINDSPORE_PACKAGES)) - {"mindspore"}
#: Endings of config file names a program's code or launch command may name.
CONFIG_FILE_ENDINGS = (".yaml", ".yml", ".json")
#: At most this many combinations are computed for arithmetic on several values.
MAX_COMBINATIONS = 16
_BOTH = frozenset((True, False))
#: Comparisons of numbers a guard may make (``if args.ckpt_interval <= 0:``).
ORDERINGS: Dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}
#: The calls that entered a scope, outermost first: ``(path of the caller, call)``.
Context = Tuple[Tuple[str, Call], ...]


@dataclass(frozen=True)
class Known:
    """One value an expression may take, where it is written, and how it got there."""

    value: Any
    where: Optional[Where] = None
    source: str = "literal"
    #: The name it was reached through (a constant, a parameter) -- "" when written in place.
    via: str = ""
    #: Every name it passed through, from where it is written to where it is read: constants, parameters,
    #: config keys, attributes (``("vocab_size", "out_channels")``). Rules read what a value *means* from it.
    trail: Tuple[str, ...] = ()
    #: The calls it was passed through as an argument, as the scopes they are made in (outermost last): the
    #: code that must run for the value to arrive.
    hops: Tuple[Tuple[str, int], ...] = ()
    #: Read as an item of a table by a key that is not written in place (``dims[i]`` in a loop over stages,
    #: ``input_shape[version]``): one of a family's widths, not a value chosen on its own.
    from_table: bool = False

    def describe(self) -> str:
        """``50257 (vocab_size: in configs/gpt2.yaml:12)`` style text for messages."""
        place = f" at {self.where}" if self.where is not None else ""
        return f"{self.value!r} ({self.source}{place})"


@dataclass
class Resolution:
    """The values found, and whether they are all the values the expression can take."""

    values: List[Known] = field(default_factory=list)
    complete: bool = True

    def literals(self) -> List[Any]:
        return [known.value for known in self.values]

    def only(self) -> Optional[Known]:
        """The single value, when complete and every value agrees."""
        distinct = {repr(k.value) for k in self.values}
        return self.values[0] if self.complete and len(distinct) == 1 else None

    def add(self, other: "Resolution") -> None:
        self.values.extend(other.values)
        self.complete = self.complete and other.complete

    def through(self, name: str) -> "Resolution":
        """The same values, noted as passed through ``name`` (a parameter, key, attribute or constant)."""
        if not name:
            return self
        return Resolution([_through(k, name) for k in self.values], self.complete)

    def passed_by(self, path: str, scope: int) -> "Resolution":
        """The same values, noted as passed as an argument by a call made in ``scope`` of ``path``."""
        hop = (path, scope)
        return Resolution([Known(k.value, k.where, k.source, k.via, k.trail, (*k.hops, hop), k.from_table)
                           for k in self.values],
                          self.complete)


def inferred_literals(project: Project, path: str, value: Value) -> Resolution:
    """The literals astroid infers ``value`` (a name or an expression the facts do not follow) may be, each where
    it is written; incomplete unless astroid knows every candidate."""
    answer = project.inference.literals(path, value)
    if answer is None:
        return unknown()
    found, complete = answer
    return Resolution([Known(literal, Where(*place), "literal", value.via) for literal, *place in found], complete)


_NO_ITEM = object()


def _item_of(container: Any, key: Any) -> Any:
    """``container[key]``: a tuple or list at an int position, a dict at a string key; :data:`_NO_ITEM` else."""
    if isinstance(container, (tuple, list)) and type(key) is int and -len(container) <= key < len(container):
        return container[key]
    if isinstance(container, dict) and isinstance(key, str) and key in container:
        return container[key]
    return _NO_ITEM


def _identity_test(condition: Value, depth: int = 0) -> bool:
    """The guard tests identity (``x is None``), alone or under ``not``/``and``/``or``. Such a test picks a value
    where the model follows arms (a parameter left at its default ``None``), but never decides whether code runs:
    its ``None`` is often a placeholder of a config a user fills in (a dataset path), whose check raises."""
    if condition.kind != OP or depth > 8:
        return False
    if condition.data in ("is", "is not"):
        return True
    return condition.data in ("not", "and", "or") and any(_identity_test(p, depth + 1) for p in condition.parts)


def _through(known: Known, name: str) -> Known:
    if known.trail and known.trail[-1] == name:
        return known
    return Known(known.value, known.where, known.source, known.via, (*known.trail, name), known.hops, known.from_table)


def unknown() -> Resolution:
    return Resolution([], complete=False)


class _NotKnown:
    """The value of a config key that a run sets to something the linter cannot read (``--device_num=$RANK_SIZE``)."""

    def __repr__(self) -> str:
        return "?"


#: Kept among a program's config values so that the key is known to be set, and its values incomplete.
NOT_KNOWN = _NotKnown()


@dataclass(frozen=True)
class Ref:
    """A resolved reference to a MindSpore (or other) object, as a value: ``mindspore.float16``."""

    name: str

    def __repr__(self) -> str:
        return self.name


#: A call that enters project code, as reachability needs it: its guards and the scopes it enters.
_Entering = Tuple[Sequence[Tuple[Value, bool]], Tuple[ScopeRef, ...]]


class Values:
    """Value resolution over one project (memoised per project)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._configs: Dict[str, Dict[str, List[Known]]] = {}
        #: Each YAML or JSON file's values, made once: the programs that read the file share them.
        self._file_values: Dict[str, List[Tuple[str, Known]]] = {}
        #: Where each attribute store's value is written -> the object it is stored on (``args``).
        self._store_objects: Dict[Where, str] = {}
        self._live: Dict[str, Set[ScopeRef]] = {}
        self._scope_calls: Dict[str, Dict[int, List[_Entering]]] = {}
        self._file_config_entries: Dict[str, Tuple[List[Tuple[str, Known]], List[Tuple[int, str, Known]],
                                                   List[ConfigEntry]]] = {}
        self._with_configs: Optional[List[str]] = None
        self._module_following: Dict[str, List[ScopeRef]] = {}
        self._resolved: Dict[Tuple[str, int, int, int, int], Resolution] = {}

    # --- resolving ------------------------------------------------------------------------------

    def resolve(self, path: str, value: Optional[Value], scope: int = 0, depth: int = 0,
                program: Optional[Program] = None, context: Context = ()) -> Resolution:
        """The literals ``value`` (read in ``path``, in ``scope``) may take.

        With ``program``, only what that program runs counts: the callers it makes, the configs it reads.
        With ``context``, the calls that entered the scope (outermost first): a parameter of the function the
        last one entered takes what *that* call passes (``create_dataset(mode="train")``), not every caller's.
        """
        if value is None or depth > MAX_DEPTH:
            return unknown()
        # The same question comes back along every path to it (a guard's parameter through each of its callers'
        # callers): answered once. The depth is part of the question, so the answers are the ones asked afresh.
        key = (path, _memo_key(value), scope, depth, id(program), tuple((p, c.id) for p, c in context))
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = self._resolve(path, value, scope, depth, program, context).through(value.via)
        return Resolution(list(found.values), found.complete)

    def _resolve(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
                 context: Context) -> Resolution:
        kind = value.kind
        if kind == LIT:
            return Resolution([Known(value.data, where(path, value), "literal", value.via)])
        if kind == REF:
            return self._reference(path, value, depth, program)
        if kind == CFG:
            return self._config(path, value, scope, depth, program)
        if kind == PARAM:
            return self._parameter(path, value, scope, depth, program, context)
        if kind == SELF:
            owner = self.project.owner_class(path, scope)
            found = self.attribute_value(owner, value.data) if owner is not None else None
            if found is None:
                return unknown()
            # Read where it is set (the ``__init__`` of the class or base that sets it, or a class body:
            # ``expansion = 4``); in a constructor the context entered, it is what that construction passed.
            return self.resolve(found[0], found[1], found[2], depth + 1, program=program,
                                context=context).through(value.data)
        if kind == OP:
            return self._operation(path, value, scope, depth, program, context)
        if kind == CALL:
            call = self.project.python[path].call(value.data)
            function = numeric_function(call) if call is not None else None
            if function is not None:
                return self._numeric(path, call, function, depth, program, context)
            if call is not None and call.method in ms.STRING_METHODS and call.receiver is not None:
                return self._string_method(path, call, depth, program, context)
            return self._context_read(path, value, depth, program)
        if kind == NAME:  # astroid's answer where the facts have none (project/inference.py)
            return inferred_literals(self.project, path, value)
        return unknown()

    def _length(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
                context: Context) -> Resolution:
        """``len(features)`` of a known tuple, list, dict or string."""
        found = self.resolve(path, value.parts[0], scope, depth + 1, program, context)
        result = Resolution(complete=found.complete)
        for known in found.values:
            if isinstance(known.value, (tuple, list, dict, str)):
                result.values.append(Known(len(known.value), known.where, known.source, known.via))
            else:
                result.complete = False
        return result

    def _numeric(self, path: str, call: Call, function: Callable[..., Any], depth: int, program: Optional[Program],
                 context: Context) -> Resolution:
        """``int(math.log(upscale_factor, 2))``: a pure numeric function of arguments the model knows."""
        operands = [self.resolve(path, argument, call.scope, depth + 1, program, context) for argument in call.args]
        return _computed(operands, lambda values: apply_numeric(function, values), lambda last: call_where(path, call), "")

    def _string_method(self, path: str, call: Call, depth: int, program: Optional[Program],
                       context: Context) -> Resolution:
        """``args.mode.upper().startswith("GRAPH")``: a pure ``str`` method of a string the model knows, with literal
        arguments; the result is placed where the string is written."""
        if call.kwargs or call.star or call.double_star or any(a.kind != LIT for a in call.args):
            return unknown()
        method, arguments = call.method, [a.data for a in call.args]
        receiver = self.resolve(path, call.receiver, call.scope, depth + 1, program, context)
        return _computed([receiver], lambda values: apply_string_method(method, values[0], arguments),
                         lambda last: last.where, "")

    def _context_read(self, path: str, value: Value, depth: int, program: Optional[Program]) -> Resolution:
        """``get_context("device_target")``: the values the program's ``set_context(device_target=...)`` set."""
        call = self.project.python[path].call(value.data)
        if call is None or not call.callee or self.project.qualified(path, call) != ms.GET_CONTEXT or not call.args:
            return unknown()
        key = call.args[0]
        if key.kind != LIT or not isinstance(key.data, str):
            return unknown()
        found = Resolution([])
        for setter_path, setter in self.project.calls_named((ms.SET_CONTEXT,)):
            if key.data in setter.kwargs and (program is None or setter_path in program.files):
                found.add(self.resolve(setter_path, setter.kwargs[key.data], setter.scope, depth + 1, program))
        return found if found.values else unknown()

    def _reference(self, path: str, value: Value, depth: int, program: Optional[Program]) -> Resolution:
        symbol = self.project.resolve(value.data, path)
        if symbol is None:
            return Resolution([Known(Ref(value.data), where(path, value), "name", value.via)])
        facts = self.project.python[symbol.path]
        if symbol.kind == "variable" and symbol.name in facts.constants:
            constant = facts.constants[symbol.name]
            return self.resolve(symbol.path, constant, 0, depth + 1, program=program).through(symbol.name)
        if symbol.kind in ("variable", "attribute") and "." in symbol.name:
            key = symbol.name.rsplit(".", 1)[1]
            return self._of_object(self.config_values_for(symbol.path, key, program),
                                   symbol.name.split(".", 1)[0]).through(key)
        return unknown()

    def _config(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program]) -> Resolution:
        """``obj.key``: the attribute of a project object when the object is known, else the configs' ``key``."""
        key = value.data
        owner = value.parts[0] if value.parts else None
        facts = self.project.python.get(path)
        head = value.root.split(".", 1)[0] if value.root else ""
        if facts is not None and head and head in facts.constants and "." not in value.root:
            constant = facts.constants[head]
            if constant.kind == CALL:
                call = facts.call(constant.data)
                if call is not None and call.kwargs.get(key) is not None:
                    return self.resolve(path, call.kwargs[key], 0, depth + 1, program=program).through(key)
        found = self._instance_attribute(path, value, owner, scope, depth, program)
        if found is not None and found.complete:
            return found.through(key)
        configured = self._of_object(self.config_values_for(path, key, program), head)
        if found is not None:
            found.add(configured)
            return found.through(key)
        if not configured.values and len(value.parts) > 1:
            return self.resolve(path, value.parts[1], scope, depth + 1, program=program)  # cfg.get("key", default)
        return configured.through(key)

    def _instance_attribute(self, path: str, value: Value, owner: Optional[Value], scope: int,
                            depth: int, program: Optional[Program] = None) -> Optional[Resolution]:
        """``config.vocab_size`` where ``config`` is an instance of a project class: what its class sets.

        The root (a parameter, ``self.<attr>`` or a module constant) is followed to the
        constructions of project classes (a parameter through its callers); the key is the
        attribute those classes set on ``self``, resolved where it is set (an ``__init__``
        parameter takes what the constructions pass, or its default). None when the root is
        no known instance of a class that sets the key.
        """
        root = owner if owner is not None and owner.kind != CFG else self._root_value(path, value.root, scope)
        if root is None:
            return None
        result: Optional[Resolution] = None
        for cls in sorted(self.instances(path, root, scope, depth + 1)):
            found = self.attribute_value(cls, value.data)
            if found is None:
                continue
            file, attribute, init = found
            resolved = self.resolve(file, attribute, init, depth + 1, program=program)
            if result is None:
                result = resolved
            else:
                result.add(resolved)
        return result

    def _root_value(self, path: str, root: str, scope: int) -> Optional[Value]:
        """The value a config read's root names: ``self.config``, a parameter, a module constant."""
        facts = self.project.python.get(path)
        if facts is None or not root:
            return None
        parts = root.split(".")
        if len(parts) == 2 and parts[0] == "self":
            return Value(SELF, parts[1])
        if len(parts) != 1:
            return None
        current = scope
        while 0 <= current < len(facts.scopes):
            if root in facts.scopes[current].params:
                return Value(PARAM, root)
            current = facts.scopes[current].parent
        return facts.constants.get(root)

    def instances(self, path: str, value: Value, scope: int, depth: int = 0,
                  seen: Optional[Set[Tuple[str, int, int]]] = None) -> FrozenSet[ClassRef]:
        """Project classes ``value`` may be an instance of, following parameters through their callers.

        ``seen``: the values this question already followed (each adds its classes once: functions passing a
        parameter to each other would otherwise be asked again along every path of callers).
        """
        seen = set() if seen is None else seen
        if depth > MAX_DEPTH or (path, id(value), scope) in seen:
            return frozenset()
        seen.add((path, id(value), scope))
        project = self.project
        if value.kind == PARAM:
            declared = project.parameter_of(path, value.data, scope)
            if declared is None:
                return frozenset()
            current, position = declared
            function = project.python[path].scopes[current]
            found: Set[ClassRef] = set()
            for caller_path, call in project.callers((path, current))[:16]:
                argument = call.argument(value.data, position if position >= 0 else None)
                if argument is not None:
                    found.update(self.instances(caller_path, argument, call.scope, depth + 1, seen))
            default = function.defaults.get(value.data)
            if default is not None:
                found.update(self.instances(path, default, function.parent, depth + 1, seen))
            return frozenset(found)
        if value.kind == SELF:
            owner = project.owner_class(path, scope)
            found_attribute = self.attribute_value(owner, value.data) if owner is not None else None
            if found_attribute is None:
                return frozenset()
            file, attribute, init = found_attribute
            return self.instances(file, attribute, init, depth + 1, seen)
        return project.instance_classes(path, value, scope)

    def attribute_value(self, cls: ClassRef, name: str) -> Optional[Tuple[str, Value, int]]:
        """``self.<name> = value`` in the class or a base (:meth:`Project.kept_attribute`), else a config class's body
        value: the file, the value, the scope to read it in."""
        kept = self.project.kept_attribute(cls, name)
        if kept is not None:
            return kept
        for current in self.project.ancestry(cls):  # a config class's body: ``hidden_size = 768``
            facts = self.project.class_facts(current)
            if facts is not None and name in facts.class_attrs:
                return current[0], facts.class_attrs[name], facts.scope
        return None
    def _parameter(self, path: str, value: Value, scope: int, depth: int,
                   program: Optional[Program], context: Context = ()) -> Resolution:
        facts = self.project.python[path]
        if not 0 <= scope < len(facts.scopes):
            return unknown()
        function = facts.scopes[scope]
        name = value.data
        while name not in function.params and function.parent >= 0:
            scope = function.parent  # a closure reads its enclosing function's parameter
            function = facts.scopes[scope]
        if name not in function.params:
            return unknown()
        position = function.params.index(name)
        if function.cls and function.params and function.params[0] in ("self", "cls"):
            position -= 1
        default = function.defaults.get(name)
        if context and (path, scope) in self.project.targets(*context[-1]):
            return self._passed(path, name, position, scope, depth, program, context)
        callers = self.project.callers((path, scope))
        if program is not None:
            callers = [(p, c) for p, c in callers if program.reaches(p, c.scope)]
        if not callers:
            if default is None:
                return unknown()
            found = self.resolve(path, default, function.parent, depth + 1, program=program)
            return Resolution([replace(k, source="default", via=k.via or name) for k in found.values],
                              found.complete).through(name)
        result = Resolution()
        for caller_path, call in callers[:64]:
            argument = call.argument(name, position if position >= 0 else None)
            if argument is None:
                if call.may_pass(name, position):
                    result.complete = False
                elif default is not None:
                    found = self.resolve(path, default, function.parent, depth + 1, program=program)
                    result.add(found.passed_by(caller_path, call.scope))
                else:
                    result.complete = False
                continue
            found = self.resolve(caller_path, argument, call.scope, depth + 1, program=program)
            result.add(found.passed_by(caller_path, call.scope))
        if len(callers) > 64:
            result.complete = False
        return result.through(name)

    def _passed(self, path: str, name: str, position: int, scope: int, depth: int, program: Optional[Program],
                context: Context) -> Resolution:
        """A parameter of the function the context's last call entered: what that call passes, or the default."""
        caller_path, call = context[-1]
        argument = call.argument(name, position if position >= 0 else None)
        if argument is not None:
            return self.resolve(caller_path, argument, call.scope, depth + 1, program, context[:-1]).through(name)
        function = self.project.python[path].scopes[scope]
        default = function.defaults.get(name)
        if default is None or call.may_pass(name, position):
            return unknown()
        found = self.resolve(path, default, function.parent, depth + 1, program)
        return Resolution([replace(k, source="default", via=k.via or name) for k in found.values],
                          found.complete).through(name)

    def _operation(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
                   context: Context = ()) -> Resolution:
        op = value.data
        if op == "ifexp" and len(value.parts) == 3:
            return self._choice(path, value, scope, depth, program, context)
        if op == EITHER:
            result = Resolution()
            for part in choices(value):
                result.add(self.resolve(path, part, scope, depth + 1, program, context))
            return result
        if op in ("==", "!=", "is", "is not", "not", "and", "or", *ORDERINGS) and value.parts:
            return self._logic(path, value, scope, depth, program, context)
        if op == "[]" and len(value.parts) == 2:
            return self._item(path, value, scope, depth, program, context)
        if op == LENGTH and len(value.parts) == 1:
            return self._length(path, value, scope, depth, program, context)
        if op == LOOKUP and len(value.parts) == 2:
            return self._lookup(path, value, scope, depth, program, context)
        if op in ("tuple", DICT):
            # ``(20, 6, 32)``, ``{"A": (20, 6, 32), "B": (16, 8, 64)}`` (keys and values alternate): one value each
            parts = [self.resolve(path, part, scope, depth + 1, program, context) for part in value.parts]
            if not all(p.values for p in parts) or any(len(p.values) != 1 for p in parts) or \
                    (op == DICT and len(parts) % 2):
                return unknown()
            items = [p.values[0].value for p in parts]
            try:
                made = tuple(items) if op == "tuple" else dict(zip(items[::2], items[1::2]))
            except TypeError:  # a key that cannot be one (a list)
                return unknown()
            return Resolution([Known(made, where(path, value), "literal")], all(p.complete for p in parts))
        if op not in ARITHMETIC or not value.parts:
            return unknown()
        operands = [self.resolve(path, part, scope, depth + 1, program, context) for part in value.parts]
        # A computed value is written where its expression is (``vocab_size + 1``), not at an operand.
        return _computed(operands, lambda values: compute(op, values),
                         lambda last: where(path, value) if value.line else last.where, value.text)

    def _choice(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
                context: Context) -> Resolution:
        """``a if test else b`` (also a name bound in both arms of an ``if``): the arm the test selects where the
        program's values decide it, both arms where they do not."""
        test, chosen, other = value.parts
        arms = self.arms(path, test, scope, depth, program, context)
        result = Resolution()
        if True in arms:
            result.add(self.resolve(path, chosen, scope, depth + 1, program, context))
        if False in arms:
            result.add(self.resolve(path, other, scope, depth + 1, program, context))
        return result

    def arms(self, path: str, test: Value, scope: int, depth: int = 0,
             program: Optional[Program] = None, context: Context = ()) -> FrozenSet[bool]:
        """Which ways a test can go in the program's runs: ``{True}``, ``{False}``, or both when not decided."""
        found = self.resolve(path, test, scope, depth + 1, program, context)
        if not found.complete or not found.values:
            return _BOTH
        return frozenset(bool(_plain(k.value)) for k in found.values)

    def _item(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
              context: Context) -> Resolution:
        """``sequence[i]`` for a known sequence and index."""
        position = value.parts[1].data
        if value.parts[0].kind == CALL and isinstance(position, int):
            items = self.project.returned_items(path, value.parts[0], position)
            if items:  # ``a, b = make()``: what ``make`` returns in that place
                result = Resolution()
                for item_path, item, item_scope, call in items:
                    result.add(self.resolve(item_path, item, item_scope, depth + 1, program, (*context, (path, call))))
                return result
        base = self.resolve(path, value.parts[0], scope, depth + 1, program, context)
        result = Resolution(complete=base.complete)
        for known in base.values:
            item = _item_of(known.value, position)
            if item is _NO_ITEM:
                result.complete = False
            else:
                result.values.append(Known(item, known.where, known.source, known.via, from_table=known.from_table))
        return result

    def _lookup(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
                context: Context) -> Resolution:
        """``container[key]`` for a known list, tuple or dict: the item each known key selects; every item when the
        key is not known (whichever it is, the value is one of them)."""
        base = self.resolve(path, value.parts[0], scope, depth + 1, program, context)
        if not base.values:
            return unknown()
        keys = self.resolve(path, value.parts[1], scope, depth + 1, program, context)
        known_key = keys.complete and bool(keys.values)
        result = Resolution(complete=base.complete)
        for container in base.values:
            items = container.value
            if not isinstance(items, (dict, tuple, list)):
                return unknown()
            if known_key:
                chosen = [item for item in (_item_of(items, k.value) for k in keys.values) if item is not _NO_ITEM]
            else:
                chosen = list(items.values()) if isinstance(items, dict) else list(items)
            if not chosen:
                return unknown()
            result.values.extend(replace(container, value=item, from_table=True) for item in chosen)
        return result

    def _logic(self, path: str, value: Value, scope: int, depth: int, program: Optional[Program],
               context: Context) -> Resolution:
        """Comparisons and boolean operators over known values (for guards)."""
        operands = [self.resolve(path, part, scope, depth + 1, program, context) for part in value.parts]
        if not all(o.values for o in operands):
            return unknown()
        if value.data in ORDERINGS and not all((part.kind == LIT and not part.via) or _configured(found)
                                                for part, found in zip(value.parts, operands)):
            # ``if psnr.avg > best:``, ``while ...: if budget > 0: ... budget -= 1``: a running value the model
            # knows only as first set (``self.avg = 0``, the name's value before the loop)
            return unknown()
        result = Resolution(complete=all(o.complete for o in operands))
        for combination in _combinations([o.values for o in operands]):
            values = [_plain(k.value) for k in combination]
            op = value.data
            if op == "not":
                computed: Any = not values[0]
            elif op == "and":
                computed = values[0] and values[-1]
            elif op == "or":
                computed = values[0] or values[-1]
            elif op == "==":
                computed = values[0] == values[-1]
            elif op in ("is", "is not"):
                if not any(v is None or type(v) is bool for v in values[:2]):
                    result.complete = False  # identity of other objects is not the model's to decide
                    continue
                computed = (values[0] is values[-1]) == (op == "is")
            elif op in ORDERINGS:
                if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values[:2]):
                    result.complete = False  # ``"a" < "b"``, ``None < 1``: not a test the model decides
                    continue
                computed = ORDERINGS[op](values[0], values[-1])
            else:
                computed = values[0] != values[-1]
            result.values.append(Known(computed, combination[0].where, "condition"))
        return result

    def can_hold(self, path: str, scope: int, guards: Sequence[Tuple[Value, bool]],
                 program: Optional[Program] = None) -> bool:
        """False when some guard is known to go the other way in every configuration (the code never runs)."""
        for condition, holds in guards:
            if _identity_test(condition):
                continue  # ``if dataset is None: raise ...``: a placeholder path in a config is not a run's choice
            found = self.resolve(path, condition, scope, program=program)
            if found.complete and found.values and all(bool(_plain(k.value)) != holds for k in found.values):
                return False
        return True

    def decided(self, path: str, scope: int, guards: Sequence[Tuple[Value, bool]],
                program: Optional[Program] = None) -> bool:
        """Every run of the program decides every guard (each may go either way in different runs); False when some
        run leaves one to a value the linter cannot know (a config it cannot read, ``--device_num=$1``)."""
        for condition, _ in guards:
            if _identity_test(condition):
                return False
            found = self.resolve(path, condition, scope, program=program)
            if not found.complete or not found.values:
                return False
        return True

    def always_holds(self, path: str, scope: int, guards: Sequence[Tuple[Value, bool]],
                     program: Optional[Program] = None) -> bool:
        """True when every guard is known to go its way in every configuration (the code runs unconditionally)."""
        for condition, holds in guards:
            if _identity_test(condition):
                return False
            found = self.resolve(path, condition, scope, program=program)
            if not found.complete or not found.values or any(bool(_plain(k.value)) != holds for k in found.values):
                return False
        return True

    def live_scopes(self, program: Program,
                    holds: Optional[Callable[[str, int, Sequence[Tuple[Value, bool]]], bool]] = None) -> Set[ScopeRef]:
        """The program's scopes that can run: reached from the entry through calls whose guards can hold.

        :attr:`Program.scopes` follows every call; here a call under a guard that never holds
        (``if pretrained:`` with ``pretrained`` False wherever it comes from) enters nothing.
        ``holds`` decides a call's guards (default :meth:`can_hold` with this program's values); the default
        answer is memoised.
        """
        if holds is None:
            if program.entry not in self._live:
                self._live[program.entry] = self._live_scopes(
                    program, lambda path, scope, guards: self.can_hold(path, scope, guards, program))
            return self._live[program.entry]
        return self._live_scopes(program, holds)

    def _live_scopes(self, program: Program, holds: Callable[[str, int, Sequence[Tuple[Value, bool]]], bool]
                     ) -> Set[ScopeRef]:
        project = self.project
        entry = project.python.get(program.entry)
        if entry is None:
            return set()
        starts = [(program.entry, 0)] + [(program.entry, i) for i, s in enumerate(entry.scopes) if s.kind == MAIN]
        seen: Set[ScopeRef] = set(starts)
        stack = list(starts)
        while stack:
            path, index = stack.pop()
            following: List[ScopeRef] = [(path, 0)]
            if index == 0:
                following.extend(self._module_runs(path))
            for guards, targets in self._entering_calls(path).get(index, ()):
                # guards are asked only of a call that would enter something new (asking each guard of every call
                # of a large program cost a minute on the benchmark corpus)
                if any(t not in seen and t in program.scopes for t in targets) and holds(path, index, guards):
                    following.extend(targets)
            for target in following:
                if target not in seen and target in program.scopes:
                    seen.add(target)
                    stack.append(target)
        return seen

    def _module_runs(self, path: str) -> List[ScopeRef]:
        """What running a module's body runs whatever its guards: its imports' bodies, its top-level class bodies
        and ``__main__`` block, the definitions registered with it."""
        if path not in self._module_following:
            project = self.project
            scopes = project.python[path].scopes
            self._module_following[path] = [
                *((imported, 0) for imported in project.imports_of(path)),
                *((path, i) for i, s in enumerate(scopes) if s.kind in (MAIN, CLASS) and s.parent == 0),
                *project.registered().get(path, ())]
        return self._module_following[path]

    def _entering_calls(self, path: str) -> Dict[int, List[_Entering]]:
        """By scope of ``path``: ``(guards, scopes entered)`` of each call that enters project code, kept for every
        program. The call table is built first: building it asks the targets again, and then they are final."""
        if path not in self._scope_calls:
            self.project.callers((path, 0))
            entering: Dict[int, List[_Entering]] = {}
            for index, calls in self.project.python[path].scope_calls().items():
                for call in calls:
                    targets = tuple(self.project.targets(path, call))
                    if targets:
                        entering.setdefault(index, []).append((call.guards, targets))
            self._scope_calls[path] = entering
        return self._scope_calls[path]

    # --- configs ---------------------------------------------------------------------------------

    def config_values_for(self, path: str, key: str, program: Optional[Program] = None) -> Resolution:
        """Values the configs of the programs running ``path`` (or of ``program``) give ``key`` (none: incomplete)."""
        programs = [program] if program is not None else self.project.programs_reaching(path)
        found: List[Known] = []
        for program in programs:
            found.extend(self.config(program).get(key, []))
        if not programs:
            found.extend(self.file_config(path).get(key, []))
        unique = list({(repr(k.value), k.where): k for k in found if k.value is not NOT_KNOWN}.values())
        return Resolution(unique, complete=bool(unique) and len(unique) == len({(repr(k.value), k.where)
                                                                                for k in found}))

    def _of_object(self, found: Resolution, name: str) -> Resolution:
        """``found`` without the values other objects' attribute stores give the key: ``args.save_ckpt`` takes
        ``args.save_ckpt = True``, not ``eval_cfg.save_ckpt = True``."""
        if not self._store_objects:
            return found
        kept = [k for k in found.values if self._store_objects.get(k.where, name) == name]
        return found if len(kept) == len(found.values) else Resolution(kept, found.complete)

    def config(self, program: Program) -> Dict[str, List[Known]]:
        """Every config value a program can run with, by key."""
        if program.entry not in self._configs:
            values: Dict[str, List[Known]] = {}
            for path in self._config_files():
                if path in program.files:
                    self._python_configs(path, program, values)
            for path in self._data_config_files() if self.reads_config_files(program) else ():
                if config_belongs(path, program.entry):
                    for key, known in self._data_config_values(path):
                        values.setdefault(key, []).append(known)
            script = posixpath.basename(program.entry)
            for path, facts in sorted(self.project.shell.items()):
                if script in facts.scripts and shell_belongs(path, program.entry):
                    for entry in facts.entries:
                        if entry.owner in (f"shell:{script}", "env"):
                            written = entry.value.data if entry.value.kind == LIT else NOT_KNOWN
                            values.setdefault(entry.key, []).append(
                                Known(written, where(path, entry.value), "launch script"))
            self._configs[program.entry] = values
            self._add_stores(program, values)
        return self._configs[program.entry]

    def _data_config_files(self) -> List[str]:
        """The project's YAML and JSON files, in order."""
        return self.project.memo("data-config-files", lambda: sorted(
            [*self.project.yaml, *self.project.json]))  # type: ignore[return-value]

    def _data_config_values(self, path: str) -> List[Tuple[str, Known]]:
        """``(key, value)`` of every entry of a YAML or JSON file, made once for all the programs that read it."""
        found = self._file_values.get(path)
        if found is None:
            facts = self.project.json[path] if path in self.project.json else self.project.yaml[path]
            source = "json" if path in self.project.json else "yaml"
            found = self._file_values[path] = [(key, Known(value.data, where(path, value), source))
                                               for _, key, value in facts.entries()]
        return found

    def reads_config_files(self, program: Program) -> bool:
        """Can the program read a YAML or JSON config? Some file it runs imports a library that reads them
        (:data:`CONFIG_FILE_READERS`) or names such a file (a string literal in a call or a module constant), or a
        launch command of it passes one. A script whose values all come from a Python dict and argparse does not read
        the ``default_config.yaml`` that another script of its folder reads."""
        def decide() -> bool:
            for path in program.files:
                facts = self.project.python.get(path)
                if facts is None:
                    continue
                if any(name.split(".", 1)[0] in CONFIG_FILE_READERS for name in facts.imports):
                    return True
                written = [*facts.constants.values(), *(v for c in facts.calls for v in (*c.args, *c.kwargs.values()))]
                if any(_names_config_file(value) for value in written):
                    return True
            script = posixpath.basename(program.entry)
            return any(entry.owner == f"shell:{script}" and _names_config_file(entry.value)
                       for path, facts in self.project.shell.items() if shell_belongs(path, program.entry)
                       for entry in facts.entries)

        return self.project.memo(("reads-config-files", program.entry), decide)  # type: ignore[return-value]

    def other_device_places(self) -> FrozenSet[Where]:
        """Where each argument of a launch command that runs its script on GPU or CPU is written
        (``python train.py --device_target=GPU --drop_remainder=True``): that run is not an Ascend run."""
        def find() -> FrozenSet[Where]:
            places: Set[Where] = set()
            for path, facts in self.project.shell.items():
                runs: Dict[int, List[ConfigEntry]] = {}
                for entry in facts.entries:
                    if entry.run:
                        runs.setdefault(entry.run, []).append(entry)
                for entries in runs.values():
                    if any(e.key in ms.DEVICE_KEYS and e.value.kind == LIT and isinstance(e.value.data, str)
                           and e.value.data.strip().lower() in ms.NON_ASCEND_WORDS for e in entries):
                        places.update(where(path, e.value) for e in entries)
            return frozenset(places)

        return self.project.memo("other-device-places", find)  # type: ignore[return-value]

    def on_ascend(self, found: Resolution) -> Resolution:
        """``found`` as the program's Ascend runs give it: without the values only a launch command for GPU or CPU
        passes. None left is not known (those runs decide nothing for Ascend)."""
        others = self.other_device_places()
        if not others or not any(k.where in others for k in found.values):
            return found
        kept = [k for k in found.values if k.where not in others]
        return Resolution(kept, complete=found.complete and bool(kept))

    def file_config(self, path: str) -> Dict[str, List[Known]]:
        """Config values written in one file (for code no program reaches)."""
        values: Dict[str, List[Known]] = {}
        self._python_configs(path, None, values)
        return values

    def _config_files(self) -> List[str]:
        """The project's Python files that write config values, sorted (most files write none)."""
        if self._with_configs is None:
            self._with_configs = [path for path in sorted(self.project.python) if any(self._file_configs(path))]
        return self._with_configs

    def _python_configs(self, path: str, program: Optional[Program], values: Dict[str, List[Known]]) -> None:
        written, defaults, stores = self._file_configs(path)
        for key, known in written:
            values.setdefault(key, []).append(known)
        for scope, key, known in defaults:
            if program is None or (path, scope) in program.scopes:
                values.setdefault(key, []).append(known)
        if program is None:  # code no program reaches: every store may run
            for entry in stores:
                values.setdefault(entry.key, []).append(_written(path, entry))

    def _file_configs(self, path: str) -> Tuple[List[Tuple[str, Known]], List[Tuple[int, str, Known]],
                                                List[ConfigEntry]]:
        """A file's config values, read once: ``(key, value)`` written in config objects, ``(scope, key, value)``
        of argparse defaults, which count for a program only when it runs their scope, and the literal stores on
        objects' attributes (``args.rank = 0``), which count where they run and their guards can hold."""
        if path not in self._file_config_entries:
            written: List[Tuple[str, Known]] = []
            defaults: List[Tuple[int, str, Known]] = []
            stores: List[ConfigEntry] = []
            facts = self.project.python.get(path)
            for entry in facts.config if facts is not None else ():
                if entry.owner.startswith(ATTRIBUTE_OWNER):
                    if entry.value.kind == LIT:
                        stores.append(entry)
                        self._store_objects[where(path, entry.value)] = entry.owner[len(ATTRIBUTE_OWNER):]
                elif entry.owner != "env" and entry.value.kind == LIT:
                    written.append((entry.key, _written(path, entry)))
            for call in facts.calls if facts is not None else ():
                if call.method == "add_argument":
                    defaults.extend((call.scope, key, known) for key, known in _argparse_default(path, call))
                elif call.method == "set_defaults":
                    defaults.extend((call.scope, key, Known(value.data, where(path, value), "argparse default"))
                                    for key, value in call.kwargs.items() if value.kind == LIT)
            self._file_config_entries[path] = (written, defaults, stores)
        return self._file_config_entries[path]

    def _add_stores(self, program: Program, values: Dict[str, List[Known]]) -> None:
        """Add the program's attribute stores (``args.rank_save_ckpt_flag = 1``) to its config ``values``, each where
        the program runs it and its guards can hold as decided by the values before any store (``if args.interval <=
        0: args.interval = 1`` is a fallback the default run never takes). Answers given while deciding the guards
        saw part of the config: they are forgotten."""
        stores = [(path, entry) for path in self._config_files() if path in program.files
                  for entry in self._file_configs(path)[2] if (path, entry.scope) in program.scopes]
        if not stores:
            return
        kept = [(path, entry) for path, entry in stores
                if not entry.guards or self.can_hold(path, entry.scope, entry.guards, program)]
        for path, entry in kept:
            values.setdefault(entry.key, []).append(_written(path, entry))
        self._resolved.clear()

    # --- guards ----------------------------------------------------------------------------------

    def condition_key(self, value: Value) -> Optional[Tuple[str, Any]]:
        """What a guard tests, as a value: ``("cfg", "profile")`` for ``args.profile`` and ``cfg["profile"]``."""
        if value.kind == CFG:
            return ("cfg", value.data)
        if value.kind in (NAME, PARAM):
            return (value.kind, value.data)
        if value.kind == REF:
            return ("ref", value.data)
        if value.kind == OP and value.data in ("==", "!=", "is", "is not") and len(value.parts) == 2:
            left, right = value.parts
            if right.kind == LIT and left.kind != LIT:
                inner = self.condition_key(left)
                return (value.data, inner, right.data) if inner is not None else None
        return None


def in_every_undecided_arm(values: "Values", program: Program, path: str, call: Call,
                           candidates: Iterable[Tuple[str, Call]], has_problem: Callable[[str, Call], bool]) -> bool:
    """RULES.md's reading of a choice for a finding at ``call`` (one of ``candidates``, the calls the program may use
    in its place): where every run decides the call's guards, the finding holds in the runs that take it; where a
    run leaves them undecided (a config the linter cannot read, ``--device_num=$1``), both arms are kept and the
    finding needs the problem in both: every candidate on another arm (exclusive guards) has it too."""
    if values.decided(path, call.scope, call.guards, program):
        return True
    others = [(p, c) for p, c in candidates if p == path and c.id != call.id and exclusive(values, call.guards, c.guards)]
    return bool(others) and all(has_problem(p, c) for p, c in others)


def same_condition(values: "Values", left: Value, right: Value) -> bool:
    """Two guards test the same thing (compared as values, never as source text)."""
    key = values.condition_key(left)
    return key is not None and key == values.condition_key(right)


def exclusive(values: "Values", first: Sequence[Tuple[Value, bool]], second: Sequence[Tuple[Value, bool]]) -> bool:
    """Two sets of guards cannot hold together: one tests a condition the other tests the other way."""
    for left, holds_left in first:
        for right, holds_right in second:
            if holds_left != holds_right and same_condition(values, left, right):
                return True
            if _contradicting_comparisons(values, left, holds_left, right, holds_right):
                return True
    return False


def _contradicting_comparisons(values: "Values", left: Value, holds_left: bool, right: Value, holds_right: bool) -> bool:
    """``x == "a"`` and ``x == "b"`` both holding cannot be."""
    if not (holds_left and holds_right) or left.kind != OP or right.kind != OP:
        return False
    if left.data != "==" or right.data != "==" or len(left.parts) != 2 or len(right.parts) != 2:
        return False
    same_subject = values.condition_key(left.parts[0]) == values.condition_key(right.parts[0]) is not None
    literals = left.parts[1].kind == LIT and right.parts[1].kind == LIT
    return same_subject and literals and left.parts[1].data != right.parts[1].data


def argparse_dest(call: Call) -> Optional[str]:
    """The attribute an ``add_argument`` call stores into (``--amp-level`` -> ``amp_level``)."""
    dest = call.kwargs.get("dest")
    if dest is not None and dest.kind == LIT and isinstance(dest.data, str):
        return dest.data
    flags = [a.data for a in call.args if a.kind == LIT and isinstance(a.data, str)]
    long_flags = [f for f in flags if f.startswith("--")]
    chosen = long_flags[0] if long_flags else next(iter(flags), None)
    if not chosen:
        return None
    return chosen.lstrip("-").replace("-", "_")


def _plain(value: Any) -> Any:
    """A value as Python compares it (a reference counts as a true, named object)."""
    return value.name if isinstance(value, Ref) else value


def _argparse_default(path: str, call: Call) -> List[Tuple[str, Known]]:
    """The default an ``add_argument`` call gives its destination (none for switches and unknown defaults)."""
    key = argparse_dest(call)
    if key is None:
        return []
    default = call.kwargs.get("default")
    action = call.kwargs.get("action")
    if action is not None and not (action.kind == LIT and action.data in ("store", None)):
        return []  # a switch (store_true, ...) exists to be flipped on the command line: its default is no config
    if default is not None and default.kind == LIT:
        return [(key, Known(default.data, where(path, default), "argparse default"))]
    return []


def _names_config_file(value: Value) -> bool:
    """A string literal that names a YAML or JSON file (``"./default_config.yaml"``)."""
    return value.kind == LIT and isinstance(value.data, str) and value.data.strip().lower().endswith(
        CONFIG_FILE_ENDINGS)


#: Where a value comes from when it is no config: written in the code, a parameter's default, a condition.
_UNCONFIGURED = frozenset(("literal", "default", "name", "condition"))


def _configured(found: Resolution) -> bool:
    """Every value comes from a config the run is given (argparse, a config dict or file, a launch command, a store
    on the config object): a value no step of the run changes, unlike a running total the model knows as first set."""
    return all(k.source not in _UNCONFIGURED for k in found.values)


def _written(path: str, entry: ConfigEntry) -> Known:
    """A config value written in code (a dict entry, a class attribute, a store on an object), where it is written."""
    return Known(entry.value.data, where(path, entry.value), _config_source(entry))


def _config_source(entry: ConfigEntry) -> str:
    kind, _, name = entry.owner.partition(":")
    return {"dict": f"{name}[{entry.key!r}]", "class": f"{name}.{entry.key}", "attr": f"{name}.{entry.key}"}.get(
        kind, entry.owner)


def _combinations(lists: List[List[Known]]) -> Iterable[List[Known]]:
    combinations: List[List[Known]] = [[]]
    for options in lists:
        combinations = [c + [o] for c in combinations for o in options][:MAX_COMBINATIONS]
    return combinations


def _computed(operands: List[Resolution], compute: Callable[[List[Any]], Optional[Any]],
              place: Callable[[Known], Optional[Where]], via: str) -> Resolution:
    """A value computed from every combination of its operands' values (an operator's, a numeric function's)."""
    if not all(o.values for o in operands):
        return unknown()
    result = Resolution(complete=all(o.complete for o in operands))
    for combination in _combinations([o.values for o in operands]):
        computed = compute([k.value for k in combination])
        if computed is None:
            result.complete = False
            continue
        trail = tuple(dict.fromkeys(name for k in combination for name in k.trail))
        hops = tuple(dict.fromkeys(hop for k in combination for hop in k.hops))
        last = combination[-1]
        result.values.append(Known(computed, place(last), last.source, via, trail, hops,
                                   any(k.from_table for k in combination)))
    return result


#: The pure numeric functions a value may be computed with (``int(c * 0.5)``), by qualified name.
_NUMERIC: Dict[str, Callable[..., Any]] = {
    name: getattr(math if name.startswith("math.") else builtins, name.rpartition(".")[2])
    for name in ms.NUMERIC_FUNCTIONS
}


def numeric_function(call: Call) -> Optional[Callable[..., Any]]:
    """The pure numeric function a call makes of its positional arguments alone (``int(c * e)``), else None."""
    if call.callee not in _NUMERIC or not call.args or call.kwargs or call.star or call.double_star:
        return None
    return _NUMERIC[call.callee]


def apply_numeric(function: Callable[..., Any], operands: List[Any]) -> Optional[Any]:
    """``function(*operands)`` for numbers; None when not a number (or too large to be a size)."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in operands):
        return None
    try:
        result = function(*operands)
    except (ArithmeticError, ValueError, TypeError):
        return None
    return result if isinstance(result, (int, float)) and abs(result) < 1 << 48 else None


def apply_string_method(method: str, value: Any, arguments: List[Any]) -> Optional[Any]:
    """``value.<method>(*arguments)`` for a string; None when it is not one or the call fails."""
    if not isinstance(value, str):
        return None
    try:
        result = getattr(value, method)(*arguments)
    except (TypeError, ValueError):
        return None
    return result if isinstance(result, (str, bool)) else None


#: The arithmetic operators :func:`compute` computes.
ARITHMETIC = frozenset(("+", "-", "*", "//", "/", "%", "neg"))


def compute(op: str, operands: List[Any]) -> Optional[Any]:
    """An arithmetic operator over numbers (``neg`` takes one); None when not computable."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in operands):
        return None
    try:
        if op == "neg":
            return -operands[0]
        left, right = operands
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op == "*":
            result = left * right
            return result if abs(result) < 1 << 48 else None
        if op == "//":
            return left // right
        if op == "/":
            return left / right
        if op == "%":
            return left % right
    except (ArithmeticError, ValueError):
        return None
    return None


# --- devices ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceDecision:
    """Whether a program runs on Ascend, and the setting that says so when it does not."""

    ascend: bool
    evidence: Optional[Known] = None
    #: False when every device target the program can be given is the CPU: no accelerator waits on the host.
    accelerator: bool = True


def _memo_key(value: Value) -> object:
    """A value by its place in the file when it has one: a name's value is one object wherever the name is read in
    freshly built facts, but a copy per place once the facts are read back from the cache; the place is the same."""
    if value.end > value.start:
        return value.kind, value.start, value.end, value.via, value.data if isinstance(value.data, (str, int)) else None
    return id(value)


def device(values: Values, program: Program) -> DeviceDecision:
    """Ascend unless every device target the program can be given is GPU or CPU (unknown counts as Ascend)."""
    project = values.project
    targets: List[Known] = []
    complete = True
    for path, call in project.program_calls(program, (ms.SET_CONTEXT, ms.SET_DEVICE)):
        if project.qualified(path, call) == ms.SET_CONTEXT:
            argument = call.kwargs.get(ms.DEVICE_TARGET)
        else:
            argument = call.argument("device_target", 0)
        if argument is None or not values.can_hold(path, call.scope, call.guards, program):
            continue  # ``if args.device_target == "Ascend": set_context(device_target="Ascend")`` with a GPU default
        found = values.resolve(path, argument, call.scope)
        targets.extend(found.values)
        complete = complete and found.complete
    if not targets:
        targets, complete = _backend_targets(values, program), True
    if not targets:
        entry = project.python.get(program.entry)
        if entry is not None and entry.recorded_device == "cpu":
            # The saved outputs show MindSpore ran on Windows, whose builds are CPU only.
            return DeviceDecision(False, Known("CPU", None, "the notebook's saved outputs"), accelerator=False)
        return DeviceDecision(True)
    named = [k for k in targets if isinstance(k.value, str)]
    if not complete or len(named) != len(targets):
        return DeviceDecision(True)
    if any(k.value.strip().lower() == "ascend" for k in named):
        return DeviceDecision(True)
    on_cpu = all(k.value.strip().lower() == "cpu" for k in named)
    return DeviceDecision(False, named[0], accelerator=not on_cpu)


def _backend_targets(values: Values, program: Program) -> List[Known]:
    """The device targets the program's communication backends name (``init("nccl")`` is GPU), from the ``init``
    calls that run in every run of the program (one in a device's arm says nothing about the others)."""
    project = values.project
    found: List[Known] = []
    for path, call in project.program_calls(program, (ms.COMMUNICATION_INIT,)):
        argument = call.argument(ms.COMMUNICATION_BACKEND.keyword, ms.COMMUNICATION_BACKEND.position)
        if argument is None or not values.always_holds(path, call.scope, call.guards, program):
            continue
        resolved = values.resolve(path, argument, call.scope, program=program)
        if not resolved.complete:
            return []
        for known in resolved.values:
            target = ms.BACKEND_DEVICES.get(known.value) if isinstance(known.value, str) else None
            if target is None:
                return []
            found.append(Known(target, known.where, f"init({known.value!r})"))
    return found


def non_ascend_config(path: str) -> bool:
    """A config file whose name says it is for GPU or CPU (``resnet_50_gpu.yaml``, ``gpu/...``)."""
    words = set(posixpath.splitext(path.lower())[0].replace("-", "_").replace("/", "_").split("_"))
    return bool(words & ms.NON_ASCEND_WORDS) and "ascend" not in words
