"""Failures an edit did not move.

An edit to a content a file never had is progress: the failure seen before it is set aside.
But when the next failure prints what the last one printed, line for line, except where it
quotes the edit itself (the setting a test run's header reports, the Dockerfile step a build
shows), the edit moved nothing the failure depends on: a setting toggled, a step respelt, a
knob raised that the run reports. That failure's run goes on (`stuck.recognise`). So it does
when the failure prints word for word what it printed before and every edit since turned a
knob (`knob`: a value swapped in place, 3 lines at most) of one file of settings
(`settings_file`: a config, a build script, a dotfile), none putting back a line an earlier
one took out: a setting takes effect whole on the next run, so a failure it left as it was
is one it did not touch (a batch size lowered again and again under an out-of-memory error
raised while the model loads). After an edit to code, a file built up, or chores across
files, a failure printed word for word proves less (`again`); after a line put back it is
what the session expected (a suspect ruled out and restored; values tried in turn are
`reverts`').

Lines are compared as printed, paths and counts kept (`tests/a.py` failing after an edit
fixed `tests/b.py`, `6 failed` after `7 failed`, are what the edit did), only what moves from
run to run set aside (`seen`: times, durations, sizes, ids). A line the edit's change
explains is one its old text would have printed: the line with the edit's new text put back
to the old one. Edited text that holds an obvious secret is not kept. Pure functions of the
track's `Stuck` record and the call.
"""

from __future__ import annotations

from arcguard.core import hashing
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.words.redact import mask


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.loop_records import Stuck
    from arcguard.core.tool_call import ToolCall


# The end of a failure's text compared, in lines: where a build or a test run says what failed.
PRINT_CHARS = 4000
# The [new, old] texts kept of the edits in a failure's run, which its output may quote, and
# their bound.
MAX_EDIT_SWAPS = 8
EDGES = "()[]{},;:'\"`"  # around a word in a line (`(0.42s)`)
SIZE_UNITS = frozenset({"b", "kb", "kib", "mb", "mib", "gb", "gib"})
ID_HEX = 8  # hex digits in an id of groups: fewer is a code (`E501`, `0x1f`)
MAX_SWAP_CHARS = 80
COMMENTS = "#/-*; "  # what comments a line out (`# app.use(x)`, `// app.use(x)`, `-- x`)
# The words a flag is turned with (`enabled = true`, `DEBUG = False`).
FLAG_WORDS = frozenset(("true", "false", "yes", "no", "on", "off", "enabled", "disabled"))


def printed(text: str) -> list[str]:
    """The end of a failure's text line by line, as `seen` reads it, the lines with a letter."""
    tail = text[-PRINT_CHARS:]
    if len(text) > PRINT_CHARS:
        tail = tail.partition("\n")[2]  # from a whole line: a cut one moves with the length
    lines = [seen(line) for line in tail.splitlines()]
    return [line for line in lines if any(c.isalpha() for c in line)][-shape.MAX_CAUSE_LINES :]


def seen(text: str) -> str:
    """`text` lower case, its spaces collapsed, temporary paths and the values a clock moves
    set aside (`answers.clock_free`; a duration with decimals too: `in 1.23s`), and sizes,
    which move with every byte (`transferring context: 46.72kB`, `172.00 MiB`)."""
    words = shape.without_temp_paths(text).split()
    for at, word in enumerate(words):
        core = word.strip(EDGES)
        bare = core.replace(".", "", 1)
        if core[:1] in shape.HEX and (_volatile(bare) or _measured(bare, words[at + 1 : at + 2])):
            words[at] = word.replace(core, answers.CLOCK)
    return answers.clock_free(" ".join(words)).lower()


def _measured(number: str, following: list[str]) -> bool:
    """A number written apart from its unit, the word after it (`172.00 MiB`, `2.1 s`)."""
    if not number.isdigit() or not following:
        return False
    unit = following[0].strip(EDGES + ".").lower()
    return unit in SIZE_UNITS or unit in answers.TIME_WORDS


def _volatile(word: str) -> bool:
    """A size, a duration with decimals, or an id of hex groups (`5d481589-9189-424d`)."""
    if word.lstrip("0123456789").lower() in SIZE_UNITS or shape.is_duration(word):
        return True
    hexes = sum(c in shape.HEX for c in word)
    hexadecimal = all(c in shape.HEX or c in "-:" for c in word)
    return hexes >= ID_HEX and hexadecimal and any(c.isdigit() for c in word)


def digests(lines: list[str]) -> list[str]:
    return [hashing.digest(line) for line in lines]


