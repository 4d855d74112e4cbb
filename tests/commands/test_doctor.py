"""`arcguard doctor`: every check, both when it passes and when it finds a gap."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from testing.cli import invoke

from arcguard import doctor as checks
from arcguard import hook_image
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.doctor import health
from arcguard.doctor import model as st
from arcguard.doctor import probes
from arcguard.doctor import reading
from arcguard.doctor import wiring
from arcguard.hooks import EVENTS
from arcguard.storage import paths


arcguard = invoke


# Install and doctor ask the `claude` on PATH for its release.
pytestmark = pytest.mark.usefixtures("claude_on_path")


def setup_for(project: Path) -> st.Setup:
    return reading.read_setup(project, dict(os.environ))


def statuses(checks: list[st.Check]) -> list[str]:
    return [c.status for c in checks]


def write_settings(project: Path, value: object, scope: str = "project") -> Path:
    path = cc.settings_path(scope, project, os.environ)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    return path


def wired(prefix: str) -> dict[str, object]:
    return {"hooks": plan.desired_hooks(prefix)}


def fake_program(directory: Path, name: str, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    program = directory / name
    program.write_text(f"#!/bin/sh\n{body}\n")
    program.chmod(0o755)
    return program


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def make(version: str) -> None:
        bin_dir = tmp_path / f"claude-{version}"
        fake_program(bin_dir, "claude", f"echo '{version} (Claude Code)'")
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    return make


@pytest.fixture
def healthy(project: Path, fake_claude) -> Path:
    fake_claude("2.1.328")
    assert arcguard("install", "--scope", "local", "--project", str(project)).exit_code == 0
    return project


# --- the whole command ---------------------------------------------------------------------


def test_a_healthy_setup_has_no_gap(healthy: Path) -> None:
    result = arcguard("doctor", "--project", str(healthy))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(line.startswith(("ok ", "warn ")) for line in lines if not line.startswith(" "))
    assert any("all 8 events wired once (local)" in line for line in lines)
    assert not (Path(os.environ["ARCGUARD_HOME"]) / "sessions").exists()  # ran in a scratch dir


def test_a_gap_exits_1_with_a_hint(project: Path) -> None:
    result = arcguard("doctor", "--project", str(project))
    assert result.exit_code == 1
    assert "gap   wiring: not wired: " + ", ".join(EVENTS) in result.output
    assert "      hint: arcguard install" in result.output


def test_json_gives_the_same_checks(healthy: Path) -> None:
    text = arcguard("doctor", "--project", str(healthy)).output
    result = arcguard("doctor", "--json", "--project", str(healthy))
    document = json.loads(result.output)
    assert document["schema"] == 1 and document["ok"] is True
    assert [f"{c['status']:<4}  {c['name']}: {c['detail']}" for c in document["checks"]] == [
        line for line in text.splitlines() if not line.startswith(" ")
    ]
    assert set(document["checks"][0]) == {"name", "status", "detail", "hint"}


def test_json_reports_gaps_with_exit_1(project: Path) -> None:
    result = arcguard("doctor", "--json", "--project", str(project))
    assert result.exit_code == 1
    document = json.loads(result.output)
    assert document["ok"] is False
    assert {"wiring"} <= {c["name"] for c in document["checks"] if c["status"] == "gap"}


def test_a_crashing_check_is_a_gap_not_a_crash(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(setup: st.Setup) -> list[st.Check]:
        raise RuntimeError("kaput")

    monkeypatch.setattr(checks, "CHECKS", (boom,))
    [result] = checks.run_checks(setup_for(project))
    assert result.status == "gap" and "kaput" in result.detail


# --- settings files ------------------------------------------------------------------------


def test_settings_that_parse_are_ok(project: Path) -> None:
    path = write_settings(project, {"model": "opus"})
    assert wiring.check_settings_files(setup_for(project)) == [
        st.Check("settings", "ok", f"{path} parses")
    ]


def test_invalid_settings_are_a_gap(project: Path) -> None:
    path = cc.settings_path("local", project, os.environ)
    path.parent.mkdir(parents=True)
    path.write_text("{,}")
    [check] = wiring.check_settings_files(setup_for(project))
    assert check.status == "gap" and "not valid JSON" in check.detail and check.hint


def test_disable_all_hooks_is_a_gap(project: Path) -> None:
    write_settings(project, {"disableAllHooks": True})
    [check] = wiring.check_settings_files(setup_for(project))
    assert check.status == "gap" and "disableAllHooks" in check.detail


# --- wiring --------------------------------------------------------------------------------


def test_wired_once_is_ok(project: Path) -> None:
    write_settings(project, wired("arcguard"))
    [check] = wiring.check_wiring(setup_for(project))
    assert check.status == "ok" and "(project)" in check.detail


def test_a_missing_event_is_a_gap(project: Path) -> None:
    settings = wired("arcguard")
    del settings["hooks"]["Stop"]  # type: ignore[attr-defined]
    write_settings(project, settings)
    [check] = wiring.check_wiring(setup_for(project))
    assert check == st.Check(
        "wiring",
        "gap",
        "not wired: Stop",
        "arcguard install (or --scope project/local for one project)",
    )


def test_wired_in_two_scopes_is_a_gap(project: Path) -> None:
    write_settings(project, wired("arcguard"), scope="project")
    write_settings(project, wired("/opt/bin/arcguard"), scope="local")
    [check] = wiring.check_wiring(setup_for(project))
    assert check == st.Check(
        "wiring",
        "gap",
        "all 8 events are wired 2 times (project, local): every hook would run more than once",
        "keep the project one: arcguard uninstall --scope local",
    )


def test_events_wired_twice_in_part_are_named(project: Path) -> None:
    write_settings(project, wired("arcguard"), scope="project")
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", "/opt/arcguard")]}},
                   scope="local")  # fmt: skip
    [check] = wiring.check_wiring(setup_for(project))
    assert check.detail.startswith("Stop is wired 2 times (project, local)")


def test_the_wrong_hook_on_an_event_is_a_gap(project: Path) -> None:
    settings = wired("arcguard")
    settings["hooks"]["Stop"][0]["hooks"][0]["command"] = "arcguard hook posture"  # type: ignore[index]
    write_settings(project, settings)
    checks = wiring.check_wiring(setup_for(project))
    assert "Stop runs `hook posture` (project)" in [c.detail for c in checks]
    assert "not wired: Stop" in [c.detail for c in checks]


def test_the_enabled_plugin_counts_as_wiring(project: Path) -> None:
    write_settings(project, {"enabledPlugins": {"arcguard@tools": True}})
    [check] = wiring.check_wiring(setup_for(project))
    assert check.status == "ok" and "(plugin)" in check.detail


def test_plugin_plus_settings_is_wired_twice(project: Path) -> None:
    write_settings(project, {**wired("arcguard"), "enabledPlugins": {"arcguard@tools": True}})
    assert set(statuses(wiring.check_wiring(setup_for(project)))) == {"gap"}


def test_a_plugin_disabled_by_a_higher_scope_does_not_count(project: Path) -> None:
    write_settings(project, {"enabledPlugins": {"arcguard@tools": True}}, scope="project")
    write_settings(project, {"enabledPlugins": {"arcguard@tools": False}}, scope="local")
    assert not setup_for(project).plugin_enabled()


# --- executables and running the wired command ---------------------------------------------


def test_a_missing_executable_is_a_gap(project: Path) -> None:
    write_settings(project, wired("/gone/venv/bin/arcguard"))
    setup = setup_for(project)
    [check] = probes.check_executables(setup)
    assert check.status == "gap" and "exit 127" in check.detail
    assert check.hint == "arcguard install --scope project"
    [runs] = probes.check_runs(setup)
    assert runs.status == "gap"
    assert runs.detail == (
        "`/gone/venv/bin/arcguard hook posture|stop|pre-tool|post-tool|"
        "post-batch|session-start|stop-failure|limit-wait` (project): exit 127: "
        "command not found"
    )


def test_an_existing_executable_is_ok(project: Path, tmp_path: Path) -> None:
    program = fake_program(tmp_path / "bin", "arcguard", "exit 0")
    write_settings(project, wired(str(program)))
    assert probes.check_executables(setup_for(project)) == [
        st.Check("executable", "ok", f"{program} (project)")
    ]


def test_a_command_on_path_is_resolved(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_settings(project, wired("arcguard"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    [check] = probes.check_executables(setup_for(project))
    assert check.status == "gap"
    fake_program(tmp_path / "bin", "arcguard", "exit 0")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    [check] = probes.check_executables(setup_for(project))
    assert check.status == "ok"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("exit 127", "exit 127"),
        ("echo oops >&2; exit 3", "exit 3: oops"),
        ("echo not json", "stdout is not JSON: not json"),
        ("echo '[1]'", "stdout is not a JSON object"),
    ],
)
def test_a_wired_command_that_does_not_answer_as_a_hook_is_a_gap(
    project: Path, tmp_path: Path, body: str, expected: str
) -> None:
    program = fake_program(tmp_path / "bin", "arcguard", f"cat >/dev/null; {body}")
    settings = {"hooks": {"Stop": [plan.desired_group("Stop", str(program))]}}
    write_settings(project, settings)
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "gap" and expected in check.detail


def test_a_wired_command_gets_a_payload_and_a_scratch_state_dir(
    project: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    program = fake_program(
        tmp_path / "bin",
        "arcguard",
        f'cat > {seen}; echo "$ARCGUARD_HOME" > {seen}.home; echo "{{}}"',
    )
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", str(program))]}})
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "ok"
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "Stop" and payload["session_id"]
    assert seen.with_name("seen.json.home").read_text().strip() != os.environ["ARCGUARD_HOME"]


def test_a_missing_program_on_path_is_reported_as_not_found(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", "arcguard")]}})
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "gap" and "exit 127: command not found" in check.detail


@pytest.mark.parametrize(
    "command",
    [
        "X=$(touch {marker}) arcguard hook stop",
        "arcguard hook stop; touch {marker}",
        "touch {marker} && arcguard hook stop",
        "arcguard hook stop > {marker}",
        "/bin/sh -c 'touch {marker}' arcguard hook stop",
        "arcguard hook $(touch {marker})",
    ],
)
def test_doctor_never_runs_a_planted_command(tmp_path: Path, command: str) -> None:
    # A cloned repository's settings are not trusted yet: doctor must not execute them.
    project = tmp_path / "cloned"
    marker = tmp_path / "PWNED"
    handler = {"type": "command", "command": command.format(marker=marker)}
    write_settings(project, {"hooks": {"Stop": [{"hooks": [handler]}]}})
    result = arcguard("doctor", "--project", str(project))
    assert not marker.exists()
    assert "gap   runs: not run: Stop command" in result.output


def test_a_users_hook_under_a_folder_named_arcguard_is_no_gap(healthy: Path) -> None:
    # A clone of arcguard is a folder named arcguard; hooks run from it are not arcguard's.
    path = cc.settings_path("local", healthy, os.environ)
    settings = json.loads(path.read_text())
    mine = {"type": "command", "command": "/home/me/src/arcguard/tools/notify-desktop.sh"}
    settings["hooks"]["Stop"].append({"hooks": [mine]})
    path.write_text(json.dumps(settings))
    result = arcguard("doctor", "--project", str(healthy))
    assert result.exit_code == 0, result.output
    assert "notify-desktop" not in result.output and "gap" not in result.output


def test_doctor_runs_an_exact_invocation_without_a_shell(project: Path, tmp_path: Path) -> None:
    # A quoted program path with a space still runs as the one word it is.
    program = fake_program(tmp_path / "a b", "arcguard", 'cat >/dev/null; echo "{}"')
    quoted = {"Stop": [plan.desired_group("Stop", shlex.quote(str(program)))]}
    write_settings(project, {"hooks": quoted})
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "ok"


def test_doctor_does_not_run_a_program_shipped_inside_the_project(project: Path) -> None:
    # An exact invocation can still point at an executable the repository itself provides.
    marker = project / "PWNED"
    program = fake_program(project / "tools", "arcguard", f"touch {marker}")
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", str(program))]}})
    [check] = probes.check_runs(setup_for(project))
    assert not marker.exists()
    assert check.status == "skip" and "not run: its program is inside the project" in check.detail


def test_the_real_hooks_answer_the_test_payloads(project: Path) -> None:
    assert arcguard("install", "--scope", "project", "--project", str(project)).exit_code == 0
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "ok" and "8 wired commands" in check.detail


# --- state dir, lock, config, state files, error log ---------------------------------------


def test_a_missing_state_dir_is_ok(project: Path) -> None:
    [check] = health.check_state_dir(setup_for(project))
    assert check.status == "ok" and "will be created" in check.detail


@pytest.mark.parametrize(
    ("mode", "status"), [(0o700, "ok"), (0o750, "warn"), (0o777, "gap"), (0o770, "gap")]
)
def test_state_dir_permissions(project: Path, mode: int, status: str) -> None:
    home = Path(os.environ["ARCGUARD_HOME"])
    home.mkdir()
    home.chmod(mode)
    [check] = health.check_state_dir(setup_for(project))
    assert check.status == status


def test_a_symlinked_state_dir_is_a_gap(project: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    Path(os.environ["ARCGUARD_HOME"]).symlink_to(tmp_path / "elsewhere")
    [check] = health.check_state_dir(setup_for(project))
    assert check.status == "gap"


def test_the_lock_can_be_taken_and_leaves_nothing_behind(project: Path) -> None:
    home = Path(os.environ["ARCGUARD_HOME"])
    paths.ensure_sessions_dir(str(home))
    [check] = health.check_lock(setup_for(project))
    assert check.status == "ok"
    assert sorted(p.name for p in home.iterdir()) == ["sessions"]


def test_a_lock_that_cannot_be_taken_is_a_gap(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arcguard.storage import atomic

    paths.ensure_sessions_dir(os.environ["ARCGUARD_HOME"])

    def busy(path: str, timeout: float) -> object:
        raise atomic.LockTimeout("busy")

    monkeypatch.setattr(atomic, "locked", busy)
    [check] = health.check_lock(setup_for(project))
    assert check.status == "gap" and "busy" in check.detail


@pytest.mark.parametrize(
    ("content", "status"),
    [
        (None, "ok"),
        ("[arcguard]\nrepeat_limit = 3\n", "ok"),
        ("repeat_limit = [", "gap"),
        ("[arcguard]\nrepeat_limit = 'many'\n", "gap"),
    ],
)
def test_config(project: Path, content: str | None, status: str) -> None:
    if content is not None:
        Path(os.environ["ARCGUARD_CONFIG"]).write_text(content)
    checks = health.check_config(setup_for(project))
    assert statuses(checks) == [status]


def test_bad_environment_override_is_a_gap(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARCGUARD_REPEAT_LIMIT", "lots")
    assert statuses(health.check_config(setup_for(project))) == ["gap"]


def _sessions() -> Path:
    return Path(paths.ensure_sessions_dir(os.environ["ARCGUARD_HOME"]))


def _good_state(name: str) -> Path:
    from arcguard.core.state import fresh_state

    path = _sessions() / f"{name}.json"
    path.write_text(json.dumps(fresh_state(name, time.time())))
    return path


def test_clean_state_files_are_ok(project: Path) -> None:
    _good_state("s1")
    assert health.check_state_files(setup_for(project)) == [
        st.Check("state files", "ok", "1 session file(s), all readable")
    ]


def test_corrupt_unreadable_leftover_and_stale_files_are_reported(project: Path) -> None:
    directory = _sessions()
    (directory / "s1.json.corrupt-1700000000").write_text("{")
    (directory / "s2.json").write_text("{not json")
    (directory / "s3.json.tmp-99-1").write_text("")
    old = _good_state("s4")
    os.utime(old, (time.time() - 40 * 86400,) * 2)
    checks = health.check_state_files(setup_for(project))
    assert statuses(checks) == ["warn"] * 4
    details = " | ".join(c.detail for c in checks)
    assert "1 quarantined corrupt file(s)" in details and "s1.json.corrupt-1700000000" in details
    assert "unreadable: s2.json" in details
    assert "1 temp file(s)" in details
    assert "1 session file(s) untouched for more than 30 days" in details


def test_recent_hook_errors_are_a_warning(project: Path) -> None:
    from arcguard.storage import error_log

    home = os.environ["ARCGUARD_HOME"]
    assert statuses(health.check_error_log(setup_for(project))) == ["ok"]
    error_log.log_line(home, "hook stop", "ValueError: boom")
    [check] = health.check_error_log(setup_for(project))
    assert check.status == "warn" and "ValueError: boom" in check.detail
    log = Path(paths.error_log(home))
    log.write_text("2001-01-01T00:00:00Z hook stop old news\n")
    assert statuses(health.check_error_log(setup_for(project))) == ["ok"]


# --- Claude Code version and the /autonomous command ---------------------------------------


@pytest.mark.parametrize(
    ("version", "status", "words"),
    [
        ("2.1.328", "ok", "Claude Code 2.1.328"),
        ("2.2.0", "ok", "Claude Code 2.2.0"),
        ("2.1.100", "warn", "PostToolBatch"),
        ("2.1.30", "warn", "last_assistant_message"),
    ],
)
def test_claude_version(project: Path, fake_claude, version: str, status: str, words: str) -> None:
    fake_claude(version)
    checks = health.check_claude(setup_for(project))
    assert {c.status for c in checks} == {status}
    assert any(words in c.detail for c in checks)


def test_doctor_names_the_fallback_mode_an_old_release_runs_in(project: Path, fake_claude) -> None:
    fake_claude("2.1.80")
    [check] = health.check_claude(setup_for(project))
    assert check.status == "warn"
    assert check.detail == (
        "loop guard in fallback mode: without PostToolBatch a turn closes at the next call or "
        "the Stop, so a pause denies every call but cannot end the session at once "
        "(PostToolBatch arrived in Claude Code 2.1.118; this is 2.1.80)"
    )
    fake_claude("2.1.150")
    assert statuses(health.check_claude(setup_for(project))) == ["ok"]


@pytest.mark.parametrize("scope", ["user", "project", "local"])
def test_an_event_the_release_does_not_know_is_a_gap_naming_the_lost_file(
    project: Path, fake_claude, scope: str
) -> None:
    # Claude Code ignores the whole file then: the user's own deny rules stop applying too.
    fake_claude("2.1.80")
    path = write_settings(
        project,
        {
            "permissions": {"deny": ["Bash(echo one)"]},
            "hooks": {"PostToolBatch": [{"hooks": [{"type": "command", "command": "mine"}]}]},
        },
        scope,
    )
    [check] = health.check_event_support(setup_for(project))
    assert check.status == "gap"
    assert check.detail == (
        f"{path} names PostToolBatch, which Claude Code 2.1.80 does not "
        "know: Claude Code ignores that whole file, including your "
        "permission rules"
    )
    fake_claude("2.1.328")
    assert health.check_event_support(setup_for(project)) == []


def test_events_wired_before_an_upgrade_are_not_a_gap_until_the_release_knows_more(
    project: Path, fake_claude
) -> None:
    fake_claude("2.1.80")
    assert arcguard("install", "--scope", "project", "--project", str(project)).exit_code == 0
    assert statuses(wiring.check_wiring(setup_for(project))) == ["ok"]
    fake_claude("2.1.328")
    [check] = wiring.check_wiring(setup_for(project))
    assert check.status == "gap" and check.hint == "run arcguard install again"
    assert check.detail == "not wired: PostToolBatch, which Claude Code 2.1.328 now knows"


def test_claude_not_on_path_is_a_warning(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    [check] = health.check_claude(setup_for(project))
    assert check.status == "warn" and "not on PATH" in check.detail


def test_parse_version() -> None:
    assert health.parse_version("2.1.328 (Claude Code)\n") == (2, 1, 328)
    assert health.parse_version("claude") is None


@pytest.mark.parametrize(
    ("version", "status"),
    [("2.1.150", "gap"), ("2.1.273", "gap"), ("2.1.274", "warn"), ("2.2.0", "warn")],
)
def test_a_missing_autonomous_command_is_a_gap_where_claude_code_rejects_it(
    project: Path, fake_claude, version: str, status: str
) -> None:
    # Releases that refuse an unknown slash command in -p mode cannot start an arc without it.
    fake_claude(version)
    [check] = probes.check_command(setup_for(project))
    assert check.status == status and check.hint == "arcguard install"
    assert ("rejects a prompt" in check.detail) == (status == "gap")


def test_a_missing_autonomous_command_is_a_gap_when_the_version_is_unknown(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    [check] = probes.check_command(setup_for(project))
    assert check.status == "gap"


@pytest.mark.parametrize("scope", ["user", "project"])
def test_an_installed_autonomous_command_is_ok(project: Path, scope: str) -> None:
    path = cc.commands_dir(scope, project, os.environ) / slash.COMMAND_NAME
    path.parent.mkdir(parents=True)
    path.write_text(slash.command_template())
    assert probes.check_command(setup_for(project)) == [st.Check("/autonomous", "ok", str(path))]


def test_a_foreign_autonomous_command_is_a_warning(project: Path) -> None:
    path = cc.commands_dir("project", project, os.environ) / slash.COMMAND_NAME
    path.parent.mkdir(parents=True)
    path.write_text("do it: $ARGUMENTS\n")
    assert statuses(probes.check_command(setup_for(project))) == ["warn"]


def test_the_plugin_provides_the_command(project: Path) -> None:
    write_settings(project, {"enabledPlugins": {"arcguard@tools": True}})
    [check] = probes.check_command(setup_for(project))
    assert check.status == "ok" and "/arcguard:autonomous" in check.detail


def test_the_limit_waiter_without_its_background_flags_is_a_gap(project: Path) -> None:
    hooks = plan.desired_hooks("arcguard")
    [group] = hooks["StopFailure"]
    for handler in group["hooks"]:
        handler.pop("asyncRewake", None)
    write_settings(project, {"hooks": hooks})
    found = wiring.check_background(setup_for(project))
    assert [c.status for c in found] == ["gap"]
    assert "asyncRewake" in found[0].detail


def test_the_limit_waiter_wired_as_install_writes_it_is_ok(project: Path) -> None:
    write_settings(project, {"hooks": plan.desired_hooks("arcguard")})
    assert [c.status for c in wiring.check_background(setup_for(project))] == ["ok"]
    assert all(c.status == "ok" for c in wiring.check_wiring(setup_for(project)))


def test_a_missing_limit_waiter_is_a_warning(project: Path) -> None:
    hooks = plan.desired_hooks("arcguard")
    hooks["StopFailure"][0]["hooks"] = hooks["StopFailure"][0]["hooks"][:1]
    write_settings(project, {"hooks": hooks})
    assert [c.status for c in wiring.check_background(setup_for(project))] == ["warn"]


def test_doctor_does_not_run_a_launch_command_that_imports_from_inside_the_project(
    project: Path,
) -> None:
    # The interpreter is a real one outside the repository; the package it imports is not.
    marker = project / "PWNED"
    package = project / "vendor" / "arcguard"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    prefix = launch_forms.own_prefix(sys.executable, str(package.parent))
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", prefix)]}})
    [check] = probes.check_runs(setup_for(project))
    assert not marker.exists()
    assert check.status == "skip" and "loads arcguard from inside the project" in check.detail


def test_doctor_does_not_run_a_status_line_program_shipped_inside_the_project(
    project: Path,
) -> None:
    # `<arcguard> statusline` is an exact invocation, yet the program is the repository's own.
    from arcguard.doctor.statusline import check_statusline

    marker = project / "PWNED"
    program = fake_program(project / "tools", "arcguard", f"touch {marker}")
    write_settings(project, {"statusLine": {"type": "command", "command": f"{program} statusline"}})
    [check] = check_statusline(setup_for(project))
    assert not marker.exists()
    assert check.status == "skip" and "not run: its program is inside the project" in check.detail


def test_doctor_runs_the_status_line_without_a_shell(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The words are executed directly: no shell ever reads the command line.
    import subprocess

    from arcguard.doctor import statusline

    program = fake_program(tmp_path / "a b", "arcguard", "cat >/dev/null")
    write_settings(
        project,
        {"statusLine": {"type": "command", "command": f"{shlex.quote(str(program))} statusline"}},
    )
    started: list[object] = []
    real_run = subprocess.run

    def spy(args: object, **kwargs: object) -> object:
        started.append(args)
        return real_run(args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(subprocess, "run", spy)
    [check] = statusline.check_statusline(setup_for(project))
    assert check.status == "ok", check.detail
    assert started == [[str(program), "statusline"]]


def test_the_editing_tools_matcher_counts_as_wired(project: Path, fake_claude) -> None:
    fake_claude("2.1.150")
    write_settings(project, plan.plan_install({}, "arcguard"))
    assert statuses(wiring.check_wiring(setup_for(project))) == ["ok"]
    assert wiring.check_matchers(setup_for(project)) == []


def test_post_tool_use_for_editing_tools_only_is_a_gap_without_the_batch(
    project: Path, fake_claude
) -> None:
    # Installed on a release with PostToolBatch, then run on one without it.
    fake_claude("2.1.80")
    events = [e for e in EVENTS if e != "PostToolBatch"]
    narrowed = plan.plan_install({}, "arcguard", events)
    hooks: Any = narrowed["hooks"]
    hooks["PostToolUse"][0]["matcher"] = plan.EDIT_TOOLS_MATCHER
    write_settings(project, narrowed)
    [check] = wiring.check_matchers(setup_for(project))
    assert check.status == "gap"
    assert "no PostToolBatch to report the other calls" in check.detail
    assert check.hint == "arcguard install --scope project"
    write_settings(project, plan.plan_install({}, "arcguard", events))
    assert wiring.check_matchers(setup_for(project)) == []


# --- Claude Code's Stop-hook cap next to arcguard's consecutive cap ---------------------------


def _stop_cap_check(project, monkeypatch, fake_claude, *, env=None, version="2.1.328"):
    fake_claude(version)
    monkeypatch.delenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", raising=False)
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    [check] = health.check_stop_cap(setup_for(project))
    return check


def test_the_default_cap_is_above_arcguards(project, monkeypatch, fake_claude):
    check = _stop_cap_check(project, monkeypatch, fake_claude)
    assert check.status == "ok"
    assert "after 8 consecutive blocks (its default); arcguard stops at 2" in check.detail


def test_a_cap_below_arcguards_is_named_with_where_it_is_set(project, monkeypatch, fake_claude):
    check = _stop_cap_check(
        project, monkeypatch, fake_claude, env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"}
    )
    assert check.status == "warn"
    assert "after 1 consecutive blocks (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=1 in the environment)" in (
        check.detail
    )
    assert "arcguard continues at most 1 stops in a row" in check.detail


def test_a_cap_set_in_settings_env_counts_too(project, monkeypatch, fake_claude):
    path = write_settings(project, {"env": {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"}})
    check = _stop_cap_check(project, monkeypatch, fake_claude)
    assert check.status == "warn" and str(path) in check.detail


def test_no_cap_leaves_arcguards_as_the_bound(project, monkeypatch, fake_claude):
    check = _stop_cap_check(
        project, monkeypatch, fake_claude, env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "0"}
    )
    assert check.status == "ok" and "cap is off" in check.detail


def test_a_release_before_the_cap_has_none(project, monkeypatch, fake_claude):
    check = _stop_cap_check(
        project,
        monkeypatch,
        fake_claude,
        env={"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "1"},
        version="2.1.142",
    )
    assert check.status == "ok" and "has no Stop-hook cap" in check.detail


def test_a_short_entry_is_named_by_its_interpreter_and_launcher(project: Path) -> None:
    gone = "/home/ada/old-venv/bin/python3"
    words = launch_forms.short_prefix(gone, "/home/ada/.local/state/arcguard/hook.py")
    assert words is not None
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", words)]}})
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "gap"
    assert f"`{gone} /home/ada/.local/state/arcguard/hook.py hook stop`" in check.detail
    assert launch_forms.LAUNCH_STUB not in check.detail


def test_a_short_entry_with_a_launcher_install_did_not_write_is_not_run(
    project: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    launcher = tmp_path / "elsewhere" / launch_forms.LAUNCHER_NAME
    launcher.parent.mkdir()
    launcher.write_text(f"open({str(ran)!r}, 'w').close()\n")
    words = launch_forms.short_prefix(sys.executable, str(launcher))
    assert words is not None
    write_settings(project, {"hooks": {"Stop": [plan.desired_group("Stop", words)]}})
    [check] = probes.check_runs(setup_for(project))
    assert check.status == "skip" and "is not the one `arcguard install` writes" in check.detail
    assert not ran.exists()


def _planted_launcher(healthy: Path, ran: Path) -> Path:
    """The launcher install wrote, its code swapped for code that leaves `ran` behind."""
    launcher = Path(paths.state_dir(os.environ)) / launch_forms.LAUNCHER_NAME
    assert launcher.is_file()
    launcher.write_text(f"open({str(ran)!r}, 'w').close()\n")
    return launcher


@pytest.mark.parametrize("which", ["file", "folder"])
def test_a_launcher_others_can_write_is_a_gap_and_not_run(
    healthy: Path, tmp_path: Path, which: str
) -> None:
    ran = tmp_path / "ran"
    launcher = _planted_launcher(healthy, ran)
    (launcher if which == "file" else launcher.parent).chmod(0o620 if which == "file" else 0o770)
    [check] = probes.check_runs(setup_for(healthy))
    assert check.status == "gap" and not ran.exists()
    assert "the hooks refuse a launcher that is not yours alone" in check.detail


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving the launcher to a second user needs root (the suite runs as another user)",
)
def test_a_launcher_of_another_user_is_a_gap_and_not_run(healthy: Path, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    launcher = _planted_launcher(healthy, ran)
    os.chown(launcher, 65534, 65534)
    [check] = probes.check_runs(setup_for(healthy))
    assert check.status == "gap" and not ran.exists()
    assert f"{launcher} belongs to uid 65534" in check.detail


def test_an_earlier_installs_unchecked_stub_is_a_gap_and_not_run(
    healthy: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    launcher = _planted_launcher(healthy, ran)
    old = launch_forms.short_prefix(sys.executable, str(launcher), launch_forms.UNCHECKED_STUB)
    assert old is not None
    write_settings(healthy, {"hooks": {"Stop": [plan.desired_group("Stop", old)]}}, "local")
    [check] = probes.check_runs(setup_for(healthy))
    assert check.status == "gap" and not ran.exists()
    assert "an earlier install's entry" in check.detail
    assert "arcguard install --scope local rewrites it" in check.hint


def test_install_rewrites_a_launcher_others_can_write(healthy: Path) -> None:
    launcher = Path(paths.state_dir(os.environ)) / launch_forms.LAUNCHER_NAME
    launcher.chmod(0o666)
    assert arcguard("install", "--scope", "local", "--project", str(healthy)).exit_code == 0
    assert launcher.stat().st_mode & 0o777 == 0o600
    [check] = probes.check_runs(setup_for(healthy))
    assert check.status == "ok", check.detail


# --- the code image beside the launcher -----------------------------------------------------


def _image_check(project: Path) -> st.Check:
    (found,) = health.check_hook_image(setup_for(project))
    return found


def test_a_current_hook_image_is_ok(healthy: Path) -> None:
    found = _image_check(healthy)
    assert found.status == st.OK and "is current" in found.detail


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (lambda image: image.write_bytes(image.read_bytes() + b"\0"), "cut short or padded"),
        (lambda image: image.unlink(), "not readable"),
        (lambda image: image.chmod(0o664), "not this user's alone"),
    ],
)
def test_a_hook_image_the_hooks_cannot_use_is_reported_with_the_fix(
    healthy: Path, spoil: Any, why: str
) -> None:
    spoil(Path(paths.state_dir(os.environ)) / hook_image.IMAGE_NAME)
    found = _image_check(healthy)
    assert found.status == st.WARN and why in found.detail
    assert "arcguard install" in found.hint


def test_a_stale_hook_image_names_the_changed_file(tmp_path: Path) -> None:
    copy = tmp_path / "site"
    shutil.copytree(
        Path(paths.__file__).parents[1],
        copy / "arcguard",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    image = tmp_path / "img" / hook_image.IMAGE_NAME
    image.parent.mkdir(mode=0o700)
    hook_image.write(str(image), str(copy))
    assert hook_image.stale(str(image), str(copy)) is None
    changed = copy / "arcguard" / "storage" / "paths.py"
    changed.write_text(changed.read_text() + "# edited\n")
    assert hook_image.stale(str(image), str(copy)) == f"{changed} changed since it was made"


def test_without_a_launcher_file_there_is_no_image_to_check(project: Path) -> None:
    assert health.check_hook_image(setup_for(project)) == []
