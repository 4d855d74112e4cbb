"""Commands queued while the model worked, as the transcript records them.

The operator's typed prompts arrive as `queued_command` attachments, not as prompts of their
own, and so do the harness's task notifications; the turn rules need both (a person spoke,
background work ended).
"""

from __future__ import annotations

from arcguard import jsonio
from arcguard.core.words.final_words import QUEUED_COMMAND
from arcguard.core.words.final_words import queued_prompt
from arcguard.transcript import records
from arcguard.transcript.tail import NotReadable
from arcguard.transcript.tail import lines_newest_first


def queued_around(path: str, message_id: str | None, max_bytes: int) -> list[tuple[str, str, bool]]:
    """(entry id, text, typed by the operator) of every queued command written since the
    assistant message before the turn's own (`message_id`; None when the turn's message is not
    on disk yet, so the newest one there is the one before it), newest first."""
    marker = QUEUED_COMMAND.encode()
    found: list[tuple[str, str, bool]] = []
    passed = message_id is None
    try:
        for line in lines_newest_first(path, max_bytes):
            if marker not in line and b'"assistant"' not in line:
                continue
            try:
                entry = jsonio.loads(line)
            except ValueError:
                continue
            queued = queued_prompt(entry)
            uuid = entry.get("uuid") if isinstance(entry, dict) else None
            if queued is not None and isinstance(uuid, str):
                found.append((uuid, *queued))
                continue
            mid = (
                records.assistant_message_id(records.parse_entry(entry))
                if isinstance(entry, dict)
                else None
            )
            if mid == message_id:
                passed = True
            elif mid is not None and passed:
                break  # the previous turn's message: anything older was seen then
    except NotReadable:
        return []
    return found
