"""Paddle's indexing, selection and rearranging ops, with Paddle's node names and sharing.

Views (share memory, measured): diagonal, as_strided, view_as, unfold, narrow, moveaxis. Copies:
index_select, gather, take_along_axis, masked_select, flip, roll, tile, triu/tril, cumsum/cumprod.
In-place forms are those Paddle has (triu_, tril_, cumsum_, masked_fill_, index_fill_, flatten_,
t_, cast_...); where Paddle's Python builds one from several in-place ops (hypot_, nan_to_num_,
where_ with broadcasting), it is built here the same way, so it bumps the version as many times.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import engine
from engine.ops.core import apply_inplace, record
from engine.paddle import dtypes, messages
from engine.paddle.elementwise import result_tensor
from engine.paddle.tensor import (
    EngineTensor,
    Tensor,
    as_strided_backward,
    layout_op,
    shape_arg,
    wrap,
)


def _view(x: Tensor, node: str, make: Any) -> Tensor:
    """A view of x recorded as one Paddle node (gradient scattered back through the layout)."""
    source = x._t
    from engine.autograd import grad_mode

    with grad_mode.no_grad():
        view = make(source)
    backward = as_strided_backward(source._layout_key(), view._layout_key())
    return layout_op(x, node, lambda s: view, backward)


def diagonal(x: Tensor, offset: int = 0, axis1: int = 0, axis2: int = 1, name: str | None = None) -> Tensor:
    if x.ndim < 2:
        raise IndexError(messages.DIAGONAL_RANK.format(rank=x.ndim))
    return _view(x, "DiagonalGradNode", lambda s: s.diagonal(offset, axis1, axis2))


def as_strided(x: Tensor, shape: Sequence[int], stride: Sequence[int], offset: int = 0,
               name: str | None = None) -> Tensor:
    """`offset` counts elements here (the tensor's `offset` attribute counts bytes)."""
    return _view(x, "AsStridedGradNode", lambda s: s.as_strided(list(shape), list(stride), s._offset + offset))


def view_as(x: Tensor, other: Tensor, name: str | None = None) -> Tensor:
    return _view(x, "ViewShapeGradNode", lambda s: s.view(*other._t._shape))


def unfold(x: Tensor, axis: int, size: int, step: int, name: str | None = None) -> Tensor:
    return _view(x, "TensorUnfoldGradNode", lambda s: s.unfold(axis, size, step))


def narrow(x: Tensor, dim: int, start: int, length: int, name: str | None = None) -> Tensor:
    return _view(x, "AsStridedGradNode", lambda s: s.narrow(dim, start, length))


def moveaxis(x: Tensor, source: Any, destination: Any, name: str | None = None) -> Tensor:
    return _view(x, "TransposeGradNode", lambda s: s.movedim(source, destination))


# ---------------------------------------------------------------------- selections (copies)
def _index(index: Any) -> EngineTensor:
    if isinstance(index, Tensor):
        return index._t
    return engine.tensor(np.asarray(index, dtype=np.int64))


def index_select(x: Tensor, index: Tensor, axis: int = 0, name: str | None = None) -> Tensor:
    return wrap(engine.index_select(x._operand(), axis, _index(index).reshape(-1)), "IndexSelectGradNode")


def gather(x: Tensor, index: Tensor, axis: int = 0, name: str | None = None) -> Tensor:
    """Rows (or slices along `axis`) picked by a 1-D index: Paddle's gather, not PyTorch's."""
    axis = int(axis.item()) if isinstance(axis, Tensor) else int(axis)
    return wrap(engine.index_select(x._operand(), axis, _index(index).reshape(-1)), "GatherGradNode")


def take_along_axis(arr: Tensor, indices: Tensor, axis: int, broadcast: bool = True) -> Tensor:
    return wrap(engine.gather(arr._operand(), axis, _index(indices)), "TakeAlongAxisGradNode")


def masked_select(x: Tensor, mask: Tensor, name: str | None = None) -> Tensor:
    return wrap(engine.masked_select(x._operand(), mask._t), "MaskedSelectGradNode")


def flip(x: Tensor, axis: Any, name: str | None = None) -> Tensor:
    axes = [axis] if isinstance(axis, int) else list(axis)
    return wrap(engine.flip(x._operand(), axes), "FlipGradNode")


def roll(x: Tensor, shifts: Any, axis: Any = None, name: str | None = None) -> Tensor:
    return wrap(engine.roll(x._operand(), shifts, axis), "RollGradNode")


def tile(x: Tensor, repeat_times: Any, name: str | None = None) -> Tensor:
    times = shape_arg(repeat_times)
    t = x._operand()
    while len(times) < t.ndim:
        times.insert(0, 1)
    return wrap(t.repeat(*times), "TileGradNode")


def triu(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    return wrap(engine.triu(x._operand(), diagonal), "TriuGradNode")


def tril(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    return wrap(engine.tril(x._operand(), diagonal), "TrilGradNode")


def _triangle_(x: Tensor, diagonal: int, upper: bool, node: str) -> Tensor:
    def run(t: EngineTensor) -> None:
        rows, cols = t._shape[-2:]
        keep = np.triu(np.ones((rows, cols), bool), diagonal) if upper else np.tril(np.ones((rows, cols), bool), diagonal)

        def write(target: np.ndarray) -> None:
            target[...] = np.where(keep, target, 0)
        apply_inplace(t, write, node, (), lambda g, s: (np.where(keep, g, 0).astype(g.dtype),), check_autograd=False)
    return x._inplace(node, run)


def triu_(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    return _triangle_(x, diagonal, True, "TriuGradNode")


def tril_(x: Tensor, diagonal: int = 0, name: str | None = None) -> Tensor:
    return _triangle_(x, diagonal, False, "TrilGradNode")


def cumsum(x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None) -> Tensor:
    t = x._operand()
    if dtype is not None and dtypes.to_dtype(dtype).engine is not t.dtype:
        t = t.to(dtypes.to_dtype(dtype).engine)
    if axis is None:
        t = t.reshape(-1)
        axis = 0
    if not t.dtype.is_floating_point:
        return wrap(engine.cumsum(t, axis), "CumsumGradNode")
    # Paddle's kernel keeps its running total in the tensor's own dtype (float32 in float32, not torch's
    # double), its gradient too
    values = np.cumsum(t._numpy_view(), axis, dtype=t.dtype.np) if t.ndim else np.array(t._numpy_view())
    out = result_tensor(t, values)
    d = axis

    def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
        return (np.flip(np.cumsum(np.flip(g, d), d, dtype=g.dtype), d) if g.ndim else g,)
    record("CumsumGradNode", out, (t,), backward)
    return wrap(out, "CumsumGradNode")


def cumsum_(x: Tensor, axis: int | None = None, dtype: Any = None, name: str | None = None) -> Tensor:
    if dtype is not None and dtypes.to_dtype(dtype) is not x.dtype:
        x = cast_(x, dtype)
    flatten = axis is None

    def run(t: EngineTensor) -> None:
        """Without an axis the kernel flattens x itself first (x becomes 1-D, still one bump)."""
        shape = t._shape
        if flatten:
            t._set_layout((t.numel(),), (1,), t._offset)
        dim = -1 if flatten else axis

        def write(target: np.ndarray) -> None:
            target[...] = np.cumsum(target, dim, dtype=target.dtype)

        def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
            summed = np.flip(np.cumsum(np.flip(g, dim), dim), dim)
            return (summed.reshape(shape),)
        apply_inplace(t, write, "CumsumGradNode", (), backward, check_autograd=False)
    return x._inplace("CumsumGradNode", run)


def cumprod_(x: Tensor, dim: int | None = None, dtype: Any = None, name: str | None = None) -> Tensor:
    if dtype is not None and dtypes.to_dtype(dtype) is not x.dtype:
        x = cast_(x, dtype)

    def run(t: EngineTensor) -> None:
        d = -1 if dim is None else dim

        def write(target: np.ndarray) -> None:
            target[...] = np.cumprod(target, d, dtype=target.dtype)

        def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
            xv, ov = s["x"], s["out"]
            with np.errstate(all="ignore"):
                return (np.flip(np.cumsum(np.flip(g * ov, d), d), d) / xv,)
        apply_inplace(t, write, "CumprodGradNode", (), backward, check_autograd=False, save_self_copy="x",
                      save_result="out")
    return x._inplace("CumprodGradNode", run)


def cumprod(x: Tensor, dim: int | None = None, dtype: Any = None, name: str | None = None) -> Tensor:
    t = x._operand()
    if dtype is not None and dtypes.to_dtype(dtype).engine is not t.dtype:
        t = t.to(dtypes.to_dtype(dtype).engine)
    if dim is None:
        t, dim = t.reshape(-1), 0
    values = np.cumprod(t._numpy_view(), dim, dtype=t.dtype.np)
    out = result_tensor(t, values)
    d = dim

    def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
        xv, ov = s["x"], s["out"]
        with np.errstate(all="ignore"):
            return (np.flip(np.cumsum(np.flip(g * ov, d), d), d) / xv,)
    record("CumprodGradNode", out, (t,), backward, {"x": t}, {"out": out})
    return wrap(out, "CumprodGradNode")


# ---------------------------------------------------------------------- masked and indexed writes
def _fill_value(x: Tensor, value: Any) -> Any:
    return value._t._numpy_view() if isinstance(value, Tensor) else value


def _fill_operand(x: Tensor, value: Any) -> EngineTensor:
    """The value as Paddle passes it on: a 0-D tensor of x's dtype (an input of the node, without
    a gradient unless value is a tensor that needs one)."""
    if isinstance(value, Tensor):
        return value._operand()
    from engine.paddle.creation import full

    return full([], value, dtype=x.dtype)._t


def _masked_fill_backward(mask: np.ndarray, shape: tuple[int, ...], value_shape: tuple[int, ...]) -> Any:
    def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray, np.ndarray]:
        return (_sum_to(np.where(mask, 0, g).astype(g.dtype), shape),
                _sum_to(np.where(mask, g, 0).astype(g.dtype), value_shape))
    return backward


def masked_fill(x: Tensor, mask: Tensor, value: Any, name: str | None = None) -> Tensor:
    """MaskedFillGradNode, with the value as its second input."""
    t = x._operand()
    fill = _fill_operand(x, value)
    m = mask._t._numpy_view().astype(bool)
    out = result_tensor(t, np.where(m, fill._numpy_view().astype(t.dtype.np), t._numpy_view()))
    record("MaskedFillGradNode", out, (t, fill), _masked_fill_backward(m, t._shape, fill._shape))
    return wrap(out, "MaskedFillGradNode")


def _sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    from engine.ops.core import unbroadcast

    return unbroadcast(grad, shape)


def masked_fill_(x: Tensor, mask: Tensor, value: Any, name: str | None = None) -> Tensor:
    """One masked write, one version bump (3.3.1; the upstream test expects two)."""
    m = mask._t._numpy_view().astype(bool)
    fill = _fill_operand(x, value)

    def run(t: EngineTensor, v: EngineTensor) -> None:
        def write(target: np.ndarray) -> None:
            target[...] = np.where(m, v._numpy_view().astype(t.dtype.np), target)
        apply_inplace(t, write, "MaskedFillGradNode", (v,), _masked_fill_backward(m, t._shape, v._shape),
                      check_autograd=False)
    return x._inplace("MaskedFillGradNode", run, Tensor._wrap(fill))


def index_fill(x: Tensor, index: Tensor, axis: int, value: float, name: str | None = None) -> Tensor:
    t = x._operand()
    values = t._numpy_view().copy()
    picks = _index(index)._numpy_view().reshape(-1)
    np.moveaxis(values, axis, 0)[picks] = value
    out = result_tensor(t, values)
    record("IndexFillGradNode", out, (t,), lambda g, s: (_zero_picks(g, axis, picks),))
    return wrap(out, "IndexFillGradNode")


def index_put_(x: Tensor, indices: Any, value: Any, accumulate: bool = False, name: str | None = None) -> Tensor:
    """x[indices] = value in place (IndexPutGradNode), one version bump."""
    picks = tuple(_index(i)._numpy_view() for i in indices)
    fill = value._t._numpy_view() if isinstance(value, Tensor) else value

    def run(t: EngineTensor) -> None:
        def write(target: np.ndarray) -> None:
            if accumulate:
                np.add.at(target, picks, fill)
            else:
                target[picks] = fill

        def backward(g: np.ndarray, s: dict) -> tuple[np.ndarray]:
            out = g.copy()
            if not accumulate:
                out[picks] = 0
            return (out,)
        apply_inplace(t, write, "IndexPutGradNode", (), backward, check_autograd=False)
    return x._inplace("IndexPutGradNode", run)


def index_fill_(x: Tensor, index: Tensor, axis: int, value: Any, name: str | None = None) -> Tensor:
    """transpose_, index_put_, transpose_: three version bumps, as Paddle's Python composes it."""
    from engine.paddle.creation import to_tensor

    if not isinstance(index, Tensor):
        raise ValueError("index must be Tensor")
    fill = value if isinstance(value, Tensor) else to_tensor(value, dtype=x.dtype)
    axis = axis % x.ndim
    perm = list(range(x.ndim))
    perm[0], perm[axis] = axis, 0
    if index.size == 0:
        return x
    x.transpose_(perm)
    index_put_(x, (index,), fill)
    x.transpose_(perm)
    return x


def _zero_picks(grad: np.ndarray, axis: int, picks: np.ndarray) -> np.ndarray:
    out = grad.copy()
    np.moveaxis(out, axis, 0)[picks] = 0
    return out


# ---------------------------------------------------------------------- in-place layout and dtype
def flatten_(x: Tensor, start_axis: int = 0, stop_axis: int = -1, name: str | None = None) -> Tensor:
    """An in-place reshape recorded as FlattenGradNode (one version bump, even when the shape stays)."""
    from engine.paddle.inplace import reshape_in_place

    shape = list(x.shape)
    for which, axis in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise ValueError(f"The {which} should be a int, and in range [-rank(x), rank(x))")
    start, stop = start_axis % len(shape), stop_axis % len(shape)
    shape = shape[:start] + [int(np.prod(shape[start:stop + 1]))] + shape[stop + 1:]
    return x._inplace("FlattenGradNode", lambda t: reshape_in_place(t, shape))


def t_(input: Tensor, name: str | None = None) -> Tensor:  # noqa: A002
    if input.ndim > 2:
        raise ValueError("Input(input) only support N-D (N<=2) tensor, but received length of Input(input) is "
                         f"{input.ndim}. Perhaps you can use paddle.tensor.transpose() instead.")
    if input.ndim <= 1:
        return input
    return input.transpose_([1, 0])


def cast_(x: Tensor, dtype: Any) -> Tensor:
    """x takes the new dtype in place (a fresh buffer of that dtype), one version bump."""
    target = dtypes.to_dtype(dtype)

    def run(t: EngineTensor) -> None:
        values = t._numpy_view().astype(target.np)
        with engine.devices.on(t.device):
            fresh = EngineTensor._empty(t._shape, target.engine)
        np.copyto(fresh._numpy_view(), values)
        source_dtype = t.dtype.np
        t._storage, t.dtype = fresh._storage, target.engine
        t._set_layout(fresh._shape, fresh._stride, 0)
        apply_inplace(t, lambda target_: None, "CastGradNode", (),
                      lambda g, s: (g.astype(source_dtype),), check_autograd=False)
    return x._inplace("CastGradNode", run)


def hypot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """sqrt(x**2 + y**2), composed as Paddle's Python composes it."""
    return (x.pow(2) + y.pow(2)).sqrt()


def hypot_(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    if not isinstance(y, Tensor):
        raise TypeError(f"y must be tensor type, but got {type(y)}")
    return x.pow_(2).add_(y.pow(2)).sqrt_()


METHODS = {
    "diagonal": diagonal, "as_strided": as_strided, "view_as": view_as, "unfold": unfold, "narrow": narrow,
    "moveaxis": moveaxis, "index_select": index_select, "gather": gather, "take_along_axis": take_along_axis,
    "masked_select": masked_select, "flip": flip, "roll": roll, "tile": tile, "triu": triu, "tril": tril,
    "triu_": triu_, "tril_": tril_, "cumsum": cumsum, "cumsum_": cumsum_, "cumprod": cumprod,
    "masked_fill": masked_fill, "masked_fill_": masked_fill_, "index_fill": index_fill, "index_fill_": index_fill_,
    "index_put_": index_put_, "cumprod_": cumprod_, "flatten_": flatten_,
    "t_": t_, "cast_": cast_, "hypot": hypot, "hypot_": hypot_,
}
for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)

__all__ = sorted(METHODS)
