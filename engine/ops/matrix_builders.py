"""Matrices built by placing inputs into zeros: block_diag (each input a block on the diagonal,
BlockDiagBackward0 slices the gradient back) and diag_embed (the last dim laid on a diagonal of two
new dims, DiagEmbedBackward0 reads that diagonal back)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import geometry
from engine.ops.core import record, result_type
from engine.ops.reduction import saved_dims
from engine.tensor import Tensor


def block_sizes(shape: tuple[int, ...]) -> tuple[int, int]:
    """The block an input fills: a 0-dim tensor 1 x 1, a vector one row."""
    if len(shape) == 2:
        return shape[0], shape[1]
    return 1, (shape[0] if shape else 1)


def block_diag(*tensors: Tensor) -> Tensor:
    from engine import dtypes

    if not tensors:
        return Tensor._wrap(np.zeros((1, 0), dtype=dtypes.get_default_dtype().np), dtypes.get_default_dtype())
    dt = result_type(*tensors)
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    blocks = [block_sizes(t._shape) for t in tensors]
    result = np.zeros((sum(b[0] for b in blocks), sum(b[1] for b in blocks)), dtype=dt.np)
    row = col = 0
    with np.errstate(all="ignore"):
        for t, (rows, cols) in zip(tensors, blocks):
            result[row:row + rows, col:col + cols] = np.asarray(t._numpy_view()).reshape(rows, cols).astype(dt.np)
            row, col = row + rows, col + cols
    out = Tensor._wrap(result, dt)
    record("BlockDiagBackward0", out, tensors, values={"_sizes": [t._shape for t in tensors]})
    return out


def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    ndim = self.ndim + 1
    d1, d2 = geometry.wrap_dim(dim1, ndim), geometry.wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    length = abs(offset) + self._shape[-1]
    sizes = list(self._shape[:-1])
    sizes.insert(min(d1, d2), length)
    sizes.insert(max(d1, d2), length)
    result = np.zeros(sizes, dtype=self.dtype.np)
    steps = np.arange(self._shape[-1])
    np.moveaxis(result, (d1, d2), (-2, -1))[..., steps + max(-offset, 0), steps + max(offset, 0)] = \
        self._numpy_view()
    out = Tensor._wrap(result, self.dtype)
    record("DiagEmbedBackward0", out, (self,),
           values={"offset": saved_dims(offset), "dim1": saved_dims(dim1), "dim2": saved_dims(dim2)})
    return out


METHODS: dict[str, Callable[..., Any]] = {"diag_embed": diag_embed}
FUNCTIONS: dict[str, Callable[..., Any]] = {**METHODS, "block_diag": block_diag}
