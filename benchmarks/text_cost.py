"""What a long or adversarial command costs the tool hooks, timed in process.

Each shape is a Bash command of the given size (4 KB, 64 KB, 1 MB by default) made of one
piece repeated: a word of `=)` after a secret-looking word (the shape that made masking
quadratic), many small assignments, temporary paths, numbers, pipes, parentheses. Each
command goes through the PreToolUse, PostToolUse and PostToolBatch handlers, as a hook
would run them (a fresh state directory, the payload parsed from JSON), and the slowest of
the three is printed with the cost of masking its label alone. Unit tests count the work
(`tests/core/test_text_linear.py`); this shows the time.

    python benchmarks/text_cost.py [--sizes 4096,65536,1048576]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from arcguard.core.config import default_config
from arcguard.core.loop_guard import opkey
from arcguard.core.words.redact import mask
from arcguard.hooks.runner import Context
from arcguard.hooks.runner import dispatch


SHAPES = {
    "=) word": ("token a", "=)"),
    "assignments": ("echo password=1 ", "ab=cd "),
    "temp paths": ("ls ", "/tmp/a "),
    "numbers": ("echo ", "1.2:3,"),
    "pipes": ("cat x", "|tail"),
    "parentheses": ("echo ", ")"),
    "plain": ("echo ", "x"),
}


def command(shape: str, size: int) -> str:
    head, piece = SHAPES[shape]
    return head + piece * max(1, (size - len(head)) // len(piece))


def hook_seconds(home: Path, shape: str, text: str) -> float:
    """The slowest of the three tool hooks on a call running `text`."""
    cfg = default_config()
    transcript = home / f"{len(text)}.jsonl"
    transcript.touch()
    call = {"tool_name": "Bash", "tool_input": {"command": text}, "tool_use_id": "toolu_1"}
    base = {"session_id": f"bench-{shape}-{len(text)}", "transcript_path": str(transcript)}
    runs = [
        ("pre-tool", {**base, **call, "hook_event_name": "PreToolUse"}),
        ("post-tool", {**base, **call, "hook_event_name": "PostToolUse", "tool_response": "ok"}),
        (
            "post-batch",
            {
                **base,
                "hook_event_name": "PostToolBatch",
                "tool_calls": [{**call, "tool_response": "ok"}],
            },
        ),
    ]
    slowest = 0.0
    for hook, payload in runs:
        raw = json.dumps(payload).encode()
        ctx = Context.begin(hook, str(home), cfg, time.time(), "arcguard", {})
        ctx.deadline += 3600  # the budget would end a slow run early: this measures it whole
        started = time.perf_counter()
        dispatch(hook, raw, ctx)
        slowest = max(slowest, time.perf_counter() - started)
    return slowest


def mask_seconds(text: str) -> float:
    window = " ".join(text[: opkey.MASKED_WINDOW].split())
    started = time.perf_counter()
    mask(window)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4096,65536,1048576")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    print(f"{'shape':<14}{'size':>10}{'slowest hook ms':>18}{'label mask ms':>16}")
    with tempfile.TemporaryDirectory() as home:
        hook_seconds(Path(home), "plain", "echo warm-up")  # imports, not the text, cost here
        for shape in SHAPES:
            for size in sizes:
                text = command(shape, size)
                hook = hook_seconds(Path(home), shape, text)
                masked = mask_seconds(text)
                print(f"{shape:<14}{len(text):>10}{hook * 1000:>18.1f}{masked * 1000:>16.2f}")


if __name__ == "__main__":
    main()
