"""The code image of the hook path: every arcguard module a hook can import, compiled, in one
file beside the hook launcher (`hook.img` in the state directory).

A hook is a fresh process, and most of its time past the interpreter's own start is spent
finding, reading and unmarshalling arcguard's modules one file at a time. The launcher
(`launch_forms.launcher_text`) reads this one file instead: once the file is this user's alone
and was made by this Python, it runs the loader the image carries (`image_loader`), which
serves each module from the image when it is imported. The loader uses the image only when it
can trust it, and decides that once, before any module comes from it:

- the file and its folder belong to this user and nobody else can write them (as the stub
  checks the launcher itself);
- it was made by this Python (its bytecode magic) for this package folder;
- every source file it was compiled from still has the size, mtime and inode it had then (an
  upgrade or an edited checkout changes them; the version lives in `arcguard/__init__.py`, one
  of those files);
- it is whole (the length its table records).

Otherwise the launcher imports as usual. A module whose code does not unmarshal is imported
from its (unchanged) source; a module the image does not hold is imported as usual.

Docstrings are left out (no hook reads one); asserts and line numbers stay, and each module's
code names its source file, so a traceback reads as usual. The modules held are those that
`arcguard.main` and the hook modules can import, found by following every import statement
inside the package (those under `if TYPE_CHECKING:` excepted). Not on the hook path itself:
install writes the image, and a hook only re-makes a stale one at session start.
"""

from __future__ import annotations

import marshal
import os
import sys

from arcguard.errors import ArcguardError


TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

IMAGE_NAME = "hook.img"
LAUNCHER_NAME = "hook.py"  # the launcher file it sits beside (`launch_forms`)
# Where a hook starts: the entry point and the hook modules it dispatches to by name.
ENTRIES = ("arcguard.main", "arcguard.hooks.runner")
# The verbs: `arcguard.main` imports them only outside a hook run, and they load click.
OFF_PATH = "arcguard.commands"


class ImageError(ArcguardError, OSError):
    """The image could not be made or written."""


