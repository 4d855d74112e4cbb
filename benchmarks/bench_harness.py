"""The benchmark's harness: fresh processes, interleaved rounds, CPU, wall time and peak RSS."""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_data import HOOK_OF
from bench_data import SESSION
from bench_data import arc_state
from bench_data import batch_transcript
from bench_data import max_history_state
from bench_data import payloads
from bench_data import status_payload
from bench_data import write_transcript


PYTHON = sys.executable
SCRIPT = str(Path(PYTHON).parent / "arcguard")


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
        return [PYTHON, "-c", PROBE, *argv[argv.index("hook") :]]
    if argv[-1:] == ["statusline"]:
        return [PYTHON, "-c", PROBE, "statusline"]
    return [PYTHON, "-c", PROBE]


class Variant:
    def __init__(
        self, name: str, argv: list[str], stdin: bytes = b"", state: bytes | None = None
    ) -> None:
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
    proc = subprocess.run(
        probe_argv(variant.argv), input=variant.stdin, capture_output=True, env=env, check=True
    )
    for line in proc.stderr.decode().splitlines():
        if line.startswith("VmHWM "):
            variant.rss.append(int(line.split()[1]) / 1024)


def run_once(variant: Variant, env: dict[str, str], state_path: str) -> None:
    restore(variant, state_path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        variant.argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
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
    variant.cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    variant.outputs.add(_shape(out))


def _shape(out: bytes) -> str:
    """What a hook printed, in a word: nothing, or the decision it carries."""
    if not out.strip():
        return "none"
    text = out.decode("utf-8", "replace")
    if not text.lstrip().startswith("{"):
        return "text"  # the status line prints a line, not JSON
    for word in ("deny", "block", "additionalContext", "continue"):
        if word in text:
            return word
    return "json"


def measure(
    variants: list[Variant], env: dict[str, str], state_path: str, *, warmup: int, rounds: int
) -> None:
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
    result = {
        "n": len(variant.wall),
        "median_ms": round(med, 2),
        "p95_ms": round(p95(variant.wall), 2),
        "cpu_ms": round(cpu, 2),
        "peak_rss_mb": round(max(variant.rss), 1),
        "output": sorted(variant.outputs),
    }
    if base is not None:
        result["ratio"] = round(med / statistics.median(base.wall), 2)
        result["p95_ratio"] = round(p95(variant.wall) / p95(base.wall), 2)
        result["cpu_ratio"] = round(cpu / statistics.median(base.cpu), 2)
    return result


# --- import cost ----------------------------------------------------------------------------


def import_cost(argv: list[str], stdin: bytes, env: dict[str, str]) -> dict[str, Any]:
    runs = []
    for _ in range(5):
        proc = subprocess.run(
            [PYTHON, "-X", "importtime", *argv],
            input=stdin,
            capture_output=True,
            env=env,
            check=True,
        )
        rows = []
        for line in proc.stderr.decode().splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, cumulative, name = line[len("import time:") :].split("|")
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
        "slowest": [
            {
                "module": name.strip(),
                "self_ms": round(s / 1000, 2),
                "cumulative_ms": round(c / 1000, 2),
            }
            for name, s, c in sorted(rows, key=lambda r: -r[1])[:12]
        ],
        "heavy_absent": {
            m: m not in names
            for m in (
                "click",
                "orjson",
                "filelock",
                "json",
                "re",
                "typing",
                "tomllib",
                "dataclasses",
                "enum",
            )
        },
    }


# What a hook's own modules cost to import, timed inside the child (so the interpreter's
# start, the same for every variant, is left out): the entry point, the runner and one hook
# module, through the installed launcher's code with and without its image (the launcher up to
# where it imports the entry point and runs it).
IMPORT_TIMER = """
import os, sys, time
start = time.perf_counter()
exec(compile(open(sys.argv[1]).read().split("try:\\n    from arcguard.main")[0], sys.argv[1],
     "exec"))
import arcguard.main, arcguard.hooks.runner
__import__(sys.argv[2])
spent = time.perf_counter() - start
print(spent * 1000, sum(1 for m in sys.modules if m.split(".")[0] == "arcguard"))
"""


