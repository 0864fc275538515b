"""RelaxedBernoulli: a differentiable stand-in for Bernoulli samples at a temperature, and
LogitRelaxedBernoulli, its logit-space base."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.distribution import Distribution
from engine.distributions.transformed_distribution import TransformedDistribution
from engine.distributions.transforms import SigmoidTransform
from engine.distributions.utils import (
    EMPTY_SHAPE,
    NUMBER,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from engine.tensor import Size, Tensor

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self.temperature = temperature
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

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(engine.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """Values in (0, 1) that approach 0 and 1 as the temperature goes to 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits), SigmoidTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
