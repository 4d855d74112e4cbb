"""The loop guard's counters in the state file: a track's `Stuck` record and the records it
holds, each field declared once as in `core.schema` (which holds the rest of the file).

Pure: no I/O.
"""

from __future__ import annotations

from arcguard.core.validation import BOOL
from arcguard.core.validation import INT
from arcguard.core.validation import NUMBER
from arcguard.core.validation import STR
from arcguard.core.validation import Record
from arcguard.core.validation import field
from arcguard.core.validation import list_of
from arcguard.core.validation import map_of
from arcguard.core.validation import maybe
from arcguard.core.validation import opt


WORDS = list_of(STR)  # a command's words as `failures.swept` compares them


class Poll(Record):
    call: str = field(STR)  # call shape
    result: str = field(STR)  # result shape
    since: float = field(NUMBER)  # when this result was first seen
    count: int = field(INT)
    label: str = field(STR)
    progress: str = field(STR, default="")  # its furthest marks of progress (`answers.ahead`)
    numbers: str = field(STR, default="")  # its bare numbers when first seen, for a timer
    views: dict[str, str] = field(map_of(STR), default_factory=dict)  # other spellings' answers
    lines: list[str] = field(list_of(STR), default_factory=list)  # its answers' (`answers.lines`)
    last: list[str] = field(list_of(STR), default_factory=list)  # its latest answer's lines
    command: str = field(STR, default="")  # the digest of that answer's command as written
    failing: bool = field(BOOL, default=False)  # a poll failed as a failure had (`polls`)
    asked: float = field(NUMBER, default=0.0)  # when the model was asked about the wait


class Asked(Record):
    answer: str = field(STR)  # the states or values its looks all gave (`loop_guard.asked`)
    ways: list[str] = field(list_of(STR))  # the spellings that gave it (digests of call shapes)
    label: str = field(STR)  # the last of them
    words: list[str] = field(list_of(STR), default_factory=list)  # ... what it asked about
    turn: int = field(INT, default=-1)  # the track's turn when the last of them was counted
    others: int = field(INT, default=0)  # other new results since it was last given
    nudged: bool = field(BOOL, default=False)
    at: float = field(NUMBER, default=0.0)  # when the last of them was counted


class Reread(Record):
    lines: list[str] = field(
        list_of(STR)
    )  # the failing lines its looks showed (`loop_guard.reread`)
    ways: list[str] = field(list_of(STR))  # the spellings that showed only those (digests)
    label: str = field(STR)  # the last of them
    turn: int = field(INT, default=-1)  # the track's turn when the last of them was counted
    others: int = field(INT, default=0)  # looks since without a failing line
    nudged: bool = field(BOOL, default=False)
    seen: list[str] = field(list_of(STR), default_factory=list)  # all lines its looks showed
    words: list[str] = field(list_of(STR), default_factory=list)  # the last one's, as sweeps do
    names: list[str] = field(list_of(STR), default_factory=list)  # the files its looks read


class Detour(Record):
    """Edits since the last progress other than an edit's (`loop_guard.reverts`)."""

    runs: dict[str, int] = field(map_of(INT), default_factory=dict)  # failure runs edits cleared
    marks: dict[str, int] = field(map_of(INT), default_factory=dict)  # their `news` then
    futile: int = field(INT, default=0)  # changes that changed nothing, as edits cleared them
    put: list[str] = field(list_of(STR), default_factory=list)  # lines edits put in
    undone: list[str] = field(list_of(STR), default_factory=list)  # lines edits took out
    prints: dict[str, str] = field(map_of(STR), default_factory=dict)  # failures as printed
    backs: list[str] = field(list_of(STR), default_factory=list)  # files edited back once
    files: list[str] = field(list_of(STR), default_factory=list)  # files going round
    restored: bool = field(BOOL, default=False)  # an edit put back a line an earlier took out


