"""torch.distributions.transforms, the common ones: invertible maps with their log |det J|, which
TransformedDistribution chains onto a base distribution (a tanh-squashed Gaussian policy, LogNormal).
Each computes what torch's does, op for op, so values and graphs are torch's."""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import engine
from engine.distributions import constraints
from engine.distributions.utils import NUMBER, lazy_property, sum_rightmost
from engine.nn.functional import softplus
from engine.tensor import Tensor

__all__ = ["AffineTransform", "ComposeTransform", "ExpTransform", "SigmoidTransform", "TanhTransform", "Transform",
           "identity_transform"]


class Transform:
    """An invertible (or at least computable) map y = t(x) with log |dy/dx|; cache_size=1 keeps the
    last (x, y) so that inverting a sample returns the very x it came from."""

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size: int = 0) -> None:
        self._cache_size = cache_size
        self._inv: Transform | None = None
        if cache_size == 1:
            self._cached_x_y: tuple[Any, Any] = (None, None)
        elif cache_size != 0:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    @property
    def event_dim(self) -> int:
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self) -> int:
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __call__(self, x: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape: Any) -> Any:
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        return shape


class _InverseTransform(Transform):
    """t.inv: the same map run backwards, sharing t's cache."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._inv.bijective

    @property
    def sign(self) -> int:
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> Any:
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """parts applied in order."""

    def __init__(self, parts: list[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self) -> int:  # type: ignore[override]
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return engine.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x_in, y_out in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(sum_rightmost(part.log_abs_det_jacobian(x_in, y_out), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class SigmoidTransform(Transform):
    """y = sigmoid(x), clipped into (tiny, 1 - eps)."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def _call(self, x: Tensor) -> Tensor:
        finfo = engine.finfo(x.dtype)
        return engine.clamp(engine.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = engine.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -softplus(-x) - softplus(x)


class TanhTransform(Transform):
    """y = tanh(x), with log |det J| in its stable form 2 (log 2 - x - softplus(-2x))."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return engine.atanh(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AffineTransform(Transform):
    """y = loc + scale * x."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> constraints.Constraint:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> constraints.Constraint:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, NUMBER) and isinstance(theirs, NUMBER):
                if mine != theirs:
                    return False
            elif not (mine == theirs).all().item():
                return False
        return True

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, NUMBER):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = x.shape
        scale = self.scale
        if isinstance(scale, NUMBER):
            result = engine.full_like(x, math.log(abs(scale)))
        else:
            result = engine.abs(scale).log()
        if self.event_dim:
            result = result.view(result.size()[: -self.event_dim] + (-1,)).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        return engine.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape: Any) -> Any:
        return engine.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))
