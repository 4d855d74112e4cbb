"""Which hook entries of Claude Code settings are arcguard's, and how to merge or remove them.

Pure: a settings dict in, a new dict out, so the rules can be tested exhaustively.

An entry is arcguard's when its command is exactly an invocation of arcguard's hook
subcommand: `<arcguard> hook <name>`, `<python> -m arcguard hook <name>` (a name of
`arcguard.hooks.HOOKS`), the short form `install` writes, `<python> -I -S -c <stub>
<launcher>/hook.py hook <name>` (exec form or one line, exactly as `short_prefix` renders it),
or the long form earlier versions wrote, `<python> -I -S -c '<launch code>' hook <name>`
exactly as `own_prefix` renders it, with nothing else on the line (see `why_not_ours`).
No marker key is added to the entry: the command itself is the marker, so a file stays valid
for any Claude Code version, and a hand-written `arcguard hook stop` is recognised (and
replaced) as well. A command that only mentions arcguard (`X=1 arcguard hook stop`,
`arcguard hook stop; other`) is the user's own: install leaves it in place and says so.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
from typing import TYPE_CHECKING

from arcguard.core.loop_guard.opkey import EDIT_TOOLS
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
    from typing import Any

    Settings = dict[str, Any]

HOOK_TIMEOUT = 10
# Tool events take a matcher; "*" matches every tool. The other events ignore matchers.
MATCHER_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
# A background handler may wait as long as `limit_wait_max_seconds` allows (at most a day);
# Claude Code would cancel it at its timeout, so the timeout covers the longest wait.
BACKGROUND_TIMEOUT = 86400 + 600
# Where PostToolBatch reports every call's result, PostToolUse is needed only for the
# structured response that proves an edit changed a file: one hook process fewer per call.
EDIT_TOOLS_MATCHER = "|".join(sorted(EDIT_TOOLS))


class SettingsError(Exception):
    """A settings file arcguard must not touch (unreadable, not JSON, unexpected shape).

    `kind` says which, so advice can fit the cause: `permission`, `not-regular`, `too-large`,
    `invalid` (not standard JSON), `shape` (JSON arcguard does not understand) or `unreadable`.
    """

    def __init__(self, message: str, kind: str = "unreadable") -> None:
        super().__init__(message)
        self.kind = kind


# --- which entries are ours (pure) ---------------------------------------------------------

# Characters a shell would act on. A command holding any of them could do more than start
# arcguard when Claude Code runs it through its shell, so it is never taken for ours.
SHELL_SPECIAL = frozenset("$`;&|<>(){}*?[]~!#\\\n\r\t\"'")
PYTHON_NAME = re.compile(r"python(?:3(?:\.\d+)?)?")


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
    if _is_launch_command(handler, tokens) or _is_stub_command(handler, tokens):
        return ""
    if any(SHELL_SPECIAL.intersection(token) for token in tokens):
        return "holds shell syntax (variables, substitutions, redirects, separators or quotes)"
    if len(tokens) < 3 or tokens[-2] != "hook":
        return "does not end in `hook <name>`"
    if tokens[-1] not in HOOKS:
        return f"unknown hook {tokens[-1]!r}"
    return _launcher_problem(tokens[:-2])


def _is_launch_command(handler: object, tokens: list[str]) -> bool:
    """The command is, character for character, what `own_prefix` writes for some interpreter
    and package folder: then its one quoted word is our own code, which no shell alters."""
    if len(tokens) != 7 or tokens[1:4] != [*LAUNCH_OPTIONS, "-c"] or tokens[5] != "hook":
        return False
    location = launch_location(tokens[4])
    if location is None or not _launch_usable(tokens[0], location):
        return False
    command = handler.get("command") if isinstance(handler, dict) else None
    return command == hook_command(own_prefix(tokens[0], location), tokens[6])


def hook_name(handler: object) -> str | None:
    """The arcguard hook `handler` runs (`stop`, `pre-tool`, ...), or None if it is not ours."""
    if why_not_ours(handler):
        return None
    tokens = _tokens(handler) or []
    return tokens[-1]


def is_ours(handler: object) -> bool:
    return hook_name(handler) is not None


def looks_like_ours(handler: object) -> bool:
    """A command handler that mentions arcguard without being an exact invocation of it.

    install never replaces or removes such an entry (it may do something the user wants beyond
    starting arcguard); doctor reports it and does not run it.
    """
    if is_ours(handler) or not isinstance(handler, dict):
        return False
    text = " ".join(str(handler.get(key, "")) for key in ("command", "args"))
    return "arcguard" in text


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
    return words[5] if len(words) == 8 and words[4] == LAUNCH_STUB else None


def shown(handler: object) -> str:
    """How doctor names the launcher of one of our handlers: the short form's interpreter and
    launcher file, without the fixed stub between them; other forms word for word."""
    words = launcher(handler)
    if len(words) == 6 and words[4] == LAUNCH_STUB:
        return shlex.join([words[0], words[5]])
    return shlex.join(words)


def program(handler: object) -> str | None:
    """The executable one of our handlers starts, else None."""
    words = argv(handler)
    return words[0] if words else None


# --- what install writes (pure) ------------------------------------------------------------


def hook_command(prefix: str, name: str) -> str:
    return f"{prefix} hook {name}"


def hook_fields(prefix: str | tuple[str, ...], name: str) -> dict[str, Any]:
    """`command` (and, in the exec form, `args`) of the handler running hook `name`."""
    if isinstance(prefix, str):
        return {"command": hook_command(prefix, name)}
    return {"command": prefix[0], "args": [*prefix[1:], "hook", name]}


def matcher(event: str, *, batch: bool = True) -> str:
    """The tools `event` is wired for; `batch`: PostToolBatch is wired too.

    PostToolUseFailure stays on every tool: the batch reports a failure only as the text the
    model sees, without saying it failed or how long it ran (a timeout needs both).
    """
    return EDIT_TOOLS_MATCHER if event == "PostToolUse" and batch else "*"


def desired_group(
    event: str, prefix: str | tuple[str, ...], *, batch: bool = True, resident: int | None = None
) -> dict[str, Any]:
    """The matcher group install writes for `event`, with commands starting with `prefix`;
    `batch`: PostToolBatch is wired as well (see `matcher`); `resident`: the resident
    server's port, for an http hook where Claude Code sends one."""
    handler: dict[str, Any]
    if resident is not None and event not in RESIDENT_COMMANDS:
        handler = resident_handler(event, resident)
    else:
        name = RESIDENT_COMMANDS.get(event, EVENTS[event]) if resident else EVENTS[event]
        handler = {"type": "command", **hook_fields(prefix, name), "timeout": HOOK_TIMEOUT}
    handlers = [handler, *background_handlers(event, prefix)]
    if event in MATCHER_EVENTS:
        return {"matcher": matcher(event, batch=batch), "hooks": handlers}
    return {"hooks": handlers}


