"""Train the same small model in torch and in the engine, step by step, and name the first tensor
whose bytes differ.

A training loop drifts from torch's in the last bits long before a printed loss shows it; once two
values part, every later step carries the difference on. This runs one recipe (an MLP, a loss, an
optimizer, optionally clip_grad_norm_) with `torch` bound to real torch and then to the engine,
records every tensor of every step in the order it is made (forward activations, the loss, each
gradient, the clipping norm, each parameter after the step, each piece of optimizer state), and
compares them byte for byte.

    python -m tests.training_diff                 # every recipe, 5 steps: the first divergence of each
    python -m tests.training_diff adam --steps 20
    python -m tests.training_diff --isolate       # each phase judged alone, from torch's values

    first_divergence(RECIPES["adam"], steps=5)    # None when every byte agrees

What still parts from torch 2.13 on an AVX-512 CPU, and why it is left: nn.Linear's matmul (torch
calls MKL's sgemm, whose kernel and order depend on the shape; numpy's OpenBLAS agrees on many
shapes, not all), float32 sqrt and tanh (MKL's vector library, within an ulp but not correctly
rounded), exact GELU's gradient (oneDNN's kernel), and a float32 sum over the first dim (the bias
gradient), whose ATen order the engine's sum does not follow yet.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Recipe:
    """One small training set-up: layer widths, activation, loss, optimizer and its options."""

    activation: str = "ReLU"
    loss: str = "MSELoss"
    optimizer: str = "SGD"
    options: dict[str, Any] = field(default_factory=dict)
    clip: float | None = None
    widths: tuple[int, ...] = (6, 20, 3)
    batch: int = 8


RECIPES: dict[str, Recipe] = {
    "sgd": Recipe(optimizer="SGD", options={"lr": 0.1}),
    "sgd_momentum": Recipe(activation="Tanh", optimizer="SGD", options={"lr": 0.05, "momentum": 0.9}),
    "sgd_nesterov": Recipe(optimizer="SGD", options={"lr": 0.05, "momentum": 0.9, "nesterov": True}),
    "sgd_weight_decay": Recipe(activation="GELU", optimizer="SGD",
                               options={"lr": 0.05, "momentum": 0.5, "weight_decay": 0.01}),
    "adam": Recipe(optimizer="Adam", options={"lr": 1e-2}),
    "adam_weight_decay": Recipe(activation="Tanh", optimizer="Adam", options={"lr": 1e-2, "weight_decay": 0.1}),
    "adamw": Recipe(activation="GELU", optimizer="AdamW", options={"lr": 1e-2, "betas": (0.9, 0.95)}),
    "rmsprop": Recipe(optimizer="RMSprop", options={"lr": 1e-2}),
    "rmsprop_momentum": Recipe(activation="Tanh", optimizer="RMSprop",
                               options={"lr": 1e-2, "momentum": 0.9, "centered": True}),
    "cross_entropy_sgd": Recipe(loss="CrossEntropyLoss", optimizer="SGD", options={"lr": 0.1}),
    "cross_entropy_adamw": Recipe(activation="GELU", loss="CrossEntropyLoss", optimizer="AdamW",
                                  options={"lr": 1e-2, "weight_decay": 0.1}),
    "clip_sgd_nesterov": Recipe(loss="CrossEntropyLoss", optimizer="SGD",
                                options={"lr": 0.5, "momentum": 0.9, "nesterov": True}, clip=0.1),
    "clip_adam": Recipe(activation="Tanh", optimizer="Adam", options={"lr": 1e-2}, clip=0.5),
}


def _initial_arrays(recipe: Recipe, seed: int) -> dict[str, np.ndarray]:
    """Weights, inputs and targets from numpy, so both frameworks start from the same bytes."""
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    for i, (fan_in, fan_out) in enumerate(zip(recipe.widths, recipe.widths[1:])):
        bound = 1 / np.sqrt(fan_in)
        arrays[f"{2 * i}.weight"] = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        arrays[f"{2 * i}.bias"] = rng.uniform(-bound, bound, fan_out).astype(np.float32)
    arrays["x"] = rng.standard_normal((recipe.batch, recipe.widths[0])).astype(np.float32)
    if recipe.loss == "CrossEntropyLoss":
        arrays["y"] = rng.integers(0, recipe.widths[-1], recipe.batch).astype(np.int64)
    else:
        arrays["y"] = rng.standard_normal((recipe.batch, recipe.widths[-1])).astype(np.float32)
    return arrays


def _bytes(t: Any) -> np.ndarray:
    return np.array(t.detach().numpy(), copy=True)


class Loop:
    """One framework's side of the training loop, in phases that can be fed the other side's values."""

    def __init__(self, torch_module: Any, recipe: Recipe, seed: int) -> None:
        T = self.torch = torch_module
        nn = T.nn
        self.recipe = recipe
        arrays = _initial_arrays(recipe, seed)
        layers: list[Any] = []
        for i, (fan_in, fan_out) in enumerate(zip(recipe.widths, recipe.widths[1:])):
            if i:
                layers.append(getattr(nn, recipe.activation)())
            layers.append(nn.Linear(fan_in, fan_out))
        self.model = nn.Sequential(*layers)
        self.params = dict(self.model.named_parameters())
        with T.no_grad():
            for name, p in self.params.items():
                p.copy_(T.from_numpy(arrays[name]))
        self.x, self.y = T.from_numpy(arrays["x"]), T.from_numpy(arrays["y"])
        self.loss_fn = getattr(nn, recipe.loss)()
        self.optimizer = getattr(T.optim, recipe.optimizer)(self.model.parameters(), **recipe.options)

    def forward_backward(self) -> Iterator[tuple[str, np.ndarray]]:
        self.optimizer.zero_grad()
        h = self.x
        for i, layer in enumerate(self.model):
            h = layer(h)
            yield f"forward {i} ({type(layer).__name__})", _bytes(h)
        loss = self.loss_fn(h, self.y)
        yield "loss", _bytes(loss)
        loss.backward()
        for name, p in self.params.items():
            yield f"{name}.grad", _bytes(p.grad)

    def clip(self) -> Iterator[tuple[str, np.ndarray]]:
        if self.recipe.clip is not None:
            norm = self.torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.recipe.clip)
            yield "clip total_norm", _bytes(norm)
            for name, p in self.params.items():
                yield f"{name}.grad clipped", _bytes(p.grad)

    def step(self) -> Iterator[tuple[str, np.ndarray]]:
        self.optimizer.step()
        for name, p in self.params.items():
            for key, value in sorted(self.optimizer.state[p].items()):
                yield f"{name} state {key}", _bytes(value)
        for name, p in self.params.items():
            yield f"{name} after step", _bytes(p)

    def adopt_grads(self, other: Loop) -> None:
        """Take the other side's gradients (so the next phase starts from the same bytes)."""
        for name, p in self.params.items():
            p.grad.copy_(self.torch.from_numpy(_bytes(other.params[name].grad)))

    def adopt_state(self, other: Loop) -> None:
        """Take the other side's parameters and optimizer state."""
        with self.torch.no_grad():
            for name, p in self.params.items():
                p.copy_(self.torch.from_numpy(_bytes(other.params[name])))
                theirs = other.optimizer.state[other.params[name]]
                for key, value in self.optimizer.state[p].items():
                    value.copy_(self.torch.from_numpy(_bytes(theirs[key])))


