"""torch.nn.functional: layers as functions, recorded with PyTorch's node names and saved tensors.

The arithmetic lives in engine/kernels (plain numpy, forward and backward); this module decides what
each op saves (which is what makes an in-place change break backward) and how it joins the graph.
Their derivatives are in engine/autograd/derivatives/nn.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, errors, geometry
from engine.kernels import activation, conv, loss, norm, pool
from engine.ops import pointwise as pw
from engine.ops import views
from engine.ops.backward_ops import REDUCTION
from engine.ops.core import record
from engine.ops.reduction import saved_dims
from engine.tensor import Tensor


def _new(array: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._wrap(np.asarray(array, dtype=like.dtype.np), like.dtype)


def _np(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._numpy_view()


# --------------------------------------------------------------------------- activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - torch's argument names
    return pw.unary_("relu", input) if inplace else pw.relu(input)


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    return pw.unary_("relu", input)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return pw.sigmoid(input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return pw.unary("tanh", input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return pw.leaky_relu(input, negative_slope, inplace)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:  # noqa: A002
    return pw.leaky_relu_(input, negative_slope)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return pw.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return pw.hardtanh_(input, min_val, max_val)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    return pw.threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return pw.threshold_(input, threshold, value)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """torch's relu6 is hardtanh(input, 0, 6) with integer bounds (its node shows them so); nn.ReLU6
    calls hardtanh with 0.0 and 6.0."""
    return pw.hardtanh(input, 0, 6, inplace)


def gelu(input: Tensor, approximate: str = "none", *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    return pw.gelu(input, approximate, out=out)


def _softmax_family(input: Tensor, dim: int | None, dtype: dtypes.dtype | None, log: bool) -> Tensor:  # noqa: A002
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    source = input if dtype is None else input.to(dtype)
    x = source._numpy_view()
    d = dim % max(x.ndim, 1)
    forward = activation.log_softmax if log else activation.softmax
    out = _new(forward(x, d) if x.ndim else np.zeros_like(x) if log else np.ones_like(x), source)
    record("LogSoftmaxBackward0" if log else "SoftmaxBackward0", out, (source,), save_outputs={"result": out},
           values={"dim": saved_dims(dim), "_d": d})
    return out


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
            dtype: dtypes.dtype | None = None) -> Tensor:
    return _softmax_family(input, dim, dtype, log=False)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # noqa: A002
                dtype: dtypes.dtype | None = None) -> Tensor:
    return _softmax_family(input, dim, dtype, log=True)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:  # noqa: A002
    """Training: multiply by a mask of 0 and 1/(1-p) (MulBackward0 saving the mask), as on CPU."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    from engine.ops.random import bernoulli_

    mask = Tensor._empty(input._shape, input.dtype)
    bernoulli_(mask, 1 - p)
    mask._counter().value = 0
    if p < 1:
        mask._numpy_view()[...] /= (1 - p)
    return input.mul_(mask) if inplace else pw.mul(input, mask)


# --------------------------------------------------------------------------- linear layers
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, *,  # noqa: A002
           out: Tensor | None = None) -> Tensor:
    """As ATen composes it: addmm for 2-D input with bias, a flattened addmm (view, addmm, view) for
    other contiguous input with bias, else matmul (+ bias)."""
    from engine import amp
    from engine.ops import linalg

    input, weight, bias = amp.cast_inputs(input, weight, bias)  # noqa: A001
    if out is not None:
        result = linear(input, weight, bias)
        return pw.write_out(out, result._numpy_view(), "linear", (input, weight, bias))

    wt = views.t(weight)
    if input.ndim == 2 and bias is not None:
        return linalg.addmm(bias, input, wt)
    if bias is not None and input.is_contiguous():  # ATen's _flatten_nd_linear, 1-D and N-D alike
        flat = views.view(input, -1, input._shape[-1])
        return views.view(linalg.addmm(bias, flat, wt), *input._shape[:-1], weight._shape[0])
    out = linalg.matmul(input, wt)
    return pw.add(out, bias) if bias is not None else out


