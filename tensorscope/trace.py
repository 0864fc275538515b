"""The JSON trace of a run: one object per executed top-level statement (see TRACE.md).

The trace is a contract read by tests and outside tools: fields may be added, never renamed or
dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tensorscope.snapshot import ObjectInfo, Snapshot


def object_record(info: ObjectInfo) -> dict[str, Any]:
    if info.kind == "ndarray":
        record: dict[str, Any] = {"kind": "ndarray", "shape": list(info.shape), "dtype": info.dtype,
                                  "storage": info.storage, "values": info.values}
    else:
        record = {
            "kind": "tensor", "shape": list(info.shape), "stride": list(info.stride),
            "storage_offset": info.storage_offset, "dtype": info.dtype, "storage": info.storage,
            "version": info.version, "requires_grad": info.requires_grad, "is_leaf": info.is_leaf,
            "grad_fn": info.grad_fn, "is_view": info.is_view, "values": info.values, "grad": info.grad,
        }
    if info.summary is not None:
        record["summary"] = info.summary
    return record


def step_record(snapshot: Snapshot, explanation: str | None = None) -> dict[str, Any]:
    """One step's record; `explanation` is the story of its error (tensorscope.explain), or None."""
    return {
        "step": snapshot.step,
        "source": snapshot.source,
        "error": None if snapshot.error is None else {"type": snapshot.error.type, "message": snapshot.error.message},
        "output": snapshot.output,
        "objects": {name: object_record(info) for name, info in sorted(snapshot.objects.items())
                    if "." not in name},  # top-level names only; module members are for the explorer
        "memory": _memory(snapshot),
        "warnings": list(snapshot.warnings),
        "explanation": explanation,
    }


def _memory(snapshot: Snapshot) -> dict[str, Any]:
    memory: dict[str, Any] = {"allocated_bytes": snapshot.memory.allocated_bytes,
                              "peak_bytes": snapshot.memory.peak_bytes}
    if snapshot.memory.cuda is not None:  # the simulated device's caching-allocator figures, in bytes
        memory["cuda"] = dict(snapshot.memory.cuda)
    return memory


# Characters JSON may carry raw but a terminal or a UTF-8 encoder must not see: DEL and C1 controls,
# bidirectional overrides, lone surrogates. They only occur inside strings, where \uXXXX is their
# JSON escape, so the line stays the same JSON.
_ESCAPED = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def explained_lines(snapshots: Sequence[Snapshot]) -> Iterator[str]:
    """The trace of a run, each failing step with its explanation (from the steps up to it)."""
    from tensorscope.explain import explain

    for index, snapshot in enumerate(snapshots):
        story = explain(snapshots[: index + 1]) if snapshot.error is not None else None
        yield step_line(snapshot, story)


def step_line(snapshot: Snapshot, explanation: str | None = None) -> str:
    line = json.dumps(step_record(snapshot, explanation), ensure_ascii=False)
    return _ESCAPED.sub(lambda match: f"\\u{ord(match.group(0)):04x}", line)