def swaps(call: ToolCall) -> list[list[str]]:
    """[new, old] texts an Edit or MultiEdit changed (`_changes`): each changed line, and the
    word changed in it when one word was (`"auto"` for `"strict"`). A Write has none: all of
    the file is new."""
    found = [pair for new, old in _changes(call) for pair in _swaps_in(old, new)]
    return [[new, old] for new, old in found if new and new != old]


def _changes(call: ToolCall) -> list[tuple[str, str]]:
    """(new, old) lines an Edit or MultiEdit changed, as `seen` reads them, where it replaced
    as many lines as it wrote: those up to `MAX_SWAP_CHARS` with no obvious secret in them."""
    found = []
    for old, new in replacements(call):
        olds, news = old.splitlines(), new.splitlines()
        if len(olds) != len(news):
            continue
        for after, before in zip(news, olds, strict=True):
            if after != before and _keepable(after) and _keepable(before):
                found.append((seen(after), seen(before)))
    return found


def replacements(call: ToolCall) -> list[tuple[str, str]]:
    """The (old, new) texts an Edit or MultiEdit replaced; none for another tool."""
    edits = call.input.get("edits") if isinstance(call.input, dict) else None
    found = []
    for change in edits if isinstance(edits, list) else [call.input]:
        if isinstance(change, dict):
            old, new = change.get("old_string"), change.get("new_string")
            if isinstance(old, str) and isinstance(new, str):
                found.append((old, new))
    return found


def _keepable(line: str) -> bool:
    return len(line) <= MAX_SWAP_CHARS and mask(line) == line


def _swaps_in(before: str, after: str) -> list[tuple[str, str]]:
    """(new, old): the changed line, and the one word changed in it when one was."""
    words_before, words_after = set(shape.words_of(before)), set(shape.words_of(after))
    gone, added = words_before - words_after, words_after - words_before
    line = (after, before)
    return [line, (added.pop(), gone.pop())] if len(gone) == len(added) == 1 else [line]


# Files that set how a run goes rather than hold the code it runs: by format, by name (alone
# or with a variant: `Dockerfile.dev`, `requirements-dev.txt`), or as a tool's `*.config.*`.
SETTINGS_SUFFIXES = (
    ".json", ".jsonc", ".json5", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env",
    ".properties", ".xml", ".csproj", ".props", ".gradle", ".gradle.kts", ".lock", ".tf",
    ".tfvars", ".hcl",
)  # fmt: skip
SETTINGS_NAMES = (
    "dockerfile", "containerfile", "makefile", "requirements", "gemfile", "pipfile", "jenkinsfile",
    "go.mod", "cmakelists.txt", "config",
)  # fmt: skip
SETTINGS_VARIANTS = tuple(f"{base}{sep}" for base in SETTINGS_NAMES for sep in ".-_")
# A name that is code whatever it starts with (`requirements_check.py`).
CODE_SUFFIXES = (".py", ".js", ".ts", ".go", ".rb", ".rs", ".java", ".kt", ".cs", ".sh")
# Lines a setting's change replaces: a value, a key and its value, a small group of them.
SETTING_LINES = 3


def settings_file(path: str) -> bool:
    """Whether `path` names a file of settings: a format for them, a dotfile (`.eslintrc.cjs`,
    `.npmrc`), a Dockerfile, a Makefile, a list of pins (`requirements-dev.txt`, `Gemfile`), a
    tool's config (`vite.config.ts`, `~/.ssh/config`), or a file under `/etc/`."""
    if path.startswith("/etc/"):
        return True
    name = path.rpartition("/")[2].lower()
    named = name in SETTINGS_NAMES or (
        name.startswith(SETTINGS_VARIANTS) and not name.endswith(CODE_SUFFIXES)
    )
    return bool(name) and (
        named or name.startswith(".") or name.endswith(SETTINGS_SUFFIXES) or ".config." in name
    )


def note_edit(st: Stuck, call: ToolCall, *, restored: bool) -> None:
    """An edit since the failure was set aside (mutates `st`): its swaps are kept. Unless it
    turned a knob (`knob`) of the one file of settings the run's knobs are in (`knob_file`, the
    first such file since the run was counted afresh), with no line put back since the detour
    began (`restored`), a failure printed word for word after it proves nothing: the edits may
    build something up, or be chores beside an old failure."""
    path, turned = hashing.digest(_path(call)), knob(call)
    if restored or not turned or st.knob_file not in ("", path):
        st.edited_work = True
    if turned and not st.knob_file:
        st.knob_file = path
    found = swaps(call)
    if found:
        st.edit_swaps = [*st.edit_swaps, *found][-MAX_EDIT_SWAPS:]


def clear_set_aside(st: Stuck) -> None:
    """No failure is set aside any more: counted, or its run is over (mutates `st`)."""
    st.edited, st.edited_run, st.edited_nudged, st.edited_work = "", 0, False, False


