"""Claude Code settings files on disk: where they are, load, diff and write them safely."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import TYPE_CHECKING

from arcguard.claude_settings.merge_plan import SettingsError
from arcguard.storage import atomic


if TYPE_CHECKING:
    from collections.abc import Mapping

    from arcguard.claude_settings.hook_table import Settings
    from arcguard.claude_settings.releases import Version

SCOPES = ("user", "project", "local")
BACKUP_SUFFIX = ".arcguard.bak"


# --- files (I/O) ---------------------------------------------------------------------------


def claude_dir(environ: Mapping[str, str]) -> Path:
    """The user's Claude Code directory: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path(os.path.expanduser("~")) / ".claude"


def settings_path(scope: str, project: Path, environ: Mapping[str, str]) -> Path:
    if scope == "user":
        return claude_dir(environ) / "settings.json"
    name = "settings.local.json" if scope == "local" else "settings.json"
    return project / ".claude" / name


def scope_files(project: Path, environ: Mapping[str, str]) -> dict[str, Path]:
    """The settings file of each scope, every file once, named by the first scope it belongs
    to (lowest precedence first).

    Run from the home folder, Claude Code's project file `<cwd>/.claude/settings.json` is the
    user's own file, and Claude Code reads it once; so a scope whose file is, by its real
    path, one an earlier scope already names is left out.
    """
    found: dict[str, Path] = {}
    seen: set[str] = set()
    for scope in SCOPES:
        path = settings_path(scope, project, environ)
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            found[scope] = path
    return found


CLAUDE_VERSION_TIMEOUT_S = 15.0


