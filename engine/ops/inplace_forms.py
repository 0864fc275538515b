"""In-place forms of ops the engine had only out of place: addmm_, cumsum_, tril_, triu_ (and
torch.clamp_min_ / torch.clamp_max_ as functions). Each computes the out-of-place value, writes it into
self (one version bump), and records the same node class and fields as the out-of-place op, as
torch's in-place variants do (AddmmBackward0, CumsumBackward0, TrilBackward0...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.autograd import grad_mode
from engine.ops import linalg, pointwise, reduction
from engine.ops.core import apply_inplace, check_inplace_allowed, check_writable
from engine.tensor import Tensor


def _write_result(self: Tensor, compute: Callable[[], Tensor], name: str, inputs: tuple[Any, ...] = (),
                  save: dict[str, Any] | None = None, values: dict[str, Any] | None = None) -> Tensor:
    check_inplace_allowed(self)
    with grad_mode.no_grad():
        result = compute()
    check_writable(self, result.dtype)
    value = result._numpy_view()

    def write(target: np.ndarray) -> None:
        target[...] = value

    return apply_inplace(self, write, name, inputs, save=save, check_autograd=False, values=values)


def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    wanted = (mat1._shape[0], mat2._shape[-1])
    if self._shape != wanted:
        raise RuntimeError(f"Bad in-place call: input tensor size [{', '.join(map(str, self._shape))}] and output "
                           f"tensor size [{', '.join(map(str, wanted))}] should match")
    return _write_result(self, lambda: linalg.addmm(self, mat1, mat2, beta=beta, alpha=alpha), "AddmmBackward0",
                         (mat1, mat2), save={"mat1": mat1, "mat2": mat2},
                         values={"alpha": alpha, "beta": beta, **linalg._layouts(mat1=mat1, mat2=mat2)})


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return _write_result(self, lambda: reduction.cumsum(self, dim, dtype=dtype or self.dtype), "CumsumBackward0",
                         values={"dim": reduction.saved_dims(dim), "_self_dtype": self.dtype})


def _triangle_(name: str, op: Callable[[Tensor, int], Tensor]) -> Callable[..., Tensor]:
    def inplace(self: Tensor, diagonal: int = 0) -> Tensor:
        return _write_result(self, lambda: op(self, diagonal), name, values={"diagonal": diagonal})
    return inplace


def _triangles() -> tuple[Callable[..., Tensor], Callable[..., Tensor]]:
    from engine.ops import indexing

    return _triangle_("TrilBackward0", indexing.tril), _triangle_("TriuBackward0", indexing.triu)


tril_, triu_ = _triangles()

METHODS: dict[str, Callable[..., Any]] = {"addmm_": addmm_, "cumsum_": cumsum_, "tril_": tril_, "triu_": triu_}
FUNCTIONS: dict[str, Callable[..., Any]] = {"clamp_min_": pointwise.clamp_min_, "clamp_max_": pointwise.clamp_max_,
                                            "clamp_": pointwise.clamp_, "clip_": pointwise.clamp_}
