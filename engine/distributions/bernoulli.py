"""Bernoulli(probs or logits): samples by torch.bernoulli, log_prob as a negated BCE-with-logits."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import ExponentialFamily
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

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """Binary samples: 1 with probability `probs` (or sigmoid(`logits`)), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, NUMBER)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = isinstance(logits, NUMBER)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with engine.no_grad():
            return engine.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = engine.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (engine.logit(self.probs),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return engine.log1p(engine.exp(x))