def background_handlers(event: str, prefix: str | tuple[str, ...]) -> list[dict[str, Any]]:
    """The extra handlers `event` runs in the background, woken by their exit 2."""
    return [
        {
            "type": "command",
            **hook_fields(prefix, name),
            "timeout": BACKGROUND_TIMEOUT,
            "async": True,
            "asyncRewake": True,
        }
        for name, wired_to in BACKGROUND.items()
        if wired_to == event
    ]


# --- resident mode: http hooks to the per-user loopback server (pure) --------------------

RESIDENT_HOST = HOST
_RESIDENT_URL = re.compile(r"http://127\.0\.0\.1:(\d{4,5})/hook/([A-Za-z]+)")


def resident_url(event: str, port: int) -> str:
    return f"http://{RESIDENT_HOST}:{port}/hook/{event}"


def resident_handler(event: str, port: int) -> dict[str, Any]:
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
    return port if handler == {**resident_handler(found[2], port), **_extra(handler)} else None


def _extra(handler: dict[str, Any]) -> dict[str, Any]:
    # `timeout` may be tuned by hand; the url, header and variable are what make it ours.
    return {k: v for k, v in handler.items() if k == "timeout"}


def is_resident(handler: object) -> bool:
    return resident_port(handler) is not None


def _is_ours_any(handler: object) -> bool:
    """Ours in either mode: an exact command invocation or one of our resident http hooks."""
    return is_ours(handler) or is_resident(handler)


