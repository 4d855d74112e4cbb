"""Measure which Claude Code releases have the behaviours arcguard relies on.

Installs a release from npm into ``.cache/claude-code-<version>`` (once) and runs a few
short ``claude -p`` sessions against the scripted API, with command hooks that log
their stdin. Each probe answers one yes/no question; ``bisect`` finds, per behaviour,
the first release where the answer is yes (assuming it stays yes afterwards).

    python tests/e2e/claude_versions.py probe 2.1.80 2.1.332
    python tests/e2e/claude_versions.py bisect --oldest 2.1.0 --newest 2.1.332
    python tests/e2e/claude_versions.py table              # the README table, measured
    python tests/e2e/claude_versions.py since 2.1.332      # releases newer than a pin
    python tests/e2e/claude_versions.py since 2.1.332 --probe   # ... and what changed

Results are kept per release in ``tests/e2e/claude_versions.json`` so that a bisection
re-uses every release already probed; ``table`` prints the README's table from them.
``--drop`` deletes each installed release after probing it (a release takes 70-380 MB).
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parent.parent
CACHE = REPO_ROOT / ".cache"
# Kept in the repository: the measurements the README's version table is generated from.
RESULTS = HERE / "claude_versions.json"
PACKAGE = "@anthropic-ai/claude-code"

sys.path.insert(0, str(HERE))

from scripted_api import ScriptedAPI  # noqa: E402
from scripted_api import Turn  # noqa: E402
from scripted_api import text  # noqa: E402
from scripted_api import tool_use  # noqa: E402
from scripted_api import turn  # noqa: E402

from conftest import ClaudeProject  # noqa: E402
from conftest import _parse_result  # noqa: E402
from conftest import hook_settings  # noqa: E402


PRE_MARK = "pre-tool-context-7f3a"
BATCH_MARK = "batch-context-9c1e"
EMPTY_RETRY_TEXT = "Your previous response had no visible output"

# Behaviours in the order they are reported; each maps to the probe key it reads.
BEHAVIOURS: dict[str, str] = {
    "PostToolBatch": "accepts PostToolBatch in settings and fires it",
    "PostToolBatch.tool_response": "PostToolBatch tool_calls[] carry tool_response",
    "StopFailure": "accepts StopFailure in settings",
    "PostToolUseFailure": "accepts PostToolUseFailure in settings and fires it for exit 3",
    "Stop.last_assistant_message": "Stop payload has last_assistant_message",
    "Stop.background_tasks": "Stop payload has background_tasks",
    "continue:false from PostToolUse": "no model call after PostToolUse says continue:false",
    "continue:false from PostToolBatch": "no model call after PostToolBatch says continue:false",
    "additionalContext from PreToolUse": "PreToolUse context is in the next request body",
    "additionalContext from PostToolBatch": "PostToolBatch context is in the next request body",
    "empty-reply retry": f"after an empty reply the CLI asks again with '{EMPTY_RETRY_TEXT}'",
    "empty final reply in transcript": "the empty reply has an assistant entry in the transcript",
    "unknown /autonomous reaches the model in -p": (
        "'/autonomous x' without a command file still calls the model"
    ),
    "Stop additionalContext": (
        "a Stop hook's additionalContext brings exactly one more model call, which carries it"
    ),
    "Stop block cap": (
        "with CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2 a Stop hook that always blocks is overridden"
        " at its 3rd block"
    ),
    "/goal": (
        "'/goal <condition>' in -p writes a goal_status entry and asks the API whether it holds"
    ),
    "built-in resume at a usage limit": (
        "interactive, claude.ai login: a 429 with the unified rate-limit headers arms"
        " Claude Code's own resume ('Usage limit reached · ... automatically at ...')"
    ),
    "additionalContext from PreToolUse of a failing call": (
        "PreToolUse context is in the next request body when the call fails"
    ),
}

STOP_MARK = "stop-context-5d2b"
FAILING_PRE_MARK = "failing-pre-context-3e8d"
# Probes added after the first bisection: a release probed before them gets only these.
LATER_PROBES = (
    "Stop additionalContext",
    "Stop block cap",
    "/goal",
    "built-in resume at a usage limit",
    "additionalContext from PreToolUse of a failing call",
)

_LOGGER = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(payload) + "\\n")
if len(sys.argv) > 2:
    sys.stdout.write(sys.argv[2])
"""

