"""When a call's own entry reaches the transcript, seen from its hooks.

Claude Code queues transcript writes and flushes them on a timer, so a hook that looks a call
up in the transcript may start before the call's entry is on disk. The hooks that need the
call's message wait for it (`arcguard.transcript.hook_reader.SETTLE_WAIT_S`); these runs pin
that the wait is needed and that it is long enough.
"""

from __future__ import annotations

import json
import sys

from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use

from arcguard.transcript.hook_reader import SETTLE_WAIT_S
from conftest import hook_settings


# Logs, per hook, whether the call's entry was on disk when the hook started and how long it
# took to land (polled for up to 5 s).  argv: LOG
_LAG_PROBE = """\
import json, sys, time
payload = json.load(sys.stdin)
calls = payload.get("tool_calls") or [payload]
wanted = [c.get("tool_use_id") for c in calls]
start = time.monotonic()
on_disk_at_start = None
while True:
    try:
        with open(payload["transcript_path"], encoding="utf-8", errors="replace") as fh:
            body = fh.read()
    except OSError:
        body = ""
    landed = all(w and w in body for w in wanted)
    if on_disk_at_start is None:
        on_disk_at_start = landed
    if landed or time.monotonic() - start > 5:
        break
    time.sleep(0.005)
record = {"event": payload["hook_event_name"], "at_start": on_disk_at_start,
          "landed": landed, "after": time.monotonic() - start}
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(record) + "\\n")
"""

CALLS = 30


def test_fact_a_calls_entry_can_land_after_its_hooks_start_and_lands_within_the_wait(
    claude_project, run_claude
):
    project = claude_project()
    probe = project.write_script("lag_probe.py", _LAG_PROBE)
    log = project.root / "lag.jsonl"
    command = f"{sys.executable} {probe} {log}"
    project.write_settings(hook_settings({"PreToolUse": command, "PostToolBatch": command}))
    calls = [tool_use("Bash", {"command": f"echo {n}"}) for n in range(CALLS)]
    with ScriptedAPI([*calls, text("Done.")]) as api:
        run = run_claude(project, api, "go")
    assert run.result is not None, run.describe()

    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 2 * CALLS, records
    assert all(r["landed"] for r in records), records
    # Not on disk yet when some hook started: the lookup cannot read the transcript once.
    assert any(not r["at_start"] for r in records), records
    # Each landed well within the wait the hooks allow for it.
    assert max(r["after"] for r in records) < SETTLE_WAIT_S, records
