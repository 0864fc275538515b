"""torch.distributions in the engine, program by program against real torch: the same seed draws
the same samples, and log_prob, entropy, KL divergences, their gradients, graph nodes, reprs and
validation errors come out the same."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import engine
import engine.distributions
from tests.oracle import reconcile


def describe(value: Any) -> Any:
    """Values, shapes, dtypes and grad_fn names of tensors, recursively; anything else as its repr."""
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if hasattr(value, "grad_fn") and hasattr(value, "tolist"):
        return ("tensor", nan_named(value.tolist()), tuple(value.shape), str(value.dtype), graph(value))
    return repr(value)


def nan_named(values: Any) -> Any:
    """NaN as a string, which compares equal to itself."""
    if isinstance(values, list):
        return [nan_named(v) for v in values]
    return "nan" if values != values else values


def graph(t: Any) -> list[str]:
    """The names of the nodes behind t, depth first."""
    names, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        stack.extend(reversed([n for n, _ in node.next_functions]))
    return names


def outcome(program: Callable[[Any, Any], Any], lib: Any) -> Any:
    lib.manual_seed(0)
    try:
        return describe(program(lib, lib.distributions))
    except Exception as error:  # noqa: BLE001 - the error is the behaviour compared
        return (type(error).__name__, str(error))


def same_as_torch(torch: Any, program: Callable[[Any, Any], Any], *, bitwise: bool = False) -> Any:
    """torch's and the engine's outcomes are the same: bit for bit, or with floats within the
    oracle's tolerance (the engine's float32 exp, log and log1p kernels can round the last bit
    differently from torch's SLEEF ones)."""
    real = outcome(program, torch)
    ours = outcome(program, engine)
    assert (ours if bitwise else reconcile(real, ours)) == real
    return real


# ----------------------------------------------------------------------------- samples under a seed

SAMPLING = {
    "normal sample": lambda t, D: D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0])).sample((3,)),
    "normal rsample": lambda t, D: D.Normal(t.zeros(2, 3), 0.5).rsample((4,)),
    "normal of numbers": lambda t, D: [D.Normal(0.0, 1.0).sample(), D.Normal(0.0, 1.0).sample((5,))],
    "normal float64": lambda t, D: D.Normal(t.zeros(3, dtype=t.float64), 1.0).rsample(),
    "bernoulli probs": lambda t, D: D.Bernoulli(t.tensor([0.1, 0.5, 0.9])).sample((4,)),
    "bernoulli logits": lambda t, D: D.Bernoulli(logits=t.tensor([[-2.0, 0.0], [1.0, 3.0]])).sample(),
    "bernoulli number": lambda t, D: D.Bernoulli(0.3).sample((6,)),
    "categorical probs": lambda t, D: D.Categorical(t.tensor([0.2, 0.3, 0.5])).sample((8,)),
    "categorical logits batch": lambda t, D: D.Categorical(logits=t.tensor([[0.1, 2.0, -1.0], [0.0, 0.0, 0.0]])).sample((2, 3)),
    "categorical one draw": lambda t, D: D.Categorical(logits=t.tensor([1.0, 2.0])).sample(),
    "one-hot": lambda t, D: D.OneHotCategorical(t.tensor([[0.2, 0.8], [0.6, 0.4]])).sample((3,)),
    "uniform": lambda t, D: D.Uniform(t.tensor([0.0, -1.0]), t.tensor([1.0, 5.0])).sample((3,)),
    "uniform numbers": lambda t, D: D.Uniform(-2.0, 2.0).rsample((4,)),
    "independent": lambda t, D: D.Independent(D.Normal(t.zeros(2, 3), t.ones(2, 3)), 1).sample(),
    "multivariate scale_tril": lambda t, D: D.MultivariateNormal(
        t.zeros(2), scale_tril=t.tensor([[1.0, 0.0], [0.5, 2.0]])).sample((3,)),
    "expanded normal": lambda t, D: D.Normal(t.tensor([0.0, 10.0]), 1.0).expand((3, 2)).sample(),
    "exponential": lambda t, D: D.Exponential(t.tensor([0.5, 2.0])).rsample((3,)),
    "laplace": lambda t, D: D.Laplace(t.tensor([0.0, 1.0]), t.tensor([1.0, 0.1])).sample((3,)),
    "laplace float64": lambda t, D: D.Laplace(t.zeros(4, dtype=t.float64), 2.0).rsample(),
    "categorical float64": lambda t, D: D.Categorical(probs=t.rand(4, 6, dtype=t.float64)).sample((7,)),
    "categorical of 50": lambda t, D: D.Categorical(logits=t.randn(3, 50)).sample((100,)),
    "bernoulli float64": lambda t, D: D.Bernoulli(t.rand(6, dtype=t.float64)).sample((2,)),
    "uniform float64": lambda t, D: D.Uniform(t.zeros(4, dtype=t.float64), 2.0).sample((2,)),
    "exponential float64": lambda t, D: D.Exponential(t.ones(4, dtype=t.float64)).sample((2,)),
    "geometric float64": lambda t, D: D.Geometric(t.full((4,), 0.3, dtype=t.float64)).sample((2,)),
    "gumbel float64": lambda t, D: D.Gumbel(t.zeros(4, dtype=t.float64), 1.0).sample((2,)),
    "normal of 1000": lambda t, D: D.Normal(t.zeros(1000), 1.0).rsample((3,)),
    "multivariate float64": lambda t, D: D.MultivariateNormal(t.zeros(3, dtype=t.float64),
                                                              scale_tril=t.eye(3, dtype=t.float64)).sample((4,)),
    "one-hot of 10": lambda t, D: D.OneHotCategorical(logits=t.randn(2, 10)).sample((5,)),
    "relaxed bernoulli": lambda t, D: D.RelaxedBernoulli(t.tensor(0.5), logits=t.randn(5)).sample((2,)),
}


