"""arcguard's decisions on a replayed session, each with what triggered it, what happened next
in the recorded session, and whether it looks right or costly.

Pure, over a replay's steps. What happened next is read from the recorded events after the
decision: the operator's next prompt and the model's next move (its next call, or its next
final words). The verdicts are the two costs that can be seen in a recording: a continuation
the operator answered with a choice or a correction (arcguard would have run over them), and a
denied call that the model made again at once (the deny did not change its course).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.core.loop_guard import opkey
from arcguard.core.tool_call import ToolCall
from arcguard.core.words import vocabulary
from arcguard.core.words.final_words import is_task_notification
from arcguard.forensics import handbacks as hb
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.replay.events import HookEvent
    from arcguard.replay.replayer import Step

RIGHT, COSTLY, UNCLEAR = "looks right", "costly", "unclear"
NOT_SHOWN = frozenset({vocabulary.POSTURE})  # standing context on every prompt, not a decision
NO_ANSWER = "no-answer"  # the session ended, or the harness spoke next
LOOK_AHEAD = 400  # events read for what happened next: the next prompt or move is near


@value
class Shown:
    """One decision as the report shows it. `index`: its order in the session (for links)."""

    index: int
    turn: int
    hook: str
    kind: str
    reason: str
    trigger: str
    reply: str | None
    next_move: str | None
    verdict: str | None
    why: str
    at: float | None


def decisions(steps: Sequence[Step], recorded: Sequence[HookEvent]) -> list[Shown]:
    """The decisions of a replay's `steps`; what happened next comes from `recorded`, every
    event of the session in the same order (the replay's own stop at a pause)."""
    found: list[Shown] = []
    events = recorded if _aligned(steps, recorded) else [s.event for s in steps]
    for position, step in enumerate(steps):
        for decision in step.decisions:
            if decision.kind in NOT_SHOWN:
                continue
            later = events[position + 1 : position + 1 + LOOK_AHEAD]
            reply, move = _reply(later), _next_move(later)
            recent = {e.what for e in events[max(0, position - 30) : position + 1]}
            verdict, why = judge(decision.kind, step.event, reply, move, recent)
            found.append(
                Shown(
                    len(found),
                    decision.turn,
                    decision.hook,
                    decision.kind,
                    decision.reason,
                    trigger(step.event),
                    reply,
                    move,
                    verdict,
                    why,
                    step.event.at,
                )
            )
    return found


def _aligned(steps: Sequence[Step], recorded: Sequence[HookEvent]) -> bool:
    if len(recorded) < len(steps):
        return False
    return all(
        s.event.event == e.event and s.event.turn == e.turn
        for s, e in zip(steps, recorded, strict=False)
    )


def trigger(event: HookEvent) -> str:
    """The message a decision was taken on: the model's final words, the call, the batch."""
    fields = event.fields
    if event.event == "Stop":
        return str(fields.get("last_assistant_message", ""))
    if event.event == "PostToolBatch":
        calls = fields.get("tool_calls")
        labels = [
            opkey.label(ToolCall(str(c.get("tool_name")), c.get("tool_input")))
            for c in (calls if isinstance(calls, list) else [])
            if isinstance(c, dict)
        ]
        return "; ".join(labels) or event.what
    return event.what


def _reply(later: Sequence[HookEvent]) -> str | None:
    """The operator's next prompt, if they spoke before the model's next final words."""
    for event in later:
        if event.event == "UserPromptSubmit":
            prompt = str(event.fields.get("prompt", ""))
            if not is_task_notification(prompt):
                return prompt
        elif event.event == "Stop":
            return None
    return None


def _next_move(later: Sequence[HookEvent]) -> str | None:
    for event in later:
        if event.event == "PreToolUse":
            return event.what
        if event.event == "Stop":
            return str(event.fields.get("last_assistant_message", ""))
        if event.event == "UserPromptSubmit":
            return None  # the operator spoke first
    return None


def judge(
    kind: str, event: HookEvent, reply: str | None, move: str | None, recent: set[str]
) -> tuple[str | None, str]:
    """(verdict, why) of one decision; no verdict for a decision that changes nothing.
    `recent`: what the events just before it were about (the calls a pause stopped)."""
    if kind == vocabulary.CONTINUE:
        return _continuation(event, reply)
    if kind == vocabulary.DENY:
        if move is None:
            return UNCLEAR, "the recorded session went no further"
        if move == event.what:
            return COSTLY, "the model made the same call again next"
        return RIGHT, "the model moved on to something else"
    if kind in (vocabulary.PAUSE, vocabulary.NUDGE):
        if reply is not None:
            return RIGHT, "the operator stepped in next"
        if move is None:
            return RIGHT, "the recorded session ended there"
        if move in recent or move in trigger(event):
            return RIGHT, "the recorded session went on the same way"
        return UNCLEAR, "the recorded session went on to something else: was it stuck?"
    return None, ""


def _continuation(event: HookEvent, reply: str | None) -> tuple[str, str]:
    if reply is None:
        return RIGHT, "nobody answered that stop in the recorded session"
    answer = hb.reply_class(reply)
    if answer in (hb.CHOICE, hb.INSTRUCTION):
        return COSTLY, f"the operator answered it with a {answer.replace('-', ' ')}"
    if answer == hb.AFFIRMATION:
        return RIGHT, "the operator only said to go on"
    return UNCLEAR, f"the operator answered with an {answer}"


# --- the stops and what the operator said to each (benchmarks/stall_policies.py --list) ----


def handbacks(steps: Sequence[tuple[HookEvent, list[str]]]) -> list[dict[str, object]]:
    """Each Stop with the kinds of decision taken on it and the operator's next prompt (None
    when the model or the harness went on instead)."""
    found: list[dict[str, object]] = []
    open_stop: dict[str, object] | None = None
    for event, decided in steps:
        if event.event == "Stop":
            open_stop = {
                "turn": event.turn,
                "text": event.fields["last_assistant_message"],
                "kinds": decided,
                "reply": None,
            }
            found.append(open_stop)
        elif event.event == "UserPromptSubmit" and open_stop is not None:
            prompt = str(event.fields.get("prompt", ""))
            if not is_task_notification(prompt):
                open_stop["reply"] = prompt
            open_stop = None
        elif event.event == "PreToolUse":
            open_stop = None
    return found


def answer(reply: str | None) -> str:
    """The class of the operator's answer to a stop (`NO_ANSWER` for none or a command)."""
    return NO_ANSWER if reply is None or reply.startswith("/") else hb.reply_class(reply)


def listing_line(name: str, turn: object, answer_class: str, text: str, reply: str | None) -> str:
    """One continued stop on one line: where, how it was answered, its end and the reply."""
    tail = " ".join(text.split())[-160:]
    said = " ".join((reply or "").split())[:80]
    return f"- {name} turn {turn} [{answer_class}] ...{tail} => {said}"
