"""Masking obvious secrets in what the state and the log keep of tool inputs."""

from __future__ import annotations

import pytest

from arcguard.core.loop_guard import opkey
from arcguard.core.redact import mask
from arcguard.core.tool_call import ToolCall


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Authorization headers, their scheme kept.
        (
            'curl -H "Authorization: Bearer eyJhbGciOi.payload.sig" https://x',
            'curl -H "Authorization: Bearer ***" https://x',
        ),
        ("curl -H 'authorization: Basic dXNlcjpwYXNz' x", "curl -H 'authorization: Basic ***' x"),
        ("curl -H Authorization:Bearer abc x", "curl -H Authorization:Bearer *** x"),
        ('curl -H "Authorization:abc123" x', 'curl -H "Authorization:***" x'),
        ("http GET x Authorization:'Token abc'", "http GET x Authorization:'Token ***'"),
        ("echo Bearer abc.def", "echo Bearer ***"),
        # Options and assignments whose names say they are secret.
        ("mysql --password=hunter2 -u root", "mysql --password=*** -u root"),
        ("mysql --password hunter2 -u root", "mysql --password *** -u root"),
        ('mysql --password "two words" -u x', 'mysql --password "*** ***" -u x'),
        ("gh auth login --with-token=abc", "gh auth login --with-token=***"),
        ("tool --api-key k123 run", "tool --api-key *** run"),
        ("GITHUB_TOKEN=abc make", "GITHUB_TOKEN=*** make"),
        ("export AWS_SECRET_ACCESS_KEY=wJalr", "export AWS_SECRET_ACCESS_KEY=***"),
        ("API_KEY=abc secret=shh token=t0k ok=fine", "API_KEY=*** secret=*** token=*** ok=fine"),
        (
            "curl 'https://x/y?access_token=abc123&page=2'",
            "curl 'https://x/y?access_token=***&page=2'",
        ),
        ('{"password":"p4ss","user":"bob"}', '{"password":"***","user":"bob"}'),
        ('"client_secret": "abc"', '"client_secret": "***"'),
        ("f(token=abc)", "f(token=***)"),
        # A URL's password.
        ("git clone https://me:pa55@github.com/o/r", "git clone https://me:***@github.com/o/r"),
        # Keys by their prefixes.
        ("echo sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAA", "echo sk-ant-***"),
        ("OPENAI=x sk-proj-1234567890abcdefghij", "OPENAI=x sk-***"),
        ("git push https://ghp_1234567890abcdefghijKLMN@x", "git push https://ghp_***@x"),
        ("gho_1234567890abcdefghij", "gho_***"),
        ("github_pat_11ABCDEFG0123456789_abcdefghij", "github_pat_***"),
        ("slack xoxb-1234-5678-abcdefgh", "slack xoxb-***"),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws AKIA***"),
        ("glpat-abcdefghijklmnopqrst", "glpat-***"),
        # Left alone: no secret, or one too short or inside a word to be a key.
        ("pytest -q tests/test_x.py", "pytest -q tests/test_x.py"),
        ("pip install scikit-learn sk-learn", "pip install scikit-learn sk-learn"),
        ("echo task-1234567890123456789012", "echo task-1234567890123456789012"),
        ("author=bob git log", "author=bob git log"),
        ("Bearer", "Bearer"),
        ("", ""),
        ("  spaced   out  ", "  spaced   out  "),
    ],
)
def test_obvious_secrets_are_masked(text, expected):
    assert mask(text) == expected


def test_mask_is_idempotent_and_keeps_whitespace():
    text = "a\tGITHUB_TOKEN=abc\n  curl -H 'Authorization: Bearer x' y"
    once = mask(text)
    assert mask(once) == once
    assert once == "a\tGITHUB_TOKEN=***\n  curl -H 'Authorization: Bearer ***' y"


def test_a_label_masks_a_secret_even_where_the_label_is_cut_short():
    # Without the mask the label would end in the token's first characters.
    command = "curl -sS -H 'Authorization: Bearer " + "t" * 200 + "' https://x"
    label = opkey.label(ToolCall("Bash", {"command": command}))
    assert label == "Bash: curl -sS -H 'Authorization: Bearer ***' https://x"
    assert opkey.label(ToolCall("Bash", {"command": "pytest -q"})) == "Bash: pytest -q"
