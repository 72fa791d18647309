"""How a program executes: the mode its ``set_context`` calls choose, and what it compiles with ``jit``.

MindSpore runs a network either compiled as a whole graph (``GRAPH_MODE``) or
operator by operator from Python (``PYNATIVE_MODE``), where ``mindspore.jit``
compiles the functions it decorates. :func:`execution_mode` gathers every mode a
program's live ``set_context(mode=...)`` calls can set, with the place each value
is written (followed through argparse defaults, configs and parameters); a call
that may pass ``mode`` through ``**kwargs``, or a value the linter cannot know,
leaves the answer incomplete. Which mode an unset ``mode`` means depends on the
release (``catalogue.PYNATIVE_DEFAULT_SINCE``): the rules decide that with the
``mindspore-version`` setting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, Call, Value
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef
from ms_perflint.project.training import Training
from ms_perflint.project.values import Known, Ref, Values

GRAPH, PYNATIVE = "graph", "pynative"


@dataclass(frozen=True)
class ModeSetting:
    """One mode a ``set_context(mode=...)`` call of the program can set: the call, the value, what it means."""

    path: str
    call: Call
    value: Known
    #: :data:`GRAPH`, :data:`PYNATIVE`, or "" for a value that names neither.
    mode: str


@dataclass
class ExecutionMode:
    """Every mode a program's ``set_context`` calls can set; ``complete`` when no call or value is unknown."""

    settings: List[ModeSetting] = field(default_factory=list)
    complete: bool = True

    @property
    def modes(self) -> Set[str]:
        """The modes the settings name ("" for a value naming neither)."""
        return {setting.mode for setting in self.settings}

    @property
    def unset(self) -> bool:
        """No call sets the mode, and none may (the release's default mode applies)."""
        return self.complete and not self.settings

    def before(self, path: str, call: Call) -> "ExecutionMode":
        """The settings that can apply when ``call`` runs: a ``set_context`` written further down the same file's
        top level (a later notebook cell, a later statement of the script) runs after it, so it is left out."""
        kept = [s for s in self.settings
                if not (s.path == path and s.call.scope == 0 and call.scope == 0 and s.call.line > call.line)]
        return ExecutionMode(kept, self.complete)

    def only(self, mode: str) -> bool:
        """Every mode the program can be given is ``mode`` (and at least one call sets it)."""
        return self.complete and bool(self.settings) and self.modes == {mode}


def mode_of(value: object) -> str:
    """:data:`GRAPH`/:data:`PYNATIVE` for a mode value (``ms.GRAPH_MODE``, ``0``, ``"PYNATIVE_MODE"``), else ""."""
    if isinstance(value, Ref):
        value = ms.canonical_name(value.name)
    if isinstance(value, bool):
        return ""
    if isinstance(value, str):
        value = value.strip()
        return {ms.GRAPH_MODE: GRAPH, ms.PYNATIVE_MODE: PYNATIVE}.get(
            value if value.startswith("mindspore.") else "mindspore." + value, "")
    return {ms.GRAPH_MODE_VALUE: GRAPH, ms.PYNATIVE_MODE_VALUE: PYNATIVE}.get(value, "")  # type: ignore[arg-type]


def execution_mode(values: Values, program: Program) -> ExecutionMode:
    """The modes the program's live ``set_context`` calls can set (memoised per program)."""
    return values.project.memo(("execution-mode", program.entry, id(values)),  # type: ignore[return-value]
                               lambda: _execution_mode(values, program))


def _execution_mode(values: Values, program: Program) -> ExecutionMode:
    project = values.project
    live = values.live_scopes(program)
    found = ExecutionMode()
    for path, call in context_calls(project):
        if (path, call.scope) not in live or not values.can_hold(path, call.scope, call.guards, program):
            continue
        argument = call.kwargs.get(ms.MODE)
        if argument is None:
            found.complete = found.complete and not call.double_star
            continue
        resolved = values.resolve(path, argument, call.scope, program=program)
        found.complete = found.complete and resolved.complete and bool(resolved.values)
        for known in resolved.values:
            found.settings.append(ModeSetting(path, call, known, mode_of(known.value)))
    if "" in found.modes:
        found.complete = False
    return found


def context_calls(project: Project) -> List[Tuple[str, Call]]:
    """Every ``set_context`` call of the project (once per project)."""
    def find() -> List[Tuple[str, Call]]:
        return [(path, call) for path, facts in sorted(project.python.items()) for call in facts.calls
                if call.callee and project.qualified(path, call) == ms.SET_CONTEXT]

    return project.memo("set-context-calls", find)  # type: ignore[return-value]


