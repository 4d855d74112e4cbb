"""Which Claude Code release knows what arcguard relies on: one table, and questions about it.

Pure. Claude Code rejects a whole settings file that names a hook event the running release
does not know (in `-p` mode without a word): none of its hooks fire and none of its other
settings, permission rules included, apply. So arcguard writes only events the installed
release knows, and doctor checks every file against the same table.
"""

from __future__ import annotations


Version = tuple[int, int, int]

# Event -> the first Claude Code release that accepts it in a settings file; None: every
# release arcguard supports. The one place to change when a measurement moves a boundary.
EVENT_SINCE: dict[str, Version | None] = {
    "UserPromptSubmit": None,
    "Stop": None,
    "PreToolUse": None,
    "PostToolUse": None,
    "PostToolUseFailure": None,
    "PostToolBatch": (2, 1, 118),
    "SessionStart": None,
    "StopFailure": None,
}

# What runs degraded on a release without an event.
EVENT_FEATURES: dict[str, str] = {
    "PostToolBatch": "loop guard in fallback mode: without PostToolBatch a turn closes at the "
    "next call or the Stop, so a pause denies every call but cannot end the "
    "session at once",
}

# In `-p` mode, releases before this one reject a prompt naming a slash command that does not
# exist (`Unknown command: /autonomous`); from this one on the prompt reaches the model. Bisected
# with tests/e2e/claude_versions.py.
ACCEPTS_UNKNOWN_COMMAND: Version = (2, 1, 274)


# From this release on a Stop hook's `additionalContext` keeps the session going for one turn,
# like `decision: block`, but the user sees "Stop hook says: ..." instead of an error label,
# and the model gets the text as a reminder instead of a "blocking error" that quotes the
# hook's whole command line. Bisected with tests/e2e/claude_versions.py.
STOP_CONTEXT_SINCE: Version = (2, 1, 163)
# From this release on Claude Code overrides a Stop hook after CLAUDE_CODE_STOP_HOOK_BLOCK_CAP
# (default 8) consecutive blocks and ends the turn as if it had completed. Bisected the same way.
STOP_CAP_SINCE: Version = (2, 1, 143)


def parse(text: str) -> Version | None:
    """The first `X.Y.Z` in `text` (`claude --version` prints `2.1.328 (Claude Code)`)."""
    import re  # here, not at the top: the Stop hook imports this module, and `re` is slow

    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def from_dotted(text: str) -> Version | None:
    """`X.Y.Z` exactly (how a transcript entry names its release, `2.1.328`), else None."""
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() and p.isascii() for p in parts):
        return None
    return int(parts[0]), int(parts[1]), int(parts[2])


def dotted(version: Version) -> str:
    return ".".join(map(str, version))


def knows(event: str, version: Version | None) -> bool:
    """Whether `version` accepts `event`; an unknown version knows only what all releases do.

    An event missing from the table is not arcguard's to judge, so it counts as known.
    """
    since = EVENT_SINCE.get(event)
    if since is None:
        return True
    return version is not None and version >= since


def unknown_to(version: Version | None, events: list[str]) -> list[str]:
    """The events of `events` that `version` does not know, in order, without repeats."""
    return [e for i, e in enumerate(events) if not knows(e, version) and e not in events[:i]]


def rejects_unknown_commands(version: Version | None) -> bool:
    return version is None or version < ACCEPTS_UNKNOWN_COMMAND


def continues_with_context(version: Version | None) -> bool:
    """A Stop hook on `version` can continue the session with `additionalContext`; an
    unknown version gets `decision: block`, which every release honours."""
    return version is not None and version >= STOP_CONTEXT_SINCE


def has_stop_cap(version: Version) -> bool:
    """`version` overrides a Stop hook after a run of consecutive blocks."""
    return version >= STOP_CAP_SINCE


# The first release that runs a command hook in the exec form (`command` a program, `args` its
# arguments, no shell). The changelog dates `args` to this release; measured: 2.1.78 does not
# run it, 2.1.328 and 2.1.332 do (tests/e2e/test_entry_forms_e2e.py).
EXEC_FORM_SINCE: Version = (2, 1, 139)


def runs_exec_form(version: Version | None) -> bool:
    """Whether `version` runs exec-form hooks; an unknown version gets the shell form, which
    every release runs."""
    return version is not None and version >= EXEC_FORM_SINCE
