"""Which hook entries of Claude Code settings are arcguard's, and how to merge or remove them.

Pure: a settings dict in, a new dict out, so the rules can be tested exhaustively.

An entry is arcguard's when its command is exactly an invocation of arcguard's hook
subcommand: `<arcguard> hook <name>`, `<python> -m arcguard hook <name>` (a name of
`arcguard.hooks.HOOKS`), the short form `install` writes, `<python> -I -S -c <stub>
<launcher>/hook.py hook <name>` (exec form or one line, exactly as `launch_forms.short_prefix`
renders it), or the long form earlier versions wrote, `<python> -I -S -c '<launch code>' hook
<name>` exactly as `launch_forms.own_prefix` renders it, with nothing else on the line (see
`why_not_ours`).
No marker key is added to the entry: the command itself is the marker, so a file stays valid
for any Claude Code version, and a hand-written `arcguard hook stop` is recognised (and
replaced) as well. A command that starts arcguard's hook in any other words (`X=1 arcguard
hook stop`, `arcguard hook stop; other`) is the user's own: install leaves it in place and says
so; one that merely has arcguard in a path (`/src/arcguard/tools/notify.sh`) is not about
arcguard at all.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
from typing import TYPE_CHECKING

from arcguard.claude_settings.launch_forms import PYTHON_NAME
from arcguard.claude_settings.launch_forms import SHELL_SPECIAL
from arcguard.claude_settings.launch_forms import STUBS
from arcguard.claude_settings.launch_forms import hook_command
from arcguard.claude_settings.launch_forms import is_long_form
from arcguard.claude_settings.launch_forms import is_short_form
from arcguard.claude_settings.launch_forms import launch_location
from arcguard.claude_settings.launch_forms import meant_as_hook
from arcguard.core.loop_guard.opkey import EDIT_TOOLS
from arcguard.errors import ArcguardError
from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.hooks import HOOKS
from arcguard.hooks import RESIDENT_COMMANDS
from arcguard.resident.files import HOST
from arcguard.resident.files import SECRET_ENV
from arcguard.resident.files import SECRET_HEADER


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Mapping

    from arcguard.claude_settings.hook_table import Handler
    from arcguard.claude_settings.hook_table import HooksTable
    from arcguard.claude_settings.hook_table import MatcherGroup
    from arcguard.claude_settings.hook_table import Settings
    from arcguard.jsonio import JSONObject


HOOK_TIMEOUT = 10
# Tool events take a matcher; "*" matches every tool. The other events ignore matchers.
MATCHER_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
# A background handler may wait as long as `limit_wait_max_seconds` allows (at most a day);
# Claude Code would cancel it at its timeout, so the timeout covers the longest wait.
BACKGROUND_TIMEOUT = 86400 + 600
# Where PostToolBatch reports every call's result, PostToolUse is needed only for the
# structured response that proves an edit changed a file: one hook process fewer per call.
EDIT_TOOLS_MATCHER = "|".join(sorted(EDIT_TOOLS))


class SettingsError(ArcguardError):
    """A settings file arcguard must not touch (unreadable, not JSON, unexpected shape).

    `kind` says which, so advice can fit the cause: `permission`, `not-regular`, `too-large`,
    `invalid` (not standard JSON), `shape` (JSON arcguard does not understand) or `unreadable`.
    """

    def __init__(self, message: str, kind: str = "unreadable") -> None:
        super().__init__(message)  # the message tracebacks and `str()` show
        self.kind = kind


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


def _program_problem(program: str) -> str:
    if "/" in program and not program.startswith("/"):
        return f"relative program path {program!r} (depends on where Claude Code starts)"
    return ""


def _launcher_problem(words: list[str]) -> str:
    """Why `words` is not exactly `<arcguard>` or `<python> -m arcguard` ('' when it is)."""
    if not words:
        return "no program"
    name = os.path.basename(words[0])
    if len(words) == 1 and name == "arcguard":
        return _program_problem(words[0])
    if len(words) == 3 and words[1:] == ["-m", "arcguard"] and PYTHON_NAME.fullmatch(name):
        return _program_problem(words[0])
    if "=" in words[0]:
        return "sets environment variables before the program"
    return f"{shlex.join(words)!r} is not arcguard's launcher or `<python> -m arcguard`"


def why_not_ours(handler: object) -> str:
    """'' for an exact arcguard invocation, else why it is not one.

    Exact means: the parsed words are `<program> hook <name>` where the program is an absolute
    path or a bare name (found on PATH) of arcguard's launcher, or `<python> -m arcguard`, and
    no word holds anything a shell would act on. Only such a command can be run without a shell
    and still do what Claude Code's shell would do with it.
    """
    tokens = _tokens(handler)
    if tokens is None:
        return "not a command line that can be parsed"
    if is_long_form(handler, tokens) or is_short_form(handler, tokens):
        return ""
    if any(SHELL_SPECIAL.intersection(token) for token in tokens):
        return "holds shell syntax (variables, substitutions, redirects, separators or quotes)"
    if len(tokens) < 3 or tokens[-2] != "hook":
        return "does not end in `hook <name>`"
    if tokens[-1] not in HOOKS:
        return f"unknown hook {tokens[-1]!r}"
    return _launcher_problem(tokens[:-2])


def hook_name(handler: object) -> str | None:
    """The arcguard hook `handler` runs (`stop`, `pre-tool`, ...), or None if it is not ours."""
    if why_not_ours(handler):
        return None
    tokens = _tokens(handler) or []
    return tokens[-1]


def is_ours(handler: object) -> bool:
    return hook_name(handler) is not None


def looks_like_ours(handler: object) -> bool:
    """A command handler written to start one of arcguard's hooks without being an exact
    invocation of it (`launch_forms.meant_as_hook`: by its words, not a mention of the name).

    install never replaces or removes such an entry (it may do something the user wants beyond
    starting arcguard); doctor reports it and does not run it.
    """
    if is_ours(handler) or not isinstance(handler, dict):
        return False
    args = handler.get("args")
    words = [str(handler.get("command", "")), *(args if isinstance(args, list) else [])]
    return meant_as_hook([str(word) for word in words])


def argv(handler: object) -> list[str]:
    """The words one of our handlers runs, program first; [] if it is not ours."""
    return (_tokens(handler) or []) if is_ours(handler) else []


def launcher(handler: object) -> list[str]:
    """The words that start arcguard in one of our handlers (before `hook NAME`)."""
    return argv(handler)[:-2]


def code_location(handler: object) -> str | None:
    """Where one of our fast-start commands takes arcguard's code from (the folder of the
    one-liner, the launcher file of the short form); None for other forms."""
    words = argv(handler)
    return launcher_file(handler) or (
        launch_location(words[4]) if len(words) == 7 and words[3] == "-c" else None
    )


def launcher_file(handler: object) -> str | None:
    """The launcher file one of our short-form handlers runs, else None."""
    words = argv(handler)
    return words[5] if len(words) == 8 and words[4] in STUBS else None


def shown(handler: object) -> str:
    """How doctor names the launcher of one of our handlers: the short form's interpreter and
    launcher file, without the fixed stub between them; other forms word for word."""
    words = launcher(handler)
    if len(words) == 6 and words[4] in STUBS:
        return shlex.join([words[0], words[5]])
    return shlex.join(words)


def program(handler: object) -> str | None:
    """The executable one of our handlers starts, else None."""
    words = argv(handler)
    return words[0] if words else None


# --- what install writes (pure) ------------------------------------------------------------


def _command_handler(prefix: str | tuple[str, ...], name: str, timeout: int) -> Handler:
    """The handler running hook `name` with the words of `prefix`: one shell line (a str) or
    the exec form (`command` and `args`)."""
    if isinstance(prefix, str):
        return {"type": "command", "command": hook_command(prefix, name), "timeout": timeout}
    args = [*prefix[1:], "hook", name]
    return {"type": "command", "command": prefix[0], "args": args, "timeout": timeout}


def matcher(event: str, *, batch: bool = True) -> str:
    """The tools `event` is wired for; `batch`: PostToolBatch is wired too.

    PostToolUseFailure stays on every tool: the batch reports a failure only as the text the
    model sees, without saying it failed or how long it ran (a timeout needs both).
    """
    return EDIT_TOOLS_MATCHER if event == "PostToolUse" and batch else "*"


def desired_group(
    event: str, prefix: str | tuple[str, ...], *, batch: bool = True, resident: int | None = None
) -> MatcherGroup:
    """The matcher group install writes for `event`, with commands starting with `prefix`;
    `batch`: PostToolBatch is wired as well (see `matcher`); `resident`: the resident
    server's port, for an http hook where Claude Code sends one."""
    handler: Handler
    if resident is not None and event not in RESIDENT_COMMANDS:
        handler = resident_handler(event, resident)
    else:
        name = RESIDENT_COMMANDS.get(event, EVENTS[event]) if resident else EVENTS[event]
        handler = _command_handler(prefix, name, HOOK_TIMEOUT)
    handlers = [handler, *background_handlers(event, prefix)]
    if event in MATCHER_EVENTS:
        return {"matcher": matcher(event, batch=batch), "hooks": handlers}
    return {"hooks": handlers}


