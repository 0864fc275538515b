"""Kernels of the activations beyond relu/sigmoid/tanh/gelu: softplus, ELU (and SELU, CELU), hardswish,
hardsigmoid, log-sigmoid, GLU, SiLU, Mish and PReLU, with the first derivatives ATen's CPU kernels compute.

Each evaluates in float64 and is rounded to the input's dtype by its caller (within an ulp of torch's
float32 kernels); the branch conditions are ATen's own (`x * beta > threshold`, `x <= 0`...), so the
values at the edges agree.
"""

from __future__ import annotations

import numpy as np

from engine.quiet import quiet_unary


def _f64(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def softplus(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (where it is x to the precision)."""
    z = _f64(x) * beta
    with np.errstate(over="ignore"):
        return np.where(z > threshold, _f64(x), np.log1p(np.exp(z)) / beta)


def softplus_backward(grad: np.ndarray, x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    z = _f64(x) * beta
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(z)
        return np.where(z > threshold, _f64(grad), _f64(grad) * e / (e + 1))


def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """x <= 0: alpha * scale * (exp(x * input_scale) - 1); else scale * x."""
    v = _f64(x)
    with np.errstate(over="ignore"):
        return np.where(v <= 0, np.expm1(v * input_scale) * (alpha * scale), v * scale)


def elu_backward(grad: np.ndarray, alpha: float, scale: float, input_scale: float, is_result: bool,
                 self_or_result: np.ndarray) -> np.ndarray:
    """From the input, or from the output (elu_ saves its result): the negative branch's slope is
    input_scale * (y + alpha * scale) there."""
    g, v = _f64(grad), _f64(self_or_result)
    negcoef = alpha * scale
    with np.errstate(over="ignore", invalid="ignore"):
        if is_result:
            negative = g * input_scale * (v + negcoef)
        else:
            negative = g * input_scale * negcoef * np.exp(v * input_scale)
    return np.where(v <= 0, negative, g * scale)


def hardswish(x: np.ndarray) -> np.ndarray:
    v = _f64(x)
    return v * np.minimum(np.maximum(v + 3, 0), 6) / 6


def hardswish_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    g, v = _f64(grad), _f64(x)
    return np.where(v <= -3, 0.0, np.where(v < 3, g * (v / 3 + 0.5), g))


def hardsigmoid(x: np.ndarray) -> np.ndarray:
    return np.minimum(np.maximum(_f64(x) + 3, 0), 6) / 6


def hardsigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    v = _f64(x)
    return np.where((v > -3) & (v < 3), _f64(grad) / 6, 0.0)


def log_sigmoid(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """min(x, 0) - log1p(exp(-|x|)), and the buffer exp(-|x|) the CPU kernel keeps for backward."""
    v = _f64(x)
    buffer = np.exp(-np.abs(v))
    return np.minimum(v, 0) - np.log1p(buffer), buffer


def log_sigmoid_backward(grad: np.ndarray, x: np.ndarray, buffer: np.ndarray) -> np.ndarray:
    v, z = _f64(x), _f64(buffer)
    negative = v < 0
    max_deriv = np.where(negative, 1.0, 0.0)
    sign = np.where(negative, 1.0, -1.0)
    return (max_deriv - sign * (z / (1 + z))) * _f64(grad)


def _halves(x: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
    half = x.shape[dim] // 2
    return np.split(_f64(x), [half], axis=dim)


def _sigmoid(v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-v))


def glu(x: np.ndarray, dim: int) -> np.ndarray:
    a, b = _halves(x, dim)
    return a * _sigmoid(b)


def glu_backward(grad: np.ndarray, x: np.ndarray, dim: int) -> np.ndarray:
    a, b = _halves(x, dim)
    s = _sigmoid(b)
    g = _f64(grad)
    return np.concatenate([s * g, a * s * (1 - s) * g], axis=dim)


def _silu(v: np.ndarray) -> np.ndarray:
    return v / (1 + np.exp(-v))


def silu(x: np.ndarray) -> np.ndarray:
    """Quietly: exp overflows, and -inf gives -inf / inf, NaN as torch gives it, without a warning."""
    return quiet_unary(_silu, _f64(x))


def _mish(v: np.ndarray) -> np.ndarray:
    return v * np.tanh(np.log1p(np.exp(v)))


def mish(x: np.ndarray) -> np.ndarray:
    """Quietly: exp overflows, and -inf gives -inf * 0, NaN as torch gives it, without a warning."""
    return quiet_unary(_mish, _f64(x))


def prelu(x: np.ndarray, weight: np.ndarray) -> np.ndarray:
    v = _f64(x)
    return np.where(v > 0, v, _f64(weight) * v)


def prelu_backward(grad: np.ndarray, x: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The input's gradient, and the weight's before it is summed to the weight's shape."""
    g, v = _f64(grad), _f64(x)
    positive = v > 0
    return np.where(positive, g, _f64(weight) * g), np.where(positive, 0.0, v * g)
