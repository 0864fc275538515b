"""paddle.nn.init: the PyTorch-style spelling of the initializers (`normal_(w)`, `kaiming_uniform_(w)`).

Each builds the matching paddle.nn.initializer and calls it, so it has the same semantics: the
tensor gets a fresh buffer, its version stays, and the call returns None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.paddle.nn.initializer import (
    Constant,
    KaimingNormal,
    KaimingUniform,
    Normal,
    Uniform,
    XavierNormal,
    XavierUniform,
    calculate_gain,
)
from engine.paddle.tensor import Tensor, replace_buffer


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
    return KaimingUniform(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu") -> None:
    return KaimingNormal(negative_slope=a, nonlinearity=nonlinearity, mode=mode)(tensor)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, fan_in: float | None = None,
                    fan_out: float | None = None) -> None:
    return XavierUniform(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, fan_in: float | None = None,
                   fan_out: float | None = None) -> None:
    return XavierNormal(gain=gain, fan_in=fan_in, fan_out=fan_out)(tensor)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> None:
    return Uniform(low=a, high=b)(tensor)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> None:
    return Normal(mean=mean, std=std)(tensor)


def constant_(tensor: Tensor, val: float) -> None:
    return Constant(value=val)(tensor)


def ones_(tensor: Tensor) -> None:
    return Constant(value=1.0)(tensor)


def zeros_(tensor: Tensor) -> None:
    return Constant(value=0.0)(tensor)


def eye_(tensor: Tensor) -> None:
    """The identity matrix (a 2-D tensor only), in a fresh buffer as the other initializers."""
    if tensor.ndim != 2:
        raise AssertionError("Only support 2-dimensional tensor.")
    rows, cols = tensor.shape
    replace_buffer(tensor._t, np.eye(rows, cols, dtype=tensor._t.dtype.np), tensor._t.dtype)
    return None


__all__ = ["Constant", "KaimingNormal", "KaimingUniform", "Normal", "Uniform", "XavierNormal", "XavierUniform",
           "calculate_gain", "constant_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
           "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_"]


def __getattr__(name: str) -> Any:
    from engine.paddle.messages import missing

    raise missing("paddle.nn.init", name)
