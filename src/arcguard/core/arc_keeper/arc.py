"""The arc: an autonomous stretch of work the operator delegated, with its milestones and caps.

Field names and verb semantics are a stable format that scripts read and write;
`last_activity` is new: an arc goes stale 8 hours after its last activity, not after it was set.
"""

from __future__ import annotations

from arcguard.core.schema import MAX_MILESTONES
from arcguard.core.schema import MILESTONE_BYTES
from arcguard.core.schema import SLUG_BYTES
from arcguard.core.schema import Arc
from arcguard.core.schema import Milestone
from arcguard.core.state import clip_json
from arcguard.core.state import iso
from arcguard.core.state import parse_iso
from arcguard.core.validation import Many
from arcguard.core.words.redact import masked_start


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config

DEFAULT_SLUG = "arc"
# A slug made from a task is a few words: the name shown is the task itself.
SLUG_CHARS = 40


def new_arc(slug: str, milestones: list[str], now: float) -> Arc:
    """A fresh arc; its slug and milestones are bounded like everything the state keeps."""
    stamp = iso(now)
    return Arc(
        active=True,
        slug=_kept(slug or DEFAULT_SLUG, SLUG_BYTES),
        invoked_at=stamp,
        last_activity=stamp,
        milestones=Many.of(
            Milestone,
            (
                Milestone(slice=_kept(m, MILESTONE_BYTES), status="todo")
                for m in milestones[:MAX_MILESTONES]
            ),
        ),
        reconcile_count=0,
        total_blocks=0,
        last_reconcile=None,
    )


def name_of(arc: Arc) -> str:
    """What the arc is called wherever it is shown: the task it was started for, else its slug
    (an arc set by `arcguard arc set`, or started by `/autonomous` alone)."""
    return arc.task or arc.slug or DEFAULT_SLUG


def slug_of(task: str, fallback: str) -> str:
    """A short slug from a task's words ("Ship the importer!" -> "ship-the-importer"), for the
    scripts that print it (`arcguard arc status`); `fallback` when no word is left."""
    words = "".join(c.lower() if c.isalnum() else " " for c in task).split()
    slug = ""
    for word in words:
        if slug and len(slug) + 1 + len(word) > SLUG_CHARS:
            break
        slug = f"{slug}-{word}" if slug else word[:SLUG_CHARS]
    return slug or fallback


def _kept(text: str, limit: int) -> str:
    """Text the model or the operator typed, as the state keeps it: masked, then bounded."""
    return clip_json(masked_start(text, limit), limit)


def last_activity(arc: Arc, now: float) -> float | None:
    """When the arc was last touched (set, a hook event, a verb); None when unknown.

    A stamp in the future counts as `now`: a clock that was wrong, or a hand-edited file,
    must not keep an arc alive for as long as the stamp is ahead.
    """
    known = [min(s, now) for s in _stamps(arc) if s is not None]
    return max(known) if known else None


def _stamps(arc: Arc) -> tuple[float | None, float | None]:
    return parse_iso(arc.invoked_at), parse_iso(arc.last_activity)


def is_stale(arc: Arc, cfg: Config, now: float, *, held_until: float | None = None) -> bool:
    """No activity for `stale_seconds`, counting a pending wake at `held_until` as activity.

    Nothing touches an arc while its session sleeps through an API limit, so without that a
    wait longer than what is left of `stale_seconds` would end on an arc judged stale, and
    wake nothing. The wake time counts only once reached (like any stamp, never ahead of
    `now`), so the arc goes stale `stale_seconds` after a wake that never came.
    """
    seen = last_activity(arc, now)
    if seen is None:
        return False
    if held_until is not None:
        seen = max(seen, min(held_until, now))
    return now - seen > cfg.stale_seconds


def is_active(arc: Arc | None, cfg: Config, now: float, *, held_until: float | None = None) -> bool:
    """The arc exists, is not complete, and is not stale (see `is_stale` for `held_until`)."""
    if arc is None:
        return False
    return arc.active is True and not is_stale(arc, cfg, now, held_until=held_until)


def touch(arc: Arc, now: float) -> None:
    """Record activity now, and bring a start stamp from the future back to now.

    Otherwise the future stamp would count as `now` at every later look, so the arc would
    never go stale.
    """
    invoked, _ = _stamps(arc)
    if invoked is not None and invoked > now:
        arc.invoked_at = iso(now)
    arc.last_activity = iso(now)


def next_milestone(arc: Arc | None) -> str:
    """The first milestone not done, or "" (what `arcguard arc next` prints)."""
    for milestone in arc.milestones if arc is not None else ():
        if milestone.status != "done":
            return milestone.slice
    return ""


def mark_done(arc: Arc, name: str) -> bool:
    """Mark milestone `name` done; False when the arc has no such milestone."""
    for milestone in arc.milestones:
        if milestone.has("slice") and milestone.slice in (name, _kept(name, MILESTONE_BYTES)):
            milestone.status = "done"
            return True
    return False


def complete(arc: Arc, now: float) -> None:
    arc.active = False
    arc.completed_at = iso(now)


def try_block(arc: Arc, consecutive_max: int, lifetime_max: int, now: float) -> bool:
    """Spend one continuation if both caps allow it (`arcguard arc try-block`)."""
    if arc.reconcile_count >= consecutive_max:
        return False
    if arc.total_blocks >= lifetime_max:
        return False
    arc.reconcile_count += 1
    arc.total_blocks += 1
    arc.last_reconcile = iso(now)
    return True


def bump(arc: Arc, now: float) -> int:
    arc.reconcile_count += 1
    arc.last_reconcile = iso(now)
    return arc.reconcile_count


def reset_consecutive(arc: Arc) -> None:
    arc.reconcile_count = 0


def milestone_counts(arc: Arc | None) -> tuple[int, int]:
    """(done, total) milestones."""
    items = list(arc.milestones) if arc is not None else []
    return sum(1 for m in items if m.status == "done"), len(items)
