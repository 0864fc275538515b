"""Op families, attached to Tensor as methods and exported as torch functions.

Each module lists what it provides in METHODS (Tensor methods), FUNCTIONS (torch.* functions) and,
where needed, PROPERTIES; this package installs them, and defines the Python operators in terms of
them, so no op is written twice.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from engine import placement
from engine.placement import placed

FAMILIES = ("pointwise", "elementwise", "views", "view_copies", "copying", "complex_ops", "factories", "random",
            "reduction", "linalg", "indexing", "flat_index", "storage_ops", "selection", "contraction", "special",
            "nn_ops", "inplace_forms", "composites", "reductions_more", "searching", "gamma",
            "products", "matrix_builders", "cdist",
            "order_statistics", "statistics", "quantiles",
            "legacy_linalg", "scatter_reduce")


def _available_modules() -> list[Any]:
    modules = []
    for name in FAMILIES:
        try:
            modules.append(importlib.import_module(f"engine.ops.{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"engine.ops.{name}":
                raise
    return modules


MODULES = _available_modules()
FUNCTIONS: dict[str, Callable[..., Any]] = {}
for _module in MODULES:
    for _name, _fn in getattr(_module, "METHODS", {}).items():
        placement.install(_name, _fn)
    for _name, _fn in getattr(_module, "PROPERTIES", {}).items():
        placement.install(_name, _fn, as_property=True)
    FUNCTIONS.update({name: placed(fn) if callable(fn) and not isinstance(fn, type) else fn
                      for name, fn in getattr(_module, "FUNCTIONS", {}).items()})

from engine.autograd.derivatives import _install_all  # noqa: E402  (the table needs the ops above)
from engine.ops import operators  # noqa: E402,F401  (defines Tensor.__add__ and friends)

_install_all()
