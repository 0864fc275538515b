"""`typing`: the names annotations use, for annotations evaluated as Python evaluates them.

typing turns a string in a subscript (`Optional['GPT']`) into a ForwardRef, which compiles the
string (and `get_type_hints` would eval it): here such strings become ForwardRefs made without
compiling, so user text never reaches a compiler; `get_type_hints` is not offered, and
`X | 'Y'` on a typing object is refused (sizes.check_forward_union). `NamedTuple` is built without exec (see `namedtuples`).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from tensorscope.sandbox.gateways import gateway
from tensorscope.sandbox.stdlib.namedtuples import NamedTuple

if TYPE_CHECKING:
    from tensorscope.sandbox.policy import Sandbox

_RAW = ("Any", "Optional", "Union", "List", "Dict", "Tuple", "Set", "FrozenSet", "Type", "Callable", "Iterable",
        "Iterator", "Generator", "Sequence", "MutableSequence", "Mapping", "MutableMapping", "Collection",
        "Hashable", "Sized", "Deque", "DefaultDict", "OrderedDict", "Counter", "Literal", "Final", "ClassVar",
        "Annotated", "Generic", "NoReturn", "Never", "Self", "TYPE_CHECKING", "cast", "get_origin", "get_args",
        "Text")
NAMES = (*_RAW, "TypeVar", "NamedTuple")


def forward_reference(text: str) -> typing.ForwardRef:
    """typing.ForwardRef(text), without compiling text (ForwardRef's constructor compiles it)."""
    reference = object.__new__(typing.ForwardRef)
    for slot, value in (("__forward_arg__", text), ("__forward_code__", None), ("__forward_evaluated__", False),
                        ("__forward_value__", None), ("__forward_is_argument__", True),
                        ("__forward_is_class__", False), ("__forward_module__", None)):
        object.__setattr__(reference, slot, value)
    return reference


def _referenced(value: Any) -> Any:
    if type(value) is str:
        return forward_reference(value)
    if type(value) is list:  # Callable[['A'], 'B']
        return [_referenced(item) for item in value]
    return value


def typing_index(obj: Any, index: Any) -> Any:
    """The subscript for `obj[index]` when obj is typing's (or a Generic class): its strings as
    forward references, except a Literal's values and an Annotated's metadata."""
    if obj is typing.Literal or (obj is not typing.Annotated and isinstance(obj, type)
                                 and not issubclass(obj, typing.Generic)):
        return index
    if type(index) is tuple:
        if obj is typing.Annotated:
            return (_referenced(index[0]), *index[1:])
        return tuple(map(_referenced, index))
    return _referenced(index)


@gateway
def make_typing_module(sandbox: Sandbox) -> dict[str, Any]:
    def TypeVar(name: str, *constraints: Any, bound: Any = None, covariant: bool = False,  # noqa: N802
                contravariant: bool = False) -> typing.TypeVar:
        return typing.TypeVar(name, *map(_referenced, constraints), bound=_referenced(bound), covariant=covariant,
                              contravariant=contravariant)

    return {**{name: getattr(typing, name) for name in _RAW}, "TypeVar": TypeVar, "NamedTuple": NamedTuple}
