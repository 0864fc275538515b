"""Derivatives of the nn.functional layers (engine/nn/functional.py, numpy kernels in engine/kernels).

As in PyTorch, a layer's first derivative is its own op (convolution_backward, native_batch_norm_backward,
max_pool2d_with_indices_backward, nll_loss_backward...; engine/ops/backward_ops.py), recorded so that
create_graph can differentiate it again: a gradient penalty through a conv net differentiates
ConvolutionBackwardBackward0. Those second derivatives are PyTorch's formulas where they are linear
(convolution, pooling, losses); batch and layer norm's are taken as the vector-Jacobian product of
their backward written in engine ops (values as torch's; a third derivative through them is not
recorded).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.autograd import grad_mode
from engine.autograd.derivatives import rule
from engine.autograd.derivatives.pointwise import zeros
from engine.ops import backward_ops as B
from engine.tensor import Tensor


def _zeros_of(c: Any, grad: Any) -> Any:
    t = Tensor._empty(c._self_shape, c._self_dtype)
    t._storage.data.fill(0)
    return t


# --------------------------------------------------------------------------- convolution
def _convolve(c: Any, x: Any, weight: Any) -> Any:
    """The node's own convolution (1-D or 2-D, plain or transposed) of x by weight, without bias."""
    from engine.nn.functional import conv1d, conv2d, conv_transpose2d

    if c.transposed:
        return conv_transpose2d(x, weight, None, c.stride, c.padding, c.output_padding, c.groups, c.dilation)
    convolve = conv1d if c.weight.ndim == 3 else conv2d
    return convolve(x, weight, None, c.stride, c.padding, c.dilation, c.groups)


def _convolution_backward(c: Any, grad_output: Any, x: Any, weight: Any, mask: tuple[bool, bool, bool]) -> list[Any]:
    return B.convolution_backward(grad_output, x, weight, None, c.stride, c.padding, c.dilation, c.groups, mask,
                                  c.transposed, c.output_padding)


def convolution_double_backward(c: Any, grads: list[Any]) -> list[Any]:
    """_convolution_double_backward: the gradients of convolution_backward's three outputs with respect
    to its inputs (grad_output, input, weight), each again a convolution or its backward (a
    convolution is bilinear in input and weight, transposed or not)."""
    gg_input, gg_weight, gg_bias = grads
    mask = c.grad_input_mask
    gg_out = gi = gw = None
    if mask[0]:
        if gg_input is not None:
            gg_out = _convolve(c, gg_input, c.weight)
        if gg_weight is not None:
            term = _convolve(c, c.input, gg_weight)
            gg_out = term if gg_out is None else gg_out + term
        if gg_bias is not None:
            shape = [1] * c.grad_output.ndim
            shape[1 - c.weight.ndim] = gg_bias._shape[0]  # the channel dim: -3 for 2-D, -2 for 1-D
            term = gg_bias.reshape(shape)
            gg_out = term.expand(c.grad_output._shape) if gg_out is None else gg_out + term
    if mask[1] and gg_weight is not None:
        gi = _convolution_backward(c, c.grad_output, c.input, gg_weight, (True, False, False))[0]
    if mask[2] and gg_input is not None:
        gw = _convolution_backward(c, c.grad_output, gg_input, c.weight, (False, True, False))[1]
    return [gg_out, gi, gw]


def convolution_grads(c: Any, grad: Any) -> list[Any]:
    return B.convolution_backward(grad, c.input, c.weight, c.bias_sym_sizes_opt, c.stride, c.padding, c.dilation,
                                  c.groups, c.grad_input_mask, c.transposed, c.output_padding)


# --------------------------------------------------------------------------- pooling
def max_pool_double_backward(grad: Any, indices: Any) -> Any:
    if indices.numel() == 0:
        return B.new_zeros(grad, indices._shape)
    size = list(indices._shape[:-2]) + [-1]
    return grad.contiguous().view(size).gather(-1, indices.view(size)).view(indices._shape)


