"""Paddle's out-of-place functions (`paddle.add`, `paddle.reshape`...), which are also its Tensor
methods (`x.add(y)`, `x.reshape(...)`): each runs the engine's op and gives its node Paddle's name.

Where Paddle differs from the engine's PyTorch semantics, it is adapted here:
- what a node keeps: multiply and matmul keep both operands, divide also its output (so a later
  in-place change of any of them breaks backward, as in Paddle);
- which results share memory: reshape/transpose/slicing/unsqueeze/squeeze/flatten/unbind are views
  recorded as ONE Paddle node each; split/chunk/expand copy (the engine's are views);
- reshape to the very shape given returns the tensor itself (Paddle's Python wrapper does).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import engine
from engine.autograd import grad_mode
from engine.ops.core import record, unbroadcast
from engine.paddle import autograd, dtypes, messages
from engine.paddle.tensor import (
    EngineTensor,
    Tensor,
    engine_operand,
    layout_op,
    replace_buffer,
    shape_arg,
    wrap,
)


def _reshape_back(shape: tuple[int, ...]) -> Callable[..., tuple[np.ndarray]]:
    return lambda grad, saved: (grad.reshape(shape),)


def _axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    values = [axis] if isinstance(axis, int) else list(axis)
    return tuple(a % ndim if ndim else 0 for a in values)


# ---------------------------------------------------------------------- arithmetic
def add(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    return wrap(engine.add(x._operand(), y._operand()), "AddGradNode")


def subtract(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    return wrap(engine.sub(x._operand(), y._operand()), "SubtractGradNode")


def multiply(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Paddle's MultiplyGradNode keeps both operands, whichever needs a gradient. Like the divide
    node's, its gradients take the operands' shapes when backward runs: a leaf's refused reshape_
    has already changed the shape its saved tensor shares (measured in 3.3.1)."""
    a, b = x._operand(), y._operand()
    out = engine.mul(a, b)
    if out._grad_fn is None:
        return wrap(out)
    out._grad_fn = None  # the engine's node, replaced by Paddle's

    def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return unbroadcast(grad * saved["y"], a._shape), unbroadcast(grad * saved["x"], b._shape)
    record("MultiplyGradNode", out, (a, b), backward, {"x": a, "y": b})
    return wrap(out, "MultiplyGradNode")


