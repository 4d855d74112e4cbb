"""The items a task lists in backticks, and the stop sent back for naming only some of them."""

from __future__ import annotations

import pytest

from arcguard.core import render
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.arc_keeper import task_items
from arcguard.core.arc_keeper.stop import Final
from arcguard.core.arc_keeper.stop import Signals
from arcguard.core.arc_keeper.stop import decide_stop
from arcguard.core.config_input import build_config
from arcguard.core.schema import StateFile
from arcguard.core.state import fresh_state


NOW = 1_800_000_000.0
TASK = (
    "Add a `--json` flag to every subcommand (`list`, `show`, `diff`, `export`, `prune`) "
    "that prints machine-readable output, with a test for each."
)


@pytest.mark.parametrize(
    ("task", "found"),
    [
        (TASK, [["list", "show", "diff", "export", "prune"]]),
        ("Port `a.py`, `b.py` and `c.py` to async.", [["a.py", "b.py", "c.py"]]),
        ("- Please port `a.py`, `b.py` & `c.py` to async.", [["a.py", "b.py", "c.py"]]),
        # A choice, a description, a rule against, two items, spans not one list, a span
        # after an unpaired backtick.
        ("Install the deps with `uv`, `pip` or `poetry`, whichever the repo uses.", []),
        ("Fix `x` / `y` / `z`.", []),
        ("The CLI has `list`, `show` and `diff` subcommands. Add `--verbose` to `show`.", []),
        ("Don't touch `a.py`, `b.py` and `c.py`; fix `d.py`.", []),
        ("Rename `foo` and `bar`.", []),
        ("Run `make` in `src/`, then check `out.log` for `ERROR`.", []),
        ("Fix `a`, `b`, `c", []),
        ("Update `a`, `a`, `b`.", []),  # an item listed twice is one item
        ("jj's `-r`, `-s`, `-b` flags take a revset.", []),  # options, not work to do
    ],
)
def test_a_task_lists_three_or_more_backticked_items(task, found):
    assert task_items.lists(task) == found


@pytest.mark.parametrize(
    ("message", "left"),
    [
        (
            "`list` and `show` now take `--json`; suite passes (48 passed).",
            ["diff", "export", "prune"],
        ),
        ("Done: list, show, diff and export print JSON.", ["prune"]),
        ("SHOW and List now print JSON.", ["diff", "export", "prune"]),  # any case
        # Every item named, none named, or all of them spoken of at once.
        ("list, show, diff, export and prune print JSON, with tests.", []),
        ("The flag is in place, with tests.", []),
        ("All five subcommands take `--json`; `list` keeps its table by default.", []),
        ("`list` and `show` print JSON; the other three already did.", []),
        ("`list` and `show` needed it; the rest had it already.", []),
        # A word that holds an item is no mention of it.
        ("Showing lists now prints JSON for diff.", ["list", "show", "export", "prune"]),
    ],
)
def test_a_message_naming_some_items_leaves_the_others_unsaid(message, left):
    assert task_items.unsaid(TASK, message) == left


def _stop(text, *, task=TASK, policy="ask", total_blocks=0, chain=0):
    state = fresh_state("sid", NOW)
    arc = arcs.new_arc("add json", [], NOW)
    arc.task, arc.total_blocks, arc.reconcile_count = task, total_blocks, chain
    StateFile.view(state).arc = arc
    cfg, problems = build_config({}, {"stop_policy": policy})
    assert not problems
    out, state = decide_stop(state, Signals(Final.from_text(text)), cfg, NOW)
    return render.output(out, "Stop"), StateFile.view(state)


PART = "`list` and `show` now take `--json` and have tests for it; suite passes (48 passed)."


def test_a_report_of_some_listed_items_is_sent_back_naming_the_others():
    out, state = _stop(PART)
    assert out is not None and out["decision"] == "block"
    assert "naming only some of the items the task lists" in out["reason"]
    assert "(`diff`, `export`, `prune` not named; do them, or say why" in out["reason"]
    assert state.log[-1].rule == "paused"


@pytest.mark.parametrize(
    ("text", "task", "policy"),
    [
        (PART, TASK, "noop"),
        (PART, "Add a `--json` flag to the CLI.", "ask"),  # the task lists nothing
        ("DECISION NEEDED: `diff` would break the public API.", TASK, "ask"),
    ],
)
def test_no_list_no_policy_or_a_decision_leaves_the_stop_alone(text, task, policy):
    out, _ = _stop(text, task=task, policy=policy)
    assert out is None or out.get("decision") != "block"


def test_the_stop_after_a_continuation_may_name_only_the_items_it_went_on_with():
    out, state = _stop("Done: `diff`, `export` and `prune` take `--json` too.", chain=1)
    assert out is None or out.get("decision") != "block"
    assert state.arc is not None and state.arc.active is False  # the claim completes the arc


def test_a_claim_naming_some_items_still_completes_the_arc_once_the_caps_are_spent():
    out, state = _stop("Done: `list` and `show` take `--json`.", total_blocks=5)
    assert out is None or out.get("decision") != "block"
    assert state.arc is not None and state.arc.active is False
