"""Completion for the code input: the word before the cursor, and the session's candidates for it.

The candidates come from the session (`SessionLike.complete`), which reads the namespace where it
lives (in the worker process); the explorer never touches user objects itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.?$")


def word_before(text: str) -> str:
    """The dotted name the cursor is at the end of (`torch.ze` in `y = torch.ze`)."""
    match = _WORD.search(text[-400:])
    return match.group(0) if match else ""


class Completer:
    """Candidates for the word before the cursor, asked of whatever `complete` reaches."""

    def __init__(self, complete: Callable[[str], list[str]]) -> None:
        self.complete = complete

    def candidates(self, word: str) -> list[str]:
        try:
            return self.complete(word)
        except Exception:  # noqa: BLE001 - the session is busy or being replaced: no candidates now
            return []


def common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    first, last = min(words), max(words)
    size = 0
    while size < len(first) and size < len(last) and first[size] == last[size]:
        size += 1
    return first[:size]