# Like _LOGGER, but answers only the first `limit` payloads (so a hook that keeps the session
# going cannot keep it going forever on a release that ignores a cap).
_LIMITED = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(payload) + "\\n")
with open(sys.argv[1]) as fh:
    seen = sum(1 for line in fh if line.strip())
if seen <= int(sys.argv[3]):
    sys.stdout.write(sys.argv[2])
"""


# --------------------------------------------------------------------------- install


def claude_bin(version: str) -> Path:
    return CACHE / f"claude-code-{version}" / "node_modules" / ".bin" / "claude"


def installed_version(binary: Path) -> str | None:
    if not binary.exists():
        return None
    try:
        out = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=60, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.split(" ", 1)[0].strip() or None


def install(version: str) -> Path:
    """Install ``version`` into its own cache prefix unless it is already there."""
    binary = claude_bin(version)
    if installed_version(binary) == version:
        return binary
    prefix = binary.parents[2]
    prefix.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(prefix),
            "--no-audit",
            "--no-fund",
            f"{PACKAGE}@{version}",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    if installed_version(binary) != version:
        # Native-binary releases place the binary in a postinstall step, which an npm
        # configuration that skips install scripts leaves out.
        package_dir = prefix / "node_modules" / "@anthropic-ai" / "claude-code"
        subprocess.run(["node", "install.cjs"], cwd=package_dir, check=True)
    return binary


def release_list() -> list[str]:
    out = subprocess.run(
        ["npm", "view", PACKAGE, "versions", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return [str(v) for v in json.loads(out)]


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("-")[0].split("."))


# --------------------------------------------------------------------------- one session


class Session:
    """One isolated project with a payload-logging hook script."""

    def __init__(self, root: Path) -> None:
        self.project = ClaudeProject(
            root=root,
            home=root / "home",
            path=root / "project",
            arcguard_home=root / "arcguard-home",
        )
        for directory in (self.project.home, self.project.path, self.project.arcguard_home):
            directory.mkdir(parents=True)
        self.log = root / "payloads.jsonl"
        self.script = self.project.write_script("log_payload.py", _LOGGER)

    def command(self, reply: Mapping[str, Any] | None = None) -> str:
        argv = [sys.executable, str(self.script), str(self.log)]
        if reply is not None:
            argv.append(json.dumps(reply))
        return shlex.join(argv)

    def payloads(self, event: str) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        found = [json.loads(line) for line in self.log.read_text().splitlines() if line]
        return [p for p in found if p.get("hook_event_name") == event]

    def limited(self, reply: Mapping[str, Any], limit: int) -> str:
        """A hook command that answers `reply` to its first `limit` payloads only."""
        script = self.project.write_script("limited_reply.py", _LIMITED)
        return shlex.join(
            [sys.executable, str(script), str(self.log), json.dumps(reply), str(limit)]
        )

    def run(
        self,
        binary: Path,
        api: ScriptedAPI,
        prompt: str = "go",
        env_extra: Mapping[str, str] | None = None,
    ) -> tuple[dict[str, Any] | None, str]:
        env = self.project.base_env()
        env["ANTHROPIC_BASE_URL"] = api.base_url
        env.update(env_extra or {})
        args = [
            str(binary),
            "-p",
            prompt,
            "--output-format",
            "json",
            "--permission-mode",
            "bypassPermissions",
        ]
        try:
            proc = subprocess.run(
                args,
                cwd=self.project.path,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=90,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, "timeout"
        return _parse_result(proc.stdout), proc.stdout + proc.stderr

    def assistant_message_ids(self) -> set[str]:
        ids: set[str] = set()
        for path in self.project.transcripts():
            for line in path.read_text().splitlines():
                entry = json.loads(line) if line.strip() else {}
                message = entry.get("message") or {}
                if entry.get("type") == "assistant" and message.get("model") != "<synthetic>":
                    ids.add(str(message.get("id")))
        return ids


@contextmanager
def session() -> Iterator[Session]:
    with tempfile.TemporaryDirectory(prefix="claude-probe-") as tmp:
        yield Session(Path(tmp))


# --------------------------------------------------------------------------- probes


def accepts_event(binary: Path, event: str) -> bool:
    """A settings file naming ``event`` is honoured: its Stop hook still fires."""
    with session() as s:
        s.project.write_settings(hook_settings({"Stop": s.command(), event: s.command()}))
        with ScriptedAPI([text("done")]) as api:
            s.run(binary, api)
        return bool(s.payloads("Stop"))


def probe_tools(binary: Path, accepted: Mapping[str, bool]) -> dict[str, bool]:
    """One session: a turn with a succeeding and a failing Bash call, then a final text."""
    with session() as s:
        hooks: dict[str, str] = {
            "Stop": s.command(),
            "PostToolUse": s.command(),
            "PreToolUse": s.command(_context("PreToolUse", PRE_MARK)),
        }
        for event in ("PostToolUseFailure", "StopFailure"):
            if accepted[event]:
                hooks[event] = s.command()
        if accepted["PostToolBatch"]:
            hooks["PostToolBatch"] = s.command(_context("PostToolBatch", BATCH_MARK))
        s.project.write_settings(hook_settings(hooks))
        script = [
            turn(
                tool_use("Bash", {"command": "echo one"}), tool_use("Bash", {"command": "exit 3"})
            ),
            text("done"),
        ]
        with ScriptedAPI(script) as api:
            s.run(binary, api)
            second = json.dumps(api.requests[1]) if len(api.requests) > 1 else ""
        batch = s.payloads("PostToolBatch")
        stop = s.payloads("Stop")
        calls = batch[0].get("tool_calls", []) if batch else []
        return {
            "PostToolBatch": bool(batch),
            "PostToolBatch.tool_response": bool(calls) and all("tool_response" in c for c in calls),
            "PostToolUseFailure": bool(s.payloads("PostToolUseFailure")),
            "Stop.last_assistant_message": bool(stop) and "last_assistant_message" in stop[0],
            "Stop.background_tasks": bool(stop) and "background_tasks" in stop[0],
            "additionalContext from PreToolUse": PRE_MARK in second,
            "additionalContext from PostToolBatch": BATCH_MARK in second,
        }


def _context(event: str, mark: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": mark}}


def stops_on_continue_false(binary: Path, event: str) -> bool:
    """After ``event`` answers continue:false, the model is not called again."""
    with session() as s:
        reply = {"continue": False, "stopReason": "probe stop"}
        s.project.write_settings(hook_settings({event: s.command(reply), "Stop": s.command()}))
        script = [tool_use("Bash", {"command": "echo one"}), text("done")]
        with ScriptedAPI(script) as api:
            s.run(binary, api)
            return bool(s.payloads(event)) and len(api.requests) == 1


def probe_empty_reply(binary: Path) -> dict[str, bool]:
    """A tool call, then an empty reply: is it retried, and is it written down?"""
    with session() as s:
        empty = Turn(stop_reason="end_turn")
        script = [tool_use("Bash", {"command": "echo one"}), empty, text("done")]
        with ScriptedAPI(script) as api:
            s.run(binary, api)
            requests = api.requests
            retried = any(EMPTY_RETRY_TEXT in json.dumps(r) for r in requests[2:])
        return {
            "empty-reply retry": retried,
            # One assistant entry per answered request means the empty one was recorded too.
            "empty final reply in transcript": len(s.assistant_message_ids()) >= len(requests),
        }


def probe_unknown_command(binary: Path) -> dict[str, bool]:
    """Only a conversation turn counts (it lends the model tools), not the session-title
    request (no tools) that 2.1.108-2.1.109 send for an unknown command."""
    with session() as s, ScriptedAPI([text("done")]) as api:
        s.run(binary, api, prompt="/autonomous ship it")
        turns = [r for r in api.requests if r.get("tools")]
        return {"unknown /autonomous reaches the model in -p": bool(turns)}


def probe_stop_context(binary: Path) -> dict[str, bool]:
    """A Stop hook answers additionalContext once: one more model call, with the text in it."""
    with session() as s:
        reply = {"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": STOP_MARK}}
        s.project.write_settings(hook_settings({"Stop": s.limited(reply, 1)}))
        with ScriptedAPI([text("done"), text("again"), text("more")]) as api:
            s.run(binary, api)
            requests = api.requests
        return {
            "Stop additionalContext": len(requests) == 2 and STOP_MARK in json.dumps(requests[1])
        }


def probe_stop_cap(binary: Path) -> dict[str, bool]:
    """A Stop hook that blocks (up to 6 times) under a cap of 2: the cap ends it at 3 calls."""
    with session() as s:
        reply = {"decision": "block", "reason": "probe block"}
        s.project.write_settings(hook_settings({"Stop": s.limited(reply, 6)}))
        with ScriptedAPI([text("done")] * 8) as api:
            s.run(binary, api, env_extra={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "2"})
            return {"Stop block cap": len(api.requests) == 3}


def probe_goal(binary: Path) -> dict[str, bool]:
    """`/goal`: the condition is recorded and judged by one more request to the API."""
    with session() as s:
        s.project.write_settings(hook_settings({"Stop": s.command()}))
        verdict = text(json.dumps({"ok": True, "reason": "it holds"}))
        with ScriptedAPI([text("Working on it."), verdict, text("unused")]) as api:
            s.run(binary, api, prompt="/goal the file done.txt exists")
            asked = any("the file done.txt exists" in json.dumps(r) for r in api.requests[1:2])
        recorded = any('"goal_status"' in p.read_text() for p in s.project.transcripts())
        return {"/goal": asked and recorded}


def probe_builtin_resume(binary: Path) -> dict[str, bool]:
    """Interactive (tmux), with a fake claude.ai login: does a usage-limit 429 arm Claude
    Code's own resume? Only the arming is looked for, not the resume 30-90 s later."""
    from interactive import claude_ai_login
    from interactive import interactive_claude
    from interactive import tmux_available
    from scripted_api import api_error

    key = "built-in resume at a usage limit"
    if not tmux_available():
        return {}
    headers = {
        "retry-after": "0",
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": str(int(time.time()) + 600),
        "anthropic-ratelimit-unified-representative-claim": "five_hour",
    }
    with session() as s:
        claude_ai_login(s.project)
        with ScriptedAPI([api_error(429, "rate_limit_error", "limit", headers=headers)]) as api:
            try:
                with interactive_claude(
                    binary, s.project, api, unset=("ANTHROPIC_API_KEY",)
                ) as cli:
                    cli.type("go")
                    end = time.monotonic() + 20
                    while time.monotonic() < end and not _armed(s.project):
                        time.sleep(0.5)
            except AssertionError:
                return {}  # no prompt came up: not a release this probe can drive
            asked = bool(api.requests)
        # No request: the prompt never reached the API, so nothing was measured.
        return {key: _armed(s.project)} if asked else {}


