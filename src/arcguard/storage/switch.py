"""`arcguard off` and `arcguard on`: the switch file in the state directory, written.

The hooks only read it (`store.switched_off`), as one open that fails while everything is on:
the file exists only while something is switched off, so the usual hook run pays nothing more.
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.storage import atomic
from arcguard.storage import paths
from arcguard.storage import store
from arcguard.values import value


@value
class Switch:
    """Off for every session (`every`), else for the sessions in `off`; the sessions in `on`
    were switched back on one by one while every session was off."""

    every: bool = False
    off: tuple[str, ...] = ()
    on: tuple[str, ...] = ()

    def is_off(self, session_id: str) -> bool:
        return store.off_for(session_id, self.every, self.off, self.on)


def read(home: str) -> Switch:
    """The switch as written; raises store.Unreadable for a file that cannot be used."""
    every, off, on = store.read_switch(home)
    return Switch(every, tuple(off), tuple(on))


def turned(current: Switch, session_id: str | None, *, off: bool) -> Switch:
    """The switch after `arcguard off` (`off`) or `arcguard on`, for one session or (None)
    every one. Switching every session clears what was said of single ones."""
    if session_id is None:
        return Switch(every=off)
    rest_off = tuple(s for s in current.off if s != session_id)
    rest_on = tuple(s for s in current.on if s != session_id)
    if current.every:  # a name matters only as an exception to "every session is off"
        return Switch(True, (), rest_on if off else _bounded((*rest_on, session_id)))
    return Switch(False, _bounded((*rest_off, session_id)) if off else rest_off, ())


def _bounded(names: tuple[str, ...]) -> tuple[str, ...]:
    """The newest names, at most the number a hook reads."""
    return names[-store.MAX_SWITCHED :]


def write(home: str, session_id: str | None, *, off: bool) -> Switch:
    """Turn the switch under its lock and save it; no file at all once everything is on. An
    unusable file is replaced by what was asked for."""
    path = paths.switch_path(home)
    paths.ensure_dir(home)
    with atomic.locked(path, 10.0):
        try:
            current = read(home)
        except store.Unreadable:
            current = Switch()
        new = turned(current, session_id, off=off)
        if new == Switch():
            _remove(path)
        else:
            document = {"every": new.every, "off": list(new.off), "on": list(new.on)}
            atomic.atomic_write(path, jsonio.dumps(document).encode("ascii"))
    return new


def _remove(path: str) -> None:
    import os

    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def announce(turned: Switch, session_id: str | None) -> str:
    """What `off` and `on` print: how things stand for what was switched."""
    if session_id is None:
        if turned.every:
            return "arcguard is off for every session; `arcguard on` turns it back on"
        return "arcguard is on for every session"
    if turned.is_off(session_id):
        return f"arcguard is off for session {session_id}; `arcguard on --session` turns it back on"
    rest = " (every other session stays off)" if turned.every else ""
    return f"arcguard is on for session {session_id}{rest}"
