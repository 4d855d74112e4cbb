"""Shape fingerprints: a call and its result with the values that change every time set aside.

A probe's output carries a timestamp, an uptime, a request counter, a PID; a command may echo
a counter or pick a different tail length. Hashed as they are, each of these is a call or a
result never seen before. Their *shape* is the text with every number (integer, decimal,
with a unit: `12ms`, `2026-08-06T07:06:45Z`, `up 3:04`), every hex id (UUID groups, commit
and request ids) and every temporary path replaced by a placeholder, and runs of spaces
collapsed (column alignment moves with the width of a number). A shape repeat is weaker
evidence of a loop than an exact one, so the rules that use it are staged and slower.

Written as a scanner, not with `re`: importing it would cost every hook call.
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.core import hashing
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

# Only the two ends of a long text are shaped: a loop's results repeat as a whole, and a hook
# must not walk megabytes of output character by character.
HEAD_CHARS = 6000
TAIL_CHARS = 2000
HEX = frozenset("0123456789abcdefABCDEF")
WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
DIGITS = frozenset("0123456789")
NUMBER = "0"
# A duration in one word is one placeholder whatever its units: an age that crosses a minute
# (`59s`, then `1m2s`) is the same kind of value.
DURATION = "0s"
DURATION_UNITS = frozenset({"ns", "us", "ms", "s", "m", "min", "h", "d"})
TEMP = "<tmp>"
TEMP_PREFIXES = ("/tmp/", "/var/tmp/", "/var/folders/", "/private/var/folders/", "/dev/shm/")
# File name endings a failure names (`codec.c`, `zstd.h`, `main.go`); `config.Load` is code.
FILE_EXTENSIONS = frozenset(
    {"c", "h", "cc", "cpp", "hpp", "go", "py", "pyc", "js", "mjs", "cjs", "ts", "tsx", "jsx"}
    | {"rs", "java", "kt", "rb", "php", "cs", "swift", "ex", "exs", "erl", "zig", "lua", "sh"}
    | {"o", "so", "a", "dll", "exe", "mod", "sum", "lock", "json", "yaml", "yml", "toml"}
    | {"cfg", "ini", "xml", "html", "css", "scss", "vue", "md", "txt", "log", "sql"}
)
PATH_ENDS = frozenset(" \t\r\n\"'`,;:)]}>")
# Programs that only filter what the command before them printed: `probe | tail -n 3` and
# `probe | grep ok` observe the same thing as `probe`.
FILTERS = frozenset(
    {"head", "tail", "grep", "egrep", "fgrep", "rg", "jq", "awk", "cut", "sort", "uniq", "wc"}
    | {"tr", "column", "cat", "less", "more", "nl", "sed"}
)
# How many trailing pipes are looked at for filters.
MAX_FILTERS = 16
EXIT_CODE = "Exit code "  # the line Claude Code opens a failed command's output with


def normalise(text: str, keep: frozenset[str] = frozenset()) -> str:
    """`text` with numbers, hex ids and temporary paths as placeholders, spaces collapsed;
    numbers in `keep` (a call's identity numbers, see `identity_numbers`) stay as they are."""
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = text[:HEAD_CHARS] + "\n…\n" + text[-TAIL_CHARS:]
    text = without_temp_paths(text)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in WORD:
            j = i
            while j < n and text[j] in WORD:
                j += 1
            word = text[i:j]
            out.append(word if word in keep else _word(word, keep))
            i = j
        elif c == " " or c == "\t":
            while i < n and text[i] in " \t":
                i += 1
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _word(word: str, keep: frozenset[str] = frozenset()) -> str:
    if not any(c in DIGITS for c in word):
        return word
    if is_duration(word):
        return DURATION
    hexadecimal = word[2:] if word[:2] in ("0x", "0X") else word
    if all(c in HEX for c in hexadecimal):
        return NUMBER  # a number or a hex id: `2026`, `41d4`, `3f2a1b9`, `0x7f3a9c`
    # A number with a unit or a name around it (`12ms`, `v2`, `pid48211`): each run of
    # digits becomes one placeholder, the letters stay; a run in `keep` stays as it is
    # (`part7` where the call read `part7.py`).
    out: list[str] = []
    run: list[str] = []
    for c in [*word, ""]:
        if c and c in DIGITS:
            run.append(c)
            continue
        if run:
            number = "".join(run)
            out.append(number if number in keep else NUMBER)
            run = []
        out.append(c)
    return "".join(out)


def is_duration(word: str) -> bool:
    """`51s`, `2m51s`, `1h5m`, `12ms`, `3d4h` (a lone `4d` may be hex): a time in one word."""
    if word[0] not in DIGITS or word[-1] in DIGITS:
        return False
    units = "".join(" " if c in DIGITS else c for c in word).split()
    return all(u in DURATION_UNITS for u in units) and units != ["d"]


def without_temp_paths(text: str) -> str:
    for prefix in TEMP_PREFIXES:
        start = text.find(prefix)
        if start < 0:
            continue
        # Built once from its pieces: replacing each path in place would copy the text once
        # per path.
        pieces: list[str] = []
        done = 0
        while start >= 0:
            end = start + len(prefix)
            while end < len(text) and text[end] not in PATH_ENDS:
                end += 1
            pieces.append(text[done:start])
            pieces.append(TEMP)
            done = end
            start = text.find(prefix, end)
        pieces.append(text[done:])
        text = "".join(pieces)
    return text


def _squeeze_numbers(text: str) -> str:
    """`0.0`, `0:0:0`, `0,0` -> `0`: a decimal, a clock time or a grouped number is one value."""
    for joint in (".", ":", ","):
        twice = NUMBER + joint + NUMBER
        while twice in text:
            text = text.replace(twice, NUMBER)
    return text


def of_text(text: str, keep: frozenset[str] = frozenset()) -> str:
    return _squeeze_numbers(normalise(text, keep))


# A number of this many digits or fewer can name what a call looks at: an issue, a pull
# request, a port, a record, a line. Longer ones are timestamps and ids, which vary.
IDENTITY_DIGITS = 6
# An option's value of this many digits or fewer, attached to it (`-count=1`, `-j8`), is a
# setting; apart from it (`--depth 1`), only a single digit is.
OPTION_DIGITS = 2
# Programs whose arguments are what they print, or how long they wait: their numbers are
# values, not targets (`echo "check 7"` is a counter, not a seventh target).
VALUE_PROGRAMS = frozenset({"echo", "printf", "sleep", "date", "seq", "timeout"})


def identity_numbers(call: ToolCall) -> frozenset[str]:
    """Numbers that name the target of the call: whole-word numbers of its command (outside
    output filters, echoed text, wrappers, the variables set for it and small option values:
    `CI=1 go test -count=1` says how, not what) or of its other parameters. `gh issue view 12` and
    `gh issue view 13` look at two issues; what comes back names them, and that is news."""
    if call.name == opkey.BASH and isinstance(call.input, dict):
        command = call.input.get("command")
        if not isinstance(command, str):
            return frozenset()
        words = [word for run in runs(command) for word in run]
        return frozenset(_target_numbers(words)) | _file_name_numbers(" ".join(words))
    text = jsonio.dumps(call.input)
    return frozenset(_numbers(text)) | _file_name_numbers(text)


def runs(command: str, values: frozenset[str] = VALUE_PROGRAMS) -> list[list[str]]:
    """The simple commands `command` runs, unwrapped, as words: not its output filters, nor
    those of `values` programs, whose numbers are values (`echo`, `sleep`)."""
    return [
        run
        for part in split_simple(observed_command(command))
        if (run := tool_effects.unwrap(part.split())) and run[0].rsplit("/", 1)[-1] not in values
    ]


def _target_numbers(words: list[str]) -> list[str]:
    """The numbers of a command's words, less the small values set on an option
    (`-count=1`, `-j8`, `-20`, `--depth 1`): they tune how it runs, and such small numbers are
    in most outputs, so keeping them would set one failure apart from itself."""
    found: list[str] = []
    for before, word in zip(["", *words], words, strict=False):
        numbers = _numbers(word)
        if word.startswith("-"):
            numbers = [n for n in numbers if len(n) > OPTION_DIGITS]
        elif before.startswith("-") and "=" not in before and word.isdigit():
            numbers = [n for n in numbers if len(n) > 1]
        found += numbers
    return found


# What separates the words of a command or of a JSON input; a path has none of them.
_NOT_IN_PATHS = str.maketrans(dict.fromkeys("\"'`=,;{}[]()<>|&", " "))


def _file_name_numbers(text: str) -> frozenset[str]:
    """The numbers inside the names of the files a call names (`part7.py`, `chapter01.md`):
    reading `part7.py` and `part8.py` looks at two files, and what comes back names each."""
    found: set[str] = set()
    for token in text.translate(_NOT_IN_PATHS).split():
        if not _names_a_file(token):
            continue
        run: list[str] = []
        for c in [*token, ""]:
            if c and c in DIGITS:
                run.append(c)
                continue
            if run and len(run) <= IDENTITY_DIGITS:
                number = "".join(run)
                found.update((number, number.lstrip("0") or "0"))
            run = []
    return frozenset(found)


def split_simple(command: str) -> list[str]:
    for separator in ("&&", "||", ";", "|", "\n"):
        command = command.replace(separator, "\0")
    return [part for part in command.split("\0") if part.strip()]


def _numbers(text: str) -> list[str]:
    found, i, n = [], 0, len(text)
    while i < n:
        if text[i] in WORD:
            j = i
            while j < n and text[j] in WORD:
                j += 1
            word = text[i:j]
            # A file descriptor of a redirect (`2>&1`) names no target.
            redirect = text[j : j + 1] == ">" or text[i - 1 : i] in ("&", ">")
            if len(word) <= IDENTITY_DIGITS and all(c in DIGITS for c in word) and not redirect:
                found.append(word)
            i = j
        else:
            i += 1
    return found


def failure_text(text: str) -> str:
    """A failure as its cause reads, whatever program or path it surfaced through: each
    line without a leading `program:` or `file:line:` prefix, and without the paths and
    file names it names (`python3: No module named x` and `/usr/bin/python3: No module
    named x` are one failure)."""
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = text[:HEAD_CHARS] + "\n…\n" + text[-TAIL_CHARS:]
    lines = []
    for line in text.splitlines():
        words = line.split()
        if words and words[0].endswith(":"):
            words = words[1:]
        kept = [w for w in words if not _names_a_file(w)]
        if kept:
            lines.append(" ".join(kept))
    return "\n".join(lines)


# A failure's lines that are remembered to recognise it in later results, its last ones: a
# build prints its progress first and its error last.
MAX_CAUSE_LINES = 24
# A line with fewer letters than this says nothing of a cause (`}`, `---`, `0`).
CAUSE_LETTERS = 4
# Where a line of a failure is cut into the clauses compared one by one: each program that
# passes a failure on puts its own context in front (`Error from server (Forbidden): error
# when creating "x": admission webhook denied the request`), so one cause read through
# another tool shares its clauses, not its lines.
CLAUSE_BREAK = ": "
# A clause of fewer letters is kept with its neighbour: a label names what follows it
# (`"msg": ...`), a short value what precedes it (`undefined: foo`).
CLAUSE_LETTERS = 12


def cause_pairs(result: ToolResult, call: ToolCall) -> dict[str, str]:
    """Digests of the distinct clauses (`_clauses`) of the lines of what the model saw, in
    order, each read as a failure's cause is (`failure_text`) with its volatile values set
    aside, the exit code line and clauses of too few letters left out, each with the clause as
    it was last read, paths and all: what `failures.shown` compares. Clauses that repeat the
    call's own words are left out too (`_echoes`). The numbers naming the call's target are not
    kept here: `EADDRINUSE :::3000` is one cause with or without `-p 3000` (`failures.shown`
    tells two targets apart)."""
    found: dict[str, str] = {}
    asked = set(words_of(_call_text(call)))
    text = learned_text(result, call)
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = text[:HEAD_CHARS] + "\n…\n" + text[-TAIL_CHARS:]
    for raw in text.splitlines():
        for part in _clauses(raw):
            clause = failure_text(part)
            if not clause or _echoes(clause, asked):
                continue
            clause = of_text(clause)
            if clause.startswith(EXIT_CODE) or letters(clause) < CAUSE_LETTERS:
                continue
            digest = hashing.digest(clause)
            found.pop(digest, None)  # kept where it was last seen
            found[digest] = part
    return found


# A failure's line made of this many of the call's own words, and little else, repeats what
# was asked (`psql`'s `LINE 1: SELECT ...`): each rewording of the call would make the same
# failure read as another. A short line naming the call's target (`db-2 | UNREACHABLE!`) is
# the answer about that target, and stays.
ECHO_WORDS = 6
ECHO_SHARE = 2 / 3


def _clauses(line: str) -> list[str]:
    """`line` cut at `CLAUSE_BREAK`, short clauses kept with their neighbour, and a clause
    after a file kept with it: the file is what it is about (`cd: ../web: No such file or
    directory` is not any file missing)."""
    clauses: list[list[str]] = []
    made = 0  # letters of the clause being made
    after_file = False
    for part in line.split(CLAUSE_BREAK):
        count = letters(part)
        if clauses and (after_file or min(made, count) < CLAUSE_LETTERS):
            clauses[-1].append(part)
            made += count
        else:
            clauses.append([part])
            made = count
        words = part.split()
        after_file = bool(words) and _names_a_file(words[-1])
    return [CLAUSE_BREAK.join(parts) for parts in clauses]


def letters(text: str) -> int:
    return sum(c.isalpha() for c in text)


def _echoes(line: str, asked: set[str]) -> bool:
    words = words_of(line)
    shared = sum(w in asked for w in words)
    return shared >= ECHO_WORDS and shared >= ECHO_SHARE * len(words)


def words_of(text: str) -> list[str]:
    """The runs of word characters of `text` (`tests/test_cart.py`: `tests`, `test_cart`,
    `py`)."""
    return "".join(c if c in WORD else " " for c in text).split()


def _call_text(call: ToolCall) -> str:
    return tool_effects.command_of(call) or jsonio.dumps(call.input)


def _names_a_file(word: str) -> bool:
    if "/" in word:
        return True
    stem, dot, ext = word.strip("'\"`()[]<>,;:").rpartition(".")
    ext, _, place = ext.partition(":")  # `main.go:41:2`: a place in the file
    in_file = not place or place.replace(":", "").isdigit()
    return bool(dot and stem) and ext in FILE_EXTENSIONS and in_file


def observed_command(command: str) -> str:
    """The command without trailing output filters (`| tail -n 3`, `| jq .status`)."""
    if "||" in command:
        return command
    # Filters are looked for at the end only, and a few at most: a command of thousands of
    # pipes is not split pipe by pipe.
    parts = command.rsplit("|", MAX_FILTERS)
    # Only a command with quotes may quote a bar; a longer one than is read is not asked.
    quoted = len(command) <= tool_effects.COMMAND_CHARS and ("'" in command or '"' in command)
    while len(parts) > 1:
        words = parts[-1].split()
        if not words or words[0].rsplit("/", 1)[-1] not in FILTERS:
            break
        if words[0] == "sed" and any(w.startswith(("-i", "--in-place")) for w in words):
            break
        if quoted and shell_words.outside_quotes("|".join(parts[:-1])) is None:
            break  # the bar is quoted: part of what runs elsewhere (`ssh host 'df | tail'`)
        parts.pop()
    return "|".join(parts).rstrip()


def call_shape(call: ToolCall) -> str:
    """A digest of the call with its volatile values set aside."""
    if call.name == opkey.BASH and isinstance(call.input, dict):
        command = call.input.get("command")
        if isinstance(command, str):
            return hashing.digest(call.name + "\0" + of_text(observed_command(command)))
    return hashing.digest(of_text(opkey.operation_key(call)))


def result_text(result: ToolResult) -> str:
    """What the model saw of a finished call, as text."""
    if not result.responded:
        error = result.error
        return error if isinstance(error, str) else jsonio.dumps(error)
    response = result.response
    if isinstance(response, dict) and ("stdout" in response or "stderr" in response):
        return f"{response.get('stdout') or ''}\n{response.get('stderr') or ''}"
    return response if isinstance(response, str) else jsonio.dumps(response)


# A parameter's value this long, repeated in a result that says much more besides, is the
# call's own words sent back (a search's query above its links): not something it learned. A
# result that is little more than the echo is an acknowledgement of what was asked (a task
# created with its subject), and different asks are different work: it is kept whole.
ECHO_CHARS = 12
ECHO_REST_CHARS = 200
ECHO = "<echo>"
# Parameters naming the file a call looks at: that name is what sets two reads apart.
TARGET_KEYS = frozenset({"file_path", "path", "notebook_path"})


def learned_text(result: ToolResult, call: ToolCall | None) -> str:
    """`result_text` without the call's own parameter values it repeats (as sent or as JSON
    writes them), when `ECHO_REST_CHARS` or more are left: six rewordings of one web search
    that bring back the same links are one answer."""
    text = result_text(result)
    if call is None or not isinstance(call.input, dict):
        return text
    rest = text
    for key, value in call.input.items():
        if key in TARGET_KEYS or not isinstance(value, str) or len(value) < ECHO_CHARS:
            continue
        rest = rest.replace(value, ECHO)
        escaped = jsonio.dumps(value)[1:-1]
        if escaped != value:
            rest = rest.replace(escaped, ECHO)
    return rest if len(rest) - rest.count(ECHO) * len(ECHO) >= ECHO_REST_CHARS else text


def result_shape(outcome: str, result: ToolResult, call: ToolCall | None = None) -> str:
    """`kind:digest` of a finished call's result shape (kind as in `opkey.outcome`): its
    volatile values and the call's words it echoes set aside (`learned_text`), the numbers
    naming the call's target kept, and a failure read as its cause (`failure_text`)."""
    kind = outcome.partition(":")[0]
    text = learned_text(result, call)
    if kind == opkey.FAILED:
        text = failure_text(text)
    keep = identity_numbers(call) if call is not None else frozenset()
    return f"{kind}:{hashing.digest(of_text(text.strip(), keep))}"
