"""The loop guard end to end: the real Claude Code CLI, every arcguard hook wired in settings.

The request count on the scripted server tells exactly at which turn a session was paused;
the state file tells which rule fired. The last tests pin the Claude Code behaviours the
guard's design relies on, with a logging hook instead of arcguard.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use
from scripted_api import turn

from conftest import WINDOW_RELEASES
from conftest import ClaudeRun
from conftest import all_arcguard_settings
from conftest import arcguard_settings_for
from conftest import arcguard_state
from conftest import hook_settings
from conftest import install_arcguard
from conftest import log_kinds
from conftest import payload_log


DENIED = "PreToolUse:Bash hook error: [arcguard] Denied as a repeat"


def bash(command: str) -> dict[str, Any]:
    """A Bash call with a fresh id (a repeated call is a new block, as from a real model)."""
    return tool_use("Bash", {"command": command})


def read(path: Path) -> dict[str, Any]:
    return tool_use("Read", {"file_path": str(path)})


def result_texts(api: ScriptedAPI, index: int) -> list[tuple[bool, str]]:
    """(is_error, content as text) of each tool result in main request ``index``."""
    return [
        (bool(r.get("is_error")), r["content"] if isinstance(r["content"], str) else json.dumps(r))
        for r in api.tool_results(index)
    ]


def ended_by(run: ClaudeRun, reason: str) -> None:
    assert run.result is not None, run.describe()
    assert run.result["terminal_reason"] == reason, run.describe()


def denials(state: dict[str, Any]) -> list[str]:
    return [e["operation"] for e in state["log"] if e.get("kind") == "deny"]


def test_alternating_calls_are_paused_as_a_cycle(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    runs = project.path / "runs.txt"
    call_a, call_b = "echo A >> runs.txt", "echo B >> runs.txt"
    script = [bash(call) for _ in range(15) for call in (call_a, call_b)]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "get the build green")

    ended_by(run, "hook_stopped")
    # Turns 1-4 run; at turn 5 A has run twice with one outcome and is denied, at turn 6 so is
    # B; the PostToolBatch of turn 6 sees A,B three times over and pauses. No 7th request.
    assert len(api.requests) == 6
    assert runs.read_text().split() == ["A", "B", "A", "B"]
    assert result_texts(api, 4) == [(False, "(Bash completed with no output)")]
    [(is_error, content)] = result_texts(api, 5)
    assert is_error and content.startswith(DENIED)
    assert "this exact call (Bash: echo A >> runs.txt) already ran 2 times" in content
    state = arcguard_state(project, run.session_id)
    paused = state["guard"]["paused"]
    assert paused["kind"] == "cycle"
    assert "a 2-call cycle 3 times" in paused["reason"]
    assert denials(state) == [f"Bash: {call_a}", f"Bash: {call_b}"]
    assert log_kinds(state) == ["deny", "deny", "pause"]
    assert state["guard"]["tracks"]["main"]["blocked_rounds"] == 2


def test_three_blocked_turns_pause(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    # Narrated turns: the cycle rule only watches tool-only turns, so the blocked-rounds rule
    # is the one that acts here.
    say = "Let me look at the build output again."
    with ScriptedAPI([turn(text(say), bash("ls build-output")) for _ in range(10)]) as api:
        run = run_claude(project, api, "get the build green")

    ended_by(run, "hook_stopped")
    # Turns 1-2 run (and fail the same way); 3, 4 and 5 are denied: three blocked rounds.
    assert len(api.requests) == 5
    for index in (1, 2):
        [(is_error, content)] = result_texts(api, index)
        assert is_error and "build-output" in content and "arcguard" not in content
    for index in (3, 4):
        [(is_error, content)] = result_texts(api, index)
        assert is_error and content.startswith(DENIED)
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["paused"]["kind"] == "blocked"
    # The 4th attempt, refused, is still an attempt: the check-in comes with its deny.
    assert log_kinds(state) == ["deny", "deny", "nudge", "deny", "pause"]
    assert state["guard"]["tracks"]["main"]["blocked_rounds"] == 3


def test_polling_then_varied_work_finishes_normally(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    # A poll whose answer moves on each time (a job's progress): the same call, new results.
    poll = 'n=$(( $(cat step 2>/dev/null || echo 0) + 1 )); echo "$n" > step; echo "step $n"'
    work = [bash("echo build"), bash("echo test"), bash("echo lint"), bash("echo package")]
    script = [
        *(bash(poll) for _ in range(4)),
        *work,
        text("The job finished; build, tests, lint and package ran."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "wait for the job, then ship")

    ended_by(run, "completed")
    assert len(api.requests) == 9
    assert api.fallback_count == 0
    assert [result_texts(api, i) for i in range(1, 5)] == [
        [(False, f"step {n}")] for n in (1, 2, 3, 4)
    ]
    assert all(not is_error for i in range(1, 9) for is_error, _ in result_texts(api, i))
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["paused"] is None
    assert log_kinds(state) == []


def test_an_allow_listed_identical_poll_is_never_denied(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    (project.path / "status.txt").write_text("running\n")
    script = [bash("cat status.txt") for _ in range(6)]
    script.append(text("Still running; I will check back later."))
    with ScriptedAPI(script) as api:
        run = run_claude(
            project, api, "watch the job", env={"ARCGUARD_ALLOW": "Bash(cat status.txt)"}
        )

    ended_by(run, "completed")
    # Without the allow-list the 3rd poll is denied and the 5th would end the session.
    assert len(api.requests) == 7
    assert all(result_texts(api, i) == [(False, "running")] for i in range(1, 7))
    assert log_kinds(arcguard_state(project, run.session_id)) == []


def test_read_edit_reread_is_never_denied(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    source = project.path / "limits.py"
    source.write_text("RETRIES = 3\n")
    show = f"cat {shlex.quote(str(source))}"
    edit = tool_use(
        "Edit",
        {"file_path": str(source), "old_string": "RETRIES = 3", "new_string": "RETRIES = 5"},
    )
    # `cat` twice with one result, then a real edit: the third `cat` is a validation, allowed once.
    script = [read(source), bash(show), bash(show), edit, bash(show), read(source)]
    script.append(text("RETRIES is now 5."))
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "raise the retry limit")

    ended_by(run, "completed")
    assert len(api.requests) == 7
    assert source.read_text() == "RETRIES = 5\n"
    assert all(not is_error for i in range(1, 7) for is_error, _ in result_texts(api, i))
    assert result_texts(api, 5) == [(False, "RETRIES = 5")]
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["edit_seq"] == 1
    assert state["guard"]["paused"] is None
    assert "deny" not in log_kinds(state)


def test_a_test_after_each_sed_edit_runs_and_one_with_no_write_since_is_denied(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    (project.path / "cache.py").write_text("TTL = 0\n")
    check = "grep -q 'TTL = 9' cache.py || { echo 'expected TTL 9'; exit 1; }"
    script = [bash(check), bash(check)]
    for n in range(2):  # a value tried from the shell, then the same check
        script += [bash(f"sed -i 's/TTL = {n}/TTL = {n + 1}/' cache.py"), bash(check)]
    script += [bash(check), text("TTL 9 is still out of reach.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "make the cache check pass")

    ended_by(run, "completed")
    assert (project.path / "cache.py").read_text() == "TTL = 2\n"
    # Each check after a write ran (and failed as before); the one after no write is denied.
    for index in (4, 6):
        [(is_error, content)] = result_texts(api, index)
        assert is_error and "expected TTL 9" in content, content
    [(is_error, content)] = result_texts(api, 7)
    assert is_error and content.startswith(DENIED), content
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["edit_seq"] == 2 and not state["guard"].get("tool_edit_seq")


def test_checkin_nudge_reaches_the_model(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    # Calls that change nothing and print nothing: a run without progress.
    quiet = [bash(f"echo part {n} > /dev/null") for n in range(1, 5)]
    script = [*quiet, text("Parts 1-4 are done.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "do the parts", env={"ARCGUARD_CHECKIN_TURNS": "3"})

    ended_by(run, "completed")
    assert len(api.requests) == 5
    nudge = "PostToolBatch hook additional context: [arcguard] 3 turns in a row"
    assert [nudge in api.request_text(i) for i in range(5)] == [False, False, False, True, True]
    assert log_kinds(arcguard_state(project, run.session_id)) == ["nudge"]


TSC_ERROR = "src/client.ts(42,7): error TS2322: Type 'string' is not assignable to type 'number'."
BUILD = f"#!/bin/sh\necho 'web@1.4.0 build'\necho \"{TSC_ERROR}\" >&2\nexit 2\n"
FAILED_ALIKE = "[arcguard] 4 attempts failed the same way"


def test_a_failing_build_seen_through_filters_is_one_failure_checked_in_on_then_paused(
    claude_project, run_release, claude_release
):
    # Piped through a filter, a failing build exits with the filter's code: Claude Code reports
    # the call as completed, though its output shows the same failure.
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "build.sh").write_text(BUILD)
    spellings = [
        "sh build.sh",
        "sh build.sh 2>&1 | tail -5",
        "sh ./build.sh 2>&1 | grep -A2 error",
        "bash build.sh",
        "sh build.sh 2>&1; echo exit=$?",
        "bash ./build.sh 2>&1 | head -20",
        "sh build.sh 2>&1 | cat",
    ]
    with ScriptedAPI([bash(c) for c in spellings * 2]) as api:
        run = run_release(project, api, "fix the web build")

    assert run.result is not None, run.describe()
    errors = [result_texts(api, i)[0][0] for i in range(1, 6)]
    assert errors == [True, False, False, True, False]
    word = [FAILED_ALIKE in api.request_text(i) for i in range(1, 6)]
    # Where the batch hook fires the word follows the 4th attempt's batch; without it, the
    # turn closes at the next call, and the word comes with that call's result.
    assert word.index(True) == (3 if claude_release.knows_post_tool_batch else 4)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["nudge", "pause"]
    assert "6 attempts failed the same way" in state["guard"]["paused"]["reason"]


def test_turns_after_the_request_that_bring_nothing_new_are_paused(claude_project, run_claude):
    # After the request, the build, the script read again and the build once more, each as
    # before: three turns with nothing new, the failure back twice, end the session one attempt
    # before the failure's own count would, set here three attempts after the request.
    project = claude_project(all_arcguard_settings())
    (project.path / "build.sh").write_text(BUILD)
    attempts = ["sh build.sh", "bash build.sh", "sh ./build.sh", "bash ./build.sh"]
    after = ["sh build.sh 2>&1", "cat ./build.sh", "sh build.sh", "head -n 20 build.sh"]
    with ScriptedAPI([bash(c) for c in ["cat build.sh", *attempts, *after]]) as api:
        run = run_claude(
            project, api, "fix the web build", env={"ARCGUARD_ERROR_PAUSE_REPEATS": "7"}
        )

    assert run.result is not None, run.describe()
    # The request follows the 4th attempt's batch (the 5th call's result).
    assert [FAILED_ALIKE in api.request_text(i) for i in range(1, 6)].index(True) == 4
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["nudge", "pause"]
    reason = state["guard"]["paused"]["reason"]
    assert "since the request to summarise, 3 turns brought nothing" in reason
    assert len(api.requests) == 8, len(api.requests)  # the 3rd turn after it ends the session


APP_LOG = """2026-05-12 08:14:03,221 ERROR django.request Internal Server Error: /webhooks/orders
Traceback (most recent call last):
  File "/srv/app/webhooks/shopify.py", line 31, in _shipping_from_payload
    "phone": addr["phone"],
             ~~~~^^^^^^^^^
