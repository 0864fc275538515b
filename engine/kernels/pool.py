"""2-D max, average and adaptive-average pooling over the last two axes.

Windows are visited one kernel offset at a time: each offset is a strided slice of the padded
input covering every output position at once, so the Python loop runs kh*kw times, not per
pixel. Max pooling replays torch's scan (first strict maximum wins, NaN always wins, padding is
never a candidate) so values and int64 indices match torch.nn.functional.max_pool2d exactly.
Any leading batch axes are accepted (CHW and NCHW).
"""

from __future__ import annotations

import numpy as np

Pair = tuple[int, int]
Size = int | tuple[int, int]


def _pair(value: Size) -> Pair:
    if isinstance(value, int | np.integer):
        return int(value), int(value)
    h, w = value
    return int(h), int(w)


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape: in ceil mode the last window must start inside input+left pad."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    if out <= 0:
        raise ValueError(f"Output size is too small (input {size}, kernel {k}, padding {p})")
    return out


def _pad_to(x: np.ndarray, before: Pair, extent: Pair) -> np.ndarray:
    """Zero-pad the last two axes so that offset `before` starts the data and the result has
    exactly `extent` rows/cols (cropping rows no window reaches)."""
    h, w = x.shape[-2:]
    out = np.zeros((*x.shape[:-2], *extent), dtype=x.dtype)
    rows, cols = min(h, extent[0] - before[0]), min(w, extent[1] - before[1])
    out[..., before[0] : before[0] + rows, before[1] : before[1] + cols] = x[..., :rows, :cols]
    return out


def _offset(i: int, j: int, stride: Pair, out_hw: Pair) -> tuple[slice, slice]:
    """Slices that pick kernel offset (i, j) of every window from the padded input."""
    return (
        slice(i, i + stride[0] * (out_hw[0] - 1) + 1, stride[0]),
        slice(j, j + stride[1] * (out_hw[1] - 1) + 1, stride[1]),
    )


def _args(kernel_size: Size, stride: Size | None, padding: Size,
          dilation: Size = 1) -> tuple[Pair, Pair, Pair, Pair]:
    """(kernel, stride, padding, dilation) as pairs; a missing stride defaults to the kernel."""
    k = _pair(kernel_size)
    s = k if stride is None or stride == () else _pair(stride)
    return k, s, _pair(padding), _pair(dilation)


