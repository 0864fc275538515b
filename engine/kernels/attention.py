"""Scaled dot-product attention in numpy: forward (with the row logsumexp) and backward."""

from __future__ import annotations

import numpy as np


def _bias(mask: np.ndarray | None, is_causal: bool, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray | None:
    """The additive mask: -inf where a bool mask is False or above the causal diagonal."""
    length, source = shape[-2], shape[-1]
    bias = None
    if is_causal:
        bias = np.where(np.tril(np.ones((length, source), dtype=bool)), 0.0, -np.inf).astype(dtype)
    if mask is not None:
        extra = np.where(mask, 0.0, -np.inf).astype(dtype) if mask.dtype == np.bool_ else mask.astype(dtype)
        bias = extra if bias is None else bias + extra
    return bias


def _scores(q: np.ndarray, k: np.ndarray, mask: np.ndarray | None, is_causal: bool, scale: float) -> np.ndarray:
    compute = np.float32 if q.dtype == np.float16 else q.dtype.type
    scores = np.matmul(q.astype(compute), np.swapaxes(k.astype(compute), -1, -2)) * compute(scale)
    bias = _bias(mask, is_causal, scores.shape, scores.dtype)
    return scores if bias is None else scores + bias


def sdpa_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, is_causal: bool,
                 scale: float) -> tuple[np.ndarray, np.ndarray]:
    scores = _scores(q, k, mask, is_causal, scale)
    with np.errstate(invalid="ignore", over="ignore"):
        peak = np.max(scores, axis=-1, keepdims=True)
        peak = np.where(np.isinf(peak), 0, peak)
        weights = np.exp(scores - peak)
        total = weights.sum(axis=-1, keepdims=True)
        probs = weights / total
    out = np.matmul(probs, v.astype(probs.dtype))
    lse = (np.log(total) + peak)[..., 0]
    return np.ascontiguousarray(out.astype(q.dtype)), lse


def sdpa_backward(g: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None,
                  is_causal: bool, scale: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scores = _scores(q, k, mask, is_causal, scale)
    with np.errstate(invalid="ignore", over="ignore"):
        peak = np.max(scores, axis=-1, keepdims=True)
        probs = np.exp(scores - np.where(np.isinf(peak), 0, peak))
        probs = probs / probs.sum(axis=-1, keepdims=True)
    g = g.astype(probs.dtype)
    grad_v = np.matmul(np.swapaxes(probs, -1, -2), g)
    grad_p = np.matmul(g, np.swapaxes(v.astype(probs.dtype), -1, -2))
    grad_s = probs * (grad_p - (grad_p * probs).sum(axis=-1, keepdims=True)) * probs.dtype.type(scale)
    grad_q = np.matmul(grad_s, k.astype(probs.dtype))
    grad_k = np.matmul(np.swapaxes(grad_s, -1, -2), q.astype(probs.dtype))
    return grad_q.astype(q.dtype), _unbroadcast(grad_k, k.shape).astype(k.dtype), \
        _unbroadcast(grad_v, v.shape).astype(v.dtype)


def _unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes, keepdims=True) if axes else grad
