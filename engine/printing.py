"""Tensor repr text, byte for byte as PyTorch 2.13 prints it.

This mirrors torch/_tensor_str.py, print options included (torch.set_printoptions: precision,
threshold, edgeitems, linewidth, sci_mode, profile; by default 4, 1000, 3, 80 and sci_mode chosen
automatically), for strided, dense tensors. Large tensors are summarized before anything is
formatted, so printing never touches more than 2 * edgeitems entries per cut dimension.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import compress

import numpy as np

from engine import runtime


@dataclass
class PrintOptions:
    """torch's PRINT_OPTS, one set per engine runtime (a session's set_printoptions stays in it)."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


options: PrintOptions = runtime.slot(__name__, "options", PrintOptions)

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """torch.set_printoptions: a profile first, then each option given; sci_mode is always set
    (left out, it goes back to automatic)."""
    if profile is not None and profile in _PROFILES:
        options.precision, options.threshold, options.edgeitems, options.linewidth = _PROFILES[profile]
    if precision is not None:
        options.precision = precision
    if threshold is not None:
        options.threshold = threshold
    if edgeitems is not None:
        options.edgeitems = edgeitems
    if linewidth is not None:
        options.linewidth = linewidth
    options.sci_mode = sci_mode


_PREFIX = "tensor("
_INDENT = len(_PREFIX)
_FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
# torch omits the dtype suffix for the default float dtype, int64 and bool
# (empty tensors only for the default float dtype, since nothing else hints at it).
_IMPLIED_DTYPES = frozenset({"float32", "complex64", "int64", "bool"})
_DEFAULT_DTYPE = "float32"


def format_tensor(
    values: np.ndarray,
    dtype_name: str,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    device: str | None = None,
) -> str:
    """The text PyTorch prints for a tensor holding `values` (already in the tensor's numpy dtype, any strides).

    dtype_name is the torch dtype name without 'torch.'. grad_fn_name is
    type(t.grad_fn).__name__ ('Invalid' when reading it raises) and wins over
    requires_grad. device is None for cpu, else e.g. 'cuda:0'.
    """
    values = np.asarray(values)
    suffixes = []
    if device is not None and device != "cpu":
        suffixes.append(f"device='{device}'")
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype_name != _DEFAULT_DTYPE:
            suffixes.append(f"dtype=torch.{dtype_name}")
    else:
        body = _tensor_body(values, dtype_name)
        if dtype_name not in _IMPLIED_DTYPES:
            suffixes.append(f"dtype=torch.{dtype_name}")
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(_PREFIX + body, suffixes)


def format_parameter(values: np.ndarray, dtype_name: str, *, device: str | None = None) -> str:
    """nn.Parameter's repr: a header line, then the tensor text of a leaf requiring grad."""
    return "Parameter containing:\n" + format_tensor(
        values, dtype_name, requires_grad=True, device=device
    )


def _tensor_body(values: np.ndarray, dtype_name: str) -> str:
    """The bracketed data of a non-empty tensor; widths come from the summarized data only."""
    summarize = values.size > options.threshold
    cuts = tuple(summarize and n > 2 * options.edgeitems for n in values.shape)
    shown = shown_values(values)
    if dtype_name in _FLOAT_DTYPES:
        # Like torch (item()/tolist()), format every float width through Python doubles.
        cells, width = _float_cells(shown.ravel().tolist())
    elif dtype_name.startswith("complex"):
        cells, width = _complex_cells(shown.ravel())
    else:
        cells, width = _plain_cells(shown.ravel().tolist())
    return _layout(cells, shown.shape, cuts, width, _INDENT)


def shown_values(values: np.ndarray) -> np.ndarray:
    """The elements a tensor's text is made of: all of them, or past the threshold only the edge
    items (so two tensors whose shown values, dtype and flags agree print the same)."""
    return _edges(values) if values.size > options.threshold else values


def _edges(values: np.ndarray) -> np.ndarray:
    """The first and last edge items along every dimension longer than twice that (torch's get_summarized_data)."""
    edge = options.edgeitems
    index = [np.r_[0:edge, n - edge : n] if n > 2 * edge else np.arange(n) for n in values.shape]
    return values[np.ix_(*index)]


def _plain_cells(flat: list[int] | list[bool]) -> tuple[list[str], int]:
    """Integers and bools print with str(), right-aligned to the widest one."""
    cells = [str(v) for v in flat]
    width = max(map(len, cells))
    return [c.rjust(width) for c in cells], width


def _float_cells(flat: list[float]) -> tuple[list[str], int]:
    """Floats share one mode and one width, both decided by the nonzero finite values alone (the
    notation by set_printoptions' sci_mode where it is set)."""
    counted = [v != 0.0 and math.isfinite(v) for v in flat]
    fmt = _float_mode(list(compress(flat, counted)))
    cells = [fmt(v) for v in flat]
    width = max(map(len, compress(cells, counted)), default=1)
    return [c.rjust(width) for c in cells], width


