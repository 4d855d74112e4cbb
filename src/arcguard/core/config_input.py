"""Raw setting values, from the config file or the environment, read into usable ones.

A value outside its key's range is rejected, never clamped: the default applies and the
problem names the key and the value, so `doctor` can show exactly what was ignored and a typo
such as `0` never quietly becomes a different number than the one written.

Pure: `arcguard.storage.config_file` reads the TOML file and the `ARCGUARD_*` environment and
hands the raw values to `build_config`.
"""

from __future__ import annotations

from arcguard.core.config import ARGV
from arcguard.core.config import BOOL
from arcguard.core.config import ENUM
from arcguard.core.config import ITEM_CHARS
from arcguard.core.config import LIST
from arcguard.core.config import SETTING
from arcguard.core.config import make_config
from arcguard.errors import ArcguardError
from arcguard.text import clip


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from arcguard.core.config import Config
    from arcguard.core.config import Setting
    from arcguard.core.config import Value

# An integer setting is at most this many digits: enough for every range in the table, and it
# keeps a hostile value from reaching `int()`'s slow or refused conversions.
MAX_DIGITS = 12

# Switches: true/false in TOML; 1/0, true/false, yes/no, on/off in the environment.
_BOOLEAN_WORDS = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
}


class ConfigError(ArcguardError, ValueError):
    """A config value that cannot be used; the message names the key and the value."""


def shown(raw: object) -> str:
    """`raw` for a problem message: repr, cut short (a hostile value can be megabytes)."""
    return clip(repr(raw), 60)


def parse_int(raw: object) -> int | None:
    """An int from an int or a plain ASCII decimal string (`-` allowed once), else None.

    `str.isdigit` accepts `²` and other Unicode digits that `int` refuses, so only 0-9 count.
    """
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    digits = text[1:] if text.startswith("-") else text
    if not digits or len(digits) > MAX_DIGITS or digits.strip("0123456789"):
        return None
    return int(text)


def _coerce_list(setting: Setting, raw: object) -> tuple[str, ...]:
    if isinstance(raw, str):
        items = tuple(part.strip() for part in raw.split(",") if part.strip())
    elif isinstance(raw, list | tuple) and all(isinstance(x, str) for x in raw):
        items = tuple(raw)
    else:
        raise ConfigError(f"{setting.name}: expected a list of strings, got {shown(raw)}")
    if len(items) > setting.high or any(len(item) > ITEM_CHARS for item in items):
        raise ConfigError(
            f"{setting.name}: at most {setting.high} items of at most {ITEM_CHARS} characters"
        )
    return items


def _coerce_enum(setting: Setting, raw: object) -> str:
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in setting.choices:
        return word
    raise ConfigError(f"{setting.name}: {shown(raw)} is not one of {', '.join(setting.choices)}")


def _coerce_int(setting: Setting, raw: object) -> int:
    value = parse_int(raw)
    if value is None:
        kind = "a boolean" if isinstance(raw, bool) else shown(raw)
        raise ConfigError(f"{setting.name}: expected an integer, got {kind}")
    if value < setting.low:
        raise ConfigError(f"{setting.name}: {shown(raw)} is below the minimum {setting.low}")
    if value > setting.high:
        raise ConfigError(f"{setting.name}: {shown(raw)} is above the maximum {setting.high}")
    return value


def coerce_setting(setting: Setting, raw: object) -> Value:
    """The usable value of `setting` from `raw`; ConfigError when it has none."""
    if setting.kind == LIST:
        return _coerce_list(setting, raw)
    if setting.kind == ARGV:
        return _coerce_list(setting, _argv(setting.name, raw) if isinstance(raw, str) else raw)
    if setting.kind == ENUM:
        return _coerce_enum(setting, raw)
    if setting.kind == BOOL:
        return _coerce_bool(setting.name, raw)
    return _coerce_int(setting, raw)


def _argv(name: str, raw: str) -> object:
    """An argv given as text (the environment): a JSON array of strings, never a shell line,
    and never split on commas, which would break arguments that hold one."""
    from arcguard import jsonio

    try:
        return jsonio.loads(raw.encode("utf-8", "surrogatepass")) if raw.strip() else []
    except (jsonio.JSONError, UnicodeError):
        raise ConfigError(f"{name}: expected a JSON array of strings, got {raw!r}") from None


def _coerce_bool(name: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[raw.strip().lower()]
    raise ConfigError(f"{name}: expected true or false, got {raw!r}")


def build_config(
    file_values: Mapping[str, object], env_values: Mapping[str, object]
) -> tuple[Config, list[str]]:
    """Merge defaults < file < environment. Returns the config and a list of problems.

    Never raises: an unknown key or a bad value is reported and that key's default applies
    (a bad environment value does not fall back to the file's: what was set is not used).
    """
    problems: list[str] = []
    values: dict[str, Value] = {}
    for source, raw_values in (("config file", file_values), ("environment", env_values)):
        for name, raw in raw_values.items():
            if name not in SETTING:
                problems.append(f"{source}: unknown setting {shown(name)}")
                continue
            try:
                values[name] = coerce_setting(SETTING[name], raw)
            except ConfigError as exc:
                values.pop(name, None)
                problems.append(f"{source}: {exc}")
    return make_config(values), problems
