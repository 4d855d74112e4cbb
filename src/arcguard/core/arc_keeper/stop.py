"""The Stop decision: send a stall in the middle of an arc back to work, within caps.

Classification, first match wins: a final turn with tool use is productive; under `ask` and
`strict`, a message saying the work is done right after a call failed, the failure not called
someone else's, is a stall (`handback.says_done`); a whole-message completion claim releases the
arc; thinking only is left alone; an empty reply or exactly "No response requested." is a stall
under every policy; a message that starts with `DECISION NEEDED:` is the model's legitimate
pause and is let through. What else counts as a stall depends on `stop_policy`: `noop` nothing;
`ask` a closing question that hands the turn back for permission or a choice, an announced next
step not taken, or an offer of further help ("Let me know if you need anything else.") while the
arc has milestones left; `strict` every other text. Then, under `ask` and `strict`, a completion
claim or a text stop let through while a check the task names has not passed since the last edit
to code (`named_checks`) is a stall too, once until code is edited again; so is one naming some
of the items the task lists and not the others (`task_items`). Let through all the same (the
caps spent, a task running), it is what it was (a claim completes the arc). Blocks of unknown
types are content, never "empty"; a synthetic (API error) final message, a paused session, a
running background task, and a stall handing the turn back with a reason only the operator can
act on (`user_needed`) are never continued.

Outside any arc, one stall is still continued: the model's empty or "No response requested."
answer to Claude Code's own resume prompt, once per resume, because the session otherwise sits
dead after a crash or reconnect with nobody having asked it to stop.
"""

from __future__ import annotations

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import goal
from arcguard.core.arc_keeper import handback
from arcguard.core.arc_keeper import named_checks
from arcguard.core.arc_keeper import task_items
from arcguard.core.arc_keeper import user_needed
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import opkey
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from arcguard.core.state import add_log
from arcguard.core.state import clone
from arcguard.core.state import is_paused
from arcguard.core.state import remember
from arcguard.core.words import messages
from arcguard.core.words import vocabulary
from arcguard.core.words.final_words import is_sentinel
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.arc_keeper.goal import Mark as GoalMark
    from arcguard.core.config import Config
    from arcguard.core.names import DecisionKind
    from arcguard.core.render import Decisions
    from arcguard.core.schema import Arc
    from arcguard.core.state import State

PRODUCTIVE = "productive"
COMPLETE = "complete"
SKIP = "skip"
STALL = "stall"  # empty or the sentinel
DECISION = "decision"  # starts with DECISION NEEDED:, the protocol's way to pause
STALL_QUESTION = "stall-question"
STALL_ANNOUNCED = "stall-announced"
STALL_OTHER = "stall-other"  # any other text, under the strict policy
STALL_COURTESY = "stall-courtesy"  # "Let me know if you need anything else." with work left
STALL_PAUSED = "stall-paused"  # "This is a good place to pause."
STALL_UNVERIFIED = "stall-unverified"  # "Migration's done." right after the lint failed
STALL_UNCHECKED = "stall-unchecked"  # a stop before the test run the task asks for has passed
STALL_PARTIAL = "stall-partial"  # a stop naming some of the items the task lists, not the rest

# Stalls that hand the turn to the operator, which a reason only the operator can act on
# makes rightful (`user_needed`).
HANDED_BACK = frozenset({STALL_QUESTION, STALL_PAUSED, STALL_COURTESY})

POLICY_NOOP = "noop"
POLICY_ASK = "ask"
POLICY_STRICT = "strict"
# Each stall verdict's stop class, as logged (a log entry's `rule`).
LOGGED = {
    STALL: vocabulary.NO_OP,
    STALL_QUESTION: vocabulary.QUESTION,
    STALL_ANNOUNCED: vocabulary.ANNOUNCED_STEP,
    STALL_OTHER: vocabulary.UNEXPLAINED,
    STALL_COURTESY: vocabulary.COURTESY,
    STALL_PAUSED: vocabulary.PAUSED,
    STALL_UNVERIFIED: vocabulary.UNVERIFIED,
    STALL_UNCHECKED: vocabulary.UNCHECKED,
    STALL_PARTIAL: vocabulary.PAUSED,
}
STALLS = frozenset(LOGGED)  # every stall verdict has its class
# The closings the `ask` policy sends back to work, whatever the milestones.
ASKED = {
    handback.QUESTION: STALL_QUESTION,
    handback.ANNOUNCED: STALL_ANNOUNCED,
    handback.PAUSED: STALL_PAUSED,
}
# What each stall verdict saw, for the block reason.
SEEN = {
    STALL: "ended with nothing done ('No response requested.' or an empty reply)",
    STALL_QUESTION: "ended by asking for permission or a choice",
    STALL_ANNOUNCED: "ended by announcing a next step without taking it",
    STALL_OTHER: "ended without finishing the arc or naming a decision that needs the user",
    STALL_COURTESY: "ended by offering further help while the arc still has milestones to do",
    STALL_PAUSED: "ended by stopping partway, with work still to do",
    STALL_UNVERIFIED: "ended saying the work is done right after a call failed",
    STALL_UNCHECKED: "ended before the checks the task names passed on the code as it now is",
    STALL_PARTIAL: "ended naming only some of the items the task lists",
}
RUN_OR_SAY = "; run them, or say why one cannot run here"
DO_OR_SAY = " not named; do them, or say why they need nothing"

