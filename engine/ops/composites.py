"""Ops torch composes of other ops, composed the same way here so they record the same nodes: tile
(RepeatBackward0), diff (slices subtracted, n times, after cat of prepend/append), take_along_dim
(broadcast then GatherBackward0), nanmean (nansum over the count of non-NaN elements). rot90 is its
own op (Rot90Backward0, whose rule rotates the gradient back), laid out as ATen's flip + transpose_
leaves it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import dtypes, geometry
from engine.ops.core import record
from engine.tensor import Tensor


def tile(self: Tensor, *dims: Any) -> Tensor:
    from engine.ops.indexing import repeat

    reps = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else tuple(dims)
    if len(reps) < self.ndim:
        reps = (1,) * (self.ndim - len(reps)) + reps
    return repeat(self, *reps)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,  # noqa: A002 - torch's names
         append: Tensor | None = None) -> Tensor:
    from engine.ops import pointwise, views
    from engine.ops.indexing import cat

    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for extra in (prepend, append):
        if extra is not None and extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    d = geometry.wrap_dim(dim, input.ndim)
    result = input
    if n and (prepend is not None or append is not None):
        result = cat([t for t in (prepend, input, append) if t is not None], d)
    if n == 0:  # ATen hands back a copy: a fresh tensor written once (CopyBackwards)
        from engine.ops.factories import empty_like

        return empty_like(input).copy_(input)
    length = result._shape[d] - 1
    n = min(n, result._shape[d])
    boolean = result.dtype is dtypes.bool_
    while n > 0 and length >= 0:
        earlier = views.narrow(result, d, 0, length)  # ATen's operands evaluate right to left
        later = views.narrow(result, d, 1, length)
        result = later.logical_xor(earlier) if boolean else pointwise.sub(later, earlier)
        n -= 1
        length -= 1
    return result


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    from engine.ops import views
    from engine.ops.indexing import gather

    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype.short}")
    if dim is None:
        return gather(views.view(input, -1), 0, views.view(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, but "
                           f"got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = geometry.wrap_dim(dim, input.ndim)
    sizes = list(input._shape)
    sizes[d] = indices._shape[d]
    indices_b = views.expand(indices, geometry.broadcast_shapes(sizes, indices._shape))
    sizes = list(indices._shape)
    sizes[d] = input._shape[d]
    input_b = views.expand(input, geometry.broadcast_shapes(sizes, input._shape))
    return gather(input_b, d, indices_b)


def rot90(self: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.ndim}")
    d0, d1 = (geometry.wrap_dim(d, self.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    x = self._numpy_view()
    turns = k % 4
    if turns == 1:
        value = np.ascontiguousarray(np.flip(x, d1)).swapaxes(d0, d1)
    elif turns == 2:
        value = np.ascontiguousarray(np.flip(x, (d0, d1)))
    elif turns == 3:
        value = np.ascontiguousarray(np.flip(x, d0)).swapaxes(d0, d1)
    else:
        value = np.array(x, order="C")
    out = Tensor._wrap(value, self.dtype)
    record("Rot90Backward0", out, (self,), values={"dims": tuple(dims), "k": k})
    return out


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A002
    from engine.ops import pointwise
    from engine.ops.reductions_more import nansum

    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.short}")
    count = pointwise.logical_not(pointwise.isnan(input)).sum(dim, keepdim=keepdim)
    return pointwise.div(nansum(input, dim, keepdim, dtype=dtype), count)


def kron(self: Tensor, other: Tensor) -> Tensor:
    """ATen's KronImpl: each operand viewed with interleaved unit dims, multiplied, viewed back (three
    UnsafeViewBackward0 around one MulBackward0)."""
    from engine.ops import pointwise
    from engine.ops.linalg import _unsafe_view

    maxdim = max(self.ndim, other.ndim)
    pad_self, pad_other = maxdim - self.ndim, maxdim - other.ndim
    a_shape, b_shape, result_shape = [], [], []
    for i in range(maxdim):
        a = self._shape[i - pad_self] if i >= pad_self else 1
        b = other._shape[i - pad_other] if i >= pad_other else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        result_shape.append(a * b)
    self_view = _unsafe_view(self if self.is_contiguous() else self.contiguous(), a_shape)
    other_view = _unsafe_view(other if other.is_contiguous() else other.contiguous(), b_shape)
    return _unsafe_view(pointwise.mul(self_view, other_view), result_shape)


def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """ATen's isclose, in the operands' own dtype: equal, or (finite) |self - other| <= atol + |rtol * other|."""
    from engine.autograd.grad_mode import no_grad
    from engine.ops import pointwise

    if self.dtype is not other.dtype:
        raise RuntimeError(f"{self.dtype.short} did not match {other.dtype.short}")
    if self.dtype.is_complex and equal_nan:
        raise RuntimeError("isclose with equal_nan=True is not supported for complex inputs.")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    writes = 0  # ATen ORs into `close` in place: its version counts the writes
    with no_grad():
        close = pointwise.eq(self, other)
        if equal_nan and (self.dtype.is_floating_point or self.dtype.is_complex):
            close = pointwise.bitwise_or(close, pointwise.bitwise_and(pointwise.isnan(self), pointwise.isnan(other)))
            writes += 1
        if rtol != 0 or atol != 0:
            a, b = (t.to(dtypes.get_default_dtype()) if t.dtype is dtypes.bool_ else t for t in (self, other))
            allowed = pointwise.add(pointwise.unary("abs", pointwise.mul(b, rtol)), atol)
            actual = pointwise.unary("abs", pointwise.sub(a, b))
            within = pointwise.bitwise_and(pointwise.isfinite(actual), pointwise.le(actual, allowed))
            close = pointwise.bitwise_or(close, within)
            writes += 1
    close._vc.value = writes
    return close


def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(self, other, rtol, atol, equal_nan)._numpy_view().all())


METHODS: dict[str, Callable[..., Any]] = {"kron": kron, "tile": tile, "diff": diff, "take_along_dim": take_along_dim,
                                          "rot90": rot90, "nanmean": nanmean, "isclose": isclose, "allclose": allclose}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(METHODS)
