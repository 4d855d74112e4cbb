"""Thresholds and limits: every setting declared once, with its type, default, range and
meaning, as a field of `Config`.

Each field's value in the class body is its `Setting` (made by `whole`, `choice`, `words`,
`argv` or `switch`, each typed as the value it stands for, so mypy checks the field's type
against its kind); `declared` collects them into `SETTINGS` and leaves the defaults in their
place. So a key exists once, and `cfg.key` has the key's type wherever it is read.

Pure: no file or environment access here. `arcguard.core.config_input` reads the raw values a
config file or the environment gives into a `Config` of these keys.
"""

from __future__ import annotations

from arcguard.values import value


# Not `typing.TYPE_CHECKING`: importing typing costs the hook path milliseconds; mypy
# recognises the name on its own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from typing import TypeVar

    T = TypeVar("T")
    Value = int | str | bool | tuple[str, ...]

# Claude Code ends a turn itself after 8 consecutive Stop-hook blocks; stay well under it.
CLAUDE_CODE_BLOCK_CAP = 8
# The `timeout` install writes for every hook is 10 s; a hook must end well before Claude Code
# kills it, so its wall budget (and the waits inside it) stay at half of that or less.
HOOK_BUDGET_MAX_MS = 5000
# A list setting holds at most this many items of at most ITEM_CHARS characters each.
MAX_ITEMS = 200
ITEM_CHARS = 500

INT = "int"
LIST = "list"
ENUM = "enum"
BOOL = "bool"
ARGV = "argv"  # a program and its arguments, run without a shell


@value
class Setting:
    """One key: its kind (int, list of strings or one of `choices`), default, range, meaning.

    For an int the range bounds the value; for a list it bounds the number of items.
    """

    name: str
    kind: str
    default: Value
    low: int
    high: int
    meaning: str
    choices: tuple[str, ...] = ()


def _setting(kind: str, default: Value, low: int, high: int, meaning: str) -> Setting:
    """A setting not yet named: `declared` names it after its field."""
    return Setting("", kind, default, low, high, meaning)


# Each helper returns a `Setting`, typed as the value the field holds: the class body is the
# only place that sees it, and `declared` replaces it with the default before any use.
def whole(default: int, low: int, high: int, meaning: str) -> int:
    """An integer from `low` to `high`."""
    return _setting(INT, default, low, high, meaning)  # type: ignore[return-value]


def choice(default: str, choices: tuple[str, ...], meaning: str) -> str:
    """One word of `choices`."""
    return Setting("", ENUM, default, 0, 0, meaning, choices)  # type: ignore[return-value]


def words(default: tuple[str, ...], meaning: str) -> tuple[str, ...]:
    """A list of strings (at most MAX_ITEMS of at most ITEM_CHARS characters)."""
    return _setting(LIST, default, 0, MAX_ITEMS, meaning)  # type: ignore[return-value]


def argv(meaning: str) -> tuple[str, ...]:
    """A program and its arguments, empty by default."""
    return _setting(ARGV, (), 0, MAX_ITEMS, meaning)  # type: ignore[return-value]


def switch(default: bool, meaning: str) -> bool:
    """True or false."""
    return _setting(BOOL, default, 0, 1, meaning)  # type: ignore[return-value]


_DECLARED: list[Setting] = []


def declared(cls: type[T]) -> type[T]:
    """Collect the class body's settings, in order, into `_DECLARED`, named after their
    fields, and put each one's default in its place (for `@value`, applied after this)."""
    for name, held in list(vars(cls).items()):
        if isinstance(held, Setting):
            held.name = name
            _DECLARED.append(held)
            setattr(cls, name, held.default)
    return cls


