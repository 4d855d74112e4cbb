"""What `arcguard doctor` checks look at (`Setup`), the hook entries it reads (`HookEntry`), and
what each check finds (`Check`, made with `ok`, `warn`, `gap` and `skip`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING
from typing import NamedTuple

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.values import value


if TYPE_CHECKING:
    from pathlib import Path

    from arcguard.claude_settings.releases import Version
    from arcguard.jsonio import JSONObject

# A skip is a command doctor chose not to run: worth seeing, no sign of a problem, so it does
# not change the exit status.
OK, GAP, WARN, SKIP = "ok", "gap", "warn", "skip"
PLUGIN_ID = "arcguard@"
# Scopes whose settings file is the project's own (committed, or local to this clone).
PROJECT_SCOPES = ("project", "local")


class Check(NamedTuple):
    name: str
    status: str
    detail: str
    hint: str = ""


def ok(name: str, detail: str) -> Check:
    return Check(name, OK, detail)


def warn(name: str, detail: str, hint: str = "") -> Check:
    return Check(name, WARN, detail, hint)


def gap(name: str, detail: str, hint: str) -> Check:
    return Check(name, GAP, detail, hint)


def skip(name: str, detail: str, hint: str) -> Check:
    return Check(name, SKIP, detail, hint)


@value
class HookEntry:
    """One hook handler of a settings file (or of the plugin), where it is and on which event.

    The handler stays the JSON object the file holds: `merge_plan` reads its words, and two
    handlers are the same one only when every key is.
    """

    where: str
    event: str
    handler: JSONObject


@value
class Setup:
    """What the checks look at: the settings files of every scope that applies, and more
    (`doctor.reading.read_setup` reads them)."""

    project: Path
    environ: dict[str, str]
    given: bool
    # The settings file of each scope; Claude Code reads the project's from the folder it
    # starts in, nowhere above.
    files: dict[str, Path]
    # The project whose own code doctor never runs, or None (`reading.project_root`).
    root: Path | None
    loaded: dict[str, JSONObject]
    # Why a scope's file cannot be used, and what kind of problem that is.
    broken: dict[str, str]
    broken_kind: dict[str, str]
    home: str
    # Why ARCGUARD_HOME is refused ("" when it is not); `home` is then the default place.
    home_problem: str
    # The installed Claude Code's (version, why unknown), once asked.
    claude: tuple[Version | None, str] | None = None

    def guarded(self, where: str, program: str | None) -> str | None:
        """The project folder whose own code the entry found `where`, naming `program`, must
        not run from; None when doctor may run it wherever it lies.

        The project's own settings files are the project's words; a program named by bare
        name is whatever PATH finds first, and PATH can lead into the project (an activated
        virtualenv, a `.envrc`). An absolute program in the user's settings, or the plugin's
        launcher resolved outside the project, is the user's own install.
        """
        if self.root is None:
            return None
        if where in PROJECT_SCOPES or (program is not None and os.sep not in program):
            return str(self.root)
        return None

    def arcguard(self, verb: str, scope: str) -> str:
        """`arcguard install` or `uninstall` for `scope`, as typed in this folder."""
        import shlex

        command = f"arcguard {verb} --scope {scope}"
        if self.given and scope in PROJECT_SCOPES:
            command += f" --project {shlex.quote(str(self.project))}"
        return command

    def claude_version(self) -> tuple[Version | None, str]:
        """(the installed Claude Code's version, '') or (None, why not known); asked once."""
        if self.claude is None:
            self.claude = cc.claude_version(self.environ)
        return self.claude

    def entries(self) -> list[HookEntry]:
        """Every arcguard handler Claude Code will run."""
        found = [
            HookEntry(scope, event, handler)
            for scope, settings in self.loaded.items()
            for event, handler in plan.our_entries(settings)
        ]
        if self.plugin_enabled():
            found += [
                HookEntry("plugin", event, dict(handler))
                for event, [group] in plan.desired_hooks("arcguard").items()
                for handler in group["hooks"]
            ]
        return found

    def suspects(self) -> list[HookEntry]:
        """The commands that mention arcguard without being exactly an arcguard invocation:
        doctor reports them and never runs them."""
        return [
            HookEntry(scope, event, handler)
            for scope, settings in self.loaded.items()
            for event, handler in plan.lookalike_entries(settings)
        ]

    def plugin_enabled(self) -> bool:
        """An `arcguard@<marketplace>` plugin enabled by the scope that wins for it."""
        enabled: dict[str, bool] = {}
        for scope in cc.SCOPES:  # lowest precedence first: later scopes override
            plugins = self.loaded.get(scope, {}).get("enabledPlugins")
            if isinstance(plugins, dict):
                enabled.update(
                    {
                        k: v is True
                        for k, v in plugins.items()
                        if isinstance(k, str) and k.startswith(PLUGIN_ID)
                    }
                )
        return any(enabled.values())
