"""A state asked for again in other words: looks that tell nothing new.

A session waiting on a state that does not come (a cluster that stays yellow, a volume that
stays Pending, a registry still serving the old version) asks for it again and again, each
time in other words: another endpoint, another output format, another tool, a wait first.
Each answer is worded anew, so no two results are alike and no run of repeats starts, but
none says anything an earlier answer had not said.

A look here is a read-only command aimed at a system's state: one of its programs is not one
that reads files or text or runs code (`TEXT_PROGRAMS`: reading code is how work goes, and
what a script prints says nothing of what it asked). Its answer tells something new when it
holds a value word (`values`) that no recent look's answer held; a table's header row and a
line's key are left out, since a format of its own names no new fact, and so are the values
a clock moves. Two looks are not the same question when the second asks the first one's
question of a target the run has not named (the next cluster, the next pod: a sweep), and a
poll spelt as before is a wait, whose patience is bounded by wall time (`polls`): neither
counts. Every other look since the last real progress (`end`: an edit to a new content, a
change answering anew, the user's words) told nothing new. Those looks are staged as
failures are (`error_checkin_repeats`, then `error_pause_repeats`): each was an attempt to
learn something, and it failed. Pure functions of the track's `Stuck` record.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects
from arcguard.core.schema import Stale
from arcguard.core.state import remember


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_guard.stuck import Finished
    from arcguard.core.schema import Stuck
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

# Programs that read files or text, print what they are given, or run code of their own.
TEXT_PROGRAMS = frozenset(
    "cat sed head tail grep rg egrep fgrep ag ack find fd ls tree wc awk gawk mawk nawk less "  # noqa: SIM905
    "more bat stat file du diff cmp jq yq sort uniq cut tr xxd od hexdump strings nl column "
    "realpath readlink basename dirname pwd echo printf true false test [ which type command "
    "cd sleep md5sum sha1sum sha256sum tee xargs date git python python3 node ruby perl php "
    "bash sh zsh deno bun".split()
)
MAX_VALUES = 128  # value words kept (digests): the recent looks' answers
MAX_ASKED = 16  # spellings and questions kept for the run
MAX_NAMES = 32
NAME_CHARS = 32
LABEL_CHARS = 60
MAX_ANSWER_CHARS = 16 * 1024
NAME_MARKS = frozenset("-_.:@/0123456789")
KEY_CHARS = 40  # a line's key ("Status:", `"status" :`) is a short name
EDGES = "._:@/-"
# Characters that end a word: ASCII punctuation and spaces but those that join a name's parts.
_BREAKS = {ord(c): " " for c in "\t\n\r\f\v !\"#$%&'()*+,;<=>?[\\]^`{|}~"}


def words(text: str) -> list[str]:
    """`text`'s words in lower case: runs of letters and digits, joined by `EDGES` inside a
    name (`orders-api`, `localhost:9200`, `3.1.4`)."""
    found = []
    for word in text.translate(_BREAKS).lower().split():
        word = word.strip(EDGES)
        if word and any(c.isalnum() for c in word):
            found.append(word)
    return found


def values(text: str) -> list[str]:
    """The value words of an answer: its words but a table's header row, each line's key and
    what a clock moves, once each."""
    lines = text[:MAX_ANSWER_CHARS].splitlines()
    table = sum(_columns(line) >= 3 for line in lines) >= 2
    kept = "\n".join(_value(line) for at, line in enumerate(lines) if at or not table)
    return list(dict.fromkeys(words(answers.clock_free(kept).replace(answers.CLOCK, " "))))


def _columns(line: str) -> int:
    return len([cell for cell in line.split("  ") if cell.strip()])


def _value(line: str) -> str:
    """The line after its key, when it opens with one (`Status:   Pending`, `"status" : "x"`)."""
    text = line.lstrip(' "')
    end = 0
    while end < len(text) and (text[end].isalnum() or text[end] in "_ .-"):
        end += 1
    rest = text[end:].lstrip('"').lstrip()
    keyed = 0 < end <= KEY_CHARS and rest[:1] in (":", "=")
    return rest[1:] if keyed else line


def asked(command: str) -> str | None:
    """What `command` runs, its simple commands' words without quotes or comments, when it
    only reads and one of its programs asks a system for its state; else None."""
    parts = tool_effects.segments(command)
    if not parts or not all(map(tool_effects.reads, parts)):
        return None
    programs = [tool_effects.unwrap(part)[:1] for part in parts]
    if all(not p or tool_effects.program_name(p[0]) in TEXT_PROGRAMS for p in programs):
        return None
    return " ; ".join(" ".join(part) for part in parts)


def names(command: str) -> list[str]:
    """The words of `command` that name something: two letters or more, with a mark of a name
    (`pg-data`, `dev-euw1`, `localhost:9200`), not a duration (`300s`)."""
    return [
        w
        for w in dict.fromkeys(words(command))
        if sum(c.isalpha() for c in w) >= 2
        and not NAME_MARKS.isdisjoint(w)
        and not shape.is_duration(w)
    ]


def observe(st: Stuck, call: ToolCall, result: ToolResult, finished: Finished) -> None:
    """A finished call: a look that told nothing new counts (mutates `st`)."""
    command = tool_effects.command_of(call)
    ran = finished.outcome.startswith((opkey.COMPLETED, opkey.FAILED))
    look = asked(command) if ran and not finished.changed and command is not None else None
    if look is None:
        return
    stale = st.stale or Stale()
    st.stale = stale
    known = stale.values
    stale.values = known
    fresh = [d for d in map(hashing.digest, values(shape.result_text(result))) if d not in known]
    for value in fresh:
        remember(known, value, MAX_VALUES)
    given = names(look)
    question = hashing.digest(" ".join("*" if w in given else w for w in words(look)))
    spelt = hashing.digest(look)
    named = [n[:NAME_CHARS] for n in given]
    sweep = question in stale.asks and not set(named) <= set(stale.named)
    waits = spelt in stale.spelt and tool_effects.is_poll(call)
    stale.asks = [*stale.asks, question][-MAX_ASKED:]
    stale.spelt = [*stale.spelt, spelt][-MAX_ASKED:]
    stale.named = [*stale.named, *(n for n in named if n not in stale.named)][-MAX_NAMES:]
    if not (fresh or sweep or waits):
        stale.count += 1
        stale.label = opkey.label(call, LABEL_CHARS)


def end(st: Stuck) -> None:
    """Real progress: the run of looks is over; what they told is still known (mutates `st`)."""
    stale = st.stale
    if stale is not None and (stale.count or stale.asks):
        stale.count, stale.nudged, stale.label = 0, False, ""
        stale.asks, stale.spelt, stale.named = [], [], []