def divide(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Paddle's DivideGradNode keeps x, y and its output, and its y-gradient is -dout * out / y
    (so x / x has a zero gradient exactly, where -dout * x / y**2 would leave a rounding error)."""
    a, b = x._operand(), y._operand()
    out = engine.div(a, b)
    if out._grad_fn is None:
        return wrap(out)
    out._grad_fn = None  # the engine's node, replaced by Paddle's

    def backward(grad: np.ndarray, saved: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        y, result = saved["y"], saved["out"]
        return unbroadcast(grad / y, a._shape), unbroadcast(-grad * result / y, b._shape)
    record("DivideGradNode", out, (a, b), backward, {"x": a, "y": b}, {"out": out})
    return wrap(out, "DivideGradNode")


def matmul(x: Tensor, y: Tensor, transpose_x: bool = False, transpose_y: bool = False,
           name: str | None = None) -> Tensor:
    """Paddle's MatmulGradNode keeps both operands."""
    a, b = x._operand(), y._operand()
    out = engine.matmul(a.transpose(-1, -2) if transpose_x else a, b.transpose(-1, -2) if transpose_y else b)
    autograd.save_also(out._grad_fn, inputs={"x": a, "y": b})
    return wrap(out, "MatmulGradNode")


def pow(x: Tensor, y: Any, name: str | None = None) -> Tensor:  # noqa: A001 - Paddle's name
    return wrap(engine.pow(x._operand(), engine_operand(y)), "PowGradNode", None if isinstance(y, Tensor) else 1)


def scale(x: Tensor, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True,
          act: Any = None, name: str | None = None) -> Tensor:
    """x * scale + bias (or (x + bias) * scale) as one ScaleGradNode."""
    t = x._operand()
    if bias_after_scale:
        out = engine.mul(t, scale) if bias == 0 else engine.add(engine.mul(t, scale), bias)
    else:
        out = engine.mul(engine.add(t, bias), scale)
    out._grad_fn = None  # the engine composed two ops; Paddle records one
    record("ScaleGradNode", out, (t,), lambda g, s: (g * np.asarray(scale, dtype=g.dtype),))
    return wrap(out, "ScaleGradNode")


def clip(x: Tensor, min: float | None = None, max: float | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    return wrap(engine.clamp(x._operand(), min, max), "ClipGradNode")


# ---------------------------------------------------------------------- reductions
def sum(x: Tensor, axis: Any = None, dtype: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:  # noqa: A001
    if dtype is not None:
        raise NotImplementedError("sum(dtype=...) is not measured for the Paddle dialect yet")
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.sum(t) if axes is None else engine.sum(t, axes, keepdim=keepdim), "SumGradNode")


def mean(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.mean(t) if axes is None else engine.mean(t, axes, keepdim=keepdim), "MeanGradNode")


def max(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:  # noqa: A001
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.max(t) if axes is None else engine.amax(t, axes, keepdim=keepdim), "MaxGradNode")


def min(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:  # noqa: A001
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.min(t) if axes is None else engine.amin(t, axes, keepdim=keepdim), "MinGradNode")


def amax(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.amax(t, axes if axes is not None else (), keepdim=keepdim), "AmaxGradNode")


def amin(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.amin(t, axes if axes is not None else (), keepdim=keepdim), "AminGradNode")


def prod(x: Tensor, axis: Any = None, keepdim: bool = False, dtype: Any = None, name: str | None = None) -> Tensor:
    t = x._operand()
    if axis is None:
        return wrap(engine.prod(t), "ProdGradNode")
    return wrap(engine.prod(t, int(axis) if isinstance(axis, int) else axis[0], keepdim=keepdim), "ProdGradNode")


def _arg(np_fn: Callable[..., np.ndarray], x: Tensor, axis: Any, keepdim: bool, dtype: Any) -> Tensor:
    values = x._t._numpy_view()
    if axis is None:
        found = np.asarray(np_fn(values.reshape(-1)))
        found = found.reshape([1] * values.ndim) if keepdim else found
    else:
        found = np_fn(values, axis=axis, keepdims=keepdim)
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64
    return Tensor._wrap(engine.tensor(np.asarray(found).astype(chosen.np), dtype=chosen.engine,
                                      device=str(x._t.device)))


def argmax(x: Tensor, axis: Any = None, keepdim: bool = False, dtype: Any = "int64", name: str | None = None) -> Tensor:
    return _arg(np.argmax, x, axis, keepdim, dtype)


def argmin(x: Tensor, axis: Any = None, keepdim: bool = False, dtype: Any = "int64", name: str | None = None) -> Tensor:
    return _arg(np.argmin, x, axis, keepdim, dtype)


def var(x: Tensor, axis: Any = None, unbiased: bool = True, keepdim: bool = False, name: str | None = None) -> Tensor:
    """As Paddle's Python: sum((x - mean)**2) / (n - unbiased) (DivideGradNode over SumGradNode)."""
    from engine.paddle.creation import to_tensor

    axes = _axes(axis, x.ndim)
    n = math.prod(x.shape) if axes is None else math.prod(x.shape[a] for a in axes)
    u = mean(x, axis, keepdim=True)
    tmp = sum(pow(subtract(x, u), 2), axis, keepdim=keepdim)
    return divide(tmp, to_tensor(n - 1 if unbiased else n, dtype=x.dtype))


def std(x: Tensor, axis: Any = None, unbiased: bool = True, keepdim: bool = False, name: str | None = None) -> Tensor:
    return var(x, axis, unbiased, keepdim).sqrt()


def logsumexp(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:
    t = x._operand()
    axes = _axes(axis, t.ndim)
    return wrap(engine.logsumexp(t, axes if axes is not None else tuple(range(t.ndim)), keepdim=keepdim),
                "LogsumexpGradNode")


def all(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:  # noqa: A001
    values = x._t._numpy_view().astype(bool)
    found = values.all() if axis is None else values.all(axis=_axes(axis, values.ndim), keepdims=keepdim)
    return Tensor._wrap(engine.tensor(np.asarray(found), dtype=engine.bool))


def any(x: Tensor, axis: Any = None, keepdim: bool = False, name: str | None = None) -> Tensor:  # noqa: A001
    values = x._t._numpy_view().astype(bool)
    found = values.any() if axis is None else values.any(axis=_axes(axis, values.ndim), keepdims=keepdim)
    return Tensor._wrap(engine.tensor(np.asarray(found), dtype=engine.bool))


# ---------------------------------------------------------------------- copies and casts
def clone(x: Tensor, name: str | None = None) -> Tensor:
    return wrap(engine.clone(x._operand()), "AssignGradNode")


def assign(x: Any, output: Tensor | None = None) -> Tensor:
    """A copy (AssignGradNode); numpy arrays and lists are converted as to_tensor does. With
    `output`, the values are written into that tensor instead (see _assign_into)."""
    from engine.paddle.creation import to_tensor

    if output is None:
        return clone(x) if isinstance(x, Tensor) else to_tensor(x)
    if isinstance(x, Tensor):
        return _assign_into(x, output)
    values = to_tensor(x) if not isinstance(x, np.ndarray) else to_tensor(x)
    replace_buffer(output._t, values._t._numpy_view(), values._t.dtype)  # no version bump (measured)
    return output


def _assign_into(x: Tensor, output: Tensor) -> Tensor:
    """Paddle's assign_out_: output takes x's values, shape and dtype in place, its version goes up
    by one, and when x needs a gradient output becomes x's copy in the graph (AssignOutGradNode)."""
    out = output._t
    source = x._operand()
    if x._t is out:  # assign(x, x): nothing happens (no version bump, no node)
        return output
    if source._storage is out._storage:  # overlapping memory: Paddle reads x first
        from engine.paddle.tensor import snapshot

        source = snapshot(source)
    if tuple(source._shape) != tuple(out._shape) or source.dtype is not out.dtype:
        replace_buffer(out, source._numpy_view(), source.dtype)
        out._bump_version()
    else:
        with grad_mode.no_grad():
            out.copy_(source)
    if grad_mode.state.enabled and source.requires_grad:
        out._grad_fn = None
        record("AssignOutGradNode", out, (source,), lambda g, s: (g,))
        autograd.adopt(out._grad_fn, "AssignOutGradNode")
        out._requires_grad = True
    return output


def cast(x: Tensor, dtype: Any) -> Tensor:
    """x itself when it already has the dtype (measured), else a converted copy."""
    target = dtypes.to_dtype(dtype).engine
    if target is x._t.dtype:
        return x
    return wrap(x._operand().to(target), "CastGradNode")


def concat(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    return wrap(engine.cat([t._operand() for t in x], axis), "ConcatGradNode")


def stack(x: Sequence[Tensor], axis: int = 0, name: str | None = None) -> Tensor:
    return wrap(engine.stack([t._operand() for t in x], axis), "StackGradNode")


# ---------------------------------------------------------------------- shapes: views
def reshape(x: Tensor, shape: Any, name: str | None = None) -> Tensor:
    """A view (or a copy, when the layout cannot be viewed); x itself when `shape` is literally
    its shape, as Paddle's Python wrapper does."""
    if isinstance(shape, Tensor) and shape.ndim:
        from engine.paddle.inplace import raise_tensor_shape_bug

        raise_tensor_shape_bug("reshape")
    new = shape_arg(shape)
    if new == list(x._t._shape):
        return x
    _check_reshape(x._t._shape, new)
    if not x._t._shape:  # a 0-D tensor is reshaped into memory of its own (measured)
        return _copy_reshaped(x, new, "ReshapeGradNode")
    dims = [x._t._shape[i] if d == 0 else d for i, d in enumerate(new)]  # 0 keeps that dimension
    return layout_op(x, "ReshapeGradNode", lambda s: s.reshape(dims), _reshape_back(x._t._shape))


def _check_reshape(shape: tuple[int, ...], target: list[int]) -> None:
    """Paddle's reshape errors (0 in the target keeps that dimension)."""
    size = math.prod(shape)
    if builtins.any(d == 0 and i >= len(shape) for i, d in enumerate(target)) and size:
        raise ValueError(messages.RESHAPE_ZERO_INDEX.format(size=size))
    dims = [shape[i] if d == 0 else d for i, d in enumerate(target)]
    capacity = math.prod(d for d in dims if d != -1)
    if -1 not in dims and capacity != size:
        raise ValueError(messages.RESHAPE_SIZE.format(shape=list(shape), size=size, target=target, capacity=capacity))
    if -1 in dims and (capacity == 0 or size % capacity):
        product = (size // capacity if capacity else 0) * capacity
        raise ValueError(messages.RESHAPE_UNKNOWN.format(shape=list(shape), size=size, target=target,
                                                         capacity=capacity, product=product))


def view(x: Tensor, shape_or_dtype: Any, name: str | None = None) -> Tensor:
    new = shape_arg(shape_or_dtype)
    return layout_op(x, "ViewShapeGradNode", lambda s: s.view(new), _reshape_back(x._t._shape))


def _copy_reshaped(x: Tensor, shape: list[int], node: str) -> Tensor:
    """A 0-D tensor reshaped: its own memory, yet the same version counter (measured: a write
    through the result does not show in x, but bumps x's inplace_version)."""
    source = x._operand()
    dims = [1 if d in (0, -1) else d for d in shape]
    out = layout_op(x, node, lambda s: s.reshape(dims), _reshape_back(source._shape), copy=True)
    out._t._vc = source._counter()
    return out


def flatten(x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> Tensor:
    if not x._t._shape:
        return _copy_reshaped(x, [1], "FlattenGradNode")
    return layout_op(x, "FlattenGradNode", lambda s: s.flatten(start_axis, stop_axis), _reshape_back(x._t._shape))


def transpose(x: Tensor, perm: Sequence[int], name: str | None = None) -> Tensor:
    perm = [int(p) for p in perm]
    inverse = list(np.argsort(perm))
    return layout_op(x, "TransposeGradNode", lambda s: s.permute(*perm), lambda grad, saved: (grad.transpose(inverse),))


def t(input: Tensor, name: str | None = None) -> Tensor:  # noqa: A002
    return transpose(input, list(range(input.ndim))[::-1])


def unsqueeze(x: Tensor, axis: Any, name: str | None = None) -> Tensor:
    axes = [axis] if isinstance(axis, int) else list(axis)

    def compute(s: EngineTensor) -> EngineTensor:
        for a in axes:
            s = s.unsqueeze(a)
        return s
    return layout_op(x, "UnsqueezeGradNode", compute, _reshape_back(x._t._shape))


def squeeze(x: Tensor, axis: Any = None, name: str | None = None) -> Tensor:
    shape = x._t._shape
    if axis is None:
        keep = [n for n in shape if n != 1]
    else:
        drop = {a % len(shape) for a in ([axis] if isinstance(axis, int) else axis)}
        keep = [n for i, n in enumerate(shape) if not (i in drop and n == 1)]
    return layout_op(x, "SqueezeGradNode", lambda s: s.reshape(keep), _reshape_back(shape))


def unbind(input: Tensor, axis: int = 0) -> list[Tensor]:  # noqa: A002
    """Views sharing memory (UnbindGradNode), unlike split."""
    if not input.ndim or not -input.ndim <= axis < input.ndim:
        raise ValueError(f"The axis must in range({-input.ndim}, {input.ndim}).")
    dim = axis % input.ndim

    def backward(grads: Any, saved: dict) -> tuple[np.ndarray]:
        parts = grads if isinstance(grads, (list, tuple)) else [grads]  # one part comes alone
        return (np.stack(parts, axis=dim),)
    return layout_op(input, "UnbindGradNode", lambda s: list(s.unbind(dim)), backward)


# ---------------------------------------------------------------------- shapes: copies
def _expand(x: Tensor, shape: list[int], node: str) -> Tensor:
    source_shape = x._t._shape
    return layout_op(x, node, lambda s: s.expand(*shape), lambda grad, saved: (unbroadcast(grad, source_shape),),
                     copy=True)


def expand(x: Tensor, shape: Any, name: str | None = None) -> Tensor:
    """A copy (the engine's expand, as PyTorch's, is a view)."""
    return _expand(x, shape_arg(shape), "ExpandGradNode")


def broadcast_to(x: Tensor, shape: Any, name: str | None = None) -> Tensor:
    return _expand(x, shape_arg(shape), "ExpandGradNode")


def expand_as(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    return _expand(x, list(y.shape), "ExpandAsGradNode")


def split(x: Tensor, num_or_sections: Any, axis: int = 0, name: str | None = None) -> list[Tensor]:
    """Copies, one node for all parts: SplitWithNumGradNode (a count) or SplitGradNode (sizes)."""
    shape = x._t._shape
    dim = axis % len(shape)
    if isinstance(num_or_sections, int):
        rest = shape[dim] % num_or_sections
        if rest:
            raise ValueError(messages.SPLIT_NOT_DIVISIBLE.format(
                num=num_or_sections, shape=list(shape), dim=axis, rest=rest))
        sizes, node = [shape[dim] // num_or_sections] * num_or_sections, "SplitWithNumGradNode"
    else:
        sizes, node = [int(s) for s in num_or_sections], "SplitGradNode"
        if -1 in sizes:
            sizes[sizes.index(-1)] = shape[dim] - (builtins.sum(sizes) + 1)

    def backward(grads: list[np.ndarray], saved: dict) -> tuple[np.ndarray]:
        return (np.concatenate(grads, axis=dim),)
    return layout_op(x, node, lambda s: list(s.split(sizes, dim)), backward, copy=True)


def chunk(x: Tensor, chunks: int, axis: int = 0, name: str | None = None) -> list[Tensor]:
    return split(x, chunks, axis)


# ---------------------------------------------------------------------- as Tensor methods
METHODS = {
    "add": add, "subtract": subtract, "multiply": multiply, "divide": divide, "matmul": matmul, "pow": pow,
    "scale": scale, "clip": clip, "sum": sum, "mean": mean, "max": max, "min": min, "amax": amax, "amin": amin,
    "prod": prod, "argmax": argmax, "argmin": argmin, "var": var, "std": std, "logsumexp": logsumexp,
    "all": all, "any": any, "clone": clone,
    "astype": cast, "cast": cast, "reshape": reshape, "view": view, "flatten": flatten, "transpose": transpose,
    "t": t, "unsqueeze": unsqueeze, "squeeze": squeeze, "unbind": unbind, "expand": expand,
    "expand_as": expand_as, "split": split, "chunk": chunk,
}
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.T = property(t)

__all__ = [*(n for n in METHODS if n in globals()), "assign", "broadcast_to", "concat", "stack"]
