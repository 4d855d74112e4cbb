"""Drive the real Claude Code CLI in interactive mode, inside a tmux session.

Some behaviour exists only in interactive mode: `StopFailure` hooks do not fire in `-p` runs,
so waking a session after a rate limit can only be seen with the terminal UI running. The CLI
gets an isolated HOME whose `~/.claude.json` already holds what its first-run dialogs would
ask for (onboarding done, the project trusted, the test API key approved, the bypass-mode
warning accepted), and a tmux server of its own (`-L`), so nothing is shared with a user's
tmux or another test.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from scripted_api import ScriptedAPI

    from conftest import ClaudeProject


PROMPT_READY = "bypass permissions on"


def tmux_available() -> bool:
    return shutil.which("tmux") is not None


def prepare_home(project: ClaudeProject, api_key: str = "test") -> None:
    """Answer the first-run dialogs in advance."""
    config = {
        "hasCompletedOnboarding": True,
        "bypassPermissionsModeAccepted": True,
        "projects": {str(project.path): {"hasTrustDialogAccepted": True}},
        # Claude Code remembers an approved key by its last 20 characters.
        "customApiKeyResponses": {"approved": [api_key[-20:]], "rejected": []},
    }
    (project.home / ".claude.json").write_text(json.dumps(config))


def claude_ai_login(project: ClaudeProject) -> None:
    """A fake claude.ai (OAuth) login in the CLI's home: the CLI then sends a bearer token to
    the scripted API instead of an API key, and behaves as for a subscriber (its own resume at
    a usage limit is armed). Run the CLI with `unset=("ANTHROPIC_API_KEY",)`."""
    expires = int((time.time() + 30 * 86400) * 1000)
    credentials = {
        "claudeAiOauth": {
            "accessToken": "sk-ant-oat01-" + "x" * 40,
            "refreshToken": "sk-ant-ort01-" + "y" * 40,
            "expiresAt": expires,
            "scopes": ["user:inference", "user:profile", "user:sessions:claude_code"],
            "subscriptionType": "max",
        }
    }
    directory = project.home / ".claude"
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".credentials.json").write_text(json.dumps(credentials))


class Terminal:
    """One interactive CLI in a detached tmux session."""

    def __init__(self, socket: str, raw_log: Path) -> None:
        self.socket = socket
        self.raw_log = raw_log

    def raw(self) -> bytes:
        """Every byte the CLI wrote to its terminal so far (escape sequences included)."""
        return self.raw_log.read_bytes() if self.raw_log.exists() else b""

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=30,
        )

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "cli", check=False).stdout

    def history(self) -> str:
        """The screen and everything scrolled off it, as text."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", "cli", check=False).stdout

    def input_box(self) -> str:
        """What the input box at the foot of the screen holds, on one line and without its
        prompt sign: the text between the box's two rules."""
        lines = self.screen().splitlines()
        rules = [i for i, line in enumerate(lines) if line.startswith("\u2500" * 20)]
        if len(rules) < 2:
            return ""
        held = " ".join(" ".join(lines[rules[-2] + 1 : rules[-1]]).split())
        return held.lstrip("\u276f>").strip()

    def holds(self, text: str) -> bool:
        return self.input_box().startswith(text)

    def type(self, text: str) -> None:
        """Type a prompt and submit it.

        On a loaded machine the CLI can take the keys late: Enter is sent only once the box
        shows the text, and sent again while the text is still sitting there (an Enter that
        arrives while a slash command's menu opens only closes the menu)."""
        self._tmux("send-keys", "-t", "cli", "-l", text)
        wait_for(lambda: self.holds(text), 30, "the input box to take the text", self)
        for _ in range(5):
            self._tmux("send-keys", "-t", "cli", "Enter")
            end = time.monotonic() + 3
            while time.monotonic() < end:
                if not self.holds(text):
                    return
                time.sleep(0.25)

    def keys(self, *keys: str) -> None:
        """Press keys as tmux names them (`C-b`: Ctrl+B)."""
        self._tmux("send-keys", "-t", "cli", *keys)

    def kill(self) -> None:
        self._tmux("kill-server", check=False)


def wait_for(
    condition: Callable[[], object], timeout: float, what: str, terminal: Terminal | None = None
) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.25)
    screen = terminal.screen() if terminal is not None else ""
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}\n{screen}")


@contextlib.contextmanager
def interactive_claude(
    claude: Path,
    project: ClaudeProject,
    api: ScriptedAPI,
    env: dict[str, str] | None = None,
    *,
    unset: tuple[str, ...] = (),
    size: tuple[int, int] = (160, 45),
) -> Iterator[Terminal]:
    """Start the CLI in tmux, wait for its prompt, and always tear the tmux server down.

    `unset`: variables of the test environment the CLI must not get (`ANTHROPIC_API_KEY`, for
    a session logged in to claude.ai instead, see `claude_ai_login`). `size`: the terminal's
    columns and rows."""
    prepare_home(project)
    full = project.base_env()
    full.update(ANTHROPIC_BASE_URL=api.base_url, TERM="xterm-256color", **(env or {}))
    for name in unset:
        full.pop(name, None)
    command = (
        "exec env -i "
        + " ".join(f"{k}={shlex.quote(v)}" for k, v in full.items())
        + f" {shlex.quote(str(claude))} --dangerously-skip-permissions"
    )
    terminal = Terminal(f"arcguard-e2e-{uuid.uuid4().hex[:12]}", project.root / "terminal.raw")
    try:
        # Start the CLI only once its output is being recorded: a sequence it emits early
        # (or a window title it later overwrites) must not be missed.
        terminal._tmux(
            "new-session",
            "-d",
            "-s",
            "cli",
            "-x",
            str(size[0]),
            "-y",
            str(size[1]),
            "-c",
            str(project.path),
            "read _ && " + command,
        )
        terminal._tmux(
            "pipe-pane", "-t", "cli", "-o", f"cat >> {shlex.quote(str(terminal.raw_log))}"
        )
        terminal._tmux("send-keys", "-t", "cli", "Enter")
        wait_for(lambda: PROMPT_READY in terminal.screen(), 60, "the CLI's prompt", terminal)
        yield terminal
    finally:
        terminal.kill()
