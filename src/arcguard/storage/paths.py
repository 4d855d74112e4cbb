"""Where arcguard keeps its files: state directory, session files, config, logs."""

from __future__ import annotations

import os

from arcguard.errors import ArcguardError


# A session id made only of these, and not too long, is its own file name. Lower case only:
# on a case-insensitive file system `A` and `a` would share a file. Claude Code's ids are
# lower-case UUIDs, so they keep their plain names.
SAFE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
MAX_NAME = 100
# Between the readable prefix and the digest of an id that is not safe: a character no safe
# name contains, so a digest-named file can never be the name of another, safe id.
DIGEST_MARK = "~"
PREFIX_CHARS = 40
LEGACY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class UnsafeStateDir(ArcguardError, OSError):
    """The state directory is a symlink, writable by others, or owned by someone else."""


class UnusablePath(ArcguardError, ValueError):
    """A path from the environment that arcguard refuses (relative, so it would follow the cwd)."""


def _explicit(environ: dict[str, str] | os._Environ[str], name: str) -> str | None:
    """`$name` with `~` expanded; None when unset. Raises UnusablePath when it is relative.

    Claude Code's settings `env` block passes `~` through unexpanded, and a relative path would
    put state wherever each session happens to run, so neither is taken as it stands.
    """
    value = environ.get(name)
    if not value:
        return None
    expanded = os.path.expanduser(value)
    if not os.path.isabs(expanded):
        raise UnusablePath(f"{name}={value!r} is not an absolute path; refusing it")
    return os.path.normpath(expanded)


def _xdg(environ: dict[str, str] | os._Environ[str], name: str, default: str) -> str:
    # The XDG base directory spec: a relative value is invalid and must be ignored.
    value = environ.get(name) or ""
    return value if os.path.isabs(value) else os.path.join(os.path.expanduser("~"), default)


def ignored_xdg(environ: dict[str, str] | os._Environ[str]) -> list[str]:
    """The XDG variables set to a relative path, which arcguard ignores."""
    return [
        f"{name}={environ[name]!r} is relative and ignored"
        for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME")
        if environ.get(name) and not os.path.isabs(environ[name])
    ]


def state_dir(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """`$ARCGUARD_HOME`, else `$XDG_STATE_HOME/arcguard`. Raises UnusablePath (see `_explicit`)."""
    home = _explicit(environ, "ARCGUARD_HOME")
    if home:
        return home
    return os.path.join(
        _xdg(environ, "XDG_STATE_HOME", os.path.join(".local", "state")), "arcguard"
    )


def config_path(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """`$ARCGUARD_CONFIG`, else the XDG config file. Raises UnusablePath (see `_explicit`)."""
    explicit = _explicit(environ, "ARCGUARD_CONFIG")
    if explicit:
        return explicit
    return os.path.join(_xdg(environ, "XDG_CONFIG_HOME", ".config"), "arcguard", "config.toml")


def sessions_dir(home: str) -> str:
    return os.path.join(home, "sessions")


def error_log(home: str) -> str:
    return os.path.join(home, "arcguard.log")


def switch_path(home: str) -> str:
    """What `arcguard off` switched off (every session, or some); absent while all is on."""
    return os.path.join(home, "switch.json")


def session_file_name(session_id: str) -> str:
    """A file name for `session_id`, distinct for every id, that cannot leave `sessions/`.

    A safe id (see SAFE_CHARS, MAX_NAME) is its own name. Any other id gets a readable prefix
    (unsafe characters as `_`) then DIGEST_MARK and a 256-bit BLAKE2b digest of the exact id:
    two ids share a file only if they share a digest.
    """
    if session_id and len(session_id) <= MAX_NAME and all(c in SAFE_CHARS for c in session_id):
        return session_id + ".json"
    head = session_id[:PREFIX_CHARS].lower()
    prefix = "".join(c if c in SAFE_CHARS else "_" for c in head)
    return f"{prefix}{DIGEST_MARK}{_digest(session_id)}.json"


def _digest(text: str) -> str:
    # `_blake2` directly: `hashlib` would cost the hook path its OpenSSL import.
    try:
        from _blake2 import blake2b
    except ImportError:  # an interpreter built without it
        from hashlib import blake2b
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=32).hexdigest()


def legacy_session_file_name(session_id: str) -> str:
    """The name earlier versions gave `session_id` (a CRC32 suffix: it can collide).

    Only read, to carry a session's state over to its new name.
    """
    name = "".join(c if c in LEGACY_CHARS else "_" for c in session_id[: MAX_NAME * 4])
    stripped = name.lstrip(".")
    name = ("_" * (len(name) - len(stripped)) + stripped)[:MAX_NAME]
    if name != session_id or not name:
        import zlib

        name = f"{name}-{zlib.crc32(session_id.encode('utf-8', 'surrogatepass')):08x}"
    return name + ".json"


def session_path(home: str, session_id: str) -> str:
    return os.path.join(sessions_dir(home), session_file_name(session_id))


def legacy_session_path(home: str, session_id: str) -> str | None:
    """Where an earlier version kept `session_id`'s state, when that is not its path now."""
    name = legacy_session_file_name(session_id)
    return None if name == session_file_name(session_id) else os.path.join(sessions_dir(home), name)


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


def usable_dir(path: str) -> bool:
    """`path` exists and is safe to write in (see `ensure_dir`); never creates it."""
    try:
        _check_dir(path)
    except OSError:
        return False
    return True


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
