"""The forensics report: corpus-wide aggregates, never transcript content.

Distributions are kept as histograms (value -> count), so memory grows with the number of
distinct values, not with the size of the corpus.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from arcguard.forensics.histogram import MIN_PERCENTILE_SAMPLES
from arcguard.forensics.histogram import distribution
from arcguard.forensics.limit_savings import ALL
from arcguard.forensics.limit_savings import AUTONOMOUS
from arcguard.forensics.limit_savings import Savings
from arcguard.forensics.suggest import suggestions


if TYPE_CHECKING:
    from typing import Any

MAX_PERIOD_SCANNED = 8


def at_least(hist: Counter[int], threshold: int) -> int:
    return sum(count for value, count in hist.items() if value >= threshold)


class Report:
    """Everything `arcguard forensics` measures, accumulated file by file."""

    def __init__(self) -> None:
        self.files_scanned = 0
        self.bytes_scanned = 0
        self.sessions = 0
        self.subagent_files = 0
        self.embedded_subagents = 0  # subagents stored inside their parent's file
        self.skipped: Counter[str] = Counter()
        self.lines = 0
        self.malformed_lines = 0
        self.entry_types: Counter[str] = Counter()
        self.unknown_types: Counter[str] = Counter()
        self.turns = 0
        self.tool_turns = 0
        self.operator_prompts = 0
        self.task_notifications = 0
        self.compactions = 0
        self.run_lengths: Counter[int] = Counter()
        self.max_repeats = dict.fromkeys(range(1, MAX_PERIOD_SCANNED + 1), 0)
        self.cycle_trips: Counter[int] = Counter()  # period -> runs that would be paused
        self.stretches: Counter[int] = Counter()  # turns between operator messages
        self.stalls: Counter[str] = Counter()
        self.placeholders = 0  # written by the harness after a local command, not the model
        self.continue_nudges = 0
        self.api_errors: Counter[str] = Counter()
        self.api_error_gaps: dict[str, list[float]] = {}
        self.api_errors_unresumed: Counter[str] = Counter()
        # Dead time after rate-limit endings and what a limit-wait resume would have saved.
        self.limit_savings = {view: Savings() for view in (ALL, AUTONOMOUS)}
        self.stop_feedback = 0
        # Turns Claude Code's Stop-hook cap ended while a hook still blocked: not completions.
        self.stop_cap_overrides = 0
        self.footprint: Counter[str] = Counter()
        # (how a final message handed the turn back, how the operator answered) -> count
        self.handbacks: Counter[tuple[str, str]] = Counter()

    def add_gap(self, kind: str, seconds: float) -> None:
        gaps = self.api_error_gaps.setdefault(kind, [])
        gaps.append(seconds)

    def as_dict(self, cfg_values: dict[str, Any] | None = None) -> dict[str, Any]:
        """The aggregates as JSON data (no transcript content: counts, lengths, seconds)."""
        data: dict[str, Any] = {
            "files_scanned": self.files_scanned,
            "bytes_scanned": self.bytes_scanned,
            "sessions": self.sessions,
            "subagent_files": self.subagent_files,
            "subagents_in_parent_files": self.embedded_subagents,
            "skipped": dict(sorted(self.skipped.items())),
            "lines": self.lines,
            "malformed_lines": self.malformed_lines,
            "unknown_entry_types": dict(sorted(self.unknown_types.items())),
            "turns": self.turns,
            "tool_turns": self.tool_turns,
            "operator_prompts": self.operator_prompts,
            "task_notifications": self.task_notifications,
            "compactions": self.compactions,
            "tool_only_runs": distribution(self.run_lengths),
            "max_repeats_by_period": {str(p): n for p, n in self.max_repeats.items()},
            "cycle_trips": {
                "runs": sum(self.cycle_trips.values()),
                "by_period": {str(p): n for p, n in sorted(self.cycle_trips.items())},
            },
            "turns_since_operator": distribution(self.stretches),
            "stalls": self._stalls(),
            "local_command_placeholders": self.placeholders,
            "continue_nudges": self.continue_nudges,
            "api_errors": self._api_errors(),
            "limit_resume_savings": {k: v.as_dict() for k, v in self.limit_savings.items()},
            "stop_hook_feedback": self.stop_feedback,
            "stop_cap_overrides": self.stop_cap_overrides,
            "arcguard_footprint": dict(sorted(self.footprint.items())),
            "handbacks": self._handbacks(),
        }
        if cfg_values is not None:
            data["thresholds"] = [s.as_dict() for s in suggestions(self, cfg_values)]
        return data

    def _stalls(self) -> dict[str, int]:
        keys = (
            "total",
            "synthetic",
            "followed_by_continue_nudge",
            "followed_by_stop_hook",
            "followed_by_other_prompt",
            "at_end_of_session",
        )
        return {key: self.stalls[key] for key in keys}

    def _handbacks(self) -> dict[str, Any]:
        import arcguard.forensics.handbacks as hb

        table = {
            stop: {reply: self.handbacks[(stop, reply)] for reply in hb.REPLY_CLASSES}
            for stop in hb.STOP_CLASSES
        }
        return {"table": table, "by_policy": hb.by_policy(dict(self.handbacks))}

    def _api_errors(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for kind in sorted(self.api_errors):
            gaps = sorted(self.api_error_gaps.get(kind, []))
            enough = len(gaps) >= MIN_PERCENTILE_SAMPLES
            out[kind] = {
                "count": self.api_errors[kind],
                "resumed": len(gaps),
                "never_resumed": self.api_errors_unresumed[kind],
                "gap_seconds_median": gaps[len(gaps) // 2] if enough else None,
                "gap_seconds_max": gaps[-1] if gaps else None,
                "gap_seconds_total": sum(gaps),
            }
            if not enough:
                out[kind]["gap_seconds"] = [round(gap, 1) for gap in gaps]
        return out