def knob(call: ToolCall) -> bool:
    """An Edit or MultiEdit of a file of settings (`settings_file`) replacing each text by as
    many lines, `SETTING_LINES` at most: a value turned, not a block rewritten, a file built up
    or cut down, nor a Write."""
    pairs = replacements(call)
    return (
        edits_settings(call)
        and bool(pairs)
        and all(
            len(old.splitlines()) == len(new.splitlines()) <= SETTING_LINES for old, new in pairs
        )
    )


def turned(call: ToolCall) -> bool:
    """An Edit or MultiEdit that only changes values in place, in any file: numbers, a flag or
    a quoted word (`TTL = 3` to `4`, `DEBUG = True` to `False`, `"bundler"` to `"node"`). A
    value tried, not code rewritten: its failure is expected to stand until the right one."""
    pairs = replacements(call)
    return bool(pairs) and all(_valueless(old) == _valueless(new) for old, new in pairs)


def _valueless(text: str) -> str:
    """`text` with its values as placeholders: quoted texts (`Q`), numbers standing alone
    (`N`: not the digits of a name, `int32`) and flags' words (`B`)."""
    out, quote, escaped, before = [], "", False, ""
    for c in text:
        if quote:
            quote = "" if (c == quote and not escaped) or c == "\n" else quote
            escaped = c == "\\" and not escaped
        elif c in '"`' or (c == "'" and not _in_word(before)):
            quote = c  # an apostrophe after a letter is text (`don't`, a lifetime `&'a`)
            out.append("Q")
        elif c.isdigit() and not _in_word(before):
            out.append("N")
        elif not (c.isdigit() and out[-1:] == ["N"]) and not (c == "." and out[-1:] == ["N"]):
            out.append(c)
        before = c if not quote else ""
    return _flags_aside("".join(out))


def _in_word(c: str) -> bool:
    return c.isalnum() or c == "_"


def _flags_aside(text: str) -> str:
    """`text` with each word that turns a flag (`FLAG_WORDS`, `verify=True`) as `B`."""
    out, word = [], ""
    for c in text + " ":
        if _in_word(c):
            word += c
            continue
        out.append("B" if word.lower() in FLAG_WORDS else word)
        out.append(c)
        word = ""
    return "".join(out)[:-1]


def takes_out(call: ToolCall) -> bool:
    """An Edit or MultiEdit that only takes lines out, or comments them out: a suspect set
    aside, not a fix written."""
    pairs = replacements(call)
    return bool(pairs) and all(_taken_out(old, new) for old, new in pairs)


def _taken_out(old: str, new: str) -> bool:
    olds = [line.strip() for line in old.splitlines() if line.strip()]
    news = [line.strip() for line in new.splitlines() if line.strip()]
    kept = [line for line in news if line in olds]
    hidden = [line for line in news if line not in olds and line.lstrip(COMMENTS).strip() in olds]
    return len(kept) + len(hidden) == len(news) and len(kept) < len(olds)


def edits_settings(call: ToolCall) -> bool:
    """The call edits a file of settings (`settings_file`)."""
    return settings_file(_path(call))


def _path(call: ToolCall) -> str:
    return opkey.file_path(call).replace("\\", "/")  # a Windows path's name too


def unmoved(st: Stuck, lines: list[str]) -> bool:
    """The failure set aside is back as the edits since left it: printed but for what they
    explain (`again`), or word for word when they only turned knobs (`note_edit`)."""
    if not st.edited_work and lines and digests(lines) == st.fail_print:
        return True
    return again(st, lines)


def again(st: Stuck, lines: list[str]) -> bool:
    """The failure prints every line the failure set aside printed (`Stuck.fail_print`) and
    nothing else, but for lines the edits since explain (`_explained`), one at least: the
    failing run shows the edit took effect, and nothing else moved. A failure printed word
    for word after an edit proves less: the edit may be work it does not show yet (a module
    written piece by piece while its import still fails, one fix tried after another)."""
    was = set(st.fail_print)
    gone = set(was)
    explained = False
    for line, digest in zip(lines, digests(lines), strict=True):
        if digest in was:
            gone.discard(digest)
        elif _explained(line, gone, st.edit_swaps):
            explained = True
        else:
            return False
    return not gone and explained


def _explained(line: str, gone: set[str], swaps: list[list[str]]) -> bool:
    """The line, with the edits' new texts put back to their old ones, is a line the failure
    printed that this result does not print again (consumed from `gone`)."""
    for pair in swaps:
        if len(pair) != 2:  # a hand-edited state: no swap to undo
            continue
        new, old = pair
        if new in line:
            line = line.replace(new, old)
            digest = hashing.digest(line)
            if digest in gone:
                gone.discard(digest)
                return True
    return False
