"""The state file's schema: its bounds, and TypedDicts of its records for mypy.

Each record is written down twice: here for the type checker, and in `core.validation` as the
checker a loaded file must pass (`tests/core/test_one_source.py` compares the two key by key).
Most fields may be absent (the code has a default for them); the few it indexes directly are
required. The hook output is typed here too; the payloads a hook
has read are in `arcguard.hooks.payloads`.

Pure: no I/O. The TypedDicts exist for mypy only and cost nothing at run time.
"""

from __future__ import annotations


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal
    from typing import NotRequired
    from typing import TypedDict

    # --- names -------------------------------------------------------------------------------

    # arcguard's hook subcommands (`arcguard hook NAME`), as the log's `hook` field names them.
    HookName = Literal[
        "posture",
        "stop",
        "pre-tool",
        "post-tool",
        "post-batch",
        "session-start",
        "stop-failure",
        "limit-wait",
    ]
    # The Claude Code events those hooks answer.
    EventName = Literal[
        "UserPromptSubmit",
        "Stop",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "SessionStart",
        "StopFailure",
    ]
    # What a logged decision did: the names and meanings are `core.vocabulary`'s (a log
    # written by an earlier version may say block, read as continue).
    DecisionKind = Literal[
        "continue",
        "allow",
        "release",
        "decision",
        "cap",
        "deny",
        "untracked",
        "pause",
        "resume",
        "nudge",
        "arc",
        "arc-new",
        "arc-stop",
        "api-error",
        "limit-wait",
        "limit-resume",
        "limit-cancel",
        "limit-watch",
        "give-up",
        "overridden",
    ]
    # Which loop-guard rule paused the session.
    PauseKind = Literal["blocked", "cycle", "backstop", "stuck", "poll"]

    # --- the state file ----------------------------------------------------------------------

    class Milestone(TypedDict, total=False):
        slice: str
        status: str  # "todo" or "done"

    class Arc(TypedDict, total=False):
        active: bool
        slug: str
        invoked_at: str
        last_activity: str
        milestones: list[Milestone]
        reconcile_count: int
        total_blocks: int
        last_reconcile: str | None
        completed_at: str
        limit_resumes: int
        task: str  # what the operator typed after /autonomous, clipped
        ended_by: str  # "stop": the operator ended it with /autonomous stop

    class Run(TypedDict, total=False):
        seq: int
        owner: str
        at: float
        outcome: str | None
        spent: str | None
        turn: int  # the track's turn it was issued in: still waiting then means in flight

    class Operation(TypedDict):
        label: str
        runs: list[Run]
        edit_seq: NotRequired[int]
        compactions: NotRequired[int]
        max_timeout: NotRequired[float]
        recovery_used: NotRequired[bool]
        validated_seq: NotRequired[int]
        change_seq: NotRequired[int]
        file_state: NotRequired[str]

    class Turn(TypedDict):
        denied: int
        progress: bool
        label: str
        new_result: NotRequired[bool]

    class TurnCall(TypedDict):
        """One call of an open turn, as the turn rules need it (never its input)."""

        op: str  # the operation id
        label: str  # its readable label, clipped
        allowed: bool  # exempted by the `allow` setting
        waits: bool  # a wait for background work
        polls: NotRequired[bool]  # a wait that polls (sleep, watch, --wait...)

    class OpenTurn(TypedDict):
        message: str | None
        tool_only: NotRequired[bool | None]  # always written; a loaded file may lack it
        calls: list[list[object]]  # kept empty by this version: `steps` replaced it
        ids: NotRequired[list[str]]
        steps: NotRequired[list[TurnCall]]

    class Unconfirmed(TypedDict):
        ids: list[str]
        counted: bool

    class Poll(TypedDict):
        call: str  # call shape
        result: str  # result shape
        since: float  # when this result was first seen
        count: int
        label: str

    class Stuck(TypedDict, total=False):
        pairs: list[str]  # no longer written: states from earlier releases may hold it
        results: list[str]  # result shapes seen
        runs: dict[str, int]  # result shape -> sightings in its current run
        marks: dict[str, int]  # result shape -> `news` at its last sighting
        news: int  # results never seen before, counted since the operator spoke
        repeats: int  # the longest run of a completed call's result, less its first sighting
        fail: str  # the result shape of the current run of failures
        fails: int
        fail_turn: int  # the turn of the last failure counted
        label: str
        nudged: bool
        fail_nudged: bool
        poll: Poll | None
        poll_nudged: bool

    class Track(TypedDict):
        open_turn: NotRequired[OpenTurn]
        stuck: NotRequired[Stuck]
        narrations: NotRequired[list[str]]  # the latest turns' narration, for near-repeats
        unconfirmed: NotRequired[Unconfirmed]
        seq: int
        ops: dict[str, Operation]
        results: list[str]
        turn: Turn
        blocked_rounds: int
        fingerprints: list[str]
        fresh: NotRequired[list[bool]]
        streak: int
        checkin_done: bool
        turns: int
        backstop_nudged_at: NotRequired[float | None]
        denials: int
        updated: NotRequired[float]
        labels: NotRequired[dict[str, str]]
        quiet: NotRequired[int]
        denied_ids: NotRequired[list[str]]

    class Pause(TypedDict, total=False):
        kind: PauseKind
        reason: str
        at: float
        denied_since: int

    class Guard(TypedDict, total=False):
        paused: Pause | None
        edit_seq: int
        compactions: int
        tracks: dict[str, Track]
        resolved: list[str]
        change_seq: int
        background: dict[str, float]
        wait_since: float
        batch_fires: bool
        files: dict[str, list[str]]  # file digest -> content digests it had, oldest first

    class Seen(TypedDict, total=False):
        messages: list[str]
        tools: list[str]
        resumes: list[str]
        queued: list[str]
        goal: str  # the condition of Claude Code's active /goal (core.arc_keeper.goal)
        overrides: list[str]  # Claude Code's Stop-cap override warnings already logged

    class LastApiError(TypedDict, total=False):
        error: str
        at: float

    # Counters by event name (ints), plus `last_api_error`.
    Events = dict[str, "int | LastApiError"]

    class LogEntry(TypedDict, total=False):
        t: float
        hook: str  # a HookName; plain text so that callers may pass the hook they serve
        kind: DecisionKind
        reason: str
        rule: (
            str  # pauses: the PauseKind; stop blocks: the stall class (core.arc_keeper.stop.LOGGED)
        )
        operation: str  # denials: the operation's label
        runs: int  # denials: runs of it in the window
        consecutive: int | None  # stop blocks: the arc's counters after this block
        lifetime: int | None
        attempt: int  # limit-wait, limit-resume: which resume of the arc this is
        of: int  # ... and how many the arc may have

    class LimitWait(TypedDict, total=False):
        token: str
        pid: int
        started: float
        until: float
        error: str
        source: str
        arc: str | None
        attempt: int

    class StateFile(TypedDict):
        schema: int
        session_id: str
        created: NotRequired[float]
        updated: NotRequired[float]
        arc: NotRequired[Arc | None]
        guard: Guard
        seen: Seen
        events: NotRequired[Events]
        log: list[LogEntry]
        rate_limits: NotRequired[dict[str, float]]
        limit_wait: NotRequired[LimitWait]
        cwd: NotRequired[str]  # the folder the session first reported

    # --- hook output (Claude Code's wire format, built in core.render) -----------------------

    class HookSpecificOutput(TypedDict, total=False):
        hookEventName: EventName
        permissionDecision: Literal["deny"]
        permissionDecisionReason: str
        additionalContext: str

    # Functional form: `continue` is a Python keyword.
    Output = TypedDict(
        "Output",
        {
            "decision": Literal["block"],
            "reason": str,
            "continue": bool,
            "stopReason": str,
            "hookSpecificOutput": HookSpecificOutput,
            "terminalSequence": str,
            "systemMessage": str,
        },
        total=False,
    )


