"""No secret of the shapes arcguard masks reaches a file it writes, whichever text carried it:
a command (its label in the state, in a deny's reason in the decision log), the model's
narration, the operator's `/autonomous` task or `/goal`, an arc's milestones, an error line."""

from __future__ import annotations

import json
from pathlib import Path

from testing import hook_driver
from testing.builders import assistant_entries
from testing.builders import text
from testing.builders import tool_use
from testing.builders import write_transcript

from arcguard.core.arc_keeper.arc import mark_done
from arcguard.core.arc_keeper.arc import new_arc
from arcguard.storage import error_log


SID = "5b1f0c2e-0000-4000-8000-00000000eeee"
# Distinct secret values: none of them, nor its first 12 characters, may be found in a file.
SECRETS = [f"Q{n:02d}q8Xw3Kp9Lm2Nv7Rt4Yb6Hc" for n in range(20)]
S = SECRETS
COMMANDS = [
    f'export GITHUB_TOKEN="{S[0]} {S[1]}" && make',
    f'TOKEN="{S[2]}" ./deploy.sh',
    f"mysqldump --password='{S[3]}' db",
    f"curl -u admin:{S[4]} https://api.example.com",
    f"mysql -uroot -p{S[5]} db",
    f"docker login -u me -p {S[6]} registry.example.com",
    f"redis-cli -a {S[7]} ping",
    f"gpg --batch --passphrase {S[8]} -d f.gpg",
    f"printf 'auth_token: {S[9]}' > cfg.yml",
    f"""curl -d '{{"user":"u","pass":"{S[10]}"}}' https://api.example.com""",
    f'curl -H "Cookie: session={S[11]}; theme=dark" https://example.com',
    f"stripe --api sk_live_{S[12]}",
    f"maps AIza{S[13]}xxxxxx",
    f"hub hf_{S[14]}xxxxxxxx",
    f"slack xapp-1-{S[15]}",
    f"curl -X POST https://hooks.slack.com/services/T0/B0/{S[16]}",
    f"git clone https://me:p@{S[17]}@github.com/o/r",
]
NARRATION = f"Found the deploy key ghp_{S[18]} in .env; using it."
PROMPT = f"/autonomous deploy with DEPLOY_TOKEN={S[19]}"


def run(home: Path, hook: str, payload: dict) -> None:
    hook_driver.dispatch(hook, payload, home)


def test_item7_no_masked_shape_reaches_the_state_file_the_error_log_or_the_decision_log(
    tmp_path,
):
    home = tmp_path / "state"
    transcript = tmp_path / "t.jsonl"
    base = {"session_id": SID, "transcript_path": str(transcript)}
    run(home, "posture", {**base, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT})
    run(
        home,
        "posture",
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "/goal " + PROMPT},
    )
    entries = []
    for n, command in enumerate(COMMANDS):
        call = {"tool_name": "Bash", "tool_input": {"command": command}}
        # Repeated until the repeat rule denies it: the label goes into the deny's reason.
        for run_no in range(3):
            tid = f"toolu_{n}_{run_no}"
            run(
                home,
                "pre-tool",
                {**base, **call, "tool_use_id": tid, "hook_event_name": "PreToolUse"},
            )
            post = {**base, **call, "tool_use_id": tid, "tool_response": {"stdout": "ok"}}
            run(home, "post-tool", {**post, "hook_event_name": "PostToolUse"})
        entries += assistant_entries(text(NARRATION), tool_use("Bash", call["tool_input"], tid))
        write_transcript(transcript, entries)
        batch = [{**call, "tool_use_id": tid, "tool_response": "ok"}]
        run(home, "post-batch", {**base, "hook_event_name": "PostToolBatch", "tool_calls": batch})
        error_log.log_line(str(home), "hook pre-tool", f"ValueError: cannot use {command!r}")

    files = [path for path in home.rglob("*") if path.is_file()]
    state = json.loads(next(path for path in files if path.suffix == ".json").read_text())
    assert any(entry.get("kind") == "deny" for entry in state["log"])  # the reasons were made
    assert state["guard"]["tracks"]["main"].get("narrations")  # the narration was kept
    assert state["arc"]["task"] and state["seen"]["goal"]
    for path in files:
        data = path.read_text(errors="replace")
        for secret in SECRETS:
            assert secret[:12] not in data, (path.name, secret)


def test_item7_an_arcs_milestones_are_kept_masked_and_still_marked_done_by_their_text():
    milestone = f"rotate TOKEN={SECRETS[0]}"
    arc = new_arc(f"deploy ghp_{SECRETS[1]}", [milestone, "ship"], 0.0)
    text = json.dumps(arc.data)
    assert SECRETS[0][:12] not in text and SECRETS[1][:12] not in text
    assert arc.milestones[0].slice == "rotate TOKEN=***"
    assert mark_done(arc, milestone)
    assert arc.milestones[0].status == "done"
