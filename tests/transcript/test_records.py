"""`records.parse_entry`: a line's JSON object read into the one typed entry shape."""

from __future__ import annotations

import json

from arcguard.forensics import entries as kinds
from arcguard.transcript import records


def test_a_field_of_another_type_is_left_out_as_if_absent():
    raw = {
        "type": "assistant",
        "uuid": 7,
        "isSidechain": "true",
        "isMeta": True,
        "timestamp": None,
        "message": {"id": ["m"], "model": "<synthetic>", "content": 3},
        "error": {"status": "429"},
        "unread": {"anything": 1},
    }
    assert records.parse_entry(raw) == {
        "type": "assistant",
        "isMeta": True,
        "message": {"model": "<synthetic>"},
        "error": {},
    }


def test_content_blocks_keep_what_is_read_of_them():
    raw = {
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "content": [
                "not a block",
                {"type": "text", "text": 5},
                {"type": "text", "text": "hello", "citations": []},
                {"type": "tool_use", "id": 9, "name": "Bash", "input": {"command": "ls"}},
                {"type": "redacted_thinking", "data": "x"},
                {"type": "image", "source": {}},
                {"source": {}},
            ],
        },
    }
    assert records.parse_entry(raw)["message"]["content"] == [
        {"type": "text", "text": "hello"},
        {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}},
        {"type": "thinking"},
        {"type": "other"},
        {"type": "other"},
    ]


def test_a_tool_result_keeps_its_id_error_flag_and_text_blocks():
    raw = {
        "type": "user",
        "toolUseResult": {"stdout": "a"},
        "message": {
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "is_error": True,
                    "content": [{"type": "image"}, {"type": "text", "text": "denied"}],
                }
            ]
        },
    }
    entry = records.parse_entry(raw)
    assert entry["toolUseResult"] == {"stdout": "a"}
    [result] = kinds.tool_results(entry)
    assert result == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "is_error": True,
        "content": [{"type": "text", "text": "denied"}],
    }
    assert kinds.result_text(result) == "denied"


def test_a_system_error_keeps_an_integer_status_only():
    failed = {"type": "system", "subtype": "api_error"}
    entry = records.parse_entry({**failed, "error": {"status": 529}})
    assert kinds.system_error_kind(entry) == kinds.OVERLOAD
    entry = records.parse_entry({**failed, "error": {"status": "x"}})
    assert entry["error"] == {} and kinds.system_error_kind(entry) == kinds.NETWORK


def test_a_line_that_is_not_one_json_object_has_no_entry():
    assert records.parsed(b"[1, 2]", json.loads) is None
    assert records.parsed(b'{"type": "user"', json.loads) is None
    assert records.parsed(b'{"type": "user"}', json.loads) == {"type": "user"}


def test_a_message_merged_from_entries_compares_by_its_fields():
    entry = records.parse_entry(
        {"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": "x"}]}}
    )
    first, second = records.Message("m"), records.Message("m")
    first.add_entry(entry)
    second.add_entry(entry)
    assert first == second and first.texts == ("x",) and first.entries == 1
