"""Removing session state files past their retention age (the rule is `core.arc_keeper.retention`).

Run at SessionStart, not on every tool call: a session starts rarely, and one look at the
directory then is enough. The work is bounded (a time budget and a number of files per run,
the rest left for the next start), each state file is judged and removed under its own lock
(taken without waiting: a busy session is in use, so it stays), and the current session's
files are never touched.
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
        if _expired(path, cfg, now) and _remove(home, path, cfg, now):
            removed += 1
    return removed


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