def max_pool2d_forward(
    x: np.ndarray,
    kernel_size: Size,
    stride: Size | None = None,
    padding: Size = 0,
    dilation: Size = 1,
    ceil_mode: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (out, indices); indices are int64 flat offsets into each H*W plane."""
    k, s, p, d = _args(kernel_size, stride, padding, dilation)
    for ki, pi, di in zip(k, p, d, strict=True):
        if pi > (di * (ki - 1) + 1) // 2:
            raise ValueError(
                f"pad should be at most half of effective kernel size, but got pad={pi}, "
                f"kernel_size={ki} and dilation={di}"
            )
    h, w = x.shape[-2:]
    out_hw = (_out_size(h, k[0], s[0], p[0], d[0], ceil_mode),
              _out_size(w, k[1], s[1], p[1], d[1], ceil_mode))
    extent = (s[0] * (out_hw[0] - 1) + d[0] * (k[0] - 1) + 1,
              s[1] * (out_hw[1] - 1) + d[1] * (k[1] - 1) + 1)
    xp = _pad_to(x, p, extent)
    row0 = np.arange(out_hw[0]) * s[0] - p[0]
    col0 = np.arange(out_hw[1]) * s[1] - p[1]
    best = np.full((*x.shape[:-2], *out_hw), -np.inf, dtype=x.dtype)
    winner = np.full(best.shape, -1, dtype=np.int32)  # kernel offset i*kw + j of the max so far
    for i in range(k[0]):
        rows = row0 + i * d[0]
        for j in range(k[1]):
            cols = col0 + j * d[1]
            value = xp[(..., *_offset(i * d[0], j * d[1], s, out_hw))]
            take = (value > best) | np.isnan(value)
            inside = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))
            if not inside.all():
                take &= inside
            np.copyto(best, value, where=take)
            np.copyto(winner, i * k[1] + j, where=take)
    return best, _flat_index(winner, row0, col0, k[1], d, w)


def _flat_index(winner: np.ndarray, row0: np.ndarray, col0: np.ndarray, kw: int, d: Pair,
                width: int) -> np.ndarray:
    """Turn winning kernel offsets into flat H*W indices. A window nothing beat (all -inf) is
    indexed at its first in-bounds cell, as torch initialises its scan there."""
    rows = row0[:, None] + (winner // kw) * d[0]
    cols = col0 + (winner % kw) * d[1]
    first_row = np.where(row0 < 0, row0 % d[0], row0)[:, None]
    first_col = np.where(col0 < 0, col0 % d[1], col0)
    unbeaten = winner < 0
    rows, cols = np.where(unbeaten, first_row, rows), np.where(unbeaten, first_col, cols)
    return (rows * width + cols).astype(np.int64)


def max_pool2d_backward(
    grad_out: np.ndarray, indices: np.ndarray, input_shape: tuple[int, ...]
) -> np.ndarray:
    """Route each output gradient to its argmax; overlapping windows accumulate.

    A window lying wholly in the padding (possible with dilation) has no input cell to receive
    its gradient; torch writes out of bounds there, we drop it.
    """
    h, w = input_shape[-2:]
    planes = grad_out.reshape(-1, grad_out.shape[-2] * grad_out.shape[-1])
    index = indices.reshape(planes.shape)
    inside = (index >= 0) & (index < h * w)
    flat = index + (np.arange(planes.shape[0]) * (h * w))[:, None]
    grad = np.bincount(flat[inside], weights=planes[inside], minlength=planes.shape[0] * h * w)
    return grad.astype(grad_out.dtype).reshape(input_shape)


def _avg_divisor(size: int, out: int, k: int, s: int, p: int, count_include_pad: bool) -> np.ndarray:
    """Per-output window length along one axis, clipped like torch's avg_pool2d."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def _avg_setup(x_shape: tuple[int, ...], kernel_size: Size, stride: Size | None, padding: Size,
               ceil_mode: bool, count_include_pad: bool, divisor_override: int | None):
    """Shared by forward and backward: geometry, per-output divisors and the padded extent."""
    k, s, p, _ = _args(kernel_size, stride, padding)
    for ki, pi in zip(k, p, strict=True):
        if pi > ki // 2:
            raise ValueError(f"pad should be at most half of kernel size, but got pad={pi} and kernel_size={ki}")
    h, w = x_shape[-2:]
    out_hw = (_out_size(h, k[0], s[0], p[0], 1, ceil_mode), _out_size(w, k[1], s[1], p[1], 1, ceil_mode))
    if divisor_override == 0:
        raise ValueError("divisor must be not zero")
    if divisor_override is not None:
        divisor = np.full(out_hw, divisor_override)
    else:
        divisor = np.outer(_avg_divisor(h, out_hw[0], k[0], s[0], p[0], count_include_pad),
                           _avg_divisor(w, out_hw[1], k[1], s[1], p[1], count_include_pad))
    extent = (s[0] * (out_hw[0] - 1) + k[0], s[1] * (out_hw[1] - 1) + k[1])
    return k, s, p, out_hw, divisor, extent


