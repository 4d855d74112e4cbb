"""Searches that find nothing: an empty answer is an answer, so a run of them only earns a word;
a search spelt so that it cannot match is named, and denied once the run was asked about.

The slips are classes, each spelt several ways below: ripgrep's literal `\\|`, grep's literal
`|`, quote characters in a glob the tool takes literally, a lone closing quote.
"""

from __future__ import annotations

from typing import Any

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core import render
from arcguard.core.loop_guard import searches
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult


NOTHING = {"mode": "content", "numFiles": 0, "filenames": [], "content": "", "numLines": 0}
SOME = {"mode": "content", "numFiles": 0, "filenames": [], "content": "a.go:3:x", "numLines": 1}


def grep(pattern: str, response: Any = None, **more: Any) -> Call:
    return Call(
        "Grep", {"pattern": pattern, **more}, response=NOTHING if response is None else response
    )


def _call(name: str, tool_input: dict[str, Any]) -> ToolCall:
    return ToolCall(name, tool_input, "toolu_1", None)


CANNOT_MATCH = [
    ("Grep", {"pattern": "StatsGrouped\\|statsGrouped"}, searches.ALTERNATION),
    ("Grep", {"pattern": "(load)\\|(save)", "path": "src"}, searches.ALTERNATION),
    ("Bash", {"command": 'rg -n "FastMCP\\|fastmcp" tests/ 2>/dev/null'}, searches.ALTERNATION),
    ("Bash", {"command": "cd app && rg -rn 'init\\|setup' --type py"}, searches.ALTERNATION),
    ("Bash", {"command": 'ag "load\\|save" lib/'}, searches.ALTERNATION),
    ("Bash", {"command": "grep -rPn 'load\\|save' src/"}, searches.ALTERNATION),
    ("Bash", {"command": 'grep -rn "load|save" src/'}, searches.BRE_PIPE),
    ("Bash", {"command": "git grep -n 'Load|Save' | head"}, searches.BRE_PIPE),
    ("Bash", {"command": "grep -rn load\\|save src/"}, searches.BRE_PIPE),  # the shell eats `\`
    ("Bash", {"command": 'LC_ALL=C grep -rn "load|save" src/'}, searches.BRE_PIPE),
    ("Grep", {"pattern": "go-git", "glob": '"*.go"'}, searches.QUOTED_GLOB),
    ("Grep", {"pattern": "x", "glob": "*hooks*gemini*'"}, searches.QUOTED_GLOB),
    ("Glob", {"pattern": "'src/**/*.ts'"}, searches.QUOTED_GLOB),
    ("Grep", {"pattern": 'DROP INDEX"', "path": "m.sql"}, searches.STRAY_QUOTE),
    ("Grep", {"pattern": 'func getStagedFiles"'}, searches.STRAY_QUOTE),
]

CAN_MATCH = [
    ("Grep", {"pattern": "load|save"}),
    ("Grep", {"pattern": "\\| Name \\|"}),  # a table's literal pipes
    ("Grep", {"pattern": 'import "fmt"'}),
    ("Grep", {"pattern": '"name": "'}),
    ("Grep", {"pattern": "x", "glob": "*.{ts,tsx}"}),
    ("Bash", {"command": 'rg -n "load|save" src/'}),
    ("Bash", {"command": 'rg -F "a\\|b" docs/'}),
    ("Bash", {"command": 'grep -rn "load\\|save" src/ | head -20'}),
    ("Bash", {"command": 'grep -rnE "load|save" src/'}),
    ("Bash", {"command": 'egrep -rn "load|save" src/'}),
    ("Bash", {"command": "ag 'load|save' lib/"}),
    ("Bash", {"command": "grep -rP 'load|save' src/"}),
    ("Bash", {"command": "grep --perl-regexp 'load|save' src/"}),
    ("Bash", {"command": 'rg -n foo | grep -v "test\\|spec"'}),
    ("Bash", {"command": 'rg -n foo | grep -iv "test|spec"'}),  # a loose filter, not an empty one
    ("Bash", {"command": "echo 'a|b' > out.txt; grep a out.txt"}),  # it writes: no search
    ("Bash", {"command": 'grep "open quote'}),
    ("Read", {"file_path": "a\\|b"}),
]


