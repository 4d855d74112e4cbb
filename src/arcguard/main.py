"""The console entry point: hooks take a fast path that never imports click."""

from __future__ import annotations

import sys


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


HELP = ("-h", "--help")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["hook"] and not any(arg in HELP for arg in args[1:]):
        if args[1:] != ["limit-wait"]:  # the one hook that lives for hours
            _without_cycle_collection()
        return _hook(args[1:])
    if args == ["statusline"]:
        _without_cycle_collection()
        if _unsupported():
            return 0  # an empty status line segment: nothing to show here
        return _status_line()
    _load_site()
    from arcguard.commands.group import run

    return run(args)


def leave(code: int) -> NoReturn:
    """End a hook process with `code` at once, skipping the interpreter's teardown.

    The hook launcher calls it with `main()`'s exit code. Tearing down the modules and every
    object a hook made is a sizeable part of a hook process's life, paid on each of the two or
    three hook processes of every tool call, and does nothing the hook needs: its output goes
    out with `os.write`, its files are closed when written, and the processes it starts (a
    notify helper, the resident server) are on their own. What is still buffered in sys.stdout
    or sys.stderr goes out first."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass  # closed or missing: nothing to lose
    os._exit(code)


def _without_cycle_collection() -> None:
    """A hook process lives for milliseconds and frees what it drops by reference counting;
    the cycle collector's passes over everything loaded so far (modules, the parsed state)
    cost it about a millisecond of start-up, and would free nothing worth keeping before exit."""
    import gc

    gc.disable()


def _load_site() -> None:
    """Put the interpreter's packages on sys.path if it started without `site`: the hook command
    install writes does (a hook needs only the standard library), but the verbs need click."""
    if "site" not in sys.modules:
        import site

        site.main()


def _status_line() -> int:
    """Claude Code runs it after every assistant message: the same fast path as a hook, and
    the same exit 0 whatever fails, loading it included."""
    try:
        from arcguard.hooks.statusline import main as status_line

        return status_line()
    except Exception:
        return 0


def _unsupported() -> str | None:
    """Why this system cannot run arcguard, or None. The common case costs no module of its
    own: fcntl is what the state lock imports anyway."""
    import os

    try:
        import fcntl  # noqa: F401
    except ImportError:
        pass
    else:
        if hasattr(os, "O_NOFOLLOW"):
            return None
    from arcguard.storage.support import unsupported

    return unsupported()


def _hook(rest: list[str]) -> int:
    """Run `arcguard hook ...`, whatever follows: Claude Code reads exit 2 as a block, so a
    malformed invocation or a failure to even load the runner still exits 0."""
    try:
        why = _unsupported()
        if why:
            # No state can be kept safely here: one line (Claude Code keeps a hook's stderr in
            # its debug log), no decision, and nothing written.
            sys.stderr.write(f"arcguard: hook not run: {why}\n")
            return 0
        from arcguard.hooks import HOOKS
        from arcguard.hooks.runner import main as run_hook
        from arcguard.hooks.runner import usage_error

        if rest == ["limit-wait"]:
            # It waits in the background and wakes the session with exit 2, so it runs
            # outside the ordinary hook runner.
            from arcguard.hooks.limit_wait import main as run_waiter

            return run_waiter()
        if len(rest) == 1 and rest[0] in HOOKS:
            done = run_hook(rest[0])
            if rest[0] == "session-start":
                _renew_image()
            return done
        usage_error(rest)
    except Exception as exc:
        try:
            sys.stderr.write(f"arcguard: hook not run: {type(exc).__name__}: {exc}\n")
        except (AttributeError, OSError, ValueError):
            pass  # no usable stderr; exit 0 all the same
    return 0


def _renew_image() -> None:
    """After the session-start hook has answered: a missing or stale code image of the hook
    path is made anew in the background (`hook_image.renew`); a failure is one log line."""
    import os

    from arcguard.storage import error_log
    from arcguard.storage import paths

    try:
        home = paths.state_dir(os.environ)
    except paths.UnusablePath:
        return
    try:
        from arcguard.hook_image import renew

        renew(home)
    except Exception as exc:
        error_log.log_line(home, "hook image", f"not renewed: {type(exc).__name__}: {exc}")
