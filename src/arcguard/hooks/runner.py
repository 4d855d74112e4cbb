"""The one adapter every hook runs through: stdin -> handler -> stdout, failing open.

Whatever happens (bad input, a corrupt or locked state file, an exception, a hang), a hook
exits 0 and prints either nothing or one JSON object; failures leave one line in the log.
A watchdog thread ends the process, with no decision, when the wall budget runs out.
"""

from __future__ import annotations

import os
import sys
import time

from arcguard import jsonio
from arcguard import logbook
from arcguard import paths
from arcguard import store
from arcguard.core.messages import shell_join
from arcguard.hooks import HOOKS


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from arcguard.core.config import Config
    from arcguard.core.render import Output
    from arcguard.core.state import State

    Change = Callable[[State | None], tuple[Output | None, State | None]]

MAX_STDIN = 64 * 1024 * 1024
MAX_SESSION_ID = 4096
DEFAULT_BUDGET_S = 2.0


class Context:
    """What a handler may use besides the payload: config, state dir, clock, how we were run."""

    def __init__(self, hook: str, home: str, cfg: Config, now: float, command: str,
                 environ: dict[str, str] | os._Environ[str]) -> None:
        self.hook = hook
        self.home = home
        self.cfg = cfg
        self.now = now
        self.command = command
        self.environ = environ
        self.deadline = time.monotonic() + cfg.hook_budget_ms / 1000.0

    def update(self, session_id: str, change: Change) -> Output | None:
        """Run `change` on the session's state under its lock; return its output."""
        def swap(state: State | None) -> tuple[State | None, Output | None]:
            output, new = change(state)
            return new, output

        return store.update(self.home, session_id, swap, now=self.now,
                            lock_timeout=self.cfg.lock_timeout_ms / 1000.0)

    def snapshot(self, session_id: str) -> State | None:
        """The session's state without the lock (None when missing or unusable)."""
        return store.read_session(self.home, session_id)


def session_id(payload: dict[str, Any]) -> str | None:
    value = payload.get("session_id")
    if isinstance(value, str) and value and len(value) <= MAX_SESSION_ID:
        return value
    return None


def own_command(argv0: str, executable: str) -> str:
    """How the model can call arcguard back, as this hook was called: a shell command line,
    quoted, since the model pastes it into a shell and install paths may hold spaces."""
    if os.path.basename(argv0) == "arcguard":
        directory = os.path.dirname(os.path.abspath(argv0))
        on_path = directory in os.environ.get("PATH", "").split(os.pathsep)
        return "arcguard" if on_path else shell_join([os.path.abspath(argv0)])
    return shell_join([executable, "-m", "arcguard"])


def dispatch(hook: str, raw: bytes, ctx: Context) -> str | None:
    """The stdout text for one hook run, or None. Never raises."""
    try:
        payload = jsonio.loads(raw)
        if not isinstance(payload, dict):
            return None
        # `__import__` rather than `importlib.import_module`: importing importlib costs more
        # than the hook module itself.
        module = __import__(HOOKS[hook], fromlist=["handle"])
        output = module.handle(payload, ctx)
        return jsonio.dumps(output) if output else None
    except jsonio.JSONError:
        return None  # not a payload: nothing to decide, nothing worth a log line
    except Exception as exc:
        if ctx.environ.get("ARCGUARD_DEBUG") == "1":
            raise
        logbook.log_line(ctx.home, f"hook {hook}", f"{type(exc).__name__}: {exc}")
        return None


class _Watchdog:
    """Ends the process with no decision once the wall budget is spent."""

    def __init__(self, budget: float, home: str, hook: str) -> None:
        import _thread

        self.start = time.monotonic()
        self.deadline = self.start + budget
        self.home = home
        self.hook = hook
        self.committed = _thread.allocate_lock()
        _thread.start_new_thread(self._watch, ())

    def set_budget(self, budget: float) -> None:
        self.deadline = self.start + budget

    def _watch(self) -> None:
        while time.monotonic() < self.deadline:
            time.sleep(min(0.05, max(0.001, self.deadline - time.monotonic())))
        if self.committed.acquire(False):
            spent = time.monotonic() - self.start
            logbook.log_line(self.home, f"hook {self.hook}",
                             f"wall budget exceeded after {spent:.2f}s; no decision")
            os._exit(0)

    def commit(self) -> bool:
        """True if the output may still be written (the watchdog has not fired)."""
        return self.committed.acquire(False)


def main(hook: str, argv0: str | None = None) -> int:
    environ = os.environ
    home = paths.state_dir(environ)
    watchdog = _Watchdog(DEFAULT_BUDGET_S, home, hook)
    try:
        from arcguard.config import load_config

        cfg, _ = load_config(environ)
        watchdog.set_budget(cfg.hook_budget_ms / 1000.0)
        ctx = Context(hook, home, cfg, time.time(),
                      own_command(argv0 or sys.argv[0], sys.executable), environ)
        raw = sys.stdin.buffer.read(MAX_STDIN + 1)
        text = dispatch(hook, raw, ctx) if len(raw) <= MAX_STDIN else None
    except Exception as exc:
        logbook.log_line(home, f"hook {hook}", f"{type(exc).__name__}: {exc}")
        text = None
    if not watchdog.commit():
        time.sleep(60)  # the watchdog is ending the process; write nothing
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0
