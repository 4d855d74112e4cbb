"""Hook latency, transcript-size, state-size, import-cost and forensics benchmarks.

Run with the project's own interpreter (the one arcguard is installed in):

    .venv/bin/python benchmarks/bench_hooks.py [--quick] [--out FILE]

Every sample is a fresh process, as Claude Code runs hooks. Variants are measured in one run on
the same machine, after a warm-up, interleaved (the order alternates between rounds) so that
background load hits them all alike; results are ratios to a bare `python -c pass` of the same
run. It writes a JSON result and prints Markdown tables. It never touches the real state dir:
every child gets a private ARCGUARD_HOME, HOME and config path under a temp directory.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


PYTHON = sys.executable
SCRIPT = str(Path(PYTHON).parent / "arcguard")
SESSION = "bench-0000-session"
NOW = time.time()

# Budgets from DESIGN.md.
HOOK_RATIO_BUDGET = 2.5
HOOK_RATIO_AIM = 2.0
SIZE_RATIO_BUDGET = 1.1
RSS_BUDGET_MB = 40.0
FORENSICS_RATIO_BUDGET = 0.5
BUDGETED = ("pre-tool", "post-tool", "post-batch", "stop (message)")


# --- realistic transcripts ------------------------------------------------------------------


def _entry(kind: str, n: int, **fields: Any) -> dict[str, Any]:
    return {"parentUuid": f"uuid-{n - 1:08d}", "isSidechain": False, "userType": "external",
            "cwd": "/home/user/project", "sessionId": SESSION, "version": "2.1.328",
            "gitBranch": "main", "type": kind, "uuid": f"uuid-{n:08d}",
            "timestamp": "2026-05-01T10:00:00.000Z", **fields}


def _assistant(n: int, mid: str, block: dict[str, Any]) -> dict[str, Any]:
    return _entry("assistant", n, requestId=f"req_{mid}", message={
        "id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-5",
        "content": [block], "stop_reason": None,
        "usage": {"input_tokens": 4, "cache_read_input_tokens": 51234, "output_tokens": 120}})


def _turn(n: int, blob_bytes: int) -> list[dict[str, Any]]:
    """One tool-using turn: the request blob, thinking, text, tool_use, then its result."""
    mid = f"msg_{n:010d}"
    tid = f"toolu_{n:010d}"
    sentence = "The quick brown fox reads src/arcguard/store.py and runs the tests. "
    filler = (sentence * (blob_bytes // len(sentence) + 1))[:blob_bytes]
    blob = {"messages": [{"role": "user", "content": filler}],
            "system": "You are Claude Code.", "tools": ["Bash", "Read", "Edit"]}
    return [
        _entry("api-request-blob", n, requestId=f"req_{mid}", blob=blob),
        _assistant(n + 1, mid, {"type": "thinking", "thinking": "Next I check the tests.",
                                "signature": "c2lnbmF0dXJl"}),
        _assistant(n + 2, mid, {"type": "text", "text": "Running the test suite now."}),
        _assistant(n + 3, mid, {"type": "tool_use", "id": tid, "name": "Bash",
                                "input": {"command": f"pytest -q tests/test_{n}.py",
                                          "description": "Run tests"}}),
        _entry("user", n + 4, toolUseResult={"stdout": "3 passed", "stderr": ""},
               message={"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": tid, "content": "3 passed in 0.41s",
                    "is_error": False}]}),
        _entry("attachment", n + 5, attachment={"type": "hook_success", "hookName": "PostToolUse",
                                                 "stdout": "", "stderr": "", "exitCode": 0}),
    ]


def _ending(n: int, final_text: str) -> list[dict[str, Any]]:
    mid = f"msg_final_{n:08d}"
    return [
        _entry("api-request-blob", n, blob={"messages": [{"role": "user", "content": "x" * 2000}]}),
        _assistant(n + 1, mid, {"type": "text", "text": final_text}),
        _entry("system", n + 2, subtype="stop_hook_summary", hookCount=1, hookErrors=[]),
        _entry("last-prompt", n + 3, lastPrompt="keep going"),
    ]


# Request blobs grow with the conversation and vary a lot; this cycle averages about 100 KB a
# turn (a 3-turn session observed with Claude Code 2.1.328 was already 150 KB).
BLOB_SIZES = (2_000, 20_000, 60_000, 150_000, 300_000)


def write_transcript(path: Path, size: int, *, final_text: str = "No response requested.",
                     blob_bytes: int = 300_000) -> int:
    """A JSONL transcript of about `size` bytes with big request blobs, ending in a stop."""
    def dumps(entry: dict[str, Any]) -> str:
        return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)  # as Claude Code

    written = 0
    n = 1
    with path.open("wb") as out:
        out.write((dumps(_entry("user", 0, message={"role": "user",
                                                     "content": "/autonomous fix it"})) + "\n")
                  .encode())
        while written < size:
            blob = min(BLOB_SIZES[n // 10 % len(BLOB_SIZES)], blob_bytes,
                       max(200, (size - written) // 2))
            lines = "".join(dumps(e) + "\n" for e in _turn(n, blob)).encode()
            out.write(lines)
            written += len(lines)
            n += 10
        for entry in _ending(n, final_text):
            out.write((dumps(entry) + "\n").encode())
    return path.stat().st_size


def batch_transcript(path: Path) -> tuple[str, dict[str, Any]]:
    """A small transcript whose last assistant message made the call PostToolBatch reports."""
    entries = [_entry("user", 0, message={"role": "user", "content": "fix the importer"})]
    entries += _turn(1, 3000) + _turn(11, 3000)
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
    last = entries[-3]["message"]["content"][0]
    return last["id"], last["input"]


# --- state built by driving the real core -----------------------------------------------------


def _store_state(home: str, state: dict[str, Any] | None) -> bytes:
    from arcguard import paths
    from arcguard import store

    path = paths.session_path(home, SESSION)
    if state is None:
        if os.path.exists(path):
            os.unlink(path)
        return b""
    store.update(home, SESSION, lambda _old: (state, None), now=NOW, lock_timeout=5.0)
    return Path(path).read_bytes()


def arc_state(home: str) -> bytes:
    from arcguard.core import arc as arcs
    from arcguard.core.state import fresh_state

    state = fresh_state(SESSION, NOW)
    state["arc"] = arcs.new_arc("importer", ["parse", "load", "report"], NOW)
    return _store_state(home, state)


def max_history_state(home: str) -> tuple[bytes, dict[str, int]]:
    """Drive the loop guard until every bounded history is full (ops, fingerprints, log)."""
    from arcguard.core.config import default_config
    from arcguard.core.guard import decide_post_batch
    from arcguard.core.repeat import decide_post_tool
    from arcguard.core.repeat import decide_pre_tool
    from arcguard.core.state import fresh_state

    cfg = default_config()
    state = fresh_state(SESSION, NOW)
    t = NOW

    def call(i: int, command: str) -> dict[str, Any]:
        nonlocal state, t
        t += 1
        tool_input = {"command": command, "description": f"step {i}"}
        _, state = decide_pre_tool(state, cfg, t, tool_name="Bash", tool_input=tool_input,
                                   tool_use_id=f"toolu_h{i}", agent_id=None)
        payload = {"tool_response": {"stdout": f"out {i % 7}", "stderr": "",
                                     "interrupted": False}}
        _, state = decide_post_tool(state, cfg, t, event_name="PostToolUse", tool_name="Bash",
                                    tool_input=tool_input, tool_use_id=f"toolu_h{i}",
                                    agent_id=None, payload=payload)
        return tool_input

    for i in range(cfg.max_operations + 20):
        tool_input = call(i, f"grep -rn 'symbol_{i}' src/ tests/ | head -50")
        if i % 5 == 0:  # a tool-only turn with a distinct fingerprint each time
            _, state = decide_post_batch(state, cfg, t, calls=[("Bash", tool_input)],
                                         tool_only=True, agent_id=None, arc_active=False)
    while len(state["log"]) < 50:  # denials fill the decision log
        call(999_999, "git status --short")
    track = state["guard"]["tracks"]["main"]
    figures = {"operations": len(track["ops"]), "fingerprints": len(track["fingerprints"]),
               "log": len(state["log"])}
    return _store_state(home, state), figures


# --- payloads -------------------------------------------------------------------------------


def payloads(root: Path, transcript: Path, batch_path: Path, batch_call: tuple[str, Any],
             ) -> dict[str, dict[str, Any]]:
    common = {"session_id": SESSION, "transcript_path": str(transcript), "cwd": str(root),
              "permission_mode": "default", "prompt_id": "prompt-1", "effort": "high"}
    command = {"command": "pytest -q tests/test_store.py", "description": "Run store tests",
               "timeout": 120000}
    tid, tinput = batch_call
    return {
        "pre-tool": {**common, "hook_event_name": "PreToolUse", "tool_name": "Bash",
                     "tool_input": command, "tool_use_id": "toolu_bench_pre"},
        "post-tool": {**common, "hook_event_name": "PostToolUse", "tool_name": "Bash",
                      "tool_input": command, "tool_use_id": "toolu_bench_pre",
                      "duration_ms": 812,
                      "tool_response": {"stdout": "........ 8 passed in 0.61s\n" * 20,
                                        "stderr": "", "interrupted": False, "isImage": False,
                                        "noOutputExpected": False}},
        "post-batch": {**common, "transcript_path": str(batch_path),
                       "hook_event_name": "PostToolBatch",
                       "tool_calls": [{"tool_name": "Bash", "tool_input": tinput,
                                       "tool_use_id": tid, "tool_response": "3 passed in 0.41s"}]},
        "stop (message)": {**common, "hook_event_name": "Stop", "stop_hook_active": False,
                           "last_assistant_message": "The parser now handles quoted fields and "
                           "escaped newlines; all 42 tests pass. Next I wire the loader into "
                           "the report command.",
                           "background_tasks": [], "session_crons": []},
        "stop (no-op message)": {**common, "hook_event_name": "Stop", "stop_hook_active": False,
                                 "last_assistant_message": "No response requested.",
                                 "background_tasks": [], "session_crons": []},
        "stop (transcript)": {**common, "hook_event_name": "Stop", "stop_hook_active": False,
                              "background_tasks": [], "session_crons": []},
        "posture": {**common, "hook_event_name": "UserPromptSubmit",
                    "prompt": "continue with the loader milestone"},
    }


HOOK_OF = {"pre-tool": "pre-tool", "post-tool": "post-tool", "post-batch": "post-batch",
           "stop (message)": "stop", "stop (no-op message)": "stop",
           "stop (transcript)": "stop", "posture": "posture"}


# --- measuring ------------------------------------------------------------------------------


# Peak RSS cannot come from wait4/getrusage: Linux carries the parent's high-water mark across
# fork+exec into the child's ru_maxrss, so every child would report at least this script's
# size. A probe run instead reads the process's own VmHWM (reset by exec) as it exits.
PROBE = """
import atexit, sys
def report():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                sys.stderr.write("VmHWM " + line.split()[1] + "\\n")
atexit.register(report)
if len(sys.argv) > 1:
    from arcguard.main import main
    raise SystemExit(main(sys.argv[1:]))
