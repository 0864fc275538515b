"""The engine's random ops against PyTorch's CPU generator, bit for bit.

Seeded tutorial code must print PyTorch's numbers, so every comparison here is on the raw bits
(-0.0 and +0.0 differ), after the same seed and the same sequence of calls: across seeds, sizes on
both sides of the 16-element fill path, dtypes, strided tensors, explicit generators and
interleavings that share the generator's cached normal sample.

The comparisons take the `torch` fixture (tests/conftest.py), which skips them cleanly when the
reference is not installed; the tests without it (known values, determinism, state round trips,
errors) run either way.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine

SEEDS = [0, 1, 42, 1234, 2**32 + 1, 2**63 + 5, -7]
SIZES = [1, 5, 15, 16, 17, 31, 100, 1000]
FLOATS = ["float32", "float64"]

Script = Callable[[Any], Any]


def as_bits(t: Any) -> np.ndarray:
    """A tensor's values as integers of the same width, so that the comparison sees every bit."""
    array = np.ascontiguousarray(t.detach().numpy() if hasattr(t, "detach") else t.numpy())
    return array.view(f"u{array.itemsize}") if array.dtype.kind == "f" else array


def outputs(result: Any) -> list[Any]:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def assert_same(got: Any, expected: Any) -> None:
    """Same dtype, shape, strides and bits."""
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    assert tuple(got.stride()) == tuple(expected.stride())
    np.testing.assert_array_equal(as_bits(got), as_bits(expected))


def run(lib: Any, seed: int, script: Script) -> list[Any]:
    lib.manual_seed(seed)
    return outputs(script(lib))


def compare(torch: Any, script: Script, seeds: list[int] = SEEDS) -> None:
    """Run `script(lib)` after manual_seed in PyTorch and in the engine; every output must match."""
    for seed in seeds:
        expected, got = run(torch, seed, script), run(engine, seed, script)
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert_same(g, e)


# --------------------------------------------------------------------------- without the reference
def test_rand_after_seed_0_gives_the_known_values() -> None:
    engine.manual_seed(0)
    assert engine.rand(5).tolist() == [0.49625658988952637, 0.7682217955589294, 0.08847743272781372,
                                       0.13203048706054688, 0.30742281675338745]


def test_randn_after_seed_0_gives_the_known_values_on_both_paths() -> None:
    engine.manual_seed(0)
    assert engine.randn(5).tolist() == [1.5409960746765137, -0.293428897857666, -2.1787893772125244,
                                        0.5684312582015991, -1.0845223665237427]
    engine.manual_seed(0)
    assert engine.randn(16)[:4].tolist() == [-1.1258398294448853, -1.152360200881958, -0.2505785822868347,
                                             -0.4338788092136383]
    engine.manual_seed(0)
    assert engine.randn(3, dtype=engine.float64).tolist() == [1.5409961082440433, -0.2934289057609464,
                                                              -2.1787893820745574]


def test_integer_ops_after_seed_0_give_the_known_values() -> None:
    engine.manual_seed(0)
    assert engine.randint(0, 10, (8,)).tolist() == [4, 9, 3, 0, 3, 9, 7, 3]
    assert engine.randperm(6).tolist() == [1, 4, 3, 5, 0, 2]


