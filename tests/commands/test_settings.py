"""The pure settings planners and the file helpers of `arcguard.claude_settings.settings_files`."""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from arcguard.claude_settings import json_text as sj
from arcguard.claude_settings import launch_forms
from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.claude_settings import slash_command as slash
from arcguard.hooks import BACKGROUND
from arcguard.hooks import EVENTS


REPO = Path(__file__).resolve().parents[2]
PREFIX = "/opt/arcguard/bin/arcguard"


def handler(command: str) -> dict[str, object]:
    return {"type": "command", "command": command}


def hooks_of(settings: Mapping[str, object]) -> Any:
    """The `hooks` table of settings a plan returned (a test reads it as it knows it is)."""
    return settings["hooks"]


def group(*commands: str, matcher: str | None = None) -> dict[str, object]:
    found: dict[str, object] = {"hooks": [handler(c) for c in commands]}
    if matcher is not None:
        found = {"matcher": matcher, **found}
    return found


# --- recognising our entries ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("/opt/x/bin/arcguard hook stop", "stop"),
        ("arcguard hook posture", "posture"),
        ("'/home/a b/bin/arcguard' hook pre-tool", "pre-tool"),
        ("/usr/bin/python3 -m arcguard hook post-tool", "post-tool"),
        ("python3.12 -m arcguard hook stop", "stop"),
    ],
)
def test_hook_name_recognises_arcguard_commands(command: str, name: str) -> None:
    assert plan.hook_name(handler(command)) == name
    assert plan.is_ours(handler(command))


@pytest.mark.parametrize(
    "command",
    [
        "arcguard hook no-such-hook",
        "arcguardx hook stop",
        "echo arcguard hook stop",
        "sh -m arcguard hook stop",
        "arcguard status",
        "/usr/bin/python3 my_hook.py",
        "arcguard hook 'unbalanced",
    ],
)
def test_other_commands_are_not_ours(command: str) -> None:
    assert not plan.is_ours(handler(command))


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("X=$(id>/tmp/PWNED) arcguard hook stop", "shell syntax"),
        ("ARCGUARD_HOOK_BUDGET_MS=500 arcguard hook stop", "environment variables"),
        ("arcguard hook stop; touch /tmp/x", "shell syntax"),
        ("arcguard hook stop > /tmp/x", "shell syntax"),
        ("arcguard hook stop `id`", "shell syntax"),
        ("/opt/$(id)/arcguard hook stop", "shell syntax"),
        ("./bin/arcguard hook stop", "relative program path"),
        ("python -I -m arcguard hook post-batch", "not arcguard's launcher"),
        ("python3.12 -marcguard hook stop", "not arcguard's launcher"),
        ("arcguard --debug hook stop", "not arcguard's launcher"),
        ("arcguard hook stop extra", "does not end in `hook <name>`"),
        ("arcguard hook stopp", "unknown hook"),
    ],
)
def test_only_an_exact_arcguard_invocation_counts_as_ours(command: str, why: str) -> None:
    # Anything more than `<arcguard> hook NAME` could run other code through Claude Code's
    # shell: it is never ours (install keeps it, doctor does not run it), and the reason shows.
    assert not plan.is_ours(handler(command))
    assert why in plan.why_not_ours(handler(command))
    assert plan.looks_like_ours(handler(command))
    assert plan.remove_ours({"hooks": {"Stop": [group(command)]}}) == {
        "hooks": {"Stop": [group(command)]}
    }


# Hooks of the user's that live in (or run a program from) a folder named arcguard, as a clone
# of this repository is: the name in a path says nothing about what the command starts.
UNDER_AN_ARCGUARD_FOLDER = [
    handler("/home/me/src/arcguard/tools/notify-desktop.sh"),
    handler("/home/me/src/arcguard/.venv/bin/python /tmp/scripts/payload_log"),
    handler("/home/me/arcguard/bin/lint hook stop"),
    handler("python3 /srv/arcguard/hooks/check.py --hook stop"),
    handler("cd /home/me/arcguard && make hook"),
    {"type": "command", "command": "/opt/arcguard/bin/notify", "args": ["hook", "stop"]},
    {"type": "command", "command": "/usr/bin/python3", "args": ["/x/arcguard/hook.py", "stop"]},
]


