"""Every text the hook path reads costs work in proportion to its length, whatever its shape.

Masking once walked back to the previous separator for every `=` in a word, so one 4 KB word
(`token a=)=)=)...`) cost seconds. The work is counted here, not timed: the Python lines run
for a text made of a piece repeated k times and 4k times. Linear work grows about four times,
quadratic work sixteen. (`benchmarks/text_cost.py` times the same shapes at 1 MB.)
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from testing import hook_driver

from arcguard.core.arc_keeper import handback
from arcguard.core.config import default_config
from arcguard.core.loop_guard import answers
from arcguard.core.loop_guard import cycle_run
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import guard
from arcguard.core.loop_guard import opkey
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard import shell_words
from arcguard.core.loop_guard import shell_writes
from arcguard.core.loop_guard import tool_effects
from arcguard.core.loop_guard import tracks
from arcguard.core.tool_call import ToolCall
from arcguard.core.tool_call import ToolResult
from arcguard.core.words import sentences
from arcguard.core.words.redact import mask
from arcguard.hooks import pre_tool


# Pieces that make each rule do the most: separators with nothing between them, names and
# signs that start a value, quotes that open one, prefixes of keys, URLs, shell operators.
PIECES = [
    "=)",
    "a=",
    "=",
    ":",
    '":"',
    "token=",
    "token:",
    "x=)token=",
    "a=b&",
    "password ",
    "--password=",
    "Bearer ",
    "Authorization:",
    '"Cookie: ',
    "'",
    '"',
    "TOKEN='",
    "-p",
    "curl -u ",
    "mysql -p",
    "sk-",
    "ghp_",
    "sk-ant-sk-",
    "AIza",
    "https://a:b@",
    "a://",
    "://@:",
    "hooks.slack.com/services/",
    "/tmp/x ",
    "/tmp/",
    "1.",
    "0:0,",
    "x|tail ",
    "|",
    ")",
    "a=1 ",
    "timeout ",
    "env -x ",
    "git -c ",
    "do ",
    "\n",
    ". ",
    "Done. ",
    "? ",
    "- ",
    "`",
    "$(",
    "$(ls) ",
    '"$(',
]
PIECE = st.one_of(
    st.sampled_from(PIECES),
    st.lists(st.sampled_from(PIECES), min_size=2, max_size=4).map("".join),
    st.text(alphabet="=:)@/\"'`-_ ;&|ap1", min_size=1, max_size=6),
)
CFG = default_config()


def steps(work, text: str) -> int:
    """Python lines run by `work(text)`, with nothing read before (the memos would hide the
    work)."""
    shell_words.forget()
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        count += 1
        return trace

    sys.settrace(trace)
    try:
        work(text)
    finally:
        sys.settrace(None)
    return count


def bash(text: str) -> ToolCall:
    return ToolCall("Bash", {"command": text})


def fresh_label(text: str) -> str:
    opkey._MASKED.clear()  # the memo would hide the work
    return opkey.label(bash(text))


def narration(text: str) -> None:
    track = tracks.new_track(0.0)
    cycle_run.moves(track, text)
    cycle_run.moves(track, text + " again")


WORK = {
    "mask": mask,
    "label": fresh_label,
    "call shape": lambda text: shape.call_shape(bash(text)),
    "result shape": shape.of_text,
    "filters": shape.observed_command,
    "operation key": lambda text: opkey.operation_id(bash(text)),
    "wait": lambda text: tool_effects.is_wait(bash(text)),
    "change": lambda text: tool_effects.may_change_world(bash(text)),
    "turn step": lambda text: guard.turn_call(CFG, bash(text)),
    "narration": narration,
    "stop words": handback.classify,
    "clock values": answers.clock_free,
    "poll lines": answers.lines,
    "shell writes": lambda text: shell_writes.edits_files(bash(text)),
    "checkout": lambda text: shell_writes.moves_checkout(bash(text), text),
    "sentences": sentences.split,
    "failure clauses": lambda text: shape.cause_pairs(
        ToolResult(failed=True, error=text), bash("x")
    ),
    # From a platform's client, so its refusals are read too.
    "failure causes": lambda text: failures.cause_pieces(text, bash("aws s3 cp a s3://b/")),
    "failure print": edited.printed,
    "edit swaps": lambda text: edited.swaps(
        ToolCall("Edit", {"old_string": text, "new_string": text + " x"})
    ),
}


PER_CHARACTER = 12


@pytest.mark.parametrize("name", sorted(WORK))
@settings(max_examples=25, deadline=None)
@given(piece=PIECE, k=st.integers(min_value=50, max_value=150), head=st.sampled_from(PIECES))
# An open quote hides every sentence of the short text; the long one's tail drops it, and each
# of its hundreds of sentences used to be read for a stop partway.
@example(piece="x|tail Done. ", k=77, head='"Cookie: ')
def test_item6_text_work_on_the_hook_path_is_linear_in_adversarial_shapes(name, piece, k, head):
    work = WORK[name]
    base = steps(work, "token a" + head)
    small = steps(work, "token a" + head + piece * k) - base
    text = "token a" + head + piece * 4 * k
    large = steps(work, text) - base
    # Linear work on 4x the text runs about 4x the lines (5x leaves room for what shows only
    # once a text is long enough); quadratic work, 16x. A rule that reads a bounded tail can
    # stop early on the short text (a quote it opened still in view) and read its whole window
    # on the long one: a few lines per character of the text are allowed for that, far below
    # what the quadratic shapes cost (millions of lines for a 4 KB word). The short text may
    # even cost less than the head alone (an odd quote left open stops a parser before the
    # head's `$(ls)`, an even number closes it): it then sets no bound of its own.
    assert large <= 5 * max(small, 0) + 2000 + PER_CHARACTER * len(text), (small, large)


def test_item6_one_long_adversarial_word_costs_about_what_an_ordinary_one_does():
    # The defect's own shape: a 4 KB word of `=)` after a secret-looking word.
    adversarial = "token a" + "=)" * 2048
    ordinary = "token a" + "x" * 4096
    assert steps(mask, adversarial) <= 4 * steps(mask, ordinary) + 2000


def test_item6_a_call_is_masked_once_per_hook_run(tmp_path, monkeypatch):
    """The label is asked for by several rules under the session's lock; masking, the costly
    part, runs once for the call."""
    masked: list[str] = []
    real = opkey.mask

    def counting(text: str) -> str:
        masked.append(text)
        return real(text)

    monkeypatch.setattr(opkey, "mask", counting)
    opkey._MASKED.clear()
    command = "curl -H 'Authorization: Bearer abc' https://example.invalid"
    payload = {
        "session_id": "s-mask-once",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }
    ctx = hook_driver.context("pre-tool", tmp_path, CFG, now=1_800_000_000.0)
    pre_tool.handle(payload, ctx)
    assert masked == [command]
    state = ctx.snapshot("s-mask-once")
    assert state is not None
    labels = [op["label"] for op in state["guard"]["tracks"]["main"]["ops"].values()]
    assert labels == ["Bash: curl -H 'Authorization: Bearer ***' https://example.invalid"]
