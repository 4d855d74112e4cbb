"""The loop guard: deny repeated no-progress calls, pause cycles and unattended runs.

Rules (thresholds in `Config`):
1. Repeat guard (seed 004, outcome-aware): when an operation's last `repeat_limit` executions
   in the window had the same outcome, the next attempt is denied, unless it is a validation
   (an observing operation re-run once after a confirmed edit), a timeout recovery (once,
   with a strictly larger effective timeout after a real timeout), or a re-run after a
   compaction (once: the model no longer has what it saw).
2. Blocked rounds: a turn with a denied call and no progress counts a round; progress resets
   the count; at `blocked_rounds_pause` the session is paused.
3. Cycles (seed 000): the fingerprints of consecutive tool-only turns; a short period repeating
   enough pauses the session. Narration and the operator clear the history; compaction and
   Stop-hook continuations do not.
4. Check-in nudge after `checkin_turns` tool-only turns, once.
5. Operator backstop: turns since the operator's last message, which narration does not reset:
   a nudge, then a pause (a higher threshold while an arc is active).

Calls inside a subagent are tracked on their own track; the pause is the session's.
"""

from __future__ import annotations

from arcguard.core import messages
from arcguard.core import opkey
from arcguard.core import render
from arcguard.core.period import detect_period
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.state import State

    Track = dict[str, Any]

MAIN = "main"
AFTER_COMPACTION = "after_compaction"
MAX_TRACKS = 8
MAX_RESULTS = 400
MAX_RESOLVED_IDS = 64
VALIDATION = "validation"
RECOVERY = "timeout_recovery"


def track_key(agent_id: object) -> str:
    return f"agent:{agent_id}" if isinstance(agent_id, str) and agent_id else MAIN


def new_track(now: float, *, denials: int = 0) -> Track:
    return {
        "seq": 0,  # calls seen since the operator's last message
        "ops": {},
        "results": [],  # outcomes seen on this track: a new one is fresh evidence
        "turn": {"denied": 0, "progress": False, "label": ""},
        "blocked_rounds": 0,
        "fingerprints": [],
        "streak": 0,  # consecutive tool-only turns
        "checkin_done": False,
        "turns": 0,  # turns since the operator's last message
        "backstop_nudged_at": None,
        "denials": denials,  # lifetime, for status
        "updated": now,
    }


def get_track(state: State, key: str, now: float) -> Track:
    tracks: dict[str, Track] = state["guard"].setdefault("tracks", {})
    track = tracks.get(key)
    if not isinstance(track, dict):
        track = tracks[key] = new_track(now)
        agents = sorted((t.get("updated", 0), k) for k, t in tracks.items() if k != MAIN)
        for _, old in agents[: max(0, len(agents) - MAX_TRACKS)]:
            del tracks[old]
    track["updated"] = now
    return track


def is_allowed(cfg: Config, tool_name: str, tool_input: object) -> bool:
    """The user exempted this call from the repeat and cycle rules (glob on name or subject).

    A pattern is a glob on the tool name or on its command/path (`pytest *`), or
    `Tool(glob)` for both at once (`Bash(sleep *)`).
    """
    if not cfg.allow:
        return False
    from fnmatch import fnmatchcase

    what = opkey.subject(tool_name, tool_input)
    for pattern in cfg.allow:
        if pattern.endswith(")") and "(" in pattern:
            name, _, glob = pattern[:-1].partition("(")
            if fnmatchcase(tool_name, name) and fnmatchcase(what, glob):
                return True
        elif fnmatchcase(tool_name, pattern) or (what and fnmatchcase(what, pattern)):
            return True
    return False


# --- operator, narration, compaction -------------------------------------------------------


def on_operator_message(state: State, now: float) -> None:
    """A person spoke: clear the pause and every loop counter (lifetime totals stay)."""
    guard = state["guard"]
    if guard.get("paused"):
        add_log(state, {"t": now, "hook": "posture", "kind": "resume",
                        "reason": "operator message cleared the pause"})
    guard["paused"] = None
    main = guard.get("tracks", {}).get(MAIN) or {}
    guard["tracks"] = {MAIN: new_track(now, denials=int(main.get("denials", 0)))}


