"""Shared helpers of the distributions, written as torch.distributions.utils writes them so values
and graph nodes come out the same: broadcasting parameters, the standard normal draw, the
probability/logit conversions and the cached `lazy_property`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine
from engine.nn import functional as F  # noqa: N812 - torch's spelling
from engine.tensor import Size, Tensor

euler_constant = 0.57721566490153286060  # Euler Mascheroni constant
NUMBER = (int, float, bool)

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property", "tril_matrix_to_vec",
           "vec_to_tril_matrix"]


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors broadcast together; numbers become tensors of the first tensor's dtype (the default
    dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, *NUMBER)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        options: dict[str, Any] = {"dtype": engine.get_default_dtype()}
        for value in values:
            if isinstance(value, Tensor):
                options = {"dtype": value.dtype, "device": value.device}
                break
        values = tuple(v if isinstance(v, Tensor) else engine.tensor(v, **options) for v in values)
    return tuple(engine.broadcast_tensors(*values))


def standard_normal(shape: Any, dtype: Any, device: Any) -> Tensor:
    return engine.empty(shape, dtype=dtype, device=device).normal_()


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the `dim` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    if is_binary:
        return engine.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into the open interval (0, 1) by the dtype's eps."""
    eps = engine.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return engine.log(ps_clamped) - engine.log1p(-ps_clamped)
    return engine.log(ps_clamped)


class lazy_property:  # noqa: N801 - torch's name
    """A parameter computed from another on first read (logits from probs), then kept on the instance."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.__name__ = wrapped.__name__
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        with engine.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle of (a batch of) D x D matrices as vectors, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    arange = engine.arange(n, device=mat.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    return mat[..., tril_mask]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """(A batch of) vectors laid out as the lower triangle of D x D matrices, row by row."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = engine.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + Size((n, n)))
    arange = engine.arange(n, device=vec.device)
    tril_mask = arange < arange.view(-1, 1) + (diag + 1)
    mat[..., tril_mask] = vec
    return mat


def as_size(shape: Any) -> Size:
    return shape if isinstance(shape, Size) else Size(shape)
EMPTY_SHAPE = Size()  # the default sample_shape
