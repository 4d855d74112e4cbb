"""Fixtures for end-to-end tests that drive the real Claude Code CLI.

Each test gets an isolated HOME and project directory, a scripted Messages-API
server (``scripted_api.ScriptedAPI``) and runs ``claude -p`` headless against
it, with hooks wired through ``<project>/.claude/settings.json``.

Fixtures:

- ``claude_bin``: path of the CLI. ``$ARCGUARD_CLAUDE_BIN`` if set, else
  ``<repo>/.cache/claude-code/node_modules/.bin/claude``. Missing: the test is
  skipped, or fails when ``$CI`` is set (in CI these tests must run).
- ``claude_project``: factory ``claude_project(settings=None) -> ClaudeProject``.
- ``run_claude``: ``run_claude(project, api, prompt, extra_args=(), env=None,
  timeout=300) -> ClaudeRun``.
- ``hook_settings``: ``hook_settings({event: command | [commands]}) -> dict``.
- ``arcguard_hook_settings``: ``arcguard_hook_settings({event: subcommand}) -> dict``
  with commands ``<python> -m arcguard hook <subcommand>``.
- ``claude_release``: each release of ``WINDOW_RELEASES`` in turn (oldest and newest
  supported), installed in ``<repo>/.cache/claude-code-<version>``; missing: skipped, or
  failed when ``$CI`` is set. ``run_release`` is ``run_claude`` for that release.

Example::

    from scripted_api import ScriptedAPI, text, tool_use

    def test_stop(claude_project, run_claude, arcguard_hook_settings):
        project = claude_project(arcguard_hook_settings({"Stop": "stop"}))
        with ScriptedAPI([tool_use("Bash", {"command": "echo hi"}), text("ok")]) as api:
            run = run_claude(project, api, "do it")
        assert run.result["terminal_reason"] == "completed"
        assert len(api.requests) == 2
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

import pytest


HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
DEFAULT_CLAUDE_BIN = REPO_ROOT / ".cache" / "claude-code" / "node_modules" / ".bin" / "claude"
# Only a guard against a hung run: generous, so a slow machine is never mistaken for one.
DEFAULT_TIMEOUT = 300.0

# Test modules import the server as ``scripted_api`` whatever pytest's import mode is.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cli_env import offline_env  # noqa: E402
from scripted_api import ScriptedAPI  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: runs the real Claude Code CLI against a scripted API server"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


# --------------------------------------------------------------------------- settings helpers


def hook_settings(
    hooks: Mapping[str, str | Sequence[str]],
    *,
    matcher: str | None = None,
    timeout: int | None = None,
) -> dict[str, Any]:
    """Settings dict wiring shell ``command`` hooks: ``{event: command or [commands]}``.

    ``matcher`` applies to every event that supports one (tool events); others ignore it.
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for event, commands in hooks.items():
        if isinstance(commands, str):
            commands = [commands]
        handlers: list[dict[str, Any]] = []
        for command in commands:
            handler: dict[str, Any] = {"type": "command", "command": command}
            if timeout is not None:
                handler["timeout"] = timeout
            handlers.append(handler)
        group: dict[str, Any] = {"hooks": handlers}
        if matcher is not None:
            group["matcher"] = matcher
        out[event] = [group]
    return {"hooks": out}


def arcguard_command(subcommand: str) -> str:
    """Shell command running ``arcguard hook <subcommand>`` with this interpreter."""
    return f"{shlex.quote(sys.executable)} -m arcguard hook {shlex.quote(subcommand)}"


def arcguard_hook_settings(
    hooks: Mapping[str, str | Sequence[str]],
    *,
    matcher: str | None = None,
    timeout: int | None = None,
) -> dict[str, Any]:
    """Settings dict wiring arcguard: ``{"Stop": "stop", "PreToolUse": "pre-tool", ...}``."""
    commands = {
        event: [arcguard_command(s) for s in ([subs] if isinstance(subs, str) else subs)]
        for event, subs in hooks.items()
    }
    return hook_settings(commands, matcher=matcher, timeout=timeout)