# --- jit -----------------------------------------------------------------------------------------------


def is_jit(name: str) -> bool:
    """A decorator or callee that compiles a function: ``mindspore.jit`` and its 1.x name ``ms_function``."""
    return ms.canonical_name(name) in ms.JIT_DECORATORS


def jit_scopes(project: Project) -> Dict[ScopeRef, int]:
    """Scopes ``jit`` compiles -- decorated functions and methods (also ``@jit(...)``), methods of a decorated
    class, functions passed to ``jit(fn)`` -- each with the line that compiles it (once per project)."""
    def find() -> Dict[ScopeRef, int]:
        found: Dict[ScopeRef, int] = {}
        for path, facts in sorted(project.python.items()):
            for index, scope in enumerate(facts.scopes):
                if any(is_jit(d) for d in scope.decorators):
                    found.setdefault((path, index), scope.line)
            for cls in facts.classes.values():
                if any(is_jit(d) for d in cls.decorators):
                    for index in cls.methods.values():
                        found.setdefault((path, index), cls.line)
            for call in facts.calls:
                if call.callee and is_jit(call.callee) and call.args:
                    for target in _function_targets(project, path, call.args[0], call.scope):
                        found.setdefault(target, call.line)
        return found

    return project.memo("jit-scopes", find)  # type: ignore[return-value]


def _function_targets(project: Project, path: str, value: Value, scope: int) -> List[ScopeRef]:
    """The scopes a function value names (``train_step``, ``net.construct``, ``self.step``)."""
    from ms_perflint.analysis.facts import REF, SELF

    if value.kind == REF:
        symbol = project.resolve(value.data, path)
        index = project.function_of(symbol) if symbol is not None else None
        return [(symbol.path, index)] if symbol is not None and index is not None else []
    if value.kind == SELF:
        owner = project.owner_class(path, scope)
        method = project.method(owner, value.data) if owner is not None else None
        return [method] if method is not None else []
    facts = project.python[path]
    name = value.via or value.text
    if name in facts.functions:
        return [(path, facts.functions[name])]
    nested = [i for i, s in enumerate(facts.scopes) if s.name.rsplit(".", 1)[-1] == name and s.parent == scope]
    return [(path, i) for i in nested]


def jit_in(project: Project, program: Program) -> Optional[Tuple[str, int]]:
    """Where the program compiles something with ``jit`` (a reached jit scope or a ``jit(...)`` call), or None.
    An optimizer's compiled ``construct`` (mindface's Adan) compiles the parameter update only: the train step's
    forward and backward still run op by op, so it does not count."""
    for (path, index), line in sorted(jit_scopes(project).items()):
        if program.reaches(path, index) and not _in_optimizer(project, path, index) and \
                not _cell_helper(project, path, index):
            return path, line
    for path, call in project.calls_matching(_calls_jit):
        if program.reaches(path, call.scope):
            return path, call.line
    return None


def _cell_helper(project: Project, path: str, index: int) -> bool:
    """A jit-compiled method of a cell other than ``construct`` that trains nothing itself (Pix2PixHD's
    ``@ms.jit one_hot_encode``): it compiles that helper, while the train step still runs op by op."""
    name = project.python[path].scopes[index].name.rpartition(".")[2]
    owner = project.owner_class(path, index)
    if owner is None or name == "construct" or project.method(owner, name) != (path, index) or \
            not project.is_cell(owner):
        return False
    return not any(call.scope == index and (project.training_kind(path, call) is not None or any(
        word in text.lower() for text in (call.callee, call.receiver.text if call.receiver else "")
        for word in ("grad", "optim"))) for call in project.python[path].calls)


def _in_optimizer(project: Project, path: str, index: int) -> bool:
    owner = project.owner_class(path, index)
    return owner is not None and project.derives_from(owner, ms.OPTIMIZER_BASES)


def _calls_jit(project: Project, path: str, call: Call) -> bool:
    """``jit(fn)`` called; ``@jit()`` as a decorator is its scope's (:func:`jit_scopes`)."""
    return bool(call.callee) and is_jit(call.callee) and not call.decorator


def made_by_jit(project: Project, path: str, value: Optional[Value], scope: int) -> bool:
    """``value`` is a function ``jit`` compiles: ``jit(step)``'s result, or a jit-decorated function or method."""
    if value is None:
        return False
    if value.kind == CALL:
        call = project.python[path].call(value.data)
        if call is not None and call.callee and is_jit(call.callee):
            return True
    scopes = jit_scopes(project)
    return any(target in scopes for target in _function_targets(project, path, value, scope))


