"""Run a scenario with real PyTorch and check its expectations there: the proof that a story is
true to PyTorch 2.13, not just to tensorscope's engine.

This is a trusted test tool, so it runs the scenario's code with `exec`, one top-level statement at
a time, the way tensorscope's interpreter does: a bare expression echoes its repr (as at Python's
prompt), an error ends the statement but not the step, and a step's error is the first one raised.

What real torch can tell is checked: errors, printed output, warnings, versions, storage sharing
(by the memory each name can reach), is_leaf, requires_grad, is_view, grad_fn, layout, values,
grads, and saved tensors (by unpacking each graph node's `_saved_*`: a stale one raises the version
error). Memory figures are the engine's own and are not compared. Steps that use the CUDA device
are not run when torch has no CUDA; the comparison stops there.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from engine.ops.random import DEFAULT_SEED  # a fresh process's seed, where every Session starts
from tensorscope.scenario import Scenario

NOT_COMPARED = {"memory", "cuda_memory"}  # the engine's allocator figures; CPU torch has no device


@dataclass
class StepOutcome:
    error: tuple[str, str] | None = None
    outputs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def output(self) -> str | None:
        return "\n".join(self.outputs) if self.outputs else None


@dataclass
class Comparison:
    """What real torch said about a scenario: the steps compared, where it stopped, what differed."""

    compared: int = 0
    stopped_at: int | None = None  # the first step that needs CUDA, when torch has none
    mismatches: list[str] = field(default_factory=list)


def needs_cuda(code: str) -> bool:
    """Whether a step uses the CUDA device (`device="cuda"`, `torch.cuda.…`, `.cuda()`)."""
    return "cuda" in code


# --------------------------------------------------------------------------- running
def run_statement(statement: ast.stmt, namespace: dict[str, Any], outcome: StepOutcome) -> None:
    """Run one top-level statement in 'single' mode, so expressions echo as at the prompt."""
    code = compile(ast.Interactive(body=[statement]), "<scenario>", "single")
    buffer = io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buffer):
        warnings.simplefilter("always")
        try:
            exec(code, namespace)  # trusted: our own scenario files
        except Exception as exc:  # the scenario's error is data
            if outcome.error is None:
                outcome.error = (type(exc).__name__, str(exc))
    text = buffer.getvalue().removesuffix("\n")
    if text:
        outcome.outputs.append(text)
    outcome.warnings.extend(f"{w.category.__name__}: {w.message}" for w in caught)


def statements(code: str) -> list[ast.stmt]:
    return ast.parse(code).body


# --------------------------------------------------------------------------- reading the state
def named_objects(namespace: dict[str, Any]) -> dict[str, Any]:
    """Tensors and arrays by name, then the parameters and buffers of modules (`conv.weight`)."""
    import numpy as np
    import torch

    found: dict[str, Any] = {}
    for name, value in sorted(namespace.items()):
        if name.startswith("__"):
            continue
        if isinstance(value, (torch.Tensor, np.ndarray)):
            found[name] = value
        elif isinstance(value, torch.nn.Module):
            for sub, member in [*value.named_parameters(), *value.named_buffers()]:
                found[f"{name}.{sub}"] = member
    return found


def memory_span(value: Any) -> tuple[int, int]:
    """The bytes a name can reach: a tensor's whole storage, an array's root buffer."""
    import numpy as np

    if isinstance(value, np.ndarray):
        while isinstance(value.base, np.ndarray):
            value = value.base
        return np.lib.array_utils.byte_bounds(value)
    storage = value.untyped_storage()
    return storage.data_ptr(), storage.data_ptr() + storage.nbytes()


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def same_view(a: Any, b: Any) -> bool:
    return (a.data_ptr() == b.data_ptr() and tuple(a.shape) == tuple(b.shape) and a.stride() == b.stride()
            and a.dtype == b.dtype)


class SavedTensors:
    """Every tensor a reachable graph node saved, remembered when first seen (when it unpacks, its
    version then is the version it was saved at), so it can be named later even once stale."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, str, int], tuple[Any, Any, int]] = {}  # (node, attr, i) -> node, tensor, version

    @staticmethod
    def nodes(objects: dict[str, Any]) -> list[Any]:
        import torch

        todo = [t.grad_fn for t in objects.values() if isinstance(t, torch.Tensor) and t.grad_fn is not None]
        found: dict[int, Any] = {}
        while todo:
            node = todo.pop()
            if node is None or id(node) in found:
                continue
            found[id(node)] = node
            todo.extend(child for child, _ in node.next_functions)
        return list(found.values())

    @staticmethod
    def unpack(node: Any) -> list[tuple[str, int, Any]]:
        """(attr, index, tensor or the RuntimeError unpacking raised) for each saved tensor."""
        import torch

        items = []
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            try:
                value = getattr(node, attr)
            except RuntimeError as exc:
                items.append((attr, 0, exc))
                continue
            values = value if isinstance(value, (list, tuple)) else [value]
            items.extend((attr, i, v) for i, v in enumerate(values) if isinstance(v, torch.Tensor))
        return items

    def record(self, objects: dict[str, Any]) -> None:
        for node in self.nodes(objects):
            for attr, index, value in self.unpack(node):
                key = (id(node), attr, index)
                if not isinstance(value, Exception) and key not in self.seen:
                    self.seen[key] = (node, value, value._version)

    def names(self, tensor: Any, objects: dict[str, Any]) -> list[str]:
        import torch

        return [n for n, t in objects.items() if isinstance(t, torch.Tensor) and same_view(t, tensor)]

    def saved(self, objects: dict[str, Any]) -> list[tuple[str, str, int]]:
        """(name, node name, saved version) for every named saved tensor of the reachable graph."""
        hits = []
        for node in self.nodes(objects):
            for seen_node, tensor, version in self.seen.values():
                if seen_node is node:
                    hits.extend((name, type(node).__name__, version) for name in self.names(tensor, objects))
        return hits

    def stale(self, objects: dict[str, Any]) -> list[str]:
        names = set()
        for node in self.nodes(objects):
            for attr, index, value in self.unpack(node):
                if isinstance(value, RuntimeError) and "modified by an inplace operation" in str(value):
                    remembered = self.seen.get((id(node), attr, index))
                    if remembered is not None:
                        names.update(self.names(remembered[1], objects))
        return sorted(names)


