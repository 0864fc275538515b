"""RMS and instance normalisation, as torch 2.13 composes them on the CPU.

rms_norm is x * rsqrt(mean(x^2 over the normalised dims, reversed) + eps) (then * weight): PowBackward0,
MeanBackward1, an in-place AddBackward1, RsqrtBackward0, MulBackward0, with eps defaulting to the
dtype's machine epsilon. instance_norm is batch_norm over a (1, N*C, ...) view, the affine parameters
and running stats repeated N times, the running stats then averaged back over the batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from engine import errors
from engine.ops import backward_ops as B
from engine.ops import pointwise as pw
from engine.ops import views
from engine.tensor import Tensor

__all__ = ["instance_norm", "rms_norm"]


def _shape_list(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,  # noqa: A002
             eps: float | None = None) -> Tensor:
    from engine.typeinfo import finfo

    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if weight is not None and tuple(weight._shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_shape_list(weight._shape)} and normalized_shape = {_shape_list(shape)}")
    if input._shape[input.ndim - len(shape):] != shape or len(shape) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={_shape_list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size{_shape_list(input._shape)}")
    dims = [input.ndim - i - 1 for i in range(len(shape))]
    upcast = input.float() if input.dtype.itemsize < 4 and input.dtype.is_floating_point else input
    epsilon = finfo(upcast.dtype).eps if eps is None else eps
    mean_square = pw.pow(upcast, 2).mean(dims, keepdim=True)
    result = pw.mul(upcast, pw.unary("rsqrt", B.add_scalar_(mean_square, epsilon))).to(input.dtype)
    return result if weight is None else pw.mul(result, weight)


def _repeat(t: Tensor | None, times: int) -> Tensor | None:
    return None if t is None else t.repeat(times)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,  # noqa: A002
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    from engine.autograd import grad_mode
    from engine.nn.functional import batch_norm

    if use_input_stats and math.prod(input._shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({_shape_list(input._shape)})")
    if input.ndim < 2:
        raise RuntimeError(f"Expected 2D or higher input, but got input of size: {errors.shape_text(input._shape)}")
    batch, channels = input._shape[0], input._shape[1]
    reshaped = views.view(input.contiguous(), 1, batch * channels, *input._shape[2:])
    mean_, var_ = _repeat(running_mean, batch), _repeat(running_var, batch)
    out = batch_norm(reshaped, mean_, var_, _repeat(weight, batch), _repeat(bias, batch), use_input_stats, momentum,
                     eps)
    with grad_mode.no_grad():
        for stats, repeated in ((running_mean, mean_), (running_var, var_)):
            if stats is not None and use_input_stats:  # evaluation leaves the stats (and their versions) alone
                stats.copy_(views.view(repeated, batch, channels).mean(0))
    return views.view(out, *input._shape)
