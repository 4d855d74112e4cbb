from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from testing.builders import FIXTURES
from testing.builders import Transcript

from arcguard.core.loop_guard import opkey
from arcguard.core.schema import LogEntry
from arcguard.forensics import entries as kinds
from arcguard.replay import replay
from arcguard.replay import replayer as replay_module
from arcguard.replay.events import EventBuilder
from arcguard.replay.replayer import new_log_entries
from arcguard.transcript.records import parse_entry
from tests.replay import examples_spec


EXAMPLES = examples_spec.EXAMPLES


def events_of(t: Transcript) -> list[tuple[str, dict[str, Any]]]:
    builder = EventBuilder.start()
    out = []
    for entry in t.entries:
        out += builder.feed(parse_entry(entry))
    out += builder.finish()
    return [(e.event, e.fields) for e in out]


def names(t: Transcript) -> list[str]:
    return [name for name, _ in events_of(t)]


def test_a_continuation_given_as_additional_context_ends_the_turn() -> None:
    # 2.1.163 and newer write no "Stop hook feedback:" entry: the attachment is the only sign
    # that the turn ended and a Stop hook sent the model back; the next Stop is chained.
    t = Transcript().prompt("go").text("No response requested.")
    t.stop_context("[arcguard] keep going").text("Back at it.")
    builder, stops = EventBuilder.start(), []
    for entry in t.entries:
        for event in builder.feed(parse_entry(entry)):
            if event.event == "Stop":
                stops.append(event.fields)
                builder.after_stop(False)  # as the replay does: our hook did not block
    stops += [e.fields for e in builder.finish() if e.event == "Stop"]
    assert [s["last_assistant_message"] for s in stops] == ["No response requested.", "Back at it."]
    assert [s["stop_hook_active"] for s in stops] == [False, True]


def test_a_bare_arcguard_deny_of_an_older_release_is_no_failure() -> None:
    t = Transcript().prompt("go")
    t.tools(("Bash", {"command": "ls"}, "[arcguard] Denied as a repeat: ..."), error=True)
    assert "PostToolUseFailure" not in names(t)


def test_event_order_for_a_turn_with_parallel_calls() -> None:
    t = Transcript().prompt("go")
    t.tools(("Bash", {"command": "a"}, {"stdout": "1"}), ("Read", {"file_path": "/x"}, "x"))
    t.text("done")
    assert names(t) == [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PreToolUse",
        "PostToolUse",
        "PostToolUse",
        "PostToolBatch",
        "Stop",
    ]
    events = {n: f for n, f in events_of(t) if n in ("PostToolUse", "Stop")}
    assert events["Stop"]["last_assistant_message"] == "done"
    batch = next(f for n, f in events_of(t) if n == "PostToolBatch")
    assert [c["tool_name"] for c in batch["tool_calls"]] == ["Bash", "Read"]
    post = next(f for n, f in events_of(t) if n == "PostToolUse")
    assert post["tool_response"] == {"stdout": "1"}  # the structured toolUseResult


def test_failed_call_gives_post_tool_use_failure_with_its_text() -> None:
    t = (
        Transcript()
        .prompt("go")
        .tools(("Bash", {"command": "x"}, "Exit code 2\nboom"), error=True)
        .text("it failed")
    )
    failure = [f for n, f in events_of(t) if n == "PostToolUseFailure"]
    assert failure and failure[0]["error"] == "Exit code 2\nboom"


NOT_FOUND = "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"