# --------------------------------------------------------------------------- normalisation
def _vjp(backward_expr: Any, tensors: Sequence[Any], cotangents: Sequence[Any]) -> list[Any]:
    """The vector-Jacobian product of an engine-op expression at `tensors` (detached stand-ins)."""
    from engine.autograd.api import grad

    stand_ins = [None if t is None else t.detach().requires_grad_() for t in tensors]
    with grad_mode.enable_grad():
        outputs = backward_expr(*stand_ins)
    pairs = [(o, g) for o, g in zip(outputs, cotangents) if o is not None and g is not None and o.requires_grad]
    wanted = [t for t in stand_ins if t is not None]
    if not pairs:
        return [None] * len(tensors)
    found = iter(grad([o for o, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True))
    return [None if t is None else next(found) for t in stand_ins]


def batch_norm_backward_expr(train: bool, eps: float, running_mean: Any, running_var: Any) -> Any:
    def expr(grad_out: Any, x: Any, weight: Any) -> list[Any]:
        axes = [0, *range(2, x.ndim)]
        shape = [1, x._shape[1]] + [1] * (x.ndim - 2)
        count = x.numel() // x._shape[1]
        if train:
            mean = x.mean(axes, keepdim=True)
            invstd = (((x - mean) ** 2).mean(axes, keepdim=True) + eps).rsqrt()
        else:
            mean = running_mean.view(shape)
            invstd = (running_var + eps).rsqrt().view(shape)
        xhat = (x - mean) * invstd
        scale = invstd if weight is None else invstd * weight.view(shape)
        if train:
            grad_sum = grad_out.sum(axes, keepdim=True)
            dot = (grad_out * xhat).sum(axes, keepdim=True)
            grad_input = (grad_out - grad_sum / count - xhat * dot / count) * scale
        else:
            grad_input = grad_out * scale
        return [grad_input, (grad_out * xhat).sum(axes), grad_out.sum(axes)]
    return expr


def batchnorm_double_backward(c: Any, grads: list[Any]) -> list[Any]:
    expr = batch_norm_backward_expr(c.train, c.eps, c.running_mean, c.running_var)
    gg_out, g_input, g_weight = _vjp(lambda go, x, w: expr(go, x, w), (c.grad_out, c.input, c.weight), grads)
    return [gg_out, g_input, g_weight, None, None]


def layer_norm_backward_expr(normalized_shape: Sequence[int], rstd: Any) -> Any:
    def expr(grad_out: Any, x: Any, weight: Any, bias: Any) -> list[Any]:
        axes = list(range(x.ndim - len(normalized_shape), x.ndim))
        lead = list(range(x.ndim - len(normalized_shape)))
        mean = x.mean(axes, keepdim=True)
        var = ((x - mean) ** 2).mean(axes, keepdim=True)
        eps = rstd.detach() ** -2 - var.detach()  # the eps that gives the saved rstd
        xhat = (x - mean) * (var + eps).rsqrt()
        g = grad_out if weight is None else grad_out * weight
        grad_input = (g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True)) \
            * (var + eps).rsqrt()
        grad_weight = (grad_out * xhat).sum(lead) if weight is not None else None
        grad_bias = grad_out.sum(lead) if bias is not None else None
        return [grad_input, grad_weight, grad_bias]
    return expr


def layer_norm_double_backward(c: Any, grads: list[Any]) -> list[Any]:
    expr = layer_norm_backward_expr(c.normalized_shape, c.rstd)
    bias_flag = Tensor._empty((), c.input.dtype) if grads[2] is not None else None
    gg_out, g_input, g_weight = _vjp(lambda go, x, w: expr(go, x, w, bias_flag), (c.grad_out, c.input, c.weight),
                                     grads)
    return [gg_out, g_input, None, None, g_weight, None]


def _norm_grads(c: Any, grad: Any) -> list[Any]:
    return B.native_batch_norm_backward(grad, c.input, c.weight, c.running_mean, c.running_var, c.result1, c.result2,
                                        c.training, c.eps, c.grad_input_mask)


