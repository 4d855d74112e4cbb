"""`arcguard serve`: answer Claude Code's http hooks on loopback with the command hooks' code.

Each request is `POST /hook/<event>` carrying the per-user secret in a header. Its body is the
payload a command hook reads on stdin, and it goes through the same `runner.dispatch` under
the same wall budget, the same state files and the same locks; the response body is what the
command hook would print (empty for no decision). Whatever goes wrong in one request, it gets
an empty 200 (no decision) and one log line; the server goes on.
"""

from __future__ import annotations

import hmac
import os
import threading
import time
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer

from arcguard.errors import ArcguardError
from arcguard.hooks import EVENTS
from arcguard.hooks import runner
from arcguard.resident import files
from arcguard.storage import error_log
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.config import Config

PREFIX = "/hook/"
# Requests answered at once; more wait for a slot (Claude Code runs at most a few hooks of
# one session in parallel, and every request is bounded in time).
MAX_WORKERS = 16
SLOT_WAIT_S = 1.0
# How long a client may take to send its request: the same order as a hook's wall budget.
READ_TIMEOUT_S = 5.0
# After the budget, a handler that already committed its decision is writing the state file:
# it gets this much longer to finish, so a decision that changed the state is answered.
COMMIT_GRACE_S = 1.0
WHERE = "serve"


@value
class _Gate:
    """The per-request stand-in for the command hook's watchdog: either the handler commits
    its decision (and may write the state) or the deadline closes the gate first (and the
    request is answered with no decision); never both."""

    lock: threading.Lock  # a new one per request
    handler_has_it: bool = False

    def commit(self) -> bool:
        if not self.handler_has_it:
            self.handler_has_it = self.lock.acquire(blocking=False)
        return self.handler_has_it

    def close(self) -> bool:
        """True if the handler can no longer commit (it had not)."""
        return self.lock.acquire(blocking=False)


@value
class Resident:
    """What every request shares: the state directory, the secret, the idle clock (see
    `resident`, which makes one)."""

    home: str
    token: bytes
    environ: dict[str, str] | os._Environ[str]
    command: str  # how the model calls arcguard back, as a command hook would tell it
    last_request: float  # time.monotonic() of the latest request

    def __repr__(self) -> str:
        return f"Resident(home={self.home!r})"  # never the secret

    def authorised(self, given: str | None) -> bool:
        # Constant-time: the comparison must not tell a prober how much of a guess was right.
        return given is not None and hmac.compare_digest(given.encode(), self.token)

    def config(self) -> Config:
        from arcguard.storage.config_file import load_config

        return load_config(self.environ)[0]

    def answer(self, event: str, raw: bytes) -> str | None:
        """The hook's output text for one payload, within the hook's wall budget."""
        self.last_request = time.monotonic()
        hook = EVENTS[event]
        cfg = self.config()
        gate = _Gate(threading.Lock())
        ctx = runner.Context.begin(hook, self.home, cfg, time.time(), self.command, self.environ)
        ctx.commit = gate.commit
        box: list[str | None] = []

        def work() -> None:
            try:
                box.append(runner.dispatch(hook, raw, ctx))
            except BaseException as exc:
                error_log.log_line(self.home, f"{WHERE} {hook}", f"{type(exc).__name__}: {exc}")

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        budget = cfg.hook_budget_ms / 1000.0
        worker.join(budget)
        if worker.is_alive():
            if gate.close():
                error_log.log_line(
                    self.home,
                    f"{WHERE} {hook}",
                    f"wall budget exceeded after {budget:.2f}s; no decision",
                )
                return None
            worker.join(COMMIT_GRACE_S)
        return box[0] if box else None


def resident(home: str, token: str, environ: dict[str, str] | os._Environ[str]) -> Resident:
    """The shared state of a server starting now for `home`, with the secret `token`."""
    command = runner.own_command("-c", _executable())
    return Resident(home, token.encode(), environ, command, time.monotonic())


def _executable() -> str:
    import sys

    return sys.executable


