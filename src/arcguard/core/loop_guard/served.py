"""A request the server answered with an error, read as the failure it is.

`curl` (and HTTPie, `xh`) exit 0 whatever status the server answers with, unless told to fail
(`curl -f`). A fetch answered `502 Bad Gateway` got no answer, as a command that exits 1 got
none: the staged rules (`stuck`) read it as a failure of that request, `HTTP 502 for
host/path`. So a proxy setting turned again and again, each time checked by a fetch that gets
the same 502, is a run of failed attempts like any other, whatever the fetch printed around it
(a page, a write-out's timing).

Only a server error (5xx) is read so: a 404 or a 401 may be the answer the look wanted (a
record gone after a delete). The status is the last one the output shows (after redirects):
a status line (`HTTP/1.1 502 Bad Gateway`, `< HTTP/2 503` with `-v`), an error page's title
(`<title>502 Bad Gateway</title>`), or, when the command writes out `%{http_code}`, the first
word of the last line that starts with one. A command that loops (one status per pass) is left
as it is. The failure names the request's host and path, the loopback's many names as one
(`localhost`, `127.0.0.1`, `[::1]`), so the same request respelt is one failure and another
endpoint is another. Pure.
"""

from __future__ import annotations

from arcguard.core.loop_guard import command_words
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects


FETCHERS = frozenset({"curl", "http", "https", "xh", "xhs"})
SERVER_ERRORS = range(500, 600)
STATUSES = range(100, 600)
WRITE_OUTS = ("%{http_code}", "%{response_code}")
LOOP_WORDS = frozenset({"for", "while", "until"})
TITLE = "<title>"
FAILURE = "HTTP {status} for {target}"
MAX_TARGET = 120
UNNAMED = "the request"
# A fetch's options that take a value: the word after one is no address.
VALUED = frozenset(
    "-H --header -d --data --data-raw --data-binary --data-urlencode -o --output -w --write-out "  # noqa: SIM905
    "-X --request -u --user -A --user-agent -e --referer -b --cookie -c --cookie-jar -F --form "
    "-T --upload-file -m --max-time --connect-timeout --resolve -x --proxy --cacert --cert "
    "--key -K --config --retry --retry-delay".split()
)


def as_failure(command: str, text: str) -> str | None:
    """The failure `text`, printed by `command`, shows when it is a fetch the server answered
    with an error (`FAILURE`); None otherwise."""
    if not any(name in command for name in FETCHERS):
        return None  # split into words below: only what can be a fetch is
    runs = [tool_effects.unwrap(words) for words in shell_words.commands(command) or []]
    fetches = [run for run in runs if run and tool_effects.program_name(run[0]) in FETCHERS]
    if not fetches or any(run and run[0] in LOOP_WORDS for run in runs):
        return None
    status = _last_status(text, written=any(out in command for out in WRITE_OUTS))
    if status not in SERVER_ERRORS:
        return None
    return FAILURE.format(status=status, target=_target(fetches[-1][1:]))


def _last_status(text: str, *, written: bool) -> int | None:
    """The last HTTP status `text` shows (`written`: the command writes out the status code)."""
    found = None
    for line in text.splitlines():
        status = _status_of(line.strip(), written=written)
        if status is not None:
            found = status
    return found


def _status_of(line: str, *, written: bool) -> int | None:
    words = line.removeprefix("< ").split()
    if len(words) >= 2 and words[0].upper().startswith("HTTP/"):
        return _code(words[1])
    at = line.find(TITLE)
    if at >= 0:
        title = line[at + len(TITLE) :].split()
        return _code(title[0]) if title else None
    if written and words:
        return _code(words[0].partition("=")[2] or words[0])
    return None


def _code(word: str) -> int | None:
    number = int(word) if len(word) == 3 and word.isdigit() else None
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