class Persist(Record):
    """Failures that outlive what was tried against them (`loop_guard.persisting`)."""

    failures: list[str] = field(list_of(STR), default_factory=list)  # as `stuck` counts them
    errors: list[list[str]] = field(list_of(list_of(STR)), default_factory=list)  # what they say
    words: list[list[str]] = field(list_of(list_of(STR)), default_factory=list)  # their calls'
    values: list[list[str]] = field(list_of(list_of(STR)), default_factory=list)  # ... numbers
    # Their failing lines seen: each print's count, then short digests, apart by spaces.
    prints: list[str] = field(list_of(STR), default_factory=list)
    # The last attempts' whole prints: a mark (a stop on a round or not), their program's
    # digest, then their lines' short digests, apart by spaces (`persisting._back_to`).
    shown: list[str] = field(list_of(STR), default_factory=list)
    ways: list[str] = field(list_of(STR), default_factory=list)  # spellings, the last one last
    checks: list[str] = field(list_of(STR), default_factory=list)  # ... their filters aside
    programs: list[str] = field(list_of(STR), default_factory=list)  # the programs that failed
    again: int = field(INT, default=0)  # failing attempts since whose failure was one kept
    edits: int = field(INT, default=0)  # edits of settings or values, or going back, since it
    coded: int = field(INT, default=0)  # fixes to code, since the count last started
    # ... the names of the files they were made in (`fixes_aimed.SHELL` for one made from the
    # shell), the first few; and whether an attempt showed them aimed at the failure
    fixed_in: list[str] = field(list_of(STR), default_factory=list)
    aimed: bool = field(BOOL, default=False)
    # Since the last failing attempt: a command that may change the world ran; the last edit
    # went back to a content the file had; code was edited to a new content.
    changed: bool = field(BOOL, default=False)
    back: bool = field(BOOL, default=False)
    fixed: bool = field(BOOL, default=False)
    out: str = field(STR, default="")  # the file the last edit to code took lines out of
    probe: str = field(STR, default="")  # ... as the last attempt counted found it
    whole: str = field(STR, default="")  # the last attempt's print, as a digest
    seen: int = field(INT, default=0)  # the track's `seq` at the last attempt
    turn: int = field(INT, default=-1)  # ... and its turn
    label: str = field(STR, default="")  # the last attempt's call
    nudged: bool = field(BOOL, default=False)
    # What the last attempts gave as their causes (`same_cause._causes`); the last count of
    # failures a print gave (`failure_lines.Reading.tally`) and the most passes one counted.
    causes: list[list[str]] = field(list_of(list_of(STR)), default_factory=list)
    tally: str = field(STR, default="")
    passed: int = field(INT, default=0)


class Unheeded(Record):
    """The turns watched since a request to summarise (`loop_guard.unheeded`)."""

    due: int = field(INT)  # quiet turns due a pause
    quiet: int = field(INT, default=0)  # turns that brought nothing new
    news: int = field(INT, default=0)  # turns with news let pass
    now: int = field(INT, default=0)  # what the turn under way brought so far
    label: str = field(STR, default="")  # the last call that brought nothing new
    returns: int = field(INT, default=0)  # returns of the failure asked about still wanted


