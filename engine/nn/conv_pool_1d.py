"""1-D convolution and pooling, as ATen computes them.

conv1d is its own convolution (ConvolutionBackward0 keeping (length,) tuples: stride (2,), padding
(1,)...), computed by the 2-D kernel over a height of 1; an unbatched (C, L) input is unsqueezed to a
batch of one and squeezed back, and padding='same' is resolved to numbers (the extra element of an odd
total padding padded on the right first), as torch does. The pools are torch's composites: unsqueeze a
height of 1, pool in 2-D, squeeze it away (SqueezeBackward1 over MaxPool2DWithIndicesBackward0...).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import errors
from engine.kernels import conv
from engine.ops import views
from engine.ops.core import record
from engine.tensor import Tensor

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "conv1d", "max_pool1d"]


def _one(value: Any) -> int:
    return int(value[0]) if isinstance(value, (tuple, list)) else int(value)


def _single(value: Any) -> tuple[int]:
    return (_one(value),)


def _same_padding(input: Tensor, weight: Tensor, stride: Any, dilation: Any) -> tuple[Tensor, int]:  # noqa: A002
    from engine.nn.functional import pad

    if _one(stride) != 1:
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = _one(dilation) * (weight._shape[-1] - 1)
    left = total // 2
    if total - left != left:  # an odd total: ATen pads the extra element on the right before convolving
        from engine.warn_once import warn_once

        warn_once("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
                  "the input be created", stacklevel=4)
        input = pad(input, [0, total - 2 * left])  # noqa: A001
    return input, left


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    from engine import amp

    input, weight, bias = amp.cast_inputs(input, weight, bias)  # noqa: A001
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
                           f"{errors.shape_text(input._shape)}")
    if input.ndim == 2:
        return views.squeeze(conv1d(views.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups), 0)
    if input._shape[1] != weight._shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {errors.shape_text(weight._shape)}, expected input"
            f"{errors.shape_text(input._shape)} to have {weight._shape[1] * groups} channels, but got "
            f"{input._shape[1]} channels instead")
    from engine.nn.functional import check_kernel_fits

    check_kernel_fits(input._shape[2:], weight._shape[2:], padding if not isinstance(padding, str) or
                      padding in ("valid", "same") else 0, dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            input, padding = _same_padding(input, weight, stride, dilation)  # noqa: A001
        else:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of ['valid', 'same']")
    bias_np = None if bias is None else bias._numpy_view()
    value = conv.conv1d_forward(input._numpy_view(), weight._numpy_view(), bias_np, stride, padding, dilation,
                                groups)
    out = Tensor._wrap(np.array(value, dtype=input.dtype.np, order="C"), input.dtype)
    record("ConvolutionBackward0", out, (input, weight, bias), save={"input": input, "weight": weight},
           values={"bias_sym_sizes_opt": (0,) if bias is None else bias._shape, "dilation": _single(dilation),
                   "groups": groups, "output_padding": (0,), "padding": _single(padding), "stride": _single(stride),
                   "transposed": False})
    return out


def _pooled(input: Tensor, pool: Any) -> Any:  # noqa: A002
    """Pool over a height of 1: unsqueeze(-2), the 2-D pool, squeeze(-2) of each tensor it returns."""
    result = pool(views.unsqueeze(input, -2))
    if isinstance(result, tuple):
        return tuple(views.squeeze(r, -2) for r in result)
    return views.squeeze(result, -2)


def _check_pool_input(name: str, input: Tensor) -> None:  # noqa: A002
    """ATen's checkDimRange on the pools' composite path."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {name})")


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """With indices, or when a gradient is wanted: torch's composite (views of the 2-D pool's result); else
    its direct kernel, whose result is a tensor of its own."""
    from engine.nn.functional import max_pool2d
    from engine.ops.core import needs_grad

    composite = return_indices or needs_grad(input)
    if composite:
        _check_pool_input("max_pool1d", input)
    elif input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{errors.shape_text(input._shape)}")
    strides = (1, _one(stride)) if stride not in (None, [], ()) else (1, _one(kernel_size))
    result = _pooled(input, lambda x: max_pool2d(x, (1, _one(kernel_size)), strides, (0, _one(padding)),
                                                 (1, _one(dilation)), ceil_mode, return_indices))
    return result if composite else result.clone()


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    from engine.nn.functional import avg_pool2d

    _check_pool_input("avg_pool1d", input)
    strides = (1, _one(stride)) if stride not in (None, [], ()) else (1, _one(kernel_size))
    return _pooled(input, lambda x: avg_pool2d(x, (1, _one(kernel_size)), strides, (0, _one(padding)), ceil_mode,
                                               count_include_pad))


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    from engine.nn.functional import adaptive_avg_pool2d

    _check_pool_input("adaptive_avg_pool1d", input)
    return _pooled(input, lambda x: adaptive_avg_pool2d(x, (1, _one(output_size))))


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    from engine.nn.functional import adaptive_max_pool2d

    _check_pool_input("adaptive_max_pool1d", input)
    return _pooled(input, lambda x: adaptive_max_pool2d(x, (1, _one(output_size)), return_indices))
