"""The code's shape stays one a newcomer can change safely, measured from its own AST.

Each bound says where a change usually goes wrong: a long function or module hides a second
concern, a long parameter list is a value nobody named, an untyped `dict[str, Any]` lets a
misspelt key through mypy, and a hand-written `__init__` restates fields a value class states
once. Raise a bound only with a reason the next reader would accept.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import arcguard


PACKAGE = Path(arcguard.__file__).parent
MAX_MODULE_LINES = 450
MAX_FUNCTION_LINES = 60
MAX_CORE_PARAMETERS = 6
MAX_UNTYPED_DICTS = 25
MAX_UNTYPED_DICTS_IN_HOOKS_AND_CORE = 4
# Modules directly in core/ (its __init__ aside): the rest live in the feature folders. (11:
# the state's records are two modules, the loop guard's counters apart, on the records' floor.)
MAX_FLAT_CORE_MODULES = 11
# String-keyed reads and writes of dicts in core/: the state goes through its records, so
# what is left is payloads and transcripts read at the edge.
MAX_CORE_STRING_KEYS = 60
STRING_KEY = re.compile(r'\.(get|setdefault|pop)\("[a-z_]+"|\["[a-z_]+"\]')
# Claude Code's output keys: only the render step and the typed output schema name them.
OUTPUT_KEYS = ("hookSpecificOutput", "permissionDecision", "additionalContext", "systemMessage")


def _sources() -> dict[str, str]:
    return {
        path.relative_to(PACKAGE).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
    }


SOURCES = _sources()
TREES = {name: ast.parse(text) for name, text in SOURCES.items()}


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = function.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
    return count - bool(names and names[0].arg in ("self", "cls"))


def _is_untyped_dict(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "dict"
        and isinstance(node.slice, ast.Tuple)
        and [ast.unparse(e) for e in node.slice.elts] == ["str", "Any"]
    )


def _untyped_dicts(tree: ast.AST) -> int:
    return sum(_is_untyped_dict(node) for node in ast.walk(tree))


def test_no_module_is_longer_than_the_bound() -> None:
    long = {name: text.count("\n") for name, text in SOURCES.items()}
    assert {name: n for name, n in long.items() if n > MAX_MODULE_LINES} == {}


def test_no_function_is_longer_than_the_bound() -> None:
    long = [
        f"{name}:{f.name} ({(f.end_lineno or f.lineno) - f.lineno + 1} lines)"
        for name, tree in TREES.items()
        for f in _functions(tree)
        if (f.end_lineno or f.lineno) - f.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_no_core_function_takes_more_than_six_parameters() -> None:
    wide = [
        f"{name}:{f.name} ({_parameters(f)})"
        for name, tree in TREES.items()
        if name.startswith("core/")
        for f in _functions(tree)
        if _parameters(f) > MAX_CORE_PARAMETERS
    ]
    assert wide == []


def test_the_core_keeps_few_flat_modules() -> None:
    flat = [n for n in SOURCES if n.startswith("core/") and n.count("/") == 1]
    assert len(flat) - ("core/__init__.py" in flat) <= MAX_FLAT_CORE_MODULES, sorted(flat)


def test_the_core_reads_the_state_through_records_not_string_keys() -> None:
    core = [text for name, text in SOURCES.items() if name.startswith("core/")]
    assert sum(len(STRING_KEY.findall(text)) for text in core) <= MAX_CORE_STRING_KEYS


def test_only_the_render_step_and_the_output_schema_name_claude_codes_output_keys() -> None:
    naming = {n for n, text in SOURCES.items() if any(f'"{key}"' in text for key in OUTPUT_KEYS)}
    assert naming <= {"core/render.py", "core/schema.py"}, sorted(naming)


def test_untyped_dicts_stay_within_their_budget() -> None:
    counts = {name: _untyped_dicts(tree) for name, tree in TREES.items()}
    inner = sum(n for name, n in counts.items() if name.startswith(("hooks/", "core/")))
    assert sum(counts.values()) <= MAX_UNTYPED_DICTS, {k: v for k, v in counts.items() if v}
    assert inner <= MAX_UNTYPED_DICTS_IN_HOOKS_AND_CORE


def test_the_measures_measure() -> None:
    tree = ast.parse("def f(self, a, b, *c, d, **e) -> dict[str, Any]: pass")
    (function,) = _functions(tree)
    assert _parameters(function) == 5
    assert _untyped_dicts(tree) == 1


# A hand-written `__init__` is kept only where it must run a base class's constructor (an
# exception's message, a socket server's bind); `values.py` generates the others.
def _runs_the_base_constructor(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call)
        and ast.unparse(node.func.value.func) == "super"
        for node in ast.walk(function)
    )


def test_value_classes_state_their_fields_instead_of_an_init() -> None:
    found = [
        name
        for name, tree in TREES.items()
        if name != "values.py"
        for function in _functions(tree)
        if function.name == "__init__" and not _runs_the_base_constructor(function)
    ]
    assert found == []
    sample = ast.parse(
        "class E(Exception):\n    def __init__(self):\n        super().__init__('x')"
    )
    assert all(_runs_the_base_constructor(f) for f in _functions(sample))


def test_every_exception_derives_from_the_one_base() -> None:
    # One name catches everything arcguard raises, and the standard bases still apply.
    from arcguard.errors import ArcguardError

    strays = []
    for name, tree in TREES.items():
        module = "arcguard." + name.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            found = _defined_class(module, node.name)
            # A BaseException that is not an Exception is a signal, not an error (like
            # SystemExit): it must get past every `except Exception`, so it cannot have the base.
            if (
                isinstance(found, type)
                and issubclass(found, Exception)
                and not issubclass(found, ArcguardError)
            ):
                strays.append(f"{name}: {node.name}")
    assert strays == []


def _defined_class(module: str, name: str) -> object:
    import importlib

    if module.endswith("__main__"):
        return None
    return getattr(importlib.import_module(module), name, None)