"""


def probe_argv(argv: list[str]) -> list[str]:
    """The same run with the VmHWM probe around it (hook runs only, plus the bare case)."""
    if "hook" in argv:
        return [PYTHON, "-c", PROBE, *argv[argv.index("hook"):]]
    return [PYTHON, "-c", PROBE]


class Variant:
    def __init__(self, name: str, argv: list[str], stdin: bytes = b"",
                 state: bytes | None = None) -> None:
        self.name = name
        self.argv = argv
        self.stdin = stdin
        self.state = state  # restored before every sample, so each sees the same state
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.rss: list[float] = []
        self.outputs: set[str] = set()


def restore(variant: Variant, state_path: str) -> None:
    if variant.state is not None:
        if variant.state:
            Path(state_path).write_bytes(variant.state)
        elif os.path.exists(state_path):
            os.unlink(state_path)


def probe_rss(variant: Variant, env: dict[str, str], state_path: str) -> None:
    restore(variant, state_path)
    proc = subprocess.run(probe_argv(variant.argv), input=variant.stdin, capture_output=True,
                          env=env, check=True)
    for line in proc.stderr.decode().splitlines():
        if line.startswith("VmHWM "):
            variant.rss.append(int(line.split()[1]) / 1024)


def run_once(variant: Variant, env: dict[str, str], state_path: str) -> None:
    restore(variant, state_path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(variant.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(variant.stdin)
    except BrokenPipeError:
        pass
    proc.stdin.close()
    out = proc.stdout.read()
    _, status, _usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{variant.name}: exit {proc.returncode}")
    variant.wall.append(wall * 1000)
    variant.cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                       * 1000)
    variant.outputs.add(_shape(out))


def _shape(out: bytes) -> str:
    """What a hook printed, in a word: nothing, or the decision it carries."""
    if not out.strip():
        return "none"
    text = out.decode("utf-8", "replace")
    for word in ("deny", "block", "additionalContext", "continue"):
        if word in text:
            return word
    return "json"


def measure(variants: list[Variant], env: dict[str, str], state_path: str, *, warmup: int,
            rounds: int) -> None:
    for _ in range(warmup):
        for variant in variants:
            run_once(variant, env, state_path)
    for variant in variants:
        variant.wall.clear()
        variant.cpu.clear()
        variant.rss.clear()
    for i in range(rounds):
        order = variants if i % 2 == 0 else list(reversed(variants))
        for variant in order:
            run_once(variant, env, state_path)
    for variant in variants:
        for _ in range(2):
            probe_rss(variant, env, state_path)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def summary(variant: Variant, base: Variant | None) -> dict[str, Any]:
    med = statistics.median(variant.wall)
    cpu = statistics.median(variant.cpu)
    result = {"n": len(variant.wall), "median_ms": round(med, 2),
              "p95_ms": round(p95(variant.wall), 2), "cpu_ms": round(cpu, 2),
              "peak_rss_mb": round(max(variant.rss), 1), "output": sorted(variant.outputs)}
    if base is not None:
        result["ratio"] = round(med / statistics.median(base.wall), 2)
        result["p95_ratio"] = round(p95(variant.wall) / p95(base.wall), 2)
        result["cpu_ratio"] = round(cpu / statistics.median(base.cpu), 2)
    return result


# --- import cost ----------------------------------------------------------------------------


def import_cost(argv: list[str], stdin: bytes, env: dict[str, str]) -> dict[str, Any]:
    runs = []
    for _ in range(5):
        proc = subprocess.run([PYTHON, "-X", "importtime", *argv], input=stdin,
                              capture_output=True, env=env, check=True)
        rows = []
        for line in proc.stderr.decode().splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, cumulative, name = line[len("import time:"):].split("|")
            rows.append((name.rstrip(), int(self_us), int(cumulative)))
        runs.append(rows)
    # The run with the median total stands for all (import times are noisy on a shared box).
    runs.sort(key=lambda rows: sum(r[1] for r in rows))
    rows = runs[len(runs) // 2]
    names = [name.strip() for name, _, _ in rows]
    ours = sum(s for name, s, _ in rows if name.strip().startswith("arcguard"))
    return {
        "modules": len(rows),
        "total_self_ms": round(sum(s for _, s, _ in rows) / 1000, 2),
        "arcguard_self_ms": round(ours / 1000, 2),
        "loaded": names,
        "slowest": [{"module": name.strip(), "self_ms": round(s / 1000, 2),
                     "cumulative_ms": round(c / 1000, 2)}
                    for name, s, c in sorted(rows, key=lambda r: -r[1])[:12]],
        "heavy_absent": {m: m not in names for m in
                         ("click", "orjson", "filelock", "json", "re", "typing", "tomllib",
                          "dataclasses", "enum")},
    }


# --- forensics ------------------------------------------------------------------------------

BARE_LOOP = """
import sys, orjson
lines = bad = 0
for name in sys.argv[1:]:
    with open(name, "rb") as handle:
        for line in handle:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                bad += 1
            lines += 1