@pytest.mark.parametrize("name", list(SAMPLING))
def test_samples_are_torchs_under_the_same_seed(torch, name: str) -> None:
    same_as_torch(torch, SAMPLING[name], bitwise=True)


def test_a_sample_is_drawn_without_a_graph_and_an_rsample_with_one(torch) -> None:
    def program(t, D):
        loc = t.zeros(3, requires_grad=True)
        d = D.Normal(loc, t.ones(3))
        return [d.sample(), d.rsample(), d.sample().requires_grad]

    real = same_as_torch(torch, program, bitwise=True)
    assert real[1][4] == ["AddBackward0", "AccumulateGrad"]


# ----------------------------------------------------------------------------- scores, moments, graphs

SCORES = {
    "normal": lambda t, D: (lambda d: [d.log_prob(t.tensor([0.5, -1.0])), d.entropy(), d.mean, d.stddev, d.variance,
                                       d.cdf(t.tensor([0.0, 1.0])), d.icdf(t.tensor([0.25, 0.75])), d.perplexity()])(
        D.Normal(t.tensor([0.0, 1.0], requires_grad=True), t.tensor([1.0, 2.0], requires_grad=True))),
    "normal of numbers": lambda t, D: [D.Normal(0.0, 2.0).log_prob(t.tensor(1.5)), D.Normal(1.0, 3.0).entropy()],
    "categorical logits": lambda t, D: (lambda d: [d.log_prob(t.tensor([2, 0])), d.entropy(), d.probs, d.logits,
                                                   d.mode, d.mean, d.variance])(
        D.Categorical(logits=t.tensor([[0.1, 0.5, 2.0], [1.0, 1.0, 1.0]], requires_grad=True))),
    "categorical probs": lambda t, D: (lambda d: [d.log_prob(t.tensor(1)), d.entropy(), d.logits])(
        D.Categorical(probs=t.tensor([2.0, 1.0, 1.0], requires_grad=True))),
    "categorical broadcast value": lambda t, D: D.Categorical(logits=t.zeros(2, 4)).log_prob(t.tensor([[0], [3], [1]])),
    "one-hot": lambda t, D: (lambda d: [d.log_prob(t.tensor([0.0, 0.0, 1.0])), d.entropy(), d.mode, d.variance])(
        D.OneHotCategorical(logits=t.tensor([0.3, -0.2, 1.0], requires_grad=True))),
    "uniform": lambda t, D: (lambda d: [d.log_prob(t.tensor([0.5, 0.5])), d.entropy(), d.mean, d.stddev, d.variance,
                                        d.cdf(t.tensor([0.5, 4.0])), d.icdf(t.tensor([0.5, 0.5]))])(
        D.Uniform(t.tensor([0.0, -1.0], requires_grad=True), t.tensor([1.0, 5.0]), validate_args=False)),
    "independent": lambda t, D: (lambda d: [d.log_prob(t.ones(2, 3)), d.entropy(), d.mean, d.variance])(
        D.Independent(D.Normal(t.zeros(2, 3, requires_grad=True), t.ones(2, 3)), 2)),
    "exponential": lambda t, D: (lambda d: [d.log_prob(t.tensor([0.5, 3.0])), d.entropy(), d.mean, d.mode, d.stddev,
                                            d.variance, d.cdf(t.tensor([1.0, 1.0])), d.icdf(t.tensor([0.5, 0.9])),
                                            d.rsample((2,))])(D.Exponential(t.tensor([0.5, 2.0], requires_grad=True))),
    "laplace": lambda t, D: (lambda d: [d.log_prob(t.tensor([0.5, -1.0])), d.entropy(), d.mean, d.stddev, d.variance,
                                        d.cdf(t.tensor([0.0, 1.0])), d.icdf(t.tensor([0.25, 0.75])), d.rsample()])(
        D.Laplace(t.tensor([0.0, 1.0], requires_grad=True), t.tensor([1.0, 2.0], requires_grad=True))),
    "geometric": lambda t, D: (lambda d: [d.sample((3,)), d.log_prob(t.tensor([0.0, 3.0])), d.entropy(), d.mean,
                                          d.mode, d.variance, d.logits, d.expand((2, 2)).sample()])(
        D.Geometric(t.tensor([0.3, 1.0], requires_grad=True))),
    "geometric logits": lambda t, D: (lambda d: [d.sample((2,)), d.log_prob(t.tensor(2.0)), d.probs,
                                                 D.kl_divergence(d, D.Geometric(0.5))])(
        D.Geometric(logits=t.tensor([0.3, -1.0]))),
    "bernoulli probs and mode": lambda t, D: (lambda d: [d.mean, d.variance, d.mode, d.logits])(
        D.Bernoulli(t.tensor([0.2, 0.5, 0.9], requires_grad=True))),
    "bernoulli logits to probs": lambda t, D: D.Bernoulli(logits=t.tensor([0.0, 2.0], requires_grad=True)).probs,
    "enumerate support": lambda t, D: [D.Bernoulli(t.tensor([0.2, 0.5])).enumerate_support(),
                                       D.Categorical(logits=t.zeros(2, 3)).enumerate_support(expand=False),
                                       D.OneHotCategorical(logits=t.zeros(3)).enumerate_support()],
}