def background_handlers(event: str, prefix: str | tuple[str, ...]) -> list[Handler]:
    """The extra handlers `event` runs in the background, woken by their exit 2."""
    return [
        {**_command_handler(prefix, name, BACKGROUND_TIMEOUT), "async": True, "asyncRewake": True}
        for name, wired_to in BACKGROUND.items()
        if wired_to == event
    ]


# --- resident mode: http hooks to the per-user loopback server (pure) --------------------

_RESIDENT_URL = re.compile(r"http://127\.0\.0\.1:(\d{4,5})/hook/([A-Za-z]+)")


def resident_url(event: str, port: int) -> str:
    return f"http://{HOST}:{port}/hook/{event}"


def resident_handler(event: str, port: int) -> Handler:
    """The http hook of `event`: the secret travels as a header Claude Code fills in from
    the environment, so the settings file names the variable, not the secret."""
    return {
        "type": "http",
        "url": resident_url(event, port),
        "headers": {SECRET_HEADER: f"${SECRET_ENV}"},
        "allowedEnvVars": [SECRET_ENV],
        "timeout": HOOK_TIMEOUT,
    }


def resident_port(handler: object) -> int | None:
    """The port of one of our resident http hooks, else None (a user's own http hook)."""
    if not isinstance(handler, dict) or handler.get("type") != "http":
        return None
    found = _RESIDENT_URL.fullmatch(str(handler.get("url", "")))
    if found is None or found[2] not in EVENTS:
        return None
    port = int(found[1])
    # `timeout` may be tuned by hand; the url, header and variable are what make it ours.
    ours: dict[str, object] = {**resident_handler(found[2], port)}
    ours.update((k, v) for k, v in handler.items() if k == "timeout")
    return port if handler == ours else None


