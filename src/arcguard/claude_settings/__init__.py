"""Claude Code's configuration as arcguard installs into it: the pure merge plan, the
settings files on disk and the /autonomous slash command."""
