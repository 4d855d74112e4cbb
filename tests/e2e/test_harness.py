"""The e2e harness itself, against the real CLI, with throwaway hook scripts (no arcguard)."""

from __future__ import annotations

import http.client
import json
import shlex
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from scripted_api import ScriptedAPI
from scripted_api import rate_limit
from scripted_api import text
from scripted_api import thinking
from scripted_api import tool_use
from scripted_api import turn

from arcguard.core.config import SETTING


# A hook that appends its payload (plus a few environment variables, under "_env")
# to a log file and, optionally, prints a canned reply the first N times it runs
# for a given event.
#   argv: LOG [REPLY_JSON [TIMES]]
HOOK_SCRIPT = """\
import json, os, sys
log = sys.argv[1]
payload = json.load(sys.stdin)
env = {k: os.environ.get(k) for k in ("ARCGUARD_HOME", "CLAUDE_PROJECT_DIR")}
with open(log, "a") as fh:
    fh.write(json.dumps(dict(payload, _env=env)) + "\\n")
if len(sys.argv) > 2:
    times = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    counter = log + ".count." + payload["hook_event_name"]
    done = int(open(counter).read()) if os.path.exists(counter) else 0
    if times < 0 or done < times:
        with open(counter, "w") as fh:
            fh.write(str(done + 1))
        sys.stdout.write(sys.argv[2])
"""


def hook_command(
    script: Path, log: Path, reply: dict[str, Any] | None = None, times: int = -1
) -> str:
    argv = [sys.executable, str(script), str(log)]
    if reply is not None:
        argv += [json.dumps(reply), str(times)]
    return shlex.join(argv)


