"""`arcguard serve`: answer Claude Code's http hooks on loopback with the command hooks' code.

Each request is `POST /hook/<event>` carrying the per-user secret in a header. Its body is the
payload a command hook reads on stdin, and it goes through the same `runner.dispatch` under
the same wall budget, the same state files and the same locks; the response body is what the
command hook would print (empty for no decision). Whatever goes wrong in one request, it gets
an empty 200 (no decision) and one log line; the server goes on.

A request's work runs on a thread of its own, started by the event loop, which waits for its
answer or its deadline: one hand-off each way, since every one costs a tool call a wake-up.
What does not change between requests is not redone: the config is read again only when its
file changed, and the state a request wrote is kept for the next (`store.keep_written`).
"""

from __future__ import annotations

import _thread
import asyncio
import hmac
import os
import threading
import time

from arcguard.errors import ArcguardError
from arcguard.hooks import EVENTS
from arcguard.hooks import runner
from arcguard.resident import files
from arcguard.resident import listener
from arcguard.storage import error_log
from arcguard.storage.config_file import KeptConfig
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable
    from collections.abc import Callable

    from arcguard.core.config import Config

    BodyReader = Callable[[int], Awaitable[bytes]]

PREFIX = "/hook/"
# Authenticated requests answered at once; more wait for one of them to end (Claude Code runs
# at most a few hooks of one session in parallel, and each one is bounded in time).
# Connections that have not sent a whole request never take a thread: see `listener`.
MAX_WORKERS = 32
# After the budget, a handler that already committed its decision is writing the state file:
# it gets this much longer to finish, so a decision that changed the state is answered.
COMMIT_GRACE_S = 1.0
WHERE = "serve"


@value
class _Gate:
    """The per-request stand-in for the command hook's watchdog: either the handler commits
    its decision (and may write the state) or the deadline closes the gate first (and the
    request is answered with no decision); never both.

    It also knows the request's thread while that thread still runs its work (`running`,
    under `alive`), so that one past its deadline is abandoned while it is still there: a
    finished thread's number may already belong to another request's."""

    lock: _thread.LockType  # a new one per request
    alive: _thread.LockType  # a new one per request
    handler_has_it: bool = False
    running: int | None = None  # the thread's ident from its start to its end

    def commit(self) -> bool:
        if not self.handler_has_it:
            self.handler_has_it = self.lock.acquire(blocking=False)
        return self.handler_has_it

    def close(self) -> bool:
        """True if the handler can no longer commit (it had not)."""
        return self.lock.acquire(blocking=False)

    def abandon(self) -> None:
        """Raise Abandoned in the request's thread, if it is still at its work."""
        with self.alive:
            if self.running is not None:
                _abandon(self.running)


@value
class Resident:
    """What every request shares: the state directory, the secret, the idle clock (see
    `resident`, which makes one)."""

    home: str
    token: bytes
    environ: dict[str, str]  # see `served_environ`
    command: str  # how the model calls arcguard back, as a command hook would tell it
    last_request: float  # time.monotonic() of the latest request
    mode: str = "resident"  # what `cost.log` calls its requests (`cost.RESIDENT`, `cost.SDK`)
    kept: KeptConfig | None = None  # the config, read again only when its file changes

    def __repr__(self) -> str:
        return f"Resident(home={self.home!r})"  # never the secret

    def authorised(self, given: str | None) -> bool:
        # Constant-time: the comparison must not tell a prober how much of a guess was right.
        return given is not None and hmac.compare_digest(given.encode(), self.token)

    def config(self) -> Config:
        if self.kept is None:
            self.kept = KeptConfig(self.environ)
        return self.kept.config()

    async def answer(self, event: str, raw: bytes) -> str | None:
        """The hook's output text for one payload, within the hook's wall budget. The work
        runs on a thread of its own; the caller's event loop only waits."""
        started = time.perf_counter()
        self.last_request = time.monotonic()
        hook = EVENTS[event]
        cfg = self.config()
        gate = _Gate(_thread.allocate_lock(), _thread.allocate_lock())
        ctx = runner.Context.begin(hook, self.home, cfg, time.time(), self.command, self.environ)
        ctx.commit = gate.commit
        waiting = _Waiting(asyncio.get_running_loop())
        _thread.start_new_thread(self._work, (hook, raw, ctx, gate, (waiting, started)))
        budget = cfg.hook_budget_ms / 1000.0
        if await waiting.within(budget):
            return waiting.text
        if gate.close():
            gate.abandon()
            late = f"wall budget exceeded after {budget:.2f}s; no decision"
            error_log.log_line(self.home, f"{WHERE} {hook}", late)
            # Its thread records nothing now: the run is counted here, off the loop.
            spent = time.perf_counter() - started
            _thread.start_new_thread(_record_cost, (self.home, self.mode, hook, spent))
            return None
        # Committed: it is writing the state, and its decision is answered.
        return waiting.text if await waiting.within(COMMIT_GRACE_S) else None

    def _work(
        self, hook: str, raw: bytes, ctx: runner.Context, gate: _Gate, reply: tuple[_Waiting, float]
    ) -> None:
        """One request's thread: dispatch, record the cost, hand the answer to the loop."""
        try:
            try:
                with gate.alive:
                    gate.running = _thread.get_ident()
                text = None
                try:
                    text = runner.dispatch(hook, raw, ctx)
                except Abandoned:
                    raise
                except BaseException as exc:
                    error_log.log_line(self.home, f"{WHERE} {hook}", f"{type(exc).__name__}: {exc}")
                waiting, started = reply
                # Recorded before the answer goes: whoever reads `cost.log` once it came
                # finds the request there.
                _record_cost(self.home, self.mode, hook, time.perf_counter() - started)
                waiting.give(text)
            finally:
                with gate.alive:
                    gate.running = None
        except Abandoned:
            pass  # its budget ran out: already logged as such