# --------------------------------------------------------------------------- comparing
def close(expected: Any, actual: Any) -> bool:
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(close(e, a) for e, a in zip(expected, actual))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, rel_tol=1e-4, abs_tol=1e-6)
    return expected == actual


def _tensor_fact(key: str, value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.ndarray):
        return {"values": value.tolist(), "shape": list(value.shape), "dtype": value.dtype.name,
                "is_view": False, "requires_grad": False, "is_leaf": True, "grad_fn": None, "grad": None,
                "version": 0}.get(key, "<not an ndarray fact>")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # reading a non-leaf's .grad warns
        readers = {
            "version": lambda t: t._version, "is_leaf": lambda t: t.is_leaf,
            "requires_grad": lambda t: t.requires_grad, "is_view": lambda t: t._is_view(),
            "grad_fn": lambda t: None if t.grad_fn is None else type(t.grad_fn).__name__,
            "shape": lambda t: list(t.shape), "stride": lambda t: list(t.stride()),
            "dtype": lambda t: str(t.dtype).removeprefix("torch."),
            "values": lambda t: t.detach().tolist(),
            "grad": lambda t: None if t.grad is None else t.grad.tolist(),
        }
        return readers[key](value)


def error_ok(expected: Any, actual: tuple[str, str] | None, clean: Any = str) -> bool:
    """An `error:` expectation against what the library raised (`clean` trims build-specific tails)."""
    if expected is None or expected is False:
        return actual is None
    if actual is None:
        return False
    spec = {"type": expected} if isinstance(expected, str) else expected
    message = clean(actual[1])
    return (actual[0] == spec.get("type", actual[0]) and spec.get("contains", "") in message
            and spec.get("message", message) == message)


