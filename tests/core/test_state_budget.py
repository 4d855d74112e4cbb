"""The state file's size budget: the largest document the schema's bounds allow.

Every list the state keeps is bounded in count and every string in length (in the bytes it
takes in the file); this builds the document with each of them at its bound, each text made of
the characters that take the most bytes escaped, each number at 24 characters (counters and
times never come near), and checks that it is exactly `schema.STATE_BUDGET`. A new field or a
changed bound changes that figure: the test says by how much.
"""

from __future__ import annotations

from typing import Any

from arcguard import jsonio
from arcguard.core import loop_records
from arcguard.core import schema
from arcguard.core.config import default_config
from arcguard.core.loop_guard import asked
from arcguard.core.loop_guard import edited
from arcguard.core.loop_guard import failure_lines
from arcguard.core.loop_guard import failures
from arcguard.core.loop_guard import fixes_aimed
from arcguard.core.loop_guard import hangs
from arcguard.core.loop_guard import known_causes
from arcguard.core.loop_guard import persisting
from arcguard.core.loop_guard import reread
from arcguard.core.loop_guard import reverts
from arcguard.core.loop_guard import same_cause
from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard.answers import LINE_DIGEST
from arcguard.core.loop_guard.answers import MAX_LINES
from arcguard.core.loop_guard.answers import MAX_NUMBERS
from arcguard.core.loop_guard.answers import MAX_PROGRESS
from arcguard.core.loop_guard.answers import NUMBER_DIGITS
from arcguard.core.loop_guard.background import MAX_TASKS
from arcguard.core.loop_guard.checks import MAX_ANSWERS
from arcguard.core.loop_guard.checks import MAX_NAMES
from arcguard.core.loop_guard.checks import NAME_CHARS
from arcguard.core.loop_guard.checks import TARGET
from arcguard.core.loop_guard.command_words import ASKED_CLIP
from arcguard.core.loop_guard.command_words import MAX_ASKED
from arcguard.core.loop_guard.cycle_run import MAX_NARRATIONS
from arcguard.core.loop_guard.cycle_run import NARRATION_CHARS
from arcguard.core.loop_guard.edited import MAX_SWAP_CHARS
from arcguard.core.loop_guard.failures import MAX_CAUSES
from arcguard.core.loop_guard.failures import MAX_PIECES
from arcguard.core.loop_guard.failures import MAX_TARGETS
from arcguard.core.loop_guard.finished import MAX_FILE_CONTENTS
from arcguard.core.loop_guard.finished import MAX_FILES
from arcguard.core.loop_guard.finished import MAX_RESULTS
from arcguard.core.loop_guard.guard import MAX_QUEUED_IDS
from arcguard.core.loop_guard.held import MAX_HELD
from arcguard.core.loop_guard.persisting import MAX_FAILURES
from arcguard.core.loop_guard.polls import MAX_FAILED_ANSWERS
from arcguard.core.loop_guard.polls import MAX_VIEWS
from arcguard.core.loop_guard.polls import MAX_WAIT_LINES
from arcguard.core.loop_guard.repeat import MAX_RESOLVED_IDS
from arcguard.core.loop_guard.shape import MAX_CAUSE_LINES
from arcguard.core.loop_guard.stuck import MAX_RUNS
from arcguard.core.loop_guard.stuck import MAX_SHAPES
from arcguard.core.loop_guard.tracks import MAX_TRACKS
from arcguard.core.schema import TASK_CHARS
from arcguard.core.state import GOAL_BYTES
from arcguard.core.state import LOG_LIMIT
from arcguard.core.state import MAX_CHAR_BYTES
from arcguard.core.state import json_size
from arcguard.core.validation import Record
from arcguard.storage.store import MAX_STATE_BYTES


