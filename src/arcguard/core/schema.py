"""The state file's schema: its records, each field declared once, and its bounds.

Each record (`core.validation.Record`) declares its fields with their type, their check and
their default; the check a loaded file must pass is derived from them. Most fields may be
absent (they read as their default); the few without a default are required. The hook output
is typed here too (TypedDicts, for mypy only); the payloads a hook has read are in
`arcguard.hooks.payloads`.

Pure: no I/O.
"""

from __future__ import annotations

from arcguard.core.loop_records import Stuck
from arcguard.core.validation import BOOL
from arcguard.core.validation import INT
from arcguard.core.validation import LIST
from arcguard.core.validation import NUMBER
from arcguard.core.validation import STR
from arcguard.core.validation import Keyed
from arcguard.core.validation import Many
from arcguard.core.validation import Record
from arcguard.core.validation import field
from arcguard.core.validation import keyed
from arcguard.core.validation import list_of
from arcguard.core.validation import many
from arcguard.core.validation import map_of
from arcguard.core.validation import maybe
from arcguard.core.validation import opt
from arcguard.core.validation import optional
from arcguard.core.validation import sub


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from arcguard.core.names import DecisionKind
    from arcguard.core.names import EventName
    from arcguard.core.validation import Check


# --- the state file --------------------------------------------------------------------------
# Each record's fields, declared once: the annotation is its type, `field(CHECK, default=...)`
# its check and what it reads as when absent (see `core.validation`). A field with no default
# is required: a loaded file without it is set aside. Comments say what a field holds.


class Milestone(Record):
    slice: str = field(STR, default="")
    status: str = field(STR, default="")  # "todo" or "done"


class Arc(Record):
    active: bool = field(BOOL, default=False)
    slug: str = field(STR, default="")
    invoked_at: str | None = opt(STR, default=None)
    last_activity: str | None = opt(STR, default=None)
    milestones: Many[Milestone] = many(Milestone, default_factory=list)
    reconcile_count: int = field(INT, default=0)
    total_blocks: int = field(INT, default=0)
    last_reconcile: str | None = field(optional(STR), default=None)
    completed_at: str = field(STR, default="")
    limit_resumes: int = field(INT, default=0)
    task: str = field(STR, default="")  # what the operator typed after /autonomous, clipped
    ended_by: str = field(STR, default="")  # "stop": the operator ended it with /autonomous stop
    # What the checks the task names prove ("test", "plan"), those of them that passed since
    # the last edit to code, and whether the model was sent back for the others since
    # (`arc_keeper.named_checks`).
    checks: list[str] = field(list_of(STR), default_factory=list)
    checks_passed: list[str] = field(list_of(STR), default_factory=list)
    checks_asked: bool = field(BOOL, default=False)


class Run(Record):
    """One execution of an operation, owned by its tool-use id."""

    seq: int = field(INT, default=0)
    owner: str | None = opt(STR, default=None)
    at: float = field(NUMBER, default=0)
    outcome: str | None = field(optional(STR), default=None)  # None: no result yet
    spent: str | None = field(optional(STR), default=None)  # the exception it used, if any
    turn: int | None = opt(INT, default=None)  # the track's turn it was issued in


class Operation(Record):
    label: str = field(STR)
    runs: Many[Run] = many(Run)
    edit_seq: int = field(INT, default=0)
    compactions: int = field(INT, default=0)
    max_timeout: float = field(NUMBER, default=0)
    recovery_used: bool = field(BOOL, default=False)
    validated_seq: int = field(INT, default=-1)
    change_seq: int = field(INT, default=0)
    file_state: str | None = opt(STR, default=None)  # a read file's size and mtime


class Turn(Record):
    denied: int = field(INT)
    progress: bool = field(BOOL)
    label: str = field(STR)
    new_result: bool = field(BOOL, default=False)


class TurnCall(Record):
    """One call of an open turn, as the turn rules need it (never its input)."""

    op: str = field(STR)  # the operation id
    label: str = field(STR)  # its readable label, clipped
    allowed: bool = field(BOOL)  # exempted by the `allow` setting
    waits: bool = field(BOOL)  # a wait for background work
    polls: bool = field(BOOL, default=False)  # a wait that polls (sleep, watch, --wait...)


