"""The status lines `install --statusline --force` replaced, kept until `uninstall` puts them
back.

The settings file's backup (`<file>.arcguard.bak`) holds only the version before the last
write, and the next install or uninstall overwrites it: a status line of the user's own kept
only there would be lost. So the line arcguard replaces is also kept in a record of its own,
`replaced-statusline.json` in the state directory, keyed by the real path of the settings
file, as the exact text it had in the file, so that uninstall restores the original bytes.
The record is written atomically under its lock, like every file of the state directory.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from arcguard.claude_settings import json_text
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings.merge_plan import SettingsError
from arcguard.errors import ArcguardError
from arcguard.storage import atomic
from arcguard.storage import paths


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from arcguard.jsonio import JSONObject

NAME = "replaced-statusline.json"
SCHEMA = 1
# One entry per settings file: a few of them, each a short line of JSON.
MAX_BYTES = 1024 * 1024
LOCK_TIMEOUT_S = 5.0


class RecordError(ArcguardError):
    """The record cannot be read or written: nothing is changed, so nothing is lost."""


def record_path(environ: Mapping[str, str]) -> str:
    try:
        return os.path.join(paths.state_dir(dict(environ)), NAME)
    except paths.UnusablePath as exc:
        raise RecordError(str(exc)) from None


def _key(settings_file: Path) -> str:
    return os.path.realpath(settings_file)


def _entries(path: str) -> JSONObject:
    try:
        data = cc.read_regular(Path(path), MAX_BYTES)
        value = json_text.loads(data.decode("utf-8")) if data is not None else {}
    except (SettingsError, UnicodeDecodeError, json_text.JsonRefused) as exc:
        raise RecordError(f"{path} is unusable ({exc})") from None
    entries = value.get("replaced", {}) if isinstance(value, dict) else None
    if not isinstance(value, dict) or not isinstance(entries, dict):
        raise RecordError(f"{path} is not a record this arcguard wrote")
    if value and value.get("schema") != SCHEMA:
        raise RecordError(f"{path} is not a record this arcguard wrote")
    return entries


def kept(environ: Mapping[str, str], settings_file: Path) -> str | None:
    """The exact text of the status line replaced in `settings_file`, or None."""
    entry = _entries(record_path(environ)).get(_key(settings_file))
    text = entry.get("statusLine") if isinstance(entry, dict) else None
    return text if isinstance(text, str) else None


def keep(environ: Mapping[str, str], settings_file: Path, text: str) -> None:
    """Record `text` (a status line's exact JSON) as what was replaced in `settings_file`."""
    entry = {"statusLine": text, "at": time.time()}
    _change(environ, lambda entries: {**entries, _key(settings_file): entry})


def forget(environ: Mapping[str, str], settings_file: Path) -> None:
    """Drop what was kept for `settings_file`; with no record at all, touch nothing (uninstall
    leaves the state directory alone, and does not create one)."""
    if not os.path.lexists(record_path(environ)):
        return
    key = _key(settings_file)
    _change(environ, lambda entries: {k: v for k, v in entries.items() if k != key})


def _change(environ: Mapping[str, str], edit: Callable[[JSONObject], JSONObject]) -> None:
    import json

    path = record_path(environ)
    try:
        paths.ensure_dir(os.path.dirname(path))
        with atomic.locked(path, LOCK_TIMEOUT_S):
            entries = _entries(path)
            new = edit(entries)
            if new == entries:
                return
            document = {"schema": SCHEMA, "replaced": new}
            atomic.atomic_write(path, (json.dumps(document, indent=2) + "\n").encode())
    except OSError as exc:
        raise RecordError(f"cannot write {path}: {exc}") from None
