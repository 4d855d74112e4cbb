"""The labelled recall suite: every loop stopped by its turn, every stall sent back, every
completion released, every legitimate run left alone (benchmarks/recall.py)."""

from __future__ import annotations

import json
import sys

import pytest
from testing import recall_holdout
from testing import recall_suite
from testing.benchmarks import run_benchmark
from testing.builders import REPO


sys.path.insert(0, str(REPO / "benchmarks"))
import recall


LABELS = json.loads(recall_suite.LABELS.read_text(encoding="utf-8"))
# Shapes the rules do not catch yet; strict, so the mark goes as soon as one does.
NOT_YET: set[str] = set()


def test_the_checked_in_suite_is_what_the_generator_writes(tmp_path):
    recall_suite.build(tmp_path)
    for path in sorted(tmp_path.iterdir()):
        assert path.read_bytes() == (recall_suite.SUITE / path.name).read_bytes(), path.name
    assert {p.name for p in tmp_path.iterdir()} == {
        p.name for p in recall_suite.SUITE.iterdir() if p.suffix in (".jsonl", ".json")
    }


def test_the_held_out_fold_is_what_its_generator_writes(tmp_path):
    recall_suite.build(tmp_path, recall_holdout.BUILDERS)
    for path in sorted(tmp_path.iterdir()):
        assert path.read_bytes() == (recall_holdout.SUITE / path.name).read_bytes(), path.name
    assert {p.name for p in tmp_path.iterdir()} == {p.name for p in recall_holdout.SUITE.iterdir()}


@pytest.mark.parametrize("name", sorted(LABELS))
def test_each_session_meets_its_label(name, request):
    if name in NOT_YET:
        request.applymarker(pytest.mark.xfail(strict=True, reason="not caught yet"))
    row = recall.judge(name, LABELS[name], recall_suite.SUITE / name)
    assert row["ok"], row["reasons"]


@pytest.mark.parametrize(
    ("fold", "kinds"),
    [
        (recall.DEFAULT_BLIND, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_2, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_3, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_4, {"stall", "release", "rightful-stop"}),
        (recall.DEFAULT_BLIND_5, {"stall", "release", "rightful-stop"}),
        (recall.DEFAULT_BLIND_6, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_7, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_8, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_9, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_10, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_11, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_12, {"loop", "legit"}),
        (recall.DEFAULT_BLIND_13, {"loop", "legit"}),
    ],
)
def test_the_blind_folds_are_labelled_before_they_are_run(fold, kinds):
    labels = json.loads((fold / "labels.json").read_text(encoding="utf-8"))
    assert set(labels) == {p.name for p in fold.glob("*.jsonl")}
    assert {label["kind"] for label in labels.values()} == kinds


def test_a_rightful_stop_is_left_alone_only_when_nothing_continues_it(tmp_path):
    fold = recall.DEFAULT_BLIND_4
    labels = json.loads((fold / "labels.json").read_text(encoding="utf-8"))
    decided = "users-legacy-columns-drop-decision-needed.jsonl"
    assert recall.judge(decided, labels[decided], fold / decided)["ok"]
    # The same session, its DECISION NEEDED: taken out, is a question mid-arc: continued.
    asked = tmp_path / decided
    asked.write_text((fold / decided).read_text().replace("DECISION NEEDED: d", "D"))
    assert not recall.judge(decided, labels[decided], asked)["ok"]


def test_the_script_prints_recall_and_precision():
    done = run_benchmark("recall.py")
    assert "loops stopped:" in done.stdout
    assert "== blind (" in done.stdout and "== held out" in done.stdout
    assert "== blind 2" in done.stdout and "== blind 3" in done.stdout
    assert "== blind 4" in done.stdout and "== blind 5" in done.stdout
    assert "legit nudges per 100 calls:" in done.stdout
    assert done.returncode == (1 if NOT_YET else 0), done.stdout


def test_a_config_file_replays_the_sessions_under_its_stop_policy(tmp_path):
    fold = recall.DEFAULT_BLIND_4
    labels = json.loads((fold / "labels.json").read_text(encoding="utf-8"))
    report = "sql-injection-sweep-stops-after-search-agent.jsonl"  # a report, no question
    strict = tmp_path / "config.toml"
    strict.write_text('stop_policy = "strict"\n')
    assert not recall.judge(report, labels[report], fold / report)["ok"]
    assert recall.judge(report, labels[report], fold / report, str(strict))["ok"]
