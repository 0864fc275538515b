"""Random distributions against torch: kinds, batch shapes, sample shapes and parameters drawn from
a seeded generator; each program samples, scores its samples, reparameterises, takes the entropy
and backpropagates, and must come out as torch's (floats within the oracle's tolerance)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.engine.test_distributions import same_as_torch

KINDS = ("normal", "bernoulli", "categorical", "uniform", "exponential", "laplace", "gumbel", "mvn", "onehot",
         "independent", "mixture", "lognormal", "relaxed", "geometric")
NO_ENTROPY = ("mixture", "lognormal", "relaxed")  # torch defines none for them either


WITH_EVENTS = ("categorical", "mvn", "onehot", "independent", "mixture", "relaxed")  # parameters of shape batch + (k,)


def build(t: Any, D: Any, kind: str, batch: tuple[int, ...], leaf: Any) -> Any:
    """A distribution of `kind` over batch shape `batch` whose gradients reach `leaf`, its other
    parameters drawn from the seeded generator."""
    k = leaf.shape[-1] if kind in WITH_EVENTS else 0
    builders: dict[str, Callable[[], Any]] = {
        "normal": lambda: D.Normal(leaf, t.rand(batch) + 0.5),
        "bernoulli": lambda: D.Bernoulli(logits=leaf),
        "categorical": lambda: D.Categorical(logits=leaf),
        "uniform": lambda: D.Uniform(leaf, leaf.detach() + t.rand(batch) + 0.1),
        "exponential": lambda: D.Exponential(leaf.exp()),
        "laplace": lambda: D.Laplace(leaf, t.rand(batch) + 0.5),
        "gumbel": lambda: D.Gumbel(leaf, t.rand(batch) + 0.5),
        "mvn": lambda: (lambda a: D.MultivariateNormal(leaf, scale_tril=t.linalg.cholesky(a @ a.mT + t.eye(k))))(
            t.randn(batch + (k, k))),
        "onehot": lambda: D.OneHotCategorical(logits=leaf),
        "independent": lambda: D.Independent(D.Normal(leaf, 1.0), 1),
        "mixture": lambda: D.MixtureSameFamily(D.Categorical(logits=t.randn(batch + (k,))), D.Normal(leaf, 1.0)),
        "lognormal": lambda: D.LogNormal(leaf, t.rand(batch) + 0.5),
        "relaxed": lambda: D.RelaxedOneHotCategorical(t.tensor(0.7), logits=leaf),
        "geometric": lambda: D.Geometric(logits=leaf),
    }
    return builders[kind]()


def case(index: int) -> tuple[str, tuple[int, ...], tuple[int, ...], int, int]:
    rng = random.Random(index)
    batch = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    sample_shape = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
    return KINDS[index % len(KINDS)], batch, sample_shape, rng.randint(2, 4), rng.randint(0, 10**6)


@pytest.mark.parametrize("index", range(56), ids=lambda i: "{}-batch{}-sample{}".format(*case(i)[:3]))
def test_a_random_distribution_program_is_torchs(torch, index: int) -> None:
    kind, batch, sample_shape, k, seed = case(index)

    def program(t: Any, D: Any) -> Any:
        t.manual_seed(seed)
        leaf = t.randn(batch + ((k,) if kind in WITH_EVENTS else ())).requires_grad_()
        d = build(t, D, kind, batch, leaf)
        x = d.sample(sample_shape)
        log_prob = d.log_prob(x)
        found = [d.batch_shape, d.event_shape, x, log_prob]
        if d.has_rsample:
            found.append(d.rsample(sample_shape))
        if kind not in NO_ENTROPY:
            found.append(d.entropy())
        log_prob.sum().backward()
        return [*found, leaf.grad]

    same_as_torch(torch, program)
