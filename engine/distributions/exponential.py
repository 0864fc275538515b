"""Exponential(rate): reparameterised samples as exponential_() / rate."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import ExponentialFamily
from engine.distributions.utils import EMPTY_SHAPE, NUMBER, broadcast_all
from engine.tensor import Size, Tensor

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """An exponential distribution with the given rate (1 / scale)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return engine.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if isinstance(rate, NUMBER) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.rate.new(shape).exponential_() / self.rate

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - engine.exp(-self.rate * value)

    def icdf(self, value: Any) -> Tensor:
        return -engine.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - engine.log(self.rate)

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return -engine.log(-x)