def test_a_call_refused_by_the_input_check_fires_no_hook_but_is_in_its_batch(
    tmp_path: Path,
) -> None:
    # Claude Code refuses it before any hook runs (tests/e2e/test_refused_calls.py).
    t = Transcript().prompt("go")
    edit = {"file_path": "/p/a.go", "old_string": "x", "new_string": "y"}
    t.tools(("Edit", edit, NOT_FOUND), ("Bash", {"command": "false"}, "Exit code 1"), error=True)
    t.text("done")
    path = t.write(tmp_path / "refused.jsonl")
    refused = replay_module.refused_ids(str(path), orjson.loads)
    uses = [
        block
        for entry in t.entries
        if entry.get("type") == "assistant"
        for block in entry["message"]["content"]
        if block.get("type") == "tool_use"
    ]
    assert refused == {b["id"] for b in uses if b["name"] == "Edit"}
    builder = EventBuilder.start(refused=refused)
    events = [e for entry in t.entries for e in builder.feed(parse_entry(entry))]
    per_call = [(e.event, e.fields["tool_name"]) for e in events if "tool_name" in e.fields]
    assert per_call == [("PreToolUse", "Bash"), ("PostToolUseFailure", "Bash")]
    [batch] = [e.fields for e in events if e.event == "PostToolBatch"]
    calls = batch["tool_calls"]
    assert isinstance(calls, list) and [c["tool_name"] for c in calls] == ["Edit", "Bash"]


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (NOT_FOUND, True),
        ("<tool_use_error>InputValidationError: bad offset</tool_use_error>", True),
        ("<tool_use_error>Error: No such tool available: X</tool_use_error>", True),
        ("<tool_use_error>Error calling tool (Fetch): boom</tool_use_error>", False),
        (
            "<tool_use_error>Cancelled: parallel tool call Bash(x) errored</tool_use_error>",
            False,
        ),
        ("<tool_use_error>Sibling tool call errored</tool_use_error>", False),
        ("PreToolUse:Edit hook error: no", False),
        ("Exit code 1\n<tool_use_error>x</tool_use_error>", False),
    ],
)
def test_which_texts_are_the_input_checks(text: str, refused: bool) -> None:
    assert opkey.refused_before_hooks(text) is refused


def test_only_real_prompts_are_user_prompt_submit() -> None:
    t = Transcript().prompt("first").text("a")
    t.feedback("[hook]: again").text("b")
    t.prompt("Caveat: local", meta=True)
    t.prompt("<task-notification>done</task-notification>").text("c")
    prompts = [f["prompt"] for n, f in events_of(t) if n == "UserPromptSubmit"]
    assert prompts == ["first", "<task-notification>done</task-notification>"]


def test_no_stop_on_interrupt_and_stop_failure_on_api_error() -> None:
    t = Transcript().prompt("go").text("partial").prompt("[Request interrupted by user]")
    t.prompt("again").api_error("API Error: Request rejected (429)", error="rate_limit")
    evs = events_of(t)
    assert [n for n, _ in evs].count("Stop") == 0
    assert (
        "StopFailure",
        {
            "cwd": "/home/dev/project",
            "error": "rate_limit",
            "last_assistant_message": "API Error: Request rejected (429)",
        },
    ) in evs


def test_stop_hook_active_follows_the_chain() -> None:
    t = Transcript().prompt("go").text("one").feedback("[hook]: more").text("two")
    t.prompt("new prompt").text("three")
    stops = [f["stop_hook_active"] for n, f in events_of(t) if n == "Stop"]
    builder = EventBuilder.start()
    active = []
    for entry in [*t.entries, None]:
        for e in builder.feed(parse_entry(entry)) if entry else builder.finish():
            if e.event == "Stop":
                active.append(e.fields["stop_hook_active"])
                builder.after_stop(False)
    assert active == [False, True, False]  # the recorded feedback chains the second stop
    assert stops[0] is False


def test_rejected_call_has_no_post_event_and_no_batch() -> None:
    t = Transcript().prompt("go")
    t.tools(
        (
            "Bash",
            {"command": "rm -rf build"},
            "The user doesn't want to proceed with this tool use.",
        ),
        error=True,
    )
    t.prompt("[Request interrupted by user for tool use]")
    assert names(t) == ["SessionStart", "UserPromptSubmit", "PreToolUse"]


def test_slash_command_is_replayed_as_typed() -> None:
    body = (
        "<command-message>autonomous is running</command-message>\n"
        "<command-name>/autonomous</command-name>\n<command-args>ship it</command-args>"
    )
    assert kinds.classify_user({"type": "user", "message": {"content": body}}) == (
        kinds.OPERATOR,
        "/autonomous ship it",
    )


def test_new_log_entries_with_a_bounded_log() -> None:
    before = [LogEntry(t=i) for i in range(50)]
    after = [*before[2:], LogEntry(t=50), LogEntry(t=51)]
    assert new_log_entries(before, after) == [LogEntry(t=50), LogEntry(t=51)]
    assert new_log_entries(before, before) == []
    assert new_log_entries([], [LogEntry(t=1)]) == [LogEntry(t=1)]


# --- the bundled examples -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(examples_spec.SESSIONS))
def test_bundled_examples_match_their_description(name: str) -> None:
    assert (EXAMPLES / name).read_text(encoding="utf-8") == examples_spec.render(name)


