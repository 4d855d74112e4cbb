"""arcguard's own files: where they live, atomic writes and locks, the session store,
the error log and the config file."""
