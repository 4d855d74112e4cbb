"""Config: defaults < file < environment; bad values are reported and never applied."""

from __future__ import annotations

import pytest
from testing.docs import user_docs

from arcguard.core.config import DEFAULTS
from arcguard.core.config import ENUM
from arcguard.core.config import SETTING
from arcguard.core.config import SETTINGS
from arcguard.core.config import Setting
from arcguard.core.config_input import ConfigError
from arcguard.core.config_input import build_config
from arcguard.core.config_input import coerce_setting
from arcguard.storage.config_file import load_config


# The configuration table may live in the README or on a docs page.
DOCS = user_docs()


def test_defaults_apply_when_nothing_is_set():
    cfg, problems = build_config({}, {})
    assert problems == []
    assert cfg.as_dict() == DEFAULTS


def test_the_environment_wins_over_the_file():
    cfg, problems = build_config(
        {"checkin_turns": 30, "allow": ["Bash(ls*)"]},
        {"checkin_turns": "40", "observing_tools": "Bash, Read"},
    )
    assert problems == []
    assert cfg.checkin_turns == 40
    assert cfg.allow == ("Bash(ls*)",)
    assert cfg.observing_tools == ("Bash", "Read")


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"checkin_turns": True}, "boolean"),
        ({"checkin_turns": "many"}, "expected an integer"),
        ({"repeat_limit": 0}, "below the minimum"),
        ({"max_consecutive_continuations": 7}, "above the maximum"),
        ({"allow": [1, 2]}, "list of strings"),
        ({"no_such_setting": 1}, "unknown setting"),
    ],
)
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


@pytest.mark.parametrize("env", [{}, {"ARCGUARD_REPEAT_LIMIT": "3"}])
def test_the_reading_rules_are_imported_only_when_something_is_set(tmp_path, env):
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from arcguard.storage.config_file import load_config\n"
        f"cfg, problems = load_config({env!r}, {str(tmp_path / 'none.toml')!r})\n"
        "print(problems, cfg.repeat_limit, 'arcguard.core.config_input' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [
        "[]",
        "3" if env else str(DEFAULTS["repeat_limit"]),
        str(bool(env)),
    ]


