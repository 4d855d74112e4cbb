"""Claude Code's `/goal`: a condition a model judge checks at every stop, keeping the session
going until it holds. While one is active and not met, that judge owns the decision to
continue a stop, so the arc keeper stands aside; the loop guard still watches, and the goal
counts as delegated work (an unattended stretch) the way an arc does.

The state keeps the active goal's condition under `seen.goal`. It is set from the prompt that
sets the goal (so the turns before the first stop already count) and corrected at every stop
from the transcript, whose newest `goal_status` entry is the truth: `met: false` while the goal
is active, `met: true` once it is met or cleared.

Pure.
"""

from __future__ import annotations

from arcguard.core.arc_keeper import arc as arcs
from arcguard.core.schema import StateFile
from arcguard.core.state import GOAL_BYTES
from arcguard.core.state import clip_json
from arcguard.core.words.redact import WINDOW
from arcguard.core.words.redact import masked_start
from arcguard.text import clip
from arcguard.values import value


TYPE_CHECKING = False
if TYPE_CHECKING:
    from arcguard.core.config import Config
    from arcguard.core.state import State

COMMAND = "/goal"
# `/goal` alone prints the usage; `/goal clear` ends the goal (measured with 2.1.328).
CLEAR = "clear"
MAX_CONDITION = 200


@value
class Mark:
    """The newest `goal_status` entry of the transcript."""

    met: bool
    condition: str


def active(state: State | None) -> bool:
    """A goal is active and not met (as far as the state knows)."""
    return state is not None and bool(StateFile.view(state).seen.goal)


def delegated(state: State, cfg: Config, now: float) -> bool:
    """Work handed over to run unattended: an active arc, or an active goal."""
    return arcs.is_active(StateFile.view(state).arc, cfg, now) or active(state)


def observe(state: State, mark: Mark | None) -> None:
    """What the transcript says (None: nothing in the part read; the state's word stands)."""
    if mark is None:
        return
    seen = StateFile.view(state).seen
    if mark.met:
        del seen.goal
    else:
        seen.goal = _condition(mark.condition)


def on_prompt(state: State, prompt: str) -> None:
    """The operator typed `/goal <condition>` (set) or `/goal clear` (cleared)."""
    text = prompt.strip()
    head, _, rest = text.partition(" ")
    if head != COMMAND:
        return
    rest = rest.strip()
    seen = StateFile.view(state).seen
    if rest == CLEAR:
        del seen.goal
    elif rest:
        seen.goal = _condition(rest)


def _condition(text: str) -> str:
    # The user's free text, shown in the status line: one line, nothing unprintable, its
    # obvious secrets masked.
    text = "".join(c for c in " ".join(text[:WINDOW].split()) if c.isprintable()) or "goal"
    return clip_json(clip(masked_start(text, MAX_CONDITION + 1), MAX_CONDITION), GOAL_BYTES)
