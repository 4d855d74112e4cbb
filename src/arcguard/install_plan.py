"""Which hook entries of Claude Code settings are arcguard's, and how to merge or remove them.

Pure: a settings dict in, a new dict out, so the rules can be tested exhaustively.

An entry is arcguard's when its command runs arcguard's hook subcommand: the command ends in
`hook <name>` (a name of `arcguard.hooks.HOOKS`), run by an executable named `arcguard` or by
`<python> -m arcguard`. No marker key is added to the entry: the command itself is the marker,
so a file stays valid for any Claude Code version, and a hand-written `arcguard hook stop` is
recognised (and replaced) as well.
"""

from __future__ import annotations

import copy
import os
import shlex

from arcguard.hooks import EVENTS
from arcguard.hooks import HOOKS


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    Settings = dict[str, Any]

HOOK_TIMEOUT = 10
# Tool events take a matcher; "*" matches every tool. The other events ignore matchers.
MATCHER_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})


class SettingsError(Exception):
    """A settings file arcguard must not touch (unreadable, not JSON, unexpected shape)."""


# --- which entries are ours (pure) ---------------------------------------------------------


def _tokens(handler: object) -> list[str] | None:
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return None
    command = handler.get("command")
    if not isinstance(command, str):
        return None
    try:
        tokens = shlex.split(command)
    except ValueError:
        return None
    args = handler.get("args")
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        tokens += args  # the exec form: {"command": "arcguard", "args": ["hook", "stop"]}
    return tokens


def _is_assignment(token: str) -> bool:
    name, equals, _ = token.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _without_assignments(words: list[str]) -> list[str]:
    """The words after any leading `VAR=value` settings."""
    start = 0
    while start < len(words) and _is_assignment(words[start]):
        start += 1
    return words[start:]


def _runs_arcguard(launcher: list[str]) -> bool:
    """`[VAR=value ...] .../arcguard` or `[VAR=value ...] .../python* [-opts] -m arcguard`."""
    words = _without_assignments(launcher)
    if len(words) == 1:
        return os.path.basename(words[0]) == "arcguard"
    if words[-1:] == ["-marcguard"]:
        words[-1:] = ["-m", "arcguard"]
    if len(words) < 3 or words[-2:] != ["-m", "arcguard"]:
        return False
    interpreter, options = words[0], words[1:-2]
    return (os.path.basename(interpreter).startswith("python")
            and all(o.startswith("-") for o in options))


def hook_name(handler: object) -> str | None:
    """The arcguard hook `handler` runs (`stop`, `pre-tool`, ...), or None if it is not ours."""
    tokens = _tokens(handler)
    if not tokens or len(tokens) < 3 or tokens[-2] != "hook" or tokens[-1] not in HOOKS:
        return None
    return tokens[-1] if _runs_arcguard(tokens[:-2]) else None


def is_ours(handler: object) -> bool:
    return hook_name(handler) is not None


def launcher(handler: object) -> list[str]:
    """The tokens that start arcguard in one of our handlers (before `hook NAME`)."""
    tokens = _tokens(handler) or []
    return tokens[:-2] if is_ours(handler) else []


def program(handler: object) -> str | None:
    """The executable one of our handlers starts (after any `VAR=value` settings), else None."""
    words = _without_assignments(launcher(handler))
    return words[0] if words else None


# --- what install writes (pure) ------------------------------------------------------------


def hook_command(prefix: str, name: str) -> str:
    return f"{prefix} hook {name}"


def desired_group(event: str, prefix: str) -> dict[str, Any]:
    """The matcher group install writes for `event`, with commands starting with `prefix`."""
    handler = {"type": "command", "command": hook_command(prefix, EVENTS[event]),
               "timeout": HOOK_TIMEOUT}
    if event in MATCHER_EVENTS:
        return {"matcher": "*", "hooks": [handler]}
    return {"hooks": [handler]}


def desired_hooks(prefix: str) -> dict[str, list[dict[str, Any]]]:
    """Every event arcguard needs, as the `hooks` block of a settings file."""
    return {event: [desired_group(event, prefix)] for event in EVENTS}


def _hooks_block(settings: Mapping[str, Any]) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" is not a JSON object')
    return hooks


def _groups(hooks: Mapping[str, Any], event: str) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise SettingsError(f'"hooks.{event}" is not a JSON array')
    return groups


def _without_ours(groups: list[Any]) -> tuple[list[Any], int | None]:
    """The groups with our handlers taken out (a group left empty goes), and where the first was."""
    kept: list[Any] = []
    first: int | None = None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(is_ours(h) for h in handlers):
            kept.append(group)
            continue
        if first is None:
            first = len(kept)
        remaining = [h for h in handlers if not is_ours(h)]
        if remaining:
            kept.append({**group, "hooks": remaining})
    return kept, first


def plan_install(settings: Mapping[str, Any], prefix: str) -> Settings:
    """`settings` with arcguard's hooks wired exactly once per event, everything else as it was.

    An event that already holds exactly our entry is left alone, so a second run returns an
    equal dict. Otherwise our old entries (another path, a missing executable, duplicates) are
    taken out and the new group goes where the first of them was, or last.
    """
    new = copy.deepcopy(dict(settings))
    hooks = _hooks_block(new)
    for event in EVENTS:
        groups = _groups(hooks, event)
        want = desired_group(event, prefix)
        if sum(_count_ours(g) for g in groups) == 1 and want in groups:
            continue
        kept, first = _without_ours(groups)
        kept.insert(len(kept) if first is None else first, want)
        hooks[event] = kept
    new["hooks"] = hooks
    return new


def _count_ours(group: object) -> int:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return sum(1 for h in handlers if is_ours(h)) if isinstance(handlers, list) else 0


def remove_ours(settings: Mapping[str, Any]) -> Settings:
    """`settings` without arcguard's entries; an event (or `hooks`) left empty by that goes."""
    new = copy.deepcopy(dict(settings))
    if "hooks" not in new:
        return new
    hooks = _hooks_block(new)
    changed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list) or not any(_count_ours(g) for g in groups):
            continue
        changed = True
        kept, _ = _without_ours(groups)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if changed and not hooks:
        del new["hooks"]
    return new


def our_entries(settings: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(event, handler) for every arcguard handler in `settings`, in file order."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if is_ours(handler):
                    found.append((event, handler))
    return found


def own_prefix(executable: str) -> str:
    """The absolute command that starts this arcguard, for Claude Code to run as a hook.

    The interpreter arcguard is installed in, with `-m arcguard` (pre-commit records its
    interpreter the same way): it runs whatever PATH Claude Code has, and it starts faster than
    the console script pip generates, whose first act is `import re` (measured by
    `benchmarks/bench_hooks.py`). The path is made absolute but not resolved, so a virtualenv's
    `bin/python` link keeps pointing into that environment.
    """
    return f"{shlex.quote(os.path.abspath(executable))} -m arcguard"
