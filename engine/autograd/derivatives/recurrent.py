"""Derivative of the fused CPU LSTM layer (MkldnnRnnLayerBackward0, engine/nn/recurrent.py).

As in torch, the node has two backwards: without create_graph the fused kernel
(engine/kernels/recurrent.py, mkldnn_rnn_layer_backward), with it a differentiable one written in
engine ops (torch's mkldnn_rnn_layer_differentiable_backward, op for op): the gates are recomputed
from the saved inputs and weights and backpropagated through time, so every step's ops are recorded
(the same graph as torch's) and a gradient penalty through an LSTM can be differentiated again.
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
    """torch's mkldnn_rnn_layer_differentiable_backward, op for op: the gates recomputed from the
    saved operands (linear = addmm, unsafe_chunk, in-place activations), then backpropagation
    through time, the weights' gradients summed step by step in place."""
    from engine.autograd.derivatives.pointwise import _one_minus
    from engine.ops.indexing import cat
    from engine.ops.linalg import addmm
    from engine.ops.views import unsafe_chunk

    x, w_ih, w_hh, b_ih, b_hh = c.input, c.weight0, c.weight1, c.weight2, c.weight3
    steps = x._shape[0]
    gates: list[Any] = [None] * steps
    states = [(c.hx_, c.cx_)]
    for seq in range(1, steps + 1):
        h, cell = states[-1]
        t = steps - seq if c._reverse else seq - 1
        gate = addmm(b_ih, x[t], w_ih.t()).add_(addmm(b_hh, h, w_hh.t()))
        i, f, g, o = unsafe_chunk(gate, 4, 1)
        i, f, g, o = i.sigmoid_(), f.sigmoid_(), g.tanh_(), o.sigmoid_()
        gates[t] = (i, f, g, o)
        new_cell = (f * cell).add(i * g)
        states.append((o * new_cell.tanh(), new_cell))
    layer_dx: list[Any] = [None] * steps
    d_wx = d_wh = d_b = None
    for seq in range(steps - 1, -1, -1):
        t = steps - seq - 1 if c._reverse else seq
        i, f, g, o = gates[t]
        cell = states[seq + 1][1]
        h, c_prev = states[seq]
        new_g_hy = g_out[t].add(g_hy)
        d1 = g_cy.add(new_g_hy * o * _one_minus(cell.tanh() * cell.tanh()))
        dgp, dip, d_prev_c, dfp = d1 * i, d1 * g, d1 * f, d1 * c_prev
        dop = new_g_hy * cell.tanh()
        da = cat([dip * i * _one_minus(i), dfp * f * _one_minus(f), dgp * _one_minus(g * g),
                  dop * o * _one_minus(o)], 1)
        db_ = da.sum(0)
        dx = (da @ w_ih).unsqueeze(0)
        d_prev_h = da @ w_hh
        dwx_ = da.transpose(0, 1) @ x[t]
        dwh_ = da.transpose(0, 1) @ h
        if d_b is None:
            d_b, d_wx, d_wh = db_, dwx_, dwh_
        else:
            d_b += db_
            d_wx += dwx_
            d_wh += dwh_
        layer_dx[t] = dx
        g_hy, g_cy = d_prev_h, d_prev_c
    return [cat(layer_dx, 0), d_wx, d_wh, d_b, d_b, g_hy, g_cy]


DERIVATIVES = {
    "MkldnnRnnLayerBackward0": rule(_INPUTS, lstm_layer_backward, keeps="_reverse",
                                    saves=f"{_INPUTS}, result0, result1, result2, result3"),
}
