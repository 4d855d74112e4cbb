"""The largest hook payloads real sessions would have produced, measured from transcripts.

A PreToolUse payload carries one call's `tool_input`; PostToolUse adds its `tool_response`
(the transcript's `toolUseResult`); PostToolBatch carries every call of one assistant message
with the result text the model saw. This prints the largest of each, in bytes of compact JSON,
so the hook's payload bound (`arcguard.hooks.runner.MAX_PAYLOAD`) can be checked against them.

    python benchmarks/payload_sizes.py CORPUS_DIR/*.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from typing import Any


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def measure(paths: list[str]) -> dict[str, int]:
    inputs: dict[str, int] = {}
    responses: dict[str, int] = {}
    results: dict[str, int] = {}
    turns: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a torn or concatenated line: not a payload anyone sent
                if isinstance(entry, dict):
                    _read_entry(entry, inputs, responses, results, turns)
    post_tool = [inputs[i] + responses.get(i, 0) for i in inputs]
    batches = [sum(inputs[i] + results.get(i, 0) for i in ids) for ids in turns.values()]
    return {
        "tool_input": max(inputs.values(), default=0),
        "tool_response": max(responses.values(), default=0),
        "post_tool_payload": max(post_tool, default=0),
        "post_batch_payload": max(batches, default=0),
    }


def _read_entry(
    entry: dict[str, Any],
    inputs: dict[str, int],
    responses: dict[str, int],
    results: dict[str, int],
    turns: dict[str, list[str]],
) -> None:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            inputs[block["id"]] = _size(block.get("input"))
            turns[str(entry["message"].get("id"))].append(block["id"])
        elif block.get("type") == "tool_result":
            results[block["tool_use_id"]] = _size(block.get("content"))
            if "toolUseResult" in entry:
                responses[block["tool_use_id"]] = _size(entry["toolUseResult"])


def main(argv: list[str]) -> int:
    for name, size in measure(argv).items():
        print(f"{name:20} {size:>10,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
