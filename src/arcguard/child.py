"""How arcguard starts a child process: Python isolated, always from a directory of its own.

Claude Code runs hooks from the project's directory, and `replay` or `demo` may be run from
inside a repository under inspection. `python -m ...` puts the working directory first on
`sys.path`, so an `arcguard/` package (or a `sitecustomize.py`) shipped by that repository
would be imported instead of ours, and run as the user. So every Python child starts with
`-I` (no working directory or script folder on `sys.path`, no `PYTHON*` variables, no user
site) and imports arcguard from the folder this process imported it from; and every child,
Python or not, is given an explicit working directory outside the project. A test walks the
source for every place a process is started and checks that it goes through here.
"""

from __future__ import annotations

import os
import sys

import arcguard


# -I implies -E (ignore PYTHON* variables), -P (no unsafe path first on sys.path) and -s (no
# user site). The environment itself still reaches the child's own children unchanged.
ISOLATION = ("-I",)


def package_folder() -> str:
    """The folder holding the `arcguard` package this process runs."""
    return os.path.dirname(os.path.dirname(os.path.abspath(arcguard.__file__)))


def python_argv(module: str, *args: str) -> list[str]:
    """The argv that runs `python -m module args...` with this interpreter, isolated.

    The package folder is appended after the interpreter's own paths, where `site` puts it,
    so a user-site or source install that `-I` would hide is still found.
    """
    code = (
        f"import sys,runpy;d={package_folder()!r};d in sys.path or sys.path.append(d);"
        f"runpy.run_module({module!r},run_name='__main__',alter_sys=True)"
    )
    return [sys.executable, *ISOLATION, "-c", code, *args]


def working_directory(preferred: str | None = None) -> str:
    """A working directory for a child: `preferred` when it is an absolute, existing folder
    (arcguard's own state or scratch directory), else the file system's root."""
    if preferred and os.path.isabs(preferred) and os.path.isdir(preferred):
        return preferred
    return os.sep