def probe_failing_pre_context(binary: Path) -> dict[str, bool]:
    """A PreToolUse hook answers additionalContext for the turn's only call, which fails."""
    with session() as s:
        reply = _context("PreToolUse", FAILING_PRE_MARK)
        s.project.write_settings(hook_settings({"PreToolUse": s.command(reply)}))
        script = [tool_use("Bash", {"command": "exit 3"}), text("done")]
        with ScriptedAPI(script) as api:
            s.run(binary, api)
            second = json.dumps(api.requests[1]) if len(api.requests) > 1 else ""
        return {"additionalContext from PreToolUse of a failing call": FAILING_PRE_MARK in second}


def _armed(project: ClaudeProject) -> bool:
    from arcguard.transcript import hook_reader

    return any(hook_reader.resume_mark(str(p), 1 << 20) == "armed" for p in project.transcripts())


def later_probes(binary: Path, keys: Sequence[str] = LATER_PROBES) -> dict[str, bool]:
    """The later probes answering ``keys`` (all of them by default)."""
    probes: dict[str, Callable[[Path], dict[str, bool]]] = {
        "Stop additionalContext": probe_stop_context,
        "Stop block cap": probe_stop_cap,
        "/goal": probe_goal,
        "built-in resume at a usage limit": probe_builtin_resume,
        "additionalContext from PreToolUse of a failing call": probe_failing_pre_context,
    }
    found: dict[str, bool] = {}
    for key in keys:
        found.update(probes[key](binary))
    return found


