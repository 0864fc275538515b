"""Geometric(probs or logits): the number of failures before the first success."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.utils import (
    EMPTY_SHAPE,
    NUMBER,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from engine.nn.functional import binary_cross_entropy_with_logits
from engine.tensor import Size, Tensor

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Failures before the first success of Bernoulli(probs) trials."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        probs_or_logits = probs if probs is not None else logits
        super().__init__(Size() if isinstance(probs_or_logits, NUMBER) else probs_or_logits.size(),
                         validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not valid.all():
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} to be positive but found invalid values:\n"
                                 f"{value.data[~valid]}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> Geometric:
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return engine.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    def sample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        tiny = engine.finfo(self.probs.dtype).tiny
        with engine.no_grad():
            u = self.probs.new(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=engine.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
