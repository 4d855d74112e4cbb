"""Thresholds and limits, with their defaults and validation.

Pure: no file or environment access here. `arcguard.config` reads the TOML file and the
`ARCGUARD_*` environment and hands the raw values to `build_config`.
"""

from __future__ import annotations


# Not `typing.TYPE_CHECKING`: importing typing costs the hook path milliseconds; mypy
# recognises the name on its own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# name -> default. The environment override of `name` is `ARCGUARD_<NAME>` (upper case).
DEFAULTS: dict[str, int | str | tuple[str, ...]] = {
    # arc keeper (seed 003)
    "stale_seconds": 8 * 3600,
    "max_consecutive_continuations": 2,
    "max_continuations_per_arc": 5,
    "drain_ms": 1200,
    "tail_bytes": 1024 * 1024,
    "hook_budget_ms": 2000,
    "lock_timeout_ms": 1000,
    "stop_policy": "ask",
    # loop guard: repeat guard (seed 004)
    "repeat_limit": 2,
    "repeat_window": 200,
    "max_operations": 200,
    "inflight_stale_seconds": 900,
    "observing_tools": ("Bash", "Read", "Grep", "Glob"),
    "blocked_rounds_pause": 3,
    # loop guard: cycles, check-in and backstop (seed 000)
    "cycle_history": 40,
    "cycle_max_period": 8,
    "cycle_repeats_identical": 5,
    "cycle_repeats": 3,
    "checkin_turns": 25,
    "backstop_nudge_turns": 100,
    "backstop_pause_turns": 200,
    "backstop_pause_turns_arc": 600,
    "allow": (),
}

# Claude Code ends a turn itself after 8 consecutive Stop-hook blocks; stay well under it.
CLAUDE_CODE_BLOCK_CAP = 8
# Keys whose value is one word of a fixed set.
CHOICES = {"stop_policy": ("noop", "ask", "strict")}
_MINIMUMS = {"repeat_limit": 1, "cycle_max_period": 1, "cycle_repeats_identical": 2,
             "cycle_repeats": 2, "hook_budget_ms": 100, "lock_timeout_ms": 10}
_MAXIMUMS = {"max_consecutive_continuations": CLAUDE_CODE_BLOCK_CAP - 2,
             "max_operations": 2000, "cycle_history": 400, "cycle_max_period": 50}


class ConfigError(ValueError):
    """A config value that cannot be used; the message names the key."""


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
    allow: tuple[str, ...]

    def __init__(self, values: Mapping[str, int | str | tuple[str, ...]]) -> None:
        for name, default in DEFAULTS.items():
            setattr(self, name, values.get(name, default))

    def as_dict(self) -> dict[str, int | str | tuple[str, ...]]:
        return {name: getattr(self, name) for name in DEFAULTS}


def _coerce(name: str, raw: object) -> int | str | tuple[str, ...]:
    default = DEFAULTS[name]
    if name in CHOICES:
        if isinstance(raw, str) and raw.strip().lower() in CHOICES[name]:
            return raw.strip().lower()
        raise ConfigError(f"{name}: expected one of {', '.join(CHOICES[name])}, got {raw!r}")
    if isinstance(default, tuple):
        if isinstance(raw, str):
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        if isinstance(raw, list | tuple) and all(isinstance(x, str) for x in raw):
            return tuple(raw)
        raise ConfigError(f"{name}: expected a list of strings")
    if isinstance(raw, bool):
        raise ConfigError(f"{name}: expected an integer, got a boolean")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        value = int(raw.strip())
    else:
        raise ConfigError(f"{name}: expected an integer, got {raw!r}")
    if value < _MINIMUMS.get(name, 0):
        raise ConfigError(f"{name}: {value} is below the minimum {_MINIMUMS.get(name, 0)}")
    if name in _MAXIMUMS and value > _MAXIMUMS[name]:
        raise ConfigError(f"{name}: {value} is above the maximum {_MAXIMUMS[name]}")
    return value


def build_config(
    file_values: Mapping[str, object], env_values: Mapping[str, object]
) -> tuple[Config, list[str]]:
    """Merge defaults < file < environment. Returns the config and a list of problems.

    Never raises: an unknown key or a bad value is reported and its default applies.
    """
    problems: list[str] = []
    values: dict[str, int | str | tuple[str, ...]] = {}
    for source, raw_values in (("config file", file_values), ("environment", env_values)):
        for name, raw in raw_values.items():
            if name not in DEFAULTS:
                problems.append(f"{source}: unknown setting {name!r}")
                continue
            try:
                values[name] = _coerce(name, raw)
            except ConfigError as exc:
                problems.append(f"{source}: {exc}")
    return Config(values), problems


def default_config() -> Config:
    return Config({})
