"""The nn ops torch also exposes as torch.* functions (torch.selu, torch.prelu, torch.kl_div...), with the
ATen signatures those take (a reduction as its enum: 0 none, 1 mean, 2 sum; torch 2.13's bindings of
kl_div and binary_cross_entropy_with_logits default to 0, unlike their functional forms). Each calls the
torch.nn.functional implementation in engine/nn, imported when first called (engine.nn is built on
these ops)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.tensor import Tensor

_REDUCTIONS = ("none", "mean", "sum")


def selu(input: Tensor) -> Tensor:  # noqa: A002 - torch's argument names
    from engine.nn import activations

    return activations.selu(input)


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    from engine.nn import activations

    return activations.selu_(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    from engine.nn import activations

    return activations.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    from engine.nn import activations

    return activations.celu_(input, alpha)


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    from engine.nn import activations

    return activations.prelu(input, weight)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    from engine.nn import activations

    return activations.hardshrink(input, lambd)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:  # noqa: A002
    """torch.kl_div: unreduced unless told (torch 2.13's binding defaults to 0), and without F's warning."""
    from engine.nn import losses

    return losses.kl_div_composite(input, target, reduction, log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,  # noqa: A002
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    from engine.nn import losses

    return losses.binary_cross_entropy_with_logits(input, target, weight, reduction=_REDUCTIONS[reduction],
                                                   pos_weight=pos_weight)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    from engine.nn import distance

    return distance.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    from engine.nn import distance

    return distance.pairwise_distance(x1, x2, p, eps, keepdim)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "selu": selu, "selu_": selu_, "celu": celu, "celu_": celu_, "prelu": prelu, "kl_div": kl_div,
    "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits, "cosine_similarity": cosine_similarity,
    "pairwise_distance": pairwise_distance, "hardshrink": hardshrink,
}
METHODS: dict[str, Callable[..., Any]] = {"prelu": prelu, "hardshrink": hardshrink}
