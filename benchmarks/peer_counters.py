"""Counting rules of other coding agents (opencode, crush, Cline, Roo Code, OpenClaw),
re-implemented as baseline detectors; see peer_rules.py for what a detector returns."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from dataclasses import field

from peer_rules import Hit
from peer_rules import stop
from peer_rules import warn
from peer_sessions import Call
from peer_sessions import Item
from peer_sessions import Prompt


# --- opencode, crush, Cline, Roo Code ------------------------------------------------------

OPENCODE_DOOM = 3
CRUSH_WINDOW = 10
CRUSH_MAX_REPEATS = 5
CLINE_SOFT = 3
CLINE_HARD = 5
CLINE_MISTAKES = 3
ROO_LIMIT = 3
_CLINE_ERRORS = (
    "InputValidationError",
    "No such tool available",
    "Sibling tool call errored",
    "Cancelled: parallel tool call",
)


def opencode(items: list[Item]) -> list[Hit]:
    """Three identical calls at the end of one assistant message."""
    message: list[str] = []
    for item in items:
        if not isinstance(item, Call):
            message = []
            continue
        if item.first:
            message = []
        message.append(item.key())
        if len(message) >= OPENCODE_DOOM and len(set(message[-OPENCODE_DOOM:])) == 1:
            return [stop(item.turn, "doom loop")]
    return []


def opencode_docs(items: list[Item]) -> list[Hit]:
    """Three identical calls in a row, across messages, as the documentation puts it."""
    run: list[str] = []
    for item in items:
        if isinstance(item, Prompt):
            run = []
        elif isinstance(item, Call):
            run = [*run[-(OPENCODE_DOOM - 1) :], item.key()]
            if len(run) == OPENCODE_DOOM and len(set(run)) == 1:
                return [stop(item.turn, "doom loop")]
    return []


def _steps(items: list[Item]) -> list[tuple[str, int, list[Call]]]:
    """The items as ("prompt" | "reply" | "step", turn, calls of that model step)."""
    out: list[tuple[str, int, list[Call]]] = []
    for item in items:
        if isinstance(item, Call):
            if item.first or not out or out[-1][0] != "step" or out[-1][1] != item.turn:
                out.append(("step", item.turn, []))
            out[-1][2].append(item)
        else:
            out.append(("prompt" if isinstance(item, Prompt) else "reply", item.turn, []))
    return out


def crush(items: list[Item]) -> list[Hit]:
    signatures: list[str] = []
    for kind, turn, calls in _steps(items):
        if kind != "step":
            signatures = []  # a new user message or a reply without calls ends the run
            continue
        digest = hashlib.sha256()
        for call in calls:
            for part in (call.name, call.key().split(":", 1)[1], call.output or ""):
                digest.update(part.encode("utf-8", "replace") + b"\0")
        signatures.append(digest.hexdigest())
        if len(signatures) >= CRUSH_WINDOW:
            top = Counter(signatures[-CRUSH_WINDOW:]).most_common(1)[0][1]
            if top > CRUSH_MAX_REPEATS:
                return [stop(turn, "repeated step")]
    return []


def _cline_error(call: Call) -> bool:
    return call.error and any(marker in (call.output or "") for marker in _CLINE_ERRORS)


def cline(items: list[Item]) -> list[Hit]:
    """Neither counter resets on a follow-up prompt."""
    hits: list[Hit] = []
    last, same, mistakes = "", 0, 0
    for kind, turn, calls in _steps(items):
        if kind != "step":
            continue
        for call in calls:
            key = call.key(sort=True)
            same = same + 1 if key == last else 1
            last = key
            if same == CLINE_SOFT:
                hits.append(warn(turn, "same call repeated"))
            if same >= CLINE_HARD:
                return [*hits, stop(turn, "same call repeated")]
        mistakes = mistakes + 1 if all(_cline_error(c) for c in calls) else 0
        if mistakes >= CLINE_MISTAKES:
            return [*hits, stop(turn, "consecutive mistakes")]
    return hits


def roo(items: list[Item]) -> list[Hit]:
    """The counter starts at 0 on a new call: the fourth identical call in a row is refused
    and the user asked. It never resets on a follow-up prompt."""
    last, repeats = "", 0
    for item in items:
        if not isinstance(item, Call):
            continue
        key = item.key(sort=True)
        repeats = repeats + 1 if key == last else 0
        last = key
        if repeats >= ROO_LIMIT:
            return [stop(item.turn, "identical tool call repeated")]
    return []


# --- OpenClaw (off by default) -------------------------------------------------------------

OPENCLAW_HISTORY = 30
OPENCLAW_WARNING = 10
OPENCLAW_CRITICAL = 20
OPENCLAW_BREAKER = 30
OPENCLAW_BUCKET = 10
OPENCLAW_POLL_TOOLS = ("BashOutput", "TaskOutput")


def _outcome(call: Call) -> str:
    digest = hashlib.sha256(json.dumps([call.error, call.output]).encode("utf-8", "replace"))
    return digest.hexdigest()


def _unchanged(history: list[tuple[str, str]], key: str) -> int:
    """How many of the latest calls with this key, in a row, had one same outcome."""
    outcomes = [o for k, o in history if k == key]
    run = 0
    for outcome in reversed(outcomes):
        if outcome != outcomes[-1]:
            break
        run += 1
    return run


def _ping_pong(history: list[tuple[str, str]], key: str) -> tuple[int, bool]:
    """The length of the A/B alternation this call would extend, and whether each side's
    outcomes stayed the same throughout it."""
    if len(history) < 2 or history[-1][0] == key or history[-2][0] != key:
        return 0, False
    other = history[-1][0]
    run = 0
    for n, (k, _) in enumerate(reversed(history)):
        if k != (other if n % 2 == 0 else key):
            break
        run += 1
    span = history[-run:]
    stable = all(len({o for k, o in span if k == side}) == 1 for side in (key, other))
    return run + 1, stable


@dataclass
class _OpenClawRun:
    history: list[tuple[str, str]] = field(default_factory=list)
    warned: dict[str, int] = field(default_factory=dict)

    def check(self, call: Call) -> tuple[str, str] | None:
        """(kind, rule) for this call, judged before it runs, or None."""
        key = call.key(sort=True)
        same = sum(1 for k, _ in self.history if k == key)
        unchanged = _unchanged(self.history, key) if same else 0
        alternation, stable = _ping_pong(self.history, key)
        if unchanged >= OPENCLAW_BREAKER:
            return "stop", "global circuit breaker"
        if call.name in OPENCLAW_POLL_TOOLS and unchanged >= OPENCLAW_CRITICAL:
            return "stop", "poll without progress"
        if same >= OPENCLAW_CRITICAL and unchanged >= OPENCLAW_CRITICAL:
            return "stop", "generic repeat"
        if alternation >= OPENCLAW_CRITICAL and stable:
            return "stop", "ping-pong"
        count = max(unchanged if call.name in OPENCLAW_POLL_TOOLS else same, alternation)
        bucket = count // OPENCLAW_BUCKET
        if count >= OPENCLAW_WARNING and bucket > self.warned.get(key, 0):
            self.warned[key] = bucket
            return "warn", "repeated call"
        return None

    def record(self, call: Call) -> None:
        self.history = [*self.history, (call.key(sort=True), _outcome(call))][-OPENCLAW_HISTORY:]


def openclaw(items: list[Item]) -> list[Hit]:
    """A block refuses the one call and the run goes on, so the refused call never runs."""
    hits: list[Hit] = []
    run = _OpenClawRun()
    for item in items:
        if isinstance(item, Prompt):
            run = _OpenClawRun()
        elif isinstance(item, Call):
            found = run.check(item)
            if found is None or found[0] == "warn":
                run.record(item)
            if found is not None:
                kind, rule = found
                hits.append(
                    warn(item.turn, rule) if kind == "warn" else stop(item.turn, rule, halts=False)
                )
    return hits