@pytest.mark.parametrize("name", list(SCORES))
def test_scores_and_moments_are_torchs(torch, name: str) -> None:
    same_as_torch(torch, SCORES[name])


def close(a: Any, b: Any, ulps: float = 2e-7) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y, ulps) for x, y in zip(a, b))
    return abs(a - b) <= ulps * max(1.0, abs(b))


def test_bernoulli_log_prob_and_entropy_agree_with_torch_to_a_float32_rounding(torch) -> None:
    """Both go through binary_cross_entropy_with_logits, whose float32 kernel in torch rounds
    log_sigmoid's steps one ulp away from the engine's on some inputs; the graphs are torch's."""
    results = []
    for lib in (torch, engine):
        logits = lib.tensor([0.3, -1.0, 2.5, -0.7], requires_grad=True)
        d = lib.distributions.Bernoulli(logits=logits)
        lp, h = d.log_prob(lib.tensor([1.0, 0.0, 1.0, 1.0])), d.entropy()
        (lp.sum() + h.sum()).backward()
        results.append((lp.tolist(), h.tolist(), logits.grad.tolist(), graph(lp), graph(h)))
    (lp, h, grad, lp_graph, h_graph), (our_lp, our_h, our_grad, our_lp_graph, our_h_graph) = results
    assert close(our_lp, lp) and close(our_h, h) and close(our_grad, grad)
    assert (our_lp_graph, our_h_graph) == (lp_graph, h_graph)


# ----------------------------------------------------------------------------- gradients

def test_reinforce_step_gradients_are_torchs(torch) -> None:
    def program(t, D):
        policy = t.nn.Linear(4, 3)
        state = t.randn(5, 4)
        dist = D.Categorical(logits=policy(state))
        action = dist.sample()
        reward = t.randn(5)
        loss = -(dist.log_prob(action) * reward).sum() - 0.01 * dist.entropy().sum()
        loss.backward()
        return [action, loss, policy.weight.grad, policy.bias.grad]

    same_as_torch(torch, program)


def test_gaussian_policy_and_reparameterised_sample_gradients_are_torchs(torch) -> None:
    def program(t, D):
        mu = t.tensor([0.5, -0.5], requires_grad=True)
        log_std = t.tensor([0.0, -1.0], requires_grad=True)
        dist = D.Normal(mu, log_std.exp())
        z = dist.rsample((3,))
        loss = (z**2).mean() - dist.log_prob(z.detach()).sum() - dist.entropy().sum()
        loss.backward()
        return [z, loss, mu.grad, log_std.grad]

    same_as_torch(torch, program)


def test_uniform_and_independent_gradients_are_torchs(torch) -> None:
    def program(t, D):
        low = t.tensor([0.0, 1.0], requires_grad=True)
        high = t.tensor([2.0, 4.0], requires_grad=True)
        u = D.Uniform(low, high)
        x = u.rsample((2,))
        (x.sum() + u.entropy().sum()).backward()
        loc = t.zeros(2, 2, requires_grad=True)
        ind = D.Independent(D.Normal(loc, 1.0), 1)
        ind.log_prob(t.ones(2, 2)).sum().backward()
        return [x, low.grad, high.grad, loc.grad]

    same_as_torch(torch, program)


# ----------------------------------------------------------------------------- mixtures

def gaussian_mixture(t: Any, D: Any) -> Any:
    weights = t.tensor([[1.0, 2.0, 0.5], [0.2, 0.2, 3.0]], requires_grad=True)
    means = t.tensor([[[-1.0, 0.0], [1.0, 1.0], [0.0, 3.0]], [[0.0, 0.0], [2.0, -2.0], [5.0, 5.0]]], requires_grad=True)
    return weights, means, D.MixtureSameFamily(D.Categorical(logits=weights),
                                               D.Independent(D.Normal(means, 0.5), 1))


MIXTURES = {
    "sample": lambda t, D: [gaussian_mixture(t, D)[2].sample(), gaussian_mixture(t, D)[2].sample((4,))],
    "scores": lambda t, D: (lambda w, m, d: [d, d.batch_shape, d.event_shape, d.log_prob(t.zeros(3, 2, 2)), d.mean,
                                             d.variance, d.support])(*gaussian_mixture(t, D)),
    "gradients": lambda t, D: (lambda w, m, d: [d.log_prob(t.ones(2, 2)).sum().backward(), w.grad, m.grad])(
        *gaussian_mixture(t, D)),
    "one dimensional": lambda t, D: (lambda d: [d.sample((5,)), d.log_prob(t.tensor([0.0, 2.0])), d.cdf(t.tensor(0.5)),
                                                d.expand((2,)).sample()])(
        D.MixtureSameFamily(D.Categorical(t.ones(3)), D.Normal(t.tensor([-2.0, 0.0, 2.0]), 1.0))),
    "mismatched components": lambda t, D: D.MixtureSameFamily(D.Categorical(t.ones(2)), D.Normal(t.zeros(3), 1.0)),
    "not a categorical": lambda t, D: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(t.zeros(3), 1.0)),
}


