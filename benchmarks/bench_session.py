"""What arcguard adds to every tool call of a real Claude Code session, end to end.

Run with the project's own interpreter (the one arcguard is installed in):

    .venv/bin/python benchmarks/bench_session.py [--quick] [--calls N] [--rounds R] [--out FILE]
        [--only WIRING[,WIRING...]] [--baseline PYTHON]

The real Claude Code CLI (`.cache/claude-code`, or $ARCGUARD_CLAUDE_BIN) runs headless against a
scripted Messages API on loopback: N turns of one distinct Bash call each, then a final answer.
The same session runs with four wirings of the settings file:

- `none`: no hooks at all, the baseline;
- `true`: the events `arcguard install` wires, each running `true` on every tool (Claude Code's
  own cost of running a command hook: the floor for any hook);
- `python`: the same events, each running a bare `python -c pass` with the interpreter install
  records, on every tool: three bare Python processes per tool call (PreToolUse, PostToolUse,
  PostToolBatch), the yardstick the budget is stated in;
- `arcguard`: the hooks exactly as `arcguard install` writes them (PostToolUse only for the
  editing tools, so two processes per call of any other tool);
- `no-image`: the same, with no code image beside the launcher (`arcguard.hook_image`): each
  hook imports arcguard's modules one by one, as before install wrote the image;
- `one-liner`: the same hooks in the long form earlier releases of arcguard wrote (the
  launcher code inline in every entry), to compare the two entry forms in one run;
- `http`: the `true` wiring with every event Claude Code sends over http made an http hook to
  a loopback server in this process that answers at once with no decision (Claude Code's own
  cost of an http hook: the floor resident mode is measured against);
- `resident`: the hooks exactly as `arcguard install --resident` writes them, with the
  resident server already running (started before the session, as it is after a session's
  first SessionStart has started it);
- `sdk-none`, `sdk-noop` and `sdk`: the session driven by a Claude Agent SDK application,
  without hooks, with callbacks that do nothing for arcguard's events, and with
  `arcguard.sdk`'s in-process hooks (`sdk_session.py`); the `sdk` figure is measured against
  `sdk-none`, and `sdk-noop` shows how much of it is the SDK's own round trip to a hook.

`--only` runs some of the wirings (with `none`, and whatever each needs for its verdict:
`true` for `resident`, `sdk-none` and `true` for `sdk`, `python` for `arcguard`), so one
mode's work can be measured in less time; a verdict whose wirings did not run is not given.

`--baseline PYTHON` adds `resident-baseline` and `sdk-baseline`: the resident and SDK wirings
with another interpreter's arcguard (another checkout's environment, say) installing the
hooks, running the server and driving the SDK session, in the same rounds as this one's, so
that two versions of the per-request code are compared under the same load.

Every round runs each wiring once, in an order that rotates between rounds so background load
hits them all alike; each run gets a fresh HOME, project and state directory. A wiring's figure
is its median wall time minus the `none` median, divided by N: the added milliseconds per tool
call (the hooks that run once per session are spread over the N calls). The verdict compares
arcguard to the `python` wiring of the same run: arcguard's whole wiring may add no more per
tool call than three bare Python hooks, and the resident wiring no more than 1.5 times what
the `true` wiring adds, and the SDK wiring no more than two `true` hooks (two thirds of the
`true` wiring, which runs three per call). Exit 1 if any is over, 2 if a run fails.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import sdk_session  # noqa: E402
from cli_env import offline_env  # type: ignore[import-not-found]  # noqa: E402
from scripted_api import ScriptedAPI  # type: ignore[import-not-found]  # noqa: E402
from scripted_api import text  # noqa: E402
from scripted_api import tool_use  # noqa: E402


DEFAULT_CLAUDE = REPO / ".cache" / "claude-code" / "node_modules" / ".bin" / "claude"
WIRINGS = (
    "none",
    "true",
    "python",
    "arcguard",
    "no-image",
    "one-liner",
    "http",
    "resident",
    "sdk-none",
    "sdk-noop",
    "sdk",
)
RUN_TIMEOUT_S = 600.0
HEADLESS = ["-p", "Run the scripted calls.", "--output-format", "json"]
# Arcguard's wiring may cost at most this multiple of the bare-Python wiring, per tool call.
BUDGET_RATIO = 1.0
# The resident wiring may cost at most this multiple of the `true` wiring, per tool call.
RESIDENT_BUDGET_RATIO = 1.5
# Events Claude Code does not send over http: they stay command hooks in the http wirings.
COMMAND_ONLY = frozenset({"SessionStart"})


# Where install's launcher file stays for the whole run: every session's entries name it. The
# second holds the same launcher without its code image beside it (the `no-image` wiring):
# arcguard's modules import one by one, as they did before install wrote the image.
_LAUNCHER_HOME = tempfile.TemporaryDirectory(prefix="bench-session-launcher-")
_BARE_HOME = tempfile.TemporaryDirectory(prefix="bench-session-bare-")


@functools.cache
def _installed(claude: Path, *, image: bool = True) -> str:
    from arcguard import hook_image

    home = _LAUNCHER_HOME.name if image else _BARE_HOME.name
    with tempfile.TemporaryDirectory(prefix="bench-session-install-") as scratch:
        root = Path(scratch)
        _install(claude, root, home, "--scope", "project", "--project", str(root))
        if not image:
            (Path(home) / hook_image.IMAGE_NAME).unlink()
        return (root / ".claude" / "settings.json").read_text()


# The interpreter whose arcguard the `-baseline` wirings run (`--baseline`).
BASELINE = "-baseline"
_BASELINE_PYTHON: list[str] = []


def kind(wiring: str) -> str:
    """The wiring a `-baseline` wiring runs with the other interpreter."""
    return wiring.removesuffix(BASELINE)


def python_of(wiring: str) -> str:
    return _BASELINE_PYTHON[0] if wiring.endswith(BASELINE) else sys.executable


def _install(
    claude: Path, root: Path, state: str, *args: str, python: str = sys.executable
) -> None:
    """`arcguard install ARGS` from `root`, with a home of its own under it, `state` as the
    state directory and the CLI under test on PATH (install wires the events its release
    knows)."""
    (root / "home").mkdir()
    path = f"{claude.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "HOME": str(root / "home"), "PATH": path, "ARCGUARD_HOME": state}
    subprocess.run(
        [python, "-m", "arcguard", "install", *args],
        env=env,
        cwd=root,
        capture_output=True,
        check=True,
        timeout=120,
    )


@functools.cache
def _installed_resident(claude: Path, python: str = sys.executable) -> tuple[str, dict[str, bytes]]:
    """The settings `install --resident` writes (local scope) and the state files it makes."""
    from arcguard.resident import files

    with tempfile.TemporaryDirectory(prefix="bench-session-resident-") as scratch:
        root = Path(scratch)
        _install(claude, root, str(root / "state"), "--resident", "--scope", "local", python=python)
        state = {
            name: (root / "state" / name).read_bytes()
            for name in (files.SETTINGS_NAME, files.SECRET_NAME)
        }
        return (root / ".claude" / "settings.local.json").read_text(), state


def resident_settings(
    claude: Path = DEFAULT_CLAUDE, python: str = sys.executable
) -> dict[str, Any]:
    settings: dict[str, Any] = json.loads(_installed_resident(claude, python)[0])
    return settings


def arcguard_settings(claude: Path = DEFAULT_CLAUDE) -> dict[str, Any]:
    """The settings `arcguard install` writes into an empty project, run by this interpreter
    with `claude` on PATH."""
    settings: dict[str, Any] = json.loads(_installed(claude))
    return settings


def settings_for(wiring: str, claude: Path = DEFAULT_CLAUDE) -> dict[str, Any]:
    """The settings file of one wiring: install's events; the yardsticks run on every tool."""
    if kind(wiring) in ("none", *sdk_session.WIRINGS):
        return {}
    if kind(wiring) == "resident":
        return resident_settings(claude, python_of(wiring))
    if wiring == "no-image":
        bare: dict[str, Any] = json.loads(_installed(claude, image=False))
        return bare
    settings = arcguard_settings(claude)
    if wiring == "arcguard":
        return settings
    if wiring == "one-liner":
        return _one_liner(settings)
    command = "true" if wiring != "python" else shlex.join([sys.executable, "-c", "pass"])
    for event, groups in settings["hooks"].items():
        for group in groups:
            if "matcher" in group:
                group["matcher"] = "*"
            for handler in group["hooks"]:
                handler.pop("args", None)  # an exec-form entry: the yardstick is one line
                handler["command"] = command
            if wiring == "http" and event not in COMMAND_ONLY:
                group["hooks"][0] = {"type": "http", "url": f"{FLOOR_URL}/{event}", "timeout": 10}
    return settings


