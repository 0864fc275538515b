"""The float32 2-norm of contiguous rows in the order ATen's CPU kernel adds (ReduceOpsKernel.cpp,
norm_kernel_tensor_iterator_impl's last-dim path), so `clip_grad_norm_`'s norms round as torch's.

Each row: eight lanes (the AVX2 build: ATen does not dispatch its reductions to AVX-512) each sum
the squares of their elements (`acc += x * x`: a product, then a sum, both rounded); the lanes are
folded left to right into the first; the remaining (fewer than eight) elements are added one by
one, as the compiler vectorises that loop: four squares at a time then added in order, and the
last ones each as one fused multiply-add. Then one float square root.
"""

from __future__ import annotations

import numpy as np

from engine.kernels.fma import fma32

_LANES = 8
_TAIL_VECTOR = 4


def two_norm_rows(rows: np.ndarray) -> np.ndarray:
    """sqrt(sum of squares) of each row of a 2-D float32 array, rounded as ATen rounds it."""
    count, size = rows.shape
    body = size - size % _LANES
    with np.errstate(over="ignore", invalid="ignore"):
        if body:
            squares = np.square(rows[:, :body]).reshape(count, body // _LANES, _LANES)
            lanes = np.cumsum(squares, axis=1)[:, -1]  # accumulate adds in order (a reduce may pair)
            total = lanes[:, 0].copy()
            for j in range(1, _LANES):
                total += lanes[:, j]
        else:
            total = np.zeros(count, np.float32)
        d = body
        if size - d >= _TAIL_VECTOR:
            for square in np.square(rows[:, d:d + _TAIL_VECTOR]).T:
                total += square
            d += _TAIL_VECTOR
        for column in rows[:, d:].T:
            total = fma32(column, column, total)
        return np.sqrt(total)


def two_norm_sequential(values: np.ndarray) -> np.ndarray:
    """sqrt(sum of squares) over axis 1 of a (kept, reduced) float32 array, as ATen's generic
    reduction (NormTwoOps) computes the other reductions: squares added one by one from zero."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.sqrt(np.cumsum(np.square(values), axis=1)[:, -1])
