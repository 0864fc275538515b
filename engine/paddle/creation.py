"""Making tensors: to_tensor, from_numpy and the factories, on the current place.

`to_tensor` and `from_numpy` always copy (measured: changing the array afterwards does not change
the tensor) and name the tensor `generated_tensor_N`. Python floats become the default dtype
(float32), ints int64, bools bool; numpy arrays keep their dtype. Factories default to float32.
Random factories (rand, randn, uniform, normal, randint, randperm...) draw from the Paddle generator
of random.py, so after `paddle.seed(n)` they give Paddle's very values.
ones/zeros/full/arange set stop_gradient explicitly, as Paddle's Python wrappers do, so their
results have a GradNodeAccumulation; rand/randn and the *_like factories do not (measured).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import engine
from engine.paddle import dtypes, names
from engine.paddle import random as rng
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




# --------------------------------------------------------------------------- random factories
def _sizes(shape: Any, more: tuple[Any, ...]) -> list[int]:
    """Paddle takes a shape as a list, a tuple, a Tensor, or as separate ints (`rand(2, 3)`)."""
    return shape_arg([shape, *more] if more else shape)


def _random(values: np.ndarray, shape: list[int], dtype: dtypes.DataType, requires_grad: bool = False) -> Tensor:
    t = engine.tensor(values.reshape(shape), dtype=dtype.engine, device=engine_device())
    out = _finish(t)
    if requires_grad:
        out.stop_gradient = False
    return out


def _float_dtype(dtype: Any) -> dtypes.DataType:
    return dtypes.to_dtype(dtype) if dtype is not None else dtypes.default()


def uniform(shape: Any, dtype: Any = None, min: float = 0.0, max: float = 1.0, seed: int = 0,  # noqa: A002
            name: str | None = None) -> Tensor:
    """uniform_real_distribution over [min, max) ([0, 1) by default in 3.3.1); a nonzero `seed`
    seeds a private engine with it directly, as the kernel does."""
    chosen, dims = _float_dtype(dtype), shape_arg(shape)
    gen = rng.Generator.for_kernel(seed) if seed else None
    return _random(rng.uniform(math.prod(dims), min, max, chosen.np, gen), dims, chosen)


def rand(shape: Any, *more: Any, dtype: Any = None, name: str | None = None, requires_grad: bool = False) -> Tensor:
    if more and not isinstance(more[0], (int, np.integer)):  # rand(shape, dtype)
        dtype, more = more[0], ()
    chosen, dims = _float_dtype(dtype), _sizes(shape, more)
    return _random(rng.uniform(math.prod(dims), 0.0, 1.0, chosen.np), dims, chosen, requires_grad)


def gaussian(shape: Any, mean: float = 0.0, std: float = 1.0, seed: int = 0, dtype: Any = None,
             name: str | None = None) -> Tensor:
    chosen, dims = _float_dtype(dtype), shape_arg(shape)
    gen = rng.Generator.for_kernel(seed) if seed else None
    return _random(rng.normal(math.prod(dims), mean, std, chosen.np, gen), dims, chosen)


def randn(shape: Any, *more: Any, dtype: Any = None, name: str | None = None, requires_grad: bool = False) -> Tensor:
    if more and not isinstance(more[0], (int, np.integer)):  # randn(shape, dtype)
        dtype, more = more[0], ()
    chosen, dims = _float_dtype(dtype), _sizes(shape, more)
    return _random(rng.normal(math.prod(dims), 0.0, 1.0, chosen.np), dims, chosen, requires_grad)


def standard_normal(shape: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    return randn(shape, dtype=dtype)


def normal(mean: Any = 0.0, std: Any = 1.0, shape: Any = None, name: str | None = None) -> Tensor:
    """Scalars: one gaussian draw per element. A tensor mean or std: standard normals of its shape,
    then `* std + mean` as Paddle's Python does (so the result has its own graph nodes)."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        return gaussian(shape if shape is not None else [1], float(mean), float(std))
    like = mean if isinstance(mean, Tensor) else std
    out = standard_normal(like.shape, like.dtype)
    return out * (std if isinstance(std, Tensor) else float(std)) + (mean if isinstance(mean, Tensor) else float(mean))


def randint(low: int = 0, high: int | None = None, shape: Any = (1,), dtype: Any = None,
            name: str | None = None) -> Tensor:
    if high is None:
        if low <= 0:
            raise ValueError(f"If high is None, low must be greater than 0, but received low = {low}.")
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint's low must less then high, but received low = {low}, high = {high}")
    chosen, dims = dtypes.to_dtype(dtype) if dtype is not None else dtypes.int64, shape_arg(shape)
    return _random(rng.randint(math.prod(dims), int(low), int(high)).astype(chosen.np), dims, chosen)


def randint_like(x: Tensor, low: int = 0, high: int | None = None, dtype: Any = None,
                 name: str | None = None) -> Tensor:
    if high is None:
        low, high = 0, low
    out = randint(low, high, list(x.shape))
    target = dtypes.to_dtype(dtype) if dtype is not None else x.dtype
    return out if target is dtypes.int64 else Tensor._wrap(out._t.to(target.engine))


def rand_like(input: Tensor, name: str | None = None, *, dtype: Any = None) -> Tensor:  # noqa: A002
    return rand(list(input.shape), dtype=dtype if dtype is not None else input.dtype)


def randn_like(x: Tensor, dtype: Any = None, name: str | None = None) -> Tensor:
    return randn(list(x.shape), dtype=dtype if dtype is not None else x.dtype)


def randperm(n: int, dtype: Any = "int64", name: str | None = None) -> Tensor:
    chosen = dtypes.to_dtype(dtype)
    return _random(rng.randperm(int(n)).astype(chosen.np), [int(n)], chosen)


def bernoulli(x: Tensor, p: float | None = None, name: str | None = None) -> Tensor:
    """1 where a uniform draw falls below the probability (x's values, or p), else 0, in x's dtype."""
    probs = np.full(x._t._shape, p, dtype=x.dtype.np) if p is not None else x.numpy()
    draws = rng.uniform(probs.size, 0.0, 1.0, probs.dtype)
    return _random((draws < probs.reshape(-1)).astype(probs.dtype), list(x.shape), x.dtype)


def seed(value: int) -> rng.Generator:
    """paddle.seed: reseeds the process's CPU generator (see random.py) and returns it."""
    value = int(value)  # Paddle's Python converts first: seed(3.7) seeds 3
    if value < 0:
        raise TypeError(
            "manual_seed(): incompatible function arguments. The following argument types are supported:\n"
            "    1. (self: paddle.base.libpaddle.Generator, arg0: int) -> paddle.base.libpaddle.Generator\n\n"
            f"Invoked with: {rng.default_generator()!r}, {value!r}")
    return rng.default_generator().manual_seed(value)


def get_rng_state(device: Any = None) -> list[rng.GeneratorState]:
    return [rng.default_generator().get_state()]


def set_rng_state(state_list: list[rng.GeneratorState], device: Any = None) -> None:
    rng.default_generator().set_state(state_list[0])
