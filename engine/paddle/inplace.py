"""Paddle's in-place ops (`x.scale_()`, `x.add_()`, `paddle.multiply_()`...), each an engine in-place
op run under Paddle's rules by Tensor._inplace: on a leaf that does not stop gradient the op *runs*
and then raises the leaf error, without bumping the version; elsewhere it bumps the version once and
records the node under Paddle's name. Only the functions Paddle also exports at top level are in
`__all__` (`paddle.multiply_` exists, `paddle.add_` and `paddle.scale_` do not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import geometry
from engine.ops.core import apply_inplace
from engine.ops.views import _inplace_layout
from engine.paddle import random as rng
from engine.paddle.tensor import (
    EngineTensor,
    Tensor,
    check_inplace_broadcast,
    own_memory,
    shape_arg,
)


def _scale_in_place(t: EngineTensor, scale: float, bias: float, bias_after_scale: bool) -> None:
    """scale_ as ONE engine in-place write (x*scale + bias): one version bump, one node."""
    factor = t.dtype.np.type(scale)

    def write(values: np.ndarray) -> None:
        if not bias_after_scale:
            np.add(values, bias, out=values, casting="unsafe")
        np.multiply(values, factor, out=values, casting="unsafe")
        if bias_after_scale and bias:
            np.add(values, bias, out=values, casting="unsafe")
    apply_inplace(t, write, "ScaleBackward0", (), lambda grad, saved: (grad * factor,))


def _permute_in_place(t: EngineTensor, perm: list[int]) -> None:
    """transpose_ (any permutation) as one layout change of t itself, one version bump."""
    inverse = list(np.argsort(perm))
    layout = (tuple(t._shape[p] for p in perm), tuple(t._stride[p] for p in perm), t._offset)
    _inplace_layout(t, "PermuteBackward0", layout, backward=lambda grad, saved: (grad.transpose(inverse),))


def reshape_in_place(t: EngineTensor, shape: list[int]) -> None:
    """A layout that cannot be viewed is first copied into memory of its own (keeping the version
    counter, which the reshape then bumps), as Paddle does."""
    new = geometry.infer_size(shape, t.numel())
    stride = geometry.view_strides(t._shape, t._stride, new)
    if stride is None:
        counter = t._counter()
        own_memory(t)
        t._vc = counter
        stride = geometry.contiguous_strides(new)
    old = t._shape
    _inplace_layout(t, "ReshapeBackward0", (tuple(new), tuple(stride), t._offset),
                    backward=lambda g, s: (g.reshape(old),))


def scale_(x: Tensor, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
           act: Any = None) -> Tensor:
    return x._inplace("ScaleGradNode", lambda t: _scale_in_place(t, scale, bias, bias_after_scale))


def add_(x: Tensor, y: Tensor, name: str | None = None, *, alpha: float = 1) -> Tensor:
    check_inplace_broadcast(x, y)
    return x._inplace("AddGradNode", lambda t, o: t.add_(o, alpha=alpha), y)


def subtract_(x: Tensor, y: Tensor, name: str | None = None, *, alpha: float = 1) -> Tensor:
    check_inplace_broadcast(x, y)
    return x._inplace("SubtractGradNode", lambda t, o: t.sub_(o, alpha=alpha), y)


def multiply_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    check_inplace_broadcast(x, y)
    return x._inplace("MultiplyGradNode", lambda t, o: t.mul_(o), y)


def divide_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Paddle's node keeps the result (x itself), so changing x again breaks backward."""
    check_inplace_broadcast(x, y)
    return x._inplace("DivideGradNode", lambda t, o: t.div_(o), y, save_out=True)


def pow_(x: Tensor, y: float, name: str | None = None) -> Tensor:
    if isinstance(y, bool) or not isinstance(y, (int, float)):
        raise TypeError(f"y must be scalar type, but received: {type(y)} ")
    return x._inplace("PowGradNode", lambda t: t.pow_(y))


def clip_(x: Tensor, min: float | None = None, max: float | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    return x._inplace("ClipGradNode", lambda t: t.clamp_(min, max))


def zero_(x: Tensor) -> Tensor:
    return x._inplace("FillGradNode", lambda t: t.zero_())


def fill_(x: Tensor, value: float) -> Tensor:
    return x._inplace("FillGradNode", lambda t: t.fill_(value))


def _random_fill(t: EngineTensor, values: np.ndarray, node: str) -> None:
    """Write fresh random values (drawn in memory order, as the kernel fills its buffer)."""
    def write(target: np.ndarray) -> None:
        target[...] = values.reshape(target.shape)
    apply_inplace(t, write, node, (), lambda grad, saved: (np.zeros_like(grad),), check_autograd=False)


def uniform_(x: Tensor, min: float = 0.0, max: float = 1.0, seed: int = 0, name: str | None = None) -> Tensor:  # noqa: A002
    gen = rng.Generator.for_kernel(seed) if seed else None
    return x._inplace("UniformInplaceGradNode", lambda t: _random_fill(
        t, rng.uniform(t.numel(), min, max, t.dtype.np, gen), "UniformInplaceGradNode"))


def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> Tensor:
    return x._inplace("GaussianInplaceGradNode", lambda t: _random_fill(
        t, rng.normal(t.numel(), mean, std, t.dtype.np), "GaussianInplaceGradNode"))


def transpose_(x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
    return x._inplace("TransposeGradNode", lambda t: _permute_in_place(t, list(perm)))


def reshape_(x: Tensor, shape: Any, name: str | None = None) -> Tensor:
    """A 1-D Tensor as the shape: Paddle 3.3.1 reshapes, then fails converting it (measured)."""
    out = x._inplace("ReshapeGradNode", lambda t: reshape_in_place(t, shape_arg(shape)))
    if isinstance(shape, Tensor) and shape.ndim:
        raise_tensor_shape_bug("reshape_")
    return out


def raise_tensor_shape_bug(function: str) -> None:
    """What Paddle 3.3.1's reshape and reshape_ raise for a shape given as a 1-D Tensor."""
    try:
        raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
    except TypeError as cause:
        raise SystemError(f"<built-in function {function}> returned a result with an exception set") from cause


def unsqueeze_(x: Tensor, axis: int, name: str | None = None) -> Tensor:
    return x._inplace("UnsqueezeGradNode", lambda t: t.unsqueeze_(axis))


def squeeze_(x: Tensor, axis: int | None = None, name: str | None = None) -> Tensor:
    return x._inplace("SqueezeGradNode", lambda t: t.squeeze_() if axis is None else t.squeeze_(axis))


METHODS = {fn.__name__: fn for fn in (
    scale_, add_, subtract_, multiply_, divide_, pow_, clip_, zero_, fill_, uniform_, normal_, transpose_, reshape_,
    unsqueeze_, squeeze_)}
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

__all__ = ["divide_", "multiply_", "normal_", "pow_", "reshape_", "squeeze_", "subtract_", "transpose_",
           "unsqueeze_", "uniform_"]
