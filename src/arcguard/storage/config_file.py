"""Load the config: TOML file < `ARCGUARD_*` environment, over the defaults in `core.config`."""

from __future__ import annotations

import os

from arcguard.core.config import DEFAULTS
from arcguard.core.config import Config
from arcguard.core.config import default_config
from arcguard.storage import paths
from arcguard.storage import regular_file
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


ENV_PREFIX = "ARCGUARD_"
# A config file is a few hundred bytes; a megabyte leaves room for any comment.
MAX_CONFIG_BYTES = 1024 * 1024


def env_values(environ: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, object]:
    return {
        name: environ[ENV_PREFIX + name.upper()]
        for name in DEFAULTS
        if ENV_PREFIX + name.upper() in environ
    }


def file_values(path: str) -> tuple[dict[str, object], list[str]]:
    """The settings in the TOML file at `path` ({} when it does not exist) and any problem.

    Read as every file named from outside is: a FIFO or a device at the config path is
    refused at once (every hook and `status` would otherwise wait on it), and so is a file
    far larger than any config; the defaults then apply.
    """
    try:
        data = regular_file.read_bytes(path, MAX_CONFIG_BYTES)
    except regular_file.Refused as exc:
        if exc.reason == regular_file.MISSING:
            return {}, []
        return {}, [f"config file {exc}"]
    import tomllib  # only when a config file exists: it costs the hook path otherwise

    try:
        text = data.decode("utf-8")
        parsed = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"config file {path}: {exc}"]
    except ValueError:
        # Valid TOML that Python refuses to convert (an integer of thousands of digits): keep
        # every other line's setting and report the ones that cannot be read.
        return _salvage(tomllib, text, path)
    section = parsed.get("arcguard", parsed)
    if not isinstance(section, dict):
        return {}, [f"config file {path}: [arcguard] is not a table"]
    return section, []


def _salvage(tomllib: Any, text: str, path: str) -> tuple[dict[str, object], list[str]]:
    """The file's settings read line by line: each `key = value` line as a document of its own.

    Table headers are skipped: the settings all live in one table (or at the top level).
    """
    found: dict[str, object] = {}
    problems = []
    for line in text.splitlines():
        if line.lstrip().startswith("["):
            continue
        try:
            found.update(tomllib.loads(line))
        except ValueError:
            key = line.partition("=")[0].strip()[:60]
            problems.append(f"config file {path}: {key}: the value cannot be read")
    return found, problems


def load_config(
    environ: dict[str, str] | os._Environ[str] = os.environ, path: str | None = None
) -> tuple[Config, list[str]]:
    """The effective config and every problem found (each problem's default applies)."""
    values, problems = file_values(path or paths.config_path(environ))
    env = env_values(environ)
    if not values and not env:
        return default_config(), problems  # the usual run: nothing to read, nothing to import
    from arcguard.core.config_input import build_config

    config, more = build_config(values, env)
    return config, problems + more


@value
class KeptConfig:
    """The config of a long-lived process whose environment does not change (the resident
    server, an SDK application): loaded once, and again only once the config file's status
    (one `stat` per call) says it changed, was created or was removed."""

    environ: dict[str, str]
    seen: tuple[tuple[int, ...], Config] | None = None

    def config(self) -> Config:
        path = paths.config_path(self.environ)
        try:
            info = os.stat(path)
            mark: tuple[int, ...] = (
                info.st_dev,
                info.st_ino,
                info.st_size,
                info.st_mtime_ns,
                info.st_ctime_ns,
            )
        except FileNotFoundError:
            mark = ()
        except (OSError, ValueError):
            return load_config(self.environ, path)[0]  # cannot tell: read it each time
        seen = self.seen
        if seen is not None and seen[0] == mark:
            return seen[1]
        config = load_config(self.environ, path)[0]
        # Changed again while it was read: the next call sees a new status and reads it again.
        self.seen = (mark, config)
        return config
