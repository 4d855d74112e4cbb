"""No two modules import each other, directly or through others, counting imports inside
functions too: a cycle hidden by a function-level import still ties the two modules' changes
together, and turns into an import error the day someone moves the import to the top.

The graph is read from the source. `import a.b` is an edge to `a.b`. `from a.b import c` is an
edge to `a.b`, whose namespace it reads (so a package's `__init__` counts), and to `a.b.c` when
that is a module: inside package `a.b`, `import a.b.c as c` reaches a sibling without going
through `a.b`. The parent packages every import of a submodule runs are not edges (each
submodule would be in a cycle with its package's `__init__`). Imports under `if TYPE_CHECKING:`
count as well: they never run, but a module whose types come from one that imports it is as
tied to it as by a run-time import, and the day an annotation is evaluated the cycle runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import arcguard


PACKAGE = Path(arcguard.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _package_of(name: str) -> list[str]:
    is_package = MODULES[name].name == "__init__.py"
    return name.split(".") if is_package else name.split(".")[:-1]


def _targets(name: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:
        package = _package_of(name)
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, base] if base else package)
    return {base} | {f"{base}.{alias.name}" for alias in node.names}


def _imports(name: str) -> set[str]:
    found: set[str] = set()
    pending: list[ast.AST] = [ast.parse(MODULES[name].read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= _targets(name, node)
        pending.extend(ast.iter_child_nodes(node))
    return (found & MODULES.keys()) - {name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def test_the_graph_is_read() -> None:
    # A resolver that found nothing would pass the test below for the wrong reason.
    assert "arcguard.core.state" in GRAPH["arcguard.core.loop_guard.opkey"]
    assert "arcguard.core.hashing" in GRAPH["arcguard.core.state"]  # inside a function
    assert "arcguard.doctor.statusline" in GRAPH["arcguard.doctor"]
    assert "arcguard.jsonio" in GRAPH["arcguard.claude_settings.hook_table"]  # TYPE_CHECKING


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_module_imports_itself_through_others() -> None:
    assert _cycles(GRAPH) == []


# The core's floors, lowest first: a module may import its own floor and the ones below it.
# The flat modules and words/ are the ground floor.
CORE_FLOORS = ("", "loop_guard", "arc_keeper", "display")


def _floor(name: str) -> int:
    parts = name.split(".")
    return CORE_FLOORS.index(parts[2]) if len(parts) > 3 and parts[2] in CORE_FLOORS else 0


def test_the_core_imports_only_its_own_floor_and_the_ones_below() -> None:
    core = [name for name in GRAPH if name.startswith("arcguard.core.")]
    upward = [
        f"{name} -> {target}"
        for name in core
        for target in GRAPH[name]
        if target.startswith("arcguard.core.") and _floor(target) > _floor(name)
    ]
    assert upward == []
    assert _floor("arcguard.core.arc_keeper.stop") == 2  # the floors are found at all
