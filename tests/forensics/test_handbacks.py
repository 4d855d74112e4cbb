"""Forensics: how final messages handed the turn back, and what the operator answered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import handbacks as hb
from arcguard.forensics import scan_paths


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("yes", hb.AFFIRMATION),
        ("Yes please", hb.AFFIRMATION),
        ("go ahead", hb.AFFIRMATION),
        ("continue", hb.AFFIRMATION),
        ("do it", hb.AFFIRMATION),
        ("yeah let's do it", hb.AFFIRMATION),
        ("yes, let's add this", hb.AFFIRMATION),
        ("fix both", hb.AFFIRMATION),
        ("ok!", hb.AFFIRMATION),
        ("sure, thanks", hb.AFFIRMATION),
        ("option 2", hb.CHOICE),
        ("no, keep the old flag", hb.CHOICE),
        ("both", hb.CHOICE),
        ("the first one", hb.CHOICE),
        ("nah let's roll back, they are not needed anymore", hb.CHOICE),
        ("are you sure?", hb.INSTRUCTION),
        ("where is the config read?", hb.INSTRUCTION),
        (
            "before we continue, check every outstanding review comment and reply to each one",
            hb.INSTRUCTION,
        ),
        (
            "the test is not checking the metadata in the sessions branch at all, fix that first",
            hb.INSTRUCTION,
        ),
    ],
)
def test_operator_replies_are_classified(reply, expected):
    assert hb.reply_class(reply) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", hb.NOOP),
        ("No response requested.", hb.NOOP),
        ("Want me to run the tests next?", hb.QUESTION),
        ("Next, I'll run the test suite.", hb.ANNOUNCED),
        ("The parser is in. This is a good place to pause.", hb.PAUSED),
        ("All milestones shipped.", hb.COMPLETION),
        ("Done: the parser keeps line numbers.\n\n- `lex.py` counts them", hb.COMPLETION),
        ("DECISION NEEDED: this drops the users table.", hb.DECISION),
        ("The importer parses every row now.", hb.OTHER),
    ],
)
def test_final_messages_are_classified(text, expected):
    assert hb.stop_class(text) == expected


def _session(tmp_path: Path) -> Path:
    t = Transcript().prompt("add pagination to the orders API")
    t.bash("pytest -q", "7 passed")
    t.text("Pagination is in. Want me to run the full suite next?")
    t.prompt("yes")
    t.bash("pytest -q", "120 passed")
    t.text("Next, I'll update the changelog.")
    t.prompt("no, leave the changelog to the release script and rename the page parameter")
    t.text("No response requested.")
    t.prompt("continue")
    t.text("Which do you prefer: cursor or offset pagination?")
    t.prompt("cursor")
    t.text("Cursor pagination is in, with tests.")
    t.prompt("now do the same for the invoices API, with the same page size and tests")
    return t.write(tmp_path / "s.jsonl")


def test_a_stop_partway_counts_against_ask_and_strict_only() -> None:
    assert [hb.PAUSED in continued for continued in hb.CONTINUED_BY.values()] == [
        False,
        True,
        True,
    ]


def test_the_handback_table_and_what_each_policy_would_have_changed(tmp_path: Path) -> None:
    report = scan_paths([str(_session(tmp_path))], default_config())
    data = report.as_dict()["handbacks"]
    assert data["table"][hb.QUESTION] == {
        hb.AFFIRMATION: 1,
        hb.CHOICE: 1,
        hb.INSTRUCTION: 0,
        hb.INTERRUPT: 0,
    }
    assert data["table"][hb.ANNOUNCED][hb.CHOICE] == 1  # "no, ..." decides
    assert data["table"][hb.NOOP][hb.AFFIRMATION] == 1
    assert data["table"][hb.OTHER][hb.INSTRUCTION] == 1
    assert data["by_policy"] == {
        "noop": {"handbacks_avoided": 1, "decisions_or_corrections_overrun": 0},
        "ask": {"handbacks_avoided": 2, "decisions_or_corrections_overrun": 2},
        "strict": {"handbacks_avoided": 2, "decisions_or_corrections_overrun": 3},
    }


def test_the_command_prints_the_table_and_the_same_numbers_as_json(tmp_path: Path) -> None:
    from arcguard.commands.forensics import forensics

    path = str(_session(tmp_path))
    text = CliRunner().invoke(forensics, [path]).output
    assert "Where the operator's turns go" in text
    assert "stop_policy ask     handbacks avoided 2, decisions or corrections run over 2" in text
    data = json.loads(CliRunner().invoke(forensics, [path, "--json"]).output)
    assert data["handbacks"]["by_policy"]["ask"]["handbacks_avoided"] == 2
