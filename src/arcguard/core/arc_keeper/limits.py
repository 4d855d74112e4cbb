"""Resuming an arc after an API limit: which errors pass with time, when to resume, and caps.

A turn that ends on a rate limit leaves an autonomous session idle until someone comes back.
Claude Code runs StopFailure hooks on such an ending, and a background handler that exits 2
wakes the session (`asyncRewake`). These rules decide whether to wait, for how long, and
whether the wake is still wanted when the wait is over. The waiting itself is a shell
(`arcguard.hooks.limit_wait`); here there is no clock, no process and no file.

Where the resume time comes from, first match wins:
1. the error text, when it names the reset (`reset_text.parse_reset`);
2. a reset time recorded from Claude Code's status line payload (`record_resets`);
3. a bounded backoff that doubles with each resume already spent on the arc.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper.reset_text import WallTime
from arcguard.core.schema import MAX_WINDOWS
from arcguard.core.schema import LimitWait
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import is_paused
from arcguard.core.state import parse_iso
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.schema import Arc
    from arcguard.core.state import State

# StopFailure `error` values that pass with time. Authentication, billing, an invalid request,
# a missing model or too many output tokens stay as they are however long one waits.
TRANSIENT = frozenset({"rate_limit", "overloaded", "server_error"})
# First backoff when no reset time is known: usage windows are long, an overload is brief.
BACKOFF_SECONDS = {"rate_limit": 300, "overloaded": 60, "server_error": 60}
# Slack after a named reset time: an exact epoch needs little; a clock time shown to the
# minute may stand for any second of that minute. Waking early costs a resume for nothing.
MARGIN_EXACT = 2.0
MARGIN_MINUTE = 60.0
# How long after its planned end a wait whose process is gone still counts as held.
STALE_AFTER = 120.0


def margin(reset: float | WallTime) -> float:
    return MARGIN_MINUTE if isinstance(reset, WallTime) else MARGIN_EXACT


# --- the wait ------------------------------------------------------------------------------


@value
class Plan:
    """A wait this process holds: resume at `until` unless `token` is gone by then."""

    token: str
    until: float
    attempt: int
    source: str


@value
class Claimant:
    """A process asking to hold the session's wait: its token and pid, and whether the
    waiter of a wait already recorded (if any) is alive."""

    token: str
    pid: int
    other_alive: bool = False


def resumes(arc: Arc | None) -> int:
    return arc.limit_resumes if arc is not None else 0


def pending(state: State | None) -> LimitWait | None:
    """The wait recorded in the state, if any (whatever became of its process)."""
    wait = StateFile.view(state).limit_wait if state is not None else None
    # A wait without a token cannot be told apart from another: it is nobody's.
    return wait if wait is not None and wait.has("token") else None


def waiting(wait: LimitWait, now: float, *, alive: bool) -> bool:
    """A recorded wait is still under way, as `status` and the status line report it: its
    waiter runs and its time has not come. A waiter that was killed, or a time that has
    passed, leaves a record that no longer means the session is waiting."""
    until = wait.until
    return alive and until is not None and now < until


def held_until(state: State | None, cfg: Config, now: float) -> float | None:
    """When the wait pending for the state's arc wakes it, or None: the time up to which that
    wait keeps the arc from going stale (`arc.is_stale`).

    Only a wait begun for this very arc holds it, and never longer than a wait may be
    (`limit_wait_max_seconds` from its start, the bound `decide_wait` applies), so a record
    whose waiter died, or a hand-edited one, cannot keep an arc alive for longer than that.
    """
    wait = pending(state)
    arc = StateFile.view(state).arc if state is not None else None
    if wait is None or arc is None or wait.arc != arc.invoked_at:
        return None
    until = wait.until
    if until is None:
        return None
    started = min(wait.started if wait.started is not None else now, now)
    return min(float(until), started + cfg.limit_wait_max_seconds)


def arc_active(state: State | None, cfg: Config, now: float) -> bool:
    """The state's arc is active, a wait pending for it keeping it so until its wake."""
    if state is None:
        return False
    arc = StateFile.view(state).arc
    return arcs.is_active(arc, cfg, now, held_until=held_until(state, cfg, now))


