"""Completion for the code input: names in the session, `torch.` functions, tensor methods.

It reads the session's namespace (what the statements bound) and asks the sandbox which module
names are public; it never imports the engine.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Mapping
from typing import Any

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.?$")
_PRIVATE_OK = ("_version", "_base", "_is_view")
STARTERS = ("import torch", "import numpy as np", "import torch.nn as nn",
            "import torch.nn.functional as F", "print", "range", "len", "with", "def", "for")


def word_before(text: str) -> str:
    """The dotted name the cursor is at the end of (`torch.ze` in `y = torch.ze`)."""
    match = _WORD.search(text)
    return match.group(0) if match else ""


def _attributes(owner: Any) -> list[str]:
    from tensorscope import sandbox  # imported when first needed: it pulls in the engine

    if isinstance(owner, sandbox.ModuleProxy):
        return sandbox.public_names(owner)
    try:
        names = dir(owner)
    except Exception:  # a user object whose __dir__ fails has no completions
        return []
    return [n for n in names if not n.startswith("_") or n in _PRIVATE_OK]


class Completer:
    """Candidates for the word before the cursor."""

    def __init__(self, namespace: Callable[[], Mapping[str, Any]]) -> None:
        self.namespace = namespace

    def candidates(self, word: str) -> list[str]:
        try:
            names = dict(self.namespace())
        except Exception:  # the namespace is being changed by a running statement
            return []
        from tensorscope import sandbox

        head, dot, tail = word.rpartition(".")
        if not dot:
            pool = {n for n in names if not n.startswith("__")} | set(keyword.kwlist)
            pool |= {"torch", "np", "print", "range", "len", "isinstance", "list", "tuple", "id"}
            return sorted(n for n in pool if n.startswith(word) and n != word)
        owner: Any = names.get(head.split(".")[0])
        for part in head.split(".")[1:]:
            if owner is None:
                break
            if isinstance(owner, sandbox.ModuleProxy):
                owner = getattr(owner, part) if part in sandbox.public_names(owner) else None
            else:
                owner = None  # only modules are walked: attributes of tensors could run code
        if owner is None:
            return []
        return sorted(f"{head}.{n}" for n in _attributes(owner) if n.startswith(tail) and n != tail)


def common_prefix(words: list[str]) -> str:
    if not words:
        return ""
    first, last = min(words), max(words)
    size = 0
    while size < len(first) and size < len(last) and first[size] == last[size]:
        size += 1
    return first[:size]
