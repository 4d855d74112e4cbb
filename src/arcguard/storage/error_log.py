"""The error log: one line per failure, size-bounded, never raising."""

from __future__ import annotations

import os
import stat
import sys
import time

from arcguard.storage import paths


MAX_LOG_BYTES = 512 * 1024


def log_line(home: str, where: str, message: str, *, now: float | None = None) -> None:
    """Append one line to `arcguard.log`; rotate it to `.1` past MAX_LOG_BYTES. Never raises."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))
    from arcguard.core.words.redact import mask

    # A message may quote input (an exception naming a value): obvious secrets never land here.
    text = mask(" ".join(message[:8000].split()))[:2000]
    line = f"{stamp} {where} {text}\n".encode("utf-8", "backslashreplace")
    path = paths.error_log(home)
    try:
        paths.ensure_dir(home)
        try:
            if os.lstat(path).st_size > MAX_LOG_BYTES:
                os.replace(path, path + ".1")
        except FileNotFoundError:
            pass
        fd = _open_log(path)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        # The state dir is refused (symlink, writable by others) or unwritable: stderr is the
        # last place left (on exit 0 Claude Code keeps a hook's stderr in its debug log).
        try:
            sys.stderr.write(f"arcguard: {where} {text} (log unavailable: {exc})\n")
            sys.stderr.flush()
        except (AttributeError, OSError, ValueError):
            pass  # no stderr (closed, full or None): the hook still fails open


def _open_log(path: str) -> int:
    """Open the log for appending, only if it is a regular file, without ever waiting.

    O_NONBLOCK: a FIFO planted at the log path would otherwise hold the open (and the hook)
    until a reader comes; with it the open fails or succeeds at once, and the type check
    turns anything but a regular file away.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    fd = os.open(path, flags, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path} is not a regular file")
    return fd