class Abandoned(BaseException):
    """Raised inside a request's thread once its budget is spent before it committed (a
    BaseException, not an error: no `except Exception` on the way may stop it).

    A command hook past its budget is ended by its watchdog, and the kernel drops its locks.
    A thread cannot be ended, so it is made to unwind instead: its `with` blocks release the
    session lock on the way out, and it stops taking the interpreter from other requests.
    Nothing is lost: a handler that did not commit writes nothing.
    """


def _abandon(ident: int) -> None:
    """Raise Abandoned in the thread `ident` at its next Python instruction (a call into C
    that runs long, if any, finishes first: the hook path bounds those by its input's size)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(Abandoned))


@value
class _Waiting:
    """Where a request's thread leaves its answer for the event loop that waits for it.

    A plain future and timer rather than `asyncio.wait_for`: the answer is one wake-up of the
    loop away, where a task and a shield would take several turns of it."""

    loop: asyncio.AbstractEventLoop
    text: str | None = None
    answered: bool = False
    wake: asyncio.Future[None] | None = None

    def give(self, text: str | None) -> None:
        """From the request's thread: the answer (if the loop still runs)."""

        def settle() -> None:
            self.text, self.answered = text, True
            _wake(self.wake)

        try:
            self.loop.call_soon_threadsafe(settle)
        except RuntimeError:
            pass  # the loop is closed: nobody waits any more

    async def within(self, seconds: float) -> bool:
        """Whether the answer has come, waiting for it at most `seconds` more."""
        if not self.answered:
            self.wake = self.loop.create_future()
            timer = self.loop.call_later(seconds, _wake, self.wake)
            try:
                await self.wake
            finally:
                timer.cancel()
        return self.answered


def _wake(future: asyncio.Future[None] | None) -> None:
    if future is not None and not future.done():
        future.set_result(None)


def resident(home: str, token: str, environ: dict[str, str] | os._Environ[str]) -> Resident:
    """The shared state of a server starting now for `home`, with the secret `token`."""
    command = runner.own_command("-c", _executable())
    served = served_environ(environ, files.config(home))
    return Resident(home, token.encode(), served, command, time.monotonic())


# Kept from the server's own environment: where the state lives is what the port belongs to.
KEPT = ("ARCGUARD_HOME",)


def served_environ(
    environ: dict[str, str] | os._Environ[str], config: str | None
) -> dict[str, str]:
    """The environment every request is answered with: the server's, without any `ARCGUARD_*`
    setting, reading the config file install recorded.

    The server is started by whichever session comes first, with that session's environment,
    which includes its project's settings `env` block; keeping its `ARCGUARD_*` values would
    let one project's overrides govern every other project's sessions. So resident mode takes
    its settings from the config file only (the one the installing user's environment named).
    """
    served = {
        name: text
        for name, text in environ.items()
        if not name.startswith("ARCGUARD_") or name in KEPT
    }
    if config is not None:
        served["ARCGUARD_CONFIG"] = config
    return served


def _executable() -> str:
    import sys

    return sys.executable


def event_of(path: str) -> str | None:
    """The Claude Code event a request path names, or None (only `/hook/<event>` exists)."""
    if not path.startswith(PREFIX):
        return None
    event = path[len(PREFIX) :]
    return event if event in EVENTS else None


