"""Batch norm and layer norm, forward and backward.

Batch-norm statistics are reduced in float64, as torch's CPU kernel accumulates them in double,
then stored in the input dtype; per-element work stays in the input dtype.
"""

from __future__ import annotations

import numpy as np


def _channel_axes(x: np.ndarray) -> tuple[int, ...]:
    """Every axis except the channel axis 1: the axes batch statistics reduce over."""
    return (0, *range(2, x.ndim))


def _per_channel(v: np.ndarray, ndim: int) -> np.ndarray:
    """Shape a (C,) vector to broadcast against an (N, C, ...) input."""
    return v.reshape(1, -1, *([1] * (ndim - 2)))


def _affine(x: np.ndarray, mean: np.ndarray, invstd: np.ndarray, weight: np.ndarray | None,
            bias: np.ndarray | None) -> np.ndarray:
    """torch's transform: out = x * alpha + beta with alpha = invstd * w, beta = b - mean * alpha."""
    alpha = invstd if weight is None else invstd * weight
    beta = -mean * alpha if bias is None else bias - mean * alpha
    return x * _per_channel(alpha.astype(x.dtype), x.ndim) + _per_channel(beta.astype(x.dtype), x.ndim)


def batch_norm_forward(
    x: np.ndarray,
    running_mean: np.ndarray | None,
    running_var: np.ndarray | None,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    training: bool,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (out, save_mean, save_invstd); training updates the running stats in place.

    In eval mode save_mean/save_invstd are empty, as torch's native_batch_norm returns them.
    """
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("running_mean and running_var must be defined in evaluation mode")
        invstd = 1.0 / np.sqrt(running_var.astype(np.float64) + eps)
        out = _affine(x, running_mean.astype(np.float64), invstd, weight, bias)
        return out, np.empty(0, x.dtype), np.empty(0, x.dtype)
    count = x.size // x.shape[1]
    if count <= 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {list(x.shape)}"
        )
    axes = _channel_axes(x)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes)
    var_sum = np.square(x64 - _per_channel(mean, x.ndim)).sum(axis=axes)
    invstd = 1.0 / np.sqrt(var_sum / count + eps)
    # torch updates the running stats in the stats' own precision, momentum included
    if running_mean is not None:
        m = running_mean.dtype.type(momentum)
        running_mean[...] = m * mean.astype(running_mean.dtype) + (1 - m) * running_mean
    if running_var is not None:
        m = running_var.dtype.type(momentum)
        unbiased = (var_sum / (count - 1)).astype(running_var.dtype)
        running_var[...] = m * unbiased + (1 - m) * running_var
    out = _affine(x, mean, invstd, weight, bias)
    return out, mean.astype(x.dtype), invstd.astype(x.dtype)


def batch_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    weight: np.ndarray | None,
    save_mean: np.ndarray,
    save_invstd: np.ndarray,
    training: bool,
    running_mean: np.ndarray | None = None,
    running_var: np.ndarray | None = None,
    eps: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Returns (grad_x, grad_w, grad_b); grad_w is None without a weight.

    Training: the batch mean/var depend on x, which adds the two projection terms.
    Eval: the running stats are constants, so the op is a per-channel affine map.
    """
    axes = _channel_axes(x)
    if training:
        mean, invstd = save_mean.astype(np.float64), save_invstd.astype(np.float64)
    else:
        mean = running_mean.astype(np.float64)
        invstd = 1.0 / np.sqrt(running_var.astype(np.float64) + eps)
    g64 = grad_out.astype(np.float64)
    centered = x.astype(np.float64) - _per_channel(mean, x.ndim)
    grad_sum = g64.sum(axis=axes)
    dot = (g64 * centered).sum(axis=axes)
    scale = invstd if weight is None else invstd * weight
    if training:
        count = x.size // x.shape[1]
        proj = _per_channel(dot * invstd * invstd / count, x.ndim)
        gx = (g64 - _per_channel(grad_sum / count, x.ndim) - centered * proj) * _per_channel(scale, x.ndim)
    else:
        gx = g64 * _per_channel(scale, x.ndim)
    grad_w = None if weight is None else (dot * invstd).astype(x.dtype)
    return gx.astype(x.dtype), grad_w, grad_sum.astype(x.dtype)


def _norm_axes(x: np.ndarray, normalized_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The trailing axes layer norm reduces over, after checking they match normalized_shape."""
    k = len(normalized_shape)
    if tuple(x.shape[x.ndim - k :]) != tuple(normalized_shape):
        raise ValueError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(x.shape)}"
        )
    return tuple(range(x.ndim - k, x.ndim))


def layer_norm_forward(
    x: np.ndarray,
    normalized_shape: int | tuple[int, ...],
    weight: np.ndarray | None = None,
    bias: np.ndarray | None = None,
    eps: float = 1e-5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (out, mean, rstd); mean/rstd keep the normalized axes as size 1 (torch's shape)."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    axes = _norm_axes(x, normalized_shape)
    mean = x.mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(np.square(x - mean).mean(axis=axes, keepdims=True) + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def layer_norm_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    normalized_shape: int | tuple[int, ...],
    mean: np.ndarray,
    rstd: np.ndarray,
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Returns (grad_x, grad_w, grad_b); grad_w is None without a weight.

    grad_x = rstd * (g - mean(g) - xhat * mean(g * xhat)) with g the weight-scaled upstream grad.
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    axes = _norm_axes(x, normalized_shape)
    lead = tuple(range(x.ndim - len(axes)))
    xhat = (x - mean) * rstd
    g = grad_out if weight is None else grad_out * weight
    gx = rstd * (g - g.mean(axis=axes, keepdims=True)
                 - xhat * (g * xhat).mean(axis=axes, keepdims=True))
    grad_w = None if weight is None else (grad_out * xhat).sum(axis=lead)
    return gx, grad_w, grad_out.sum(axis=lead)


def group_norm_forward(x: np.ndarray, groups: int, weight: np.ndarray | None, bias: np.ndarray | None,
                       eps: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(N, C, *) normalised over each group of C/groups channels; returns (y, mean, rstd), the
    statistics shaped (N, groups) as native_group_norm saves them."""
    n, c = x.shape[:2]
    grouped = x.reshape(n, groups, -1).astype(np.float64)
    mean = grouped.mean(axis=-1)
    var = grouped.var(axis=-1)
    rstd = 1.0 / np.sqrt(var + eps)
    y = ((grouped - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def group_norm_backward(grad: np.ndarray, x: np.ndarray, groups: int, mean: np.ndarray, rstd: np.ndarray,
                        weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, c = x.shape[:2]
    shape = (1, c) + (1,) * (x.ndim - 2)
    g64, x64 = grad.astype(np.float64), x.reshape(n, groups, -1).astype(np.float64)
    xhat = ((x64 - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    axes = (0,) + tuple(range(2, x.ndim))
    grad_w = (g64 * xhat).sum(axis=axes)
    grad_b = g64.sum(axis=axes)
    gy = g64 * weight.reshape(shape) if weight is not None else g64
    gy, xh = gy.reshape(n, groups, -1), xhat.reshape(n, groups, -1)
    m = gy.shape[-1]
    grad_x = rstd[..., None] / m * (m * gy - gy.sum(-1, keepdims=True) - xh * (gy * xh).sum(-1, keepdims=True))
    return grad_x.reshape(x.shape).astype(x.dtype), grad_w.astype(x.dtype), grad_b.astype(x.dtype)
