"""torch.distributions: Normal, Bernoulli, Categorical, OneHotCategorical, Uniform, Exponential,
Laplace, Geometric, Gumbel, LogNormal, RelaxedBernoulli, RelaxedOneHotCategorical, Independent,
MultivariateNormal, MixtureSameFamily and TransformedDistribution (with the exp, sigmoid, tanh,
affine and composed transforms), with kl_divergence between them, written in engine ops so that
samples draw the same numbers as torch under the same seed and log_prob, entropy and rsample build
the same graphs.

Distributions torch has and these modules lack (Beta, Gamma, Dirichlet, Poisson, the other
transforms...) stay out of `__all__`, so reading one is reported as a gap of tensorscope rather
than a typo.
"""

from __future__ import annotations

from engine.distributions import constraints, kl, transforms
from engine.distributions.bernoulli import Bernoulli
from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution, ExponentialFamily
from engine.distributions.exponential import Exponential
from engine.distributions.geometric import Geometric
from engine.distributions.gumbel import Gumbel
from engine.distributions.independent import Independent
from engine.distributions.kl import kl_divergence, register_kl
from engine.distributions.laplace import Laplace
from engine.distributions.log_normal import LogNormal
from engine.distributions.mixture_same_family import MixtureSameFamily
from engine.distributions.multivariate_normal import MultivariateNormal
from engine.distributions.normal import Normal
from engine.distributions.one_hot_categorical import (
    OneHotCategorical,
    OneHotCategoricalStraightThrough,
)
from engine.distributions.relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from engine.distributions.relaxed_categorical import ExpRelaxedCategorical, RelaxedOneHotCategorical
from engine.distributions.transformed_distribution import TransformedDistribution
from engine.distributions.transforms import (
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    SigmoidTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from engine.distributions.uniform import Uniform

__all__ = ["AffineTransform", "Bernoulli", "Categorical", "ComposeTransform", "Distribution", "ExpTransform",
           "Exponential", "ExponentialFamily", "Geometric", "Gumbel", "Independent", "Laplace", "LogNormal", "MixtureSameFamily",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "RelaxedBernoulli",
           "RelaxedOneHotCategorical", "SigmoidTransform", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "identity_transform", "kl_divergence", "register_kl"]
