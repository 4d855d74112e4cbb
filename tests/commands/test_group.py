"""The command line a person meets: internal verbs out of the main help, a suggestion for a
mistyped command."""

from __future__ import annotations

import pytest
from testing.builders import REPO
from testing.cli import invoke


INTERNAL = {"arcguard": ["hook"], "arcguard arc": ["bump", "reset", "try-block"]}


def _listed(help_text: str) -> list[str]:
    commands = help_text.split("\nCommands:\n", 1)[1]
    return [line.split()[0] for line in commands.splitlines() if line.startswith("  ")]


@pytest.mark.parametrize("group", sorted(INTERNAL))
def test_internal_verbs_are_left_out_of_the_help_but_still_run(group: str):
    words = group.split()[1:]
    listed = _listed(invoke(*words, "--help").output)
    assert listed and not set(INTERNAL[group]) & set(listed)
    for name in INTERNAL[group]:
        assert invoke(*words, name, "--help").exit_code == 0


def test_the_cli_reference_marks_the_internal_verbs():
    reference = (REPO / "docs" / "cli.md").read_text()
    for group, names in INTERNAL.items():
        for name in names:
            section = reference.split(f"\n## {group} {name}\n", 1)[1].split("\n## ", 1)[0]
            assert section.lstrip().startswith("Internal: ")
            anchor = f"{group} {name}".replace(" ", "-")
            assert f"- [`{group} {name}`](#{anchor}) (internal)\n" in reference


@pytest.mark.parametrize(
    ("typed", "meant"),
    [(["instal"], "install"), (["stat"], "status"), (["arc", "complet"], "complete")],
)
def test_a_mistyped_command_gets_the_closest_one(typed: list[str], meant: str):
    result = invoke(*typed)
    assert result.exit_code == 2
    assert f"No such command {typed[-1]!r}. Did you mean {meant!r}?" in result.output


def test_nothing_close_gets_no_suggestion_and_internal_verbs_are_never_suggested():
    assert "Did you mean" not in invoke("zzz").output
    assert "Did you mean" not in invoke("hok").output
