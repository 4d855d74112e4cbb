"""The pure core: decisions as functions of (event, state, signals, config, now).

Nothing here reads files, the clock or the environment, or imports anything outside the
standard library and `arcguard.core`; `tests/test_purity.py` enforces it.
"""
