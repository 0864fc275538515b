"""F.interpolate (nearest and linear/bilinear modes) and the deprecated F.upsample* forms.

The checks and the output-size arithmetic are torch.nn.functional.interpolate's; the op recorded is
ATen's (UpsampleNearest1DBackward0, UpsampleNearest2DBackward0, UpsampleLinear1DBackward0,
UpsampleBilinear2DBackward0), keeping the output size, the scale factors it was given (None for an
explicit size) and align_corners. Their derivatives, upsample_*_backward ops whose own derivative is
the forward op again, are in engine/autograd/derivatives/nn.py.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.kernels import upsample as kernels
from engine.ops.core import record
from engine.tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_bilinear", "upsample_nearest"]

_NODES = {("nearest", 1): "UpsampleNearest1DBackward0", ("nearest", 2): "UpsampleNearest2DBackward0",
          ("linear", 1): "UpsampleLinear1DBackward0", ("bilinear", 2): "UpsampleBilinear2DBackward0"}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _precision(t: Tensor) -> type:
    return np.float64 if t.dtype.itemsize >= 8 else np.float32


def matrices(input_size: Sequence[int], output_size: Sequence[int], linear: bool, align_corners: bool,
             scales: Sequence[float | None], precision: type) -> list[np.ndarray]:
    return [kernels.axis_matrix(i, o, linear, align_corners, s, precision)
            for i, o, s in zip(input_size, output_size, scales)]


def upsample_op(input: Tensor, mode: str, output_size: Sequence[int], align_corners: bool | None,  # noqa: A002
                scales: Sequence[float | None]) -> Tensor:
    """aten::upsample_{nearest1d,nearest2d,linear1d,bilinear2d}."""
    spatial = input.ndim - 2
    if not input.dtype.is_floating_point:
        kernel = f"upsample_{mode}2d_channels_last" if spatial == 2 else \
            f"compute_indices_weights_{'linear' if mode == 'linear' else 'nearest'}"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.short}'")
    linear = mode != "nearest"
    ms = matrices(input._shape[2:], output_size, linear, bool(align_corners), scales, _precision(input))
    value = kernels.interpolate(input._numpy_view(), ms)
    out = Tensor._wrap(np.array(value, dtype=input.dtype.np, order="C"), input.dtype)
    values: dict[str, Any] = {"output_size": tuple(output_size), "self_sym_sizes": input._shape}
    if linear:
        values["align_corners"] = bool(align_corners)
    if spatial == 1:
        values["scales"] = scales[0]
    else:
        values["scales_h"], values["scales_w"] = scales
    record(_NODES[(mode, spatial)], out, (input,), values=values)
    return out


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales: list[float | None] | None = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input._shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            output_size = [int(s) for s in size]
        else:
            output_size = [int(size)] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input._shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                    "(s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor:
        output_size = [math.floor(float(input._shape[i + 2]) * scales[i]) for i in range(dim)]
        scales = None
    if antialias:
        raise NotImplementedError("interpolate with antialias=True is not supported by this engine")
    key = (mode, dim)
    if key not in _NODES:
        if mode in ("bicubic", "trilinear", "area", "nearest-exact") or (mode == "nearest" and dim == 3):
            raise NotImplementedError(f"interpolate mode {mode!r} on a {input.ndim}D input is not supported by "
                                      "this engine")
        wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
        if wanted is not None and input.ndim in (3, 4, 5):
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wanted}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: {_MODES} (got {mode})")
    if output_size is None:
        output_size = [int(input._shape[i + 2] * scales[i]) for i in range(dim)]
    return upsample_op(input, mode, output_size, align_corners, scales or [None] * dim)


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",  # noqa: A002
             align_corners: bool | None = None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:  # noqa: A002
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
