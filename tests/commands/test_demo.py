"""The demo as a new user reads it: what it shows first, the next step last, and a denied
call shown as not run."""

from __future__ import annotations

from click.testing import CliRunner

from arcguard.commands.demo import NEXT
from arcguard.commands.demo import demo


def _output() -> str:
    result = CliRunner().invoke(demo, [])
    assert result.exit_code == 0, result.output
    return result.output


def test_the_demo_says_what_it_shows_then_ends_with_the_next_step():
    lines = _output().splitlines()
    assert lines[0] == (
        "arcguard demo: 6 short recorded Claude Code sessions, replayed through arcguard's "
        "real hooks, with what arcguard decides at each step."
    )
    assert lines[-1] == NEXT
    assert "`arcguard install`" in NEXT


def test_a_denied_call_is_shown_as_not_run():
    thrash = _output().split("\n4. ", 1)[1].split("\n5. ", 1)[0].splitlines()
    denials = [i for i, line in enumerate(thrash) if "arcguard denies the call" in line]
    assert len(denials) == 2
    for i in denials:
        assert "so it does not run" in thrash[i]
        # The recording's result of that call does not follow as if it had run.
        assert not thrash[i + 1].lstrip().startswith("The call failed")
    # The calls before the denials did run, and their failures are shown.
    assert sum("The call failed" in line for line in thrash[: denials[0]]) == 2
