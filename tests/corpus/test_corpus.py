"""The corpus: everyday PyTorch programs (tutorials, pytorch/examples, d2l, nanoGPT, torchvision
and timm blocks, plain training loops) must print, raise and leave behind exactly what real torch
2.13 does, run with the engine standing in for torch and through `tensorscope replay`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus.harness import (
    comparable,
    comparable_step,
    engine_trace,
    program_names,
    program_source,
    run_program,
)
from tests.oracle import reconcile
from tests.torch_trace import record

# Programs that reach behaviour another part of the engine still has to model, with the reason.
NOT_YET: dict[str, str] = {}


def _params() -> list[object]:
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[name])) if name in NOT_YET
            else name for name in program_names()]


@pytest.mark.parametrize("name", _params())
def test_program_with_the_engine_as_torch(name: str, torch) -> None:
    source = program_source(name)
    real = comparable(run_program(source, "torch"))
    ours = comparable(run_program(source, "engine"))
    assert reconcile(real, ours) == real


@pytest.mark.parametrize("name", _params())
def test_program_through_replay(name: str, torch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = program_source(name)
    ours = [comparable_step(step) for step in engine_trace(source, tmp_path, capsys)]
    theirs = [comparable_step(step) for step in record(source)]
    assert [s["source"] for s in ours] == [s["source"] for s in theirs]
    for mine, real in zip(ours, theirs, strict=True):
        assert reconcile(real, mine) == real, f"step {real['step']}: {real['source']}"


def test_the_corpus_is_large_enough() -> None:
    assert len(program_names()) >= 40
