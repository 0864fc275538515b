"""torch.finfo and torch.iinfo: the numeric limits of a dtype, printed as torch prints them."""

from __future__ import annotations

import numpy as np

from engine import dtypes


class finfo:  # noqa: N801 - torch's name
    """Limits of a floating-point dtype (the default dtype when none is given)."""

    def __init__(self, type: dtypes.dtype | None = None) -> None:  # noqa: A002 - torch's argument name
        target = dtypes.get_default_dtype() if type is None else type
        if not target.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        limits = dtypes.float_limits(target)
        self.bits = target.itemsize * 8
        self.eps, self.max, self.min = limits["eps"], limits["max"], -limits["max"]
        self.tiny = self.smallest_normal = limits["tiny"]
        self.resolution = float(10.0 ** -limits["precision"])
        self.dtype = target.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))


class iinfo:  # noqa: N801 - torch's name
    """Limits of an integer dtype."""

    def __init__(self, type: dtypes.dtype) -> None:  # noqa: A002
        if type.is_floating_point or type is dtypes.bool_:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), type.name

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))
