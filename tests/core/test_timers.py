"""A poll whose answer holds a timer running down: a cached DNS record's TTL, the seconds until
a lock expires. Every word of the answer stays the same, yet what the poll waits for draws
nearer as the clock goes on, so the wait is timed from the latest answer, as when a poll's
progress moves. A number that goes down otherwise (by one a poll, beside numbers that wobble,
a disk filling up, a timer that starts over) is no timer, and the wait stays bounded."""

from __future__ import annotations

import pytest
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.loop_guard import answers


DIG = "sleep 540; dig +noall +answer NS example.dev @1.1.1.1"


def _delegation(ttl: int) -> str:
    return "\n".join(f"example.dev.\t\t{ttl}\tIN\tNS\tns-old{n}.example.net." for n in (1, 2))


def _poll_until_paused(d: Driver, seconds: int, answer_at: list[str]) -> list[int]:
    """Poll every `seconds` with the answers given, in order: the polls (from 1) asked about."""
    asked = []
    for n, answer in enumerate(answer_at, start=1):
        d.wait(seconds)
        out = d.turn(bash(DIG, response=answer))
        if out["context"]:
            asked.append(n)
        if d.paused is not None:
            break
    return asked


def test_a_timer_running_down_with_the_clock_is_a_wait_that_moves():
    d = Driver()
    # An hour of a cached record's TTL running out, read every 9 minutes.
    asked = _poll_until_paused(d, 540, [_delegation(3590 - 545 * n) for n in range(7)])
    assert asked == [] and d.paused is None


# Numbers that fall otherwise than a timer running down, and the polls' intervals in seconds.
NO_TIMERS = {
    # A record served again and again from a stale server: its TTL runs down, then starts over.
    "a timer that starts over": (120, [_delegation(600 - 122 * (n % 5)) for n in range(40)]),
    # A rate limit's remaining calls: each poll spends one.
    "a count spent by one a poll": (
        60,
        [f"x-ratelimit-remaining: {4999 - n}\nstatus: queued" for n in range(40)],
    ),
    # Workers' memory: one figure falls about as fast as the clock, another wobbles.
    "numbers that wobble beside a falling one": (
        60,
        [f"{41000 + n * 7919 % 2003} gunicorn\n{3500 - 61 * n} gunicorn" for n in range(40)],
    ),
    # The megabytes left on a filling disk fall about as fast as the clock, but for hours.
    "a count far from its end": (60, [f"Avail\n{52000 - 60 * n}" for n in range(40)]),
}


@pytest.mark.parametrize(("seconds", "polled"), NO_TIMERS.values(), ids=list(NO_TIMERS))
def test_a_number_falling_otherwise_leaves_the_wait_bounded(seconds, polled):
    d = Driver()
    asked = _poll_until_paused(d, seconds, polled)
    assert asked and d.paused is not None and d.paused["kind"] == "poll"


def test_the_numbers_kept_are_bare_and_short():
    assert answers.bare_numbers(_delegation(2874)) == "2874 2874"
    # Ids, epoch times and versions are no timers; a count in brackets is.
    assert answers.bare_numbers("run 1794903324 v2.14.0 (42) 8b1c4e2f 7") == "42 7"
    assert answers.bare_numbers(" ".join(["5"] * 30)) == " ".join(["5"] * answers.MAX_NUMBERS)


def test_a_timer_runs_down_about_as_fast_as_the_clock():
    assert answers.counts_down("3590 7", "3045 7", 540)
    assert not answers.counts_down("3590 7", "3589 7", 540)  # one down: a count spent
    assert not answers.counts_down("3590 7", "1000 7", 540)  # faster than the clock
    assert not answers.counts_down("3590", "3580", 10)  # too short a wait to tell
    assert not answers.counts_down("3590 7", "3045", 540)  # not the same places
    assert not answers.counts_down("3590 7", "3045 9", 540)  # another number moved otherwise
    assert not answers.counts_down("7", "7", 540)  # nothing moved
    assert not answers.counts_down("90000", "89460", 540)  # runs out in more than an hour


LAG = "sleep 300; kafka-consumer-groups.sh --describe --group orders | awk '{s+=$6} END {print s}'"


def test_a_backlog_draining_poll_after_poll_is_a_wait_that_moves():
    # A consumer group's lag, read every 5 minutes: each answer a new low, by a tenth or more.
    d = Driver()
    asked = []
    for n, lag in enumerate([1164022, 871310, 562904, 249118, 98377, 21004, 612], start=1):
        d.wait(300)
        if d.turn(bash(LAG, response=f"{lag}\n"))["context"]:
            asked.append(n)
    assert asked == [] and d.paused is None


@pytest.mark.parametrize(
    "polled",
    [
        [1000, 1040, 990, 1010, 1005, 995, 1020, 1000, 985, 1015],  # steady: a wobble
        [1000, 850, 1100, 900, 1200, 950, 1050, 880, 1150, 920],  # no new low by a tenth
        [500, 499, 498, 497, 496, 495, 494, 493, 492, 491],  # a crawl, not a drain
    ],
)
def test_a_count_that_does_not_drain_leaves_the_wait_bounded(polled):
    d = Driver()
    for count in polled * 2:
        d.wait(300)
        d.turn(bash(LAG, response=f"{count}\n"))
        if d.paused is not None:
            break
    assert d.paused is not None and d.paused["kind"] == "poll"


def test_a_drain_is_a_lone_count_at_a_new_low_by_a_tenth():
    assert answers.drains("1164022", "871310")
    assert answers.drains("3", "2")
    assert not answers.drains("1000", "901")
    assert not answers.drains("1000", "1200")
    assert not answers.drains("1000 7", "500 7")  # a table's numbers: read as a timer is
    assert not answers.drains("0", "0")
    assert answers.bare_numbers("1164022\n") == "1164022"  # a lone count, however long
    assert answers.bare_numbers("lag 1164022 at 3") == "3"
