"""The no-op sentinel, completion claims and the `/autonomous` bootstrap."""

from __future__ import annotations

import pytest

from arcguard.core.words.final_words import is_completion
from arcguard.core.words.final_words import is_sentinel
from arcguard.core.words.final_words import is_task_notification
from arcguard.core.words.final_words import starts_autonomous


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("No response requested.", True),
        ("  no response requested...  ", True),
        ("NO RESPONSE REQUESTED", True),
        ("No response requested!", False),
        ("(No response requested.)", False),
        ("No response requested. Stopping here and awaiting input.", False),
        ("Here is my review of the No response requested sentinel handling.", False),
        ("Acknowledged.", False),
        ("Okay.", False),
        ("Got it.", False),
        ("Done.", False),
        ("", False),
    ],
)
def test_sentinel_is_the_whole_message_only(text, expected):
    assert is_sentinel(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("All milestones shipped.", True),
        ("All done!", True),
        ("The arc is complete.", True),
        ("Task complete.", True),
        ("Everything is done.", True),
        ("arc done!!", True),
        ("the all done", True),
        ("Everything’s shipped", True),  # curly apostrophe: accepted like a straight one
        ("Everything's merged.", True),
        ("All milestones are now shipped.", True),
        ("Milestones complete.", True),
        ("The first task is complete, moving on to the next slice now.", False),
        ("Task complete; continuing with the next slice.", False),
        ("Everything's shipped and merged to main. Now deploying.", False),
        ("Done.", False),
        ("All done" + "!" * 5000, True),  # trailing punctuation of any length
        ("x" * 5000 + " task complete", False),
        ("", False),
    ],
)
def test_completion_claims_are_whole_messages(text, expected):
    assert is_completion(text) is expected


# A claim the message itself denies or hedges must not end an arc.
@pytest.mark.parametrize(
    "text",
    [
        "All milestones have not been shipped.",
        "All milestones are not done.",
        "All milestones but two are complete.",
        "All milestones aren't done.",
        "All milestones haven't shipped.",
        "All milestones have never shipped.",
        "All milestones are not yet done.",
        "All milestones are done except one.",
        "All milestones except the last are done.",
        "All milestones but 3 are shipped.",
        "All milestones almost done.",
        "All milestones are nearly complete.",
        "All milestones are partially done.",
        "All milestones partly shipped.",
        "All milestones are mostly done.",
        "All milestones not yet shipped.",
        "Not all milestones are shipped.",
        "All milestones shipped? No.",
        "All milestones will be done soon.",
        "Almost all done.",
        "Nearly all done!",
        "Everything is not done.",
        "Everything isn’t done.",
        "The arc is not complete.",
        "The arc isn't complete.",
        "Task not complete.",
        "Task complete, except the docs.",
        "All done but the tests.",
        "All done if CI passes.",
        "All done once the build is green.",
        "All milestones are done, but two are failing.",
        "Everything is done except the migration.",
        "Everything's merged but not shipped.",
    ],
)
def test_negated_or_qualified_completion_claims_do_not_release(text):
    assert is_completion(text) is False


@pytest.mark.parametrize(
    "text",
    [
        "All milestones have been shipped.",
        "All milestones are done.",
        "All milestones are complete.",
        "All the milestones are shipped.",
        "All milestones have shipped.",
        "All milestones are finally done!",
    ],
)
def test_positive_completion_claims_with_auxiliaries_release(text):
    assert is_completion(text) is True


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        ("/autonomous ship it", True),
        ("   /AUTONOMOUS", True),
        ("/autonomous\nthe importer", True),
        ("please do not use /autonomous here", False),
        ("/autonomous-foo", False),
        ("/autonomously", False),
        ("/arcguard:autonomous ship it", True),  # the plugin's namespaced command
        ("/arcguard:autonomousx", False),
        ("", False),
    ],
)
def test_autonomous_must_start_the_prompt_as_a_word(prompt, expected):
    assert starts_autonomous(prompt) is expected


def test_task_notifications_are_recognised():
    assert is_task_notification("<task-notification>\n<task-id>a1</task-id>")
    assert not is_task_notification("please read <task-notification> docs")


@pytest.mark.parametrize(
    "text",
    [
        "The parser changes are committed and all tests pass.",
        "All changes are merged, and CI is green.",
        "Done: the feature is shipped and the tests pass.",
        "Everything is committed, pushed, and the tests pass.",
        "Fixed and pushed; the full suite passes.",
    ],
)
def test_a_compound_claim_about_the_work_and_its_checks_releases(text):
    assert is_completion(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "The changes are committed but the tests do not pass.",
        "The changes are committed and most tests pass.",
        "Tests pass and the fix is committed; the docs remain.",
        "The changes are committed and the tests will pass once CI runs.",
        "The fix is committed and the tests pass? Not on Windows.",
        "I committed the fix and pushed it.",  # no word about the checks
        "Tests pass and lint is green.",  # no word about the work
        "The migration is committed and the tests pass, except the slow ones.",
        "Everything's shipped and merged to main. Now deploying.",
    ],
)
def test_a_negated_qualified_or_one_sided_compound_claim_does_not_release(text):
    assert is_completion(text) is False