def bilinear(*args: Any, **kwargs: Any) -> Tensor:
    raise NotImplementedError("bilinear is not part of this engine")


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    from engine import amp

    input, weight, bias = amp.cast_inputs(input, weight, bias)  # noqa: A001
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{errors.shape_text(input._shape)}")
    in_channels = input._shape[-3]
    if in_channels != weight._shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {errors.shape_text(weight._shape)}, expected input"
            f"{errors.shape_text(input._shape)} to have {weight._shape[1] * groups} channels, but got "
            f"{in_channels} channels instead")
    check_kernel_fits(input._shape[-2:], weight._shape[2:], padding, dilation)
    out = _new(conv.conv2d_forward(input._numpy_view(), weight._numpy_view(), _np(bias), stride, padding,
                                   dilation, groups), input)
    record("ConvolutionBackward0", out, (input, weight, bias), save={"input": input, "weight": weight},
           values={"bias_sym_sizes_opt": None if bias is None else bias._shape, "dilation": _pair(dilation),
                   "groups": groups, "output_padding": (0, 0), "padding": _pair(padding), "stride": _pair(stride),
                   "transposed": False})
    return out


def check_kernel_fits(spatial: Sequence[int], kernel: Sequence[int], padding: Any, dilation: Any) -> None:
    """ATen's check_shape_forward: the dilated kernel must fit the padded input ('same' always does)."""
    if isinstance(padding, str):
        if padding == "same":
            return
        padding = 0
    n = len(spatial)
    pads = (padding,) * n if isinstance(padding, int) else tuple(padding)
    dils = (dilation,) * n if isinstance(dilation, int) else tuple(dilation)
    padded = [size + 2 * p for size, p in zip(spatial, pads)]
    dilated = [d * (k - 1) + 1 for k, d in zip(kernel, dils)]
    if any(i < k for i, k in zip(padded, dilated)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, dilated))}). Kernel size can't be greater than actual input size")


def _pair(value: Any) -> Any:
    """How conv and pool nodes keep an int-or-pair argument: as a pair (strings such as 'same' as given)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value, value)


# --------------------------------------------------------------------------- pooling
def _max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    values, indices = pool.max_pool2d_forward(input._numpy_view(), kernel_size, stride or None, padding,
                                              dilation, ceil_mode)
    out = _new(values, input)
    index_tensor = Tensor._wrap(indices.astype(np.int64), dtypes.int64)
    record("MaxPool2DWithIndicesBackward0", out, (input,), save={"self": input}, save_outputs={"result1": index_tensor},
           values={"ceil_mode": ceil_mode, "dilation": _pair(dilation), "kernel_size": _pair(kernel_size),
                   "padding": _pair(padding), "stride": _pair(stride) if stride else ()})
    return (out, index_tensor) if return_indices else out


max_pool2d = _max_pool2d  # torch's own wrapper is named _max_pool2d (its TypeErrors say so)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,  # noqa: A002
               ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    args = (kernel_size, stride or None, padding, ceil_mode, count_include_pad, divisor_override)
    out = _new(pool.avg_pool2d_forward(input._numpy_view(), *args), input)
    record("AvgPool2DBackward0", out, (input,), save={"self": input},
           values={"ceil_mode": ceil_mode, "count_include_pad": count_include_pad,
                   "divisor_override": divisor_override, "kernel_size": _pair(kernel_size), "padding": _pair(padding),
                   "stride": _pair(stride) if stride else ()})
    return out


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """An output of 1x1 is a mean over the last two dims, as PyTorch computes (and records) it."""
    if output_size in (1, (1, 1), [1, 1]):
        return input.mean((-1, -2), keepdim=True)
    out = _new(pool.adaptive_avg_pool2d_forward(input._numpy_view(), output_size), input)
    record("AdaptiveAvgPool2DBackward0", out, (input,), save={"self": input})
    return out


# --------------------------------------------------------------------------- normalisation
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,  # noqa: A002
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Training mode updates the running stats in place *without* a version bump, as ATen does."""
    if training and input.numel() // input._shape[1] <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{views.sizes_arg([input._shape]) and 'torch.Size([' + ', '.join(map(str, input._shape)) + '])'}")
    out_np, save_mean, save_invstd = norm.batch_norm_forward(
        input._numpy_view(), _np(running_mean), _np(running_var), _np(weight), _np(bias), training, momentum, eps)
    out = _new(out_np, input)
    if not training:  # torch saves empty mean/invstd in eval mode
        save_mean, save_invstd = np.zeros(0), np.zeros(0)
    mean_t = Tensor._wrap(np.asarray(save_mean, dtype=input.dtype.np), input.dtype)
    invstd_t = Tensor._wrap(np.asarray(save_invstd, dtype=input.dtype.np), input.dtype)
    record("NativeBatchNormBackward0", out, (input, weight, bias),
           save={"input": input, "running_mean": running_mean, "running_var": running_var, "weight": weight,
                 "result1": mean_t, "result2": invstd_t},
           values={"eps": eps, "training": training})
    return out


