"""Derivatives of F.unfold and F.fold (engine.nn.fold): each is the other's (derivatives.yaml's
im2col and col2im)."""

from __future__ import annotations

from engine.autograd.derivatives import rule


def _fold(c, grad):  # noqa: ANN001, ANN202 - a formula: (context, gradient) -> gradient
    from engine.nn.fold import fold

    return fold(grad, (c.self_sym_argsize_minus_2, c.self_sym_argsize_minus_1), c.kernel_size, c.dilation, c.padding,
                c.stride)


def _unfold(c, grad):  # noqa: ANN001, ANN202
    from engine.nn.fold import unfold

    return unfold(grad, c.kernel_size, c.dilation, c.padding, c.stride)


DERIVATIVES = {
    "Im2ColBackward0": rule("self", keeps="dilation, kernel_size, padding, stride, self_sym_argsize_minus_1, "
                                          "self_sym_argsize_minus_2", self=_fold),
    "Col2ImBackward0": rule("self", keeps="dilation, kernel_size, padding, stride", self=_unfold),
}
