"""Laplace(loc, scale): reparameterised samples from a uniform draw on (eps - 1, 1)."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.utils import EMPTY_SHAPE, NUMBER, broadcast_all
from engine.tensor import Size, Tensor

__all__ = ["Laplace"]


class Laplace(Distribution):
    """A Laplace (double exponential) distribution with mean `loc` and scale `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = isinstance(loc, NUMBER) and isinstance(scale, NUMBER)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = self.loc.new(shape).uniform_(engine.finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * engine.log1p(-u.abs())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -engine.log(2 * self.scale) - engine.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * engine.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Any) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * engine.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + engine.log(2 * self.scale)
