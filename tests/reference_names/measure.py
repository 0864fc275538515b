"""Measure the public names of PyTorch 2.13 and Paddle 3.3.1 that tensorscope's gap explanations
read (`tensorscope/framework_names.json`): `python -m tests.reference_names.measure` rewrites the
file from the installed frameworks; tests/reference_names/test_catalog.py checks it still matches."""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

CATALOG = Path(__file__).resolve().parents[2] / "tensorscope" / "framework_names.json"

TORCH_OWNERS = ["torch", "torch.Tensor", "torch.nn", "torch.nn.Module", "torch.nn.functional", "torch.nn.init",
                "torch.nn.utils", "torch.linalg", "torch.fft", "torch.special", "torch.optim",
                "torch.optim.lr_scheduler", "torch.autograd", "torch.cuda", "torch.utils", "torch.utils.data",
                "torch.distributions", "torch.random", "torch.testing"]
PADDLE_OWNERS = ["paddle", "paddle.Tensor", "paddle.nn", "paddle.nn.Layer", "paddle.nn.functional",
                 "paddle.nn.initializer", "paddle.linalg", "paddle.fft", "paddle.optimizer", "paddle.autograd",
                 "paddle.io", "paddle.device"]


def resolve(dotted: str) -> Any:
    """A module, or a class inside one (`torch.Tensor`)."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        module, _, attribute = dotted.rpartition(".")
        return getattr(importlib.import_module(module), attribute)


def public_names(owner: Any) -> list[str]:
    return sorted(name for name in dir(owner) if not name.startswith("_"))


def measure(owners: list[str]) -> dict[str, list[str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {dotted: public_names(resolve(dotted)) for dotted in owners}


def catalog() -> dict[str, Any]:
    import paddle
    import torch

    return {"torch": {"version": torch.__version__.split("+")[0], "names": measure(TORCH_OWNERS)},
            "paddle": {"version": paddle.__version__, "names": measure(PADDLE_OWNERS)}}


if __name__ == "__main__":
    CATALOG.write_text(json.dumps(catalog(), indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {CATALOG.name}", file=sys.stderr)
