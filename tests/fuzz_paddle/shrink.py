"""Shrink a disagreeing program to a minimal one: drop statements while the two sides still differ."""

from __future__ import annotations

from collections.abc import Callable


def shrink(statements: tuple[str, ...], differs: Callable[[tuple[str, ...]], bool]) -> tuple[str, ...]:
    """Greedy one-statement deletion until no single statement can go (ddmin's last phase)."""
    current = statements
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(current))):
            candidate = current[:i] + current[i + 1:]
            if candidate and differs(candidate):
                current, changed = candidate, True
    return current
