"""`arcguard statusline`: Claude Code's status line command, as fast as a hook.

Claude Code runs it after every assistant message with a JSON payload on stdin and shows what
it prints. It prints arcguard's segment for the session (`core.display.statusline`) or nothing, and
keeps the payload's `rate_limits.*.resets_at` in the session's state, where `limit-wait` finds
the exact reset time when an error text names none. Like a hook it fails quietly: any problem
(an unusable state dir, a closed stdout, a hang past the hooks' wall budget) prints nothing and
exits 0, and click is never imported on this path. The arc's name is the model's own text, so
the line is printed with every control character escaped: it cannot retitle the terminal or
clear the screen.
"""

from __future__ import annotations

import os
import time

from arcguard import jsonio
from arcguard.commands.printable import one_line
from arcguard.hooks import runner
from arcguard.storage import error_log
from arcguard.storage import paths
from arcguard.storage import store


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.state import State
    from arcguard.hooks.payloads import StatusPayload
    from arcguard.hooks.runner import _Watchdog
    from arcguard.jsonio import JSONObject


NAME = "statusline"
MAX_STDIN = runner.MAX_PAYLOAD


def clock(ts: float) -> str:
    """A time of day in the user's own zone, as a status line has room for."""
    return time.strftime("%H:%M", time.localtime(ts))


def record(home: str, cfg: Config, sid: str, resets: dict[str, float], now: float) -> None:
    from arcguard.core.arc_keeper import limits
    from arcguard.core.state import clone

    def change(state: State | None) -> tuple[State | None, None]:
        if state is None:
            return None, None  # no state yet: nothing of arcguard's in this session to serve
        new = clone(state)
        return (new if limits.record_resets(new, resets) else None), None

    store.update(home, sid, change, now=now, lock_timeout=cfg.lock_timeout_ms / 1000.0)


def read(payload: JSONObject) -> StatusPayload | None:
    from arcguard.core.arc_keeper import limits

    sid = runner.session_id(payload)
    if sid is None:
        return None
    return {"session_id": sid, "resets": limits.reset_times(payload.get("rate_limits"))}


def line(payload: JSONObject, home: str, cfg: Config, now: float) -> str:
    from arcguard.core.display.statusline import segment

    given = read(payload)
    if given is None:
        return ""
    sid, resets = given["session_id"], given["resets"]
    if store.switched_off(home, sid):
        from arcguard.core.display.statusline import SWITCHED_OFF

        return SWITCHED_OFF
    state = store.read_session(home, sid)
    if state is not None and resets and resets != state.get("rate_limits"):
        record(home, cfg, sid, resets, now)  # only a change is worth the lock
    return segment(state, cfg, now, clock, waiter_alive=_waiter_alive(state))


def _waiter_alive(state: State | None) -> bool:
    from arcguard.core.arc_keeper import limits

    wait = limits.pending(state)
    if wait is None:
        return False
    # Only a session with a recorded wait pays for the waiter module's import.
    from arcguard.hooks.limit_wait import waiter_alive

    return waiter_alive(wait.pid)


# What the status line says while resident mode is installed but its server is down (every
# hook then fails open, and Claude Code shows an error line on each tool call).
RESIDENT_DOWN = "resident mode: server not running (arcguard serve &)"


def with_resident(text: str, home: str) -> str:
    from arcguard.core.display.statusline import SEPARATOR
    from arcguard.resident import files

    if files.port(home) is None or files.running(home):
        return text
    return f"{text}{SEPARATOR}{RESIDENT_DOWN}" if text else RESIDENT_DOWN


def main() -> int:
    """Print the segment; whatever goes wrong (an unusable state dir, a closed stdout, a hang),
    print nothing and exit 0, within the hooks' wall budget."""
    runner._hold_std_fds()
    try:
        home = paths.state_dir(os.environ)
    except Exception:
        # No state dir, so nowhere to log; `arcguard doctor` names an unusable ARCGUARD_HOME.
        return 0
    watchdog = runner._Watchdog.begin(runner.DEFAULT_BUDGET_S, home, NAME)
    text = _text(home, watchdog)
    if not watchdog.commit():
        time.sleep(60)  # the watchdog is ending the process; print nothing
    if text:
        runner._write(1, one_line(text) + "\n")
    return 0


def _text(home: str, watchdog: _Watchdog) -> str:
    try:
        from arcguard.storage.config_file import load_config

        cfg, _ = load_config(os.environ)
        watchdog.set_budget(cfg.hook_budget_ms / 1000.0)
        raw = runner._read_stdin()  # from the descriptor: a closed stdin has no sys.stdin
        payload = jsonio.loads(raw) if len(raw) <= MAX_STDIN else None
        text = line(payload, home, cfg, time.time()) if isinstance(payload, dict) else ""
        return with_resident(text, home)
    except jsonio.JSONError:
        return ""
    except Exception as exc:
        error_log.log_line(home, NAME, f"{type(exc).__name__}: {exc}")
        return ""