def group_norm_backward_expr(c: Any, grad: Any) -> list[Any]:
    """infinitely_differentiable_native_group_norm_backward: the group norm's gradients written in
    engine ops (statistics recomputed from the input), which torch uses when grad mode is on."""
    x, mask = c.input, c.grad_input_mask
    n, channels = x._shape[:2]
    grouped = x.reshape(n, c.group, -1)
    mean = grouped.mean(-1, keepdim=True)
    rstd = (((grouped - mean) ** 2).mean(-1, keepdim=True) + c.eps).rsqrt()
    xhat = (grouped - mean) * rstd
    channel_shape = [1, channels] + [1] * (x.ndim - 2)
    lead = [0, *range(2, x.ndim)]
    gx = gw = gb = None
    if mask[0]:
        g = (grad if c.weight is None else grad * c.weight.view(channel_shape)).reshape(n, c.group, -1)
        gx = ((g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True)) * rstd).reshape(x._shape)
    if len(mask) > 1 and mask[1]:
        gw = (grad * xhat.reshape(x._shape)).sum(lead)
    if len(mask) > 2 and mask[2]:
        gb = grad.sum(lead)
    return [gx, gw, gb]


def group_norm_grads(c: Any, grad: Any) -> list[Any]:
    """native_group_norm_backward's numpy kernel when no graph is recorded, else the engine-op formula."""
    if grad_mode.state.enabled:
        return group_norm_backward_expr(c, grad)
    from engine.kernels import norm

    weight = None if c.weight is None else c.weight._numpy_view()
    grads = norm.group_norm_backward(grad._numpy_view(), c.input._numpy_view(), c.group, c.result1._numpy_view(),
                                     c.result2._numpy_view(), weight)
    return [Tensor._wrap(np.ascontiguousarray(g, dtype=grad.dtype.np), grad.dtype) if wanted else None
            for g, wanted in zip(grads, c.grad_input_mask)]


# --------------------------------------------------------------------------- attention
def flash_attention_grads(c: Any, grad: Any) -> list[Any]:
    """_scaled_dot_product_flash_attention_for_cpu_backward: torch has no derivative for it, so with
    create_graph its gradients hang off a NotImplemented node that fails if differentiated again."""
    from engine.kernels import attention
    from engine.ops.core import record

    mask = None if c.attn_mask is None else c.attn_mask._numpy_view()
    arrays = attention.sdpa_backward(grad._numpy_view(), c.query._numpy_view(), c.key._numpy_view(),
                                     c.value._numpy_view(), mask, c.is_causal, c._scale)
    grads = [Tensor._wrap(np.ascontiguousarray(g, dtype=grad.dtype.np), grad.dtype) for g in arrays]
    for g in grads:
        g._counter().value = 1  # torch's kernel fills buffers it allocated (measured through backward())
    record("NotImplemented", grads, (grad, c.query, c.key, c.value, c.output),
           values={"_op": "_scaled_dot_product_flash_attention_for_cpu_backward"})
    return grads


# --------------------------------------------------------------------------- recurrent
def pack_padded_sequence_backward(grad: Any, input_sizes: Sequence[int], batch_sizes: Any, batch_first: bool) -> Any:
    """_pack_padded_sequence_backward: zeros in the time-major shape, each step's rows copied in."""
    import engine

    sizes = list(input_sizes)
    if batch_first:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grad_input = engine.zeros(sizes, dtype=grad.dtype)
    grad_input._bump_version()  # at::zeros in a C++ formula is empty().zero_(): version 1, as measured
    offset = 0
    for step, size in enumerate(batch_sizes._numpy_view().tolist()):
        grad_input[step][:size].copy_(grad[offset:offset + size])
        offset += size
    return grad_input.transpose(0, 1) if batch_first else grad_input


# --------------------------------------------------------------------------- losses
def mse_loss_double_backward(grad: Any, inp: Any, reduction: int) -> Any:
    result = B.mul_scalar(grad, 2)
    if reduction == 1:
        result.div_(inp.numel())
    return result