# --- what a training step runs forward, and what of it needs PyNative --------------------------------------------


def forward_scopes(project: Project, training: Training, program: Program, differentiated: bool = True
                   ) -> List[ScopeRef]:
    """The code every training step of the program runs forward: the trained networks' ``construct`` (with the
    cells they keep from their arguments and the ``self.<method>`` calls it makes), and with ``differentiated`` the
    functions a gradient function differentiates (``value_and_grad(forward_fn)``). In a stable order."""
    classes: Set[ClassRef] = set()
    for use in training.networks(program):
        classes |= training.composition(training.network_classes(use.path, use.network, use.anchor.scope))
    classes |= training.composition(frozenset(_held(project, classes)))
    found = _construct_scopes(project, classes)
    for path, call in project.program_calls(program, ms.GRAD_FUNCTIONS) if differentiated else ():
        function = call.argument("fn", 0) if (path, call.scope) in program.scopes else None
        if function is not None:
            found.update(project.functions_held(path, function))
    return sorted(found)


def eager_only(project: Project, training: Training, program: Program) -> str:
    """What the trained network's ``construct`` (and the methods it calls) does that needs PyNative: numpy
    randomness, a tensor read on the host (``int(self.queue_ptr)``, ``.asnumpy()``, ``.item()``); "" when nothing
    does.

    Such a network runs in PyNative on purpose: compiled, the host read fails or the random numbers are frozen into
    the graph, so jit needs a rewrite first. (A read in the function ``value_and_grad`` differentiates, such as
    ``Tensor(labels.asnumpy(), int32)`` to cast labels, is a line to change, not a design: it does not count.)"""
    for path, index in forward_scopes(project, training, program, differentiated=False):
        for call in project.python[path].calls:
            if call.scope == index:
                reason = host_side(call)
                if reason:
                    return f"{project.python[path].scopes[index].name} {reason}"
    return ""


def _held(project: Project, classes: Set[ClassRef]) -> Set[ClassRef]:
    """Cells the classes keep from their ``__init__`` arguments (``self.mapping = mapping``), transitively."""
    found: Set[ClassRef] = set(classes)
    stack = list(classes)
    while stack and len(found) < 2000:
        cls = stack.pop()
        facts = project.class_facts(cls)
        init = project.method(cls, "__init__")
        for value in (facts.attrs.values() if facts is not None else ()):
            if value.kind != "param" or init is None:
                continue
            for held in project.instance_classes(init[0], value, init[1]):
                if held not in found and project.is_cell(held):
                    found.add(held)
                    stack.append(held)
    return found


def _construct_scopes(project: Project, classes: Set[ClassRef]) -> Set[ScopeRef]:
    """``construct`` of the classes and the ``self.<method>`` calls it makes, transitively."""
    found: Set[ScopeRef] = set()
    stack = [scope for cls in sorted(classes) for scope in [project.method(cls, "construct")] if scope is not None]
    while stack and len(found) < 2000:
        scope = stack.pop()
        if scope in found:
            continue
        found.add(scope)
        path, index = scope
        owner = project.owner_class(path, index)
        for call in project.python[path].calls:
            if call.scope == index and call.callee.startswith("self.") and call.callee.count(".") == 1 and owner:
                method = project.method(owner, call.callee[5:])
                if method is not None and method not in found:
                    stack.append(method)
    return found


#: Words that make ``int(...)``/``float(...)`` shape arithmetic, which graph mode folds at compile time.
SHAPE_WORDS = ("shape", "len(", "size", "dim", "num_", "rank")


def host_side(call: Call) -> str:
    """Why the call runs on the host in PyNative only ("" when it does not)."""
    if call.callee.startswith("numpy.random."):
        return f"draws random numbers with numpy ({call.callee})"
    return host_read(call)


def host_read(call: Call) -> str:
    """How the call reads a device tensor on the host (``.asnumpy()``, ``.item()``, ``float(loss)``); "" when it
    does not."""
    if call.method in ms.HOST_READ_METHODS and call.receiver is not None and not call.args:
        return f"reads a tensor on the host (.{call.method}())"
    if call.callee in ("int", "float") and len(call.args) == 1:
        argument = call.args[0]
        text = argument.text.lower()
        if argument.kind in ("self", "param", "name", "call") and not any(w in text for w in SHAPE_WORDS):
            return f"reads a tensor on the host ({call.callee}({argument.text}))"
    return ""
