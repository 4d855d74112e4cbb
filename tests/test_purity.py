"""The core imports only the standard library, itself and `arcguard.jsonio`; no I/O calls."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import arcguard.core


CORE = Path(arcguard.core.__file__).parent
ALLOWED = {"arcguard.core", "arcguard.jsonio"}
FORBIDDEN_CALLS = {"open", "time", "monotonic", "getenv", "environ", "listdir", "urandom"}


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_module_is_pure(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module == "arcguard":
            names = [f"arcguard.{a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top == "arcguard":
                assert any(name == a or name.startswith(a + ".") for a in ALLOWED), name
            else:
                assert top in sys.stdlib_module_names or top.startswith("_"), name
                assert top not in {"os", "io", "pathlib", "subprocess", "socket", "random"}, name
        if isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_CALLS:
            assert not (isinstance(node.value, ast.Name) and node.value.id in {"time", "os"}), \
                f"{path.name}: {node.value.id}.{node.attr}"


def test_every_module_imports_on_its_own():
    import subprocess

    src = CORE.parent
    modules = ["arcguard." + ".".join(p.relative_to(src).with_suffix("").parts)
               for p in src.rglob("*.py") if p.name not in ("__main__.py",)]
    modules = [m.removesuffix(".__init__") for m in modules]
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    for module in modules:
        subprocess.run([sys.executable, "-W", "error", "-c", code, module], check=True)
