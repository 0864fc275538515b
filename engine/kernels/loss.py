"""Loss kernels: NLL (class-index and class-probability targets), MSE and binary cross-entropy.

Reductions are 'none', 'mean' and 'sum'; reduced losses come back as 0-d arrays. Formulas,
clamps and epsilons follow torch's CPU kernels so edge cases (log(0), ignored targets,
all-ignored batches) give the same numbers.
"""

from __future__ import annotations

import numpy as np

from engine.kernels import summation
from engine.kernels.nll_cascade import cascade_sum

_REDUCTIONS = ("none", "mean", "sum")
_BCE_EPSILON = float(np.float32(1e-12))  # torch's floor for x(1 - x) is a C++ float, even for doubles


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    _check_reduction(reduction)
    if reduction == "none":
        return loss
    return np.asarray(loss.sum() if reduction == "sum" else loss.mean())


def _sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Undo broadcasting: sum grad down to an operand's shape."""
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad


def _classes_last(logp: np.ndarray) -> np.ndarray:
    """View (N, C, d1, ...) as (N, d1, ..., C) so a target indexes the last axis; (C,) stays."""
    return np.moveaxis(logp, 1, -1) if logp.ndim > 1 else logp


def _target_weights(logp: np.ndarray, target: np.ndarray, weight: np.ndarray | None,
                    ignore_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(valid mask, safe class index, per-target weight): ignored targets weigh 0 and index 0."""
    classes = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    expected = logp.shape[:1] + logp.shape[2:] if logp.ndim > 1 else ()
    target = np.asarray(target)
    if target.shape != expected:
        raise ValueError(f"Expected target of shape {expected}, got {target.shape}")
    valid = target != ignore_index
    out_of_range = valid & ((target < 0) | (target >= classes))
    if out_of_range.any():
        raise IndexError(f"Target {target[out_of_range].flat[0]} is out of bounds.")
    safe = np.where(valid, target, 0)
    per_class = np.ones(classes, logp.dtype) if weight is None else weight.astype(logp.dtype)
    return valid, safe, np.where(valid, per_class[safe], 0).astype(logp.dtype)


def nll_loss_forward(
    logp: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (loss, total_weight); 'mean' divides by the summed weight of non-ignored targets.

    total_weight is always computed (torch leaves it 0 for 'none'); an all-ignored 'mean' is NaN.
    """
    _check_reduction(reduction)
    valid, safe, w = _target_weights(logp, target, weight, ignore_index)
    picked = np.take_along_axis(_classes_last(logp), safe[..., None], axis=-1)[..., 0]
    loss = np.where(valid, -w * picked, 0).astype(logp.dtype)
    total_weight = np.asarray(w.sum())
    if reduction == "none":
        return loss, total_weight
    if logp.ndim == 2 and weight is None and logp.dtype == np.float32:  # ATen's cascade, in its order
        total = np.asarray(cascade_sum(loss, valid))
        with np.errstate(invalid="ignore", divide="ignore"):
            return (total if reduction == "sum" else np.asarray(total / total_weight)), total_weight
    if reduction == "sum":
        return np.asarray(loss.sum()), total_weight
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(loss.sum() / total_weight), total_weight


def nll_loss_backward(
    grad: np.ndarray,
    logp: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
    ignore_index: int = -100,
    total_weight: np.ndarray | None = None,
) -> np.ndarray:
    """Only each target's log-probability gets gradient (-w * grad); ignored rows stay zero."""
    _check_reduction(reduction)
    valid, safe, w = _target_weights(logp, target, weight, ignore_index)
    upstream = np.asarray(grad, dtype=logp.dtype)
    total = w.sum() if total_weight is None else np.asarray(total_weight, dtype=logp.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):  # all ignored: 0/0, masked out below
        if reduction == "mean":
            upstream = upstream / total
        values = np.where(valid, -w * upstream, 0).astype(logp.dtype)
    grad_logp = np.zeros_like(_classes_last(logp))
    np.put_along_axis(grad_logp, safe[..., None], values[..., None], axis=-1)
    return np.ascontiguousarray(np.moveaxis(grad_logp, -1, 1)) if logp.ndim > 1 else grad_logp


def _class_weight(weight: np.ndarray | None, logp: np.ndarray) -> np.ndarray | float:
    """Class weights shaped to broadcast along the class axis (1, or 0 for an unbatched input)."""
    if weight is None:
        return 1.0
    return weight.reshape(-1, *([1] * (logp.ndim - 2))) if logp.ndim > 1 else weight


def nll_loss_prob_forward(
    logp: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
) -> np.ndarray:
    """cross_entropy with class-probability targets, given log_softmax output.

    'mean' divides by the number of samples (numel / C), not by the weights, as torch does.
    """
    _check_reduction(reduction)
    axis = 1 if logp.ndim > 1 else 0
    terms = logp * target * _class_weight(weight, logp)
    if reduction == "none":
        return np.asarray(-terms.sum(axis=axis))
    total = -terms.sum()
    return np.asarray(total if reduction == "sum" else total / (logp.size // logp.shape[axis]))


def nll_loss_prob_backward(
    grad: np.ndarray,
    logp: np.ndarray,
    target: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (grad_logp, grad_target): the loss is bilinear in the two."""
    _check_reduction(reduction)
    axis = 1 if logp.ndim > 1 else 0
    upstream = np.asarray(grad, dtype=logp.dtype)
    if reduction == "none":
        upstream = np.expand_dims(upstream, axis)
    elif reduction == "mean":
        upstream = upstream / (logp.size // logp.shape[axis])
    scaled = -upstream * _class_weight(weight, logp)
    return (scaled * target).astype(logp.dtype), (scaled * logp).astype(logp.dtype)


def mse_loss_forward(x: np.ndarray, y: np.ndarray, reduction: str = "mean") -> np.ndarray:
    """(x - y)**2, reduced as ATen reduces it: a float32 mean is its sum (the sum kernel's order)
    divided by the count."""
    squares = np.square(x - y)
    _check_reduction(reduction)
    if reduction != "none" and squares.dtype == np.float32 and 0 < squares.size < summation.GRAIN_SIZE:
        total = summation.row_sums(np.ascontiguousarray(squares).reshape(1, -1))[0]
        return np.asarray(total if reduction == "sum" else total / np.float32(squares.size))
    return _reduce(squares, reduction)


def mse_loss_backward(
    grad: np.ndarray, x: np.ndarray, y: np.ndarray, reduction: str = "mean"
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (grad_x, grad_y), each summed back to its operand's shape if they broadcast."""
    _check_reduction(reduction)
    diff = x - y
    norm = 2.0 / diff.size if reduction == "mean" else 2.0
    grad_x = norm * diff * grad
    return _sum_to(grad_x, x.shape), _sum_to(-grad_x, y.shape)


def _check_same_shape(x: np.ndarray, y: np.ndarray) -> None:
    if x.shape != y.shape:
        raise ValueError(
            f"Using a target size ({y.shape}) that is different to the input size ({x.shape})"
        )


def binary_cross_entropy_forward(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray | None = None, reduction: str = "mean"
) -> np.ndarray:
    """-(y log x + (1 - y) log(1 - x)) with each log clamped at -100 like torch."""
    _check_same_shape(x, y)
    if not np.all((x >= 0) & (x <= 1)):
        raise ValueError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        loss = (y - 1) * np.maximum(np.log1p(-x), -100) - y * np.maximum(np.log(x), -100)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_backward(
    grad: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (grad_x, grad_y); torch floors x(1 - x) at ~1e-12 and uses -logit(x) for y."""
    _check_reduction(reduction)
    grad_x = grad * (x - y) / np.maximum((1 - x) * x, _BCE_EPSILON)
    with np.errstate(divide="ignore"):
        grad_y = -np.log(x / (1 - x)) * grad
    if weight is not None:
        grad_x, grad_y = grad_x * weight, grad_y * weight
    if reduction == "mean":
        grad_x, grad_y = grad_x / x.size, grad_y / x.size
    return grad_x, grad_y


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for every finite x."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def binary_cross_entropy_with_logits_forward(
    x: np.ndarray,
    y: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
    pos_weight: np.ndarray | None = None,
) -> np.ndarray:
    """(1 - y) x - lw * log_sigmoid(x) with lw = 1 + (pos_weight - 1) y: stable for large |x|."""
    _check_same_shape(x, y)
    log_sig = _log_sigmoid(x)
    if pos_weight is not None:
        log_sig = log_sig * ((pos_weight - 1) * y + 1)
    loss = (1 - y) * x - log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits_backward(
    grad: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    weight: np.ndarray | None = None,
    reduction: str = "mean",
    pos_weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Returns (grad_x, grad_y); without pos_weight these are sigmoid(x) - y and -x."""
    _check_reduction(reduction)
    sig = np.exp(_log_sigmoid(x))
    if pos_weight is None:
        grad_x, grad_y = sig - y, -x
    else:
        py = pos_weight * y
        grad_x = (py + 1 - y) * sig - py
        grad_y = _log_sigmoid(-x) - _log_sigmoid(x) * pos_weight
    grad_x, grad_y = grad_x * grad, grad_y * grad
    if weight is not None:
        grad_x, grad_y = grad_x * weight, grad_y * weight
    if reduction == "mean":
        grad_x, grad_y = grad_x / x.size, grad_y / x.size
    return grad_x, grad_y
