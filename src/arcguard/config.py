"""Load the config: TOML file < `ARCGUARD_*` environment, over the defaults in `core.config`."""

from __future__ import annotations

import os

from arcguard import paths
from arcguard.core.config import DEFAULTS
from arcguard.core.config import Config
from arcguard.core.config import build_config


ENV_PREFIX = "ARCGUARD_"


def env_values(environ: dict[str, str] | os._Environ[str] = os.environ) -> dict[str, object]:
    return {name: environ[ENV_PREFIX + name.upper()] for name in DEFAULTS
            if ENV_PREFIX + name.upper() in environ}


def file_values(path: str) -> tuple[dict[str, object], list[str]]:
    """The settings in the TOML file at `path` ({} when it does not exist) and any problem."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1024 * 1024)
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"config file {path}: {exc.strerror}"]
    import tomllib  # only when a config file exists: it costs the hook path otherwise

    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"config file {path}: {exc}"]
    section = parsed.get("arcguard", parsed)
    if not isinstance(section, dict):
        return {}, [f"config file {path}: [arcguard] is not a table"]
    return section, []


def load_config(
    environ: dict[str, str] | os._Environ[str] = os.environ, path: str | None = None
) -> tuple[Config, list[str]]:
    """The effective config and every problem found (each problem's default applies)."""
    values, problems = file_values(path or paths.config_path(environ))
    config, more = build_config(values, env_values(environ))
    return config, problems + more