def bce_double_backward(grad_output: Any, grad: Any, inp: Any, target: Any, weight: Any, reduction: int) -> Any:
    eps = 1e-12
    gi = (inp * inp - B.mul_scalar(inp, 2) * target + target) / (
        B.add_scalar(inp, eps).pow(2) * B.add_scalar(B.scalar_rsub(1, inp), eps).pow(2))
    gi = gi * (grad * grad_output)
    if weight is not None:
        gi = gi * weight
    return B.div_scalar(gi, inp.numel()) if reduction == 1 else gi


def bce_double_backward_grad_output(grad: Any, inp: Any, target: Any, weight: Any, reduction: int) -> Any:
    eps = 1e-12
    ggo = (inp - target) / (B.add_scalar(inp, eps) * B.add_scalar(B.scalar_rsub(1, inp), eps))
    if weight is not None:
        ggo = ggo * weight
    ggo = ggo * grad
    if reduction == 1:
        return B.div_scalar(ggo.sum(), inp.numel())
    return ggo.sum() if reduction == 2 else ggo


def bce_double_backward_target(grad: Any, grad_output: Any, inp: Any, target: Any, weight: Any,
                               reduction: int) -> Any:
    eps = 1e-12
    gt = -grad * grad_output / (B.add_scalar(inp, eps) * B.add_scalar(B.scalar_rsub(1, inp), eps))
    if weight is not None:
        gt = gt * weight
    return B.div_scalar(gt, inp.numel()) if reduction == 1 else gt


def _bce(c: Any, grad: Any) -> Any:
    return B.binary_cross_entropy_backward(grad, c.self, c.target, c.weight, c.reduction)


def _pad_backward(c: Any, grad: Any) -> Any:
    from engine.nn.functional import pad

    return pad(grad, [-p for p in c.pad])


