"""Tell the user when arcguard stops a session: a terminal sequence, and `notify_command`.

`news` runs inside a hook's locked change: the terminal sequence goes into the hook's decisions
(Claude Code emits it on the terminal). `tell` runs after the change is saved and the lock
released, so only a decision that was kept is announced. The command runs detached, through
a small helper process (`arcguard.hooks.notify`, an isolated Python started in the state
directory, see `arcguard.child`), so the hook never waits for it: the helper gives the
command its JSON event on stdin, waits for it within a bound, and logs a failure. The command
is an argv run without a shell: nothing in an event can be read as shell syntax.
"""

from __future__ import annotations

import os
import sys

from arcguard.storage import error_log


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.notify import NotifyEvent
    from arcguard.core.render import Decisions
    from arcguard.core.state import State

# A notify command that has not finished by then is stopped and logged as failed.
COMMAND_TIMEOUT_S = 60.0
MAX_EVENT_BYTES = 64 * 1024


def news(
    home: str, cfg: Config, old: State | None, new: State | None, decided: Decisions | None
) -> tuple[Decisions | None, list[NotifyEvent]]:
    """`decided` with the terminal alert added when the change stopped the session, and the
    events `notify_command` is to hear of; `decided` as it was and no events otherwise.

    Nothing is started here: the change is not saved yet. `tell` starts the command once it
    is, so a failed write never announces a decision that did not happen. Never raises.
    """
    try:
        from arcguard.core import notify
        from arcguard.core import render

        found = notify.events(old, new)
        if not found:
            return decided, []
        events = list(found) if cfg.notify_command else []
        sequence = notify.terminal_sequence(found) if cfg.notify_terminal else None
        alert = (render.Alert(sequence),) if sequence else None
        return render.merge(decided, alert), events
    except Exception as exc:
        error_log.log_line(home, "notify", f"{type(exc).__name__}: {exc}")
        return decided, []


def tell(home: str, cfg: Config, events: list[NotifyEvent]) -> None:
    """Start `notify_command` for each event: call it after the state is saved and unlocked."""
    for event in events:
        spawn(home, list(cfg.notify_command), event)


def spawn(home: str, argv: list[str], event: NotifyEvent) -> None:
    """Start the helper that runs `argv` with `event`; it outlives the hook."""
    import subprocess

    from arcguard import child
    from arcguard import jsonio

    data = jsonio.dumps(event).encode("utf-8", "surrogatepass")[:MAX_EVENT_BYTES]
    try:
        helper = subprocess.Popen(
            child.python_argv("arcguard.hooks.notify", home, *argv),
            # Never the project's directory, which the hook was started in.
            cwd=child.working_directory(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        assert helper.stdin is not None
        helper.stdin.write(data)  # far below a pipe's buffer: this cannot block
        helper.stdin.close()
    except (OSError, ValueError) as exc:
        error_log.log_line(home, "notify", f"cannot start the notify helper: {exc}")


def run_command(home: str, argv: list[str], data: bytes) -> None:
    """Run the user's command with the event on stdin; log why it failed, if it did."""
    import subprocess

    from arcguard import child

    name = os.path.basename(argv[0]) if argv else "?"
    try:
        done = subprocess.run(
            argv,
            cwd=child.working_directory(home),
            input=data,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        error_log.log_line(home, "notify", f"{name}: no exit within {COMMAND_TIMEOUT_S:.0f}s")
        return
    except (OSError, ValueError) as exc:
        error_log.log_line(home, "notify", f"{name}: cannot run: {exc}")
        return
    if done.returncode != 0:
        tail = " ".join(done.stderr.decode("utf-8", "replace").split())[-200:]
        error_log.log_line(home, "notify", f"{name}: exit {done.returncode}: {tail}")


def main(args: list[str]) -> int:
    if len(args) < 2:
        return 0
    run_command(args[0], args[1:], sys.stdin.buffer.read(MAX_EVENT_BYTES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