@value
@declared
class Config:
    """Every threshold and limit. The environment override of a key is `ARCGUARD_<KEY>`."""

    # arc keeper
    stale_seconds: int = whole(
        8 * 3600, 60, 30 * 86400, "an arc with no activity for this long stops being continued"
    )
    max_consecutive_continuations: int = whole(
        2, 1, CLAUDE_CODE_BLOCK_CAP - 2, "continuations in a row without operator input"
    )
    max_continuations_per_arc: int = whole(5, 1, 1000, "continuations over a whole arc")
    drain_ms: int = whole(
        1200,
        0,
        HOOK_BUDGET_MAX_MS,
        "how long the Stop hook waits for the final message to reach the transcript",
    )
    tail_bytes: int = whole(
        1024 * 1024, 64 * 1024, 64 * 1024 * 1024, "how much of the transcript's end a hook reads"
    )
    hook_budget_ms: int = whole(
        2000, 100, HOOK_BUDGET_MAX_MS, "wall time after which a hook exits with no decision"
    )
    lock_timeout_ms: int = whole(
        1000, 10, HOOK_BUDGET_MAX_MS, "how long a hook waits for a session's state lock"
    )
    stop_policy: str = choice(
        "ask",
        ("noop", "ask", "strict"),
        "which stops mid-arc are stalls: `noop` empty or no-op replies only; `ask` also "
        "permission questions and announced steps not taken; `strict` every stop that is neither "
        "a completion nor `DECISION NEEDED:`",
    )
    # loop guard: where it acts, then the repeat guard
    loop_guard: str = choice(
        "always",
        ("always", "arcs", "off"),
        "where the loop guard acts: `always` in every session; `arcs` only while an arc or a "
        "/goal is active; `off` nowhere (the arc keeper still acts)",
    )
    repeat_limit: int = whole(
        2, 1, 100, "runs of a call with one outcome before the next is denied"
    )
    repeat_window: int = whole(200, 1, 100_000, "how many calls back those runs count")
    max_operations: int = whole(200, 10, 2000, "distinct calls tracked per session")
    inflight_stale_seconds: int = whole(
        900, 10, 7 * 86400, "a call with no result after this long is treated as finished"
    )
    observing_tools: tuple[str, ...] = words(
        ("Bash", "Read", "Grep", "Glob"),
        "tools that only look: after an edit, one more run validates it",
    )
    blocked_rounds_pause: int = whole(
        3, 1, 1000, "rounds with a denied call and no progress before a pause"
    )
    # loop guard: cycles, check-in and backstop
    cycle_history: int = whole(40, 2, 400, "tool-only turns kept to look for cycles")
    cycle_max_period: int = whole(8, 1, 50, "longest cycle looked for, in turns")
    cycle_repeats_identical: int = whole(
        5, 2, 1000, "the same tool-only turn this many times in a row pauses"
    )
    cycle_repeats: int = whole(3, 2, 1000, "a longer cycle repeated this many times pauses")
    checkin_turns: int = whole(
        25, 1, 100_000, "tool-only turns in a row before a request to summarise"
    )
    backstop_nudge_turns: int = whole(
        100, 1, 100_000, "turns since your last message before a request to summarise"
    )
    backstop_pause_turns: int = whole(
        200, 1, 100_000, "turns since your last message before a pause"
    )
    backstop_pause_turns_arc: int = whole(
        600, 1, 100_000, "the same, while an arc or a /goal is active"
    )
    backstop_ceiling_turns: int = whole(
        1000,
        1,
        100_000,
        "turns since your last message before a pause however productive they are: a bound on "
        "runaway cost",
    )
    wait_max_seconds: int = whole(
        3600, 1, 7 * 86400, "how long repeated waiting on background work may go on"
    )
    # loop guard: staged rules on shapes (values that change every time set aside)
    shape_checkin_repeats: int = whole(
        8,
        3,
        1000,
        "repeats of a result already seen, up to timestamps, counters and ids and whichever calls "
        "brought it (or searches in a row that found nothing), with no real progress, before a "
        "request to summarise",
    )
    shape_pause_repeats: int = whole(
        12, 4, 1000, "the same, before a pause (only after the request)"
    )
    error_checkin_repeats: int = whole(
        4,
        2,
        1000,
        "attempts failing the same way, from any calls and with one-off calls between, with no "
        "file changed, before a request to summarise",
    )
    error_pause_repeats: int = whole(
        6, 3, 1000, "the same, before a pause (only after the request)"
    )
    poll_checkin_repeats: int = whole(
        3,
        2,
        1000,
        "repeats of a waiting call with the same result before its wall-time bounds apply",
    )
    poll_checkin_seconds: int = whole(
        900,
        600,
        86400,
        "how long a waiting call may show the same result before a request to say what it waits "
        "for (never under 10 minutes: CI pipelines take minutes; a third of it for a wait on a "
        "failure)",
    )
    poll_pause_seconds: int = whole(
        1800,
        600,
        7 * 86400,
        "how long a waiting call may show the same result before a pause (only after the request)",
    )
    allow: tuple[str, ...] = words(
        (), "calls exempt from the loop guard: `Tool`, `glob` or `Tool(glob)`"
    )
    # unattended runs: resume after an API limit, tell the user when a session stops
    limit_resumes_per_arc: int = whole(
        3, 0, 20, "resumes after an API limit over one arc (0: never wait for a limit)"
    )
    limit_wait_max_seconds: int = whole(
        5 * 3600, 1, 86400, "the longest one wait for a limit to reset may be"
    )
    notify_command: tuple[str, ...] = argv(
        "a program and its arguments run, without a shell, with a JSON event on stdin when "
        "arcguard stops a session (environment: a JSON array)"
    )
    notify_terminal: bool = switch(
        True, "ring the terminal and set its title when arcguard stops a session"
    )
    # state files
    state_retention_days: int = whole(
        30,
        1,
        3650,
        "a session's state file untouched for this many days is removed (never one with an active "
        "arc or a pending wait)",
    )
    # resident mode
    resident_idle_seconds: int = whole(
        8 * 3600, 1, 7 * 86400, "the resident server exits after this long without a request"
    )

    def as_dict(self) -> dict[str, Value]:
        return {name: getattr(self, name) for name in DEFAULTS}


SETTINGS: tuple[Setting, ...] = tuple(_DECLARED)
SETTING = {setting.name: setting for setting in SETTINGS}
# name -> default. The environment override of `name` is `ARCGUARD_<NAME>` (upper case).
DEFAULTS: dict[str, Value] = {setting.name: setting.default for setting in SETTINGS}


def make_config(values: Mapping[str, Value]) -> Config:
    """A config holding `values`, and the defaults for the keys they leave out.

    `values` are read by key (a file, the environment), each already checked against its
    key's `Setting`, so each has its field's type; mypy cannot follow a key to its type here.
    """
    make: Callable[..., Config] = Config
    return make(**values)


def default_config() -> Config:
    return Config()