DERIVATIVES = {
    "ConvolutionBackward0": rule("input, weight, bias", convolution_grads, saves="input, weight",
                                 keeps="bias_sym_sizes_opt, dilation, groups, output_padding, padding, stride, transposed"),
    "ConvolutionBackwardBackward0": rule("grad_output, input, weight", convolution_double_backward,
                                         saves="grad_output, input, weight",
                                         keeps="dilation, groups, output_padding, padding, stride, transposed"),
    "MaxPool2DWithIndicesBackward0": rule(
        "self", saves="self, result1", keeps="ceil_mode, dilation, kernel_size, padding, stride",
        self=lambda c, grad: B.max_pool2d_with_indices_backward(grad, c.self, c.kernel_size, c.stride, c.padding,
                                                                c.dilation, c.ceil_mode, c.result1)),
    "MaxPool2DWithIndicesBackwardBackward0": rule(
        "grad_output, self", saves="indices",
        grad_output=lambda c, grad: max_pool_double_backward(grad, c.indices), self=_zeros_of),
    "AvgPool2DBackward0": rule(
        "self", saves="self", keeps="ceil_mode, count_include_pad, divisor_override, kernel_size, padding, stride",
        self=lambda c, grad: B.avg_pool2d_backward(grad, c.self, c.kernel_size, c.stride, c.padding, c.ceil_mode,
                                                   c.count_include_pad, c.divisor_override)),
    "AvgPool2DBackwardBackward0": rule(
        "grad_output, self", keeps="ceil_mode, count_include_pad, divisor_override, kernel_size, padding, stride",
        grad_output=lambda c, grad: _avg_pool(grad, c), self=_zeros_of),
    "AdaptiveAvgPool2DBackward0": rule("self", saves="self",
                                       self=lambda c, grad: B.adaptive_avg_pool2d_backward(grad, c.self)),
    "AdaptiveAvgPool2DBackwardBackward0": rule(
        "grad_output, self", keeps="grad_output_sym_argsize_minus_1, grad_output_sym_argsize_minus_2",
        grad_output=lambda c, grad: _adaptive_pool(grad, c), self=_zeros_of),
    "NativeBatchNormBackward0": rule("input, weight, bias", _norm_grads,
                                     saves="input, running_mean, running_var, weight, result1, result2",
                                     keeps="eps, training"),
    "NativeBatchNormBackwardBackward0": rule(
        "grad_out, input, weight, save_mean, save_invstd", batchnorm_double_backward,
        saves="grad_out, input, running_mean, running_var, save_invstd, save_mean, weight", keeps="eps, train"),
    "NativeLayerNormBackward0": rule(
        "input, weight, bias",
        lambda c, grad: B.native_layer_norm_backward(grad, c.input, c.normalized_shape, c.result1, c.result2,
                                                     c.weight, c.bias, c.grad_input_mask),
        saves="bias, input, weight, result1, result2", keeps="normalized_shape"),
    "NativeLayerNormBackwardBackward0": rule(
        "grad_out, input, mean, rstd, weight, bias", layer_norm_double_backward,
        saves="grad_out, input, mean, rstd, weight", keeps="normalized_shape"),
    "MseLossBackward0": rule("self, target", saves="self, target", keeps="reduction",
                             self=lambda c, grad: B.mse_loss_backward(grad, c.self, c.target, c.reduction),
                             target=lambda c, grad: B.mse_loss_backward(grad, c.target, c.self, c.reduction)),
    "MseLossBackwardBackward0": rule(
        "grad_output, self, target", saves={"grad_output": "self, target", "self": "grad_output, self",
                                            "target": "grad_output, target"}, keeps="reduction",
        grad_output=lambda c, grad: B.mse_loss_backward(grad, c.self, c.target, c.reduction),
        self=lambda c, grad: mse_loss_double_backward(grad * c.grad_output, c.self, c.reduction),
        target=lambda c, grad: -mse_loss_double_backward(grad * c.grad_output, c.target, c.reduction)),
    "NllLossBackward0": rule(
        "self", saves="self, target, total_weight, weight", keeps="ignore_index, reduction",
        self=lambda c, grad: B.nll_loss_backward(grad, c.self, c.target, c.weight, c.reduction, c._ignore_index,
                                                 c.total_weight)),
    "NllLossBackwardBackward0": rule(
        "grad_output, self", saves="target, weight", keeps="ignore_index, reduction",
        grad_output=lambda c, grad: _nll_loss(grad, c), self=zeros),
    # 2-D targets (N, C, H, W input): nll_loss2d, the same fields and formulas under its own names
    "NllLoss2DBackward0": rule(
        "self", saves="self, target, total_weight, weight", keeps="ignore_index, reduction",
        self=lambda c, grad: B.nll_loss_backward(grad, c.self, c.target, c.weight, c.reduction, c._ignore_index,
                                                 c.total_weight, "NllLoss2DBackwardBackward0")),
    "NllLoss2DBackwardBackward0": rule(
        "grad_output, self", saves="target, weight", keeps="ignore_index, reduction",
        grad_output=lambda c, grad: _nll_loss(grad, c), self=zeros),
    "BinaryCrossEntropyBackward0": rule(
        "self, target", saves="self, target, weight", keeps="reduction", self=_bce,
        target=lambda c, grad: B.binary_cross_entropy_target_backward(grad, c.self, c.target, c.weight,
                                                                      c.reduction)),
    "BinaryCrossEntropyBackwardBackward0": rule(
        "grad_output, self, target", saves="grad_output, self, target, weight", keeps="reduction",
        grad_output=lambda c, grad: bce_double_backward_grad_output(grad, c.self, c.target, c.weight, c.reduction),
        self=lambda c, grad: bce_double_backward(c.grad_output, grad, c.self, c.target, c.weight, c.reduction),
        target=lambda c, grad: bce_double_backward_target(grad, c.grad_output, c.self, c.target, c.weight,
                                                          c.reduction)),
    "ConstantPadNdBackward0": rule("self", keeps="pad", self=_pad_backward),
    "BinaryCrossEntropyWithLogitsBackward0": rule(
        "self, target", saves="pos_weight, self, target, weight", keeps="reduction",
        self=lambda c, grad: bce_with_logits_backward(grad, c.self, c.target, c.weight, c.pos_weight, c.reduction),
        target=lambda c, grad: bce_with_logits_target_backward(grad, c.self, c.target, c.weight, c.pos_weight,
                                                               c.reduction)),
    "SmoothL1LossBackward0": rule(
        "self, target", saves="self, target", keeps="beta, reduction",
        self=lambda c, grad: B.smooth_l1_loss_backward(grad, c.self, c.target, c.reduction, c.beta),
        target=lambda c, grad: B.smooth_l1_loss_backward(grad, c.target, c.self, c.reduction, c.beta)),
    "SmoothL1LossBackwardBackward0": rule(
        "grad_output, self, target", saves="grad_output, self, target", keeps="beta, reduction",
        grad_output=lambda c, grad: _pointwise_loss_grad_output(grad, c, B.smooth_l1_loss_backward, c.beta),
        self=lambda c, grad: pointwise_loss_double_backward(grad * c.grad_output, c.self, c.target, c.reduction,
                                                            c.beta, True),
        target=lambda c, grad: -pointwise_loss_double_backward(grad * c.grad_output, c.self, c.target, c.reduction,
                                                               c.beta, True)),
    "HuberLossBackward0": rule(
        "self, target", saves="self, target", keeps="delta, reduction",
        self=lambda c, grad: B.huber_loss_backward(grad, c.self, c.target, c.reduction, c.delta),
        target=lambda c, grad: B.huber_loss_backward(grad, c.target, c.self, c.reduction, c.delta)),
    "HuberLossBackwardBackward0": rule(
        "grad_output, self, target", saves="grad_output, self, target", keeps="delta, reduction",
        grad_output=lambda c, grad: _pointwise_loss_grad_output(grad, c, B.huber_loss_backward, c.delta),
        self=lambda c, grad: pointwise_loss_double_backward(grad * c.grad_output, c.self, c.target, c.reduction,
                                                            c.delta, False),
        target=lambda c, grad: -pointwise_loss_double_backward(grad * c.grad_output, c.self, c.target, c.reduction,
                                                               c.delta, False)),
    "PixelShuffleBackward0": rule("self", keeps="upscale_factor",
                                  self=lambda c, grad: _pixel_unshuffle(grad, c.upscale_factor)),
    "PixelUnshuffleBackward0": rule("self", keeps="downscale_factor",
                                    self=lambda c, grad: _pixel_shuffle(grad, c.downscale_factor)),
    "UpsampleNearest1DBackward0": rule(
        "self", keeps="output_size, scales, self_sym_sizes",
        self=lambda c, grad: B.upsample_backward(grad, "nearest", c.output_size, c.self_sym_sizes, None, [c.scales])),
    "UpsampleNearest2DBackward0": rule(
        "self", keeps="output_size, scales_h, scales_w, self_sym_sizes",
        self=lambda c, grad: B.upsample_backward(grad, "nearest", c.output_size, c.self_sym_sizes, None,
                                                 [c.scales_h, c.scales_w])),
    "UpsampleLinear1DBackward0": rule(
        "self", keeps="align_corners, output_size, scales, self_sym_sizes",
        self=lambda c, grad: B.upsample_backward(grad, "linear", c.output_size, c.self_sym_sizes, c.align_corners,
                                                 [c.scales])),
    "UpsampleBilinear2DBackward0": rule(
        "self", keeps="align_corners, output_size, scales_h, scales_w, self_sym_sizes",
        self=lambda c, grad: B.upsample_backward(grad, "bilinear", c.output_size, c.self_sym_sizes, c.align_corners,
                                                 [c.scales_h, c.scales_w])),
    # the backward of an upsampling is linear in its gradient: its derivative is the upsampling again
    "UpsampleNearest1DBackwardBackward0": rule("grad_output", keeps="output_size, scales",
                                               grad_output=lambda c, grad: _upsample_again(grad, c, [c.scales])),
    "UpsampleNearest2DBackwardBackward0": rule(
        "grad_output", keeps="output_size, scales_h, scales_w",
        grad_output=lambda c, grad: _upsample_again(grad, c, [c.scales_h, c.scales_w])),
    "UpsampleLinear1DBackwardBackward0": rule("grad_output", keeps="align_corners, output_size, scales",
                                              grad_output=lambda c, grad: _upsample_again(grad, c, [c.scales])),
    "UpsampleBilinear2DBackwardBackward0": rule(
        "grad_output", keeps="align_corners, output_size, scales_h, scales_w",
        grad_output=lambda c, grad: _upsample_again(grad, c, [c.scales_h, c.scales_w])),
    "ReflectionPad1DBackward0": rule("self", saves="self", keeps="padding", self=lambda c, grad: _unpad(grad, c)),
    "ReflectionPad2DBackward0": rule("self", saves="self", keeps="padding", self=lambda c, grad: _unpad(grad, c)),
    "ReplicationPad1DBackward0": rule("self", saves="self", keeps="padding", self=lambda c, grad: _unpad(grad, c)),
    "ReplicationPad2DBackward0": rule("self", saves="self", keeps="padding", self=lambda c, grad: _unpad(grad, c)),
    # the backward of a padding is linear in its gradient: its derivative pads again (self's is zero)
    "ReflectionPad1DBackwardBackward0": rule("grad_output, self", keeps="padding",
                                             grad_output=lambda c, grad: _pad_again(grad, c), self=zeros),
    "ReflectionPad2DBackwardBackward0": rule("grad_output, self", keeps="padding",
                                             grad_output=lambda c, grad: _pad_again(grad, c), self=zeros),
    "ReplicationPad1DBackwardBackward0": rule("grad_output, self", keeps="padding",
                                              grad_output=lambda c, grad: _pad_again(grad, c), self=zeros),
    "ReplicationPad2DBackwardBackward0": rule("grad_output, self", keeps="padding",
                                              grad_output=lambda c, grad: _pad_again(grad, c), self=zeros),
    "ScaledDotProductFlashAttentionForCpuBackward0": rule(
        "query, key, value", flash_attention_grads, saves="attn_mask, key, logsumexp, output, query, value",
        keeps="dropout_p, is_causal, scale"),
    "PackPaddedSequenceBackward0": rule(
        "input", saves="result1", keeps="batch_first, input_sym_sizes",
        input=lambda c, grad: pack_padded_sequence_backward(grad, c.input_sym_sizes, c.result1, c.batch_first)),
    "NativeGroupNormBackward0": rule("input, weight, bias", group_norm_grads, saves="input, weight, result1, result2",
                                     keeps="C, HxW, N, eps, group"),
    "EmbeddingBackward0": rule(
        "indices, weight", saves="indices", keeps="padding_idx, scale_grad_by_freq, sparse, weight_sym_argsize_0",
        weight=lambda c, grad: B.embedding_dense_backward(grad, c.indices, c.weight_sym_argsize_0, c.padding_idx,
                                                          c.scale_grad_by_freq)),
    "EmbeddingDenseBackwardBackward0": rule("grad_output", saves="indices", keeps="padding_idx",
                                            grad_output=lambda c, grad: _embedding_double_backward(grad, c)),
    "AdaptiveMaxPool2DBackward0": rule(
        "self", saves="self, result1",
        self=lambda c, grad: B.adaptive_max_pool2d_backward(grad, c.self, c.result1)),
    "AdaptiveMaxPool2DBackwardBackward0": rule(
        "grad_output, self", saves="indices",
        grad_output=lambda c, grad: max_pool_double_backward(grad, c.indices), self=_zeros_of),
}


