"""One guard per session: the settings-file hooks an SDK application's CLI would also run.

The Claude Agent SDK starts the Claude Code CLI, which loads the settings files named by
`setting_sources` (all of them when it is None, the SDK's default) and runs their hooks next
to the application's callbacks. A user who ran `arcguard install` would then have arcguard
decide every event twice on one state file: each call counted twice, a cycle seen early, a
pause after two calls. So the SDK hooks refuse to be made while such hooks would run.
"""

from __future__ import annotations

import os
from pathlib import Path

from arcguard.claude_settings import merge_plan
from arcguard.claude_settings import settings_files
from arcguard.errors import ArcguardError


TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

# What the CLI loads when the application does not say (`setting_sources=None`).
ALL_SOURCES = ("user", "project", "local")


class DoubleWiring(ArcguardError, RuntimeError):
    """arcguard's hooks are in a settings file the SDK's CLI will load: two guards would act
    on one session. `found` lists (settings file, event) of each such hook."""

    def __init__(self, found: list[tuple[str, str]]) -> None:
        files = sorted({where for where, _ in found})
        super().__init__(
            "arcguard's hooks are also wired in "
            + ", ".join(files)
            + ", which the Claude Code CLI loads for this application: both would act on "
            "every event of one session. Run `arcguard uninstall` for that scope, or leave "
            'it out of `setting_sources` (for example setting_sources=["project"] or []).'
        )
        self.found = found


def settings_hooks(
    cwd: str | os.PathLike[str] | None,
    setting_sources: Sequence[str] | None,
    environ: Mapping[str, str],
) -> list[tuple[str, str]]:
    """(settings file, event) of each arcguard hook, or lookalike, in the files the CLI loads.

    A file that cannot be read is skipped: the CLI cannot take hooks from it either."""
    project = Path(cwd if cwd is not None else os.getcwd())
    sources = ALL_SOURCES if setting_sources is None else tuple(setting_sources)
    found = []
    for scope, path in settings_files.scope_files(project, _cli_environ(environ)).items():
        if scope not in sources:
            continue
        try:
            settings, _ = settings_files.load(path)
        except merge_plan.SettingsError:
            continue
        for event, handler in merge_plan.all_entries(settings):
            if _arcguard(handler):
                found.append((str(path), event))
    return found


def refuse_double_wiring(
    cwd: str | os.PathLike[str] | None,
    setting_sources: Sequence[str] | None,
    environ: Mapping[str, str],
) -> None:
    """Raise DoubleWiring when a settings file the CLI loads wires arcguard's hooks too."""
    found = settings_hooks(cwd, setting_sources, environ)
    if found:
        raise DoubleWiring(found)


def _arcguard(handler: object) -> bool:
    return (
        merge_plan.is_ours(handler)
        or merge_plan.resident_port(handler) is not None
        or merge_plan.looks_like_ours(handler)
    )


def _cli_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """The CLI's environment as far as it names the user's settings file: the HOME it is
    given, when the application gives one, places `~/.claude` there."""
    found = dict(environ)
    if "CLAUDE_CONFIG_DIR" not in found and found.get("HOME"):
        found["CLAUDE_CONFIG_DIR"] = os.path.join(found["HOME"], ".claude")
    return found
