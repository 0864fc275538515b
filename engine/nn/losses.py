"""Losses beyond mse/l1/nll/cross-entropy/bce: BCE with logits, smooth L1, Huber, KL divergence and the
margin losses (ranking, triplet, multi-label soft margin).

BCE with logits, smooth L1 and Huber are ATen kernels with their own nodes (which save the input,
the target and, for BCE, weight and pos_weight); KL divergence is composed of other ops, as torch
composes it (xlogy, exp, sub, mul, then the reduction), so it records the same nodes. torch's
Python-side checks and warnings come first, as they do in torch.nn.functional.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from engine import errors
from engine.ops import pointwise as pw
from engine.ops import views
from engine.ops.backward_ops import REDUCTION
from engine.ops.core import record
from engine.tensor import Tensor

__all__ = ["binary_cross_entropy_with_logits", "huber_loss", "kl_div", "margin_ranking_loss",
           "multilabel_soft_margin_loss", "smooth_l1_loss", "triplet_margin_loss"]


def reduction_enum(reduction: str) -> int:
    if reduction not in REDUCTION:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return REDUCTION[reduction]


def _legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """torch's _Reduction.legacy_get_string: the deprecated size_average/reduce pair, with its warning."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(
        "none" if reduce is False else "mean" if size_average is not False else "sum"), UserWarning, stacklevel=3)
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _size_text(shape: tuple[int, ...]) -> str:
    return "torch.Size([" + ", ".join(map(str, shape)) + "])"


def _warn_size_mismatch(input: Tensor, target: Tensor) -> None:  # noqa: A002 - torch's argument names
    if input._shape != target._shape:
        warnings.warn(f"Using a target size ({_size_text(target._shape)}) that is different to the input size "
                      f"({_size_text(input._shape)}). This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", UserWarning, stacklevel=3)


def _broadcast_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:  # noqa: A002
    """torch.broadcast_tensors: a tensor already of the common shape is returned itself."""
    from engine import geometry

    shape = geometry.broadcast_shapes(input._shape, target._shape)
    return tuple(t if t._shape == shape else views.expand(t, shape) for t in (input, target))  # type: ignore[return-value]


def _reduce(values: np.ndarray, reduction: int) -> np.ndarray:
    if reduction == 1:
        return np.asarray(values.mean())
    if reduction == 2:
        return np.asarray(values.sum())
    return values


def _wrap(values: np.ndarray, like: Tensor) -> Tensor:
    return Tensor._wrap(np.array(values, dtype=like.dtype.np, order="C"), like.dtype)


def _np64(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._numpy_view().astype(np.float64)


# --------------------------------------------------------------------------- BCE with logits
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     size_average: Any = None, reduce: Any = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """(1 - t) x - log_sigmoid(x) (1 + (pw - 1) t), times weight, reduced: ATen's formula, stable for large |x|."""
    from engine import amp

    reduction = _legacy_reduction(size_average, reduce, reduction)
    enum = reduction_enum(reduction)
    if target._shape != input._shape:
        raise ValueError(f"Target size ({_size_text(target._shape)}) must be the same as input size "
                         f"({_size_text(input._shape)})")
    input, target = amp.float32_inputs(input, target)  # noqa: A001
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None and t.requires_grad:
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable with respect "
                               f"to argument '{name}'. This input cannot have requires_grad True.")
    from engine.ops.core import result_type

    if not target.dtype.is_floating_point:  # the loss is computed into a tensor of target's dtype
        raise RuntimeError(errors.CAST.format(src=result_type(input, target).short, dst=target.dtype.short))
    x, t = _np64(input), _np64(target)
    log_sigmoid = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        from engine import geometry

        geometry.broadcast_shapes(pos_weight._shape, target._shape)  # torch's size-mismatch error
        log_sigmoid = log_sigmoid * ((_np64(pos_weight) - 1) * t + 1)
    loss = (1 - t) * x - log_sigmoid
    if weight is not None:
        loss = loss * _np64(weight)
    out = _wrap(_reduce(loss, enum), input)
    record("BinaryCrossEntropyWithLogitsBackward0", out, (input, target),
           save={"pos_weight": pos_weight, "self": input, "target": target, "weight": weight},
           values={"reduction": enum})
    return out