def _one_liner(settings: dict[str, Any]) -> dict[str, Any]:
    """`settings` with every arcguard entry in the long one-line form."""
    import arcguard
    from arcguard.claude_settings import launch_forms
    from arcguard.claude_settings import merge_plan

    location = os.path.dirname(os.path.dirname(os.path.abspath(arcguard.__file__)))
    prefix = launch_forms.own_prefix(sys.executable, location)
    for groups in settings["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                name = merge_plan.hook_name(handler)
                if name is not None:
                    handler.pop("args", None)
                    handler["command"] = launch_forms.hook_command(prefix, name)
    return settings


# Where the `http` wiring posts; the port is the floor server's, bound when the module loads
# so that the settings are known before any session starts.
class _AtOnce(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


_FLOOR = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AtOnce)
_FLOOR.daemon_threads = True
FLOOR_URL = f"http://127.0.0.1:{_FLOOR.server_address[1]}/hook"
threading.Thread(target=_FLOOR.serve_forever, daemon=True).start()


# Letters no volatile-token rule reads as a number or a hex id, so every call's output is new
# to the loop guard: the session measures cost, and must be one arcguard lets run to its end.
_LETTERS = "ghijklmnopqrstuvwxyz"


def _word(n: int) -> str:
    word = _LETTERS[n % len(_LETTERS)]
    while n >= len(_LETTERS):
        n = n // len(_LETTERS) - 1
        word = _LETTERS[n % len(_LETTERS)] + word
    return word


def script(calls: int) -> list[Any]:
    """N turns of one distinct Bash call each (each printing a word of its own: a session of
    `echo call-N` is a counter the loop guard rightly stops), then the final answer."""
    turns: list[Any] = [
        tool_use("Bash", {"command": f"echo {_word(n)}", "description": f"Print word {n}"})
        for n in range(calls)
    ]
    return [*turns, text("All calls are done.")]


def _environment(root: Path, base_url: str) -> dict[str, str]:
    env: dict[str, str] = offline_env(root / "home", root / "arcguard-home")
    env["ANTHROPIC_BASE_URL"] = base_url
    return env


def _prepare(root: Path, wiring: str, claude: Path) -> Path:
    project = root / "project"
    for directory in (root / "home", root / "arcguard-home", project / ".claude"):
        directory.mkdir(parents=True)
    settings = settings_for(wiring, claude)
    if settings:
        (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    if kind(wiring) == "resident":
        for name, data in _installed_resident(claude, python_of(wiring))[1].items():
            (root / "arcguard-home" / name).write_bytes(data)
            (root / "arcguard-home" / name).chmod(0o600)
    return project


@contextlib.contextmanager
def _resident_server(root: Path, wiring: str) -> Iterator[None]:
    """For the resident wiring, a server already running on the run's state directory."""
    if kind(wiring) != "resident":
        yield
        return
    from arcguard.resident import files

    home = root / "arcguard-home"
    env = {**_environment(root, "http://127.0.0.1:9"), "ARCGUARD_RESIDENT_IDLE_SECONDS": "600"}
    said = root / "serve.out"
    with said.open("wb") as out:
        server = subprocess.Popen(
            [python_of(wiring), "-m", "arcguard", "serve"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while files.server_info(str(home)) is None:
            if time.monotonic() > deadline or server.poll() is not None:
                why = said.read_text(errors="replace").strip()[-500:]
                raise RuntimeError(f"resident: the server did not start ({server.poll()}): {why}")
            time.sleep(0.02)
        yield
    finally:
        server.terminate()
        server.wait(timeout=30)


def _check(
    wiring: str, root: Path, done: subprocess.CompletedProcess[str], answered: int, calls: int
) -> str | None:
    """Why a run does not count (the session did not run as scripted), or None."""
    if done.returncode != 0:
        return f"claude exited {done.returncode}: {done.stderr.strip()[-300:]}"
    if answered != calls + 1:
        return f"{answered} model calls instead of {calls + 1}"
    if kind(wiring) in ("arcguard", "no-image", "one-liner", "resident", "sdk") and not any(
        (root / "arcguard-home" / "sessions").rglob("*.json")
    ):
        return "arcguard's hooks wrote no session state: the wiring did not run"
    return None


def _children_cpu() -> float:
    # Every process of the session (the CLI, its shells, the hooks) is reaped by its parent,
    # so their CPU time adds up in ours once the CLI has been waited for.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_session(claude: Path, wiring: str, calls: int) -> tuple[float, float]:
    """Wall and CPU seconds of one headless session with `wiring`; RuntimeError if it misran."""
    with tempfile.TemporaryDirectory(prefix=f"bench-session-{wiring}-") as scratch:
        root = Path(scratch)
        project = _prepare(root, wiring, claude)
        with _resident_server(root, wiring), ScriptedAPI(script(calls)) as api:
            args = [str(claude), *HEADLESS, "--permission-mode", "bypassPermissions"]
            if kind(wiring) in sdk_session.WIRINGS:
                args = sdk_session.argv(claude, kind(wiring), project, python_of(wiring))
            cpu = _children_cpu()
            started = time.perf_counter()
            done = subprocess.run(
                args,
                cwd=project,
                env=_environment(root, api.base_url),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=RUN_TIMEOUT_S,
                check=False,
            )
            elapsed = time.perf_counter() - started
            cpu = _children_cpu() - cpu
            answered = len(api.requests)
            _note_hook_times(wiring, root / "arcguard-home")
        problem = _check(wiring, root, done, answered, calls)
    if problem:
        raise RuntimeError(f"{wiring}: {problem}")
    return elapsed, cpu


Samples = dict[str, list[float]]

# wiring -> hook -> milliseconds of each of its runs, as arcguard recorded them in its
# `cost.log` (what `arcguard status --cost` reads): for a command hook, from the process's
# start to its answer; for a request to the resident server or an SDK hook, from the request
# to its answer. Where the wiring's added time goes, hook by hook.
HOOK_TIMES: dict[str, dict[str, list[float]]] = {}
# A hook run slower than this is counted apart: in-process answers take a few ms, so such a
# run waited for something (the transcript, a lock).
SLOW_MS = 10.0


def _note_hook_times(wiring: str, home: Path) -> None:
    from arcguard.storage import cost

    for (_, hook), micros in cost.read(str(home)).items():
        HOOK_TIMES.setdefault(wiring, {}).setdefault(hook, []).extend(m / 1000 for m in micros)


def hook_table(times: dict[str, dict[str, list[float]]]) -> list[str]:
    """The per-hook table of `render`: runs, median, 90th percentile and slowest, in ms, and
    the runs over SLOW_MS with the time they took, spread over all the hook's runs."""
    lines = [
        "| wiring | hook | runs | median | 90th percentile | slowest "
        f"| over {SLOW_MS:.0f} ms | their time per run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for wiring, hooks in times.items():
        for hook, values in sorted(hooks.items()):
            ranked = sorted(values)
            p90 = ranked[min(len(ranked) - 1, int(0.9 * len(ranked)))]
            slow = [value for value in ranked if value > SLOW_MS]
            lines.append(
                f"| {wiring} | {hook} | {len(ranked)} | {statistics.median(ranked):.1f} ms | "
                f"{p90:.1f} ms | {ranked[-1]:.1f} ms | {len(slow)} | "
                f"{sum(slow) / len(ranked):.1f} ms |"
            )
    return lines


# What each wiring's verdict compares it with.
NEEDS = {
    "arcguard": ("python",),
    "no-image": ("python",),
    "one-liner": ("python",),
    "resident": ("true",),
    "http": ("true",),
    "sdk": ("sdk-none", "true"),
}


def chosen(only: str | None) -> tuple[str, ...]:
    """The wirings `--only` names, with `none` and what their verdicts need, in WIRINGS order;
    ValueError for a name that is not a wiring."""
    if only is None:
        return WIRINGS
    named = {name.strip() for name in only.split(",") if name.strip()}
    unknown = sorted(named - set(WIRINGS))
    if unknown:
        raise ValueError(f"not a wiring: {', '.join(unknown)} (one of {', '.join(WIRINGS)})")
    wanted = {"none", *named}
    for name in named:
        wanted.update(NEEDS.get(name, ()))
    return tuple(wiring for wiring in WIRINGS if wiring in wanted)


def measure(
    claude: Path, calls: int, rounds: int, wirings: tuple[str, ...] = WIRINGS
) -> tuple[Samples, Samples]:
    """Wall and CPU seconds per wiring, one run of each per round, the order rotating."""
    wall: Samples = {wiring: [] for wiring in wirings}
    cpu: Samples = {wiring: [] for wiring in wirings}
    run_session(claude, "none", calls)  # warm-up: first start of node and the CLI's caches
    for round_ in range(rounds):
        order = wirings[round_ % len(wirings) :] + wirings[: round_ % len(wirings)]
        for wiring in order:
            elapsed, used = run_session(claude, wiring, calls)
            wall[wiring].append(elapsed)
            cpu[wiring].append(used)
    return wall, cpu


def added_per_call(samples: Samples, calls: int) -> dict[str, Any]:
    """Median seconds per wiring, and what each adds per tool call over `none`, in ms and as
    a ratio to the bare-Python wiring."""
    medians = {wiring: statistics.median(values) for wiring, values in samples.items()}
    added = {
        wiring: (medians[wiring] - medians["none"]) * 1000 / calls
        for wiring in medians
        if wiring != "none"
    }
    python = added.get("python", 0.0)
    ratios = {wiring: (value / python if python > 0 else None) for wiring, value in added.items()}
    return {"median_s": medians, "added_ms_per_call": added, "ratio_to_python": ratios}


def summarise(wall: Samples, cpu: Samples, calls: int) -> dict[str, Any]:
    # The verdict is on wall time, what users wait for; CPU time is shown beside it because a
    # busy machine stretches wall times far more than it changes the work done.
    # A verdict whose wirings did not run (`--only`) is not given, and does not fail the run.
    summary = added_per_call(wall, calls)
    added = summary["added_ms_per_call"]
    ratio = summary["ratio_to_python"].get("arcguard")
    floor = added.get("true", 0.0)
    resident = added["resident"] / floor if "resident" in added and floor > 0 else None
    within = (ratio is not None and ratio <= BUDGET_RATIO) or "arcguard" not in added
    resident_within = (
        resident is not None and resident <= RESIDENT_BUDGET_RATIO
    ) or "resident" not in added
    sdk = sdk_session.summary(summary["median_s"], floor, calls)
    if "resident" + BASELINE in added and floor > 0:
        sdk["resident_baseline_ratio_to_true"] = added["resident" + BASELINE] / floor
    if "sdk" + BASELINE in added:
        medians = {**summary["median_s"], "sdk": summary["median_s"]["sdk" + BASELINE]}
        baseline = sdk_session.summary(medians, floor, calls)
        sdk["sdk_baseline_ratio_to_two_true"] = baseline["sdk_ratio_to_two_true"]
        sdk["sdk_baseline_added_ms_per_call"] = baseline["sdk_added_ms_per_call"]
    return {
        **summary,
        "cpu": added_per_call(cpu, calls),
        "budget_ratio": BUDGET_RATIO,
        "resident_ratio_to_true": resident,
        "resident_budget_ratio": RESIDENT_BUDGET_RATIO,
        "command_within_budget": within,
        "resident_within_budget": resident_within,
        **sdk,
        "within_budget": within and resident_within and sdk["sdk_within_budget"],
    }


def _claude_version(claude: Path) -> str:
    done = subprocess.run(
        [str(claude), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    return done.stdout.strip()


def _ratio(summary: dict[str, Any], wiring: str) -> str:
    ratio = summary["ratio_to_python"][wiring]
    return "n/a" if ratio is None else f"{ratio:.2f}x"


def render(result: dict[str, Any]) -> str:
    summary = result["summary"]
    cpu = summary["cpu"]
    lines = [
        f"{result['claude']}, {result['calls']} Bash calls per session, "
        f"{result['rounds']} rounds, medians (no hooks: "
        f"{summary['median_s']['none']:.2f} s wall, {cpu['median_s']['none']:.2f} s CPU "
        "per session)",
        "",
        "| wiring | wall added per tool call | ratio to bare Python | CPU added per tool "
        "call | CPU ratio |",
        "|---|---|---|---|---|",
    ]
    for wiring, added in summary["added_ms_per_call"].items():
        lines.append(
            f"| {wiring} | {added:+.1f} ms | {_ratio(summary, wiring)} | "
            f"{cpu['added_ms_per_call'][wiring]:+.1f} ms | {_ratio(cpu, wiring)} |"
        )
    ran = summary["added_ms_per_call"]
    lines.append("")
    if "arcguard" in ran:
        verdict = "within" if summary["command_within_budget"] else "OVER"
        lines.append(
            f"arcguard vs bare Python: {verdict} budget (<= {summary['budget_ratio']:.1f}x)"
        )
    if "resident" in ran:
        resident = summary["resident_ratio_to_true"]
        shown = "n/a" if resident is None else f"{resident:.2f}x"
        verdict = "within" if summary["resident_within_budget"] else "OVER"
        lines.append(
            f"resident arcguard vs true: {shown}, {verdict} budget "
            f"(<= {summary['resident_budget_ratio']:.1f}x)"
        )
    lines.append(sdk_session.verdict(summary))
    if result.get("hook_ms"):
        lines += ["", "Each hook as arcguard recorded it (`arcguard status --cost`):", ""]
        lines += hook_table(result["hook_ms"])
    if "resident_baseline_ratio_to_true" in summary:
        lines.append(
            f"baseline resident vs true: {summary['resident_baseline_ratio_to_true']:.2f}x"
        )
    if summary.get("sdk_baseline_ratio_to_two_true") is not None:
        lines.append(
            f"baseline sdk vs sdk-none: {summary['sdk_baseline_added_ms_per_call']:+.1f} ms per "
            f"tool call, {summary['sdk_baseline_ratio_to_two_true']:.2f}x two true hooks"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 3 calls, 1 round (figures meaningless)"
    )
    parser.add_argument("--calls", type=int, default=30, help="Bash calls per session")
    parser.add_argument("--rounds", type=int, default=4, help="runs of each wiring")
    parser.add_argument(
        "--claude",
        type=Path,
        default=None,
        help="the Claude Code CLI (default: $ARCGUARD_CLAUDE_BIN or .cache)",
    )
    parser.add_argument("--out", default=None, help="also write the result as JSON here")
    parser.add_argument(
        "--baseline",
        default=None,
        metavar="PYTHON",
        help="also run the resident and SDK wirings with this interpreter's arcguard",
    )
    parser.add_argument(
        "--only",
        default=None,
        metavar="WIRING[,WIRING]",
        help="run only these wirings (with `none` and what their verdicts compare with)",
    )
    args = parser.parse_args(argv)
    try:
        wirings = chosen(args.only)
    except ValueError as exc:
        parser.error(str(exc))
    if args.baseline:
        _BASELINE_PYTHON[:] = [args.baseline]
        wirings += tuple(w + BASELINE for w in ("resident", "sdk") if w in wirings)
    calls, rounds = (3, 1) if args.quick else (args.calls, args.rounds)
    claude = args.claude or Path(os.environ.get("ARCGUARD_CLAUDE_BIN") or DEFAULT_CLAUDE)
    try:
        wall, cpu = measure(claude, calls, rounds, wirings)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"bench_session: {exc}", file=sys.stderr)
        return 2
    result: dict[str, Any] = {
        "claude": _claude_version(claude),
        "python": platform.python_version(),
        "interpreter": sys.executable,
        "calls": calls,
        "rounds": rounds,
        "wall_s": wall,
        "cpu_s": cpu,
        "summary": summarise(wall, cpu, calls),
        "hook_ms": HOOK_TIMES,
    }
    print(render(result))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if result["summary"]["within_budget"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
