"""Background work the session is waiting on, so waiting is not mistaken for looping.

Work counts as running from the moment the harness says it started it (a background command's
task id, an async subagent's launch, a monitor) or a status tool reports it running, until the
harness reports it ended (a task notification, a finished status; a monitor's events do not end
it) or `wait_max_seconds` passed since it was last seen running. A wait repeated while work runs
is allowed for as long as that lasts, and counts toward no staged rule (`stuck`); the repeat and
cycle rules apply again as soon as nothing runs or the time is up.
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.core.loop_guard.tool_effects import STATUS_TOOLS
from arcguard.core.loop_guard.tool_effects import is_wait
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import StateFile
from arcguard.core.state import short_id


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.state import State
    from arcguard.core.tool_call import ToolCall
    from arcguard.core.tool_call import ToolResult

MAX_TASKS = 32
MONITOR = "Monitor"  # a tool that watches a command and reports each of its events
MONITOR_STARTED = "Monitor started (task "
LAUNCH_MARKS = ("Command running in background with ID", "Async agent launched", MONITOR_STARTED)
RUNNING_MARKS = (
    "<status>running</status>",
    "<status>pending</status>",
    "[in_progress]",
    "in_progress",
    "[pending]",
)
# Tools that stop a background task, and the parameters that name it.
STOP_TOOLS = frozenset({"TaskStop", "KillShell", "KillBash"})
TASK_KEYS = ("task_id", "shell_id")
ENDED = frozenset({"completed", "failed", "killed", "stopped", "cancelled", "error"})
# Ended by itself and well: a hang of it was no failure (`hangs`). What it printed is news
# only if it is new, as any result is.
FINISHED = frozenset({"completed"})
EXIT_KEYS = ("exitCode", "exit_code")  # a completed task's command's exit status
FAILED = "failed"
TAGS = ("task-id", "tool-use-id")  # how a notification names its task, then its call
NOTIFICATION = "<task-notification>"
# Subagent tracks are updated by their own hook events: one that moved recently is running.
SUBAGENT_ACTIVE_SECONDS = 120.0


def _tasks(state: State) -> dict[str, float]:
    guard = StateFile.view(state).guard
    tasks = guard.background
    guard.background = tasks
    return tasks


def _text(response: object) -> str:
    return response if isinstance(response, str) else jsonio.dumps(response)


def _task_of(call: ToolCall, response: object) -> tuple[str | None, str | None]:
    """(task id, status) a status tool reported, when its response is structured; a task that
    completed with its command exiting non-zero reads as `failed`."""
    task = response.get("task") if isinstance(response, dict) else None
    if isinstance(task, dict):
        tid, status = task.get("task_id"), task.get("status")
        codes = [task.get(key) for key in EXIT_KEYS]
        if any(isinstance(code, int) and code != 0 for code in codes):
            status = FAILED
        return (tid if isinstance(tid, str) else None, status if isinstance(status, str) else None)
    tid = call.input.get("task_id") if isinstance(call.input, dict) else None
    return (tid if isinstance(tid, str) else None), None


def observe_result(state: State, now: float, call: ToolCall, result: ToolResult) -> str | None:
    """Note work a finished call started or stopped, or what a status call said about running
    work: the task (a short id) it said completed (`FINISHED`), if one the session started."""
    if not result.responded:
        return None
    response = result.response
    tasks = _tasks(state)
    launched = launched_by(response, call.id, call.name)
    if launched is not None:
        tasks[short_id(launched)] = now
    ended = _observe_status(tasks, now, call, response) if call.name in STATUS_TOOLS else None
    if call.name in STOP_TOOLS and isinstance(call.input, dict):
        # Stopped, not finished: what it would have done is still unknown.
        for named in (call.input.get(key) for key in TASK_KEYS):
            if isinstance(named, str):
                tasks.pop(short_id(named), None)
    _bound(tasks)
    return ended


def launched_by(response: object, tool_use_id: str, tool: str = "") -> str | None:
    """The id of the background work this response says was started, if any."""
    if isinstance(response, dict):
        task = response.get("taskId" if tool == MONITOR else "backgroundTaskId")
        if isinstance(task, str) and task:
            return task  # a background command, or a monitor
        if response.get("isAsync") is True or response.get("status") == "async_launched":
            agent = response.get("agentId")  # an async subagent
            return agent if isinstance(agent, str) and agent else tool_use_id
        return None
    if isinstance(response, str) and any(mark in response[:400] for mark in LAUNCH_MARKS):
        return _monitor_task(response) or tool_use_id
    return None


def _monitor_task(text: str) -> str | None:
    """The task id in a monitor's text reply ("Monitor started (task b1x, persistent ...")),
    which its notifications name."""
    start = text.find(MONITOR_STARTED)
    if start < 0:
        return None
    rest = text[start + len(MONITOR_STARTED) :]
    ends = [i for i in (rest.find(","), rest.find(")")) if i >= 0]
    return (rest[: min(ends)].strip() or None) if ends else None


def _observe_status(
    tasks: dict[str, float], now: float, call: ToolCall, response: object
) -> str | None:
    """Note what a status call said (mutates `tasks`): the task the session started that it
    said completed, if any."""
    tid, status = _task_of(call, response)
    tid = short_id(tid) if tid is not None else None
    unnamed = short_id(f"status:{call.name}")
    if status in ENDED and tid is not None:
        return tid if tasks.pop(tid, None) is not None and status in FINISHED else None
    if status == "running" or any(mark in _text(response)[:4000] for mark in RUNNING_MARKS):
        tasks[tid or unnamed] = now
    else:
        tasks.pop(unnamed, None)  # it now reports nothing running
    return None


def _bound(tasks: dict[str, float]) -> None:
    for old in sorted(tasks, key=lambda k: tasks[k])[:-MAX_TASKS]:
        del tasks[old]


def observe_notification(state: State, text: str) -> None:
    """A task notification (one prompt may hold several): the task each names ended (or,
    unnamed, the oldest one), and, when it completed well, a hang of it was none (`hangs`)."""
    from arcguard.core.loop_guard import hangs  # here: the hook before each call never needs it

    for one in _each(text):
        notified(_tasks(state), one)
        if hangs.COMPLETED in one:
            hangs.completed(state, named(one))


def _each(text: str) -> list[str]:
    """The notifications in `text`, each from its opening tag (the whole text when it has
    one or none)."""
    parts = text.split(NOTIFICATION)
    return [NOTIFICATION + part for part in parts[1:]] if len(parts) > 2 else [text]


def named(text: str) -> list[str]:
    """The short ids a notification names its task by: the task's, then its call's."""
    ids = []
    for tag in TAGS:
        start = text.find(f"<{tag}>")
        end = text.find(f"</{tag}>", start)
        if start >= 0 and end > start:
            ids.append(short_id(text[start + len(tag) + 2 : end].strip()))
    return ids


def notified(tasks: dict[str, float], text: str) -> None:
    """The task a notification reports ended leaves `tasks` (mutates `tasks`): the one it
    names, else the oldest (a task started by a text reply is kept under its call's id, which
    a notification naming only the task's own does not match). One that names the call too,
    and matches nothing, reports a task already gone (a status call reported its end first):
    another task still runs. A monitor's event (`<event>`, no status) reports a task that runs
    on: it stops only when its stream ends."""
    if not tasks or ("<event>" in text and "<status>" not in text):
        return
    for task in named(text):
        if task in tasks:
            del tasks[task]
            return
    if f"<{TAGS[-1]}>" not in text:
        del tasks[min(tasks, key=lambda k: tasks[k])]


def still_running(tasks: tuple[str, ...], text: str) -> tuple[str, ...]:
    """`tasks` (ids, oldest first) once a task notification has reported on them."""
    by_age = {task: float(n) for n, task in enumerate(tasks)}
    notified(by_age, text)
    return tuple(by_age)


def running(state: State, cfg: Config, now: float, *, own: str = "main") -> bool:
    """Work other than the caller's own is running (`own`: the caller's track key)."""
    guard = StateFile.view(state).guard
    if any(now - at < cfg.wait_max_seconds for at in guard.background.values()):
        return True
    return any(
        key not in ("main", own) and now - track.updated < SUBAGENT_ACTIVE_SECONDS
        for key, track in guard.tracks.pairs()
    )


def waiting(state: State, cfg: Config, now: float, *, own: str = "main") -> bool:
    """A wait now is patience: work is running and the wait has not outlasted its bound."""
    guard = StateFile.view(state).guard
    if not running(state, cfg, now, own=own):
        del guard.wait_since
        return False
    if guard.wait_since is None:
        guard.wait_since = now
    return now - guard.wait_since < cfg.wait_max_seconds


def patient(state: State, cfg: Config, now: float, call: ToolCall) -> bool:
    """`call` waits (a sleep, a status check) on work still running, within the wait's bound:
    patience, which the repeat guard lets run and the staged rules do not count."""
    return is_wait(call) and waiting(state, cfg, now, own=track_key(call.agent))


def stop_waiting(state: State) -> None:
    """The agent did something besides waiting: a later wait starts its own time bound."""
    del StateFile.view(state).guard.wait_since