def runs_offline(binary: Path) -> bool:
    with session() as s, ScriptedAPI([text("done")]) as api:
        result, _ = s.run(binary, api)
        return result is not None and len(api.requests) >= 1


def probe(version: str) -> dict[str, bool]:
    binary = install(version)
    if not runs_offline(binary):
        return {"runs offline": False}
    accepted = {
        e: accepts_event(binary, e) for e in ("PostToolBatch", "StopFailure", "PostToolUseFailure")
    }
    found: dict[str, bool] = {"runs offline": True, "StopFailure": accepted["StopFailure"]}
    tools = probe_tools(binary, accepted)
    found.update(tools)
    found["PostToolBatch"] = accepted["PostToolBatch"] and tools["PostToolBatch"]
    found["PostToolUseFailure"] = accepted["PostToolUseFailure"] and tools["PostToolUseFailure"]
    found["continue:false from PostToolUse"] = stops_on_continue_false(binary, "PostToolUse")
    found["continue:false from PostToolBatch"] = accepted["PostToolBatch"] and (
        stops_on_continue_false(binary, "PostToolBatch")
    )
    found.update(probe_empty_reply(binary))
    found.update(probe_unknown_command(binary))
    found.update(later_probes(binary))
    return found


# --------------------------------------------------------------------------- cache + bisect


