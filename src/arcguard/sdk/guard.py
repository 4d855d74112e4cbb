"""The SDK hooks' per-request path: the resident server's, called in-process.

Each callback hands its payload to `Resident.answer` (the same `runner.dispatch`, wall budget,
state files and locks as a command hook or a resident request), which runs it on a thread of
its own, so the application's event loop never waits on a lock or a transcript read; the loop
only awaits the answer. Whatever goes wrong, the answer is `{}`: no decision, one log line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from typing import cast

from arcguard.claude_settings import merge_plan
from arcguard.core import render
from arcguard.hooks import EVENTS
from arcguard.hooks import runner
from arcguard.resident import server
from arcguard.storage import cost
from arcguard.storage import error_log
from arcguard.storage import paths
from arcguard.storage import store
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from claude_agent_sdk import HookCallback
    from claude_agent_sdk import HookContext
    from claude_agent_sdk import HookInput
    from claude_agent_sdk import HookJSONOutput
    from claude_agent_sdk import HookMatcher

    from arcguard.jsonio import JSONObject

WHERE = "sdk"
# The callback events the CLI sends an SDK application, as `arcguard install` wires them.
# SessionStart never reaches a callback: the first event of a session does its work.
SDK_EVENTS = tuple(event for event in EVENTS if event != "SessionStart")
# The events whose answer can carry added context for the model (the restated posture).
CONTEXT_EVENTS = frozenset({"UserPromptSubmit", "PreToolUse", "PostToolUse"})


@value
class Guard:
    """arcguard for one SDK application: its environment, state directory and the sessions
    it has seen start (each one's first event does what SessionStart would). Made by
    `start`."""

    environ: dict[str, str]
    home: str
    resident: server.Resident
    started: set[str]
    lock: threading.Lock

    @classmethod
    def start(cls, environ: Mapping[str, str]) -> Guard:
        environ = dict(environ)
        home = os.path.abspath(paths.state_dir(environ))
        # Made here rather than by `server.resident`: a server is shared by every project's
        # sessions, so it may not take settings from the environment that started it; an SDK
        # application's hooks serve its own sessions only, so its environment and arguments
        # are its settings. No secret: nothing listens, the callbacks are the only way in.
        command = runner.own_command("-c", sys.executable)
        resident = server.Resident(home, b"", environ, command, time.monotonic(), cost.SDK)
        store.keep_written()  # this process answers every hook of its sessions
        return cls(environ, home, resident, set(), threading.Lock())

    def matchers(self) -> dict[str, list[HookMatcher]]:
        """The hook matchers for `ClaudeAgentOptions(hooks=...)`, keyed by event name."""
        from claude_agent_sdk import HookMatcher

        return {
            event: [
                HookMatcher(
                    matcher=merge_plan.matcher(event)
                    if event in merge_plan.MATCHER_EVENTS
                    else None,
                    hooks=[self.callback(event)],
                    timeout=merge_plan.HOOK_TIMEOUT,
                )
            ]
            for event in SDK_EVENTS
        }

    def callback(self, event: str) -> HookCallback:
        async def on_event(
            payload: HookInput, _tool_use_id: str | None, _ctx: HookContext
        ) -> HookJSONOutput:
            output = await self.answer(event, payload)
            # arcguard's output is what a command hook prints, which the SDK passes on as is.
            return cast("HookJSONOutput", output)

        on_event.__name__ = f"arcguard_{event}"
        return on_event

    async def answer(self, event: str, payload: object) -> JSONObject:
        """The hook's output for one payload: `{}` for no decision. Never raises. Its cost
        (`cost.log`, mode `sdk`) is recorded by the request's thread."""
        try:
            if not isinstance(payload, dict):
                return {}
            opening = await self._session_start(payload)
            text = await self.resident.answer(event, json.dumps(payload).encode())
            output: object = json.loads(text) if text else {}
            if not isinstance(output, dict):
                return {}
            if opening and event in CONTEXT_EVENTS:
                output = render.with_context_first(output, event, opening)
            return output
        except Exception as exc:
            error_log.log_line(self.home, f"{WHERE} {event}", f"{type(exc).__name__}: {exc}")
            return {}

    async def _session_start(self, payload: JSONObject) -> str | None:
        """SessionStart's work at a session's first event seen here: a session whose state
        exists already is a resumed one. Returns the context it would add for the model."""
        sid = payload.get("session_id")
        if not isinstance(sid, str):
            return None
        with self.lock:
            if sid in self.started:
                return None
            self.started.add(sid)
        known = await asyncio.to_thread(store.read_session, self.home, sid) is not None
        start = {
            "session_id": sid,
            "hook_event_name": "SessionStart",
            "source": "resume" if known else "startup",
            "cwd": payload.get("cwd"),
            "transcript_path": payload.get("transcript_path"),
        }
        text = await self.resident.answer("SessionStart", json.dumps(start).encode())
        output = json.loads(text) if text else None
        return render.context_text(render.read(output if isinstance(output, dict) else None))
