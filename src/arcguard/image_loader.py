"""Serve arcguard's modules from the code image of the hook path (`hook_image` makes it).

This module's own code travels inside the image: the hook launcher reads the image's start,
and once the file is this user's alone and was made by this Python, runs that code and calls
`serve`. `serve` decides, once and before any module comes from the image, whether the image
can be trusted (its owner, its folder's, its size, the package it was made for); if so it puts
an `Image` finder first on `sys.meta_path`, else it does nothing and every module is imported
as usual. The finder reads a module's code from the file only when it is imported (a hook
imports a third of them), and only while that module's source is as it was when the image was
made: a changed one is imported from its source, so every module a hook runs is the installed
code. `arcguard doctor` asks whether the whole image is current (`problem`). It imports nothing
beyond what the interpreter has already loaded.
"""

from __future__ import annotations

import marshal
import os
import sys
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import MAGIC_NUMBER


TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import CodeType
    from types import ModuleType

TAG = b"arcguard code image 1\n"
# The file starts with HEAD; then the loader's code, the table, and the modules' code, the
# first two each after its length in 4 bytes (little-endian).
HEAD = TAG + MAGIC_NUMBER
# What the launcher reads first: the loader's code (which must be whole in it) and the table,
# four times their size now; a table past it is read further (`_head`).
READ_FIRST = 32768

# One row of the table: the source file, whether it is a package, its identity when the image
# was made (size, mtime_ns, inode), and where its code lies after the table.
Row = tuple[str, bool, int, int, int, int, int]
Table = dict[str, Row]


def chunk(data: bytes | memoryview, start: int) -> tuple[memoryview, int]:
    """The part of `data` whose length the 4 bytes at `start` give, and where it ends."""
    begin = start + 4
    end = begin + int.from_bytes(data[start:begin], "little")
    if end > len(data):
        raise ValueError("cut short")
    return memoryview(data)[begin:end], end


def problem(path: str, data: bytes, location: str) -> str | None:
    """Why the image `data` read from `path` must not serve the package in folder `location`,
    or None when it may."""
    found = check(path, data, location)
    return found if isinstance(found, str) else None


def check(path: str, data: bytes, location: str) -> tuple[int, Table] | str:
    """Where the modules' code starts in the whole image `data` and the table of the modules,
    or why the image must not be used."""
    found = _trusted(path, data, location, len(data))
    if isinstance(found, str):
        return found
    try:
        return _changed(found[1]) or found
    except (ValueError, TypeError):  # a row of another shape
        return "not an image arcguard can read"


def _trusted(path: str, head: bytes, location: str, size: int) -> tuple[int, Table] | str:
    """Where the modules' code starts and the table of the modules, from the image's first
    bytes `head` (as far as the table's end at least) and the file's `size`; or why the image
    must not be used. Its sources are not looked at."""
    try:
        found = [os.stat(path), os.stat(os.path.dirname(path))]
    except OSError as exc:
        return f"not readable ({exc.strerror})"
    if any(s.st_uid != os.getuid() or s.st_mode & 0o22 for s in found):
        return "it or its folder is not this user's alone"
    if not head.startswith(HEAD):
        return "not an image this Python can read"
    try:
        view, start = chunk(head, chunk(head, len(HEAD))[1])
        where, length, table = marshal.loads(view)
        if not (isinstance(where, str) and isinstance(length, int) and isinstance(table, dict)):
            raise TypeError("not a table")
    except (EOFError, ValueError, TypeError):
        return "not an image arcguard can read"
    if where != location:
        return f"made for the package in {where}"
    if size != start + length:
        return "cut short or padded"
    return start, table


def _changed(table: Table) -> str | None:
    for source, _, size, mtime, inode, _, _ in table.values():
        try:
            now = os.stat(source)
        except OSError:
            return f"{source} is gone"
        if (now.st_size, now.st_mtime_ns, now.st_ino) != (size, mtime, inode):
            return f"{source} changed since it was made"
    return None


class Image:
    """A meta-path finder and loader for the modules of a trusted image (`serve` fills it in:
    it is not a value class, whose module this one may not import)."""

    arcguard_image = ""  # the image file it serves
    table: Table = {}  # noqa: RUF012 (never changed: `serve` gives each finder its own)
    fd = -1  # the open image file, and where the modules' code starts in it
    start = 0
    code = memoryview(b"")  # or the modules' code, from a launcher that read the whole image

    def _code(self, row: Row) -> bytes | memoryview:
        if self.fd < 0:
            return self.code[row[5] : row[6]]
        return os.pread(self.fd, row[6] - row[5], self.start + row[5])

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        row = self.table.get(name)
        if row is None:
            return None
        try:
            now = os.stat(row[0])
            if (now.st_size, now.st_mtime_ns, now.st_ino) != row[2:5]:
                return None  # changed since the image was made: imported from its source
            code = marshal.loads(self._code(row))
        except (OSError, EOFError, ValueError, TypeError, IndexError):
            return None  # unreadable, or a row of another shape: imported as usual
        if type(code) is not type(_changed.__code__):
            return None
        # A loader by its methods: deriving from importlib.abc.Loader would import that module.
        # No `has_location`: the import system would then work out a `__cached__` path for
        # every module, a bytecode file the image stands in for; `exec_module` sets `__file__`.
        spec = ModuleSpec(name, self, origin=row[0], is_package=row[1])  # type: ignore[arg-type]
        spec.loader_state = code
        if row[1]:
            spec.submodule_search_locations = [os.path.dirname(row[0])]
        return spec

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        spec: ModuleSpec = module.__spec__  # type: ignore[assignment]
        code: CodeType = spec.loader_state
        module.__file__ = spec.origin
        exec(code, module.__dict__)


def serve(path: str, data: bytes, location: str, fd: int | None = None) -> None:
    """Serve the modules of the package in `location` from the image at `path` if it can be
    trusted; otherwise leave the import system as it is. `data` is the image's start, read from
    the open file `fd`, which the finder reads each module's code from; launchers of earlier
    releases give no `fd` and the whole image as `data`."""
    try:
        found = (
            _trusted(path, data, location, len(data))
            if fd is None
            else _trusted(path, _head(fd, data), location, os.fstat(fd).st_size)
        )
    except (OSError, ValueError):
        found = "not readable"
    if isinstance(found, str):
        if fd is not None:
            os.close(fd)
        return
    image = Image()
    image.arcguard_image, (image.start, image.table) = path, found
    if fd is None:
        image.code = memoryview(data)[image.start :]
    else:
        image.fd = fd
    sys.meta_path.insert(0, image)


def _head(fd: int, data: bytes) -> bytes:
    """The image's first bytes as far as the end of its table: `data`, or the whole file
    where the loader or the table goes on past it."""
    try:
        chunk(data, chunk(data, len(HEAD))[1])
    except ValueError:  # cut short
        return os.pread(fd, os.fstat(fd).st_size, 0)
    return data
