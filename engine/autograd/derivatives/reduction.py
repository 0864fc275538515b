"""Derivatives of reductions (engine/ops/reduction.py), as torch 2.13's derivatives.yaml states them.

The helpers are PyTorch's (FunctionsManual.cpp) written in engine ops: sum_backward expands the
gradient back (a view, which is why a leaf's .grad is then a copy at version 1), max(dim) scatters it
into zeros at the indices, var/std/norm follow torch's case analysis (degrees of freedom, zeros).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.autograd import grad_mode
from engine.autograd.derivatives import rule
from engine.ops import backward_ops as B
from engine.ops.factories import zeros_like
from engine.ops.pointwise import where
from engine.tensor import Tensor


def signed(dim: int) -> int:
    """A dim as saved (negative dims read as unsigned int64) back to a signed int."""
    return dim - (1 << 64) if dim >= 1 << 63 else dim


def dims_of(saved: Any) -> tuple[int, ...]:
    if saved is None:
        return ()
    if isinstance(saved, tuple):
        return tuple(signed(d) for d in saved)
    return (signed(saved),)


def unsqueeze_multiple(t: Any, dims: tuple[int, ...], ndim: int) -> Any:
    if len(dims) == 0:
        return t
    if len(dims) == 1:
        return t.unsqueeze(dims[0])
    wanted = {d % ndim for d in dims}
    for i in range(ndim):
        if i in wanted:
            t = t.unsqueeze(i)
    return t


def sum_backward(grad: Any, sizes: tuple[int, ...], dims: tuple[int, ...], keepdim: bool) -> Any:
    if not keepdim and sizes and dims:
        return unsqueeze_multiple(grad, dims, len(sizes)).expand(sizes)
    return grad.expand(sizes)


def mean_backward(grad: Any, sizes: tuple[int, ...], dims: tuple[int, ...], numel: int, keepdim: bool) -> Any:
    n = numel if not dims else math.prod(sizes[d] for d in dims) if sizes else 1
    return B.div_scalar(sum_backward(grad, sizes, dims, keepdim), n)


def _exclusive_products(inp: Any, dim: int) -> Any:
    """prod_safe_zeros_backward's factor: for each element, the product of the others in its slice."""
    x = inp._numpy_view()
    ones = np.ones_like(np.take(x, [0], axis=dim))
    before = np.cumprod(np.concatenate([ones, np.delete(x, -1, axis=dim)], axis=dim), axis=dim)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(np.delete(x, 0, axis=dim), axis=dim)], axis=dim),
                               axis=dim), axis=dim)
    return Tensor._wrap(np.ascontiguousarray(before * after), inp.dtype)


def prod_safe_zeros_backward(grad: Any, inp: Any, dim: int) -> Any:
    if inp.numel() == 0:
        return grad.expand_as(inp)
    if inp._shape[dim] == 1:
        return grad
    return grad * _exclusive_products(inp, dim)


def prod_backward(grad: Any, inp: Any, result: Any) -> Any:
    if inp.ndim == 0:
        return grad
    zeros = int((inp._numpy_view() == 0).sum())
    if zeros == 0:
        return grad * (result / inp)
    if not grad_mode.state.enabled and zeros > 1:
        return zeros_like(inp)
    return prod_safe_zeros_backward(grad, inp.contiguous().view(-1), 0).view_as(inp)


def prod_dim_backward(grad: Any, inp: Any, result: Any, dim: int, keepdim: bool) -> Any:
    if inp.ndim == 0:
        return grad
    dim = dim % inp.ndim
    if not keepdim:
        grad = grad.unsqueeze(dim)
        result = result.unsqueeze(dim)
    if not (inp._numpy_view() == 0).any():
        return grad * (result / inp)
    return prod_safe_zeros_backward(grad, inp, dim)


def evenly_distribute_backward(grad: Any, inp: Any, value: Any) -> Any:
    if inp.device.type == "cuda":
        mask = (inp == value).logical_or(inp.isnan().logical_and(value.isnan()))
        return mask * (grad / mask.sum())
    mask = inp.isnan() if bool(value.isnan()) else inp == value
    return B.new_zeros(grad, inp._shape).masked_fill_(mask, grad / mask.sum())