def trace(torch_module: Any, recipe: Recipe, steps: int, seed: int = 0) -> Iterator[tuple[int, str, np.ndarray]]:
    """(step, name, values) of every tensor the loop makes, in order, with `torch_module` as torch."""
    loop = Loop(torch_module, recipe, seed)
    for step in range(steps):
        for phase in (loop.forward_backward, loop.clip, loop.step):
            for name, values in phase():
                yield step, name, values


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units of the last place between float32 arrays (0 where the bytes agree)."""
    def ordered(v: np.ndarray) -> np.ndarray:
        bits = v.astype(np.float32).view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)
    return np.abs(ordered(a) - ordered(b))


@dataclass
class Divergence:
    """The first tensor whose bytes differ: where, how many values, by how much."""

    step: int
    name: str
    phase: str  # forward_backward, clip or step
    differing: int
    size: int
    max_ulps: int
    torch_values: np.ndarray = field(repr=False)
    engine_values: np.ndarray = field(repr=False)

    def __str__(self) -> str:
        return (f"step {self.step}: {self.name}: {self.differing}/{self.size} values differ, "
                f"up to {self.max_ulps} ulp")


def _compare(step: int, phase: str, name: str, want: np.ndarray, got: np.ndarray) -> Divergence | None:
    if want.shape != got.shape or want.dtype != got.dtype:
        return Divergence(step, f"{name} (shape/dtype {got.shape} {got.dtype})", phase, want.size, want.size, -1,
                          want, got)
    if want.tobytes() == got.tobytes():
        return None
    distance = ulps(want, got) if want.dtype == np.float32 else (want != got).astype(np.int64)
    return Divergence(step, name, phase, int(np.count_nonzero(distance)), want.size, int(distance.max()), want, got)


def divergences(recipe: Recipe, steps: int = 5, seed: int = 0, isolate: bool = False) -> list[Divergence]:
    """The first differing tensor of each step, or with `isolate` of each phase of each step
    (forward and backward, clipping, the optimizer step), the engine being given torch's
    gradients, parameters and state before each phase so that every phase is judged alone."""
    import torch

    import engine

    ours, theirs = Loop(engine, recipe, seed), Loop(torch, recipe, seed)
    found: list[Divergence] = []
    for step in range(steps):
        first = None
        for phase, adopt in (("forward_backward", ours.adopt_grads), ("clip", ours.adopt_grads),
                             ("step", ours.adopt_state)):
            for (name, want), (got_name, got) in zip(getattr(theirs, phase)(), getattr(ours, phase)(), strict=True):
                assert name == got_name, (name, got_name)
                first = first or _compare(step, phase, name, want, got)
            if isolate:
                found += [first] if first else []
                first = None
                adopt(theirs)
        found += [first] if first else []
    return found


def first_divergence(recipe: Recipe, steps: int = 5, seed: int = 0, isolate: bool = False) -> Divergence | None:
    """The first tensor of the loop whose bytes differ between torch and the engine, or None."""
    found = divergences(recipe, steps, seed, isolate)
    return found[0] if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("recipes", nargs="*", choices=[[], *RECIPES], help="recipes to run (all by default)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--isolate", action="store_true",
                        help="judge each phase alone: the engine starts each from torch's values")
    args = parser.parse_args()
    for name in args.recipes or RECIPES:
        found = divergences(RECIPES[name], args.steps, args.seed, args.isolate)
        print(f"{name:24} {'' if found else f'bit-exact for {args.steps} steps'}")
        for divergence in found:
            print(f"    {divergence}")


if __name__ == "__main__":
    main()