KeyError: 'phone'
"""
READ_AGAIN = "[arcguard] The same failure, read 4 ways"


def test_one_traceback_read_six_ways_is_checked_in_on_then_paused(claude_project, run_claude):
    # Each reader prints the traceback its own way (line numbers, marks, a slice): nothing new.
    project = claude_project(all_arcguard_settings())
    (project.path / "app.log").write_text(APP_LOG)
    readers = [
        "cat app.log",
        "grep -n -A4 Traceback app.log",
        "tail -n 5 app.log",
        "sed -n '1,6p' app.log",
        "awk 'NR <= 6' app.log",
        "head -n 6 app.log",
        "grep -n -B1 -A4 Traceback app.log",
        "nl -ba app.log",
    ]
    with ScriptedAPI([bash(c) for c in readers]) as api:
        run = run_claude(project, api, "why does the orders webhook fail?")

    assert run.result is not None, run.describe()
    assert [READ_AGAIN in api.request_text(i) for i in range(1, 6)] == [
        False, False, False, True, True,
    ]  # fmt: skip
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["nudge", "pause"]
    assert "read 6 ways" in state["guard"]["paused"]["reason"]
    assert len(api.requests) == 6  # the pause ends the session at the 6th reading's batch


def test_a_hang_outliving_its_timeout_under_new_spellings_is_checked_in_on_then_paused(
    claude_project, run_release, claude_release
):
    # Claude Code moves a command that outlives its timeout to the background, as a new task
    # each time: no two results alike, but one command that does not finish, retried.
    project = claude_project(arcguard_settings_for(claude_release.version))
    hang = project.path / "hang"
    hang.write_text("#!/bin/sh\nsleep 25\n")  # outlives the session: no copy ends
    hang.chmod(0o755)
    spellings = ["./hang", "sh ./hang", "sh hang", "./hang --now", "sh hang -q", "./hang -v"]
    spellings += ["sh ./hang --retry", "sh ./hang --force"]
    calls = [tool_use("Bash", {"command": c, "timeout": 1000}) for c in spellings]
    with ScriptedAPI(calls) as api:
        run = run_release(project, api, "run the hang script")

    assert run.result is not None, run.describe()
    moved = [result_texts(api, i)[0][1] for i in range(1, 5)]
    assert all("background" in text for text in moved), moved
    word = [FAILED_ALIKE in api.request_text(i) for i in range(1, 6)]
    assert word.index(True) == (3 if claude_release.knows_post_tool_batch else 4)
    state = arcguard_state(project, run.session_id)
    assert log_kinds(state) == ["nudge", "pause"]
    assert "6 attempts failed the same way" in state["guard"]["paused"]["reason"]
    # Replayed from the transcript Claude Code wrote, it is judged as it was live.
    assert run.transcript is not None
    replay = [sys.executable, "-m", "arcguard", "replay", "--json", str(run.transcript)]
    done = subprocess.run(replay, capture_output=True, text=True, check=True)
    kinds = [d["kind"] for d in json.loads(done.stdout)["decisions"] if d["kind"] != "posture"]
    assert kinds == ["nudge", "pause"]


GO_IMPORT = 'package main\n\nimport "github.com/go-git/go-git"\n'
SEARCH_WORD = "[arcguard] 2 searches in a row found nothing"


def named_then_denied(api: ScriptedAPI, release: Any, *, fix: str, found: str) -> None:
    """The word comes after the second empty search's batch (a release without PostToolBatch
    settles that batch at the next call, so there it comes with the third call's result); the
    third search is denied with `fix` in its reason, and the fixed fourth finds `found`."""
    second = release.knows_post_tool_batch
    assert [SEARCH_WORD in api.request_text(i) for i in (1, 2, 3)] == [False, second, True]
    [(is_error, content)] = result_texts(api, 3)
    assert is_error and "cannot match as spelt" in content and fix in content
    [(is_error, content)] = result_texts(api, 4)
    assert not is_error and found in content


def _search_loop(project: Any, run: Any, calls: list[dict[str, Any]], fix: dict[str, Any]):
    """Three searches that cannot match, then the fixed one; the API and the session."""
    (project.path / "main.go").write_text(GO_IMPORT)
    with ScriptedAPI([*calls, fix, text("Found it.")]) as api:
        done = run(project, api, "where is go-git imported?")
    assert done.result is not None, done.describe()
    # Older releases print no terminal_reason; where they do, it must match.
    assert done.result.get("terminal_reason", "completed") == "completed", done.describe()
    return api, done


def test_grep_spelt_with_a_bare_pipe_is_named_then_denied(
    claude_project, run_release, claude_release
):
    # grep without -E reads `|` as a literal pipe: the word is there, the search finds nothing.
    project = claude_project(arcguard_settings_for(claude_release.version))
    calls = [bash(f'grep -rn "{word}" .') for word in ("go-git|billy", "go-git|gcfg", "git|go")]
    api, run = _search_loop(project, run_release, calls, bash('grep -rnE "go-git|billy" .'))
    # The newest release offers no Grep or Glob tool (the oldest does): searches go through Bash.
    tools = {tool["name"] for tool in api.requests[0].get("tools", [])}
    assert (
        {"Grep", "Glob"} <= tools
        if claude_release.role == "oldest"
        else not {"Grep", "Glob"} & tools
    )
    named_then_denied(api, claude_release, fix="grep -E", found="main.go")
    assert log_kinds(arcguard_state(project, run.session_id)) == ["nudge", "deny"]


@pytest.mark.parametrize("claude_release", ["oldest"], indirect=True)
def test_a_grep_tool_glob_in_quotes_is_named_then_denied(
    claude_project, run_release, claude_release
):
    # The oldest release still has the Grep tool. It runs no shell, so quotes in its glob are
    # part of the glob: it finds nothing even though the word is there.
    project = claude_project(arcguard_settings_for(claude_release.version))
    calls = [
        tool_use("Grep", {"pattern": word, "glob": '"*.go"', "output_mode": "content"})
        for word in ("go-git/go-git", "go-git", "github.com/go-git")
    ]
    fix = tool_use("Grep", {"pattern": "go-git", "glob": "*.go", "output_mode": "content"})
    api, run = _search_loop(project, run_release, calls, fix)
    assert [result_texts(api, i) for i in (1, 2)] == [[(False, "No matches found")]] * 2
    named_then_denied(api, claude_release, fix="drop the quotes", found="go-git")
    assert log_kinds(arcguard_state(project, run.session_id)) == ["nudge", "deny"]


def test_git_grep_finding_nothing_is_an_empty_search_on_every_release(
    claude_project, run_release, claude_release
):
    # The oldest release reports `git grep` exiting 1 as a failed call ("Exit code 1"), the
    # newest as one that printed nothing: both are searches that found nothing, staged as such.
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "main.go").write_text(GO_IMPORT)
    for command in ("init -q", "add main.go", "-c user.name=a -c user.email=a@b commit -qm a"):
        subprocess.run(["git", *shlex.split(command)], cwd=project.path, check=True)
    searches = [bash(f"git grep -n xyzzy{n}") for n in range(9)]
    with ScriptedAPI([*searches, text("It is not used.")]) as api:
        run = run_release(project, api, "is xyzzy used anywhere?")

    assert run.result is not None, run.describe()
    failed = claude_release.role == "oldest"
    shown = "Exit code 1" if failed else "(Bash completed with no output)"
    assert result_texts(api, 1) == [(failed, shown)]
    seen = " ".join(api.request_text(i) for i in range(len(api.requests)))
    assert "8 searches in a row found nothing" in seen
    assert "attempts failed" not in seen
    assert log_kinds(arcguard_state(project, run.session_id)) == ["nudge"]


# --------------------------------------------------------------------------- Claude Code facts

DENY: dict[str, Any] = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no repeats",
    }
}


def logged_project(claude_project, replies: dict[str, dict[str, Any]]):
    """A project whose hooks only log payloads, answering ``replies[event]`` when given."""
    project = claude_project()
    log = payload_log(project)
    events = ["UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"]
    events += ["PostToolBatch", "Stop"]
    project.write_settings(hook_settings({e: log.command(replies.get(e)) for e in events}))
    return project, log


def test_fact_post_batch_fires_when_every_call_was_denied(claude_project, run_claude):
    project, log = logged_project(claude_project, {"PreToolUse": DENY})
    both = turn(bash("echo one"), bash("echo two"))
    with ScriptedAPI([both, text("Understood.")]) as api:
        run = run_claude(project, api, "go")

    ended_by(run, "completed")
    assert log.events() == ["UserPromptSubmit", "PreToolUse", "PreToolUse", "PostToolBatch", "Stop"]
    [batch] = log.payloads("PostToolBatch")
    calls = sorted((c["tool_input"]["command"], c["tool_response"]) for c in batch["tool_calls"])
    denied = "PreToolUse:Bash hook error: no repeats"
    assert calls == [("echo one", denied), ("echo two", denied)]


def test_fact_a_command_cut_off_goes_to_the_background_unless_it_is_silent_on_newer_releases(
    claude_project, run_release, claude_release
):
    # Claude Code moves a command its timeout ends to the background and reports it done (the
    # loop guard then waits for it, as for any background work); the newer releases kill one
    # that printed nothing, such as a bare `sleep`, and report a failure (exit 143).
    project = claude_project()
    log = payload_log(project)
    events = ("PostToolUse", "PostToolUseFailure")  # known to every supported release
    project.write_settings(hook_settings({e: log.command() for e in events}))
    quiet = tool_use("Bash", {"command": "sleep 5", "timeout": 1000})
    loud = tool_use("Bash", {"command": "echo ready; sleep 5", "timeout": 1000})
    with ScriptedAPI([quiet, loud, text("Both hang.")]) as api:
        run = run_release(project, api, "go")

    assert run.result is not None, run.describe()
    posts = [p for p in log.payloads() if p["hook_event_name"].startswith("PostToolUse")]
    silent, printed = posts
    assert printed["hook_event_name"] == "PostToolUse"
    assert printed["tool_response"]["backgroundTaskId"]
    if claude_release.version == WINDOW_RELEASES["oldest"]:
        assert silent["tool_response"]["backgroundTaskId"]
    else:
        assert silent["hook_event_name"] == "PostToolUseFailure"
        assert silent["error"] == "Exit code 143\nCommand timed out after 1s"


def test_fact_continue_false_from_post_batch_ends_the_session(claude_project, run_claude):
    project, log = logged_project(
        claude_project, {"PostToolBatch": {"continue": False, "stopReason": "cycle"}}
    )
    with ScriptedAPI([bash("echo one"), text("Never sent.")]) as api:
        run = run_claude(project, api, "go")

    ended_by(run, "hook_stopped")
    assert len(api.requests) == 1
    assert "Stop" not in log.events()


def test_fact_continue_false_from_pre_tool_still_runs_the_call(claude_project, run_claude):
    project, log = logged_project(
        claude_project, {"PreToolUse": {"continue": False, "stopReason": "paused"}}
    )
    marker = project.root / "ran"
    with ScriptedAPI([bash(f"touch {shlex.quote(str(marker))}"), text("Never sent.")]) as api:
        run = run_claude(project, api, "go")

    ended_by(run, "hook_stopped")
    assert len(api.requests) == 1
    # Without a deny the call runs before the session ends; PostToolBatch and Stop never fire.
    assert marker.exists()
    assert log.events() == ["UserPromptSubmit", "PreToolUse", "PostToolUse"]


def test_fact_deny_with_continue_false(claude_project, run_claude):
    reply = dict(DENY, **{"continue": False, "stopReason": "paused for a cycle"})
    project, log = logged_project(claude_project, {"PreToolUse": reply})
    marker = project.root / "ran"
    with ScriptedAPI([bash(f"touch {shlex.quote(str(marker))}")]) as api:
        run = run_claude(project, api, "go")
        assert run.result is not None, run.describe()
        assert run.result["terminal_reason"] == "hook_stopped"
        assert [d["tool_name"] for d in run.result["permission_denials"]] == ["Bash"]
        project.write_settings({})
        api.add(text("Resumed."))
        run_claude(project, api, "go on", extra_args=["--resume", str(run.session_id)])

    assert not marker.exists()
    assert log.events() == ["UserPromptSubmit", "PreToolUse"]
    assert len(api.requests) == 2
    # What the model sees once the session goes on: the deny as an error result, then the stop.
    assert result_texts(api, 1) == [(True, "PreToolUse:Bash hook error: no repeats")]
    assert "PreToolUse:Bash hook stopped continuation: paused for a cycle" in api.request_text(1)


def test_fact_additional_context_reaches_the_model(claude_project, run_claude):
    project, _ = logged_project(
        claude_project,
        {
            event: {"hookSpecificOutput": {"hookEventName": event, "additionalContext": note}}
            for event, note in (("PostToolBatch", "batch note"), ("PostToolUse", "tool note"))
        },
    )
    with ScriptedAPI([bash("echo one"), text("Done.")]) as api:
        run = run_claude(project, api, "go")

    ended_by(run, "completed")
    seen = api.request_text(1)
    assert "PostToolBatch hook additional context: batch note" in seen
    assert "PostToolUse:Bash hook additional context: tool note" in seen


def test_fact_edit_response_shows_the_change(claude_project, run_claude):
    project, log = logged_project(claude_project, {})
    source = project.path / "limits.py"
    source.write_text("RETRIES = 3\n")
    edit = tool_use(
        "Edit",
        {"file_path": str(source), "old_string": "RETRIES = 3", "new_string": "RETRIES = 5"},
    )
    with ScriptedAPI([read(source), edit, text("Done.")]) as api:
        run_claude(project, api, "edit")

    [_, edited] = log.payloads("PostToolUse")
    response = edited["tool_response"]
    assert response["originalFile"] == "RETRIES = 3\n"
    assert response["structuredPatch"]


def test_sleeping_while_a_background_command_runs_is_not_a_loop(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    started = tool_use("Bash", {"command": "sleep 20", "run_in_background": True})
    script = [started, *(bash("sleep 1") for _ in range(6)), text("The job is still going.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "wait for the job")

    ended_by(run, "completed")
    # Claude Code in -p mode waits for the background command, then wakes the session once.
    assert len(api.requests) == 9 and "<task-notification>" in api.request_text(8)
    assert all(not is_error for i in range(1, 8) for is_error, _ in result_texts(api, i))
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["paused"] is None
    assert log_kinds(state) == []


def test_installed_with_its_code_image_a_third_identical_failing_call_is_denied(
    claude_project, run_claude
):
    from arcguard import hook_image

    project = claude_project()
    install_arcguard(project)
    image = project.arcguard_home / hook_image.IMAGE_NAME
    assert hook_image.stale(str(image)) is None  # what the launcher loads the hooks from
    say = "Let me look at the build output again."
    script = [turn(text(say), bash("ls build-output")) for _ in range(3)] + [text("Stopping.")]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "get the build green")

    assert run.result is not None, run.describe()
    for index in (1, 2):
        [(is_error, content)] = result_texts(api, index)
        assert is_error and "build-output" in content and "arcguard" not in content
    [(is_error, content)] = result_texts(api, 3)
    assert is_error and content.startswith(DENIED)
    assert denials(arcguard_state(project, run.session_id)) == ["Bash: ls build-output"]
    assert hook_image.stale(str(image)) is None
