"""Closing turns from PreToolUse and Stop where Claude Code never sends PostToolBatch."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from arcguard.core import render
from arcguard.core.config import default_config
from arcguard.core.loop_guard import finished
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import repeat
from arcguard.core.loop_guard import turns
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


_ids = itertools.count(1)
_results = itertools.count(1)


class Session:
    """A session on a release without PostToolBatch: PreToolUse, PostToolUse and Stop only."""

    def __init__(self, **overrides: Any) -> None:
        self.cfg = default_config()
        for key, value in overrides.items():
            setattr(self.cfg, key, value)
        self.now = 1_000_000.0
        self.state: Any = fresh_state("sess", self.now)
        self.outputs: list[Any] = []

    def _tick(self) -> float:
        self.now += 1.0
        return self.now

    def message(
        self,
        *commands: str,
        text: str = "",
        fresh: bool = False,
        message_id: str | None = "auto",
        result: str | None = None,
    ) -> None:
        """One assistant message whose Bash calls run one after another."""
        mid = f"msg_{next(_ids)}" if message_id == "auto" else message_id
        for command in commands:
            call = ToolCall("Bash", {"command": command}, f"toolu_{next(_ids)}")
            closed, self.state = turns.before_call(
                self.state,
                self.cfg,
                self._tick(),
                call,
                turns.MessageSeen(mid, tool_only=not text),
                arc_active=False,
            )
            out, self.state = repeat.decide_pre_tool(self.state, self.cfg, self._tick(), call)
            self.outputs.append(closed)
            if out and any(isinstance(d, render.Deny) for d in out):
                continue
            response = {"stdout": f"{command} {next(_results)}" if fresh else result or command}
            _, self.state = finished.decide_post_tool(
                self.state, self.cfg, self._tick(), call, ToolResult(response=response)
            )

    def stop(self) -> Any:
        out, new = turns.at_stop(self.state, self.cfg, self._tick(), arc_active=False)
        if new is not None:
            self.state = new
        return out

    @property
    def main(self) -> dict[str, Any]:
        return self.state["guard"]["tracks"]["main"]

    @property
    def paused(self) -> dict[str, Any] | None:
        return self.state["guard"].get("paused")


def test_alternating_pair_without_batch_is_paused_when_the_next_call_arrives():
    s = Session()
    for _ in range(3):
        s.message("echo A")
        s.message("echo B")
    assert s.paused is None  # the sixth turn is still open
    s.message("echo A")
    assert s.paused is not None and s.paused["kind"] == "cycle"
    assert s.outputs[-1] is not None and isinstance(s.outputs[-1][0], render.Pause)


def test_the_stop_closes_the_open_turn_and_passes_its_pause_on():
    s = Session()
    for _ in range(5):
        s.message("poll", fresh=True)
    assert s.paused is None
    out = s.stop()
    assert s.paused is not None and s.paused["kind"] == "cycle"
    assert out == (render.Pause(s.paused["reason"]),)
    assert s.stop() is None  # nothing is left open to close twice


def test_calls_of_one_message_are_one_turn():
    s = Session()
    s.message("echo A", "echo B")
    s.message("echo C")
    assert s.main["turns"] == 1
    assert len(s.main["fingerprints"]) == 1
    assert [c["label"] for c in s.main["open_turn"]["steps"]] == ["Bash: echo C"]


def test_a_nudge_from_a_closed_turn_comes_with_the_next_call():
    # Reads that keep showing the same thing: quiet turns, though no two are alike.
    s = Session(checkin_turns=3)
    for n in range(5):
        s.message(f"cat notes{n}.txt", result="unchanged")
    context = [o for o in s.outputs if o and render.context_text(o)]
    assert len(context) == 1
    # The PreToolUse hook that closed the turn carries it, addressed to its own event.
    printed = render.output(context[0], "PreToolUse")
    assert printed is not None and printed["hookSpecificOutput"]["hookEventName"] == "PreToolUse"


def test_a_call_whose_message_is_unknown_counts_no_turn():
    s = Session()
    for _ in range(8):
        s.message("echo A", message_id=None)
        s.message("echo B", message_id=None)
    assert s.main["turns"] == 0
    assert s.paused is None


def test_a_turn_opened_before_its_message_was_on_disk_is_named_later_and_closed():
    s = Session()
    s.message("echo A", message_id=None)  # the first call of a turn: not looked up
    [tool_use_id] = turns.unnamed_open_turn(s.state, None)
    assert tool_use_id.startswith("toolu_")
    s.state = turns.name_open_turn(s.state, None, s.now, message_id="msg_a", tool_only=True)
    assert turns.unnamed_open_turn(s.state, None) is None
    s.message("echo B")
    assert s.main["turns"] == 1 and s.main["streak"] == 1


def test_a_turn_whose_message_is_never_found_is_closed_as_unknown():
    s = Session()
    s.message("echo A", message_id=None)
    s.message("echo B")
    assert s.main["turns"] == 1 and s.main["streak"] == 0 and s.main["fingerprints"] == []


def test_once_post_tool_batch_fires_the_fallback_closes_no_turn():
    s = Session()
    s.message("echo A")
    turns.on_batch(s.state)
    assert "open_turn" not in s.main
    for _ in range(6):
        s.message("echo A")
        s.message("echo B")
    assert s.main["turns"] == 0 and "open_turn" not in s.main
    assert s.stop() is None


def test_a_malformed_open_turn_is_dropped_not_closed():
    s = Session()
    s.message("echo A")
    s.main["open_turn"] = {"message": 3, "calls": "x"}
    s.message("echo B")
    assert s.main["turns"] == 0
    assert [c["label"] for c in s.main["open_turn"]["steps"]] == ["Bash: echo B"]


# --- outcomes from PostToolBatch -------------------------------------------------------------


def _batch_turn(
    state: Any, cfg: Any, now: float, commands: list[str], response: str
) -> tuple[list[Any], Any]:
    """One turn whose calls all pass PreToolUse first (parallel), then only the batch reports."""
    pre_outputs: list[Any] = []
    calls: list[tuple[ToolCall, ToolResult]] = []
    for command in commands:
        call = ToolCall("Bash", {"command": command}, f"toolu_{next(_ids)}")
        out, state = repeat.decide_pre_tool(state, cfg, now, call)
        pre_outputs.append(out)
        calls.append((call, ToolResult(response=response)))
    state = turns.record_batch_results(state, cfg, now, calls)
    return pre_outputs, state


def test_the_batch_resolves_parallel_identical_calls_each_by_its_own_id():
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    outputs, state = _batch_turn(state, cfg, 2.0, ["ls build", "ls build"], "no such file")
    assert outputs == [None, None]
    runs = state["guard"]["tracks"]["main"]["ops"]
    [op] = runs.values()
    assert [r["outcome"] is not None for r in op["runs"]] == [True, True]
    outputs, state = _batch_turn(state, cfg, 3.0, ["ls build"], "no such file")
    assert outputs[0] is not None
    assert isinstance(outputs[0][0], render.Deny)


def test_a_denied_calls_text_in_the_batch_is_not_fresh_evidence():
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    for now in (2.0, 3.0):
        _, state = _batch_turn(state, cfg, now, ["make"], "error: 1")
    outputs, state = _batch_turn(state, cfg, 4.0, ["make"], "PreToolUse:Bash hook error: no")
    track = state["guard"]["tracks"]["main"]
    assert outputs[0] is not None  # denied as a repeat
    assert len(track["results"]) == 1  # only "error: 1": the denial taught nothing new


def test_a_record_resolved_by_post_tool_use_keeps_its_outcome():
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    call = ToolCall("Bash", {"command": "make"}, "t1")
    _, state = repeat.decide_pre_tool(state, cfg, 2.0, call)
    failure = ToolResult(failed=True, error="Exit code 2", duration_ms=5)
    _, state = finished.decide_post_tool(state, cfg, 3.0, call, failure)
    [op] = state["guard"]["tracks"]["main"]["ops"].values()
    before = op["runs"][-1]["outcome"]
    state = turns.record_batch_results(
        state, cfg, 4.0, [(call, ToolResult(response="Exit code 2"))]
    )
    [op] = state["guard"]["tracks"]["main"]["ops"].values()
    assert op["runs"][-1]["outcome"] == before and before.startswith(opkey.FAILED)


# What the model saw for calls that never ran, measured with Claude Code 2.1.328: a Bash call
# with no rule to allow it in headless mode, a deny rule, an unknown tool, a sibling cancelled
# by a failing parallel call, and a PreToolUse deny (arcguard's own or another hook's); and
# Claude Code's input checks, which refuse a call before any hook runs (tests/e2e).
NEVER_RAN_TEXTS = [
    "This command requires approval",
    "Permission to use Bash with command echo denied has been denied.",
    "<tool_use_error>Error: No such tool available: GetTask. GetTask is not a tool you can "
    "call.</tool_use_error>",
    "<tool_use_error>Sibling tool call errored</tool_use_error>",
    "<tool_use_error>Cancelled: parallel tool call Bash(make) errored</tool_use_error>",
    "PreToolUse:Bash hook error: [arcguard] another hook said no\nsecond line",
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>",
    "<tool_use_error>String to replace not found in file.\nString: \tbar()</tool_use_error>",
    "<tool_use_error>InputValidationError: Read failed due to the following issue:\nThe "
    "parameter `offset` type is expected as `number` but provided as `string`</tool_use_error>",
]


@pytest.mark.parametrize("text", NEVER_RAN_TEXTS)
def test_a_batch_text_of_a_call_that_never_ran_is_recognised(text: str) -> None:
    assert opkey.batch_never_ran(text)


@pytest.mark.parametrize(
    "text",
    [
        "This command requires approval\nfrom the release manager",  # a command's own output
        "Permission to use the printer has been denied.\nretrying",
        "<tool_use_error>Sibling tool call errored</tool_use_error>\ntrailing output",
        "Exit code 1\n<tool_use_error>Sibling tool call errored</tool_use_error>",
        "<tool_use_error>Error calling tool (Fetch): socket hang up</tool_use_error>",  # it ran
        "ok",
    ],
)
def test_a_batch_text_that_only_resembles_a_harness_refusal_is_a_result(text: str) -> None:
    assert not opkey.batch_never_ran(text)


def test_a_structured_batch_response_is_a_result() -> None:
    assert not opkey.batch_never_ran({"stdout": "This command requires approval"})


def _turn_as_the_batch_reports_it(
    state: Any, cfg: Any, now: float, tool_use_id: str, response: str
) -> tuple[Any, Any]:
    """PreToolUse for one `make`, then PostToolBatch as the hook runs it: outcomes first,
    then the turn rules, which settle calls left without a result."""
    call = ToolCall("Bash", {"command": "make"}, tool_use_id)
    pre, state = repeat.decide_pre_tool(state, cfg, now, call)
    if pre and any(isinstance(d, render.Deny) for d in pre):
        return pre, state
    state = turns.record_batch_results(state, cfg, now, [(call, ToolResult(response=response))])
    turn = guard.TurnEnd(True, calls=[call], tool_use_ids=[tool_use_id])
    _, state = guard.decide_post_batch(state, cfg, now, turn, arc_active=False)
    return pre, state


@pytest.mark.parametrize("text", NEVER_RAN_TEXTS)
def test_calls_that_never_ran_per_the_batch_are_not_runs(text: str) -> None:
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    for n in range(cfg.repeat_limit + 2):
        pre, state = _turn_as_the_batch_reports_it(state, cfg, 2.0 + n, f"t{n}", text)
        assert pre is None, f"call {n} was denied as a repeat"
    track = StateFile.view(state).guard.tracks["main"]
    [op] = track.ops.values()
    assert {r.outcome for r in op.runs} == {opkey.NOT_RUN}
    assert track.results == []  # the refusal text taught nothing new


def test_a_call_that_ran_per_the_batch_still_counts_as_a_run() -> None:
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    outputs = []
    for n in range(cfg.repeat_limit + 1):
        pre, state = _turn_as_the_batch_reports_it(state, cfg, 2.0 + n, f"t{n}", "make: done")
        outputs.append(pre)
    assert outputs[:-1] == [None] * cfg.repeat_limit
    assert outputs[-1] is not None


def test_the_batch_placeholder_for_no_output_is_not_fresh_evidence() -> None:
    # The batch hands over the text the model saw: for a command that printed nothing that
    # is the harness's placeholder, which tells no more than an empty structured response.
    cfg = default_config()
    state = fresh_state("sess", 1.0)
    _, state = _batch_turn(state, cfg, 2.0, ["true"], "(Bash completed with no output)")
    track = state["guard"]["tracks"]["main"]
    assert track["results"] == []
    assert not track["turn"].get("new_result")


@pytest.mark.parametrize(
    "text",
    [
        "(Bash completed with no output)\nbut then a line",
        "(" + "x" * 200 + " completed with no output)",
        "Bash completed with no output",
    ],
)
def test_output_that_only_resembles_the_no_output_placeholder_is_output(text: str) -> None:
    assert not opkey.is_empty_output_text(text)


def test_an_open_turn_an_earlier_version_wrote_with_whole_inputs_closes_as_before():
    def run(old_format: bool) -> Session:
        s = Session()
        for n in range(4):
            s.message(f"echo {n % 2}", "ls")
            if old_format:
                # How an earlier version kept the open turn: each call's name and whole input.
                turn = s.main["open_turn"]
                turn["calls"] = [
                    ["Bash", {"command": f"echo {n % 2}"}],
                    ["Bash", {"command": "ls"}],
                ]
                del turn["steps"]
        s.stop()
        return s

    new, old = run(False), run(True)
    assert old.main["fingerprints"] == new.main["fingerprints"] and new.main["fingerprints"]
    assert old.main["labels"] == new.main["labels"]
    assert old.main["turns"] == new.main["turns"] == 4


def test_an_open_turn_keeps_no_input_only_ids_and_clipped_labels():
    s = Session()
    s.message("cat <<'EOF'\n" + "x" * 100 + "SECRET-ISH-TAIL" * 1000 + "\nEOF")
    turn = s.main["open_turn"]
    assert turn["calls"] == []
    [step] = turn["steps"]
    assert set(step) == {"op", "label", "allowed", "waits", "polls"}
    assert "SECRET-ISH-TAIL" not in str(turn) and len(step["label"]) <= 90
