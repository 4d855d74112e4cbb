"""Where arcguard keeps its files: state directory, session files, config, logs."""

from __future__ import annotations

import os


SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
MAX_NAME = 100


class UnsafeStateDir(OSError):
    """The state directory is a symlink, writable by others, or owned by someone else."""


def state_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    home = environ.get("ARCGUARD_HOME")
    if home:
        return os.path.abspath(home)
    base = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "arcguard")


def config_path(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    explicit = environ.get("ARCGUARD_CONFIG")
    if explicit:
        return explicit
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "arcguard", "config.toml")


def sessions_dir(home: str) -> str:
    return os.path.join(home, "sessions")


def error_log(home: str) -> str:
    return os.path.join(home, "arcguard.log")


def session_file_name(session_id: str) -> str:
    """A file name for `session_id` that cannot leave the sessions directory.

    Characters outside `[A-Za-z0-9._-]` become `_`; leading dots become `_` (no `.`, `..` or
    hidden files); long ids are cut. Whenever the id had to change, a checksum of the original
    is appended so that two different ids do not share a file.
    """
    name = "".join(c if c in SAFE_CHARS else "_" for c in session_id[: MAX_NAME * 4])
    stripped = name.lstrip(".")
    name = "_" * (len(name) - len(stripped)) + stripped
    name = name[:MAX_NAME]
    if name != session_id or not name:
        import zlib

        name = f"{name}-{zlib.crc32(session_id.encode('utf-8', 'surrogatepass')):08x}"
    return name + ".json"


def session_path(home: str, session_id: str) -> str:
    return os.path.join(sessions_dir(home), session_file_name(session_id))


def _check_dir(path: str) -> None:
    import stat

    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeStateDir(f"{path} is a symlink; refusing to use it")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeStateDir(f"{path} is not a directory")
    if st.st_mode & 0o022:
        raise UnsafeStateDir(f"{path} is writable by others (mode {st.st_mode & 0o777:o})")
    if st.st_uid != os.getuid():
        raise UnsafeStateDir(f"{path} belongs to uid {st.st_uid}, not to uid {os.getuid()}")


def ensure_dir(path: str) -> None:
    """Create `path` (mode 0700) if missing; refuse it if it is unsafe."""
    try:
        os.makedirs(path, mode=0o700)
    except FileExistsError:
        pass
    _check_dir(path)


def ensure_sessions_dir(home: str) -> str:
    ensure_dir(home)
    directory = sessions_dir(home)
    ensure_dir(directory)
    return directory
