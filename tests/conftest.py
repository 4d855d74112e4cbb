from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run the heavier reliability variants")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="heavier variant: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """No test may touch the real ~/.claude, state dir or config."""
    root = tmp_path_factory.mktemp("isolated")
    monkeypatch.setenv("HOME", str(root / "home"))
    monkeypatch.setenv("ARCGUARD_HOME", str(root / "state"))
    monkeypatch.setenv("ARCGUARD_CONFIG", str(root / "config.toml"))
    monkeypatch.setenv("XDG_STATE_HOME", str(root / "xdg-state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "xdg-config"))
    for name in list(__import__("os").environ):
        if name.startswith("ARCGUARD_") and name not in (
            "ARCGUARD_HOME",
            "ARCGUARD_CONFIG",
            "ARCGUARD_CLAUDE_BIN",
        ):
            monkeypatch.delenv(name)
    (root / "home").mkdir()
    return root


@pytest.fixture(autouse=True)
def _nothing_kept_across_tests():
    """The resident server and the SDK hooks keep the state they write (process-wide); what a
    test's server or guard kept must not follow the process into the next test."""
    yield
    from arcguard.storage import store

    store.keep_written(0)
