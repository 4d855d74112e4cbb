"""What a command names: the words of its arguments, its program and subcommand, and those
that read as names.

`failures` keeps a failed call's words to tell a retry under another spelling from the same
command aimed at another target (a sweep), and a result that names what only its own call
asked for.
"""

from __future__ import annotations

from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall


# Words of a command that say what it acts on, not how: of this many characters or more and
# not all digits (numbers are `shape.identity_numbers`' part), from arguments that are not an
# amount alone (`-timeout 60s` after `30s` is the same test given longer, `--memory=512m` the
# same run given more; `meeting-10m.wav` is a file), and at most so many, each clipped (the
# state file keeps them).
ASKED_CHARS = 3
MAX_ASKED = 16
ASKED_CLIP = 24
# Programs that only set up the command after them (`cd app && cargo build`).
SETUP_PROGRAMS = frozenset({"cd", "pushd", "popd", "export", "source", ".", "set", "unset"})
# Chores on files put before the command a failure is of (`rm -rf node_modules && pnpm
# install`, `cp lock.yaml /tmp/lock.bak && ...`): not what the command runs to be judged.
CHORES = frozenset({"cp", "mv", "rm", "mkdir", "touch", "ln", "echo", "printf", "sleep", "true"})
# Characters that make a word a name (`accounts-svc`, `us-east-1`, `test_tax`, a path), unlike
# a message's plain words (`-m "fix lint"`).
NAME_MARKS = frozenset("/-_.:@0123456789")
LOOPBACK = ("127.0.0.1", "0.0.0.0", "[::1]")  # names of this machine `localhost` stands for


def _segments(call: ToolCall) -> list[list[str]]:
    """A command's simple commands as word lists, unwrapped, its output filters and temporary
    paths aside, without those that only set up the next (`SETUP_PROGRAMS`)."""
    command = tool_effects.command_of(call)
    if command is None:
        return []
    parts = shape.split_simple(shape.observed_command(shape.without_temp_paths(command)))
    runs = (tool_effects.unwrap(part.split()) for part in parts)
    return [run for run in runs if run and tool_effects.program_name(run[0]) not in SETUP_PROGRAMS]


def _values(run: list[str]) -> list[str]:
    """A simple command's arguments and options' values (`--region=x`: `x`), an address's
    scheme and the loopback's other names aside (`host_aside`)."""
    return [
        host_aside(word.partition("=")[2] if word.startswith("-") else word) for word in run[1:]
    ]


def host_aside(word: str) -> str:
    """`word` without a URL's scheme, the loopback's names as `localhost`:
    `http://127.0.0.1:8080/x` names what `localhost:8080/x` does."""
    text = word.strip("'\"").partition("://")[2] or word.strip("'\"")
    for alias in LOOPBACK:
        text = text.replace(alias, "localhost")
    return text


def _kept(word: str) -> list[str]:
    bare = word.strip("'\"")
    if bare and shape.is_duration(bare):
        return []  # an amount (a time, or a size with the same units), not what is acted on
    return [
        t[:ASKED_CLIP] for t in shape.words_of(word) if len(t) >= ASKED_CHARS and not t.isdigit()
    ]


def _asked(runs: list[list[str]]) -> list[str]:
    """The words of a command's arguments and options' values, split at punctuation, without
    its programs and options' names: `pytest -k test_total` and `pytest tests/test_cart.py`
    ask for `test_total`, and `tests`, `test_cart`."""
    return [t for run in runs for word in _values(run) for t in _kept(word)][:MAX_ASKED]


def named_words(call: ToolCall) -> list[str]:
    """The program a command runs first (past a `cd`), the first word of what follows it unless
    that is an option (its subcommand: `build` of `cargo build`), then what it asks for
    (`_asked`): what `failures` keeps of a failed call to tell a retry (`flask db upgrade` for
    `alembic upgrade head`, `cargo check` for `cargo build`) from the same command aimed at
    another target (`gh api repos/acme/web/...` after `repos/acme/api/...`)."""
    return _named(_segments(call))


def check_words(call: ToolCall) -> list[str]:
    """`named_words` of the simple command the command runs to be judged alone (`_judged`):
    the check it runs and what it asks for, not what the commands after it do with the print
    (`pytest tests/unit | grep -E 'error|FAILED'`: pytest, tests, unit)."""
    runs = _segments(call)
    return _named([_judged(runs)]) if runs else []


def _named(runs: list[list[str]]) -> list[str]:
    if not runs:
        return []
    first = _judged(runs)
    sub = _kept(first[1])[:1] if len(first) > 1 and not first[1].startswith("-") else []
    program = tool_effects.program_name(first[0])[:ASKED_CLIP]
    return [program, *(sub or [""])][:2] + _asked(runs)


def _judged(runs: list[list[str]]) -> list[str]:
    """The simple command a command runs to be judged: the first past chores on files and
    looks put before another (`pnpm config get x; pnpm install`), else the first."""
    last = len(runs) - 1
    for at, run in enumerate(runs):
        program = tool_effects.program_name(run[0])
        if program in CHORES or (at < last and tool_effects.reads(run)):
            continue
        return run
    return runs[0]


def name_words(call: ToolCall) -> set[str]:
    """What a command asks for (`_asked`), of the words that read as names (`NAME_MARKS`): `web` of
    `repos/acme/web`, `east` of `us-east-1`, not `typing` of `-m "fix typing"`."""
    return {
        t
        for run in _segments(call)
        for word in _values(run)
        if NAME_MARKS.intersection(word.strip("'\"`"))
        for t in _kept(word)
    }