# --------------------------------------------------------------------------- losses of engine/nn/losses.py
def bce_with_logits_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any, reduction: int) -> Any:
    """binary_cross_entropy_with_logits_backward: out of place under grad mode (create_graph), else in
    place on its own temporaries, as torch's (the gradient's version counter shows which)."""
    recorded = grad_mode.is_grad_enabled()
    if pos_weight is not None:
        t = pos_weight * target
        grad_input = (B.add_scalar(t, 1) - target) * self.sigmoid() - t if recorded \
            else B.add_scalar(t, 1).sub_(target).mul_(self.sigmoid()).sub_(t)
    else:
        grad_input = self.sigmoid() - target if recorded else self.sigmoid().sub_(target)
    grad_input = grad_input * grad if recorded else grad_input.mul_(grad)
    if weight is not None:
        grad_input = grad_input * weight if recorded else grad_input.mul_(weight)
    if reduction == 1:
        B.div_scalar_(grad_input, self.numel())  # in place in both modes (torch's gradient shows version 1 under create_graph)
    return grad_input


def bce_with_logits_target_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                                    reduction: int) -> Any:
    from engine.nn.functional import logsigmoid

    recorded = grad_mode.is_grad_enabled()
    if pos_weight is not None:
        grad_target = logsigmoid(-self) - logsigmoid(self) * pos_weight if recorded \
            else logsigmoid(-self).sub_(logsigmoid(self).mul_(pos_weight))
        grad_target = grad_target * grad if recorded else grad_target.mul_(grad)
    else:
        grad_target = -self * grad
    if weight is not None:
        grad_target = grad_target * weight if recorded else grad_target.mul_(weight)
    if reduction == 1:
        return B.div_scalar(grad_target, target.numel()) if recorded else B.div_scalar_(grad_target, target.numel())
    return grad_target


