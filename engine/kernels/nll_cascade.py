"""The float32 sum of a 2-D nll_loss as ATen's CPU kernel adds it (LossNLL.cpp, nll_loss_out_frame):
a cascade of eight partial sums, so that `cross_entropy(...)` of a batch prints torch's last digit.

Each picked -log p is added to the lowest partial sum; after the element at batch index b, every
level j whose block of 2**(power * (j + 1)) indices b closes (b's low bits all zero) is added into
the level above and cleared, so the first element climbs straight to the top level. The levels are
then added from the lowest up, starting from zero. Ignored targets add nothing and skip that check.
"""

from __future__ import annotations

import math

import numpy as np

_LEVELS = 8


def _level_power(batch: int) -> int:
    return max(4, math.ceil(math.log2(batch)) // _LEVELS) if batch > 1 else 4


def _sequential(values: np.ndarray) -> np.float32:
    """values[0] + values[1] + ... from zero, one float32 rounding per addition."""
    return np.cumsum(values, dtype=np.float32)[-1] if len(values) else np.float32(0)


def cascade_sum(losses: np.ndarray, counted: np.ndarray | None = None) -> np.float32:
    """The sum of the float32 `losses` (one per batch index) in ATen's cascade order; `counted`
    marks the indices that are not ignored (all when None)."""
    if counted is not None and not counted.all():
        return _stepwise(losses, counted)
    power = _level_power(len(losses))
    step = 1 << power
    if len(losses) == 0:
        return np.float32(0)
    levels = []
    stream = losses[1:]
    for _ in range(_LEVELS - 1):
        closed = len(stream) // step * step
        flushed = np.cumsum(stream[:closed].reshape(-1, step), axis=1, dtype=np.float32)[:, -1] if closed \
            else np.zeros(0, np.float32)
        levels.append(_sequential(stream[closed:]))
        stream = flushed
    levels.append(_sequential(np.concatenate([losses[:1], stream])))
    return _sequential(np.array(levels, np.float32))


def _stepwise(losses: np.ndarray, counted: np.ndarray) -> np.float32:
    """The cascade element by element (where ignored targets shift which indices close blocks)."""
    power = _level_power(len(losses))
    mask = (1 << power) - 1
    partial = [np.float32(0)] * _LEVELS
    for b in np.flatnonzero(counted):
        partial[0] = np.float32(partial[0] + losses[b])
        for j in range(_LEVELS - 1):
            if b & (mask << (j * power)):
                break
            partial[j + 1] = np.float32(partial[j + 1] + partial[j])
            partial[j] = np.float32(0)
    return _sequential(np.array(partial, np.float32))