INT = 10**23  # 24 characters
# A failure's causes: its own pieces and every cause outside the code; its lines.
PIECES = failures.MAX_PIECES + len(known_causes.PHRASES) + len(known_causes.REFUSALS)
LINES = failure_lines.MAX_HEADS
NUMBER = -1.2345678901234567e300  # 24 characters as JSON
STAMP = "2026-01-31T09:00:00Z"  # what `state.iso` writes
# The longest of each fixed vocabulary.
OUTCOME = "completed:" + "0" * 16
SPENT = "after_compaction"
KIND = "limit-cancel"
HOOK = "session-start"
# The longest rule a log entry names: a stop block's stall class (a pause's kind is shorter).
RULE = "announced-step"
PAUSE_KIND = "backstop"
SLIP = "alternation"  # the longest name of a search's slip
SOURCE = "status line"


def text(max_bytes: int) -> str:
    """A text that takes exactly `max_bytes` in the file (a quote takes two)."""
    assert max_bytes % 2 == 0
    return '"' * (max_bytes // 2)


def chars(count: int) -> str:
    """`count` characters of input, each taking the most bytes a character can."""
    return "\U0001f600" * count


def ident(n: int) -> str:
    """An id at its bound: plain characters, `ID_CHARS` of them (distinct for each n)."""
    return f"{n:0{schema.ID_CHARS}d}"


def fingerprint(n: int) -> str:
    return "|".join(f"{n:08d}{i:08d}" for i in range(schema.MAX_CALLS))


def run(n: int) -> dict[str, Any]:
    return {
        "seq": INT,
        "owner": ident(n),
        "at": NUMBER,
        "outcome": OUTCOME,
        "spent": SPENT,
        "turn": INT,
    }


def operation(n: int, runs: int) -> dict[str, Any]:
    return {
        "label": text(schema.LABEL_BYTES),
        "runs": [run(n * 100 + r) for r in range(runs)],
        "edit_seq": INT,
        "compactions": INT,
        "max_timeout": NUMBER,
        "recovery_used": False,
        "validated_seq": INT,
        "change_seq": INT,
        "file_state": chars(schema.FILE_STATE_CHARS),
    }


def track(cfg: Any, base: int) -> dict[str, Any]:
    history = [fingerprint(base + i) for i in range(cfg.cycle_history)]
    return {
        "seq": INT,
        "ops": {
            f"{base + n:016x}": operation(base + n, max(cfg.repeat_limit, 2))
            for n in range(cfg.max_operations)
        },
        "results": [f"completed:{base + n:016x}" for n in range(MAX_RESULTS)],
        "turn": {
            "denied": INT,
            "progress": False,
            "label": text(schema.LABEL_BYTES),
            "new_result": False,
        },
        "blocked_rounds": INT,
        "fingerprints": history,
        "fresh": [False] * cfg.cycle_history,
        # Two labels of a cycle's turn, joined by ", ".
        "labels": {fp: text(2 * schema.LABEL_BYTES) + ", " for fp in history},
        "streak": INT,
        "checkin_done": False,
        "turns": INT,
        "backstop_nudged_at": NUMBER,
        "denials": INT,
        "updated": NUMBER,
        "quiet": INT,
        "denied_ids": [ident(base + n) for n in range(MAX_RESOLVED_IDS)],
        "unconfirmed": {
            "ids": [ident(base + n) for n in range(schema.MAX_CALLS)],
            "counted": False,
        },
        "pending": [
            {
                "ids": [ident(base + n) for n in range(schema.PENDING_IDS)],
                "fingerprint": history[n],
                "label": text(2 * schema.LABEL_BYTES) + ", ",
                "fresh": False,
            }
            for n in range(schema.MAX_PENDING)
        ],
        "stuck": {
            "results": [f"completed:{base + n:016x}" for n in range(MAX_SHAPES)],
            "failed_answers": {f"{base + n:016x}": NUMBER for n in range(MAX_FAILED_ANSWERS)},
            # A failure's run at one target of a sweep has the longest key (`failures.aimed`), as
            # long as two failures taking turns have (`taking_turns.key`).
            "runs": {f"failed:{base + n:016x}@{base:016x}": INT for n in range(MAX_RUNS)},
            "marks": {f"failed:{base + n:016x}@{base:016x}": INT for n in range(MAX_RUNS)},
            "news": INT,
            "repeats": INT,
            "fail": OUTCOME,
            "fails": INT,
            "fail_turn": INT,
            "causes": {
                f"failed:{base + n:016x}": [f"{base + c:016x}" for c in range(MAX_CAUSE_LINES)]
                for n in range(MAX_CAUSES)
            },
            "cause_turns": {f"failed:{base + n:016x}": INT for n in range(MAX_CAUSES)},
            "cause_targets": {
                f"failed:{base + n:016x}": [str(999_999 - t) for t in range(MAX_TARGETS)]
                for n in range(MAX_CAUSES)
            },
            "cause_words": {
                # Word characters only (`shape.words_of`): one byte each.
                f"failed:{base + n:016x}": ["w" * ASKED_CLIP for _ in range(2 + MAX_ASKED)]
                for n in range(MAX_CAUSES)
            },
            "fail_print": [f"{base + c:016x}" for c in range(MAX_CAUSE_LINES + 1)],
            "edited": f"failed:{base:016x}@{base:016x}",
            "edited_run": INT,
            "edited_nudged": False,
            "edited_news": INT,
            "edited_work": False,
            "knob_file": f"{base:016x}",
            "edit_swaps": [[chars(MAX_SWAP_CHARS)] * 2 for _ in range(edited.MAX_EDIT_SWAPS)],
            "cause_pieces": {
                # Then every cause outside the code the failure names (`known_causes`).
                f"failed:{base + n:016x}": [f"{base + c:016x}" for c in range(MAX_PIECES)]
                + [known_causes.MARK + c for c in [*known_causes.PHRASES, *known_causes.REFUSALS]]
                for n in range(MAX_CAUSES)
            },
            "cause_joined": {
                f"failed:{base + n:016x}": f"failed:{base:016x}" for n in range(2 * MAX_CAUSES)
            },
            "look_words": {
                # A sweep's target (`@`), then options' names as `-` and a digest, the longest
                # token (`failures._tokens`).
                f"completed:{base + n:016x}": [
                    [failures.AT] + [f"-{base:016x}"] * failures.MAX_TOKENS
                ]
                * failures.MAX_ASKED
                for n in range(failures.MAX_LOOKS)
            },
            "cause_ops": {
                # An operation id (`opkey.operation_id`: a digest) -> a run key.
                f"{base + n:016x}": f"failed:{base:016x}@{base:016x}"
                for n in range(2 * MAX_CAUSES)
            },
            "changed_turn": INT,
            "wrote_turn": INT,
            "label": text(schema.LABEL_BYTES),
            "nudged": False,
            "fail_nudged": False,
            "poll": {
                "call": f"{base:016x}",
                "result": OUTCOME,
                "since": NUMBER,
                "count": INT,
                "label": text(schema.LABEL_BYTES),
                "progress": " ".join(["9" * 12 + "/" + "9" * 11] * MAX_PROGRESS),
                "numbers": " ".join(["9" * NUMBER_DIGITS] * MAX_NUMBERS),
                "views": {
                    f"{base + n:016x}": f"{OUTCOME}|"
                    + " ".join(["9" * 12 + "/" + "9" * 11] * MAX_PROGRESS)
                    for n in range(MAX_VIEWS)
                },
                "lines": [f"{base + n:08x}"[-LINE_DIGEST:] for n in range(MAX_WAIT_LINES)],
                "last": [f"{base + n:08x}"[-LINE_DIGEST:] for n in range(MAX_LINES)],
                "command": f"{base:016x}",
                "failing": True,
                "asked": NUMBER,
            },
            "poll_nudged": False,
            "searches": INT,
            "slips": INT,
            "slip": SLIP,
            "search_seq": INT,
            "search_nudged": False,
            "answers": [f"completed:{base + n:016x}" for n in range(MAX_ANSWERS)],
            "change": text(schema.LABEL_BYTES),
            "futile": INT,
            "futile_label": text(2 * schema.LABEL_BYTES) + ", then ",
            "futile_nudged": False,
            "futile_first": f"completed:{base:016x}",
            "futile_names": [chars(len(TARGET) + NAME_CHARS) for _ in range(MAX_NAMES)],
            "detour": {
                "runs": {
                    f"failed:{base + n:016x}@{base:016x}": INT for n in range(reverts.MAX_RUNS)
                },
                "marks": {
                    f"failed:{base + n:016x}@{base:016x}": INT for n in range(reverts.MAX_RUNS)
                },
                "futile": INT,
                "put": [f"{base + n:016x}" for n in range(reverts.MAX_LINES)],
                "prints": {
                    f"failed:{base + n:016x}@{base:016x}": f"{base:016x}:{base:016x}"
                    for n in range(reverts.MAX_RUNS)
                },
                "undone": [f"{base + n:016x}" for n in range(reverts.MAX_LINES)],
                "backs": [f"{base + n:016x}" for n in range(reverts.MAX_FILES)],
                "files": [f"{base + n:016x}" for n in range(reverts.MAX_FILES)],
                "restored": False,
            },
            "asked": {
                "answer": chars(asked.ANSWER_CHARS),
                "ways": [f"{base + n:016x}" for n in range(asked.MAX_WAYS)],
                "label": text(schema.LABEL_BYTES),
                "words": [f"-{base:016x}"] * failures.MAX_TOKENS
                + [asked.TARGET]
                + [chars(asked.TARGET_CHARS) for _ in range(asked.MAX_TARGETS)]
                + [asked.ABOUT]
                + [chars(asked.ABOUT_PART_CHARS) for _ in range(asked.MAX_ABOUT)],
                "turn": INT,
                "others": INT,
                "nudged": False,
                "at": NUMBER,
            },
            "reread": {
                "lines": [f"{base + n:08x}" for n in range(reread.MAX_LINES)],
                "ways": [f"{base + n:016x}" for n in range(reread.MAX_WAYS)],
                "label": text(schema.LABEL_BYTES),
                "turn": INT,
                "others": INT,
                "nudged": False,
                "seen": [f"{base + n:08x}" for n in range(reread.MAX_SEEN)],
                "words": [f"-{base:016x}"] * failures.MAX_TOKENS,
                "names": [chars(reread.NAME_CHARS) for _ in range(reread.MAX_NAMES)],
            },
            "expected": chars(asked.ANSWER_CHARS),
            "hung": {
                ident(n): f"failed:{base + n:016x}@{base:016x}{hangs.AT_COUNT}{INT}"
                for n in range(hangs.MAX_HUNG)
            },
            "unheeded": {
                "due": INT,
                "quiet": INT,
                "news": INT,
                "now": INT,
                "label": text(schema.LABEL_BYTES),
                "returns": INT,
            },
            "persist": {
                "failures": [f"failed:{base + n:016x}@{base:016x}" for n in range(MAX_FAILURES)],
                "errors": [
                    [f"{base + c:016x}" for c in range(persisting.MAX_ERRORS)]
                    for _ in range(MAX_FAILURES)
                ],
                "words": [
                    ["w" * ASKED_CLIP for _ in range(2 + MAX_ASKED)] for _ in range(MAX_FAILURES)
                ],
                "values": [
                    ["9" * persisting.VALUE_CHARS for _ in range(persisting.MAX_VALUES)]
                    for _ in range(MAX_FAILURES)
                ],
                "prints": [
                    " ".join(
                        [
                            str(shape.MAX_CAUSE_LINES),  # how many lines failed, at most
                            *(
                                "f" * failure_lines.HEAD_DIGEST
                                for _ in range(failure_lines.MAX_HEADS)
                            ),
                        ]
                    )
                    for _ in range(2 * MAX_FAILURES)
                ],
                "shown": [
                    " ".join(
                        [
                            persisting.CAME_BACK,
                            "f" * failure_lines.HEAD_DIGEST,  # the program's
                            "f" * failure_lines.HEAD_DIGEST,  # the spelling's
                            *(
                                "f" * failure_lines.HEAD_DIGEST
                                for _ in range(shape.MAX_CAUSE_LINES)
                            ),
                        ]
                    )
                    for _ in range(persisting.MAX_SHOWN)
                ],
                "ways": [f"{base + n:016x}" for n in range(MAX_FAILURES)],
                "checks": ["f" * failure_lines.HEAD_DIGEST for _ in range(MAX_FAILURES)],
                "causes": [
                    [
                        *("f" * failure_lines.HEAD_DIGEST for _ in range(PIECES)),
                        *("=" + "f" * failure_lines.HEAD_DIGEST for _ in range(2 * LINES)),
                        *("#" + "9" * same_cause.TARGET_CHARS for _ in range(failures.MAX_TARGETS)),
                        "!" + str(same_cause.MAX_FAILING),
                        "%" + "f" * failure_lines.HEAD_DIGEST,
                    ]
                    for _ in range(same_cause.ATTEMPTS)
                ],
                "passed": INT,
                "tally": " ".join(
                    "9" * failure_lines.COUNT_DIGITS for _ in range(failure_lines.MAX_COUNTS)
                ),
                "programs": [f"{'w' * ASKED_CLIP} {'w' * ASKED_CLIP}" for _ in range(MAX_FAILURES)],
                "again": INT,
                "edits": INT,
                "coded": INT,
                "fixed_in": ["f" * fixes_aimed.NAME_CHARS] * (fixes_aimed.AIMED_FILES + 1),
                "aimed": True,
                "fixed": False,
                "out": "f" * 16,
                "probe": "f" * 16,
                "whole": "f" * 16,
                "changed": False,
                "back": False,
                "seen": INT,
                "turn": INT,
                "label": text(schema.LABEL_BYTES),
                "nudged": False,
            },
        },
        # Model text, each character taking the most bytes it can once escaped.
        "narrations": [chars(NARRATION_CHARS) for _ in range(MAX_NARRATIONS)],
        "held": [log_entry() for _ in range(MAX_HELD)],
        "open_turn": {
            "message": ident(base),
            "tool_only": False,
            "calls": [],
            "ids": [ident(base + n) for n in range(schema.MAX_CALLS)],
            "steps": [
                {
                    "op": f"{base + n:016x}",
                    "label": text(schema.LABEL_BYTES),
                    "allowed": False,
                    "waits": False,
                    "polls": False,
                }
                for n in range(schema.MAX_CALLS)
            ],
        },
    }


def log_entry() -> dict[str, Any]:
    return {
        "t": NUMBER,
        "hook": HOOK,
        "kind": KIND,
        "reason": text(schema.REASON_BYTES),
        "rule": RULE,
        "operation": text(schema.LABEL_BYTES),
        "runs": INT,
        "consecutive": INT,
        "lifetime": INT,
        "attempt": INT,
        "of": INT,
    }


def largest_state() -> dict[str, Any]:
    cfg = default_config()
    tracks = {"main": track(cfg, 0)}
    for n in range(MAX_TRACKS):
        tracks[f"agent:{ident(n)}"] = track(cfg, (n + 1) * 10_000)
    counters: dict[str, Any] = {
        "session_start:" + chars(19) + str(n): INT for n in range(schema.MAX_EVENT_KEYS - 1)
    }
    return {
        "schema": schema.SCHEMA,
        "session_id": chars(4096),  # hooks take ids of up to 4096 characters
        "created": NUMBER,
        "updated": NUMBER,
        "arc": {
            "active": False,
            "slug": text(schema.SLUG_BYTES),
            "invoked_at": STAMP,
            "last_activity": STAMP,
            "milestones": [
                {"slice": text(schema.MILESTONE_BYTES), "status": "todo"}
                for _ in range(schema.MAX_MILESTONES)
            ],
            "reconcile_count": INT,
            "total_blocks": INT,
            "last_reconcile": STAMP,
            "completed_at": STAMP,
            "limit_resumes": INT,
            "task": chars(TASK_CHARS),
        },
        "guard": {
            "paused": {"kind": PAUSE_KIND, "reason": text(schema.REASON_BYTES), "at": NUMBER},
            "edit_seq": INT,
            "compactions": INT,
            "tracks": tracks,
            "resolved": [ident(n) for n in range(MAX_RESOLVED_IDS)],
            "change_seq": INT,
            "background": {ident(n): NUMBER for n in range(MAX_TASKS)},
            "wait_since": NUMBER,
            "batch_fires": False,
            "files": {
                f"{n:016x}": [f"{n * 100 + c:016x}" for c in range(MAX_FILE_CONTENTS)]
                for n in range(MAX_FILES)
            },
            "tool_edit_seq": INT,
        },
        "seen": {
            "messages": [ident(n) for n in range(16)],
            "tools": [],
            "resumes": [ident(n) for n in range(16)],
            "queued": [ident(n) for n in range(MAX_QUEUED_IDS)],
            "goal": text(GOAL_BYTES),
            "overrides": [ident(n) for n in range(16)],
        },
        "events": {
            **counters,
            "other": INT,
            "last_api_error": {"error": chars(40), "at": NUMBER},
        },
        "log": [log_entry() for _ in range(LOG_LIMIT)],
        "rate_limits": {chars(31) + str(n): NUMBER for n in range(schema.MAX_WINDOWS)},
        "limit_wait": {
            "token": ident(0),
            "pid": INT,
            "started": NUMBER,
            "until": NUMBER,
            "error": chars(40),
            "source": SOURCE,
            "arc": STAMP,
            "attempt": INT,
        },
    }


def test_the_budget_constant_is_what_the_schema_bounds_allow():
    document = largest_state()
    assert schema.problem(document) is None
    assert json_size(chars(1)) == MAX_CHAR_BYTES
    size = len(jsonio.dumps(document).encode("ascii"))
    assert size == schema.STATE_BUDGET
    # The limit a state is read with leaves room for larger settings than the defaults.
    assert schema.STATE_BUDGET < MAX_STATE_BYTES


def test_a_state_cut_to_its_essentials_keeps_the_arcs_task_within_its_bound():
    """`status` shows the task the operator typed: an oversized file keeps it with the arc."""
    from arcguard.core.state import essentials
    from arcguard.core.state import fresh_state

    state: Any = fresh_state("s", 0.0)
    state["arc"] = {"active": True, "slug": "autonomous", "task": "ship the importer"}
    kept = essentials(jsonio.loads(jsonio.dumps(state)), "s", 0.0)
    assert kept["arc"] is not None and kept["arc"].get("task") == "ship the importer"
    state["arc"]["task"] = "x" * (10 * TASK_CHARS)  # hand-edited: still cut to its bound
    kept = essentials(jsonio.loads(jsonio.dumps(state)), "s", 0.0)
    assert kept["arc"] is not None and len(kept["arc"].get("task", "")) <= TASK_CHARS


def _missing(record: type[Record], document: dict[str, Any], gone: frozenset[str]) -> set[str]:
    """The fields `record` declares that `document` leaves out (but those no longer written)."""
    return set(record.fields) - set(document) - gone


def test_the_largest_track_holds_every_field_of_its_loop_counters():
    # A field left out of the largest document is a field the budget does not count.
    stuck = track(default_config(), 0)["stuck"]
    assert _missing(loop_records.Stuck, stuck, frozenset()) == set()
    assert _missing(loop_records.Detour, stuck["detour"], frozenset()) == set()
    assert _missing(loop_records.Persist, stuck["persist"], frozenset()) == set()
    assert _missing(loop_records.Poll, stuck["poll"], frozenset()) == set()
    assert _missing(loop_records.Asked, stuck["asked"], frozenset()) == set()
    assert _missing(loop_records.Reread, stuck["reread"], frozenset()) == set()
