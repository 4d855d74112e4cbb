"""The resident server's files in the state directory, and whether a server is running.

- `resident.json` (written by `install --resident`): the fixed loopback port the hooks' urls
  name. Claude Code does not interpolate a hook's url, so the port is chosen once, at install,
  and every server start binds it again: settings never change when the server restarts.
- `resident.secret`: the per-user secret every request must carry (mode 0600).
- `server.json` (written by the running server): its port, pid and start time.
- `server.lock`: held by the running server for its whole life, so there is one per user and
  "is one running" is a non-blocking lock attempt, not a guess from a pid that may be reused.
"""

from __future__ import annotations

import os

from arcguard.errors import ArcguardError


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.jsonio import JSONObject

SETTINGS_NAME = "resident.json"
SECRET_NAME = "resident.secret"
SERVER_NAME = "server.json"
LOCK_NAME = "server.lock"
# The environment variable Claude Code interpolates into the authentication header.
SECRET_ENV = "ARCGUARD_RESIDENT_TOKEN"
SECRET_HEADER = "X-Arcguard-Token"
# 32 random bytes, hex: a secret no one guesses, and a header value with nothing to escape.
SECRET_BYTES = 32
MAX_FILE = 4096
HOST = "127.0.0.1"


class NotInstalled(ArcguardError):
    """Resident mode has no port or secret yet: `arcguard install --resident` makes them."""


def _path(home: str, name: str) -> str:
    return os.path.join(home, name)


def _read_small(path: str) -> bytes | None:
    """The file's bytes (a regular file of at most MAX_FILE bytes), else None."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
            return None
        return os.read(fd, MAX_FILE)
    finally:
        os.close(fd)


def _read_json(path: str) -> JSONObject | None:
    # jsonio, not json: the status line and the hooks read these files, and `import json`
    # costs them more than the read.
    from arcguard import jsonio

    data = _read_small(path)
    if data is None:
        return None
    try:
        value = jsonio.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _valid_port(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 1024 <= value <= 65535:
        return value
    return None


def port(home: str) -> int | None:
    """The port chosen at install, or None when resident mode was never installed here."""
    data = _read_json(_path(home, SETTINGS_NAME))
    return _valid_port(data.get("port")) if data else None


def secret(home: str) -> str | None:
    data = _read_small(_path(home, SECRET_NAME))
    if data is None:
        return None
    text = data.decode("ascii", "replace").strip()
    return text if len(text) == 2 * SECRET_BYTES and not text.strip("0123456789abcdef") else None


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def config(home: str) -> str | None:
    """The config file install chose for the server (None: an install that recorded none)."""
    data = _read_json(_path(home, SETTINGS_NAME))
    chosen = data.get("config") if data else None
    return chosen if isinstance(chosen, str) and os.path.isabs(chosen) else None


def prepare(home: str, config: str | None = None) -> tuple[int, str]:
    """The port and a new secret for install: the port is chosen once and kept (the settings
    of every scope name it), the secret is new each time, so a secret that was ever read is
    void after the next install. `config`: the config file the server reads (the one the
    installing user's environment names). The files are private before a byte is written."""
    import json
    import secrets

    from arcguard.storage import atomic
    from arcguard.storage import paths

    paths.ensure_dir(home)
    chosen = port(home) or _free_port()
    recorded: dict[str, object] = {"port": chosen}
    if config is not None:
        recorded["config"] = config
    atomic.atomic_write(_path(home, SETTINGS_NAME), json.dumps(recorded).encode())
    token = secrets.token_hex(SECRET_BYTES)
    atomic.atomic_write(_path(home, SECRET_NAME), token.encode())
    return chosen, token


def installed(home: str) -> tuple[int, str]:
    """The port and secret a server needs; raises NotInstalled when either is missing."""
    chosen, token = port(home), secret(home)
    if chosen is None or token is None:
        raise NotInstalled(
            f"no resident port or secret in {home}: run `arcguard install --resident`"
        )
    return chosen, token


def lock_path(home: str) -> str:
    return _path(home, LOCK_NAME)


def server_path(home: str) -> str:
    return _path(home, SERVER_NAME)


def running(home: str) -> bool:
    """Whether a server holds this state directory's server lock right now."""
    import fcntl

    try:
        fd = os.open(lock_path(home), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False  # no lock file: no server ever started here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock, if it was had
    return False


def stop(home: str, wait_s: float = 3.0) -> bool:
    """Stop the server running for `home`, if one is (SIGTERM, then SIGKILL past `wait_s`);
    True if one was running. The pid comes from the file the lock holder wrote, and is only
    signalled while that lock is held, so it is the server's."""
    import signal
    import time

    info = server_info(home)
    pid = info.get("pid") if info else None
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 1:
        return info is not None
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, signum)
        except OSError:
            return True  # gone already
        deadline = time.monotonic() + wait_s
        while running(home) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not running(home):
            break
    return True


# Every file resident mode makes in the state directory, for uninstall to take away.
MADE = (SETTINGS_NAME, SECRET_NAME, SERVER_NAME, LOCK_NAME)


def forget(home: str) -> list[str]:
    """Stop the server and delete every file resident mode made in `home`; the names deleted."""
    stop(home)
    gone = []
    for name in MADE:
        try:
            os.unlink(_path(home, name))
            gone.append(name)
        except OSError:
            pass
    return gone


def server_info(home: str) -> JSONObject | None:
    """What the running server wrote about itself (port, pid, created), if it runs."""
    return _read_json(server_path(home)) if running(home) else None


NOT_RUNNING = (
    "resident mode: server not running (every hook fails open until it is); start it "
    "with `arcguard serve &`, or start a new Claude Code session, which starts it"
)


OLD_CODE = (
    "resident mode: the running server (pid {pid}) runs code that is not the installed "
    "arcguard (upgraded or removed since it started); the next Claude Code session replaces it"
)


def code_version(package: str | None = None) -> str:
    """What identifies the arcguard code installed at `package` (default: this one): its
    version, folder, and the count, total size and newest change of its Python files. An
    upgrade or a removal changes it; a server compares it with the one it started with."""
    import arcguard

    folder = package or os.path.dirname(os.path.abspath(arcguard.__file__))
    count = size = newest = 0
    stack = [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
                stack.append(entry.path)
            elif entry.name.endswith(".py"):
                info = entry.stat(follow_symlinks=False)
                count, size = count + 1, size + info.st_size
                newest = max(newest, info.st_mtime_ns)
    return f"{arcguard.__version__}:{folder}:{count}:{size}:{newest}"


def stale(info: JSONObject) -> bool:
    """Whether a running server (as `server_info` gives it) runs other code than is installed."""
    return info.get("code") != code_version()


def describe(home: str) -> str | None:
    """One line on resident mode for `status`, `doctor` and the status line; None when resident
    mode was never installed for this state directory."""
    chosen = port(home)
    if chosen is None:
        return None
    info = server_info(home)
    if info is None:
        return NOT_RUNNING
    if stale(info):
        return OLD_CODE.format(pid=info.get("pid"))
    return f"resident mode: server running (pid {info.get('pid')}, port {chosen})"
