"""Atomic writes and the sidecar lock: the only places that create files in the state dir.

The lock is `fcntl.flock` on `<file>.lock`, taken the same way by every writer (hooks, verbs,
the resident server). flock is held by an open file, so two threads of one process exclude
each other as two processes do, and the kernel drops it when its holder dies. It is also the
protocol of `filelock.FileLock` on POSIX, so another tool locking the file that way is
excluded too.
"""

from __future__ import annotations

import os
import time

from arcguard.errors import ArcguardError
from arcguard.values import value


FILE_MODE = 0o600
TEMP_MARK = ".tmp-"


class LockTimeout(ArcguardError, OSError):
    """The sidecar lock could not be had within its bound."""


@value
class _FlockLock:
    """Context manager holding an exclusive flock on a sidecar file."""

    path: str
    timeout: float
    fd: int = -1  # open while the lock is held

    def __enter__(self) -> _FlockLock:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        self.fd = os.open(self.path, flags, FILE_MODE)
        try:
            self._wait(time.monotonic() + self.timeout)
        except BaseException:
            # Also an exception raised into the thread while it waits or right after it got
            # the lock (the resident server abandons a request that way): the lock goes too.
            self.__exit__()
            raise
        return self

    def _wait(self, deadline: float) -> None:
        import fcntl

        delay = 0.002
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(f"lock {self.path} busy for {self.timeout:.2f}s") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = -1


def locked(path: str, timeout: float) -> _FlockLock:
    """Exclusive lock on `path + ".lock"`, waiting at most `timeout` seconds: the one lock of
    hooks, verbs and the resident server alike."""
    return _FlockLock(path + ".lock", timeout)


def atomic_write(path: str, data: bytes, *, mode: int = FILE_MODE, durable: bool = True) -> None:
    """Write `data` to `path` so that readers see the old or the new file, never a mix.

    Temp file in the same directory, `os.replace`; when `durable`, the file is synced before
    the rename and the directory after it, so the new version survives a power loss. A
    symlink at `path` is replaced, never followed. The file gets `mode` exactly (the umask
    aside).
    """
    directory = os.path.dirname(path) or "."
    tmp = f"{path}{TEMP_MARK}{os.getpid()}-{time.monotonic_ns()}"
    fd = os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE
    )
    try:
        try:
            if mode != FILE_MODE:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise
    if durable:
        _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _is_temp_of(name: str, prefix: str) -> bool:
    """`name` is exactly `<prefix><pid>-<ns>` as `atomic_write` names its temp files.

    A looser match (any name that starts with the prefix) would also take other files, such
    as the state file of a session whose id begins like this file's temp files.
    """
    pid, _, ns = name[len(prefix) :].partition("-") if name.startswith(prefix) else ("", "", "")
    return pid.isascii() and pid.isdigit() and ns.isascii() and ns.isdigit()


def temp_writer(name: str) -> int | None:
    """The pid in the name of a state file's temp file (`<name>.json.tmp-<pid>-<n>`, as
    `atomic_write` names it), or None when `name` is any other file."""
    stem, mark, _ = name.rpartition(TEMP_MARK)
    if not mark or not stem.endswith(".json") or not _is_temp_of(name, stem + TEMP_MARK):
        return None
    return int(name[len(stem) + len(TEMP_MARK) :].partition("-")[0])


def remove_orphan_temps(path: str) -> int:
    """Delete temp files of `path` left by writers that were killed mid-write.

    Call it while holding `path`'s lock: every writer writes under that lock, so any temp file
    of `path` seen then belongs to a writer that is gone. Returns how many were removed.
    """
    directory, stem = os.path.split(path)
    prefix = stem + TEMP_MARK
    removed = 0
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return 0
    for name in names:
        if _is_temp_of(name, prefix):
            try:
                os.unlink(os.path.join(directory, name))
                removed += 1
            except OSError:
                continue
    return removed
