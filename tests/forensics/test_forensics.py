from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from testing.builders import FIXTURES
from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.core.config_input import build_config
from arcguard.core.loop_guard.period import periodic_suffix
from arcguard.forensics import scan_paths
from arcguard.forensics.analyse import CycleTracker
from arcguard.forensics.histogram import percentile


def scan(*paths: Path, cfg=None):
    return scan_paths([str(p) for p in paths], cfg or default_config())


def test_run_of_known_length(tmp_path: Path) -> None:
    t = Transcript().prompt("fix the importer")
    for i in range(7):
        t.bash(f"step {i}", f"out {i}")
    t.text("Done: the importer parses all rows now.")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.run_lengths == Counter({7: 1})
    assert report.turns == 8
    assert report.tool_turns == 7


def test_narration_splits_runs(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    t.bash("a", "1").bash("b", "2").bash("c", "3", narration="Now checking c.").bash("d", "4")
    t.text("ok")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.run_lengths == Counter({2: 1, 1: 1})


def test_ab_cycle_of_known_repeats(tmp_path: Path) -> None:
    t = Transcript().prompt("make the tests pass")
    for _ in range(4):
        t.bash("npm test", "1 failing").tools(("Read", {"file_path": "/p/a.js"}, "x"))
    t.text("Still failing.")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.max_repeats[2] == 4
    assert report.max_repeats[1] == 1
    assert report.cycle_trips == Counter({2: 1})  # cycle_repeats 3 at the defaults


def test_cycle_trips_follow_the_config(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    for _ in range(4):
        t.bash("npm test", "1 failing").bash("cat log", "x")
    t.text("hm")
    path = t.write(tmp_path / "a.jsonl")
    strict, _ = build_config({"cycle_repeats": 5}, {})
    assert sum(scan(path, cfg=strict).cycle_trips.values()) == 0
    allowed, _ = build_config({"allow": ["Bash(npm test)"]}, {})
    assert sum(scan(path, cfg=allowed).cycle_trips.values()) == 0


def test_nine_rotation_never_trips(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    for _ in range(3):
        for i in range(9):
            t.bash(f"cmd {i}", "same")
    t.text("done")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.run_lengths == Counter({27: 1})
    assert set(report.max_repeats.values()) == {1}
    assert not report.cycle_trips


def test_identical_repeats(tmp_path: Path) -> None:
    t = Transcript().prompt("go")
    for _ in range(6):
        t.bash("gh run view 1", "in progress")
    t.text("CI still running.")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.max_repeats[1] == 6
    assert report.max_repeats[2] == 1  # A,A,A is never a period-2 cycle
    assert report.cycle_trips == Counter({1: 1})


def test_operator_prompts_count_exactly(tmp_path: Path) -> None:
    t = Transcript()
    for i in range(5):
        t.prompt(f"task {i}").bash(f"work {i}", "ok").text("I did it.")
        t.feedback("[hook]: keep going")  # a Stop hook's block: not the operator
        t.text("Really done.")
    t.prompt("<task-notification><task-id>x</task-id></task-notification>")
    t.prompt("Caveat: local commands below.", meta=True)
    t.prompt("[Request interrupted by user]")
    entry = t.prompt("This session is being continued from a previous conversation ...")
    entry.entries[-1]["isCompactSummary"] = True
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.operator_prompts == 5
    assert report.task_notifications == 1
    assert report.stop_feedback == 5
    assert report.stretches == Counter({3: 5})


def test_rate_limited_ending_and_gap(tmp_path: Path) -> None:
    t = Transcript().prompt("go").bash("a", "1")
    t.api_error("API Error: Request rejected (429) · rate limited", error="rate_limit")
    t.prompt("continue", advance=3600)
    t.bash("b", "2").text("ok")
    t.api_error("API Error: Repeated 529 Overloaded errors")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.api_errors == Counter({"rate_limit": 1, "overload": 1})
    assert report.api_error_gaps == {"rate_limit": [3600.0]}
    assert report.api_errors_unresumed == Counter({"overload": 1})
    assert report.turns == 3  # synthetic entries are not model turns
    assert report.continue_nudges == 1


def test_stalls_and_continue_nudges(tmp_path: Path) -> None:
    t = Transcript().prompt("/autonomous ship it").bash("a", "1").text("No response requested.")
    t.prompt("Keep going!").bash("b", "2").text("")
    t.prompt("continue please")
    t.assistant({"type": "text", "text": "No response requested."}, synthetic=True)
    t.prompt("what about the docs?").text("Docs are next.").text("No response requested.")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.stalls["total"] == 4
    assert report.stalls["synthetic"] == 1
    assert report.stalls["followed_by_continue_nudge"] == 2
    assert report.stalls["followed_by_other_prompt"] == 1
    assert report.stalls["at_end_of_session"] == 1
    assert report.continue_nudges == 2


def test_garbage_lines_are_counted_not_fatal(tmp_path: Path) -> None:
    t = Transcript().prompt("go").bash("a", "1").text("ok")
    garbage = [
        '{"type":"assistant","message":{"id":"m',
        "not json at all",
        "[1, 2, 3]",
        '{"type":"user", "broken": }',
        "\x00\x01binary",
        '{"type":"weird-new-type"}',
    ]
    path = t.write(tmp_path / "a.jsonl", garbage=garbage)
    report = scan(path)
    assert report.malformed_lines == 5
    assert report.unknown_types == Counter({"weird-new-type": 1})
    assert report.turns == 2 and report.operator_prompts == 1


def test_arcguard_footprint(tmp_path: Path) -> None:
    t = Transcript().prompt("/autonomous x").text("No response requested.")
    t.feedback("[arcguard] Autonomous arc 'x' is still active ...")
    t.tools(
        (
            "Bash",
            {"command": "pytest"},
            "PreToolUse:Bash hook error: [arcguard] Denied as a repeat: ...",
        ),
        error=True,
    )
    t.text("ok")
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.footprint == Counter({"stop_continuations": 1, "denials": 1})
    assert report.stalls["followed_by_stop_hook"] == 1


def test_arcguard_footprint_in_every_recorded_form(tmp_path: Path) -> None:
    # 2.1.163 and newer: the continuation as an attachment, the pause as the session's end.
    new = Transcript().prompt("/autonomous x").text("No response requested.")
    new.stop_context("[arcguard] Autonomous arc 'x' is still active ...")
    new.tools(
        ("Bash", {"command": "make"}, "PreToolUse:Bash hook error: [arcguard] Denied"), error=True
    )
    new.hook_stopped("arcguard paused this session: the model repeated a 2-call cycle")
    # 2.1.78: a deny without the hook's prefix, a pause held by denying every later call.
    old = Transcript(session_id="old").prompt("/autonomous x").text("No response requested.")
    old.feedback("[arcguard] Autonomous arc 'x' is still active ...")
    old.tools(("Bash", {"command": "make"}, "[arcguard] Denied as a repeat: ..."), error=True)
    for _ in range(3):
        old.tools(("Bash", {"command": "ls"}, "arcguard paused this session: ..."), error=True)
    for t, name in ((new, "new.jsonl"), (old, "old.jsonl")):
        report = scan(t.write(tmp_path / name))
        assert report.footprint == Counter({"stop_continuations": 1, "denials": 1, "pauses": 1})
        assert report.stalls["followed_by_stop_hook"] == 1 and report.stop_feedback == 1


def test_another_hooks_context_is_no_continuation(tmp_path: Path) -> None:
    t = Transcript().prompt("/autonomous x").text("No response requested.")
    t.attachment({"type": "hook_additional_context", "content": ["x"], "hookEvent": "PostToolUse"})
    report = scan(t.write(tmp_path / "a.jsonl"))
    assert report.stop_feedback == 0 and report.stalls["at_end_of_session"] == 1


def test_skips_are_counted(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "notes.txt").write_text("x")
    Transcript().prompt("only a prompt").write(tmp_path / "p.jsonl")
    report = scan_paths(
        [str(tmp_path), str(tmp_path / "notes.txt"), str(tmp_path / "nope")], default_config()
    )
    assert report.skipped == Counter(
        {
            "empty file": 1,
            "not a .jsonl file": 1,
            "path does not exist": 1,
            "no assistant messages": 1,
        }
    )
    assert report.files_scanned == 0


def test_percentile_is_the_nearest_rank_without_interpolation() -> None:
    hist = Counter({1: 5, 2: 3, 3: 1, 16: 1})  # sorted: 1,1,1,1,1,2,2,2,3,16
    assert percentile(hist, 50) == 2  # index 5
    assert percentile(hist, 90) == 16  # index 9
    assert percentile(Counter(), 50) is None


@given(st.lists(st.sampled_from("ABC"), min_size=1, max_size=40))
def test_incremental_repeats_match_the_core(seq: list[str]) -> None:
    tracker = CycleTracker.start(default_config())
    best = dict.fromkeys(range(1, 9), 1)
    for i, item in enumerate(seq):
        tracker.push(item)
        prefix = seq[: i + 1]
        for p in range(1, 9):
            if p > 1 and len(set(prefix[-p:])) < 2:
                continue
            best[p] = max(best[p], (periodic_suffix(prefix, p) + p) // p)
    assert tracker.best[1:] == [best[p] for p in range(1, 9)]


def test_suggestions_with_enough_data(tmp_path: Path) -> None:
    t = Transcript()
    for i in range(60):
        t.prompt(f"task {i}")
        for j in range(3):
            t.bash(f"c{i}-{j}", "x")
        t.text("done")
    report = scan(t.write(tmp_path / "a.jsonl"))
    data = report.as_dict(default_config().as_dict())
    by_name = {s["name"]: s for s in data["thresholds"]}
    # No call ever repeated: no reason to tighten the rule below its current value.
    assert by_name["cycle_repeats_identical"]["observed"] == 1
    assert by_name["cycle_repeats_identical"]["suggested"] == (
        default_config().cycle_repeats_identical
    )
    assert by_name["checkin_turns"]["observed"] == 3
    assert by_name["checkin_turns"]["suggested"] == 5  # ceil(3 * 1.5)
    assert by_name["backstop_pause_turns"]["observed"] == 4
    assert by_name["backstop_pause_turns"]["suggested"] == 5  # ceil(4 * 1.25)


# --- the real fixtures ------------------------------------------------------------------


def test_real_fixtures_scan_without_errors() -> None:
    report = scan(FIXTURES)
    assert report.files_scanned == 7
    assert report.malformed_lines == 0
    assert report.sessions == 5 and report.subagent_files == 2


def test_stop_hook_block_feedback_pinned() -> None:
    # Counted by hand from the file: line 2 is the only typed prompt; assistant messages
    # (distinct message.id) are Read, Edit, text+Bash, Bash, text, then after the Stop-hook
    # feedback (line 13, isMeta) one more text: 6 turns, 4 with tool calls. Tool-only runs:
    # Read, Edit (2; the text+Bash message is narrated) and Bash (1). One stretch of 6 turns.
    report = scan(FIXTURES / "stop-hook-block-feedback.jsonl")
    assert (report.turns, report.tool_turns, report.operator_prompts) == (6, 4, 1)
    assert report.run_lengths == Counter({2: 1, 1: 1})
    assert report.stretches == Counter({6: 1})
    assert report.stop_feedback == 1
    assert report.stalls["total"] == 0


def test_manual_compaction_pinned() -> None:
    # Counted by hand: typed prompts on lines 2, 10, 19, 27, 35 and the `/compact` command
    # on line 62 (6); line 60 is the compaction summary, line 61 an isMeta caveat, line 63
    # local-command output. 12 message ids. Tool-only runs: one single-call message after each
    # of the first four prompts (1 each), then lines 36-38 and 43-46 (2) before the narrated
    # message on lines 50-52. Turns per stretch: 2, 2, 2, 2, 4.
    report = scan(FIXTURES / "manual-compaction-thinking-tools.jsonl")
    assert (report.turns, report.operator_prompts, report.compactions) == (12, 6, 1)
    assert report.run_lengths == Counter({1: 4, 2: 1})
    assert report.stretches == Counter({2: 4, 4: 1})


def test_cli_json_has_no_transcript_content() -> None:
    from arcguard.commands.forensics import forensics

    result = CliRunner().invoke(forensics, [str(FIXTURES), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["files_scanned"] == 7
    assert "mix phx.server" not in result.output  # a prompt in one fixture
    assert "hello_world" not in result.output


def test_cli_since_and_text(tmp_path: Path) -> None:
    from arcguard.commands.forensics import forensics

    Transcript().prompt("go").bash("a", "1").text("ok").write(tmp_path / "a.jsonl")
    runner = CliRunner()
    out = runner.invoke(forensics, [str(tmp_path), "--since", "2999-01-01"]).output
    assert "not modified since --since 1" in out
    out = runner.invoke(forensics, [str(tmp_path)]).output
    assert "Tool-only runs: 1 (values 1)" in out and "Suggested thresholds" in out
    bad = runner.invoke(forensics, [str(tmp_path), "--since", "yesterday"])
    assert bad.exit_code != 0


def test_rewritten_json_shapes_are_still_read(tmp_path: Path) -> None:
    # Sorted keys and spaces (a transcript re-saved by another tool): the entry's own "type"
    # is no longer the first one in the line, so the byte prefilter must fall back.
    t = Transcript().prompt("go").bash("a", "1").bash("b", "2").text("ok")
    path = tmp_path / "sorted.jsonl"
    path.write_text("\n".join(json.dumps(e, sort_keys=True) for e in t.entries) + "\n")
    report = scan(path)
    assert report.run_lengths == Counter({2: 1})
    assert report.operator_prompts == 1
