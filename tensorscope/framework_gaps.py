"""Gaps, not typos: when code reads a name that PyTorch 2.13 (or Paddle 3.3.1) has and the engine
does not, Python's message ("module 'torch' has no attribute 'fft'") reads like a mistake in the
user's code. This module recognises such errors from the catalog of the real frameworks' public
names (framework_names.json, measured by tests/reference_names/measure.py) and says plainly what
tensorscope lacks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

CATALOG = Path(__file__).with_name("framework_names.json")
FRAMEWORK_TITLES = {"torch": "PyTorch", "paddle": "Paddle"}

_MODULE_ATTRIBUTE = re.compile(r"^module '(?P<owner>[\w.]+)' has no attribute '(?P<name>\w+)'$")
_OBJECT_ATTRIBUTE = re.compile(r"^'(?P<owner>\w+)' object has no attribute '(?P<name>\w+)'$")
_NO_MODULE = re.compile(r"^No module named '(?P<module>[\w.]+)'")
# Objects whose class the message names, by the owner in the catalog whose names they have.
_OBJECT_OWNERS = {"torch": {"Tensor": "torch.Tensor", "Parameter": "torch.Tensor"},
                  "paddle": {"Tensor": "paddle.Tensor", "EagerParamBase": "paddle.Tensor"}}


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, object]]:
    with CATALOG.open(encoding="utf-8") as file:
        return json.load(file)


def _names(framework: str, owner: str) -> frozenset[str]:
    names = catalog()[framework]["names"]
    assert isinstance(names, dict)
    return frozenset(names.get(owner, ()))


def _title(framework: str) -> str:
    return f"{FRAMEWORK_TITLES[framework]} {catalog()[framework]['version']}"


def missing_names(error_type: str, message: str, sources: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(framework title, dotted name) of each real framework that has what the error says the
    engine lacks; `sources` (the session's statements) say which frameworks a session uses, and so
    whose Tensor an object's message may mean."""
    if error_type == "AttributeError":
        match = _MODULE_ATTRIBUTE.match(message)
        if match:
            owner, name = match["owner"], match["name"]
            framework = owner.split(".")[0]
            if framework in FRAMEWORK_TITLES and name in _names(framework, owner):
                return [(_title(framework), f"{owner}.{name}")]
            return []
        match = _OBJECT_ATTRIBUTE.match(message)
        if match:
            found = []
            for framework in _frameworks_used(sources):
                owner = _OBJECT_OWNERS[framework].get(match["owner"])
                if owner is not None and match["name"] in _names(framework, owner):
                    found.append((_title(framework), f"{owner}.{match['name']}"))
            return found
    if error_type == "ModuleNotFoundError":
        match = _NO_MODULE.match(message)
        if match:
            owner, _, name = match["module"].rpartition(".")
            framework = match["module"].split(".")[0]
            if framework in FRAMEWORK_TITLES and owner and name in _names(framework, owner):
                return [(_title(framework), match["module"])]
    return []


def _frameworks_used(sources: Sequence[str]) -> list[str]:
    """The frameworks a session imported (torch when it says nothing: the usual case)."""
    used = [framework for framework in FRAMEWORK_TITLES
            if any(re.search(rf"\bimport\s+{framework}\b", source) for source in sources)]
    return used or ["torch"]


def explain_gap(error_type: str, message: str, sources: Sequence[str] = ()) -> str | None:
    """The plain words for a gap in the engine, or None when the error is not one."""
    found = missing_names(error_type, message, sources)
    if not found:
        return None
    has = " and ".join(f"{title} has `{dotted}`" for title, dotted in found)
    return (f"{has}, but tensorscope's engine does not model it yet: this is a gap in "
            "tensorscope, not a mistake in your code. tensorscope covers tensors, views, in-place ops, "
            "autograd, the common nn layers, optimizers and memory; code that needs this cannot run here.")
