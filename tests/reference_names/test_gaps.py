"""A name that PyTorch (or Paddle) has and the engine lacks is explained as a gap in tensorscope,
not left to read like a typo; the catalog behind it is what the real frameworks measure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tensorscope.explain import explain
from tensorscope.framework_gaps import catalog, explain_gap
from tensorscope.session import Session


def last_explanation(source: str) -> str | None:
    session = Session()
    session.run(source)
    return explain([step.snapshot for step in session.steps])


def test_a_torch_submodule_the_engine_lacks_is_named_as_a_gap() -> None:
    why = last_explanation("import torch\nx = torch.ones(4)\ntorch.fft.fft(x)")
    assert why is not None and why.startswith("PyTorch 2.13.0 has `torch.fft`, but tensorscope's engine does not")


def test_a_tensor_method_the_engine_lacks_is_named_as_a_gap() -> None:
    why = last_explanation("import torch\nx = torch.ones(4)\nx.stft(4)")
    assert why is not None and "`torch.Tensor.stft`" in why and "not a mistake in your code" in why


def test_a_typo_is_not_called_a_gap() -> None:
    assert last_explanation("import torch\nx = torch.ones(4)\nx.frobnicate()") is None
    assert last_explanation("import torch\ntorch.onez(3)") is None


def test_importing_a_submodule_the_engine_lacks() -> None:
    why = last_explanation("import torch.fft")
    assert why is not None and "`torch.fft`" in why


def test_a_session_with_both_dialects_names_both_frameworks() -> None:
    why = explain_gap("AttributeError", "'Tensor' object has no attribute 'stft'", ["import torch", "import paddle"])
    assert why is not None and "`torch.Tensor.stft` and Paddle 3.3.1 has `paddle.Tensor.stft`" in why
    assert explain_gap("AttributeError", "module 'paddle' has no attribute 'fft'", ["import paddle"]) is not None


def test_other_errors_are_left_alone() -> None:
    assert explain_gap("TypeError", "module 'torch' has no attribute 'fft'") is None
    assert explain_gap("AttributeError", "module 'numpy' has no attribute 'fft'") is None


def test_replay_json_carries_the_explanation(tmp_path) -> None:
    script = tmp_path / "gap.py"
    script.write_text("import torch\nx = torch.ones(2)\ny = torch.fft.fft(x)\n")
    out = subprocess.run([sys.executable, "-m", "tensorscope", "replay", "--json", str(script)],
                         capture_output=True, text=True, timeout=120).stdout
    last = json.loads(out.strip().splitlines()[-1])
    assert last["error"]["type"] == "AttributeError"
    assert "`torch.fft`" in last["explanation"]


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_the_catalog_is_what_the_installed_framework_has(framework: str) -> None:
    """Measured in a fresh interpreter: a submodule another test imported (torch.onnx, say) would
    otherwise show among its package's names."""
    pytest.importorskip(framework)
    owners = "TORCH_OWNERS" if framework == "torch" else "PADDLE_OWNERS"
    code = ("import json\nfrom tests.reference_names import measure\n"
            f"print(json.dumps(measure.measure(measure.{owners})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True,
                         cwd=Path(__file__).resolve().parents[2]).stdout
    assert catalog()[framework]["names"] == json.loads(out.strip().splitlines()[-1])