class OpenTurn(Record):
    message: str | None = field(optional(STR))
    tool_only: bool | None = field(optional(BOOL), default=None)  # a loaded file may lack it
    calls: list[list[object]] = field(list_of(LIST))  # kept empty: `steps` replaced it
    ids: list[str] = field(list_of(STR), default_factory=list)
    steps: Many[TurnCall] = many(TurnCall, default_factory=list)


class Unconfirmed(Record):
    """A turn taken as tool-only before its message was on disk, as releases up to 0.1 kept
    it; still read, and dropped at the next batch (the turn stays counted as tool-only)."""

    ids: list[str] = field(list_of(STR))
    counted: bool = field(BOOL)


class PendingTurn(Record):
    """A closed turn whose message was not on disk yet at its batch: what the cycle rule
    needs of it once the message can be read (`cycle_run.settle`)."""

    ids: list[str] = field(list_of(STR))  # a few of its tool-use ids, to find the message by
    fingerprint: str = field(STR)  # "" when the turn adds nothing to the cycle history
    label: str = field(STR)
    fresh: bool = field(BOOL)  # it brought a result never seen before


# A decision's kind is plain text in the file (the check), one of `DecisionKind` in the code.
DECISION_KIND: Check[DecisionKind | Literal[""]] = STR  # type: ignore[assignment]


class LogEntry(Record):
    t: float | None = opt(NUMBER, default=None)
    hook: str | None = opt(STR, default=None)  # a `names.HookName`; plain text: callers pass theirs
    kind: DecisionKind | Literal[""] = field(DECISION_KIND, default="")
    reason: str = field(STR, default="")
    rule: str | None = opt(STR, default=None)  # a pause's kind, a block's class, or a rule
    operation: str | None = opt(STR, default=None)  # denials: the operation's label
    runs: int | None = opt(INT, default=None)  # denials: runs in the window; requests: count
    ways: int | None = opt(INT, default=None)  # failure requests: failures taking turns
    consecutive: int | None = field(optional(INT), default=None)  # stop blocks: the counters
    lifetime: int | None = field(optional(INT), default=None)
    attempt: int | None = opt(INT, default=None)  # limit waits: which resume this is
    of: int | None = opt(INT, default=None)  # ... and how many the arc may have


class Track(Record):
    """The main agent's or one subagent's loop-guard record."""

    seq: int = field(INT)  # calls seen since the operator's last message
    ops: Keyed[Operation] = keyed(Operation)
    results: list[str] = field(list_of(STR))  # outcomes seen: a new one is fresh evidence
    turn: Turn = sub(Turn)
    blocked_rounds: int = field(INT)
    fingerprints: list[str] = field(list_of(STR))
    fresh: list[bool] = field(list_of(BOOL), default_factory=list)  # per fingerprint: news
    streak: int = field(INT)  # consecutive tool-only turns
    checkin_done: bool = field(BOOL)
    turns: int = field(INT)  # turns since the operator's last message
    backstop_nudged_at: float | None = field(optional(NUMBER), default=None)
    denials: int = field(INT)  # lifetime, for status
    updated: float = field(NUMBER, default=0)
    labels: dict[str, str] = field(map_of(STR), default_factory=dict)
    quiet: int = field(INT, default=0)  # consecutive turns without progress
    denied_ids: list[str] = field(list_of(STR), default_factory=list)
    open_turn: OpenTurn | None = maybe(OpenTurn, default=None, null=False)
    unconfirmed: Unconfirmed | None = maybe(Unconfirmed, default=None, null=False)
    pending: Many[PendingTurn] = many(PendingTurn, default_factory=list)
    stuck: Stuck = sub(Stuck, default_factory=dict)
    narrations: list[str] = field(list_of(STR), default_factory=list)  # for near-repeats
    held: Many[LogEntry] = many(LogEntry, default_factory=list)  # requests awaiting a result


