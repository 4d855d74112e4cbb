"""The /autonomous command teaches the stop protocol, and copies of the earlier text upgrade."""

from __future__ import annotations

from arcguard.claude_settings import slash_command as slash


# The template shipped before the DECISION NEEDED protocol, as users have it installed.
BEFORE_DECISION_PROTOCOL = (
    "---\n"
    "description: Start an autonomous arc (arcguard) - work the task through to the end\n"
    "argument-hint: <what to get done>\n"
    "---\n"
    "Autonomous arc. The operator hands you this task to carry through to "
    "the end without further\n"
    "input:\n"
    "\n"
    "$ARGUMENTS\n"
    "\n"
    "How to work while the arc is active:\n"
    "\n"
    "- Plan the work as a few milestones, then work through them one after "
    "another. Do not stop to\n"
    "  ask for confirmation between steps, and do not end a turn with an "
    'empty reply or "No response\n'
    '  requested." while work is left: arcguard sends such a stop back to work.\n'
    "- Check your own progress with real evidence (tests, builds, the "
    "files themselves) rather than\n"
    "  by repeating the same command; a call repeated with the same result "
    "is denied as a repeat.\n"
    "- Pause and ask only for a decision that crosses repositories, "
    "destroys data, or breaks a\n"
    "  public API. Say what you need and why.\n"
    "- When the task is really finished and verified, run the `arc "
    "complete` command that arcguard's\n"
    '  note in your context gives you, or end your reply with exactly "The '
    'arc is complete.". Then\n'
    "  summarise what was done.\n"
)


def test_the_command_teaches_decision_needed_and_completion():
    text = slash.command_template()
    assert "DECISION NEEDED:" in text
    assert "destroys data, crosses repositories, or breaks a public API" in text
    assert "arc complete" in text and "The arc is complete." in text


def test_an_installed_copy_of_the_template_before_the_protocol_is_upgraded():
    assert slash.command_state(BEFORE_DECISION_PROTOCOL) == "old"
