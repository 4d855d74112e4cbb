"""Loops whose values change every time, a sleeping poll and stops mid-arc ("Continuing…", "A
good place to pause."), end to end with the real Claude Code CLI and every arcguard hook wired
in settings."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import ClaudeProject
from conftest import ClaudeRun
from conftest import all_arcguard_settings
from conftest import arcguard_state
from conftest import log_kinds


CHECK_IN = "PostToolBatch hook additional context: [arcguard] 8 calls repeated ones made before"


def asked_then_paused(
    project: ClaudeProject,
    run: ClaudeRun,
    api: ScriptedAPI,
    word: str,
    *,
    asked_in: int,
    requests: int,
) -> dict[str, Any]:
    """The session was asked to check in (`word` first in request `asked_in`), then paused by
    the loop guard after request `requests`, the last: its state, for the pause's reason."""
    assert run.result is not None and run.result["terminal_reason"] == "hook_stopped", (
        run.describe()
    )
    assert [word in api.request_text(i) for i in (asked_in - 1, asked_in)] == [False, True]
    assert len(api.requests) == requests
    state = arcguard_state(project, run.session_id)
    assert state["guard"]["paused"]["kind"] == "stuck"
    assert log_kinds(state) == ["nudge", "pause"]
    return state


def test_a_timestamped_probe_loop_is_checked_in_on_then_paused(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    # A new counter in the command and a new timestamp in every result: no two calls alike.
    script = [tool_use("Bash", {"command": f'echo "check {n}"; date +%s%N'}) for n in range(1, 31)]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "make sure the clock service is up")

    # The first probe is new; the 9th is the 8th shape repeat, so the 10th request carries
    # the check-in; the 13th is the 12th repeat, and its batch pauses: no 14th request.
    asked_then_paused(project, run, api, CHECK_IN, asked_in=9, requests=13)
    assert not any(r.get("is_error") for i in range(1, 13) for r in api.tool_results(i))


def test_a_sleeping_poll_with_the_same_answer_is_left_alone(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    (project.path / "ci.txt").write_text("pending\n")
    poll = "sleep 0.2; cat ci.txt"
    script = [tool_use("Bash", {"command": poll}) for _ in range(7)]
    script.append(text("CI is still pending; I will look again later."))
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "wait for CI")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    # Without the poll rule the 3rd poll is denied and the 5th turn pauses the session.
    assert len(api.requests) == 8
    results = [api.tool_results(i) for i in range(1, 8)]
    assert all(len(r) == 1 and not r[0].get("is_error") for r in results)
    assert log_kinds(arcguard_state(project, run.session_id)) == []


