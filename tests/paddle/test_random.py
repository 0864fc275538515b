"""paddle.seed reproduces Paddle's CPU random values bit for bit (engine/paddle/random.py):
compared with live Paddle 3.3.1 where it is installed, and with recorded digests always."""

import hashlib
import json

import numpy as np
import pytest

import engine.paddle as dialect
from engine.paddle import random as rng
from tests.paddle.random_calls import CALLS, values
from tests.paddle.record import RANDOM_FILE

RECORDED = json.loads(RANDOM_FILE.read_text(encoding="utf-8"))


def digest(array: np.ndarray) -> dict:
    array = np.ascontiguousarray(array)
    return {"shape": list(array.shape), "dtype": array.dtype.name,
            "sha256": hashlib.sha256(array.tobytes()).hexdigest(), "head": array.reshape(-1)[:4].tolist()}


@pytest.fixture(autouse=True)
def fresh():
    dialect.reset()
    yield
    dialect.reset()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_dialect_draws_the_recorded_values(name):
    assert digest(values(dialect, name)) == RECORDED[name]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_dialect_draws_what_live_paddle_draws(name, real_paddle):
    expected, got = values(real_paddle.paddle, name), values(dialect, name)
    assert expected.dtype == got.dtype and np.array_equal(expected, got)


def test_the_recording_is_current(real_paddle):
    assert {name: digest(values(real_paddle.paddle, name)) for name in CALLS} == RECORDED


def test_seed_seq_keeps_the_low_32_bits_and_a_fresh_dialect_starts_at_seed_0():
    assert dialect.seed(2**32).initial_seed() == 2**32
    high = dialect.rand([3]).numpy()
    dialect.seed(0)
    assert np.array_equal(high, dialect.rand([3]).numpy())
    dialect.reset()
    first = dialect.rand([3]).numpy()
    dialect.seed(0)
    assert np.array_equal(first, dialect.rand([3]).numpy())


def test_a_negative_seed_is_refused_as_paddle_refuses_it():
    with pytest.raises(TypeError, match="incompatible function arguments"):
        dialect.seed(-1)


def test_rng_state_round_trips():
    state = dialect.get_rng_state()
    first = dialect.randn([5]).numpy()
    dialect.set_rng_state(state)
    assert np.array_equal(first, dialect.randn([5]).numpy())


def test_the_engine_buffers_words_without_losing_any():
    engine = rng.Engine(7)
    whole = rng.Engine(7).draw(1000).copy()
    parts = [engine.draw(1).copy(), engine.peek(400).copy()[:0], engine.draw(611).copy(), engine.draw(388).copy()]
    assert np.array_equal(np.concatenate(parts), whole)


def test_each_session_has_its_own_paddle_generator():
    """The generator is a part of the runtime: seeding or drawing in one session moves no other."""
    from tensorscope.session import Session

    alone = Session()
    alone.run("import paddle\npaddle.seed(3)\na = paddle.rand([3])\nb = paddle.randn([3])")
    first, second = Session(), Session()
    first.run("import paddle\npaddle.seed(3)\na = paddle.rand([3])")
    second.run("import paddle\npaddle.seed(9)\nz = paddle.rand([50])")
    first.run("b = paddle.randn([3])")
    for name in "ab":
        assert first.last.objects[name].values == alone.last.objects[name].values
