"""Input history that survives restarts: one JSON string per line in the user's data directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

LIMIT = 1000


def data_dir() -> Path:
    """`$XDG_DATA_HOME/tensorscope` (or ~/.local/share/tensorscope): history and the saved session."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "tensorscope"


def history_path() -> Path:
    """`$XDG_DATA_HOME/tensorscope/explorer_history` (or ~/.local/share/...)."""
    return data_dir() / "explorer_history"


class History:
    """Entries oldest first; `previous`/`next` walk them like a shell does."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.entries: list[str] = []
        self._cursor: int | None = None
        self._draft = ""
        if path is not None:
            self.entries = self._load(path)

    @staticmethod
    def _load(path: Path) -> list[str]:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return []
        entries = []
        for line in lines[-LIMIT:]:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, str):
                entries.append(entry)
        return entries

    @property
    def existed(self) -> bool:
        return self.path is not None and self.path.exists()

    def add(self, entry: str) -> None:
        self._cursor = None
        if not entry.strip() or (self.entries and self.entries[-1] == entry):
            return
        self.entries.append(entry)
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps(entry) + "\n")
        except OSError:
            self.path = None  # keep working in memory when the data directory is not writable

    def previous(self, current: str) -> str | None:
        if not self.entries:
            return None
        if self._cursor is None:
            self._draft = current
            self._cursor = len(self.entries)
        if self._cursor == 0:
            return None
        self._cursor -= 1
        return self.entries[self._cursor]

    def next(self) -> str | None:
        if self._cursor is None:
            return None
        self._cursor += 1
        if self._cursor >= len(self.entries):
            self._cursor = None
            return self._draft
        return self.entries[self._cursor]

    def reset(self) -> None:
        self._cursor = None
