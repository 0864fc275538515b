"""Upsampling kernels: nearest and (bi)linear interpolation, one spatial axis at a time.

Each axis is an interpolation matrix (output x input) built from ATen's source-index rules: nearest
takes floor(dst * scale), clamped; linear takes src = scale * (dst + 0.5) - 0.5 (clamped at 0) or,
with align_corners, (in - 1) / (out - 1) * dst, and blends the two neighbours. The scale is 1 /
scale_factor when a factor was given, else in / out; positions are computed in float32 for float32
(and narrower) inputs, as ATen's CPU kernels compute them. The backward applies the transposed
matrices.
"""

from __future__ import annotations

import numpy as np


def _scale(in_size: int, out_size: int, align_corners: bool, scale: float | None, linear: bool) -> float:
    if linear and align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return in_size / out_size


def axis_matrix(in_size: int, out_size: int, linear: bool, align_corners: bool, scale: float | None,
                precision: type) -> np.ndarray:
    """The (out_size, in_size) matrix that interpolates one axis."""
    s = precision(_scale(in_size, out_size, align_corners, scale, linear))
    dst = np.arange(out_size, dtype=precision)
    matrix = np.zeros((out_size, in_size), dtype=np.float64)
    rows = np.arange(out_size)
    if not linear:
        src = np.minimum(np.floor(dst * s).astype(np.int64), in_size - 1)
        matrix[rows, src] = 1.0
        return matrix
    if align_corners:
        src = dst * s
    else:
        src = np.maximum(s * (dst + precision(0.5)) - precision(0.5), precision(0))
    low = src.astype(np.int64)
    high = low + (low < in_size - 1)
    frac = (src - low.astype(precision)).astype(np.float64)
    np.add.at(matrix, (rows, low), 1.0 - frac)
    np.add.at(matrix, (rows, high), frac)
    return matrix


def interpolate(x: np.ndarray, matrices: list[np.ndarray]) -> np.ndarray:
    """Apply one matrix per trailing spatial axis."""
    y = x.astype(np.float64)
    first = x.ndim - len(matrices)
    for offset, matrix in enumerate(matrices):
        y = np.moveaxis(np.tensordot(matrix, np.moveaxis(y, first + offset, 0), axes=(1, 0)), 0, first + offset)
    return y


def interpolate_backward(grad: np.ndarray, matrices: list[np.ndarray]) -> np.ndarray:
    return interpolate(grad, [m.T for m in matrices])
