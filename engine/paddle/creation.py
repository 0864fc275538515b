"""Making tensors: to_tensor, from_numpy and the factories, on the current place.

`to_tensor` and `from_numpy` always copy (measured: changing the array afterwards does not change
the tensor) and name the tensor `generated_tensor_N`. Python floats become the default dtype
(float32), ints int64, bools bool; numpy arrays keep their dtype. Factories default to float32.
Random values come from the engine's generator, so they differ from Paddle's for the same seed.
ones/zeros/full/arange set stop_gradient explicitly, as Paddle's Python wrappers do, so their
results have a GradNodeAccumulation; rand/randn and the *_like factories do not (measured).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import engine
from engine.paddle import dtypes, names
from engine.paddle.device import engine_device
from engine.paddle.tensor import HAS_NODE, NAME, Tensor, shape_arg


def _finish(t: engine.Tensor, stop_gradient: bool | None = None, name: str | None = None) -> Tensor:
    """A factory's result; to_tensor sets stop_gradient explicitly, which (as the setter does)
    gives the leaf its GradNodeAccumulation even when it stops gradient (measured)."""
    if stop_gradient is not None:
        t._requires_grad = not stop_gradient
        t.__dict__[HAS_NODE] = True
    if name is not None:
        t.__dict__[NAME] = name
    return Tensor._wrap(t)


def _infer_dtype(data: Any) -> dtypes.DataType:
    if isinstance(data, (np.ndarray, np.generic)):
        return dtypes.of_numpy(data.dtype)
    values = np.asarray(data)
    if values.dtype.kind == "b":
        return dtypes.bool_
    if values.dtype.kind in "iu":
        return dtypes.int64
    return dtypes.default()


def to_tensor(data: Any, dtype: Any = None, place: Any = None, stop_gradient: bool = True) -> Tensor:
    """A new tensor holding a copy of data (a list, scalar, numpy array or Tensor)."""
    if isinstance(data, Tensor):
        target = dtypes.to_dtype(dtype) if dtype is not None else data.dtype
        values = data._t._numpy_view()
        name = data._t.__dict__.get(NAME) or names.generated()
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in data):
            data = [v.numpy() if isinstance(v, Tensor) else v for v in data]
        target = dtypes.to_dtype(dtype) if dtype is not None else _infer_dtype(data)
        values = np.asarray(data)
        name = names.generated()
    copy = np.array(values, dtype=target.np, copy=True)
    t = engine.tensor(copy, dtype=target.engine, device=engine_device(place))
    return _finish(t, stop_gradient, name)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A copy of the array (Paddle's from_numpy does not share memory, unlike PyTorch's)."""
    return to_tensor(np.asarray(ndarray))


def _factory(make: Any, shape: Any, dtype: Any, stop_gradient: bool | None = None) -> Tensor:
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.default()
    return _finish(make(shape_arg(shape), chosen.engine, engine_device()), stop_gradient)


def rand(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _factory(lambda s, d, dev: engine.rand(*s, dtype=d, device=dev), shape, dtype)


def randn(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _factory(lambda s, d, dev: engine.randn(*s, dtype=d, device=dev), shape, dtype)


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _factory(lambda s, d, dev: engine.ones(*s, dtype=d, device=dev), shape, dtype, stop_gradient=True)


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return _factory(lambda s, d, dev: engine.zeros(*s, dtype=d, device=dev), shape, dtype, stop_gradient=True)


def full(shape: Any, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """float32 unless told otherwise, even for an integer fill value (measured)."""
    return _factory(lambda s, d, dev: engine.full(s, fill_value, dtype=d, device=dev), shape, dtype,
                    stop_gradient=True)


def arange(start: Any = 0, end: Any = None, step: Any = 1, dtype: Any = None, name: str | None = None) -> Tensor:
    if end is None:
        start, end = 0, start
    if dtype is not None:
        chosen = dtypes.to_dtype(dtype)
    elif all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        chosen = dtypes.int64
    else:
        chosen = dtypes.default()
    return _finish(engine.arange(start, end, step, dtype=chosen.engine, device=engine_device()), True)


def ones_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return full_like(x, 1, dtype)


def zeros_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return full_like(x, 0, dtype)


def full_like(x: Tensor, fill_value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    chosen = dtypes.to_dtype(dtype) if dtype is not None else x.dtype
    return _finish(engine.full(tuple(x._t._shape), fill_value, dtype=chosen.engine, device=str(x._t.device)))


class Generator:
    """What paddle.seed returns (paddle.base.libpaddle.Generator)."""

    def __init__(self, seed: int) -> None:
        self._seed = seed

    def initial_seed(self) -> int:
        return self._seed

    def __repr__(self) -> str:
        return f"<paddle.base.libpaddle.Generator object at {hex(id(self))}>"


def seed(value: int) -> Generator:
    """Seeds the engine's generator (the numbers it then draws are not Paddle's)."""
    engine.manual_seed(value)
    return Generator(value)
