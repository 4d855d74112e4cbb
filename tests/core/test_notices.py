"""The user's line about each decision: one per hook run, worded per kind, never for the model."""

from __future__ import annotations

import json

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config import default_config
from arcguard.core.display import notices
from arcguard.core.schema import LogEntry
from arcguard.core.schema import StateFile
from tests.core.test_stop import NOW
from tests.core.test_stop import with_arc


CFG = default_config()


def _user_line(entries, cfg):
    """`notices.user_line` on log entries as the state file holds them."""
    return notices.user_line([LogEntry.view(entry) for entry in entries], cfg)


def test_a_continuation_says_which_in_a_row_and_why():
    entry = {"kind": "continue", "rule": "question", "consecutive": 1, "reason": "x"}
    assert _user_line([entry], CFG) == (
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped to ask permission mid-arc. To change this: stop_policy, or /autonomous stop"
    )


def test_a_continuation_of_a_stop_partway_says_so():
    entry = {"kind": "continue", "rule": "paused", "consecutive": 1, "reason": "x"}
    line = _user_line([entry], CFG)
    assert line is not None and "it stopped partway mid-arc, with work still to do." in line


def test_the_stop_decision_logs_what_the_line_needs():
    out, state = decide_stop(
        with_arc(),
        Signals(Final.from_text("Want me to run the tests?")),
        CFG,
        NOW,
    )
    assert out is not None
    line = _user_line(state["log"], CFG)
    assert line is not None
    assert line.startswith(
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped to ask permission mid-arc."
    )
    assert line not in out[0].text  # the model's text is another one


ACTING = [
    ({"kind": "deny", "operation": "Bash: cat /home/ada/x.yaml", "runs": 2}, "repeat_limit"),
    ({"kind": "nudge", "reason": "[arcguard] 8 turns"}, "checkin_turns"),
    ({"kind": "nudge", "rule": "same-failure", "runs": 4}, "error_checkin_repeats"),
    ({"kind": "nudge", "rule": "nothing-new", "runs": 8}, "shape_checkin_repeats"),
    ({"kind": "nudge", "rule": "no-effect", "runs": 4}, "error_checkin_repeats"),
    ({"kind": "nudge", "rule": "poll"}, "poll_checkin_seconds"),
    ({"kind": "nudge", "rule": "check-in"}, "checkin_turns"),
    ({"kind": "nudge", "rule": "backstop"}, "backstop_nudge_turns"),
    ({"kind": "nudge", "rule": "searches", "reason": "[arcguard] 2 searches"}, "loop_guard"),
    (
        {"kind": "deny", "rule": "cannot-match", "operation": "Grep: /home/ada/src", "runs": 2},
        "loop_guard",
    ),
    ({"kind": "resume", "reason": "operator message"}, "arcguard off"),
    ({"kind": "give-up", "reason": "no resume after the API limit: spent"}, "limit_resumes"),
    ({"kind": "cap", "reason": "cap"}, "max_continuations_per_arc"),
    ({"kind": "limit-wait", "attempt": 1, "of": 3}, "limit_resumes_per_arc"),
    ({"kind": "continue", "rule": "dead-resume"}, "stop_policy"),
    ({"kind": "arc-stop", "reason": "the arc 'x' ended"}, "/autonomous stop"),
    ({"kind": "arc-new", "reason": "a new arc"}, "/autonomous stop"),
    ({"kind": "check-in-soon", "reason": "[arcguard] asked"}, "arcguard off"),
]


@pytest.mark.parametrize(("entry", "adjust"), ACTING)
def test_each_acting_kind_has_one_plain_line_ending_with_what_changes_it(entry, adjust):
    line = _user_line([entry], CFG)
    assert line is not None and line.startswith("arcguard")
    assert adjust in line.split(notices.ADJUST)[-1]
    assert "/home" not in line  # no path: only the tool's name is said


def test_a_denial_names_the_tool_not_the_call():
    entry = {"kind": "deny", "operation": "Read: /home/ada/notes.md", "runs": 2}
    assert _user_line([entry], CFG) == (
        "arcguard stopped a repeated Read call: it ran 2 times with the same result and nothing"
        " changed since. To change this: repeat_limit, loop_guard, or arcguard off"
    )


def test_a_denied_search_is_not_called_a_repeat():
    # It was never run before: what is true is that it cannot match, after empty searches.
    entry = {"kind": "deny", "rule": "cannot-match", "operation": "Grep: /home/ada", "runs": 2}
    line = _user_line([entry], CFG)
    assert line is not None and "cannot match" in line and "repeat" not in line


