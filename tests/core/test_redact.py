"""Masking obvious secrets in what the state and the log keep of tool inputs."""

from __future__ import annotations

import pytest

from arcguard.core.loop_guard import opkey
from arcguard.core.tool_call import ToolCall
from arcguard.core.words.redact import mask


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


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Quoted values of the documented forms, to their closing quote.
        ('export GITHUB_TOKEN="abc def"', 'export GITHUB_TOKEN="*** ***"'),
        ('TOKEN="abc" ./deploy.sh', 'TOKEN="***" ./deploy.sh'),
        ("mysqldump --password='a b' db", "mysqldump --password='*** ***' db"),
        ("run --password='abc' x", "run --password='***' x"),
        ("API_KEY=`cat key` make", "API_KEY=`*** ***` make"),
        # Programs' own password options.
        ("curl -u admin:hunter2 https://x", "curl -u admin:*** https://x"),
        ("curl -uadmin:hunter2 https://x", "curl -uadmin:*** https://x"),
        ("curl --user 'me:two words' x", "curl --user 'me:*** ***' x"),
        ("mysql -uroot -phunter2 db", "mysql -uroot -p*** db"),
        ("/usr/bin/mysql -phunter2", "/usr/bin/mysql -p***"),
        ("docker login -u me -p hunter2 reg.io", "docker login -u me -p *** reg.io"),
        ("podman login -phunter2 reg.io", "podman login -p*** reg.io"),
        ("redis-cli -h h -a hunter2 ping", "redis-cli -h h -a *** ping"),
        ("gpg --batch --passphrase hunter2 -d f", "gpg --batch --passphrase *** -d f"),
        # Names as YAML and JSON write them.
        ("auth_token: abc123", "auth_token: ***"),
        ('{"pass": "hunter2"}', '{"pass": "***"}'),
        ('{"user":"u","pass":"hunter2"}', '{"user":"u","pass":"***"}'),
        ('curl -d \'{"password":"a b"}\' x', 'curl -d \'{"password":"*** ***"}\' x'),
        ("DB_PASS=x MYSQL_PWD=y make", "DB_PASS=*** MYSQL_PWD=*** make"),
        # Cookies.
        ('curl -H "Cookie: sid=abc; theme=dark" x', 'curl -H "Cookie: *** ***" x'),
        ("Cookie: sid=abc; theme=dark then", "Cookie: ***; *** then"),
        ("curl -b 'sid=abc' x", "curl -b '***' x"),
        ("curl --cookie sid=abc x", "curl --cookie *** x"),
        # Keys by their prefixes.
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe sk_live_***"),
        ("rk_test_4eC39HqLyjWDarjtT1zdp7dc", "rk_test_***"),
        ("key=AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "key=AIza***"),
        ("maps AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe", "maps AIza***"),
        (
            "huggingface-cli login hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "huggingface-cli login hf_***",
        ),
        ("slack xapp-1-A0123456789-1234567890123-abcdef", "slack xapp-***"),
        ("npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_***"),
        # Webhook URLs and URL passwords holding an `@`.
        (
            "curl -X POST https://hooks.slack.com/services/T000/B000/XXXXYYYY -d x",
            "curl -X POST https://hooks.slack.com/services/*** -d x",
        ),
        (
            "curl 'https://discord.com/api/webhooks/123/abcDEF'",
            "curl 'https://discord.com/api/webhooks/***'",
        ),
        ("git clone https://me:p@ss@github.com/o/r", "git clone https://me:***@github.com/o/r"),
        (
            "SLACK_URL=https://hooks.slack.com/services/T0/B0/XYZ make",
            "SLACK_URL=https://hooks.slack.com/services/*** make",
        ),
        ("see discord.com/api/webhooks/1/abc", "see discord.com/api/webhooks/***"),
        # A key the model mentions in its narration.
        (
            "I found the key ghp_1234567890abcdefghijKLMN in the config.",
            "I found the key ghp_*** in the config.",
        ),
        # Left alone: the same letters that are no secret.
        ("mkdir -pv dir && cp -pr a b", "mkdir -pv dir && cp -pr a b"),
        ("pytest -p no:cacheprovider -q", "pytest -p no:cacheprovider -q"),
        ("git push -u origin main:main", "git push -u origin main:main"),
        ("curl -u x:y x && git push -u o a:b", "curl -u x:*** x && git push -u o a:b"),
        ("bypass=1 compass=n passes=3", "bypass=1 compass=n passes=3"),
        (
            "from huggingface_hub import hf_hub_download",
            "from huggingface_hub import hf_hub_download",
        ),
        ("echo AIzaShort sk_live_", "echo AIzaShort sk_live_"),
        ("https://example.com/a@b:c", "https://example.com/a@b:c"),
    ],
)
def test_item7_quoted_values_program_options_and_more_key_shapes_are_masked(text, expected):
    assert mask(text) == expected
    assert mask(expected) == expected


def test_item7_masking_touches_labels_only_never_the_fingerprints():
    """Two calls that differ only in a masked secret read the same in a label, yet keep
    their own operation ids: the repeat rule never takes them for one call."""
    one = ToolCall("Bash", {"command": "curl -u admin:one https://x"})
    two = ToolCall("Bash", {"command": "curl -u admin:two https://x"})
    assert opkey.label(one) == opkey.label(two) == "Bash: curl -u admin:*** https://x"
    assert opkey.operation_id(one) != opkey.operation_id(two)
