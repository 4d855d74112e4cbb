"""Random and mutated payloads for every hook: exit 0, nothing or one JSON object, no decision.

Protections exercised:
- the runner's fail-open boundary (`runner.dispatch`: non-JSON, non-object, bad UTF-8 and too
  deep input give no output; any exception is logged and gives no output) and its stdin bound;
- the handlers' own type checks: the strict property runs with ARCGUARD_DEBUG=1, where any
  exception escapes, so a handler that trusted a field's type fails it.
Each example gets a fresh state directory, so no payload can legitimately earn a decision
(a first call is never a repeat; a session with no arc is never continued).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from testing import hook_driver

from arcguard.hooks import HOOKS
from tests.reliability import support


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = (
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "tool_calls",
    "agent_id",
    "prompt",
    "last_assistant_message",
    "stop_hook_active",
    "background_tasks",
    "error",
    "source",
)
sessions = st.sampled_from(["s1", "../../etc/x", "", "a" * 5000, "\x00", ".."]) | st.text()
payloads = st.fixed_dictionaries(
    {},
    optional={
        **dict.fromkeys(FIELDS, json_values),
        "session_id": sessions | json_values,
        "tool_name": st.sampled_from(["Bash", "Edit", "Write", "Read", "Task"]) | json_values,
        "tool_calls": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "tool_name": st.text(max_size=8) | json_values,
                    "tool_input": json_values,
                    "tool_use_id": json_values,
                },
            ),
            max_size=3,
        )
        | json_values,
    },
)


def _mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(json.dumps(draw(payloads)).encode())
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["cut", "nul", "byte", "bad-utf8", "dup"]))
        at = draw(st.integers(0, len(data)))
        if kind == "cut":
            del data[at:]
        elif kind == "nul":
            data[at:at] = b"\x00"
        elif kind == "byte":
            data[at : at + 1] = bytes([draw(st.integers(0, 255))])
        elif kind == "bad-utf8":
            data[at:at] = draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]))
        else:
            data += data[:at]
    return bytes(data)


raw_inputs = (
    st.binary(max_size=200)
    | st.composite(_mutations)()
    | st.builds(lambda p: json.dumps(p).encode(), payloads)
    | st.builds(lambda d: b"[" * d + b"]" * d, st.integers(1, 50_000))
    | st.builds(lambda d: b'{"a":' * d + b"1" + b"}" * d, st.integers(1, 50_000))
)


def _run(hook: str, raw: bytes, environ: dict[str, str]) -> str | None:
    with tempfile.TemporaryDirectory() as home:
        text = hook_driver.dispatch(hook, raw, home, environ=environ)
        log = Path(home, "arcguard.log")
        logged = log.read_text() if log.exists() else ""
    if text is not None:
        doc = json.loads(text)
        assert isinstance(doc, dict)
        assert not support.is_decision(text.encode()), (hook, raw[:300], text)
    assert logged == "", logged  # malformed input is not a failure worth a log line
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hook=st.sampled_from(sorted(HOOKS)), raw=raw_inputs)
def test_any_input_gives_no_decision_and_fails_open(hook: str, raw: bytes) -> None:
    _run(hook, raw, {})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hook=st.sampled_from(sorted(HOOKS)), payload=payloads)
def test_handlers_never_raise_on_wrongly_typed_fields(hook: str, payload: dict[str, Any]) -> None:
    _run(hook, json.dumps(payload).encode(), {"ARCGUARD_DEBUG": "1"})


BIG = 10 * 1024 * 1024
SUBPROCESS_CASES = {
    "empty": b"",
    "random bytes": bytes(range(256)) * 64,
    "invalid utf-8": b'{"session_id": "s\xff\xfe", "tool_name": "Bash"}',
    "nul bytes": b'{"session_id": "s\x00", "tool_name": "Bash"}\x00\x00',
    "deep nesting": b"[" * 200_000 + b"]" * 200_000,
    "10 MB string": json.dumps(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "tool_input": {"command": "x" * BIG},
            "last_assistant_message": "y" * 1000,
            "prompt": "z" * 1000,
        }
    ).encode(),
    "10 MB garbage": b"\x00\xff{" * (BIG // 3),
}


@pytest.mark.parametrize("hook", sorted(HOOKS))
@pytest.mark.parametrize("case", sorted(SUBPROCESS_CASES))
def test_real_hook_process_survives_hostile_stdin(tmp_path: Path, hook: str, case: str) -> None:
    proc = support.run_hook(hook, SUBPROCESS_CASES[case], tmp_path / "state")
    assert proc.returncode == 0
    support.assert_quiet_output(proc.stdout)
    assert not support.is_decision(proc.stdout)
