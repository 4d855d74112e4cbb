"""The arc keeper end to end: the real Claude Code CLI, every arcguard hook wired in settings.

Model requests are counted on the scripted server: each continuation the Stop hook grants
costs exactly one more request, so the count proves what was (and was not) blocked.
"""

from __future__ import annotations

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import thinking
from scripted_api import tool_use
from scripted_api import turn

from conftest import add_handler
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds
from conftest import payload_log


NOOP = "No response requested."
STALL_REASON = "[arcguard] Autonomous arc 'ship the importer' is still active"
POSTURE = "[arcguard] Autonomous arc 'ship the importer' is active"
# What Claude Code itself says to the model after a reply with no visible text (2.1.328).
NO_VISIBLE_OUTPUT = "[Your previous response had no visible output."
# How 2.1.328 hands the model a Stop hook's additionalContext (a reminder, not an error).
CONTINUED = "Stop hook additional context: [arcguard]"


def test_noop_stop_mid_arc_is_continued(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    script = [text(NOOP), text("Back on the importer: parsing the CSV header now.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    assert api.fallback_count == 0
    assert run.result["result"] == "Back on the importer: parsing the CSV header now."
    assert POSTURE in api.request_text(0)
    continued = api.request_text(1)
    assert CONTINUED in continued
    # No error label, and not the hook's command line that Claude Code quotes with one.
    assert "Stop hook blocking error" not in continued and "hook stop" not in continued
    assert STALL_REASON in continued
    assert f"arc complete {run.session_id}" in continued
    state = arcguard_state(project, run.session_id)
    arc = state["arc"]
    assert arc["active"] is True
    assert (arc["reconcile_count"], arc["total_blocks"]) == (1, 1)
    assert log_kinds(state) == ["arc", "continue"]


def test_a_run_of_noops_gets_exactly_two_continuations(claude_project, run_claude):
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    with ScriptedAPI([text(NOOP)] * 5) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    # The first request plus two continuations; the third no-op stop is allowed.
    assert len(api.requests) == 3
    assert api.remaining == 2
    # Claude Code reports its own no-op sentinel as an empty result, but the Stop payload has it.
    assert run.result["result"] == ""
    stops = log.payloads("Stop")
    assert [s["last_assistant_message"] for s in stops] == [NOOP] * 3
    assert [s["stop_hook_active"] for s in stops] == [False, True, True]
    assert [STALL_REASON in api.request_text(i) for i in range(3)] == [False, True, True]
    state = arcguard_state(project, run.session_id)
    assert (state["arc"]["reconcile_count"], state["arc"]["total_blocks"]) == (2, 2)
    assert state["arc"]["active"] is True
    assert log_kinds(state) == ["arc", "continue", "continue", "cap"]


def test_completion_releases_the_arc_across_resumed_runs(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text("Started: the importer skeleton is in place.")]) as api:
        first = run_claude(project, api, "/autonomous ship the importer")
        sid = first.session_id
        assert first.result is not None and sid, first.describe()
        # The arc outlives the `claude -p` process: a no-op in the resumed session is continued.
        api.add(text(NOOP), text("The arc is complete."))
        second = run_claude(project, api, "keep going", extra_args=["--resume", sid])
        assert second.session_id == sid, second.describe()
        assert len(api.requests) == 3
        assert STALL_REASON in api.request_text(2)
        # Released: the next no-op stop is left alone.
        api.add(text(NOOP))
        third = run_claude(project, api, "anything left?", extra_args=["--resume", sid])

    assert third.result is not None, third.describe()
    assert third.result["terminal_reason"] == "completed"
    assert len(api.requests) == 4
    assert api.fallback_count == 0
    state = arcguard_state(project, sid)
    assert state["arc"]["active"] is False
    assert state["arc"]["completed_at"]
    assert state["arc"]["total_blocks"] == 1
    assert log_kinds(state) == ["arc", "continue", "release"]


def test_without_autonomous_nothing_is_blocked(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(NOOP)]) as api:
        run = run_claude(project, api, "ship the importer")
        assert run.result is not None and run.result["terminal_reason"] == "completed"
        assert len(api.requests) == 1
        # An empty reply: Claude Code asks once more by itself; arcguard adds nothing.
        api.add(text(""), text(""))
        resumed = run_claude(project, api, "and now?", extra_args=["--resume", str(run.session_id)])

    assert resumed.result is not None and resumed.result["terminal_reason"] == "completed"
    assert len(api.requests) == 3
    assert api.fallback_count == 0
    assert NO_VISIBLE_OUTPUT in api.request_text(2)
    assert all("Stop hook feedback" not in api.request_text(i) for i in range(3))
    state = arcguard_state(project, run.session_id)
    assert state["arc"] is None
    assert "continue" not in log_kinds(state)


def test_tool_turns_then_a_summary_are_never_blocked(claude_project, run_claude):
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    script = [
        tool_use("Bash", {"command": "echo parsed 12 rows"}),
        tool_use("Bash", {"command": "echo 3 tests passed"}),
        text("Importer parses the header and 12 rows; 3 tests pass."),
    ]
    with ScriptedAPI([*script, text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 3
    [stop] = log.payloads("Stop")
    assert stop["last_assistant_message"] == "Importer parses the header and 12 rows; 3 tests pass."
    state = arcguard_state(project, run.session_id)
    assert (state["arc"]["reconcile_count"], state["arc"]["total_blocks"]) == (0, 0)
    assert log_kinds(state) == ["arc"]


def test_a_tool_use_block_never_ends_a_turn(claude_project, run_claude):
    """Claude Code 2.1.328 runs a tool call even under `end_turn` and asks again, and fires no
    Stop when `--max-turns` ends on a tool turn: Stop never sees a tool-use final message from
    the harness itself, only from a transcript read before the final entry was flushed."""
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    forced_end = tool_use("Bash", {"command": "echo ran"})
    with ScriptedAPI([turn(forced_end, stop_reason="end_turn"), text("After the call.")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")
        assert run.result is not None and run.result["result"] == "After the call.", run.describe()
        assert len(api.requests) == 2
        assert [b["content"] for b in api.tool_results(1)] == ["ran"]
        api.add(tool_use("Bash", {"command": "echo again"}))
        capped = run_claude(project, api, "/autonomous more", extra_args=["--max-turns", "1"])

    assert capped.result is not None and capped.result["terminal_reason"] == "max_turns"
    assert len(api.requests) == 3
    assert [p["last_assistant_message"] for p in log.payloads("Stop")] == ["After the call."]


def test_thinking_only_final_turn_is_not_blocked(claude_project, run_claude):
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    script = [thinking("The importer needs a header check."), thinking("Still thinking."), "unused"]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    # Claude Code re-asks once by itself after a reply with no visible output; arcguard adds none.
    assert len(api.requests) == 2
    assert NO_VISIBLE_OUTPUT in api.request_text(1)
    [stop] = log.payloads("Stop")
    assert "last_assistant_message" not in stop
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["total_blocks"] == 0
    assert "continue" not in log_kinds(state)


def test_empty_final_turn_mid_arc_is_continued(claude_project, run_claude):
    project = claude_project()
    log = payload_log(project)
    project.write_settings(add_handler(all_arcguard_settings(), "Stop", log.command()))
    script = [text(""), text(""), text("Back on it: the header check is written.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert run.result["result"] == "Back on it: the header check is written."
    assert len(api.requests) == 3
    assert NO_VISIBLE_OUTPUT in api.request_text(1)
    assert STALL_REASON in api.request_text(2)
    stops = log.payloads("Stop")
    # With an empty final text the payload has no `last_assistant_message` at all: arcguard
    # reads the transcript tail instead.
    assert "last_assistant_message" not in stops[0]
    assert stops[1]["last_assistant_message"] == "Back on it: the header check is written."
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue"]


# --- stop policy and the DECISION NEEDED protocol ------------------------------------------

ASKS = "The parser handles quoted fields now. Want me to run the tests next?"
ANNOUNCES = "The parser handles quoted fields now. Next, I'll run the test suite."
DECIDES = (
    "DECISION NEEDED: the next migration drops the legacy users table, which destroys"
    " its data. Keep a backup first?"
)
QUESTION_SEEN = "ended by asking for permission or a choice"
ANNOUNCED_SEEN = "ended by announcing a next step without taking it"
HOW_TO_STOP = "say so in a message that starts with DECISION NEEDED:"


def test_a_permission_question_mid_arc_is_sent_back_and_the_model_carries_on(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    script = [
        text(ASKS),
        tool_use("Bash", {"command": "echo 12 passed"}),
        text("Tests pass (12). Moving the importer to the writer milestone."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 3
    assert api.fallback_count == 0
    continued = api.request_text(1)
    assert CONTINUED in continued and QUESTION_SEEN in continued
    assert HOW_TO_STOP in continued
    assert "DECISION NEEDED:" in api.request_text(0)  # the posture teaches the protocol
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["total_blocks"] == 1
    assert log_kinds(state) == ["arc", "continue"]


def _let_through(project, run, api, said):
    """The session ended on the model's stop, `said`, after one model request: its state."""
    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert run.result["result"] == said
    assert len(api.requests) == 1
    return arcguard_state(project, run.session_id)


def test_a_decision_needed_stop_is_let_through(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(DECIDES), text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    state = _let_through(project, run, api, DECIDES)
    assert state["arc"]["active"] is True and state["arc"]["total_blocks"] == 0
    assert log_kinds(state) == ["arc", "decision"]


def test_an_announced_step_not_taken_is_sent_back(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    script = [text(ANNOUNCES), text("Ran the suite: 12 passed. The arc is complete.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    assert ANNOUNCED_SEEN in api.request_text(1)
    assert log_kinds(arcguard_state(project, run.session_id)) == ["arc", "continue"]


def test_caps_hold_across_a_mix_of_stall_classes(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(ASKS), text(ANNOUNCES), text(NOOP), text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    # The first request plus two continuations; the third stall meets the consecutive cap.
    assert len(api.requests) == 3
    assert QUESTION_SEEN in api.request_text(1) and ANNOUNCED_SEEN in api.request_text(2)
    state = arcguard_state(project, run.session_id)
    assert (state["arc"]["reconcile_count"], state["arc"]["total_blocks"]) == (2, 2)
    assert log_kinds(state) == ["arc", "continue", "continue", "cap"]


def test_the_noop_policy_leaves_questions_alone(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(ASKS), text("unused")]) as api:
        run = run_claude(
            project, api, "/autonomous ship the importer", env={"ARCGUARD_STOP_POLICY": "noop"}
        )

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 1
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["total_blocks"] == 0 and log_kinds(state) == ["arc"]


def test_a_completion_after_a_question_releases_the_arc(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text(ASKS), text("The arc is complete."), text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    state = arcguard_state(project, run.session_id)
    assert state["arc"]["active"] is False
    assert log_kinds(state) == ["arc", "continue", "release"]


def test_autonomous_stop_and_a_new_task_from_inside_claude_code(claude_project, run_claude):
    """`/autonomous stop` ends the arc (a no-op after it is left alone), and `/autonomous` with
    another task starts a new arc, named after it, with its checklist as milestones."""
    project = claude_project(all_arcguard_settings())
    with ScriptedAPI([text("Started on the importer.")]) as api:
        first = run_claude(project, api, "/autonomous ship the importer")
        sid = first.session_id
        assert first.result is not None and sid, first.describe()
        api.add(text(NOOP))
        stopped = run_claude(project, api, "/autonomous stop", extra_args=["--resume", sid])
        assert stopped.result is not None, stopped.describe()
        assert len(api.requests) == 2  # the no-op after the stop was not sent back
        assert "ended the autonomous arc 'ship the importer'" in api.request_text(1)
        assert arcguard_state(project, sid)["arc"]["ended_by"] == "stop"
        api.add(text(NOOP), text("Working on the greeting."))
        task = "/autonomous fix the greeting\n- [ ] find the bug\n- [ ] add a test"
        renewed = run_claude(project, api, task, extra_args=["--resume", sid])

    assert renewed.result is not None, renewed.describe()
    assert len(api.requests) == 4  # the no-op in the new arc was sent back once
    assert "Autonomous arc 'fix the greeting' is active" in api.request_text(2)
    assert "Next milestone: find the bug." in api.request_text(2)
    arc = arcguard_state(project, sid)["arc"]
    assert arc["task"] == "fix the greeting" and arc["active"] is True
    assert [m["slice"] for m in arc["milestones"]] == ["find the bug", "add a test"]


def test_done_said_right_after_a_failed_call_is_sent_back(claude_project, run_claude):
    # The real CLI writes the failed call's result (is_error) before the final message: the
    # Stop hook finds it in the transcript and sends the claim back. A claim after a passing
    # call completes the arc.
    project = claude_project(all_arcguard_settings())
    script = [
        tool_use("Bash", {"command": "echo 'packages/shared: 3 errors' && exit 1"}),
        text("Web and api lint clean. Migration's done."),
        tool_use("Bash", {"command": "echo 'lint clean in 3 packages'"}),
        text("Lint is clean in every package. The arc is complete."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 4
    assert "done right after a call failed" in api.request_text(2)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue", "release"]
    assert state["log"][1]["rule"] == "unverified"


def test_a_stop_before_the_check_the_task_names_has_passed_is_sent_back(claude_project, run_claude):
    # The real CLI reports each call to PostToolUse: an edit after the named check's run
    # undoes it, so the first claim is sent back; the check run after the last edit lets the
    # second claim complete the arc.
    project = claude_project(all_arcguard_settings())
    makefile, importer = str(project.path / "Makefile"), str(project.path / "importer.py")
    script = [
        tool_use("Write", {"file_path": makefile, "content": "test:\n\ttrue\n"}),
        tool_use("Bash", {"command": "make test"}),
        tool_use("Write", {"file_path": importer, "content": "VERSION = 2\n"}),
        text("The importer is fixed. The arc is complete."),
        tool_use("Write", {"file_path": importer, "content": "VERSION = 3\n"}),
        tool_use("Bash", {"command": "make test"}),
        text("The tests pass on the final code. The arc is complete."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous fix the importer until `make test` passes")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 7
    seen = "before the checks the task names passed on the code as it now is (test; run them"
    assert seen in api.request_text(4)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["arc", "continue", "release"]
    assert state["log"][1]["rule"] == "unchecked"


def test_a_report_naming_some_listed_items_is_sent_back_naming_the_others(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    script = [
        text("`list` and `show` now take `--json`; tests pass."),
        text("`diff` takes `--json` too; `list`, `show` and `diff` are done."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(
            project, api, "/autonomous Add a `--json` flag to `list`, `show` and `diff`."
        )

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    continued = api.request_text(1)
    assert CONTINUED in continued
    assert "naming only some of the items the task lists (`diff` not named" in continued
    state = arcguard_state(project, run.session_id)
    assert state["log"][-1]["kind"] == "continue" and state["log"][-1]["rule"] == "paused"


def test_a_question_before_a_force_push_is_left_alone(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    asks = "The branch is rebased. Updating the PR needs a force-push; want me to do it?"
    with ScriptedAPI([text(asks), text("unused")]) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    state = _let_through(project, run, api, asks)
    assert state["arc"]["total_blocks"] == 0
    assert (
        "only the operator can go on (a step that cannot be undone)" in state["log"][-1]["reason"]
    )
