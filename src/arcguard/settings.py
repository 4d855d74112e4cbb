"""Claude Code settings files on disk: where they are, load, diff and write them safely."""

from __future__ import annotations

import os
from pathlib import Path

from arcguard import fsutil
from arcguard.install_plan import SettingsError


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    Settings = dict[str, Any]

SCOPES = ("user", "project", "local")
BACKUP_SUFFIX = ".arcguard.bak"
DEFAULT_INDENT = 2


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


def commands_dir(scope: str, project: Path, environ: Mapping[str, str]) -> Path:
    """Where a scope's slash commands live (Claude Code has no local-only commands folder)."""
    if scope == "user":
        return claude_dir(environ) / "commands"
    return project / ".claude" / "commands"


def load(path: Path) -> tuple[Settings, str | None]:
    """(settings, the file's text); ({}, None) when the file does not exist.

    Raises SettingsError for a file that is not a JSON object: it is left untouched.
    """
    import json

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}, text
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SettingsError(f"{path} is not valid JSON ({exc}); fix or move it, then run "
                            "this again") from None
    if not isinstance(value, dict):
        raise SettingsError(f"{path} does not hold a JSON object; fix or move it")
    return value, text


def detect_indent(text: str | None) -> int:
    """The indent width the file already uses (2 when it cannot tell)."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" ")
        if stripped and len(stripped) < len(line):
            return len(line) - len(stripped)
    return DEFAULT_INDENT


def render(settings: Mapping[str, Any], indent: int = DEFAULT_INDENT) -> str:
    import json

    return json.dumps(settings, indent=indent, ensure_ascii=False) + "\n"


def unified_diff(old: str | None, new: str, path: Path) -> str:
    import difflib

    before = (old or "").splitlines(keepends=True)
    after = new.splitlines(keepends=True)
    label = str(path)
    return "".join(difflib.unified_diff(before, after, label if old is not None else "/dev/null",
                                        label))


NEW_FILE_MODE = 0o644


def write(path: Path, text: str) -> Path | None:
    """Replace `path` with `text` atomically, keeping its mode; return the backup made, if any.

    A symlinked settings file (a dotfiles checkout) is written through to its target, so the
    link survives. The previous content is copied to `<file>.arcguard.bak` first.
    """
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    backup: Path | None = None
    mode: int | None = None
    try:
        info = target.stat()
        mode = info.st_mode & 0o7777
        backup = target.with_name(target.name + BACKUP_SUFFIX)
        _atomic_write(backup, target.read_bytes(), mode)
    except FileNotFoundError:
        pass
    _atomic_write(target, text.encode("utf-8"), mode)
    return backup


def _atomic_write(path: Path, data: bytes, mode: int | None) -> None:
    # A new settings file is not secret (a project's is committed): readable like any config.
    fsutil.atomic_write(str(path), data, mode=NEW_FILE_MODE if mode is None else mode)