def with_secret(settings: Mapping[str, Any], token: str | None) -> Settings:
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


def desired_hooks(prefix: str | tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    """Every event arcguard needs, as the `hooks` block of a settings file."""
    return {event: [desired_group(event, prefix)] for event in EVENTS}


def _hooks_block(settings: Mapping[str, Any]) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError('"hooks" is not a JSON object', "shape")
    return hooks


def _groups(hooks: Mapping[str, Any], event: str) -> list[Any]:
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise SettingsError(f'"hooks.{event}" is not a JSON array', "shape")
    return groups


def _without_ours(groups: list[Any]) -> tuple[list[Any], int | None]:
    """The groups with our handlers taken out (a group left empty goes), and where the first was."""
    kept: list[Any] = []
    first: int | None = None
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(handlers, list) or not any(_is_ours_any(h) for h in handlers):
            kept.append(group)
            continue
        if first is None:
            first = len(kept)
        remaining = [h for h in handlers if not _is_ours_any(h)]
        if remaining:
            kept.append({**group, "hooks": remaining})
    return kept, first


def plan_install(
    settings: Mapping[str, Any],
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


def remove_ours(settings: Mapping[str, Any]) -> Settings:
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


def all_entries(settings: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """(event, handler) for every handler in `settings`, in file order."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    found = []
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            found += [(event, h) for h in (handlers if isinstance(handlers, list) else [])]
    return found


def our_entries(settings: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(event, handler) for every arcguard handler in `settings`, in file order."""
    return [(event, handler) for event, handler in all_entries(settings) if is_ours(handler)]


def lookalike_entries(settings: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(event, handler) for every handler that mentions arcguard but is not exactly ours."""
    return [
        (event, handler) for event, handler in all_entries(settings) if looks_like_ours(handler)
    ]


# The code of the installed command, around the folder that holds the `arcguard` package (a
# JSON string, which is also a Python literal). Claude Code starts a hook process three times
# per tool call, so the interpreter starts isolated and without `site` (-I -S): no .pth files,
# no user site, no PYTHON* variables, a shorter start. The folder is appended after the
# standard library, where `site` would put it. Should it no longer hold the package (the
# environment rebuilt for another Python), `site` runs after all and finds the package among
# the interpreter's own; the hook path needs nothing outside the standard library.
_LAUNCH_HEAD = "import sys,os;d="
_LAUNCH_TAIL = (
    ';os.path.isdir(os.path.join(d,"arcguard")) or __import__("site").main();'
    "sys.path.append(d);from arcguard.main import main;sys.exit(main())"
)
LAUNCH_OPTIONS = ("-I", "-S")


def launch_code(location: str) -> str:
    """The `-c` code that runs arcguard from the package in folder `location`."""
    return _LAUNCH_HEAD + json.dumps(location) + _LAUNCH_TAIL


def launch_location(code: str) -> str | None:
    """The folder `launch_code` was given, or None if `code` is not exactly launch code."""
    if not (code.startswith(_LAUNCH_HEAD) and code.endswith(_LAUNCH_TAIL)):
        return None
    try:
        location = json.loads(code[len(_LAUNCH_HEAD) : len(code) - len(_LAUNCH_TAIL)])
    except ValueError:
        return None
    if not isinstance(location, str) or launch_code(location) != code:
        return None
    return location


def _launch_usable(executable: str, location: str) -> bool:
    # The same limits as any exact invocation: absolute paths with nothing a shell acts on.
    return (
        all(os.path.isabs(p) and not SHELL_SPECIAL.intersection(p) for p in (executable, location))
        and PYTHON_NAME.fullmatch(os.path.basename(executable)) is not None
    )


def own_prefix(executable: str, location: str | None = None) -> str:
    """The absolute command that starts this arcguard, for Claude Code to run as a hook.

    The interpreter arcguard is installed in, so it runs whatever PATH Claude Code has (made
    absolute but not resolved, so a virtualenv's `bin/python` link keeps pointing into that
    environment). Given `location`, the folder holding the installed package (site-packages of
    a virtualenv, pipx or uv tool environment, the user site, or the source folder of an
    editable install; upgrading the package in place keeps it), the interpreter runs
    `launch_code`; without it, or where a path holds characters an exact invocation may not,
    `-m arcguard` (slower: it starts the site machinery).
    """
    executable = os.path.abspath(executable)
    if location is not None and _launch_usable(executable, os.path.abspath(location)):
        code = launch_code(os.path.abspath(location))
        return shlex.join([executable, *LAUNCH_OPTIONS, "-c", code])
    return f"{shlex.quote(executable)} -m arcguard"


# --- the short form: a fixed stub and a launcher file (pure) ------------------------------

# The one-liner above names the package folder inside its code, about 300 characters per
# entry. The short form keeps its start-up (-I -S) and moves that code into a launcher file
# install writes into arcguard's state directory; the entry holds a fixed stub that runs the
# file when it is there and does nothing (exit 0) when it is not, where running the file
# directly would exit 2, which Claude Code reads as "block". Releases with the exec form get
# the words as `command` and `args`; older ones the same words as one shell line.
LAUNCH_STUB = "import os,sys;os.path.isfile(f:=sys.argv.pop(1))and exec(open(f).read())"
LAUNCHER_NAME = "hook.py"


def launcher_text(location: str) -> str:
    """The launcher file for the package in folder `location`: the one-liner's code, and a
    missing package is one line on stderr and exit 0 instead of a traceback."""
    return (
        "# arcguard's hook launcher, written by `arcguard install` (each install rewrites it).\n"
        "# Settings entries run it as: <python> -I -S -c <stub> <this file> hook <name>.\n"
        f"d = {json.dumps(location)}\n"
        "if not os.path.isdir(os.path.join(d, 'arcguard')):\n"
        "    __import__('site').main()\n"
        "sys.path.append(d)\n"
        "try:\n"
        "    from arcguard.main import main\n"
        "except ImportError as exc:\n"
        "    sys.stderr.write(f'arcguard: not installed any more ({exc}); hook skipped\\n')\n"
        "    sys.exit(0)\n"
        "sys.exit(main())\n"
    )


def short_prefix(executable: str, launcher_file: str) -> tuple[str, ...] | None:
    """The exec-form words that run `launcher_file` with `executable`, or None where a path
    holds characters an exact invocation may not (then the one-liner is written)."""
    executable = os.path.abspath(executable)
    if not (_launch_usable(executable, launcher_file) and _is_launcher_file(launcher_file)):
        return None
    return (executable, *LAUNCH_OPTIONS, "-c", LAUNCH_STUB, launcher_file)


def _is_launcher_file(path: str) -> bool:
    return os.path.basename(path) == LAUNCHER_NAME and os.path.isabs(path)


def _is_stub_command(handler: object, tokens: list[str]) -> bool:
    """The short form, exactly as install writes it, as exec form or as one shell line."""
    if len(tokens) != 8 or tokens[1:5] != [*LAUNCH_OPTIONS, "-c", LAUNCH_STUB]:
        return False
    if tokens[6] != "hook" or tokens[7] not in HOOKS or not isinstance(handler, dict):
        return False
    if short_prefix(tokens[0], tokens[5]) != tuple(tokens[:6]):
        return False
    command, args = handler.get("command"), handler.get("args")
    if args is None:
        return command == shlex.join(tokens)
    return command == tokens[0] and args == tokens[1:]
