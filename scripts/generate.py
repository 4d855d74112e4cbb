"""Write the generated files: from the install plan, the settings snippet, the plugin's hook
wiring and the plugin's `/autonomous` command; from the command line's own `--help`, the CLI
reference (docs/cli.md).

    python scripts/generate.py          # rewrite them
    python scripts/generate.py --check  # exit 1 and name the stale ones

Hand-kept copies drift; generating them from the code `install` runs keeps one source.
They wire every event arcguard handles, whatever Claude Code release reads them: a release
that does not know an event ignores it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import click  # noqa: TID253  (a script: the hooks never import it)

from arcguard.claude_settings import merge_plan
from arcguard.claude_settings import slash_command
from arcguard.commands.group import cli
from arcguard.hooks import EVENTS


REPO = Path(__file__).resolve().parents[1]
# Users put `arcguard` on PATH (pip install); the published files call it by that name.
PROGRAM = "arcguard"
PLUGIN_DESCRIPTION = (
    "arcguard hooks: every command runs the arcguard on PATH (pip install arcguard)."
)


def _wiring() -> dict[str, object]:
    return {event: [merge_plan.desired_group(event, PROGRAM)] for event in EVENTS}


def snippet() -> str:
    # One line per event, so the block reads (and diffs) like the settings it goes into.
    lines = [f"    {json.dumps(event)}: {json.dumps(value)}" for event, value in _wiring().items()]
    return '{\n  "hooks": {\n' + ",\n".join(lines) + "\n  }\n}\n"


def plugin_hooks() -> str:
    return json.dumps({"description": PLUGIN_DESCRIPTION, "hooks": _wiring()}, indent=2) + "\n"


# A fixed width (what an 80-column terminal shows), so the reference does not depend on
# the terminal that generated it.
HELP_WIDTH = 78


def commands() -> Iterator[tuple[str, click.Context]]:
    """Every command and subcommand as (its full name, a context for its help), depth first."""
    # Contexts made by click itself, so each help is the one the command prints (inherited
    # settings such as `-h` included); resilient parsing, since no arguments are given.
    root = cli.make_context(
        "arcguard",
        [],
        resilient_parsing=True,
        terminal_width=HELP_WIDTH,
        max_content_width=HELP_WIDTH,
    )
    yield from _walk(root)


def _walk(ctx: click.Context) -> Iterator[tuple[str, click.Context]]:
    yield ctx.command_path, ctx
    command = ctx.command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _walk(sub.make_context(name, [], parent=ctx, resilient_parsing=True))


def _anchor(path: str) -> str:
    # GitHub's anchor for a heading of lower-case words and hyphens: spaces become hyphens.
    return path.lower().replace(" ", "-")


def cli_reference() -> str:
    entries = list(commands())
    lines = [
        "# CLI reference",
        "",
        "Every command's `--help`, generated from the code: "
        "`python scripts/generate.py` rewrites this page, and a test fails while it is "
        "out of date.",
        "",
    ]
    lines += [f"- [`{path}`](#{_anchor(path)})" for path, _ in entries]
    for path, ctx in entries:
        lines += ["", f"## {path}", "", "```", ctx.command.get_help(ctx).rstrip(), "```"]
    return "\n".join(lines) + "\n"


def artefacts() -> dict[str, str]:
    """Repository-relative path -> the content it must have."""
    return {
        "hooks.settings.json.snippet": snippet(),
        "hooks/hooks.json": plugin_hooks(),
        "commands/autonomous.md": slash_command.command_template(),
        "docs/cli.md": cli_reference(),
    }


def stale(root: Path = REPO) -> list[str]:
    return [
        name
        for name, text in artefacts().items()
        if not (root / name).is_file() or (root / name).read_text(encoding="utf-8") != text
    ]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        names = stale()
        for name in names:
            print(f"out of date: {name} (run: python scripts/generate.py)", file=sys.stderr)
        return 1 if names else 0
    for name, text in artefacts().items():
        path = REPO / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
