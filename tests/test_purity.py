"""The core decides from its arguments alone: no I/O, no clock, no environment.

That keeps every rule testable as a table and lets replay and forensics run the hooks' own
decisions. The core may import only the modules allowed below (pure computation), itself,
`arcguard.jsonio`, `arcguard.errors` (the exceptions' base), `arcguard.text` (cutting text)
and `arcguard.values` (value classes), and may not call the built-ins that reach outside the
process.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import arcguard.core


CORE = Path(arcguard.core.__file__).parent
ALLOWED_ARCGUARD = {
    "arcguard.core",
    "arcguard.errors",
    "arcguard.jsonio",
    "arcguard.text",
    "arcguard.values",
}
# Standard library modules the core may use. Each is pure computation; `time` is here only for
# formatting and parsing timestamps it is given (its clock functions are refused below).
# Adding a module here is a decision: check it reads no file, clock or environment.
ALLOWED_STDLIB = {
    "__future__",
    "_blake2",
    "bisect",
    "collections",
    "dataclasses",
    "fnmatch",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "marshal",  # `state.clone` copies through it: bytes in memory, no file
    "math",
    "operator",
    "re",
    "string",
    "time",
    "typing",
}
# Functions that read the clock, the environment or the file system, by module.
FORBIDDEN_ATTRIBUTES = {
    "time": {
        "time",
        "time_ns",
        "monotonic",
        "monotonic_ns",
        "perf_counter",
        "perf_counter_ns",
        "process_time",
        "sleep",
        "localtime",
    },
}
# Built-ins that do I/O when called by their bare name.
FORBIDDEN_BUILTINS = {
    "open",
    "input",
    "print",
    "exec",
    "eval",
    "compile",
    "__import__",
    "breakpoint",
}


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "arcguard":
        return [f"{node.module}.{a.name}" for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module]
    return []


def _import_problems(node: ast.AST) -> list[str]:
    problems = []
    for name in _imported(node):
        top = name.split(".")[0]
        if top == "arcguard":
            if not any(name == a or name.startswith(a + ".") for a in ALLOWED_ARCGUARD):
                problems.append(f"imports {name}")
        elif top not in ALLOWED_STDLIB:
            problems.append(f"imports {name}")
    if isinstance(node, ast.ImportFrom) and node.module in FORBIDDEN_ATTRIBUTES:
        problems += [
            f"imports {node.module}.{a.name}"
            for a in node.names
            if a.name in FORBIDDEN_ATTRIBUTES[node.module]
        ]
    return problems


def _call_problems(node: ast.AST) -> list[str]:
    # A name being assigned (a value class's `input` field) is not the built-in.
    if (
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and node.id in FORBIDDEN_BUILTINS
    ):
        return [f"uses {node.id}"]
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.attr in FORBIDDEN_ATTRIBUTES.get(node.value.id, set())
    ):
        return [f"uses {node.value.id}.{node.attr}"]
    return []


def impurities(source: str) -> list[str]:
    """What in `source` would make a core module impure (empty when it is pure)."""
    problems: list[str] = []
    for node in ast.walk(ast.parse(source)):
        problems += _import_problems(node) + _call_problems(node)
    return problems


CORE_MODULES = sorted(CORE.rglob("*.py"))


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: p.relative_to(CORE).as_posix())
def test_core_module_is_pure(path):
    assert impurities(path.read_text(encoding="utf-8")) == []


def test_every_floor_of_the_core_is_checked():
    floors = {path.parent.name for path in CORE_MODULES}
    assert floors >= {"core", "loop_guard", "arc_keeper", "display"}


def test_allowed_modules_are_all_standard_library():
    assert {m for m in ALLOWED_STDLIB if m not in sys.stdlib_module_names} <= {"_blake2"}


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("import os", "imports os"),
        ("import pathlib", "imports pathlib"),
        ("from subprocess import run", "imports subprocess"),
        ("import json", "imports json"),
        ("from arcguard.hooks import runner", "imports arcguard.hooks.runner"),
        ("import time\nnow = time.time()", "uses time.time"),
        ("from time import time", "imports time.time"),
        ("from time import monotonic as clock", "imports time.monotonic"),
        ("def read(p):\n    return open(p).read()", "uses open"),
        ("print('x')", "uses print"),
    ],
)
def test_the_purity_check_catches(source, problem):
    assert problem in impurities(source)


def test_a_field_named_like_a_built_in_is_not_a_use_of_it():
    assert impurities("class Call:\n    input: object = None\n\nx = Call().input") == []
    assert "uses input" in impurities("line = input")


def test_formatting_a_given_time_is_pure():
    assert impurities("import time\nstamp = time.strftime('%Y', time.gmtime(0))") == []


def test_every_module_imports_on_its_own():
    import subprocess

    src = CORE.parent
    modules = [
        "arcguard." + ".".join(p.relative_to(src).with_suffix("").parts)
        for p in src.rglob("*.py")
        if p.name not in ("__main__.py",)
    ]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    for module in modules:
        subprocess.run([sys.executable, "-W", "error", "-c", code, module], check=True)
