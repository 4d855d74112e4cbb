"""One line for the user about what arcguard just did, separate from what the model is told.

Claude Code shows a hook's `systemMessage` on the screen ("Stop says: ...") and in
stream-json output, and never sends it to the model. Every decision that acts on the session
(a continuation, a deny, a pause, a check-in, a resume, a give-up, ...) gets one, built here
from the new entries of the decision log, so no rule has to word it: a decision kind without
a text of its own still gets a generic line, and only the kinds listed as silent get none.

Pure.
"""

from __future__ import annotations

from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.schema import LogEntry

# Kinds that record what arcguard saw, not something it did to the session (`overridden` is
# found a stop later, when Claude Code has long shown its own warning).
SILENT = frozenset({"allow", "release", "decision", "untracked", "arc", "api-error", "overridden"})
# When one hook run logs several decisions (a deny and the pause it brings), the user hears
# about the one that matters most: earlier in this list wins; unknown kinds come last.
PRIORITY = ("pause", "give-up", "cap", "block", "deny", "nudge", "resume", "limit-wait")
MAX_LINE = 300

# Stop block `rule` (the stall class) -> why the model was sent back, as the user reads it.
STALL_WHY = {
    "no-op": "it stopped mid-arc with nothing done",
    "question": "it stopped to ask permission mid-arc",
    "announced-step": "it announced a step mid-arc without taking it",
    "unexplained": "it stopped mid-arc without finishing or naming a decision it needs",
    "courtesy": "it offered more help while the arc still has milestones to do",
    "dead-resume": "the resumed session answered with nothing",
}


def _one_line(text: str) -> str:
    return clip(" ".join(text.split()), MAX_LINE)


def _block(entry: LogEntry, cfg: Config) -> str:
    why = STALL_WHY.get(str(entry.get("rule", "")), "it stopped mid-arc")
    consecutive = entry.get("consecutive")
    count = (
        f" ({consecutive} of {cfg.max_consecutive_continuations} in a row)"
        if isinstance(consecutive, int)
        else ""
    )
    return f"arcguard sent the model back to work{count}: {why}"


def _cap(entry: LogEntry, cfg: Config) -> str:
    return (
        "arcguard let the model stop mid-arc: a continuation cap is reached (at most"
        f" {cfg.max_consecutive_continuations} in a row, {cfg.max_continuations_per_arc}"
        " per arc)"
    )


def _deny(entry: LogEntry, cfg: Config) -> str:
    runs = entry.get("runs")
    ran = f", already run {runs} times with the same result" if isinstance(runs, int) else ""
    return f"arcguard denied a repeated call ({entry.get('operation', 'a tool call')}{ran})"


def _pause(entry: LogEntry, cfg: Config) -> str:
    reason = str(entry.get("reason", ""))
    return reason if reason.startswith("arcguard") else f"arcguard paused this session: {reason}"


def _nudge(entry: LogEntry, cfg: Config) -> str:
    return "arcguard asked the model to check in: a summary of what is done and what is left"


def _resume(entry: LogEntry, cfg: Config) -> str:
    return "arcguard: your message cleared the pause; the loop guard starts afresh"


def _give_up(entry: LogEntry, cfg: Config) -> str:
    reason = str(entry.get("reason", "")).removeprefix("no resume after the API limit: ")
    return f"arcguard will not resume this session after the API limit: {reason}"


def _limit_wait(entry: LogEntry, cfg: Config) -> str:
    attempt, of = entry.get("attempt"), entry.get("of")
    which = f" (resume {attempt} of {of})" if isinstance(attempt, int) else ""
    return f"arcguard will wake this session when the API limit resets{which}"


def _arc_change(entry: LogEntry, cfg: Config) -> str:
    return f"arcguard: {entry.get('reason', 'the arc ended')} (/autonomous stop ends an arc)"


def _generic(entry: LogEntry, cfg: Config) -> str:
    reason = str(entry.get("reason", "")).removeprefix("[arcguard] ")
    return f"arcguard ({entry.get('kind', 'decision')}): {reason}"


TEXTS: dict[str, Callable[[LogEntry, Config], str]] = {
    "block": _block,
    "cap": _cap,
    "deny": _deny,
    "pause": _pause,
    "nudge": _nudge,
    "resume": _resume,
    "give-up": _give_up,
    "limit-wait": _limit_wait,
    "arc-new": _arc_change,
    "arc-stop": _arc_change,
}


def _rank(entry: LogEntry) -> int:
    kind = str(entry.get("kind", ""))
    return PRIORITY.index(kind) if kind in PRIORITY else len(PRIORITY)


def user_line(entries: list[LogEntry], cfg: Config) -> str | None:
    """The line for the decisions in `entries` (one hook run's), or None if all are silent."""
    acting = [e for e in entries if str(e.get("kind", "")) not in SILENT]
    if not acting:
        return None
    entry = min(acting, key=_rank)  # the first of the most important kind
    text = TEXTS.get(str(entry.get("kind", "")), _generic)(entry, cfg)
    return _one_line(text)


def attach(output: Output | None, line: str | None) -> Output | None:
    """`output` with `line` as its `systemMessage` (an output of its own if there was none)."""
    if line is None:
        return output
    return {**(output or {}), "systemMessage": line}