async def _respond(
    shared: Resident, slots: asyncio.Semaphore, request: listener.Request, read_body: BodyReader
) -> listener.Reply:
    """404 for anything but `POST /hook/<event>`, then 403 without the secret (before the
    body is read), 413 past the payload bound, else the hook's answer (empty: no decision)."""
    event = event_of(request.path) if request.method == "POST" else None
    if event is None:
        return listener.Reply(404)
    if not shared.authorised(request.headers.get(files.SECRET_HEADER.lower())):
        return listener.Reply(403)
    length = _length(request.headers.get("content-length"))
    if length is None or length > runner.MAX_PAYLOAD:
        error_log.log_line(
            shared.home,
            f"{WHERE} {EVENTS[event]}",
            f"payload without a length or over {runner.MAX_PAYLOAD} bytes; no decision",
        )
        return listener.Reply(413)
    raw = await read_body(length)
    try:
        async with slots:
            text = await shared.answer(event, raw)
    except Exception as exc:
        # One request's failure must never take the server down, nor answer with a
        # decision: no body is no decision.
        error_log.log_line(shared.home, WHERE, f"{type(exc).__name__}: {exc}")
        text = None
    return listener.Reply(200, text.encode() if text else b"")


def _record_cost(home: str, mode: str, hook: str, spent: float) -> None:
    from arcguard.storage import cost

    try:
        cost.record(home, mode, hook, spent)
    except Exception as exc:
        error_log.log_line(home, WHERE, f"cost not recorded: {type(exc).__name__}: {exc}")


def _length(value: str | None) -> int | None:
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    return int(value)


def _load_handlers() -> None:
    """Import every handler the server dispatches to once, before the first request, so no
    session's first tool call pays for the imports."""
    from arcguard.hooks import HOOKS

    for event in EVENTS.values():
        __import__(HOOKS[event], fromlist=["handle"])


class AlreadyRunning(ArcguardError):
    """Another server holds this state directory's server lock."""


def _take_lock(home: str) -> int:
    import fcntl

    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(files.lock_path(home), flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise AlreadyRunning(f"a server already runs for {home}") from None
    return fd


def _write_server_file(home: str, port: int) -> None:
    import json

    from arcguard.storage import atomic

    info = {"port": port, "pid": os.getpid(), "created": time.time(), "code": _CODE[0]}
    atomic.atomic_write(files.server_path(home), json.dumps(info).encode())


def _remove_server_file(home: str) -> None:
    try:
        os.unlink(files.server_path(home))
    except OSError:
        pass


@value
class Running:
    """A listening server, as `serve` hands it to its `ready` callback."""

    loop: asyncio.AbstractEventLoop
    stop: asyncio.Event
    port: int
    idle_s: float

    def shutdown(self) -> None:
        """Ask the server to stop (from any thread); `serve` returns once it has."""
        self.loop.call_soon_threadsafe(self.stop.set)


# The installed code's identity when the server started (`files.code_version`), and how often
# it is compared with what is installed now.
_CODE = [""]
CODE_CHECK_S = 5.0


async def _watch(shared: Resident, idle_s: float, stop: asyncio.Event) -> None:
    """Stop when idle for `idle_s`, once its state directory is gone, or once the installed
    code is not the code this server runs (an upgrade or a removal): its handlers would import
    modules that are not there, or not the ones it has. The next session start runs the
    installed code."""
    checked = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        left = shared.last_request + idle_s - now
        if left <= 0:
            stop.set()
            return
        if now - checked >= CODE_CHECK_S:
            checked = now
            if not os.path.exists(files.server_path(shared.home)):
                stop.set()  # its state directory was removed: nothing is left to serve
                return
            if files.code_version() != _CODE[0]:
                error_log.log_line(shared.home, WHERE, "installed code changed; exiting")
                stop.set()
                return
        await asyncio.sleep(min(left, 1.0))


async def _run(shared: Resident, port: int, ready: Callable[[Running], None] | None) -> None:
    import functools

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    if threading.current_thread() is threading.main_thread():
        import signal

        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)  # server.json goes with a clean exit
    respond = functools.partial(_respond, shared, asyncio.Semaphore(MAX_WORKERS))
    listening = await listener.listen(files.HOST, port, respond)
    _write_server_file(shared.home, port)
    try:
        idle_s = float(shared.config().resident_idle_seconds)
        idle = loop.create_task(_watch(shared, idle_s, stop))
        if ready is not None:
            ready(Running(loop, stop, port, idle_s))
        await stop.wait()
        idle.cancel()
    finally:
        _remove_server_file(shared.home)
        listening.close()


def serve(
    home: str,
    environ: dict[str, str] | os._Environ[str],
    *,
    ready: Callable[[Running], None] | None = None,
) -> None:
    """Run the server until it has been idle for `resident_idle_seconds`, or is told to stop
    (SIGTERM, or `shutdown` on what `ready` is given once it listens).

    Raises AlreadyRunning, files.NotInstalled, or OSError when the port cannot be bound.
    """
    from arcguard.storage import paths

    paths.ensure_dir(home)
    fd = _take_lock(home)
    try:
        port, token = files.installed(home)
        shared = resident(home, token, environ)
        _CODE[0] = files.code_version()
        _load_handlers()
        from arcguard.storage import store

        store.keep_written()
        asyncio.run(_run(shared, port, ready))
    finally:
        os.close(fd)
