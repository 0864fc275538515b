"""torch.distributions.constraints: the regions a parameter or a sample must lie in. `check` builds
the same boolean tensors as torch's, and the reprs (`Real()`, `GreaterThan(lower_bound=0.0)`) are
what validation errors print."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from engine.tensor import Tensor

__all__ = ["Constraint", "boolean", "dependent", "dependent_property", "greater_than", "greater_than_eq",
           "independent", "integer_interval", "interval", "half_open_interval", "is_dependent", "less_than",
           "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "nonnegative", "nonnegative_integer", "one_hot", "positive",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square", "symmetric",
           "unit_interval"]


class Constraint:
    """A region over which a variable is valid; `event_dim` rightmost dims form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a support that depends on other parameters (it cannot be checked)."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> _Dependent:
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property on instances that reads as a dependent constraint on the class (`support`)."""

    def __init__(self, fn: Callable[..., Any] | None = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn: Callable[..., Any]) -> _DependentProperty:  # type: ignore[override]
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """A constraint whose `reinterpreted_batch_ndims` rightmost dims must all hold together."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(result.shape[: result.dim() - self.reinterpreted_batch_ndims] + (-1,))
        return result.all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(Constraint):
    """A component's constraint checked on a value with the mixture's component dim added back."""

    def __init__(self, base_constraint: Constraint) -> None:
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        result = result.reshape(result.shape[: value.dim() - self.event_dim] + (-1,))
        return result.all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The extended real line: anything but NaN."""

    def check(self, value: Tensor) -> Tensor:
        return value == value  # noqa: PLR0124 - False for NaNs


class _GreaterThan(Constraint):
    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound < value

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value: Tensor) -> Tensor:
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(_Interval):
    def check(self, value: Tensor) -> Tensor:
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Non-negative along the last dim and summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return engine.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]


class _LowerCholesky(Constraint):
    """Lower triangular with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        lower_triangular = (value.tril() == value).view(value.shape[:-2] + (-1,)).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower_triangular & positive_diagonal


class _Square(Constraint):
    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return engine.full(value.shape[:-2], value.shape[-2] == value.shape[-1], dtype=engine.bool,
                           device=value.device)


class _Symmetric(_Square):
    def check(self, value: Tensor) -> Tensor:
        square_check = super().check(value)
        if not square_check.all():
            return square_check
        return engine.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric, and Cholesky succeeds (torch reads `cholesky_ex(value).info == 0`)."""

    def check(self, value: Tensor) -> Tensor:
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        matrices = value.detach()._numpy_view().reshape(-1, value.shape[-2], value.shape[-1])
        return engine.tensor([_factorises(m) for m in matrices], dtype=engine.bool).reshape(value.shape[:-2])


def _factorises(matrix: np.ndarray) -> bool:
    try:
        np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return False
    return True


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
