"""The console entry point: hooks take a fast path that never imports click."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "hook":
        from arcguard.hooks import HOOKS

        if args[1] in HOOKS:
            from arcguard.hooks.runner import main as run_hook

            return run_hook(args[1])
    from arcguard.cli import run

    return run(args)
