"""quantile and nanquantile, composed as ATen's quantile_compute composes them: sort along the dim,
turn each q into a rank, gather the values below and above it and lerp_ between them in place, then
squeeze_ (or unsqueeze_ / transpose_ / squeeze_ for a vector of q) the q dim into place, so the graph
(SqueezeBackward4 over LerpBackward1 over GatherBackward0 over SortBackward0), the versions and the
strides are torch's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import dtypes, geometry
from engine.tensor import Tensor

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _check(self: Tensor, q: Tensor, interpolation: str) -> None:
    """ATen's checks, which name quantile() for nanquantile too."""
    op = "quantile"
    if self.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if q.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if self.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if self.dtype is not q.dtype:
        raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
    if interpolation not in _MODES:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")


def _output_shape(self: Tensor, q: Tensor, dim: int | None, keepdim: bool) -> list[int]:
    if dim is not None and self.ndim > 0:
        shape = list(self._shape)
        d = geometry.wrap_dim(dim, self.ndim)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    elif keepdim:
        shape = [1] * self.ndim
    else:
        shape = []
    if q.ndim > 0:
        shape.insert(0, q.numel())
    return shape


def _compute(self: Tensor, q: Tensor, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    from engine.ops.factories import full_like
    from engine.ops.views import broadcast_tensors

    d = geometry.wrap_dim(dim if dim is not None else 0, max(self.ndim, 1)) if self.ndim else 0
    if dim is not None and self.ndim == 0:
        geometry.wrap_dim(dim, 1)
    q_values = q._numpy_view()
    if not bool(((q_values >= 0) & (q_values <= 1)).all()):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    out_shape = _output_shape(self, q, dim, keepdim)
    if dim is None:
        ordered = self.flatten().sort()[0]
    elif d == self.ndim - 1:
        ordered = self.sort()[0]
    else:
        ordered = self.unsqueeze(-1).transpose(d, -1).sort()[0]
    if q.ndim == 0:
        out_shape.insert(0, q.numel())
    in_shape = out_shape[1:] + [ordered._shape[-1]]
    ordered = ordered.view(in_shape)
    if ignore_nan:
        ranks = q * (ordered.isnan().logical_not().sum(-1, True) - 1)
        ranks.masked_fill_(ranks < 0, 0)
    else:
        last_index = ordered._shape[-1] - 1
        scaled, has_nan = broadcast_tensors(q * last_index, ordered.isnan().any(-1, True))
        ranks = scaled.masked_fill(has_nan, last_index)
    if interpolation == "lower":
        ranks.floor_()
    elif interpolation == "higher":
        ranks.ceil_()
    elif interpolation == "nearest":
        ranks.round_()
    ranks_below = ranks.to(dtypes.int64)
    values_below = ordered.gather(-1, ranks_below)
    if interpolation in ("linear", "midpoint"):
        weights = full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - ranks_below
        ranks_above = ranks.ceil_().to(dtypes.int64)
        values_above = ordered.gather(-1, ranks_above)
        values_below.lerp_(values_above, weights)
    if q.ndim == 0:
        values_below.squeeze_(-1)
    else:
        values_below.unsqueeze_(0).transpose_(0, -1).squeeze_(-1)
    return values_below


def _quantile(name: str, ignore_nan: bool) -> Callable[..., Tensor]:
    def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,  # noqa: A002
                 interpolation: str = "linear", out: Tensor | None = None) -> Tensor:
        from engine.ops.factories import scalar_tensor

        if not isinstance(q, Tensor):
            if not 0 <= q <= 1:
                raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
            q = scalar_tensor(q, dtype=input.dtype)
        _check(input, q, interpolation)
        if out is not None:
            if out.dtype is not input.dtype:
                raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
            from engine.ops.pointwise import resize_out

            result = _compute(input, q, dim, keepdim, interpolation, ignore_nan)
            resize_out(out, result._shape)
            return out.copy_(result)
        return _compute(input, q, dim, keepdim, interpolation, ignore_nan)
    quantile.__name__ = name
    return quantile


quantile = _quantile("quantile", False)
nanquantile = _quantile("nanquantile", True)

METHODS: dict[str, Callable[..., Any]] = {"quantile": quantile, "nanquantile": nanquantile}
FUNCTIONS: dict[str, Callable[..., Any]] = dict(METHODS)
