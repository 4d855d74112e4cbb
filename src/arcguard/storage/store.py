"""Per-session state files: tolerant reads, locked read-modify-write, atomic replacement."""

from __future__ import annotations

import _thread
import os
import stat

from arcguard import jsonio
from arcguard.core import schema
from arcguard.errors import ArcguardError
from arcguard.storage import atomic
from arcguard.storage import error_log
from arcguard.storage import paths


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence
    from queue import SimpleQueue
    from typing import TypeVar

    from arcguard.core.state import State

    T = TypeVar("T")

# A real state file is a few tens of KB. With the default settings no input can make one
# larger than `schema.STATE_BUDGET`; larger settings (more operations tracked, longer cycle
# histories) allow more, and this is the limit for any: a state that would pass it is
# written without its history (`state.essentials`), so that the arc is never lost to a size.
MAX_STATE_BYTES = 8 * 1024 * 1024
# A file over that limit (an earlier version kept whole tool inputs) is still read this far,
# once, for its arc; it is then rewritten without its history. Anything larger is set aside.
SALVAGE_BYTES = 16 * 1024 * 1024


class Unreadable(ArcguardError, ValueError):
    """The state file exists but cannot be used (corrupt, wrong schema, not a regular file)."""


def read_state(path: str) -> State | None:
    """The state at `path`, None when there is none. Raises Unreadable for a bad file.

    Lock-free: files are only ever replaced whole, so a reader sees one version or the other.
    Symlinks are not followed. A file over the size limit is read as its essentials (see
    `MAX_STATE_BYTES`).
    """
    return _read(path)[0]


def _read(path: str) -> tuple[State | None, int]:
    """(the state at `path` or None, the file's size when it was over the limit, else 0)"""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, 0
    except OSError as exc:
        raise Unreadable(f"cannot open: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file")
        if info.st_size > SALVAGE_BYTES:
            raise Unreadable(f"{info.st_size} bytes is too large")
        data = _read_all(fd, SALVAGE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        document = jsonio.loads(data)
    except jsonio.JSONError as exc:
        raise Unreadable(f"not JSON: {exc}") from None
    if len(data) > MAX_STATE_BYTES:
        return _salvaged(document), len(data)
    if not schema.is_state(document):
        wrong = schema.problem(document)
        raise Unreadable(f"not an arcguard state document of schema {schema.SCHEMA}: {wrong}")
    return document, 0


def _read_all(fd: int, limit: int) -> bytes:
    chunks, left = [], limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 22))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _salvaged(document: object) -> State:
    """An over-limit document's essentials (its arc, caps, pause, pending wait)."""
    from arcguard.core.state import essentials

    sid = document.get("session_id") if isinstance(document, dict) else None
    if not isinstance(document, dict) or document.get("schema") != schema.SCHEMA:
        raise Unreadable("too large, and not an arcguard state document")
    if not isinstance(sid, str):
        raise Unreadable("too large, and names no session")
    return essentials(document, sid, 0.0)


def _encoded(home: str, path: str, new: State, now: float) -> bytes:
    """The state as written; one over the size limit loses its history, never its arc."""
    data = jsonio.dumps(new).encode("ascii")
    if len(data) <= MAX_STATE_BYTES:
        return data
    from arcguard.core.state import essentials

    kept = essentials(dict(new), schema.StateFile.view(new).session_id, now)
    kept["updated"] = now
    error_log.log_line(
        home,
        "store",
        f"{path}: {len(data)} bytes is over the {MAX_STATE_BYTES}-byte limit;"
        " written without its history (tracks, log, events), its arc and caps kept",
        now=now,
    )
    return jsonio.dumps(kept).encode("ascii")


def read_session(home: str, session_id: str) -> State | None:
    """The session's state, lock-free; None when it is missing or unusable (never raises)."""
    try:
        return read_state(paths.session_path(home, session_id)) or _read_legacy(home, session_id)
    except (Unreadable, OSError):
        return None


def _read_legacy(home: str, session_id: str) -> State | None:
    """The state an earlier version kept under the session's old file name, if it is this
    session's: old names could be shared by two ids, so the id inside must match exactly."""
    legacy = paths.legacy_session_path(home, session_id)
    if legacy is None:
        return None
    try:
        state = read_state(legacy)
    except Unreadable:
        return None
    return state if state is not None and state.get("session_id") == session_id else None


# `arcguard off` names at most this many sessions; the file is never read past this size.
MAX_SWITCHED = 1000
SWITCH_BYTES = 512 * 1024