# Kinds of final message, as `arcguard.transcript.records` names them.
KIND_TOOL_USE = "tool_use"
KIND_TEXT = "text"
KIND_THINKING = "thinking"
KIND_OTHER = "other"
KIND_EMPTY = "empty"


# Claude Code's own Stop-hook cap: it overrides a hook after this many consecutive blocks
# (`CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`; 0 removes it), counting every Stop hook's blocks and
# additional contexts alike, and resets the count at any tool call.
CLAUDE_STOP_CAP = 8
CAP_ENV = "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"


def claude_stop_cap(raw: str | None) -> int:
    """Claude Code's cap from its environment variable (0: none); the default when unset or
    not a whole number."""
    if raw is None or not raw.strip().isdigit():
        return CLAUDE_STOP_CAP
    return int(raw.strip())


def consecutive_cap(ours: int, claude: int) -> int:
    """arcguard's consecutive cap as it can take effect: a block past Claude Code's cap would
    be overridden (the turn ends as if complete), so arcguard stops short of it."""
    return ours if claude <= 0 else min(ours, claude)


@value
class Harness:
    """What the Stop decision knows of the Claude Code around it (defaults: nothing known).

    `via_context`: the release continues a session with a Stop's added context (see
    `render.output`, which the hook calls); `goal`: the transcript's newest `/goal` status, if read;
    `overrides`: ids of Claude Code's Stop-cap override warnings in the transcript's tail;
    `stop_cap`: Claude Code's Stop-hook cap (0: none).
    """

    via_context: bool = False
    goal: GoalMark | None = None
    overrides: Sequence[str] = ()
    stop_cap: int = CLAUDE_STOP_CAP


@value
class Final:
    """The session's final assistant message, as far as the Stop decision needs it.

    `resume_id`: the transcript entry of Claude Code's resume prompt this message answers;
    `failures`: the texts of the failed tool results it answers.
    """

    kind: str
    text: str = ""
    synthetic: bool = False
    message_id: str | None = None
    resume_id: str | None = None
    failures: tuple[str, ...] = ()

    @classmethod
    def from_text(cls, text: str) -> Final:
        """From the payload's `last_assistant_message` (a text reply)."""
        return cls(KIND_TEXT if text.strip() else KIND_EMPTY, text)


@value
class Signals:
    """What the Stop hook gathered about this stop: the final message (None: unknown), the
    payload's `stop_hook_active` and running background task (None: the release does not
    say), the harness around it, and whether the hooks saw the session's tool calls (the loop
    guard acts), so that the checks that passed are known."""

    final: Final | None
    stop_hook_active: bool = False
    background_running: bool | None = False
    harness: Harness | None = None
    calls_seen: bool = False


def classify(final: Final, policy: str = POLICY_NOOP, *, work_left: bool = False) -> str:
    """The Stop verdict; `work_left`: the arc has a milestone not done yet."""
    if final.kind == KIND_TOOL_USE:
        return PRODUCTIVE
    # Done said over a failure it does not mention is no completion: the check it answers
    # says otherwise.
    if policy != POLICY_NOOP and _failed_check(final.failures) and handback.says_done(final.text):
        return STALL_UNVERIFIED
    if final.kind == KIND_TEXT and handback.claims_done(final.text):
        return COMPLETE
    if final.kind == KIND_THINKING:
        return SKIP
    if final.kind == KIND_EMPTY or (
        final.kind == KIND_TEXT and (not final.text.strip() or is_sentinel(final.text))
    ):
        return STALL
    if final.kind != KIND_TEXT:
        return PRODUCTIVE
    closing_kind = handback.classify(final.text)
    if closing_kind == handback.DECISION:
        return DECISION
    return _by_policy(closing_kind, policy, work_left)


def _failed_check(failures: Sequence[str]) -> bool:
    """One of the failed calls ran and printed what failed: not one refused, rejected or
    cancelled before it ran (`opkey.never_ran`), nor a probe that answered no by its exit
    status alone (`test -f`, `grep -q`, `git diff --exit-code`)."""
    return any(not opkey.never_ran(text) and handback.shows_failure(text) for text in failures)


