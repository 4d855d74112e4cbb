"""Legitimate read-only work on systems, where many looks in a row answer in words seen before
(`tests/fixtures/ops-lookalikes.json`): a crash loop traced to a database scaled to zero, a
container that cannot find its config, environment and DNS checks, package versions, a target
group failing its health check, nginx down on a missing certificate, a CI run watched through
several commands and with growing sleeps, the same question asked of every service, endpoint
or namespace, a monorepo audited through shell loops, and an incident's logs and traces
counted question by question. No rule may deny, ask about or pause any of them: they are the
look-alikes a rule on looks that tell nothing new must leave alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from testing.guard_driver import Driver
from testing.guard_driver import bash

from arcguard.core.schema import StateFile


DATA = json.loads((Path(__file__).parents[1] / "fixtures" / "ops-lookalikes.json").read_text())


def _acted(d: Driver) -> list[tuple[str, str | None]]:
    log = StateFile.view(d.state).log
    return [(e.kind, e.rule) for e in log if e.kind in ("deny", "nudge", "pause")]


@pytest.mark.parametrize("name", DATA["sessions"])
def test_legitimate_looks_at_systems_are_left_alone(name):
    d = Driver()
    for command, answer in DATA["sessions"][name]:
        d.turn(bash(command, response=answer))
    assert _acted(d) == []


def test_the_same_question_asked_of_every_namespace_at_once_is_left_alone():
    d = Driver()
    for batch in DATA["batches"]:  # a turn each: the questions of one turn run in parallel
        d.turn(*(bash(command, response=answer) for command, answer in batch))
    assert _acted(d) == []
