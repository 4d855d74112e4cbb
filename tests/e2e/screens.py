"""The screens of docs/what-you-will-see.md: the real interactive CLI in tmux, at a fixed size,
against the scripted API, with arcguard wired as `arcguard install --statusline` wires it.

Each scenario returns what the terminal showed from the prompt typed on: the page shows an
excerpt of it, and `tests/e2e/test_screen_lines.py` runs the scenarios again and checks that
every arcguard line of the page is on the fresh screen, row for row (the size is fixed, so
Claude Code wraps the same way). Lines that change from run to run (a duration, a spinner's
word) are left out of the excerpts.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from interactive import Terminal
from interactive import interactive_claude
from interactive import wait_for
from scripted_api import ScriptedAPI
from scripted_api import text
from scripted_api import tool_use


if TYPE_CHECKING:
    from conftest import ClaudeProject

# What a reader's terminal often is: the page's blocks then read without scrolling sideways.
SIZE = (100, 40)
PAGE = Path(__file__).resolve().parents[2] / "docs" / "what-you-will-see.md"
NOOP = "No response requested."
# How arcguard's status line segment starts, indented under the input box.
STATUS_ROW = "\n  arcguard "


def wire(project: ClaudeProject) -> None:
    """arcguard's hooks, status line and /autonomous command in the user's settings."""
    from arcguard.claude_settings import launch_forms
    from arcguard.claude_settings import merge_plan
    from arcguard.claude_settings import slash_command
    from arcguard.claude_settings import statusline_plan

    prefix = launch_forms.own_prefix(sys.executable)
    settings = {
        "hooks": merge_plan.desired_hooks(prefix),
        "statusLine": statusline_plan.desired(prefix),
    }
    claude_dir = project.home / ".claude"
    (claude_dir / "commands").mkdir(parents=True, exist_ok=True)
    (claude_dir / "settings.json").write_text(json.dumps(settings))
    (claude_dir / "commands" / slash_command.COMMAND_NAME).write_text(
        slash_command.command_template()
    )


def kinds(project: ClaudeProject) -> list[str]:
    sessions = project.arcguard_home / "sessions"
    files = sorted(sessions.glob("*.json")) if sessions.is_dir() else []
    return [
        str(entry.get("kind"))
        for state in (json.loads(f.read_text()) for f in files)
        for entry in state.get("log", [])
    ]


def since_prompt(terminal: Terminal, prompt: str) -> list[str]:
    """The rows shown from the typed prompt on (the banner above it names this machine's
    folders), right-trimmed, without the trailing blank rows."""
    rows = [row.rstrip() for row in terminal.history().splitlines()]
    start = max(i for i, row in enumerate(rows) if prompt in row and row.lstrip()[:1] in "❯>")
    rows = rows[start:]
    while rows and not rows[-1]:
        rows.pop()
    return rows


@dataclass(frozen=True)
class Scenario:
    prompt: str
    script: list[object]
    done: Callable[[ClaudeProject, Terminal], bool]


def _on_screen(words: str) -> Callable[[ClaudeProject, Terminal], bool]:
    return lambda _project, terminal: words in " ".join(terminal.history().split())


def _logged(kind: str, then: str) -> Callable[[ClaudeProject, Terminal], bool]:
    return lambda project, terminal: kind in kinds(project) and _on_screen(then)(project, terminal)


CYCLE = ("echo A >> runs.txt", "echo B >> runs.txt")
SCENARIOS: dict[str, Scenario] = {
    "sent-back": Scenario(
        "/autonomous ship the importer",
        [text(NOOP), text("Back on the importer: parsing the CSV header now.")],
        _on_screen("parsing the CSV header now."),
    ),
    "cap": Scenario(
        "/autonomous ship the importer",
        [text(NOOP), text(NOOP), text(NOOP)],
        _logged("cap", "sent back as often as allowed"),
    ),
    "deny-and-pause": Scenario(
        "get the build green",
        [tool_use("Bash", {"command": c}) for _ in range(15) for c in CYCLE],
        _logged("pause", "Send a message to resume."),
    ),
}


def capture(claude: Path, project: ClaudeProject, name: str) -> list[str]:
    """Run scenario `name` in the interactive CLI and return its rows since the prompt."""
    scenario = SCENARIOS[name]
    wire(project)
    with (
        ScriptedAPI(scenario.script) as api,
        interactive_claude(claude, project, api, size=SIZE) as cli,
    ):
        cli.type(scenario.prompt)
        wait_for(lambda: scenario.done(project, cli), 180, f"the {name} screen", cli)
        wait_for(lambda: STATUS_ROW in cli.screen(), 30, "arcguard's status line", cli)
        # The status line refreshes after the turn: give it, and the last rows, time to land.
        time.sleep(3)
        return since_prompt(cli, scenario.prompt)


# ----------------------------------------------------------------------------- the page

BLOCK = re.compile(r"<!-- screen: (?P<name>[a-z-]+) -->\n```text\n(?P<body>.*?)```", re.DOTALL)
# Rows that differ between runs or say nothing about arcguard: a duration, a spinner, the
# input box and its rules, the mode and effort hints under it.
VARYING = re.compile(r"\bfor \d+s\b|^\S+ \w+…|^[─━]+$|^\s*[>❯]\s*$|esc to interrupt|⏵⏵|/effort")


def excerpt(rows: list[str]) -> list[str]:
    """The rows the page shows: the others, with no two blank rows in a row."""
    kept: list[str] = []
    for row in rows:
        if VARYING.search(row) or (not row and (not kept or not kept[-1])):
            continue
        kept.append(row)
    return kept


def arcguard_rows(rows: list[str]) -> list[str]:
    """The rows the check compares: each row that says `arcguard`, and the rows that carry
    its wrapped words (indented rows right after it, up to a blank row)."""
    kept: list[str] = []
    inside = False
    for row in rows:
        if "arcguard" in row:
            kept.append(row)
            inside = True
        elif inside and row.startswith("   ") and row.strip():
            kept.append(row)
        else:
            inside = False
    return kept


def page_blocks(page: str) -> dict[str, list[str]]:
    return {m["name"]: m["body"].rstrip("\n").split("\n") for m in BLOCK.finditer(page)}


def with_blocks(page: str, captures: dict[str, list[str]]) -> str:
    """The page with each screen block replaced by the excerpt of its capture."""

    def body(match: re.Match[str]) -> str:
        rows = captures.get(match["name"])
        if rows is None:
            return match[0]
        return f"<!-- screen: {match['name']} -->\n```text\n" + "\n".join(excerpt(rows)) + "\n```"

    return BLOCK.sub(body, page)
