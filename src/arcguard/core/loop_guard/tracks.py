"""Loop-guard tracks: the main agent's and each subagent's own record, and the session's pause.

Calls inside a subagent (the payload carries `agent_id`) are tracked on their own track, not
mixed into the parent's sequence; a pause belongs to the whole session.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.loop_guard import opkey
from arcguard.core.schema import REASON_BYTES
from arcguard.core.schema import LogEntry
from arcguard.core.schema import Operation
from arcguard.core.schema import Pause
from arcguard.core.schema import StateFile
from arcguard.core.schema import Track
from arcguard.core.schema import Turn
from arcguard.core.state import add_log
from arcguard.core.state import clip_json
from arcguard.core.state import current_pause
from arcguard.core.state import short_id
from arcguard.core.validation import Keyed


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.names import PauseKind
    from arcguard.core.render import Decisions
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall

MAIN = "main"
PAUSED = "arcguard paused this session. Send a message to resume."
MAX_TRACKS = 8


def track_key(agent_id: str | None) -> str:
    return f"agent:{short_id(agent_id)}" if agent_id else MAIN


def new_track(now: float, *, denials: int = 0) -> Track:
    return Track(
        seq=0,
        ops=Keyed.over(Operation, {}),
        results=[],
        turn=new_turn(),
        blocked_rounds=0,
        fingerprints=[],
        fresh=[],
        streak=0,
        quiet=0,
        checkin_done=False,
        turns=0,
        backstop_nudged_at=None,
        denials=denials,
        updated=now,
    )


def new_turn() -> Turn:
    return Turn(denied=0, progress=False, label="")


def get_track(state: State, key: str, now: float) -> Track:
    guard = StateFile.view(state).guard
    tracks = guard.tracks
    guard.tracks = tracks
    track = tracks.get(key)
    if track is None:
        track = new_track(now)
        tracks[key] = track
        agents = sorted((t.updated, k) for k, t in tracks.pairs() if k != MAIN)
        for _, old in agents[: max(0, len(agents) - MAX_TRACKS)]:
            del tracks[old]
    track.updated = now
    return track


def is_allowed(cfg: Config, call: ToolCall) -> bool:
    """The user exempted this call from the repeat and cycle rules (glob on name or subject).

    A pattern is a glob on the tool name or on its command/path (`pytest *`), or
    `Tool(glob)` for both at once (`Bash(sleep *)`).
    """
    if not cfg.allow:
        return False
    from fnmatch import fnmatchcase

    what = opkey.subject(call)
    for pattern in cfg.allow:
        if pattern.endswith(")") and "(" in pattern:
            name, _, glob = pattern[:-1].partition("(")
            if fnmatchcase(call.name, name) and fnmatchcase(what, glob):
                return True
        elif fnmatchcase(call.name, pattern) or (what and fnmatchcase(what, pattern)):
            return True
    return False


def clear_run(track: Track) -> None:
    track.fingerprints = []
    track.fresh = []
    track.streak = 0
    track.checkin_done = False


def paused_output(state: State, *, deny: bool) -> Decisions | None:
    paused = current_pause(StateFile.view(state).guard)
    if paused is None:
        return None
    reason = paused.reason if paused.has("reason") else PAUSED
    return (render.Deny(reason), render.Pause(reason)) if deny else (render.Pause(reason),)


def pause(state: State, now: float, hook: str, kind: PauseKind, reason: str) -> Decisions | None:
    StateFile.view(state).guard.paused = Pause(
        kind=kind, reason=clip_json(reason, REASON_BYTES), at=now
    )
    add_log(state, LogEntry(t=now, hook=hook, kind="pause", reason=reason, rule=kind))
    return (render.Pause(reason),)
