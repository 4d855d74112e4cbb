"""How a continuation is worded for the running release: the transcript names it."""

from __future__ import annotations

import pytest
from testing.builders import assistant_entries
from testing.builders import hook_output
from testing.builders import run_hook
from testing.builders import text
from testing.builders import write_transcript

from arcguard.claude_settings import releases
from arcguard.transcript import hook_reader
from tests.hooks.test_hook_commands import start_arc
from tests.hooks.test_hook_commands import stop_payload


NOOP = "No response requested."


def _transcript(tmp_path, version):
    extra = {} if version is None else {"version": version}
    return write_transcript(tmp_path / "t.jsonl", assistant_entries(text(NOOP), **extra))


@pytest.mark.parametrize("version", ["2.1.163", "2.1.328"])
def test_a_release_with_stop_context_is_continued_without_a_block(tmp_path, version):
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(_transcript(tmp_path, version), NOOP)))
    assert out is not None
    assert "decision" not in out and "reason" not in out
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "Stop"
    assert specific["additionalContext"].startswith("[arcguard] Autonomous arc")


@pytest.mark.parametrize("version", ["2.1.162", "2.1.78", None, "garbage"])
def test_an_older_or_unknown_release_gets_a_block(tmp_path, version):
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(_transcript(tmp_path, version), NOOP)))
    assert out is not None and out["decision"] == "block"
    assert "additionalContext" not in out.get("hookSpecificOutput", {})


def test_no_transcript_gets_a_block():
    start_arc()
    out = hook_output(run_hook("stop", stop_payload(None, NOOP)))
    assert out is not None and out["decision"] == "block"


def test_the_newest_entry_with_a_version_names_the_release(tmp_path):
    entries = [
        *assistant_entries(text("old"), version="2.1.100"),
        *assistant_entries(text("new"), version="2.1.200"),
        {"type": "last-prompt", "lastPrompt": "x"},
    ]
    path = write_transcript(tmp_path / "t.jsonl", entries)
    assert hook_reader.tail_marks(str(path), 1 << 20).version == "2.1.200"
    assert hook_reader.tail_marks(str(tmp_path / "missing.jsonl"), 1 << 20).version is None


@pytest.mark.parametrize(
    ("text_", "version"),
    [("2.1.328", (2, 1, 328)), ("2.1", None), ("2.1.x", None), ("2.1.3.4", None), ("", None)],
)
def test_a_transcript_version_is_read_exactly(text_, version):
    assert releases.from_dotted(text_) == version


def test_the_first_release_with_stop_context_is_the_bisected_one():
    assert not releases.continues_with_context((2, 1, 162))
    assert releases.continues_with_context((2, 1, 163))
    assert not releases.continues_with_context(None)


def test_the_user_is_told_in_a_line_the_model_does_not_get(tmp_path):
    start_arc()
    path = _transcript(tmp_path, "2.1.328")
    out = hook_output(run_hook("stop", stop_payload(path, NOOP)))
    assert out["systemMessage"] == (
        "arcguard sent the model back to work (1 of 2 in a row):"
        " it stopped mid-arc with nothing done. To change this: stop_policy, or /autonomous stop"
    )
    assert out["systemMessage"] not in out["hookSpecificOutput"]["additionalContext"]
