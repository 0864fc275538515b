"""2-D convolution as im2col + one batched matmul per call.

The input is padded, cut into sliding windows (a strided view, no copy), and the windows are
copied once into a (groups, Cg*kh*kw, N*OH*OW) column matrix so that the whole convolution, and
both halves of its backward pass, are plain BLAS matmuls. Layout is NCHW; an unbatched CHW
input is accepted like torch does.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

Pair = tuple[int, int]
Pads = tuple[Pair, Pair]
IntPair = int | tuple[int, int]
Padding = int | tuple[int, int] | str


def _pair(value: IntPair) -> Pair:
    """Expand an int to (v, v), as torch does for every 2-D conv argument."""
    if isinstance(value, int | np.integer):
        return int(value), int(value)
    h, w = value
    return int(h), int(w)


def _pads(padding: Padding, kernel: Pair, stride: Pair, dilation: Pair) -> Pads:
    """(top, bottom), (left, right) padding; 'same' puts the odd extra pixel at the end like torch."""
    if padding == "valid":
        return (0, 0), (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        th, tw = dilation[0] * (kernel[0] - 1), dilation[1] * (kernel[1] - 1)
        return (th // 2, th - th // 2), (tw // 2, tw - tw // 2)
    if isinstance(padding, str):
        raise ValueError(f"Invalid padding string '{padding}', should be one of ('valid', 'same')")
    ph, pw = _pair(padding)
    return (ph, ph), (pw, pw)


def _out_size(size: int, pads: Pair, k: int, s: int, d: int) -> int:
    out = (size + pads[0] + pads[1] - d * (k - 1) - 1) // s + 1
    if out <= 0:
        raise ValueError("Calculated output size is too small: kernel larger than padded input")
    return out


def _geometry(x: np.ndarray, weight: np.ndarray, stride: IntPair, padding: Padding,
              dilation: IntPair, groups: int) -> tuple[Pair, Pads, Pair, Pair]:
    """Normalise the arguments to (stride, pads, dilation, output HW), rejecting what torch does."""
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"Expected 3D or 4D input to conv2d, got input of shape {list(x.shape)}")
    if weight.shape[0] % groups or x.shape[1] != weight.shape[1] * groups:
        raise ValueError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(x.shape)} to have {weight.shape[1] * groups} channels"
        )
    s, d = _pair(stride), _pair(dilation)
    if min(s) < 1 or min(d) < 1:
        raise ValueError("stride and dilation must be positive")
    kernel = (weight.shape[2], weight.shape[3])
    pads = _pads(padding, kernel, s, d)
    if min(*pads[0], *pads[1]) < 0:
        raise ValueError("negative padding is not supported")
    out_hw = (
        _out_size(x.shape[2], pads[0], kernel[0], s[0], d[0]),
        _out_size(x.shape[3], pads[1], kernel[1], s[1], d[1]),
    )
    return s, pads, d, out_hw


def _im2col(x: np.ndarray, kernel: Pair, stride: Pair, pads: Pads, dilation: Pair,
            groups: int) -> np.ndarray:
    """Copy every receptive field into a (groups, Cg*kh*kw, N*OH*OW) matrix."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    span = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    win = sliding_window_view(xp, span, axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    n, _, oh, ow = win.shape[:4]
    cols = win.transpose(1, 4, 5, 0, 2, 3)  # (C, kh, kw, N, OH, OW)
    return cols.reshape(groups, -1, n * oh * ow)