def claude_version(
    environ: Mapping[str, str], timeout: float = CLAUDE_VERSION_TIMEOUT_S
) -> tuple[Version | None, str]:
    """(the version of the `claude` on PATH, '') or (None, why it is not known).

    `claude --version` is run directly (no shell) with a bounded wait.
    """
    import shutil
    import subprocess

    from arcguard import child
    from arcguard.claude_settings import releases

    program = shutil.which("claude", path=environ.get("PATH"))
    if program is None:
        return None, "`claude` is not on PATH"
    try:
        done = subprocess.run(
            [program, "--version"],
            cwd=child.working_directory(),  # not the project's directory
            capture_output=True,
            text=True,
            timeout=timeout,
            env=dict(environ),
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"`claude --version` failed: {exc}"
    version = releases.parse(done.stdout)
    if done.returncode != 0 or version is None:
        return None, f"`claude --version` said {done.stdout.strip()[:60]!r}"
    return version, ""


def commands_dir(scope: str, project: Path, environ: Mapping[str, str]) -> Path:
    """Where a scope's slash commands live (Claude Code has no local-only commands folder)."""
    if scope == "user":
        return claude_dir(environ) / "commands"
    return project / ".claude" / "commands"


# A settings file kept by hand or by Claude Code is a few kilobytes; anything far larger is
# not one, and reading it whole could exhaust memory.
MAX_SETTINGS_BYTES = 4 * 1024 * 1024


def read_regular(path: Path, limit: int | None = None) -> bytes | None:
    """The bytes of the regular file at `path` (a symlink is followed); None if it is absent.

    Read as every file named from outside is (`storage.regular_file`): a FIFO planted in its
    place cannot hang the caller; anything but a regular file, or a file over `limit` bytes,
    is refused with a SettingsError.
    """
    from arcguard.storage import regular_file as rf

    limit = MAX_SETTINGS_BYTES if limit is None else limit
    try:
        return rf.read_bytes(str(path), limit)
    except rf.Refused as exc:
        if exc.reason == rf.MISSING:
            return None
        if exc.reason == rf.NOT_REGULAR:
            raise SettingsError(f"{path} is not a regular file", "not-regular") from None
        if exc.reason == rf.TOO_LARGE:
            raise SettingsError(f"{path} is larger than {limit} bytes", "too-large") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise SettingsError(f"cannot read {path}: {exc.detail}", "permission") from None
        raise SettingsError(f"cannot read {path}: {exc.detail}") from None


def load(path: Path) -> tuple[Settings, str | None]:
    """(settings, the file's text); ({}, None) when the file does not exist.

    Raises SettingsError for a file that is not a standard JSON object: it is left untouched.
    """
    from arcguard.claude_settings import json_text

    data = read_regular(path)
    if data is None:
        return {}, None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not UTF-8 ({exc.reason})", "invalid") from None
    if not text.strip():
        return {}, text
    try:
        value = json_text.loads(text)
    except json_text.JsonRefused as exc:
        raise SettingsError(
            f"{path} is not valid JSON ({exc}); fix or move it, then run this again", "invalid"
        ) from None
    if not isinstance(value, dict):
        raise SettingsError(f"{path} does not hold a JSON object; fix or move it", "invalid")
    return value, text


def unified_diff(old: str | None, new: str, path: Path) -> str:
    import difflib

    before = (old or "").splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    label = str(path)
    return "".join(
        difflib.unified_diff(before, after, label if old is not None else "/dev/null", label)
    )


NEW_FILE_MODE = 0o644


class Changed(SettingsError):
    """The file changed between reading it and replacing it: merge again from the new text."""


def write(path: Path, text: str) -> Path | None:
    """Replace `path` with `text` atomically, keeping its mode; return the backup made, if any.

    A symlinked settings file (a dotfiles checkout) is written through to its target, so the
    link survives. The previous content is copied to `<file>.arcguard.bak` first.
    """
    return _write(path, text, None)


def write_if_unchanged(
    path: Path, text: str, expected: str | None, *, private: bool = False
) -> Path | None:
    """`write`, provided `path` still holds exactly `expected` (None: no file) right before
    the replace; otherwise raise Changed and write nothing.

    Claude Code rewrites its settings too (a permission approval, for one): replacing a file
    that changed after it was read would lose that change. `private`: the new file, its
    temporary file and the backup are readable by this user alone from the moment they are
    created, before a byte is written (the text holds a secret).
    """
    return _write(path, text, (expected,), private=private)


def _write(
    path: Path, text: str, expected: tuple[str | None] | None, *, private: bool = False
) -> Path | None:
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    mode: int | None = None
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    previous = read_regular(target) if mode is not None else None
    if private:
        mode = (NEW_FILE_MODE if mode is None else mode) & 0o700
    if previous is not None:
        backup = target.with_name(target.name + BACKUP_SUFFIX)
        _atomic_write(backup, previous, mode)
    data = text.encode("utf-8")
    if expected is None:
        _atomic_write(target, data, mode)
    else:
        _replace_if_unchanged(target, data, mode, expected[0])
    return backup


def _digest(data: bytes | None) -> str | None:
    import hashlib

    return None if data is None else hashlib.sha256(data).hexdigest()


def _replace_if_unchanged(
    target: Path, data: bytes, mode: int | None, expected: str | None
) -> None:
    want = _digest(None if expected is None else expected.encode("utf-8"))
    tmp = target.with_name(f"{target.name}{atomic.TEMP_MARK}{os.getpid()}-{id(data)}")
    atomic.atomic_write(str(tmp), data, mode=NEW_FILE_MODE if mode is None else mode)
    try:
        _swap_in(tmp, target, want)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _swap_in(tmp: Path, target: Path, want: str | None) -> None:
    """Put `tmp` at `target` only if `target` holds the content digested as `want`."""
    if want is None:
        try:
            os.link(tmp, target)  # creates the file only if nobody else has meanwhile
        except FileExistsError:
            raise Changed(f"{target} appeared while arcguard was creating it") from None
        return
    if _digest(read_regular(target)) != want:
        raise Changed(f"{target} changed while arcguard was updating it")
    if not _exchange(tmp, target):
        os.replace(tmp, target)  # no atomic exchange here: the check above has to do
        return
    # The exchange left at `tmp` the file it displaced: if that is not the one checked, a
    # writer replaced it in between, so its file goes back and the merge is redone.
    if _digest(read_regular(tmp)) != want:
        _exchange(tmp, target)
        raise Changed(f"{target} changed while arcguard was updating it")


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_cwd, rename_exchange = -100, 2
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    # A new settings file is not secret (a project's is committed): readable like any config.
    atomic.atomic_write(str(path), data, mode=NEW_FILE_MODE if mode is None else mode)