def test_a_continuing_stop_mid_arc_is_sent_back(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    script = [
        text("Parser trimmed and tested. Continuing…"),
        text("The importer is committed and all tests pass."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    assert "ended by announcing a next step without taking it" in api.request_text(1)
    assert log_kinds(arcguard_state(project, run.session_id)) == ["arc", "continue", "release"]


@pytest.mark.parametrize(
    "closing",
    [
        "The parser is trimmed and tested. This is a good place to pause.",
        # Nothing runs in the background: nothing would wake the session when CI ends.
        "The parser is pushed. Waiting for CI to complete.",
        "The parser is trimmed and tested. The loader remains to be done.",
    ],
    ids=["pause", "wait-on-nothing-running", "work-left"],
)
def test_a_stop_partway_mid_arc_is_sent_back(claude_project, run_claude, closing):
    project = claude_project(all_arcguard_settings())
    script = [
        text(closing),
        text("The importer is committed and all tests pass."),
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "/autonomous ship the importer")

    assert run.result is not None and run.result["terminal_reason"] == "completed", run.describe()
    assert len(api.requests) == 2
    assert "ended by stopping partway, with work still to do" in api.request_text(1)
    assert log_kinds(arcguard_state(project, run.session_id)) == ["arc", "continue", "release"]


NO_EFFECT = "PostToolBatch hook additional context: [arcguard] 4 changes in a row were each"


def test_changes_whose_look_answers_as_before_are_checked_in_on_then_paused(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    (project.path / "status.txt").write_text("502 Bad Gateway\n")
    script = []
    for n in range(1, 11):  # a change (each its own file), then the same look
        script.append(tool_use("Bash", {"command": f"touch restarted-{n}.flag"}))
        script.append(tool_use("Bash", {"command": "cat status.txt"}))
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "get the service serving again")

    # The 1st look is new, and every later one answers the same, so the 1st change was the
    # first that did nothing: the 4th look (the 8th call) asks, and the 9th request carries
    # it; the 6th look (the 12th call) pauses.
    state = asked_then_paused(project, run, api, NO_EFFECT, asked_in=8, requests=12)
    assert "6 changes in a row" in state["guard"]["paused"]["reason"]


def test_restarts_checked_in_the_same_command_are_checked_in_on_then_paused(
    claude_project, run_claude
):
    project = claude_project(all_arcguard_settings())
    svc = project.path / "svc"
    svc.write_text('#!/bin/sh\necho "restarting $2 ($*)" >&2\n')
    svc.chmod(0o755)
    (project.path / "version.txt").write_text('{"service": "api", "commit": "4b7d0a1"}\n')
    script = [  # each restart spelt its own way, its chatter on stderr, the same version after
        tool_use(
            "Bash", {"command": f"./svc restart api --try {n} && sleep 0.1 && cat version.txt"}
        )
        for n in range(1, 11)
    ]
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "get the new build serving")

    # The 1st answer is new and the 1st restart counts once the 2nd answers the same: the 4th
    # asks (the 5th request carries it), the 6th pauses.
    state = asked_then_paused(project, run, api, NO_EFFECT, asked_in=4, requests=6)
    assert "6 changes in a row" in state["guard"]["paused"]["reason"]


SAME_ANSWER = "PostToolBatch hook additional context: [arcguard] The same question, asked 4 ways"


def asked_many_ways(
    claude_project: Any, run_claude: Any, file: tuple[str, str], looks: list[str], prompt: str
) -> str:
    """A file (`name`, `content`) looked at in each of `looks`' words, one a turn, each time
    with the same answer: the 4th way asks (the 5th request carries it), the 6th pauses, no
    7th request. The pause's reason."""
    project = claude_project(all_arcguard_settings())
    (project.path / file[0]).write_text(file[1])
    with ScriptedAPI([tool_use("Bash", {"command": look}) for look in looks]) as api:
        run = run_claude(project, api, prompt)
    state = asked_then_paused(project, run, api, SAME_ANSWER, asked_in=4, requests=6)
    reason: str = state["guard"]["paused"]["reason"]
    assert "asked 6 ways" in reason
    return reason


def test_one_answer_asked_many_ways_is_checked_in_on_then_paused(claude_project, run_claude):
    looks = [  # one question, each time in other words, each time the same answer
        "cat health.json",
        "cut -d'\"' -f8 health.json",
        "tr -d '{}\"' < health.json",
        "awk -F'\"' '{print $8}' health.json",
        "sed 's/[{}]//g' health.json",
        "head -c 200 health.json",
        "tac health.json",
        "cat ./health.json",
    ]
    health = ("health.json", '{"cluster": "catalog", "status": "yellow"}\n')
    prompt = "wait until the cluster is green, then reindex"
    assert "yellow" in asked_many_ways(claude_project, run_claude, health, looks, prompt)


def test_one_value_asked_many_ways_is_checked_in_on_then_paused(claude_project, run_claude):
    # No status field: the answer is a value (a host name) the prints share.
    looks = [
        "cat record.txt",
        "cut -d' ' -f3 record.txt",
        "awk '{print $3}' record.txt",
        "sed 's/.* //' record.txt",
        "tr -s ' ' '\\n' < record.txt | tail -1",
        "rev record.txt | cut -d' ' -f1 | rev",
        "tac record.txt",
        "head -c 200 record.txt",
    ]
    record = ("record.txt", "status.example.com CNAME status-legacy.example.net.\n")
    prompt = "check the record points at the CDN now"
    reason = asked_many_ways(claude_project, run_claude, record, looks, prompt)
    assert "status-legacy.example.net" in reason


TAKING_TURNS = "PostToolBatch hook additional context: [arcguard] 4 attempts failed in the same 2"


def test_failures_taking_turns_are_checked_in_on_then_paused(claude_project, run_claude):
    project = claude_project(all_arcguard_settings())
    # Two fixers that undo each other: the check fails on whichever ran last.
    state = project.path / "order.txt"
    state.write_text("formatter\n")
    complaints = {
        "formatter": "would reformat app/service.py",
        "sorter": "ERROR: app/service.py Imports are incorrectly sorted and/or formatted.",
    }
    lint = project.path / "lint"
    lint.write_text(
        "#!/bin/sh\n"
        f'if grep -q formatter order.txt; then echo "{complaints["formatter"]}"; '
        f'else echo "{complaints["sorter"]}"; fi\nexit 1\n'
    )
    for fixer, after in (("fmt", "sorter"), ("sort", "formatter")):
        path = project.path / fixer
        path.write_text(f'#!/bin/sh\necho "fixed app/service.py"\necho {after} > order.txt\n')
        path.chmod(0o755)
    lint.chmod(0o755)
    checks = ("./lint", "./lint 2>&1", "sh ./lint", "./lint --all", "sh lint", "./lint -q")
    script = [tool_use("Bash", {"command": "./lint"})]
    for n in range(1, 10):  # a fixer, then the check, each spelt anew
        fixer = "./fmt" if n % 2 else "./sort"
        spelt = (fixer, f"sh {fixer}", f"{fixer} .", f"{fixer} --fix", f"{fixer} -q")[n // 2]
        script.append(tool_use("Bash", {"command": spelt}))
        script.append(tool_use("Bash", {"command": checks[n % len(checks)]}))
    with ScriptedAPI(script) as api:
        run = run_claude(project, api, "make the lint check pass")

    # The check's 4th failure (the 7th call) asks, and the 8th request carries it; its 6th
    # (the 11th call) pauses: no 12th request.
    paused = asked_then_paused(project, run, api, TAKING_TURNS, asked_in=7, requests=11)
    assert "6 attempts failed in the same 2 ways" in paused["guard"]["paused"]["reason"]