def import_time(root: Path, *, rounds: int) -> dict[str, Any]:
    """Median milliseconds and modules of importing each hook's modules in a fresh
    `python -I -S` process, through the launcher with its image and without, interleaved."""
    launchers = {
        "image": installed_launcher(root)[5],
        "no image": bare_launcher(root)[5],
    }
    result: dict[str, Any] = {}
    for hook in ("pre_tool", "post_batch"):
        times: dict[str, list[float]] = {name: [] for name in launchers}
        modules = {}
        for i in range(rounds + 2):
            order = list(launchers.items()) if i % 2 else list(reversed(launchers.items()))
            for name, launcher in order:
                argv = [PYTHON, "-I", "-S", "-c", IMPORT_TIMER, launcher, f"arcguard.hooks.{hook}"]
                done = subprocess.run(argv, capture_output=True, text=True, check=True)
                spent, count = done.stdout.split()
                if i >= 2:  # two warm-up rounds
                    times[name].append(float(spent))
                modules[name] = int(count)
        result[hook] = {
            name: {"median_ms": round(statistics.median(v), 2), "modules": modules[name]}
            for name, v in times.items()
        }
    return result


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


def bench_forensics(
    root: Path,
    env: dict[str, str],
    *,
    total: int,
    rounds: int,
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
    commands = {
        "forensics": [SCRIPT, "forensics", str(corpus), "--json"],
        "bare orjson loop": [PYTHON, "-c", BARE_LOOP, *files],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(rounds + 1):
        order = list(commands.items()) if i % 2 == 0 else list(reversed(commands.items()))
        for name, argv in order:
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, env=env)
            elapsed = time.perf_counter() - start
            if proc.returncode not in (0, 1):
                return {
                    "skipped": f"{name} failed: exit {proc.returncode}: "
                    f"{proc.stderr.decode()[-300:]}"
                }
            if i:  # round 0 is the warm-up (page cache, pyc)
                times[name].append(elapsed)
    result: dict[str, Any] = {"corpus_mb": round(size / 2**20, 1), "files": len(files)}
    for name, values in times.items():
        med = statistics.median(values)
        result[name] = {"median_s": round(med, 3), "mb_per_s": round(size / 2**20 / med, 1)}
    result["ratio"] = round(
        statistics.median(times["bare orjson loop"]) / statistics.median(times["forensics"]), 2
    )
    return result


# --- the run --------------------------------------------------------------------------------


def child_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARCGUARD_", "PYTHON", "XDG_"))}
    env.update(
        HOME=str(root / "home"),
        ARCGUARD_HOME=str(root / "state"),
        ARCGUARD_CONFIG=str(root / "no-config.toml"),
        XDG_STATE_HOME=str(root / "xdg-state"),
        XDG_CONFIG_HOME=str(root / "xdg-config"),
    )
    (root / "home").mkdir(exist_ok=True)
    return env


def _location() -> str:
    import arcguard

    return os.path.dirname(os.path.dirname(os.path.abspath(arcguard.__file__)))


def installed_launcher(root: Path) -> list[str]:
    """The command `arcguard install` writes for this interpreter, up to `hook NAME`: the
    stub, and the launcher file with the code image beside it, both in a private folder under
    `root` (made on the first call)."""
    from arcguard import hook_image
    from arcguard.claude_settings import launch_forms

    folder = root / "launcher"
    launcher, image = folder / launch_forms.LAUNCHER_NAME, folder / hook_image.IMAGE_NAME
    if not launcher.exists():
        folder.mkdir(mode=0o700)
        launcher.write_text(launch_forms.launcher_text(_location(), str(image)))
        hook_image.write(str(image))
    words = launch_forms.short_prefix(PYTHON, str(launcher))
    assert words is not None
    return list(words)


def bare_launcher(root: Path) -> list[str]:
    """The launcher file of the previous release: the same stub and launcher, no image."""
    from arcguard.claude_settings import launch_forms

    folder = root / "bare-launcher"
    launcher = folder / launch_forms.LAUNCHER_NAME
    if not launcher.exists():
        folder.mkdir(mode=0o700)
        launcher.write_text(launch_forms.launcher_text(_location()))
    words = launch_forms.short_prefix(PYTHON, str(launcher))
    assert words is not None
    return list(words)


def one_liner() -> list[str]:
    """The long form install writes where no launcher file can be: launch code in `-c`."""
    import shlex

    from arcguard.claude_settings import launch_forms

    return shlex.split(launch_forms.own_prefix(PYTHON, _location()))


def launchers(root: Path) -> dict[str, list[str]]:
    found = {
        "installed": [*installed_launcher(root), "hook"],
        "no image": [*bare_launcher(root), "hook"],
        "one-liner": [*one_liner(), "hook"],
        "module": [PYTHON, "-m", "arcguard", "hook"],
    }
    if os.path.exists(SCRIPT):
        found["script"] = [SCRIPT, "hook"]
    return found


def bench_hooks(
    root: Path, env: dict[str, str], home: str, state_path: str, *, warmup: int, rounds: int
) -> dict[str, Any]:
    small = root / "small.jsonl"
    write_transcript(small, 10 * 1024)
    batch_path = root / "batch.jsonl"
    batch = payloads(root, small, batch_path, batch_transcript(batch_path))
    arc = arc_state(home)
    base = Variant("python -c pass", [PYTHON, "-c", "pass"])
    variants = [base]
    for launcher, argv in launchers(root).items():
        for name, payload in batch.items():
            variants.append(
                Variant(
                    f"{name} [{launcher}]",
                    [*argv, HOOK_OF[name]],
                    json.dumps(payload).encode(),
                    arc,
                )
            )
        # Claude Code runs the status line after every assistant message, as often as a hook.
        variants.append(
            Variant(
                f"statusline [{launcher}]",
                [*argv[:-1], "statusline"],
                json.dumps(status_payload(root)).encode(),
                arc,
            )
        )
    measure(variants, env, state_path, warmup=warmup, rounds=rounds)
    return {v.name: summary(v, None if v is base else base) for v in variants}


def bench_sizes(
    root: Path,
    env: dict[str, str],
    home: str,
    state_path: str,
    *,
    sizes: dict[str, int],
    warmup: int,
    rounds: int,
) -> dict[str, Any]:
    arc = arc_state(home)
    variants = []
    actual = {}
    for label, size in sizes.items():
        path = root / f"transcript-{label}.jsonl"
        actual[label] = write_transcript(path, size)
        payload = {
            "session_id": SESSION,
            "transcript_path": str(path),
            "cwd": str(root),
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "background_tasks": [],
            "session_crons": [],
        }
        variants.append(
            Variant(
                label, [PYTHON, "-m", "arcguard", "hook", "stop"], json.dumps(payload).encode(), arc
            )
        )
    os.sync()  # no writeback of the fresh files during the measurement
    measure(variants, env, state_path, warmup=warmup, rounds=rounds)
    base = variants[0]
    result = {v.name: {**summary(v, base), "bytes": actual[v.name]} for v in variants}
    for path in root.glob("transcript-*.jsonl"):
        path.unlink()  # up to 200 MB each: do not keep them around
    return result


def bench_history(
    root: Path, env: dict[str, str], home: str, state_path: str, *, warmup: int, rounds: int
) -> dict[str, Any]:
    full, figures = max_history_state(home)
    payload = payloads(root, root / "small.jsonl", root / "batch.jsonl", ("toolu_x", {}))[
        "pre-tool"
    ]
    payload["tool_input"] = {"command": "ruff check src/ --fix", "description": "Lint"}
    stdin = json.dumps(payload).encode()
    argv = [PYTHON, "-m", "arcguard", "hook", "pre-tool"]
    empty = Variant("empty state", argv, stdin, b"")
    loaded = Variant("max history", argv, stdin, full)
    measure([empty, loaded], env, state_path, warmup=warmup, rounds=rounds)
    return {
        "empty state": summary(empty, None),
        "max history": {**summary(loaded, empty), **figures, "state_bytes": len(full)},
    }