def read_switch(home: str) -> tuple[bool, list[str], list[str]]:
    """(off for every session, sessions switched off, sessions switched back on while every
    session is off). Raises Unreadable for a file that is there but cannot be used."""
    data = _switch_bytes(paths.switch_path(home))
    if data is None:
        return False, [], []
    try:
        document = jsonio.loads(data)
    except jsonio.JSONError as exc:
        raise Unreadable(f"not JSON: {exc}") from None
    if isinstance(document, dict):
        every, off, on = document.get("every"), _names(document, "off"), _names(document, "on")
        if isinstance(every, bool) and off is not None and on is not None:
            return every, off, on
    raise Unreadable('not {"every": true|false, "off": [ids], "on": [ids]}')


def _names(document: dict[str, object], key: str) -> list[str] | None:
    value = document.get(key)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def _switch_bytes(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unreadable(f"cannot open: {exc.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("not a regular file")
        data = _read_all(fd, SWITCH_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > SWITCH_BYTES:
        raise Unreadable(f"over {SWITCH_BYTES} bytes")
    return data


def switched_off(home: str, session_id: object) -> bool:
    """Whether `arcguard off` holds this session's decisions back. The usual answer costs one
    failed open (no file while everything is on). A file that is there but unusable means off:
    only `arcguard off` writes it, and a hook fails open, with no decision; `doctor` names it."""
    try:
        every, off, on = read_switch(home)
    except (Unreadable, OSError):
        return True
    return off_for(session_id, every, off, on)


def off_for(session_id: object, every: bool, off: Sequence[str], on: Sequence[str]) -> bool:
    """The switch's one rule: a session switched back on is on; else every session or the
    ones named are off."""
    if session_id in on:
        return False
    return every or session_id in off


def _exists(path: str | None) -> bool:
    return path is not None and os.path.lexists(path)


def quarantine(home: str, path: str, why: str, *, now: float) -> str | None:
    """Move a bad state file aside as `<file>.corrupt-<timestamp>` and log it."""
    target = f"{path}.corrupt-{int(now)}"
    try:
        os.replace(path, target)
    except OSError as exc:
        error_log.log_line(home, "store", f"cannot quarantine {path}: {exc}", now=now)
        return None
    error_log.log_line(home, "store", f"quarantined {path} -> {target}: {why}", now=now)
    return target


def update(
    home: str,
    session_id: str,
    change: Callable[[State | None], tuple[State | None, T]],
    *,
    now: float,
    lock_timeout: float,
) -> T:
    """Apply `change` to the session's state under its lock and save what it returns.

    `change` gets the current state (None when there is none or it was unusable, in which case
    the bad file has been quarantined) and returns (new state or None for "no write", result).
    """
    path = paths.session_path(home, session_id)
    # Only looked for when needed: the old names' checksum costs the hook path an import.
    legacy = None if _exists(path) else paths.legacy_session_path(home, session_id)
    if not _exists(path) and not _exists(legacy):
        # Nothing stored yet: a change that stores nothing needs no lock. Taking one anyway
        # would leave a `.lock` file behind for every id anyone ever asked about.
        new, result = change(None)
        if new is None:
            return result
    paths.ensure_sessions_dir(home)
    with atomic.locked(path, lock_timeout):
        atomic.remove_orphan_temps(path)
        oversized = 0
        current = _take_written(path)  # what this process wrote, while the file is that
        try:
            if current is None:
                current, oversized = _read(path)
        except Unreadable as exc:
            quarantine(home, path, str(exc), now=now)
            current = None
        if oversized:
            error_log.log_line(
                home,
                "store",
                f"{path}: {oversized} bytes is over the {MAX_STATE_BYTES}-byte limit;"
                " read without its history (tracks, log, events), its arc and caps kept",
                now=now,
            )
        migrated = current is None and not _exists(path) and _exists(legacy)
        if migrated:
            current = _read_legacy(home, session_id)
        new, result = change(current)
        if new is None and oversized:
            new = current  # rewritten small: the history (and the raw inputs in it) goes
        if new is not None:
            new["updated"] = now
            # Not synced to disk: a hook writes on every tool call, where a sync costs each
            # call milliseconds, and a power loss then costs at most the last updates (a file
            # left unreadable is moved aside and the session starts afresh, as for any
            # corrupt state). Readers and killed writers still only ever see a whole file.
            data = _encoded(home, path, new, now)
            atomic.atomic_write(path, data, durable=False)
            _put_written(path, data)
            if migrated and current is not None and legacy is not None:
                _retire(home, legacy, now=now)
        return result


def _retire(home: str, legacy: str, *, now: float) -> None:
    """Remove a state file (and its lock) whose content now lives under its new name."""
    for name in (legacy, legacy + ".lock"):
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass
        except OSError as exc:
            error_log.log_line(home, "store", f"cannot remove {name}: {exc}", now=now)


# --- what a long-lived process wrote last ---------------------------------------------------
#
# The resident server and an SDK application answer every hook of their sessions, so the state
# a request reads is nearly always the one the previous request wrote. Reading it back costs
# a file read and a check of the whole document against the schema. A process that opts in
# (`keep_written`) keeps the bytes it wrote instead, and uses them while the file is still the
# one it wrote: the same inode (held open, so that its number cannot go to another file
# meanwhile), size, modification and change times, looked at under the session's lock, where
# the read would be. They are parsed as the file would be (so the state is exactly what a read
# gives, a new object each time) but not checked again: this process made them from a checked
# state. Anything else (another process wrote the file: a command hook, `arc complete`, a verb;
# it was moved aside, deleted, edited in place) is a miss, and the file is read and checked as
# usual. A command hook makes one request per process: it never opts in.
#
# Such a process also closes, on a thread of its own, the descriptor of each file its write
# replaced: the last close of a replaced file is where the file system frees it, which waits
# for its own earlier write-out to finish (most of what replacing a state file costs on a busy
# disk, up to milliseconds), and nothing the request answers depends on it.

Identity = tuple[int, int, int, int, int]
# path -> (a descriptor open on the file written, its identity then, the bytes written);
# oldest first (dicts keep their order).
_written: dict[str, tuple[int, Identity, bytes]] = {}
_written_guard = _thread.allocate_lock()
_kept = [0]
KEEP_SESSIONS = 64
# Descriptors to close off the request's path, once a process keeps (see above).
_closing: list[SimpleQueue[int]] = []


def keep_written(limit: int = KEEP_SESSIONS) -> None:
    """From now on keep the state last written for up to `limit` sessions (0: none)."""
    _kept[0] = limit
    if limit and not _closing:
        from queue import SimpleQueue

        _closing.append(SimpleQueue())
        _thread.start_new_thread(_close_each, (_closing[0],))
    _trim_written()


def _close_each(queue: SimpleQueue[int]) -> None:
    while True:
        fd = queue.get()
        try:
            os.close(fd)
        except OSError:
            pass


def _close_later(fd: int) -> None:
    if _closing:
        _closing[0].put(fd)
    else:
        os.close(fd)


def _identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _take_written(path: str) -> State | None:
    """What this process last wrote to `path`, if the file there is still exactly that write;
    else None (and the entry goes). Called holding the file's lock."""
    entry = _written.get(path) if _written else None
    if entry is None:
        return None
    try:
        if _identity(os.lstat(path)) == entry[1]:
            state = jsonio.loads(entry[2])
            return state if isinstance(state, dict) else None
    except (OSError, jsonio.JSONError):
        pass
    _forget_written(path)
    return None


def _forget_written(path: str) -> None:
    with _written_guard:
        entry = _written.pop(path, None)
    if entry is not None:
        _close_later(entry[0])


def _put_written(path: str, data: bytes) -> None:
    """Remember `data` as just written to `path` (holding its lock), if this process keeps."""
    if not _kept[0]:
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return
    try:
        identity = _identity(os.fstat(fd))
    except OSError:
        os.close(fd)
        return
    with _written_guard:
        old = _written.pop(path, None)
        _written[path] = (fd, identity, data)
    if old is not None:
        _close_later(old[0])
    _trim_written()


def _trim_written() -> None:
    with _written_guard:
        gone = [_written.pop(next(iter(_written))) for _ in range(len(_written) - _kept[0])]
    for fd, _, _ in gone:
        _close_later(fd)


def list_sessions(home: str) -> list[tuple[str, float]]:
    """(path, mtime) of every session state file, newest first."""
    directory = paths.sessions_dir(home)
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found = []
    for name in names:
        if not name.endswith(".json"):
            continue
        full = os.path.join(directory, name)
        try:
            found.append((full, os.lstat(full).st_mtime))
        except OSError:
            continue
    found.sort(key=lambda item: item[1], reverse=True)
    return found
