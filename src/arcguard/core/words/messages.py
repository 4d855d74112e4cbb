"""What arcguard says to the model and to the user. Kept together so the voice stays one."""

from __future__ import annotations

from arcguard.text import clip


# A slug or milestone is the user's free text: shown cut, so the instructions around it (the
# completion command last of all) always fit in what Claude Code passes on whole.
MAX_NAME_SHOWN = 200
MAX_MILESTONE_SHOWN = 1000


# What a POSIX shell reads literally without quotes (the same set `shlex.quote` leaves alone);
# written out because importing `shlex` pulls `re` onto the hook path.
_SHELL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def shell_quote(word: str) -> str:
    """One word as a POSIX shell reads it back unchanged (like `shlex.quote`)."""
    if word and all(c in _SHELL_SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def shell_join(argv: list[str]) -> str:
    """A command line the model can paste into a shell: every word quoted as needed."""
    return " ".join(shell_quote(word) for word in argv)


def complete_hint(command: str, session_id: str) -> str:
    """`command` is already a shell command line (see `shell_join`); the id is quoted here."""
    return f"`{command} arc complete {shell_quote(session_id)}`"


DECISION_HOWTO = (
    "If this decision destroys data, crosses repositories or breaks a public API, say so in a"
    " message that starts with DECISION NEEDED:; otherwise proceed with your own recommendation."
)


def posture_line(slug: str, next_milestone: str, command: str, session_id: str) -> str:
    slug, next_milestone = clip(slug, MAX_NAME_SHOWN), clip(next_milestone, MAX_MILESTONE_SHOWN)
    nxt = f" Next milestone: {next_milestone}." if next_milestone else ""
    return (
        f"[arcguard] Autonomous arc '{slug}' is active: keep working through it without handing"
        f" control back to the user: do not ask for permission or announce a step without"
        f" taking it.{nxt} Pause only for a decision that destroys data, crosses repositories"
        " or breaks a public API, and then start your final message with 'DECISION NEEDED:'"
        " saying what is needed and why. When the arc is really finished, run"
        f" {complete_hint(command, session_id)} (or make your whole final reply exactly"
        " 'The arc is complete.')."
    )


def arc_stopped(name: str) -> str:
    return (
        f"[arcguard] The user ended the autonomous arc '{clip(name, MAX_NAME_SHOWN)}' with"
        " /autonomous stop. Stop working on it: say in one short line where the work stands,"
        " and wait for the user."
    )


def arc_stop_without_arc() -> str:
    return (
        "[arcguard] /autonomous stop: no autonomous arc was active in this session, so nothing"
        " changed. Say so in one short line."
    )


def arc_replaced(old: str) -> str:
    return (
        "[arcguard] This /autonomous starts a new arc for the task typed with it; the arc"
        f" '{clip(old, MAX_NAME_SHOWN)}' is over, and its continuations do not carry over."
        " Leave its unfinished work unless the new task needs it."
    )


# Claude Code prints a Stop hook's reason on the screen as well as giving it to the model, so
# a reason names the completion command instead of spelling it out (a path and a session id
# mean nothing to the person watching): the posture note on every prompt holds the command.
COMPLETE_BY_NOTE = (
    "run the `arc complete` command from arcguard's note on your prompt (or make your whole"
    " final reply exactly 'The arc is complete.')"
)


def stop_block_reason(
    slug: str, next_milestone: str, *, seen: str = "ended with nothing done"
) -> str:
    slug, next_milestone = clip(slug, MAX_NAME_SHOWN), clip(next_milestone, MAX_MILESTONE_SHOWN)
    nxt = (
        f" Continue with the next milestone: {next_milestone}."
        if next_milestone
        else " Continue with the work."
    )
    return (
        f"[arcguard] Autonomous arc '{slug}' is still active, and this turn {seen}: that is not"
        " a valid stop in the middle of an arc. Check where the work stands (files, tests,"
        f" git).{nxt} {DECISION_HOWTO} If the arc is really finished, {COMPLETE_BY_NOTE} so"
        " this stops."
    )


def resume_block_reason(slug: str) -> str:
    slug = clip(slug, MAX_NAME_SHOWN)
    arc = (
        f" Autonomous arc '{slug}' is active; when it is really finished, {COMPLETE_BY_NOTE}."
        if slug
        else ""
    )
    return (
        "[arcguard] This session was interrupted (a crash or a reconnect) and resumed, and the"
        " reply to the resume was empty. Nobody asked you to stop: pick up where you were."
        " Check where the work stands (files, tests, git) and carry on with the task."
        f"{arc} If you were waiting for the user, say what you need from them."
    )


def deny_reason(label: str, runs: int, *, timed_out: bool) -> str:
    unlock = (
        "retry it with a larger timeout (once), change something it depends on, or take"
        " a different approach"
        if timed_out
        else "change something it depends on first (edit a file), or take a different approach"
    )
    return (
        f"[arcguard] Denied as a repeat: this exact call ({label}) already ran {runs} times with"
        " the same result, and running it again is unlikely to tell you anything new. To run"
        f" it again, {unlock}."
    )


def deny_at_once(label: str, copies: int) -> str:
    return (
        f"[arcguard] Denied as a duplicate: this exact call ({label}) was issued {copies} times"
        " at once in this turn, and none of those copies has a result yet. Wait for the ones"
        " already running, then decide from their results whether another run is needed."
    )


def checkin_nudge(turns: int) -> str:
    return (
        f"[arcguard] {turns} turns in a row with tool calls and no word to the user, and the"
        " recent ones changed nothing and brought no new result. Stop and summarise: what you"
        " have done, what is left, and whether the last calls made progress."
    )


def backstop_nudge(turns: int) -> str:
    return (
        f"[arcguard] {turns} turns since the user's last message. Send a brief progress summary:"
        " what has been done, what is left, and anything that blocks you."
    )


def _times(n: int) -> str:
    return f"{n} times"


CYCLE_SETTINGS = "cycle_repeats, cycle_repeats_identical, loop_guard or arcguard off"


def cycle_pause(
    period: int, repeats: int, labels: list[str], *, results_changed: bool = False
) -> str:
    what = (
        "the same call " + _times(repeats)
        if period == 1
        else f"a {period}-call cycle {_times(repeats)}"
    )
    shown = "; ".join(labels[:3])
    # Fresh results are progress of a kind: only the calls repeated, so say just that.
    how = ", with changing results but no word to you" if results_changed else " without progress"
    return (
        f"arcguard paused this session: the model repeated {what} in a row{how}"
        f" ({shown}). Send a message to resume. To change this: {CYCLE_SETTINGS}"
    )


def blocked_pause(rounds: int, label: str) -> str:
    return (
        f"arcguard paused this session: {rounds} turns in a row had calls denied as repeats and"
        f" made no progress (last denied: {label}). Send a message to resume. To change this:"
        " blocked_rounds_pause, loop_guard or arcguard off"
    )


def backstop_pause(turns: int, nudged_at: int) -> str:
    return (
        f"arcguard paused this session: {turns} turns without a message from you, the recent"
        f" ones without progress, and the progress-summary request at turn {nudged_at} did not"
        " change that. Send a message to resume. To change this: backstop_pause_turns"
    )


def backstop_ceiling(turns: int) -> str:
    return (
        f"arcguard paused this session: {turns} turns without a message from you, the most it"
        " runs unattended however busy it is. Send a message to resume. To change this:"
        " backstop_ceiling_turns"
    )


def stuck_checkin(count: int, label: str, *, failing: bool, ways: int = 1, fixes: int = 0) -> str:
    what = (
        f"{count} attempts failed {failed_ways(ways)} ({label}, among others), however they were"
        f" spelt and whatever ran in between{_fixes(fixes)}"
        if failing
        else f"{count} calls repeated ones made before ({label}, among others): their results"
        " brought nothing new (only timestamps, counters or ids differed), however the calls"
        " were spelt, and nothing else moved"
    )
    return (
        f"[arcguard] {what}. Stop and summarise: what you are checking for, what you have"
        " learnt, and what you will do differently. If the answer is already known, act on"
        " it or tell the user."
    )


def failed_ways(ways: int) -> str:
    """How attempts failed: one way, or several failures taking turns."""
    return "the same way" if ways < 2 else f"in the same {ways} ways, taking turns"


def _fixes(fixes: int) -> str:
    """Edits to code among the attempts, which left the failure printed as before."""
    if not fixes:
        return ""
    edits = "the edit" if fixes == 1 else f"the {fixes} edits"
    return f"; {edits} to code among them left the failure as it was"


def stuck_pause(count: int, label: str, *, failing: bool, ways: int = 1, fixes: int = 0) -> str:
    what = (
        f"{count} attempts failed {failed_ways(ways)}, whatever ran in between{_fixes(fixes)}"
        if failing
        else f"{count} calls repeated earlier ones and brought nothing new"
    )
    setting = "error_pause_repeats" if failing else "shape_pause_repeats"
    return _asked_in_vain(f"{what} (last: {label})", setting)


def _asked_in_vain(what: str, setting: str) -> str:
    """A pause after a request to summarise that changed nothing."""
    return (
        f"arcguard paused this session: {what}, and the request to summarise did not change"
        f" that. Send a message to resume. To change this: {setting}"
    )


def futile_checkin(count: int, label: str) -> str:
    return (
        f"[arcguard] {count} changes in a row were each followed by a look that gave, word for"
        f" word but for times and ids, the answer an earlier one got (last: {label}): whatever"
        " they did, nothing a"
        " look can see moved. Stop and summarise: what you expected each change to do, what"
        " the look shows, and why the change does not reach it. If the answer is already"
        " known, act on it or tell the user."
    )


def unheeded_pause(turns: int, label: str) -> str:
    return (
        f"arcguard paused this session: since the request to summarise, {turns} turns brought"
        f" nothing the session had not seen (last: {label}), and no file was edited. Send a"
        " message to resume. To change this: error_pause_repeats, shape_pause_repeats"
    )


def futile_pause(count: int, label: str) -> str:
    what = (
        f"{count} changes in a row were each followed by a look that gave, word for word but"
        f" for times and ids, the answer an earlier one got (last: {label})"
    )
    return _asked_in_vain(what, "error_pause_repeats")


def asked_checkin(count: int, answer: str, label: str) -> str:
    return (
        f"[arcguard] The same question, asked {count} ways with nothing changed between, got"
        f" the same answer each time ({answer}; last: {label}): asking it again in other words"
        " will not change it. Stop and summarise: what answer you are waiting for, why this"
        " one stays, and what would change it. If that is already known, act on it or tell the"
        " user."
    )


def asked_pause(count: int, answer: str, label: str) -> str:
    what = f"the same question, asked {count} ways, got the same answer each time"
    return _asked_in_vain(f"{what} ({answer}; last: {label})", "error_pause_repeats")


def reread_checkin(count: int, label: str) -> str:
    return (
        f"[arcguard] The same failure, read {count} ways with nothing changed between, showed the"
        f" same failing lines each time (last: {label}): reading it again will not change it."
        " Stop and summarise: what the failure says, what you have ruled out, and what you will"
        " change or try next. If that is already known, act on it or tell the user."
    )


def reread_pause(count: int, label: str) -> str:
    what = f"the same failure, read {count} ways, showed the same failing lines each time"
    return _asked_in_vain(f"{what} (last: {label})", "error_pause_repeats")


def poll_checkin(minutes: int, label: str, *, failing: bool = False) -> str:
    return (
        f"[arcguard] This poll ({label}) has {_waited(failing)} for {minutes} minutes. Say"
        " what you are waiting for and how long it normally takes; if it is stuck, look into"
        " why instead of polling again."
    )


def poll_pause(minutes: int, label: str, *, failing: bool = False) -> str:
    return (
        f"arcguard paused this session: a poll ({label}) {_waited(failing, past=True)} for"
        f" {minutes} minutes. Send a message to resume. To change this: poll_pause_seconds"
    )


def _waited(failing: bool, *, past: bool = False) -> str:
    """What a wait kept showing: a failure seen again is a wait on that failure."""
    if failing:
        return "failed the same way" if past else "been failing the same way"
    return "showed the same result" if past else "shown the same result"


# What each slip is, in words a model can act on (`loop_guard.searches`).
SLIPS = {
    "alternation": "ripgrep (and the Grep tool with it), ag, ack and grep -P read `\\|` as a"
    " literal pipe; alternation there is a bare `|`",
    "bre-pipe": "grep without -E reads `|` as a literal pipe; use `\\|`, or grep -E",
    "quoted-glob": "the glob carries quote characters, which the tool takes literally (it runs no"
    " shell), so no file name matches; drop the quotes",
    "stray-quote": 'the pattern ends in a lone `"`, which the tool takes literally (it runs no'
    " shell); drop it",
}


def searches_checkin(count: int, slip: str) -> str:
    cause = f" One of them cannot match as spelt: {SLIPS[slip]}." if slip in SLIPS else ""
    return (
        f"[arcguard] {count} searches in a row found nothing, with nothing changed in between."
        f"{cause} Before another spelling, check the search itself (the pattern's syntax, the"
        " glob, the path), or look for something you know is there. If what you look for is"
        " really absent, say so and go on from that."
    )


def searches_pause(count: int) -> str:
    return (
        f"arcguard paused this session: {count} searches in a row found nothing, and the request"
        " to check the search did not change that. Send a message to resume. To change this:"
        " shape_pause_repeats"
    )


def deny_cannot_match(label: str, slip: str, count: int) -> str:
    return (
        f"[arcguard] Denied: this search ({label}) cannot match as spelt: {SLIPS[slip]}. The"
        f" last {count} searches found nothing. Fix the spelling and search again."
    )
