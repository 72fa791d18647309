"""The package's layers: imports go down only, and no module imports itself back (lazy imports count).

docs/architecture.md describes the layers; this test is what keeps them true.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set, Tuple

from tests.conftest import REPO

PACKAGE = REPO / "ms_perflint"

#: Bottom to top. A module may import modules of its own layer or of layers below.
LAYERS: List[Tuple[str, ...]] = [
    ("ms_perflint", "ms_perflint.catalogue", "ms_perflint.findings", "ms_perflint.settings", "ms_perflint.memory"),
    ("ms_perflint.sources",),
    ("ms_perflint.analysis",),
    ("ms_perflint.project",),
    ("ms_perflint.profile",),
    ("ms_perflint.rules",),
    ("ms_perflint.fix", "ms_perflint.output"),
    ("ms_perflint.config",),
    ("ms_perflint.run",),
    ("ms_perflint.cli", "ms_perflint.flake8_plugin", "ms_perflint.server", "ms_perflint.docs_build",
     "ms_perflint.__main__"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> int:
    """The layer of a module: the longest layer prefix that names it or a package above it."""
    best, best_length = -1, -1
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_length:
                if prefix == "ms_perflint" and module != "ms_perflint":
                    continue
                best, best_length = number, len(prefix)
    return best


def imports_of(path: Path) -> Set[str]:
    """Every ``ms_perflint`` module imported anywhere in the file (module level, functions, TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("ms_perflint"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ms_perflint") and not node.level:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if (PACKAGE.parent / (candidate.replace(".", "/") + ".py")).exists()
                          or (PACKAGE.parent / candidate.replace(".", "/")).is_dir() else node.module)
    return found


def graph() -> Dict[str, Set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {name: {target for target in imports_of(path) if target in modules and target != name}
            for name, path in modules.items()}


def test_every_module_has_a_layer():
    missing = [name for name in graph() if layer_of(name) < 0]
    assert missing == []


def test_imports_go_down_the_layers():
    upward = [
        f"{module} (layer {layer_of(module)}) imports {target} (layer {layer_of(target)})"
        for module, targets in sorted(graph().items())
        for target in sorted(targets)
        if layer_of(target) > layer_of(module)
    ]
    assert upward == []


def test_no_import_cycles():
    edges = graph()
    # A package's __init__ importing its own submodules is how a package is assembled, not a cycle of logic.
    edges = {m: {t for t in ts if not (m != "ms_perflint" and t.startswith(m + "."))} for m, ts in edges.items()}
    cycles = []
    state: Dict[str, int] = {}
    stack: List[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    assert cycles == []


def test_the_checker_sees_imports_inside_functions(tmp_path: Path):
    source = tmp_path / "example.py"
    source.write_text("def f():\n    from ms_perflint.rules.check import Check\n", encoding="utf-8")
    assert "ms_perflint.rules.check" in imports_of(source)
