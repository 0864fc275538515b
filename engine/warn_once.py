"""torch's TORCH_WARN_ONCE: some of its warnings are given once per process, however often their cause
recurs (and whatever Python's warning filters say), so the engine gives those once too."""

from __future__ import annotations

import warnings

_given: set[str] = set()


def warn_once(message: str, stacklevel: int = 3) -> None:
    if message in _given:
        return
    _given.add(message)
    warnings.warn(message, UserWarning, stacklevel=stacklevel)
