"""Paddle's dtypes: `paddle.float32` prints as `paddle.float32`, its repr is `<DataType.FLOAT32: 10>`.

Each wraps the engine dtype that holds its data. Paddle accepts dtype names as strings
(`dtype='float32'`) and numpy dtypes wherever it takes a dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes as engine_dtypes
from engine import runtime


class DataType:
    """One Paddle element type (paddle.base.libpaddle.DataType)."""

    __slots__ = ("code", "engine", "name")

    def __init__(self, name: str, code: int, engine: engine_dtypes.dtype) -> None:
        self.name = name
        self.code = code
        self.engine = engine

    @property
    def np(self) -> np.dtype:
        return self.engine.np

    @property
    def is_floating_point(self) -> bool:
        return self.engine.is_floating_point

    def __str__(self) -> str:
        return f"paddle.{self.name}"

    def __repr__(self) -> str:
        return f"<DataType.{self.name.upper()}: {self.code}>"


# the codes are paddle's DataType enum values, as its repr shows them
float32 = DataType("float32", 10, engine_dtypes.float32)
float64 = DataType("float64", 11, engine_dtypes.float64)
float16 = DataType("float16", 15, engine_dtypes.float16)
int64 = DataType("int64", 9, engine_dtypes.int64)
int32 = DataType("int32", 7, engine_dtypes.int32)
int16 = DataType("int16", 5, engine_dtypes.int16)
int8 = DataType("int8", 3, engine_dtypes.int8)
uint8 = DataType("uint8", 2, engine_dtypes.uint8)
bool_ = DataType("bool", 1, engine_dtypes.bool_)

ALL = (float32, float64, float16, int64, int32, int16, int8, uint8, bool_)
_BY_NAME = {d.name: d for d in ALL}
_BY_ENGINE = {d.engine: d for d in ALL}



class _Default:
    """paddle.set_default_dtype's setting: a part of the engine's runtime."""

    __slots__ = ("floating",)

    def __init__(self) -> None:
        self.floating = float32


_default: _Default = runtime.slot(__name__, "_default", _Default)


def get_default_dtype() -> str:
    return _default.floating.name


def set_default_dtype(d: Any) -> None:
    found = to_dtype(d)
    if found not in (float16, float32, float64):
        raise TypeError("set_default_dtype only supports [float16, float32, float64, bfloat16] , "
                        f"but received {found.name}")
    _default.floating = found


def default() -> DataType:
    return _default.floating


def to_dtype(value: Any) -> DataType:
    """A Paddle dtype from what Paddle accepts: a DataType, its name, a numpy dtype or type."""
    if isinstance(value, DataType):
        return value
    if isinstance(value, engine_dtypes.dtype):
        return _BY_ENGINE[value]
    if isinstance(value, str):
        name = value.removeprefix("paddle.")
        if name in _BY_NAME:
            return _BY_NAME[name]
    try:
        return of_numpy(np.dtype(value))
    except (TypeError, KeyError):
        raise TypeError(f"Unsupported dtype: {value!r}") from None


def of_numpy(np_dtype: np.dtype) -> DataType:
    return _BY_ENGINE[engine_dtypes.from_numpy_dtype(np_dtype)]


def of_engine(d: engine_dtypes.dtype) -> DataType:
    return _BY_ENGINE[d]
