"""What a long-lived process keeps of the state it wrote (`store.keep_written`), and of its
config (`KeptConfig`): used only while the file is the one it saw, read again otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arcguard.core.state import fresh_state
from arcguard.storage import config_file
from arcguard.storage import paths
from arcguard.storage import store


SID = "5a1e0d2c-0000-4000-8000-00000000c0de"
NOW = 1_700_000_000.0


@pytest.fixture
def keeping() -> Iterator[str]:
    store.keep_written()
    try:
        yield os.environ["ARCGUARD_HOME"]
    finally:
        store.keep_written(0)


def _seen(home: str) -> list[object]:
    """Run one update that changes nothing but `updated`; what its change was given."""
    given: list[object] = []

    def change(state):
        given.append(state)
        return (state or fresh_state(SID, NOW)), None

    store.update(home, SID, change, now=NOW, lock_timeout=5.0)
    return given


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = store._read

    def counted(path: str):
        reads.append(path)
        return real(path)

    monkeypatch.setattr(store, "_read", counted)
    return reads


def test_the_next_update_uses_what_this_process_wrote_without_reading_the_file(
    keeping, monkeypatch
):
    _seen(keeping)
    reads = _reads(monkeypatch)
    [state] = _seen(keeping)
    assert reads == []
    assert state is not None and state["session_id"] == SID
    # Each update gets a state object of its own, parsed as the file would be.
    [again] = _seen(keeping)
    assert again == state and again is not state


def test_a_write_by_another_process_between_two_updates_is_read_from_disk(keeping, monkeypatch):
    _seen(keeping)
    subprocess.run(
        [sys.executable, "-m", "arcguard", "arc", "set", SID, "elsewhere"],
        check=True,
        capture_output=True,
        env={**os.environ, "ARCGUARD_HOME": keeping},
    )
    reads = _reads(monkeypatch)
    [state] = _seen(keeping)
    assert reads == [paths.session_path(keeping, SID)]
    assert state["arc"]["slug"] == "elsewhere"


def test_a_file_damaged_in_place_is_not_taken_from_memory_and_fails_open(keeping):
    _seen(keeping)
    path = paths.session_path(keeping, SID)
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # the same inode, other bytes
    os.write(fd, b"{not json")
    os.close(fd)
    assert _seen(keeping) == [None]  # a fresh start, as for any corrupt state
    sessions = os.listdir(os.path.dirname(path))
    assert any(name.startswith(os.path.basename(path) + ".corrupt-") for name in sessions)


def test_a_removed_file_is_not_taken_from_memory(keeping):
    _seen(keeping)
    os.unlink(paths.session_path(keeping, SID))
    assert _seen(keeping)[-1] is None


def test_a_process_that_did_not_opt_in_keeps_nothing(monkeypatch):
    home = os.environ["ARCGUARD_HOME"]
    _seen(home)
    reads = _reads(monkeypatch)
    _seen(home)
    assert reads == [paths.session_path(home, SID)]
    assert store._written == {}


def test_at_most_the_limit_is_kept_and_what_goes_is_closed(keeping):
    store.keep_written(2)
    assert _open_under(keeping) in (0, None)
    for n in range(4):
        store.update(
            keeping,
            f"session-{n}",
            lambda state, n=n: (state or fresh_state(f"session-{n}", NOW), None),
            now=NOW,
            lock_timeout=5.0,
        )
    assert list(store._written) == [
        paths.session_path(keeping, "session-2"),
        paths.session_path(keeping, "session-3"),
    ]
    if _open_under(keeping) is not None:
        # What goes is closed on a thread of its own: wait for it (bounded), never for time.
        assert _eventually(lambda: _open_under(keeping) == 2)
    store.keep_written(0)
    assert store._written == {}
    if _open_under(keeping) is not None:
        assert _eventually(lambda: _open_under(keeping) == 0)


def _open_under(folder) -> int | None:
    """How many of this process's open files lie in `folder`, where the system tells
    (other tests' threads may open and close files of their own meanwhile)."""
    if not os.path.isdir("/proc/self/fd"):
        return None
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(f"{os.path.realpath(folder)}{os.sep}")
    return count


def _eventually(check) -> bool:
    deadline = time.monotonic() + 10
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_kept_config_is_read_again_only_when_its_file_changes(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    kept = config_file.KeptConfig({"ARCGUARD_CONFIG": str(config)})
    loads: list[str | None] = []
    real = config_file.load_config

    def counted(environ, path=None):
        loads.append(path)
        return real(environ, path)

    monkeypatch.setattr(config_file, "load_config", counted)
    default = kept.config().repeat_limit
    assert kept.config().repeat_limit == default and len(loads) == 1  # no file: read once
    config.write_text(f"repeat_limit = {default + 3}\n")
    assert kept.config().repeat_limit == default + 3
    assert kept.config().repeat_limit == default + 3 and len(loads) == 2
    config.write_text(f"repeat_limit = {default + 4}\n")  # the same size, rewritten
    assert kept.config().repeat_limit == default + 4
    config.unlink()
    assert kept.config().repeat_limit == default
    assert len(loads) == 4


def test_a_kept_config_of_an_unreadable_path_is_read_every_time(tmp_path):
    kept = config_file.KeptConfig({"ARCGUARD_CONFIG": str(tmp_path / "bad\0name.toml")})
    # Its status cannot be had, so nothing is kept: it is loaded (and its problem found) as
    # it would be without keeping.
    assert kept.config() == config_file.load_config(kept.environ)[0]
    assert kept.seen is None


def test_state_read_by_path_is_unaffected(keeping):
    _seen(keeping)
    assert store.read_session(keeping, SID) == store.read_state(paths.session_path(keeping, SID))
    assert Path(paths.session_path(keeping, SID)).is_file()
