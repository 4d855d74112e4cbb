"""One click command per module (`arcguard.cli` loads them lazily)."""
