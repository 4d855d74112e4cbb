"""The click command group. Subcommands are imported only when they run."""

from __future__ import annotations

import importlib
import importlib.util

import click

from arcguard import __version__


COMMANDS = {
    "arc": ("arcguard.commands.arc", "arc"),
    "demo": ("arcguard.commands.demo", "demo"),
    "doctor": ("arcguard.commands.doctor", "doctor"),
    "forensics": ("arcguard.commands.forensics", "forensics"),
    "hook": ("arcguard.commands.hook_help", "hook"),
    "install": ("arcguard.commands.install", "install"),
    "off": ("arcguard.commands.off", "off"),
    "on": ("arcguard.commands.on", "on"),
    "replay": ("arcguard.commands.replay", "replay"),
    "report": ("arcguard.commands.report", "report"),
    "serve": ("arcguard.commands.serve", "serve"),
    "status": ("arcguard.commands.status", "status"),
    "statusline": ("arcguard.commands.statusline", "statusline"),
    "uninstall": ("arcguard.commands.uninstall", "uninstall"),
}


class SuggestingGroup(click.Group):
    """A group that answers a mistyped command with the closest ones it has."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        typed = bool(name) and not name.startswith("-") and not ctx.resilient_parsing
        if typed and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self._shown(ctx), n=1, cutoff=0.6)
            if close:
                ctx.fail(f"No such command {name!r}. Did you mean {close[0]!r}?")
        return super().resolve_command(ctx, args)

    def _shown(self, ctx: click.Context) -> list[str]:
        # Internal commands are never suggested: `--help` does not list them either.
        commands = ((name, self.get_command(ctx, name)) for name in self.list_commands(ctx))
        return [name for name, command in commands if command is not None and not command.hidden]


class LazyGroup(SuggestingGroup):
    """A group whose commands live in their own modules, loaded on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, (module, _) in COMMANDS.items() if _exists(module))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _exists(COMMANDS[cmd_name][0]):
            return None
        module, attr = COMMANDS[cmd_name]
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


def _exists(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arcguard")
def cli() -> None:
    """Keep an autonomous Claude Code session on its arc.

    arcguard runs as Claude Code hooks: a no-op stop in the middle of an arc is sent back to
    work (within caps), repeated no-progress tool calls are denied, repeating cycles and
    unattended runs are paused. `arcguard install` wires it, `arcguard doctor` checks the
    wiring, `arcguard status` shows what it did.
    """


def run(args: list[str]) -> int:
    try:
        result = cli.main(args, prog_name="arcguard", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("Aborted!", err=True)
        return 1
    return result if isinstance(result, int) else 0