def _col2im(cols: np.ndarray, x_shape: tuple[int, ...], kernel: Pair, stride: Pair, pads: Pads,
            dilation: Pair, out_hw: Pair) -> np.ndarray:
    """Scatter-add columns back onto the input grid: the adjoint of _im2col."""
    n, c, h, w = x_shape
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    blocks = cols.reshape(c, kh, kw, n, oh, ow).transpose(1, 2, 3, 0, 4, 5)
    grad = np.zeros((n, c, h + sum(pads[0]), w + sum(pads[1])), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            cols_ = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
            grad[:, :, rows, cols_] += blocks[i, j]
    return np.ascontiguousarray(grad[:, :, pads[0][0] : pads[0][0] + h, pads[1][0] : pads[1][0] + w])


def conv2d_forward(
    x: np.ndarray,
    weight: np.ndarray,
    bias: np.ndarray | None = None,
    stride: IntPair = 1,
    padding: Padding = 0,
    dilation: IntPair = 1,
    groups: int = 1,
) -> np.ndarray:
    """torch.nn.functional.conv2d: (N, C, H, W) x (O, C/groups, kh, kw) -> (N, O, OH, OW)."""
    if x.ndim == 3:
        return conv2d_forward(x[None], weight, bias, stride, padding, dilation, groups)[0]
    s, pads, d, out_hw = _geometry(x, weight, stride, padding, dilation, groups)
    cols = _im2col(x, weight.shape[2:], s, pads, d, groups)
    w = weight.reshape(groups, weight.shape[0] // groups, -1)
    out = (w @ cols).reshape(weight.shape[0], x.shape[0], *out_hw).transpose(1, 0, 2, 3)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out)


def conv2d_backward(
    grad_out: np.ndarray,
    x: np.ndarray,
    weight: np.ndarray,
    stride: IntPair = 1,
    padding: Padding = 0,
    dilation: IntPair = 1,
    groups: int = 1,
    need: tuple[bool, bool, bool] = (True, True, True),
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """Gradients w.r.t. (x, weight, bias); entries whose `need` flag is False come back None."""
    if x.ndim == 3:
        gx, gw, gb = conv2d_backward(grad_out[None], x[None], weight, stride, padding, dilation,
                                     groups, need)
        return (None if gx is None else gx[0]), gw, gb
    s, pads, d, out_hw = _geometry(x, weight, stride, padding, dilation, groups)
    kernel = weight.shape[2:]
    g = grad_out.transpose(1, 0, 2, 3).reshape(groups, weight.shape[0] // groups, -1)
    grad_x = grad_w = grad_b = None
    if need[0]:
        w = weight.reshape(groups, weight.shape[0] // groups, -1)
        grad_x = _col2im(w.transpose(0, 2, 1) @ g, x.shape, kernel, s, pads, d, out_hw)
    if need[1]:
        cols = _im2col(x, kernel, s, pads, d, groups)
        grad_w = (g @ cols.transpose(0, 2, 1)).reshape(weight.shape)
    if need[2]:
        grad_b = grad_out.sum(axis=(0, 2, 3))
    return grad_x, grad_w, grad_b


def conv_transpose2d_forward(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, stride: IntPair,
                             padding: IntPair, output_padding: IntPair, groups: int, dilation: IntPair) -> np.ndarray:
    """The adjoint of conv2d: (N, Cin, H, W) x (Cin, Cout/groups, kh, kw) -> (N, Cout, H', W') with
    H' = (H - 1) * stride - 2 * padding + dilation * (kh - 1) + output_padding + 1."""
    if x.ndim == 3:
        return conv_transpose2d_forward(x[None], weight, bias, stride, padding, output_padding, groups,
                                        dilation)[0]
    s, p, op, d = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    out_hw = [(x.shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (weight.shape[2 + i] - 1) + op[i] + 1 for i in (0, 1)]
    shape = (x.shape[0], weight.shape[1] * groups, *out_hw)
    out, _, _ = conv2d_backward(x, np.empty(shape, x.dtype), weight, s, p, d, groups, (True, False, False))
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return np.ascontiguousarray(out, dtype=x.dtype)


def conv_transpose2d_backward(grad_out: np.ndarray, x: np.ndarray, weight: np.ndarray, stride: IntPair,
                              padding: IntPair, groups: int, dilation: IntPair,
                              need: tuple[bool, bool, bool]) -> tuple[np.ndarray | None, ...]:
    """Gradients of conv_transpose2d: a convolution of grad_out for the input, and the weight gradient
    of the convolution that maps grad_out onto x."""
    if x.ndim == 3:
        gx, gw, gb = conv_transpose2d_backward(grad_out[None], x[None], weight, stride, padding, groups, dilation,
                                               need)
        return (None if gx is None else gx[0]), gw, gb
    grad_x = conv2d_forward(grad_out, weight, None, stride, padding, dilation, groups) if need[0] else None
    grad_w = conv2d_backward(x, grad_out, weight, stride, padding, dilation, groups, (False, True, False))[1] \
        if need[1] else None
    grad_b = grad_out.sum(axis=(0, 2, 3)) if need[2] else None
    return grad_x, grad_w, grad_b