# --------------------------------------------------------------------------- smooth L1 and Huber
def _pointwise_loss(kernel: str, input: Tensor, target: Tensor) -> tuple[np.ndarray, np.ndarray]:  # noqa: A002
    for t in (input, target):
        if not t.dtype.is_floating_point:
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{t.dtype.short}'")
    return _np64(input), _np64(target)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta; beta = 0 is the L1 loss, as torch routes it."""
    from engine.nn.functional import l1_loss

    _warn_size_mismatch(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    enum = reduction_enum(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, y = _pointwise_loss("smooth_l1", input, target)
    z = np.abs(x - y)
    loss = np.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta)
    out = _wrap(_reduce(loss, enum), input)
    record("SmoothL1LossBackward0", out, (input, target), save={"self": input, "target": target},
           values={"beta": beta, "reduction": enum})
    return out


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,  # noqa: A002
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); a weight multiplies the unreduced loss."""
    _warn_size_mismatch(input, target)
    input, target = _broadcast_pair(input, target)  # noqa: A001
    if weight is not None:
        if weight._shape != input._shape:
            raise ValueError("Weights and input must have the same size.")
        weighted = pw.mul(huber_loss(input, target, "none", delta), weight)
        if reduction == "none":
            return weighted
        if reduction == "sum":
            return weighted.sum()
        if reduction == "mean":
            return weighted.mean()
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
    enum = reduction_enum(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    x, y = _pointwise_loss("huber", input, target)
    z = np.abs(x - y)
    loss = np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))
    out = _wrap(_reduce(loss, enum), input)
    record("HuberLossBackward0", out, (input, target), save={"self": input, "target": target},
           values={"delta": delta, "reduction": enum})
    return out


# --------------------------------------------------------------------------- KL divergence
_KL_MEAN_WARNING = ("reduction: 'mean' divides the total loss by both the batch size and the support size."
                    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,  # noqa: A002
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """target * (log target - input), input being log-probabilities: ATen's composite (xlogy(t, t) - t * x,
    or exp(t) * (t - x) for a log target), then reduced; 'batchmean' is the sum over the batch size."""
    if size_average is not None or reduce is not None:
        enum = reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    else:
        if reduction == "mean":
            warnings.warn(_KL_MEAN_WARNING, UserWarning, stacklevel=2)
        enum = reduction_enum("sum" if reduction == "batchmean" else reduction)
    reduced = kl_div_composite(input, target, enum, log_target)
    if reduction == "batchmean" and input.ndim != 0:
        reduced = pw.div(reduced, input._shape[0])
    return reduced


def kl_div_composite(input: Tensor, target: Tensor, reduction: int, log_target: bool) -> Tensor:  # noqa: A002
    """aten::kl_div: the pointwise divergence, then the reduction (an enum)."""
    if not (input.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    from engine.ops.special import xlogy

    if log_target:
        difference = pw.sub(target, input)  # ATen's operands evaluate right to left here too
        output = pw.mul(pw.unary("exp", target), difference)
    else:
        product = pw.mul(target, input)  # evaluated first in ATen's `xlogy(t, t) - t * x`, as the graph's order shows
        output = pw.sub(xlogy(target, target), product)
    return output.mean() if reduction == 1 else output.sum() if reduction == 2 else output


def _apply_reduction(output: Tensor, reduction: int) -> Tensor:
    return output.mean() if reduction == 1 else output.sum() if reduction == 2 else output


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """max(0, -y (x1 - x2) + margin), as ATen composes it (the clamp in place)."""
    enum = reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {_size_text(input1._shape)}, input2: {_size_text(input2._shape)}, target: "
                           f"{_size_text(target._shape)} ")
    difference = pw.sub(input1, input2)  # ATen's operands evaluate right to left
    from engine.ops import backward_ops as B

    unclamped = B.add_scalar(pw.mul(pw.unary("neg", target), difference), margin)
    return _apply_reduction(pw.clamp_min_(unclamped, 0), enum)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)), d the pairwise distance (with swap, the nearer of d(a, n), d(p, n))."""
    from engine.nn.distance import pairwise_distance
    from engine.ops import backward_ops as B

    enum = reduction_enum(_legacy_reduction(size_average, reduce, reduction))
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = pw.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    output = pw.clamp_min(pw.sub(B.add_scalar(dist_pos, margin), dist_neg), 0)
    return _apply_reduction(output, enum)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                size_average: Any = None, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), averaged over the classes (torch's Python composite)."""
    from engine.nn.activations import logsigmoid

    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = pw.unary("neg", pw.add(pw.mul(target, logsigmoid(input)),
                                  pw.mul(pw.rsub(target, 1), logsigmoid(pw.unary("neg", input)))))
    if weight is not None:
        loss = pw.mul(loss, weight)
    class_dim = input.ndim - 1
    loss = pw.div(loss.sum(dim=class_dim), input._shape[class_dim])
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")
