"""`arcguard arc VERB SESSION_ID ...`: the arc helper for scripts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arcguard import jsonio
from arcguard.commands.common import config
from arcguard.commands.common import home
from arcguard.commands.common import locked_update
from arcguard.commands.common import now
from arcguard.commands.group import SuggestingGroup
from arcguard.commands.printable import printable
from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.config_input import parse_int
from arcguard.core.schema import StateFile
from arcguard.core.state import clone
from arcguard.core.state import fresh_state


if TYPE_CHECKING:
    from collections.abc import Callable

    from arcguard.core.notify import NotifyEvent
    from arcguard.core.schema import Arc
    from arcguard.core.state import State

COUNTER = "reconcile_count"


@click.group(cls=SuggestingGroup)
def arc() -> None:
    """Set, inspect and complete a session's arc (what `/autonomous` starts).

    \b
    Examples:
      arcguard arc set SESSION_ID importer parse load report
      arcguard arc next SESSION_ID
      arcguard arc done SESSION_ID parse
      arcguard arc complete SESSION_ID
    """


def _say(text: str) -> None:
    """Print a verb's answer: a slug or milestone is whatever was typed or stored, so its
    control characters are shown as escapes, never sent to the terminal."""
    click.echo(printable(text))


def _apply(session_id: str, verb: Callable[[Arc | None, float], tuple[bool, str]]) -> str:
    """Run `verb` on the session's arc under the lock; it returns (changed, text to print)."""
    at = now()

    def change(state: State | None) -> tuple[State | None, str]:
        new = clone(state) if state is not None else fresh_state(session_id, at)
        changed, text = verb(StateFile.view(new).arc, at)
        return (new if changed else None), text

    return locked_update(session_id, change, at=at)


def _apply_live(
    session_id: str, verb: Callable[[Arc | None, float, float | None], tuple[bool, str]]
) -> str:
    """`_apply` for a verb that judges whether the arc is active: it also gets the time a
    pending wait for an API limit holds the arc until (see `core.arc_keeper.limits.held_until`)."""
    at = now()
    cfg = config()

    def change(state: State | None) -> tuple[State | None, str]:
        from arcguard.core.arc_keeper import limits

        new = clone(state) if state is not None else fresh_state(session_id, at)
        changed, text = verb(StateFile.view(new).arc, at, limits.held_until(new, cfg, at))
        return (new if changed else None), text

    return locked_update(session_id, change, at=at)


def _active(current: Arc | None, at: float, held: float | None) -> bool:
    return arcs.is_active(current, config(), at, held_until=held)


def _touch_if_active(current: Arc | None, at: float, held: float | None) -> bool:
    if current is not None and _active(current, at, held):
        arcs.touch(current, at)
        return True
    return False


@arc.command("set")
@click.argument("session_id")
@click.argument("slug", required=False, default=arcs.DEFAULT_SLUG)
@click.argument("milestones", nargs=-1)
def set_(session_id: str, slug: str, milestones: tuple[str, ...]) -> None:
    """Start a fresh arc (counters to 0, milestones to do). Prints `active SLUG`."""
    at = now()

    def change(state: State | None) -> tuple[State | None, str]:
        new: State = clone(state) if state is not None else fresh_state(session_id, at)
        arc = arcs.new_arc(slug, list(milestones), at)
        StateFile.view(new).arc = arc
        return new, f"active {arc.slug}"

    _say(locked_update(session_id, change, at=at))


@arc.command("next")
@click.argument("session_id")
def next_(session_id: str) -> None:
    """Print the first milestone not done, or an empty line."""
    _say(
        _apply_live(
            session_id, lambda a, at, held: (_touch_if_active(a, at, held), arcs.next_milestone(a))
        )
    )


@arc.command()
@click.argument("session_id")
@click.argument("slice_name", metavar="SLICE")
def done(session_id: str, slice_name: str) -> None:
    """Mark milestone SLICE done. Prints the next milestone (or an empty line)."""

    def verb(current: Arc | None, at: float) -> tuple[bool, str]:
        if current is None or not arcs.mark_done(current, slice_name):
            raise click.ClickException(f"the arc of {session_id} has no milestone {slice_name!r}")
        arcs.touch(current, at)
        return True, arcs.next_milestone(current)

    _say(_apply(session_id, verb))


@arc.command()
@click.argument("session_id")
def complete(session_id: str) -> None:
    """Mark the arc complete (the hooks stop continuing it). Prints `inactive`."""

    def verb(current: Arc | None, at: float) -> tuple[bool, str]:
        if current is None:
            return False, "inactive"
        arcs.complete(current, at)
        return True, "inactive"

    _say(_apply(session_id, verb))


