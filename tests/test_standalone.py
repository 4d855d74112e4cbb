"""A fresh clone runs every fast test: the fixtures it reads live inside the repository."""

from __future__ import annotations

import re

from testing.builders import FIXTURES
from testing.builders import REPO


def test_real_transcript_fixtures_are_kept_in_the_repository() -> None:
    assert FIXTURES.is_relative_to(REPO)
    assert len(list(FIXTURES.glob("*.jsonl"))) == 7
    assert (FIXTURES / "SOURCES.md").is_file()  # provenance and licences travel with the files


def test_no_test_reads_fixtures_from_beside_the_checkout() -> None:
    # Only the optional large corpus may live outside; everything else must travel with a clone.
    outside = re.compile(r"""(\.\.|parent)\W+["']?shared\b(?!.*corpus)""")
    offenders = [
        str(path.relative_to(REPO))
        for folder in ("tests", "testing", "benchmarks")
        for path in (REPO / folder).rglob("*.py")
        if outside.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_every_suite_runs_hooks_and_builds_transcripts_with_the_same_helpers() -> None:
    from testing import builders

    from tests.reliability import support

    assert support.run_hook is builders.run_hook
    defined = [
        str(path.relative_to(REPO))
        for folder in ("tests", "benchmarks")
        for path in (REPO / folder).rglob("*.py")
        if re.search(
            r"^(def run_hook|class Transcript)\b", path.read_text(encoding="utf-8"), re.MULTILINE
        )
    ]
    assert defined == []