@pytest.mark.parametrize(("name", "tool_input", "kind"), CANNOT_MATCH)
def test_spellings_that_cannot_match_are_named(name, tool_input, kind):
    assert searches.slip(_call(name, tool_input)) == kind


@pytest.mark.parametrize(("name", "tool_input"), CAN_MATCH)
def test_spellings_that_can_match_are_not(name, tool_input):
    assert searches.slip(_call(name, tool_input)) is None


@pytest.mark.parametrize(
    ("name", "tool_input", "result", "found"),
    [
        ("Grep", {"pattern": "x"}, ToolResult(response=NOTHING), False),
        ("Grep", {"pattern": "x"}, ToolResult(response=SOME), True),
        ("Grep", {"pattern": "x"}, ToolResult(response={"filenames": ["a.go"]}), True),
        ("Grep", {"pattern": "x"}, ToolResult(response="No matches found"), False),
        ("Glob", {"pattern": "*.go"}, ToolResult(response="No files found"), False),
        ("Glob", {"pattern": "*.go"}, ToolResult(response={"filenames": []}), False),
        ("Bash", {"command": "rg x"}, ToolResult(response={"stdout": "", "stderr": ""}), False),
        (
            "Bash",
            {"command": "rg x"},
            ToolResult(response="(Bash completed with no output)"),
            False,
        ),
        ("Bash", {"command": "rg x | wc -l"}, ToolResult(response={"stdout": "0"}), True),
        ("Bash", {"command": "ls build"}, ToolResult(response={"stdout": ""}), None),
        ("Bash", {"command": "rg x"}, ToolResult(failed=True, error="Exit code 2"), None),
        ("Read", {"file_path": "a"}, ToolResult(response=""), None),
    ],
)
def test_what_a_search_found(name, tool_input, result, found):
    assert searches.found(_call(name, tool_input), result) is found


def _context(out: dict[str, Any]) -> str:
    return " ".join(out["context"])


def _deny_reasons(out: dict[str, Any]) -> list[str]:
    return [d.text for o in out["outputs"] for d in o if isinstance(d, render.Deny)]


def test_a_search_respelt_with_a_quoted_glob_is_named_then_denied():
    d = Driver()
    first = d.turn(grep("go-git/v5", glob='"*.go"', output_mode="content"))
    assert not first["context"]
    second = d.turn(grep("go-git", glob='"*.go"'))
    assert "2 searches in a row found nothing" in _context(second)
    assert "quote characters" in _context(second)
    third = d.turn(grep("github\\.com/go-git", glob='"*.go"'))
    assert [c.name for c in third["denied"]] == ["Grep"]
    assert "cannot match as spelt" in _deny_reasons(third)[0]
    assert "drop the quotes" in _deny_reasons(third)[0]
    # The fix goes through, and finding something ends the run.
    assert not d.turn(grep("go-git", glob="*.go", response=SOME))["denied"]
    assert not d.turn(grep("go-git\\|billy", response=NOTHING))["denied"]
    assert d.paused is None


def test_ripgrep_probes_with_grep_alternation_are_named_within_the_first_turn():
    d = Driver()
    probe = 'rg -n "FastMCP\\|fastmcp" {} 2>/dev/null'
    out = d.turn(bash(probe.format("tests/"), ""), bash(probe.format("docs/"), ""))
    assert "literal pipe" in _context(out)
    out = d.turn(bash(probe.format("."), ""))
    assert [c.name for c in out["denied"]] == ["Bash"]
    assert "ripgrep" in _deny_reasons(out)[0]


