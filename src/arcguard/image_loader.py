"""Serve arcguard's modules from the code image of the hook path (`hook_image` makes it).

This module's own code travels inside the image: the hook launcher reads the image, and once
the file is this user's alone and was made by this Python, runs that code and calls `serve`.
`serve` decides, once and before any module comes from the image, whether the image can be
trusted (`check`); if so it puts an `Image` finder first on `sys.meta_path`, else it does
nothing and every module is imported as usual. `arcguard doctor` asks the same question
(`problem`). It imports nothing beyond what the interpreter has already loaded.
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
    """Where the modules' code starts in `data` and the table of the modules, or why the
    image must not be used."""
    try:
        found = [os.stat(path), os.stat(os.path.dirname(path))]
    except OSError as exc:
        return f"not readable ({exc.strerror})"
    if any(s.st_uid != os.getuid() or s.st_mode & 0o22 for s in found):
        return "it or its folder is not this user's alone"
    if not data.startswith(HEAD):
        return "not an image this Python can read"
    try:
        view, start = chunk(data, chunk(data, len(HEAD))[1])
        where, size, table = marshal.loads(view)
        if not (isinstance(where, str) and isinstance(size, int) and isinstance(table, dict)):
            raise TypeError("not a table")
    except (EOFError, ValueError, TypeError):
        return "not an image arcguard can read"
    if where != location:
        return f"made for the package in {where}"
    if len(data) != start + size:
        return "cut short or padded"
    try:
        return _changed(table) or (start, table)
    except (ValueError, TypeError):  # a row of another shape
        return "not an image arcguard can read"


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

    arcguard_image = ""  # the image file; also how `hook_image.in_use` knows a finder of ours
    code = memoryview(b"")  # the modules' code, each at the offsets its table row gives
    table: Table = {}  # noqa: RUF012 (never changed: `serve` gives each finder its own)

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        row = self.table.get(name)
        if row is None:
            return None
        try:
            code = marshal.loads(self.code[row[5] : row[6]])
        except (EOFError, ValueError, TypeError):
            return None  # imported as usual, from its source, which has not changed
        if type(code) is not type(_changed.__code__):
            return None
        # A loader by its methods: deriving from importlib.abc.Loader would import that module.
        spec = ModuleSpec(name, self, origin=row[0], is_package=row[1])  # type: ignore[arg-type]
        spec.has_location = True
        spec.loader_state = code
        if row[1]:
            spec.submodule_search_locations = [os.path.dirname(row[0])]
        return spec

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        code: CodeType = module.__spec__.loader_state  # type: ignore[union-attr]
        exec(code, module.__dict__)


def serve(path: str, data: bytes, location: str) -> None:
    """Serve the modules of the package in `location` from the image `data` (read from
    `path`) if it can be trusted; otherwise leave the import system as it is."""
    found = check(path, data, location)
    if not isinstance(found, str):
        image = Image()
        image.arcguard_image, image.code, image.table = path, memoryview(data)[found[0] :], found[1]
        sys.meta_path.insert(0, image)
