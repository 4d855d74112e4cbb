"""Other coding agents' loop rules, re-implemented as baseline detectors over one agent's items
(prompts, tool calls with results, replies) of a recorded Claude Code session.

Each detector returns its interventions: a `warn` (the peer tells the model, the run goes on)
or a `stop` (the peer halts the run, asks the user, or refuses the call). `halts`: the run
would have ended there, so the detector reads no further, as arcguard's replay stops at a
pause. The constants are the peers' defaults; docs/loop-guard.md names each rule's
source and the choices made to map it onto Claude Code's records.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from peer_sessions import Call
from peer_sessions import Item
from peer_sessions import Prompt
from peer_sessions import Reply


WARN = "warn"
STOP = "stop"


@dataclass(frozen=True)
class Hit:
    turn: int
    kind: str
    rule: str
    halts: bool = True


Detector = Callable[[list[Item]], list[Hit]]


def stop(turn: int, rule: str, *, halts: bool = True) -> Hit:
    return Hit(turn, STOP, rule, halts)


def warn(turn: int, rule: str) -> Hit:
    return Hit(turn, WARN, rule, False)


def until_halt(hits: list[Hit]) -> list[Hit]:
    """The hits up to and including the first that ends the run."""
    for n, hit in enumerate(hits):
        if hit.halts and hit.kind == STOP:
            return hits[: n + 1]
    return hits


# --- gemini-cli ----------------------------------------------------------------------------

GEMINI_TOOL_THRESHOLD = 5
GEMINI_MAX_PERIOD = 5
GEMINI_CHUNK = 50
GEMINI_CONTENT_THRESHOLD = 10
GEMINI_HISTORY = 5000
_MARKDOWN = re.compile(r"^\s*(\||[-*+] |\d+\. |#|>)")


def _cycle(keys: list[str]) -> bool:
    """The tail is one block of 1 to 5 keys repeated five times."""
    for period in range(1, GEMINI_MAX_PERIOD + 1):
        size = period * GEMINI_TOOL_THRESHOLD
        tail = keys[-size:]
        if len(tail) == size and tail == tail[:period] * GEMINI_TOOL_THRESHOLD:
            return True
    return False


@dataclass
class _Chanting:
    """Streamed text cut into sliding 50-character chunks; a chunk seen ten times close
    together, with few distinct stretches between its occurrences, is a content loop."""

    text: str = ""
    index: int = 0
    seen: dict[str, list[int]] = field(default_factory=dict)
    in_fence: bool = False

    def reset(self) -> None:
        self.text, self.index, self.seen = "", 0, {}

    def feed(self, text: str) -> bool:
        for line in text.splitlines(keepends=True):
            if line.lstrip().startswith("```"):
                self.in_fence = not self.in_fence
                self.reset()
            elif not self.in_fence and _MARKDOWN.match(line):
                self.reset()
            elif not self.in_fence and self._add(line):
                return True
        return False

    def _add(self, line: str) -> bool:
        self.text += line
        if len(self.text) > GEMINI_HISTORY:
            cut = len(self.text) - GEMINI_HISTORY
            self.text, self.index = self.text[cut:], max(0, self.index - cut)
            self.seen = {
                k: [i - cut for i in v if i >= cut] for k, v in self.seen.items() if v[-1] >= cut
            }
        while self.index + GEMINI_CHUNK <= len(self.text):
            chunk = self.text[self.index : self.index + GEMINI_CHUNK]
            where = self.seen.setdefault(chunk, [])
            where.append(self.index)
            self.index += 1
            if len(where) >= GEMINI_CONTENT_THRESHOLD and self._looping(where):
                return True
        return False

    def _looping(self, where: list[int]) -> bool:
        recent = where[-GEMINI_CONTENT_THRESHOLD:]
        if (recent[-1] - recent[0]) / (len(recent) - 1) > GEMINI_CHUNK * 5:
            return False
        stretches = {self.text[a:b] for a, b in itertools.pairwise(recent)}
        return len(stretches) <= GEMINI_CONTENT_THRESHOLD // 2


def gemini(items: list[Item]) -> list[Hit]:
    """Strike one warns; the next detection, before a new prompt, halts the request."""
    hits: list[Hit] = []
    keys: list[str] = []
    chanting = _Chanting()
    strikes = 0
    for item in items:
        found = ""
        if isinstance(item, Prompt):
            keys, chanting, strikes = [], _Chanting(), 0
            continue
        if isinstance(item, Reply):
            found = "content loop" if chanting.feed(item.text) else ""
        else:
            if item.first and chanting.feed(item.thought):
                found = "content loop"
            chanting.reset()  # a tool call resets the content tracking
            keys = [*keys[-(GEMINI_MAX_PERIOD * GEMINI_TOOL_THRESHOLD - 1) :], item.key()]
            if not found and _cycle(keys):
                found = "tool call loop"
        if found:
            strikes += 1
            if strikes > 1:
                return [*hits, stop(item.turn, found)]
            hits.append(warn(item.turn, found))
    return hits


# --- OpenHands -----------------------------------------------------------------------------

OPENHANDS_SAME = 4
OPENHANDS_ERRORS = 3
OPENHANDS_MONOLOGUE = 3
OPENHANDS_ALTERNATING = 6
OPENHANDS_V1_WINDOW = 20
_EXIT = re.compile(r"^Exit code (\d+)")


def _is_shell_exit(call: Call) -> bool:
    return call.name == "Bash" and bool(_EXIT.match(call.output or ""))


def _agent_error(call: Call) -> bool:
    """A refused or broken call (Claude Code's error results other than a command's
    non-zero exit, which OpenHands reports as an ordinary command output)."""
    return call.error and not _is_shell_exit(call)


def _v0_observation(call: Call) -> str:
    if call.name == "Bash" and not _agent_error(call):
        match = _EXIT.match(call.output or "")
        return f"cmd {call.key()} exit {match.group(1) if match else '0'}"
    return ("error " if call.error else "") + (call.output or "")


@dataclass
class _Events:
    """Actions, observations and agent messages since the last user message."""

    events: list[tuple[str, str]] = field(default_factory=list)

    def of(self, kind: str, window: int | None = None) -> list[str]:
        scope = self.events if window is None else self.events[-window:]
        return [v for k, v in scope if k == kind or (kind == "obs" and k == "err")]

    def tail(self, window: int | None = None) -> list[tuple[str, str]]:
        return self.events if window is None else self.events[-window:]


def _same(values: list[str], n: int) -> bool:
    return len(values) >= n and len(set(values[-n:])) == 1


def _alternating(values: list[str]) -> bool:
    last = values[-OPENHANDS_ALTERNATING:]
    if len(last) < OPENHANDS_ALTERNATING:
        return False
    return all(last[i] == last[i + 2] for i in range(OPENHANDS_ALTERNATING - 2))


def _error_run(events: list[tuple[str, str]]) -> int:
    """How many times in a row the latest action was answered by an error."""
    pairs = [(a[1], o) for a, o in itertools.pairwise(events) if a[0] == "act"]
    run = 0
    for action, (kind, _) in reversed(pairs):
        if kind != "err" or action != pairs[-1][0]:
            break
        run += 1
    return run


def _openhands(
    items: list[Item],
    action: Callable[[Call], str],
    observation: Callable[[Call], str],
    check: Callable[[_Events, int], Hit | None],
) -> list[Hit]:
    """Both versions keep actions, observations and messages since the user's last message,
    and judge them before each step of the agent."""
    hits: list[Hit] = []
    log = _Events()
    for item in items:
        if isinstance(item, Prompt):
            log = _Events()
            continue
        if isinstance(item, Reply):
            log.events.append(("msg", item.text))
        else:
            log.events.append(("act", action(item)))
            log.events.append(("err" if _agent_error(item) else "obs", observation(item)))
        hit = check(log, item.turn)
        if hit is not None:
            hits.append(hit)
            if hit.kind == STOP:
                break
    return hits


def openhands_v1(items: list[Item]) -> list[Hit]:
    """An action includes the text before it; observations compare whole outputs."""
    return _openhands(
        items, lambda c: f"{c.thought}\n{c.key()}", lambda c: c.output or "", _v1_check
    )


def _v1_check(log: _Events, turn: int) -> Hit | None:
    window = log.tail(OPENHANDS_V1_WINDOW)
    acts = [v for k, v in window if k == "act"]
    obs = [v for k, v in window if k in ("obs", "err")]
    if _same(acts, OPENHANDS_SAME) and _same(obs, OPENHANDS_SAME):
        return stop(turn, "repeating action and observation")
    errors = _error_run(window)
    if errors > OPENHANDS_ERRORS:
        return stop(turn, "repeating action and error")
    if errors == OPENHANDS_ERRORS and window[-1][0] == "err":
        return warn(turn, "repeating action and error")
    if len(window) >= OPENHANDS_MONOLOGUE and all(
        k == "msg" for k, _ in window[-OPENHANDS_MONOLOGUE:]
    ):
        return stop(turn, "monologue")
    if _alternating(acts) and _alternating(obs):
        return stop(turn, "alternating pattern")
    return None


def openhands_v0(items: list[Item]) -> list[Hit]:
    """A shell result compares only its command and exit code."""
    return _openhands(items, lambda c: c.key(), _v0_observation, _v0_hit)


def _v0_hit(log: _Events, turn: int) -> Hit | None:
    rule = _v0_check(log)
    return None if rule is None else stop(turn, rule)


def _v0_check(log: _Events) -> str | None:
    acts, obs = log.of("act"), log.of("obs")
    errors = [k == "err" for k, _ in log.events if k in ("obs", "err")]
    if _same(acts, OPENHANDS_SAME) and _same(obs, OPENHANDS_SAME):
        return "repeating action and observation"
    errors = errors[-OPENHANDS_ERRORS:]
    if _same(acts, OPENHANDS_ERRORS) and len(errors) == OPENHANDS_ERRORS and all(errors):
        return "repeating action and error"
    messages = log.events[-OPENHANDS_MONOLOGUE:]
    spoken = [v for k, v in messages if k == "msg"]
    if len(spoken) == OPENHANDS_MONOLOGUE and len(set(spoken)) == 1:
        return "monologue"
    if _alternating(acts) and _alternating(obs):
        return "alternating pattern"
    return None