def load_results() -> dict[str, dict[str, bool]]:
    if RESULTS.exists():
        return dict(json.loads(RESULTS.read_text()))
    return {}


def cached_probe(version: str, drop: bool) -> dict[str, bool]:
    """The release's probe results, probing what is not kept yet (a release kept from before a
    probe was added gets only the later probes it lacks). `drop`: delete a release this call
    installed."""
    results = load_results()
    missing = [key for key in LATER_PROBES if key not in results.get(version, {})]
    if version in results and not missing:
        return results[version]
    was_there = installed_version(claude_bin(version)) == version
    started = time.monotonic()
    if version in results:
        results[version] = {**results[version], **later_probes(install(version), missing)}
    else:
        results[version] = probe(version)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"# probed {version} in {time.monotonic() - started:.0f}s", file=sys.stderr)
    prefix = claude_bin(version).parents[2]
    if drop and not was_there and prefix != CACHE / "claude-code":
        shutil.rmtree(prefix, ignore_errors=True)
    return results[version]


def first_with(
    behaviour: str, versions: Sequence[str], check: Callable[[str], dict[str, bool]]
) -> str | None:
    """First release in ``versions`` (oldest first) where ``behaviour`` holds."""
    if not check(versions[-1]).get(behaviour):
        return None
    low, high = 0, len(versions) - 1
    if check(versions[low]).get(behaviour):
        return versions[low]
    while high - low > 1:
        middle = (low + high) // 2
        if check(versions[middle]).get(behaviour):
            high = middle
        else:
            low = middle
    return versions[high]