def on_narration(state: State) -> None:
    """The main agent said something: a turn, and the end of a tool-only run."""
    track = state["guard"].setdefault("tracks", {}).get(MAIN)
    if not isinstance(track, dict):
        return
    track["turns"] += 1
    _clear_run(track)


def _clear_run(track: Track) -> None:
    track["fingerprints"] = []
    track["streak"] = 0
    track["checkin_done"] = False


def paused_output(state: State, *, deny: bool) -> Output | None:
    paused = state["guard"].get("paused")
    if not paused:
        return None
    reason = str(paused.get("reason", "arcguard paused this session. Send a message to resume."))
    return render.merge(render.deny_tool(reason) if deny else None, render.pause(reason))


def _pause(state: State, now: float, hook: str, kind: str, reason: str) -> Output | None:
    state["guard"]["paused"] = {"kind": kind, "reason": reason, "at": now}
    add_log(state, {"t": now, "hook": hook, "kind": "pause", "reason": reason, "rule": kind})
    return render.pause(reason)


# --- rule 1: the repeat guard --------------------------------------------------------------


def _run_outcome(run: dict[str, Any]) -> str:
    outcome = run.get("outcome")
    if isinstance(outcome, str):
        return outcome
    return opkey.UNKNOWN  # still running, or its result never came


def _is_pending(run: dict[str, Any], cfg: Config, now: float) -> bool:
    return run.get("outcome") is None and now - float(run.get("at", 0)) < cfg.inflight_stale_seconds


def _exception(op: dict[str, Any], state: State, cfg: Config, tool_name: str,
               tool_input: object) -> str | None:
    """Which one-time exception lets a repeat run, if any."""
    if state["guard"].get("compactions", 0) > op.get("compactions", 0):
        # Compaction dropped what the model had seen: one re-run to see it again.
        return AFTER_COMPACTION
    edit_seq = state["guard"].get("edit_seq", 0)
    if (tool_name in cfg.observing_tools and edit_seq > op.get("edit_seq", 0)
            and op.get("validated_seq", -1) < edit_seq):
        return VALIDATION
    runs = op.get("runs") or []
    timeout = opkey.effective_timeout(tool_name, tool_input)
    if (timeout is not None and runs and runs[-1].get("outcome") == opkey.TIMED_OUT
            and timeout > op.get("max_timeout", 0) and not op.get("recovery_used")):
        return RECOVERY
    return None


def _make_room(track: Track, cfg: Config, now: float) -> bool:
    """Evict a resolved record so a new operation fits; False when every record is in use."""
    ops: dict[str, dict[str, Any]] = track["ops"]
    if len(ops) < cfg.max_operations:
        return True
    idle = [(max((r.get("seq", 0) for r in op.get("runs") or []), default=0), oid)
            for oid, op in ops.items()
            if not any(_is_pending(r, cfg, now) for r in op.get("runs") or [])]
    if not idle:
        return False
    del ops[min(idle)[1]]
    return True


def decide_pre_tool(
    state: State, cfg: Config, now: float, *, tool_name: str, tool_input: object,
    tool_use_id: str, agent_id: object,
) -> tuple[Output | None, State]:
    state = clone(state)
    paused = paused_output(state, deny=True)
    if paused:
        # Counted, not logged one by one: the bounded log keeps the decisions that matter.
        pause = state["guard"]["paused"]
        pause["denied_since"] = int(pause.get("denied_since", 0)) + 1
        return paused, state
    track = get_track(state, track_key(agent_id), now)
    track["seq"] += 1
    if is_allowed(cfg, tool_name, tool_input):
        return None, state
    oid = opkey.operation_id(tool_name, tool_input)
    op = track["ops"].get(oid)
    if op is None:
        if not _make_room(track, cfg, now):
            add_log(state, {"t": now, "hook": "pre-tool", "kind": "untracked",
                            "reason": "every operation record is in use; call not tracked"})
            return None, state
        op = track["ops"][oid] = {"label": opkey.label(tool_name, tool_input), "runs": [],
                                  "edit_seq": state["guard"].get("edit_seq", 0),
                                  "compactions": state["guard"].get("compactions", 0)}
    window = [r for r in op["runs"] if track["seq"] - r.get("seq", 0) <= cfg.repeat_window]
    recent = window[-cfg.repeat_limit:]
    spent = None
    if len(recent) >= cfg.repeat_limit and len({_run_outcome(r) for r in recent}) == 1:
        spent = _exception(op, state, cfg, tool_name, tool_input)
        if spent is None:
            return _deny(state, track, op, now, runs=len(window)), state
    _reserve(state, op, spent, cfg, now, tool_name=tool_name, tool_input=tool_input,
             tool_use_id=tool_use_id, seq=track["seq"])
    return None, state


