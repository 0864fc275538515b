"""torch.utils.hooks.RemovableHandle: what registering a hook returns; `.remove()` unregisters it."""

from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from typing import Any


class RemovableHandle:
    """Removes one hook from the table it was registered in (also as a `with` block)."""

    next_id = itertools.count()

    def __init__(self, hooks_dict: OrderedDict[int, Any]) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)

    def remove(self) -> None:
        hooks = self.hooks_dict_ref()
        if hooks is not None:
            hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