class Stuck(Record):
    results: list[str] = field(list_of(STR), default_factory=list)  # result shapes seen
    # failures' whole answers seen, clock aside (`answers.lines`), and when each was first seen:
    # a poll failing as one did waits on that failure since then
    failed_answers: dict[str, float] = field(map_of(NUMBER), default_factory=dict)
    runs: dict[str, int] = field(map_of(INT), default_factory=dict)  # shape -> current run
    marks: dict[str, int] = field(map_of(INT), default_factory=dict)  # shape -> `news` then
    news: int = field(INT, default=0)  # results never seen before, since the operator spoke
    repeats: int = field(INT, default=0)  # completed calls' results seen again, over all runs
    fail: str | None = opt(STR, default=None)  # the result shape of the current failures
    fails: int = field(INT, default=0)
    fail_turn: int | None = opt(INT, default=None)  # the turn of the last failure counted
    # The last failures' causes by line, the turns last seen, the numbers and words their calls
    # named (`shape.identity_numbers`, `command_words.named_words`), their lines' causes
    # (`failures.cause_pieces`).
    causes: dict[str, list[str]] = field(map_of(list_of(STR)), default_factory=dict)
    cause_turns: dict[str, int] = field(map_of(INT), default_factory=dict)
    cause_targets: dict[str, list[str]] = field(map_of(list_of(STR)), default_factory=dict)
    cause_words: dict[str, list[str]] = field(map_of(list_of(STR)), default_factory=dict)
    cause_pieces: dict[str, list[str]] = field(map_of(list_of(STR)), default_factory=dict)
    # A failure's shape -> the failure it was read as (`failures.join`); an operation -> the run
    # its last failure was counted in (`failures.counted_in`, for `stuck.refused`).
    cause_joined: dict[str, str] = field(map_of(STR), default_factory=dict)
    cause_ops: dict[str, str] = field(map_of(STR), default_factory=dict)
    # A completed result -> the reading commands that brought it, as compared (`swept`).
    look_words: dict[str, list[list[str]]] = field(map_of(list_of(WORDS)), default_factory=dict)
    # The last failure counted, by line as printed (`edited.printed`, digests); the failure run
    # an edit to new content set aside, its count and whether it was asked about; its edits'
    # [new, old] texts: the next failure printing the same but where it quotes them counts on.
    fail_print: list[str] = field(list_of(STR), default_factory=list)
    edited: str = field(STR, default="")
    edited_run: int = field(INT, default=0)
    edited_nudged: bool = field(BOOL, default=False)
    edited_news: int = field(INT, default=0)  # `news` when it was set aside
    edited_work: bool = field(BOOL, default=False)  # an edit since was no knob (`edited.note_edit`)
    knob_file: str = field(STR, default="")  # the file of settings whose knobs the run turns
    edit_swaps: list[list[str]] = field(list_of(list_of(STR)), default_factory=list)
    changed_turn: int = field(INT, default=-1)  # the last turn a file was written or a change
    # answered something new
    wrote_turn: int = field(INT, default=-1)  # the last turn a file was written
    label: str = field(STR, default="")
    nudged: bool = field(BOOL, default=False)
    fail_nudged: bool = field(BOOL, default=False)
    poll: Poll | None = maybe(Poll, default=None)
    poll_nudged: bool = field(BOOL, default=False)
    searches: int = field(INT, default=0)  # searches in a row that found nothing
    slips: int = field(INT, default=0)  # of them, spelt so that they cannot match
    slip: str = field(STR, default="")  # the last of those slips
    search_seq: int = field(INT, default=0)  # the track's `seq` at the last of them
    search_nudged: bool = field(BOOL, default=False)
    answers: list[str] = field(list_of(STR), default_factory=list)  # looks' whole answers seen
    change: str = field(STR, default="")  # the last change no look has checked yet: its label
    futile: int = field(INT, default=0)  # changes in a row whose look answered as before
    futile_label: str = field(STR, default="")  # the last of them, then its look
    futile_nudged: bool = field(BOOL, default=False)
    futile_first: str = field(STR, default="")  # a change's new answer (is it the run's 1st?)
    futile_names: list[str] = field(list_of(STR), default_factory=list)  # its targets (`@`: seen)
    detour: Detour | None = maybe(Detour, default=None)
    persist: Persist | None = maybe(Persist, default=None)
    asked: Asked | None = maybe(Asked, default=None)  # one answer asked for many ways
    reread: Reread | None = maybe(Reread, default=None)  # one failure read many ways
    expected: str = field(STR, default="")  # values changes and edits set since the user spoke
    hung: dict[str, str] = field(map_of(STR), default_factory=dict)  # task -> its hang's run
    unheeded: Unheeded | None = maybe(Unheeded, default=None)  # the turns after a request
