"""The one adapter every hook runs through: stdin -> handler -> stdout, failing open.

Whatever happens (bad input, a corrupt or locked state file, an exception, a hang), a hook
exits 0 and prints either nothing or one JSON object; failures leave one line in the log.
A watchdog thread ends the process, with no decision, when the wall budget runs out, unless
the decision was already committed: that happens just before the state file is replaced, so
a decision that changed the state is always printed, and one that was cut short left the
state as it was.
"""

from __future__ import annotations

import os
import sys
import time

from arcguard import jsonio
from arcguard.core.schema import StateFile
from arcguard.core.words.messages import shell_join
from arcguard.errors import ArcguardError
from arcguard.hooks import HOOKS
from arcguard.storage import error_log
from arcguard.storage import paths
from arcguard.storage import store
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from _thread import LockType
    from collections.abc import Callable

    from arcguard.core.config import Config
    from arcguard.core.notify import NotifyEvent
    from arcguard.core.render import Decisions
    from arcguard.core.state import State
    from arcguard.jsonio import JSONObject

    Change = Callable[[State | None], tuple[Decisions | None, State | None]]

# Real payloads are small: the largest measured in real sessions (benchmarks/payload_sizes.py)
# is about 175 KB, a PostToolUse carrying a big file read. Parsing tens of MB in C holds the
# interpreter for seconds where the watchdog cannot cut in, so anything past this bound gets
# no decision.
MAX_PAYLOAD = 4 * 1024 * 1024
MAX_SESSION_ID = 4096
DEFAULT_BUDGET_S = 2.0


# Hooks that look at `arcguard off` themselves (the resident server's start is not a decision).
SWITCH_ITSELF = ("serve-start",)

# A wait inside a hook leaves this much of the wall budget for the locked update after it.
UPDATE_RESERVE_S = 0.4


class TooLate(ArcguardError):
    """The watchdog fired before the decision could be committed."""


def _always() -> bool:
    return True


@value
class Context:
    """What a handler may use besides the payload: config, state dir, clock, how we were run.

    `deadline`: the end of the hook's wall budget on the monotonic clock; `commit`: marks the
    decision as committed (see `update`). Made by `begin`, which starts the budget.
    """

    hook: str
    home: str
    cfg: Config
    now: float
    command: str
    environ: dict[str, str] | os._Environ[str]
    deadline: float
    commit: Callable[[], bool] = _always

    @classmethod
    def begin(
        cls,
        hook: str,
        home: str,
        cfg: Config,
        now: float,
        command: str,
        environ: dict[str, str] | os._Environ[str],
    ) -> Context:
        """A context whose wall budget starts now."""
        deadline = time.monotonic() + cfg.hook_budget_ms / 1000.0
        return cls(hook, home, cfg, now, command, environ, deadline)

    def update(self, session_id: str, change: Change) -> Decisions | None:
        """Run `change` on the session's state under its lock; return its decisions.

        The decision is committed (the watchdog can no longer end the process) before the
        new state is written, so a spent continuation or recorded call always comes with its
        output. Too late to commit: nothing is written.
        """

        later: list[NotifyEvent] = []

        def swap(state: State | None) -> tuple[State | None, Decisions | None]:
            decided, new = change(state)
            if not self.commit():
                raise TooLate("the wall budget ran out before the decision was committed")
            if _log_grew(state, new):
                # Most hook runs decide nothing, so only those that did load the notices.
                from arcguard.core import render
                from arcguard.core.display import notices
                from arcguard.core.notify import new_entries
                from arcguard.hooks import notify

                decided, events = notify.news(self.home, self.cfg, state, new, decided)
                later.extend(events)
                # What the user reads about it; the model never sees a notice.
                line = notices.user_line(new_entries(state, new), self.cfg)
                if line is not None:
                    decided = render.merge(decided, (render.Notice(line),))
            return new, decided

        decided = store.update(
            self.home,
            session_id,
            swap,
            now=self.now,
            lock_timeout=self.cfg.lock_timeout_ms / 1000.0,
        )
        if later:  # saved and unlocked: only a decision that was kept is announced
            from arcguard.hooks import notify

            notify.tell(self.home, self.cfg, later)
        return decided

    def wait_left(self, cap_s: float) -> float:
        """How long the handler may still wait (for the transcript, say): at most `cap_s`,
        and never into the part of the wall budget the locked update needs."""
        return max(0.0, min(cap_s, self.deadline - time.monotonic() - UPDATE_RESERVE_S))

    def loop_guard_acts(self, session_id: str) -> bool:
        """Whether the loop guard acts in this session (`loop_guard`); the usual setting costs
        nothing, `arcs` one lock-free read of the state."""
        scope = self.cfg.loop_guard
        if scope != "arcs":
            return scope != "off"
        from arcguard.core.arc_keeper import goal

        state = self.snapshot(session_id)
        return state is not None and goal.delegated(state, self.cfg, self.now)

    def snapshot(self, session_id: str) -> State | None:
        """The session's state without the lock (None when missing or unusable)."""
        return store.read_session(self.home, session_id)