def _is_ours_any(handler: object) -> bool:
    """Ours in either mode: an exact command invocation or one of our resident http hooks."""
    return is_ours(handler) or resident_port(handler) is not None


def with_secret(settings: Mapping[str, object], token: str | None) -> Settings:
    """`settings` with the resident secret in its `env` block (None: taken out)."""
    new = copy.deepcopy(dict(settings))
    env = new.get("env", {})
    if token is None and not isinstance(env, dict):
        return new  # no secret of ours can be in it; the user's file stays as it is
    if not isinstance(env, dict):
        raise SettingsError('"env" is not a JSON object', "shape")
    if token is None:
        if SECRET_ENV in env:
            env = {k: v for k, v in env.items() if k != SECRET_ENV}
            if env:
                new["env"] = env
            else:
                del new["env"]
        return new
    new["env"] = {**env, SECRET_ENV: token}
    return new


def desired_hooks(prefix: str | tuple[str, ...]) -> HooksTable:
    """Every event arcguard needs, as the `hooks` block of a settings file."""
    return {event: [desired_group(event, prefix)] for event in EVENTS}


def _hooks_block(settings: Mapping[str, object]) -> JSONObject:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" is not a JSON object', "shape")
    return hooks


def _groups(hooks: Mapping[str, object], event: str) -> list[object]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise SettingsError(f'"hooks.{event}" is not a JSON array', "shape")
    return groups


