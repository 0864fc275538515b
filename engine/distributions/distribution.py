"""The Distribution base: shapes, argument validation with torch's messages, sample by rsample
under no_grad, and torch's repr; ExponentialFamily adds entropy by Bregman divergence."""

from __future__ import annotations

import warnings
from typing import Any

import engine
from engine import runtime
from engine.distributions import constraints
from engine.distributions.utils import EMPTY_SHAPE, as_size, lazy_property
from engine.tensor import Size, Tensor

__all__ = ["Distribution", "ExponentialFamily"]


class ValidationDefault:
    """Whether distributions validate their arguments unless told: on, as under Python's assert
    (set_default_validate_args changes it for the session, not for every session in the process)."""

    def __init__(self) -> None:
        self.enabled = __debug__


defaults: ValidationDefault = runtime.slot(__name__, "defaults", ValidationDefault)


def _class_text(cls: type) -> str:
    """`<class 'torch.distributions.normal.Normal'>` for the engine's classes, as torch's messages print them."""
    return str(cls).replace("<class 'engine.", "<class 'torch.", 1)


class Distribution:
    """The abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        if value not in [True, False]:
            raise ValueError
        defaults.enabled = value

    @property
    def _validate_args(self) -> bool:
        """This distribution's choice (validate_args=...), else the session's default."""
        return self.__dict__.get("_validate_args", defaults.enabled)

    @_validate_args.setter
    def _validate_args(self, value: bool) -> None:
        self.__dict__["_validate_args"] = value

    def __init__(self, batch_shape: Any = EMPTY_SHAPE, event_shape: Any = EMPTY_SHAPE,
                 validate_args: bool | None = None) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_arguments()
        super().__init__()

    def _check_arguments(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{_class_text(type(self))} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                          "or initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # a parameter computed from another on demand
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                                 f"but found invalid values:\n{value}")

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint | None:
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{_class_text(type(self))} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        with engine.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = EMPTY_SHAPE) -> Tensor:
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return engine.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = EMPTY_SHAPE) -> Size:
        """sample_shape + batch_shape + event_shape."""
        return Size(as_size(sample_shape) + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Any) -> None:
        """A value to score must broadcast with batch_shape + event_shape and lie in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs "
                                 f"{expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{_class_text(type(self))} does not define `support` to enable sample validation. Please "
                          "initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
            return
        if not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                             f"to be within the support ({support!r}) of the distribution {self!r}, "
                             f"but found invalid values:\n{value}")

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                                      "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        params = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
                         for p in params)
        return f"{self.__class__.__name__}({args})"


class ExponentialFamily(Distribution):
    """Distributions of the exponential family: entropy from the log normalizer's gradient."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        result: Any = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = engine.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for nparam, g in zip(nparams, gradients):
            result -= (nparam * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
