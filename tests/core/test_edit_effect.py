"""An Edit's effect (the file content after it, for the revisit rule) is worked out only
within a size bound: a replace-all of a short string by a long one in a long file would
otherwise be built whole, its size the file's length times the new string's."""

from __future__ import annotations

import json
import tracemalloc

from testing import hook_driver

from arcguard.core.loop_guard import opkey
from arcguard.core.tool_call import ToolCall


PATH = "/home/dev/project/app/data.txt"
# 6,000 occurrences replaced by 6,000 characters each: a 36 MB result from a 12 KB payload.
ORIGINAL = "a" * 6000
NEW = "b" * 6000
MiB = 1024 * 1024


def edit(original: str, old: str, new: str, *, replace_all: bool) -> tuple[ToolCall, dict]:
    call = ToolCall(
        "Edit",
        {"file_path": PATH, "old_string": old, "new_string": new, "replace_all": replace_all},
    )
    response = {
        "filePath": PATH,
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1}],
        "replaceAll": replace_all,
    }
    return call, response


def peak_bytes(work) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_item10_a_replace_all_whose_result_would_blow_up_is_not_built():
    call, response = edit(ORIGINAL, "a", NEW, replace_all=True)
    assert len(ORIGINAL) * len(NEW) > opkey.EDIT_EFFECT_CHARS
    found: list[object] = []
    peak = peak_bytes(lambda: found.append(opkey.edited_contents(call, response)))
    assert found == [None]  # the effect is unknown: the edit counts as a new content
    assert peak < MiB


def test_item10_ordinary_edits_keep_their_exact_effect():
    text = "x = 1\ny = x + 1\nprint(x)\n"
    call, response = edit(text, "x", "value", replace_all=True)
    assert opkey.edited_contents(call, response) == (
        PATH,
        text,
        "value = 1\ny = value + 1\nprint(value)\n",
    )
    call, response = edit(text, "x", "value", replace_all=False)
    assert opkey.edited_contents(call, response) == (PATH, text, text.replace("x", "value", 1))
    # At the bound exactly, the effect is still worked out.
    call, response = edit("a" * 1024, "a", "b" * 4096, replace_all=True)
    assert opkey.edited_contents(call, response) is not None


def test_item10_the_post_tool_hook_handles_the_blow_up_payload_within_a_memory_bound(tmp_path):
    call, response = edit(ORIGINAL, "a", NEW, replace_all=True)
    payload = {
        "session_id": "s-edit-effect",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "hook_event_name": "PostToolUse",
        "tool_name": call.name,
        "tool_input": call.input,
        "tool_use_id": "toolu_1",
        "tool_response": response,
    }
    raw = json.dumps(payload).encode()
    assert peak_bytes(lambda: hook_driver.dispatch("post-tool", raw, tmp_path)) < 8 * MiB
