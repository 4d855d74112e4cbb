"""What the resident server and the SDK hooks spend on each request, measured in-process.

    .venv/bin/python benchmarks/bench_requests.py [--calls N] [--sessions S] [--python PY ...]

A session of N tool calls goes through the per-request path the resident server runs for each
http hook (`Resident.answer`, awaited on an event loop as the server awaits it, with the
server's settings: the state each request writes kept for the next) and through the SDK
guard's callbacks (`arcguard.sdk`), as an application's event loop awaits them. For each call
the transcript first gets the turn's entries, as Claude Code writes them, then PreToolUse and
PostToolBatch are answered: the two requests a tool call costs in resident mode. The session
starts from the state of a session past its first turn, in an `/autonomous` arc.

What this leaves out is the http exchange itself (the same for any server:
`bench_session.py`'s `http` wiring measures it with Claude Code). Each session runs in a fresh
interpreter; the figures are medians over every call of every session (the first 10 calls of
each are a warm-up). `--python` adds other interpreters (another checkout's environment, say):
their sessions run at the same time as this one's, in lockstep, one tool call each in turn
(the order alternating), so that code versions are compared under the same load, call by call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


HERE = Path(__file__).resolve().parent
WARM_UP = 10

# argv: BENCHMARKS_DIR ROOT MODE CALLS. Makes one tool call per line read from stdin and
# prints its two requests' seconds, [pre, batch], as one line.
CHILD = """
import asyncio, inspect, json, os, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import bench_data
from arcguard.storage import store

root, mode, calls = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
home = str(root / "state")
os.makedirs(home)
environ = {"ARCGUARD_HOME": home, "ARCGUARD_CONFIG": str(root / "none.toml"),
           "HOME": str(root), "PATH": os.environ.get("PATH", "")}
bench_data.arc_state(home)
transcript = root / "session.jsonl"
transcript.write_text("")
loop = asyncio.new_event_loop()
pool = ThreadPoolExecutor(32)  # how earlier servers handed requests to a thread
if mode == "resident":
    from arcguard.resident import server
    shared = server.resident(home, "0" * 64, environ)
    server._load_handlers()
    if hasattr(store, "keep_written"):
        store.keep_written()

    async def ask(event, payload):
        raw = json.dumps(payload).encode()
        if inspect.iscoroutinefunction(shared.answer):
            return await shared.answer(event, raw)
        return await loop.run_in_executor(pool, shared.answer, event, raw)
else:
    import arcguard.sdk
    hooks = arcguard.sdk.hooks(environ=environ, cwd=str(root), setting_sources=[])

    async def ask(event, payload):
        return await hooks[event][0].hooks[0](payload, None, {"signal": None})

common = {"session_id": bench_data.SESSION, "transcript_path": str(transcript),
          "cwd": str(root), "permission_mode": "bypassPermissions"}
for n in range(calls):
    sys.stdin.readline()
    spent = []
    entries = bench_data._turn(1000 + 10 * n, 2000)
    call = entries[3]["message"]["content"][0]
    with transcript.open("a") as out:
        out.write("".join(json.dumps(e, separators=(",", ":")) + "\\n" for e in entries))
    pre = {**common, "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": call["input"], "tool_use_id": call["id"]}
    batch = {**common, "hook_event_name": "PostToolBatch", "tool_calls": [
        {"tool_name": "Bash", "tool_input": call["input"], "tool_use_id": call["id"],
         "tool_response": "3 passed " + bench_data._letters(n)}]}
    for event, payload in (("PreToolUse", pre), ("PostToolBatch", batch)):
        started = time.perf_counter()
        answer = loop.run_until_complete(ask(event, payload))
        spent.append(time.perf_counter() - started)
        said = answer if isinstance(answer, str) else json.dumps(answer or {})
        if any(word in said for word in ('"permissionDecision"', '"decision"', '"continue"')):
            sys.exit(f"call {n}: {event} decided {said}: the session must run unhindered")
    print(json.dumps(spent), flush=True)
"""

MODES = ("resident", "sdk")


Samples = dict[tuple[str, str], dict[str, list[float]]]


def sessions_in_lockstep(pythons: list[str], mode: str, calls: int, samples: Samples) -> None:
    """One session per interpreter, side by side, a tool call each in turn; adds the seconds
    per request, past the warm-up, to `samples`."""
    with tempfile.TemporaryDirectory(prefix=f"bench-requests-{mode}-") as scratch:
        children = []
        for n, python in enumerate(pythons):
            root = Path(scratch) / str(n)
            root.mkdir()
            child = subprocess.Popen(
                [python, "-c", CHILD, str(HERE), str(root), mode, str(calls)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            children.append((python, child))
        try:
            for call in range(calls):
                turn = children if call % 2 == 0 else children[::-1]
                for python, child in turn:
                    assert child.stdin is not None and child.stdout is not None
                    child.stdin.write("\n")
                    child.stdin.flush()
                    line = child.stdout.readline()
                    if not line:
                        _, err = child.communicate(timeout=60)
                        raise RuntimeError(f"{python} {mode}: {err.strip()[-500:]}")
                    if call >= WARM_UP:
                        pre, batch = json.loads(line)
                        samples[python, mode]["pre"].append(pre)
                        samples[python, mode]["batch"].append(batch)
        finally:
            for _, child in children:
                child.kill()
                child.communicate(timeout=60)


def measure(pythons: list[str], calls: int, sessions: int) -> dict[str, dict[str, object]]:
    samples: Samples = {(p, m): {"pre": [], "batch": []} for p in pythons for m in MODES}
    for _ in range(sessions):
        for mode in MODES:
            sessions_in_lockstep(pythons, mode, calls, samples)
    result: dict[str, dict[str, object]] = {}
    for (python, mode), times in samples.items():
        pre, batch = statistics.median(times["pre"]), statistics.median(times["batch"])
        result.setdefault(python, {})[mode] = {
            "pre_tool_ms": pre * 1000,
            "post_batch_ms": batch * 1000,
            "per_tool_call_ms": (pre + batch) * 1000,
        }
    return result


def render(result: dict[str, dict[str, object]], calls: int, sessions: int) -> str:
    lines = [
        f"{calls} tool calls per session ({WARM_UP} warm-up), {sessions} sessions per mode, "
        "medians per request",
        "",
        "| interpreter | mode | PreToolUse | PostToolBatch | per tool call |",
        "|---|---|---|---|---|",
    ]
    for python, modes in result.items():
        for mode, figures in modes.items():
            assert isinstance(figures, dict)
            lines.append(
                f"| {python} | {mode} | {figures['pre_tool_ms']:.2f} ms | "
                f"{figures['post_batch_ms']:.2f} ms | {figures['per_tool_call_ms']:.2f} ms |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=60, help="tool calls per session")
    parser.add_argument("--sessions", type=int, default=3, help="sessions per mode")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        help="another interpreter to run the same sessions in (repeatable)",
    )
    parser.add_argument("--out", default=None, help="also write the result as JSON here")
    args = parser.parse_args(argv)
    if args.calls <= WARM_UP:
        parser.error(f"--calls must be over the {WARM_UP}-call warm-up")
    pythons = [sys.executable, *args.python]
    try:
        result = measure(pythons, args.calls, args.sessions)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"bench_requests: {exc}", file=sys.stderr)
        return 2
    print(render(result, args.calls, args.sessions))
    if args.out:
        document = {"python": platform.python_version(), "load": os.getloadavg(), **result}
        Path(args.out).write_text(json.dumps(document, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
