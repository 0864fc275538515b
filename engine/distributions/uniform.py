"""Uniform(low, high) over [low, high): reparameterised samples as low + rand * (high - low)."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.utils import EMPTY_SHAPE, NUMBER, broadcast_all
from engine.tensor import Size, Tensor

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform samples from the half-open interval [low, high)."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return float("nan") * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        numbers = isinstance(low, NUMBER) and isinstance(high, NUMBER)
        super().__init__(Size() if numbers else self.low.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        rand = engine.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return engine.log(lb.mul(ub)) - engine.log(self.high - self.low)

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Any) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return engine.log(self.high - self.low)