def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Tensor | None = None,  # noqa: A002
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    shape = tuple(normalized_shape) if not isinstance(normalized_shape, int) else (normalized_shape,)
    out_np, mean, rstd = norm.layer_norm_forward(input._numpy_view(), shape, _np(weight), _np(bias), eps)
    out = _new(out_np, input)
    mean_t, rstd_t = _new(mean, input), _new(rstd, input)
    record("NativeLayerNormBackward0", out, (input, weight, bias),
           save={"bias": bias, "input": input, "weight": weight, "result1": mean_t, "result2": rstd_t},
           values={"normalized_shape": shape})
    return out


# --------------------------------------------------------------------------- losses
def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
             reduction: str = "mean") -> Tensor:
    from engine import amp

    input, target = amp.float32_inputs(input, target)  # noqa: A001
    if input._shape != target._shape:
        import warnings

        warnings.warn(
            f"Using a target size ({'torch.Size([' + ', '.join(map(str, target._shape)) + '])'}) that is different "
            f"to the input size ({'torch.Size([' + ', '.join(map(str, input._shape)) + '])'}). This will likely lead "
            "to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning, stacklevel=2)
    geometry.broadcast_shapes(input._shape, target._shape)  # torch's error where they do not broadcast
    x, y = np.broadcast_arrays(input._numpy_view(), target._numpy_view())
    out = _new(loss.mse_loss_forward(x, y, reduction), input)
    record("MseLossBackward0", out, (input, target), save={"self": input, "target": target},
           values={"reduction": REDUCTION[reduction]})
    return out


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:  # noqa: A002
    diff = pw.unary("abs", pw.sub(input, target))
    return diff.mean() if reduction == "mean" else diff.sum() if reduction == "sum" else diff


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,  # noqa: A002
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    from engine import amp

    (input,) = amp.float32_inputs(input)  # noqa: A001
    if input.ndim >= 2 and target.ndim >= 1 and input._shape[0] != target._shape[0]:
        raise ValueError(f"Expected input batch_size ({input._shape[0]}) to match target batch_size "
                         f"({target._shape[0]}).")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(errors.TARGET_DTYPE.format(got=target.dtype.short))
    value, total = loss.nll_loss_forward(input._numpy_view(), target._numpy_view(), _np(weight), reduction,
                                         ignore_index)
    out = _new(value, input)
    total_t = _new(total, input)
    name = "NllLoss2DBackward0" if input.ndim >= 3 else "NllLossBackward0"  # torch's nll_loss2d kernel
    record(name, out, (input,),
           save={"self": input, "target": target, "total_weight": total_t, "weight": weight},
           values={"ignore_index": ignore_index % (1 << 64), "reduction": REDUCTION[reduction],
                   "_ignore_index": ignore_index})
    return out


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,  # noqa: A002
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    from engine import amp

    (input,) = amp.float32_inputs(input)  # noqa: A001
    if target.dtype.is_floating_point and target._shape == input._shape:
        logp = log_softmax(input, 1 if input.ndim > 1 else 0)
        per = pw.mul(logp, target)
        summed = pw.neg(per.sum(1 if input.ndim > 1 else 0)) if hasattr(per, "sum") else per
        return summed.mean() if reduction == "mean" else summed.sum() if reduction == "sum" else summed
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(errors.TARGET_DTYPE.format(got=target.dtype.short))
    class_dim = 1 if input.ndim > 1 else 0
    logp = log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if not label_smoothing:
        return nll
    if weight is not None:
        raise NotImplementedError("cross_entropy with both weight and label_smoothing is not supported by this engine")
    return _smoothed(logp, nll, target, class_dim, ignore_index, reduction, label_smoothing)


def _scalar_mul(t: Tensor, scalar: float) -> Tensor:
    """A C++-side `scalar * tensor`: MulBackward1 (the Scalar overload)."""
    from engine.ops.backward_ops import mul_scalar

    return mul_scalar(t, scalar)


def _smoothed(logp: Tensor, nll: Tensor, target: Tensor, class_dim: int, ignore_index: int, reduction: str,
              smoothing: float) -> Tensor:
    """ATen's label smoothing: (1 - e) * nll + e / C * (the mean of -log p over classes)."""
    n_classes = logp._shape[class_dim]
    ignore_mask = pw.eq(target, ignore_index)
    smooth = pw.unary("neg", logp.sum(class_dim))
    smooth.masked_fill_(ignore_mask, 0.0)
    if reduction == "mean":
        smooth = pw.div(smooth.sum(), pw.logical_not(ignore_mask).sum())
    elif reduction == "sum":
        smooth = smooth.sum()
    return pw.add(_scalar_mul(nll, 1 - smoothing), _scalar_mul(smooth, smoothing / n_classes))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                         size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    from engine import amp

    input, target = amp.float32_inputs(input, target)  # noqa: A001
    value = loss.binary_cross_entropy_forward(input._numpy_view(), target._numpy_view(), _np(weight), reduction)
    out = _new(value, input)
    record("BinaryCrossEntropyBackward0", out, (input, target),
           save={"self": input, "target": target, "weight": weight}, values={"reduction": REDUCTION[reduction]})
    return out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """A new contiguous int64 tensor, with ATen's checks of the class values and its version."""
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = tensor._numpy_view()
    if values.size == 0:
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
    elif values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    n = int(values.max()) + 1 if num_classes == -1 else num_classes
    if values.size and int(values.max()) >= n:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = Tensor._wrap(np.ascontiguousarray(values[..., None] == np.arange(n)).astype(np.int64), dtypes.int64)
    if values.size:  # ATen fills zeros, then scatter_s the ones: two writes
        out._counter().value = 2
    return out


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:  # noqa: A002
    if mode != "constant":
        from engine.nn import padding

        if mode not in ("reflect", "replicate", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {mode}")
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if mode == "circular":
            raise NotImplementedError("F.pad with mode='circular' is not supported by this engine")
        return padding.padded(input, pad, mode)
    value = 0.0 if value is None else value
    widths = [(0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        widths[input.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    cropped = input._numpy_view()[tuple(slice(max(-lo, 0), n - max(-hi, 0)) for (lo, hi), n in zip(widths, input._shape))]
    grown = [(max(lo, 0), max(hi, 0)) for lo, hi in widths]  # negative padding crops, as torch's does
    out = _new(np.pad(cropped, grown, constant_values=value), input)
    record("ConstantPadNdBackward0", out, (input,), values={"pad": tuple(pad)})
    return out


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    return views.flatten(input, start_dim, end_dim)


# --------------------------------------------------------------------------- embeddings, grouped norms, more pooling
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,  # noqa: A002
              max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Rows of weight picked by integer indices; the gradient scatters back, skipping padding_idx."""
    if input.dtype.is_floating_point or input.dtype is dtypes.bool_:
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{input.dtype.legacy} instead (while checking arguments for "
                           "embedding)")
    indices = input._numpy_view()
    rows = weight._shape[0]
    if indices.size and (indices.max() >= rows or indices.min() < -rows):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    if max_norm is not None:
        from engine.autograd import grad_mode

        with grad_mode.no_grad():
            table = weight._numpy_view()
            used = np.unique(indices)
            norms = np.linalg.norm(table[used].astype(np.float64), ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            table[used] = (table[used] * scale[:, None]).astype(table.dtype)
            weight._bump_version()
    out = Tensor._wrap(np.ascontiguousarray(weight._numpy_view()[indices]), weight.dtype)
    record("EmbeddingBackward0", out, (input, weight), save={"indices": input},
           values={"padding_idx": -1 if padding_idx is None else padding_idx, "scale_grad_by_freq": scale_grad_by_freq,
                   "sparse": sparse, "weight_sym_argsize_0": weight._shape[0]})
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,  # noqa: A002
               eps: float = 1e-5) -> Tensor:
    if input.ndim < 2 or input._shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {errors.shape_text(input._shape)} and num_groups={num_groups}")
    y, mean, rstd = norm.group_norm_forward(input._numpy_view(), num_groups, _np(weight), _np(bias), eps)
    out = _new(y, input)
    mean_t, rstd_t = _new(mean, input), _new(rstd, input)
    n, c = input._shape[:2]
    record("NativeGroupNormBackward0", out, (input, weight, bias),
           save={"input": input, "weight": weight}, save_outputs={"result1": mean_t, "result2": rstd_t},
           values={"C": c, "HxW": input.numel() // max(n * c, 1), "N": n, "eps": eps, "group": num_groups})
    return out


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:  # noqa: A002
    values, indices = pool.adaptive_max_pool2d_forward(input._numpy_view(), output_size)
    out = _new(values, input)
    index_tensor = Tensor._wrap(indices, dtypes.int64)
    record("AdaptiveMaxPool2DBackward0", out, (input,), save={"self": input}, save_outputs={"result1": index_tensor})
    return (out, index_tensor) if return_indices else out


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,  # noqa: A002
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1, dilation: Any = 1) -> Tensor:
    from engine import amp

    input, weight, bias = amp.cast_inputs(input, weight, bias)  # noqa: A001
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of "
                           f"size: {errors.shape_text(input._shape)}")
    if input._shape[-3] != weight._shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {errors.shape_text(weight._shape)}, expected input"
                           f"{errors.shape_text(input._shape)} to have {weight._shape[0]} channels, but got "
                           f"{input._shape[-3]} channels instead")
    out = _new(conv.conv_transpose2d_forward(input._numpy_view(), weight._numpy_view(), _np(bias), stride, padding,
                                             output_padding, groups, dilation), input)
    record("ConvolutionBackward0", out, (input, weight, bias), save={"input": input, "weight": weight},
           values={"bias_sym_sizes_opt": None if bias is None else bias._shape, "dilation": _pair(dilation),
                   "groups": groups, "output_padding": _pair(output_padding), "padding": _pair(padding),
                   "stride": _pair(stride), "transposed": True})
    return out


# --------------------------------------------------------------------------- attention
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v as one fused node (torch's CPU flash kernel), which saves
    q, k, v, the output and the row logsumexp (never the L x S score matrix)."""
    from engine import amp

    query, key, value = amp.cast_inputs(query, key, value)  # noqa: A001
    from engine.kernels import attention

    if dropout_p:
        raise NotImplementedError("scaled_dot_product_attention with dropout_p > 0 is not supported by this engine")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    mask = None if attn_mask is None else attn_mask._numpy_view()
    scale_value = 1.0 / np.sqrt(query._shape[-1]) if scale is None else scale
    out_np, lse = attention.sdpa_forward(query._numpy_view(), key._numpy_view(), value._numpy_view(), mask,
                                         is_causal, scale_value)
    out = _new(out_np, query)
    lse_t = Tensor._wrap(np.ascontiguousarray(lse, dtype=np.float32))
    inputs = (query, key, value)

    saved = {"query": query, "key": key, "value": value, "logsumexp": lse_t, "attn_mask": attn_mask}
    record("ScaledDotProductFlashAttentionForCpuBackward0", out, inputs, save=saved, save_outputs={"output": out},
           values={"dropout_p": dropout_p, "is_causal": is_causal, "scale": scale, "_scale": scale_value})
    return out


# the functional forms kept in modules of their own, exported here as torch.nn.functional has them
from engine.nn import activations as _activations  # noqa: E402
from engine.nn import conv_pool_1d as _conv_pool_1d  # noqa: E402
from engine.nn import distance as _distance  # noqa: E402
from engine.nn import fold as _fold  # noqa: E402
from engine.nn import losses as _losses  # noqa: E402
from engine.nn import normalization as _normalization  # noqa: E402
from engine.nn import pixel_dropout as _pixel_dropout  # noqa: E402
from engine.nn import upsampling as _upsampling  # noqa: E402

for _module in (_activations, _conv_pool_1d, _distance, _losses, _normalization, _pixel_dropout, _upsampling,
                _fold):
    globals().update({name: getattr(_module, name) for name in _module.__all__})

_SPLIT_OUT = (__name__, "engine.nn.activations", "engine.nn.conv_pool_1d", "engine.nn.distance", "engine.nn.losses",
              "engine.nn.normalization", "engine.nn.pixel_dropout", "engine.nn.upsampling", "engine.nn.fold")


def _place_public_functions() -> None:
    """Every functional op runs on the device of its tensor arguments (see engine.placement)."""
    from engine.placement import placed

    names = [name for name, value in globals().items()
             if callable(value) and not name.startswith("_") and getattr(value, "__module__", "") in _SPLIT_OUT]
    for name in names:
        globals()[name] = placed(globals()[name])
        globals()[name].__module__ = __name__  # torch.nn.functional's own, wherever it is kept
    globals()["max_pool2d"] = placed(_max_pool2d)


_place_public_functions()
