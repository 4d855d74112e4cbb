"""Replay sends the hooks what Claude Code would, for the shapes real transcripts hold."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import lines
from arcguard.forensics import scan_paths
from arcguard.replay import replay
from arcguard.replay.events import EventBuilder
from arcguard.transcript.records import parse_entry


CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "corpus"


def events(t: Transcript, *, arc: bool = False) -> list[tuple[str, dict[str, Any]]]:
    builder = EventBuilder.start(arc=arc)
    out = []
    for entry in t.entries:
        out += builder.feed(parse_entry(entry))
    out += builder.finish()
    return [(e.event, e.fields) for e in out]


def names(t: Transcript) -> list[str]:
    return [name for name, _ in events(t)]


def test_a_message_split_by_a_streamed_result_is_one_turn(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    t.split_tools(
        ("Bash", {"command": "a"}, {"stdout": "1"}), ("Bash", {"command": "b"}, {"stdout": "2"})
    )
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
    assert replay(str(t.write(tmp_path / "t.jsonl"))).turns == 2


def test_a_subagent_transcript_replays_as_the_subagent(tmp_path: Path) -> None:
    t = Transcript().prompt("Explore the project").bash("ls", "a").bash("ls lib", "b")
    t.text("Here is the structure.").as_subagent("afc096d")
    seen = events(t)
    assert [n for n, _ in seen] == ["PreToolUse", "PostToolUse", "PostToolBatch"] * 2
    assert all(fields["agent_id"] == "afc096d" for _, fields in seen)
    result = replay(str(t.write(tmp_path / "agent-afc096d.jsonl")))
    assert result.turns == 3 and result.agent_id == "afc096d"


def test_a_subagent_id_that_is_not_a_plain_name_is_not_used_as_one() -> None:
    t = Transcript().prompt("x").bash("ls", "a").as_subagent("../../etc/x")
    assert {f["agent_id"] for _, f in events(t)} == {"replayed"}


def test_a_queued_prompt_is_the_operator_and_a_queued_notification_is_not() -> None:
    t = Transcript().prompt("go").bash("ls", "a").queued("also check the docs")
    t.bash("ls docs", "b").queued(
        "<task-notification>done</task-notification>", mode="task-notification"
    )
    t.text("done")
    seen = events(t)
    prompts = [f["prompt"] for n, f in seen if n == "UserPromptSubmit"]
    assert prompts == ["go", "also check the docs", "<task-notification>done</task-notification>"]
    # The queued prompt arrives after the results of the call before it, and ends no turn.
    order = [n for n, _ in seen]
    assert order.index("UserPromptSubmit", 2) > order.index("PostToolBatch")
    assert order.count("Stop") == 1


def test_no_stop_for_a_local_commands_placeholder() -> None:
    t = Transcript().prompt("go").text("finished").local_command("exit", "Goodbye!")
    stops = [f["last_assistant_message"] for n, f in events(t) if n == "Stop"]
    assert stops == ["finished"]


def test_an_api_error_ending_is_a_stop_failure_and_a_placeholder_is_not() -> None:
    t = Transcript().prompt("go").api_error("API Error: Request rejected (429)", error="rate_limit")
    t.prompt("again").text("ok").local_command("ide", "Connected")
    seen = [n for n, _ in events(t)]
    assert seen.count("StopFailure") == 1 and seen.count("Stop") == 1


def test_a_failed_attempt_no_reply_followed_ends_the_turn_a_retried_one_does_not() -> None:
    retried = Transcript().prompt("go").system_error(529).text("ok")
    assert "StopFailure" not in names(retried)
    ended = Transcript().prompt("go").system_error(None).prompt("are you there?")
    failures = [f["error"] for n, f in events(ended) if n == "StopFailure"]
    assert failures == ["unknown"]


def test_arc_flag_starts_an_arc_at_the_first_operator_prompt(tmp_path: Path) -> None:
    t = Transcript().prompt("ship the importer").bash("ls", "a")
    t.text("No response requested.").prompt("thanks").text("ok")
    prompts = [f["prompt"] for n, f in events(t, arc=True) if n == "UserPromptSubmit"]
    assert prompts == ["/autonomous ship the importer", "thanks"]
    path = str(t.write(tmp_path / "t.jsonl"))
    assert "continue" in replay(path, arc=True).summary()
    assert "continue" not in replay(path).summary()


def builder_counts(path: Path) -> tuple[int, int]:
    builder = EventBuilder.start()
    malformed = 0
    with path.open("rb") as handle:
        for raw in lines.read_lines(handle):
            line = lines.judge(raw, orjson.loads)
            malformed += line.status == lines.MALFORMED
            for entry in line.entries:
                builder.feed(entry)
    builder.finish()
    return builder.total_turns, malformed


CORPUS_FILES = sorted(p.name for p in CORPUS.glob("*.jsonl")) if CORPUS.is_dir() else []


@pytest.mark.skipif(
    not CORPUS.is_dir(), reason="calibration corpus not present next to the repository"
)
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_replay_and_forensics_agree_on_turns_and_malformed_lines(name: str) -> None:
    # Replay's turn count is its event builder's; the full hook run is pinned on one file below.
    report = scan_paths([str(CORPUS / name)], default_config())
    assert builder_counts(CORPUS / name) == (report.turns, report.malformed_lines)
    assert report.turns > 0


@pytest.mark.skipif(not CORPUS.is_dir(), reason="calibration corpus not present")
def test_full_replay_of_a_corpus_subagent_file_counts_its_turns() -> None:
    path = CORPUS / "spotter-subagent-explore-sessionlive.jsonl"
    report = scan_paths([str(path)], default_config())
    assert replay(str(path)).turns == report.turns == 12
