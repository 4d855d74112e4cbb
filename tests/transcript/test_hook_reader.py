"""The hook path's transcript lookups: a call's entry that Claude Code has not flushed yet."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from testing.builders import append_transcript
from testing.builders import assistant_entries
from testing.builders import text
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard import jsonio
from arcguard.transcript import hook_reader


class FakeClock:
    """Stands in for the `time` module: sleeping advances the clock and may flush entries."""

    def __init__(self, on_sleep=None):
        self.now = 0.0
        self.sleeps = 0
        self.on_sleep = on_sleep

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps += 1
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep()
            self.on_sleep = None


@pytest.fixture
def clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(
        hook_reader, "time", SimpleNamespace(monotonic=fake.monotonic, sleep=fake.sleep)
    )
    return fake


def _call(tool_id):
    return assistant_entries(
        text("Checking."), tool_use("Bash", {"command": "ls"}, tool_id=tool_id)
    )


def test_an_entry_flushed_during_the_wait_is_found(tmp_path, clock):
    path = write_transcript(tmp_path / "t.jsonl", _call("toolu_old"))
    clock.on_sleep = lambda: append_transcript(path, _call("toolu_new"))
    message = hook_reader.message_with_tool(str(path), {"toolu_new"}, 1 << 20, wait_s=0.3)
    assert message is not None and message.text == "Checking."
    assert clock.sleeps == 1


def test_an_entry_already_on_disk_costs_no_wait(tmp_path, clock):
    path = write_transcript(tmp_path / "t.jsonl", _call("toolu_here"))
    assert hook_reader.message_with_tool(str(path), {"toolu_here"}, 1 << 20, wait_s=0.3)
    assert clock.sleeps == 0


def test_an_entry_that_never_lands_is_given_up_on_when_the_wait_is_spent(tmp_path, clock):
    path = write_transcript(tmp_path / "t.jsonl", _call("toolu_old"))
    assert hook_reader.message_with_tool(str(path), {"toolu_gone"}, 1 << 20, wait_s=0.3) is None
    assert 0 < clock.sleeps * hook_reader.SETTLE_POLL_S <= 0.3


def test_without_a_wait_a_missing_entry_is_not_waited_for(tmp_path, clock):
    path = write_transcript(tmp_path / "t.jsonl", _call("toolu_old"))
    assert hook_reader.message_with_tool(str(path), {"toolu_new"}, 1 << 20) is None
    assert clock.sleeps == 0


def test_an_unreadable_transcript_is_not_waited_for(tmp_path, clock):
    missing = str(tmp_path / "nowhere.jsonl")
    assert hook_reader.message_with_tool(missing, {"toolu_new"}, 1 << 20, wait_s=0.3) is None
    assert clock.sleeps == 0


def test_a_version_flushed_during_the_wait_is_found(tmp_path, clock):
    path = tmp_path / "t.jsonl"
    clock.on_sleep = lambda: write_transcript(
        path, assistant_entries(text("hi"), version="2.1.328")
    )
    assert hook_reader.tail_marks(str(path), 1 << 20, wait_s=0.3).version == "2.1.328"
    assert clock.sleeps == 1


def test_no_version_costs_at_most_the_wait(tmp_path, clock):
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("hi")))
    assert hook_reader.tail_marks(str(path), 1 << 20, wait_s=0.3).version is None
    assert clock.now <= 0.3


def _parses(monkeypatch) -> list[bytes]:
    seen: list[bytes] = []
    real = jsonio.loads

    def counted(line):
        seen.append(line)
        return real(line)

    monkeypatch.setattr(jsonio, "loads", counted)
    return seen


def test_a_tail_that_never_names_the_call_is_not_parsed(tmp_path, monkeypatch):
    # The turn's message is often not on disk yet: finding that out must not parse the tail.
    path = write_transcript(tmp_path / "t.jsonl", [e for n in range(50) for e in _call(f"t{n}")])
    parsed = _parses(monkeypatch)
    assert hook_reader.message_with_tool(str(path), {"toolu_not_yet"}, 1 << 20) is None
    assert parsed == []


def test_entries_newer_than_the_call_of_its_own_message_are_still_merged(tmp_path):
    entries = assistant_entries(
        text("Two at once."),
        tool_use("Bash", {"command": "ls"}, tool_id="toolu_first"),
        tool_use("Bash", {"command": "pwd"}, tool_id="toolu_second"),
    )
    path = write_transcript(tmp_path / "t.jsonl", [*_call("toolu_before"), *entries])
    message = hook_reader.message_with_tool(str(path), {"toolu_first"}, 1 << 20)
    assert message is not None and message.text == "Two at once."
    assert set(message.tool_ids) == {"toolu_first", "toolu_second"}


def test_an_id_that_json_could_escape_is_looked_for_by_parsing(tmp_path, monkeypatch):
    path = write_transcript(tmp_path / "t.jsonl", _call('odd"id/é'))
    parsed = _parses(monkeypatch)
    message = hook_reader.message_with_tool(str(path), {'odd"id/é'}, 1 << 20)
    assert message is not None and parsed


def test_a_mark_across_two_blocks_is_found(tmp_path):
    from arcguard.transcript.tail import mentions

    path = tmp_path / "t.jsonl"
    mark = b"toolu_0123456789"
    for cut in range(1, len(mark)):
        # The first block read is the last 100 bytes: the mark starts `cut` bytes before it.
        body = b"x" * 50 + mark + b"y" * (100 + cut - len(mark))
        path.write_bytes(body)
        assert mentions(str(path), 10_000, [mark], block=100), cut
    assert not mentions(str(path), 10_000, [b"toolu_absent"], block=100)
    # Only the last `max_bytes` are looked at.
    assert not mentions(str(path), 40, [mark], block=16)
