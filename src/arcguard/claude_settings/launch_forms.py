"""The command forms arcguard's hook entries take, as install writes them (pure).

The long form runs a one-line launch code naming the folder that holds the package
(`own_prefix`); the short form runs a fixed stub and a launcher file in arcguard's state
directory (`short_prefix`, `launcher_text`). `merge_plan` recognises both, character for
character, as arcguard's own; `meant_as_hook` tells a command that was written to start one
of arcguard's hooks without being one of these forms.
"""

from __future__ import annotations

import json
import os
import re
import shlex

from arcguard import hook_image
from arcguard.hooks import HOOKS
from arcguard.image_loader import READ_FIRST
from arcguard.image_loader import TAG


# Characters a shell would act on. A command holding any of them could do more than start
# arcguard when Claude Code runs it through its shell, so it is never taken for ours.
SHELL_SPECIAL = frozenset("$`;&|<>(){}*?[]~!#\\\n\r\t\"'")
PYTHON_NAME = re.compile(r"python(?:3(?:\.\d+)?)?")


def hook_command(prefix: str, name: str) -> str:
    return f"{prefix} hook {name}"


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


def launch_usable(executable: str, location: str) -> bool:
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
    if location is not None and launch_usable(executable, os.path.abspath(location)):
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
# The state directory may sit under a folder others can write (ARCGUARD_HOME under /tmp), where
# someone else could put a `hook.py` of theirs after it was cleaned: the stub runs the file only
# when it (as opened) and its folder belong to this user and nobody else can write them, and
# otherwise says so on stderr and exits 0 (no decision).
LAUNCH_STUB = (
    'import os,sys;f=sys.argv.pop(1);h=os.path.isfile(f)and open(f);h and(print("arcguard: '
    'unsafe, not run:",f,file=sys.stderr)if any(s.st_uid!=os.getuid()or s.st_mode&0o22 for s '
    "in map(os.stat,(h.fileno(),os.path.dirname(f))))else exec(h.read()))"
)
# The stub of earlier releases, without that check: still arcguard's (install replaces it,
# uninstall removes it), and doctor asks for a new install where it finds it.
UNCHECKED_STUB = "import os,sys;os.path.isfile(f:=sys.argv.pop(1))and exec(open(f).read())"
STUBS = (LAUNCH_STUB, UNCHECKED_STUB)
LAUNCHER_NAME = hook_image.LAUNCHER_NAME


def launcher_text(location: str, image: str | None = None) -> str:
    """The launcher file for the package in folder `location`: the one-liner's code, and a
    missing package is one line on stderr and exit 0 instead of a traceback. Given `image`
    (install names the file beside the launcher), the modules come from that code image where
    it can be trusted (`image_text`). The process ends through `arcguard.main.leave`, without
    the interpreter's teardown (through `sys.exit` where the package is older than this
    launcher)."""
    return (
        "# arcguard's hook launcher, written by `arcguard install` (each install rewrites it).\n"
        "# Settings entries run it as: <python> -I -S -c <stub> <this file> hook <name>.\n"
        f"d = {json.dumps(location)}\n"
        "if not os.path.isdir(os.path.join(d, 'arcguard')):\n"
        "    __import__('site').main()\n"
        "sys.path.append(d)\n"
        f"{'' if image is None else image_text(image)}"
        "try:\n"
        "    from arcguard.main import main\n"
        "except ImportError as exc:\n"
        "    sys.stderr.write(f'arcguard: not installed any more ({exc}); hook skipped\\n')\n"
        "    sys.exit(0)\n"
        "getattr(sys.modules['arcguard.main'], 'leave', sys.exit)(main())\n"
    )


