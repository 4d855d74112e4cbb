"""The reverse tail reader and the message grouping, on generated and real transcripts."""

from __future__ import annotations

import json
import threading
import time

import pytest
from testing.builders import FIXTURES
from testing.builders import assistant_entries
from testing.builders import noise
from testing.builders import text
from testing.builders import thinking
from testing.builders import tool_use
from testing.builders import user_prompt
from testing.builders import write_transcript

from arcguard import jsonio
from arcguard.transcript import records
from arcguard.transcript.tail import NotReadable
from arcguard.transcript.tail import lines_newest_first


def last(path, max_bytes=1 << 20):
    return records.last_message(
        records.assistant_entries(lines_newest_first(str(path), max_bytes), jsonio.loads)
    )


def test_lines_come_newest_first_across_block_boundaries(tmp_path):
    path = tmp_path / "t.jsonl"
    lines = [f"line {n} " + "x" * (n * 37 % 500) for n in range(500)]
    path.write_text("\n".join(lines) + "\n")
    got = [b.decode() for b in lines_newest_first(str(path), 1 << 30, block=64)]
    assert got == list(reversed(lines))


def test_a_partial_last_line_is_tolerated(tmp_path):
    entries = assistant_entries(text("No response requested."))
    path = write_transcript(tmp_path / "t.jsonl", entries, tail=b'{"type":"assistant","mess')
    message = last(path)
    assert message is not None and message.text == "No response requested."


def test_the_byte_bound_is_respected(tmp_path):
    path = write_transcript(
        tmp_path / "t.jsonl",
        assistant_entries(text("old")) + [noise("api-request-blob") | {"blob": "x" * 4000}],
    )
    assert last(path, max_bytes=1000) is None
    assert last(path, max_bytes=100_000).text == "old"


def test_entries_of_one_message_are_merged_and_noise_is_skipped(tmp_path):
    mid = "msg_final"
    entries = (
        assistant_entries(text("earlier"))
        + assistant_entries(thinking(), message_id=mid)
        + [noise("attachment")]
        + assistant_entries(text("Here is the summary."), message_id=mid)
        + [noise("last-prompt"), {"type": "user", "message": "not a dict content"}]
    )
    message = last(write_transcript(tmp_path / "t.jsonl", entries))
    assert message.id == mid and message.thinking and message.kind == records.TEXT
    assert message.entries == 2


@pytest.mark.parametrize(
    ("blocks", "kind"),
    [
        ([thinking()], records.THINKING),
        ([text("")], records.EMPTY),
        ([{"type": "image", "source": {}}], records.OTHER),
        (
            [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}],
            records.OTHER,
        ),
        ([text("x"), tool_use("Bash", {"command": "ls"})], records.TOOL_USE),
    ],
)
def test_classification_of_the_final_message(tmp_path, blocks, kind):
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(*blocks))
    assert last(path).kind == kind


def test_synthetic_entries_are_recognised(tmp_path):
    api_error = assistant_entries(
        text("API Error: Request rejected (429)"),
        model="<synthetic>",
        isApiErrorMessage=True,
        error="rate_limit",
    )
    assert last(write_transcript(tmp_path / "t.jsonl", api_error)).synthetic


def test_lone_surrogates_and_garbage_lines_are_tolerated(tmp_path):
    path = tmp_path / "t.jsonl"
    good = json.dumps(assistant_entries(text("fine"))[0])
    bad = '{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"\\ud800"}]}}'
    path.write_bytes(good.encode() + b"\n\xff\xfe garbage\n" + bad.encode() + b"\n{nope\n")
    assert last(path).id == "m2"


def test_message_with_tool_finds_the_turn_of_a_tool_use_id(tmp_path):
    call = tool_use("Bash", {"command": "ls"}, tool_id="toolu_target")
    entries = (
        assistant_entries(text("Let me look."), call, tool_use("Read", {"file_path": "/a"}))
        + [user_prompt("result stand-in")]
        + assistant_entries(text("later"))
    )
    path = write_transcript(tmp_path / "t.jsonl", entries)
    lines = lines_newest_first(str(path), 1 << 20)
    message = records.message_with_tool(
        records.assistant_entries(lines, jsonio.loads), {"toolu_target"}
    )
    assert message is not None and message.text == "Let me look."
    assert len(message.tool_uses) == 2


@pytest.mark.parametrize("name", ["directory", "missing", "fifo"])
def test_unreadable_paths_raise_not_readable(tmp_path, name):
    import os

    path = tmp_path / name
    if name == "directory":
        path.mkdir()
    elif name == "fifo":
        os.mkfifo(path)
    with pytest.raises(NotReadable):
        list(lines_newest_first(str(path), 1000))


def test_a_huge_transcript_costs_only_its_tail(tmp_path):
    path = tmp_path / "big.jsonl"
    filler = (json.dumps(noise("api-request-blob") | {"blob": "y" * 100_000}) + "\n").encode()
    with path.open("wb") as handle:
        for _ in range(2000):  # 200 MB
            handle.write(filler)
        handle.write(json.dumps(assistant_entries(text("Task complete."))[0]).encode() + b"\n")
    parsed = []

    def counting_loads(data):
        parsed.append(len(data))
        return jsonio.loads(data)

    lines = lines_newest_first(str(path), 1 << 20)
    message = records.last_message(records.assistant_entries(lines, counting_loads))
    assert message.text == "Task complete."
    assert sum(parsed) < 1 << 20


def test_entries_appended_while_reading_do_not_break_the_reader(tmp_path):
    path = write_transcript(tmp_path / "t.jsonl", assistant_entries(text("first")))
    stop = threading.Event()

    def writer():
        with path.open("ab") as handle:
            while not stop.is_set():
                handle.write(json.dumps(assistant_entries(text("more"))[0]).encode() + b"\n")
                handle.flush()
                time.sleep(0.001)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(50):
            message = last(path)
            assert message is not None and message.text in ("first", "more")
    finally:
        stop.set()
        thread.join()


FIXTURE_FINALS = {
    # file -> (kind, text prefix, entries) of the newest assistant message, read from the files
    "stop-hook-block-feedback.jsonl": (records.TEXT, "I have fully completed the task.", 1),
    "interrupted-tool-rejection.jsonl": (records.TOOL_USE, "", 5),  # text,thinking,text,2 tools
    "manual-compaction-thinking-tools.jsonl": (records.TEXT, "Great! Here's what I did", 2),
}


@pytest.mark.parametrize("name", sorted(FIXTURE_FINALS))
def test_real_transcripts(name):
    path = FIXTURES / name
    message = last(path)
    kind, prefix, entries = FIXTURE_FINALS[name]
    assert (message.kind, message.entries) == (kind, entries)
    assert message.text.startswith(prefix)


def test_every_real_transcript_parses_without_error():
    for path in FIXTURES.glob("*.jsonl"):
        entries = list(
            records.assistant_entries(lines_newest_first(str(path), 1 << 30), jsonio.loads)
        )
        assert entries, path.name
