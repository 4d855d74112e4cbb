"""One line for the user about what arcguard just did, separate from what the model is told.

Claude Code shows a hook's notice (`render.Notice`) on the screen ("Stop says: ...") and in
stream-json output, and never sends it to the model. Every decision that acts on the session
(a continuation, a deny, a check-in, a resume, a give-up, ...) gets one, built here from the
new entries of the decision log, so no rule has to word it: a decision kind without a text of
its own still gets a generic line, and only the kinds listed as silent get none (a pause is
already on the screen: see SHOWN_BY_CLAUDE_CODE). Each is one short line in plain words, with
no path and no id, ending with the setting or command that changes it; the model's own,
longer instruction is in the hook's other fields.

Pure.
"""

from __future__ import annotations

from arcguard.core.words import vocabulary
from arcguard.core.words.messages import failed_ways
from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.config import Config
    from arcguard.core.schema import LogEntry

# Kinds that record what arcguard saw, not something it did to the session (`overridden` is
# found a stop later, when Claude Code has long shown its own warning).
SILENT = frozenset(
    {
        vocabulary.ALLOW,
        vocabulary.RELEASE,
        vocabulary.DECISION,
        vocabulary.UNTRACKED,
        vocabulary.ARC,
        vocabulary.API_ERROR,
        vocabulary.OVERRIDDEN,
    }
)
# A pause needs no line of its own: Claude Code prints the pause's reason on the
# screen under "hook stopped Claude", and that reason already ends with what changes it. Lines
# of the same hook run go unsaid with it.
SHOWN_BY_CLAUDE_CODE = frozenset({vocabulary.PAUSE})
# When one hook run logs several decisions (a deny and the pause it brings), the user hears
# about the one that matters most: earlier in this list wins; unknown kinds come last.
PRIORITY = (
    vocabulary.PAUSE,
    vocabulary.GIVE_UP,
    vocabulary.CAP,
    vocabulary.CONTINUE,
    vocabulary.DENY,
    vocabulary.NUDGE,
    vocabulary.RESUME,
    vocabulary.LIMIT_WAIT,
)
MAX_LINE = 300

# The stop class of a continuation (its log entry's `rule`) -> why the model was sent back,
# as the user reads it.
STALL_WHY = {
    vocabulary.NO_OP: "it stopped mid-arc with nothing done",
    vocabulary.QUESTION: "it stopped to ask permission mid-arc",
    vocabulary.ANNOUNCED_STEP: "it announced a step mid-arc without taking it",
    vocabulary.UNEXPLAINED: "it stopped mid-arc without finishing or naming a decision it needs",
    vocabulary.COURTESY: "it offered more help while the arc still has milestones to do",
    vocabulary.PAUSED: "it stopped partway mid-arc, with work still to do",
    vocabulary.UNVERIFIED: "it said the work was done right after a call failed",
    vocabulary.UNCHECKED: "it stopped before the checks its task names had passed",
    vocabulary.DEAD_RESUME: "the resumed session answered with nothing",
}


def _one_line(text: str) -> str:
    return clip(" ".join(text.split()), MAX_LINE)


# How each line ends: what changes it, in a word the user can look up (a config key, a command).
ADJUST = " To change this: "


def _continue(entry: LogEntry, cfg: Config) -> str:
    why = STALL_WHY.get(entry.rule or "", "it stopped mid-arc")
    consecutive = entry.consecutive
    count = (
        f" ({consecutive} of {cfg.max_consecutive_continuations} in a row)"
        if isinstance(consecutive, int)
        else ""
    )
    adjust = "stop_policy, or /autonomous stop"
    return f"arcguard sent the model back to work{count}: {why}.{ADJUST}{adjust}"


def _cap(entry: LogEntry, cfg: Config) -> str:
    return (
        "arcguard let the model stop mid-arc: it was sent back as often as allowed"
        f" ({cfg.max_consecutive_continuations} in a row, {cfg.max_continuations_per_arc} per"
        f" arc).{ADJUST}max_consecutive_continuations, max_continuations_per_arc"
    )


def _deny(entry: LogEntry, cfg: Config) -> str:
    # The tool's name only: a call's label can hold paths, and Claude Code shows the call anyway.
    tool = (entry.operation or "").split(":", 1)[0].strip() or "tool"
    if entry.rule == vocabulary.CANNOT_MATCH:
        return (
            f"arcguard stopped a {tool} search that cannot match as written, after searches"
            f" that found nothing; the model was told the fix.{ADJUST}loop_guard, or arcguard off"
        )
    runs = entry.runs
    ran = f"it ran {runs} times" if isinstance(runs, int) else "it ran before"
    return (
        f"arcguard stopped a repeated {tool} call: {ran} with the same result and nothing"
        f" changed since.{ADJUST}repeat_limit, loop_guard, or arcguard off"
    )


