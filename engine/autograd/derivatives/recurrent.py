"""Derivative of the fused CPU LSTM layer (MkldnnRnnLayerBackward0, engine/nn/recurrent.py).

As in torch, the node has two backwards: without create_graph the fused kernel
(engine/kernels/recurrent.py, mkldnn_rnn_layer_backward), with it a differentiable one written in
engine ops (torch's mkldnn_rnn_layer_differentiable_backward): the gates are recomputed from the
saved inputs and weights and backpropagated through time, so every step's ops are recorded and a
gradient penalty through an LSTM can be differentiated again.
"""

from __future__ import annotations

from typing import Any

from engine.autograd import grad_mode
from engine.autograd.derivatives import rule
from engine.kernels import recurrent as kernels
from engine.ops import backward_ops as B
from engine.tensor import Tensor

_INPUTS = "input, weight0, weight1, weight2, weight3, hx_, cx_"


def _filled(grads: list[Any], like: tuple[Any, ...]) -> list[Any]:
    return [g if g is not None else B.new_zeros(t, t._shape) for g, t in zip(grads, like)]


def lstm_layer_backward(c: Any, grads: list[Any]) -> list[Any]:
    if all(g is None for g in grads):
        return [None] * 7
    g_out, g_hy, g_cy = _filled(grads, (c.result0, c.result1, c.result2))
    if grad_mode.state.enabled:
        results = differentiable_backward(c, g_out, g_hy, g_cy)
    else:
        arrays = kernels.lstm_layer_backward(
            g_out._numpy_view(), g_hy._numpy_view(), g_cy._numpy_view(), c.input._numpy_view(),
            c.weight0._numpy_view(), c.weight1._numpy_view(), c.hx_._numpy_view(), c.cx_._numpy_view(),
            c.result0._numpy_view(), c.result3._numpy_view(), c._reverse)
        results = [Tensor._wrap(a, c.input.dtype) for a in arrays]
    return [r if needed else None for r, needed in zip(results, c.grad_input_mask)]


def differentiable_backward(c: Any, g_out: Any, g_hy: Any, g_cy: Any) -> list[Any]:
    """Backpropagation through time in engine ops, over gates recomputed from the saved operands."""
    from engine.ops.indexing import cat, stack

    x, w_ih, w_hh, b_ih, b_hh = c.input, c.weight0, c.weight1, c.weight2, c.weight3
    steps = x._shape[0]
    order = list(range(steps - 1, -1, -1)) if c._reverse else list(range(steps))
    h, cell = c.hx_, c.cx_
    record = {}
    for t in order:  # the forward again, recorded: (gates, previous h, previous and new cell state)
        i, f, g, o = (x[t] @ w_ih.t() + b_ih + h @ w_hh.t() + b_hh).chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        new_cell = f * cell + i * g
        record[t] = (i, f, g, o, h, cell, new_cell)
        h, cell = o * new_cell.tanh(), new_cell
    dh, dc = g_hy, g_cy
    grad_gates, grad_x = {}, {}
    for t in reversed(order):
        i, f, g, o, h_prev, c_prev, c_t = record[t]
        dh = dh + g_out[t]
        tanh_c = c_t.tanh()
        dc = dc + dh * o * B.scalar_rsub(1, tanh_c * tanh_c)
        gates = cat([dc * g * i * B.scalar_rsub(1, i), dc * c_prev * f * B.scalar_rsub(1, f),
                     dc * i * B.scalar_rsub(1, g * g), dh * tanh_c * o * B.scalar_rsub(1, o)], 1)
        grad_gates[t] = (gates, h_prev)
        grad_x[t] = gates @ w_ih
        dh, dc = gates @ w_hh, dc * f
    all_gates = cat([grad_gates[t][0] for t in range(steps)], 0)
    previous_h = cat([grad_gates[t][1] for t in range(steps)], 0)
    grad_w_ih = all_gates.t() @ x.reshape(steps * x._shape[1], -1)
    grad_w_hh = all_gates.t() @ previous_h
    grad_b = all_gates.sum(0)
    return [stack([grad_x[t] for t in range(steps)]), grad_w_ih, grad_w_hh, grad_b, grad_b, dh, dc]


DERIVATIVES = {
    "MkldnnRnnLayerBackward0": rule(_INPUTS, lstm_layer_backward, keeps="_reverse",
                                    saves=f"{_INPUTS}, result0, result1, result2, result3"),
}
