"""What `arcguard install` writes and says, decided from what it read (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import releases as cv
from arcguard.hooks import EVENTS
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Collection
    from pathlib import Path

    from arcguard.claude_settings.hook_table import Settings
    from arcguard.claude_settings.releases import Version
    from arcguard.jsonio import JSONObject


def known_events(version: Version | None, why: str) -> tuple[list[str], list[str]]:
    left_out = cv.unknown_to(version, list(EVENTS))
    events = [e for e in EVENTS if e not in left_out]
    if version is None:
        return events, [
            f"Claude Code's version is unknown ({why}): only the events every "
            f"supported release knows were written; {', '.join(left_out)} left "
            "out. Pass --claude-version, or run `arcguard install` again where "
            "`claude` is on PATH"
        ] if left_out else []
    return events, [
        f"{event} left out: Claude Code {cv.dotted(version)} does not know it; run "
        "`arcguard install` again after upgrading"
        for event in left_out
    ]


@value
class Wiring:
    """One merge of arcguard's hooks into a settings file, and what to say about it."""

    settings: Settings  # the file's new content
    lookalikes: tuple[tuple[str, JSONObject], ...]  # (event, handler) left alone: not exactly ours
    still: tuple[str, ...]  # events left out that an entry of the user's still names


def wire(
    settings: Settings,
    prefix: str | tuple[str, ...],
    events: Collection[str],
    served: tuple[int, str] | None,
) -> Wiring:
    """`settings` with arcguard's hooks for `events` (`served`: the resident port and secret)."""
    new = plan.plan_install(settings, prefix, events, resident=served)
    return Wiring(
        settings=new,
        lookalikes=tuple(plan.lookalike_entries(settings)),
        still=tuple(e for e in EVENTS if e not in events and e in _hooks(new)),
    )


def notices(path: Path, wiring: Wiring, notes: list[str]) -> list[str]:
    """The lines install prints after merging into the file at `path`: the entries it left
    alone, the events it left out (`notes`), and the events the file still names."""
    lines = [
        f"left as it is: {event} command {handler.get('command')!r} "
        f"({plan.why_not_ours(handler)}); it is not an exact arcguard invocation, so "
        "it is treated as your own: remove it by hand if it is an old copy"
        for event, handler in wiring.lookalikes
    ]
    return [
        *lines,
        *notes,
        *(
            f"warning: {path} still names {event} in an entry that is not arcguard's: "
            "a Claude Code release that does not know it ignores this whole file, your "
            "permission rules included"
            for event in wiring.still
        ),
    ]


def _hooks(settings: Settings) -> JSONObject:
    hooks = settings.get("hooks")
    return hooks if isinstance(hooks, dict) else {}
