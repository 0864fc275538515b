"""Run a program in torch and in the engine, compare the traces in full, shrink what disagrees.

Three traces are recorded, one step per top-level statement, in TRACE.md's format: real torch's
(tests/torch_trace.py), the engine's through `import engine as torch` (the same recorder, with the
engine bound to `torch`), and the engine's through the application (`tensorscope replay --json`'s
own Session and trace records). Everything in a step is compared: error (type and text), output,
warnings, and for every name its shape, stride, offset, dtype, storage sharing, version,
requires_grad, is_leaf, grad_fn, view-ness, values and grad (floats to a relative 1e-4).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fuzz.generate import DEFAULT_SEED, Program, Statement
from tests.oracle import drop_warn_once
from tests.torch_trace import record

ADDRESS = re.compile(r" at 0x[0-9a-f]+")
PATHS = ("engine", "replay")


@dataclass(frozen=True)
class Mismatch:
    """The first difference between torch's trace and one of the engine's."""

    path: str  # "engine" (import engine as torch) or "replay" (the application's trace)
    step: int
    kind: str  # the template of the statement at that step
    field: str  # "error", "output", "warnings", "objects", or "objects.<attribute>"
    expected: Any
    got: Any

    @property
    def signature(self) -> str:
        """What makes two failures the same failure: where, in which field, of which error type."""
        detail = ""
        if self.field == "error":
            detail = f"{_error_type(self.expected)}->{_error_type(self.got)}"
        return f"{self.kind} | {self.field} {detail}".strip()


def _error_type(error: Any) -> str:
    return "none" if error is None else error["type"]


# ---------------------------------------------------------------------------- the three traces
def torch_trace(source: str) -> list[dict[str, Any]]:
    import torch

    torch.manual_seed(DEFAULT_SEED)
    return record(source, {"torch": torch, "F": torch.nn.functional})


def engine_trace(source: str) -> list[dict[str, Any]]:
    import engine
    import engine.nn.functional

    engine.manual_seed(DEFAULT_SEED)
    return record(source, {"torch": engine, "F": engine.nn.functional})


PRELUDE = "import torch\nimport torch.nn.functional as F\n"


def replay_trace(source: str) -> list[dict[str, Any]]:
    """What `tensorscope replay FILE --json` prints for the program, as parsed records."""
    from tensorscope.session import Session
    from tensorscope.trace import step_record

    steps = Session(cuda=False).run(PRELUDE + source)
    records = [step_record(step.snapshot) for step in steps][2:]
    for index, step in enumerate(records):
        step["step"] = index
    return records


RUNNERS: dict[str, Callable[[str], list[dict[str, Any]]]] = {"engine": engine_trace, "replay": replay_trace}


# ---------------------------------------------------------------------------- comparing
def _close(expected: Any, got: Any) -> bool:
    if isinstance(expected, float) and isinstance(got, float):
        return math.isclose(expected, got, rel_tol=1e-4, abs_tol=1e-6)
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(_close(e, g) for e, g in zip(expected, got))
    return expected == got


def _clean_output(text: Any) -> Any:
    return ADDRESS.sub(" at 0x…", text) if isinstance(text, str) else text


def _storage_groups(objects: dict[str, Any]) -> list[list[str]]:
    groups: dict[str, list[str]] = {}
    for name, obj in objects.items():
        groups.setdefault(obj["storage"], []).append(name)
    return sorted(sorted(g) for g in groups.values() if len(g) > 1)


OBJECT_FIELDS = ("kind", "shape", "stride", "storage_offset", "dtype", "version", "requires_grad", "is_leaf",
                 "grad_fn", "is_view", "values", "grad")


def first_difference(expected: list[dict[str, Any]], got: list[dict[str, Any]], statements: list[Statement],
                     distinct_warnings: bool = False) -> tuple[int, str, Any, Any] | None:
    """(step, field, expected, got) of the first difference between two traces, or None. With
    distinct_warnings, torch's warnings are compared each once, as the application's trace keeps them
    (a statement that warns in a loop must not keep every copy)."""
    if len(expected) != len(got):
        return (min(len(expected), len(got)), "steps", len(expected), len(got))
    for index, (e, g) in enumerate(zip(expected, got)):
        if e["error"] != g["error"]:
            return (index, "error", e["error"], g["error"])
        if _clean_output(e["output"]) != _clean_output(g["output"]):
            return (index, "output", e["output"], g["output"])
        warned = drop_warn_once(e["warnings"])
        if distinct_warnings and warned is not None:
            warned = list(dict.fromkeys(warned))
        if warned != drop_warn_once(g["warnings"]):
            return (index, "warnings", e["warnings"], g["warnings"])
        if sorted(e["objects"]) != sorted(g["objects"]):
            return (index, "objects", sorted(e["objects"]), sorted(g["objects"]))
        for name, obj in e["objects"].items():
            mine = g["objects"][name]
            for key in OBJECT_FIELDS:
                if key not in obj and key not in mine:
                    continue
                if key == "is_leaf" and obj.get(key) == "<error>":
                    continue  # torch raises reading it; the engine's trace shows the stored flag
                if not _close(obj.get(key), mine.get(key)):
                    return (index, f"objects.{key}", {name: obj.get(key)}, {name: mine.get(key)})
        if _storage_groups(e["objects"]) != _storage_groups(g["objects"]):
            return (index, "objects.storage", _storage_groups(e["objects"]), _storage_groups(g["objects"]))
    return None


def check(program: Program, paths: tuple[str, ...] = PATHS) -> Mismatch | None:
    """The first mismatch of the program on any path, or None when every trace agrees with torch's."""
    source = program.source()
    expected = torch_trace(source)
    for path in paths:
        try:
            got = RUNNERS[path](source)
        except Exception as exc:  # noqa: BLE001 - a crash of ours is a mismatch like any other
            return Mismatch(path, -1, "crash", "crash", None, f"{type(exc).__name__}: {exc}")
        diff = first_difference(expected, got, program.statements, distinct_warnings=path == "replay")
        if diff is not None:
            step, field, e, g = diff
            kind = program.statements[step].kind if step < len(program.statements) else "end"
            return Mismatch(path, step, kind, field, e, g)
    return None


# ---------------------------------------------------------------------------- shrinking
def shrink(program: Program, mismatch: Mismatch) -> tuple[Program, Mismatch]:
    """The smallest program (by dropping statements) that still fails with the same signature."""
    statements = list(program.statements)
    best = mismatch

    def still_fails(candidate: list[Statement]) -> Mismatch | None:
        found = check(Program(program.seed, candidate), (mismatch.path,))
        return found if found is not None and found.signature == mismatch.signature else None

    chunk = max(len(statements) // 2, 1)
    while chunk >= 1:
        index = 0
        progressed = False
        while index < len(statements):
            candidate = statements[:index] + statements[index + chunk:]
            if candidate:
                found = still_fails(candidate)
                if found is not None:
                    statements, best, progressed = candidate, found, True
                    continue
            index += chunk
        if not progressed:
            chunk //= 2
    return Program(program.seed, statements), best
