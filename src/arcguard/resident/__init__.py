"""Resident mode: one loopback server per user answers Claude Code's http hooks with the same
handlers, state files and locks as the command hooks (opt-in: `arcguard install --resident`)."""