class Pause(Record):
    kind: str = field(STR, default="")  # a PauseKind
    reason: str = field(STR, default="")
    at: float = field(NUMBER, default=0)
    denied_since: int = field(INT, default=0)


class Guard(Record):
    paused: Pause | None = maybe(Pause, default=None)
    edit_seq: int = field(INT, default=0)
    compactions: int = field(INT, default=0)
    tracks: Keyed[Track] = keyed(Track, default_factory=dict)
    resolved: list[str] = field(list_of(STR), default_factory=list)
    change_seq: int = field(INT, default=0)
    background: dict[str, float] = field(map_of(NUMBER), default_factory=dict)
    wait_since: float | None = opt(NUMBER, default=None)
    batch_fires: bool = field(BOOL, default=False)
    files: dict[str, list[str]] = field(map_of(list_of(STR)), default_factory=dict)
    tool_edit_seq: int = field(INT, default=0)  # `edit_seq` at the last edit by an edit tool


class Seen(Record):
    messages: list[str] = field(list_of(STR), default_factory=list)
    tools: list[str] = field(list_of(STR), default_factory=list)
    resumes: list[str] = field(list_of(STR), default_factory=list)
    queued: list[str] = field(list_of(STR), default_factory=list)
    goal: str = field(STR, default="")  # the condition of Claude Code's active /goal
    overrides: list[str] = field(list_of(STR), default_factory=list)  # Stop-cap warnings seen


class LastApiError(Record):
    error: str = field(STR, default="")
    at: float = field(NUMBER, default=0)


class Events(Record, other=INT):
    """Counters by event name (`Events.count`), plus the last API error."""

    last_api_error: LastApiError | None = maybe(LastApiError, default=None, null=False)

    def count(self, name: str) -> int:
        found = self.data.get(name, 0)
        return found if isinstance(found, int) else 0

    def bump(self, name: str) -> None:
        self.data[name] = self.count(name) + 1


class LimitWait(Record):
    token: str = field(STR, default="")
    pid: int | None = opt(INT, default=None)
    started: float | None = opt(NUMBER, default=None)
    until: float | None = opt(NUMBER, default=None)
    error: str = field(STR, default="")
    source: str = field(STR, default="")
    arc: str | None = field(optional(STR), default=None)
    attempt: int = field(INT, default=0)


class StateFile(Record):
    """The whole document of one session."""

    schema: int = field(INT)  # checked against SCHEMA first, by `validation.problem`
    session_id: str = field(STR)
    created: float = field(NUMBER, default=0)
    updated: float = field(NUMBER, default=0)
    arc: Arc | None = maybe(Arc, default=None)
    guard: Guard = sub(Guard)
    seen: Seen = sub(Seen)
    events: Events = sub(Events, default_factory=dict)
    log: Many[LogEntry] = many(LogEntry)
    rate_limits: dict[str, float] = field(map_of(NUMBER), default_factory=dict)
    limit_wait: LimitWait | None = maybe(LimitWait, default=None, null=False)
    cwd: str = field(STR, default="")  # the folder the session first reported


if TYPE_CHECKING:
    from typing import TypedDict
    from typing import TypeGuard

    from arcguard.jsonio import JSONObject

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
# A turn's calls as the fallback keeps them, an unconfirmed turn's ids, a fingerprint's calls.
MAX_CALLS = 64
# Turns kept pending while their messages are not on disk (more wait for theirs), and the
# tool-use ids each keeps: one finds the message, whose other entries are merged with it.
MAX_PENDING = 4
PENDING_IDS = 4
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
STATE_BUDGET = 6_465_869


def problem(document: object) -> str | None:
    """Why `document` is not a state file this version can use, or None when it is."""
    if isinstance(document, dict) and document.get("schema") != SCHEMA:
        return f"schema: expected {SCHEMA}"
    wrong = StateFile.check(document)
    return None if wrong is None else "state" + wrong


def is_state(document: object) -> TypeGuard[JSONObject]:
    return problem(document) is None
