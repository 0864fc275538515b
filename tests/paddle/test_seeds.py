"""The seed's Paddle code blocks (tests/data/paddle), run verbatim with `import paddle` being the
dialect, give what Paddle gives: recorded from Paddle 3.3.1 or, for the GPU block, the figures the
guide printed (see tests/data/paddle/README.md)."""

from pathlib import Path

import pytest

from tests.paddle.harness import run_dialect_file
from tests.paddle.record import DATA, GPU_ONLY, seed_names


def _source(name: str) -> str:
    return (DATA / f"{name}.py").read_text(encoding="utf-8")


def _expected(name: str) -> str:
    return Path(DATA / f"{name}.expected").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", seed_names())
def test_seed_block_gives_paddles_result(name):
    assert run_dialect_file(_source(name)).text() == _expected(name)


@pytest.mark.parametrize("name", [n for n in seed_names() if n not in GPU_ONLY])
def test_recorded_seed_block_matches_live_paddle(name, real_paddle):
    assert real_paddle.run(_source(name)).text() == _expected(name)


def test_gpu_blocks_need_the_simulated_device():
    """Without tensorscope's simulated GPU the dialect is the CPU wheel: set_device('gpu') refuses."""
    found = run_dialect_file(_source("000_02_relu_memory"), gpu=False)
    assert found.error == "ValueError: The device should not be 'gpu', since PaddlePaddle is not compiled with CUDA"