@pytest.mark.parametrize("name", list(MIXTURES))
def test_mixtures_are_torchs(torch, name: str) -> None:
    same_as_torch(torch, MIXTURES[name])


# ----------------------------------------------------------------------------- transformed distributions

def squashed_gaussian(t: Any, D: Any) -> Any:
    """A SAC actor's action distribution: a Normal squashed by tanh, then scaled to the bounds."""
    mu = t.tensor([[0.2, -0.4], [1.5, 0.0]], requires_grad=True)
    log_std = t.tensor([[-0.5, 0.1], [0.0, -1.0]], requires_grad=True)
    dist = D.TransformedDistribution(D.Normal(mu, log_std.exp()),
                                     [D.TanhTransform(cache_size=1), D.AffineTransform(0.0, 2.0)])
    return mu, log_std, dist


TRANSFORMED = {
    "squashed gaussian": lambda t, D: (lambda mu, log_std, d: (lambda a: [
        a, d.log_prob(a), d.log_prob(a).sum(-1).mean().backward(), mu.grad, log_std.grad, d.batch_shape,
        d.event_shape, d.support, d.sample((2,))])(d.rsample()))(*squashed_gaussian(t, D)),
    "log normal": lambda t, D: (lambda d: [d, d.sample((3,)), d.rsample(), d.log_prob(t.tensor([0.5, 2.0])),
                                           d.entropy(), d.mean, d.mode, d.variance, d.cdf(t.tensor([1.0, 1.0])),
                                           d.icdf(t.tensor([0.5, 0.5])), d.expand((3, 2)).batch_shape])(
        D.LogNormal(t.tensor([0.0, 1.0], requires_grad=True), t.tensor([1.0, 0.5]))),
    "sigmoid and exp": lambda t, D: (lambda d: [d.rsample((2,)), d.log_prob(t.tensor([0.25, 0.75, 0.5]))])(
        D.TransformedDistribution(D.Normal(t.zeros(3), 1.0), D.SigmoidTransform())),
    "compose and inverse": lambda t, D: (lambda c: [c, c.inv, c(t.tensor([0.5])), c.inv(t.tensor([1.0])),
                                                    c.log_abs_det_jacobian(t.tensor([0.5]), c(t.tensor([0.5]))),
                                                    c.domain, c.codomain, c.bijective, c.sign,
                                                    D.ExpTransform().inv, D.ExpTransform() == D.ExpTransform(),
                                                    D.AffineTransform(1.0, -2.0).sign])(
        D.ComposeTransform([D.ExpTransform(), D.AffineTransform(1.0, 3.0)])),
    "affine over an event": lambda t, D: (lambda d: [d.batch_shape, d.event_shape, d.log_prob(t.ones(2, 3))])(
        D.TransformedDistribution(D.Normal(t.zeros(2, 3), 1.0), D.AffineTransform(t.zeros(3), t.tensor([1.0, 2.0, 3.0]),
                                                                                    event_dim=1))),
    "kl of log normals": lambda t, D: D.kl_divergence(D.LogNormal(t.tensor([0.0, 1.0]), 1.0), D.LogNormal(0.5, 2.0)),
    "kl of different transforms": lambda t, D: D.kl_divergence(
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.ExpTransform()),
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.TanhTransform())),
    "gumbel": lambda t, D: (lambda d: [d, d.sample((3,)), d.rsample(), d.log_prob(t.tensor([0.5, 2.0])), d.entropy(),
                                       d.mean, d.mode, d.stddev, d.variance, d.cdf(t.tensor([0.0, 1.0])),
                                       d.expand((3, 2)).sample()])(
        D.Gumbel(t.tensor([0.0, 1.0], requires_grad=True), t.tensor([1.0, 0.5]))),
    "gumbel of numbers": lambda t, D: (lambda d: [d.sample((4,)), d.log_prob(t.tensor(0.3))])(D.Gumbel(0.0, 2.0)),
    "relaxed one-hot": lambda t, D: (lambda logits: (lambda d: [d.rsample((2,)), d.log_prob(t.tensor([0.2, 0.3, 0.5])),
                                                                 d.temperature, d.probs, d.batch_shape, d.event_shape,
                                                                 d.rsample().sum().backward(), logits.grad])(
        D.RelaxedOneHotCategorical(t.tensor(0.5), logits=logits)))(t.tensor([0.1, -0.3, 1.2], requires_grad=True)),
    "relaxed bernoulli": lambda t, D: (lambda d: [d.rsample((3,)), d.log_prob(t.tensor([0.2, 0.9])), d.logits,
                                                  d.expand((2, 2)).rsample()])(
        D.RelaxedBernoulli(t.tensor([0.7]), probs=t.tensor([0.3, 0.8]))),
    "kl of gumbels": lambda t, D: [D.kl_divergence(D.Gumbel(t.tensor([0.0, 1.0]), 1.0), D.Gumbel(0.5, 2.0)),
                                   D.kl_divergence(D.Gumbel(t.tensor([0.0, 1.0]), 1.0), D.Normal(0.5, 2.0)),
                                   D.kl_divergence(D.Normal(t.tensor([0.0, 1.0]), 1.0), D.Gumbel(0.5, 2.0)),
                                   D.kl_divergence(D.Uniform(t.tensor([0.0, 1.0]), 3.0), D.Gumbel(0.5, 2.0)),
                                   D.kl_divergence(D.Exponential(t.tensor([0.5, 2.0])), D.Gumbel(0.5, 2.0)),
                                   D.kl_divergence(D.Gumbel(0.0, 1.0), D.Uniform(0.0, 1.0))],
    "not a transform": lambda t, D: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform(), 3]),
    "bad cache size": lambda t, D: D.ExpTransform(cache_size=2),
    "value outside the support": lambda t, D: D.LogNormal(0.0, 1.0).log_prob(t.tensor(-1.0)),
}