print(lines, bad)
"""


def forensics_available() -> str | None:
    """None when `arcguard forensics` can be measured, else why not."""
    if importlib.util.find_spec("arcguard.forensics") is None:
        return "arcguard.forensics is not in this tree yet"
    if importlib.util.find_spec("arcguard.commands.forensics") is None:
        return "the `arcguard forensics` command module is not in this tree yet"
    return None


def bench_forensics(root: Path, env: dict[str, str], *, total: int, rounds: int,
                    ) -> dict[str, Any]:
    why = forensics_available()
    if why is not None:
        return {"skipped": why}
    corpus = root / "corpus"
    corpus.mkdir()
    files = []
    per_file = total // 8
    for i in range(8):
        path = corpus / f"session-{i}.jsonl"
        write_transcript(path, per_file, final_text="Done: the loader is wired.")
        files.append(str(path))
    size = sum(os.path.getsize(f) for f in files)
    commands = {"forensics": [SCRIPT, "forensics", str(corpus), "--json"],
                "bare orjson loop": [PYTHON, "-c", BARE_LOOP, *files]}
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(rounds + 1):
        order = list(commands.items()) if i % 2 == 0 else list(reversed(commands.items()))
        for name, argv in order:
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, env=env)
            elapsed = time.perf_counter() - start
            if proc.returncode not in (0, 1):
                return {"skipped": f"{name} failed: exit {proc.returncode}: "
                                   f"{proc.stderr.decode()[-300:]}"}
            if i:  # round 0 is the warm-up (page cache, pyc)
                times[name].append(elapsed)
    result: dict[str, Any] = {"corpus_mb": round(size / 2**20, 1), "files": len(files)}
    for name, values in times.items():
        med = statistics.median(values)
        result[name] = {"median_s": round(med, 3), "mb_per_s": round(size / 2**20 / med, 1)}
    result["ratio"] = round(statistics.median(times["bare orjson loop"])
                            / statistics.median(times["forensics"]), 2)
    return result


# --- the run --------------------------------------------------------------------------------


def child_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ARCGUARD_", "PYTHON", "XDG_"))}
    env.update(HOME=str(root / "home"), ARCGUARD_HOME=str(root / "state"),
               ARCGUARD_CONFIG=str(root / "no-config.toml"),
               XDG_STATE_HOME=str(root / "xdg-state"), XDG_CONFIG_HOME=str(root / "xdg-config"))
    (root / "home").mkdir(exist_ok=True)
    return env


def launchers() -> dict[str, list[str]]:
    found = {"module": [PYTHON, "-m", "arcguard", "hook"]}
    if os.path.exists(SCRIPT):
        found["script"] = [SCRIPT, "hook"]
    return found


def bench_hooks(root: Path, env: dict[str, str], home: str, state_path: str, *,
                warmup: int, rounds: int) -> dict[str, Any]:
    small = root / "small.jsonl"
    write_transcript(small, 10 * 1024)
    batch_path = root / "batch.jsonl"
    batch = payloads(root, small, batch_path, batch_transcript(batch_path))
    arc = arc_state(home)
    base = Variant("python -c pass", [PYTHON, "-c", "pass"])
    variants = [base]
    for launcher, argv in launchers().items():
        for name, payload in batch.items():
            variants.append(Variant(f"{name} [{launcher}]", [*argv, HOOK_OF[name]],
                                    json.dumps(payload).encode(), arc))
    measure(variants, env, state_path, warmup=warmup, rounds=rounds)
    return {v.name: summary(v, None if v is base else base) for v in variants}


def bench_sizes(root: Path, env: dict[str, str], home: str, state_path: str, *,
                sizes: dict[str, int], warmup: int, rounds: int) -> dict[str, Any]:
    arc = arc_state(home)
    variants = []
    actual = {}
    for label, size in sizes.items():
        path = root / f"transcript-{label}.jsonl"
        actual[label] = write_transcript(path, size)
        payload = {"session_id": SESSION, "transcript_path": str(path), "cwd": str(root),
                   "hook_event_name": "Stop", "stop_hook_active": False,
                   "background_tasks": [], "session_crons": []}
        variants.append(Variant(label, [PYTHON, "-m", "arcguard", "hook", "stop"],
                                json.dumps(payload).encode(), arc))
    os.sync()  # no writeback of the fresh files during the measurement
    measure(variants, env, state_path, warmup=warmup, rounds=rounds)
    base = variants[0]
    result = {v.name: {**summary(v, base), "bytes": actual[v.name]} for v in variants}
    for path in root.glob("transcript-*.jsonl"):
        path.unlink()  # up to 200 MB each: do not keep them around
    return result


def bench_history(root: Path, env: dict[str, str], home: str, state_path: str, *,
                  warmup: int, rounds: int) -> dict[str, Any]:
    full, figures = max_history_state(home)
    payload = payloads(root, root / "small.jsonl", root / "batch.jsonl",
                       ("toolu_x", {}))["pre-tool"]
    payload["tool_input"] = {"command": "ruff check src/ --fix", "description": "Lint"}
    stdin = json.dumps(payload).encode()
    argv = [PYTHON, "-m", "arcguard", "hook", "pre-tool"]
    empty = Variant("empty state", argv, stdin, b"")
    loaded = Variant("max history", argv, stdin, full)
    measure([empty, loaded], env, state_path, warmup=warmup, rounds=rounds)
    return {"empty state": summary(empty, None),
            "max history": {**summary(loaded, empty), **figures, "state_bytes": len(full)}}


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "cpu": cpu, "cpus": os.cpu_count(),
            "load_avg_at_start": [round(x, 2) for x in os.getloadavg()]}


def verdicts(result: dict[str, Any], launcher: str) -> list[dict[str, Any]]:
    rows = []
    for name in BUDGETED:
        ratio = result["hooks"][f"{name} [{launcher}]"]["ratio"]
        rows.append({"check": f"{name} median / bare python", "value": ratio,
                     "budget": HOOK_RATIO_BUDGET, "ok": ratio <= HOOK_RATIO_BUDGET})
    sizes = result["transcript_sizes"]
    largest = list(sizes)[-1]
    rows.append({"check": f"stop on {largest} / on {next(iter(sizes))}",
                 "value": sizes[largest]["ratio"], "budget": SIZE_RATIO_BUDGET,
                 "ok": sizes[largest]["ratio"] <= SIZE_RATIO_BUDGET})
    peak = max(v["peak_rss_mb"] for group in ("hooks", "transcript_sizes", "history")
               for k, v in result[group].items() if k != "python -c pass")
    rows.append({"check": "peak RSS of any hook (MB)", "value": peak, "budget": RSS_BUDGET_MB,
                 "ok": peak < RSS_BUDGET_MB})
    forensics = result["forensics"]
    if "ratio" in forensics:
        rows.append({"check": "forensics throughput / bare orjson loop",
                     "value": forensics["ratio"], "budget": FORENSICS_RATIO_BUDGET,
                     "ok": forensics["ratio"] >= FORENSICS_RATIO_BUDGET})
    return rows


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    out = [f"Machine: {m['cpu']}, {m['cpus']} CPUs, Python {m['python']}, "
           f"load at start {m['load_avg_at_start']}; {result['rounds']} rounds per variant.", "",
           "| hook (launcher) | median ms | p95 ms | CPU ms | peak RSS MB | ratio | "
           "p95 ratio | CPU ratio | output |", "|---|---|---|---|---|---|---|---|---|"]
    for name, row in result["hooks"].items():
        out.append(f"| {name} | {row['median_ms']} | {row['p95_ms']} | {row['cpu_ms']} | "
                   f"{row['peak_rss_mb']} | {row.get('ratio', 1.0)} | "
                   f"{row.get('p95_ratio', 1.0)} | {row.get('cpu_ratio', 1.0)} | "
                   f"{', '.join(row['output'])} |")
    out += ["", "| stop, transcript path only | file MB | median ms | peak RSS MB | ratio |",
            "|---|---|---|---|---|"]
    for name, row in result["transcript_sizes"].items():
        out.append(f"| {name} | {row['bytes'] / 2**20:.2f} | {row['median_ms']} | "
                   f"{row['peak_rss_mb']} | {row.get('ratio', 1.0)} |")
    hist = result["history"]
    out += ["", "| pre-tool state | median ms | state KB | ratio |", "|---|---|---|---|",
            f"| empty | {hist['empty state']['median_ms']} | 0 | 1.0 |",
            f"| {hist['max history']['operations']} ops, {hist['max history']['fingerprints']} "
            f"fingerprints, {hist['max history']['log']} log entries | "
            f"{hist['max history']['median_ms']} | {hist['max history']['state_bytes'] // 1024} | "
            f"{hist['max history']['ratio']} |"]
    forensics = result["forensics"]
    out.append("")
    if "skipped" in forensics:
        out.append(f"forensics: skipped ({forensics['skipped']})")
    else:
        out.append(f"forensics over {forensics['corpus_mb']} MB: "
                   f"{forensics['forensics']['mb_per_s']} MB/s vs bare orjson loop "
                   f"{forensics['bare orjson loop']['mb_per_s']} MB/s: ratio {forensics['ratio']}")
    imp = result["import_cost"]["module"]
    out.append(f"hook path imports (pre-tool, -m): {imp['modules']} modules, "
               f"{imp['total_self_ms']} ms self time, {imp['arcguard_self_ms']} ms in arcguard; "
               f"absent: {', '.join(k for k, v in imp['heavy_absent'].items() if v)}")
    out += ["", f"Budgets (launcher: {result['budget_launcher']}):", "",
            "| check | value | budget | ok |", "|---|---|---|---|"]
    for row in result["verdicts"]:
        out.append(f"| {row['check']} | {row['value']} | {row['budget']} | "
                   f"{'yes' if row['ok'] else 'NO'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer rounds, a 20 MB instead of a 200 MB transcript, small corpus")
    parser.add_argument("--out", default="bench-result.json", help="where to write the JSON")
    args = parser.parse_args(argv)
    if sys.prefix == sys.base_prefix:
        print("warning: not running in a virtualenv; use the project's .venv/bin/python",
              file=sys.stderr)
    rounds, warmup = (8, 2) if args.quick else (30, 3)
    big = ("20 MB", 20 * 2**20) if args.quick else ("200 MB", 200 * 2**20)
    root = Path(tempfile.mkdtemp(prefix="arcguard-bench-"))
    try:
        env = child_env(root)
        home = env["ARCGUARD_HOME"]
        os.environ.update({k: env[k] for k in ("ARCGUARD_HOME", "ARCGUARD_CONFIG", "HOME")})
        from arcguard import paths

        state_path = paths.session_path(home, SESSION)
        result: dict[str, Any] = {"machine": machine(), "rounds": rounds, "quick": args.quick,
                                  "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        print("hooks ...", file=sys.stderr)
        result["hooks"] = bench_hooks(root, env, home, state_path, warmup=warmup, rounds=rounds)
        print("transcript sizes ...", file=sys.stderr)
        result["transcript_sizes"] = bench_sizes(
            root, env, home, state_path, warmup=warmup, rounds=rounds,
            sizes={"10 KB": 10 * 1024, "10 MB": 10 * 2**20, big[0]: big[1]})
        print("state history ...", file=sys.stderr)
        result["history"] = bench_history(root, env, home, state_path, warmup=warmup,
                                          rounds=rounds)
        print("import cost ...", file=sys.stderr)
        stdin = json.dumps(payloads(root, root / "small.jsonl", root / "batch.jsonl",
                                    ("t", {}))["pre-tool"]).encode()
        arc_state(home)
        result["import_cost"] = {
            "module": import_cost(["-m", "arcguard", "hook", "pre-tool"], stdin, env),
            "script": import_cost([SCRIPT, "hook", "pre-tool"], stdin, env),
            "bare": import_cost(["-c", "pass"], b"", env)}
        print("forensics ...", file=sys.stderr)
        result["forensics"] = bench_forensics(
            root, env, total=(40 if args.quick else 200) * 2**20, rounds=2 if args.quick else 3)
        # `arcguard install` writes `<python> -m arcguard hook X`: the budget applies to it.
        result["budget_launcher"] = "module"
        result["verdicts"] = verdicts(result, "module")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(markdown(result))
    return 0 if all(row["ok"] for row in result["verdicts"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
