"""The one way arcguard opens a file it was pointed at: a regular file, never waiting, bounded.

Transcripts (named on the command line, found in a folder, or named in a hook payload), the
config file and Claude Code's settings files are all written by someone else. A FIFO blocks
an ordinary `open()` until a writer comes, and git stores symlinks, so a cloned folder of
transcripts can hold a link to `/dev/zero`, which never ends. So a file is first looked at
without being opened (a device is never opened at all), then opened non-blocking, and only
a regular file (after symlinks) is read, up to a bound when the caller gives one. A refusal
is one `Refused` with a short reason, for the caller to count, skip or report once.
"""

from __future__ import annotations

import os
import stat

from arcguard.errors import ArcguardError


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

MISSING = "does not exist"
NOT_REGULAR = "not a regular file"
TOO_LARGE = "too large"
UNREADABLE = "unreadable"
# O_NONBLOCK makes opening a FIFO return at once (a read-only open would wait for a writer);
# it changes nothing for a regular file. O_NOCTTY: a terminal device never becomes ours.
FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


class Refused(ArcguardError, OSError):
    """`path` is not read: `reason` is one of the constants above, `detail` says more, and
    `errno` is the system's error number when the system refused. An exception keeps its
    `__init__`: the base constructor sets the message and `args` that tracebacks show."""

    def __init__(self, path: str, reason: str, detail: str = "", code: int | None = None) -> None:
        super().__init__(f"{path}: {reason}" + (f" ({detail})" if detail else ""))
        self.path = path
        self.reason = reason
        self.detail = detail
        self.errno = code


def check(info: os.stat_result, path: str, limit: int | None) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise Refused(path, NOT_REGULAR, _kind(info.st_mode))
    if limit is not None and info.st_size > limit:
        raise Refused(path, TOO_LARGE, f"over {limit} bytes")


def look(path: str, limit: int | None = None) -> os.stat_result:
    """The file's status, symlinks followed, without opening it; Refused if it is not one to
    read. For listing a folder: the open (`open_fd`) checks again."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise Refused(path, MISSING) from None
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None
    check(info, path, limit)
    return info


def open_fd(path: str, limit: int | None = None) -> tuple[int, int]:
    """(a descriptor open on the regular file at `path`, its size); Refused otherwise."""
    look(path, limit)  # a device is refused before any open
    try:
        fd = os.open(path, FLAGS)
    except FileNotFoundError:
        raise Refused(path, MISSING) from None
    except (OSError, ValueError) as exc:
        raise _unreadable(path, exc) from None
    try:
        info = os.fstat(fd)  # what was opened, whatever replaced the name since `look`
        check(info, path, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def open_stream(path: str, buffering: int = -1) -> BinaryIO:
    """A binary file object on the regular file at `path`, to read as a stream."""
    fd, _ = open_fd(path)
    return os.fdopen(fd, "rb", buffering=buffering)


def read_bytes(path: str, limit: int) -> bytes:
    """The whole regular file at `path`, at most `limit` bytes; Refused otherwise."""
    fd, _ = open_fd(path, limit)
    try:
        data = os.read(fd, limit + 1)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew since it was looked at
        raise Refused(path, TOO_LARGE, f"over {limit} bytes")
    return data


def _unreadable(path: str, exc: BaseException) -> Refused:
    if isinstance(exc, OSError):
        return Refused(path, UNREADABLE, exc.strerror or str(exc), exc.errno)
    return Refused(path, UNREADABLE, str(exc))  # a NUL byte in the name


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