def test_a_kind_without_a_text_of_its_own_still_gets_one():
    entry = {"kind": "check-in-soon", "reason": "[arcguard] the model was asked\nto report"}
    assert _user_line([entry], CFG) == (
        "arcguard (check-in-soon): the model was asked to report. To change this: arcguard off"
    )


def test_a_pause_has_no_line_of_its_own_as_claude_code_shows_its_reason():
    pause = {"kind": "pause", "reason": "arcguard paused this session: a cycle."}
    deny = {"kind": "deny", "operation": "Bash: ls", "runs": 3}
    assert _user_line([pause], CFG) is None
    assert _user_line([deny, pause], CFG) is None


@pytest.mark.parametrize("kind", sorted(notices.SILENT))
def test_what_arcguard_only_saw_says_nothing(kind):
    assert _user_line([{"kind": kind, "reason": "r"}], CFG) is None


def test_of_several_decisions_the_weightiest_is_told():
    deny = {"kind": "deny", "operation": "Bash: ls", "runs": 3}
    cap = {"kind": "cap", "reason": "cap"}
    assert _user_line([deny, cap], CFG).startswith("arcguard let the model stop")


def test_the_line_is_one_bounded_line():
    entry = {"kind": "give-up", "reason": "spent\n" + "x" * 1000}
    line = _user_line([entry], CFG)
    assert "\n" not in line and len(line) == notices.MAX_LINE


# --- each request to the model is said as its own rule, with that rule's settings ----------


def _same_failure(d: Driver) -> None:
    for n in range(4):
        d.turn(Call("Bash", {"command": f"make test{' ' * n}"}, error="Exit code 2\nno rule"))


def _taking_turns(d: Driver) -> None:
    lint, sort_error, format_error = "make lint", "imports are not sorted", "would reformat"
    d.turn(Call("Bash", {"command": lint}, error=format_error))
    for n in range(1, 4):
        fixer, error = ("black .", sort_error) if n % 2 else ("isort .", format_error)
        d.turn(bash(fixer, "fixed app.py"))
        d.turn(Call("Bash", {"command": f"{lint}{' ' * n}"}, error=error))


def _nothing_new(d: Driver) -> None:
    spellings = (
        "curl -s localhost:7000/healthz",
        "curl -sS http://127.0.0.1:7000/healthz | jq .",
        "curl --silent 'http://localhost:7000/healthz'",
        "wget -qO- http://localhost:7000/healthz",
    )
    for n in range(9):  # a probe rotated through spellings, only a counter changing
        d.turn(bash(spellings[n % 4], f'{{"ok": true, "served": {5000 + 17 * n}}}'))


def _no_effect(d: Driver) -> None:
    for unit in ("app", "app.service", "app --no-block", "app --no-ask-password", "app -q"):
        d.turn(bash(f"systemctl restart {unit}", response=""))  # then the same answer again
        d.turn(bash("curl -s localhost:8080/health", response="502 Bad Gateway"))


def _poll(d: Driver) -> None:
    status = json.dumps([{"status": "in_progress"}])
    for _ in range(16):
        d.wait(60)
        d.turn(bash("sleep 50; gh run list --limit 1 --json status", response=status))


def _check_in(d: Driver) -> None:
    for n in range(25):
        d.turn(bash(f"true # {n}", response=""))


def _backstop(d: Driver) -> None:
    for n in range(100):  # narration keeps every tool-only run short of a check-in
        d.turn(bash(f"true # {n}", response=""), text="a note" if n % 3 == 0 else "")


@pytest.mark.parametrize(
    ("drive", "said", "adjust"),
    [
        (_same_failure, "4 attempts failed the same way", "error_checkin_repeats"),
        (_taking_turns, "4 attempts failed in the same 2 ways, taking turns.", "error_checkin"),
        (_nothing_new, "8 calls in a row brought nothing new", "shape_checkin_repeats"),
        (_no_effect, "4 changes in a row left what a look shows as it was", "error_checkin"),
        (_poll, "what it is waiting for", "poll_checkin_seconds"),
        (_check_in, "many tool calls in a row without progress", "checkin_turns"),
        (_backstop, "many turns since your last message", "backstop_nudge_turns"),
    ],
)
def test_each_request_to_the_model_names_its_own_rule_and_settings(drive, said, adjust):
    d = Driver()
    drive(d)
    nudges = [e for e in StateFile.view(d.state).log if e.kind == "nudge"]
    assert len(nudges) == 1
    line = notices.user_line(nudges, CFG)
    assert line is not None and said in line
    assert line.split(notices.ADJUST)[-1].startswith(adjust)
