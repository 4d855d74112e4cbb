"""The tool-only run of a track: what each closed turn adds to it (the streak of tool-only
turns and the cycle history), and the turns kept pending until their message can be read.

Claude Code writes its transcript on a timer, so a hook that answers quickly meets turns
whose message is not on disk yet: whether such a turn spoke to the user is not known. The
turn is kept pending (`keep`), a decision taken meanwhile counts every pending turn as
tool-only (the most a turn can count, so a decision of no action holds whatever the messages
say), and each is counted for real, in order, once its message is read (`settle`). The run
then is what it would have been had every message been on disk in time.
"""

from __future__ import annotations

from arcguard.core.loop_guard import shape
from arcguard.core.loop_guard.tracks import clear_run
from arcguard.core.loop_guard.tracks import track_key
from arcguard.core.schema import MAX_PENDING
from arcguard.core.schema import PendingTurn
from arcguard.core.schema import StateFile
from arcguard.core.schema import Track
from arcguard.core.validation import Many
from arcguard.core.words.redact import masked_start
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from arcguard.core.config import Config
    from arcguard.core.state import State

# Narration this close to a recent one says nothing new ("Checking again." / "Checking once
# more."): character-bigram similarity, as near-duplicate detectors measure it.
NEAR_REPEAT = 0.8
MAX_NARRATIONS = 8
NARRATION_CHARS = 200


def extend(
    track: Track, cfg: Config, turn: PendingTurn, tool_only: bool | None, *, repeats: bool
) -> bool:
    """One closed turn extends or ends the tool-only run (mutates `track`): whether its
    fingerprint ("" for none) went on the cycle history. `repeats`: its narration only
    repeats a recent one, which neither ends the history nor counts as a tool-only turn."""
    if tool_only is None:
        return False  # unknown: counting it could pause a narrating session (fail open)
    if not tool_only and not repeats:
        clear_run(track)
        return False
    if tool_only:
        track.streak += 1
    else:  # it spoke to the user, if only to repeat itself: the tool-only run ends
        track.streak = 0
        track.checkin_done = False
    if not turn.fingerprint:
        return False
    history = track.fingerprints
    history.append(turn.fingerprint)
    del history[: -cfg.cycle_history]
    # Whether each turn in the history brought a result never seen before, for the wording.
    freshness = track.fresh
    track.fresh = freshness
    freshness.append(turn.fresh)
    del freshness[: -len(history)]
    labels = track.labels
    track.labels = labels
    labels[turn.fingerprint] = turn.label
    for stale in [fp for fp in labels if fp not in history]:
        del labels[stale]
    return True


def moves(track: Track, narration: str) -> bool:
    """The turn's narration says something new (mutates `track`'s recent narrations). A turn
    whose narration only repeats a recent one is looked at as a tool-only turn."""
    if not narration.strip():
        return False
    # What is kept is masked (a key the model quotes must not reach the state), and compared
    # as it is kept.
    narration = masked_start(narration, NARRATION_CHARS)
    pairs = _bigrams(narration)
    recent = track.narrations
    track.narrations = recent
    repeated = any(_similar(pairs, _bigrams(old)) for old in recent)
    recent.append(narration)
    del recent[:-MAX_NARRATIONS]
    return not repeated


def _bigrams(text: str) -> set[str]:
    words = "".join(c.lower() if c.isalnum() else " " for c in text[:NARRATION_CHARS]).split()
    flat = " ".join(shape.of_text(w) for w in words)
    return {flat[i : i + 2] for i in range(len(flat) - 1)}


def _similar(a: set[str], b: set[str]) -> bool:
    if not a or not b:
        return a == b
    return 2 * len(a & b) / (len(a) + len(b)) >= NEAR_REPEAT


# --- turns whose message is not on disk yet -------------------------------------------------


@value
class Reading:
    """A pending turn's message as looked up again: `tool_only` as `TurnEnd` has it (None:
    it cannot be read, and never will be), `narration` its text if it has some."""

    tool_only: bool | None
    narration: str | None = None


@value
class Run:
    """What of a track the tool-only run is (`extend` changes nothing else)."""

    fingerprints: list[str]
    fresh: list[bool]
    streak: int
    checkin_done: bool
    labels: dict[str, str]

    @classmethod
    def of(cls, track: Track) -> Run:
        return cls(
            list(track.fingerprints),
            list(track.fresh),
            track.streak,
            track.checkin_done,
            dict(track.labels),
        )

    def restore(self, track: Track) -> None:
        track.fingerprints = self.fingerprints
        track.fresh = self.fresh
        track.streak = self.streak
        track.checkin_done = self.checkin_done
        track.labels = self.labels


def pending_ids(state: State, agent_id: str | None) -> list[list[str]]:
    """The tool-use ids of the track's pending turns, oldest first. A decision taken while
    any is pending is provisional unless it is None (or more than `MAX_PENDING` are)."""
    track = StateFile.view(state).guard.tracks.get(track_key(agent_id))
    return [list(p.ids) for p in track.pending] if track is not None else []


def too_many(pending: Sequence[object]) -> bool:
    return len(pending) > MAX_PENDING


def keep(track: Track, turn: PendingTurn) -> None:
    track.pending = Many.over(PendingTurn, [*(t.data for t in track.pending), turn.data])


def guess(track: Track, cfg: Config) -> None:
    """Count every pending turn as tool-only, for one decision (mutates `track`)."""
    for turn in track.pending:
        extend(track, cfg, turn, True, repeats=False)


def settle(
    state: State, cfg: Config, agent_id: str | None, readings: Sequence[Reading | None]
) -> None:
    """Count the track's oldest pending turns (mutates `state`) as their messages say, in
    order, as if each had been known at its batch; `readings[i]` is None while the i-th is
    still not on disk, and it and every later one stay pending."""
    track = StateFile.view(state).guard.tracks.get(track_key(agent_id))
    if track is None or not track.pending:
        return
    pending = list(track.pending)
    done = 0
    for turn, reading in zip(pending, readings, strict=False):
        if reading is None:
            break
        repeats = reading.narration is not None and not moves(track, reading.narration)
        extend(track, cfg, turn, reading.tool_only, repeats=repeats)
        done += 1
    if done == len(pending):
        del track.pending
    elif done:
        track.pending = Many.over(PendingTurn, [t.data for t in pending[done:]])