def _without_ours(groups: list[object]) -> tuple[list[object], int | None]:
    """The groups with our handlers taken out (a group left empty goes), and where the first was."""
    kept: list[object] = []
    first: int | None = None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        ours = isinstance(handlers, list) and any(_is_ours_any(h) for h in handlers)
        if not isinstance(group, dict) or not isinstance(handlers, list) or not ours:
            kept.append(group)
            continue
        if first is None:
            first = len(kept)
        remaining = [h for h in handlers if not _is_ours_any(h)]
        if remaining:
            kept.append({**group, "hooks": remaining})
    return kept, first


def plan_install(
    settings: Mapping[str, object],
    prefix: str | tuple[str, ...],
    events: Collection[str] | None = None,
    *,
    resident: tuple[int, str] | None = None,
) -> Settings:
    """`settings` with arcguard's hooks wired exactly once per event, everything else as it was.

    An event that already holds exactly our entry is left alone, so a second run returns an
    equal dict. Otherwise our old entries (another path, a missing executable, duplicates) are
    taken out and the new group goes where the first of them was, or last. Only `events` (all
    of arcguard's by default) are wired: our entries on any other event are taken out, since a
    Claude Code release that does not know an event rejects the whole file.

    `resident` (port, secret): wire resident mode instead, http hooks to the loopback server
    and the secret in `env`; without it, any resident wiring and its secret are replaced.
    """
    new = with_secret(settings, resident[1] if resident else None)
    hooks = _hooks_block(new)
    wanted = EVENTS if events is None else events
    # Without PostToolBatch, PostToolUse is what reports the outcome of every call.
    batch = "PostToolBatch" in wanted
    for event in [e for e in EVENTS if e not in wanted]:
        groups = _groups(hooks, event)
        if any(_count_ours(g) for g in groups):
            kept, _ = _without_ours(groups)
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    for event in [e for e in EVENTS if e in wanted]:
        groups = _groups(hooks, event)
        want = desired_group(event, prefix, batch=batch, resident=resident[0] if resident else None)
        if sum(_count_ours(g) for g in groups) == len(want["hooks"]) and want in groups:
            continue
        kept, first = _without_ours(groups)
        kept.insert(len(kept) if first is None else first, want)
        hooks[event] = kept
    new["hooks"] = hooks
    return new


def _count_ours(group: object) -> int:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return sum(1 for h in handlers if _is_ours_any(h)) if isinstance(handlers, list) else 0


def remove_ours(settings: Mapping[str, object]) -> Settings:
    """`settings` without arcguard's entries (and the resident secret); an event (or `hooks`)
    left empty by that goes."""
    new = with_secret(settings, None)
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


def all_entries(settings: Mapping[str, object]) -> list[tuple[str, JSONObject]]:
    """(event, handler) for every handler in `settings` that is a JSON object, in file order
    (anything else in a `hooks` array is nobody's entry: not ours, nor like ours)."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                if isinstance(handler, dict):
                    found.append((event, handler))
    return found


def our_entries(settings: Mapping[str, object]) -> list[tuple[str, JSONObject]]:
    """(event, handler) for every arcguard handler in `settings`, in file order."""
    return [(event, handler) for event, handler in all_entries(settings) if is_ours(handler)]


def lookalike_entries(settings: Mapping[str, object]) -> list[tuple[str, JSONObject]]:
    """(event, handler) for every handler that mentions arcguard but is not exactly ours."""
    return [
        (event, handler) for event, handler in all_entries(settings) if looks_like_ours(handler)
    ]
