"""Reading Claude Code transcripts: `tail` does the file I/O, `records` understands entries."""
