"""Products torch composes of others: tensordot (permutes and reshapes around one mm, or for a full
contraction a dot, or mul and sum where flattening would copy, so its graph is torch's), inner (tensordot over the last dims, or a product with a 0-dim
operand) and vdot (the conjugating dot product, VdotBackward0)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import errors, geometry
from engine.ops import pointwise, views
from engine.ops.core import needs_grad, record
from engine.ops.linalg import _no_bool, _product, dot, mm
from engine.ops.pointwise import resize_out, write_out
from engine.tensor import Tensor


def copy_out(result: Tensor, out: Tensor, op: str) -> Tensor:
    """A composite op's out=: torch computes the result, checks out's dtype, resizes out and copies
    into it (so out records CopyBackwards when the result requires grad)."""
    if result.dtype is not out.dtype:
        raise RuntimeError(f"{op}: Expected the output tensor to have dtype {result.dtype.short}, but got an output "
                           f"tensor with dtype {out.dtype.short}")
    resize_out(out, result._shape)
    return out.copy_(result)


def _dims_lists(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    """torch.functional.tensordot's reading of `dims`: a count, two lists, or a tensor of either."""
    if not isinstance(dims, (tuple, list, Tensor, int)) or isinstance(dims, bool):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
        for name, given in (("dims_self", dims_a), ("dims_other", dims_b)):
            if not isinstance(given, (tuple, list)):
                position = 3 if name == "dims_self" else 4
                raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, not "
                                f"{type(given).__name__}")
        return [int(d) for d in dims_a], [int(d) for d in dims_b]
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            if dims._shape[0] != 2:
                raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims._shape[0]}")
            first, second = dims[0].tolist(), dims[1].tolist()
            if not isinstance(first, list):
                raise TypeError(f"tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not "
                                f"{type(first).__name__}")
            return first, second
        count = int(dims.item())
        if count < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        return list(range(-count, 0)), list(range(count))
    if dims < 0:
        raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
    if dims > min(a.ndim, b.ndim):
        raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
    return list(range(-dims, 0)), list(range(dims))


def _bitset(dims: Sequence[int], ndim: int) -> list[bool]:
    """at::dim_list_to_bitset: each dim wrapped, none twice."""
    seen = [False] * ndim
    for d in dims:
        i = geometry.wrap_dim(d, ndim)
        if seen[i]:
            raise RuntimeError(f"dim {i} appears multiple times in the list of dims")
        seen[i] = True
    return seen


def _contract(input1: Tensor, input2: Tensor, dims1: list[int], dims2: list[int]) -> Tensor:
    """ATen's tensordot: sum broadcast contracted dims away, permute the contracted dims together,
    reshape both to matrices, one mm, reshape to the result's sizes."""
    from engine.ops.reduction import sum as reduce_sum

    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if input1.dtype is not input2.dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2 = input1, input2
    csize = 1
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = input1._shape[geometry.wrap_dim(d1, input1.ndim)], input2._shape[geometry.wrap_dim(d2, input2.ndim)]
        if s2 == 1:  # broadcast dims are summed right away
            t1 = reduce_sum(t1, d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = reduce_sum(t2, d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    cdims1, cdims2 = _bitset(dims1, input1.ndim), _bitset(dims2, input2.ndim)
    p1 = [i for i in range(input1.ndim) if not cdims1[i]]
    p2 = list(dims2) + [i for i in range(input2.ndim) if not cdims2[i]]
    size1 = size2 = 1
    rsizes = []
    for i in p1:
        size1 *= t1._shape[i]
        rsizes.append(t1._shape[i])
    for i in p2[len(dims2):]:
        size2 *= t2._shape[i]
        rsizes.append(t2._shape[i])
    p1 += list(dims1)
    if size1 != 1 or size2 != 1:
        m1 = views.reshape(views.permute(t1, p1), (size1, csize))
        m2 = views.reshape(views.permute(t2, p2), (csize, size2))
        return views.reshape(mm(m1, m2), rsizes)
    # a full contraction: a dot of the flattened operands, or where flattening would copy, mul and sum
    t1, t2 = views.permute(t1, p1), views.permute(t2, p2)
    if t1.is_contiguous() and t2.is_contiguous():
        return views.reshape(dot(views.flatten(t1), views.flatten(t2)), rsizes)
    return views.reshape(reduce_sum(pointwise.mul(views.squeeze(t1), views.squeeze(t2)), dtype=t1.dtype), rsizes)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    dims_a, dims_b = _dims_lists(a, b, dims)
    result = _contract(a, b, dims_a, dims_b)
    return result if out is None else copy_out(result, out, "tensordot")


def inner(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    if not isinstance(other, Tensor):
        raise TypeError(f"inner(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if self.ndim == 0 or other.ndim == 0:
        return pointwise.mul(self, other, out=out)
    if self._shape[-1] != other._shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes "
                           f"{errors.shape_text(self._shape)} and {errors.shape_text(other._shape)}")
    result = _contract(self, other, [-1], [-1])
    return result if out is None else copy_out(result, out, "tensordot")


def vdot(self: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """dot with self conjugated; for real tensors the same sum (ATen calls the same BLAS dot)."""
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    if self.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype.short} and "
                           f"{other.dtype.short}")
    if self._shape != other._shape:
        raise RuntimeError(errors.DOT_SIZES.format(n=self._shape[0], m=other._shape[0]))
    _no_bool("dot", self.dtype)
    x = self._numpy_view()
    value = np.asarray(_product(np.conj(x) if self.dtype.is_complex else x, other._numpy_view()), dtype=self.dtype.np)
    if out is not None:
        if needs_grad(self, other, out):
            raise RuntimeError(errors.OUT_REQUIRES_GRAD.format(op="vdot"))
        if out.dtype is not self.dtype:
            resize_out(out, ())
            raise RuntimeError(f"result dtype {out.dtype.short} does not match input dtype {self.dtype.short}")
        return write_out(out, value, "vdot", (self, other))
    result = Tensor._wrap(np.array(value, order="C"), self.dtype)
    record("VdotBackward0", result, (self, other), save={"other": other, "self": self})
    return result


METHODS: dict[str, Callable[..., Any]] = {"inner": inner, "vdot": vdot}
FUNCTIONS: dict[str, Callable[..., Any]] = {**METHODS, "tensordot": tensordot}