def image_text(image: str) -> str:
    """The launcher's lines that hand the code image at `image` to the loader it carries
    (`arcguard.image_loader`), once the file is this user's alone and was made by this Python
    (code marshalled by another could crash it); whatever fails, modules import as usual.
    It reads the file's start alone, and leaves it open: the loader reads from it the code of
    each module a hook imports. Kept short: the launcher is compiled anew by every hook run."""
    return (
        f"i = {json.dumps(image)}\n"
        "try:\n"
        "    from _frozen_importlib_external import MAGIC_NUMBER\n"
        "    f = os.open(i, os.O_RDONLY)\n"
        f"    s, b = os.fstat(f), os.pread(f, {READ_FIRST}, 0)\n"
        f"    h = len(t := {TAG!r} + MAGIC_NUMBER)\n"
        "    if b[:h] == t and s.st_uid == os.getuid() and not s.st_mode & 0o22:\n"
        "        n = h + 4 + int.from_bytes(b[h : h + 4], 'little')\n"
        "        g = {'__name__': 'arcguard.image_loader'}\n"
        "        exec(__import__('marshal').loads(b[h + 4 : n]), g)\n"
        "        g['serve'](i, b, d, f)\n"
        "except Exception:\n"
        "    pass\n"
    )


def short_prefix(
    executable: str, launcher_file: str, stub: str = LAUNCH_STUB
) -> tuple[str, ...] | None:
    """The exec-form words that run `launcher_file` with `executable`, or None where a path
    holds characters an exact invocation may not (then the one-liner is written)."""
    executable = os.path.abspath(executable)
    if not (launch_usable(executable, launcher_file) and _is_launcher_file(launcher_file)):
        return None
    return (executable, *LAUNCH_OPTIONS, "-c", stub, launcher_file)


def _is_launcher_file(path: str) -> bool:
    return os.path.basename(path) == LAUNCHER_NAME and os.path.isabs(path)


def is_long_form(handler: object, tokens: list[str]) -> bool:
    """The command is, character for character, what `own_prefix` writes for some interpreter
    and package folder: then its one quoted word is our own code, which no shell alters."""
    if len(tokens) != 7 or tokens[1:4] != [*LAUNCH_OPTIONS, "-c"] or tokens[5] != "hook":
        return False
    location = launch_location(tokens[4])
    if location is None or not launch_usable(tokens[0], location):
        return False
    command = handler.get("command") if isinstance(handler, dict) else None
    return command == hook_command(own_prefix(tokens[0], location), tokens[6])


def is_short_form(handler: object, tokens: list[str]) -> bool:
    """The short form, exactly as install writes it, as exec form or as one shell line."""
    if len(tokens) != 8 or tokens[1:4] != [*LAUNCH_OPTIONS, "-c"] or tokens[4] not in STUBS:
        return False
    if tokens[6] != "hook" or tokens[7] not in HOOKS or not isinstance(handler, dict):
        return False
    if short_prefix(tokens[0], tokens[5], tokens[4]) != tuple(tokens[:6]):
        return False
    command, args = handler.get("command"), handler.get("args")
    if args is None:
        return command == shlex.join(tokens)
    return command == tokens[0] and args == tokens[1:]


# --- a command written to start arcguard's hook, but not in a form arcguard writes (pure) --

# Words as a reader sees them: split at blanks, quotes and shell syntax, so `X=1 arcguard hook
# stop`, `sh -c 'arcguard hook stop'` or launch code quoted otherwise still show theirs.
_LOOSE_WORDS = re.compile(r"[\s\"'`$;&|<>(){}]+")


def _hook_follows(word: str, rest: list[str]) -> bool:
    """`word` starts arcguard and `rest` then runs its `hook` verb: after its program (by any
    path) or module (`-m arcguard`, `-marcguard`) and their options, or after launch code
    (`from arcguard.main import main`) wherever it ends."""
    if word == "arcguard.main":
        return "hook" in rest
    if os.path.basename(word) not in ("arcguard", "-marcguard"):
        return False  # a path that merely passes through a folder named arcguard
    return next((w for w in rest if not w.startswith("-")), None) == "hook"


def meant_as_hook(words: list[str]) -> bool:
    """The command and arguments `words` start arcguard's `hook` verb, whatever else they do:
    written to run one of arcguard's hooks. Only what runs counts: a folder named arcguard in
    a path (`/src/arcguard/tools/notify.sh`, `cd ~/arcguard && make hook`) does not."""
    text = " ".join(words)
    for stub in STUBS:  # the short form's stub is ours alone, whatever runs beside it
        if stub in text:
            return "hook" in _LOOSE_WORDS.split(text.partition(stub)[2])
    loose = [w for w in _LOOSE_WORDS.split(text) if w]
    return any(_hook_follows(w, loose[i + 1 :]) for i, w in enumerate(loose))