@pytest.mark.parametrize("name", list(TRANSFORMED))
def test_transformed_distributions_are_torchs(torch, name: str) -> None:
    same_as_torch(torch, TRANSFORMED[name])


# ----------------------------------------------------------------------------- KL divergence

KL = {
    "normal": lambda t, D: D.kl_divergence(D.Normal(t.tensor([0.0, 1.0], requires_grad=True), t.tensor([1.0, 0.5])),
                                           D.Normal(t.zeros(2), t.ones(2))),
    "categorical": lambda t, D: D.kl_divergence(D.Categorical(logits=t.tensor([0.1, 0.2, 0.7], requires_grad=True)),
                                                D.Categorical(probs=t.tensor([0.5, 0.0, 0.5]))),
    "one-hot": lambda t, D: D.kl_divergence(D.OneHotCategorical(t.tensor([0.2, 0.8])),
                                            D.OneHotCategorical(t.tensor([0.5, 0.5]))),
    "bernoulli": lambda t, D: D.kl_divergence(D.Bernoulli(t.tensor([0.3, 0.0, 1.0], requires_grad=True)),
                                              D.Bernoulli(t.tensor([0.5, 0.5, 0.5]))),
    "bernoulli numbers": lambda t, D: D.kl_divergence(D.Bernoulli(0.3), D.Bernoulli(0.6)),
    "uniform": lambda t, D: [D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(-1.0, 2.0)),
                             D.kl_divergence(D.Uniform(0.0, 1.0), D.Uniform(0.5, 2.0)),
                             D.kl_divergence(D.Uniform(t.zeros(2), t.ones(2)), D.Uniform(t.tensor([-1.0, 0.5]), 2.0))],
    "uniform to normal": lambda t, D: D.kl_divergence(D.Uniform(t.tensor([0.0]), t.tensor([2.0])),
                                                      D.Normal(t.tensor([0.5]), t.tensor([1.5]))),
    "normal to uniform": lambda t, D: D.kl_divergence(D.Normal(t.zeros(2), 1.0), D.Uniform(-1.0, 1.0)),
    "independent": lambda t, D: D.kl_divergence(D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1),
                                                D.Independent(D.Normal(t.ones(2, 3), 2.0), 1)),
    "exponential": lambda t, D: D.kl_divergence(D.Exponential(t.tensor([0.5, 2.0], requires_grad=True)),
                                                D.Exponential(t.tensor([1.0, 1.0]))),
    "laplace": lambda t, D: D.kl_divergence(D.Laplace(t.tensor([0.0, 1.0], requires_grad=True), 1.0),
                                            D.Laplace(t.tensor([0.5, 0.5]), t.tensor([2.0, 0.5]))),
    "laplace and normal": lambda t, D: [D.kl_divergence(D.Laplace(t.tensor([0.0, 1.0]), 1.0), D.Normal(0.5, 2.0)),
                                        D.kl_divergence(D.Normal(t.tensor([0.0, 1.0]), 1.0), D.Laplace(0.5, 2.0))],
    "exponential and normal": lambda t, D: D.kl_divergence(D.Exponential(t.tensor([0.5, 2.0])), D.Normal(1.0, 2.0)),
    "uniform and exponential": lambda t, D: [D.kl_divergence(D.Uniform(t.tensor([0.0, -1.0]), 2.0), D.Exponential(1.5)),
                                             D.kl_divergence(D.Exponential(1.0), D.Uniform(0.0, 1.0)),
                                             D.kl_divergence(D.Laplace(0.0, 1.0), D.Exponential(1.0)),
                                             D.kl_divergence(D.Normal(0.0, 1.0), D.Exponential(1.0))],
    "bernoulli and exponential": lambda t, D: D.kl_divergence(D.Bernoulli(0.5), D.Exponential(1.0)),
    "not registered": lambda t, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(logits=t.zeros(2))),
    "across exponential families": lambda t, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5)),
    "independent of other ndims": lambda t, D: D.kl_divergence(D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1),
                                                               D.Independent(D.Normal(t.zeros(2, 3), 1.0), 2)),
}


@pytest.mark.parametrize("name", list(KL))
def test_kl_divergence_is_torchs(torch, name: str) -> None:
    same_as_torch(torch, KL[name])


def test_kl_of_normals_backpropagates_as_in_a_vae(torch) -> None:
    def program(t, D):
        mu = t.tensor([[0.3, -0.2], [1.0, 0.0]], requires_grad=True)
        logvar = t.tensor([[0.1, -0.5], [0.0, 0.2]], requires_grad=True)
        q = D.Normal(mu, (0.5 * logvar).exp())
        kl = D.kl_divergence(q, D.Normal(t.zeros_like(mu), t.ones_like(mu))).sum(-1).mean()
        kl.backward()
        return [kl, mu.grad, logvar.grad]

    same_as_torch(torch, program)