# --------------------------------------------------------------------------- project + run


@dataclass
class ClaudeProject:
    """An isolated HOME plus a project directory for one CLI run (or several)."""

    root: Path
    home: Path
    path: Path
    arcguard_home: Path

    @property
    def settings_path(self) -> Path:
        return self.path / ".claude" / "settings.json"

    def write_settings(self, settings: Mapping[str, Any]) -> None:
        self.settings_path.parent.mkdir(parents=True, exist_ok=True)
        self.settings_path.write_text(json.dumps(settings, indent=2) + "\n")

    def write_script(self, name: str, source: str) -> Path:
        """Write a helper script (e.g. a hook) under the temp root, outside the project."""
        target = self.root / "scripts" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source)
        target.chmod(0o755)
        return target

    @property
    def transcript_dir(self) -> Path:
        return self.home / ".claude" / "projects"

    def transcripts(self) -> list[Path]:
        """Every transcript file written so far (sessions and subagents)."""
        if not self.transcript_dir.is_dir():
            return []
        return sorted(self.transcript_dir.rglob("*.jsonl"))

    def base_env(self) -> dict[str, str]:
        return {**offline_env(self.home, self.arcguard_home), **patient_hooks()}


def patient_hooks() -> dict[str, str]:
    """arcguard's most patient wall budget and lock wait, for every hook of a run.

    These tests check the decisions hooks make. On a loaded machine a hook starved of CPU
    can outlive the default budget and fail open, and the session then goes on for turns
    the guard would have stopped; the fail-open timeouts have tests of their own.
    """
    from arcguard.core.config import SETTING

    return {
        "ARCGUARD_HOOK_BUDGET_MS": str(SETTING["hook_budget_ms"].high),
        "ARCGUARD_LOCK_TIMEOUT_MS": str(SETTING["lock_timeout_ms"].high),
    }