@arc.command()
@click.argument("session_id")
def status(session_id: str) -> None:
    """Print `active SLUG` for an active, fresh arc, else `inactive`."""

    def verb(current: Arc | None, at: float, held: float | None) -> tuple[bool, str]:
        if current is not None and _touch_if_active(current, at, held):
            return True, f"active {current.slug if current.has('slug') else arcs.DEFAULT_SLUG}"
        return False, "inactive"

    _say(_apply_live(session_id, verb))


@arc.command()
@click.argument("session_id")
@click.pass_context
def active(ctx: click.Context, session_id: str) -> None:
    """Exit 0 if the arc is active and fresh, else 1. Prints nothing."""
    text = _apply_live(
        session_id,
        lambda a, at, held: (
            _touch_if_active(a, at, held),
            "yes" if a is not None and _active(a, at, held) else "",
        ),
    )
    ctx.exit(0 if text else 1)


@arc.command()
@click.argument("session_id")
@click.argument("field")
def get(session_id: str, field: str) -> None:
    """Print one field of the arc (strings as they are, other values as JSON), or ""."""

    def verb(current: Arc | None, at: float) -> tuple[bool, str]:
        value = current.data.get(field, "") if current is not None else ""
        return False, value if isinstance(value, str) else jsonio.dumps(value)

    _say(_apply(session_id, verb))


def _counter_verb(name: str, help_text: str, action: Callable[[Arc, float], int]) -> click.Command:
    @click.argument("session_id")
    @click.argument("counter", type=click.Choice([COUNTER]))
    def command(session_id: str, counter: str) -> None:
        def verb(current: Arc | None, at: float) -> tuple[bool, str]:
            if current is None:
                raise click.ClickException(f"session {session_id} has no arc")
            return True, str(action(current, at))

        _say(_apply(session_id, verb))

    command.__doc__ = help_text
    # The counter verbs serve shell-scripted hooks: internal, left out of `arc --help`.
    return arc.command(name, hidden=True)(command)


def _reset(current: Arc, at: float) -> int:
    arcs.reset_consecutive(current)
    return 0


_counter_verb("bump", "Add one to the consecutive-continuation counter; print it.", arcs.bump)
_counter_verb("reset", "Set the consecutive-continuation counter to 0; print 0.", _reset)


def _cap(text: str, default: int, name: str) -> int:
    """A cap argument: omitted or empty means the configured cap; otherwise a whole number."""
    if not text:
        return default
    value = parse_int(text)
    if value is None or value < 0:
        raise click.BadParameter(f"{text!r} is not a whole number (0-9 digits)", param_hint=name)
    return value


@arc.command("try-block", hidden=True)
@click.argument("session_id")
@click.argument("consecutive_max", required=False, default="")
@click.argument("lifetime_max", required=False, default="")
def try_block(session_id: str, consecutive_max: str, lifetime_max: str) -> None:
    """Spend one continuation if both caps allow (default: the configured ones): print BLOCK,
    else CAP."""
    cfg = config()
    consecutive = _cap(consecutive_max, cfg.max_consecutive_continuations, "CONSECUTIVE_MAX")
    lifetime = _cap(lifetime_max, cfg.max_continuations_per_arc, "LIFETIME_MAX")

    def verb(current: Arc | None, at: float) -> tuple[bool, str]:
        if current is None or not arcs.try_block(current, consecutive, lifetime, at):
            return False, "CAP"
        return True, "BLOCK"

    _say(_apply(session_id, verb))


@arc.command("cancel-wait")
@click.argument("session_id")
def cancel_wait(session_id: str) -> None:
    """Cancel a pending wait for an API limit: the session is not woken when it resets.

    Prints `cancelled`, or `no wait` when none is pending.
    """
    from arcguard.core.arc_keeper import limits
    from arcguard.hooks import notify

    at = now()
    cfg = config()

    later: list[NotifyEvent] = []

    def change(state: State | None) -> tuple[State | None, str]:
        done, new = limits.cancel(state, at, "cancelled with arcguard arc cancel-wait")
        # The session will not resume by itself now: `notify_command` hears of it like of any
        # wait that ends without a wake (this verb's own output is for scripts).
        later.extend(notify.news(home(), cfg, state, new, None)[1])
        return new, "cancelled" if done else "no wait"

    said = locked_update(session_id, change, at=at)
    notify.tell(home(), cfg, later)  # once the cancellation is saved
    _say(said)