EXPECTED = {
    "1-stall-continued.jsonl": {"arc": 1, "continue": 1, "posture": 1},
    "2-legitimate-stop.jsonl": {"arc": 1, "decision": 1, "posture": 1},
    "3-arc-completes.jsonl": {"arc": 1, "posture": 1, "release": 1},
    "4-thrash-paused.jsonl": {"arc": 1, "deny": 2, "pause": 1, "posture": 1},
    "5-polling-then-work.jsonl": {"arc": 1, "posture": 1},
    "6-question-continued.jsonl": {"arc": 1, "continue": 1, "posture": 1},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_decisions(name: str) -> None:
    result = replay(str(EXAMPLES / name))
    assert result.summary() == EXPECTED[name]


def test_pause_stops_the_replay() -> None:
    result = replay(str(EXAMPLES / "4-thrash-paused.jsonl"))
    assert result.paused_at == 6 and result.diverged_at == 5
    assert result.steps[-1].event.event == "PostToolBatch"  # nothing replayed after it


def test_config_file_changes_the_decisions(tmp_path: Path) -> None:
    config = tmp_path / "lenient.toml"
    config.write_text(
        "[arcguard]\nrepeat_limit = 10\ncycle_repeats = 10\nerror_checkin_repeats = 100\n"
    )
    result = replay(str(EXAMPLES / "4-thrash-paused.jsonl"), config_path=str(config))
    assert result.summary() == {"arc": 1, "posture": 1}


def comparable(result: Any) -> list[tuple[Any, ...]]:
    return [
        (d.turn, d.hook, d.kind, d.reason, json.dumps(d.output, sort_keys=True))
        for d in result.decisions
    ]


def test_in_process_and_subprocess_decide_alike() -> None:
    paths = [EXAMPLES / name for name in sorted(EXPECTED)]
    paths.append(FIXTURES / "manual-compaction-thinking-tools.jsonl")
    for path in paths:
        fast = replay(str(path), executor="in-process")
        real = replay(str(path), executor="subprocess")
        assert comparable(fast) == comparable(real), path.name
        assert [s.event.event for s in fast.steps] == [s.event.event for s in real.steps]


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_real_fixtures_replay_quietly(name: str) -> None:
    # None of these sessions used /autonomous or looped: arcguard would have stayed silent.
    result = replay(str(FIXTURES / name))
    assert result.decisions == []
    assert result.malformed_lines == 0


def test_real_fixture_events_pinned() -> None:
    # manual-compaction-thinking-tools: 6 prompts (5 typed + /compact), 10 tool calls in
    # 7 messages (2 failed: exit 1 and exit 127), 5 turn ends before the compaction.
    result = replay(str(FIXTURES / "manual-compaction-thinking-tools.jsonl"))
    seen = [s.event.event for s in result.steps]
    assert seen.count("UserPromptSubmit") == 6
    assert seen.count("PreToolUse") == 10
    assert seen.count("PostToolUse") + seen.count("PostToolUseFailure") == 10
    assert seen.count("PostToolUseFailure") == 2
    assert seen.count("PostToolBatch") == 7
    assert seen.count("Stop") == 5
    assert seen.count("SessionStart") == 2  # startup and compact


def test_cli_replay_json_and_text() -> None:
    from arcguard.commands.replay import replay as command

    runner = CliRunner()
    out = runner.invoke(command, [str(EXAMPLES / "4-thrash-paused.jsonl"), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["summary"] == EXPECTED["4-thrash-paused.jsonl"]
    assert data["paused_at_turn"] == 6
    text = runner.invoke(command, [str(EXAMPLES / "1-stall-continued.jsonl")]).output
    assert "continue   no-op stop mid-arc sent back to work" in text
    assert "recorded session went differently" in text


def test_demo_narrates_every_example() -> None:
    from arcguard.commands.demo import demo

    out = CliRunner().invoke(demo, [])
    assert out.exit_code == 0, out.output
    assert out.output.count("arcguard sends the model back to work") == 2
    assert out.output.count("arcguard denies the call") == 2
    assert "arcguard pauses the session" in out.output
    assert "arcguard releases the arc" in out.output
    assert "A stop for a real decision (DECISION NEEDED:) is left alone" in out.output
    assert "Asking permission in the middle of an arc is sent back to work" in out.output
