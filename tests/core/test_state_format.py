"""The state file's format across releases: the previous release's files load, and this version
writes the very documents it wrote.

`tests/fixtures/state-format/` holds every state the previous release's hooks wrote while
replaying a few labelled sessions (loops denied and paused, a subagent's track, an arc sent back
to work and one released), written by `python -m testing.state_samples` with that release's
code. Were a field renamed, retyped, given another default or left out, a replay here would
write something else, or a loaded file would read wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing import state_samples
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core import schema
from arcguard.core.validation import Keyed
from arcguard.core.validation import Many
from arcguard.core.validation import Record
from arcguard.storage import store


FIXTURES = sorted(state_samples.OUT.glob("*.json"))


def _samples(path: Path) -> tuple[bool, list[object]]:
    document = json.loads(path.read_text())
    return bool(document["arc"]), list(document["states"])


def _read_every_field(record: Record) -> int:
    """Read each field of `record` and of the records inside it; the number of fields read."""
    count = 0
    for name, declared in type(record).fields.items():
        value = getattr(record, name)
        count += 1
        if value is not None and declared.check(_json(value)) is not None:
            raise AssertionError(f"{type(record).__name__}.{name} reads as {value!r}")
        inner = value.values() if isinstance(value, Keyed) else value
        if isinstance(inner, Record):
            count += _read_every_field(inner)
        elif isinstance(value, Many | Keyed):
            count += sum(_read_every_field(item) for item in inner)
    return count


def _json(value: object) -> object:
    if isinstance(value, Record):
        return value.data
    if isinstance(value, Many | Keyed):
        return value.items
    return value


def test_the_samples_are_there():
    assert {path.stem for path in FIXTURES} == {
        name.removesuffix(".jsonl") for name, _ in state_samples.SAMPLES
    }


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_the_previous_releases_files_load_and_read_through_the_records(path, tmp_path):
    _, states = _samples(path)
    assert states
    for n, written in enumerate(states):
        file = tmp_path / f"{n}.json"
        file.write_text(json.dumps(written))
        loaded = store.read_state(str(file))
        assert loaded == written
        assert schema.problem(loaded) is None
        assert _read_every_field(schema.StateFile.view(loaded)) >= len(schema.StateFile.fields)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_this_version_writes_what_the_previous_release_wrote(path):
    arc, states = _samples(path)
    replayed = state_samples.states(state_samples.SUITE / f"{path.stem}.jsonl", arc)
    assert len(replayed) == len(states)
    for n, (ours, theirs) in enumerate(zip(replayed, states, strict=True)):
        # Key order too: the same document, byte for byte.
        assert json.dumps(ours) == json.dumps(theirs), f"state {n} differs"


def test_a_late_turn_kept_the_earlier_way_loads_and_stays_counted():
    # Releases up to 0.1 counted a late turn as tool-only at once and kept its ids in
    # `unconfirmed`; this version keeps such a turn pending instead. A file written the
    # earlier way still loads, and the next batch drops the field and keeps the count.
    d = Driver()
    d.turn(bash("echo A"))
    track = schema.StateFile.view(d.state).guard.tracks["main"]
    track.unconfirmed = schema.Unconfirmed(ids=["toolu_x"], counted=True)
    assert schema.problem(d.state) is None
    d.turn(bash("echo B"))
    assert "unconfirmed" not in d.main and "pending" not in d.main
    assert d.main["streak"] == 2
