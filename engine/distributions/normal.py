"""Normal(loc, scale): samples by torch.normal, reparameterised samples as loc + eps * scale."""

from __future__ import annotations

import math
from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import ExponentialFamily
from engine.distributions.utils import EMPTY_SHAPE, NUMBER, broadcast_all, standard_normal
from engine.tensor import Size, Tensor

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """A normal (Gaussian) distribution with mean `loc` and standard deviation `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = isinstance(loc, NUMBER) and isinstance(scale, NUMBER)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with engine.no_grad():
            return engine.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        log_scale = math.log(self.scale) if isinstance(self.scale, NUMBER) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + engine.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Any) -> Tensor:
        return self.loc + self.scale * engine.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + engine.log(self.scale)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return -0.25 * x.pow(2) / y + 0.5 * engine.log(-math.pi / y)
