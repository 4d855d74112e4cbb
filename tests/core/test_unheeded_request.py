"""A request to summarise that goes unheeded: the turns after it bring nothing new.

After a request about a failure, each turn is watched: as many turns as the failure's own pause
is attempts away (three here) with nothing the session had not seen, the failure back twice
among them, are paused, whichever calls make them up; after one about results seen again, four
turns. One turn with news is let pass; a second, an edit, a
write from the shell or the user's words end the watch. A change that ran to its end is judged
by the look after it, a wait (a poll, a look at a background task) by its time, and the model's
notes count for nothing. No turn is watched after any other request."""

from __future__ import annotations

import pytest
from testing.guard_driver import Call
from testing.guard_driver import Driver
from testing.guard_driver import bash
from testing.guard_driver import edit
from testing.guard_driver import fail

from arcguard.core.config import default_config
from arcguard.core.loop_guard import unheeded
from arcguard.core.loop_records import Stuck
from arcguard.core.schema import StateFile
from arcguard.core.words import vocabulary


BUILDS = (
    "npm run build",
    "npm run build 2>&1 | tail -20",
    "npx webpack",
    "npm run build -- --bail",
    "npm run-script build",
    "npx webpack --mode production",
)
MISSING = "Module not found: Error: Can't resolve './theme' in '/app/src'"
PACKAGE = '{"name": "app", "scripts": {"build": "webpack"}}'
STATUS = "On branch main\nnothing to commit, working tree clean"


def _driver() -> Driver:
    """The pause three attempts after the request (the default is two): room for turns that
    bring nothing new to be paused before the failure's own count is."""
    return Driver(error_pause_repeats=7)


def _asked(d: Driver) -> None:
    """The same build failure four times, spelt four ways, after a look at the manifest and
    the tree: the request comes at the 4th attempt."""
    d.turn(bash("cat package.json", PACKAGE))
    d.turn(bash("git status", STATUS))
    words = [bool(d.turn(fail(build, MISSING))["context"]) for build in BUILDS[:4]]
    assert words == [False, False, False, True]


def _looks_seen_before(d: Driver) -> list[bool]:
    """After the request: the build, the manifest looked at again, the build once more, each
    answering as before. Whether the session was paused after each turn."""
    paused = []
    for call in (fail(BUILDS[4], MISSING), bash("cat ./package.json", PACKAGE)):
        d.turn(call)
        paused.append(d.paused is not None)
    d.turn(fail(BUILDS[5], MISSING))
    paused.append(d.paused is not None)
    return paused


def _reruns_then_a_look(d: Driver, before_each: Call | None = None) -> list[bool]:
    """After the request: the build twice (`before_each` before each), then the manifest read
    again. Whether the session was paused after each of those three."""
    paused = []
    for build in BUILDS[4:6]:
        if before_each is not None:
            d.turn(before_each)
        d.turn(fail(build, MISSING))
        paused.append(d.paused is not None)
    d.turn(bash("cat ./package.json", PACKAGE))
    return [*paused, d.paused is not None]


def test_turns_after_the_request_that_bring_nothing_new_are_paused_before_the_count_is():
    d = _driver()
    _asked(d)
    assert _looks_seen_before(d) == [False, False, True]
    assert d.main["stuck"]["fails"] == 6  # the failure's own count is one short of its pause
    assert d.paused is not None and d.paused["kind"] == "stuck"
    reason = d.paused["reason"]
    assert "since the request to summarise, 3 turns brought nothing" in reason
    assert "(last: Bash: npx webpack --mode production)" in reason


def test_the_user_s_words_after_the_request_end_the_watch():
    d = _driver()
    _asked(d)
    d.operator("the theme moved to src/styles, look there")
    assert _looks_seen_before(d) == [False, False, False]


@pytest.mark.parametrize(
    "fix",
    [
        edit("/app/src/index.ts", "import './theme'", "import './styles/theme'"),
        bash("sed -i 's#./theme#./styles/theme#' src/index.ts", ""),
    ],
    ids=["edit", "shell"],
)
def test_a_write_after_the_request_ends_the_watch(fix: Call):
    d = _driver()
    _asked(d)
    d.turn(fix)
    assert _looks_seen_before(d) == [False, False, False]


def test_one_new_result_is_let_pass_and_a_second_ends_the_watch():
    d = _driver()
    _asked(d)
    d.turn(bash("ls src", "index.ts\nstyles"))
    assert _looks_seen_before(d) == [False, False, True]
    d = _driver()
    _asked(d)
    d.turn(bash("ls src", "index.ts\nstyles"))
    d.turn(bash("ls src/styles", "theme.ts"))
    assert _looks_seen_before(d) == [False, False, False]


def test_waits_after_the_request_are_bounded_by_time_not_counted():
    # Waiting for what may yet come: the wait's own bounds apply.
    d = _driver()
    _asked(d)
    health = "sleep 60; curl -sS -f localhost:8080/health"
    for _ in range(4):
        d.wait(60)
        d.turn(fail(health, "curl: (7) Failed to connect to localhost port 8080"))
    assert d.paused is None


def test_looks_at_a_background_task_after_the_request_are_waits():
    d = _driver()
    _asked(d)
    ended = {"task": {"task_id": "b1", "status": "failed"}, "output": MISSING}
    for n in range(4):
        d.wait(60)
        d.turn(Call("TaskOutput", {"task_id": "b1", "block": n % 2 == 0}, response=ended))
    assert _reruns_then_a_look(d) == [False, False, True]


