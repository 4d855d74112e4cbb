"""`arcguard report`: the timeline read from a transcript, the decisions beside it with their
verdicts, the text form (checked against the generated example) and the HTML page."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
from testing.builders import REPO
from testing.builders import Transcript
from testing.cli import invoke

from arcguard.replay.events import HookEvent
from arcguard.replay.replayer import Decision
from arcguard.replay.replayer import Step
from arcguard.replay.replayer import replay
from arcguard.report import decisions as judged
from arcguard.report import session
from arcguard.report import timeline as tl
from arcguard.transcript.records import parse_entry


def timeline_of(t: Transcript) -> tl.Timeline:
    timeline = tl.Timeline.start()
    for entry in t.entries:
        timeline.feed(parse_entry(entry))
    timeline.finish()
    return timeline


def test_the_timeline_holds_what_the_session_recorded() -> None:
    t = Transcript().prompt("fix the build")
    t.bash("make", "ok", narration="Building first.")
    t.tools(("Bash", {"command": "make test"}, "exit 2"), error=True)
    t.tools(
        ("Bash", {"command": "ls"}, "PreToolUse:Bash hook error: [arcguard] Denied"), error=True
    )
    t.tools(("Bash", {"command": "rm -rf x"}, "The user doesn't want to proceed"), error=True)
    t.text("No response requested.").stop_context("[arcguard] keep going")
    t.text("Done.").feedback("[arcguard] still active").text("Really done.")
    t.other("system", subtype="compact_boundary")
    t.api_error("API Error: Request rejected (429)", error="rate_limit")
    t.clock += 3600
    t.prompt("continue")
    timeline = timeline_of(t)
    kinds = [i.kind for i in timeline.items]
    assert kinds[:3] == [tl.PROMPT, tl.TEXT, tl.TOOLS]
    outcomes = [c.outcome for i in timeline.items if i.kind == tl.TOOLS for c in i.calls or []]
    assert outcomes == [tl.OK, tl.FAILED, tl.DENIED, tl.REJECTED_BY_USER]
    # Both recorded forms of a continuation, each after the stop it answered.
    continued = [i.text for i in timeline.items if i.kind == tl.CONTINUATION]
    assert continued == ["[arcguard] keep going", "[arcguard] still active"]
    assert [i.final for i in timeline.items if i.kind == tl.TEXT][-3:] == [True, True, True]
    assert tl.COMPACTION in kinds and tl.LIMIT in kinds
    resume = next(i for i in timeline.items if i.kind == tl.RESUME)
    assert resume.seconds is not None and resume.seconds >= 3600
    assert tl.WAIT not in kinds  # the hour at the limit is dead time, not a second wait


def test_a_long_quiet_stretch_is_a_wait() -> None:
    t = Transcript().prompt("run the migration").bash("sleep 5", "")
    t.clock += 1800
    t.bash("./migrate.sh", "done")
    waits = [i for i in timeline_of(t).items if i.kind == tl.WAIT]
    assert [round((w.seconds or 0) / 60) for w in waits] == [30]


def test_a_pause_is_one_item_in_either_recorded_form() -> None:
    new = Transcript().prompt("go").bash("ls", "a").hook_stopped("arcguard paused this session: x")
    old = Transcript().prompt("go")
    for _ in range(3):
        old.tools(("Bash", {"command": "ls"}, "arcguard paused this session: x"), error=True)
    for t in (new, old):
        assert [i.kind for i in timeline_of(t).items].count(tl.PAUSE) == 1


def _event(name: str, turn: int, what: str, **fields: object) -> HookEvent:
    return HookEvent("h", name, dict(fields), turn, what)


def _decide(kind: str, hook: str, event: HookEvent) -> Step:
    return Step(event, [Decision(event.turn, hook, kind, "reason", None)])


def test_a_continuation_answered_with_a_correction_is_costly() -> None:
    stop = _event("Stop", 3, "", last_assistant_message="Shall I use Postgres?")
    steps = [
        _decide("continue", "stop", stop),
        Step(_event("UserPromptSubmit", 3, "", prompt="no, use sqlite instead"), []),
    ]
    [shown] = judged.decisions(steps, [s.event for s in steps])
    assert (shown.verdict, shown.reply) == (judged.COSTLY, "no, use sqlite instead")
    assert shown.trigger == "Shall I use Postgres?"


def test_a_continuation_answered_with_go_on_looks_right() -> None:
    stop = _event("Stop", 3, "", last_assistant_message="Shall I go on?")
    steps = [
        _decide("continue", "stop", stop),
        Step(_event("UserPromptSubmit", 3, "", prompt="yes"), []),
    ]
    assert judged.decisions(steps, [s.event for s in steps])[0].verdict == judged.RIGHT


def test_a_deny_followed_by_the_same_call_is_costly_and_by_another_looks_right() -> None:
    denied = _decide("deny", "pre-tool", _event("PreToolUse", 4, "Bash: make"))
    for after, verdict in (("Bash: make", judged.COSTLY), ("Read: Makefile", judged.RIGHT)):
        recorded = [denied.event, _event("PreToolUse", 5, after)]
        [shown] = judged.decisions([denied], recorded)
        assert (shown.verdict, shown.next_move) == (verdict, after)


def test_what_happened_next_is_read_past_the_replays_pause() -> None:
    # The replay stops at its pause; the recorded session went on with the same call.
    pause = _decide("pause", "post-batch", _event("PostToolBatch", 6, "1 call(s) done"))
    recorded = [_event("PreToolUse", 6, "Bash: npm test"), pause.event]
    recorded.append(_event("PreToolUse", 7, "Bash: npm test"))
    steps = [Step(recorded[0], []), pause]
    [shown] = judged.decisions(steps, recorded)
    assert (shown.verdict, shown.next_move) == (judged.RIGHT, "Bash: npm test")


def test_a_refused_call_keeps_the_timeline_in_step_with_the_replay(tmp_path: Path) -> None:
    # Claude Code's input check refused the Edit, so neither the replay nor the timeline has
    # hook events for it, and what followed the pause is still found.
    t = Transcript().prompt("go")
    refused = "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"
    edit = {"file_path": "/p/a.go", "old_string": "x", "new_string": "y"}
    t.tools(("Edit", edit, refused), error=True)
    for _ in range(8):
        t.bash("curl -s localhost:8080/health", '{"ok": false}')
    t.text("done")
    path = t.write(tmp_path / "refused.jsonl")
    config = tmp_path / "none.toml"
    config.write_text("")
    result = replay(str(path), config_path=str(config))
    report = session.build(str(path), result, orjson.loads)
    assert [s.event for s in result.steps] == report.timeline.events[: len(result.steps)]
    assert all(d.next_move for d in report.decisions if d.kind in ("deny", "pause"))


def test_the_text_form_is_the_generated_example() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate", REPO / "scripts" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    expected = (REPO / "docs" / "report-example.txt").read_text(encoding="utf-8")
    assert generate.report_example() == expected, "run: python scripts/generate.py"


SECRET = "sk-ant-api03-" + "x" * 40


def _session(tmp_path: Path) -> Path:
    t = Transcript().prompt(f"deploy with key {SECRET} please")
    t.bash("make", "ok", narration="Deploying the private billing service now.")
    t.text("No response requested.")
    return t.write(tmp_path / "s.jsonl")


def test_secrets_are_masked_and_redact_drops_the_text(tmp_path: Path) -> None:
    path = _session(tmp_path)
    out = invoke("report", "--arc", str(path)).output
    assert SECRET not in out and "deploy with key" in out
    assert "contains the text of the sessions" in out
    redacted = invoke("report", "--arc", "--redact", str(path)).output
    assert "deploy with key" not in redacted and "billing" not in redacted
    assert "Bash" in redacted and "chars]" in redacted and "Redacted report" in redacted
    assert "\x1b[" not in out  # not a terminal: no colour


def test_the_html_page_is_self_contained(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    invoke("report", "--arc", "--html", str(page), str(_session(tmp_path)))
    html = page.read_text(encoding="utf-8")
    assert SECRET not in html and 'id="privacy"' in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)
    assert "@import" not in html and "url(" not in html
    for ident in ('id="totals"', 'id="s0"', 'id="s0-timeline"', 'id="s0-d', 'href="#s0-d'):
        assert ident in html
    assert page.stat().st_mode & 0o077 == 0  # the sessions' text: private like the state
    invoke("report", "--arc", "--redact", "--html", str(page), str(_session(tmp_path)))
    redacted = page.read_text(encoding="utf-8")
    assert "deploy with key" not in redacted and "billing" not in redacted
    assert 'id="s0-timeline"' in redacted and "Redacted report" in redacted


def test_a_missing_path_is_said_and_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arcguard.commands.group import cli

    missing = CliRunner().invoke(cli, ["report", str(tmp_path / "missing")])
    assert missing.exit_code == 1 and "no such file or folder" in missing.output
    empty = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert empty.exit_code == 2 and "no transcript" in empty.output


def test_a_subagents_own_transcript_has_its_timeline() -> None:
    t = Transcript().prompt("look for the config loader").bash("grep -r load_config", "a.py")
    t.text("It is in a.py.").as_subagent("a1b2")
    kinds = [i.kind for i in timeline_of(t).items]
    assert kinds == [tl.TOOLS, tl.TEXT]  # a subagent's task is no operator prompt


def test_colour_only_on_a_terminal_without_no_color() -> None:
    from arcguard.commands.report import wants_colour

    assert wants_colour(True, {}) and wants_colour(True, {"NO_COLOR": ""})
    assert not wants_colour(True, {"NO_COLOR": "1"}) and not wants_colour(False, {})


def test_a_page_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arcguard.commands.group import cli

    target = tmp_path / "no-such-folder" / "r.html"
    done = CliRunner().invoke(cli, ["report", "--html", str(target), str(_session(tmp_path))])
    assert done.exit_code == 1 and "Could not open file" in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
