"""paddle.nn.initializer: what fills a parameter, with Paddle's semantics and random values.

Calling an initializer on a tensor (`Normal()(w)`) makes a fresh tensor of values and hands it to
w (Paddle's `_share_underline_tensor_to`): w gets new memory, views taken of it before no longer
see it, and its inplace_version starts again from 0 (measured). Constant instead refills w
(`full_`), which also gives it new memory but keeps its version. The call returns None. Random values come
from the Paddle generator (random.py), so `paddle.seed(n)` then a layer gives Paddle's weights.
Fans follow Paddle: a [in, out] matrix has fan_in = in; a conv kernel [out, in, k...] has
fan_in = in * k..., fan_out = out * k....
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.paddle import random as rng
from engine.paddle.tensor import Tensor, quietly, replace_buffer
from engine.tensor import VersionCounter


def compute_fans(shape: list[int]) -> tuple[int, int]:
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    slope = 0.01 if param is None else float(param)
    gains = {"sigmoid": 1, "linear": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1, "conv1d_transpose": 1,
             "conv2d_transpose": 1, "conv3d_transpose": 1, "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + slope**2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise ValueError(f"nonlinearity function {nonlinearity} is not supported now.")
    return gains[nonlinearity]


class Initializer:
    """Base class: `init(param)` refills param (see the module docstring)."""

    def __call__(self, param: Tensor, block: Any = None) -> None:
        t = param._t
        values = self.values(list(param.shape), t.dtype.np)
        replace_buffer(t, np.asarray(values, dtype=t.dtype.np).reshape(t._shape), t.dtype)
        t._vc = VersionCounter()
        return None

    forward = __call__

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        raise NotImplementedError


class Constant(Initializer):
    """Refills the tensor where it is (`full_`): views taken before see the new values, and the
    version stays."""

    def __init__(self, value: float = 0.0, force_cpu: bool = False) -> None:
        self._value = value

    def __call__(self, param: Tensor, block: Any = None) -> None:
        t = param._t
        quietly(t, lambda: np.copyto(t._numpy_view(), t.dtype.np.type(self._value)))
        return None

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        return np.full(shape, self._value, dtype=np_dtype)


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None) -> None:
        self._low, self._high = low, high

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        return rng.uniform(math.prod(shape), self._low, self._high, np_dtype)


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
        self._mean, self._std = mean, std

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        return rng.normal(math.prod(shape), self._mean, self._std, np_dtype)


class XavierUniform(Initializer):
    def __init__(self, fan_in: float | None = None, fan_out: float | None = None, gain: float = 1.0,
                 name: str | None = None) -> None:
        self._fan_in, self._fan_out, self._gain = fan_in, fan_out, gain

    def _fans(self, shape: list[int]) -> tuple[float, float]:
        fan_in, fan_out = compute_fans(shape)
        return (self._fan_in if self._fan_in is not None else fan_in,
                self._fan_out if self._fan_out is not None else fan_out)

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        fan_in, fan_out = self._fans(shape)
        limit = self._gain * math.sqrt(6.0 / float(fan_in + fan_out))
        return rng.uniform(math.prod(shape), -limit, limit, np_dtype)


class XavierNormal(XavierUniform):
    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        fan_in, fan_out = self._fans(shape)
        std = self._gain * math.sqrt(2.0 / float(fan_in + fan_out))
        return rng.normal(math.prod(shape), 0.0, std, np_dtype)


class KaimingUniform(Initializer):
    def __init__(self, fan_in: float | None = None, negative_slope: float = 0.0, nonlinearity: str = "relu",
                 mode: str = "fan_in") -> None:
        if mode not in ("fan_in", "fan_out"):
            raise ValueError("The mode of KaimingNormal/KaimingUniform should be 'fan_in' or 'fan_out', "
                             f"but received {mode}.")
        self._fan_in, self._slope, self._nonlinearity, self._mode = fan_in, negative_slope, nonlinearity, mode

    def _fan(self, shape: list[int]) -> float:
        fan_in, fan_out = compute_fans(shape)
        if self._mode == "fan_out":
            return fan_out
        return fan_in if self._fan_in is None else self._fan_in

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        limit = calculate_gain(self._nonlinearity, self._slope) * math.sqrt(3.0 / float(self._fan(shape)))
        return rng.uniform(math.prod(shape), -limit, limit, np_dtype)


class KaimingNormal(KaimingUniform):
    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        std = calculate_gain(self._nonlinearity, self._slope) / math.sqrt(float(self._fan(shape)))
        return rng.normal(math.prod(shape), 0.0, std, np_dtype)


class Assign(Initializer):
    """Fill with given values (a list, numpy array or Tensor of the parameter's size)."""

    def __init__(self, value: Any, name: str | None = None) -> None:
        self._value = value.numpy() if isinstance(value, Tensor) else np.asarray(value)

    def values(self, shape: list[int], np_dtype: np.dtype) -> np.ndarray:
        return self._value.astype(np_dtype).reshape(shape)


__all__ = ["Assign", "Constant", "Initializer", "KaimingNormal", "KaimingUniform", "Normal", "Uniform",
           "XavierNormal", "XavierUniform", "calculate_gain"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn.initializer", name)
