"""F.unfold / F.fold (ATen's im2col / col2im) and the nn.Unfold / nn.Fold layers.

unfold copies each sliding kernel_size block of an image into a column (N, C * kh * kw, L); fold sums
such columns back into an image, adding the overlaps kernel offset by kernel offset in the order
ATen's col2im loop does, so the sums round as torch's. Each is the other's derivative
(Im2ColBackward0, Col2ImBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.nn.module import Module
from engine.ops.core import record
from engine.tensor import Tensor

__all__ = ["fold", "unfold"]


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (tuple, list)):
        return int(value[0]), int(value[1])
    return int(value), int(value)


def _blocks(size: int, kernel: int, dilation: int, padding: int, stride: int) -> int:
    """How many blocks fit along one side (rounding toward minus infinity, as ATen's div_rtn)."""
    return (size + 2 * padding - (dilation * (kernel - 1) + 1)) // stride + 1


def _check_parameters(kernel: tuple[int, int], dilation: tuple[int, int], padding: tuple[int, int],
                      stride: tuple[int, int]) -> None:
    if kernel[0] <= 0 or kernel[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} "
                           f"kernel_width: {kernel[1]}")
    if dilation[0] <= 0 or dilation[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]} "
                           f"dilation_width: {dilation[1]}")
    if padding[0] < 0 or padding[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}")
    if stride[0] <= 0 or stride[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} "
                           f"stride_width: {stride[1]}")


def _offsets(kernel: tuple[int, int], dilation: tuple[int, int], padding: tuple[int, int], stride: tuple[int, int],
             size: tuple[int, int], blocks: tuple[int, int]) -> list[tuple[int, int, slice, slice, slice, slice]]:
    """For each kernel offset (row-major, ATen's c_col order): the image rows and columns it reads and the
    block rows and columns they belong to (blocks whose offset lands in the padding are skipped)."""
    result = []
    for i in range(kernel[0]):
        rows = _span(i, dilation[0], padding[0], stride[0], size[0], blocks[0])
        for j in range(kernel[1]):
            columns = _span(j, dilation[1], padding[1], stride[1], size[1], blocks[1])
            result.append((i, j, *rows, *columns))
    return result


def _span(offset: int, dilation: int, padding: int, stride: int, size: int, blocks: int) -> tuple[slice, slice]:
    """Block b reads image position b * stride - padding + offset * dilation at this offset: the image
    positions inside the image, as a slice, and the slice of the blocks that read them."""
    positions = offset * dilation - padding + stride * np.arange(blocks)
    inside = np.flatnonzero((positions >= 0) & (positions < size))
    if not inside.size:
        return slice(0, 0), slice(0, 0)
    first, last = int(inside[0]), int(inside[-1]) + 1
    return slice(int(positions[first]), int(positions[last - 1]) + 1, stride), slice(first, last)


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:  # noqa: A002
    kernel, dil, pad, step = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    _check_parameters(kernel, dil, pad, step)
    if input.ndim == 2:
        geometry.wrap_dim(2, 2)  # ATen reads the missing height dim first: torch's IndexError
    if input.ndim not in (3, 4) or 0 in input._shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {errors.shape_text(input._shape)}")
    height, width = input._shape[-2:]
    blocks = (_blocks(height, kernel[0], dil[0], pad[0], step[0]), _blocks(width, kernel[1], dil[1], pad[1], step[1]))
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dil[0]}, {dil[1]}), padding=({pad[0]}, {pad[1]}), calculated shape of the array "
                           f"of sliding blocks as ({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is dtypes.bool_):
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{input.dtype.short}'")
    x = input._numpy_view()
    image = x if input.ndim == 4 else x[None]
    n, c = image.shape[:2]
    columns = np.zeros((n, c, kernel[0], kernel[1], blocks[0], blocks[1]), dtype=x.dtype)
    for i, j, image_rows, block_rows, image_columns, block_columns in _offsets(kernel, dil, pad, step, (height, width),
                                                                             blocks):
        columns[:, :, i, j, block_rows, block_columns] = image[:, :, image_rows, image_columns]
    shape = (n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])
    result = columns.reshape(shape if input.ndim == 4 else shape[1:])
    out = Tensor._wrap(result, input.dtype)
    record("Im2ColBackward0", out, (input,),
           values={"dilation": dil, "kernel_size": kernel, "padding": pad, "stride": step,
                   "self_sym_argsize_minus_1": width, "self_sym_argsize_minus_2": height})
    return out


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,  # noqa: A002
         stride: Any = 1) -> Tensor:
    size, kernel, dil, pad, step = _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    _check_parameters(kernel, dil, pad, step)
    if input.ndim not in (2, 3) or 0 in input._shape[-2:]:
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {errors.shape_text(input._shape)}")
    channels_kernels, count = input._shape[-2:]
    if channels_kernels % (kernel[0] * kernel[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
                           f"input.size(1)={channels_kernels} and kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = (_blocks(size[0], kernel[0], dil[0], pad[0], step[0]), _blocks(size[1], kernel[1], dil[1], pad[1], step[1]))
    if blocks[0] * blocks[1] != count:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, {kernel[1]}), "
                           f"dilation=({dil[0]}, {dil[1]}), padding=({pad[0]}, {pad[1]}), stride=({step[0]}, {step[1]}), "
                           "expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={count}.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is dtypes.bool_):
        raise NotImplementedError(f"\"col2im_out_cpu\" not implemented for '{input.dtype.short}'")
    x = input._numpy_view()
    cols = x if input.ndim == 3 else x[None]
    n, c = cols.shape[0], channels_kernels // (kernel[0] * kernel[1])
    columns = cols.reshape(n, c, kernel[0], kernel[1], blocks[0], blocks[1])
    image = np.zeros((n, c, size[0], size[1]), dtype=x.dtype)
    with np.errstate(all="ignore"):
        for i, j, image_rows, block_rows, image_columns, block_columns in _offsets(kernel, dil, pad, step, size, blocks):
            image[:, :, image_rows, image_columns] += columns[:, :, i, j, block_rows, block_columns]
    out = Tensor._wrap(image if input.ndim == 3 else image[0].copy(), input.dtype)
    record("Col2ImBackward0", out, (input,), values={"dilation": dil, "kernel_size": kernel, "padding": pad,
                                                     "stride": step})
    return out


class Unfold(Module):
    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        from engine.nn import functional as F

        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        from engine.nn import functional as F

        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
