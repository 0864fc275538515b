"""Real PaddlePaddle, when installed, as the reference for the Paddle dialect."""

import warnings

import pytest


@pytest.fixture(scope="session")
def real_paddle():
    """Real Paddle behind the snippet runner; the test is skipped when it is not installed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its import warns about a missing ccache
        paddle = pytest.importorskip("paddle")
    from tests.paddle.harness import RealPaddle

    return RealPaddle(paddle)
