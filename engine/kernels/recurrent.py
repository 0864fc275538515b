"""One fused LSTM layer over a whole sequence (what torch's CPU mkldnn_rnn_layer computes), forward and
backward through time, in numpy. Gate order is torch's: input, forget, cell, output."""

from __future__ import annotations

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def lstm_layer_forward(x: np.ndarray, w_ih: np.ndarray, w_hh: np.ndarray, b_ih: np.ndarray, b_hh: np.ndarray,
                       h0: np.ndarray, c0: np.ndarray, reverse: bool) -> tuple[np.ndarray, ...]:
    """x (T, B, I) -> output (T, B, H), hy, cy, and the workspace (T, B, 5H): the four activated
    gates and the cell state of every step, which backward needs."""
    steps, batch = x.shape[:2]
    hidden = w_hh.shape[1]
    dtype = x.dtype
    projected = x.reshape(steps * batch, -1) @ w_ih.T + (b_ih + b_hh)
    projected = projected.reshape(steps, batch, 4 * hidden)
    output = np.empty((steps, batch, hidden), dtype)
    workspace = np.empty((steps, batch, 5 * hidden), dtype)
    h, c = h0, c0
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        gates = projected[t] + h @ w_hh.T
        i, f = _sigmoid(gates[:, :hidden]), _sigmoid(gates[:, hidden:2 * hidden])
        g, o = np.tanh(gates[:, 2 * hidden:3 * hidden]), _sigmoid(gates[:, 3 * hidden:])
        c = f * c + i * g
        h = o * np.tanh(c)
        output[t] = h
        workspace[t] = np.concatenate([i, f, g, o, c], axis=1)
    return output, h.astype(dtype), c.astype(dtype), workspace


def lstm_layer_backward(grad_output: np.ndarray, grad_hy: np.ndarray, grad_cy: np.ndarray, x: np.ndarray,
                        w_ih: np.ndarray, w_hh: np.ndarray, h0: np.ndarray, c0: np.ndarray, output: np.ndarray,
                        workspace: np.ndarray, reverse: bool) -> tuple[np.ndarray, ...]:
    """Gradients for (x, w_ih, w_hh, b_ih, b_hh, h0, c0)."""
    steps, batch = x.shape[:2]
    hidden = w_hh.shape[1]
    grad_gates = np.empty((steps, batch, 4 * hidden), dtype=np.float64)
    dh, dc = grad_hy.astype(np.float64), grad_cy.astype(np.float64)
    order = range(steps) if reverse else range(steps - 1, -1, -1)
    for t in order:
        i, f, g, o, c = (workspace[t][:, k * hidden:(k + 1) * hidden] for k in range(5))
        previous = t + 1 if reverse else t - 1
        c_prev = c0 if previous in (-1, steps) else workspace[previous][:, 4 * hidden:]
        dh = dh + grad_output[t]
        tanh_c = np.tanh(c)
        do = dh * tanh_c
        dc = dc + dh * o * (1 - tanh_c * tanh_c)
        di, df, dg = dc * g, dc * c_prev, dc * i
        grad_gates[t] = np.concatenate([di * i * (1 - i), df * f * (1 - f), dg * (1 - g * g), do * o * (1 - o)], axis=1)
        dh = grad_gates[t] @ w_hh
        dc = dc * f
    h_prev = np.empty_like(output)
    for t in range(steps):
        previous = t + 1 if reverse else t - 1
        h_prev[t] = h0 if previous in (-1, steps) else output[previous]
    flat = grad_gates.reshape(steps * batch, -1)
    grad_x = (flat @ w_ih).reshape(x.shape)
    grad_w_ih = flat.T @ x.reshape(steps * batch, -1)
    grad_w_hh = flat.T @ h_prev.reshape(steps * batch, -1)
    grad_b = flat.sum(axis=0)
    dtype = x.dtype
    return (grad_x.astype(dtype), grad_w_ih.astype(dtype), grad_w_hh.astype(dtype), grad_b.astype(dtype),
            grad_b.astype(dtype), dh.astype(dtype), dc.astype(dtype))
