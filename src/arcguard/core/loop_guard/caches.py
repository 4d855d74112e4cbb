"""Commands that only clear a cache: `npm cache clean --force`, `pnpm store prune`, `pip cache
purge`, `go clean -modcache`, `docker builder prune`, `rm -rf ~/.cache/pnpm`.

A cache holds copies of what lives elsewhere: a registry's metadata, packages downloaded,
layers built. Clearing one may change the world, but no answer a look gets from the source:
it rules out a stale copy, and the look after it asks the question again. So a version a
registry gives after `npm cache clean --force && npm view x version` is one more way of asking
for it (`asked`), not a value a change set. A command that also installs, builds or writes
anything else is a change as any other.
"""

from __future__ import annotations

from arcguard.core.loop_guard import tool_effects


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.tool_call import ToolCall

# Each program's subcommands that clear its cache (the words after the program, in order).
CLEARING = {
    "npm": (("cache", "clean"), ("cache", "verify")),
    "yarn": (("cache", "clean"),),
    "pnpm": (("store", "prune"),),
    "pip": (("cache", "purge"), ("cache", "remove")),
    "pip3": (("cache", "purge"), ("cache", "remove")),
    "uv": (("cache", "clean"), ("cache", "prune")),
    "go": (("clean", "-cache"), ("clean", "-modcache"), ("clean", "-testcache")),
    "docker": (("builder", "prune"),),
    "pod": (("cache", "clean"),),
    "composer": (("clear-cache",), ("clearcache",)),
    "conda": (("clean",),),
    "brew": (("cleanup",),),
}
# A folder of a path `rm` deletes that holds a cache (`~/.cache/pnpm`, `.next/cache`, Xcode's
# `DerivedData`), or one named for its tool's cache (`__pycache__`, `.pytest_cache`,
# `.parcel-cache`); not a file whose name says cache (`cache_service.py`, `cache.conf`).
CACHE_FOLDERS = frozenset({"cache", ".cache", "__pycache__", "deriveddata"})
CACHE_ENDINGS = ("_cache", "-cache")
REMOVERS = frozenset({"rm"})


def clears_only(call: ToolCall) -> bool:
    """Every simple command of the call only reads or clears a cache, and one clears one."""
    command = tool_effects.command_of(call)
    segments = tool_effects.segments(command) if command else None
    if not segments:
        return False
    cleared = False
    for segment in segments:
        words = tool_effects.unwrap(segment)
        if _clears(words):
            cleared = True
        elif not tool_effects.reads(words):
            return False
    return cleared


def _clears(words: list[str]) -> bool:
    if not words:
        return False
    program, args = tool_effects.program_name(words[0]), words[1:]
    if program in REMOVERS:
        paths = [a for a in args if not a.startswith("-")]
        return bool(paths) and all(_cache_path(path) for path in paths)
    given = [a for a in args if a != "--force"]
    return any(tuple(given[: len(way)]) == way for way in CLEARING.get(program, ()))


def _cache_path(path: str) -> bool:
    """A folder of `path` is a cache's (`~/.cache/pnpm/metadata*`, `node_modules/.cache`)."""
    parts = path.lower().rstrip("/").split("/")
    *folders, last = parts
    named = "." in last[1:]  # a file's name, with its extension
    return any(map(_cache_folder, folders if named else parts))


def _cache_folder(part: str) -> bool:
    return part in CACHE_FOLDERS or (part.startswith(".") and part.endswith(CACHE_ENDINGS))