def pointwise_loss_double_backward(grad: Any, self: Any, target: Any, reduction: int, bound: float,
                                   smooth_l1: bool) -> Any:
    """smooth_l1_loss_double_backward / huber_loss_double_backward: grad where |d| < bound (over beta for
    smooth L1), 0 elsewhere; over n for 'mean'."""
    if smooth_l1 and bound == 0:
        return B.new_zeros(grad, grad._shape)
    inside = ((self - target).abs() < bound).to(grad.dtype)
    result = grad * inside
    if smooth_l1:
        result = B.div_scalar(result, bound)
    return B.div_scalar(result, self.numel()) if reduction == 1 else result


def _pointwise_loss_grad_output(grad: Any, c: Any, backward: Any, bound: float) -> Any:
    result = backward(grad, c.self, c.target, c.reduction, bound)
    return result if c.reduction == 0 else result.sum()


def _embedding_double_backward(grad: Any, c: Any) -> Any:
    """embedding_dense_double_backward: the rows of grad the indices read, padding rows zeroed."""
    rows = grad.index_select(0, c.indices.reshape(-1))
    if c.padding_idx >= 0:
        rows = rows.masked_fill((c.indices == c.padding_idx).reshape(-1, 1), 0)
    return rows.view(list(c.indices._shape) + [-1])