def session_id(payload: JSONObject) -> str | None:
    value = payload.get("session_id")
    if isinstance(value, str) and value and len(value) <= MAX_SESSION_ID:
        return value
    return None


def text_of(payload: JSONObject, key: str) -> str | None:
    """The payload's `key` when it is text, or None."""
    value = payload.get(key)
    return value if isinstance(value, str) else None


def path_of(payload: JSONObject, key: str) -> str | None:
    """The payload's `key` when it names a file or folder at all (a non-empty text), or None."""
    return text_of(payload, key) or None


def _log_grew(old: State | None, new: State | None) -> bool:
    """Cheap test that a change added decisions worth a look."""
    if new is None:
        return False
    after = StateFile.view(new).log.items
    return bool(after) and (old is None or after[-1:] != StateFile.view(old).log.items[-1:])


# The folder that holds this arcguard package (runner.py is arcguard/hooks/runner.py).
_LOCATION = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def own_command(argv0: str, executable: str, location: str = _LOCATION) -> str:
    """How the model can call arcguard back, as this hook was called: a shell command line,
    quoted, since the model pastes it into a shell and install paths may hold spaces.

    Run through the interpreter (the fast entries, resident mode), the model runs it from the
    project, which may hold a package named arcguard of its own: `-I` keeps the working
    folder, PYTHONPATH and the user site off the path where the package (`location`) lies in
    the interpreter's own tree (a virtualenv, pipx or uv tool environment, the system's
    packages), and `-P` keeps at least the working folder off elsewhere (the user site, an
    editable checkout), where `-I` could lose the package itself.
    """
    if os.path.basename(argv0) == "arcguard":
        directory = os.path.dirname(os.path.abspath(argv0))
        on_path = directory in os.environ.get("PATH", "").split(os.pathsep)
        return "arcguard" if on_path else shell_join([os.path.abspath(argv0)])
    tree = os.path.dirname(os.path.dirname(executable))
    isolated = location.startswith(tree.rstrip(os.sep) + os.sep) and tree != os.sep
    return shell_join([executable, "-I" if isolated else "-P", "-m", "arcguard"])


def dispatch(hook: str, raw: bytes, ctx: Context) -> str | None:
    """The stdout text for one hook run, or None. Never raises."""
    if len(raw) > MAX_PAYLOAD:
        error_log.log_line(
            ctx.home, f"hook {hook}", f"payload over {MAX_PAYLOAD} bytes not parsed; no decision"
        )
        return None
    try:
        payload = jsonio.loads(raw)
        if not isinstance(payload, dict):
            return None
        if hook not in SWITCH_ITSELF and store.switched_off(ctx.home, payload.get("session_id")):
            return None  # `arcguard off`: no decision, and nothing recorded
        # `__import__` rather than `importlib.import_module`: importing importlib costs more
        # than the hook module itself.
        module = __import__(HOOKS[hook], fromlist=["handle"])
        output = module.handle(payload, ctx)
        return jsonio.dumps(output) if output else None
    except jsonio.JSONError:
        return None  # not a payload: nothing to decide, nothing worth a log line
    except TooLate:
        return None  # the watchdog is ending the process and logs it
    except Exception as exc:
        if ctx.environ.get("ARCGUARD_DEBUG") == "1":
            raise
        error_log.log_line(ctx.home, f"hook {hook}", f"{type(exc).__name__}: {exc}")
        return None