def package_location() -> str:
    """The folder that holds the running `arcguard` package."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def hook_modules(location: str) -> dict[str, str]:
    """Module name -> source file for every arcguard module a hook run can import."""
    from arcguard.hooks import HOOKS

    found: dict[str, str] = {}
    todo = [*ENTRIES, *HOOKS.values()]
    while todo:
        name = todo.pop()
        if name in found or name == OFF_PATH or name.startswith(OFF_PATH + "."):
            continue
        source = _source_of(location, name)
        if source is None:
            continue
        found[name] = source
        parent = name.rpartition(".")[0]
        todo.extend([parent] if parent else [])
        is_package = source.endswith("__init__.py")
        todo.extend(_imported(_parse(source), name if is_package else parent))
    return found


def _source_of(location: str, name: str) -> str | None:
    base = os.path.join(location, *name.split("."))
    for path in (os.path.join(base, "__init__.py"), base + ".py"):
        if os.path.isfile(path):
            return path
    return None


def _parse(source: str) -> ast.Module:
    import ast

    with open(source, encoding="utf-8") as fh:
        return ast.parse(fh.read(), source)


def _imported(tree: ast.Module, package: str) -> list[str]:
    """The arcguard module names the statements of `tree` import, anywhere but under
    `if TYPE_CHECKING:`; `from a import b` names both `a` and `a.b` (b may be a module)."""
    import ast

    names: list[str] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            names.append(base)
            names.extend(f"{base}.{alias.name}" for alias in node.names)
        todo.extend(ast.iter_child_nodes(node))
    return [n for n in names if n == "arcguard" or n.startswith("arcguard.")]


def _is_type_checking(test: ast.expr) -> bool:
    import ast

    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def compiled(source: str) -> bytes:
    """The marshalled code of one module, its docstrings left out."""
    import ast

    tree = _parse(source)
    flags = _future_flags(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            first = body[0] if body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                # A body cannot be empty: a lone docstring becomes `pass` on its line.
                body[0:1] = [] if len(body) > 1 else [ast.copy_location(ast.Pass(), first)]
    code = compile(ast.fix_missing_locations(tree), source, "exec", flags, dont_inherit=True)
    return marshal.dumps(code)


def _future_flags(tree: ast.Module) -> int:
    """Take the module's `from __future__ import ...` statements out, and return the compiler
    flags they stand for: compiled with those, the code is the same, and running it no longer
    imports the `__future__` module (every hook did, for the one line each module starts with)."""
    import __future__

    import ast

    flags = 0
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            for alias in node.names:
                flags |= getattr(__future__, alias.name).compiler_flag
        else:
            kept.append(node)
    tree.body = kept or [ast.Pass()]
    return flags


def image_bytes(location: str) -> bytes:
    """The whole image file for the package in folder `location`."""
    from arcguard import image_loader

    table: image_loader.Table = {}
    blobs: list[bytes] = []
    offset = 0
    for name, source in sorted(hook_modules(location).items()):
        identity = os.stat(source)
        blob = compiled(source)
        is_package = source.endswith("__init__.py")
        size, mtime, inode = identity.st_size, identity.st_mtime_ns, identity.st_ino
        table[name] = (source, is_package, size, mtime, inode, offset, offset + len(blob))
        blobs.append(blob)
        offset += len(blob)
    loader = compiled(image_loader.__file__)
    header = marshal.dumps((location, offset, table))
    return b"".join(
        [image_loader.HEAD, _sized(loader), _sized(header), *blobs],
    )


def _sized(blob: bytes) -> bytes:
    return len(blob).to_bytes(4, "little") + blob


def write(path: str, location: str | None = None) -> None:
    """Make the image of the package in `location` (this one by default) and put it at `path`
    atomically, readable and writable by this user alone."""
    import tempfile

    try:
        data = image_bytes(location or package_location())
        fd, scratch = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".img-", suffix=".tmp")
    except (OSError, SyntaxError, ValueError) as exc:
        raise ImageError(f"cannot make the hook image: {exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(scratch, 0o600)
        os.replace(scratch, path)
    except OSError as exc:
        try:
            os.unlink(scratch)
        except OSError:
            pass
        raise ImageError(f"cannot write the hook image: {exc}") from None


def stale(path: str, location: str | None = None) -> str | None:
    """Why the launcher would not use the image at `path` for the package in `location` (this
    one by default), or None when it would."""
    from arcguard import image_loader

    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return f"not readable ({exc.strerror})"
    return image_loader.problem(path, data, location or package_location())


def renew(home: str) -> None:
    """At session start (once per session): when the launcher in `home` has an image that is
    not current (a module changed since: the hooks import that one from its source), a process
    of its own makes a new one; the hook does not wait for it. Raises OSError if that process
    cannot be started."""
    launcher = os.path.join(home, LAUNCHER_NAME)
    if not os.path.isfile(launcher) or stale(os.path.join(home, IMAGE_NAME)) is None:
        return
    import subprocess

    from arcguard import child

    subprocess.Popen(
        child.python_argv("arcguard.hook_image", home, package_location()),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=child.working_directory(home),
        close_fds=True,
        start_new_session=True,  # outlives the hook and the session's process group
    )


def remake(home: str, location: str) -> None:
    """Make the image in `home` anew, if the launcher there runs the package in `location`
    with it (another install's launcher is left to that install) and it is not current."""
    import json

    image = os.path.join(home, IMAGE_NAME)
    with open(os.path.join(home, LAUNCHER_NAME), encoding="utf-8") as fh:
        text = fh.read()
    if f"d = {json.dumps(location)}\n" not in text or f"i = {json.dumps(image)}\n" not in text:
        return
    if stale(image, location) is not None:
        write(image, location)


if __name__ == "__main__":  # the process `renew` starts
    remake(*sys.argv[1:3])
