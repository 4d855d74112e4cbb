"""The installing page's samples and figures are the ones the code gives."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from testing.builders import REPO
from testing.cli import invoke

from arcguard.claude_settings import releases


PAGE = (REPO / "docs" / "installing.md").read_text(encoding="utf-8")


def test_the_release_named_for_post_tool_batch_is_the_one_install_uses():
    since = releases.EVENT_SINCE["PostToolBatch"]
    assert since is not None
    named = re.findall(r"PostToolBatch(?: arrived in Claude Code|:) (2\.1\.\d+)", PAGE)
    assert named and set(named) == {releases.dotted(since)}


def _checks(text: str) -> list[tuple[str, str]]:
    """(status, check name) of each line of doctor's output."""
    found = re.findall(r"^(ok|warn|gap) +([a-z /]+):", text, flags=re.MULTILINE)
    return [(status, name) for status, name in found]


def test_the_doctor_sample_is_what_doctor_prints_after_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home, project, bin_dir = tmp_path / "home", tmp_path / "project", tmp_path / "bin"
    for folder in (home, project, bin_dir):
        folder.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\necho '2.1.328 (Claude Code)'\n")
    claude.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    for name in ("CLAUDE_CONFIG_DIR", "ARCGUARD_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert invoke("install").exit_code == 0
    result = invoke("doctor", "--project", str(project))
    assert result.exit_code == 0, result.output
    sample = re.split(r"\$ (?:cd ~ && )?arcguard doctor\n", PAGE, maxsplit=1)[1].split("```", 1)[0]
    assert _checks(sample) == _checks(result.output)
    [runs] = re.findall(r"runs: (\d+) wired commands", sample)
    assert f"runs: {runs} wired commands answer" in result.output


README = (REPO / "README.md").read_text(encoding="utf-8")
PINNED = REPO / ".cache" / "claude-code" / "node_modules" / "@anthropic-ai" / "claude-code"


def test_the_readme_lists_what_each_quick_start_command_needs():
    needs = README.split("What each needs:", 1)[1].split("\n\n", 2)[1]
    demo, suite = [line for line in needs.splitlines() if line.startswith("| ") and "`" in line][:2]
    assert "Python 3.11 or newer" in demo
    words = ("Node.js 20 or newer", "npm", "tmux", "chromium", "MB of disk")
    assert all(word in suite for word in words)


def test_the_node_release_the_readme_names_is_the_pinned_package_s():
    import json

    if not PINNED.is_dir():
        pytest.skip("the pinned Claude Code is not installed in .cache/ (run .ci/run)")
    # The README names the Node release the suite was run on (20) and the one the pinned
    # package declares, which npm warns about on an older Node.
    engines = json.loads((PINNED / "package.json").read_text())["engines"]["node"]
    assert re.findall(r"Node\.js (\d+) or newer", README) == ["20"]
    assert f"`node {engines}`" in README


def test_the_disk_figure_the_readme_gives_is_what_du_measures():
    import subprocess

    # The releases .ci/run installs: the pinned one in .cache/claude-code, the others beside it.
    ci = (REPO / ".ci" / "run").read_text()
    others = re.findall(r'^CLAUDE_CODE_(?:OLDEST|NEWEST)="([\d.]+)"', ci, flags=re.MULTILINE)
    folders = [REPO / ".cache" / "claude-code"]
    folders += [REPO / ".cache" / f"claude-code-{v}" for v in others]
    if len(others) != 2 or not all(f.is_dir() for f in folders):
        pytest.skip("the Claude Code releases are not installed in .cache/ (run .ci/run)")
    du = subprocess.run(
        ["du", "-smcL", *map(str, folders)], capture_output=True, text=True, check=True
    ).stdout
    measured = int(du.splitlines()[-1].split()[0])
    [written] = re.findall(r"about (\d+) MB of disk", README)
    assert abs(int(written) - measured) <= 0.1 * measured


def test_the_numbers_the_readme_gives_are_the_default_config():
    from arcguard.core.config import default_config

    cfg = default_config()
    words = " ".join(README.split())
    assert f"after {cfg.stale_seconds // 3600} idle hours" in words
    assert (
        f"at most {cfg.max_consecutive_continuations} times in a row and "
        f"{cfg.max_continuations_per_arc} per arc" in words
    )
