"""TUI tests: a clean colour environment (snapshots depend on it), a private data dir for the
input history, and helpers to drive the explorer with Pilot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Textual reads these when an app starts: they change every colour in a snapshot.
os.environ.pop("NO_COLOR", None)
os.environ.pop("TEXTUAL_THEME", None)
os.environ.pop("FORCE_COLOR", None)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
