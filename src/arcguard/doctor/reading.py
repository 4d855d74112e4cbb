"""What doctor reads before any check runs: the settings file of every scope, the state
directory, and the project whose own code it must not run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from arcguard.claude_settings import merge_plan as plan
from arcguard.claude_settings import settings_files as cc
from arcguard.doctor.model import Setup
from arcguard.storage import paths


if TYPE_CHECKING:
    from arcguard.jsonio import JSONObject


def read_setup(project: Path, environ: dict[str, str], *, given: bool = False) -> Setup:
    """The `Setup` for checking `project` (`given`: named with `--project`) under `environ`."""
    files = cc.scope_files(project, environ)
    loaded: dict[str, JSONObject] = {}
    broken: dict[str, str] = {}
    broken_kind: dict[str, str] = {}
    for scope, path in files.items():
        try:
            settings, text = cc.load(path)
        except plan.SettingsError as exc:
            broken[scope] = str(exc)
            broken_kind[scope] = exc.kind
            continue
        if text is not None:
            loaded[scope] = settings
    home, home_problem = state_home(environ)
    return Setup(
        project=project,
        environ=environ,
        given=given,
        files=files,
        root=project_root(project, environ, given),
        loaded=loaded,
        broken=broken,
        broken_kind=broken_kind,
        home=home,
        home_problem=home_problem,
    )


def state_home(environ: dict[str, str]) -> tuple[str, str]:
    """(the state directory, '') or, when ARCGUARD_HOME is refused, (the default one, why)."""
    try:
        return paths.state_dir(environ), ""
    except paths.UnusablePath as exc:
        # Hooks refuse to run with it; the remaining checks look at the default place.
        default = paths.state_dir({k: v for k, v in environ.items() if k != "ARCGUARD_HOME"})
        return default, str(exc)


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
