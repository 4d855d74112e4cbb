"""Drive the loop guard's pure core through whole turns, as the hooks would."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING
from typing import Any

from arcguard.core import render
from arcguard.core.config import Config
from arcguard.core.config import default_config
from arcguard.core.loop_guard import cycle_run
from arcguard.core.loop_guard import finished
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import repeat
from arcguard.core.loop_guard import turns
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


if TYPE_CHECKING:
    from arcguard.core.render import Decisions
    from arcguard.core.state import State
    from arcguard.jsonio import JSONObject


_ids = itertools.count(1)


class Call:
    """One tool call and the result the harness will report for it."""

    def __init__(
        self,
        name: str,
        tool_input: dict[str, Any],
        *,
        response: Any = "ok",
        error: str | None = None,
        duration_ms: int = 10,
        ran: bool = True,
        file_state: str | None = None,
    ) -> None:
        self.name = name
        self.input = tool_input
        self.response = response
        self.error = error
        self.duration_ms = duration_ms
        self.ran = ran  # False: refused before it started, so no result event comes
        self.file_state = file_state  # what the pre-tool hook's stat of the file saw


def tag(n: int) -> str:
    """`n` spelt in letters: a value that makes a result's shape new, where digits would not
    (the loop guard sets numbers aside when it compares results by shape)."""
    return "".join("abcdefghij"[int(c)] for c in str(n))


_ticks = itertools.count(1)


def ticking(command: str) -> Call:
    """A call whose output differs every time only in a clock time: never a repeat by
    outcome, yet its answer never moves (`loop_guard.answers`)."""
    n = next(_ticks)
    return bash(
        command, response=f"{command} at {10 + n // 3600 % 14}:{n // 60 % 60:02d}:{n % 60:02d}"
    )


def bash(command: str, response: Any = None, **kw: Any) -> Call:
    out = {"stdout": command if response is None else response, "stderr": "", "interrupted": False}
    return Call("Bash", {"command": command, **kw.pop("input", {})}, response=out, **kw)


def edit(path: str, old: str, new: str, *, original: str | None = None) -> Call:
    """A confirmed Edit. Its response shows the patch and, given `original`, the file's content
    before it, so an edit going back to a content seen is a revisit."""
    response: dict[str, Any] = {"filePath": path}
    if original is not None:
        response.update(oldString=old, newString=new, originalFile=original)
    response["structuredPatch"] = [{"lines": [f"-{old}", f"+{new}"]}]
    return Call(
        "Edit", {"file_path": path, "old_string": old, "new_string": new}, response=response
    )


def fail(command: str, text: str) -> Call:
    """A command that exits 1 printing `text`, as Claude Code reports a failed Bash call."""
    return Call("Bash", {"command": command}, error=f"Exit code 1\n{text}")


class Driver:
    """A session seen by the loop guard; `turn()` runs one assistant turn's hook events."""

    def __init__(self, cfg: Config | None = None, **overrides: Any) -> None:
        self.cfg = cfg or default_config()
        for key, value in overrides.items():
            setattr(self.cfg, key, value)
        self.now = 1_000_000.0
        self.state: State = fresh_state("sess", self.now)
        self.turns = 0
        self.denied: list[str] = []  # labels of denied calls, all turns
        self.outputs: list[Decisions] = []

    def _tick(self) -> float:
        self.now += 1.0
        return self.now

    def wait(self, seconds: float) -> None:
        """Let time pass between turns."""
        self.now += seconds

    def turn(
        self,
        *calls: Call,
        text: str | None = "",
        agent_id: str | None = None,
        arc_active: bool = False,
        queued: list[tuple[str, str, bool]] | None = None,
        late: bool = False,
    ) -> dict[str, Any]:
        """Run PreToolUse/PostToolUse for each call, then PostToolBatch. Returns a summary.

        `text=None`: the turn's message could not be read. `late`: it was not on disk yet at
        the batch, so the turn is taken as tool-only until `settle` (`text` is then unused).
        """
        self.turns += 1
        denied = []
        outputs = []
        ids = []
        for call in calls:
            tool_use_id = f"toolu_{next(_ids)}"
            ids.append(tool_use_id)
            made = ToolCall(call.name, call.input, tool_use_id, agent_id)
            out, self.state = repeat.decide_pre_tool(
                self.state, self.cfg, self._tick(), made, file_state=call.file_state
            )
            if out:
                outputs.append(out)
            if out and any(isinstance(d, render.Deny) for d in out):
                denied.append(call)
                continue
            if not call.ran:
                continue
            result = (
                ToolResult(failed=True, error=call.error, duration_ms=call.duration_ms)
                if call.error is not None
                else ToolResult(response=call.response, duration_ms=call.duration_ms)
            )
            out, self.state = finished.decide_post_tool(
                self.state, self.cfg, self._tick(), made, result
            )
            if out:
                outputs.append(out)
        out = None
        if calls:
            turn = guard.TurnEnd(
                True if late else (None if text is None else not text.strip()),
                calls=[ToolCall(c.name, c.input, agent=agent_id) for c in calls],
                agent=agent_id,
                tool_use_ids=ids,
                queued=queued or (),
                unconfirmed=late,
                narration=text if text and text.strip() and not late else None,
            )
            out, self.state = guard.decide_post_batch(
                self.state, self.cfg, self._tick(), turn, arc_active=arc_active
            )
            turns.on_batch(self.state)  # as the hook does: PostToolBatch closes every turn
        elif text and text.strip():
            guard.on_narration(self.state)
        if out:
            outputs.append(out)
        self.denied.extend(c.name for c in denied)
        self.outputs.extend(outputs)
        return {
            "denied": denied,
            "outputs": outputs,
            "paused": self.paused,
            "context": [text for o in outputs if (text := render.context_text(o))],
        }

    def settle(self, *texts: str | None, agent_id: str | None = None) -> None:
        """The oldest late turns' messages, read at last, in order: a text each, None for
        one that never can be."""
        readings = [
            cycle_run.Reading(None)
            if text is None
            else cycle_run.Reading(not text.strip(), text if text.strip() else None)
            for text in texts
        ]
        cycle_run.settle(self.state, self.cfg, agent_id, readings)

    def operator(self, prompt: str = "carry on") -> None:
        guard.on_operator_message(self.state, self._tick())

    @property
    def paused(self) -> JSONObject | None:
        """The pause as the state file holds it."""
        paused = StateFile.view(self.state).guard.paused
        return paused.data if paused is not None else None

    @property
    def main(self) -> JSONObject:
        """The main track as the state file holds it."""
        return StateFile.view(self.state).guard.tracks["main"].data


def staged(d: Driver, calls: list[Call]) -> list[str]:
    """What followed each call, one turn each: "word", "pause" or "" (none after a pause)."""
    out = []
    for call in calls:
        context = d.turn(call)["context"]
        out.append("pause" if d.paused else "word" if context else "")
        if d.paused:
            break
    return out


def nudge_rule(d: Driver) -> str | None:
    """The rule of the first request to summarise the session logged."""
    return next((e.rule for e in StateFile.view(d.state).log if e.kind == "nudge"), None)
