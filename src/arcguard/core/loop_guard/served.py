"""A request the server answered with an error, read as the failure it is.

`curl` (and HTTPie, `xh`) exit 0 whatever status the server answers with, unless told to fail
(`curl -f`). A fetch answered `502 Bad Gateway` got no answer, as a command that exits 1 got
none: the staged rules (`stuck`) read it as a failure of that request. So a proxy setting
turned again and again, each time checked by a fetch that gets the same 502, is a run of failed
attempts like any other, whatever the fetch printed around the status (a write-out's timing).

Only a server error (5xx) is read so: a 404 or a 401 may be the answer the look wanted (a
record gone after a delete). The status is the last one the output shows (after redirects):
a status line (`HTTP/1.1 502 Bad Gateway`, `< HTTP/2 503` with `-v`), an error page's title
that is a status and nothing more (`<title>502 Bad Gateway</title>`, not a page about one), or
the `%{http_code}` the command writes out, read where its format puts it (`code=%{http_code}`,
the second word of `%{time_total} %{http_code}`), when the fetch is the last command to print.
A command that loops (one status per pass) is left as it is.

The failure keeps what the server said (`FAILURE`: what the command printed, then the status
and the request): a 500 with a new error each time is a new failure each time. The request is
named by its host and path, the loopback's names and the scheme aside
(`command_words.host_aside`), and tagged in letters (`_tag`: a failure's numbers, ids and paths
are set aside when failures are compared), so one request respelt is one failure and another
endpoint, or another record's id, is another. Pure.
"""

from __future__ import annotations

import itertools

from arcguard.core import hashing
from arcguard.core.loop_guard import command_words
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects


FETCHERS = frozenset({"curl", "http", "https", "xh", "xhs"})
SERVER_ERRORS = range(500, 600)
STATUSES = range(100, 600)
WRITE_OUTS = ("%{http_code}", "%{response_code}")
WRITE_OUT_OPTIONS = ("-w", "--write-out")
TITLE, TITLE_END = "<title>", "</title>"
TITLE_WORDS = 4  # a status page's title: the code and its reason (`Service Unavailable`)
FAILURE = "{printed}\nHTTP {status} for {target} ({tag})"
PRINTED_CHARS = 2000  # of what the server said, kept with the failure
MAX_TARGET = 120
UNNAMED = "the request"
# A fetch's options that take a value: the word after one is no address.
VALUED = frozenset(
    "-H --header -d --data --data-raw --data-binary --data-urlencode -o --output -w --write-out "  # noqa: SIM905
    "-X --request -u --user -A --user-agent -e --referer -b --cookie -c --cookie-jar -F --form "
    "-T --upload-file -m --max-time --connect-timeout --resolve -x --proxy --cacert --cert "
    "--key -K --config --retry --retry-delay -D --dump-header".split()
)
LETTERS = "abcdefghijklmnop"  # a hex digit as a letter (`_tag`)


def as_failure(command: str, text: str) -> str | None:
    """The failure `text`, printed by `command`, shows when it is a fetch the server answered
    with an error (`FAILURE`); None otherwise."""
    if not any(name in command for name in FETCHERS):
        return None  # split into words below: only what can be a fetch is
    runs = [tool_effects.unwrap(words) for words in shell_words.commands(command) or []]
    runs = [run for run in runs if run]
    fetches = [run for run in runs if tool_effects.program_name(run[0]) in FETCHERS]
    if not fetches or any(run[0] in tool_effects.LOOP_WORDS for run in runs):
        return None
    last = [tool_effects.unwrap(words) for words in shell_words.last_pipeline(command) or []]
    fetch_last = any(run and tool_effects.program_name(run[0]) in FETCHERS for run in last)
    written = _written(fetches[-1]) if fetch_last else None
    status = _last_status(text, written)
    if status not in SERVER_ERRORS:
        return None
    target = _target(fetches[-1][1:])
    printed = text.strip()[-PRINTED_CHARS:]
    return FAILURE.format(printed=printed, status=status, target=target, tag=_tag(target))


def _written(fetch: list[str]) -> tuple[int, str] | None:
    """Where the fetch's write-out puts the status code on its line: (the word's place, what
    comes before the code in that word), or None when it writes out none."""
    formats = [b for a, b in itertools.pairwise(fetch) if a in WRITE_OUT_OPTIONS]
    formats += [w.partition("=")[2] for w in fetch if w.startswith(WRITE_OUT_OPTIONS[1] + "=")]
    for line in (line for text in formats for line in text.split("\\n")):
        for place, word in enumerate(line.split()):
            for out in WRITE_OUTS:
                if out in word:
                    return place, word.partition(out)[0]
    return None


def _last_status(text: str, written: tuple[int, str] | None) -> int | None:
    """The last HTTP status `text` shows (`written`: where a written-out code stands)."""
    found = None
    for line in text.splitlines():
        status = _status_of(line.strip(), written)
        if status is not None:
            found = status
    return found


def _status_of(line: str, written: tuple[int, str] | None) -> int | None:
    words = line.removeprefix("< ").split()
    if len(words) >= 2 and words[0].upper().startswith("HTTP/"):
        return _code(words[1])
    at, end = line.find(TITLE), line.find(TITLE_END)
    if 0 <= at < end:
        title = line[at + len(TITLE) : end].split()
        return _code(title[0]) if 0 < len(title) <= TITLE_WORDS else None
    if written is not None and len(words) > written[0]:
        word = words[written[0]]
        return _code(word.removeprefix(written[1])) if word.startswith(written[1]) else None
    return None


def _code(word: str) -> int | None:
    number = int(word) if len(word) == 3 and word.isascii() and word.isdigit() else None
    return number if number in STATUSES else None


def _target(args: list[str]) -> str:
    """The host and path of the URL a fetch's arguments name: one with a scheme, else the last
    word that is neither an option nor its value and reads as an address."""
    pairs = zip(["", *args], args, strict=False)
    words = [word for ahead, word in pairs if word[:1] != "-" and ahead not in VALUED]
    urls = [w for w in words if "://" in w] or [w for w in words if "/" in w or ":" in w]
    if not urls:
        return UNNAMED
    return command_words.host_aside(urls[-1]).partition("?")[0][:MAX_TARGET]


def _tag(target: str) -> str:
    """`target` as a word of letters: it survives where numbers and paths are set aside."""
    return "".join(LETTERS[int(c, 16)] for c in hashing.digest(target)[:8])
