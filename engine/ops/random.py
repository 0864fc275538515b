"""Random numbers from one seeded generator, so a replay with the same seed gives the same values.

Values follow numpy's PCG64 stream, not PyTorch's; shapes, dtypes, versions and graphs match.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.core import apply_inplace, check_inplace_allowed, check_writable
from engine.ops.factories import _check_device, _finish
from engine.ops.views import sizes_arg
from engine.tensor import Tensor

DEFAULT_SEED = 67280421310721  # torch.initial_seed() of a fresh process


class Generator:
    """torch.Generator: a seedable source of random numbers."""

    def __init__(self, device: Any = "cpu") -> None:
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self.rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        return self._seed


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    return default_generator.initial_seed()


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).rng


def _sample(kind: str, shape: tuple[int, ...], dtype: dtypes.dtype, rng: np.random.Generator) -> np.ndarray:
    np_dtype = dtype.np if dtype.np in (np.float32, np.float64) else np.float64
    values = rng.standard_normal(shape, dtype=np_dtype) if kind == "normal" else rng.random(shape, dtype=np_dtype)
    return values.astype(dtype.np, copy=False)


def _random_factory(kind: str) -> Any:
    def make(*size: Any, dtype: dtypes.dtype | None = None, device: Any = None, requires_grad: bool = False,
             generator: Generator | None = None) -> Tensor:
        _check_device(device)
        target = dtype or dtypes.get_default_dtype()
        if not target.is_floating_point:
            raise RuntimeError(f"\"{'normal' if kind == 'normal' else 'check_uniform_bounds'}\" not implemented "
                               f"for '{target.short}'")
        return _finish(Tensor._wrap(_sample(kind, sizes_arg(size), target, _rng(generator)), target), requires_grad)
    return make


randn = _random_factory("normal")
rand = _random_factory("uniform")


def randn_like(other: Tensor, *, dtype: dtypes.dtype | None = None, requires_grad: bool = False) -> Tensor:
    return randn(other._shape, dtype=dtype or other.dtype, requires_grad=requires_grad)


def rand_like(other: Tensor, *, dtype: dtypes.dtype | None = None, requires_grad: bool = False) -> Tensor:
    return rand(other._shape, dtype=dtype or other.dtype, requires_grad=requires_grad)


def randint(low: int, high: int | None = None, size: Any = None, *, dtype: dtypes.dtype | None = None,
            generator: Generator | None = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    if high is None:
        low, high = 0, low
    target = dtype or dtypes.int64
    values = _rng(generator).integers(low, high, size=sizes_arg([size]))
    return _finish(Tensor._wrap(values.astype(target.np), target), requires_grad)


def randperm(n: int, *, dtype: dtypes.dtype | None = None, generator: Generator | None = None,
             device: Any = None) -> Tensor:
    target = dtype or dtypes.int64
    return Tensor._wrap(_rng(generator).permutation(n).astype(target.np), target)


def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None) -> Tensor:
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        m = mean._numpy_view() if isinstance(mean, Tensor) else mean
        s = std._numpy_view() if isinstance(std, Tensor) else std
        values = _sample("normal", like._shape, like.dtype, _rng(generator)) * s + m
        return Tensor._wrap(np.asarray(values, dtype=like.dtype.np), like.dtype)
    target = dtypes.get_default_dtype()
    values = _sample("normal", sizes_arg([size]), target, _rng(generator)) * std + mean
    return Tensor._wrap(values.astype(target.np), target)


def _random_inplace(self: Tensor, name: str, fill: Any) -> Tensor:
    check_inplace_allowed(self)
    check_writable(self)
    return apply_inplace(self, fill, name, (), lambda g, s: (np.zeros_like(g),), check_autograd=False)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    def fill(t: np.ndarray) -> None:
        t[...] = _sample("normal", t.shape, self.dtype, _rng(generator)) * std + mean
    return _random_inplace(self, "NormalBackward0", fill)


def uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    def fill(t: np.ndarray) -> None:
        t[...] = _sample("uniform", t.shape, self.dtype, _rng(generator)) * (b - a) + a
    return _random_inplace(self, "UniformBackward0", fill)


def bernoulli_(self: Tensor, p: float = 0.5, *, generator: Generator | None = None) -> Tensor:
    def fill(t: np.ndarray) -> None:
        t[...] = _rng(generator).random(t.shape) < p
    return _random_inplace(self, "BernoulliBackward1", fill)


def random_(self: Tensor, low: int = 0, high: int | None = None, *, generator: Generator | None = None) -> Tensor:
    if high is None:
        low, high = 0, (2**24 if self.dtype is dtypes.float32 else 2**53 if self.dtype.is_floating_point
                        else int(np.iinfo(self.dtype.np).max))

    def fill(t: np.ndarray) -> None:
        t[...] = _rng(generator).integers(low, high, size=t.shape)
    return _random_inplace(self, "RandomBackward1", fill)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    def fill(t: np.ndarray) -> None:
        t[...] = _rng(generator).exponential(1 / lambd, size=t.shape)
    return _random_inplace(self, "ExponentialBackward0", fill)


def bernoulli(self: Tensor, p: float | None = None, *, generator: Generator | None = None) -> Tensor:
    probs = self._numpy_view() if p is None else p
    values = _rng(generator).random(self._shape) < probs
    return Tensor._wrap(values.astype(self.dtype.np), self.dtype)


def multinomial(self: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    probs = self._numpy_view().astype(np.float64)
    rows = probs.reshape(-1, probs.shape[-1])
    picks = [_rng(generator).choice(rows.shape[1], size=num_samples, replace=replacement, p=r / r.sum()) for r in rows]
    result = np.array(picks, dtype=np.int64).reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._wrap(result, dtypes.int64)


METHODS = {"normal_": normal_, "uniform_": uniform_, "bernoulli_": bernoulli_, "random_": random_,
           "exponential_": exponential_, "bernoulli": bernoulli, "multinomial": multinomial}
FUNCTIONS = {"randn": randn, "rand": rand, "randn_like": randn_like, "rand_like": rand_like, "randint": randint,
             "randperm": randperm, "normal": normal, "manual_seed": manual_seed, "initial_seed": initial_seed,
             "Generator": Generator, "bernoulli": bernoulli, "multinomial": multinomial}
