"""Config: defaults < file < environment; bad values are reported and never applied."""

from __future__ import annotations

import pytest

from arcguard.config import load_config
from arcguard.core.config import DEFAULTS
from arcguard.core.config import build_config


def test_defaults_apply_when_nothing_is_set():
    cfg, problems = build_config({}, {})
    assert problems == []
    assert cfg.as_dict() == DEFAULTS


def test_the_environment_wins_over_the_file():
    cfg, problems = build_config({"checkin_turns": 30, "allow": ["Bash(ls*)"]},
                                 {"checkin_turns": "40", "observing_tools": "Bash, Read"})
    assert problems == []
    assert cfg.checkin_turns == 40
    assert cfg.allow == ("Bash(ls*)",)
    assert cfg.observing_tools == ("Bash", "Read")


@pytest.mark.parametrize(("values", "fragment"), [
    ({"checkin_turns": True}, "boolean"),
    ({"checkin_turns": "many"}, "expected an integer"),
    ({"repeat_limit": 0}, "below the minimum"),
    ({"max_consecutive_continuations": 7}, "above the maximum"),
    ({"allow": [1, 2]}, "list of strings"),
    ({"no_such_setting": 1}, "unknown setting"),
])
def test_bad_values_are_reported_and_the_default_applies(values, fragment):
    cfg, problems = build_config(values, {})
    assert len(problems) == 1 and fragment in problems[0]
    assert cfg.as_dict() == DEFAULTS


def test_the_config_file_is_read_from_arcguard_config(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text('[arcguard]\ncheckin_turns = 12\nallow = ["Bash(sleep *)"]\n')
    monkeypatch.setenv("ARCGUARD_CONFIG", str(path))
    monkeypatch.setenv("ARCGUARD_REPEAT_LIMIT", "3")
    cfg, problems = load_config()
    assert problems == []
    assert (cfg.checkin_turns, cfg.allow, cfg.repeat_limit) == (12, ("Bash(sleep *)",), 3)


def test_an_invalid_config_file_is_a_problem_not_a_crash(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text("checkin_turns = = 3\n")
    monkeypatch.setenv("ARCGUARD_CONFIG", str(path))
    cfg, problems = load_config()
    assert problems and "config file" in problems[0]
    assert cfg.checkin_turns == DEFAULTS["checkin_turns"]
