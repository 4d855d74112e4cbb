"""Write the files generated from the install plan: the settings snippet, the plugin's hook
wiring and the plugin's `/autonomous` command.

    python scripts/generate.py          # rewrite them
    python scripts/generate.py --check  # exit 1 and name the stale ones

Hand-kept copies drift; generating them from the code `install` runs keeps one source.
They wire every event arcguard handles, whatever Claude Code release reads them: a release
that does not know an event ignores it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from arcguard.claude_settings import merge_plan
from arcguard.claude_settings import slash_command
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


def artefacts() -> dict[str, str]:
    """Repository-relative path -> the content it must have."""
    return {
        "hooks.settings.json.snippet": snippet(),
        "hooks/hooks.json": plugin_hooks(),
        "commands/autonomous.md": slash_command.command_template(),
    }


def stale(root: Path = REPO) -> list[str]:
    return [name for name, text in artefacts().items()
            if not (root / name).is_file() or (root / name).read_text(encoding="utf-8") != text]


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
