"""paddle.nn.functional: activations, linear, convolution, normalisation, pooling and dropout, with
Paddle's node names and what each keeps for backward.

- conv2d is the convolution (Conv2dGradNodeFinal, keeping input and weight) plus, with a bias,
  an add of the bias reshaped to [1, C, 1, 1] (AddGradNode over ReshapeGradNode);
- batch_norm (BatchNormGradNode) updates the running statistics in training mode as Paddle does:
  `running = momentum * running + (1 - momentum) * batch`, with the *biased* batch variance, and
  without touching their versions;
- max_pool2d / avg_pool2d record Pool2dGradNode; dropout draws its mask from the Paddle generator
  (an element is dropped when its uniform draw is below p) and records DropoutGradNode;
- `relu_` exists and follows the in-place leaf rule; `sigmoid_` does not (AttributeError, as in
  Paddle). `linear` is matmul then add: MatmulGradNode, then AddGradNode when there is a bias.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

import engine
import engine.nn.functional as engine_functional
from engine.kernels.relu import relu_zeroing_nan
from engine.ops.core import apply_inplace, record
from engine.paddle import random as rng
from engine.paddle.elementwise import Unary, apply_unary, apply_unary_, result_tensor
from engine.paddle.ops import add, matmul, reshape
from engine.paddle.tensor import Tensor, quietly, wrap


def _activation(node: str, forward: Any, derivative: Any, saves: str) -> Unary:
    return Unary(node, forward, derivative, saves, float_only=False)


RELU = replace(_activation("ReluGradNode", relu_zeroing_nan, lambda x, y: y > 0, "out"),  # NaN -> 0
               into=relu_zeroing_nan)


def relu(x: Tensor, name: str | None = None) -> Tensor:
    return apply_unary(RELU, x)


def relu_(x: Tensor, name: str | None = None) -> Tensor:
    return apply_unary_(RELU, x)


def relu6(x: Tensor, name: str | None = None) -> Tensor:
    return apply_unary(_activation("Relu6GradNode", lambda v: np.clip(v, 0, 6).astype(v.dtype),
                                   lambda x, y: (y > 0) & (y < 6), "out"), x)


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    return x.sigmoid()


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    return x.tanh()


def tanh_(x: Tensor, name: str | None = None) -> Tensor:
    return x.tanh_()


def _leaky(slope: float) -> Unary:
    return _activation("LeakyReluGradNode", lambda v: np.where(v > 0, v, v * v.dtype.type(slope)).astype(v.dtype),
                       lambda x, y: np.where(x > 0, 1, slope), "x")


def leaky_relu(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    return apply_unary(_leaky(negative_slope), x)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name: str | None = None) -> Tensor:
    return apply_unary_(_leaky(negative_slope), x)


def _hardtanh(low: float, high: float) -> Unary:
    return _activation("HardtanhGradNode", lambda v: np.clip(v, low, high).astype(v.dtype),
                       lambda x, y: (x > low) & (x < high), "x")


def hardtanh(x: Tensor, min: float = -1.0, max: float = 1.0, name: str | None = None) -> Tensor:  # noqa: A002
    return apply_unary(_hardtanh(min, max), x)


def hardtanh_(x: Tensor, min: float = -1.0, max: float = 1.0, name: str | None = None) -> Tensor:  # noqa: A002
    return apply_unary_(_hardtanh(min, max), x)


def _thresholded(threshold: float, value: float) -> Unary:
    return _activation("ThresholdedReluGradNode", lambda v: np.where(v > threshold, v, value).astype(v.dtype),
                       lambda x, y: x > threshold, "x")


def thresholded_relu(x: Tensor, threshold: float = 1.0, value: float = 0.0, name: str | None = None) -> Tensor:
    return apply_unary(_thresholded(threshold, value), x)


def thresholded_relu_(x: Tensor, threshold: float = 1.0, value: float = 0.0, name: str | None = None) -> Tensor:
    return apply_unary_(_thresholded(threshold, value), x)


def _elu(alpha: float) -> Unary:
    return _activation("EluGradNode", lambda v: np.where(v > 0, v, v.dtype.type(alpha) * np.expm1(v)).astype(v.dtype),
                       lambda x, y: np.where(x > 0, 1, y + alpha), "both")


def elu(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    return apply_unary(_elu(alpha), x)


def elu_(x: Tensor, alpha: float = 1.0, name: str | None = None) -> Tensor:
    return apply_unary_(_elu(alpha), x)


SILU = _activation("SiluGradNode", lambda v: v / (v.dtype.type(1) + np.exp(-v)),
                   lambda x, y: (1 + np.exp(-x) + x * np.exp(-x)) / (1 + np.exp(-x)) ** 2, "both")


def silu(x: Tensor, name: str | None = None) -> Tensor:
    return apply_unary(SILU, x)


def softmax(x: Tensor, axis: int = -1, dtype: Any = None, name: str | None = None) -> Tensor:
    source = x if dtype is None else x.astype(dtype)
    return wrap(engine.softmax(source._operand(), axis), "SoftmaxGradNode")


def softmax_(x: Tensor, axis: int = -1, dtype: Any = None, name: str | None = None) -> Tensor:
    """Softmax written back into x (SoftmaxGradNode keeps the result, x itself)."""
    from engine.kernels import activation

    def run(t: Any) -> None:
        dim = axis % max(t.ndim, 1)

        def write(target: np.ndarray) -> None:
            target[...] = activation.softmax(target.copy(), dim)

        def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
            out = s["out"]
            return ((g - (g * out).sum(axis=dim, keepdims=True)) * out,)
        apply_inplace(t, write, "SoftmaxGradNode", (), backward, check_autograd=False, save_result="out")
    return x._inplace("SoftmaxGradNode", run)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None, name: str | None = None) -> Tensor:
    out = matmul(x, weight)
    return out if bias is None else add(out, bias)


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, int):
        return value, value
    return tuple(int(v) for v in value)  # type: ignore[return-value]


def _padding(padding: Any) -> Any:
    if isinstance(padding, str):
        return padding.lower()
    if isinstance(padding, int):
        return padding
    values = [int(v) for v in padding]
    if len(values) == 4 and (values[0] != values[1] or values[2] != values[3]):
        raise NotImplementedError("asymmetric conv2d padding is not measured for the Paddle dialect yet")
    return (values[0], values[2]) if len(values) == 4 else tuple(values)


def conv2d(x: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    if data_format != "NCHW":
        raise NotImplementedError("conv2d with data_format NHWC is not measured for the Paddle dialect yet")
    out = wrap(engine_functional.conv2d(x._operand(), weight._operand(), None, _pair(stride), _padding(padding),
                                        _pair(dilation), groups), "Conv2dGradNodeFinal")
    if bias is None:
        return out
    return add(out, reshape(bias, [1, -1, 1, 1]))


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.9, epsilon: float = 1e-5,
               data_format: str = "NCHW", use_global_stats: bool | None = None, name: str | None = None) -> Tensor:
    use_batch = training and not use_global_stats
    source = x._operand()
    out = engine_functional.batch_norm(source, None if use_batch else running_mean._t,
                                       None if use_batch else running_var._t,
                                       None if weight is None else weight._operand(),
                                       None if bias is None else bias._operand(), use_batch, 0.0, epsilon)
    if use_batch:
        values = source._numpy_view()
        axes = tuple(i for i in range(values.ndim) if i != 1)
        batch_mean = values.mean(axis=axes, dtype=np.float64).astype(values.dtype)
        batch_var = values.var(axis=axes, dtype=np.float64).astype(values.dtype)
        m = np.float32(momentum)
        for stat, batch in ((running_mean._t, batch_mean), (running_var._t, batch_var)):
            new = stat._numpy_view() * m + batch * (np.float32(1) - m)
            quietly(stat, lambda stat=stat, new=new: np.copyto(stat._numpy_view(), new.astype(stat.dtype.np)))
    return wrap(out, "BatchNormGradNode")


def _pool(x: Tensor, kind: str, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
          **extra: Any) -> Tensor:
    source = x._operand()
    kernel = _pair(kernel_size)
    step = kernel if stride is None else _pair(stride)
    pool = engine_functional.max_pool2d if kind == "max" else engine_functional.avg_pool2d
    return wrap(pool(source, kernel, step, _pair(padding) if not isinstance(padding, str) else 0,
                     ceil_mode=ceil_mode, **extra), "Pool2dGradNode")


def max_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, return_mask: bool = False,
               ceil_mode: bool = False, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    return _pool(x, "max", kernel_size, stride, padding, ceil_mode)


def avg_pool2d(x: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
               exclusive: bool = True, divisor_override: int | None = None, data_format: str = "NCHW",
               name: str | None = None) -> Tensor:
    return _pool(x, "avg", kernel_size, stride, padding, ceil_mode, count_include_pad=not exclusive,
                 divisor_override=divisor_override)


def adaptive_avg_pool2d(x: Tensor, output_size: Any, data_format: str = "NCHW", name: str | None = None) -> Tensor:
    return wrap(engine_functional.adaptive_avg_pool2d(x._operand(), output_size), "Pool2dGradNode")


def dropout(x: Tensor, p: float = 0.5, axis: Any = None, training: bool = True, inplace: bool = False,
            mode: str = "upscale_in_train", name: str | None = None) -> Tensor:
    """Drop an element where its uniform draw (float32, one per element) falls below p; keep the
    rest scaled by 1 / (1 - p) (upscale_in_train) or as they are (downscale_in_infer). Outside
    training the result is still a new tensor (x itself only for p == 0), scaled by 1 - p in
    downscale_in_infer mode."""
    if p == 0:
        return x
    if not 0 <= p <= 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    t = x._operand()
    kind = t.dtype.np.type
    if training:
        keep = (rng.uniform(t.numel(), 0.0, 1.0, np.float32) >= np.float32(p)).reshape(t._shape)
        factor = kind(np.float32(1) - np.float32(p)) if mode == "upscale_in_train" else kind(1)
    else:
        keep = np.ones(t._shape, dtype=bool)
        factor = kind(1) if mode == "upscale_in_train" else kind(1) / kind(np.float32(1) - np.float32(p))
    with np.errstate(all="ignore"):
        values = np.where(keep, t._numpy_view() / factor if p < 1 else 0, 0).astype(t.dtype.np)
    out = result_tensor(t, values)
    record("DropoutGradNode", out, (t,), lambda g, s: (np.where(keep, g / factor if p < 1 else 0, 0).astype(g.dtype),))
    return wrap(out, "DropoutGradNode")


def flatten(x: Tensor, start_axis: int = 1, stop_axis: int = -1, name: str | None = None) -> Tensor:
    return x.flatten(start_axis, stop_axis)


def mse_loss(input: Tensor, label: Tensor, reduction: str = "mean", name: str | None = None) -> Tensor:  # noqa: A002
    """As Paddle's Python composes it: square(input - label), then mean or sum."""
    error = (input - label).square()
    return error.mean() if reduction == "mean" else error.sum() if reduction == "sum" else error


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, training: bool = True,
                                 backend: str | None = None, scale: float | None = None, enable_gqa: bool = True,
                                 name: str | None = None) -> Tensor:
    """On the CPU Paddle picks its "math" backend, a composite of ordinary ops (flash_attention.py's
    _math_attention): inputs are [batch, seq, heads, dim], transposed to [batch, heads, seq, dim];
    `matmul(q * scale, k, transpose_y=True)`, the causal mask added as -1e4 above the diagonal,
    softmax (keeping the whole seq x seq matrix for backward), matmul with v, transposed back."""
    import engine.paddle as paddle

    batched = query.ndim == 4
    if not batched:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    if not (query.shape[2] == key.shape[2] == value.shape[2]):
        raise NotImplementedError("grouped-query attention is not in the Paddle dialect")
    if attn_mask is not None and attn_mask.dtype == paddle.bool:
        attn_mask = paddle.where(attn_mask, paddle.to_tensor(0.0, dtype=query.dtype),
                                 paddle.to_tensor(-float("inf"), dtype=query.dtype))
    head_dim = query.shape[-1]
    q, k, v = (paddle.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    product = matmul(q * (scale or (head_dim ** -0.5 if head_dim != 0 else 1.0)), k, transpose_y=True)
    if is_causal:
        mask = paddle.full_like(product, -1e4)
        mask.stop_gradient = True
        mask = paddle.triu(mask, diagonal=1)
        mask.stop_gradient = True
        product = product + mask
    elif attn_mask is not None:
        product = product + attn_mask
    weights = softmax(product)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    out = paddle.transpose(matmul(weights, v), [0, 2, 1, 3])
    return out if batched else paddle.squeeze(out, axis=0)


__all__ = ["adaptive_avg_pool2d", "avg_pool2d", "batch_norm", "conv2d", "dropout", "elu", "elu_", "flatten", "hardtanh",
           "hardtanh_", "leaky_relu", "leaky_relu_", "linear", "max_pool2d", "mse_loss", "relu", "relu6", "relu_",
           "scaled_dot_product_attention", "sigmoid", "silu", "softmax", "softmax_", "tanh", "tanh_", "thresholded_relu", "thresholded_relu_"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn.functional", name)
