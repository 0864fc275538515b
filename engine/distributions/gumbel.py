"""Gumbel(loc, scale): a uniform draw through -log(-log(u)), scaled and shifted, as torch builds it
from transforms."""

from __future__ import annotations

import math
from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.transformed_distribution import TransformedDistribution
from engine.distributions.transforms import AffineTransform, ExpTransform
from engine.distributions.uniform import Uniform
from engine.distributions.utils import NUMBER, broadcast_all, euler_constant
from engine.tensor import Tensor

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = engine.finfo(self.loc.dtype)
        if isinstance(loc, NUMBER) and isinstance(scale, NUMBER):
            base_dist = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(engine.full_like(self.loc, finfo.tiny), engine.full_like(self.loc, 1 - finfo.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-engine.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * euler_constant

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + euler_constant)