# ----------------------------------------------------------------------------- shapes, reprs, expand

SHAPES = {
    "reprs": lambda t, D: [D.Normal(0.0, 1.0), D.Normal(t.zeros(2), 1.0), D.Bernoulli(0.3), D.Bernoulli(logits=t.zeros(3)),
                           D.Categorical(t.ones(4)), D.OneHotCategorical(t.ones(2)), D.Uniform(0.0, 1.0),
                           D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1),
                           D.MultivariateNormal(t.zeros(2), t.eye(2)), D.Normal(t.zeros(1), t.ones(1))],
    "shapes": lambda t, D: [(d.batch_shape, d.event_shape) for d in (
        D.Normal(t.zeros(2, 3), 1.0), D.Categorical(logits=t.zeros(4, 5)), D.OneHotCategorical(logits=t.zeros(4, 5)),
        D.Independent(D.Normal(t.zeros(2, 3), 1.0), 2), D.MultivariateNormal(t.zeros(3, 2), t.eye(2)))],
    "expand": lambda t, D: [(d.batch_shape, d.event_shape, d.sample().shape) for d in (
        D.Normal(0.0, 1.0).expand((2, 3)), D.Bernoulli(t.tensor([0.5])).expand((4, 1)),
        D.Categorical(logits=t.zeros(3)).expand((2,)), D.Uniform(0.0, 1.0).expand([3]),
        D.Independent(D.Normal(t.zeros(3), 1.0), 1).expand((2,)), D.OneHotCategorical(t.ones(3)).expand((2,)))],
    "constraints": lambda t, D: [D.constraints.real, D.constraints.positive, D.constraints.simplex,
                                 D.constraints.unit_interval, D.constraints.real_vector, D.constraints.boolean,
                                 D.Categorical(logits=t.zeros(3)).support, D.Uniform(0.0, 2.0).support,
                                 D.Independent(D.Normal(t.zeros(2), 1.0), 1).support,
                                 D.constraints.positive.check(t.tensor([-1.0, 0.0, 2.0]))],
    "utils": lambda t, D: (lambda u: [u.probs_to_logits(t.tensor([0.0, 0.25, 1.0])), u.logits_to_probs(t.zeros(3)),
                                      u.probs_to_logits(t.tensor([0.2, 0.9]), is_binary=True),
                                      u.clamp_probs(t.tensor([0.0, 1.0])), u.broadcast_all(t.zeros(2, 1), 1.0, t.ones(3)),
                                      u.tril_matrix_to_vec(t.arange(9.0).reshape(3, 3)),
                                      u.vec_to_tril_matrix(t.arange(1.0, 7.0)),
                                      u.tril_matrix_to_vec(t.arange(9.0).reshape(3, 3), diag=-1),
                                      u.vec_to_tril_matrix(t.arange(5.0))])(D.utils),
    "flags": lambda t, D: [(d.has_rsample, d.has_enumerate_support) for d in (
        D.Normal(0.0, 1.0), D.Bernoulli(0.5), D.Categorical(t.ones(2)), D.Uniform(0.0, 1.0),
        D.Independent(D.Normal(t.zeros(2), 1.0), 1), D.OneHotCategoricalStraightThrough(t.ones(2)))],
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_shapes_reprs_and_constraints_are_torchs(torch, name: str) -> None:
    same_as_torch(torch, SHAPES[name])


# ----------------------------------------------------------------------------- validation and errors

ERRORS = {
    "negative scale": lambda t, D: D.Normal(t.tensor([0.0, 0.0]), t.tensor([1.0, -1.0])),
    "nan loc": lambda t, D: D.Normal(t.tensor([float("nan")]), t.tensor([1.0])),
    "scalar scale": lambda t, D: D.Normal(0.0, 0.0),
    "probs above one": lambda t, D: D.Bernoulli(t.tensor([0.2, 1.5])),
    "both probs and logits": lambda t, D: D.Bernoulli(probs=t.tensor(0.5), logits=t.tensor(0.0)),
    "neither": lambda t, D: D.Categorical(),
    "0-dim probs": lambda t, D: D.Categorical(t.tensor(1.0)),
    "0-dim logits": lambda t, D: D.Categorical(logits=t.tensor(1.0)),
    "negative probs": lambda t, D: D.Categorical(t.tensor([0.5, -0.5, 1.0])),
    "low above high": lambda t, D: D.Uniform(t.tensor([2.0]), t.tensor([1.0])),
    "value outside the support": lambda t, D: D.Bernoulli(t.tensor([0.3, 0.3])).log_prob(t.tensor([0.5, 1.0])),
    "category out of range": lambda t, D: D.Categorical(logits=t.zeros(3)).log_prob(t.tensor(3)),
    "value not broadcastable": lambda t, D: D.Normal(t.zeros(3), 1.0).log_prob(t.zeros(2)),
    "event shape": lambda t, D: D.OneHotCategorical(t.ones(3)).log_prob(t.tensor([1.0, 0.0])),
    "value not a tensor": lambda t, D: D.Normal(0.0, 1.0).log_prob(0.5),
    "uniform outside": lambda t, D: D.Uniform(0.0, 1.0).log_prob(t.tensor(2.0)),
    "too many reinterpreted dims": lambda t, D: D.Independent(D.Normal(t.zeros(2), 1.0), 2),
    "not a number": lambda t, D: D.Normal("0", 1.0),
    "validation off": lambda t, D: [D.Normal(t.tensor([0.0]), t.tensor([-1.0]), validate_args=False).log_prob(t.tensor([1.0])),
                                    D.Uniform(0.0, 1.0, validate_args=False).log_prob(t.tensor(2.0))],
    "covariance not positive definite": lambda t, D: D.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "scale_tril not lower": lambda t, D: D.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 1.0], [0.0, 1.0]])),
    "two matrices": lambda t, D: D.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    "mode of a uniform": lambda t, D: D.Uniform(0.0, 1.0).mode,
    "negative rate": lambda t, D: D.Exponential(t.tensor([1.0, -1.0])),
    "negative exponential value": lambda t, D: D.Exponential(1.0).log_prob(t.tensor(-1.0)),
    "zero geometric probs": lambda t, D: D.Geometric(t.tensor([0.5, 0.0])),
    "fractional geometric value": lambda t, D: D.Geometric(0.5).log_prob(t.tensor(1.5)),
    "zero laplace scale": lambda t, D: D.Laplace(0.0, 0.0),
    "rsample of a categorical": lambda t, D: D.Categorical(t.ones(2)).rsample(),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_validation_errors_are_torchs_word_for_word(torch, name: str) -> None:
    same_as_torch(torch, ERRORS[name])


