"""StopFailure, in the background: wait for an API limit to reset, then wake the session.

Wired as a second StopFailure handler with `async` and `asyncRewake`: Claude Code does not
wait for it, and its exit 2 wakes the session with its stderr as the message. That makes this
the one arcguard hook that may exit 2, and only after `limits.decide_wake` said so under
the state lock; every other outcome, an error included, is exit 0 and wakes nothing.

One waiter per session: the wait is recorded in the state with a token and this process's
pid. A second StopFailure while it is alive starts no other; a waiter that crashed stops
counting once its pid is gone. The waiter polls the state (lock-free) so that
`arcguard arc cancel-wait` or an operator prompt ends it at once, and it gives up when the
Claude Code process that started it is gone.
"""

from __future__ import annotations

import os
import sys
import time

from arcguard import jsonio
from arcguard.core import render
from arcguard.core.arc_keeper import handover
from arcguard.core.arc_keeper import limits
from arcguard.core.arc_keeper import reset_text
from arcguard.errors import ArcguardError
from arcguard.hooks import notify
from arcguard.hooks.runner import MAX_PAYLOAD
from arcguard.hooks.runner import path_of
from arcguard.hooks.runner import session_id
from arcguard.hooks.runner import text_of
from arcguard.storage import error_log
from arcguard.storage import paths
from arcguard.storage import store
from arcguard.transcript import hook_reader


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import tzinfo
    from typing import Protocol
    from typing import TypeVar

    from arcguard.core.notify import NotifyEvent
    from arcguard.core.render import Decisions
    from arcguard.core.render import Output
    from arcguard.core.state import State
    from arcguard.hooks.payloads import LimitPayload
    from arcguard.hooks.runner import Context
    from arcguard.jsonio import JSONObject

    T = TypeVar("T")

    class Budget(Protocol):
        """What `run` needs of the watchdog: a new wall budget once the wait's length is known."""

        def set_budget(self, budget: float) -> None: ...

    Claim = tuple[limits.Plan | None, Decisions | None]

NAME = "limit-wait"
# How often the waiter looks for a cancellation: a prompt typed while it waits must not be
# answered by a wake a minute later.
POLL_SECONDS = 1.0
# Headroom over the longest wait before the watchdog ends the process with no decision.
WATCHDOG_SLACK = 120.0
# Bound on reading the payload and claiming the wait, a lock wait included; the wait itself
# gets its own budget once its length is known.
CLAIM_BUDGET = 10.0


def read(payload: JSONObject) -> LimitPayload | None:
    sid = session_id(payload)
    if sid is None:
        return None
    return {
        "session_id": sid,
        "error": text_of(payload, "error"),
        "last_assistant_message": text_of(payload, "last_assistant_message"),
        "transcript_path": path_of(payload, "transcript_path"),
    }


def handle(payload: JSONObject, ctx: Context) -> Output | None:
    """Claim the wait (the synchronous part; the waiting is `main`'s). Never a decision: at most
    the terminal sequence of a give-up, which `main` does not print (see there)."""
    given = read(payload)
    return None if given is None else render.output(claim(given, ctx)[1], "StopFailure")


def claim(given: LimitPayload, ctx: Context) -> Claim:
    """(the wait this process now holds or None, output telling the user it gave up or None)"""
    sid, error, text = given["session_id"], given["error"], given["last_assistant_message"]
    if error is None or error not in limits.TRANSIENT:
        return None, None
    reset = resolve(reset_text.parse_reset(text), ctx.now) if text is not None else None
    token = f"{os.getpid()}-{ctx.now:.6f}"

    later: list[NotifyEvent] = []

    def change(state: State | None) -> tuple[State | None, Claim]:
        held = limits.pending(state)
        alive = held is not None and waiter_alive(held.pid)
        claimant = limits.Claimant(token, os.getpid(), other_alive=alive)
        plan, _, new = limits.decide_wait(state, error, reset, ctx.cfg, ctx.now, claimant)
        # A give-up is news: the session stays idle until someone looks.
        output, events = notify.news(ctx.home, ctx.cfg, state, new, None)
        later.extend(events)
        return new, (plan, output)

    return _update(ctx, sid, change, later)


def _update(
    ctx: Context,
    sid: str,
    change: Callable[[State | None], tuple[State | None, T]],
    later: list[NotifyEvent] | None = None,
) -> T:
    """`change` under the session's lock; then `notify_command` hears of the events the change
    put in `later`, once they are saved."""
    result = store.update(
        ctx.home, sid, change, now=time.time(), lock_timeout=ctx.cfg.lock_timeout_ms / 1000.0
    )
    notify.tell(ctx.home, ctx.cfg, later or [])
    return result


