"""The values a short print answers with: what `asked` compares when a print names no state.

`dig +short` answers `edge-legacy.example.net.`, `openssl x509 -enddate` answers `notAfter=Jun
14 05:12:43 2026 GMT`, `rabbitmqctl list_queues` answers `invoices.retry 18432 0`. What such a
print says is its values: versions, addresses, host names, dates to the second and numbers long
enough to name one thing (`18432`, not `3`). Each is read in one spelling whatever the tool
(`v1.2.3` as `1.2.3`, `Jun 14 05:12:43 2026` and `2026-06-14T05:12:43Z` as
`2026-06-14t05:12:43`), so the same answer from `openssl`, `curl -v` and `kubectl` reads alike.
Left out: what the command itself names (the question, not its answer), what moves with the
clock (an age, `412d`; a duration, `2.3ms`; the time a log line was written) and what only
counts or measures (`1/3`, `0.1`). One pass over the words, no `re`: a hook runs this on every
look.
"""

from __future__ import annotations

from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import shape


VALUE_DIGITS = 4  # a number this long is a value (`18432`); a shorter one counts (`200`, `300`)
HOST_PARTS = 3  # `edge.example.net`; `invoices.retry` is a name
VALUE_CHARS = 64
AGE_UNITS = frozenset("dhmsy")
AGE_CHARS = frozenset("0123456789dhmsnuwyµ")
STAMP_CHARS = len("2026-06-14t05:12:43")
MILLIS = 3
STAMP_WORDS = 4  # `Jun 14 05:12:43 2026`
MONTHS = "jan feb mar apr may jun jul aug sep oct nov dec".split()  # noqa: SIM905
# A name ending so is a file's (`vite.config.ts`), not a host's.
FILE_ENDINGS = frozenset(
    "ts js mjs cjs tsx jsx map json yaml yml toml ini cfg conf py pyc mako rb erb go rs java kt "  # noqa: SIM905
    "php md rst txt lock csv log sh xml html css scss sql env tf gz tgz xz zip jar so".split()
)
UNIT_CHARS = "abcdefghijklmnopqrstuvwxyz%"
YEARS = range(1970, 2100)  # a lone year (`2026`) dates something, it answers nothing
SPLIT = str.maketrans(dict.fromkeys("\"'{}[](),;=|<>`#", " "))


def values(lines: list[str], command: str) -> list[str]:
    """The values `lines` show that their command did not name, sorted (`_value`)."""
    asked = command.lower()
    found: set[str] = set()
    for line in lines:
        words = _stamped(line.lower().translate(SPLIT).split())
        if len(words) > 1 and _when(words[0]):
            words = words[1:]  # a log line's time says when, not what
        if any(map(_hex_id, words)):
            continue  # a commit's or a container's line: its date and sizes are its own
        found.update(map(_bare, words))
    return sorted(word for word in found if _value(word) and word not in asked)


def _bare(word: str) -> str:
    """`word` as a value: `v1.2.3` as `1.2.3`, without a sentence's or a name's last dot or a
    compact JSON's colon."""
    word = word.rstrip(".:").lstrip(":")  # `"port":8080` as `"port": 8080`
    return word[1:] if word[:1] == "v" and word[1:2].isdigit() else word


def _value(word: str) -> bool:
    """A version, an address, a date, a number of `VALUE_DIGITS` digits or more (`4.1.3`,
    `203.0.113.40`, `3a/7f0021d8`, `18432`), an image (`ghcr.io/acme/api:2.4.1`) or a host
    name (`edge.example.net`); not a name with digits in it (`api-7b5f-4hcmz`), a commit or
    other hex id, a file, a year or a day, a ratio (`1/3`), a measure (`0.52`), an age or a
    time."""
    if not word.isascii() or not word[:1].isalnum() or len(word) > VALUE_CHARS:
        return False
    if _age(word) or _time(word) or _day(word):
        return False  # a day alone dates rows and entries; a date to the second is a fact
    if _hex_id(word):
        return False
    if word[0].isdigit():
        if _measure(word.rstrip(UNIT_CHARS)):
            # A count, a measure or a quantity (`200`, `0.52`, `87.51%`, `2Gi`, `3min`): only
            # a long bare number names one thing (`18432`), and not a year.
            return word.isdigit() and len(word) >= VALUE_DIGITS and int(word) not in YEARS
        if "/" in word and all(part.isdigit() for part in word.split("/")):
            return False  # a ratio
        # `10.0.0.1:5432`, `2026-06-14t05:12:43`; a line number and its text (`14:USER`) is none
        return all(any(c.isdigit() for c in part) for part in word.split(":"))
    image, colon, tag = word.rpartition(":")
    if colon and "/" in image and "/" not in tag and "://" not in word:
        return any(c.isdigit() for c in tag) and not tag.isdigit()  # not `src/app.py:88`
    parts = word.split(".")
    return (
        len(parts) >= HOST_PARTS
        and parts[-1].isalpha()
        and parts[-1] not in FILE_ENDINGS
        and all(part.replace("-", "").isalnum() for part in parts)
    )


