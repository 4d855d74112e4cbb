"""Config given to the SDK hooks as arguments: written as the `ARCGUARD_*` environment
entries the hooks (and the commands the model runs in the session) read, so that one config
reaches both, with the file < environment < arguments order of the CLI."""

from __future__ import annotations

import json

from arcguard.core.config import SETTING
from arcguard.core.config_input import ConfigError
from arcguard.core.config_input import build_config
from arcguard.storage.config_file import ENV_PREFIX


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    Setting = str | int | float | bool | Sequence[str]


def with_settings(
    environ: Mapping[str, str], settings: Mapping[str, Setting] | None
) -> dict[str, str]:
    """`environ` with each setting as its environment entry. Raises ConfigError (a ValueError),
    naming the key, for an unknown key or a refused value: an argument is never ignored."""
    found = dict(environ)
    for name, raw in (settings or {}).items():
        if name not in SETTING:
            raise ConfigError(f"arcguard: unknown setting {name!r}")
        text = env_text(raw)
        _, problems = build_config({}, {name: text})
        if problems:
            raise ConfigError(f"arcguard: {'; '.join(problems)}")
        found[ENV_PREFIX + name.upper()] = text
    return found


def env_text(raw: Setting) -> str:
    """A setting as the environment spells it: 1/0, a number, a JSON array, or the text."""
    if isinstance(raw, bool):
        return "1" if raw else "0"
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int | float):
        return str(raw)
    return json.dumps(list(raw))