def read_log(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def events(log: Path) -> list[str]:
    return [p["hook_event_name"] for p in read_log(log)]


def test_two_turns_with_a_tool_call(claude_project, run_claude):
    project = claude_project()
    script = [tool_use("Bash", {"command": "echo hi"}, id="toolu_echo"), text("All good.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "say hi")

    assert run.returncode == 0, run.describe()
    assert run.result is not None, run.describe()
    assert run.result["terminal_reason"] == "completed"
    assert run.result["result"] == "All good."
    assert run.result["num_turns"] == 2
    assert len(api.requests) == 2
    assert api.fallback_count == 0
    assert api.aux_requests == []
    [result] = api.tool_results(1)
    assert result["tool_use_id"] == "toolu_echo"
    assert result["is_error"] is False
    assert "hi" in json.dumps(result["content"])
    assert run.transcript is not None and run.transcript.is_file()
    kinds = {e.get("type") for e in run.transcript_entries()}
    assert {"user", "assistant"} <= kinds


def test_hook_payloads_arrive(claude_project, run_claude, hook_settings):
    project = claude_project()
    script = project.write_script("hook.py", HOOK_SCRIPT)
    log = project.root / "hooks.jsonl"
    cmd = hook_command(script, log)
    watched = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolBatch", "Stop"]
    project.write_settings(hook_settings(dict.fromkeys(watched, cmd)))
    body = turn(
        thinking("Run it."),
        tool_use("Bash", {"command": "echo hi"}),
    )
    with ScriptedAPI([body, text("Finished.")]) as api:
        run = run_claude(project, api, "please echo")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    by_event = {p["hook_event_name"]: p for p in read_log(log)}
    assert events(log) == watched
    for payload in by_event.values():
        assert payload["_env"]["ARCGUARD_HOME"] == str(project.arcguard_home)
        assert payload["session_id"] == run.session_id
        assert payload["cwd"] == str(project.path)
        assert Path(payload["transcript_path"]) == run.transcript
    assert by_event["UserPromptSubmit"]["prompt"] == "please echo"
    pre = by_event["PreToolUse"]
    assert pre["tool_name"] == "Bash"
    assert pre["tool_input"]["command"] == "echo hi"
    post = by_event["PostToolUse"]
    assert post["tool_use_id"] == pre["tool_use_id"]
    assert post["tool_response"]["stdout"].strip() == "hi"
    [call] = by_event["PostToolBatch"]["tool_calls"]
    assert call["tool_use_id"] == pre["tool_use_id"]
    stop = by_event["Stop"]
    assert stop["stop_hook_active"] is False
    assert stop["last_assistant_message"] == "Finished."


def test_stop_block_continues_the_session(claude_project, run_claude, hook_settings):
    project = claude_project()
    script = project.write_script("hook.py", HOOK_SCRIPT)
    log = project.root / "hooks.jsonl"
    reply = {"decision": "block", "reason": "keep going"}
    project.write_settings(hook_settings({"Stop": hook_command(script, log, reply, times=1)}))
    with ScriptedAPI([text("First stop."), text("Second stop.")]) as api:
        run = run_claude(project, api, "work")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    assert api.fallback_count == 0
    assert "Stop hook feedback" in api.request_text(1)
    assert "keep going" in api.request_text(1)
    stops = read_log(log)
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert [s["last_assistant_message"] for s in stops] == ["First stop.", "Second stop."]
    assert run.result["result"] == "Second stop."


def test_pre_tool_use_deny_reaches_the_model(claude_project, run_claude, hook_settings, tmp_path):
    project = claude_project()
    script = project.write_script("hook.py", HOOK_SCRIPT)
    log = project.root / "hooks.jsonl"
    reply = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "not today",
        }
    }
    project.write_settings(
        hook_settings({"PreToolUse": hook_command(script, log, reply)}, matcher="Bash")
    )
    marker = tmp_path / "ran"
    call = tool_use("Bash", {"command": f"touch {shlex.quote(str(marker))}"})
    with ScriptedAPI([call, text("Understood.")]) as api:
        run = run_claude(project, api, "touch it")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert not marker.exists()
    assert len(api.requests) == 2
    [result] = api.tool_results(1)
    assert result["tool_use_id"] == call["id"]
    assert result["is_error"] is True
    assert "not today" in json.dumps(result["content"])


def test_continue_false_stops_the_session(claude_project, run_claude, hook_settings):
    project = claude_project()
    script = project.write_script("hook.py", HOOK_SCRIPT)
    log = project.root / "hooks.jsonl"
    reply = {"continue": False, "stopReason": "x"}
    project.write_settings(
        hook_settings(
            {
                "PostToolUse": hook_command(script, log, reply),
                "Stop": hook_command(script, log),
            }
        )
    )
    with ScriptedAPI([tool_use("Bash", {"command": "echo hi"}), text("Never.")]) as api:
        run = run_claude(project, api, "go")

    assert run.result is not None, run.describe()
    assert run.result["terminal_reason"] == "hook_stopped"
    assert len(api.requests) == 1
    assert "Stop" not in events(log)


def test_rate_limit_and_exhausted_script(claude_project, run_claude):
    project = claude_project()
    # CLAUDE_CODE_MAX_RETRIES=1: one logical turn is two attempts.
    with ScriptedAPI(rate_limit(count=2)) as api:
        run = run_claude(project, api, "hello")
    assert run.result is not None, run.describe()
    assert run.result["terminal_reason"] == "api_error"
    assert run.result["api_error_status"] == 429
    assert len(api.requests) == 2
    assert api.fallback_count == 0

    with ScriptedAPI([]) as api:
        run = run_claude(project, api, "hello")
    assert run.result is not None and run.result["result"] == "Done.", run.describe()
    assert api.fallback_count == 1


def test_subagent_calls_use_their_own_script(claude_project, run_claude, hook_settings):
    project = claude_project()
    script = project.write_script("hook.py", HOOK_SCRIPT)
    log = project.root / "hooks.jsonl"
    project.write_settings(hook_settings({"UserPromptSubmit": hook_command(script, log)}))
    agent_call = tool_use(
        "Agent",
        {"description": "sub", "prompt": "do sub work", "subagent_type": "general-purpose"},
    )
    with ScriptedAPI(
        [agent_call, text("Waiting."), text("Final.")],
        subagent_script=[text("sub result")],
    ) as api:
        run = run_claude(project, api, "delegate")

    assert run.result is not None and run.result["result"] == "Final.", run.describe()
    assert len(api.requests) == 3
    assert len(api.subagent_requests) == 1
    assert api.fallback_count == api.subagent_fallback_count == 0
    assert all(r.headers.get("x-claude-code-agent-id") for r in api.log if r.kind == "subagent")
    # The harness wakes the parent with a task notification carrying the result.
    assert "sub result" in api.request_text(2)
    prompts = [p["prompt"] for p in read_log(log)]
    assert prompts[0] == "delegate"
    assert prompts[1].startswith("<task-notification>")


AGENT_SYSTEM = [{"type": "text", "text": "You are a Claude agent, built for tests."}]
BASH_TOOL = {"name": "Bash", "input_schema": {}}


def post(api: ScriptedAPI, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        api.base_url + "/v1/messages?beta=true", json.dumps(body).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return bytes(response.read())


def test_side_tasks_lent_tools_do_not_take_a_conversation_turn():
    turn_body = {"model": "m", "max_tokens": 64, "messages": [], "tools": [BASH_TOOL]}
    side_task = dict(turn_body, stream=True, system="Summarise what these tool calls did.")
    unstreamed = dict(turn_body, system=AGENT_SYSTEM)
    with ScriptedAPI([text("scripted")]) as api:
        post(api, side_task)
        post(api, unstreamed)
        assert api.remaining == 1
        assert b"scripted" in post(api, dict(turn_body, stream=True, system=AGENT_SYSTEM))
    assert [r.kind for r in api.log] == ["aux", "aux", "main"]
    assert len(api.requests) == 1 and api.remaining == 0


def test_a_structured_answer_asked_under_the_agent_identity_is_not_a_conversation_turn():
    # Claude Code may ask, streamed and under the agent's own system prompt, for a structured
    # answer through one lent tool of its own (seen: a tool taking `level` and `findings`).
    findings_tool = {
        "name": "report",
        "description": "d",
        "input_schema": {
            "type": "object",
            "properties": {"level": {"type": "string"}, "findings": {"type": "array"}},
            "required": ["findings"],
        },
    }
    side = {
        "model": "m",
        "max_tokens": 64,
        "messages": [],
        "stream": True,
        "system": AGENT_SYSTEM,
        "tools": [findings_tool],
    }
    with ScriptedAPI([text("scripted")]) as api:
        post(api, side)
        assert api.remaining == 1
        post(api, dict(side, tools=[BASH_TOOL, findings_tool]))
    assert [r.kind for r in api.log] == ["aux", "main"]
    assert len(api.requests) == 1 and api.remaining == 0


def test_a_side_task_lending_the_agents_tools_and_one_of_its_own_is_not_a_turn():
    # The same structured answer, asked in the middle of a conversation with the agent's own
    # tools lent beside its report tool: the script must not move for it.
    report = {"name": "report", "description": "d", "input_schema": {"type": "object"}}
    turn_body = {
        "model": "m",
        "max_tokens": 64,
        "messages": [],
        "stream": True,
        "system": AGENT_SYSTEM,
        "tools": [BASH_TOOL],
    }
    with ScriptedAPI([text("one"), text("two")]) as api:
        assert b"one" in post(api, turn_body)
        post(api, dict(turn_body, tools=[BASH_TOOL, report]))
        assert api.remaining == 1
        assert b"two" in post(api, turn_body)
    assert [r.kind for r in api.log] == ["main", "aux", "main"]


def test_server_side_requests_do_not_advance_the_script():
    def call(api: ScriptedAPI, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(api.base_url + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    with ScriptedAPI([text("scripted")]) as api:
        quota = {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": "quota"}]}
        status, raw = call(api, "POST", "/v1/messages?beta=true", quota)
        assert status == 200 and json.loads(raw)["type"] == "message"
        status, raw = call(api, "POST", "/v1/messages/count_tokens?beta=true", quota)
        assert status == 200 and json.loads(raw)["input_tokens"] > 0
        status, raw = call(api, "GET", "/v1/models")
        assert status == 404 and json.loads(raw)["type"] == "error"
        main = dict(quota, stream=True, system=AGENT_SYSTEM, tools=[BASH_TOOL])
        status, raw = call(api, "POST", "/v1/messages?beta=true", main)
        assert status == 200
        events = [line[7:] for line in raw.decode().splitlines() if line.startswith("event: ")]
        assert events == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        assert '"text": "scripted"' in raw.decode()
    assert len(api.requests) == 1
    assert len(api.aux_requests) == 1
    assert [r.kind for r in api.log] == ["aux", "count_tokens", "other", "main"]


def test_arcguard_hook_settings_shape(arcguard_hook_settings):
    settings = arcguard_hook_settings({"Stop": "stop", "PreToolUse": ["pre-tool"]})
    [stop_group] = settings["hooks"]["Stop"]
    [handler] = stop_group["hooks"]
    assert handler["type"] == "command"
    assert shlex.split(handler["command"]) == [sys.executable, "-m", "arcguard", "hook", "stop"]
    [pre_group] = settings["hooks"]["PreToolUse"]
    assert pre_group["hooks"][0]["command"].endswith("-m arcguard hook pre-tool")


def test_a_request_is_logged_before_its_answer_is_sent():
    # An answer far larger than the socket buffers (the client's kept small): the server
    # cannot finish sending it until the client reads, so while the client holds back, the
    # handler is stuck mid-answer. A request logged only after its answer would be missing.
    big = "x" * (16 * 1024 * 1024)
    with ScriptedAPI([text(big)]) as api:
        client = socket.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        client.settimeout(120)
        client.connect(("127.0.0.1", api.port))
        connection = http.client.HTTPConnection("127.0.0.1", api.port)
        connection.sock = client
        body = {"model": "m", "messages": [], "stream": True, "system": AGENT_SYSTEM}
        connection.request("POST", "/v1/messages", json.dumps(body))
        response = connection.getresponse()
        try:
            assert [(r.kind, r.answer) for r in api.log] == [("main", "script[0]")]
            assert len(api.requests) == 1
        finally:
            assert len(response.read()) > len(big)
            connection.close()


def test_hooks_get_the_most_patient_budget_and_lock_wait(claude_project):
    env = claude_project().base_env()
    assert env["ARCGUARD_HOOK_BUDGET_MS"] == str(SETTING["hook_budget_ms"].high)
    assert env["ARCGUARD_LOCK_TIMEOUT_MS"] == str(SETTING["lock_timeout_ms"].high)