def _by_policy(closing_kind: str, policy: str, work_left: bool) -> str:
    if policy == POLICY_STRICT:
        return ASKED.get(closing_kind, STALL_OTHER)
    if policy == POLICY_ASK and closing_kind in ASKED:
        return ASKED[closing_kind]
    # An offer of more help is the end of the work only when no milestone is left: with
    # milestones to do, the model stopped early believing it was finished.
    if policy == POLICY_ASK and closing_kind == handback.COURTESY and work_left:
        return STALL_COURTESY
    return PRODUCTIVE


def unproven(verdict: str, final: Final | None, policy: str) -> bool:
    """A stop that the checks the task names, not yet passed, make a stall: a text stop the
    policy lets through or a completion claim. The proof is not in, and the model can still
    run it; a decision, or a stall of another class, is judged as it is."""
    return (
        policy != POLICY_NOOP
        and final is not None
        and final.kind == KIND_TEXT
        and verdict in (COMPLETE, PRODUCTIVE)
    )


def is_noop(final: Final) -> bool:
    """An empty reply or the sentinel: a stop that did nothing (not narration either)."""
    return classify(final) == STALL


def decide_stop(
    state: State | None, signals: Signals, cfg: Config, now: float
) -> tuple[Decisions | None, State | None]:
    """(output for Claude Code, new state or None when nothing changed)."""
    if state is None:
        return None, None
    final = signals.final
    around = signals.harness or Harness()
    state = clone(state)
    goal.observe(state, around.goal)
    _note_overrides(state, around.overrides, now)
    if final is not None and final.message_id:
        seen = StateFile.view(state).seen
        ids = seen.messages
        seen.messages = ids
        remember(ids, final.message_id, 16)
    if final is not None and final.kind == KIND_TEXT and not is_noop(final):
        guard.on_narration(state)
    arc = StateFile.view(state).arc
    active = arc is not None and arcs.is_active(arc, cfg, now)
    if final is not None and final.resume_id and is_noop(final):
        slug = arcs.name_of(arc) if arc is not None and active else ""
        resumed = _dead_resume(state, final.resume_id, signals.background_running, now, slug=slug)
        if resumed is not None:
            return (render.Continue(resumed),), state
    if not active or arc is None:
        return None, state
    reason = _arc_stop(state, arc, signals, cfg, now)
    return (None if reason is None else (render.Continue(reason),)), state


def _arc_stop(state: State, arc: Arc, signals: Signals, cfg: Config, now: float) -> str | None:
    """The reason to continue this stop with, or None to let it be (`state` is updated)."""
    final = signals.final
    arcs.touch(arc, now)
    base = (
        SKIP
        if final is None
        else classify(final, cfg.stop_policy, work_left=bool(arcs.next_milestone(arc)))
    )
    open_stop = final is not None and unproven(base, final, cfg.stop_policy)
    unchecked = named_checks.missing(arc) if open_stop and signals.calls_seen else []
    # Asked once a chain: the stop after a continuation may name only the items it went on with.
    asked = open_stop and not unchecked and not arc.reconcile_count
    left = task_items.unsaid(arc.task, final.text) if asked and final is not None else []
    verdict = STALL_UNCHECKED if unchecked else STALL_PARTIAL if left else base
    # Only a stall needs a reason to be left alone (and the wait test reads its closing again).
    why = _why_not_continue(state, final, signals, verdict) if verdict in STALLS else None
    if verdict in STALLS and why is None:
        stop_cap = (signals.harness or Harness()).stop_cap
        if _within_caps(state, arc, verdict, cfg, now, stop_cap=stop_cap):
            if left:
                named = ", ".join(f"`{item}`" for item in left)
                return _block(state, arc, verdict, now, f"{SEEN[verdict]} ({named}{DO_OR_SAY})")
            if not unchecked:
                return _block(state, arc, verdict, now, SEEN[verdict])
            arc.checks_asked = True  # told once, until code is edited again
            named = ", ".join(unchecked)
            return _block(state, arc, verdict, now, f"{SEEN[verdict]} ({named}{RUN_OR_SAY})")
        if not (unchecked or left):
            return None
    elif verdict in STALLS:
        _log(state, now, vocabulary.ALLOW, f"{LOGGED[verdict]} stall left alone: {why}")
    # A stop the missing proof or items do not send back is what it is otherwise: a claim
    # still completes the arc.
    _settle(state, arc, base if unchecked or left else verdict, signals, now)
    return None


