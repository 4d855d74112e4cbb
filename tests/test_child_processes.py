"""Every process arcguard starts is started from a directory of its own, and Python isolated.

The places are found by walking the source, not listed: a new `subprocess.run` anywhere in
`src/` is checked the day it is written. Each must pass `cwd=child.working_directory(...)`,
and one that runs this interpreter must build its argv with `child.python_argv` (`-I`). The
calls that cannot be given a working directory (`os.system`, `os.exec*`, `os.spawn*`, ...)
are not used at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import arcguard
from arcguard import child


SRC = Path(arcguard.__file__).parent
SUBPROCESS_CALLS = {"run", "Popen", "call", "check_call", "check_output"}
# No working directory can be given to these: arcguard does not use them.
FORBIDDEN = {
    "os": {"system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty"},
    "subprocess": {"getoutput", "getstatusoutput"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "pty": {"spawn"},
}
FORBIDDEN_PREFIXES = {"os": ("exec", "spawn")}


def _name(node: ast.expr) -> str:
    return ast.unparse(node)


def _forbidden(module: str, attr: str) -> bool:
    return attr in FORBIDDEN.get(module, set()) or attr.startswith(
        FORBIDDEN_PREFIXES.get(module, ("\0",))
    )


def _starts(tree: ast.AST) -> list[ast.Call]:
    """Every call that starts a process, however the module was imported."""
    aliases: dict[str, str] = {}  # local name -> "module.attr" or "module"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            dotted = f"{aliases.get(func.value.id, func.value.id)}.{func.attr}"
        elif isinstance(func, ast.Name) and func.id in aliases:
            dotted = aliases[func.id]
        else:
            continue
        module, _, attr = dotted.rpartition(".")
        if (module == "subprocess" and attr in SUBPROCESS_CALLS) or _forbidden(module, attr):
            found.append(node)
    return found


def _problem(call: ast.Call) -> str | None:
    func = ast.unparse(call.func)
    attr = func.rpartition(".")[2]
    if attr not in SUBPROCESS_CALLS:
        return f"{func}: cannot be given a working directory"
    cwd = next((k.value for k in call.keywords if k.arg == "cwd"), None)
    if not (isinstance(cwd, ast.Call) and _name(cwd.func).endswith("working_directory")):
        return f"{func}: no cwd=child.working_directory(...)"
    argv = call.args[0] if call.args else next(k.value for k in call.keywords if k.arg == "args")
    isolated = isinstance(argv, ast.Call) and _name(argv.func).endswith("python_argv")
    if "sys.executable" in ast.unparse(argv) and not isolated:
        return f"{func}: runs Python without child.python_argv (-I)"
    return None


def all_starts() -> list[tuple[str, int, ast.Call]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        found += [(str(path.relative_to(SRC)), c.lineno, c) for c in _starts(tree)]
    return found


def test_every_child_process_in_src_is_isolated_and_started_outside_the_project():
    starts = all_starts()
    # The walk itself works: the known places are among those it found.
    files = {path for path, _, _ in starts}
    assert {"hooks/notify.py", "replay/executors.py", "doctor/probes.py"} <= files
    problems = [f"{path}:{line}: {why}" for path, line, c in starts if (why := _problem(c))]
    assert problems == []


CWD = "cwd=child.working_directory()"


@pytest.mark.parametrize(
    ("source", "bad"),
    [
        ("import subprocess\nsubprocess.run(['x'])", True),
        ("import subprocess as sp\nsp.Popen(['x'], " + CWD + ")", False),
        ("from subprocess import run\nrun([sys.executable, '-m', 'a'], " + CWD + ")", True),
        ("import subprocess\nsubprocess.run(child.python_argv('a'), " + CWD + ")", False),
        ("import os\nos.system('x')", True),
        ("import os\nos.execv('x', [])", True),
        ("import asyncio\nasyncio.create_subprocess_exec('x')", True),
        ("import subprocess\nsubprocess.check_output(['x'], cwd='.')", True),
    ],
)
def test_the_source_walk_tells_an_isolated_start_from_one_that_is_not(source, bad):
    [call] = _starts(ast.parse(source))
    assert (_problem(call) is not None) is bad


def test_the_child_python_is_isolated_and_still_finds_this_arcguard(tmp_path):
    argv = child.python_argv("arcguard", "--version")
    assert argv[:2] == [sys.executable, "-I"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    probe = "import sys, arcguard; print(arcguard.__file__); print(sys.flags.isolated)"
    code = argv[3].replace("runpy.run_module('arcguard',run_name='__main__',alter_sys=True)", "")
    done = subprocess.run(
        [sys.executable, "-I", "-c", code + probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.split() == [arcguard.__file__, "1"]


def test_a_child_never_gets_a_relative_or_missing_working_directory(tmp_path):
    assert child.working_directory(str(tmp_path)) == str(tmp_path)
    assert child.working_directory("relative/dir") == "/"
    assert child.working_directory(str(tmp_path / "absent")) == "/"
    assert child.working_directory() == "/"
