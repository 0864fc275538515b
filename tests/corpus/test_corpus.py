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


class MissingGrant(Exception):
    """The replay stopped where the sandbox refuses a pure-Python feature it does not grant yet."""


# Programs whose replay needs a sandbox grant that is still to come (issue 12, item 9): the name of
# the feature, and the words of the sandbox's refusal that show it was the reason.
NEEDS_GRANT = {
    "d2l_linreg_scratch": ("generator functions (`yield`)", "yield"),
    "examples_dcgan": ("`m.__class__.__name__`", "'__class__'"),
    "nanogpt_config_dataclass": ("`import dataclasses`", "'dataclasses'"),
    "timm_model_ema": ("`import copy`", "'copy'"),
    "tutorial_saving_loading": ("`import io` (io.BytesIO)", "'io'"),
}


# Programs that reach behaviour another part of the engine still has to model, with the reason.
NOT_YET = {
    "tutorial_extending_autograd": "ctx.mark_dirty (the version bump and torch.autograd.function node names of "
                                   "custom Functions) comes with issue 11's custom Function work",
}


def _engine_params() -> list[object]:
    return [pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[name])) if name in NOT_YET
            else name for name in program_names()]


def _replay_params() -> list[object]:
    params: list[object] = []
    for name in program_names():
        if name in NOT_YET:
            params.append(pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[name])))
        elif name in NEEDS_GRANT:
            grant = NEEDS_GRANT[name][0]
            mark = pytest.mark.xfail(strict=True, raises=MissingGrant,
                                     reason=f"the sandbox does not grant {grant} yet")
            params.append(pytest.param(name, marks=mark))
        else:
            params.append(name)
    return params


@pytest.mark.parametrize("name", _engine_params())
def test_program_with_the_engine_as_torch(name: str, torch) -> None:
    source = program_source(name)
    real = comparable(run_program(source, "torch"))
    ours = comparable(run_program(source, "engine"))
    assert reconcile(real, ours) == real


def _check_refusal(name: str, mine: dict, real: dict) -> None:
    """Raise MissingGrant when a program waiting for a grant stops at the sandbox's refusal."""
    if name in NEEDS_GRANT and mine["error"] is not None and real["error"] is None:
        grant, words = NEEDS_GRANT[name]
        if words in mine["error"]["message"]:
            raise MissingGrant(f"step {mine['step']}: {mine['error']['message']} (needs {grant})")


@pytest.mark.parametrize("name", _replay_params())
def test_program_through_replay(name: str, torch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = program_source(name)
    ours = [comparable_step(step) for step in engine_trace(source, tmp_path, capsys)]
    theirs = [comparable_step(step) for step in record(source)]
    assert [s["source"] for s in ours] == [s["source"] for s in theirs]
    for mine, real in zip(ours, theirs, strict=True):
        _check_refusal(name, mine, real)
        assert reconcile(real, mine) == real, f"step {real['step']}: {real['source']}"


def test_the_corpus_is_large_enough() -> None:
    assert len(program_names()) >= 40
