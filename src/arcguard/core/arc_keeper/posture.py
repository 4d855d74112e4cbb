"""The operator's prompt: start an arc on `/autonomous`, restate its posture on every prompt.

Only a prompt typed by a person is the operator: a `<task-notification>` prompt is the harness
waking the session when a background task ended, and changes no counter.
"""

from __future__ import annotations

from arcguard.core import messages
from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import goal
from arcguard.core.arc_keeper import limits
from arcguard.core.final_words import AUTONOMOUS
from arcguard.core.final_words import PLUGIN_AUTONOMOUS
from arcguard.core.final_words import is_harness_prompt
from arcguard.core.final_words import starts_autonomous
from arcguard.core.loop_guard import guard
from arcguard.core.schema import TASK_CHARS
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import fresh_state


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.schema import EventName
    from arcguard.core.state import State

BOOTSTRAP_SLUG = "autonomous"
# What `status` shows of the task and the folder needs no more: longer text is clipped when
# stored, so a pasted page does not grow every state file of the session.
CWD_CHARS = 1024


def decide_posture(
    state: State | None,
    prompt: str,
    cfg: Config,
    now: float,
    *,
    session_id: str,
    command: str,
) -> tuple[Output | None, State | None]:
    if is_harness_prompt(prompt):
        # The harness, not the operator: restate the posture, reset nothing.
        state = clone(state) if state is not None else None
    else:
        state = clone(state) if state is not None else fresh_state(session_id, now)
        _on_operator(state, prompt, cfg, now)
    output = posture_context(state, cfg, now, command=command, event="UserPromptSubmit")
    arc = None if state is None else state.get("arc")
    if arc is not None and output is not None:
        arcs.touch(arc, now)
    return output, state


def _on_operator(state: State, prompt: str, cfg: Config, now: float) -> None:
    guard.on_operator_message(state, now)
    goal.on_prompt(state, prompt)
    # Judged before the wait is dropped: a pending wait keeps its arc active until its wake.
    active = limits.arc_active(state, cfg, now)
    # A person is back: a wake queued for an unattended session would now talk over them.
    limits.drop(state, now, "the operator sent a prompt")
    arc = state.get("arc")
    if arc is not None and active:
        # The prompt is the arc's activity (the posture below is restated from it).
        arcs.touch(arc, now)
        arcs.reset_consecutive(arc)
    elif starts_autonomous(prompt):
        # Set-if-absent: re-typing /autonomous during an arc must not reset its counters.
        started = arcs.new_arc(BOOTSTRAP_SLUG, [], now)
        task = task_of(prompt)
        if task:
            started["task"] = task
        state["arc"] = started
        add_log(
            state,
            {"t": now, "hook": "posture", "kind": "arc", "reason": "arc started by /autonomous"},
        )


def task_of(prompt: str) -> str:
    """The task typed after `/autonomous` (or `/arcguard:autonomous`), on one line, clipped."""
    body = prompt.lstrip()
    for command in (AUTONOMOUS, PLUGIN_AUTONOMOUS):
        if body[: len(command)].lower() == command:
            return " ".join(body[len(command) :].split())[:TASK_CHARS]
    return ""


def note_cwd(state: State, cwd: str | None) -> None:
    """Keep the folder the session first reported (a hook payload's `cwd`), for `status`."""
    if "cwd" not in state and cwd:
        state["cwd"] = cwd[:CWD_CHARS]


def posture_context(
    state: State | None, cfg: Config, now: float, *, command: str, event: EventName
) -> Output | None:
    """The sticky posture line for an active arc, as context for `event`; else None."""
    arc = None if state is None else state.get("arc")
    if state is None or arc is None or not limits.arc_active(state, cfg, now):
        return None
    line = messages.posture_line(
        arc.get("slug") or arcs.DEFAULT_SLUG, arcs.next_milestone(arc), command, state["session_id"]
    )
    return render.add_context(event, line)
