"""The explorer's session, saved as you go, so that quitting (or a closed terminal) loses nothing:
the next start offers to resume it.

`$XDG_DATA_HOME/tensorscope/session.json` holds the statements that ran (their exact text), the
half-typed input, and the scenario that was open (its file, or the tour) with how far it had got.
Resuming replays the statements in a fresh worker: the engine is deterministic, random numbers
included, so the state comes back as it was. A session the user chose not to resume is set aside
as `session.previous.json` rather than deleted.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tensorscope.tui.history import data_dir

FORMAT = 1


@dataclass(frozen=True)
class SavedSession:
    statements: tuple[str, ...] = ()
    draft: str = ""
    scenario: dict[str, Any] | None = None  # {"path": "..."} for a file, {"tour": true} for the tour
    marks: tuple[int, ...] = ()  # the scenario's progress: statements after each step that ran
    current: int = -1  # the scenario step in view

    @property
    def empty(self) -> bool:
        return not self.statements and not self.draft.strip()

    def describe(self) -> str:
        """`12 statements, the last `y = x * 2``, for the resume question."""
        count = len(self.statements)
        parts = [f"{count} statement{'s' if count != 1 else ''}"]
        if self.statements:
            last = self.statements[-1].splitlines()[0]
            parts.append(f"the last `{last[:60]}{'…' if len(last) > 60 else ''}`")
        if self.scenario is not None:
            parts.append("the tour open" if self.scenario.get("tour") else
                         f"{Path(str(self.scenario.get('path', ''))).name} open")
        if self.draft.strip():
            parts.append("a half-typed statement")
        return ", ".join(parts)


def session_path() -> Path:
    return data_dir() / "session.json"


class SessionStore:
    """Reads and writes the saved session; a store without a path keeps nothing (tests, browser tabs)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._written: SavedSession | None = None

    def load(self) -> SavedSession | None:
        """The saved session, or None when there is none worth resuming (missing, unreadable, empty)."""
        if self.path is None:
            return None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        statements = data.get("statements")
        if not isinstance(statements, list) or not all(isinstance(s, str) for s in statements):
            return None
        scenario = data.get("scenario")
        marks = data.get("marks", [])
        saved = SavedSession(
            statements=tuple(statements),
            draft=data["draft"] if isinstance(data.get("draft"), str) else "",
            scenario=scenario if isinstance(scenario, dict) else None,
            marks=tuple(m for m in marks if isinstance(m, int)) if isinstance(marks, list) else (),
            current=data["current"] if isinstance(data.get("current"), int) else -1)
        self._written = saved
        return None if saved.empty else saved

    def save(self, saved: SavedSession) -> None:
        """Write the session (atomically: a crash mid-write leaves the previous one whole)."""
        if self.path is None or saved == self._written:
            return
        record = {"format": FORMAT, **asdict(saved)}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(".json.tmp")
            temporary.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            self.path = None  # a data folder we cannot write: keep working, unsaved
            return
        self._written = saved

    def set_aside(self) -> None:
        """The user started afresh: keep the old session as session.previous.json."""
        if self.path is None or not self.path.exists():
            return
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name("session.previous.json"))
        self._written = None
