"""A subagent whose entries sit inside its parent's transcript (as older Claude Code releases
wrote them) is replayed as that subagent and its turns are counted, by replay and forensics
alike."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import scan_paths
from arcguard.forensics.text_report import render
from arcguard.replay import replay
from arcguard.replay.events import EventBuilder
from arcguard.replay.replayer import Step
from arcguard.transcript.records import parse_entry


FIXTURE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "transcripts"
    / "sidechain-subagent-web-research.jsonl"
)
AGENT = "aac57f5"
SUBAGENT_TURNS = 3  # the fixture replayed from its own file
SUBAGENT_CALLS = 12  # WebSearch 6, WebFetch 6


def subagent_entries() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]


def parent_with_embedded_subagent() -> Transcript:
    """A parent session that launched the fixture's subagent, with the subagent's entries
    written into the parent's own file between the Task call and its result."""
    sub = subagent_entries()
    t = Transcript(session_id=sub[0]["sessionId"]).prompt("Find the OpenTelemetry versions")
    t.assistant(
        {
            "type": "tool_use",
            "id": "toolu_task",
            "name": "Task",
            "input": {
                "description": "versions",
                "prompt": "Search hex.pm",
                "subagent_type": "general-purpose",
            },
        }
    )
    t.entries += sub
    result = t._base("user", 3)
    result["message"] = {
        "role": "user",
        "content": [
            {"tool_use_id": "toolu_task", "type": "tool_result", "content": "The versions are ..."}
        ],
    }
    t.entries.append(result)
    return t.text("Here are the recommended constraints.")


def test_embedded_subagent_entries_replay_as_that_subagent() -> None:
    builder = EventBuilder.start()
    seen = []
    for entry in parent_with_embedded_subagent().entries:
        seen += builder.feed(parse_entry(entry))
    seen += builder.finish()
    tools = [e for e in seen if e.event == "PreToolUse"]
    subagent_calls = [e for e in tools if e.fields.get("agent_id") == AGENT]
    assert len(subagent_calls) == SUBAGENT_CALLS
    assert [e.fields["tool_name"] for e in tools if "agent_id" not in e.fields] == ["Task"]
    # The subagent's own prompt and turn ends belong to the parent's hooks, not to its own.
    prompts = [e.fields["prompt"] for e in seen if e.event == "UserPromptSubmit"]
    assert prompts == ["Find the OpenTelemetry versions"]
    assert [e.event for e in seen].count("Stop") == 1
    assert (builder.turn, builder.total_turns) == (2, 2 + SUBAGENT_TURNS)


def test_replay_and_forensics_count_an_embedded_subagents_turns_alike(tmp_path: Path) -> None:
    path = parent_with_embedded_subagent().write(tmp_path / "parent.jsonl")
    result = replay(str(path))
    report = scan_paths([str(path)], default_config())
    assert result.turns == report.turns == 2 + SUBAGENT_TURNS
    assert result.subagents == {AGENT: SUBAGENT_TURNS}
    assert result.agent_id is None
    assert (report.sessions, report.embedded_subagents) == (1, 1)
    assert "1 stored in their parent's file" in render(report.as_dict())


def test_an_embedded_subagents_lines_go_to_its_own_file_for_the_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hooks read a subagent's calls from its own transcript (found from agent_id): replay
    # writes the recorded lines there, as current releases do, and not into the parent's.
    path = parent_with_embedded_subagent().write(tmp_path / "parent.jsonl")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    written: list[tuple[int, int]] = []

    def look(step: Step) -> None:
        if step.event.fields.get("agent_id") == AGENT and step.event.event == "PostToolUse":
            own = list(scratch.glob(f"*/projects/*/subagents/agent-{AGENT}.jsonl"))
            parent = next(scratch.glob("*/projects/*.jsonl"))
            in_parent = sum(AGENT in line for line in parent.read_text().splitlines())
            written.append((len(own[0].read_text().splitlines()) if own else 0, in_parent))

    replay(str(path), on_step=look)
    assert len(written) == SUBAGENT_CALLS
    assert all(own > 0 and in_parent == 0 for own, in_parent in written)


def test_an_embedded_subagent_id_that_is_not_a_plain_name_is_not_used_as_one(
    tmp_path: Path,
) -> None:
    t = parent_with_embedded_subagent()
    for entry in t.entries:
        if entry.get("isSidechain") is True:
            entry["agentId"] = "../../escape"
    result = replay(str(t.write(tmp_path / "parent.jsonl")))
    assert result.subagents == {"replayed": SUBAGENT_TURNS}
    assert not (tmp_path.parent / "escape.jsonl").exists()