# The rule of a request to the model (its log entry's `rule`) -> what it was asked, why, and
# the settings of that rule. `{n}` is the count the rule reached, where the entry has it.
NUDGE_WHY = {
    vocabulary.EMPTY_SEARCHES: (
        "to check its search: several in a row found nothing",
        "shape_checkin_repeats, loop_guard",
    ),
    vocabulary.SAME_FAILURE: (
        "to step back: {n}attempts failed {how}",
        "error_checkin_repeats, error_pause_repeats, loop_guard",
    ),
    vocabulary.NO_EFFECT: (
        "to step back: {n}changes in a row left what a look shows as it was",
        "error_checkin_repeats, error_pause_repeats, loop_guard",
    ),
    vocabulary.SAME_ANSWER: (
        "to step back: {n}ways of asking one question got the same answer",
        "error_checkin_repeats, error_pause_repeats, loop_guard",
    ),
    vocabulary.REREAD: (
        "to step back: {n}ways of reading one failure showed the same failing lines",
        "error_checkin_repeats, error_pause_repeats, loop_guard",
    ),
    vocabulary.NOTHING_NEW: (
        "to step back: {n}calls in a row brought nothing new",
        "shape_checkin_repeats, shape_pause_repeats, loop_guard",
    ),
    vocabulary.POLL: (
        "what it is waiting for: its poll has shown the same result for minutes",
        "poll_checkin_seconds, poll_pause_seconds",
    ),
    vocabulary.CHECK_IN: (
        "to sum up what is done and what is left: many tool calls in a row without progress",
        "checkin_turns",
    ),
    vocabulary.BACKSTOP: (
        "to sum up what is done and what is left: many turns since your last message",
        "backstop_nudge_turns",
    ),
}


def _nudge(entry: LogEntry, cfg: Config) -> str:
    # Entries logged before nudges carried a rule name one of the two summary requests.
    why, adjust = NUDGE_WHY.get(
        entry.rule or "",
        ("to sum up what is done and what is left", "checkin_turns, backstop_nudge_turns"),
    )
    runs = entry.runs
    count = f"{runs} " if isinstance(runs, int) else ""
    # Two failures taking turns may come with files changed between them (each fixer
    # undoing the other's): only a failure repeating alone says no file changed.
    ways = entry.ways or 1
    how = failed_ways(ways) + (" with no file changed" if ways < 2 else "")
    return f"arcguard asked the model {why.format(n=count, how=how)}.{ADJUST}{adjust}"


def _resume(entry: LogEntry, cfg: Config) -> str:
    return f"arcguard: your message lifted the pause.{ADJUST}loop_guard, or arcguard off"


def _give_up(entry: LogEntry, cfg: Config) -> str:
    reason = entry.reason.removeprefix("no resume after the API limit: ")
    return (
        f"arcguard will not resume this session after the API limit: {reason}."
        f"{ADJUST}limit_resumes_per_arc, limit_wait_max_seconds"
    )


def _limit_wait(entry: LogEntry, cfg: Config) -> str:
    attempt, of = entry.attempt, entry.of
    which = f" (resume {attempt} of {of})" if isinstance(attempt, int) else ""
    return (
        f"arcguard will wake this session when the API limit resets{which}."
        f"{ADJUST}limit_resumes_per_arc (0: never wait)"
    )


def _arc_change(entry: LogEntry, cfg: Config) -> str:
    reason = entry.reason if entry.has("reason") else "the arc ended"
    return f"arcguard: {reason}.{ADJUST}/autonomous stop ends an arc"


def _generic(entry: LogEntry, cfg: Config) -> str:
    reason = entry.reason.removeprefix("[arcguard] ")
    kind = entry.kind if entry.has("kind") else "decision"
    return f"arcguard ({kind}): {reason}.{ADJUST}arcguard off"


TEXTS: dict[str, Callable[[LogEntry, Config], str]] = {
    vocabulary.CONTINUE: _continue,
    vocabulary.CAP: _cap,
    vocabulary.DENY: _deny,
    vocabulary.NUDGE: _nudge,
    vocabulary.RESUME: _resume,
    vocabulary.GIVE_UP: _give_up,
    vocabulary.LIMIT_WAIT: _limit_wait,
    vocabulary.ARC_NEW: _arc_change,
    vocabulary.ARC_STOP: _arc_change,
}


def _rank(entry: LogEntry) -> int:
    kind = entry.kind
    return PRIORITY.index(kind) if kind in PRIORITY else len(PRIORITY)


def user_line(entries: list[LogEntry], cfg: Config) -> str | None:
    """The line for the decisions in `entries` (one hook run's), or None if all are silent."""
    acting = [e for e in entries if e.kind not in SILENT]
    if not acting:
        return None
    entry = min(acting, key=_rank)  # the first of the most important kind
    if entry.kind in SHOWN_BY_CLAUDE_CODE:
        return None
    text = TEXTS.get(entry.kind, _generic)(entry, cfg)
    return _one_line(text)
