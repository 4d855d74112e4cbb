"""Reset times read out of error text that anyone can shape: never an exception, always bounded.

The error text comes from the API, a proxy or a transcript from anyone's repository. Digits
other than ASCII (`²`, Arabic-Indic, fullwidth) pass `str.isdigit()` yet not `int()`, and a
day or year of any size can be written; neither may raise in the parser, in limit-wait's
resolution to an epoch, or in forensics.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from testing import hook_driver
from testing.builders import Transcript

from arcguard.core.arc_keeper import limits
from arcguard.core.arc_keeper import reset_text
from arcguard.core.arc_keeper.arc import new_arc
from arcguard.core.config import default_config
from arcguard.core.state import fresh_state
from arcguard.forensics import scan_paths
from arcguard.hooks import limit_wait
from arcguard.storage import store


# The last second of year 9999, plus the largest margin: no resolved reset lies beyond it.
LATEST = 253402300799.0 + limits.MARGIN_MINUTE
NOW = 1_800_000_000.0
ODD_DIGITS = "²³¹⁰٣٤۵߁०১੨૩୪௫౬೭൮๙໑༢၃႔០᠑᥆᧑᪑᭒᮳᱔᱕꘦꣐꤁꧑꩒꯳０１９𝟎𝟘𝟡"
WORDS = ["resets ", "resets at ", "Dec ", "Jan ", ", ", "pm", "am", ":", " (UTC)", " (", ")"]
PIECES = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet=ODD_DIGITS + "0123456789", min_size=1, max_size=30),
    st.integers(min_value=0, max_value=10**60).map(str),
    st.text(max_size=12),
)
RESET_LIKE = st.lists(PIECES, max_size=12).map("".join)
ANY_TEXT = st.one_of(st.text(max_size=200), RESET_LIKE)
EPOCH_LIKE = st.one_of(
    st.text(alphabet=ODD_DIGITS + "0123456789", min_size=1, max_size=20),
    st.integers(min_value=0, max_value=10**40).map(str),
).map(lambda tail: f"Claude AI usage limit reached|{tail}")


def assert_bounded(found: float | reset_text.WallTime | None) -> None:
    if isinstance(found, reset_text.WallTime):
        assert 0 <= found.hour <= 23 and 0 <= found.minute <= 59
        assert found.month is None or 1 <= found.month <= 12
        assert found.day is None or 1 <= found.day <= 31
        assert found.year is None or 1 <= found.year <= 9999
    elif found is not None:
        assert math.isfinite(found) and 0 <= found <= LATEST


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(ANY_TEXT, EPOCH_LIKE))
def test_parse_reset_never_raises_and_what_it_finds_is_bounded(text):
    assert_bounded(reset_text.parse_reset(text))


@settings(max_examples=400, deadline=None)
@given(
    text=st.one_of(ANY_TEXT, EPOCH_LIKE),
    now=st.one_of(
        st.floats(min_value=0, max_value=4e9),
        st.floats(allow_nan=True, allow_infinity=True),
        st.sampled_from([-1e18, 1e18, 253402300799.0, -62135596800.0]),
    ),
)
def test_resolving_a_parsed_reset_never_raises_and_stays_within_the_calendar(text, now):
    at = limit_wait.resolve(reset_text.parse_reset(text), now)
    # A reset on the calendar's first day, in a zone east of UTC, lies a little before 1970.
    # A `now` that is not a number bounds nothing: a reset given in epoch seconds stands alone.
    earliest = (0.0 if math.isnan(now) else min(now, 0.0)) - 2 * 86400
    assert at is None or (math.isfinite(at) and earliest <= at <= LATEST)


@pytest.mark.parametrize(
    "text",
    [
        "You've hit your limit · resets ²pm",
        "You've hit your limit · resets 1²pm (UTC)",
        "You've hit your limit · resets 2:³0pm",
        "You've hit your limit · resets Dec ², 2pm",
        "You've hit your limit · resets Jan 2, ２０２７, 10:15am",
        "Claude AI usage limit reached|¹⁷⁹⁶⁰³⁴⁷⁴⁹",
        "Claude AI usage limit reached|١٧٩٦٠٣٤٧٤٩",
    ],
)
def test_a_non_ascii_digit_in_a_reset_time_is_not_read_as_a_number(text):
    assert reset_text.parse_reset(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "resets Dec 99999999999999999999, 2pm (UTC)",
        "resets Dec 32, 2pm (UTC)",
        "resets Dec 0, 2pm (UTC)",
        "resets Feb 30, 2pm (UTC)",
        "resets Jan 1, 0000, 1am (UTC)",
    ],
)
def test_a_huge_or_impossible_day_gives_no_reset_time_and_no_exception(text):
    assert_bounded(reset_text.parse_reset(text))
    assert limit_wait.resolve(reset_text.parse_reset(text), NOW) is None


def test_the_calendars_last_hour_resolves_and_nothing_after_it_raises():
    last = limit_wait.resolve(reset_text.parse_reset("resets Dec 31, 9999, 11pm (UTC)"), NOW)
    assert last == 253402297200.0 + limits.MARGIN_MINUTE
    # Said in the last minutes of the calendar, "11pm" means a day that does not exist.
    assert limit_wait.resolve(reset_text.parse_reset("resets 11pm (UTC)"), 253402300700.0) is None


def test_valid_reset_texts_still_resolve_as_before():
    assert reset_text.parse_reset("usage limit reached|1796034749") == 1796034749.0
    wall = reset_text.parse_reset("resets Jan 2, 2027, 10:15am (UTC)")
    assert isinstance(wall, reset_text.WallTime)
    assert (wall.year, wall.month, wall.day, wall.hour, wall.minute) == (2027, 1, 2, 10, 15)


def test_limit_wait_falls_back_to_its_backoff_on_a_non_ascii_reset_time(tmp_path):
    home, sid, now = str(tmp_path / "state"), "5b1f0c2e-0000-4000-8000-00000000eeee", time.time()
    state = fresh_state(sid, now)
    state["arc"] = new_arc("importer", ["parse", "load"], now).data
    store.update(home, sid, lambda _: (state, None), now=now, lock_timeout=5)
    ctx = hook_driver.context("limit-wait", home, now=now)
    payload = {
        "session_id": sid,
        "hook_event_name": "StopFailure",
        "error": "rate_limit",
        "last_assistant_message": "You've hit your limit · resets ²pm (UTC)",
    }
    given = limit_wait.read(payload)
    assert given is not None
    plan, _ = limit_wait.claim(given, ctx)
    assert plan is not None and plan.source == "backoff"
    assert plan.until == pytest.approx(now + limits.BACKOFF_SECONDS["rate_limit"])
    assert not (tmp_path / "state" / "arcguard.log").exists()  # no exception was logged


@pytest.mark.parametrize(
    "text", ["You've hit your limit · resets ²pm", "resets Dec 99999999999999999999, 2pm (UTC)"]
)
def test_forensics_reads_a_hostile_reset_time_without_a_traceback(tmp_path: Path, text):
    t = Transcript(start=1_780_000_000).prompt("go").system_error(429)
    t.api_error(text, error="rate_limit")
    t.prompt("back", advance=1000).text("ok")
    data = scan_paths([str(t.write(tmp_path / "s.jsonl"))], default_config()).as_dict()
    view = data["limit_resume_savings"]["all_sessions"]
    assert (view["endings"], view["reset_from_backoff"]) == (1, 1)