def measured(lines: list[str]) -> bool:
    """The print measures (`2.31`, `0.42`: a decimal): what else it shows (an instance, a
    host) says what was measured, not an answer of its own."""
    return any(
        "." in word and _measure(word)
        for line in lines
        for word in map(_bare, line.lower().translate(SPLIT).split())
    )


def _measure(word: str) -> bool:
    return word.replace(".", "", 1).isdigit()


def _hex_id(word: str) -> bool:
    """A commit, a container or another hex id (`3f9a2c1`): it names, it does not answer."""
    long_enough = len(word) >= answers.HEX_ID_CHARS
    return long_enough and set(word) <= shape.HEX and not word.isdigit() and not word.isalpha()


def _age(word: str) -> bool:
    """An age or a duration (`412d`, `2d3h`, `5m30s`, `2.3ms`): it moves with the clock."""
    bare = word.replace(".", "")
    return bare[:1].isdigit() and bare[-1:] in AGE_UNITS and set(bare) <= AGE_CHARS


def _stamped(words: list[str]) -> list[str]:
    """`words` with each date and time to the second as one word (`2026-06-14t05:12:43`),
    spelt `Jun 14 05:12:43 2026`, `2026-06-14 05:12:43` or `2026-06-14T05:12:43.120Z`."""
    out: list[str] = []
    at = 0
    while at < len(words):
        word, taken = _month_stamp(words[at : at + 4]), 4
        if not word:
            word, taken = words[at], 1
            if _day(word) and at + 1 < len(words) and _clock(words[at + 1]):
                word, taken = f"{word}t{words[at + 1]}", 2
        if len(word) > STAMP_CHARS and _day(word[:10]) and word[10] == "t":
            word = word[:STAMP_CHARS]
        out.append(word)
        at += taken
        if _when(word) and at < len(words) and len(words[at]) == MILLIS and words[at].isdigit():
            at += 1  # `05:12:43,120`: the milliseconds split off at the comma
    return out


def _day(word: str) -> bool:
    return len(word) == len("2026-06-14") and word[4::3] == "--" and word.replace("-", "").isdigit()


def _clock(word: str) -> bool:
    return (
        len(word) >= len("05:12:43")
        and word[2::3][:2] == "::"
        and word[:8].replace(":", "").isdigit()
    )


def _time(word: str) -> bool:
    """A time of day or an elapsed time (`05:12:43`, `12:03`): the clock moves it."""
    parts = word.split(":")
    return len(parts) > 1 and all(part.isdigit() and len(part) <= len("hh") for part in parts)


def _when(word: str) -> bool:
    """A date and time to the second, or a time: when a log line was written."""
    return _clock(word) or (len(word) == STAMP_CHARS and _day(word[:10]))


def _month_stamp(words: list[str]) -> str:
    """`jun 14 05:12:43 2026` (openssl's), or `14 jun 2026 05:12:43` (an HTTP date), as
    `2026-06-14t05:12:43`; "" for other words."""
    if len(words) < STAMP_WORDS:
        return ""
    if words[0][:3] in MONTHS:
        month, day, clock, year = words[:4]
    elif words[1][:3] in MONTHS:
        day, month, year, clock = words[:4]
    else:
        return ""
    if not (day.isascii() and day.isdigit()) or not _clock(clock) or len(year) != len("yyyy"):
        return ""
    if not (year.isascii() and year.isdigit()):
        return ""
    return f"{year}-{MONTHS.index(month[:3]) + 1:02d}-{int(day):02d}t{clock[:8]}"
