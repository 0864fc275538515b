"""paddle.nn.initializer: fill a parameter in place, without autograd and without a version bump
(measured: `w.inplace_version` stays 0). Random fills use the engine's generator."""

from __future__ import annotations

import math
from typing import Any

from engine.paddle.tensor import Tensor, quietly


def _fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Paddle's fans: for a [in, out] Linear weight, fan_in = shape[0], fan_out = shape[1]."""
    if len(shape) < 2:
        return shape[0] if shape else 1, shape[0] if shape else 1
    receptive = math.prod(shape[2:])
    return shape[0] * receptive, shape[1] * receptive


class Initializer:
    def __call__(self, param: Tensor, block: Any = None) -> None:
        t = param._t
        quietly(t, lambda: self.fill(t))

    def fill(self, t: Any) -> None:
        raise NotImplementedError


class Constant(Initializer):
    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def fill(self, t: Any) -> None:
        t.fill_(self.value)


class Uniform(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None) -> None:
        self.low, self.high = low, high

    def fill(self, t: Any) -> None:
        t.uniform_(self.low, self.high)


class Normal(Initializer):
    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None) -> None:
        self.mean, self.std = mean, std

    def fill(self, t: Any) -> None:
        t.normal_(self.mean, self.std)


class XavierUniform(Initializer):
    def __init__(self, fan_in: float | None = None, fan_out: float | None = None, gain: float = 1.0,
                 name: str | None = None) -> None:
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def fill(self, t: Any) -> None:
        fan_in, fan_out = _fans(t._shape)
        limit = self.gain * math.sqrt(6.0 / ((self.fan_in or fan_in) + (self.fan_out or fan_out)))
        t.uniform_(-limit, limit)


class XavierNormal(XavierUniform):
    def fill(self, t: Any) -> None:
        fan_in, fan_out = _fans(t._shape)
        t.normal_(0.0, self.gain * math.sqrt(2.0 / ((self.fan_in or fan_in) + (self.fan_out or fan_out))))


__all__ = ["Constant", "Initializer", "Normal", "Uniform", "XavierNormal", "XavierUniform"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn.initializer", name)