def test_a_validation_error_prints_the_offending_tensor(torch) -> None:
    error = outcome(ERRORS["negative scale"], engine)
    assert error == ("ValueError", "Expected parameter scale (Tensor of shape (2,)) of distribution "
                     "Normal(loc: torch.Size([2]), scale: torch.Size([2])) to satisfy the constraint "
                     "GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 1., -1.])")


def test_sample_n_warns_as_torch_does(torch) -> None:
    for lib in (torch, engine):
        with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
            lib.distributions.Normal(0.0, 1.0).sample_n(2)


# ----------------------------------------------------------------------------- edge cases and bad input

EDGES = [  # what users write by mistake, and the corners of each distribution
    '"D.Normal(t.zeros(2), t.ones(3))"',
    '"D.Normal([0.0], [1.0])"',
    '"D.Normal(t.zeros(2), 1.0).sample(5)"',
    '"D.Normal(t.zeros(2), 1.0).sample([2, 2]).shape"',
    '"D.Normal(t.zeros(2), 1.0).log_prob(t.tensor([1, 2]))"',
    '"D.Normal(t.zeros(2), 1.0).log_prob(t.zeros(3, 2)).shape"',
    '"D.Categorical(probs=[0.2, 0.8])"',
    '"D.Categorical(probs=t.tensor([0.0, 0.0]))"',
    '"D.Categorical(logits=t.tensor([1, 2]))"',
    '"D.Categorical(logits=t.zeros(3)).log_prob(t.tensor([0.5]))"',
    '"D.Categorical(logits=t.zeros(3)).log_prob(t.tensor(1.0))"',
    '"D.Categorical(logits=t.zeros(3)).sample((2,)).dtype"',
    '"D.Categorical(logits=t.zeros(2, 3)).log_prob(t.tensor([0, 1, 2]))"',
    '"D.Bernoulli(t.tensor([0.5])).log_prob(t.tensor([1]))"',
    '"D.Bernoulli(t.tensor([2, 3]))"',
    '"D.Bernoulli(1.5)"',
    '"D.Bernoulli(t.tensor([0.5], dtype=t.float64)).sample().dtype"',
    '"D.Uniform(1.0, 1.0)"',
    '"D.Uniform(t.zeros(2), t.ones(2)).log_prob(t.tensor([0.5, 1.0]))"',
    '"D.Independent(D.Normal(t.zeros(2), 1.0), -1)"',
    '"D.Independent(D.Normal(t.zeros(2), 1.0), 0).log_prob(t.zeros(2))"',
    '"D.MultivariateNormal(t.zeros(2), t.eye(3))"',
    '"D.MultivariateNormal(t.tensor(0.0), t.eye(2))"',
    '"D.MultivariateNormal(t.zeros(2), t.ones(2))"',
    '"D.MultivariateNormal(t.zeros(2), precision_matrix=t.eye(2)).log_prob(t.ones(2))"',
    '"D.MultivariateNormal(t.zeros(2), precision_matrix=t.tensor([[2., 0.5], [0.5, 1.]])).scale_tril"',
    '"D.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.ones(3))"',
    '"D.MultivariateNormal(t.zeros(3, 2), t.eye(2)).log_prob(t.ones(2)).shape"',
    '"D.MultivariateNormal(t.zeros(3, 2), t.eye(2)).rsample((4,)).shape"',
    '"D.MultivariateNormal(t.zeros(2), t.eye(2)).expand((3,)).log_prob(t.zeros(3, 2))"',
    '"D.OneHotCategorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([1., 1.]))"',
    '"D.kl_divergence(D.Normal(t.zeros(2), 1.0), D.Normal(t.zeros(3), 1.0))"',
    '"D.kl_divergence(D.MultivariateNormal(t.zeros(2), t.eye(2)), D.MultivariateNormal(t.zeros(3), t.eye(3)))"',
    '"D.kl_divergence(1, 2)"',
    '"D.Normal(0.0, 1.0).mean.dtype"',
    '"D.Normal(t.zeros(2, dtype=t.float64), 1.0).log_prob(t.zeros(2)).dtype"',
    '"D.Normal(0.0, 1.0).expand((2,)).expand((3, 2)).batch_shape"',
    '"D.Normal(t.zeros(2), 1.0).expand((3,))"',
    '"D.Categorical(logits=t.zeros(3)).enumerate_support().shape"',
    '"D.Normal(0.0, 1.0).enumerate_support()"',
    '"D.Normal(0.0, 1.0).batch_shape == ()"',
    '"D.Categorical(t.tensor([[0.5, 0.5]])).batch_shape"',
    '"D.Distribution.set_default_validate_args(3)"',
    '"D.Normal(t.zeros(2), t.ones(2)).log_prob(t.tensor([float(\'nan\'), 0.0]))"',
    '"D.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, 2.0]), validate_args=True).cdf(t.tensor([0.5]))"',
    '"D.Normal(loc=t.zeros(1), scale=t.ones(1)).stddev"',
    '"D.Normal(t.zeros(2, requires_grad=True), 1.0).mean"',
    '"D.Categorical(logits=t.tensor([-float(\'inf\'), 0.0])).entropy()"',
    '"D.Categorical(probs=t.tensor([0.0, 1.0])).entropy()"',
    '"D.Categorical(probs=t.tensor([0.0, 1.0])).logits"',
    '"D.Normal(0.0, 1.0).perplexity()"',
    '"D.constraints.interval(0.0, 1.0).check(t.tensor([0.5, 2.0]))"',
    '"D.constraints.dependent.check(t.zeros(1))"',
    '"D.constraints.dependent.is_discrete"',
    '"D.Categorical.support"',
    '"D.Categorical.support.is_discrete"',
    '"D.OneHotCategoricalStraightThrough(logits=t.zeros(3, requires_grad=True)).rsample().grad_fn"',
]


