"""The end-to-end benchmark still runs a real session per wiring (its figures are its own)."""

from __future__ import annotations

import json
import sys

import pytest
from testing.benchmarks import run_benchmark
from testing.builders import REPO


CLAUDE = REPO / ".cache" / "claude-code" / "node_modules" / ".bin" / "claude"


@pytest.mark.skipif(not CLAUDE.is_file(), reason="the Claude Code CLI is not installed")
def test_the_quick_session_benchmark_runs_every_wiring(tmp_path):
    out = tmp_path / "result.json"
    done = run_benchmark("bench_session.py", "--quick", "--out", str(out))
    # Exit 1 is a missed budget on this (possibly busy) machine: the benchmark's verdict, not
    # this test's. Exit 2 (a session that did not run as scripted) or a crash is a broken script.
    assert done.returncode in (0, 1), done.stderr
    result = json.loads(out.read_text())
    assert set(result["wall_s"]) == {
        "none",
        "true",
        "python",
        "arcguard",
        "no-image",
        "one-liner",
        "http",
        "resident",
        "sdk-none",
        "sdk-noop",
        "sdk",
    }
    assert all(len(values) == 1 for values in result["wall_s"].values())
    assert set(result["summary"]["added_ms_per_call"]) == {
        "true",
        "python",
        "arcguard",
        "no-image",
        "one-liner",
        "http",
        "resident",
        "sdk-none",
        "sdk-noop",
        "sdk",
    }
    # One quick round may measure `true` as adding nothing (then no ratio): timing is the
    # benchmark's verdict, so only the key is checked here.
    assert "resident_ratio_to_true" in result["summary"]
    assert "sdk_ratio_to_two_true" in result["summary"]
    assert "sdk_round_trip_ms_per_call" in result["summary"]


@pytest.mark.skipif(not CLAUDE.is_file(), reason="the Claude Code CLI is not installed")
def test_only_runs_the_wirings_named_with_the_baseline_and_their_yardstick(tmp_path):
    out = tmp_path / "result.json"
    done = run_benchmark("bench_session.py", "--quick", "--only", "arcguard", "--out", str(out))
    assert done.returncode in (0, 1), done.stderr
    result = json.loads(out.read_text())
    assert set(result["wall_s"]) == {"none", "python", "arcguard"}
    assert "arcguard vs bare Python" in done.stdout and "resident" not in done.stdout
    # Each hook's own time, as arcguard recorded it, for the wirings that run arcguard.
    assert set(result["hook_ms"]) == {"arcguard"}
    assert {"pre-tool", "post-batch"} <= set(result["hook_ms"]["arcguard"])
    assert "| arcguard | pre-tool | 3 |" in done.stdout


def test_the_yardsticks_wire_the_events_install_writes_on_every_tool():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_session
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    installed = bench_session.arcguard_settings()["hooks"]
    assert bench_session.settings_for("none") == {}
    assert bench_session.settings_for("arcguard")["hooks"] == installed
    for wiring in ("true", "python"):
        hooks = bench_session.settings_for(wiring)["hooks"]
        assert set(hooks) == set(installed)
        commands = {h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]}
        assert len(commands) == 1
        # One shell line each: an exec-form entry's arguments are not kept for the yardstick.
        assert not any("args" in h for groups in hooks.values() for g in groups for h in g["hooks"])
        # Three bare processes per tool call, the budget's yardstick: PostToolUse is not
        # narrowed to the editing tools as arcguard's own wiring is.
        matchers = {g.get("matcher") for groups in hooks.values() for g in groups}
        assert matchers <= {None, "*"}
    # The http floor: the same events and matchers as `true`, each event Claude Code sends
    # over http made an http hook answered at once.
    floor = bench_session.settings_for("http")["hooks"]
    assert set(floor) == set(installed)
    for event, groups in floor.items():
        first = groups[0]["hooks"][0]
        assert first["type"] == ("command" if event == "SessionStart" else "http"), event
    # The long form of earlier versions: the same hooks, the launcher's code in each line.
    long = bench_session.settings_for("one-liner")["hooks"]
    assert set(long) == set(installed)
    entries = [h for groups in long.values() for g in groups for h in g["hooks"]]
    assert all("args" not in h and "-c 'import sys,os;d=" in h["command"] for h in entries)
    resident = bench_session.settings_for("resident")["hooks"]
    assert set(resident) == set(installed)
    assert resident["PreToolUse"][0]["hooks"][0]["type"] == "http"


@pytest.mark.skipif(not CLAUDE.is_file(), reason="the Claude Code CLI is not installed")
def test_the_arcguard_wiring_has_every_event_of_the_cli_under_test():
    # install leaves out events it cannot confirm the CLI knows; the benchmark must measure the
    # wiring a user of this release gets.
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_session
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    wired = set(bench_session.arcguard_settings()["hooks"])
    assert {"PreToolUse", "PostToolUse", "PostToolBatch"} <= wired


def test_only_runs_the_named_wirings_with_what_their_verdicts_compare_with():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_session
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    assert bench_session.chosen(None) == bench_session.WIRINGS
    assert bench_session.chosen("resident,sdk") == ("none", "true", "resident", "sdk-none", "sdk")
    assert bench_session.chosen("true") == ("none", "true")
    with pytest.raises(ValueError, match="not a wiring: bogus"):
        bench_session.chosen("true,bogus")
    # A verdict whose wirings did not run is not given and does not fail the run.
    runs = {"none": [3.0], "true": [3.6], "resident": [3.9]}
    summary = bench_session.summarise(runs, runs, 30)
    assert summary["resident_ratio_to_true"] == pytest.approx(1.5)
    assert summary["sdk_ratio_to_two_true"] is None
    assert summary["within_budget"]


def test_a_baseline_wiring_runs_its_wiring_with_the_other_interpreter(monkeypatch):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_session
        import sdk_session
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    monkeypatch.setattr(bench_session, "_BASELINE_PYTHON", ["/other/python"])
    assert bench_session.kind("resident-baseline") == "resident"
    assert bench_session.python_of("resident-baseline") == "/other/python"
    assert bench_session.python_of("resident") == sys.executable
    argv = sdk_session.argv(CLAUDE, "sdk", REPO, bench_session.python_of("sdk-baseline"))
    assert argv[0] == "/other/python" and argv[4] == "sdk"
    # Its figures sit beside the wiring's own, against the same `true` floor.
    runs = {"none": [3.0], "true": [3.6], "resident": [3.9], "resident-baseline": [4.2]}
    summary = bench_session.summarise(runs, runs, 30)
    assert summary["resident_ratio_to_true"] == pytest.approx(1.5)
    assert summary["resident_baseline_ratio_to_true"] == pytest.approx(2.0)
