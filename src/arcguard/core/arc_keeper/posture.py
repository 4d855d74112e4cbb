"""The operator's prompt: start an arc on `/autonomous`, restate its posture on every prompt.

Only a prompt typed by a person is the operator: a `<task-notification>` prompt is the harness
waking the session when a background task ended, and changes no counter.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import goal
from arcguard.core.arc_keeper import limits
from arcguard.core.loop_guard import guard
from arcguard.core.schema import TASK_CHARS
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import fresh_state
from arcguard.core.words import messages
from arcguard.core.words.final_words import AUTONOMOUS
from arcguard.core.words.final_words import PLUGIN_AUTONOMOUS
from arcguard.core.words.final_words import is_harness_prompt
from arcguard.core.words.final_words import starts_autonomous
from arcguard.core.words.redact import masked_start


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Arc
    from arcguard.core.state import State

BOOTSTRAP_SLUG = "autonomous"
# `/autonomous stop` ends the session's arc.
STOP = "stop"
STARTED = "arc started by /autonomous"
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
) -> tuple[Decisions | None, State | None]:
    note = None
    if is_harness_prompt(prompt):
        # The harness, not the operator: restate the posture, reset nothing.
        state = clone(state) if state is not None else None
    else:
        state = clone(state) if state is not None else fresh_state(session_id, now)
        note = _on_operator(state, prompt, cfg, now)
    output = posture_context(state, cfg, now, command=command)
    arc = None if state is None else StateFile.view(state).arc
    if arc is not None and output is not None:
        arcs.touch(arc, now)
    if note is not None:
        # One context: the change first, then the new arc's posture, if there is one.
        posture = render.context_text(output or ())
        output = (render.Context(f"{note}\n{posture}" if posture else note),)
    return output, state


def _on_operator(state: State, prompt: str, cfg: Config, now: float) -> str | None:
    """Count the operator's prompt; start, replace or end an arc on `/autonomous`. Returns
    what the model is told about such a change, if any."""
    guard.on_operator_message(state, now)
    goal.on_prompt(state, prompt)
    # Judged before the wait is dropped: a pending wait keeps its arc active until its wake.
    active = limits.arc_active(state, cfg, now)
    # A person is back: a wake queued for an unattended session would now talk over them.
    limits.drop(state, now, "the operator sent a prompt")
    arc = StateFile.view(state).arc
    current = arc if arc is not None and active else None
    autonomous = starts_autonomous(prompt)
    if autonomous:
        task, milestones = read_autonomous(prompt)
        if task.lower().rstrip(".!") == STOP:
            return _stop(state, current, now)
        # Re-typing /autonomous, or its task, during an arc keeps the arc and its counters;
        # another task is another arc, with caps of its own.
        if current is None or (task and task != current.task):
            from arcguard.core.arc_keeper import named_checks  # only for a new arc

            checks = named_checks.named(prompt)
            return _start(state, task, milestones, current, now, checks=checks)
    if current is not None:
        # The prompt is the arc's activity (the posture below is restated from it).
        arcs.touch(current, now)
        arcs.reset_consecutive(current)
        if current.checks and not autonomous:
            current.checks = []  # another prompt may change the work the checks were named for
    return None


def _start(
    state: State,
    task: str,
    milestones: list[tuple[str, bool]],
    replaced: Arc | None,
    now: float,
    *,
    checks: list[str],
) -> str | None:
    started = arcs.new_arc(arcs.slug_of(task, BOOTSTRAP_SLUG), [m for m, _ in milestones], now)
    if checks:
        started.checks = checks
    for (_, done), milestone in zip(milestones, started.milestones, strict=False):
        if done:
            milestone.status = "done"
    if task:
        started.task = task
    StateFile.view(state).arc = started
    if replaced is None:
        add_log(state, LogEntry(t=now, hook="posture", kind="arc", reason=STARTED))
        return None
    old = arcs.name_of(replaced)
    add_log(
        state,
        LogEntry(
            t=now,
            hook="posture",
            kind="arc-new",
            reason=f"a new arc for a new task, '{arcs.name_of(started)}'; the arc '{old}' ended",
        ),
    )
    return messages.arc_replaced(old)


def _stop(state: State, current: Arc | None, now: float) -> str:
    if current is None:
        return messages.arc_stop_without_arc()
    arcs.complete(current, now)
    current.ended_by = STOP
    name = arcs.name_of(current)
    add_log(
        state,
        LogEntry(t=now, hook="posture", kind="arc-stop", reason=f"the arc '{name}' ended"),
    )
    return messages.arc_stopped(name)


def read_autonomous(prompt: str) -> tuple[str, list[tuple[str, bool]]]:
    """(the task typed after `/autonomous` on one line, clipped; its checklist as milestones,
    each with whether it is already ticked). Checklist lines are `- [ ] step` (`[x]` ticked;
    `*` or `+` for `-`) or a numbered list (`1. step`, `1) step`); the other lines are the
    task."""
    body = prompt.lstrip()
    for command in (AUTONOMOUS, PLUGIN_AUTONOMOUS):
        if body[: len(command)].lower() == command:
            body = body[len(command) :]
            break
    else:
        return "", []
    words: list[str] = []
    steps: list[tuple[str, bool]] = []
    for line in body.splitlines():
        step = checklist_item(line)
        if step is None:
            words.extend(line.split())
        else:
            steps.append(step)
    # The task is kept in the state and shown: its obvious secrets are masked.
    return masked_start(" ".join(words), TASK_CHARS), steps


def task_of(prompt: str) -> str:
    """The task typed after `/autonomous` (or `/arcguard:autonomous`), on one line, clipped."""
    return read_autonomous(prompt)[0]


def checklist_item(line: str) -> tuple[str, bool] | None:
    """(the step, ticked) when `line` is a checklist or numbered-list item, else None."""
    text = line.strip()
    if text[:2] in ("- ", "* ", "+ "):
        box = text[2:].lstrip()
        if box[:3].lower() in ("[ ]", "[x]"):
            step = box[3:].strip()
            return (step, box[1] != " ") if step else None
        return None
    digits = len(text) - len(text.lstrip("0123456789"))
    if 0 < digits <= 3 and text[digits : digits + 2] in (". ", ") "):
        step = text[digits + 2 :].strip()
        return (step, False) if step else None
    return None


def note_cwd(state: State, cwd: str | None) -> None:
    """Keep the folder the session first reported (a hook payload's `cwd`), for `status`."""
    record = StateFile.view(state)
    if not record.has("cwd") and cwd:
        record.cwd = cwd[:CWD_CHARS]


def posture_context(
    state: State | None, cfg: Config, now: float, *, command: str
) -> Decisions | None:
    """The sticky posture line for an active arc, as context for the model; else None."""
    record = None if state is None else StateFile.view(state)
    arc = None if record is None else record.arc
    if state is None or record is None or arc is None or not limits.arc_active(state, cfg, now):
        return None
    line = messages.posture_line(
        arcs.name_of(arc), arcs.next_milestone(arc), command, record.session_id
    )
    return (render.Context(line),)
