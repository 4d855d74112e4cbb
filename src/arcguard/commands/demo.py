"""`arcguard demo`: replay the bundled example sessions through the real hook commands."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from arcguard.commands.printable import printable
from arcguard.core.words import vocabulary
from arcguard.text import clip


if TYPE_CHECKING:
    from collections.abc import Callable


TITLES = {
    "1-stall-continued": "A stall in the middle of an arc is sent back to work",
    "2-legitimate-stop": "A stop for a real decision (DECISION NEEDED:) is left alone",
    "3-arc-completes": "The model says the arc is complete, and arcguard lets go",
    "4-thrash-paused": "A test-and-read loop that makes no progress is denied, then paused",
    "5-polling-then-work": "Polling CI a few times, then working, is left alone",
    "6-question-continued": "Asking permission in the middle of an arc is sent back to work",
}
WHAT_CHARS = 90
NEXT = (
    "Next: `arcguard install` wires these hooks into Claude Code, `arcguard doctor` checks "
    "them; then start a task with `/autonomous <task>`."
)
VERBS = {
    vocabulary.ARC: "starts an arc",
    vocabulary.CONTINUE: "sends the model back to work",
    vocabulary.RELEASE: "releases the arc",
    vocabulary.PAUSE: "pauses the session",
    vocabulary.NUDGE: "nudges the model",
    vocabulary.ALLOW: "lets the stall through",
    vocabulary.DECISION: "lets the stop through (a decision is needed)",
    vocabulary.CAP: "lets the stop through (cap reached)",
}


def _quote(text: str) -> str:
    body = clip(" ".join(text.split()), WHAT_CHARS)
    return f'"{body}"' if body else "(an empty reply)"


def narrate_step(step: object, denied: set[str] | None = None) -> list[str]:
    """Readable lines for one replayed hook event: what the model did, what arcguard decided.

    `denied` collects the ids of the calls arcguard denied: with arcguard they never run, so
    the result the recording holds for them is not shown as if they had.
    """
    from arcguard.replay.replayer import Step
    from arcguard.replay.timeline import short

    assert isinstance(step, Step)
    event, decisions = step.event, step.decisions
    denied = set() if denied is None else denied
    call_id = str(event.fields.get("tool_use_id") or "")
    if event.event in ("PostToolUse", "PostToolUseFailure") and call_id in denied:
        return []
    lines = []
    if event.event == "UserPromptSubmit":
        lines.append(f"  The user typed {_quote(event.what)}.")
    elif event.event == "PreToolUse":
        lines.append(f"  The model calls {event.what}.")
    elif event.event == "Stop":
        lines.append(f"  The model ends its turn with {_quote(event.what)}.")
        if not decisions:
            lines.append("    arcguard lets the stop through.")
    elif event.event == "PostToolUseFailure":
        lines.append(f"    The call failed: {_quote(str(event.fields.get('error', '')))}")
    for d in decisions:
        if d.kind == vocabulary.POSTURE:
            lines.append("    arcguard restates the arc's posture to the model.")
        elif d.kind == vocabulary.DENY:
            denied.add(call_id)
            lines.append(
                f"    arcguard denies the call, so it does not run: {short(d.reason, 160)}"
            )
        else:
            verb = VERBS.get(d.kind, f"decides {d.kind}")
            lines.append(f"    arcguard {verb}: {short(d.reason, 160)}")
    return lines


def _echo_steps() -> Callable[[object], None]:
    denied: set[str] = set()

    def echo(step: object) -> None:
        for line in narrate_step(step, denied):
            click.echo(printable(line))

    return echo


@click.command()
def demo() -> None:
    """Replay the bundled example sessions through the real hooks and narrate each decision.

    The hooks run as Claude Code runs them, against a temporary state directory: nothing of
    yours is read or changed.
    """
    import tempfile
    from importlib import resources
    from pathlib import Path

    from arcguard.replay import replay

    examples = resources.files("arcguard") / "examples"
    names = sorted(p.name for p in examples.iterdir() if p.name.endswith(".jsonl"))
    click.echo(
        f"arcguard demo: {len(names)} short recorded Claude Code sessions, replayed through "
        "arcguard's real hooks, with what arcguard decides at each step.\n"
    )
    with tempfile.TemporaryDirectory(prefix="arcguard-demo-") as tmp:
        config = str(Path(tmp) / "defaults.toml")  # no file: the defaults apply
        for number, name in enumerate(names, 1):
            stem = name.removesuffix(".jsonl")
            click.echo(f"{number}. {TITLES.get(stem, stem)}  [{name}]")
            with resources.as_file(examples / name) as path:
                result = replay(
                    str(path), executor="subprocess", config_path=config, on_step=_echo_steps()
                )
            summary = (
                ", ".join(
                    f"{k} {n}" for k, n in result.summary().items() if k != vocabulary.POSTURE
                )
                or "nothing"
            )
            click.echo(f"  Decisions: {summary}.")
            if result.paused_at is not None:
                click.echo("  The session would have stopped here until the user writes again.")
            click.echo("")
    click.echo(NEXT)
