"""Each hook turns Claude Code's parsed stdin into the typed fields it works on, or gives up."""

from __future__ import annotations

from arcguard.hooks import posture
from arcguard.hooks import session_start
from arcguard.hooks import stop


def test_a_prompt_payload_needs_a_session_id_and_a_text_prompt():
    assert posture.read({"session_id": "s", "prompt": "go"}) == {"session_id": "s", "prompt": "go"}
    assert posture.read({"session_id": "s", "prompt": ["go"]}) is None
    assert posture.read({"prompt": "go"}) is None


def test_a_session_start_without_a_text_source_is_read_as_unknown():
    assert session_start.read({"session_id": "s", "source": 3}) == {
        "session_id": "s",
        "source": "unknown",
    }
    assert session_start.read({"session_id": "s", "source": "compact"})["source"] == "compact"
    assert session_start.read({"session_id": ""}) is None


def test_a_stop_payload_keeps_only_fields_of_the_expected_type():
    given = stop.read(
        {
            "session_id": "s",
            "transcript_path": "",
            "last_assistant_message": 7,
            "stop_hook_active": "true",
            "background_tasks": "running",
        }
    )
    assert given == {
        "session_id": "s",
        "transcript_path": None,
        "last_assistant_message": None,
        "stop_hook_active": False,
        "background_running": False,
        "newer_release": True,
    }


def test_a_stop_payload_sees_a_running_background_task_and_an_older_release():
    given = stop.read(
        {
            "session_id": "s",
            "transcript_path": "/t.jsonl",
            "stop_hook_active": True,
            "background_tasks": [{"status": "done"}, {"status": "running"}],
        }
    )
    assert given is not None
    assert given["transcript_path"] == "/t.jsonl"
    assert given["stop_hook_active"] is True
    assert given["background_running"] is True
    assert stop.read({"session_id": "s"})["newer_release"] is False
