"""Thresholds and limits: one table of every setting with its default, range and meaning.

Pure: no file or environment access here. `arcguard.core.config_input` reads the raw values a
config file or the environment gives into a `Config` of this table's keys.
"""

from __future__ import annotations

from arcguard.values import value


# Not `typing.TYPE_CHECKING`: importing typing costs the hook path milliseconds; mypy
# recognises the name on its own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

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


def _int(name: str, default: int, low: int, high: int, meaning: str) -> Setting:
    return Setting(name, INT, default, low, high, meaning)


def _enum(name: str, default: str, choices: tuple[str, ...], meaning: str) -> Setting:
    return Setting(name, ENUM, default, 0, 0, meaning, choices)


def _list(name: str, default: tuple[str, ...], meaning: str) -> Setting:
    return Setting(name, LIST, default, 0, MAX_ITEMS, meaning)


SETTINGS: tuple[Setting, ...] = (
    # arc keeper
    _int(
        "stale_seconds",
        8 * 3600,
        60,
        30 * 86400,
        "an arc with no activity for this long stops being continued",
    ),
    _int(
        "max_consecutive_continuations",
        2,
        1,
        CLAUDE_CODE_BLOCK_CAP - 2,
        "continuations in a row without operator input",
    ),
    _int("max_continuations_per_arc", 5, 1, 1000, "continuations over a whole arc"),
    _int(
        "drain_ms",
        1200,
        0,
        HOOK_BUDGET_MAX_MS,
        "how long the Stop hook waits for the final message to reach the transcript",
    ),
    _int(
        "tail_bytes",
        1024 * 1024,
        64 * 1024,
        64 * 1024 * 1024,
        "how much of the transcript's end a hook reads",
    ),
    _int(
        "hook_budget_ms",
        2000,
        100,
        HOOK_BUDGET_MAX_MS,
        "wall time after which a hook exits with no decision",
    ),
    _int(
        "lock_timeout_ms",
        1000,
        10,
        HOOK_BUDGET_MAX_MS,
        "how long a hook waits for a session's state lock",
    ),
    _enum(
        "stop_policy",
        "ask",
        ("noop", "ask", "strict"),
        "which stops mid-arc are stalls: `noop` empty or no-op replies only; `ask` also "
        "permission questions and announced steps not taken; `strict` every stop that is "
        "neither a completion nor `DECISION NEEDED:`",
    ),
    # loop guard: where it acts, then the repeat guard
    _enum(
        "loop_guard",
        "always",
        ("always", "arcs", "off"),
        "where the loop guard acts: `always` in every session; `arcs` only while an arc or a"
        " /goal is active; `off` nowhere (the arc keeper still acts)",
    ),
    _int("repeat_limit", 2, 1, 100, "runs of a call with one outcome before the next is denied"),
    _int("repeat_window", 200, 1, 100_000, "how many calls back those runs count"),
    _int("max_operations", 200, 10, 2000, "distinct calls tracked per session"),
    _int(
        "inflight_stale_seconds",
        900,
        10,
        7 * 86400,
        "a call with no result after this long is treated as finished",
    ),
    _list(
        "observing_tools",
        ("Bash", "Read", "Grep", "Glob"),
        "tools that only look: after an edit, one more run validates it",
    ),
    _int(
        "blocked_rounds_pause",
        3,
        1,
        1000,
        "rounds with a denied call and no progress before a pause",
    ),
    # loop guard: cycles, check-in and backstop
    _int("cycle_history", 40, 2, 400, "tool-only turns kept to look for cycles"),
    _int("cycle_max_period", 8, 1, 50, "longest cycle looked for, in turns"),
    _int(
        "cycle_repeats_identical",
        5,
        2,
        1000,
        "the same tool-only turn this many times in a row pauses",
    ),
    _int("cycle_repeats", 3, 2, 1000, "a longer cycle repeated this many times pauses"),
    _int("checkin_turns", 25, 1, 100_000, "tool-only turns in a row before a request to summarise"),
    _int(
        "backstop_nudge_turns",
        100,
        1,
        100_000,
        "turns since your last message before a request to summarise",
    ),
    _int("backstop_pause_turns", 200, 1, 100_000, "turns since your last message before a pause"),
    _int(
        "backstop_pause_turns_arc", 600, 1, 100_000, "the same, while an arc or a /goal is active"
    ),
    _int(
        "backstop_ceiling_turns",
        1000,
        1,
        100_000,
        "turns since your last message before a pause however productive they are: a bound"
        " on runaway cost",
    ),
    _int(
        "wait_max_seconds",
        3600,
        1,
        7 * 86400,
        "how long repeated waiting on background work may go on",
    ),
    # loop guard: staged rules on shapes (values that change every time set aside)
    _int(
        "shape_checkin_repeats",
        8,
        3,
        1000,
        "repeats of a result already seen, up to timestamps, counters and ids and whichever"
        " calls brought it, with no real progress, before a request to summarise",
    ),
    _int(
        "shape_pause_repeats",
        16,
        4,
        1000,
        "the same, before a pause (only after the request)",
    ),
    _int(
        "error_checkin_repeats",
        4,
        2,
        1000,
        "attempts failing the same way, from any calls and with one-off calls between, with no"
        " file changed, before a request to summarise",
    ),
    _int(
        "error_pause_repeats",
        7,
        3,
        1000,
        "the same, before a pause (only after the request)",
    ),
    _int(
        "poll_checkin_repeats",
        3,
        2,
        1000,
        "repeats of a waiting call with the same result before its wall-time bounds apply",
    ),
    _int(
        "poll_checkin_seconds",
        900,
        600,
        86400,
        "how long a waiting call may show the same result before a request to say what it"
        " waits for (never under 10 minutes: CI pipelines take minutes)",
    ),
    _int(
        "poll_pause_seconds",
        1800,
        600,
        7 * 86400,
        "how long a waiting call may show the same result before a pause (only after the request)",
    ),
    _list("allow", (), "calls exempt from the loop guard: `Tool`, `glob` or `Tool(glob)`"),
    # unattended runs: resume after an API limit, tell the user when a session stops
    _int(
        "limit_resumes_per_arc",
        3,
        0,
        20,
        "resumes after an API limit over one arc (0: never wait for a limit)",
    ),
    _int(
        "limit_wait_max_seconds",
        5 * 3600,
        1,
        86400,
        "the longest one wait for a limit to reset may be",
    ),
    Setting(
        "notify_command",
        ARGV,
        (),
        0,
        MAX_ITEMS,
        "a program and its arguments run, without a shell, with a JSON event on stdin when"
        " arcguard stops a session (environment: a JSON array)",
    ),
    Setting(
        "notify_terminal",
        BOOL,
        True,
        0,
        1,
        "ring the terminal and set its title when arcguard stops a session",
    ),
    # state files
    _int(
        "state_retention_days",
        30,
        1,
        3650,
        "a session's state file untouched for this many days is removed (never one with an"
        " active arc or a pending wait)",
    ),
    # resident mode
    _int(
        "resident_idle_seconds",
        8 * 3600,
        1,
        7 * 86400,
        "the resident server exits after this long without a request",
    ),
)