def _settle(state: State, arc: Arc, verdict: str, signals: Signals, now: float) -> None:
    """Record a stop let be: a completion, a decision or productive work."""
    if verdict == COMPLETE:
        arcs.complete(arc, now)
        _log(state, now, vocabulary.RELEASE, "the model said the arc is complete")
    elif verdict == DECISION:
        _log(state, now, vocabulary.DECISION, "the model stopped for a decision (DECISION NEEDED:)")
    elif verdict == PRODUCTIVE and not signals.stop_hook_active:
        # Inside a continuation chain a trivial turn must not re-arm the consecutive cap.
        arcs.reset_consecutive(arc)


def _dead_resume(
    state: State, resume_id: str, background_running: bool | None, now: float, *, slug: str
) -> str | None:
    """Continue, once per resume prompt, a session that answered it with nothing."""
    seen = StateFile.view(state).seen
    resumes = seen.resumes
    seen.resumes = resumes
    if resume_id in resumes or is_paused(state) or background_running:
        return None
    if goal.active(state):
        return None  # the goal's own Stop hook continues a session that has one
    remember(resumes, resume_id, 16)
    add_log(
        state,
        LogEntry(
            t=now,
            hook="stop",
            kind=vocabulary.CONTINUE,
            reason="a resumed session answered with nothing: sent back to work",
            rule=vocabulary.DEAD_RESUME,
        ),
    )
    return messages.resume_block_reason(slug)


def _why_not_continue(
    state: State, final: Final | None, signals: Signals, verdict: str
) -> str | None:
    if is_paused(state):
        return "the session is paused by arcguard"
    if final is not None and final.synthetic:
        return "the final message is an API error"
    background_running = signals.background_running
    if background_running:
        return "a background task is running; Claude Code wakes the session when it ends"
    if background_running is None and final is not None and handback.waits(final.text):
        return "it waits on work, and this release does not say whether a background task runs"
    # Only a turn handed back to the operator: an announced step says the model goes on.
    arc = StateFile.view(state).arc
    left = arc is not None and bool(arcs.next_milestone(arc))
    needed = None
    if final is not None and verdict in HANDED_BACK:
        needed = user_needed.reason(final.text, work_left=left)
    if needed:
        return f"it says why only the operator can go on ({needed})"
    if goal.active(state):
        # Both would send the model back for the same stop; the goal's judge knows its
        # condition, arcguard does not.
        return "a /goal is active and not met: its evaluator decides whether the session goes on"
    return None


def _within_caps(
    state: State, arc: Arc, verdict: str, cfg: Config, now: float, *, stop_cap: int
) -> bool:
    """Spend one continuation of the arc's caps; False (and a log line) when none is left."""
    in_a_row = consecutive_cap(cfg.max_consecutive_continuations, stop_cap)
    if arcs.try_block(arc, in_a_row, cfg.max_continuations_per_arc, now):
        return True
    clamped = in_a_row < cfg.max_consecutive_continuations
    which = f"Claude Code's Stop-hook cap ({stop_cap} in a row)" if clamped else "continuation cap"
    # Named by class, so a replay or `status` shows which kind of stop the cap let through.
    _log(
        state,
        now,
        vocabulary.CAP,
        f"{LOGGED[verdict]} stop mid-arc: {which} reached; the stop is allowed",
    )
    return False


def _block(state: State, arc: Arc, verdict: str, now: float, seen: str) -> str:
    """The reason a stall is sent back to work with (`seen`: what the stop did), logged."""
    slug = arcs.name_of(arc)
    reason = messages.stop_block_reason(slug, arcs.next_milestone(arc), seen=seen)
    add_log(
        state,
        LogEntry(
            t=now,
            hook="stop",
            kind=vocabulary.CONTINUE,
            reason=f"{LOGGED[verdict]} stop mid-arc sent back to work",
            rule=LOGGED[verdict],
            consecutive=arc.reconcile_count,
            lifetime=arc.total_blocks,
        ),
    )
    return reason


def _note_overrides(state: State, overrides: Sequence[str], now: float) -> None:
    """Log, once each, the turns Claude Code's Stop-hook cap ended although a Stop hook was
    still sending the model back: such a turn ends as if complete, and is not one."""
    record = StateFile.view(state).seen
    seen = record.overrides
    record.overrides = seen
    for override in reversed(overrides):  # oldest first, as they happened
        if override in seen:
            continue
        remember(seen, override, 16)
        _log(
            state,
            now,
            vocabulary.OVERRIDDEN,
            "Claude Code's Stop-hook cap ended a turn a Stop hook was sending back to work:"
            " the turn stopped there, it did not complete",
        )


def _log(state: State, now: float, kind: DecisionKind, reason: str) -> None:
    add_log(state, LogEntry(t=now, hook="stop", kind=kind, reason=reason))