@pytest.mark.parametrize("entry", UNDER_AN_ARCGUARD_FOLDER)
def test_a_command_under_a_folder_named_arcguard_is_neither_ours_nor_like_ours(
    entry: dict[str, object],
) -> None:
    assert not plan.is_ours(entry) and not plan.looks_like_ours(entry)
    settings = {"hooks": {"Stop": [{"hooks": [entry]}]}}
    assert plan.lookalike_entries(settings) == []
    assert plan.remove_ours(settings) == settings
    installed = plan.plan_install(settings, PREFIX)
    assert hooks_of(installed)["Stop"][0] == {"hooks": [entry]}
    assert plan.remove_ours(installed) == settings


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'arcguard hook stop'",
        "cd /work && /opt/arcguard/bin/arcguard hook stop",
        "python3 -c 'from arcguard.main import main; main()' hook stop",
        "/usr/bin/python3 -S -I -c '" + launch_forms.LAUNCH_STUB + "' /s/hook.py hook stop",
    ],
)
def test_a_command_written_otherwise_to_start_an_arcguard_hook_is_like_ours(command: str) -> None:
    assert not plan.is_ours(handler(command)) and plan.looks_like_ours(handler(command))


def test_non_command_handlers_are_not_ours() -> None:
    assert not plan.is_ours({"type": "http", "command": "arcguard hook stop"})
    assert not plan.is_ours("arcguard hook stop")
    assert not plan.is_ours({"type": "command"})


def test_exec_form_with_args_is_ours() -> None:
    assert (
        plan.hook_name({"type": "command", "command": "arcguard", "args": ["hook", "stop"]})
        == "stop"
    )


# --- the entries install writes ------------------------------------------------------------


def test_desired_hooks_match_the_published_snippet() -> None:
    snippet = json.loads((REPO / "hooks.settings.json.snippet").read_text())
    assert plan.desired_hooks("arcguard") == snippet["hooks"]


