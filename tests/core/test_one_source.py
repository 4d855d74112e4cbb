"""Each state record's fields are declared once (`core.schema`), and the check a loaded file
must pass is derived from them; and the `Config` annotations beside the `SETTINGS` table. These
tests hold what the declarations cannot: a default that its own check would refuse, a record
whose check lost a field, and the `Config` copy of each setting."""

from __future__ import annotations

import typing

import pytest

from arcguard.core import config
from arcguard.core import loop_records
from arcguard.core import schema
from arcguard.core import validation


RECORDS = sorted(
    {
        kind
        for kind in [*vars(schema).values(), *vars(loop_records).values()]
        if isinstance(kind, type)
        and issubclass(kind, validation.Record)
        and kind is not validation.Record
    },
    key=lambda kind: kind.__name__,
)


def test_the_state_records_are_found() -> None:
    assert {kind.__name__ for kind in RECORDS} >= {"StateFile", "Guard", "Track", "Run"}


@pytest.mark.parametrize("kind", RECORDS, ids=lambda kind: kind.__name__)
def test_every_field_is_annotated(kind: type[validation.Record]) -> None:
    assert list(kind.fields) == [name for name in kind.__annotations__ if not name.startswith("_")]


@pytest.mark.parametrize("kind", RECORDS, ids=lambda kind: kind.__name__)
def test_every_default_passes_its_fields_check(kind: type[validation.Record]) -> None:
    for name, declared in kind.fields.items():
        if declared.factory is not None:
            assert declared.check(declared.factory()) is None, name
        elif declared.default is not None and declared.default is not validation.MISSING:
            assert declared.check(declared.default) is None, name


@pytest.mark.parametrize("kind", RECORDS, ids=lambda kind: kind.__name__)
def test_a_field_of_the_wrong_type_fails_the_records_check(kind: type[validation.Record]) -> None:
    for name in kind.fields:
        assert kind.check({name: object()}) is not None, name


def test_events_counts_by_name_beside_the_last_api_error() -> None:
    assert list(schema.Events.fields) == ["last_api_error"]
    assert schema.Events.check({"Stop": 3, "last_api_error": {"error": "x", "at": 1.0}}) is None
    assert schema.Events.check({"Stop": "3"}) == ".Stop: expected an integer"


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