def resolve(reset: float | reset_text.WallTime | None, now: float) -> float | None:
    """Seconds since the epoch for a parsed reset time, plus its margin; None if unusable."""
    if reset is None:
        return None
    if not isinstance(reset, reset_text.WallTime):
        return reset + limits.margin(reset)
    at = _wall_epoch(reset, now)
    return None if at is None else at + limits.margin(reset)


def _wall_epoch(wall: reset_text.WallTime, now: float) -> float | None:
    """The wall time in its zone (the user's own when none is named), the next such moment
    when the text gave no date; None for a moment the calendar cannot hold (a day that does
    not exist, a year past 9999, a `now` outside the calendar)."""
    import datetime

    zone = _zone(wall.zone)
    if wall.zone and zone is None:
        return None
    try:
        current = datetime.datetime.fromtimestamp(now, zone or None).astimezone(zone)
        at = current.replace(
            year=wall.year or current.year,
            month=wall.month or current.month,
            day=wall.day or current.day,
            hour=wall.hour,
            minute=wall.minute,
            second=0,
            microsecond=0,
        )
        if wall.month is None and at.timestamp() < now - limits.MARGIN_MINUTE:
            at += datetime.timedelta(days=1)  # "2pm" said at 3pm means tomorrow's
        elif wall.month is not None and wall.year is None and at.timestamp() < now - 86400:
            at = at.replace(year=at.year + 1)  # "Jan 2" said on Dec 30
        return at.timestamp()
    except (ValueError, OverflowError, OSError):
        # Hostile text or a transcript's timestamp can name either; no reset time then.
        return None


def _zone(name: str | None) -> tzinfo | None:
    if not name:
        return None
    if name.upper() in ("UTC", "GMT", "Z"):
        import datetime

        return datetime.UTC
    try:
        import zoneinfo

        return zoneinfo.ZoneInfo(name)
    except (ValueError, OSError, ImportError, KeyError):
        return None  # an unknown zone name: ZoneInfoNotFoundError is a KeyError


def pid_alive(pid: object) -> bool:
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def waiter_alive(pid: object) -> bool:
    """`pid` is a live limit waiter. Where /proc tells, a process that is not one (the waiter
    crashed and its pid went to another program) does not hold the session's wait."""
    if not pid_alive(pid):
        return False
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return NAME.encode() in handle.read(4096)
    except OSError:
        return True  # no /proc, or not ours to read: the pid alone has to do


# How wait() ended without its time running out.
GONE = "the Claude Code process is gone"
TAKEN = "cancelled or taken over"  # whoever did it already logged it
SWITCHED_OFF = "arcguard was switched off (arcguard off)"
# How long the waiter looks for Claude Code's own resume being armed: the transcript entry is
# written as the limit ends the turn, and flushed within a moment.
ARMED_SETTLE_S = 5.0
# Claude Code's resume markers are recent entries: a short tail is enough.
MARK_TAIL_BYTES = 256 * 1024


def wait(
    plan: limits.Plan, sid: str, ctx: Context, parent: int, watching: str | None = None
) -> str | None:
    """Sleep until the plan's time: None then; else why it ended early (`GONE`, `TAKEN`, or,
    while `watching` the transcript at that path for Claude Code's own resume, why that makes
    a wake unwanted)."""
    while True:
        left = plan.until - time.time()
        if left <= 0:
            return None
        time.sleep(min(POLL_SECONDS, left))
        if os.getppid() != parent:
            return GONE  # nobody is left to wake
        if not limits.still_pending(ctx.snapshot(sid), plan.token):
            return TAKEN
        if store.switched_off(ctx.home, sid):
            return SWITCHED_OFF
        if watching is not None:
            why = handover.why_not_wake(hook_reader.resume_mark(watching, MARK_TAIL_BYTES))
            if why is not None:
                return why


def armed(path: str, until: float) -> bool:
    """Claude Code armed its own resume for this limit (its transcript says so), looked for
    while its entry may still be unflushed, never past the planned wake."""
    deadline = min(time.time() + ARMED_SETTLE_S, until)
    while True:
        if hook_reader.resume_mark(path, MARK_TAIL_BYTES) == handover.ARMED:
            return True
        if time.time() + POLL_SECONDS > deadline:
            return False
        time.sleep(POLL_SECONDS)


def watch(plan: limits.Plan, sid: str, ctx: Context) -> limits.Plan | None:
    """Turn the wait into a watch on Claude Code's own resume (None: no longer ours)."""

    def change(state: State | None) -> tuple[State | None, float | None]:
        until, new = handover.watch(state, plan.token, time.time())
        return new, until

    until = _update(ctx, sid, change)
    return None if until is None else limits.Plan(plan.token, until, plan.attempt, handover.SOURCE)