def _complex_cells(flat: np.ndarray) -> tuple[list[str], int]:
    """Real and imaginary parts each get a formatter of their own (mode and width); an element is
    `real+imagj` (the sign of the imaginary part replaces the '+')."""
    real_cells, real_width = _float_cells(flat.real.tolist())
    imag_cells, imag_width = _float_cells(flat.imag.tolist())
    cells = []
    for re_text, im_text in zip(real_cells, imag_cells):
        im_text = (im_text + "j").lstrip()
        cells.append(re_text + im_text if im_text[0] in "+-" else re_text + "+" + im_text)
    return cells, real_width + imag_width + 1


def _float_mode(nonzero_finite: list[float]) -> Callable[[float], str]:
    """Pick sci, int or fixed notation as torch's _Formatter does (in double precision)."""
    if not nonzero_finite:
        return _int_mode_str
    sci = options.sci_mode
    if sci is None:
        magnitudes = [abs(v) for v in nonzero_finite]
        lo, hi = min(magnitudes), max(magnitudes)
        sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
    if sci:
        return _sci_format
    if all(v.is_integer() for v in nonzero_finite):
        return _int_mode_str
    return _fixed_format


def _sci_format(value: float) -> str:
    return f"{value:.{options.precision}e}"


def _fixed_format(value: float) -> str:
    return f"{value:.{options.precision}f}"


def _int_mode_str(value: float) -> str:
    """Integral floats print without digits, but keep the '.' that marks a float dtype."""
    text = f"{value:.0f}"
    return text + "." if math.isfinite(value) else text


def _layout(
    cells: Sequence[str], shape: tuple[int, ...], cuts: tuple[bool, ...], width: int, indent: int
) -> str:
    """Nest the row-major cells into brackets, one blank line fewer per inner dimension."""
    if not shape:
        return cells[0]
    if len(shape) == 1:
        return _vector(cells, cuts[0], width, indent)
    step = len(cells) // shape[0]
    blocks = [
        _layout(cells[i * step : (i + 1) * step], shape[1:], cuts[1:], width, indent + 1)
        for i in range(shape[0])
    ]
    if cuts[0]:
        blocks.insert(options.edgeitems, "...")
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(blocks) + "]"


def _vector(cells: Sequence[str], cut: bool, width: int, indent: int) -> str:
    """One innermost row, wrapped to the line width by the formatter width (not the cells' own)."""
    per_line = max(1, (options.linewidth - indent) // (width + 2))
    row = [*cells[:options.edgeitems], " ...", *cells[options.edgeitems:]] if cut else list(cells)
    lines = [", ".join(row[i : i + per_line]) for i in range(0, len(row), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _add_suffixes(text: str, suffixes: list[str]) -> str:
    """Append ', suffix' items, moving one to a new line when it would pass the line width."""
    parts = [text]
    line_len = len(text) - text.rfind("\n") + 1  # torch's count: 2 more than the visible line
    for suffix in suffixes:
        if line_len + len(suffix) + 2 > options.linewidth:
            parts.append(",\n" + " " * _INDENT + suffix)
            line_len = _INDENT + len(suffix)
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def cpp_tensor_text(values: np.ndarray, legacy_name: str) -> str:
    """A tensor as ATen's C++ `operator<<` prints it inside some error messages (torch.meshgrid's):
    the values as doubles, each matrix row in columns of one width, then `[ torch.FloatTensor{2,2} ]`.
    Integer-valued tensors print as integers; others with 4 decimals (ATen's scaled and scientific
    forms, for values spanning many decades, are not reproduced)."""
    data = np.asarray(values, dtype=np.float64)
    finite = data[np.isfinite(data)]
    integral = bool(np.all(finite == np.ceil(finite))) if finite.size else True
    top = float(np.abs(finite).max()) if finite.size else 1.0
    digits = int(np.floor(np.log10(top))) + 1 if top else 1
    width = digits + 1 if integral else (7 if digits <= 0 else digits + 6)

    def cell(x: float) -> str:
        text = (f"{x:g}" if abs(x) >= 1e16 else str(int(x))) if integral and np.isfinite(x) else \
            (f"{x:.4f}" if np.isfinite(x) else ("nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")))
        return text.rjust(width)

    def matrix(m: np.ndarray, indent: str) -> str:  # rows after the first are indented
        return ("\n" + indent).join(" ".join(cell(x) for x in row) for row in m) + "\n"

    if data.ndim == 1:
        body = "".join(cell(x) + "\n" for x in data)
    elif data.ndim == 2:
        body = matrix(data, "") if data.size else ""
    elif data.size:
        body = "\n".join("(" + ",".join(str(i + 1) for i in index) + ",.,.) = \n" + matrix(data[index], " ")
                         for index in np.ndindex(*data.shape[:-2]))
    else:
        body = ""
    return f"{body}[ torch.{legacy_name}{{{','.join(str(n) for n in data.shape)}}} ]"