@pytest.mark.parametrize("expression", EDGES)
def test_edge_cases_and_bad_input_behave_as_torch(torch, expression: str) -> None:
    same_as_torch(torch, lambda t, D: eval(expression, {"t": t, "D": D}))  # noqa: S307 - our own test expressions


def test_a_distribution_without_constraints_warns_naming_torchs_class(torch) -> None:
    for lib in (torch, engine):
        with pytest.warns(UserWarning, match=r"^<class 'torch.distributions.distribution.Distribution'> does not define"):
            lib.distributions.Distribution(validate_args=True)


# ----------------------------------------------------------------------------- multivariate normal

def test_multivariate_normal_agrees_with_torch_to_float32_rounding(torch) -> None:
    """The Cholesky factor comes from numpy's LAPACK, torch's from its own build's: the two can
    round the last bit differently, so values are compared within a few float32 ulps."""
    def program(t, D):
        loc = t.tensor([0.5, -1.0], requires_grad=True)
        cov = t.tensor([[2.0, 0.3], [0.3, 1.0]])
        m = D.MultivariateNormal(loc, cov)
        x = m.rsample((4,))
        lp = m.log_prob(t.tensor([[0.0, 0.0], [1.0, -1.0]]))
        other = D.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 0.0], [0.2, 0.7]]))
        kl = D.kl_divergence(m, other)
        (lp.sum() + kl + x.sum()).backward()
        return [x.tolist(), lp.tolist(), m.entropy().item(), kl.item(), loc.grad.tolist(), m.variance.tolist(),
                m.covariance_matrix.tolist()], [graph(lp), graph(kl)]

    real, real_graphs = (lambda r: (r[0], r[1]))(_run(torch, program))
    ours, our_graphs = _run(engine, program)
    flat = lambda v: [x for item in v for x in (flat(item) if isinstance(item, list) else [item])]  # noqa: E731
    assert close(flat(ours), flat(real), ulps=1e-6)
    assert our_graphs == real_graphs


def _run(lib: Any, program: Callable[[Any, Any], Any]) -> Any:
    lib.manual_seed(0)
    return program(lib, lib.distributions)


# ----------------------------------------------------------------------------- session state

def test_register_kl_and_the_validation_default_belong_to_one_runtime() -> None:
    from engine import runtime
    from engine.distributions import Distribution, Normal, kl_divergence, register_kl

    class Shifted(Normal):
        pass

    first, second = runtime.Runtime(), runtime.Runtime()
    with first.active():
        register_kl(Shifted, Shifted)(lambda p, q: engine.tensor(42.0))
        Distribution.set_default_validate_args(False)
        assert kl_divergence(Shifted(0.0, 1.0), Shifted(0.0, 1.0)).item() == 42.0
        Normal(0.0, -1.0)  # not validated
    with second.active():
        assert kl_divergence(Shifted(0.0, 1.0), Shifted(0.0, 1.0)).item() == 0.0
        with pytest.raises(ValueError, match="to satisfy the constraint GreaterThan"):
            Normal(0.0, -1.0)


def test_a_user_subclass_with_its_own_init_must_define_expand(torch) -> None:
    def program(t, D):
        class Mine(D.Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)

        return Mine(t.zeros(2)).expand((3, 2))

    same_as_torch(torch, program)
