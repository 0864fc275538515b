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
    close._counter().value = writes
    return close


def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(self, other, rtol, atol, equal_nan)._numpy_view().all())


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """ATen's cartesian_prod: the "ij" meshgrid of the vectors, each flattened, stacked as columns."""
    from engine.ops import indexing, views

    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return indexing.stack([views.flatten(g) for g in views.meshgrid(*tensors, indexing="ij")], 1)


def _triangle_indices(row: int, col: int, offset: int, dtype: Any, upper: bool, name: str) -> Tensor:
    target = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if target.is_floating_point or target.is_complex or target is dtypes.bool_:
        raise NotImplementedError(f'"{name}" not implemented for \'{target.short}\'')
    rows, cols = np.triu_indices(row, offset, col) if upper else np.tril_indices(row, offset, col)
    return Tensor._wrap(np.stack([rows, cols]).astype(target.np).reshape(2, -1), target)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    """The (row, col) indices of the lower triangle, row by row, as a (2, N) int64 tensor."""
    return _triangle_indices(row, col, offset, dtype, False, "tril_indices")


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None,
                 layout: Any = None) -> Tensor:
    return _triangle_indices(row, col, offset, dtype, True, "triu_indices")


def matrix_power(self: Tensor, n: int) -> Tensor:
    """ATen's linalg_matrix_power: n = 0 the identity copied into a clone (so it is in the graph),
    1 a clone, -1 the inverse, 2 and 3 one and two matmuls, more by squaring (least significant bit
    first); a negative n inverts first."""
    from engine import linalg as linalg_module
    from engine.ops import copying, factories
    from engine.ops import linalg as contraction

    if self.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if self._shape[-1] != self._shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{self._shape[-2]} by {self._shape[-1]} matrices")
    if n == 0:
        return copying.copy_(copying.clone(self, memory_format=None, contiguous=True),
                             factories.eye(self._shape[-1], dtype=self.dtype))
    if n == 1:
        return copying.clone(self, memory_format=None, contiguous=True)
    if n == -1:
        return linalg_module.inv(self)
    a = linalg_module.inv(self) if n < 0 else self
    n = abs(n)
    if n == 2:
        return contraction.matmul(a, a)
    if n == 3:
        return contraction.matmul(contraction.matmul(a, a), a)
    z: Tensor | None = None
    result: Tensor | None = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else contraction.matmul(z, z)
        if bit:
            result = z if result is None else contraction.matmul(result, z)
    assert result is not None
    return result


def diag(self: Tensor, diagonal: int = 0) -> Tensor:
    """torch.diag: a vector's square matrix, or a copy of a matrix's diagonal (diagonal_copy)."""
    from engine.ops import factories, view_copies

    if self.ndim == 2:
        return view_copies.FUNCTIONS["diagonal_copy"](self, diagonal)
    return factories.diag(self, diagonal)


METHODS: dict[str, Callable[..., Any]] = {"kron": kron, "tile": tile, "diff": diff, "take_along_dim": take_along_dim,
                                          "rot90": rot90, "nanmean": nanmean, "isclose": isclose, "allclose": allclose,
                                          "matrix_power": matrix_power, "diag": diag}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(METHODS, cartesian_prod=cartesian_prod, tril_indices=tril_indices,
                                                triu_indices=triu_indices)
