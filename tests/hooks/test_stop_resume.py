"""A session resumed after a crash or reconnect that answers Claude Code's resume prompt with
nothing. The transcript shape (a hidden `isMeta` user entry "Continue from where you left off."
followed by a synthetic "No response requested." entry, no model call) is taken from the hook
reference: the resume injection could not be reproduced offline with the scripted API.
"""

from __future__ import annotations

import pytest
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import new_id
from testing.builders import run_hook
from testing.builders import text
from testing.builders import user_prompt
from testing.builders import write_transcript


SID = "5b1f0c2e-0000-4000-8000-0000000000e1"
RESUME = "Continue from where you left off."


def _operator(prompt="please refactor the loader"):
    hook_output(
        run_hook(
            "posture", {"session_id": SID, "prompt": prompt, "hook_event_name": "UserPromptSubmit"}
        )
    )


def _resume_prompt(*, meta=True):
    entry = user_prompt(RESUME)
    if meta:
        entry["isMeta"] = True
    return entry


def _transcript(tmp_path, *, meta=True, answer="No response requested."):
    entries = (
        assistant_entries(text("Refactoring the loader."))
        + [_resume_prompt(meta=meta)]
        + assistant_entries(text(answer), model="<synthetic>")
    )
    return write_transcript(tmp_path / f"{new_id('t')}.jsonl", entries)


def _stop(path, message="No response requested."):
    payload = {
        "session_id": SID,
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "transcript_path": str(path),
    }
    if message is not None:
        payload["last_assistant_message"] = message
    return hook_output(run_hook("stop", payload))


@pytest.mark.parametrize("message", ["No response requested.", None])
def test_a_resume_answered_with_nothing_is_continued_once(tmp_path, message):
    _operator()
    path = _transcript(tmp_path)
    first = _stop(path, message)
    assert first is not None and first["decision"] == "block"
    assert "interrupted" in first["reason"]
    assert _stop(path, message) is None  # once per resume


def test_an_operator_typing_the_resume_words_is_not_a_resume(tmp_path):
    _operator(RESUME)
    path = _transcript(tmp_path, meta=False)
    assert _stop(path) is None


def test_a_real_answer_to_a_resume_is_not_continued(tmp_path):
    _operator()
    path = _transcript(tmp_path, answer="Back on the loader: splitting the reader next.")
    assert _stop(path, "Back on the loader: splitting the reader next.") is None
