"""Pixel (un)shuffle and channel-wise dropout.

pixel_shuffle moves r*r channels into an r-times larger image (PixelShuffleBackward0, whose derivative
is pixel_unshuffle, and back). dropout1d/2d zero whole channels: one Bernoulli draw per (sample,
channel), scaled by 1/(1-p) and multiplied in, as ATen's feature dropout does (MulBackward0 keeping
the (N, C, 1...) mask); its warnings for inputs of other ranks are torch's.
"""

from __future__ import annotations

import warnings

import numpy as np

from engine.ops import pointwise as pw
from engine.ops import views
from engine.ops.core import record
from engine.tensor import Tensor

__all__ = ["dropout1d", "dropout2d", "pixel_shuffle", "pixel_unshuffle"]


def _shuffled(input: Tensor, r: int, name: str, node: str, field: str, shuffle: bool) -> Tensor:  # noqa: A002
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           "dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {field}, but got {r}")
    *lead, c, h, w = input._shape
    x = input._numpy_view()
    if shuffle:
        if c % (r * r):
            raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                               f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
        y = x.reshape(*lead, c // (r * r), r, r, h, w)
        k = len(lead)
        y = y.transpose(*range(k), k, k + 3, k + 1, k + 4, k + 2).reshape(*lead, c // (r * r), h * r, w * r)
    else:
        for label, size, dim in (("height", h, -2), ("width", w, -1)):
            if size % r:
                raise RuntimeError(f"pixel_unshuffle expects {label} to be divisible by downscale_factor, but "
                                   f"input.size({dim})={size} is not divisible by {r}")
        y = x.reshape(*lead, c, h // r, r, w // r, r)
        k = len(lead)
        y = y.transpose(*range(k), k, k + 2, k + 4, k + 1, k + 3).reshape(*lead, c * r * r, h // r, w // r)
    out = Tensor._wrap(np.array(y, order="C"), input.dtype)
    record(node, out, (input,), values={field: r})
    return out


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002 - torch's argument names
    return _shuffled(input, upscale_factor, "pixel_shuffle", "PixelShuffleBackward0", "upscale_factor", True)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    return _shuffled(input, downscale_factor, "pixel_unshuffle", "PixelUnshuffleBackward0", "downscale_factor", False)


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:  # noqa: A002
    """ATen's _dropout_impl<feature_dropout=true>: a mask of shape (N, C, 1, ...) drawn with bernoulli_."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        zero = Tensor._wrap(np.zeros((), dtype=input.dtype.np), input.dtype)
        return input.mul_(zero) if inplace else pw.mul(input, zero)
    from engine.ops.random import bernoulli_

    noise = Tensor._empty((*input._shape[:2], *([1] * (input.ndim - 2))), input.dtype)
    bernoulli_(noise, 1 - p)
    noise.div_(1 - p)
    return input.mul_(noise) if inplace else pw.mul(input, noise)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 3:
        return _feature_dropout(input, p, training, inplace)
    batched = input.unsqueeze_(0) if inplace else views.unsqueeze(input, 0)
    result = _feature_dropout(batched, p, training, inplace)
    return result.squeeze_(0) if inplace else views.squeeze(result, 0)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will result "
                      "in an error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", UserWarning, stacklevel=3)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                      "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This "
                      "behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", UserWarning, stacklevel=3)
    return _feature_dropout(input, p, training, inplace)
