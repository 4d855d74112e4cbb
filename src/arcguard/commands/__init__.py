"""One click command per module (`arcguard.commands.group` loads them lazily)."""
