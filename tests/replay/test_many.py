"""`arcguard replay PATH...` over several transcripts and folders: the summary."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from testing.builders import Transcript

from arcguard.commands.replay import replay as command
from tests.replay import examples_spec


EXAMPLES = examples_spec.EXAMPLES


def run(*args: str) -> str:
    out = CliRunner().invoke(command, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def test_folders_and_files_give_a_summary_with_rates(tmp_path: Path) -> None:
    folder = tmp_path / "history" / "project"
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLES / "4-thrash-paused.jsonl", folder)
    shutil.copy(EXAMPLES / "2-legitimate-stop.jsonl", folder)
    data = json.loads(
        run(str(tmp_path / "history"), str(EXAMPLES / "1-stall-continued.jsonl"), "--json")
    )
    assert data["sessions"] == 3
    assert [Path(f["transcript"]).name for f in data["files"]] == [
        "2-legitimate-stop.jsonl",
        "4-thrash-paused.jsonl",
        "1-stall-continued.jsonl",
    ]
    calls = sum(f["tool_calls"] for f in data["files"])
    assert data["tool_calls"] == calls == 13
    assert data["interventions"] == {"deny": 2, "pause": 1, "continue": 1, "nudge": 0}
    assert data["interventions_per_1000_tool_calls"] == {
        "deny": round(2000 / 13, 2),
        "pause": round(1000 / 13, 2),
        "continue": round(1000 / 13, 2),
        "nudge": 0.0,
    }
    text = run(str(tmp_path / "history"), str(EXAMPLES / "1-stall-continued.jsonl"))
    assert text.splitlines()[0].split()[:7] == [
        "transcript",
        "calls",
        "turns",
        "deny",
        "pause",
        "continue",
        "nudge",
    ]
    assert any(line.startswith("total") for line in text.splitlines())
    assert "3 sessions, 13 tool calls. Interventions per 1,000 tool calls: deny 153.85" in text


def test_one_transcript_keeps_its_timeline_unless_a_summary_is_asked() -> None:
    path = str(EXAMPLES / "4-thrash-paused.jsonl")
    assert run(path).startswith("Replay of ")
    assert run(path, "--summary").startswith("transcript")


def test_arc_flag_reaches_every_session(tmp_path: Path) -> None:
    t = Transcript().prompt("ship it").bash("ls", "a").text("No response requested.")
    path = str(t.write(tmp_path / "a.jsonl"))
    assert json.loads(run(path, "--summary", "--json"))["interventions"]["continue"] == 0
    assert json.loads(run(path, "--summary", "--json", "--arc"))["interventions"]["continue"] == 1


def test_replay_text_escapes_control_characters(tmp_path: Path) -> None:
    t = Transcript().prompt("/autonomous tidy")
    for _ in range(6):
        t.bash("ls \x1b[2J\x1b]0;owned\x07", "same")
    out = run(str(t.write(tmp_path / "hostile.jsonl")))
    assert "deny" in out
    assert "\x1b" not in out and "\x07" not in out
