"""The forensics report as text for a terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping

    from arcguard.forensics.histogram import Distribution
    from arcguard.forensics.limit_savings import SavingsDoc
    from arcguard.forensics.report import ApiErrors
    from arcguard.forensics.report import Handbacks
    from arcguard.forensics.report import ReportDoc
    from arcguard.forensics.report import Stalls


def _dist(d: Distribution) -> str:
    if not d["count"]:
        return "none"
    if "values" in d:  # too few for percentiles to mean anything
        return f"{d['count']} (values {', '.join(str(v) for v in d['values'])})"
    return f"{d['count']} (p50 {d['p50']}, p90 {d['p90']}, p99 {d['p99']}, max {d['max']})"


def _embedded(data: ReportDoc) -> str:
    n = data["subagents_in_parent_files"]
    return f" + {n} stored in their parent's file" if n else ""


def _pairs(items: Mapping[str, object]) -> str:
    return ", ".join(f"{k} {v}" for k, v in items.items()) or "none"


def render(data: ReportDoc) -> str:
    lines = [
        f"Transcripts: {data['files_scanned']} scanned ({data['sessions']} sessions,"
        f" {data['subagent_files']} subagent files{_embedded(data)},"
        f" {data['bytes_scanned'] / 1e6:.1f} MB,"
        f" {data['lines']} lines); skipped: {_pairs(data['skipped'])}",
        f"Malformed lines: {data['malformed_lines']}; unknown entry types:"
        f" {_pairs(data['unknown_entry_types'])}",
        f"Turns: {data['turns']} ({data['tool_turns']} with tool calls); operator prompts:"
        f" {data['operator_prompts']}; task notifications: {data['task_notifications']};"
        f" compactions: {data['compactions']}",
        "",
        f"Tool-only runs: {_dist(data['tool_only_runs'])}",
        "Longest repeat per period: "
        + ", ".join(f"{p}:{n}" for p, n in data["max_repeats_by_period"].items()),
        f"Runs the cycle rule would pause at the current config: {data['cycle_trips']['runs']}"
        + (
            f" (by period: {_pairs(data['cycle_trips']['by_period'])})"
            if data["cycle_trips"]["runs"]
            else ""
        ),
        f"Turns since the operator's last message: {_dist(data['turns_since_operator'])}",
        "",
        _stalls(data["stalls"]),
        _placeholders(data["local_command_placeholders"]),
        f"Operator continue-nudges: {data['continue_nudges']}",
        _errors(data["api_errors"]),
        _savings(data["limit_resume_savings"]),
        f"Stop-hook feedback entries: {data['stop_hook_feedback']}; turns ended by Claude"
        f" Code's Stop-hook cap, not completed: {data['stop_cap_overrides']}; arcguard footprint:"
        f" {_pairs(data['arcguard_footprint'])}",
    ]
    lines += _handbacks(data["handbacks"])
    if "thresholds" in data:
        lines += ["", "Suggested thresholds (never applied; set them in the config if you agree):"]
        for s in data["thresholds"]:
            suggested = "no data" if s["suggested"] is None else s["suggested"]
            lines.append(
                f"  {s['name']:<24} current {s['current']!s:<5} suggested"
                f" {suggested!s:<7} observed {s['observed']}  ({s['basis']})"
            )
    return "\n".join(lines)


def _stalls(s: Stalls) -> str:
    return (
        f"Stalls (final message empty or exactly 'No response requested.'): {s['total']}"
        f" ({s['synthetic']} synthetic); then: continue-nudge"
        f" {s['followed_by_continue_nudge']}, Stop hook {s['followed_by_stop_hook']},"
        f" other prompt {s['followed_by_other_prompt']},"
        f" session ended {s['at_end_of_session']}"
    )


def _placeholders(n: int) -> str:
    return f"Placeholders after local commands (/exit, /ide, ...; not stalls, no Stop runs): {n}"


def _handbacks(h: Handbacks) -> list[str]:
    replies = list(next(iter(h["table"].values())))
    lines = [
        "",
        "Where the operator's turns go (final message -> operator's reply):",
        "  " + f"{'':<16}" + "".join(f"{r:>28}" for r in replies),
    ]
    for stop, row in h["table"].items():
        lines.append("  " + f"{stop:<16}" + "".join(f"{row[r]:>28}" for r in replies))
    for policy, n in h["by_policy"].items():
        lines.append(
            f"  stop_policy {policy:<7} handbacks avoided {n['handbacks_avoided']},"
            f" decisions or corrections run over {n['decisions_or_corrections_overrun']}"
        )
    return lines


def _errors(errors: dict[str, ApiErrors]) -> str:
    if not errors:
        return "API-error endings: none"
    parts = []
    for kind, e in errors.items():
        if "gap_seconds" in e:
            gap = (
                ", gaps to resume " + ", ".join(f"{g:.0f}s" for g in e["gap_seconds"])
                if (e["gap_seconds"])
                else ""
            )
        else:
            gap = (
                f", gap to resume median {e['gap_seconds_median']:.0f}s max"
                f" {e['gap_seconds_max']:.0f}s total {e['gap_seconds_total']:.0f}s"
            )
        parts.append(f"{kind} {e['count']} (never resumed {e['never_resumed']}{gap})")
    return "API-error endings: " + "; ".join(parts)


def _savings(views: dict[str, SavingsDoc]) -> str:
    def one(v: SavingsDoc) -> str:
        return (
            f"{v['saved_seconds']:.0f}s of {v['dead_seconds']:.0f}s dead over"
            f" {v['endings']} endings ({v['reset_from_error_text']} would resume at the reset"
            f" time in the error text, {v['reset_from_backoff']} after the backoff)"
        )

    return (
        "Rate-limit dead time a limit-wait resume would have saved: every session as an arc "
        + one(views["all_sessions"])
        + "; after an /autonomous prompt "
        + one(views["after_autonomous_prompt"])
    )