def test_the_user_s_answer_in_a_call_s_result_ends_the_watch():
    d = _driver()
    _asked(d)
    ask = {"questions": [{"question": "Where did the theme go?", "options": []}]}
    d.turn(Call("AskUserQuestion", ask, response='User has answered your questions: "styles"'))
    assert _looks_seen_before(d) == [False, False, False]


def test_calls_issued_at_once_are_one_turn_of_the_watch():
    d = _driver()
    _asked(d)
    d.turn(bash("cat ./package.json", PACKAGE), bash("git status --long", STATUS))
    d.turn(fail(BUILDS[4], MISSING))
    assert d.paused is None
    d.turn(fail(BUILDS[5], MISSING))
    assert d.paused is not None


def test_a_change_is_judged_by_the_look_after_it():
    # Each restart ran to its end: what it did shows in the look after it, which repeats.
    d = _driver()
    _asked(d)
    restart = bash("docker compose restart api", "api restarted")
    assert _reruns_then_a_look(d, before_each=restart) == [False, False, True]


def test_looks_and_one_rerun_after_a_request_about_a_failure_are_finding_one_s_bearings():
    # The tree and the manifest read again and the failure rerun once, before a fix: no loop
    # yet. Its second return with nothing changed is.
    d = _driver()
    _asked(d)
    for call in (bash("cat ./package.json", PACKAGE), bash("git status --long", STATUS)):
        d.turn(call)
    d.turn(fail(BUILDS[4], MISSING))
    d.turn(bash("head -c 100000 package.json", PACKAGE))
    assert d.paused is None
    d.turn(fail(BUILDS[5], MISSING))
    assert d.paused is not None


def test_a_request_about_repeats_waits_as_long_as_their_own_count():
    # Repeats are asked about at the 8th and paused four later, so the watch after their
    # request is four turns long.
    d = Driver(cycle_repeats_identical=1000, cycle_repeats=1000)
    d.turn(bash("cat package.json", PACKAGE))
    d.turn(bash("git status", STATUS))
    d.turn(fail(BUILDS[0], MISSING))
    for n in range(9):
        body = f'{{"status": "yellow", "time": "07:{n:02d}:00"}}'
        d.turn(bash("curl -s localhost:9200/_cluster/health", body), text="Again." if n % 2 else "")
    assert StateFile.view(d.state).log[-1].rule == vocabulary.NOTHING_NEW
    assert _looks_seen_before(d) == [False, False, False]
    d.turn(bash("cat -- package.json", PACKAGE))
    assert d.paused is not None and "4 turns brought nothing" in d.paused["reason"]


def test_after_a_wait_or_a_search_is_asked_about_nothing_is_watched():
    # A wait is bounded by time, and a search by its own long count: the looks between polls
    # and the searches after the request are theirs to judge.
    d = _driver()
    d.turn(bash("cat package.json", PACKAGE))
    health = "sleep 60; curl -sS -f localhost:8080/health"
    refused = "curl: (7) Failed to connect to localhost port 8080: Couldn't connect"
    for _ in range(6):
        d.wait(60)
        d.turn(fail(health, refused))
    assert StateFile.view(d.state).log[-1].rule == vocabulary.POLL
    for n in range(3):
        d.turn(bash("cat ./package.json" if n % 2 else "cat package.json", PACKAGE))
    assert d.paused is None
    d = _driver()
    searches = [f"rg -n 'LegacyClient\\|legacy_client{n}' src/" for n in range(2)]
    for search in searches:
        d.turn(bash(search, ""))
    assert StateFile.view(d.state).log[-1].rule == vocabulary.EMPTY_SEARCHES
    for n in range(4):
        d.turn(bash(f"rg -n LegacyClient{n} src/", ""))
    assert d.paused is None


def test_a_turn_with_news_in_it_is_no_quiet_turn():
    d = _driver()
    _asked(d)
    d.turn(bash("ls src", "index.ts\nstyles"), bash("cat ./package.json", PACKAGE))
    assert _reruns_then_a_look(d) == [False, False, True]


def test_the_model_s_own_notes_count_for_nothing():
    d = _driver()
    _asked(d)
    todos = {"todos": [{"content": "Find the theme", "status": "in_progress"}]}
    for _ in range(3):
        d.turn(Call("TodoWrite", todos, response="Todos have been modified successfully."))
    assert _reruns_then_a_look(d) == [False, False, True]


def test_a_request_the_model_reads_only_after_its_next_call_leaves_that_turn_out():
    # Without PostToolBatch the turn closes at the next call, which was chosen without the
    # request: that call's turn is not counted.
    d = _driver()
    d.turn(bash("cat package.json", PACKAGE))
    d.turn(bash("git status", STATUS))
    for build in BUILDS[:3]:
        d.turn(fail(build, MISSING))
    del StateFile.view(d.state).guard.batch_fires  # as a release without PostToolBatch keeps it
    assert d.turn(fail(BUILDS[3], MISSING))["context"]
    assert _looks_seen_before(d) == [False, False, False]
    d.turn(bash("cat -- package.json", PACKAGE))
    assert d.paused is not None


@pytest.mark.parametrize(
    "rule", [vocabulary.REREAD, vocabulary.SAME_ANSWER, vocabulary.NO_EFFECT, vocabulary.POLL]
)
def test_no_turn_is_watched_after_a_request_about_looks_or_a_wait(rule: str):
    # Asked to turn from the looks to the code, the model reads code it read before.
    st = Stuck()
    unheeded.begin(st, default_config(), rule)
    assert st.unheeded is None
