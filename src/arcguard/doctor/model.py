"""What `arcguard doctor` checks look at (`Setup`) and what each one finds (`Check`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from typing import NamedTuple

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.storage import paths


if TYPE_CHECKING:
    from typing import Any

    from arcguard.claude_settings.releases import Version

OK, GAP, WARN = "ok", "gap", "warn"
PLUGIN_ID = "arcguard@"


class Check(NamedTuple):
    name: str
    status: str
    detail: str
    hint: str = ""


class Setup:
    """What the checks look at: the settings files of every scope that applies, and more."""

    def __init__(self, project: Path, environ: dict[str, str]) -> None:
        self.project = project
        self.environ = environ
        self.files = {scope: cc.settings_path(scope, project, environ) for scope in cc.SCOPES}
        self.loaded: dict[str, dict[str, Any]] = {}
        self.broken: dict[str, str] = {}
        self.broken_kind: dict[str, str] = {}
        for scope, path in self.files.items():
            try:
                settings, text = cc.load(path)
            except plan.SettingsError as exc:
                self.broken[scope] = str(exc)
                self.broken_kind[scope] = exc.kind
                continue
            if text is not None:
                self.loaded[scope] = settings
        self.home_problem = ""
        try:
            self.home = paths.state_dir(environ)
        except paths.UnusablePath as exc:
            # Hooks refuse to run with it; the remaining checks look at the default place.
            self.home_problem = str(exc)
            self.home = paths.state_dir({k: v for k, v in environ.items() if k != "ARCGUARD_HOME"})
        self._claude: tuple[Version | None, str] | None = None

    def claude_version(self) -> tuple[Version | None, str]:
        """(the installed Claude Code's version, '') or (None, why not known); asked once."""
        if self._claude is None:
            self._claude = cc.claude_version(self.environ)
        return self._claude

    def entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(where, event, handler) of every arcguard handler Claude Code will run."""
        found = [
            (scope, event, handler)
            for scope, settings in self.loaded.items()
            for event, handler in plan.our_entries(settings)
        ]
        if self.plugin_enabled():
            found += [
                ("plugin", event, handler)
                for event, [group] in plan.desired_hooks("arcguard").items()
                for handler in group["hooks"]
            ]
        return found

    def suspects(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(where, event, handler) of commands that mention arcguard without being exactly
        an arcguard invocation: doctor reports them and never runs them."""
        return [
            (scope, event, handler)
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
