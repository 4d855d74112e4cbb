"""Thresholds and limits: one table of every setting with its default, range and meaning.

Pure: no file or environment access here. `arcguard.storage.config_file` reads the TOML file and the
`ARCGUARD_*` environment and hands the raw values to `build_config`.

A value outside its key's range is rejected, never clamped: the default applies and the
problem names the key and the value, so `doctor` can show exactly what was ignored and a typo
such as `0` never quietly becomes a different number than the one written.
"""

from __future__ import annotations


# Not `typing.TYPE_CHECKING`: importing typing costs the hook path milliseconds; mypy
# recognises the name on its own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    Value = int | str | bool | tuple[str, ...]

# Claude Code ends a turn itself after 8 consecutive Stop-hook blocks; stay well under it.
CLAUDE_CODE_BLOCK_CAP = 8
# The `timeout` install writes for every hook is 10 s; a hook must end well before Claude Code
# kills it, so its wall budget (and the waits inside it) stay at half of that or less.
HOOK_BUDGET_MAX_MS = 5000
# An integer setting is at most this many digits: enough for every range below, and it keeps
# a hostile value from reaching `int()`'s slow or refused conversions.
MAX_DIGITS = 12
# A list setting holds at most this many items of at most ITEM_CHARS characters each.
MAX_ITEMS = 200
ITEM_CHARS = 500

INT = "int"
LIST = "list"
ENUM = "enum"
BOOL = "bool"
ARGV = "argv"  # a program and its arguments, run without a shell


class Setting:
    """One key: its kind (int, list of strings or one of `choices`), default, range, meaning.

    For an int the range bounds the value; for a list it bounds the number of items.
    """

    __slots__ = ("choices", "default", "high", "kind", "low", "meaning", "name")

    def __init__(
        self,
        name: str,
        kind: str,
        default: Value,
        low: int,
        high: int,
        meaning: str,
        choices: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.low = low
        self.high = high
        self.meaning = meaning
        self.choices = choices


def _int(name: str, default: int, low: int, high: int, meaning: str) -> Setting:
    return Setting(name, INT, default, low, high, meaning)


def _enum(name: str, default: str, choices: tuple[str, ...], meaning: str) -> Setting:
    return Setting(name, ENUM, default, 0, 0, meaning, choices)


# Switches: true/false in TOML; 1/0, true/false, yes/no, on/off in the environment.
_BOOLEAN_WORDS = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
}


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
    # loop guard: repeat guard
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
        "calls repeating an earlier call and result up to timestamps, counters and ids, with no"
        " real progress, before a request to summarise",
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
        "failures in a row of the same shape, from any calls, with no file changed, before a"
        " request to summarise",
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


class ConfigError(ValueError):
    """A config value that cannot be used; the message names the key and the value."""


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

    def __init__(self, values: Mapping[str, Value]) -> None:
        for name, default in DEFAULTS.items():
            setattr(self, name, values.get(name, default))

    def as_dict(self) -> dict[str, Value]:
        return {name: getattr(self, name) for name in DEFAULTS}


def shown(raw: object) -> str:
    """`raw` for a problem message: repr, cut short (a hostile value can be megabytes)."""
    text = repr(raw)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_int(raw: object) -> int | None:
    """An int from an int or a plain ASCII decimal string (`-` allowed once), else None.

    `str.isdigit` accepts `²` and other Unicode digits that `int` refuses, so only 0-9 count.
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    digits = text[1:] if text.startswith("-") else text
    if not digits or len(digits) > MAX_DIGITS or digits.strip("0123456789"):
        return None
    return int(text)


def _coerce_list(setting: Setting, raw: object) -> tuple[str, ...]:
    if isinstance(raw, str):
        items = tuple(part.strip() for part in raw.split(",") if part.strip())
    elif isinstance(raw, list | tuple) and all(isinstance(x, str) for x in raw):
        items = tuple(raw)
    else:
        raise ConfigError(f"{setting.name}: expected a list of strings, got {shown(raw)}")
    if len(items) > setting.high or any(len(item) > ITEM_CHARS for item in items):
        raise ConfigError(
            f"{setting.name}: at most {setting.high} items of at most {ITEM_CHARS} characters"
        )
    return items


def _coerce_enum(setting: Setting, raw: object) -> str:
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in setting.choices:
        return word
    raise ConfigError(f"{setting.name}: {shown(raw)} is not one of {', '.join(setting.choices)}")


def _coerce_int(setting: Setting, raw: object) -> int:
    value = parse_int(raw)
    if value is None:
        kind = "a boolean" if isinstance(raw, bool) else shown(raw)
        raise ConfigError(f"{setting.name}: expected an integer, got {kind}")
    if value < setting.low:
        raise ConfigError(f"{setting.name}: {shown(raw)} is below the minimum {setting.low}")
    if value > setting.high:
        raise ConfigError(f"{setting.name}: {shown(raw)} is above the maximum {setting.high}")
    return value


def coerce_setting(setting: Setting, raw: object) -> Value:
    """The usable value of `setting` from `raw`; ConfigError when it has none."""
    if setting.kind == LIST:
        return _coerce_list(setting, raw)
    if setting.kind == ARGV:
        return _coerce_list(setting, _argv(setting.name, raw) if isinstance(raw, str) else raw)
    if setting.kind == ENUM:
        return _coerce_enum(setting, raw)
    if setting.kind == BOOL:
        return _coerce_bool(setting.name, raw)
    return _coerce_int(setting, raw)


def _argv(name: str, raw: str) -> object:
    """An argv given as text (the environment): a JSON array of strings, never a shell line,
    and never split on commas, which would break arguments that hold one."""
    from arcguard import jsonio

    try:
        return jsonio.loads(raw.encode("utf-8", "surrogatepass")) if raw.strip() else []
    except (jsonio.JSONError, UnicodeError):
        raise ConfigError(f"{name}: expected a JSON array of strings, got {raw!r}") from None


def _coerce_bool(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[raw.strip().lower()]
    raise ConfigError(f"{name}: expected true or false, got {raw!r}")


def build_config(
    file_values: Mapping[str, object], env_values: Mapping[str, object]
) -> tuple[Config, list[str]]:
    """Merge defaults < file < environment. Returns the config and a list of problems.

    Never raises: an unknown key or a bad value is reported and that key's default applies
    (a bad environment value does not fall back to the file's: what was set is not used).
    """
    problems: list[str] = []
    values: dict[str, Value] = {}
    for source, raw_values in (("config file", file_values), ("environment", env_values)):
        for name, raw in raw_values.items():
            if name not in SETTING:
                problems.append(f"{source}: unknown setting {shown(name)}")
                continue
            try:
                values[name] = coerce_setting(SETTING[name], raw)
            except ConfigError as exc:
                values.pop(name, None)
                problems.append(f"{source}: {exc}")
    return Config(values), problems


def default_config() -> Config:
    return Config({})
