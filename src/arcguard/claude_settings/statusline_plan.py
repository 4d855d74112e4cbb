"""Claude Code's `statusLine` setting: when it is arcguard's, and what `install --statusline`
writes. Pure: a settings dict in, a new dict out.

A settings file has one status line. arcguard sets it only when none is set (or with --force):
a status line the user chose stays theirs, and can show arcguard's segment by passing its own
payload on to `arcguard statusline` (see the README).
"""

from __future__ import annotations

import copy
import shlex
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping

    from arcguard.claude_settings.hook_table import Settings
    from arcguard.jsonio import JSONObject

KEY = "statusLine"
SET, KEPT, CURRENT, REPLACED = "set", "kept", "current", "replaced"


def desired(prefix: str) -> JSONObject:
    return {"type": "command", "command": f"{prefix} statusline", "padding": 0}


def is_ours(entry: object) -> bool:
    """The status line runs `arcguard statusline` (any launcher arcguard's hooks would use)."""
    from arcguard.claude_settings import merge_plan

    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    try:
        words = shlex.split(entry["command"])
    except ValueError:
        return False
    # Reuse the hook recogniser: `<launcher> statusline` is ours when `<launcher> hook stop` is.
    probe = shlex.join([*words[:-1], "hook", "stop"])
    return words[-1:] == ["statusline"] and merge_plan.is_ours({"command": probe})


def plan(settings: Mapping[str, object], prefix: str, *, force: bool) -> tuple[Settings, str]:
    """(new settings, what happened: SET, CURRENT, REPLACED or KEPT)."""
    new = copy.deepcopy(dict(settings))
    current = new.get(KEY)
    want = desired(prefix)
    if current == want:
        return new, CURRENT
    if current is None or is_ours(current):
        new[KEY] = want
        return new, SET
    if force:
        new[KEY] = want
        return new, REPLACED
    return new, KEPT


def remove(settings: Mapping[str, object], theirs: object = None) -> Settings:
    """`settings` without arcguard's status line (someone else's stays); `theirs`, the line
    `--force` replaced, takes its place again when given."""
    new = copy.deepcopy(dict(settings))
    if is_ours(new.get(KEY)):
        if theirs is None:
            del new[KEY]
        else:
            new[KEY] = copy.deepcopy(theirs)
    return new