@dataclass
class ClaudeRun:
    """Outcome of one ``claude -p`` run."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    duration: float
    result: dict[str, Any] | None
    transcripts: list[Path] = field(default_factory=list)

    @property
    def session_id(self) -> str | None:
        return None if self.result is None else self.result.get("session_id")

    @property
    def transcript(self) -> Path | None:
        """The main session transcript (``<session_id>.jsonl``), if written."""
        for path in self.transcripts:
            if self.session_id and path.name == f"{self.session_id}.jsonl":
                return path
        top = [p for p in self.transcripts if p.parent.parent.name == "projects"]
        return top[0] if len(top) == 1 else None

    def transcript_entries(self) -> list[dict[str, Any]]:
        path = self.transcript
        if path is None:
            return []
        entries = []
        for line in path.read_text().splitlines():
            if line.strip():
                entries.append(json.loads(line))
        return entries

    def describe(self) -> str:
        return (
            f"claude exited {self.returncode} after {self.duration:.1f}s\n"
            f"args: {shlex.join(self.args)}\n--- stdout ---\n{self.stdout[-4000:]}\n"
            f"--- stderr ---\n{self.stderr[-4000:]}"
        )


def _parse_result(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        # Tolerate stray lines: take the last line that is a JSON result object.
        for line in reversed(text.splitlines()):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and value.get("type") == "result":
                return value
        return None
    return value if isinstance(value, dict) else None


def _run(
    claude: Path,
    project: ClaudeProject,
    api: ScriptedAPI,
    prompt: str,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ClaudeRun:
    args = [
        str(claude),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--permission-mode",
        "bypassPermissions",
        *extra_args,
    ]
    full_env = project.base_env()
    full_env["ANTHROPIC_BASE_URL"] = api.base_url
    if env:
        full_env.update(env)
    started = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=project.path,
        env=full_env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        run = ClaudeRun(args, -9, stdout, stderr, time.monotonic() - started, None)
        pytest.fail(f"claude timed out after {timeout}s\n{run.describe()}", pytrace=False)
    finally:
        # Hooks or tools may have left background processes in the session's group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    return ClaudeRun(
        args=args,
        returncode=proc.returncode,
        stdout=stdout,
        stderr=stderr,
        duration=time.monotonic() - started,
        result=_parse_result(stdout),
        transcripts=project.transcripts(),
    )


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    configured = os.environ.get("ARCGUARD_CLAUDE_BIN")
    path = Path(configured) if configured else DEFAULT_CLAUDE_BIN
    if not (path.is_file() and os.access(path, os.X_OK)):
        message = (
            f"Claude Code CLI not found at {path}; install it with "
            "`npm install --prefix .cache/claude-code @anthropic-ai/claude-code@<version>` "
            "or set ARCGUARD_CLAUDE_BIN"
        )
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return path


@pytest.fixture
def claude_project(tmp_path: Path) -> Iterator[Callable[..., ClaudeProject]]:
    """Factory: ``claude_project(settings=None) -> ClaudeProject``."""
    count = 0

    def make(settings: Mapping[str, Any] | None = None) -> ClaudeProject:
        nonlocal count
        count += 1
        root = tmp_path / f"claude{count}"
        project = ClaudeProject(
            root=root,
            home=root / "home",
            path=root / "project",
            arcguard_home=root / "arcguard-home",
        )
        for directory in (project.home, project.path, project.arcguard_home):
            directory.mkdir(parents=True)
        if settings is not None:
            project.write_settings(settings)
        return project

    yield make


@pytest.fixture
def run_claude(claude_bin: Path) -> Callable[..., ClaudeRun]:
    """``run_claude(project, api, prompt, extra_args=(), env=None, timeout=300)``."""

    def run(
        project: ClaudeProject,
        api: ScriptedAPI,
        prompt: str,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> ClaudeRun:
        return _run(claude_bin, project, api, prompt, extra_args, env, timeout)

    return run


@pytest.fixture(name="hook_settings")
def hook_settings_fixture() -> Callable[..., dict[str, Any]]:
    return hook_settings


@pytest.fixture(name="arcguard_hook_settings")
def arcguard_hook_settings_fixture() -> Callable[..., dict[str, Any]]:
    return arcguard_hook_settings


# --------------------------------------------------------------------------- arcguard helpers


def all_arcguard_settings(version: str | None = None) -> dict[str, Any]:
    """arcguard's hooks wired as `arcguard install` wires them for Claude Code ``version``
    (every event by default, as for the pinned release): its events, and its matchers."""
    from arcguard.claude_settings import launch_forms
    from arcguard.claude_settings import merge_plan
    from arcguard.claude_settings import releases
    from arcguard.hooks import EVENTS

    known = releases.parse(version) if version else None
    events = [event for event in EVENTS if known is None or releases.knows(event, known)]
    return merge_plan.plan_install({}, launch_forms.own_prefix(sys.executable), events)


def install_arcguard(project: ClaudeProject, *options: str) -> None:
    """`arcguard install --scope project OPTIONS` into ``project``, as a user runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "arcguard", "install", "--scope", "project"]
        + ["--project", str(project.path), *options],
        capture_output=True,
        text=True,
        env={**os.environ, **project.base_env()},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def add_handler(settings: dict[str, Any], event: str, command: str) -> dict[str, Any]:
    """Add one more command hook on ``event`` (a group of its own) and return ``settings``."""
    groups = settings.setdefault("hooks", {}).setdefault(event, [])
    groups.append({"hooks": [{"type": "command", "command": command}]})
    return settings


def arcguard_state(project: ClaudeProject, session_id: str | None) -> dict[str, Any]:
    """The session's arcguard state document, read from the project's ARCGUARD_HOME."""
    from arcguard.storage import paths

    assert session_id, "the run reported no session id"
    path = Path(paths.session_path(str(project.arcguard_home), session_id))
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def log_kinds(state: Mapping[str, Any]) -> list[str]:
    """The ``kind`` of every entry of a state document's decision log, oldest first."""
    return [str(entry.get("kind")) for entry in state.get("log", [])]


