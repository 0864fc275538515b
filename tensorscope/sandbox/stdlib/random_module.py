"""`random`: CPython's own generator (Mersenne Twister), one instance per session.

`random.seed(n)` then draws give exactly CPython's values for the same n. Python seeds itself
from the operating system; here a session starts from a fixed seed instead (as faithful: either
is a seed nobody chose), so that a replay draws the same numbers again; `seed()` and `Random()`
without a seed use it too. What can be large is bounded: the bits of `getrandbits`, the bytes of
`randbytes`, and the items `choices`, `sample` and `shuffle` go through (a step each).
`SystemRandom` (the operating system's randomness) is not offered.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.sizes import check_int_bits, check_sequence_bytes, is_int

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

SESSION_SEED = 0  # what an unseeded generator starts from
_DIRECT = ("random", "uniform", "triangular", "randint", "randrange", "choice", "gauss", "normalvariate",
           "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate", "paretovariate",
           "weibullvariate", "getstate", "setstate")
_BOUNDED = ("seed", "getrandbits", "randbytes", "shuffle", "sample", "choices")
NAMES = ("Random", *_DIRECT, *_BOUNDED)


@gateway
def make_random_module(sandbox: Sandbox) -> dict[str, Any]:
    """The names of `random` for one sandbox: its Random class and a session instance's methods."""
    meter = sandbox.meter

    class Random:
        """random.Random over CPython's generator; a seed of None is the session's fixed seed."""

        __slots__ = ("_generator",)

        def __init__(self, x: Any = None) -> None:
            self._generator = random.Random(SESSION_SEED)
            self.seed(x)

        def seed(self, a: Any = None, version: int = 2) -> None:
            self._generator.seed(SESSION_SEED if a is None else a, version)

        def getrandbits(self, k: Any) -> int:
            if is_int(k):
                check_int_bits(k)
            return self._generator.getrandbits(k)

        def randbytes(self, n: Any) -> bytes:
            if is_int(n):
                check_sequence_bytes("randbytes()", n)
            return self._generator.randbytes(n)

        def shuffle(self, x: Any) -> None:
            meter.tick(len(x))
            self._generator.shuffle(x)

        def sample(self, population: Any, k: Any, *, counts: Any = None) -> list[Any]:
            if is_int(k):
                meter.tick(k)
            return self._generator.sample(population, k, counts=counts)

        def choices(self, population: Any, weights: Any = None, *, cum_weights: Any = None, k: Any = 1) -> list[Any]:
            if is_int(k):
                check_sequence_bytes("choices()", k * 8)
                meter.tick(k)
            return self._generator.choices(population, weights, cum_weights=cum_weights, k=k)

    for name in _DIRECT:
        setattr(Random, name, _forward(name))
    Random.__module__ = "random"
    session = Random()
    return {"Random": Random, **{name: getattr(session, name) for name in (*_DIRECT, *_BOUNDED)}}


@gateway
def _forward(name: str) -> Any:
    method = getattr(random.Random, name)

    def forwarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        return method(self._generator, *args, **kwargs)

    forwarded.__name__, forwarded.__qualname__, forwarded.__doc__ = name, f"Random.{name}", method.__doc__
    return forwarded
