"""One name per decision kind and per stop class (`core.words.vocabulary`), wherever it is used."""

from __future__ import annotations

from typing import get_args

from arcguard.core import names
from arcguard.core.arc_keeper import handback
from arcguard.core.arc_keeper import stop
from arcguard.core.display import notices
from arcguard.core.words import vocabulary
from arcguard.forensics import handbacks


def test_the_logged_kinds_are_the_vocabularys():
    assert sorted(get_args(names.DecisionKind)) == sorted(vocabulary.DECISION_KINDS)
    assert len(set(vocabulary.DECISION_KINDS)) == len(vocabulary.DECISION_KINDS)


def test_a_kind_an_earlier_version_logged_reads_under_its_current_name():
    assert vocabulary.kind_name("block") == vocabulary.CONTINUE
    assert vocabulary.kind_name("deny") == vocabulary.DENY
    assert vocabulary.kind_name("something newer") == "something newer"


def test_the_keeper_forensics_and_notices_name_stop_classes_alike():
    logged = set(stop.LOGGED.values()) | {vocabulary.DEAD_RESUME}
    assert set(notices.STALL_WHY) == logged
    assert handbacks.OTHER == stop.LOGGED[stop.STALL_OTHER] == vocabulary.UNEXPLAINED
    assert handbacks.DECISION == handback.DECISION == vocabulary.DECISION_NEEDED
    assert handbacks.ANNOUNCED == handback.ANNOUNCED == stop.LOGGED[stop.STALL_ANNOUNCED]
    assert set(handbacks.STOP_CLASSES) <= logged | {
        vocabulary.COMPLETION,
        vocabulary.DECISION_NEEDED,
    }


def test_every_kind_the_notices_word_or_silence_is_a_known_kind():
    named = set(notices.TEXTS) | notices.SILENT | notices.SHOWN_BY_CLAUDE_CODE
    assert named <= set(vocabulary.DECISION_KINDS)