def test_empty_searches_without_a_slip_are_staged_like_results_seen_again_and_never_denied():
    # Looking for what is absent is ordinary work (is the old name still used anywhere?), so
    # only a long run of empty answers, however spelt, is asked about, then paused.
    d = Driver()
    calls = [
        grep(f"oldName{n}") if n % 2 else bash(f"rg -n old_name_{n} src/", "") for n in range(20)
    ]
    words = [bool(d.turn(call)["context"]) for call in calls[:11]]
    assert words == [False] * 7 + [True] + [False] * 3
    assert d.paused is None
    d.turn(calls[11])
    assert d.paused is not None and "12 searches in a row found nothing" in d.paused["reason"]
    assert d.denied == []


def test_a_slip_after_a_search_that_found_something_starts_a_new_run():
    d = Driver()
    d.turn(grep('getStagedFiles"'))
    d.turn(grep("getStagedFiles", response=SOME))
    out = d.turn(grep('func getStagedFiles"'))
    assert not out["context"]
    assert not out["denied"]


def test_an_edit_between_empty_searches_ends_their_run():
    d = Driver()
    d.turn(grep("Load\\|Save"))
    d.turn(
        Call(
            "Edit",
            {"file_path": "/p/a.go", "old_string": "a", "new_string": "b"},
            response={"filePath": "/p/a.go", "structuredPatch": [{"lines": ["-a", "+b"]}]},
        )
    )
    assert not d.turn(grep("Load\\|Save"))["context"]
    assert not d.turn(grep("Load"))["denied"]


def test_one_off_calls_between_empty_searches_do_not_end_their_run_but_many_do():
    d = Driver()
    read = Call("Read", {"file_path": "/p/schema.sql"}, response={"c": "CREATE TABLE job"})
    d.turn(grep('DROP INDEX"'))
    assert _context(d.turn(read, grep('DROP"')))
    other = Driver()
    other.turn(grep('DROP INDEX"'))
    for n in range(searches.GAP + 1):
        other.turn(Call("Read", {"file_path": f"/p/{n}.sql"}, response={"c": f"v{n}"}))
    assert not other.turn(grep('DROP"'))["context"]


def test_git_grep_finding_nothing_on_an_old_release_is_an_empty_search_not_a_failure():
    # Older releases report `git grep` exiting 1 as a failure with "Exit code 1" alone; newer
    # ones as a call that printed nothing. Either way it is a search that found nothing.
    d = Driver()
    for n in range(8):
        out = d.turn(Call("Bash", {"command": f"git grep -n oldName{n}"}, error="Exit code 1"))
    assert "8 searches in a row found nothing" in _context(out)
    # A search failing otherwise, or a failing command that is no search, is a failure.
    run = ToolResult(failed=True, error="Exit code 1")
    assert searches.as_answered(ToolCall("Bash", {"command": "make test"}), run) is run
    stopped = ToolResult(failed=True, error="Exit code 1", interrupted=True)
    assert searches.as_answered(ToolCall("Bash", {"command": "git grep x"}), stopped) is stopped
    # Exit status 1 set by something else: a negation, a test before the search, `find`.
    for command in (
        "! grep -rq console.log src",
        "test -f a.cfg && grep x a.cfg",
        "find /x -name y",
    ):
        assert searches.as_answered(ToolCall("Bash", {"command": command}), run) is run
    found = searches.as_answered(ToolCall("Bash", {"command": "cd src && rg -n x"}), run)
    assert found.response == {"stdout": "", "stderr": ""}


def test_a_poll_waiting_for_a_line_to_show_is_timed_not_counted_as_searches():
    # `grep -q` after a sleep waits for the app to log that it started: a wait, bounded by time.
    d = Driver()
    for _ in range(14):
        d.wait(30)
        out = d.turn(bash("sleep 30; grep -q 'Started Application' /tmp/app.log", ""))
        assert not out["context"] and d.paused is None
    broken = ToolResult(failed=True, error="Exit code 2\ngrep: src: No such file or directory")
    assert searches.as_answered(ToolCall("Bash", {"command": "grep -rn x src"}), broken) is broken