def test_plugin_hooks_file_matches_the_snippet_and_calls_arcguard_on_path() -> None:
    from arcguard import __version__

    plugin = json.loads((REPO / "plugin" / "hooks" / "hooks.json").read_text())
    snippet = plan.desired_hooks("arcguard")
    assert list(plugin["hooks"]) == list(snippet)
    for event, [group] in snippet.items():
        [theirs] = plugin["hooks"][event]
        assert {k: v for k, v in theirs.items() if k != "hooks"} == {
            k: v for k, v in group.items() if k != "hooks"
        }
        for mine, handler in zip(theirs["hooks"], group["hooks"], strict=True):
            assert mine["command"].startswith("command -v arcguard >/dev/null 2>&1 && exec ")
            assert {**mine, "command": handler["command"]} == handler
            assert f"exec {handler['command']}; " in mine["command"]
    manifest = json.loads((REPO / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "arcguard"
    assert manifest["version"] == __version__


def test_plugin_command_is_the_shipped_template() -> None:
    assert (REPO / "plugin" / "commands" / "autonomous.md").read_text() == slash.command_template()


def test_every_event_is_wired_to_its_hook() -> None:
    hooks = plan.desired_hooks(PREFIX)
    assert list(hooks) == list(EVENTS)
    for event, groups in hooks.items():
        [only] = groups
        [entry, *background] = only["hooks"]
        assert background == plan.background_handlers(event, PREFIX)
        assert entry["command"] == f"{PREFIX} hook {EVENTS[event]}"
        assert ("matcher" in only) == (event in plan.MATCHER_EVENTS)


def _matchers(settings: dict[str, object]) -> dict[str, object]:
    hooks = settings["hooks"]
    assert isinstance(hooks, dict)
    return {event: groups[0].get("matcher") for event, groups in hooks.items()}


def test_with_post_tool_batch_post_tool_use_runs_for_the_editing_tools_only() -> None:
    matchers = _matchers(plan.plan_install({}, PREFIX))
    assert matchers["PostToolUse"] == "Edit|MultiEdit|NotebookEdit|Write"
    assert matchers["PreToolUse"] == matchers["PostToolUseFailure"] == "*"


def test_without_post_tool_batch_post_tool_use_runs_for_every_tool() -> None:
    events = [event for event in EVENTS if event != "PostToolBatch"]
    matchers = _matchers(plan.plan_install({}, PREFIX, events))
    assert matchers["PostToolUse"] == "*"
    assert "PostToolBatch" not in matchers


def test_install_after_an_upgrade_narrows_post_tool_use_and_adds_the_batch() -> None:
    old = plan.plan_install({}, PREFIX, [e for e in EVENTS if e != "PostToolBatch"])
    new = plan.plan_install(old, PREFIX)
    assert new == plan.plan_install({}, PREFIX)
    assert hooks_of(new)["PostToolUse"] == [plan.desired_group("PostToolUse", PREFIX)]
    assert _matchers(new)["PostToolUse"] == plan.EDIT_TOOLS_MATCHER


# --- plan_install --------------------------------------------------------------------------


def test_install_into_empty_settings_adds_every_event() -> None:
    assert plan.plan_install({}, PREFIX) == {"hooks": plan.desired_hooks(PREFIX)}


def test_install_keeps_other_keys_and_their_order() -> None:
    before = {"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, "env": {"A": "1"}}
    after = plan.plan_install(before, PREFIX)
    assert list(after) == ["model", "permissions", "env", "hooks"]
    assert {k: after[k] for k in before} == before


def test_install_keeps_other_hooks_on_the_same_events_first() -> None:
    mine = group("./lint.sh", matcher="Bash")
    before = {"hooks": {"Notification": [group("notify-send hi")], "PreToolUse": [mine]}}
    after = plan.plan_install(before, PREFIX)
    assert hooks_of(after)["PreToolUse"] == [mine, plan.desired_group("PreToolUse", PREFIX)]
    assert hooks_of(after)["Notification"] == [group("notify-send hi")]
    assert list(hooks_of(after))[:2] == ["Notification", "PreToolUse"]


def test_install_does_not_mutate_its_input() -> None:
    before = {"hooks": {"Stop": [group("echo")]}}
    snapshot = json.dumps(before)
    plan.plan_install(before, PREFIX)
    assert json.dumps(before) == snapshot


def test_install_is_idempotent() -> None:
    once = plan.plan_install({"hooks": {"Stop": [group("echo")]}}, PREFIX)
    assert plan.plan_install(once, PREFIX) == once


def test_install_replaces_an_old_entry_in_place() -> None:
    old = group("/gone/venv/bin/arcguard hook stop")
    before = {"hooks": {"Stop": [group("first"), old, group("last")]}}
    after = plan.plan_install(before, PREFIX)
    assert hooks_of(after)["Stop"] == [
        group("first"),
        plan.desired_group("Stop", PREFIX),
        group("last"),
    ]


def test_install_collapses_duplicates_to_one_entry() -> None:
    dup = group("arcguard hook stop")
    after = plan.plan_install(
        {"hooks": {"Stop": [dup, dup, plan.desired_group("Stop", PREFIX)]}}, PREFIX
    )
    assert hooks_of(after)["Stop"] == [plan.desired_group("Stop", PREFIX)]


def test_install_takes_our_handler_out_of_a_shared_group() -> None:
    shared = group("echo before", "arcguard hook stop", "echo after")
    after = plan.plan_install({"hooks": {"Stop": [shared]}}, PREFIX)
    assert hooks_of(after)["Stop"] == [
        plan.desired_group("Stop", PREFIX),
        group("echo before", "echo after"),
    ]


def test_install_rewires_an_entry_with_the_wrong_timeout() -> None:
    stale = {"hooks": [{"type": "command", "command": f"{PREFIX} hook stop", "timeout": 60}]}
    after = plan.plan_install({"hooks": {"Stop": [stale]}}, PREFIX)
    assert hooks_of(after)["Stop"] == [plan.desired_group("Stop", PREFIX)]


@pytest.mark.parametrize("bad", [{"hooks": []}, {"hooks": {"Stop": {"hooks": []}}}])
def test_install_refuses_unexpected_shapes(bad: dict[str, object]) -> None:
    with pytest.raises(plan.SettingsError):
        plan.plan_install(bad, PREFIX)


# --- remove_ours ---------------------------------------------------------------------------


def test_remove_drops_events_it_leaves_empty_and_keeps_the_rest() -> None:
    before = {"hooks": {"Stop": [group("echo")], "Notification": [group("x")]}}
    installed = plan.plan_install(before, PREFIX)
    assert plan.remove_ours(installed) == before


def test_remove_drops_the_hooks_key_it_empties() -> None:
    before = {"model": "opus"}
    assert plan.remove_ours(plan.plan_install(before, PREFIX)) == before


def test_remove_leaves_files_without_our_entries_alone() -> None:
    before = {"hooks": {}, "x": 1}
    assert plan.remove_ours(before) == before
    assert plan.remove_ours({"y": 2}) == {"y": 2}


def test_our_entries_lists_every_arcguard_handler() -> None:
    settings = plan.plan_install({"hooks": {"Stop": [group("echo", "arcguard hook stop")]}}, PREFIX)
    found = plan.our_entries(settings)
    assert [event for event, _ in found].count("Stop") == 1
    assert len(found) == len(EVENTS) + len(BACKGROUND)


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
foreign_handler = st.builds(
    lambda c, t: {"type": "command", "command": c, "timeout": t},
    st.sampled_from(["echo hi", "./lint.sh", "arcguard status"]),
    st.integers(1, 60),
)
foreign_group = st.builds(
    lambda m, hs: {"matcher": m, "hooks": hs},
    st.sampled_from(["*", "Bash", ""]),
    st.lists(foreign_handler, min_size=1, max_size=3),
)
events = st.sampled_from([*EVENTS, "Notification", "SessionEnd"])
foreign_settings = st.fixed_dictionaries(
    {"hooks": st.dictionaries(events, st.lists(foreign_group, min_size=1, max_size=3), min_size=1)},
    optional={"model": json_leaf, "env": st.dictionaries(st.text(max_size=3), json_leaf)},
)


@hypothesis_settings(max_examples=40, deadline=None)
@given(foreign_settings)
def test_install_then_remove_gives_back_the_original(settings: dict[str, object]) -> None:
    installed = plan.plan_install(settings, PREFIX)
    assert plan.plan_install(installed, PREFIX) == installed
    assert len(plan.our_entries(installed)) == len(EVENTS) + len(BACKGROUND)
    assert plan.remove_ours(installed) == settings
    assert json.dumps(plan.remove_ours(installed)) == json.dumps(settings)  # same key order


# --- own_prefix ----------------------------------------------------------------------------


def test_own_prefix_starts_the_interpreter_isolated_and_without_site() -> None:
    words = shlex.split(launch_forms.own_prefix("/opt/py/bin/python3", "/opt/py/lib/site-packages"))
    assert words[:4] == ["/opt/py/bin/python3", "-I", "-S", "-c"]
    assert launch_forms.launch_location(words[4]) == "/opt/py/lib/site-packages"
    assert len(words) == 5


@pytest.mark.parametrize(
    "location", ["/p y/lib", "/caf\u00e9/lib", "/odd\udcff/lib", "/opt/py-3.11/lib/site-packages"]
)
def test_the_launch_command_is_ours_wherever_the_package_is(location: str) -> None:
    command = launch_forms.hook_command(
        launch_forms.own_prefix("/p y/python", location), "pre-tool"
    )
    assert plan.hook_name(handler(command)) == "pre-tool"
    assert plan.program(handler(command)) == "/p y/python"
    assert plan.argv(handler(command))[-2:] == ["hook", "pre-tool"]
    assert launch_forms.launch_location(shlex.split(command)[4]) == location


@pytest.mark.parametrize(
    "location", ["/it's/lib", '/say "x"/lib', "/back\\slash", "/x;rm -rf ~/lib", "/$(id)/lib"]
)
def test_a_package_path_a_shell_would_act_on_gets_the_module_form(location: str) -> None:
    prefix = launch_forms.own_prefix("/venv/bin/python", location)
    assert prefix == "/venv/bin/python -m arcguard"
    assert plan.is_ours(handler(launch_forms.hook_command(prefix, "stop")))


def _written_otherwise(command: str) -> list[str]:
    code = shlex.split(command)[4]
    return [
        command.replace(f"'{code}'", '"' + code.replace('"', '\\"') + '"'),
        command.replace(" -I -S ", " -S -I "),
        command.replace(" -c ", "  -c "),
        "PYTHONPATH=/tmp " + command,
        command + "; id",
        command.replace("/venv/lib", "/venv/$(id)"),
        command.replace("/venv/lib", "/venv/it'\"'\"'s"),
    ]


@pytest.mark.parametrize(
    "variant",
    _written_otherwise(
        launch_forms.hook_command(launch_forms.own_prefix("/venv/bin/python", "/venv/lib"), "stop")
    ),
)
def test_a_launch_command_written_otherwise_is_not_ours(variant: str) -> None:
    # Only the exact text install writes carries quoted code past the shell-syntax rule.
    assert not plan.is_ours(handler(variant))
    assert plan.looks_like_ours(handler(variant))


@pytest.mark.parametrize(
    "code",
    [
        "import os",
        'import sys,os;d=5;os.path.isdir(os.path.join(d,"arcguard"))',
        "import sys,os;d=[1]" + launch_forms.launch_code("/x").partition('"/x"')[2],
        launch_forms.launch_code("/x") + ";print(1)",
        "import os;" + launch_forms.launch_code("/x"),
        launch_forms.launch_code("/x").replace('"/x"', '"/x'),
    ],
)
def test_other_python_code_is_not_ours(code: str) -> None:
    assert launch_forms.launch_location(code) is None
    assert not plan.is_ours(handler(shlex.join(["python3", "-c", code, "hook", "stop"])))


def test_install_replaces_the_module_form_with_the_launch_command() -> None:
    old = plan.plan_install({}, "/venv/bin/python -m arcguard")
    new = plan.plan_install(old, launch_forms.own_prefix("/venv/bin/python", "/venv/lib"))
    assert len(plan.our_entries(new)) == len(EVENTS) + len(BACKGROUND)
    assert all(" -I -S -c " in str(handler["command"]) for _, handler in plan.our_entries(new))
    assert plan.remove_ours(new) == {}


# --- files ---------------------------------------------------------------------------------


def test_load_missing_empty_and_invalid(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert cc.load(path) == ({}, None)
    path.write_text("")
    assert cc.load(path) == ({}, "")
    path.write_text("{ not json")
    with pytest.raises(plan.SettingsError, match="not valid JSON"):
        cc.load(path)
    path.write_text("[1, 2]")
    with pytest.raises(plan.SettingsError, match="JSON object"):
        cc.load(path)


def test_detect_style_and_render() -> None:
    assert sj.detect_style('{\n    "a": 1\n}\n').unit == "    "
    assert sj.detect_style('{\n\t"a": 1\n}\n').unit == "\t"
    assert sj.detect_style("").unit == "  "
    assert sj.detect_style("{}\n") == sj.DEFAULT_STYLE
    assert sj.detect_style('{"a":1}') == sj.Style(None, ":", ",")
    assert sj.render({"a": "é"}, sj.Style("    ", ": ", ", ")) == '{\n    "a": "é"\n}'


def test_unified_diff_shows_the_change(tmp_path: Path) -> None:
    diff = cc.unified_diff('{\n  "a": 1\n}\n', '{\n  "a": 2\n}\n', tmp_path / "s.json")
    assert '-  "a": 1' in diff and '+  "a": 2' in diff
    assert cc.unified_diff(None, "{}\n", tmp_path / "s.json").startswith("--- /dev/null")


def test_write_keeps_mode_and_makes_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("old\n")
    path.chmod(0o600)
    backup = cc.write(path, "new\n")
    assert path.read_text() == "new\n"
    assert backup is not None and backup.read_text() == "old\n"
    assert backup.name == "settings.json.arcguard.bak"
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json", backup.name]


def test_write_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    cc.write(link, '{"a": 1}\n')
    assert link.is_symlink()
    assert real.read_text() == '{"a": 1}\n'


def test_write_creates_missing_directories(tmp_path: Path) -> None:
    path = tmp_path / "p" / ".claude" / "settings.json"
    assert cc.write(path, "{}\n") is None
    assert path.read_text() == "{}\n"


def test_scope_paths(tmp_path: Path) -> None:
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    project = tmp_path / "proj"
    assert cc.settings_path("user", project, env) == tmp_path / "cfg" / "settings.json"
    assert cc.settings_path("project", project, env) == project / ".claude" / "settings.json"
    assert cc.settings_path("local", project, env) == project / ".claude" / "settings.local.json"
    assert cc.commands_dir("local", project, env) == project / ".claude" / "commands"
    assert cc.commands_dir("user", project, {}) == Path.home() / ".claude" / "commands"


# --- the /autonomous command ---------------------------------------------------------------


def test_command_template_is_a_prompt_with_arguments() -> None:
    text = slash.command_template()
    assert text.startswith("---\n")
    assert "$ARGUMENTS" in text
    assert slash.command_state(text) == "current"


def test_command_state(monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib

    template = slash.command_template()
    assert slash.command_state(None) == "missing"
    assert slash.command_state(template + "my own line\n") == "edited"
    assert slash.command_state("---\ndescription: my autonomous mode\n---\ngo\n") == "foreign"
    assert slash.command_state("(arcguard) in the body only\n") == "foreign"
    older = "---\ndescription: an older template\n---\n$ARGUMENTS\n"
    monkeypatch.setattr(
        slash, "PRIOR_COMMAND_DIGESTS", (hashlib.sha256(older.encode()).hexdigest(),)
    )
    assert slash.command_state(older) == "old"


def test_a_settings_error_reads_as_its_message_and_keeps_its_kind() -> None:
    error = plan.SettingsError('"hooks" is not a JSON object', "shape")
    assert str(error) == '"hooks" is not a JSON object'
    assert error.kind == "shape"
    assert plan.SettingsError("cannot read it").kind == "unreadable"


def test_only_json_objects_in_a_hooks_array_are_entries() -> None:
    ours = handler("arcguard hook stop")
    settings = {"hooks": {"Stop": [{"hooks": ["arcguard hook stop", 3, None, ours]}]}}
    assert plan.all_entries(settings) == [("Stop", ours)]
    assert plan.our_entries(settings) == [("Stop", ours)]