SETTING = {setting.name: setting for setting in SETTINGS}
# name -> default. The environment override of `name` is `ARCGUARD_<NAME>` (upper case).
DEFAULTS: dict[str, Value] = {setting.name: setting.default for setting in SETTINGS}


@value
class Config:
    """Every threshold, as attributes named like the keys of `DEFAULTS`."""

    stale_seconds: int
    max_consecutive_continuations: int
    max_continuations_per_arc: int
    drain_ms: int
    tail_bytes: int
    hook_budget_ms: int
    lock_timeout_ms: int
    stop_policy: str
    loop_guard: str
    repeat_limit: int
    repeat_window: int
    max_operations: int
    inflight_stale_seconds: int
    observing_tools: tuple[str, ...]
    blocked_rounds_pause: int
    cycle_history: int
    cycle_max_period: int
    cycle_repeats_identical: int
    cycle_repeats: int
    checkin_turns: int
    backstop_nudge_turns: int
    backstop_pause_turns: int
    backstop_pause_turns_arc: int
    backstop_ceiling_turns: int
    wait_max_seconds: int
    shape_checkin_repeats: int
    shape_pause_repeats: int
    error_checkin_repeats: int
    error_pause_repeats: int
    poll_checkin_repeats: int
    poll_checkin_seconds: int
    poll_pause_seconds: int
    allow: tuple[str, ...]
    limit_resumes_per_arc: int
    limit_wait_max_seconds: int
    notify_command: tuple[str, ...]
    notify_terminal: bool
    state_retention_days: int
    resident_idle_seconds: int

    def as_dict(self) -> dict[str, Value]:
        return {name: getattr(self, name) for name in DEFAULTS}


def make_config(values: Mapping[str, Value]) -> Config:
    """A config holding `values`, and the defaults for the keys they leave out."""
    # Typed loosely: each value's type follows from its key, which mypy cannot see here.
    make: Callable[..., Config] = Config
    return make(**{**DEFAULTS, **values})


def default_config() -> Config:
    return make_config({})
