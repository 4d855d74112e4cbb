"""What the user reads on the screen of the interactive CLI (in tmux) for arcguard's
decisions, on the oldest and the newest supported release: one short line per decision in
plain words, ending with what changes it; no interpreter path or session id; a pause's reason
once, not twice."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
import screens
from interactive import Terminal
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from conftest import WINDOW_RELEASES
from conftest import ClaudeRelease
from conftest import arcguard_settings_for
from conftest import install_autonomous_command
from conftest import log_kinds
from conftest import release_bin
from conftest import version_key


NOOP = "No response requested."
SENT_BACK = (
    "Stop says: arcguard sent the model back to work (1 of 2 in a row): it stopped mid-arc with"
    " nothing done. To change this: stop_policy, or /autonomous stop"
)
DENIED = (
    "says: arcguard stopped a repeated Bash call: it ran 2 times with the same result and nothing"
    " changed since. To change this: repeat_limit, loop_guard, or arcguard off"
)
PAUSED = "arcguard paused this session: the model repeated a 2-call cycle 3 times in a row"
PAUSE_ADJUST = "Send a message to resume. To change this: cycle_repeats"


pytestmark = pytest.mark.usefixtures("needs_tmux")


def states(project: Any) -> list[dict[str, Any]]:
    """The state of every session the project's runs left."""
    sessions = Path(project.arcguard_home) / "sessions"
    return [json.loads(f.read_text()) for f in sorted(sessions.glob("*.json"))]


def kinds(project: Any) -> list[str]:
    return [kind for state in states(project) for kind in log_kinds(state)]


def words(terminal: Terminal) -> str:
    """Everything the terminal showed, its wrapped lines joined: one space between words."""
    return " ".join(terminal.history().split())


def run_until(
    release: ClaudeRelease, project: Any, script: list[Any], prompt: str, reply: str
) -> tuple[ScriptedAPI, str]:
    """Type `prompt` in the interactive CLI and wait for the model's `reply`: the scripted API
    and everything the terminal showed."""
    with ScriptedAPI(script) as api, interactive_claude(release.binary, project, api) as cli:
        cli.type(prompt)
        wait_for(lambda: reply in cli.screen(), 90, "the reply", cli)
        time.sleep(1)
        return api, words(cli)


