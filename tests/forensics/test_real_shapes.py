"""Forensics reads the shapes real Claude Code transcripts hold, and reports them honestly."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import scan_paths
from arcguard.forensics.histogram import distribution
from arcguard.forensics.report import Report
from arcguard.forensics.text_report import render
from arcguard.replay import replay


def scan(path: Path) -> Report:
    return scan_paths([str(path)], default_config())


def test_entries_are_labelled_by_their_own_type_not_a_nested_one(tmp_path: Path) -> None:
    t = Transcript().prompt("go").queued("also this").bash("ls", "a")
    t.attachment({"type": "task_reminder", "content": []})
    t.attachment({"type": "hook_success", "content": ""})
    t.other("mode", mode="normal")  # a real top-level type of recent releases
    t.other("weird-new-type", data={"type": "inner"})
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.entry_types["attachment"] == 3
    assert report.unknown_types == Counter({"weird-new-type": 1})


def test_queued_prompts_are_operator_prompts_and_queued_notifications_are_not(
    tmp_path: Path,
) -> None:
    t = Transcript().prompt("go").bash("ls", "a").queued("and the docs").bash("ls d", "b")
    t.queued("<task-notification>x</task-notification>", mode="task-notification").text("ok")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.operator_prompts == 2
    assert report.task_notifications == 1


def test_placeholders_after_local_commands_are_not_stalls(tmp_path: Path) -> None:
    t = Transcript().prompt("go").text("done").local_command("exit", "Goodbye!")
    t.prompt("back").text("hi").local_command("ide", "Connected to VS Code")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.stalls["total"] == 0
    assert report.placeholders == 2
    real = Transcript().prompt("go").text("No response requested.")
    assert scan(real.write(tmp_path / "b.jsonl")).stalls["total"] == 1


def test_system_api_error_endings_are_counted_by_kind(tmp_path: Path) -> None:
    t = Transcript().prompt("go").system_error(None).prompt("still there?")
    t.system_error(529).text("recovered on retry")  # a retry that got through: no ending
    t.prompt("more").system_error(429).api_error(
        "API Error: Request rejected (429)", error="rate_limit"
    )
    t.prompt("again").system_error(500)
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.api_errors == Counter({"network": 1, "rate_limit": 1, "other": 1})
    assert report.api_errors_unresumed == Counter({"other": 1})


def test_a_line_holding_two_entries_is_recovered_by_both_tools(tmp_path: Path) -> None:
    t = Transcript().prompt("go").bash("ls", "a").text("the reply both tools dropped")
    body = t.lines()
    snapshot = json.dumps(
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}, separators=(",", ":")
    )
    body[-1] = body[-1] + snapshot  # Claude Code wrote them without a newline between
    path = tmp_path / "a.jsonl"
    path.write_text("\n".join(body) + "\n")
    report = scan(path)
    assert (report.turns, report.malformed_lines) == (2, 0)
    assert report.entry_types["file-history-snapshot"] == 1
    replayed = replay(str(path))
    assert (replayed.turns, replayed.malformed_lines) == (2, 0)
    stops = [s.event.fields for s in replayed.steps if s.event.event == "Stop"]
    assert stops[-1]["last_assistant_message"] == "the reply both tools dropped"


def test_percentiles_only_with_enough_samples() -> None:
    few = distribution(Counter({62: 1, 1714: 1}))
    assert few["p50"] is None and few["values"] == [62, 1714] and few["max"] == 1714
    many = distribution(Counter(range(1, 21)))
    assert many["p50"] == 11 and "values" not in many


def test_two_api_error_gaps_are_shown_as_values_not_a_median(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    t.api_error("API Error: Request rejected (429)", error="rate_limit").prompt("go", advance=62)
    t.api_error("API Error: Request rejected (429)", error="rate_limit").prompt("go", advance=1714)
    t.text("ok")
    data = scan(t.write(tmp_path / "a.jsonl")).as_dict()
    limit = data["api_errors"]["rate_limit"]
    assert limit["gap_seconds_median"] is None and limit["gap_seconds"] == [62.0, 1714.0]
    assert "gaps to resume 62s, 1714s" in render(data)
    assert "median" not in render(data)


def test_no_loop_seen_never_suggests_a_stricter_cycle_rule(tmp_path: Path) -> None:
    t = Transcript()
    for i in range(60):
        t.prompt(f"task {i}")
        for j in range(3):
            t.bash(f"c{i}-{j}", "x")  # every call different: no repeat, no cycle
        t.text("done")
    cfg = default_config()
    data = scan(t.write(tmp_path / "a.jsonl")).as_dict(dict(cfg.as_dict()))
    by_name = {s["name"]: s for s in data["thresholds"]}
    assert by_name["cycle_repeats"]["suggested"] == cfg.cycle_repeats
    assert by_name["cycle_repeats_identical"]["suggested"] == cfg.cycle_repeats_identical
    assert "never occurred" in by_name["cycle_repeats"]["basis"]
