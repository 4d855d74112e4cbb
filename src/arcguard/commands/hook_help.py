"""`arcguard hook NAME`: run one hook. Reached only for help (or when called through click).

`arcguard.main` runs every other `hook ...` invocation itself, without click, because hooks run
on every tool call and must exit 0 even when malformed; this command exists so that
`arcguard hook --help` documents them.
"""

from __future__ import annotations

import click

from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS
from arcguard.hooks import HOOKS
from arcguard.hooks import RESIDENT_COMMANDS


def _events(name: str) -> str:
    events = [event for event, hook in EVENTS.items() if hook == name]
    if name in BACKGROUND:
        events.append(f"{BACKGROUND[name]} (in the background: async, asyncRewake)")
    events += [
        f"{e} (resident mode: starts the server)" for e, h in RESIDENT_COMMANDS.items() if h == name
    ]
    return ", ".join(events)


def _listing() -> str:
    width = max(len(name) for name in HOOKS)
    return "\n".join(f"  {name.ljust(width)}  {_events(name)}" for name in HOOKS)


@click.command(
    # Claude Code runs it, not the user: left out of `arcguard --help`.
    hidden=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="\b\nHooks and the Claude Code events they serve:\n" + _listing(),
)
@click.argument("name", metavar="NAME")
def hook(name: str) -> int:
    """Run hook NAME: read a Claude Code hook payload on stdin, print nothing or one JSON object.

    A hook exits 0 and fails open: any error means no decision. The one exception is
    limit-wait, whose exit 2 wakes a session once an API limit has reset.

    \b
    Examples:
      echo '{"session_id": "s1", "prompt": "hi"}' | arcguard hook posture
    """
    from arcguard.hooks import runner

    if name not in HOOKS:
        # Any non-zero exit from a hook is read by Claude Code (2 as "block"): report, exit 0.
        runner.usage_error([name])
        return 0
    return runner.main(name)
