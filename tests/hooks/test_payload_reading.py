"""Each hook turns Claude Code's parsed stdin into the typed fields it works on, or gives up."""

from __future__ import annotations

from arcguard.hooks import limit_wait
from arcguard.hooks import posture
from arcguard.hooks import session_start
from arcguard.hooks import statusline
from arcguard.hooks import stop
from arcguard.hooks import stop_failure


def test_a_prompt_payload_needs_a_session_id_and_a_text_prompt():
    assert posture.read({"session_id": "s", "prompt": "go"}) == {
        "session_id": "s",
        "prompt": "go",
        "cwd": None,
    }
    assert posture.read({"session_id": "s", "prompt": ["go"]}) is None
    assert posture.read({"prompt": "go"}) is None


def test_a_session_start_without_a_text_source_is_read_as_unknown():
    assert session_start.read({"session_id": "s", "source": 3}) == {
        "session_id": "s",
        "source": "unknown",
        "cwd": None,
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
        "background_running": None,  # no list of tasks: the payload does not say
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
    older = stop.read({"session_id": "s"})
    assert older["newer_release"] is False and older["background_running"] is None
    assert stop.read({"session_id": "s", "background_tasks": []})["background_running"] is False


def test_the_folder_is_read_only_when_it_is_a_non_empty_text():
    assert posture.read({"session_id": "s", "prompt": "go", "cwd": "/p"})["cwd"] == "/p"
    assert posture.read({"session_id": "s", "prompt": "go", "cwd": ""})["cwd"] is None
    assert session_start.read({"session_id": "s", "cwd": ["/p"]})["cwd"] is None
    assert session_start.read({"session_id": "s", "cwd": "/p"})["cwd"] == "/p"


def test_a_stop_failure_payload_without_a_text_error_is_read_as_unknown():
    assert stop_failure.read({"session_id": "s", "error": 5}) == {
        "session_id": "s",
        "error": "unknown",
    }
    assert stop_failure.read({"error": "rate_limit"}) is None


def test_a_limit_wait_payload_keeps_only_fields_of_the_expected_type():
    assert limit_wait.read(
        {"session_id": "s", "error": 1, "last_assistant_message": "x", "transcript_path": ""}
    ) == {
        "session_id": "s",
        "error": None,
        "last_assistant_message": "x",
        "transcript_path": None,
    }
    assert limit_wait.read({"error": "rate_limit"}) is None


def test_a_status_line_payload_is_read_into_its_reset_times():
    given = statusline.read({"session_id": "s", "rate_limits": {"five_hour": {"resets_at": 9.0}}})
    assert given == {"session_id": "s", "resets": {"five_hour": 9.0}}
    assert statusline.read({"session_id": "s", "rate_limits": "x"}) == {
        "session_id": "s",
        "resets": {},
    }
    assert statusline.read({"rate_limits": {}}) is None