def _deny(state: State, track: Track, op: dict[str, Any], now: float, *, runs: int) -> Output:
    timed_out = bool(op["runs"]) and op["runs"][-1].get("outcome") == opkey.TIMED_OUT
    reason = messages.deny_reason(op["label"], runs, timed_out=timed_out)
    track["turn"]["denied"] += 1
    track["turn"]["label"] = op["label"]
    track["denials"] += 1
    add_log(state, {"t": now, "hook": "pre-tool", "kind": "deny", "reason": reason,
                    "operation": op["label"], "runs": runs})
    return render.deny_tool(reason)


def _reserve(state: State, op: dict[str, Any], spent: str | None, cfg: Config, now: float, *,
             tool_name: str, tool_input: object, tool_use_id: str, seq: int) -> None:
    """Record the execution before it is allowed, owned by its tool_use_id."""
    edit_seq = state["guard"].get("edit_seq", 0)
    op["runs"].append({"seq": seq, "owner": tool_use_id, "at": now, "outcome": None,
                       "spent": spent})
    del op["runs"][:-max(cfg.repeat_limit, 2)]
    op["edit_seq"] = edit_seq
    op["compactions"] = state["guard"].get("compactions", 0)
    if spent == VALIDATION:
        op["validated_seq"] = edit_seq
    timeout = opkey.effective_timeout(tool_name, tool_input)
    if timeout is not None:
        op["max_timeout"] = max(op.get("max_timeout", 0), timeout)
    if spent == RECOVERY:
        op["recovery_used"] = True


# --- results -------------------------------------------------------------------------------


def decide_post_tool(
    state: State, cfg: Config, now: float, *, event_name: str, tool_name: str,
    tool_input: object, tool_use_id: str, agent_id: object, payload: dict[str, Any],
) -> tuple[Output | None, State]:
    state = clone(state)
    guard = state["guard"]
    resolved = guard.setdefault("resolved", [])
    if tool_use_id and tool_use_id in resolved:
        return paused_output(state, deny=False), state  # a duplicate result changes nothing
    if tool_use_id:
        remember(resolved, tool_use_id, MAX_RESOLVED_IDS)
    track = get_track(state, track_key(agent_id), now)
    progress = False
    if event_name == "PostToolUse" and opkey.is_confirmed_edit(tool_name,
                                                              payload.get("tool_response")):
        guard["edit_seq"] = guard.get("edit_seq", 0) + 1
        progress = True
    outcome = opkey.outcome(event_name, tool_name, tool_input, payload)
    run = _owned_run(track, opkey.operation_id(tool_name, tool_input), tool_use_id)
    if run is not None:
        run["outcome"] = outcome
        completed = outcome.startswith(opkey.COMPLETED)
        progress = progress or (completed and run.get("spent") is not None)
    if (outcome != opkey.UNKNOWN and outcome not in track["results"]
            and not opkey.is_empty_result(payload)):
        progress = True  # a result this track never saw: fresh evidence
        remember(track["results"], outcome, MAX_RESULTS)
    if progress:
        track["turn"]["progress"] = True
    return paused_output(state, deny=False), state


