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
from arcguard.values import value


if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import NotRequired
    from typing import TypedDict

    from arcguard.forensics.histogram import Distribution
    from arcguard.forensics.limit_savings import SavingsDoc
    from arcguard.forensics.suggest import SuggestionDoc

    class CycleTrips(TypedDict):
        runs: int
        by_period: dict[str, int]

    class Stalls(TypedDict):
        total: int
        synthetic: int
        followed_by_continue_nudge: int
        followed_by_stop_hook: int
        followed_by_other_prompt: int
        at_end_of_session: int

    class ApiErrors(TypedDict):
        count: int
        resumed: int
        never_resumed: int
        gap_seconds_median: float | None
        gap_seconds_max: float | None
        gap_seconds_total: float
        gap_seconds: NotRequired[list[float]]  # each gap, when too few for a median

    class Handbacks(TypedDict):
        table: dict[str, dict[str, int]]  # final message's class -> operator's reply -> count
        by_policy: dict[str, dict[str, int]]

    # The report as `arcguard forensics --json` prints it.
    class ReportDoc(TypedDict):
        files_scanned: int
        bytes_scanned: int
        sessions: int
        subagent_files: int
        subagents_in_parent_files: int
        skipped: dict[str, int]
        lines: int
        malformed_lines: int
        unknown_entry_types: dict[str, int]
        turns: int
        tool_turns: int
        operator_prompts: int
        task_notifications: int
        compactions: int
        tool_only_runs: Distribution
        max_repeats_by_period: dict[str, int]
        cycle_trips: CycleTrips
        turns_since_operator: Distribution
        stalls: Stalls
        local_command_placeholders: int
        continue_nudges: int
        api_errors: dict[str, ApiErrors]
        limit_resume_savings: dict[str, SavingsDoc]
        stop_hook_feedback: int
        stop_cap_overrides: int
        arcguard_footprint: dict[str, int]
        handbacks: Handbacks
        thresholds: NotRequired[list[SuggestionDoc]]


MAX_PERIOD_SCANNED = 8


@value
class Report:
    """Everything `arcguard forensics` measures, accumulated file by file (`Report.new()`).

    `cycle_trips`: period -> runs that would be paused; `stretches`: turns between operator
    messages; `limit_savings`: dead time after rate-limit endings and what a limit-wait resume
    would have saved; `handbacks`: (how a final message handed the turn back, how the operator
    answered) -> count; `embedded_subagents`: subagents stored inside their parent's file;
    `placeholders`: written by the harness after a local command, not by the model;
    `stop_cap_overrides`: turns Claude Code's Stop-hook cap ended while a hook still blocked
    (not completions).
    """

    skipped: Counter[str]
    entry_types: Counter[str]
    unknown_types: Counter[str]
    run_lengths: Counter[int]
    max_repeats: dict[int, int]
    cycle_trips: Counter[int]
    stretches: Counter[int]
    stalls: Counter[str]
    api_errors: Counter[str]
    api_error_gaps: dict[str, list[float]]
    api_errors_unresumed: Counter[str]
    limit_savings: dict[str, Savings]
    footprint: Counter[str]
    handbacks: Counter[tuple[str, str]]
    files_scanned: int = 0
    bytes_scanned: int = 0
    sessions: int = 0
    subagent_files: int = 0
    embedded_subagents: int = 0
    lines: int = 0
    malformed_lines: int = 0
    turns: int = 0
    tool_turns: int = 0
    operator_prompts: int = 0
    task_notifications: int = 0
    compactions: int = 0
    placeholders: int = 0
    continue_nudges: int = 0
    stop_feedback: int = 0
    stop_cap_overrides: int = 0

    @classmethod
    def new(cls) -> Report:
        return cls(
            skipped=Counter(),
            entry_types=Counter(),
            unknown_types=Counter(),
            run_lengths=Counter(),
            max_repeats=dict.fromkeys(range(1, MAX_PERIOD_SCANNED + 1), 0),
            cycle_trips=Counter(),
            stretches=Counter(),
            stalls=Counter(),
            api_errors=Counter(),
            api_error_gaps={},
            api_errors_unresumed=Counter(),
            limit_savings={view: Savings() for view in (ALL, AUTONOMOUS)},
            footprint=Counter(),
            handbacks=Counter(),
        )

    def add_gap(self, kind: str, seconds: float) -> None:
        gaps = self.api_error_gaps.setdefault(kind, [])
        gaps.append(seconds)

    def as_dict(self, cfg_values: Mapping[str, object] | None = None) -> ReportDoc:
        """The aggregates as JSON data (no transcript content: counts, lengths, seconds)."""
        data: ReportDoc = {
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
            found = suggestions(self.run_lengths, self.max_repeats, self.stretches, cfg_values)
            data["thresholds"] = [s.as_dict() for s in found]
        return data

    def _stalls(self) -> Stalls:
        count = self.stalls
        return {
            "total": count["total"],
            "synthetic": count["synthetic"],
            "followed_by_continue_nudge": count["followed_by_continue_nudge"],
            "followed_by_stop_hook": count["followed_by_stop_hook"],
            "followed_by_other_prompt": count["followed_by_other_prompt"],
            "at_end_of_session": count["at_end_of_session"],
        }

    def _handbacks(self) -> Handbacks:
        import arcguard.forensics.handbacks as hb

        table = {
            stop: {reply: self.handbacks[(stop, reply)] for reply in hb.REPLY_CLASSES}
            for stop in hb.STOP_CLASSES
        }
        return {"table": table, "by_policy": hb.by_policy(dict(self.handbacks))}

    def _api_errors(self) -> dict[str, ApiErrors]:
        out: dict[str, ApiErrors] = {}
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