def outcome_mismatch(key: str, wanted: Any, outcome: StepOutcome, clean: Any = str) -> tuple[Any, Any] | None:
    """For the keys about what a step raised, printed or warned (the same for every library):
    (expected, actual) when they disagree, else None."""
    if key == "error":
        return None if error_ok(wanted, outcome.error, clean) else (wanted, outcome.error)
    if key == "output":
        actual = outcome.output
        ok = wanted["contains"] in (actual or "") if isinstance(wanted, dict) else actual == wanted
        return None if ok else (wanted, actual)
    if key == "warns":
        return None if any(wanted in w for w in outcome.warnings) else (wanted, outcome.warnings)
    raise KeyError(key)


def mismatches(expect: dict[str, Any], outcome: StepOutcome, objects: dict[str, Any],
               saved: SavedTensors) -> list[str]:
    """The expectations real torch disagrees with, each as `key: expected X, torch gives Y`."""
    found = []

    def differ(key: str, expected: Any, actual: Any) -> None:
        found.append(f"{key}: expected {expected!r}, torch gives {actual!r}")

    for key, wanted in expect.items():
        if key in NOT_COMPARED:
            continue
        if key in ("error", "output", "warns"):
            if (disagreement := outcome_mismatch(key, wanted, outcome)) is not None:
                differ(key, *disagreement)
        elif key == "shares_storage":
            spans = {n: memory_span(v) for n, v in objects.items()}
            for group in wanted:
                missing = [n for n in group if n not in spans]
                if missing:
                    differ(f"shares_storage {group}", "names that exist", missing)
                elif not all(overlap(spans[group[0]], spans[n]) for n in group):
                    differ(f"shares_storage {group}", "one storage", {n: spans[n] for n in group})
            for i, first in enumerate(wanted):
                for second in wanted[i + 1:]:
                    if first and second and first[0] in spans and second[0] in spans and \
                            overlap(spans[first[0]], spans[second[0]]):
                        differ("shares_storage (groups apart)", f"{first} apart from {second}", "shared")
        elif key == "saved":
            hits = saved.saved(objects)
            for name, spec in wanted.items():
                by, version = (spec.get("by"), spec.get("version")) if isinstance(spec, dict) else (spec, None)
                mine = [(b, v) for n, b, v in hits if n == name]
                if not any(b == by and (version is None or v == version) for b, v in mine):
                    differ(f"saved.{name}", {"by": by, "version": version}, mine)
        elif key == "stale":
            actual = saved.stale(objects)
            if sorted(wanted) != actual:
                differ(key, sorted(wanted), actual)
        else:
            for name, expected in wanted.items():
                actual = _tensor_fact(key, objects[name]) if name in objects else "<no such name>"
                if not close(expected, actual):
                    differ(f"{key}.{name}", expected, actual)
    return found


def compare(scenario: Scenario) -> Comparison:
    """Run the scenario's setup and steps with real torch, checking each step's expectations."""
    import torch

    torch.manual_seed(DEFAULT_SEED)
    namespace: dict[str, Any] = {"__name__": "__scenario__"}
    saved = SavedTensors()
    result = Comparison()
    setup = StepOutcome()
    for statement in statements(scenario.setup):
        run_statement(statement, namespace, setup)
    if setup.error is not None:
        result.mismatches.append(f"setup: {setup.error[0]}: {setup.error[1]}")
        return result
    for index, step in enumerate(scenario.steps, start=1):
        if needs_cuda(step.code) and not torch.cuda.is_available():
            result.stopped_at = index
            break
        outcome = StepOutcome()
        for statement in statements(step.code):
            run_statement(statement, namespace, outcome)
            saved.record(named_objects(namespace))
        objects = named_objects(namespace)
        result.mismatches.extend(f"step {index}: {m}" for m in mismatches(step.expect, outcome, objects, saved))
        result.compared = index
    return result