def holds(wait: LimitWait, now: float, *, alive: bool) -> bool:
    """A recorded wait still belongs to a live waiter (a crashed one does not block another)."""
    until = wait.until
    return alive and until is not None and now < until + STALE_AFTER


def decide_wait(
    state: State | None,
    error: str,
    reset_at: float | None,
    cfg: Config,
    now: float,
    claimant: Claimant,
) -> tuple[Plan | None, str, State | None]:
    """Whether `claimant` waits for this API error: (plan or None, why, new state or None)."""
    if error not in TRANSIENT:
        return None, f"the error {error[:40]!r} does not pass with time", None
    if state is None or not arc_active(state, cfg, now):
        return None, "no active arc", None
    if is_paused(state):
        return None, "the session is paused", None
    held = pending(state)
    if held is not None and holds(held, now, alive=claimant.other_alive):
        return None, "another wait is already pending for this session", None
    state = clone(state)
    # A wait whose waiter is gone ended without a wake: that is news, like any such ending.
    drop(state, now, "its waiter is gone")
    record = StateFile.view(state)
    arc = record.arc
    assert arc is not None  # is_active above
    used = resumes(arc)
    if used >= cfg.limit_resumes_per_arc:
        why = f"{used} of {cfg.limit_resumes_per_arc} limit resumes spent on this arc"
        return None, why, _give_up(state, now, why)
    until, source = _resume_time(state, error, reset_at, used, cfg, now)
    if until - now > cfg.limit_wait_max_seconds:
        why = (
            f"the limit resets in {until - now:.0f}s, longer than limit_wait_max_seconds"
            f" ({cfg.limit_wait_max_seconds})"
        )
        return None, why, _give_up(state, now, why)
    record.limit_wait = LimitWait(
        token=claimant.token,
        pid=claimant.pid,
        started=now,
        until=until,
        error=error[:40],
        source=source,
        arc=arc.invoked_at,
        attempt=used + 1,
    )
    add_log(
        state,
        LogEntry(
            t=now,
            hook="limit-wait",
            kind="limit-wait",
            reason=f"{error} ends the turn; resume at {until:.0f} ({source})",
            attempt=used + 1,
            of=cfg.limit_resumes_per_arc,
        ),
    )
    return Plan(claimant.token, until, used + 1, source), "waiting", state


def resumes_spent(state: State | None, error: str, cfg: Config, now: float) -> bool:
    """An error `decide_wait` would have waited for, were the arc's resumes not all spent.

    The waiter runs in the background, where Claude Code emits no terminal sequence; the
    synchronous StopFailure hook uses this to ring the bell for it.
    """
    if error not in TRANSIENT or state is None or is_paused(state):
        return False
    used = resumes(StateFile.view(state).arc)
    return arc_active(state, cfg, now) and used >= cfg.limit_resumes_per_arc


def _resume_time(
    state: State, error: str, reset_at: float | None, used: int, cfg: Config, now: float
) -> tuple[float, str]:
    if reset_at is not None:
        # A named reset already past means the limit is over: resume at once.
        return max(reset_at, now + MARGIN_EXACT), "error text"
    recorded = recorded_reset(state, now)
    if error == "rate_limit" and recorded is not None:
        return recorded + MARGIN_EXACT, "status line"
    return now + backoff_seconds(error, used, cfg), "backoff"


def backoff_seconds(error: str, used: int, cfg: Config) -> float:
    """The wait when no reset time is known: doubled for each resume the arc already spent."""
    return float(
        min(BACKOFF_SECONDS.get(error, 60) * 2 ** min(used, 10), cfg.limit_wait_max_seconds)
    )


def _give_up(state: State, now: float, why: str) -> State:
    add_log(
        state,
        LogEntry(
            t=now,
            hook="limit-wait",
            kind="give-up",
            reason=f"no resume after the API limit: {why}",
        ),
    )
    return state


def still_pending(state: State | None, token: str) -> bool:
    """The wait `token` has not been cancelled or taken over (a lock-free poll)."""
    wait = pending(state)
    return wait is not None and wait.token == token


