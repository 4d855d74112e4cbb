"""A look's whole answer with only what a clock moves set aside (`loop_guard.answers`)."""

from __future__ import annotations

import pytest

from arcguard.core.loop_guard import answers


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("2026-08-08T00:47:13.000Z error: boom", "2026-08-08T00:52:01.377Z error: boom"),
        ("[10:42:01] ready", "[11:03:59] ready"),
        ("api Restarting (1) 5 seconds ago", "api Restarting (1) 42 seconds ago"),
        ("Up 3 minutes", "Up 17 minutes"),
        ("took 850ms", "took 2m51s"),
        ("starting (pid 48211)", "starting (pid 50321)"),
        # A test runner's random order, picked anew for each run.
        ("Randomized with seed 41822", "Randomized with seed 7710"),
        ("Using --randomly-seed=3184", "Using --randomly-seed=90211"),
        ("request 1786000000123 done", "request 1786000042999 done"),
        ("image 3f2a1b9c0d built", "image 77e0aa14f1 built"),
        ("ran at 9:05", "ran at 11:52"),
    ],
)
def test_what_a_clock_moves_is_set_aside(a, b):
    assert answers.clock_free(a) == answers.clock_free(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("rows: 100", "rows: 200"),
        ("HTTP/1.1 502 Bad Gateway", "HTTP/1.1 503 Service Unavailable"),
        ("3 passed, 1 failed", "4 passed"),
        ("version 1.2.3", "version 1.2.4"),
        # A seed the command names is its own: a sweep over seeds, not a runner's pick.
        ("loss diverged at step 120 (seed 11)", "loss diverged at step 120 (seed 23)"),
        ("replicas: 2/3", "replicas: 3/3"),
        # Addresses, port maps, file positions, lint codes and counts of other things.
        ("listening on 127.0.0.1:5432", "listening on 127.0.0.1:5433"),
        ("0.0.0.0:8080->80/tcp", "0.0.0.0:8081->80/tcp"),
        ("nodePort 80:30080", "nodePort 80:30081"),
        ("app.py:12:5: E501 line too long", "app.py:14:5: E501 line too long"),
        ("app.py: E501", "app.py: F401"),
        ("3 secrets found", "5 secrets found"),
        ("2 minor issues", "4 minor issues"),
    ],
)
def test_counts_and_words_stay(a, b):
    assert answers.clock_free(a) != answers.clock_free(b)
