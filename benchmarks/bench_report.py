"""The benchmark's verdicts against its budgets, and its Markdown tables."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import Any


# Budgets. Hooks run on every tool call, so a hook may cost little more than starting Python
# itself (a ratio to a bare `python -c pass` of the same run, which cancels out the machine);
# a stop must not slow down with the transcript's size (it reads a bounded tail); memory stays
# small; and forensics must keep up with a bare parse loop over the same files.
HOOK_RATIO_BUDGET = 2.5
HOOK_RATIO_AIM = 2.0
SIZE_RATIO_BUDGET = 1.1
RSS_BUDGET_MB = 40.0
FORENSICS_RATIO_BUDGET = 0.5
BUDGETED = ("pre-tool", "post-tool", "post-batch", "stop (message)", "statusline")


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "load_avg_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def verdicts(result: dict[str, Any], launcher: str) -> list[dict[str, Any]]:
    rows = []
    for name in BUDGETED:
        ratio = result["hooks"][f"{name} [{launcher}]"]["ratio"]
        rows.append(
            {
                "check": f"{name} median / bare python",
                "value": ratio,
                "budget": HOOK_RATIO_BUDGET,
                "ok": ratio <= HOOK_RATIO_BUDGET,
            }
        )
    sizes = result["transcript_sizes"]
    largest = list(sizes)[-1]
    rows.append(
        {
            "check": f"stop on {largest} / on {next(iter(sizes))}",
            "value": sizes[largest]["ratio"],
            "budget": SIZE_RATIO_BUDGET,
            "ok": sizes[largest]["ratio"] <= SIZE_RATIO_BUDGET,
        }
    )
    peak = max(
        v["peak_rss_mb"]
        for group in ("hooks", "transcript_sizes", "history")
        for k, v in result[group].items()
        if k != "python -c pass"
    )
    rows.append(
        {
            "check": "peak RSS of any hook (MB)",
            "value": peak,
            "budget": RSS_BUDGET_MB,
            "ok": peak < RSS_BUDGET_MB,
        }
    )
    forensics = result["forensics"]
    if "ratio" in forensics:
        rows.append(
            {
                "check": "forensics throughput / bare orjson loop",
                "value": forensics["ratio"],
                "budget": FORENSICS_RATIO_BUDGET,
                "ok": forensics["ratio"] >= FORENSICS_RATIO_BUDGET,
            }
        )
    return rows


def markdown(result: dict[str, Any]) -> str:
    m = result["machine"]
    out = [
        f"Machine: {m['cpu']}, {m['cpus']} CPUs, Python {m['python']}, "
        f"load at start {m['load_avg_at_start']}; {result['rounds']} rounds per variant.",
        "",
        "| hook (launcher) | median ms | p95 ms | CPU ms | peak RSS MB | ratio | "
        "p95 ratio | CPU ratio | output |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, row in result["hooks"].items():
        out.append(
            f"| {name} | {row['median_ms']} | {row['p95_ms']} | {row['cpu_ms']} | "
            f"{row['peak_rss_mb']} | {row.get('ratio', 1.0)} | "
            f"{row.get('p95_ratio', 1.0)} | {row.get('cpu_ratio', 1.0)} | "
            f"{', '.join(row['output'])} |"
        )
    out += [
        "",
        "| stop, transcript path only | file MB | median ms | peak RSS MB | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["transcript_sizes"].items():
        out.append(
            f"| {name} | {row['bytes'] / 2**20:.2f} | {row['median_ms']} | "
            f"{row['peak_rss_mb']} | {row.get('ratio', 1.0)} |"
        )
    hist = result["history"]
    out += [
        "",
        "| pre-tool state | median ms | state KB | ratio |",
        "|---|---|---|---|",
        f"| empty | {hist['empty state']['median_ms']} | 0 | 1.0 |",
        f"| {hist['max history']['operations']} ops, {hist['max history']['fingerprints']} "
        f"fingerprints, {hist['max history']['log']} log entries | "
        f"{hist['max history']['median_ms']} | {hist['max history']['state_bytes'] // 1024} | "
        f"{hist['max history']['ratio']} |",
    ]
    forensics = result["forensics"]
    out.append("")
    if "skipped" in forensics:
        out.append(f"forensics: skipped ({forensics['skipped']})")
    else:
        out.append(
            f"forensics over {forensics['corpus_mb']} MB: "
            f"{forensics['forensics']['mb_per_s']} MB/s vs bare orjson loop "
            f"{forensics['bare orjson loop']['mb_per_s']} MB/s: ratio {forensics['ratio']}"
        )
    imp = result["import_cost"]["installed"]
    out.append(
        f"hook path imports (pre-tool, as installed): {imp['modules']} modules, "
        f"{imp['total_self_ms']} ms self time, {imp['arcguard_self_ms']} ms in arcguard; "
        f"absent: {', '.join(k for k, v in imp['heavy_absent'].items() if v)}"
    )
    for hook, row in result.get("import_time", {}).items():
        shown = ", ".join(
            f"{name} {v['median_ms']} ms ({v['modules']} modules)" for name, v in row.items()
        )
        out.append(f"importing arcguard for {hook}, timed in the child: {shown}")
    out += [
        "",
        f"Budgets (launcher: {result['budget_launcher']}):",
        "",
        "| check | value | budget | ok |",
        "|---|---|---|---|",
    ]
    for row in result["verdicts"]:
        out.append(
            f"| {row['check']} | {row['value']} | {row['budget']} | "
            f"{'yes' if row['ok'] else 'NO'} |"
        )
    return "\n".join(out)