def decide_wake(
    state: State | None, token: str, cfg: Config, now: float
) -> tuple[str | None, State | None]:
    """At the end of a wait: the wake message (None: stay asleep) and the new state."""
    wait = pending(state)
    if state is None or wait is None or wait.token != token:
        return None, None  # cancelled or taken over: the state is someone else's now
    why = _why_not_wake(state, wait, cfg, now)
    state = clone(state)
    record = StateFile.view(state)
    del record.limit_wait
    arc = record.arc
    if why is not None:
        add_log(
            state,
            LogEntry(
                t=now,
                hook="limit-wait",
                kind="limit-cancel",
                reason=f"limit wait ended without a resume: {why}",
            ),
        )
        return None, state
    assert arc is not None
    attempt = arc.limit_resumes = resumes(arc) + 1
    arcs.touch(arc, now)
    add_log(
        state,
        LogEntry(
            t=now,
            hook="limit-wait",
            kind="limit-resume",
            reason="the API limit has reset; the session is woken",
            attempt=attempt,
            of=cfg.limit_resumes_per_arc,
        ),
    )
    return wake_message(
        arcs.name_of(arc),
        arcs.next_milestone(arc),
        attempt,
        cfg.limit_resumes_per_arc,
    ), state


def _why_not_wake(state: State, wait: LimitWait, cfg: Config, now: float) -> str | None:
    """Why the wait `wait`, still recorded in `state`, must not wake the session (or None)."""
    arc = StateFile.view(state).arc
    if not arc_active(state, cfg, now):
        return "the arc is no longer active"
    assert arc is not None
    if arc.invoked_at != wait.arc:
        return "a new arc was started"
    if resumes(arc) >= cfg.limit_resumes_per_arc:
        return f"the arc's {cfg.limit_resumes_per_arc} limit resumes are spent"
    if is_paused(state):
        return "the session is paused"
    return None


def wake_message(slug: str, next_milestone: str, attempt: int, cap: int) -> str:
    nxt = f" Next milestone: {next_milestone}." if next_milestone else ""
    return (
        f"[arcguard] The API limit that ended the last turn has reset (resume {attempt}/{cap})."
        f" Carry on with the autonomous arc '{slug}' where you left off.{nxt}"
    )


def cancel(state: State | None, now: float, why: str) -> tuple[bool, State | None]:
    """Drop a pending wait (its waiter sees the token gone and exits without waking)."""
    if state is None or pending(state) is None:
        return False, None
    state = clone(state)
    drop(state, now, why)
    return True, state


def drop(state: State, now: float, why: str) -> None:
    """`cancel` on a state the caller already owns (a clone)."""
    record = StateFile.view(state)
    if record.has("limit_wait"):
        del record.limit_wait
        add_log(
            state,
            LogEntry(
                t=now,
                hook="limit-wait",
                kind="limit-cancel",
                reason=f"limit wait cancelled: {why}",
            ),
        )


# --- reset times from the status line ------------------------------------------------------


def record_resets(state: State, found: dict[str, float]) -> bool:
    """Keep a status line payload's reset times (`reset_times`); True if they changed."""
    record = StateFile.view(state)
    if not found or record.rate_limits == found:
        return False
    record.rate_limits = found
    return True


def reset_times(rate_limits: object) -> dict[str, float]:
    """`rate_limits.<window>.resets_at` of a status line payload, as seconds by window."""
    if not isinstance(rate_limits, dict):
        return {}
    found: dict[str, float] = {}
    for window, info in rate_limits.items():
        value = info.get("resets_at") if isinstance(info, dict) else None
        at = _reset_seconds(value)
        if isinstance(window, str) and at is not None and len(found) < MAX_WINDOWS:
            found[window[:32]] = at
    return found


def _reset_seconds(value: object) -> float | None:
    """Epoch seconds (or milliseconds), or an ISO 8601 UTC time, as seconds; else None."""
    if isinstance(value, str):
        return parse_iso(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) / (1000.0 if value > 1e12 else 1.0)
    return None


def recorded_reset(state: State | None, now: float) -> float | None:
    """The soonest recorded window reset still ahead, or None."""
    windows = StateFile.view(state).rate_limits if state is not None else {}
    ahead = [v for v in windows.values() if v > now]
    return min(ahead) if ahead else None
