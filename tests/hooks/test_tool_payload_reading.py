"""The tool hooks read a call and its report once, into a ToolCall and a ToolResult; the loop
guard never sees the payload itself."""

from __future__ import annotations

from arcguard.core.loop_guard import opkey
from arcguard.core.tool_call import NO_RESPONSE
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult
from arcguard.hooks import post_batch
from arcguard.hooks import post_tool
from arcguard.hooks import pre_tool


def test_a_pre_tool_payload_needs_a_session_id_and_a_text_tool_name():
    given = pre_tool.read(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": 7,
            "agent_id": ["a"],
            "transcript_path": "",
        }
    )
    assert given == {
        "session_id": "s",
        "call": ToolCall("Bash", {"command": "ls"}, "", None),
        "transcript_path": None,
    }
    assert pre_tool.read({"session_id": "s", "tool_name": 3}) is None
    assert pre_tool.read({"tool_name": "Bash"}) is None


def test_a_subagents_call_carries_its_agent():
    given = pre_tool.read(
        {"session_id": "s", "tool_name": "Read", "tool_use_id": "t", "agent_id": "a1"}
    )
    assert given is not None and given["call"] == ToolCall("Read", None, "t", "a1")


def test_a_post_tool_payload_without_an_event_name_failed_when_it_carries_an_error():
    named = post_tool.read(
        {"session_id": "s", "tool_name": "Bash", "hook_event_name": "PostToolUse", "error": "x"}
    )
    unnamed = post_tool.read({"session_id": "s", "tool_name": "Bash", "error": "x"})
    assert named is not None and not named["result"].failed
    assert unnamed is not None and unnamed["result"].failed


def test_a_null_tool_response_is_a_response_and_a_missing_one_is_not():
    null = post_tool.read({"session_id": "s", "tool_name": "T", "tool_response": None})
    missing = post_tool.read({"session_id": "s", "tool_name": "T"})
    assert null is not None and missing is not None
    assert null["result"].responded and not missing["result"].responded
    call = ToolCall("T")
    assert opkey.outcome(call, null["result"]).startswith(opkey.COMPLETED)
    assert opkey.outcome(call, missing["result"]) == opkey.UNKNOWN


def test_a_failure_report_keeps_only_fields_of_the_expected_type():
    given = post_tool.read(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "hook_event_name": "PostToolUseFailure",
            "error": "Exit code 130",
            "is_interrupt": "true",
            "duration_ms": True,
        }
    )
    assert given is not None
    assert given["result"] == ToolResult(failed=True, error="Exit code 130")


def test_a_batch_keeps_the_entries_that_name_a_tool_with_their_results():
    given = post_batch.read(
        {
            "session_id": "s",
            "agent_id": "a1",
            "transcript_path": "/t/sess.jsonl",
            "tool_calls": [
                {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t2"},
                {"tool_name": "Read", "tool_use_id": "t1", "tool_response": "text"},
                {"tool_use_id": "t3", "tool_response": "no tool name"},
                "not an entry",
            ],
        }
    )
    assert given == {
        "session_id": "s",
        "agent": "a1",
        "calls": [
            (ToolCall("Bash", {"command": "ls"}, "t2", "a1"), ToolResult(response=NO_RESPONSE)),
            (ToolCall("Read", None, "t1", "a1"), ToolResult(response="text")),
        ],
        "tool_use_ids": ["t1", "t2"],
        "transcript_path": "/t/sess/subagents/agent-a1.jsonl",
    }
    assert post_batch.read({"session_id": "s", "tool_calls": [{"tool_use_id": "t"}]}) is None
