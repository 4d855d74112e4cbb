"""Each record is written twice: a TypedDict for mypy (`core.schema`) and a validator for loading
(`core.validation`); and the `Config` annotations beside the `SETTINGS` table. These tests
compare the copies key by key, so that a field added to one copy only fails here instead of
passing mypy, ruff and every test."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from arcguard.core import config
from arcguard.core import schema
from arcguard.core import validation


SCHEMA_SOURCE = Path(schema.__file__)

# TypedDict -> the validator of the same record.
VALIDATED = {
    "Milestone": validation.MILESTONE,
    "Arc": validation.ARC,
    "Run": validation.RUN,
    "Operation": validation.OPERATION,
    "Turn": validation.TURN,
    "TurnCall": validation.TURN_CALL,
    "OpenTurn": validation.OPEN_TURN,
    "Unconfirmed": validation.UNCONFIRMED,
    "Poll": validation.POLL,
    "Stuck": validation.STUCK,
    "Track": validation.TRACK,
    "Pause": validation.PAUSE,
    "Guard": validation.GUARD,
    "Seen": validation.SEEN,
    "LastApiError": validation.LAST_API_ERROR,
    "LogEntry": validation.LOG_ENTRY,
    "LimitWait": validation.LIMIT_WAIT,
    "StateFile": validation.STATE,
}
# TypedDicts of what is never loaded from a file: the hook output arcguard builds.
UNVALIDATED = {"HookSpecificOutput", "Output"}
# Validators with no TypedDict: `Events` is a map of counters with one known key.
MAPS = {validation.EVENTS}


def _is_typeddict(node: ast.ClassDef) -> bool:
    return any(isinstance(base, ast.Name) and base.id == "TypedDict" for base in node.bases)


def _total(node: ast.ClassDef) -> bool:
    for keyword in node.keywords:
        if keyword.arg == "total" and isinstance(keyword.value, ast.Constant):
            return bool(keyword.value.value)
    return True


def _wrapper(annotation: ast.expr) -> str | None:
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        return annotation.value.id
    return None


def _fields(node: ast.ClassDef) -> tuple[set[str], set[str]]:
    """(every field, the required ones) of a class-form TypedDict."""
    names: set[str] = set()
    required: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            names.add(item.target.id)
            wrapper = _wrapper(item.annotation)
            if wrapper == "Required" or (wrapper != "NotRequired" and _total(node)):
                required.add(item.target.id)
    return names, required


def _typeddicts() -> dict[str, tuple[set[str], set[str]]]:
    tree = ast.parse(SCHEMA_SOURCE.read_text(encoding="utf-8"))
    found: dict[str, tuple[set[str], set[str]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _is_typeddict(node):
            found[node.name] = _fields(node)
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "TypedDict"
        ):
            # The functional form (`Output`): names only, it is never validated.
            target = node.targets[0]
            assert isinstance(target, ast.Name)
            found[target.id] = (set(), set())
    return found


TYPEDDICTS = _typeddicts()


def test_every_typeddict_is_classified() -> None:
    assert set(TYPEDDICTS) == set(VALIDATED) | UNVALIDATED


def test_every_validator_record_has_its_typeddict() -> None:
    assert set(validation.SHAPES) == set(VALIDATED.values()) | MAPS


@pytest.mark.parametrize("name", sorted(VALIDATED))
def test_typeddict_and_validator_have_the_same_fields(name: str) -> None:
    names, _ = TYPEDDICTS[name]
    fields, _ = validation.SHAPES[VALIDATED[name]]
    assert sorted(fields) == sorted(names)


@pytest.mark.parametrize("name", sorted(VALIDATED))
def test_typeddict_and_validator_require_the_same_fields(name: str) -> None:
    _, required = TYPEDDICTS[name]
    _, checked = validation.SHAPES[VALIDATED[name]]
    assert sorted(checked) == sorted(required)


def test_events_knows_the_last_api_error() -> None:
    fields, required = validation.SHAPES[validation.EVENTS]
    assert fields == {"last_api_error": validation.LAST_API_ERROR}
    assert required == ()


# A setting's kind -> the type its `Config` attribute holds.
KIND_TYPES: dict[str, object] = {
    config.INT: int,
    config.ENUM: str,
    config.BOOL: bool,
    config.LIST: tuple[str, ...],
    config.ARGV: tuple[str, ...],
}
ANNOTATIONS = typing.get_type_hints(config.Config)


def test_config_annotates_every_setting_and_nothing_else() -> None:
    assert sorted(ANNOTATIONS) == sorted(setting.name for setting in config.SETTINGS)


@pytest.mark.parametrize("setting", config.SETTINGS, ids=lambda s: s.name)
def test_config_annotation_has_the_settings_type(setting: config.Setting) -> None:
    assert ANNOTATIONS.get(setting.name) == KIND_TYPES[setting.kind]


@pytest.mark.parametrize("setting", config.SETTINGS, ids=lambda s: s.name)
def test_setting_default_has_its_kinds_type(setting: config.Setting) -> None:
    default = setting.default
    if setting.kind in (config.LIST, config.ARGV):
        assert isinstance(default, tuple)
        assert all(isinstance(item, str) for item in default)
    else:
        assert type(default) is KIND_TYPES[setting.kind]


def test_each_setting_is_declared_once_as_a_config_field_in_order() -> None:
    fields = [name for name in vars(config.Config) if name in ANNOTATIONS]
    assert fields == [setting.name for setting in config.SETTINGS]
    # The declarations are gone once the class is made: each field holds its default.
    assert not any(isinstance(held, config.Setting) for held in vars(config.Config).values())
    assert config.default_config().as_dict() == config.DEFAULTS