def event_of(path: str) -> str | None:
    """The Claude Code event a request path names, or None (only `/hook/<event>` exists)."""
    if not path.startswith(PREFIX):
        return None
    event = path[len(PREFIX) :]
    return event if event in EVENTS else None


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "arcguard"
    sys_version = ""
    timeout = READ_TIMEOUT_S
    # The answer leaves in one segment: a buffered writer sends the status line, headers and
    # body together at the end, and without Nagle's algorithm nothing waits for an ACK.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    answered: str | None = None

    def handle(self) -> None:
        started = time.perf_counter()
        super().handle()
        if self.answered is not None:
            from arcguard.storage import cost

            spent = time.perf_counter() - started
            cost.record(self.server.resident.home, cost.RESIDENT, self.answered, spent)

    def do_POST(self) -> None:
        try:
            self._post()
        except Exception as exc:
            # One request's failure must never take the server down, nor answer with a
            # decision: no body is no decision.
            error_log.log_line(self.server.resident.home, WHERE, f"{type(exc).__name__}: {exc}")
            self._reply(200, b"")

    def _post(self) -> None:
        resident = self.server.resident
        event = event_of(self.path)
        if event is None:
            self._reply(404, b"")
            return
        if not resident.authorised(self.headers.get(files.SECRET_HEADER)):
            self._reply(403, b"")
            return
        length = _length(self.headers.get("Content-Length"))
        if length is None or length > runner.MAX_PAYLOAD:
            error_log.log_line(
                resident.home,
                f"{WHERE} {EVENTS[event]}",
                f"payload without a length or over {runner.MAX_PAYLOAD} bytes; no decision",
            )
            self._reply(413, b"")
            return
        raw = self.rfile.read(length)
        text = resident.answer(event, raw)
        self._reply(200, text.encode() if text else b"")
        self.answered = EVENTS[event]

    def _not_found(self) -> None:
        self._reply(404, b"")

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_found

    def _reply(self, status: int, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body and self.command != "HEAD":
                self.wfile.write(body)
        except OSError:
            pass  # the client went away: nothing to answer

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per failure goes to the error log; requests themselves are not news


def _length(value: str | None) -> int | None:
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    return int(value)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, port: int, resident: Resident) -> None:
        self.resident = resident
        self.slots = threading.BoundedSemaphore(MAX_WORKERS)
        super().__init__((files.HOST, port), _Handler)

    def process_request(self, request: object, client_address: object) -> None:
        if not self.slots.acquire(timeout=SLOT_WAIT_S):
            self.shutdown_request(request)  # type: ignore[arg-type]
            return
        try:
            super().process_request(request, client_address)  # type: ignore[arg-type]
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: object, client_address: object) -> None:
        try:
            super().process_request_thread(request, client_address)  # type: ignore[arg-type]
        finally:
            self.slots.release()

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        exc = sys.exc_info()[1]
        error_log.log_line(self.resident.home, WHERE, f"{type(exc).__name__}: {exc}")


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

    info = {"port": port, "pid": os.getpid(), "created": time.time()}
    atomic.atomic_write(files.server_path(home), json.dumps(info).encode())


def _remove_server_file(home: str) -> None:
    try:
        os.unlink(files.server_path(home))
    except OSError:
        pass


def _watch_idle(server: _Server, idle_s: float) -> None:
    while True:
        left = server.resident.last_request + idle_s - time.monotonic()
        if left <= 0:
            server.shutdown()
            return
        time.sleep(min(left, 1.0))


def serve(
    home: str,
    environ: dict[str, str] | os._Environ[str],
    *,
    ready: Callable[[ThreadingHTTPServer], None] | None = None,
) -> None:
    """Run the server until it has been idle for `resident_idle_seconds` (or `ready`, given
    the listening server, shuts it down).

    Raises AlreadyRunning, files.NotInstalled, or OSError when the port cannot be bound.
    """
    from arcguard.storage import paths

    paths.ensure_dir(home)
    fd = _take_lock(home)
    try:
        port, token = files.installed(home)
        shared = resident(home, token, environ)
        idle_s = float(shared.config().resident_idle_seconds)
        _load_handlers()
        with _Server(port, shared) as server:
            _write_server_file(home, port)
            try:
                threading.Thread(target=_watch_idle, args=(server, idle_s), daemon=True).start()
                if ready is not None:
                    ready(server)
                server.serve_forever(poll_interval=0.5)
            finally:
                _remove_server_file(home)
    finally:
        os.close(fd)
