"""The typed records of a settings file and of its `hooks` table, as `arcguard install` writes
it.

What is read from a file is not trusted to have this shape: it is a `JSONObject` whose values
are checked where they are used (`merge_plan`). Types only: nothing imports this at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import NotRequired
from typing import TypedDict


if TYPE_CHECKING:
    from arcguard.jsonio import JSONObject

    # A settings file's document as parsed: every value is checked before it is used.
    Settings = JSONObject


# A hook handler as install writes it: a command (one shell line, or the exec form's
# program and `args`), or in resident mode an http hook. (`async` is a Python keyword,
# hence the call form.)
Handler = TypedDict(
    "Handler",
    {
        "type": str,
        "command": NotRequired[str],
        "args": NotRequired[list[str]],
        "url": NotRequired[str],
        "headers": NotRequired[dict[str, str]],
        "allowedEnvVars": NotRequired[list[str]],
        "timeout": int,
        "async": NotRequired[bool],
        "asyncRewake": NotRequired[bool],
    },
)


class MatcherGroup(TypedDict):
    """One element of an event's array in the `hooks` table."""

    matcher: NotRequired[str]  # tool events only
    hooks: list[Handler]


HooksTable = dict[str, list[MatcherGroup]]
