"""kl_divergence(p, q): the closed forms torch registers for the pairs of the distributions here,
dispatched to the most specific registered (type, type) match as torch does."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from functools import total_ordering
from typing import Any

import engine
from engine import runtime
from engine.distributions.bernoulli import Bernoulli
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution, ExponentialFamily
from engine.distributions.exponential import Exponential
from engine.distributions.geometric import Geometric
from engine.distributions.gumbel import Gumbel
from engine.distributions.independent import Independent
from engine.distributions.laplace import Laplace
from engine.distributions.multivariate_normal import MultivariateNormal, batch_mahalanobis
from engine.distributions.normal import Normal
from engine.distributions.one_hot_categorical import OneHotCategorical
from engine.distributions.transformed_distribution import TransformedDistribution
from engine.distributions.uniform import Uniform
from engine.distributions.utils import euler_constant, sum_rightmost
from engine.nn.functional import softplus
from engine.tensor import Tensor

__all__ = ["register_kl", "kl_divergence"]

INF = float("inf")
_BUILT_IN: dict[tuple[type, type], Callable[..., Any]] = {}  # the closed forms below


class Registrations:
    """What a session's register_kl added (over the built-in pairs), and its dispatch cache: a
    session's registrations are its own, not every later session's in the process."""

    def __init__(self) -> None:
        self.added: dict[tuple[type, type], Callable[..., Any]] = {}
        self.memo: dict[tuple[type, type], Any] = {}


registrations: Registrations = runtime.slot(__name__, "registrations", Registrations)


def _built_in(type_p: type, type_q: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
        _BUILT_IN[type_p, type_q] = fun
        return fun

    return decorator


def register_kl(type_p: type, type_q: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register fun(p, q) as the KL divergence of p's type from q's type."""
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable[..., Any]) -> Callable[..., Any]:
        registrations.added[type_p, type_q] = fun
        registrations.memo.clear()
        return fun

    return decorator


@total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True

    __hash__ = None  # type: ignore[assignment]


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    registry = {**_BUILT_IN, **registrations.added}
    matches = [(super_p, super_q) for super_p, super_q in registry
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = registry[left_p, left_q]
    right_fun = registry[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), batched over the distributions' batch_shape."""
    try:
        fun = registrations.memo[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        registrations.memo[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor: Tensor) -> Tensor:
    return engine.full_like(tensor, INF)


def _batch_trace_XXT(bmat: Tensor) -> Tensor:  # noqa: N802 - torch's name
    n, m = bmat.size(-1), bmat.size(-2)
    return bmat.reshape(-1, m * n).pow(2).sum(-1).reshape(bmat.shape[:-2])


@_built_in(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1[q.probs == 0] = INF
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2[q.probs == 1] = INF
    t2[p.probs == 1] = 0
    return t1 + t2


@_built_in(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = INF
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@_built_in(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "                            be computed using Bregman divergences")
    p_nparams = [nparam.detach().requires_grad_() for nparam in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = engine.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result -= sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@_built_in(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with                          "
                         "different event shapes cannot be computed")
    half_term1 = (q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    combined_batch_shape = engine.broadcast_shapes(q._unbroadcasted_scale_tril.shape[:-2],
                                                   p._unbroadcasted_scale_tril.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = q._unbroadcasted_scale_tril.expand(combined_batch_shape + (n, n))
    p_scale_tril = p._unbroadcasted_scale_tril.expand(combined_batch_shape + (n, n))
    term2 = _batch_trace_XXT(engine.linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False))
    term3 = batch_mahalanobis(q._unbroadcasted_scale_tril, (q.loc - p.loc))
    return half_term1 + 0.5 * (term2 + term3 - n)


@_built_in(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@_built_in(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@_built_in(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = INF
    return result


@_built_in(Normal, Exponential)
@_built_in(Normal, Uniform)
def _kl_normal_infinity(p: Normal, q: Any) -> Tensor:
    return _infinite_like(p.loc)


@_built_in(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@_built_in(Exponential, Uniform)
def _kl_exponential_infinity(p: Exponential, q: Any) -> Tensor:
    return _infinite_like(p.rate)


@_built_in(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * engine.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@_built_in(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * engine.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@_built_in(Laplace, Exponential)
@_built_in(Laplace, Uniform)
def _kl_laplace_infinity(p: Laplace, q: Any) -> Tensor:
    return _infinite_like(p.loc)


@_built_in(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * engine.log(2 * scale_sqr_var_ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@_built_in(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = engine.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * engine.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * engine.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@_built_in(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < q.support.lower_bound] = INF
    return result


@_built_in(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = common_term.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@_built_in(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - engine.log1p(-q.probs) / p.probs - q.logits


@_built_in(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * euler_constant
    t3 = engine.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + euler_constant)


@_built_in(Gumbel, Exponential)
@_built_in(Gumbel, Uniform)
def _kl_gumbel_infinity(p: Gumbel, q: Any) -> Tensor:
    return _infinite_like(p.loc)


@_built_in(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * euler_constant - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (euler_constant + 1)


@_built_in(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = engine.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@_built_in(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common_term = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common_term.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common_term * (engine.exp(-high_loc_diff) - engine.exp(-low_loc_diff))
    return t1 - t2


@_built_in(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = engine.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    t3 = scale_rate_prod.reciprocal()
    return t1 - loc_scale_ratio + t2 + t3


@_built_in(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@_built_in(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