def value_selecting_reduction_backward(grad: Any, dim: int, indices: Any, sizes: tuple[int, ...],
                                       keepdim: bool) -> Any:
    grad_in = B.new_zeros(grad, sizes)
    if not sizes:  # a 0-d input: the one element gets the gradient
        grad_in.copy_(grad)
    elif keepdim:
        grad_in.scatter_(dim, indices, grad)
    else:
        grad_in.scatter_(dim, indices.unsqueeze(dim), grad.unsqueeze(dim))
    grad_in._bump_version()  # PyTorch's result comes out at version 2 (measured), not 1
    return grad_in


def restore_reduced_dims(output: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    if keepdim:
        return output
    total = output.ndim + len(dims)
    target = [0] * total
    for d in dims:
        target[d % total] = 1
    sizes = iter(output._shape)
    for i in range(total):
        if target[i] == 0:
            target[i] = next(sizes)
    return output.reshape(target)


def scale_grad_by_count(grad: Any, mask: Any, dims: tuple[int, ...]) -> Any:
    return (grad / mask.sum(list(dims), keepdim=True)) * mask


def var_backward(grad: Any, self: Any, dims: tuple[int, ...] | None, correction: Any, keepdim: bool) -> Any:
    c = 1 if correction is None else correction
    if self.ndim == 0 or dims is None:
        dof = self.numel() - c
        if dof <= 0:
            return grad * where(self == self.mean(), math.nan, math.inf)
        return B.mul_scalar(grad, 2.0 / dof) * (self - self.mean())
    if not keepdim and self.ndim > 1:
        grad = unsqueeze_multiple(grad, dims, self.ndim)
    count = math.prod(self._shape[d] for d in dims) if dims else self.numel()
    return B.mul_scalar(grad, 2.0 / (count - c)) * (self - self.mean(list(dims), keepdim=True))


def std_backward(result: Any, grad: Any, self: Any, dims: tuple[int, ...] | None, correction: Any,
                 keepdim: bool) -> Any:
    grad_var = (grad / B.mul_scalar(result, 2)).masked_fill_(result == 0, 0)
    return var_backward(grad_var, self, dims, correction, keepdim)


def moments_backward(c: Any, grads: list[Any], root: bool) -> Any:
    g_first, g_mean = grads
    dims = None if c.dim is None else dims_of(c.dim)
    gself = None
    if g_first is not None:
        gself = (std_backward(c.result0, g_first, c.self, dims, c.correction, c.keepdim) if root
                 else var_backward(g_first, c.self, dims, c.correction, c.keepdim))
    if g_mean is not None:
        aux = mean_backward(g_mean, c.self._shape, dims or (), c.self.numel(), c.keepdim)
        gself = aux if gself is None else gself + aux
    return gself


def norm_backward(grad: Any, self: Any, p: float, norm: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    if not keepdim and self.ndim != 0:
        grad = unsqueeze_multiple(grad, dims, self.ndim)
        norm = unsqueeze_multiple(norm, dims, self.ndim)
    if p == 0.0:
        return None
    if p == 1.0:
        return self.sgn() * grad
    if p == 2.0:
        return grad * (self / norm).masked_fill_(norm == 0, 0)
    if math.isinf(p):
        magnitude = self.abs()
        mask = magnitude.eq(norm).logical_or(magnitude.isnan())
        return self.sgn() * ((grad / mask.sum(list(dims), keepdim=True)) * mask)
    if p < 1.0:
        scaled = self.sgn() * self.abs().pow_(p - 1).masked_fill_(self == 0, 0)
        return scaled * grad * norm.pow(1 - p)
    scaled = self.sgn() * self.abs().pow_(p - 1) if p < 2.0 else self * self.abs().pow_(p - 2)
    scale_v = grad / norm.pow(p - 1)
    scale_v.masked_fill_(norm == 0, 0)
    return scaled * scale_v


def cummaxmin_backward(grad: Any, self: Any, indices: Any, dim: int) -> Any:
    """The gradient scattered back to where each running extreme came from."""
    from engine.ops.factories import empty_like

    if self.numel() == 0:
        return self
    return empty_like(self).zero_().scatter_add_(dim, indices, grad)  # at::zeros: a zero_ the version shows


def logsumexp_backward(grad: Any, self: Any, result: Any, dims: tuple[int, ...], keepdim: bool) -> Any:
    if not keepdim and self.ndim != 0:
        grad = unsqueeze_multiple(grad, dims, self.ndim)
        result = unsqueeze_multiple(result, dims, self.ndim)
    return grad * (self - result).exp()


def cumsum_backward(grad: Any, dim: int) -> Any:
    if grad.numel() <= 1 or grad._shape[dim] == 1:
        return grad
    return grad.flip(dim).cumsum(dim).flip(dim)


def cumprod_backward(grad: Any, inp: Any, dim: int, output: Any) -> Any:
    """torch's cumprod_backward: where the input has no zero, reversed_cumsum(output * grad) / input;
    along slices with zeros, the products of the other factors (computed outside the graph here)."""
    if inp.numel() <= 1 or inp._shape[dim] == 1:
        return grad
    w = output * grad
    if not (inp._numpy_view() == 0).any():
        return cumsum_backward(w, dim).div(inp)
    from engine.ops.reduction import _cumprod_backward

    return Tensor._wrap(_cumprod_backward(grad._numpy_view(), inp._numpy_view(), output._numpy_view(), dim),
                        grad.dtype)


def softmax_double_backward(grad: Any, grad_output: Any, dim: int, output: Any) -> Any:
    return (grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad
            - grad_output * (output * grad).sum(dim, keepdim=True))


def _moments(c: Any) -> tuple[tuple[int, ...] | None, Any]:
    return (None if c.dim is None else dims_of(c.dim)), c.correction


def _sum_direct(node: Any, grad: Any, mask: tuple[bool, ...]) -> list[Any] | None:
    """SumBackward0's formula for a plain pass (the table's `direct`)."""
    values = node._values
    if values is None or len(mask) != 1 or "self_sym_sizes" not in values:
        return None
    return [grad.expand(values["self_sym_sizes"]) if mask[0] else None]


DERIVATIVES = {
    "SumBackward0": rule("self", keeps="self_sym_sizes", self=lambda c, grad: grad.expand(c.self_sym_sizes),
                         direct=_sum_direct),
    "SumBackward1": rule("self", keeps="dim, keepdim, self_sym_sizes",
                         self=lambda c, grad: sum_backward(grad, c.self_sym_sizes, dims_of(c.dim), c.keepdim)),
    "MeanBackward0": rule("self", keeps="self_sym_numel, self_sym_sizes",
                          self=lambda c, grad: B.div_scalar(grad.expand(c.self_sym_sizes), c.self_sym_numel)),
    "MeanBackward1": rule("self", keeps="dim, keepdim, self_sym_numel, self_sym_sizes",
                          self=lambda c, grad: mean_backward(grad, c.self_sym_sizes, dims_of(c.dim),
                                                             c.self_sym_numel, c.keepdim)),
    "ProdBackward0": rule("self", saves="self, result",
                          self=lambda c, grad: prod_backward(grad, c.self.to(grad.dtype), c.result)),
    "ProdBackward1": rule("self", saves="self, result", keeps="dim, keepdim",
                          self=lambda c, grad: prod_dim_backward(grad, c.self.to(grad.dtype), c.result,
                                                                 signed(c.dim), c.keepdim)),
    "MedianBackward0": rule("self", saves="self, result",
                            self=lambda c, grad: evenly_distribute_backward(grad, c.self, c.result)),
    "MedianBackward1": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes",
                            self=lambda c, grad: value_selecting_reduction_backward(
                                grad, signed(c.dim), c.indices, c.self_sym_sizes, c.keepdim)),
    "NanmedianBackward0": rule("self", saves="self, result",
                            self=lambda c, grad: evenly_distribute_backward(grad, c.self, c.result)),
    "NanmedianBackward1": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes",
                            self=lambda c, grad: value_selecting_reduction_backward(
                                grad, signed(c.dim), c.indices, c.self_sym_sizes, c.keepdim)),
    "MaxBackward1": rule("self", saves="self, result",
                         self=lambda c, grad: evenly_distribute_backward(grad, c.self, c.result)),
    "MinBackward1": rule("self", saves="self, result",
                         self=lambda c, grad: evenly_distribute_backward(grad, c.self, c.result)),
    "MaxBackward0": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes",
                         self=lambda c, grad: value_selecting_reduction_backward(
                             grad, signed(c.dim), c.indices, c.self_sym_sizes, c.keepdim)),
    "MinBackward0": rule("self", saves="indices", keeps="dim, keepdim, self_sym_sizes",
                         self=lambda c, grad: value_selecting_reduction_backward(
                             grad, signed(c.dim), c.indices, c.self_sym_sizes, c.keepdim)),
    "AmaxBackward0": rule("self", saves="self, result", keeps="dim, keepdim",
                          self=lambda c, grad: scale_grad_by_count(
                              restore_reduced_dims(grad, dims_of(c.dim), c.keepdim),
                              restore_reduced_dims(c.result, dims_of(c.dim), c.keepdim) == c.self, dims_of(c.dim))),
    "AminBackward0": rule("self", saves="self, result", keeps="dim, keepdim",
                          self=lambda c, grad: scale_grad_by_count(
                              restore_reduced_dims(grad, dims_of(c.dim), c.keepdim),
                              restore_reduced_dims(c.result, dims_of(c.dim), c.keepdim) == c.self, dims_of(c.dim))),
    "VarBackward0": rule("self", saves="self", keeps="correction, dim, keepdim",
                         self=lambda c, grad: var_backward(grad, c.self, *_moments(c), c.keepdim)),
    "StdBackward0": rule("self", saves="self, result", keeps="correction, dim, keepdim",
                         self=lambda c, grad: std_backward(c.result, grad, c.self, *_moments(c), c.keepdim)),
    "VarMeanBackward0": rule("self", saves="self", keeps="correction, dim, keepdim",
                             self=lambda c, grads: moments_backward(c, grads, root=False)),
    "StdMeanBackward0": rule("self", saves="self, result0", keeps="correction, dim, keepdim",
                             self=lambda c, grads: moments_backward(c, grads, root=True)),
    "NansumBackward0": rule("self", saves="self", keeps="dim, keepdim",
                            self=lambda c, grad: sum_backward(grad.to(c.self.dtype), c.self.shape, dims_of(c.dim),
                                                              c.keepdim) * c.self.isnan().logical_not()),
    "CummaxBackward0": rule("self", saves="indices, self", keeps="dim",
                            self=lambda c, grad: cummaxmin_backward(grad, c.self, c.indices, c.dim)),
    "CumminBackward0": rule("self", saves="indices, self", keeps="dim",
                            self=lambda c, grad: cummaxmin_backward(grad, c.self, c.indices, c.dim)),
    "Rot90Backward0": rule("self", keeps="dims, k", self=lambda c, grad: grad.rot90(-c.k, c.dims)),
    "NormBackward1": rule("self", saves="self, result", keeps="dim, keepdim, p",  # at::norm(self, p, dim)
                          self=lambda c, grad: norm_backward(grad, c.self, float(c.p), c.result, dims_of(c.dim),
                                                             c.keepdim)),
    "LinalgVectorNormBackward0": rule("self", saves="self, result", keeps="dim, keepdim, ord",
                                      self=lambda c, grad: norm_backward(grad, c.self, float(c.ord), c.result,
                                                                         dims_of(c.dim), c.keepdim)),
    "LogsumexpBackward0": rule("self", saves="self, result", keeps="dim, keepdim",
                               self=lambda c, grad: logsumexp_backward(grad, c.self, c.result, dims_of(c.dim),
                                                                       c.keepdim)),
    "CumsumBackward0": rule("self", keeps="dim",
                            self=lambda c, grad: cumsum_backward(grad.to(c._self_dtype), signed(c.dim))),
    "CumprodBackward0": rule("self", saves="self, result", keeps="dim, _self_dtype",
                             self=lambda c, grad: cumprod_backward(grad.to(c._self_dtype), c.self, signed(c.dim),
                                                                   c.result)),
    "SoftmaxBackward0": rule("self", saves="result", keeps="dim",
                             self=lambda c, grad: B.softmax_backward_data(grad, c.result, c._d, c.result.dtype)),
    "LogSoftmaxBackward0": rule("self", saves="result", keeps="dim",
                                self=lambda c, grad: B.log_softmax_backward_data(grad, c.result, c._d, c.result.dtype)),
    "SoftmaxBackwardDataBackward0": rule(
        "grad_output, output", saves={"grad_output": "output", "output": "grad_output, output"}, keeps="dim",
        grad_output=lambda c, grad: B.softmax_backward_data(grad.to(c.output.dtype), c.output, c.dim,
                                                            c._input_dtype),
        output=lambda c, grad: softmax_double_backward(grad.to(c.output.dtype), c.grad_output, c.dim, c.output)
        .to(c.output.dtype)),
    "LogSoftmaxBackwardDataBackward0": rule(
        "grad_output, output", saves={"grad_output": "output", "output": "grad_output, output"}, keeps="dim",
        grad_output=lambda c, grad: grad.to(c.output.dtype)
        - (grad.to(c.output.dtype) * c.output.exp()).sum(c.dim, keepdim=True),
        output=lambda c, grad: (-c.grad_output.sum(c.dim, keepdim=True) * c.output.exp() * grad.to(c.output.dtype))
        .to(c.output.dtype)),
}