def avg_pool2d_forward(
    x: np.ndarray,
    kernel_size: Size,
    stride: Size | None = None,
    padding: Size = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> np.ndarray:
    """Window sum (in torch's scan order) divided by the window size torch would use."""
    k, s, p, out_hw, divisor, extent = _avg_setup(
        x.shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    xp = _pad_to(x, p, extent)
    total = np.zeros((*x.shape[:-2], *out_hw), dtype=x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            total += xp[(..., *_offset(i, j, s, out_hw))]
    return total / divisor.astype(x.dtype)


def avg_pool2d_backward(
    grad_out: np.ndarray,
    input_shape: tuple[int, ...],
    kernel_size: Size,
    stride: Size | None = None,
    padding: Size = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> np.ndarray:
    """Spread grad/divisor evenly over every input cell of each window."""
    k, s, p, out_hw, divisor, extent = _avg_setup(
        input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
    share = grad_out / divisor.astype(grad_out.dtype)
    grad = np.zeros((*input_shape[:-2], *extent), dtype=grad_out.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            grad[(..., *_offset(i, j, s, out_hw))] += share
    h, w = input_shape[-2:]
    return np.ascontiguousarray(grad[..., p[0] : p[0] + h, p[1] : p[1] + w])


def _adaptive_bins(size: int, out: int, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """0/1 membership matrix (out, size) of torch's bins [floor(o*size/out), ceil((o+1)*size/out))."""
    o = np.arange(out)
    start = (o * size) // out
    end = -((-(o + 1) * size) // out)
    pos = np.arange(size)
    member = (pos >= start[:, None]) & (pos < end[:, None])
    return member.astype(dtype), (end - start).astype(dtype)


def _adaptive_size(in_hw: tuple[int, ...], output_size: int | tuple[int | None, int | None]) -> Pair:
    """None in output_size keeps that input dimension, as in torch."""
    oh, ow = (output_size, output_size) if isinstance(output_size, int) else output_size
    return (in_hw[0] if oh is None else oh), (in_hw[1] if ow is None else ow)


def adaptive_avg_pool2d_forward(
    x: np.ndarray, output_size: int | tuple[int | None, int | None]
) -> np.ndarray:
    """Bin sums as two small matmuls (rows then cols), then divide by the bin areas."""
    oh, ow = _adaptive_size(x.shape[-2:], output_size)
    mh, nh = _adaptive_bins(x.shape[-2], oh, x.dtype)
    mw, nw = _adaptive_bins(x.shape[-1], ow, x.dtype)
    return (mh @ x @ mw.T) / np.outer(nh, nw)


def adaptive_avg_pool2d_backward(grad_out: np.ndarray, input_shape: tuple[int, ...]) -> np.ndarray:
    """Adjoint of the forward: scale by 1/area, then spread back with the transposed matrices."""
    mh, nh = _adaptive_bins(input_shape[-2], grad_out.shape[-2], grad_out.dtype)
    mw, nw = _adaptive_bins(input_shape[-1], grad_out.shape[-1], grad_out.dtype)
    return mh.T @ (grad_out / np.outer(nh, nw)) @ mw


def adaptive_max_pool2d_forward(x: np.ndarray, output_size: int | tuple[int | None, int | None]
                                ) -> tuple[np.ndarray, np.ndarray]:
    """Max over torch's adaptive bins [floor(i*H/OH), ceil((i+1)*H/OH)); indices are flat h*W + w
    positions in each plane, the first maximum winning ties."""
    oh, ow = _adaptive_size(x.shape[-2:], output_size)
    h, w = x.shape[-2:]
    values = np.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
    indices = np.empty(x.shape[:-2] + (oh, ow), dtype=np.int64)
    for i in range(oh):
        h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
        for j in range(ow):
            w0, w1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            window = x[..., h0:h1, w0:w1].reshape(x.shape[:-2] + (-1,))
            best = np.argmax(window, axis=-1)
            values[..., i, j] = np.take_along_axis(window, best[..., None], -1)[..., 0]
            indices[..., i, j] = (h0 + best // (w1 - w0)) * w + w0 + best % (w1 - w0)
    return values, indices


def adaptive_max_pool2d_backward(grad_out: np.ndarray, indices: np.ndarray, input_shape: tuple[int, ...]) -> np.ndarray:
    planes = grad_out.reshape(-1, grad_out.shape[-2] * grad_out.shape[-1])
    flat_idx = indices.reshape(planes.shape)
    grad = np.zeros((planes.shape[0], input_shape[-2] * input_shape[-1]), dtype=grad_out.dtype)
    np.add.at(grad, (np.arange(planes.shape[0])[:, None], flat_idx), planes)
    return grad.reshape(input_shape)
