"""doctor's rules are functions of what was read and found: they give the same checks for the
same settings without touching a file, PATH or a process, so they are tested from values."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import arcguard.doctor.wiring
from arcguard.claude_settings import merge_plan as plan
from arcguard.doctor import wiring
from arcguard.doctor.model import HookEntry
from arcguard.doctor.model import Setup
from arcguard.hooks import EVENTS


# What reaching outside the process takes; the rules may import none of it.
EFFECTFUL = {
    "os",
    "shutil",
    "subprocess",
    "tempfile",
    "socket",
    "arcguard.child",
    "arcguard.storage",
    "arcguard.doctor.probes",
    "arcguard.doctor.reading",
}
NOWHERE = Path("/nonexistent/arcguard-doctor-rules")


def _imported(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _calls(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text())
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def test_the_rules_module_imports_nothing_that_reaches_outside() -> None:
    path = arcguard.doctor.wiring.__file__
    imported = _imported(path)
    assert not {
        name
        for name in imported
        for banned in EFFECTFUL
        if name == banned or name.startswith(banned + ".")
    }
    assert "open" not in _calls(path)


def _setup(loaded: dict[str, dict[str, object]], version: tuple[int, int, int]) -> Setup:
    return Setup(
        project=NOWHERE,
        environ={"PATH": "", "HOME": str(NOWHERE)},
        given=False,
        files={scope: NOWHERE / scope for scope in loaded},
        root=None,
        loaded=dict(loaded),
        broken={},
        broken_kind={},
        home=str(NOWHERE / "state"),
        home_problem="",
        # Known already: the rules never ask the installed Claude Code.
        claude=(version, ""),
    )


def _no_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a rule started a process")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


def test_wiring_rules_work_from_settings_held_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_processes(monkeypatch)
    wired: dict[str, object] = {"hooks": plan.desired_hooks("/opt/arcguard/bin/arcguard")}
    setup = _setup({"user": wired, "local": wired}, (2, 1, 328))
    assert [c.status for c in wiring.check_settings_files(setup)] == ["ok", "ok"]
    once, twice = wiring.check_wiring(setup)
    assert (once.status, once.detail) == (
        "ok",
        f"all {len(EVENTS)} events wired once (local, user)",
    )
    assert (twice.status, twice.name) == ("warn", "wiring")
    assert twice.detail.startswith(f"all {len(EVENTS)} events are wired word for word in user")
    assert twice.hint == "keep the user one: arcguard uninstall --scope local"
    [background] = wiring.check_background(setup)
    assert background.status == "ok"


def test_an_older_release_narrowed_to_the_editing_tools_is_a_gap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_processes(monkeypatch)
    handler = {"type": "command", "command": "/opt/arcguard/bin/arcguard hook post-tool"}
    group = {"matcher": "Edit|Write", "hooks": [handler]}
    setup = _setup({"project": {"hooks": {"PostToolUse": [group]}}}, (2, 1, 78))
    [narrowed] = wiring.check_matchers(setup)
    assert narrowed.status == "gap"
    assert narrowed.detail.startswith("PostToolUse runs only for Edit|Write (project)")


def _entry(where: str, hook: str, event: str = "Stop") -> HookEntry:
    return HookEntry(where, event, {"type": "command", "command": f"/opt/bin/arcguard hook {hook}"})


def test_runs_that_fail_alike_are_one_line_and_a_refusal_is_a_skip() -> None:
    runs = [
        wiring.ProbeRun(_entry("user", "stop"), "exit 1", refused=False),
        wiring.ProbeRun(_entry("user", "posture"), "exit 1", refused=False),
        wiring.ProbeRun(_entry("project", "stop"), "not run: inside", refused=True),
        wiring.ProbeRun(_entry("user", "session-start"), "", refused=False),
    ]
    failed, skipped = wiring.checks_of_runs(runs, [])
    assert (failed.status, failed.detail) == (
        "gap",
        "`/opt/bin/arcguard hook stop|posture` (user): exit 1",
    )
    assert failed.hint.startswith("run it by hand to see why")
    assert (skipped.status, skipped.hint) == ("skip", wiring.SKIP_HINT)


def test_runs_with_only_skips_say_how_many_answered_first() -> None:
    runs = [
        wiring.ProbeRun(_entry("user", "stop"), "", refused=False),
        wiring.ProbeRun(_entry("project", "posture"), "not run: inside", refused=True),
    ]
    answered, skipped = wiring.checks_of_runs(runs, [])
    assert (answered.status, answered.detail) == (
        "ok",
        "1 wired commands answer a test payload as hooks must",
    )
    assert skipped.status == "skip"


def test_a_missing_program_is_a_gap_with_the_fix_for_where_it_is_wired() -> None:
    found = wiring.executable_checks(
        [
            wiring.Program("user", "/opt/bin/arcguard", found=True),
            wiring.Program("local", "/gone/arcguard", found=False),
            wiring.Program("plugin", "arcguard", found=False),
        ]
    )
    assert [(c.status, c.hint) for c in found] == [
        ("ok", ""),
        ("gap", "arcguard install --scope local"),
        ("gap", wiring.PLUGIN_HINT),
    ]


def test_no_command_anywhere_is_a_gap_where_claude_code_rejects_the_prompt() -> None:
    newer, older = _setup({}, (2, 1, 328)), _setup({}, (2, 1, 200))
    assert [c.status for c in wiring.command_checks(newer, {})] == ["warn"]
    assert [c.status for c in wiring.command_checks(older, {})] == ["gap"]
    user = {"user": (NOWHERE / "autonomous.md", "edited")}
    [edited] = wiring.command_checks(newer, user)
    assert (edited.status, edited.detail) == ("ok", f"{NOWHERE / 'autonomous.md'} (edited by hand)")
