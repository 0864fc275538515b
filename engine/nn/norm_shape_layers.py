"""nn modules for normalisation and reshaping beyond BatchNorm/LayerNorm/Flatten: RMSNorm, InstanceNorm1d/2d,
Unflatten, PixelShuffle/PixelUnshuffle, Upsample and the channel-wise Dropout1d/Dropout2d, printed as torch 2.13
prints them and checking their input as torch's do."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from engine import dtypes
from engine.nn import functional as F
from engine.nn import init
from engine.nn.layers import _NormBase
from engine.nn.module import Module
from engine.ops import factories
from engine.tensor import Parameter, Tensor


class RMSNorm(Module):
    def __init__(self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
                 device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(factories.empty(*shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _InstanceNorm(_NormBase):
    _dims: tuple[int, int] = (2, 3)  # the ranks accepted: unbatched, batched

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device: Any = None, dtype: dtypes.dtype | None = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002 - torch's argument names
        unbatched, batched = self._dims
        if input.ndim not in self._dims:
            raise ValueError(f"expected {unbatched}D or {batched}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - unbatched
        if input._shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input._shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          "warning by not passing in num_features, which is not used because affine=False",
                          UserWarning, stacklevel=3)
        if input.ndim == unbatched:
            return self._normalize(input.unsqueeze(0)).squeeze(0)
        return self._normalize(input)

    def _normalize(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.affine}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _dims = (3, 4)


class Unflatten(Module):
    def __init__(self, dim: int | str, unflattened_size: Sequence[int]) -> None:
        super().__init__()
        if isinstance(dim, int) and not isinstance(unflattened_size, (tuple, list)):
            raise TypeError("unflattened_size must be tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class PixelShuffle(Module):
    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class _ChannelDropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_ChannelDropout):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_ChannelDropout):
    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Upsample(Module):
    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None, recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners, self.recompute_scale_factor = mode, align_corners, recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


def _ntuple(value: Any, n: int) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _Pad(Module):
    _mode = "constant"
    _size = 2

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _ntuple(padding, self._size)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPad(_Pad):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPad):
    _size = 2


class ConstantPad2d(_ConstantPad):
    _size = 4


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    _mode, _size = "reflect", 2


class ReflectionPad2d(_Pad):
    _mode, _size = "reflect", 4


class ReplicationPad1d(_Pad):
    _mode, _size = "replicate", 2


class ReplicationPad2d(_Pad):
    _mode, _size = "replicate", 4