def window(oldest: str, newest: str) -> list[str]:
    releases = [v for v in release_list() if "-" not in v]
    chosen = [v for v in releases if version_key(oldest) <= version_key(v) <= version_key(newest)]
    return sorted(chosen, key=version_key)


def bisect(args: argparse.Namespace) -> None:
    versions = window(args.oldest, args.newest)
    wanted = args.behaviour or list(BEHAVIOURS)
    for behaviour in wanted:
        first = first_with(behaviour, versions, lambda v: cached_probe(v, args.drop))
        line = f"{behaviour}\t{first or 'none'}\t{BEHAVIOURS[behaviour]}"
        print(line, flush=True)
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(f"{behaviour} {first or 'none'}\n")


def show(args: argparse.Namespace) -> None:
    for version in args.versions:
        print(version, json.dumps(cached_probe(version, args.drop), indent=1))


def first_measured(behaviour: str, results: Mapping[str, Mapping[str, bool]]) -> tuple[str, str]:
    """(first release with the behaviour, newest release probed without it), "" if none."""
    ordered = sorted(results, key=version_key)
    have = [v for v in ordered if results[v].get(behaviour)]
    if not have:
        return "", ordered[-1] if ordered else ""
    before = [v for v in ordered if version_key(v) < version_key(have[0])]
    return have[0], before[-1] if before else ""


def table_rows(results: Mapping[str, Mapping[str, bool]]) -> list[str]:
    rows = [
        "| behaviour | first release with it | newest release probed without it | probe |",
        "|---|---|---|---|",
    ]
    for behaviour, question in BEHAVIOURS.items():
        first, without = first_measured(behaviour, results)
        rows.append(f"| {behaviour} | {first or 'none probed'} | {without or '-'} | {question} |")
    return rows


def table(args: argparse.Namespace) -> None:
    print("\n".join(table_rows(load_results())))


def since(args: argparse.Namespace) -> None:
    """Releases newer than the pin, newest last; with --probe, what the newest one changed."""
    newer = [v for v in release_list() if "-" not in v and version_key(v) > version_key(args.pin)]
    newer.sort(key=version_key)
    for version in newer:
        print(version)
    if not newer:
        print(f"no release newer than {args.pin}")
        return
    if args.probe:
        before, after = cached_probe(args.pin, args.drop), cached_probe(newer[-1], args.drop)
        changed = [k for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]
        for key in changed:
            print(f"{key}: {args.pin} {before.get(key)} -> {newer[-1]} {after.get(key)}")
        if not changed:
            print(f"no probed behaviour differs between {args.pin} and {newer[-1]}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb", required=True)
    one = sub.add_parser("probe", help="probe the given releases and print the results")
    one.add_argument("versions", nargs="+")
    one.add_argument("--drop", action="store_true")
    one.set_defaults(func=show)
    many = sub.add_parser("bisect", help="first release with each behaviour")
    many.add_argument("--oldest", default="2.1.0")
    many.add_argument("--newest", required=True)
    many.add_argument("--behaviour", action="append", choices=list(BEHAVIOURS))
    many.add_argument("--out", help="append 'behaviour version' lines to this file")
    many.add_argument("--drop", action="store_true")
    many.set_defaults(func=bisect)
    sub.add_parser("table", help="the measured table, as markdown").set_defaults(func=table)
    pin = sub.add_parser("since", help="releases on npm newer than a pinned one")
    pin.add_argument("pin")
    pin.add_argument("--probe", action="store_true", help="probe the newest and compare")
    pin.add_argument("--drop", action="store_true")
    pin.set_defaults(func=since)
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
