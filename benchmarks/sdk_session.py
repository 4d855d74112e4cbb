"""The SDK wirings of `bench_session.py`: the same scripted session driven by a Claude Agent
SDK application instead of `claude -p`.

- `sdk-none`: the application with no hooks, the baseline the SDK wiring is measured against
  (the SDK drives the CLI over its own pipes, which `claude -p` does not pay for);
- `sdk-noop`: the same hooks, for the same events and matchers, with callbacks that return
  nothing: what the SDK's own round trip to a hook costs, which no hook can lower;
- `sdk`: the same application with `arcguard.sdk.options(...)`, arcguard's hooks in-process.

Both run the CLI under test (`cli_path`) and load no settings files (`setting_sources=[]`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


WIRINGS = ("sdk-none", "sdk-noop", "sdk")
# The SDK wiring may cost at most this many `true` hooks per tool call (the `true` wiring runs
# three: PreToolUse, PostToolUse and PostToolBatch).
BUDGET_TRUE_HOOKS = 2

# argv: PROJECT WIRING CLI
DRIVER = """\
import asyncio, sys
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

async def main():
    options = ClaudeAgentOptions(
        cwd=sys.argv[1], permission_mode="bypassPermissions", cli_path=sys.argv[3],
        setting_sources=[],
    )
    if sys.argv[2] == "sdk":
        import arcguard.sdk
        options = arcguard.sdk.options(options)
    elif sys.argv[2] == "sdk-noop":
        import arcguard.sdk
        from claude_agent_sdk import HookMatcher

        async def nothing(payload, tool_use_id, context):
            return {}

        options.hooks = {
            event: [HookMatcher(matcher=m.matcher, hooks=[nothing]) for m in matchers]
            for event, matchers in arcguard.sdk.hooks().items()
        }
    async for message in query(prompt="Run the scripted calls.", options=options):
        if isinstance(message, ResultMessage) and message.is_error:
            sys.exit(f"the session failed: {message.result}")

asyncio.run(main())
"""


def argv(claude: Path, wiring: str, project: Path, python: str = sys.executable) -> list[str]:
    """The command line of one session of an SDK wiring (in place of `claude -p`), driven by
    `python` (whose arcguard the `sdk` wiring runs)."""
    return [python, "-c", DRIVER, str(project), wiring, str(claude)]


def summary(medians: dict[str, float], true_added_ms: float, calls: int) -> dict[str, Any]:
    """What the SDK hooks add per tool call over `sdk-none`, and against two `true` hooks
    (no figure, and no failed verdict, when the SDK wirings did not run)."""
    if "sdk" not in medians:
        return {
            "sdk_added_ms_per_call": None,
            "sdk_ratio_to_two_true": None,
            "sdk_within_budget": True,
            "sdk_round_trip_ms_per_call": None,
        }
    added = (medians["sdk"] - medians["sdk-none"]) * 1000 / calls
    two_true = true_added_ms * BUDGET_TRUE_HOOKS / 3
    ratio = added / two_true if two_true > 0 else None
    round_trip = None
    if "sdk-noop" in medians:
        round_trip = (medians["sdk-noop"] - medians["sdk-none"]) * 1000 / calls
    return {
        "sdk_added_ms_per_call": added,
        "sdk_ratio_to_two_true": ratio,
        "sdk_within_budget": ratio is not None and ratio <= 1.0,
        "sdk_round_trip_ms_per_call": round_trip,
    }


def verdict(summary: dict[str, Any]) -> str:
    if summary["sdk_added_ms_per_call"] is None:
        return "sdk arcguard: not run"
    ratio = summary["sdk_ratio_to_two_true"]
    shown = "n/a" if ratio is None else f"{ratio:.2f}x"
    within = "within" if summary["sdk_within_budget"] else "OVER"
    line = (
        f"sdk arcguard vs sdk-none: {summary['sdk_added_ms_per_call']:+.1f} ms per tool call, "
        f"{shown} two true hooks, {within} budget (<= 1.0x)"
    )
    round_trip = summary.get("sdk_round_trip_ms_per_call")
    if round_trip is not None:
        line += f"; callbacks that do nothing (sdk-noop) add {round_trip:+.1f} ms"
    return line
