"""Completion candidates for a dotted name being typed, read from a session's namespace.

It runs where the namespace lives (in the session's worker process), walks only module proxies
beyond the first name (attributes of user objects could run user code), and asks the sandbox
which module names are public. Front ends get plain strings back.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any

from tensorscope import sandbox

_PRIVATE_OK = ("_version", "_base", "_is_view")
_BUILTINS = {"torch", "np", "print", "range", "len", "isinstance", "list", "tuple", "id"}


def _attributes(owner: Any) -> list[str]:
    if isinstance(owner, sandbox.ModuleProxy):
        return sandbox.public_names(owner)
    try:
        names = dir(owner)
    except Exception:  # noqa: BLE001 - a user object whose __dir__ fails has no completions
        return []
    return [n for n in names if isinstance(n, str) and (not n.startswith("_") or n in _PRIVATE_OK)]


def candidates(namespace: Mapping[str, Any], word: str) -> list[str]:
    """Names that complete `word`: `x` gives bound names and keywords, `torch.ze` the torch
    functions, `t.ad` the methods of the tensor bound to `t`."""
    head, dot, tail = word.rpartition(".")
    if not dot:
        pool = {n for n in namespace if not n.startswith("__")} | set(keyword.kwlist) | _BUILTINS
        return sorted(n for n in pool if n.startswith(word) and n != word)
    parts = head.split(".")
    owner: Any = namespace.get(parts[0])
    for part in parts[1:]:
        if isinstance(owner, sandbox.ModuleProxy) and part in sandbox.public_names(owner):
            owner = getattr(owner, part)
        else:
            return []  # only modules are walked: attributes of other objects could run code
    if owner is None:
        return []
    return sorted(f"{head}.{n}" for n in _attributes(owner) if n.startswith(tail) and n != tail)