@value
class _Watchdog:
    """Ends the process with no decision once the wall budget is spent, unless committed.

    Its exit cannot block: the log line is attempted on a thread of its own (a log path on a
    hung file system must not hold the exit back), and the process ends with `os._exit`,
    which runs no clean-up, flushes nothing and takes no lock. Made by `begin`, which starts
    its thread.
    """

    LOG_GRACE_S = 0.5

    start: float
    deadline: float
    home: str
    hook: str
    committed: LockType
    mine: bool = False

    @classmethod
    def begin(cls, budget: float, home: str, hook: str) -> _Watchdog:
        import _thread

        start = time.monotonic()
        watchdog = cls(start, start + budget, home, hook, _thread.allocate_lock())
        _thread.start_new_thread(watchdog._watch, ())
        return watchdog

    def set_budget(self, budget: float) -> None:
        self.deadline = self.start + budget

    def _watch(self) -> None:
        while time.monotonic() < self.deadline:
            time.sleep(min(0.05, max(0.001, self.deadline - time.monotonic())))
        if self.committed.acquire(False):
            self._exit()

    def _exit(self) -> None:
        import _thread

        spent = time.monotonic() - self.start
        logged = _thread.allocate_lock()
        logged.acquire()

        def log() -> None:
            try:
                error_log.log_line(
                    self.home,
                    f"hook {self.hook}",
                    f"wall budget exceeded after {spent:.2f}s; no decision",
                )
            finally:
                logged.release()

        try:
            _thread.start_new_thread(log, ())
            logged.acquire(timeout=self.LOG_GRACE_S)  # our own lock: the wait is bounded
        finally:
            os._exit(0)

    def commit(self) -> bool:
        """True if the output may still be written (the watchdog has not fired). Idempotent."""
        if not self.mine:
            self.mine = self.committed.acquire(False)
        return self.mine


def usage_error(args: list[str]) -> None:
    """A malformed `arcguard hook ...`: say so on stderr and in the log; the exit stays 0."""
    given = " ".join(args) or "(no hook name)"
    message = f"usage: arcguard hook NAME, NAME one of {', '.join(HOOKS)}; got: {given}"
    _write(2, f"arcguard: {message}\n")
    try:
        error_log.log_line(paths.state_dir(os.environ), "hook", message)
    except Exception:
        pass  # nowhere to log: stderr had it


def _write(fd: int, text: str) -> None:
    """Write to a standard descriptor; a closed, full or broken one is ignored.

    `os.write` rather than `sys.stdout`: nothing is left buffered for the interpreter to flush
    (and fail on) at exit.
    """
    view = memoryview(text.encode("utf-8", "backslashreplace"))
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError:
        pass


def _hold_std_fds() -> None:
    """Put /dev/null on a closed stdin, stdout or stderr.

    Otherwise the next file opened (the lock, the state file) would get that number, and the
    output meant for stdout would be written into it.
    """
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            spare = os.open(os.devnull, os.O_RDWR)
            if spare != fd:
                os.dup2(spare, fd)
                os.close(spare)


def main(hook: str, argv0: str | None = None) -> int:
    _hold_std_fds()
    environ = os.environ
    try:
        home = paths.state_dir(environ)
    except paths.UnusablePath as exc:
        # No state dir, so no log file either: stderr is where the line can go.
        try:
            sys.stderr.write(f"arcguard: hook {hook}: {exc}; no decision\n")
        except (OSError, ValueError):
            pass
        return 0
    watchdog = _Watchdog.begin(DEFAULT_BUDGET_S, home, hook)
    try:
        from arcguard.storage.config_file import load_config

        cfg, _ = load_config(environ)
        watchdog.set_budget(cfg.hook_budget_ms / 1000.0)
        ctx = Context.begin(
            hook, home, cfg, time.time(), own_command(argv0 or sys.argv[0], sys.executable), environ
        )
        ctx.commit = watchdog.commit
        text = dispatch(hook, _read_stdin(), ctx)
    except Exception as exc:
        error_log.log_line(home, f"hook {hook}", f"{type(exc).__name__}: {exc}")
        text = None
    if not watchdog.commit():
        time.sleep(60)  # the watchdog is ending the process; write nothing
    if text:
        _write(1, text + "\n")
    _record_cost(home, hook, watchdog.start)
    return 0


def _record_cost(home: str, hook: str, started: float) -> None:
    """This run's wall time, from the process start where the kernel tells it (else from the
    runner's own start), for `arcguard status --cost`."""
    from arcguard.storage import cost

    spent = cost.since_process_start()
    if spent is None:
        spent = time.monotonic() - started
    cost.record(home, cost.COMMAND, hook, spent)


def _read_stdin() -> bytes:
    """At most one byte past MAX_PAYLOAD: enough to tell that a payload is too large."""
    chunks = []
    left = MAX_PAYLOAD + 1
    while left > 0:
        chunk = os.read(0, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
