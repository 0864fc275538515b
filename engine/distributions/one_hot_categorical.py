"""OneHotCategorical: a Categorical whose samples are one-hot vectors (and its straight-through
variant, whose rsample passes the gradient to the probabilities)."""

from __future__ import annotations

from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.distributions.utils import EMPTY_SHAPE
from engine.nn.functional import one_hot
from engine.tensor import Size, Tensor

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot vectors of length K drawn like Categorical(probs or logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return one_hot(probs.argmax(dim=-1), num_classes=probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        sample_shape = Size(sample_shape)
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = engine.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n, *self.batch_shape, n))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """Straight-through gradients: the sample plus (probs - probs.detach())."""

    has_rsample = True

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
