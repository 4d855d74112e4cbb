"""arcguard inside a Claude Agent SDK application: the same guard as the command hooks, as
in-process hook callbacks (see docs/sdk.md).

    from claude_agent_sdk import ClaudeAgentOptions, query
    import arcguard.sdk

    options = arcguard.sdk.options(ClaudeAgentOptions(cwd="/path/to/project"))
    async for message in query(prompt="/autonomous ship the importer", options=options): ...

`hooks(...)` returns the hooks alone, for `ClaudeAgentOptions(hooks=...)`; `options(...)` merges
them (and the environment the CLI needs to reach the same state) into options of your own.
Configuration is read as the CLI reads it: the config file, then `ARCGUARD_*` variables of the
environment, then the `settings` given here. Both refuse, with `DoubleWiring`, to add a second
guard to a session whose settings files already wire arcguard's hooks.

Needs the `sdk` extra (`pip install 'arcguard[sdk]'`); no hook ever imports this package.
"""

from __future__ import annotations

import dataclasses
import os
from typing import cast

from arcguard.sdk.limits import limit_reset
from arcguard.sdk.limits import wait_for_limit
from arcguard.sdk.wiring import DoubleWiring
from arcguard.sdk.wiring import refuse_double_wiring


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from claude_agent_sdk import ClaudeAgentOptions
    from claude_agent_sdk import HookMatcher
    from claude_agent_sdk.types import HookEvent

    from arcguard.sdk.guard import Guard

    # A config value given as an argument: what the config file could hold.
    Setting = str | int | float | bool | Sequence[str]

__all__ = ["DoubleWiring", "cli_environment", "hooks", "limit_reset", "options", "wait_for_limit"]


def hooks(
    settings: Mapping[str, Setting] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    setting_sources: Sequence[str] | None = None,
) -> dict[HookEvent, list[HookMatcher]]:
    """arcguard's hooks for `ClaudeAgentOptions(hooks=...)`.

    `settings`: config keys (as in the config file) that override the file and `environ`
    (default: this process's environment). `cwd` and `setting_sources`: what you give
    `ClaudeAgentOptions`, to find settings files that wire arcguard too (raises DoubleWiring).
    Give the CLI `cli_environment(settings)` in `ClaudeAgentOptions(env=...)` as well, or use
    `options`, which does both.
    """
    guard = _guard(settings, environ)
    refuse_double_wiring(cwd, setting_sources, guard.environ)
    return _typed(guard.matchers())


def options(
    base: ClaudeAgentOptions | None = None,
    settings: Mapping[str, Setting] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> ClaudeAgentOptions:
    """`base` (default: `ClaudeAgentOptions()`) with arcguard's hooks added after its own and
    the CLI's environment pointed at arcguard's state directory and config, so that commands
    the model runs (`arcguard arc complete`) find the session. Raises DoubleWiring when the
    settings files `base` loads wire arcguard's hooks too."""
    from claude_agent_sdk import ClaudeAgentOptions

    base = base or ClaudeAgentOptions()
    given = dict(os.environ if environ is None else environ)
    guard = _guard(settings, {**given, **base.env})
    refuse_double_wiring(base.cwd, base.setting_sources, guard.environ)
    merged: dict[str, list[HookMatcher]] = {str(k): v for k, v in (base.hooks or {}).items()}
    for event, matchers in guard.matchers().items():
        merged[event] = [*merged.get(event, []), *matchers]
    env = {**base.env, **cli_environment(guard)}
    return dataclasses.replace(base, hooks=_typed(merged), env=env)


def cli_environment(
    guard_or_settings: Guard | Mapping[str, Setting] | None = None,
) -> dict[str, str]:
    """The environment entries the CLI needs so that arcguard commands run inside the
    session use the same state directory and config as the hooks."""
    from arcguard.sdk.guard import Guard

    guard = (
        guard_or_settings
        if isinstance(guard_or_settings, Guard)
        else _guard(guard_or_settings, None)
    )
    found = {name: value for name, value in guard.environ.items() if name.startswith("ARCGUARD_")}
    found["ARCGUARD_HOME"] = guard.home
    return found


def _typed(matchers: dict[str, list[HookMatcher]]) -> dict[HookEvent, list[HookMatcher]]:
    # PostToolBatch and StopFailure reach callbacks although the SDK's `HookEvent` omits them.
    return cast("dict[HookEvent, list[HookMatcher]]", matchers)


def _guard(settings: Mapping[str, Setting] | None, environ: Mapping[str, str] | None) -> Guard:
    from arcguard.sdk.guard import Guard
    from arcguard.sdk.settings import with_settings

    return Guard.start(with_settings(os.environ if environ is None else environ, settings))
