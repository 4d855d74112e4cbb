"""The example outputs the docs pages show, produced by the real commands on fixed inputs.

A page marks each generated block with a comment on the line before it:

    <!-- example: doctor -->
    ```
    $ arcguard doctor
    ...
    ```

`python scripts/generate.py` rewrites the body of every marked block, and `--check` (and
tests/test_snippet.py) fails while a page shows something the code no longer prints. The
inputs are fixed so that the output is too: the bundled example sessions, the transcripts
under tests/fixtures/, a home folder named /home/dev (a temporary one, renamed in the output),
a fixed clock for the state the status examples read, and the interpreter named as pipx
installs it.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

from click.testing import CliRunner  # noqa: TID253  (a script: the hooks never import it)

from arcguard.commands.group import cli


REPO = Path(__file__).resolve().parents[1]
HOME = "/home/dev"
# Where `pipx install` puts arcguard's interpreter: the path the published samples name.
PYTHON = f"{HOME}/.local/share/pipx/venvs/arcguard/bin/python"
CLAUDE_VERSION = "2.1.328"
# The status example's clock: its sessions ran in the hour before.
CLOCK = 1_796_112_000.0  # 2026-12-01 08:00:00 UTC
MARK = re.compile(r"(<!-- example: (?P<name>[a-z0-9-]+) -->\n```[a-z]*\n)(?P<body>.*?)(```)", re.S)


def run(*args: str, env: dict[str, str] | None = None) -> str:
    """`arcguard ARGS` as a terminal without colour shows it (exit status not checked: a
    doctor with a gap exits 1)."""
    with contextlib.chdir(REPO):
        done = CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", **(env or {})})
    if done.exception is not None and not isinstance(done.exception, SystemExit):
        raise done.exception
    return done.output


def shown(*args: str, env: dict[str, str] | None = None) -> str:
    return f"$ arcguard {' '.join(args)}\n" + run(*args, env=env)


def clipped(text: str, head: int, tail: int = 0) -> str:
    """The first `head` lines, `...`, and the last `tail` ones (a long output's shape)."""
    lines = text.rstrip("\n").split("\n")
    if len(lines) <= head + tail:
        return text
    return "\n".join([*lines[:head], "...", *(lines[len(lines) - tail :] if tail else [])]) + "\n"


# ----------------------------------------------------------------------------- a fresh home


@contextlib.contextmanager
def fresh_home() -> Iterator[tuple[Path, dict[str, str]]]:
    """A temporary home with a `claude` on PATH that says it is the pinned release; yields the
    home and the environment the commands run in."""
    with tempfile.TemporaryDirectory(prefix="arcguard-docs-") as scratch:
        home = Path(scratch) / "home"
        bin_dir = Path(scratch) / "bin"
        for folder in (home, bin_dir, home / "src" / "shop"):
            folder.mkdir(parents=True)
        claude = bin_dir / "claude"
        claude.write_text(f"#!/bin/sh\necho '{CLAUDE_VERSION} (Claude Code)'\n")
        claude.chmod(0o755)
        env = {
            "HOME": str(home),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        # Nothing of whoever runs it: their arcguard and Claude Code settings, their folders.
        unset = [k for k in os.environ if k.startswith(("ARCGUARD_", "CLAUDE_", "XDG_"))]
        with mock.patch.dict(os.environ, env):
            for name in unset:
                del os.environ[name]
            yield home, env


def anonymous(text: str, home: Path) -> str:
    """`text` with this machine's folders replaced by the fixed ones the pages name."""
    for real in {sys.executable, os.path.realpath(sys.executable)}:
        text = text.replace(real, PYTHON)
    text = text.replace(str(home), HOME)
    assert str(REPO) not in text and tempfile.gettempdir() + "/" not in text, text
    return text


def install() -> str:
    with fresh_home() as (home, env):
        text = shown("install", env=env) + shown("install", env=env)
        return anonymous(text, home)


def settings_entry() -> str:
    """The Stop entry `install` writes, one member a line as a reader scans it."""
    with fresh_home() as (home, env):
        run("install", env=env)
        settings = json.loads((home / ".claude" / "settings.json").read_text())
        [entry] = settings["hooks"]["Stop"][0]["hooks"]
        members = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in entry.items()]
        return anonymous("{\n" + ",\n".join(members) + "\n}\n", home)


def install_dry_run() -> str:
    with fresh_home() as (home, env):
        settings = home / ".claude" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(json.dumps({"model": "opus", "permissions": {"allow": []}}, indent=2))
        return anonymous(clipped(shown("install", "--dry-run", env=env), 26), home)


def doctor() -> str:
    with fresh_home() as (home, env), contextlib.chdir(home):
        run("install", env=env)
        done = CliRunner().invoke(cli, ["doctor"], env={"NO_COLOR": "1", **env})
        return anonymous("$ cd ~ && arcguard doctor\n" + done.output, home)


def _gaps(text: str) -> str:
    """The lines of a doctor output that are gaps, each with its hint."""
    lines = text.split("\n")
    keep = [
        line
        for before, line in zip(["", *lines], lines, strict=False)
        if line.startswith("gap ") or (line.startswith("      hint:") and before.startswith("gap "))
    ]
    return "\n".join(keep) + "\n"


def _doctor_project(project: Path, env: dict[str, str]) -> str:
    return run("doctor", "--project", str(project), env=env)


def doctor_gone_venv() -> str:
    from arcguard.claude_settings import merge_plan

    with fresh_home() as (home, env):
        project = home / "src" / "shop"
        local = project / ".claude" / "settings.local.json"
        local.parent.mkdir()
        gone = f"{home}/old-venv/bin/python3 -m arcguard"
        local.write_text(json.dumps({"hooks": merge_plan.desired_hooks(gone)}))
        return anonymous(_gaps(_doctor_project(project, env)), home)


def doctor_wired_twice() -> str:
    """A project that wires another arcguard on top of the user's install."""
    from arcguard.claude_settings import merge_plan

    with fresh_home() as (home, env):
        run("install", env=env)
        project = home / "src" / "shop"
        settings = project / ".claude" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(
            json.dumps({"hooks": merge_plan.desired_hooks(f"{sys.executable} -m arcguard")})
        )
        return anonymous(_gaps(_doctor_project(project, env)), home)


class Sessions:
    """Hook events run in-process, as Claude Code would send them, on the fixed clock: the
    state `arcguard status` and `arcguard statusline` then read."""

    def __init__(self, home: Path) -> None:
        from arcguard.core.config import default_config

        self.state = str(home / ".local" / "state" / "arcguard")
        self.cfg = default_config()
        self.at = CLOCK - 3600
        self.project = str(home / "src" / "shop")
        self.scratch = home / "transcripts"
        self.scratch.mkdir()

    def fire(self, hook: str, session: str, **fields: object) -> str | None:
        from arcguard.hooks.runner import Context
        from arcguard.hooks.runner import dispatch

        self.at += 1
        payload = {
            "session_id": session,
            "cwd": self.project,
            "transcript_path": str(self.scratch / f"{session}.jsonl"),
            **fields,
        }
        ctx = Context.begin(hook, self.state, self.cfg, self.at, "arcguard", dict(os.environ))
        return dispatch(hook, json.dumps(payload).encode(), ctx)

    def stop(self, session: str, message: str, *, active: bool = False) -> None:
        self.fire(
            "stop",
            session,
            hook_event_name="Stop",
            last_assistant_message=message,
            stop_hook_active=active,
        )

    def bash(self, session: str, call_id: str, command: str, stdout: str) -> str | None:
        """One turn of one Bash call; what the PreToolUse hook printed."""
        call = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": call_id}
        said = self.fire("pre-tool", session, hook_event_name="PreToolUse", **call)
        response = {"stdout": stdout, "stderr": ""}
        self.fire(
            "post-tool", session, hook_event_name="PostToolUse", tool_response=response, **call
        )
        self.fire("post-batch", session, hook_event_name="PostToolBatch", tool_calls=[call])
        return said


ARC = "a5e98cb9-d9a7-4c5b-bab2-5715c64f63c5"
LOOP = "5b8273ef-dc41-4f0e-9d52-0e5c3f8c1a27"


def _two_sessions(home: Path) -> Sessions:
    """An arc sent back to work twice, then complete; and a session whose `ls` is denied."""
    sessions = Sessions(home)
    prompt = {"hook_event_name": "UserPromptSubmit"}
    sessions.fire("posture", ARC, prompt="/autonomous ship the CSV importer", **prompt)
    sessions.stop(ARC, "No response requested.")
    sessions.stop(ARC, "The parser is in. Shall I go on with the loader?", active=True)
    sessions.stop(ARC, "The arc is complete.", active=True)
    sessions.fire("posture", LOOP, prompt="why is the build red?", **prompt)
    for call in range(3):
        sessions.bash(LOOP, f"toolu_{call}", "ls", "Makefile\nsrc\ntests\n")
    return sessions


def status() -> str:
    with fresh_home() as (home, env), mock.patch("arcguard.commands.status.now", lambda: CLOCK):
        sessions = _two_sessions(home)
        env = {**env, "ARCGUARD_HOME": sessions.state}
        text = shown("status", env=env) + shown("status", "--session", ARC[:4], env=env)
        return anonymous(text.replace(sessions.state, f"{HOME}/.local/state/arcguard"), home)


def deny_result() -> str:
    """What the model gets for a denied call on 2.1.328: Claude Code's prefix, then arcguard's
    reason (an A/B cycle of writes, as the end-to-end tests script it)."""
    with fresh_home() as (home, _env):
        sessions = Sessions(home)
        said = None
        for turn in range(5):
            said = sessions.bash(LOOP, f"toolu_{turn}", f"echo {'AB'[turn % 2]} >> runs.txt", "")
        assert said is not None, "the fifth call was not denied"
        reason = json.loads(said)["hookSpecificOutput"]["permissionDecisionReason"]
        return f"PreToolUse:Bash hook error: {reason}\n"


def limit_wait_entry() -> str:
    """The background StopFailure handler, as the snippet and the plugin wire it."""
    from arcguard.claude_settings import merge_plan

    group = merge_plan.desired_group("StopFailure", "arcguard")
    [handler] = [h for h in group["hooks"] if h.get("async")]
    return json.dumps(handler) + "\n"


EXAMPLES: dict[str, Callable[[], str]] = {
    "version": lambda: shown("--version"),
    "forensics": lambda: shown("forensics", "tests/fixtures/transcripts"),
    "replay-one": lambda: shown("replay", "src/arcguard/examples/4-thrash-paused.jsonl"),
    "replay-many": lambda: shown("replay", "src/arcguard/examples"),
    "demo": lambda: clipped(run("demo"), 16, 1),
    "install": install,
    "install-dry-run": install_dry_run,
    "settings-entry": settings_entry,
    "doctor": doctor,
    "doctor-gone-venv": doctor_gone_venv,
    "doctor-wired-twice": doctor_wired_twice,
    "status": status,
    "deny-result": deny_result,
    "limit-wait-entry": limit_wait_entry,
}


@functools.cache
def output(name: str) -> str:
    """Example `name`, made once per process (some run doctor, which runs every hook)."""
    make = EXAMPLES.get(name)
    if make is None:
        raise KeyError(f"no example named {name!r} in scripts/examples.py")
    return make()


def render(page: str) -> str:
    """`page` with the body of every marked block replaced by what the code prints now."""

    def body(match: re.Match[str]) -> str:
        return match[1] + output(match["name"]) + match[4]

    return MARK.sub(body, page)


def pages() -> list[Path]:
    """The docs pages (and the README) with at least one marked block."""
    candidates = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return [p for p in candidates if MARK.search(p.read_text(encoding="utf-8"))]
