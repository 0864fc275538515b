"""`tensorscope replay --json` on every CPU code block of the seeds, compared with the trace that
real PyTorch 2.13 produces for the same file (recorded by tests/torch_trace.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tensorscope.cli import main
from tests.torch_trace import record

SEEDS = Path(__file__).resolve().parents[1] / "data" / "seeds"
RAW_ID = re.compile(r"^\d{9,}$", re.M)  # print(id(a)): differs run to run
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")  # <... object at 0x7f...>

# Blocks the article runs after an earlier one, in the same session.
CONTINUES = {"004_02_w_data_normal": "004_01_leaf_normal_error"}
# `torch.FloatTensor(10)` is uninitialised memory: its values are whatever was there.
UNINITIALISED = {"w"}


def seed_scripts() -> list[str]:
    return sorted(p.stem for p in SEEDS.glob("*.py") if not p.stem.startswith(("paddle_", "cuda_")))


def script_for(name: str) -> str:
    text = (SEEDS / f"{name}.py").read_text(encoding="utf-8")
    if name in CONTINUES:
        text = (SEEDS / f"{CONTINUES[name]}.py").read_text(encoding="utf-8") + "\n" + text
    if "import torch" not in text:
        text = "import torch\n" + text  # the article's session had imported it already
    return text


def comparable(step: dict) -> dict:
    step = dict(step)
    step.pop("memory", None)
    step.pop("explanation", None)  # tensorscope's own words under an error: torch has none
    if step["output"] is not None:
        step["output"] = ADDRESS.sub(" at 0x…>", RAW_ID.sub("<id>", step["output"]))
    objects = {}
    for name, obj in step["objects"].items():
        obj = dict(obj)
        obj.pop("summary", None)
        if name in UNINITIALISED:
            obj.pop("values", None)
        objects[name] = obj
    step["objects"] = objects
    return step


def engine_trace(tmp_path: Path, source: str, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    script = tmp_path / "script.py"
    script.write_text(source, encoding="utf-8")
    assert main(["replay", str(script), "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("name", seed_scripts())
def test_replay_trace_matches_torch(name: str, torch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = script_for(name)
    ours = [comparable(step) for step in engine_trace(tmp_path, source, capsys)]
    theirs = [comparable(step) for step in record(source)]
    assert [s["source"] for s in ours] == [s["source"] for s in theirs]
    for mine, real in zip(ours, theirs):
        assert mine == real, f"step {real['step']}: {real['source']}"
