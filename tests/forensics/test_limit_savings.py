"""Forensics estimates how much dead time after a rate-limit ending a limit-wait resume saves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from testing.builders import Transcript

from arcguard.core.config import default_config
from arcguard.forensics import scan_paths
from arcguard.forensics.text_report import render


if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

START = 1_780_000_000  # 20:26:40 UTC
RESET_10PM_UTC = START + 5600  # 22:00:00 UTC the same day
REJECTED = "API Error: Request rejected (429) · rate limited"


def savings(t: Transcript, tmp_path: Path) -> dict[str, Any]:
    data = scan_paths([str(t.write(tmp_path / "s.jsonl"))], default_config()).as_dict()
    assert "would have saved" in render(data)
    views: dict[str, Any] = data["limit_resume_savings"]
    return views


def ends_on_429(t: Transcript, text: str = REJECTED) -> Transcript:
    """A turn ended by a rate limit, written as Claude Code writes it: a `system` api_error
    entry (status 429), then the synthetic assistant entry with the error text."""
    return t.system_error(429).api_error(text, error="rate_limit")


def test_without_a_reset_time_the_resume_comes_after_limit_waits_backoff(tmp_path: Path) -> None:
    t = ends_on_429(Transcript(start=START).prompt("go").bash("ls", "a"))
    t.prompt("back", advance=1000).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    # The first backoff for a rate limit is 300 s: 700 s of the 1000 s gap would be saved.
    assert view == {
        "endings": 1,
        "would_resume": 1,
        "reset_from_error_text": 0,
        "reset_from_backoff": 1,
        "dead_seconds": 1000.0,
        "saved_seconds": 700.0,
    }


def test_a_system_429_entry_alone_ends_the_turn_and_counts(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go").system_error(429)
    t.prompt("back", advance=400).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    assert (view["endings"], view["reset_from_backoff"], view["saved_seconds"]) == (1, 1, 100.0)


def test_the_reset_time_named_in_a_usage_limit_message_sets_the_resume(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go")
    t.api_error("You've hit your limit · resets 10pm (UTC)", error="rate_limit")
    ending = t.clock
    t.prompt("back", advance=3 * 3600).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    # limit-wait wakes a minute after a reset named to the minute.
    assert view["reset_from_error_text"] == 1
    assert view["saved_seconds"] == 3 * 3600 - (RESET_10PM_UTC + 60 - ending)


def test_an_epoch_reset_in_the_older_usage_limit_text_is_used(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go")
    t.api_error(f"Claude AI usage limit reached|{START + 3600}")
    ending = t.clock
    t.prompt("back", advance=7200).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    assert view["reset_from_error_text"] == 1
    assert view["saved_seconds"] == 7200 - (START + 3600 + 2 - ending)


def test_an_operator_back_before_the_reset_saves_nothing(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go")
    t.api_error("You've hit your limit · resets 10pm (UTC)", error="rate_limit")
    t.prompt("back", advance=600).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    assert (view["endings"], view["dead_seconds"], view["saved_seconds"]) == (1, 600.0, 0.0)


def test_a_reset_beyond_the_longest_wait_is_not_resumed(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go")
    t.api_error(f"Claude AI usage limit reached|{START + 6 * 3600}")  # over 5 h away
    t.prompt("back", advance=8 * 3600).text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    assert (view["endings"], view["would_resume"], view["saved_seconds"]) == (1, 0, 0.0)


def test_resumes_past_the_per_arc_cap_save_nothing(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go")
    for _ in range(4):
        ends_on_429(t).prompt("again", advance=5000)
    t.text("ok")
    view = savings(t, tmp_path)["all_sessions"]
    # Backoffs 300, 600, 1200 s for the three resumes an arc allows; the fourth waits for nobody.
    assert view["would_resume"] == 3
    assert view["saved_seconds"] == 4700 + 4400 + 3800


def test_only_endings_after_an_autonomous_prompt_count_as_arcs(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("look around")
    ends_on_429(t).prompt("/autonomous ship it", advance=1000)
    ends_on_429(t).prompt("back", advance=2000).text("ok")
    views = savings(t, tmp_path)
    assert views["all_sessions"]["endings"] == 2
    assert views["after_autonomous_prompt"] == {
        "endings": 1,
        "would_resume": 1,
        "reset_from_error_text": 0,
        "reset_from_backoff": 1,
        "dead_seconds": 2000.0,
        "saved_seconds": 1700.0,
    }


def test_other_api_errors_are_not_counted_as_limit_endings(tmp_path: Path) -> None:
    t = Transcript(start=START).prompt("go").system_error(529)
    t.api_error("API Error: Repeated 529 Overloaded errors").prompt("back", advance=900)
    t.text("ok")
    assert savings(t, tmp_path)["all_sessions"]["endings"] == 0
