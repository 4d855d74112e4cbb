"""The hook path's JSON and hash: exactly what `json` and `hashlib` give, and a fallback to them
when the private accelerators are missing or broken."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from arcguard import jsonio
from arcguard.core import hashing


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)
# Text that is often nearly JSON: the invalid cases that matter are close to valid ones.
NEAR_JSON = st.one_of(
    st.text(),
    st.text(alphabet=' \t\n\r{}[]",:0123456789.eE+-truefalsnNaIiy\\u\x00\x1f\ufeff'),
    JSON_VALUES.map(json.dumps).flatmap(
        lambda doc: st.integers(0, len(doc)).map(lambda cut: doc[:cut])
    ),
)


def _outcome(parse: Any, text: str | bytes) -> tuple[str, str]:
    try:
        return "ok", repr(parse(text))
    except ValueError:
        return "error", ""


def _stdlib_dumps(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(JSON_VALUES)
def test_jsonio_writes_and_reads_any_json_value_exactly_as_json_does(value: object) -> None:
    assert jsonio.dumps(value) == _stdlib_dumps(value)
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
        assert _outcome(jsonio.loads, text) == _outcome(json.loads, text)
        assert _outcome(jsonio.loads, text.encode()) == _outcome(json.loads, text)


@settings(max_examples=600, deadline=None)
@given(NEAR_JSON)
@example('"a\x01b"')  # a raw control character inside a string: `json` refuses it
@example('["tab\there"]')
@example("\ufeff{}")
@example("1" * 5000)
@example('{"a": 1} x')
@example(" [NaN, -Infinity] ")
def test_jsonio_accepts_and_rejects_text_exactly_as_json_does(text: str) -> None:
    assert _outcome(jsonio.loads, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {"a": float("-inf")}])
def test_jsonio_refuses_to_write_non_standard_numbers(value: object) -> None:
    with pytest.raises(ValueError):
        jsonio.dumps(value)


def _broken(*_args: object, **_kw: object) -> object:
    raise TypeError("changed signature")


BROKEN_JSON = types.SimpleNamespace(
    make_scanner=_broken, make_encoder=_broken, encode_basestring_ascii=_broken
)


def _scanner_that_raises(_ctx: object) -> object:
    return _broken


@pytest.mark.parametrize(
    "accelerator",
    [
        None,
        BROKEN_JSON,
        types.SimpleNamespace(
            make_scanner=_scanner_that_raises, make_encoder=_broken, encode_basestring_ascii=_broken
        ),
        types.SimpleNamespace(),
    ],
)
def test_a_missing_or_broken_json_accelerator_falls_back_to_json(accelerator: object) -> None:
    loads, dumps = jsonio._build(accelerator)
    assert loads('{"b": [1, 2.5], "a": null}') == {"b": [1, 2.5], "a": None}
    assert dumps({"b": [1], "a": "\u00e9"}) == '{"a":"\\u00e9","b":[1]}'
    with pytest.raises(jsonio.JSONError):
        loads("{")


def test_a_hook_with_a_broken_json_accelerator_still_exits_0(tmp_path: Path) -> None:
    code = (
        "import sys, types\n"
        "def broken(*a, **k): raise TypeError('changed signature')\n"
        "fake = types.ModuleType('_json')\n"
        "fake.make_scanner = fake.make_encoder = fake.encode_basestring_ascii = broken\n"
        "sys.modules['_json'] = fake\n"
        "from arcguard.main import main\n"
        "sys.exit(main(['hook', 'pre-tool']))\n"
    )
    payload = {
        "session_id": "s1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "ARCGUARD_HOME": str(tmp_path)},
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_the_operation_hash_is_blake2b_of_the_text(text: str) -> None:
    expected = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8)
    assert hashing._digest(text) == expected.hexdigest()


@pytest.mark.parametrize(
    "module",
    [
        None,
        types.SimpleNamespace(blake2b=_broken),
        types.SimpleNamespace(blake2b=lambda data, digest_size: hashlib.sha256(data)),
    ],
)
def test_a_missing_or_broken_blake2_falls_back_to_hashlib(module: object) -> None:
    assert hashing.pick_blake2b(module) is hashlib.blake2b