# A hook that appends its stdin payload to a JSONL file and, optionally, prints a reply.
#   argv: LOG [REPLY_JSON]
_PAYLOAD_LOGGER = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(payload) + "\\n")
if len(sys.argv) > 2:
    sys.stdout.write(sys.argv[2])
"""


@dataclass
class PayloadLog:
    """Hook payloads as Claude Code sent them, recorded by a tiny logging hook."""

    script: Path
    path: Path

    def command(self, reply: Mapping[str, Any] | None = None) -> str:
        argv = [sys.executable, str(self.script), str(self.path)]
        if reply is not None:
            argv.append(json.dumps(reply))
        return shlex.join(argv)

    def payloads(self, event: str | None = None) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        found = [json.loads(line) for line in self.path.read_text().splitlines() if line]
        return [p for p in found if event is None or p.get("hook_event_name") == event]

    def events(self) -> list[str]:
        return [str(p.get("hook_event_name")) for p in self.payloads()]


def payload_log(project: ClaudeProject, name: str = "payloads") -> PayloadLog:
    script = project.write_script("payload_logger.py", _PAYLOAD_LOGGER)
    return PayloadLog(script=script, path=project.root / f"{name}.jsonl")


# --------------------------------------------------------------------------- release window

# Besides the pinned CLI, CI runs a subset of these tests against the oldest release arcguard
# supports and the newest one checked; `.ci/run` installs the same versions (a unit test keeps
# the two lists equal).
WINDOW_RELEASES = {"oldest": "2.1.78", "newest": "2.1.332"}
# The first release that knows the PostToolBatch hook event, measured with
# tests/e2e/claude_versions.py. Older releases ignore a settings file that names it.
POST_TOOL_BATCH_FIRST = "2.1.118"


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-")[0].split("."))


def knows_post_tool_batch(version: str) -> bool:
    return version_key(version) >= version_key(POST_TOOL_BATCH_FIRST)


def release_bin(version: str) -> Path:
    """Where `.ci/run` (and tests/e2e/claude_versions.py) install one release."""
    return REPO_ROOT / ".cache" / f"claude-code-{version}" / "node_modules" / ".bin" / "claude"


def arcguard_settings_for(version: str) -> dict[str, Any]:
    """arcguard's hooks as a settings file ``version`` accepts: no event it does not know."""
    return all_arcguard_settings(version)


def install_autonomous_command(project: ClaudeProject) -> None:
    """The /autonomous command file, which releases that reject unknown commands need."""
    from arcguard.claude_settings import slash_command

    target = project.path / ".claude" / "commands" / slash_command.COMMAND_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(slash_command.command_template())


@dataclass(frozen=True)
class ClaudeRelease:
    """One installed Claude Code release of the support window."""

    role: str
    version: str
    binary: Path

    @property
    def knows_post_tool_batch(self) -> bool:
        return knows_post_tool_batch(self.version)


def _missing(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture
def needs_tmux() -> None:
    """Skip (fail under CI) a test of the interactive CLI where tmux is missing."""
    from interactive import tmux_available

    if not tmux_available():
        _missing("tmux is not installed (the interactive CLI runs inside it)")


@pytest.fixture(scope="session", params=sorted(WINDOW_RELEASES))
def claude_release(request: pytest.FixtureRequest) -> ClaudeRelease:
    """Each release of the window in turn; skipped locally when it is not installed."""
    role = str(request.param)
    version = WINDOW_RELEASES[role]
    binary = release_bin(version)
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        _missing(
            f"Claude Code {version} ({role} supported release) not installed at {binary}; "
            "run .ci/run, or tests/e2e/claude_versions.py probe "
            f"{version}"
        )
    return ClaudeRelease(role=role, version=version, binary=binary)


@pytest.fixture
def run_release(claude_release: ClaudeRelease) -> Callable[..., ClaudeRun]:
    """``run_claude`` for the window release under test."""

    def run(
        project: ClaudeProject,
        api: ScriptedAPI,
        prompt: str,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> ClaudeRun:
        return _run(claude_release.binary, project, api, prompt, extra_args, env, timeout)

    return run
