"""Tensors printed as Paddle prints them (python/paddle/tensor/to_string.py in 3.3.1).

    Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
           [[0.01281848, 0.49046370, 0.38028833],
            [0.83167791, 0.35943511, 0.36260197]])

Every element gets the width of the widest one (a leading space when some are negative); floats
print with 8 decimals unless all of an element's digits are integral (`2.`); more than 1000
elements are summarised to 3 at each edge of every dimension.
"""

from __future__ import annotations

import numpy as np

PRECISION = 8
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


def _summary(values: np.ndarray) -> np.ndarray:
    """The elements that will be shown (edges of every dimension), to size the columns."""
    if values.size == 0:
        return np.array([])
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        rows = [*values[:EDGEITEMS], *values[-EDGEITEMS:]]
    else:
        rows = list(values)
    if values.ndim == 1:
        return np.array(rows, dtype=values.dtype)
    return np.stack([_summary(r) for r in rows])


def _item(value: np.generic, width: int = 0, signed: bool = False) -> str:
    if value.dtype.kind == "f":
        text = f"{value:.0f}." if np.ceil(value) == value else f"{value:.{PRECISION}f}"
    else:
        text = f"{value}"
    if width <= len(text):
        return text
    if signed and not value < 0:
        return " " + text.ljust(width - 1)
    return text.ljust(width)


def _widest(values: np.ndarray) -> tuple[int, bool]:
    width, signed = 0, False
    for value in values.flatten():
        signed = signed or bool(value < 0)
        width = max(width, len(_item(value)))
    return width, signed


def _block(values: np.ndarray, summary: bool, indent: int, width: int, signed: bool) -> str:
    if values.ndim == 0:
        return _item(values[()], width, signed)
    n = values.shape[0]
    rows = range(n)
    cut = summary and n > 2 * EDGEITEMS
    if cut:
        rows = [*range(EDGEITEMS), -1, *range(n - EDGEITEMS, n)]
    if values.ndim == 1:
        items = ["..." if i == -1 else _item(values[i], width, signed) for i in rows]
        per_line = max(1, (LINEWIDTH - indent) // (width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    parts = ["..." if i == -1 else _block(values[i], summary, indent + 1, width, signed) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def format_values(values: np.ndarray, indent: int) -> str:
    summary = values.size > THRESHOLD and values.ndim > 0
    width, signed = _widest(_summary(values))
    return _block(values, summary, indent, width, signed)


def format_tensor(values: np.ndarray, shape: list[int], dtype_name: str, place: str, stop_gradient: bool,
                  prefix: str = "Tensor") -> str:
    indent = len(prefix) + 1
    return (f"{prefix}(shape={shape}, dtype={dtype_name}, place={place}, stop_gradient={stop_gradient},\n"
            f"{' ' * indent}{format_values(values, indent)})")
