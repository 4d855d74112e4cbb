"""What `arcguard doctor` checks look at (`Setup`) and what each one finds (`Check`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING
from typing import NamedTuple

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.storage import paths


if TYPE_CHECKING:
    from typing import Any

    from arcguard.claude_settings.releases import Version

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


class Setup:
    """What the checks look at: the settings files of every scope that applies, and more."""

    def __init__(self, project: Path, environ: dict[str, str], *, given: bool = False) -> None:
        self.project = project
        self.given = given
        self.environ = environ
        # Claude Code reads the project's settings from the folder it starts in, nowhere above.
        self.files = cc.scope_files(project, environ)
        self.root = project_root(project, environ, given)
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
                ("plugin", event, dict(handler))
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


def home_folder(environ: dict[str, str]) -> str:
    return os.path.realpath(environ.get("HOME") or os.path.expanduser("~"))


def repository_top(folder: str, home: str) -> str | None:
    """The nearest folder at or above `folder` that holds `.git`, looked for on disk only
    (running git would run the repository's own config); the home folder, and anything above
    it or the filesystem root, is no project even when it is a repository (dotfiles)."""
    current = folder
    while current not in (home, os.path.dirname(current)):
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        current = os.path.dirname(current)
    return None


def project_root(folder: Path, environ: dict[str, str], given: bool) -> Path | None:
    """The project doctor is checking, whose own code it never runs; None when `folder` is no
    project: doctor was not given `--project`, and `folder` is the home folder, or neither
    holds a `.claude` folder nor lies in a git repository below the home folder.

    When `folder` lies in a repository, the project is the whole repository: a program in
    its `tools/` is its own code even when doctor runs from a subfolder.
    """
    real = os.path.realpath(folder)
    home = home_folder(environ)
    top = repository_top(real, home)
    if top is not None and top != real:
        return Path(top)
    if given or top is not None or (real != home and os.path.isdir(folder / ".claude")):
        return folder
    return None