SCHEMA = 1

# --- bounds --------------------------------------------------------------------------------
# What no input can make larger: every list arcguard stores is bounded in count and every
# string in length, so the whole file is bounded (`tests/core/test_state_budget.py` builds the
# largest document these allow and checks that it takes `STATE_BUDGET` bytes). A text taken
# from input is bounded in the bytes it takes in the file (`state.clip_json`: a character may
# take up to 12 there, escaped). Ids that arrive in payloads and transcripts (tool-use,
# agent, message, entry and task ids) are kept as they are when short and plain, else as a
# digest (`state.short_id`): real ids always are.
ID_CHARS = 64
# A call's label: the tool name and its command or path, clipped (`Bash: pytest -q`); a label
# of plain printable ASCII is never cut by its byte bound (a quote takes 2 bytes at most).
TOOL_NAME_CHARS = 64
SUBJECT_CHARS = 80
LABEL_BYTES = 2 * (TOOL_NAME_CHARS + 2 + SUBJECT_CHARS)
# A turn's calls as the fallback keeps them, the ids of an unconfirmed turn, and the calls a
# fingerprint names; a turn with more is still closed, its fingerprint made a digest.
MAX_CALLS = 64
# A decision's reason (log, pause): fixed texts and a few labels, never near this.
REASON_BYTES = 4000
# Counters of lifecycle events, and the usage windows recorded from the status line.
MAX_EVENT_KEYS = 32
MAX_WINDOWS = 8
# The task typed after /autonomous, as the arc keeps it (in characters).
TASK_CHARS = 200
# An arc's slug and milestones, as `arc set` and `/autonomous` set them.
SLUG_BYTES = 1000
MAX_MILESTONES = 50
MILESTONE_BYTES = 2000
# A file's size and modification time, as the pre-tool hook reads them.
FILE_STATE_CHARS = 64
# The largest state file these bounds allow with the default settings, in bytes: no input can
# make one larger (a real one is a few tens of KB). More operations, runs or cycle history
# in the settings allow more, up to the limit a state file is read with (`store`).
STATE_BUDGET = 5_341_656
