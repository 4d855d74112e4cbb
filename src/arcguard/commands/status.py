"""`arcguard status`: what arcguard knows about recent sessions (arcs, loop guard, decisions).

Reads state files without the lock: writers replace them whole (`os.replace`), so a read sees
one complete version even while hooks are writing.

JSON schema (`--json`, `"schema": 1`; keys are only ever added):
    {"schema": 1, "state_dir": str, "sessions": [SESSION, ...]}       newest first
    SESSION = {"session_id": str | null, "file": str, "updated": float | null (epoch seconds),
               "updated_iso": str | null, "error": str | null (the file cannot be read),
               "project": str | null (the folder the session first reported),
               "arc": null | {"slug": str, "name": str (its task, else its slug),
                              "state": "active" | "stale" | "complete" | "stopped" | "inactive",
                              "milestones_done": int, "milestones_total": int,
                              "next_milestone": str, "consecutive": int, "lifetime": int,
                              "task": str (typed after /autonomous; "" when none),
                              "consecutive_cap": int, "lifetime_cap": int},
               "guard": {"paused": null | {"kind": str, "reason": str, "at": float},
                         "denials": int, "blocked_rounds": int,
                         "last_pause": null | {"rule": str, "reason": str, "t": float}},
               "limit_wait": null | {"until": float, "until_iso": str, "error": str,
                                     "attempt": int, "of": int, "waiter_alive": bool,
                                     "waiting": bool (alive and its time not come),
                                     "watching": bool (a watch on Claude Code's own resume,
                                                       not a wait of arcguard's)},
               "switched_off": bool (`arcguard off` holds its decisions back)}
    The listing also has "switch": {"every": bool, "off": [id, ...], "on": [id, ...],
    "error": str | null}: what `arcguard off` switched off (every session, or those in "off";
    those in "on" were switched back on one by one; an unreadable file means every session).
    With --session ID: {"schema": 1, "state_dir": str, "session": SESSION + {"log": [DECISION, ...],
    "events": {...}}} where DECISION = {"t": float, "hook": str, "kind": str, "reason": str, ...}
    as the hooks wrote it (oldest first, at most the last 50).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from arcguard.commands.common import config
from arcguard.commands.common import home
from arcguard.commands.common import json_option
from arcguard.commands.common import now
from arcguard.commands.status_summary import summarise
from arcguard.commands.status_summary import unreadable
from arcguard.core.schema import StateFile
from arcguard.storage import paths
from arcguard.storage import store


if TYPE_CHECKING:
    from arcguard.commands.status_summary import ReadSummary
    from arcguard.commands.status_summary import SessionSummary
    from arcguard.core.config import Config
    from arcguard.core.state import State
    from arcguard.storage.switch import Switch

SCHEMA = 1


# --- reading -------------------------------------------------------------------------------


def read_summary(
    state: State, path: str, cfg: Config, at: float, *, switched_off: bool = False
) -> ReadSummary:
    """The summary of a state as read, with whether its limit waiter still runs."""
    from arcguard.core.arc_keeper import limits
    from arcguard.hooks.limit_wait import waiter_alive

    wait = limits.pending(state)
    alive = wait is not None and waiter_alive(wait.pid)
    return summarise(state, path, cfg, at, waiter_alive=alive, switched_off=switched_off)


def read_switch(state_dir: str) -> tuple[Switch, str | None]:
    """What `arcguard off` switched off, and why the switch file cannot be read (then every
    session is off: that is how the hooks read it)."""
    from arcguard.storage import switch

    try:
        return switch.read(state_dir), None
    except (store.Unreadable, OSError) as exc:
        return switch.Switch(every=True), str(exc)


def collect(state_dir: str, cfg: Config, at: float, limit: int) -> list[SessionSummary]:
    found: list[SessionSummary] = []
    turned, _ = read_switch(state_dir)
    for path, mtime in store.list_sessions(state_dir)[:limit]:
        try:
            state = store.read_state(path)
        except (store.Unreadable, OSError) as exc:
            found.append(unreadable(path, mtime, str(exc)))
            continue
        if state is not None:
            off = turned.is_off(StateFile.view(state).session_id)
            found.append(read_summary(state, path, cfg, at, switched_off=off))
    found.sort(key=lambda s: s["updated"] or 0.0, reverse=True)
    return found


def find_session(state_dir: str, session_id: str) -> tuple[str, State]:
    """The state of `session_id`, or of the one session whose id starts with it."""
    path = paths.session_path(state_dir, session_id)
    state = _read(path)
    if state is not None:
        return path, state
    matches = []
    for candidate, _ in store.list_sessions(state_dir):
        other = _read(candidate)
        if other is not None and StateFile.view(other).session_id.startswith(session_id):
            matches.append((candidate, other))
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise click.ClickException(
            f"{len(matches)} sessions start with {session_id!r}; give more of the id"
        )
    raise click.ClickException(f"no state for session {session_id!r} in {state_dir}")


def _read(path: str) -> State | None:
    try:
        return store.read_state(path)
    except store.Unreadable as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    except OSError:
        return None


# --- the command ---------------------------------------------------------------------------


@click.command()
@json_option
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="Show one session in full, with its recent decisions (an id prefix works).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    help="How many recent sessions to list.",
)
@click.option(
    "--cost",
    "show_cost",
    is_flag=True,
    help="Show what arcguard's hooks cost on this machine instead (median and 95th "
    "percentile per hook and mode).",
)
def status(as_json: bool, session_id: str | None, limit: int, show_cost: bool) -> None:
    """Show arcs and loop-guard state of recent sessions, newest first.

    One line per session: its project folder, its arc (name, state, milestones, continuations
    used/cap in a row and in the arc), the loop guard (denials, worst run of blocked rounds)
    and a pause with its reason. --session shows one session with the decisions made in it.

    \b
    Examples:
      arcguard status
      arcguard status --session 3f2a9c1e
      arcguard status --cost
    """
    if show_cost:
        _show_cost(as_json)
    elif session_id is not None:
        _show_session(session_id, as_json)
    else:
        _show_sessions(limit, as_json)


def _echo_json(document: object) -> None:
    import json

    click.echo(json.dumps(document, indent=2))


def _show_cost(as_json: bool) -> None:
    from arcguard.commands import cost_report
    from arcguard.commands.printable import printable

    state_dir = home()
    found = cost_report.rows(state_dir)
    if as_json:
        _echo_json({"schema": SCHEMA, "state_dir": state_dir, "cost": found})
    else:
        click.echo(printable(cost_report.render(state_dir, found)))


def _show_session(session_id: str, as_json: bool) -> None:
    from arcguard.commands.printable import printable
    from arcguard.commands.status_text import render_session

    state_dir, cfg, at = home(), config(), now()
    path, state = find_session(state_dir, session_id)
    turned, _ = read_switch(state_dir)
    record = StateFile.view(state)
    summary = read_summary(state, path, cfg, at, switched_off=turned.is_off(record.session_id))
    from arcguard.core.words.vocabulary import kind_name

    log = list(record.log)
    if as_json:
        # Entries logged under a name since changed are shown under the current one.
        current = [{**e.data, "kind": kind_name(e.kind)} if e.has("kind") else e.data for e in log]
        document = {**summary, "log": current, "events": record.events.data}
        _echo_json({"schema": SCHEMA, "state_dir": state_dir, "session": document})
    else:
        click.echo(printable(render_session(summary, log)))


def _show_sessions(limit: int, as_json: bool) -> None:
    from arcguard.commands.printable import printable
    from arcguard.commands.status_text import render_table
    from arcguard.commands.status_text import switch_line
    from arcguard.commands.status_text import table_rows
    from arcguard.resident import files

    state_dir = home()
    sessions = collect(state_dir, config(), now(), limit)
    resident = files.describe(state_dir)
    turned, problem = read_switch(state_dir)
    if as_json:
        listing: dict[str, object] = {
            "schema": SCHEMA,
            "state_dir": state_dir,
            "sessions": sessions,
            "switch": {
                "every": turned.every,
                "off": list(turned.off),
                "on": list(turned.on),
                "error": problem,
            },
        }
        if resident is not None:
            listing["resident"] = {"running": resident != files.NOT_RUNNING, "text": resident}
        _echo_json(listing)
        return
    said = switch_line(turned.every, len(turned.off), problem)
    if said:
        click.echo(printable(said))
    if not sessions:
        click.echo(printable(f"no sessions yet in {state_dir}"))
    else:
        rows = table_rows(sessions, os.path.expanduser("~"))
        click.echo(printable(render_table(rows)))
    if resident is not None:
        click.echo(printable(resident))