def _avg_pool(grad: Any, c: Any) -> Any:
    from engine.nn.functional import avg_pool2d

    return avg_pool2d(grad, c.kernel_size, c.stride or None, c.padding, c.ceil_mode, c.count_include_pad,
                      c.divisor_override)


def _adaptive_pool(grad: Any, c: Any) -> Any:
    from engine.nn.functional import adaptive_avg_pool2d

    return adaptive_avg_pool2d(grad, (c.grad_output_sym_argsize_minus_2, c.grad_output_sym_argsize_minus_1))


def _nll_loss(grad: Any, c: Any) -> Any:
    from engine.nn.functional import nll_loss

    return nll_loss(grad, c.target, c.weight, None, c._ignore_index, None,
                    {0: "none", 1: "mean", 2: "sum"}[c.reduction])


def _pixel_shuffle(grad: Any, factor: int) -> Any:
    from engine.nn.pixel_dropout import pixel_shuffle

    return pixel_shuffle(grad, factor)


def _pixel_unshuffle(grad: Any, factor: int) -> Any:
    from engine.nn.pixel_dropout import pixel_unshuffle

    return pixel_unshuffle(grad, factor)


def _upsample_again(grad: Any, c: Any, scales: list[Any]) -> Any:
    from engine.nn.upsampling import upsample_op

    return upsample_op(grad, c._mode, c.output_size, getattr(c, "align_corners", None), scales)


def _unpad(grad: Any, c: Any) -> Any:
    from engine.nn.padding import pad_backward

    return pad_backward(grad, c.self, c.padding, c._mode)


def _pad_again(grad: Any, c: Any) -> Any:
    from engine.nn.padding import padded

    return padded(grad, c.padding, c._mode)
