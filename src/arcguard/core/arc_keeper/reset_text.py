"""Reading the reset time out of an API limit's error text: an exact epoch or a clock time.

Claude Code writes the error text into the StopFailure payload's `last_assistant_message`.
The text comes from a server and may be anything, so every number is read from ASCII digits
only and checked against the calendar's range before use; anything else is no reset time.
A clock time is returned as written (`WallTime`): which moment it names depends on a time
zone and the current date, which the shell that resolves it has and the core does not.

Pure: no clock, no `datetime`, no `re`.
"""

from __future__ import annotations

from arcguard.values import value


# The years a named reset may fall in: the calendar's own range (`datetime` refuses others).
MIN_YEAR = 1970
MAX_YEAR = 9999
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


@value
class WallTime:
    """A clock time as an error text names it; the shell resolves it in a time zone."""

    hour: int
    minute: int
    month: int | None = None
    day: int | None = None
    year: int | None = None
    zone: str | None = None


def parse_reset(text: str) -> float | WallTime | None:
    """The reset time an error text names: seconds since the epoch, a clock time, or None.

    Forms handled (Claude Code writes the error text into `last_assistant_message`):
    - `... usage limit reached|1764500000`: the older usage-limit text, an exact epoch
      (seconds, or milliseconds when 13 digits);
    - `... · resets 2pm (Europe/London)`, `resets 2:30pm`, `resets at 9am`,
      `resets Dec 3, 2pm (UTC)`, `resets Jan 2, 2027, 10:15am`: the usage-limit line of
      Claude Code 2.x, a 12-hour clock time in the zone named in brackets (the user's own zone
      when none is named), with a date when the reset is more than a day away.
    """
    epoch = _epoch_suffix(text)
    if epoch is not None:
        return epoch
    lowered = text.lower()
    at = lowered.find("resets ")
    while at >= 0:
        found = _clock_after(text, at + len("resets "))
        if found is not None:
            return found
        at = lowered.find("resets ", at + 1)
    return None


def _epoch_suffix(text: str) -> float | None:
    head, bar, tail = text.rpartition("|")
    digits = tail.strip()
    if not bar or "limit" not in head.lower() or not _ascii_digits(digits):
        return None
    if len(digits) == 13:
        return int(digits) / 1000.0
    return float(digits) if len(digits) == 10 else None


def _clock_after(text: str, start: int) -> WallTime | None:
    rest = text[start : start + 80]
    if rest.lower().startswith("at "):
        rest = rest[3:]
    month, day, year, rest = _date_prefix(rest)
    clock, rest = _clock(rest)
    if clock is None:
        return None
    return WallTime(clock[0], clock[1], month=month, day=day, year=year, zone=_zone(rest))


def _date_prefix(rest: str) -> tuple[int | None, int | None, int | None, str]:
    """`Dec 3, ` or `Jan 2, 2027, ` at the start of `rest`."""
    name = rest[:3].lower()
    if name not in MONTHS or rest[3:4] != " ":
        return None, None, None, rest
    words = rest[4:].split(",", 2)
    day = _number(words[0].strip(), 1, 31) if len(words) >= 2 else None
    if day is None:
        return None, None, None, rest
    year = _number(words[1].strip(), MIN_YEAR, MAX_YEAR) if len(words) == 3 else None
    if year is not None and len(words[1].strip()) == 4:
        return MONTHS.index(name) + 1, day, year, words[2].lstrip()
    return MONTHS.index(name) + 1, day, None, ",".join(words[1:]).lstrip()


def _clock(rest: str) -> tuple[tuple[int, int] | None, str]:
    """`2pm`, `2:30pm`, `2 PM` at the start of `rest`: ((hour, minute), what follows)."""
    i = 0
    while i < len(rest) and _ascii_digits(rest[i]):
        i += 1
    if not 1 <= i <= 2:
        return None, rest
    hour, minute = int(rest[:i]), 0
    if rest[i : i + 1] == ":" and _ascii_digits(rest[i + 1 : i + 3]):
        minute = int(rest[i + 1 : i + 3])
        i += 3
    suffix = rest[i:].lstrip(" \u202f")
    half = suffix[:2].lower()
    if half not in ("am", "pm") or not 1 <= hour <= 12 or minute > 59:
        return None, rest
    hour = hour % 12 + (12 if half == "pm" else 0)
    return (hour, minute), suffix[2:]


def _ascii_digits(text: str) -> bool:
    """Only 0-9: `str.isdigit` also takes `²` or `٣`, which `int` then refuses or reads."""
    return text.isascii() and text.isdigit()


def _number(text: str, low: int, high: int) -> int | None:
    """`text` as a number from `low` to `high` (ASCII digits only, at most 4), else None."""
    if not (_ascii_digits(text) and len(text) <= 4):
        return None
    value = int(text)
    return value if low <= value <= high else None


def _zone(rest: str) -> str | None:
    rest = rest.lstrip()
    if not rest.startswith("("):
        return None
    name = rest[1:].partition(")")[0].strip()
    ok = 0 < len(name) <= 64 and all(c.isalnum() or c in "/_+-" for c in name)
    return name if ok else None
