"""Write the generated files: from the install plan, the settings snippet, the plugin's hook
wiring and the plugin's `/autonomous` command; the plugin's manifest and the marketplace that
lists it; from the command line's own `--help`, the CLI reference (docs/cli.md); from the
commands themselves, every example output a docs page shows (scripts/examples.py).

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

from arcguard import __version__
from arcguard.claude_settings import merge_plan
from arcguard.claude_settings import slash_command
from arcguard.commands.group import cli
from arcguard.hooks import EVENTS


REPO = Path(__file__).resolve().parents[1]
# Users put `arcguard` on PATH (pipx or uv); the published files call it by that name.
PROGRAM = "arcguard"
# The plugin lives in a folder of its own: Claude Code copies a plugin's whole folder into its
# cache, and a clone's root also holds the virtualenv and the downloaded CLI releases.
PLUGIN = "plugin"
MARKETPLACE = "arcguard"
HOW_TO_INSTALL = "pipx install <a clone of arcguard, or its git URL>"
# One screen row: Claude Code shows it as "UserPromptSubmit says: <it>".
MISSING = (
    "arcguard is off: the arcguard command is not on PATH "
    "(install it: pipx install <arcguard clone or git URL>)"
)
PLUGIN_DESCRIPTION = (
    "arcguard hooks: every command runs the arcguard on PATH; without it they do nothing "
    "and each prompt shows how to install it."
)
# The one event whose hook says that arcguard is missing: once per prompt, where the user
# looks, rather than on every tool call.
SPEAKS = "UserPromptSubmit"


def _wiring() -> dict[str, object]:
    return {event: [merge_plan.desired_group(event, PROGRAM)] for event in EVENTS}


def plugin_command(command: str, *, speaks: bool) -> str:
    """`command` (an `arcguard hook ...` line) run only when `arcguard` is on PATH. Without it,
    Claude Code would get exit 127 and show only that the plugin's hook gave no usable answer:
    the hook exits 0 instead, and one hook prints a systemMessage (shown to the user, never
    sent to the model) saying how to install arcguard."""
    missing = f"echo '{json.dumps({'systemMessage': MISSING})}'" if speaks else "exit 0"
    return f"command -v {PROGRAM} >/dev/null 2>&1 && exec {command}; {missing}"


def _plugin_wiring() -> dict[str, object]:
    wiring: dict[str, object] = {}
    for event in EVENTS:
        group = merge_plan.desired_group(event, PROGRAM)
        for handler in group["hooks"]:
            handler["command"] = plugin_command(
                handler["command"], speaks=event == SPEAKS and not handler.get("async")
            )
        wiring[event] = [group]
    return wiring


def snippet() -> str:
    # One line per event, so the block reads (and diffs) like the settings it goes into.
    lines = [f"    {json.dumps(event)}: {json.dumps(value)}" for event, value in _wiring().items()]
    return '{\n  "hooks": {\n' + ",\n".join(lines) + "\n  }\n}\n"


def plugin_hooks() -> str:
    return _json({"description": PLUGIN_DESCRIPTION, "hooks": _plugin_wiring()})


def _json(value: object) -> str:
    return json.dumps(value, indent=2) + "\n"


def plugin_manifest() -> str:
    return _json(
        {
            "name": PROGRAM,
            "version": __version__,
            "description": "Keeps an autonomous Claude Code session on its arc: a no-op stop "
            "mid-arc goes back to work (within caps), repeated no-progress tool calls are "
            "denied, cycles and unattended runs are paused. Needs the arcguard command on "
            f"PATH ({HOW_TO_INSTALL}).",
            "author": {"name": "arcguard contributors"},
            "license": "MIT",
            "keywords": ["hooks", "autonomous", "loop-guard"],
        }
    )


def marketplace() -> str:
    """The catalog `claude plugin marketplace add <clone or repository>` reads."""
    return _json(
        {
            "name": MARKETPLACE,
            "owner": {"name": "arcguard contributors"},
            "description": "arcguard, as a Claude Code plugin",
            "plugins": [
                {
                    "name": PROGRAM,
                    "source": f"./{PLUGIN}",
                    "description": "Keeps an autonomous Claude Code session on its arc. "
                    f"Needs the arcguard command on PATH ({HOW_TO_INSTALL}).",
                    "version": __version__,
                }
            ],
        }
    )


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
            # Internal commands too: `--help` leaves them out, the reference marks them.
            if sub is not None:
                yield from _walk(sub.make_context(name, [], parent=ctx, resilient_parsing=True))


INTERNAL = (
    "Internal: Claude Code runs it as a hook (or a hook you script yourself does), so the "
    "`--help` of its group does not list it."
)


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
    lines += [
        f"- [`{path}`](#{_anchor(path)})" + (" (internal)" if ctx.command.hidden else "")
        for path, ctx in entries
    ]
    for path, ctx in entries:
        lines += ["", f"## {path}", ""]
        if ctx.command.hidden:
            lines += [INTERNAL, ""]
        lines += ["```", ctx.command.get_help(ctx).rstrip(), "```"]
    return "\n".join(lines) + "\n"


# The report's example: bundled sessions, as `arcguard report` prints them on a terminal
# without colour (docs/forensics-and-replay.md shows it).
REPORT_EXAMPLE = (
    "src/arcguard/examples/1-stall-continued.jsonl",
    "src/arcguard/examples/4-thrash-paused.jsonl",
    "src/arcguard/examples/6-question-continued.jsonl",
)


def report_example() -> str:
    import contextlib

    from click.testing import CliRunner

    with contextlib.chdir(REPO):
        done = CliRunner().invoke(cli, ["report", "--arc", *REPORT_EXAMPLE], env={"NO_COLOR": "1"})
    assert done.exit_code == 0, done.output
    command = " ".join(["$ arcguard report --arc", *REPORT_EXAMPLE])
    return f"{command}\n{done.output}"


def example_pages() -> dict[str, str]:
    """Each docs page with example outputs (scripts/examples.py) -> the page with them as the
    code prints them now."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))  # run as `python scripts/generate.py`
    from scripts import examples

    return {
        str(page.relative_to(REPO)): examples.render(page.read_text(encoding="utf-8"))
        for page in examples.pages()
    }


def artefacts() -> dict[str, str]:
    """Repository-relative path -> the content it must have."""
    return {
        "hooks.settings.json.snippet": snippet(),
        f"{PLUGIN}/hooks/hooks.json": plugin_hooks(),
        f"{PLUGIN}/commands/autonomous.md": slash_command.command_template(),
        f"{PLUGIN}/.claude-plugin/plugin.json": plugin_manifest(),
        ".claude-plugin/marketplace.json": marketplace(),
        "docs/cli.md": cli_reference(),
        "docs/report-example.txt": report_example(),
        **example_pages(),
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
