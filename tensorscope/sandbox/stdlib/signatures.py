"""Argument binding for the methods the granted modules generate (a namedtuple's `__new__`, a
dataclass's `__init__`): CPython builds those by exec'ing source text; here one function binds
arguments by name, with CPython's TypeError wording, and no text is ever compiled."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tensorscope.sandbox.gateways import gateway

REQUIRED: Any = object()


@dataclass(frozen=True)
class Signature:
    """`qualname(self, *positional, *, *keyword_only)`, defaults by name (REQUIRED when none).
    `first` is the bound first parameter (self, _cls), counted in Python's messages."""

    qualname: str
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...] = ()
    defaults: dict[str, Any] = field(default_factory=dict)
    first: str = "self"

    @gateway
    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The parameters' values by name, or Python's TypeError."""
        if len(args) > len(self.positional):
            optional = sum(1 for name in self.positional if name in self.defaults)
            count = len(self.positional) + 1
            takes = f"from {count - optional} to {count}" if optional else str(count)
            given = len(args) + 1
            raise TypeError(f"{self.qualname}() takes {takes} positional argument{'' if takes == '1' else 's'} "
                            f"but {given} {'was' if given == 1 else 'were'} given")
        values = dict(zip(self.positional, args, strict=False))
        for key, value in kwargs.items():
            if key not in self.positional and key not in self.keyword_only:
                raise TypeError(f"{self.qualname}() got an unexpected keyword argument '{key}'")
            if key in values:
                raise TypeError(f"{self.qualname}() got multiple values for argument '{key}'")
            values[key] = value
        for names, kind in ((self.positional, "positional"), (self.keyword_only, "keyword-only")):
            missing = [name for name in names if name not in values and self.defaults.get(name, REQUIRED) is REQUIRED]
            if missing:
                quoted = [f"'{name}'" for name in missing]
                listed = " and ".join(quoted) if len(quoted) <= 2 else ", ".join(quoted[:-1]) + ", and " + quoted[-1]
                raise TypeError(f"{self.qualname}() missing {len(missing)} required {kind} "
                                f"argument{'' if len(missing) == 1 else 's'}: {listed}")
        for names in (self.positional, self.keyword_only):
            for name in names:
                if name not in values:
                    values[name] = self.defaults[name]
        return values