def test_an_invalid_config_file_is_a_problem_not_a_crash(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text("checkin_turns = = 3\n")
    monkeypatch.setenv("ARCGUARD_CONFIG", str(path))
    cfg, problems = load_config()
    assert problems and "config file" in problems[0]
    assert cfg.checkin_turns == DEFAULTS["checkin_turns"]


def test_unattended_run_settings_have_defaults_and_ranges():
    cfg, problems = build_config({}, {})
    assert (cfg.limit_resumes_per_arc, cfg.limit_wait_max_seconds) == (3, 18000)
    assert cfg.notify_command == () and cfg.notify_terminal is True
    for values in (
        {"limit_resumes_per_arc": 21},
        {"limit_wait_max_seconds": 0},
        {"limit_wait_max_seconds": 86401},
    ):
        cfg, problems = build_config(values, {})
        assert len(problems) == 1 and cfg.as_dict() == DEFAULTS
    cfg, problems = build_config({"limit_wait_max_seconds": 1, "limit_resumes_per_arc": 0}, {})
    assert problems == [] and (cfg.limit_wait_max_seconds, cfg.limit_resumes_per_arc) == (1, 0)


@pytest.mark.parametrize(
    ("raw", "expected"), [(False, False), ("0", False), ("off", False), ("yes", True), (True, True)]
)
def test_notify_terminal_is_a_switch(raw, expected):
    cfg, problems = build_config({}, {"notify_terminal": raw})
    assert problems == [] and cfg.notify_terminal is expected


def test_notify_terminal_rejects_other_values():
    cfg, problems = build_config({"notify_terminal": 2}, {})
    assert len(problems) == 1 and cfg.notify_terminal is True


def test_notify_command_is_an_argv_never_a_shell_line():
    cfg, problems = build_config({"notify_command": ["notify-send", "a, b"]}, {})
    assert problems == [] and cfg.notify_command == ("notify-send", "a, b")
    cfg, problems = build_config({}, {"notify_command": '["ntfy", "publish", "x,y"]'})
    assert problems == [] and cfg.notify_command == ("ntfy", "publish", "x,y")
    cfg, problems = build_config({}, {"notify_command": "notify-send hello"})
    assert len(problems) == 1 and cfg.notify_command == ()


@pytest.mark.parametrize("value", ["--1", "²", "٣", "9" * 4300, "1" * 5000, "+-3", "", "1_0"])
def test_a_string_int_refuses_is_a_problem_for_its_key_only(value):
    cfg, problems = build_config({}, {"stale_seconds": value, "checkin_turns": "30"})
    assert len(problems) == 1 and "stale_seconds" in problems[0]
    assert cfg.stale_seconds == DEFAULTS["stale_seconds"] and cfg.checkin_turns == 30


def test_a_huge_integer_in_the_config_file_costs_only_its_own_key(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text(f"[arcguard]\nstale_seconds = {'9' * 5000}\ncheckin_turns = 12\n")
    monkeypatch.setenv("ARCGUARD_CONFIG", str(path))
    cfg, problems = load_config()
    assert len(problems) == 1 and "stale_seconds" in problems[0]
    assert (cfg.stale_seconds, cfg.checkin_turns) == (DEFAULTS["stale_seconds"], 12)


def test_a_bad_value_is_named_with_its_key_and_value_and_kept_short():
    _, problems = build_config({"drain_ms": "x" * 10_000}, {})
    assert problems[0].startswith("config file: drain_ms: expected an integer, got 'xxx")
    assert len(problems[0]) < 200


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_setting_rejects_values_just_outside_its_range(setting):
    if setting.kind != "int":
        too_many = [f"x{n}" for n in range(setting.high + 1)]
        cfg, problems = build_config({setting.name: too_many}, {})
        assert len(problems) == 1 and getattr(cfg, setting.name) == setting.default
        return
    assert setting.low <= setting.default <= setting.high
    for value in (setting.low - 1, setting.high + 1):
        cfg, problems = build_config({setting.name: value}, {})
        assert len(problems) == 1 and str(value) in problems[0], value
        assert getattr(cfg, setting.name) == setting.default
    for value in (setting.low, setting.high):
        cfg, problems = build_config({setting.name: value}, {})
        assert problems == [] and getattr(cfg, setting.name) == value


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("blocked_rounds_pause", 0),
        ("stale_seconds", 0),
        ("cycle_history", 0),
        ("tail_bytes", 0),
        ("hook_budget_ms", 10_000),
        ("max_consecutive_continuations", 0),
    ],
)
def test_values_that_would_switch_a_rule_off_or_outlive_the_hook_timeout_are_rejected(name, value):
    cfg, problems = build_config({name: value}, {})
    assert len(problems) == 1 and getattr(cfg, name) == DEFAULTS[name]


def test_the_hook_budget_stays_well_below_the_installed_hook_timeout():
    from arcguard.claude_settings.merge_plan import HOOK_TIMEOUT

    for name in ("hook_budget_ms", "drain_ms", "lock_timeout_ms"):
        assert SETTING[name].high <= HOOK_TIMEOUT * 1000 // 2, name


def test_an_enum_setting_accepts_only_its_choices():
    setting = Setting("mode", ENUM, "a", 0, 0, "a test key", choices=("a", "b"))
    assert coerce_setting(setting, " b ") == "b"
    with pytest.raises(ConfigError, match="not one of a, b"):
        coerce_setting(setting, "c")


def _readme_row(setting):
    if setting.kind == "int":
        default, span = str(setting.default), f"{setting.low} to {setting.high}"
    elif setting.kind == "enum":
        default, span = f"`{setting.default}`", " or ".join(f"`{c}`" for c in setting.choices)
    elif setting.kind == "bool":
        default, span = str(setting.default).lower(), "true or false"
    else:
        default = ", ".join(setting.default) or "(none)"
        span = f"at most {setting.high} items"
    env = f"`ARCGUARD_{setting.name.upper()}`"
    if setting.kind == "list":
        env += " (comma-separated)"
    if setting.kind == "argv":
        env += " (a JSON array)"
    return f"| `{setting.name}` | {env} | {default} | {span} | {setting.meaning} |"


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_the_readme_configuration_table_matches_the_code(setting):
    assert _readme_row(setting) in DOCS.splitlines()


def test_the_readme_configuration_table_prints_from_the_code():
    # `python -m pytest tests/core/test_config.py -k prints -s` prints the table for the README.
    print("\n| key | environment | default | range | meaning |\n|---|---|---|---|---|")
    print("\n".join(_readme_row(setting) for setting in SETTINGS))
