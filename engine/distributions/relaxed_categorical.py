"""RelaxedOneHotCategorical (Gumbel-softmax, "concrete"): a differentiable stand-in for one-hot
samples at a temperature, and ExpRelaxedCategorical, its log-space base."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.distributions.transformed_distribution import TransformedDistribution
from engine.distributions.transforms import ExpTransform
from engine.distributions.utils import EMPTY_SHAPE, broadcast_all, clamp_probs
from engine.tensor import Size, Tensor

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(engine.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        K = self._categorical._num_events  # noqa: N806 - torch's name
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = engine.full_like(self.temperature, float(K)).lgamma() - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """Points of the simplex that approach one-hot vectors as the temperature goes to 0."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
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
