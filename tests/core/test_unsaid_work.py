"""Work a final message leaves where its closing sentence does not say so (`unsaid_work`)."""

from __future__ import annotations

import pytest

from arcguard.core.arc_keeper import unsaid_work
from arcguard.core.arc_keeper.stop import COMPLETE
from arcguard.core.arc_keeper.stop import KIND_TEXT
from arcguard.core.arc_keeper.stop import PRODUCTIVE
from arcguard.core.arc_keeper.stop import STALL_PAUSED
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import classify


LEAVES = [
    # The last notes of a list say work is left; what leads into the list asks nothing.
    "Four of the nine templates are wrapped.\n\nNotes on what's in place:\n"
    "- links inside sentences use a `url` variable\n- nothing is compiled yet",
    "The routes compile.\n\n- `api.py`: new handlers\n- the handlers still need to be updated",
    "Status:\n\n1. parser: done\n2. loader: not started yet\n3. report: remaining",
    # The commands the task asked for, handed over for the user to run.
    "The backfill command is written.\n\nTo roll it out:\n\n```bash\npython manage.py backfill"
    "\npython manage.py migrate\n```\n\nRun the backfill before `migrate`, or 0015 fails.",
    "The migration file is in place. Apply it with `alembic upgrade head`.",
]
NOT_LEFT = [
    "Summary of changes:\n\n- parser: quoted fields\n- writer: streaming\n- tests: 12 new",
    # A question's options are no work left.
    "Which should come first?\n\n- the loader, which isn't written yet\n- the report",
    "Fish needed no fix. The other shells have no daemon yet, so nothing to check there.",
    "Running the suite showed three failures, all fixed now.",
    "The runner applies the migration on deploy.",
    "- parser: done\n- loader: done",
]


@pytest.mark.parametrize("text", LEAVES)
def test_work_left_in_a_closing_list_or_handed_over_is_read(text):
    assert unsaid_work.leaves(text)
    assert classify(Final(kind=KIND_TEXT, text=text), "ask") == STALL_PAUSED
    assert classify(Final(kind=KIND_TEXT, text=text), "noop") == PRODUCTIVE


@pytest.mark.parametrize("text", NOT_LEFT)
def test_lists_and_closings_that_leave_nothing_are_not_read_as_work_left(text):
    assert not unsaid_work.leaves(text)


def test_a_completion_claim_with_a_known_limit_listed_completes():
    text = "Done: all milestones shipped.\n\nKnown limits:\n\n- the docs aren't updated yet"
    assert unsaid_work.leaves(text)
    assert classify(Final(kind=KIND_TEXT, text=text), "ask") == COMPLETE