def test_a_continuation_reads_as_one_line_without_the_completion_command(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    install_autonomous_command(project)
    script = [text(NOOP), text("Back on the importer.")]
    api, shown = run_until(
        claude_release, project, script, "/autonomous ship the importer", "Back on the importer."
    )

    assert shown.count(SENT_BACK) == 1, shown
    # The model's reason is on the screen too (Claude Code prints it), but not the command
    # line that completes the arc: no interpreter path, no session id.
    assert "Autonomous arc 'ship the importer' is still active" in shown
    assert "-m arcguard" not in shown and "arc complete" not in shown.replace("`arc complete`", "")
    [sid] = [state["session_id"] for state in states(project)]
    assert sid not in shown
    assert "arcguard arc complete" in api.request_text(1)  # the model still has the command


WAIT_SENT_BACK = (
    "arcguard sent the model back to work (1 of 2 in a row): it stopped partway mid-arc, with work"
    " still to do. To change this: stop_policy, or /autonomous stop"
)


def test_a_wait_on_ci_is_sent_back_only_where_the_release_says_nothing_runs(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    # From 2.1.145 the Stop payload lists running background work; before, it does not say,
    # and a wait may be on work that runs, so it is left alone.
    project = claude_project(arcguard_settings_for(claude_release.version))
    install_autonomous_command(project)
    says = version_key(claude_release.version) >= version_key("2.1.145")
    closing = "The fix is pushed. Waiting for CI to complete."
    script = [text(closing), text("CI passed and the fix is merged.")]
    reply = "CI passed and the fix is merged." if says else closing
    _, shown = run_until(claude_release, project, script, "/autonomous ship the fix", reply)

    assert (WAIT_SENT_BACK in shown) is says, shown
    assert kinds(project)[:2] == ["arc", "continue" if says else "allow"]


def test_a_deny_and_a_pause_read_as_plain_lines_and_the_pause_is_said_once(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    calls = ("echo A >> runs.txt", "echo B >> runs.txt")
    script = [tool_use("Bash", {"command": c}) for _ in range(15) for c in calls]
    with ScriptedAPI(script) as api, interactive_claude(claude_release.binary, project, api) as cli:
        cli.type("get the build green")
        wait_for(lambda: "pause" in kinds(project), 120, "the pause", cli)
        wait_for(lambda: PAUSE_ADJUST in words(cli), 30, "the pause on the screen", cli)
        time.sleep(2)
        shown = words(cli)

    assert DENIED in shown, shown
    assert f"{PAUSED}" in shown and PAUSE_ADJUST in shown
    # arcguard adds no line of its own for the pause: Claude Code prints its reason.
    assert "says: arcguard paused" not in shown, shown
    if claude_release.knows_post_tool_batch:
        # The turn's batch pauses the session: its reason is printed once, under
        # "hook stopped Claude".
        assert shown.count(PAUSED) == 1, shown
    assert len(api.requests) >= 6


SEARCH_ASKED = (
    "says: arcguard asked the model to check its search: several in a row found nothing. To"
    " change this: shape_checkin_repeats, loop_guard"
)
SEARCH_DENIED = (
    "says: arcguard stopped a Bash search that cannot match as written, after searches that found"
    " nothing; the model was told the fix. To change this: loop_guard, or arcguard off"
)


def test_a_search_that_cannot_match_is_named_for_what_it_is_not_called_a_repeat(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "main.go").write_text('import "github.com/go-git/go-git"\n')
    greps = [f'grep -rn "{w}" .' for w in ("go-git|billy", "go-git|gcfg", "git|go")]
    script = [
        *(tool_use("Bash", {"command": g}) for g in greps),
        tool_use("Bash", {"command": 'grep -rnE "go-git|billy" .'}),
        text("Found it in main.go."),
    ]
    api, shown = run_until(
        claude_release, project, script, "where is go-git imported?", "Found it in main.go."
    )

    assert SEARCH_DENIED in shown, shown
    # Without PostToolBatch the request is decided in the deny's own hook run, and one hook run
    # gets one line: the deny's.
    assert (SEARCH_ASKED in shown) is claude_release.knows_post_tool_batch, shown
    assert "stopped a repeated" not in shown, shown
    assert kinds(project) == ["nudge", "deny"]
    assert len(api.requests) >= 5  # the interactive CLI may send more of its own


FAILED_ASKED = (
    "says: arcguard asked the model to step back: 4 attempts failed the same way with no file"
    " changed. To change this: error_checkin_repeats, error_pause_repeats, loop_guard"
)
FAILING_BUILD = (
    "#!/bin/sh\necho 'web@1.4.0 build'\necho 'src/app.ts(3,1): error TS2304' >&2\nexit 2\n"
)


def test_a_failure_retried_under_new_spellings_is_asked_about_in_its_own_words(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "build.sh").write_text(FAILING_BUILD)
    spellings = ("sh build.sh", "sh build.sh 2>&1 | tail -5", "bash build.sh", "sh ./build.sh")
    script = [
        *(tool_use("Bash", {"command": c}) for c in (*spellings, "bash ./build.sh 2>&1")),
        text("The build fails on one type error."),
    ]
    api, shown = run_until(claude_release, project, script, "fix the web build", "one type error.")

    # Not the tool-only turns' summary request, and with the settings of its own rule; on the
    # oldest release too, where the 5th attempt fails again (see test_held_requests.py).
    assert shown.count(FAILED_ASKED) == 1, shown
    assert "checkin_turns" not in shown, shown
    assert kinds(project) == ["nudge"]
    assert len(api.requests) >= 6


NO_EFFECT_ASKED = (
    "says: arcguard asked the model to step back: 4 changes in a row left what a look shows as it"
    " was. To change this: error_checkin_repeats, error_pause_repeats, loop_guard"
)


def test_changes_that_change_nothing_are_asked_about_in_their_own_words(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "status.txt").write_text("502 Bad Gateway\n")
    script = []
    for n in range(1, 6):  # a change (each its own file), then the same look
        script.append(tool_use("Bash", {"command": f"touch restarted-{n}.flag"}))
        script.append(tool_use("Bash", {"command": "cat status.txt"}))
    # One more change: without PostToolBatch, the 5th look's turn closes as the next call starts
    # (a request decided at a stop waits for a call that never comes).
    script.append(tool_use("Bash", {"command": "touch restarted-6.flag"}))
    script.append(text("The service still answers 502."))
    api, shown = run_until(claude_release, project, script, "get it serving", "answers 502.")

    assert shown.count(NO_EFFECT_ASKED) == 1, shown
    assert "checkin_turns" not in shown, shown
    assert kinds(project) == ["nudge"]
    assert len(api.requests) >= 12  # the oldest release sends one request more


SAME_ANSWER_ASKED = (
    "says: arcguard asked the model to step back: 4 ways of asking one question got the same"
    " answer. To change this: error_checkin_repeats, error_pause_repeats, loop_guard"
)


ASKED_STATE = (  # a status field
    "health.json",
    '{"cluster": "catalog", "status": "yellow"}\n',
    ["cat health.json", "cut -d'\"' -f8 health.json", "tr -d '{}\"' < health.json"]
    + ["awk -F'\"' '{print $8}' health.json"],
)
ASKED_VALUE = (  # no status: a host name the prints share
    "record.txt",
    "status.example.com CNAME status-legacy.example.net.\n",
    ["cat record.txt", "cut -d' ' -f3 record.txt", "awk '{print $3}' record.txt"]
    + ["sed 's/.* //' record.txt"],
)


@pytest.mark.parametrize(("name", "content", "looks"), [ASKED_STATE, ASKED_VALUE])
def test_one_answer_asked_many_ways_is_asked_about_in_its_own_words(
    claude_release: ClaudeRelease, claude_project: Any, name: str, content: str, looks: list[str]
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / name).write_text(content)
    # One more call: without PostToolBatch, the 4th look's turn closes as the next call starts.
    script = [tool_use("Bash", {"command": look}) for look in [*looks, "ls"]]
    script.append(text("The answer is still the same."))
    api, shown = run_until(claude_release, project, script, "wait for the change", "the same.")

    assert shown.count(SAME_ANSWER_ASKED) == 1, shown
    assert kinds(project) == ["nudge"]
    assert len(api.requests) >= 6


REREAD_ASKED = (
    "says: arcguard asked the model to step back: 4 ways of reading one failure showed the same"
    " failing lines. To change this: error_checkin_repeats, error_pause_repeats, loop_guard"
)
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/app/webhooks/shopify.py", line 31, in _shipping_from_payload\n'
    "KeyError: 'phone'\n"
)


def test_one_failure_read_many_ways_is_asked_about_in_its_own_words(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "app.log").write_text(TRACEBACK)
    readers = ["cat app.log", "grep -n -A2 Traceback app.log", "tail -n 3 app.log"]
    # The 5th closes the 4th's turn on a release without PostToolBatch.
    readers += ["sed -n '1,3p' app.log", "ls"]
    script = [tool_use("Bash", {"command": reader}) for reader in readers]
    script.append(text("The handler reads a phone the payload lacks."))
    api, shown = run_until(claude_release, project, script, "why does it fail?", "lacks.")

    assert shown.count(REREAD_ASKED) == 1, shown
    assert kinds(project) == ["nudge"]
    assert len(api.requests) >= 6


def test_restarts_checked_in_the_same_command_are_asked_about_in_their_own_words(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    svc = project.path / "svc"
    svc.write_text('#!/bin/sh\necho "restarting $2 ($*)" >&2\n')
    svc.chmod(0o755)
    (project.path / "version.txt").write_text('{"service": "api", "commit": "4b7d0a1"}\n')
    # Each restart spelt its own way, then the same version in the same command; the 5th
    # closes the 4th's turn on a release without PostToolBatch.
    command = "./svc restart api --try {} && sleep 0.1 && cat version.txt"
    script = [tool_use("Bash", {"command": command.format(n)}) for n in range(1, 6)]
    script.append(text("It still serves the old build."))
    api, shown = run_until(claude_release, project, script, "serve the new build", "old build.")

    assert shown.count(NO_EFFECT_ASKED) == 1, shown
    assert kinds(project) == ["nudge"]
    assert len(api.requests) >= 6


# The release docs/what-you-will-see.md is captured on: the newest the project supports.
PAGE_RELEASE = WINDOW_RELEASES["newest"]


def in_order(wanted: list[str], rows: list[str]) -> bool:
    """Whether `wanted` are among `rows`, in the same order."""
    remaining = iter(rows)
    return all(row in remaining for row in wanted)


@pytest.mark.parametrize("name", sorted(screens.SCENARIOS))
def test_the_screens_page_shows_what_the_cli_shows(name: str, claude_project: Any) -> None:
    """Every arcguard row of the page's capture is on a fresh run's screen, row for row. With
    WRITE_SCREENS=1 the run rewrites the page's capture instead."""
    binary = release_bin(PAGE_RELEASE)
    if not binary.is_file():
        missing = f"Claude Code {PAGE_RELEASE} is not installed (run .ci/run)"
        if os.environ.get("CI"):
            pytest.fail(missing)
        pytest.skip(missing)
    rows = screens.capture(binary, claude_project(), name)
    page = screens.PAGE.read_text(encoding="utf-8")
    if os.environ.get("WRITE_SCREENS") == "1":
        screens.PAGE.write_text(screens.with_blocks(page, {name: rows}), encoding="utf-8")
        return
    shown = screens.arcguard_rows(screens.page_blocks(page)[name])
    assert shown, f"the page's {name} screen has no arcguard row"
    fresh = screens.arcguard_rows(rows)
    assert in_order(shown, fresh), "\n".join(["page:", *shown, "", "fresh run:", *fresh])


def test_failures_taking_turns_are_asked_about_as_attempts_that_failed(
    claude_release: ClaudeRelease, claude_project: Any
) -> None:
    project = claude_project(arcguard_settings_for(claude_release.version))
    (project.path / "order.txt").write_text("formatter\n")
    (project.path / "lint").write_text(
        "#!/bin/sh\nif grep -q formatter order.txt; then echo 'would reformat app.py';"
        " else echo 'ERROR: app.py Imports are incorrectly sorted'; fi\nexit 1\n"
    )
    for fixer, after in (("fmt", "sorter"), ("sort", "formatter")):
        (project.path / fixer).write_text(
            f"#!/bin/sh\necho 'fixed app.py'\necho {after} > order.txt\n"
        )
    for name in ("lint", "fmt", "sort"):
        (project.path / name).chmod(0o755)
    # On the oldest release the request waits for the next failure (see test_held_requests.py).
    calls = ["./lint", "./fmt", "sh ./lint", "./sort", "./lint 2>&1", "sh ./fmt", "./lint --all"]
    calls += ["sh ./sort", "./lint -q"]
    script = [
        *(tool_use("Bash", {"command": c}) for c in calls),
        text("The fixers undo each other."),
    ]
    api, shown = run_until(claude_release, project, script, "make lint pass", "undo each other.")

    # The 4th failing check: the user's line is the same-failure rule's, and both it and the
    # model's request say how the attempts failed.
    alone, in_turns = "the same way with no file changed", "in the same 2 ways, taking turns"
    in_turns = FAILED_ASKED.replace(alone, in_turns)
    assert shown.count(in_turns) == 1, shown
    assert kinds(project) == ["nudge"]
    assert any("failed in the same 2 ways" in api.request_text(i) for i in range(len(api.requests)))
