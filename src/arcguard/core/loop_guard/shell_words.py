"""A shell command as the shell reads it: its simple commands and their words, quotes
removed, and its text with what quotes and comments hold set aside.

A separator or a redirect inside quotes is an argument (`grep -E 'a|b'`, `awk '$3 > 5'`,
`jq '.jobs[] | .name'`), not the shell's: reading them as the shell's would take a search for a
pipeline into an unknown program, or a filter for a write. An apostrophe in a comment (`# it's
a fix`) opens no quote. Both readers walk the command once (`_scan`); a quote left open makes
it unreadable (None), which callers take as a change.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    K = TypeVar("K")
    V = TypeVar("V")


OPERATORS = frozenset("|&;()\n")
LIST_ENDS = frozenset("&;\n")  # what ends a list's item (a pipeline), with `||`
SPACE = frozenset(" \t\r")
ESCAPED_IN_DOUBLE_QUOTES = frozenset('"\\$`\n')
BREAKS = SPACE | OPERATORS

# What each piece of a command is to the shell (`_scan`).
CODE = "code"  # read by the shell: words, operators, redirects, substitutions
LITERAL = "literal"  # taken as it is: in single quotes, `$'...'`, or escaped by `\`
DOUBLE = "double"  # in double quotes, where `$(...)` and backticks still run
COMMENT = "comment"  # from a `#` that starts a word to the end of its line
# Characters outside quotes that end a run of plain ones; marked once (`str.translate`) so
# that each run is found at C speed, not character by character.
SPECIAL = "'\"\\$#" + "".join(SPACE) + "".join(OPERATORS)
MARK = "\0"
MARKED = str.maketrans(dict.fromkeys(SPECIAL, MARK))


# Each hook reads one command through several rules: it is read once, and what comes back is
# shared, so callers never change it. A few are kept (a hook reads few commands); a hand-made
# memo, since `functools` would cost every hook its import. Each value is kept in a 1-tuple and
# looked up with one `get`: the resident server's threads may empty a memo at any moment.
MEMO_SIZE = 8
MEMOS: list[dict[object, object]] = []


def new_memo() -> dict[K, tuple[V]]:
    """A memo `remembered` keeps values in, and `forget` empties."""
    memo: dict[K, tuple[V]] = {}
    MEMOS.append(memo)  # type: ignore[arg-type]
    return memo


def remembered(memo: dict[K, tuple[V]], key: K, value: V) -> V:
    """`value`, kept in `memo` for `key`."""
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[key] = (value,)
    return value


def forget() -> None:
    """Empty every memo (for measuring the work a first read costs)."""
    for memo in MEMOS:
        memo.clear()


_SCANS: dict[str, tuple[tuple[tuple[str, str], ...] | None]] = new_memo()
_COMMANDS: dict[str, tuple[list[list[str]] | None]] = new_memo()
_BARE: dict[tuple[str, bool], tuple[str | None]] = new_memo()


def _scan(command: str) -> tuple[tuple[str, str], ...] | None:
    """`command` cut into (text, kind) pieces, in order, a quote's content one piece (or a few,
    around escapes); None when a quote is left open."""
    hit = _SCANS.get(command)
    if hit:
        return hit[0]
    return remembered(_SCANS, command, _pieces(command))


def _pieces(command: str) -> tuple[tuple[str, str], ...] | None:
    pieces: list[tuple[str, str]] = []
    marked = command.translate(MARKED)
    word_start = True
    i, end = 0, len(command)
    while i < end:
        stop = marked.find(MARK, i)
        if stop < 0:
            stop = end
        if stop > i:  # a run of plain characters
            pieces.append((command[i:stop], CODE))
            i, word_start = stop, False
            continue
        char = command[i]
        if char in BREAKS:  # spaces and operators, the commonest, read here at the least cost
            pieces.append((char, CODE))
            i, word_start = i + 1, True
            continue
        if char == "'":
            stop = command.find("'", i + 1)
            if stop < 0:
                return None
            pieces.append((command[i + 1 : stop], LITERAL))
            i, word_start = stop + 1, False
            continue
        if char == "#" and word_start:
            stop = command.find("\n", i)
            stop = end if stop < 0 else stop
            pieces.append((command[i:stop], COMMENT))
            i = stop
            continue
        i = _special(command, i, pieces)
        if i < 0:
            return None
        word_start = False
    return tuple(pieces)


def _special(command: str, i: int, pieces: list[tuple[str, str]]) -> int:
    """Read the special character at `i` (and the quote it opens, whole): where reading goes
    on, or -1 when the quote is left open."""
    char, after = command[i], i + 1
    if char == "$" and command[after : after + 1] == "'":
        return _quoted(command, after + 1, "'", pieces)
    if char == '"':
        return _quoted(command, after, '"', pieces)
    if char == "\\" and after < len(command):
        if command[after] != "\n":  # a backslash before a new line joins the lines
            pieces.append((command[after], LITERAL))
        return after + 1
    pieces.append((char, CODE))
    return after


def _quoted(command: str, i: int, close: str, pieces: list[tuple[str, str]]) -> int:
    r"""Read the content of a double quote or a `$'...'` (`close`: its closing quote), where `\`
    escapes, from `i`: where reading goes on, or -1 when it is left open."""
    kind = DOUBLE if close == '"' else LITERAL
    pieces.append(("", kind))  # an empty quote is still a word (`""`)
    end = len(command)
    while i < end:
        stop = command.find(close, i)
        slash = command.find("\\", i, stop if stop >= 0 else end)
        if slash < 0:
            if stop < 0:
                return -1
            pieces.append((command[i:stop], kind))
            return stop + 1
        pieces.append((command[i:slash], kind))
        escaped = command[slash + 1 : slash + 2]
        if close == '"' and escaped not in ESCAPED_IN_DOUBLE_QUOTES:
            pieces.append(("\\", kind))  # kept as it is: `"a\\b"` is `a\\b`
            i = slash + 1
        else:
            pieces.append((escaped, LITERAL))
            i = slash + 2
    return -1


def commands(command: str) -> list[list[str]] | None:
    """The simple commands of `command`, each a list of words as a POSIX shell reads them
    (quotes removed, `\\` escaping the next character, comments left out); None when a quote
    is left open. Operators (`|`, `&&`, `;`, parentheses, a new line) end a command."""
    hit = _COMMANDS.get(command)
    if hit:
        return hit[0]
    pieces = _scan(command)
    return remembered(_COMMANDS, command, None if pieces is None else _split(pieces))


def last_pipeline(command: str) -> list[list[str]] | None:
    """The simple commands of `command`'s last pipeline, as `commands` reads them: those after
    its last `;`, `&&`, `||`, `&` or new line (`make && curl -s x | jq .a`: `curl` and `jq`)."""
    pieces = _scan(command)
    return None if pieces is None else _split(pieces, last=True)


def _split(pieces: tuple[tuple[str, str], ...], *, last: bool = False) -> list[list[str]]:
    found: list[list[str]] = [[]]
    word: list[str] = []
    started = False  # a word is open, even if it is empty (`""`)
    previous = ""  # the piece before, when the shell read it
    item_ends = False  # a list's item ended: the next word starts another pipeline
    for text, kind in pieces:
        if kind == CODE and text in BREAKS:
            if started:
                found[-1].append("".join(word))
                word, started = [], False
            if last and (text in LIST_ENDS or text == previous == "|") and previous + text != "|&":
                item_ends = True
            elif text in OPERATORS and found[-1]:
                found.append([])
        elif kind != COMMENT:
            if item_ends:  # what ran before is another pipeline (a trailing `;` ends none)
                found, item_ends = [[]], False
            word.append(text)
            started = True
        previous = text if kind == CODE else ""
    if started:
        found[-1].append("".join(word))
    return [c for c in found if c]


def outside_quotes(command: str, *, double: bool = True) -> str | None:
    """`command` with what its single quotes, escapes and comments hold blanked, and what its
    double quotes hold too when `double` (a `$(` in double quotes still runs); None when a
    quote is left open."""
    hit = _BARE.get((command, double))
    if hit:
        return hit[0]
    pieces = _scan(command)
    blank = {LITERAL, COMMENT, DOUBLE} if double else {LITERAL, COMMENT}
    bare = None if pieces is None else "".join(" " if k in blank else t for t, k in pieces)
    return remembered(_BARE, (command, double), bare)


# A command substitution's output stands in its place as this word, which no rule reads: a
# character nobody types, so that a rule can tell it from a word written (`tool_effects.reads`).
SUBSTITUTED = "\ue000"
MAX_NESTED = 4  # substitutions inside one another read at most (`$(a $(b))` is 2)
SUBSTITUTION = "$("
ARITHMETIC = "$(("
BACKTICK = "`"
# Forms whose reading would have to follow the shell's in full (an ANSI-C quote, where `\'`
# closes nothing; a here-document's body; a comment; a carriage return): beside a
# substitution, the command is not read.
UNREAD = ("$'", "<<", "#", "\r")
TOP, IN_QUOTES, IN_SUBSTITUTION, IN_BACKTICKS = range(4)  # what a frame holds
VALUE_CHARS = frozenset("$`'\"\\")  # none of these in arithmetic: it runs nothing


def substitutions(command: str) -> tuple[str, list[str]] | None:
    """`command` with each command substitution the shell runs (`$(...)` or backticks, bare or
    in double quotes, not in single quotes) as `SUBSTITUTED`, and the commands they run; an
    arithmetic expansion (`$((5*60))`) is a value too. None when one is left open, they nest
    deeper than `MAX_NESTED`, or the command holds one of `UNREAD`. One pass."""
    if SUBSTITUTION not in command and BACKTICK not in command:
        return command, []
    if any(form in command for form in UNREAD):
        return None
    kept: list[str] = []
    found: list[str] = []
    frames: list[list[int]] = []  # innermost last: [what, where its text starts, `(` open]
    i, end, done = 0, len(command), 0
    while i < end:
        char, what = command[i], frames[-1][0] if frames else TOP
        outermost = all(frame[0] == IN_QUOTES for frame in frames)
        if char == "\\":
            i += 2
        elif what in (TOP, IN_SUBSTITUTION) and char == "'":
            i = command.find("'", i + 1) + 1
            if not i:
                return None
        elif what != IN_BACKTICKS and command.startswith(ARITHMETIC, i):
            close = command.find("))", i)
            if close < 0 or VALUE_CHARS.intersection(command[i + 3 : close]):
                return None
            if outermost:
                kept += [command[done:i], SUBSTITUTED]
                done = close + 2
            i = close + 2
        elif what != IN_BACKTICKS and (char == BACKTICK or command.startswith(SUBSTITUTION, i)):
            if len(frames) - sum(frame[0] == IN_QUOTES for frame in frames) >= MAX_NESTED:
                return None
            width = len(BACKTICK) if char == BACKTICK else len(SUBSTITUTION)
            frames.append([IN_BACKTICKS if char == BACKTICK else IN_SUBSTITUTION, i + width, 0])
            if outermost:
                kept.append(command[done:i])
            i += width
        elif _closes(char, frames):
            body = command[frames.pop()[1] : i]
            if char == BACKTICK and "\\" in body:
                return None  # the shell reads `\`` in it again, as a command of its own
            if all(frame[0] == IN_QUOTES for frame in frames):  # its output is a word
                kept.append(SUBSTITUTED)
                found.append(body)
                done = i + 1
            i += 1
        else:
            _quote_or_parenthesis(char, frames, i)
            i += 1
    if frames:
        return None
    kept.append(command[done:])
    return "".join(kept), found


def _closes(char: str, frames: list[list[int]]) -> bool:
    """`char` closes the innermost substitution."""
    if not frames:
        return False
    what, _, depth = frames[-1]
    if what == IN_SUBSTITUTION:
        return char == ")" and not depth
    return what == IN_BACKTICKS and char == BACKTICK


def _quote_or_parenthesis(char: str, frames: list[list[int]], at: int) -> None:
    """A double quote opens or closes; a parenthesis inside a `$(` opens or closes a group of
    its own (mutates `frames`)."""
    what = frames[-1][0] if frames else TOP
    if what == IN_QUOTES and char == '"':
        frames.pop()
    elif what in (TOP, IN_SUBSTITUTION) and char == '"':
        frames.append([IN_QUOTES, at, 0])
    elif what == IN_SUBSTITUTION and char in "()":
        frames[-1][2] += 1 if char == "(" else -1
