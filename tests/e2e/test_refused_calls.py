"""Calls Claude Code refuses before they run: its input checks (a string to replace that is not
in the file, a file the session has not read, a bad parameter, an unknown tool) answer the model
in a tool_use_error frame and run no hook at all, on the oldest and newest supported releases.
arcguard must not count them as runs in `replay` either, or replay denies what the live hooks
never saw (a real session's write, retried after the read Claude Code asked for, was "denied")."""

from __future__ import annotations

from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from test_loop_guard import result_texts

from arcguard.replay.replayer import replay
from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import hook_settings
from conftest import log_kinds
from conftest import payload_log


FRAME = "<tool_use_error>"


def _edit(path: Any, old: str) -> dict[str, Any]:
    return tool_use("Edit", {"file_path": str(path), "old_string": old, "new_string": "\t\tbar()"})


def test_an_input_check_refusal_runs_no_hook_live_or_in_replay(
    claude_project, run_release, claude_release, tmp_path
):
    project = claude_project()
    log = payload_log(project)
    events = ["PreToolUse", "PostToolUse", "PostToolUseFailure"]
    if claude_release.knows_post_tool_batch:
        events.append("PostToolBatch")  # an event the oldest release would reject
    project.write_settings(hook_settings({e: log.command(None) for e in events}))
    source = project.path / "a.go"
    source.write_text("\t\tfoo()\n")
    script = [
        tool_use("Read", {"file_path": str(source)}),
        _edit(source, "\tfoo()\n\t}"),
        tool_use("Read", {"file_path": str(source), "offset": "abc"}),
        tool_use("NoSuchTool", {}),
        text("Done."),
    ]
    with ScriptedAPI(script) as api:
        run = run_release(project, api, "rename foo")

    assert run.result is not None, run.describe()
    refused = [result_texts(api, i) for i in (2, 3, 4)]
    assert all(is_error and body.startswith(FRAME) for [(is_error, body)] in refused)
    # Only the first Read reached the per-call hooks.
    per_call = [e for e in events if e != "PostToolBatch"]
    assert [p["tool_name"] for e in per_call for p in log.payloads(e)] == ["Read", "Read"]
    assert run.transcript is not None, run.describe()
    config = tmp_path / "none.toml"
    config.write_text("")
    replayed = replay(str(run.transcript), config_path=str(config), recorded_time=True)
    fired = [s.event.fields.get("tool_name") for s in replayed.steps if s.event.event in per_call]
    assert fired == ["Read", "Read"]
    if claude_release.knows_post_tool_batch:
        batches = log.payloads("PostToolBatch")
        batched = [c["tool_response"] for p in batches for c in p["tool_calls"]]
        assert [r.startswith(FRAME) for r in batched] == [False, True, True, True]


def test_edits_refused_by_the_input_check_are_not_denied_live_or_in_replay(
    claude_project, run_release, claude_release, tmp_path
):
    project = claude_project(arcguard_settings_for(claude_release.version))
    source = project.path / "a.go"
    source.write_text("func f() {\n\t\tfoo()\n}\n")
    read = tool_use("Read", {"file_path": str(source)})
    # The same wrong indentation three times, then the right one after a read.
    wrong = [_edit(source, "\t\t\tfoo()") for _ in range(3)]
    script = [read, *wrong, read, _edit(source, "\t\tfoo()"), text("Renamed.")]
    with ScriptedAPI(script) as api:
        run = run_release(project, api, "rename foo")

    assert run.result is not None and run.transcript is not None, run.describe()
    assert all(result_texts(api, i)[0][0] for i in (2, 3, 4))
    assert "bar()" in source.read_text()
    assert log_kinds(arcguard_state(project, run.session_id)) == []
    config = tmp_path / "none.toml"
    config.write_text("")
    replayed = replay(str(run.transcript), config_path=str(config), recorded_time=True)
    assert [d.kind for d in replayed.decisions if d.kind != "allow"] == []
