"""MSP106 float64-constant-in-cell: a Cell keeps numpy float64 data as a Tensor and computes with it."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, LIT, OP, Call, Guard, Value
from ms_perflint.findings import FixAvailability, FixSafety
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, append_keyword, spelled

FIX_DESCRIPTION = "Keep the data in float32 (dtype=float32)"
#: How far ``self.<method>()`` calls are followed from ``construct``.
METHOD_DEPTH = 4
#: Arithmetic that keeps numpy's float64 (float64 with anything numeric is float64).
FLOAT_KEEPING = frozenset(("+", "-", "*", "/", "**", "neg"))


class Float64ConstantInCell(Rule):
    """Report float64 numpy data a Cell keeps as a Tensor (or Parameter) and computes with in ``construct``."""

    code = "MSP106"
    name = "float64-constant-in-cell"
    summary = "A Cell keeps numpy float64 data as a Tensor and computes with it: float64 spreads downstream"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds a `mindspore.Tensor(...)` (or `Parameter(...)`) a Cell keeps in an attribute (`self.noise =
            Tensor(np.random.uniform(...))`) whose data is a numpy array of numpy's default dtype, float64 --
            `np.random.randn/rand/uniform/normal/...`, `np.ones/zeros/empty/eye/identity/linspace` without
            `dtype`, `np.full`/`np.array`/`np.arange` of floats, and arithmetic on them -- with no `dtype`
            given to the Tensor, when the Cell's `construct` (or a `self.<method>()` it calls) uses the attribute's
            values. Reported at the `Tensor(...)` call, for Cells that a training program runs.
        """,
        why_bad="""
            A numpy array keeps its dtype when it becomes a Tensor (`Tensor(np.random.randn(4))` is Float64; a
            Python float or list becomes Float32), and MindSpore promotes mixed operands to the wider type:
            `x * self.noise` with `x` float32 is Float64, and so is everything computed from it. Measured on
            MindSpore 2.10 (CPU wheel, PyNative and graph mode alike): float32 * float64 gives Float64, and a
            ReLU and an addition after it stay Float64 (checked by the MindSpore test tier,
            `tests/test_mindspore_facts_rules_data.py`). On Ascend the AI Core has no float64 arithmetic: such
            operators run on the AI CPU, and MindSpore's profiling advisor lists "AI CPU double operators" as an
            issue to fix by converting them to float. The data also doubles in memory. mindformers' MoE router
            keeps its jitter noise this way (used only under a noise policy its `__init__` turns off).
        """,
        example="""
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Tensor

            class Jitter(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)))

                def construct(self, x):
                    return x * self.noise
        """,
        use_instead="""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Jitter(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)), dtype=ms.float32)

                def construct(self, x):
                    return x * self.noise
        """,
        fix_safety="""
            The fix appends `dtype=float32` to the `Tensor(...)` call, in the call's layout, spelling float32 the
            way the file already does (`mstype.float32`, `ms.float32`, `mindspore.float32`; it adds `import
            mindspore as ms` when the file has no name for it). It is **unsafe**: the data is rounded to float32,
            and what `construct` computes from it becomes float32 where it was float64 -- code that relied on the
            double precision (a numerically delicate sum, a float64 operand it is concatenated or compared with)
            changes behaviour, and a float64 `Parameter` no longer matches checkpoints saved before. No fix is
            offered for a numpy array handed to `Parameter(...)` directly; the message says to wrap it in
            `Tensor(..., dtype=float32)`.
        """,
        programs="""
            Cells whose `construct` a training program runs (reaches by building the Cell), on any device but
            the CPU alone: float64 costs most on Ascend, and on GPUs double precision runs at a fraction of the
            float32 rate too.
        """,
        silent_on="""
            - an explicit dtype: `Tensor(x, ms.float32)`, `Tensor(x, dtype=...)` (even float64: written on
              purpose), `x.astype(np.float32)` or `.astype(self.dtype)` anywhere in the data's history,
              `np.float32(...)`, `np.ones(shape, np.float32)`, `np.zeros(..., dtype=...)`;
            - integer data: `np.arange(n)`, `np.full(shape, 3)`, `np.array([0] * k)` are int64, not float;
            - attributes used only for their shape (`self.mask.shape`, `len(self.table)`, `ops.shape(self.t)`,
              `x.expand_as(self.t)`), or cast before use (`self.cast(self.t, mstype.float32)`,
              `self.t.astype(...)`, `ops.cast(self.t, ...)`);
            - attributes `construct` does not use, or uses only under a condition that never holds
              (`if self.noisy_policy == "jitter":` with `self.noisy_policy = None` set in `__init__` and nowhere
              else);
            - data the linter cannot see the dtype of (a parameter, a config value, a list held in a variable);
            - Cells no training program builds, and programs that run on the CPU only.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings. Its Cells spell their dtypes out
            (`Tensor(..., mstype.float32)`, `.astype(self.np_cast_type)`), keep integer data (`np.arange`), or use
            float64 tensors only for their shape; the one candidate, the jitter noise of mindformers' MoE `Router`,
            is used only under `noisy_policy == "jitter"`, which its `__init__` sets to None and nothing changes.
            The tests carry those look-alikes. See docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/mindspore/mindspore.Tensor.html",
            "https://www.mindspore.cn/mindinsight/docs/en/master/performance_profiling_ascend.html",
        ),
    )
    valid = (
        Valid(
            """
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Jitter(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)), ms.float32)
                    self.scale = Tensor(np.ones((width,)).astype(np.float32))
                    self.bias = Tensor(np.float32(np.random.randn(width)))

                def construct(self, x):
                    return x * self.noise * self.scale + self.bias

            if __name__ == "__main__":
                net = Jitter(16)
                ms.train.Model(net, loss, opt).train(1, data)
            """,
            why="explicit dtypes",
        ),
        Valid(
            """
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            import mindspore.ops as ops
            from mindspore import Tensor

            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.template = Tensor(np.zeros((1, 16, 64)))
                    self.positions = Tensor(np.arange(16))

                def construct(self, x):
                    return ops.reshape(x, self.template.shape) + self.positions

            if __name__ == "__main__":
                net = Head()
                ms.train.Model(net, loss, opt).train(1, data)
            """,
            why="the float64 tensor is used for its shape only; np.arange(16) is int64",
        ),
        Valid(
            """
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Router(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.policy = None
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)))

                def construct(self, x):
                    if self.policy == "jitter":
                        x = x * self.noise
                    return x

            if __name__ == "__main__":
                ms.train.Model(Router(16), loss, opt).train(1, data)
            """,
            why="used only under a condition that never holds",
        ),
    )
    invalid = (
        Invalid(
            """
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Jitter(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)))

                def construct(self, x):
                    return x * self.noise

            if __name__ == "__main__":
                ms.train.Model(Jitter(16), loss, opt).train(1, data)
            """,
            line=9,
            column=22,
            message_contains="np.random.uniform",
            fixed="""
            import numpy as np
            import mindspore as ms
            import mindspore.nn as nn
            from mindspore import Tensor

            class Jitter(nn.Cell):
                def __init__(self, width):
                    super().__init__()
                    self.noise = Tensor(np.random.uniform(0.99, 1.01, (width,)), dtype=ms.float32)

                def construct(self, x):
                    return x * self.noise

            if __name__ == "__main__":
                ms.train.Model(Jitter(16), loss, opt).train(1, data)
            """,
        ),
        Invalid(
            """
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Tensor, Parameter
            from mindspore.common import dtype as mstype
            from mindspore.train import Model

            class Normalize(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mean = Tensor(np.array([0.485, 0.456, 0.406]).reshape((1, 3, 1, 1)), mstype.float32)
                    self.std = Parameter(Tensor(np.array([[0.229], [0.224], [0.225]])), name="std")

                def construct(self, x):
                    return self.scale(x - self.mean)

                def scale(self, x):
                    return x / self.std

            if __name__ == "__main__":
                Model(Normalize(), loss, opt).train(1, data)
            """,
            line=11,
            column=30,
            message_contains="Normalize.scale",
            fixed="""
            import numpy as np
            import mindspore.nn as nn
            from mindspore import Tensor, Parameter
            from mindspore.common import dtype as mstype
            from mindspore.train import Model

            class Normalize(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.mean = Tensor(np.array([0.485, 0.456, 0.406]).reshape((1, 3, 1, 1)), mstype.float32)
                    self.std = Parameter(Tensor(np.array([[0.229], [0.224], [0.225]]), dtype=mstype.float32), name="std")

                def construct(self, x):
                    return self.scale(x - self.mean)

                def scale(self, x):
                    return x / self.std

            if __name__ == "__main__":
                Model(Normalize(), loss, opt).train(1, data)
            """,
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        programs = [p for p in project.training_programs() if check.ascend(p).accelerator]
        if not programs:
            return
        reported: Set[Tuple[str, int]] = set()
        for path, facts in sorted(project.python.items()):
            for name in sorted(facts.classes):
                with check.deciding(path):
                    cls = (path, name)
                    construct = project.method(cls, "construct")
                    if construct is None or not project.is_cell(cls):
                        continue
                    running = [p for p in programs if p.reaches(*construct)]
                    if running:
                        self._cell(check, cls, construct, running, reported)

    def _cell(self, check: Check, cls: ClassRef, construct: ScopeRef, programs: List[Program],
              reported: Set[Tuple[str, int]]) -> None:
        project = check.project
        for attribute, (read_path, read_scope) in sorted(_data_reads(check, construct, programs).items()):
            held = project.attribute(cls, attribute)
            if held is None:
                continue
            site = _float64_site(project, held[0], held[1])
            if site is None or (held[0], site[0].id) in reported:
                continue
            tensor, origin = site
            reported.add((held[0], tensor.id))
            method = project.python[read_path].scopes[read_scope].name
            check.report(self.code, held[0], tensor, _message(project, held[0], tensor, attribute, origin, method),
                         _fix(project, held[0], tensor))


def _data_reads(check: Check, construct: ScopeRef, programs: List[Program]) -> Dict[str, ScopeRef]:
    """``self.<attr>`` names ``construct`` and the ``self.<method>()`` it calls read for their values (under guards
    that can hold), with the first method that reads each."""
    project = check.project
    found: Dict[str, ScopeRef] = {}
    seen: Set[ScopeRef] = set()
    queue: List[Tuple[ScopeRef, int]] = [(construct, 0)]
    while queue:
        scope, depth = queue.pop(0)
        if scope in seen:
            continue
        seen.add(scope)
        path, index = scope
        facts = project.python[path]
        for name, guards in facts.scopes[index].reads:
            if name not in found and _can_run(check, path, index, guards, programs):
                found[name] = scope
        if depth < METHOD_DEPTH:
            for call in facts.calls:
                if call.scope == index and call.callee.startswith("self.") and \
                        _can_run(check, path, index, call.guards, programs):
                    queue.extend((target, depth + 1) for target in project.targets(path, call))
    return found


def _can_run(check: Check, path: str, scope: int, guards: Tuple[Guard, ...], programs: List[Program]) -> bool:
    return not guards or any(check.values.can_hold(path, scope, guards, program) for program in programs)


def _float64_site(project: Project, path: str, value: Value) -> Optional[Tuple[Call, str]]:
    """The ``Tensor(...)``/``Parameter(...)`` call that keeps float64 numpy data without a dtype, and where the data
    comes from (``np.random.randn``); None when the dtype is explicit or not known to be float64."""
    if value.kind != CALL:
        return None
    facts = project.python[path]
    call = facts.call(value.data)
    if call is None or not call.callee:
        return None
    qualified = project.qualified(path, call)
    if qualified == ms.PARAMETER:
        data = call.argument(ms.PARAMETER_DATA.keyword, ms.PARAMETER_DATA.position)
        inner = _float64_site(project, path, data) if data is not None else None
        if inner is not None:
            return inner
        origin = _numpy_float64(project, path, data) if data is not None else None
        return (call, origin) if origin else None
    if qualified != ms.TENSOR or call.may_pass(ms.TENSOR_DTYPE.keyword, ms.TENSOR_DTYPE.position):
        return None
    data = call.argument(ms.TENSOR_DATA.keyword, ms.TENSOR_DATA.position)
    origin = _numpy_float64(project, path, data) if data is not None else None
    return (call, origin) if origin else None


def _numpy_float64(project: Project, path: str, value: Value, depth: int = 0) -> str:
    """The numpy call (``numpy.random.randn``) that makes ``value`` float64 data, "" when it is not (surely)."""
    if value.cast or depth > 8:
        return ""  # an explicit cast in its history: .astype(np.float32)
    if value.kind == OP and value.data in FLOAT_KEEPING:
        return next((found for found in (_numpy_float64(project, path, p, depth + 1) for p in value.parts) if found),
                    "")
    if value.kind != CALL:
        return ""
    call = project.python[path].call(value.data)
    builder = ms.NUMPY_FLOAT64.get(call.callee) if call is not None else None
    if builder is None:
        return ""  # .astype(self.dtype), np.float32(x), a project function: not known to be float64
    if builder.dtype is not None and call.may_pass(builder.dtype.keyword, builder.dtype.position):
        return ""
    if builder.floats and not any(_has_float(call.argument(p.keyword, p.position)) for p in builder.floats):
        return ""  # np.arange(16), np.full(shape, 3): int64
    return call.callee


def _has_float(value: Optional[Value], depth: int = 0) -> bool:
    """A float literal, or a display or arithmetic containing one (``[0.485, 0.456]``, ``1 / 255``)."""
    if value is None or depth > 6:
        return False
    if value.kind == LIT:
        return isinstance(value.data, float) or (isinstance(value.data, tuple) and
                                                 any(isinstance(item, float) for item in value.data))
    if value.kind == OP and value.data == "/":
        return True
    if value.kind == OP and value.data in ("tuple", *FLOAT_KEEPING):
        return any(_has_float(part, depth + 1) for part in value.parts)
    return False


def _message(project: Project, path: str, tensor: Call, attribute: str, origin: str, method: str) -> str:
    shown = "np." + origin[len("numpy."):] if origin.startswith("numpy.") else origin
    name, _ = spelled(project.python[path], ms.FLOAT32)
    advice = f"pass dtype={name}" if project.qualified(path, tensor) == ms.TENSOR else \
        f"wrap it in Tensor(..., dtype={name})"
    return (f"self.{attribute} keeps float64 data ({shown} without a dtype: numpy's default) and {method} computes "
            f"with it: float32 with float64 gives float64 downstream, and float64 operators run on the AI CPU on "
            f"Ascend; {advice}")


def _fix(project: Project, path: str, tensor: Call):
    if project.qualified(path, tensor) != ms.TENSOR:
        return None
    name, imports = spelled(project.python[path], ms.FLOAT32)
    return append_keyword(tensor, ms.TENSOR_DTYPE.keyword, name, FixSafety.UNSAFE, FIX_DESCRIPTION, imports)