def _owned_run(track: Track, oid: str, tool_use_id: str) -> dict[str, Any] | None:
    """The pending execution this result belongs to; a late or foreign result gets None."""
    op = track["ops"].get(oid)
    for run in (op or {}).get("runs") or []:
        if run.get("owner") == tool_use_id and run.get("outcome") is None:
            return run  # type: ignore[no-any-return]
    return None


# --- turns: blocked rounds, cycles, check-in, backstop -------------------------------------


def decide_post_batch(
    state: State, cfg: Config, now: float, *, calls: list[tuple[str, object]],
    tool_only: bool, agent_id: object, arc_active: bool,
) -> tuple[Output | None, State]:
    state = clone(state)
    if state["guard"].get("paused"):
        return paused_output(state, deny=False), state
    track = get_track(state, track_key(agent_id), now)
    track["turns"] += 1
    rounds_pause = _close_turn(state, track, cfg, now)
    cycle_pause = _observe_turn(state, track, cfg, now, calls=calls, tool_only=tool_only)
    pause = rounds_pause or cycle_pause or _backstop_pause(state, track, cfg, now, arc_active)
    if pause:
        return pause, state
    return _nudge(state, track, cfg, now), state


def _close_turn(state: State, track: Track, cfg: Config, now: float) -> Output | None:
    turn = track["turn"]
    if turn["progress"]:
        track["blocked_rounds"] = 0
    elif turn["denied"]:
        track["blocked_rounds"] += 1
    label = turn.get("label", "")
    track["turn"] = {"denied": 0, "progress": False, "label": ""}
    if track["blocked_rounds"] >= cfg.blocked_rounds_pause:
        reason = messages.blocked_pause(track["blocked_rounds"], label)
        return _pause(state, now, "post-batch", "blocked", reason)
    return None


def _observe_turn(state: State, track: Track, cfg: Config, now: float, *,
                  calls: list[tuple[str, object]], tool_only: bool) -> Output | None:
    tracked = [(name, given) for name, given in calls if not is_allowed(cfg, name, given)]
    if not tool_only:
        _clear_run(track)
        return None
    track["streak"] += 1
    if not tracked:
        return None  # an allow-listed poll neither extends nor breaks a cycle
    fingerprint = "|".join(sorted(opkey.operation_id(n, i) for n, i in tracked))
    history = track["fingerprints"]
    history.append(fingerprint)
    del history[:-cfg.cycle_history]
    labels = track.setdefault("labels", {})
    labels[fingerprint] = ", ".join(opkey.label(n, i, 60) for n, i in tracked[:2])
    for stale in [fp for fp in labels if fp not in history]:
        del labels[stale]
    found = detect_period(history, max_period=cfg.cycle_max_period,
                          repeats_identical=cfg.cycle_repeats_identical,
                          repeats_cycle=cfg.cycle_repeats)
    if found is None:
        return None
    period, repeats = found
    shown = [labels.get(fp, "?") for fp in history[-period:]]
    reason = messages.cycle_pause(period, repeats, shown)
    return _pause(state, now, "post-batch", "cycle", reason)


def _backstop_pause(state: State, track: Track, cfg: Config, now: float,
                    arc_active: bool) -> Output | None:
    limit = cfg.backstop_pause_turns_arc if arc_active else cfg.backstop_pause_turns
    nudged_at = track.get("backstop_nudged_at")
    if nudged_at is None or track["turns"] < limit:
        return None
    reason = messages.backstop_pause(track["turns"], nudged_at)
    return _pause(state, now, "post-batch", "backstop", reason)


def _nudge(state: State, track: Track, cfg: Config, now: float) -> Output | None:
    text = None
    if track.get("backstop_nudged_at") is None and track["turns"] >= cfg.backstop_nudge_turns:
        track["backstop_nudged_at"] = track["turns"]
        text = messages.backstop_nudge(track["turns"])
    elif track["streak"] >= cfg.checkin_turns and not track["checkin_done"]:
        track["checkin_done"] = True
        text = messages.checkin_nudge(track["streak"])
    if text is None:
        return None
    add_log(state, {"t": now, "hook": "post-batch", "kind": "nudge", "reason": text})
    return render.add_context("PostToolBatch", text)
