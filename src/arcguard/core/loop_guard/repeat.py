"""The repeat guard (identical calls with identical outcomes) and what a finished call proves.

When an operation's last `repeat_limit` executions in the window had the same outcome, the next
attempt is denied, unless it is a validation (an observing operation re-run once after a
confirmed edit), a re-read after a change (a read-only observer re-run once after a call that
may have changed the world, or a file read whose size or modification time moved), a timeout
recovery (once, with a strictly larger effective timeout after a real timeout), a re-run after
a compaction (once: the model no longer has what it saw), or a wait while background work runs.
Executions are recorded before the allow is returned, owned by their `tool_use_id`; only the
owner's result resolves one, so a late or duplicate result changes nothing. A call that never
executed (cancelled, interrupted, refused, denied by a hook) is not an execution.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core import messages
from arcguard.core import render
from arcguard.core.loop_guard import background
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import stuck
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard.tracks import get_track
from arcguard.core.loop_guard.tracks import is_allowed
from arcguard.core.loop_guard.tracks import paused_output
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import FILE_STATE_CHARS
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import remember
from arcguard.core.state import short_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.schema import Operation
    from arcguard.core.schema import Run
    from arcguard.core.schema import Track
    from arcguard.core.state import State

AFTER_COMPACTION = "after_compaction"
VALIDATION = "validation"
AFTER_CHANGE = "after_change"
FILE_CHANGED = "file_changed"
RECOVERY = "timeout_recovery"
# A file's stat the hook could not take: whether it changed is unknown, so assume it did.
UNKNOWN_FILE = "?"
NOTEBOOK_EDIT = "NotebookEdit"  # its response shows no patch: a completed one counts as an edit
MAX_RESULTS = 400
MAX_RESOLVED_IDS = 64
MAX_FILES = 32  # files whose recent contents are kept
MAX_FILE_CONTENTS = 8  # contents kept per file


def _run_outcome(run: Run) -> str:
    outcome = run.get("outcome")
    if isinstance(outcome, str):
        return outcome
    return opkey.UNKNOWN  # still running, or its result never came


def _is_pending(run: Run, cfg: Config, now: float) -> bool:
    return run.get("outcome") is None and now - float(run.get("at", 0)) < cfg.inflight_stale_seconds


def _exception(
    op: Operation,
    state: State,
    cfg: Config,
    tool_name: str,
    tool_input: object,
    file_state: str | None,
) -> str | None:
    """Which one-time exception lets a repeat run, if any."""
    if state["guard"].get("compactions", 0) > op.get("compactions", 0):
        # Compaction dropped what the model had seen: one re-run to see it again.
        return AFTER_COMPACTION
    if file_state is not None and (
        file_state == UNKNOWN_FILE or file_state != op.get("file_state", file_state)
    ):
        return FILE_CHANGED  # the file itself moved since it was last read
    edit_seq = state["guard"].get("edit_seq", 0)
    if (
        tool_name in cfg.observing_tools
        and edit_seq > op.get("edit_seq", 0)
        and op.get("validated_seq", -1) < edit_seq
    ):
        return VALIDATION
    # A change by a shell command or a tool is weaker evidence than a confirmed edit: it
    # re-opens reads (what they see may be new), not commands that act on the world.
    change_seq = state["guard"].get("change_seq", 0)
    if (
        tool_name in cfg.observing_tools
        and change_seq > op.get("change_seq", 0)
        and not tool_effects.may_change_world(tool_name, tool_input)
    ):
        return AFTER_CHANGE
    runs = op.get("runs") or []
    timeout = opkey.effective_timeout(tool_name, tool_input)
    if (
        timeout is not None
        and runs
        and runs[-1].get("outcome") == opkey.TIMED_OUT
        and timeout > op.get("max_timeout", 0)
        and not op.get("recovery_used")
    ):
        return RECOVERY
    return None


def _make_room(track: Track, cfg: Config, now: float) -> bool:
    """Evict a resolved record so a new operation fits; False when every record is in use."""
    ops: dict[str, Operation] = track["ops"]
    if len(ops) < cfg.max_operations:
        return True
    idle = [
        (max((r.get("seq", 0) for r in op.get("runs") or []), default=0), oid)
        for oid, op in ops.items()
        if not any(_is_pending(r, cfg, now) for r in op.get("runs") or [])
    ]
    if not idle:
        return False
    del ops[min(idle)[1]]
    return True


def decide_pre_tool(
    state: State,
    cfg: Config,
    now: float,
    *,
    tool_name: str,
    tool_input: object,
    tool_use_id: str,
    agent_id: object,
    file_state: str | None = None,
) -> tuple[Output | None, State]:
    """`file_state`: for a file read, the file's size and modification time as the hook saw
    them (`UNKNOWN_FILE` when it could not look); None when there is no file to look at."""
    tool_use_id = short_id(tool_use_id)
    file_state = file_state[:FILE_STATE_CHARS] if file_state is not None else None
    state = clone(state)
    paused = paused_output(state, deny=True)
    if paused:
        # Counted, not logged one by one: the bounded log keeps the decisions that matter.
        pause = state["guard"].get("paused")
        if pause is not None:
            pause["denied_since"] = pause.get("denied_since", 0) + 1
        return paused, state
    track = get_track(state, track_key(agent_id), now)
    track["seq"] += 1
    if is_allowed(cfg, tool_name, tool_input):
        return None, state
    if tool_effects.is_wait(tool_name, tool_input) and background.waiting(
        state, cfg, now, own=track_key(agent_id)
    ):
        return None, state  # bounded by time and by the work ending, not by count
    oid = opkey.operation_id(tool_name, tool_input)
    op = track["ops"].get(oid)
    if op is None:
        if not _make_room(track, cfg, now):
            add_log(
                state,
                {
                    "t": now,
                    "hook": "pre-tool",
                    "kind": "untracked",
                    "reason": "every operation record is in use; call not tracked",
                },
            )
            return None, state
        op = track["ops"][oid] = {
            "label": opkey.label(tool_name, tool_input),
            "runs": [],
            "edit_seq": state["guard"].get("edit_seq", 0),
            "compactions": state["guard"].get("compactions", 0),
        }
    window = [
        r
        for r in op["runs"]
        if track["seq"] - r.get("seq", 0) <= cfg.repeat_window and r.get("outcome") != opkey.NOT_RUN
    ]
    recent = window[-cfg.repeat_limit :]
    spent = None
    # A call that waits is how one waits: its repeats are bounded by time (`stuck`), not denied.
    poll = tool_effects.is_poll(tool_name, tool_input)
    if not poll and len(recent) >= cfg.repeat_limit and len({_run_outcome(r) for r in recent}) == 1:
        spent = _exception(op, state, cfg, tool_name, tool_input, file_state)
        if spent is None:
            remember(track.setdefault("denied_ids", []), tool_use_id, MAX_RESOLVED_IDS)
            return _deny(state, track, op, now, runs=len(window)), state
    _reserve(
        state,
        op,
        spent,
        cfg,
        now,
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
        seq=track["seq"],
    )
    if file_state is not None:
        op["file_state"] = file_state
    return None, state


def _deny(state: State, track: Track, op: Operation, now: float, *, runs: int) -> Output:
    timed_out = bool(op["runs"]) and op["runs"][-1].get("outcome") == opkey.TIMED_OUT
    reason = messages.deny_reason(op["label"], runs, timed_out=timed_out)
    track["turn"]["denied"] += 1
    track["turn"]["label"] = op["label"]
    track["denials"] += 1
    add_log(
        state,
        {
            "t": now,
            "hook": "pre-tool",
            "kind": "deny",
            "reason": reason,
            "operation": op["label"],
            "runs": runs,
        },
    )
    return render.deny_tool(reason)


def _reserve(
    state: State,
    op: Operation,
    spent: str | None,
    cfg: Config,
    now: float,
    *,
    tool_name: str,
    tool_input: object,
    tool_use_id: str,
    seq: int,
) -> None:
    """Record the execution before it is allowed, owned by its tool_use_id."""
    edit_seq = state["guard"].get("edit_seq", 0)
    op["runs"].append(
        {"seq": seq, "owner": tool_use_id, "at": now, "outcome": None, "spent": spent}
    )
    del op["runs"][: -max(cfg.repeat_limit, 2)]
    op["edit_seq"] = edit_seq
    op["change_seq"] = state["guard"].get("change_seq", 0)
    op["compactions"] = state["guard"].get("compactions", 0)
    if spent == VALIDATION:
        op["validated_seq"] = edit_seq
    timeout = opkey.effective_timeout(tool_name, tool_input)
    if timeout is not None:
        op["max_timeout"] = max(op.get("max_timeout", 0), timeout)
    if spent == RECOVERY:
        op["recovery_used"] = True


def decide_post_tool(
    state: State,
    cfg: Config,
    now: float,
    *,
    event_name: str,
    tool_name: str,
    tool_input: object,
    tool_use_id: str,
    agent_id: object,
    payload: dict[str, Any],
) -> tuple[Output | None, State]:
    tool_use_id = short_id(tool_use_id)
    state = clone(state)
    guard = state["guard"]
    resolved = guard.setdefault("resolved", [])
    if tool_use_id and tool_use_id in resolved:
        return paused_output(state, deny=False), state  # a duplicate result changes nothing
    if tool_use_id:
        remember(resolved, tool_use_id, MAX_RESOLVED_IDS)
    track = get_track(state, track_key(agent_id), now)
    if tool_use_id and tool_use_id in (track.get("denied_ids") or []):
        # A result for a call we denied did not come from the live session (it never ran).
        return paused_output(state, deny=False), state
    progress = changed = False
    edit = None
    outcome = opkey.outcome(event_name, tool_name, tool_input, payload)
    if event_name == "PostToolUse" and (
        opkey.is_confirmed_edit(tool_name, payload.get("tool_response"))
        or tool_name == NOTEBOOK_EDIT
    ):
        edit = _file_visit(state, tool_input, payload.get("tool_response"))
        if edit == stuck.NEW:
            # Back to a content the file had before is no change: what depends on it was
            # already seen that way.
            guard["edit_seq"] = guard.get("edit_seq", 0) + 1
            progress = True
    elif outcome != opkey.NOT_RUN and tool_effects.may_change_world(tool_name, tool_input):
        # It ran (even a failed command may have changed things): assume it changed them.
        guard["change_seq"] = guard.get("change_seq", 0) + 1
        progress = changed = True
    background.observe_result(
        state,
        now,
        tool_name=tool_name,
        tool_input=tool_input,
        tool_use_id=tool_use_id,
        payload=payload,
    )
    run = _owned_run(track, opkey.operation_id(tool_name, tool_input), tool_use_id)
    if run is not None:
        run["outcome"] = outcome
        completed = outcome.startswith(opkey.COMPLETED)
        progress = progress or (completed and run.get("spent") is not None)
    # Fresh evidence is a result of a shape this track never saw: a new timestamp or counter
    # in the same output is not news.
    seen = shape.result_shape(outcome, payload)
    if (
        outcome not in (opkey.UNKNOWN, opkey.NOT_RUN)
        and seen not in track["results"]
        and not opkey.is_empty_result(payload)
    ):
        progress = True
        track["turn"]["new_result"] = True
        remember(track["results"], seen, MAX_RESULTS)
    if progress:
        track["turn"]["progress"] = True
    if not is_allowed(cfg, tool_name, tool_input):
        stuck.observe(
            track,
            now,
            tool_name=tool_name,
            tool_input=tool_input,
            payload=payload,
            outcome=outcome,
            result=seen,
            edit=edit,
            changed=changed,
            poll=tool_effects.is_poll(tool_name, tool_input),
        )
    return paused_output(state, deny=False), state


def _file_visit(state: State, tool_input: object, response: object) -> str:
    """NEW or REVISIT: whether a confirmed edit left the file with a content it had before
    (a short history of content digests per file; unknown contents count as new)."""
    found = opkey.edited_contents(tool_input, response)
    if found is None:
        return stuck.NEW
    path, before, after = found
    files = state["guard"].setdefault("files", {})
    key = hashing.digest(path)
    history = files.pop(key, None) or []
    if before is not None and not history:
        history.append(hashing.digest(before))
    digest = hashing.digest(after)
    visit = stuck.REVISIT if digest in history else stuck.NEW
    if digest in history:
        history.remove(digest)
    history.append(digest)
    files[key] = history[-MAX_FILE_CONTENTS:]
    for old in list(files)[:-MAX_FILES]:
        del files[old]
    return visit


def _owned_run(track: Track, oid: str, tool_use_id: str) -> Run | None:
    """The pending execution this result belongs to; a late or foreign result gets None."""
    op = track["ops"].get(oid)
    for run in op["runs"] if op is not None else []:
        if run.get("owner") == tool_use_id and run.get("outcome") is None:
            return run
    return None


def settle_batch(track: Track, tool_use_ids: list[str]) -> None:
    """The turn's calls are all done: an execution still waiting for its result never ran
    (refused or denied by another hook before it started; no result event comes for it)."""
    owners = {short_id(i) for i in tool_use_ids}
    if not owners:
        return
    for op in track["ops"].values():
        for run in op.get("runs") or []:
            if run.get("outcome") is None and run.get("owner") in owners:
                run["outcome"] = opkey.NOT_RUN