def mixed_script(lib: Any) -> list[Any]:
    """A bit of everything, so that any op drawing a different number of words shows downstream."""
    g = lib.Generator().manual_seed(7)
    return [lib.rand(3), lib.randn(20), lib.randn(5), lib.randint(0, 100, (6,)), lib.randperm(9),
            lib.empty(4, 5).t().normal_(), lib.empty(7).uniform_(-2, 3), lib.randn(4, generator=g),
            lib.empty(10).bernoulli_(0.3), lib.empty(5).exponential_(2.0), lib.normal(1.0, 2.0, (17,)),
            lib.randn(3, dtype=lib.float64), lib.rand(2)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seeded_run_repeats_exactly(seed: int) -> None:
    first = run(engine, seed, mixed_script)
    second = run(engine, seed, mixed_script)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(as_bits(a), as_bits(b))


def test_different_seeds_give_different_streams() -> None:
    assert not np.array_equal(as_bits(run(engine, 1, lambda t: t.rand(8))[0]),
                              as_bits(run(engine, 2, lambda t: t.rand(8))[0]))


def test_seed_is_kept_whole_and_the_engine_uses_its_low_32_bits() -> None:
    """As mt19937(seed): 2**32 + 1 runs the stream of 1 but still reports itself."""
    assert engine.manual_seed(2**32 + 1).initial_seed() == 2**32 + 1
    high = engine.rand(4)
    engine.manual_seed(1)
    np.testing.assert_array_equal(as_bits(high), as_bits(engine.rand(4)))
    assert engine.manual_seed(-1).initial_seed() == 2**64 - 1
    assert engine.manual_seed(3.9).initial_seed() == 3  # torch.manual_seed converts with int()


def test_a_generator_object_leaves_the_default_stream_alone() -> None:
    engine.manual_seed(5)
    expected = engine.rand(4)
    g = engine.Generator().manual_seed(5)
    engine.manual_seed(5)
    from_g = engine.rand(4, generator=g)
    engine.randn(30, generator=g)
    np.testing.assert_array_equal(as_bits(engine.rand(4)), as_bits(expected))
    np.testing.assert_array_equal(as_bits(from_g), as_bits(expected))
    assert engine.Generator().initial_seed() == 67280421310721


def test_rng_state_round_trip_restores_the_stream_and_the_cached_normal() -> None:
    engine.manual_seed(11)
    engine.randn(3)  # odd count: a second Box-Muller sample is now cached on the generator
    state = engine.get_rng_state()
    assert state.dtype is engine.uint8 and tuple(state.shape) == (5056,)
    first = [engine.randn(1), engine.randn(5), engine.rand(2), engine.randn(40)]
    engine.set_rng_state(state)
    second = [engine.randn(1), engine.randn(5), engine.rand(2), engine.randn(40)]
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(as_bits(a), as_bits(b))
    g = engine.Generator().manual_seed(3)
    saved = g.get_state()
    a = engine.rand(6, generator=g)
    np.testing.assert_array_equal(as_bits(engine.rand(6, generator=g.set_state(saved))), as_bits(a))


def test_manual_seed_drops_the_cached_normal() -> None:
    engine.manual_seed(0)
    engine.randn(1)
    engine.manual_seed(0)
    np.testing.assert_array_equal(as_bits(engine.randn(1)), as_bits(run(engine, 0, lambda t: t.randn(1))[0]))


def test_rng_state_must_be_a_byte_tensor_of_the_right_size() -> None:
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        engine.set_rng_state(engine.zeros(5056))
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size 5056"):
        engine.set_rng_state(engine.zeros(10, dtype=engine.uint8))


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: engine.empty(3).normal_(0, -1), RuntimeError, "normal expects std >= 0.0, but found std -1"),
    (lambda: engine.randn(3, dtype=engine.int64), NotImplementedError, '"normal_kernel_cpu" not implemented for \'Long\''),
    (lambda: engine.empty(3).uniform_(1, 0), RuntimeError,
     "uniform_ expects to return a [from, to) range, but found from=1 > to=0"),
    (lambda: engine.empty(3).bernoulli_(1.5), RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
    (lambda: engine.empty(3).exponential_(0), RuntimeError, "exponential_ expects lambda > 0.0, but found lambda=0"),
    (lambda: engine.randint(5, 3, (2,)), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda: engine.empty(3, dtype=engine.uint8).random_(0, 300), RuntimeError,
     "to - 1 is out of bounds for unsigned char"),
    (lambda: engine.randperm(-1), RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    (lambda: engine.multinomial(engine.tensor([1.0, 1.0]), 3), RuntimeError,
     "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: engine.Generator().manual_seed(1.5), RuntimeError, "manual_seed expected a long, but got float"),
], ids=["normal std", "randn int", "uniform bounds", "bernoulli p", "exponential lambda", "randint bounds",
        "random_ type bounds", "randperm negative", "multinomial without replacement", "generator seed type"])
def test_invalid_arguments_raise_as_pytorch_does(call: Callable[[], Any], error: type, message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


# --------------------------------------------------------------------------- against PyTorch
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", SIZES)
def test_rand_matches(torch: Any, size: int, dtype: str) -> None:
    compare(torch, lambda t: t.rand(size, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", SIZES)
def test_randn_matches(torch: Any, size: int, dtype: str) -> None:
    """Below 16 elements the cached Box-Muller of normal_distribution<double>, from 16 on the block
    fill (with the redrawn last block when 16 does not divide the size)."""
    compare(torch, lambda t: t.randn(size, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("size", [16, 17, 1000, 100_000])
def test_randn_matches_on_large_and_multi_dimensional_shapes(torch: Any, size: int) -> None:
    compare(torch, lambda t: [t.randn(size), t.randn(3, size // 3 + 1), t.randn(2, 8, 5)], seeds=[0, 99])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", [3, 16, 17, 100])
@pytest.mark.parametrize(("mean", "std"), [(0.0, 1.0), (0.3, 2.7), (-1.1, 0.37), (5.0, 1e-3)])
def test_normal__matches(torch: Any, size: int, dtype: str, mean: float, std: float) -> None:
    compare(torch, lambda t: t.empty(size, dtype=getattr(t, dtype)).normal_(mean, std))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("low", "high"), [(0.0, 1.0), (-0.3, 0.7), (-2.5, 1.25), (3.0, 3.1), (5.0, 5.01),
                                           (1e6, 1e6 + 1), (1.0, 1.0 + 1e-6)])
def test_uniform__matches(torch: Any, low: float, high: float, dtype: str) -> None:
    """Narrow ranges included: a value that rounds up to `to` is returned as `from`."""
    compare(torch, lambda t: t.empty(2000, dtype=getattr(t, dtype)).uniform_(low, high), seeds=[0, 1, 2**40 + 3])


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_fills_drawn_chunk_by_chunk_match_across_the_chunk_edges(torch: Any, dtype: str) -> None:
    """The block fill and the uniforms draw their words a chunk at a time (32 Ki normals, 8 Ki
    uniforms): sizes around those edges, then a draw that continues the stream."""
    def draws(t: Any) -> list[Any]:
        kind = getattr(t, dtype)
        return [t.randn(2 * 32768 + 16 + 5, dtype=kind), t.empty(32768 - 3, dtype=kind).normal_(0.3, 2.7),
                t.rand(3 * 8192 + 7, dtype=kind), t.empty(8192 + 1, dtype=kind).uniform_(-2.5, 1.25),
                t.randn(17, dtype=kind)]
    compare(torch, draws)


def test_float16_matches(torch: Any) -> None:
    """Half computes in float; its block fill skips the uniforms of a partial block."""
    compare(torch, lambda t: [t.rand(20, dtype=t.float16), t.randn(17, dtype=t.float16),
                              t.randn(5, dtype=t.float16), t.empty(100, dtype=t.float16).normal_(0.3, 2.7),
                              t.empty(50, dtype=t.float16).uniform_(-2.7, 1.3)])


def test_in_place_ops_fill_strided_tensors_in_memory_order(torch: Any) -> None:
    compare(torch, lambda t: [t.empty(5, 4).t().normal_(), t.empty(6, 5).t().normal_(0.5, 2.0),
                              t.empty(5, 4).t().uniform_(-1, 2), t.zeros(4, 6)[:, ::2].uniform_(),
                              t.zeros(8, 8)[::2, 1::3].normal_(), t.zeros(40)[::2].normal_(),
                              t.empty(3, 4, 5).permute(2, 0, 1).uniform_(), t.empty(3, 4, 5).permute(1, 2, 0).normal_(),
                              t.empty(4, 5).t().random_(0, 10), t.empty(4, 5).t().bernoulli_(0.4)])


def fits(dtype: str, low: int, high: int) -> bool:
    """Whether [low, high) is a valid randint range for dtype without PyTorch's precision warning."""
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return info.min <= low and high - 1 <= info.max
    return high <= 2 ** (24 if dtype == "float32" else 53)


RANGES = [(0, 10), (-5, 5), (0, 1), (0, 2**28 - 1), (0, 2**28), (3, 2**32 + 7), (-2**40, 2**40), (-2**62, 2**62)]


@pytest.mark.parametrize(("dtype", "low", "high"), [
    (dtype, low, high) for dtype in ["int64", "int32", "int16", "uint8", "float32", "float64"]
    for low, high in RANGES if fits(dtype, low, high)])
def test_randint_matches(torch: Any, dtype: str, low: int, high: int) -> None:
    """`word % range + low`, with random64() from a range of 2**28 on."""
    compare(torch, lambda t: t.randint(low, high, (50,), dtype=getattr(t, dtype)))


def test_randint_argument_forms_match(torch: Any) -> None:
    compare(torch, lambda t: [t.randint(10, (3, 4)), t.randint(5, size=(2,)), t.randint(low=2, high=9, size=(5,))])


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "float16", "float32",
                                   "float64"])
def test_random__matches(torch: Any, dtype: str) -> None:
    def script(t: Any) -> list[Any]:
        make = lambda: t.empty(40, dtype=getattr(t, dtype))  # noqa: E731
        results = [make().random_(), make().random_(2 if dtype == "bool" else 7)]
        if dtype != "bool":
            results += [make().random_(3, None), make().random_(1, 6), make().random_(**{"from": 1, "to": 6})]
        return results
    compare(torch, script)


def test_random__at_the_limits_matches(torch: Any) -> None:
    """Bounds past a float's exact integers are moved as ATen moves them (and PyTorch warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare(torch, lambda t: [t.empty(40, dtype=t.float64).random_(-2**62, 2**62),
                                  t.empty(40, dtype=t.float32).random_(-2**30, 2**30)], seeds=[0])
    compare(torch, lambda t: t.empty(40, dtype=t.int64).random_(-2**63, None))


def test_random__beyond_a_floats_exact_integers_warns() -> None:
    with pytest.warns(UserWarning, match=r"to - 1 is out of bounds \[-\(2\^24\), 2\^24\]"):
        engine.empty(3).random_(0, 2**30)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 10, 100, 1000, 54321])
def test_randperm_matches(torch: Any, n: int) -> None:
    """The swap-with-a-later-element shuffle of randperm_cpu, n - 1 words, then the stream goes on."""
    compare(torch, lambda t: [t.randperm(n), t.rand(2)], seeds=[0, 42])


def test_randperm_dtype_matches(torch: Any) -> None:
    compare(torch, lambda t: t.randperm(10, dtype=t.float32), seeds=[3])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
def test_bernoulli__matches(torch: Any, dtype: str) -> None:
    compare(torch, lambda t: t.empty(64, dtype=getattr(t, dtype)).bernoulli_(0.3))


def test_bernoulli_with_probability_tensors_matches(torch: Any) -> None:
    compare(torch, lambda t: [t.empty(64).bernoulli_(t.rand(64)), t.empty(8, 8).bernoulli_(t.rand(8, 1, dtype=t.float64)),
                              t.bernoulli(t.rand(64)), t.bernoulli(t.rand(64, dtype=t.float64)),
                              t.bernoulli(t.rand(4, 5).t()), t.bernoulli(t.zeros(30), 0.25), t.zeros(30).bernoulli(0.75)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("size", [5, 100])
def test_exponential__matches(torch: Any, dtype: str, size: int) -> None:
    compare(torch, lambda t: [t.empty(size, dtype=getattr(t, dtype)).exponential_(2.5),
                              t.empty(size, dtype=getattr(t, dtype)).exponential_()])


def test_normal_overloads_match(torch: Any) -> None:
    """normal(mean, std, size) is normal_(mean, std); tensor arguments are normal_(0, 1) (or (0, std))
    followed by separate mul_ and add_."""
    compare(torch, lambda t: [
        t.normal(1.5, 2.5, (3,)), t.normal(0.0, 1.0, size=(20,)), t.normal(2.0, 3.0, (4, 5), dtype=t.float64),
        t.normal(t.tensor([0.5, 1.0, -2.0, 3.0]), t.tensor([1.0, 2.0, 0.5, 0.1])),
        t.normal(t.arange(20.0), t.arange(20.0) / 7), t.normal(t.arange(20.0), 0.3),
        t.normal(-0.7, t.arange(20.0) / 3), t.normal(t.zeros(4, 5), t.arange(1.0, 6.0))])


def test_multinomial_matches(torch: Any) -> None:
    compare(torch, lambda t: [
        t.multinomial(t.tensor([0.1, 0.2, 0.7]), 1), t.multinomial(t.rand(4, 6), 1),
        t.multinomial(t.tensor([0.1, 0.2, 0.3, 0.4]), 3), t.multinomial(t.rand(3, 10), 5),
        t.multinomial(t.tensor([0.1, 0.2, 0.3, 0.4]), 10, True),
        t.multinomial(t.rand(3, 10, dtype=t.float64), 7, replacement=True),
        t.multinomial(t.tensor([1.0, 2.0, 3.0, 0.0, 5.0]), 50, True), t.multinomial(t.rand(5, 3).t(), 2)])


def test_like_factories_and_zero_sized_shapes_match(torch: Any) -> None:
    compare(torch, lambda t: [t.randn_like(t.zeros(4, 5)), t.rand_like(t.zeros(3, 2, dtype=t.float64)),
                              t.randn_like(t.zeros(5, 4).t()), t.rand_like(t.zeros(5, 4).t()),
                              t.randn(()), t.rand(()), t.randn(0), t.rand(2, 0)])


def test_generator_objects_match(torch: Any) -> None:
    def script(t: Any) -> list[Any]:
        g = t.Generator().manual_seed(123)
        h = t.Generator().manual_seed(123)
        return [t.rand(3, generator=g), t.randn(20, generator=g), t.randn(3, generator=g),
                t.randint(0, 5, (4,), generator=g), t.randperm(6, generator=g), t.empty(5).normal_(generator=g),
                t.empty(5).uniform_(generator=g), t.rand(2), t.randn(3, generator=h),
                t.normal(0.0, 1.0, (3,), generator=g), t.bernoulli(t.rand(4), generator=g),
                t.empty(3).exponential_(generator=g), t.multinomial(t.rand(5), 2, generator=g),
                t.rand(3, generator=t.Generator())]
    compare(torch, script)


INTERLEAVINGS = {
    "rand then both normal paths": lambda t: [t.rand(3), t.randn(20), t.randn(5)],
    "cached sample used by the next call": lambda t: [t.randn(3), t.randn(1), t.randn(2), t.randn(1)],
    "cache survives other ops": lambda t: [t.randn(3), t.rand(4), t.randint(0, 9, (3,)), t.randn(1)],
    "cache skipped by the fill path": lambda t: [t.randn(1), t.randn(16), t.randn(1)],
    "cache shared by float32 and float64": lambda t: [t.randn(1), t.randn(1, dtype=t.float64)],
    "cache feeds normal_ with mean and std": lambda t: [t.randn(1), t.empty(3).normal_(2.0, 0.5)],
    "everything": mixed_script,
}


@pytest.mark.parametrize("script", INTERLEAVINGS.values(), ids=INTERLEAVINGS.keys())
def test_interleavings_match(torch: Any, script: Script) -> None:
    compare(torch, script)


def test_linear_style_init_matches(torch: Any) -> None:
    def by_hand(t: Any) -> list[Any]:
        with t.no_grad():
            w = t.empty(30, 20, requires_grad=True)
            bound = 1 / math.sqrt(20)
            w.uniform_(-bound, bound)
        return [w]

    compare(torch, by_hand)
    compare(torch, lambda t: [p for p in [*t.nn.Linear(20, 30).parameters(), *t.nn.Linear(3, 7).parameters()]])


def test_rng_state_is_pytorchs_byte_for_byte(torch: Any) -> None:
    """The same CPUGeneratorImplState bytes, including `left`/`next` and the cached normal, also
    right after a whole block of 624 words; and a state taken from PyTorch drives the engine."""
    def states(t: Any) -> list[Any]:
        snapshots = [t.get_rng_state()]
        for step in (lambda: t.rand(3), lambda: t.randn(3), lambda: t.randn(700), lambda: t.rand(624 - 727 % 624)):
            step()
            snapshots.append(t.get_rng_state())
        return snapshots

    compare(torch, states)
    torch.manual_seed(3)
    torch.randn(5)
    engine.set_rng_state(engine.tensor(torch.get_rng_state().numpy()))
    assert_same(engine.randn(7), torch.randn(7))
    assert_same(engine.rand(5), torch.rand(5))


def test_errors_read_as_pytorchs(torch: Any) -> None:
    calls: list[Script] = [lambda t: t.empty(3).normal_(0, -1), lambda t: t.empty(3).uniform_(1, 0),
                           lambda t: t.empty(3).bernoulli_(1.5), lambda t: t.empty(3).exponential_(-1),
                           lambda t: t.empty(3).random_(5, 3), lambda t: t.empty(3, dtype=t.uint8).random_(-1, 3),
                           lambda t: t.rand(3, dtype=t.int64), lambda t: t.empty(3, dtype=t.long).exponential_(),
                           lambda t: t.empty(3).uniform_(-3e38, 3e38), lambda t: t.empty(2, dtype=t.float16).uniform_(-1e6, 1)]
    for call in calls:
        with pytest.raises(Exception) as expected:  # noqa: B017 - the type is what is being compared
            call(torch)
        with pytest.raises(Exception) as got:  # noqa: B017
            call(engine)
        assert (type(got.value), str(got.value)) == (type(expected.value), str(expected.value))


@pytest.mark.parametrize("name", ["log", "log1p", "sin", "cos"])
def test_double_transcendentals_are_the_c_librarys(name: str) -> None:
    """The double kernels' log/log1p/sin/cos give the C library's bits on every CPU (numpy's
    AVX-512 loops differ from it in the last bit for some inputs)."""
    from engine import libm

    values = np.random.default_rng(1).random(4096) * (-1.0 if name == "log1p" else 1.0) + (name == "log")
    expected = np.array([getattr(math, name)(v) for v in values.tolist()])
    assert getattr(libm, name)(values).view(np.uint64).tolist() == expected.view(np.uint64).tolist()