def wake(plan: limits.Plan, sid: str, ctx: Context) -> str | None:
    now = time.time()

    later: list[NotifyEvent] = []

    def change(state: State | None) -> tuple[State | None, str | None]:
        message, new = limits.decide_wake(state, plan.token, ctx.cfg, now)
        # A wait refused at its end is news (the terminal sequence is not: Claude Code
        # emits none for a background handler, so only `notify_command` hears of it).
        later.extend(notify.news(ctx.home, ctx.cfg, state, new, None)[1])
        return new, message

    return _update(ctx, sid, change, later)


def abandon(plan: limits.Plan, sid: str, ctx: Context, why: str) -> None:
    later: list[NotifyEvent] = []

    def change(state: State | None) -> tuple[State | None, None]:
        if not limits.still_pending(state, plan.token):
            return None, None
        new = limits.cancel(state, time.time(), why)[1]
        later.extend(notify.news(ctx.home, ctx.cfg, state, new, None)[1])
        return new, None

    _update(ctx, sid, change, later)


class Stopped(ArcguardError):
    """A signal asked the waiter to stop (see `_stop_on_signals`)."""


def _stop_on_signals() -> None:
    """Turn the signals that end a process politely into `Stopped`, so that a waiter ended
    that way still records (and announces) that its wait ended without a wake."""
    import signal

    def stopped(signum: int, _frame: object) -> None:
        raise Stopped(f"signal {signum}")

    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, stopped)


def run(raw: bytes, ctx: Context, watchdog: Budget) -> tuple[str | None, Decisions | None]:
    """(the wake message once the wait is over and still wanted, else None; the output to
    print when there is no wake)"""
    payload = jsonio.loads(raw)
    given = read(payload) if isinstance(payload, dict) else None
    if given is None or store.switched_off(ctx.home, given["session_id"]):
        return None, None
    parent = os.getppid()
    plan, output = claim(given, ctx)
    if plan is None:
        return None, output
    sid = given["session_id"]
    # Only a usage limit arms Claude Code's own resume (a claude.ai login; an API key never).
    watching = given["transcript_path"] if given["error"] == "rate_limit" else None
    watchdog.set_budget(
        max(0.0, handover.watch_until(plan.until) - time.time())
        + ARMED_SETTLE_S
        + WATCHDOG_SLACK
        + CLAIM_BUDGET
    )
    try:
        if watching is not None and armed(watching, plan.until):
            watched = watch(plan, sid, ctx)
            if watched is None:
                return None, None
            plan = watched
        else:
            watching = None
        ended = wait(plan, sid, ctx, parent, watching)
        if ended is None and watching is not None:
            ended = handover.why_not_wake(hook_reader.resume_mark(watching, MARK_TAIL_BYTES))
        if ended is not None:
            if ended != TAKEN:
                abandon(plan, sid, ctx, ended)
            return None, None
        return wake(plan, sid, ctx), None
    except BaseException as exc:
        # Stopped by a signal, or failed: the wait still ends without a wake, and says so.
        why = str(exc) if isinstance(exc, Stopped) else type(exc).__name__
        abandon(plan, sid, ctx, f"the waiter was stopped ({why})")
        raise


def main(argv0: str | None = None) -> int:
    from arcguard.hooks.runner import Context
    from arcguard.hooks.runner import _Watchdog
    from arcguard.hooks.runner import own_command

    environ = os.environ
    home = paths.state_dir(environ)
    watchdog = _Watchdog.begin(CLAIM_BUDGET, home, NAME)
    message = None
    try:
        from arcguard.storage.config_file import load_config

        cfg, _ = load_config(environ)
        ctx = Context.begin(
            NAME, home, cfg, time.time(), own_command(argv0 or sys.argv[0], sys.executable), environ
        )
        raw = sys.stdin.buffer.read(MAX_PAYLOAD + 1)
        _stop_on_signals()
        if len(raw) <= MAX_PAYLOAD:
            # No output is printed: Claude Code emits no terminal sequence for a background
            # handler, so the synchronous `stop-failure` hook rings for a give-up instead.
            message, _ = run(raw, ctx, watchdog)
    except jsonio.JSONError:
        message = None
    except Exception as exc:
        error_log.log_line(home, f"hook {NAME}", f"{type(exc).__name__}: {exc}")
        message = None
    if not watchdog.commit():
        time.sleep(60)  # the watchdog is ending the process; wake nothing
    if not message:
        return 0
    try:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        return 0
    return 2
