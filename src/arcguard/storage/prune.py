"""Removing session state files past their retention age (the rule is `core.arc_keeper.retention`).

Run at SessionStart, not on every tool call: a session starts rarely, and one look at the
directory then is enough. The work is bounded (a time budget and a number of files per run,
the rest left for the next start), each state file is judged and removed under its own lock
(taken without waiting: a busy session is in use, so it stays), and the current session's
files are never touched. A temporary copy a killed writer left is removed by its age and
whether its writer still runs (`retention.orphan_temp`), whatever its session's age.
"""

from __future__ import annotations

import os
import stat
import time

from arcguard.core.arc_keeper import retention
from arcguard.storage import atomic
from arcguard.storage import error_log
from arcguard.storage import paths
from arcguard.storage import store


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config

MAX_REMOVED = 100
LOCK_WAIT_S = 0.02
CORRUPT = ".json.corrupt-"
LOCK = ".json.lock"


def prune_sessions(home: str, cfg: Config, now: float, *, current: str, budget_s: float) -> int:
    """Remove expired files of sessions other than `current`; returns how many went."""
    directory = paths.sessions_dir(home)
    try:
        names = os.listdir(directory)
    except OSError:
        return 0
    spared = {paths.session_path(home, current), paths.legacy_session_path(home, current)}
    deadline = time.monotonic() + budget_s
    removed = 0
    for name in names:
        if removed >= MAX_REMOVED or time.monotonic() > deadline:
            break
        path = os.path.join(directory, name)
        if any(keep is not None and path.startswith(keep) for keep in spared):
            continue
        writer = atomic.temp_writer(name)
        if writer is not None:
            removed += _remove_orphan_temp(home, path, writer, now)
        elif _expired(path, cfg, now) and _remove(home, path, cfg, now):
            removed += 1
    return removed


def _remove_orphan_temp(home: str, path: str, writer: int, now: float) -> int:
    """Remove a temp file its writer will never rename (see `retention.orphan_temp`): 1 if
    it went. No lock is taken: a live writer's temp file is young, and is left alone."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            return 0
        if not retention.orphan_temp(info.st_mtime, now, writer_running=_running(writer)):
            return 0
        os.unlink(path)
    except FileNotFoundError:
        return 0  # renamed or removed by its writer meanwhile
    except OSError as exc:
        error_log.log_line(home, "prune", f"cannot remove {path}: {exc}", now=now)
        return 0
    return 1


def _running(pid: int) -> bool:
    """`pid` is a live process (of any user)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OverflowError:
        return False  # no process has such a pid
    except OSError:
        return True  # exists, owned by someone else
    return True


def _expired(path: str, cfg: Config, now: float) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and retention.expired(info.st_mtime, cfg, now)


def _remove(home: str, path: str, cfg: Config, now: float) -> bool:
    name = os.path.basename(path)
    try:
        if name.endswith(".json"):
            return _remove_state(path, cfg, now)
        if CORRUPT in name:
            os.unlink(path)  # a file set aside: nothing reads it, and it may hold old inputs
            return True
        if name.endswith(LOCK) and not os.path.lexists(path[: -len(".lock")]):
            return _remove_state(path[: -len(".lock")], cfg, now)
    except atomic.LockTimeout:
        return False
    except OSError as exc:
        error_log.log_line(home, "prune", f"cannot remove {path}: {exc}", now=now)
    return False


def _remove_state(path: str, cfg: Config, now: float) -> bool:
    """Judge and remove one session's state file and its lock, under that lock."""
    with atomic.locked(path, LOCK_WAIT_S):
        if os.path.lexists(path):
            if not _expired(path, cfg, now):
                return False  # written meanwhile
            try:
                state = store.read_state(path)
            except store.Unreadable:
                state = None
            if retention.must_keep(state, cfg, now):
                return False
            os.unlink(path)
        # The session has been idle for the whole retention age: nothing waits on its lock.
        _unlink_quietly(path + ".lock")
    return True


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
