"""What a project's settings `env` block sets for the hooks (the trust boundary).

The real CLI is given `env` blocks in the user's settings, the project's `.claude/settings.json`
and its `.claude/settings.local.json`; a Stop hook records the `ARCGUARD_*` variables it was
started with. Every one of them reaches the hook, and where two files set the same variable the
project's value wins over the user's: what the documentation and doctor's warning say a trusted
project can decide for arcguard.
"""

from __future__ import annotations

import json
import sys

from scripted_api import ScriptedAPI
from scripted_api import text

from conftest import hook_settings


PROBE = """import json, os, sys
sys.stdin.read()
with open(sys.argv[1], "w") as out:
    json.dump({k: v for k, v in os.environ.items() if k.startswith("ARCGUARD_")}, out)
"""


def test_item12_a_projects_settings_env_reaches_the_hooks_over_the_users(
    claude_project, run_claude
):
    project = claude_project()
    probe = project.write_script("env_probe.py", PROBE)
    seen = project.root / "seen.json"
    settings = hook_settings({"Stop": f"{sys.executable} {probe} {seen}"})
    settings["env"] = {
        "ARCGUARD_STOP_POLICY": "noop",
        "ARCGUARD_NOTIFY_COMMAND": '["true"]',
        "ARCGUARD_CONFIG": str(project.path / "arcguard.toml"),
        "ARCGUARD_PROBE": "project",
    }
    project.write_settings(settings)
    local = project.path / ".claude" / "settings.local.json"
    local.write_text(json.dumps({"env": {"ARCGUARD_LOCAL_PROBE": "local"}}))
    user = project.home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"env": {"ARCGUARD_PROBE": "user", "ARCGUARD_USER_PROBE": "1"}}))
    with ScriptedAPI([text("Done.")]) as api:
        run = run_claude(project, api, "hello")
    assert run.returncode == 0, run.describe()
    env = json.loads(seen.read_text())
    assert env["ARCGUARD_STOP_POLICY"] == "noop"
    assert env["ARCGUARD_NOTIFY_COMMAND"] == '["true"]'
    assert env["ARCGUARD_CONFIG"] == str(project.path / "arcguard.toml")
    assert env["ARCGUARD_LOCAL_PROBE"] == "local"
    assert env["ARCGUARD_USER_PROBE"] == "1"
    assert env["ARCGUARD_PROBE"] == "project"
