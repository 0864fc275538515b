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
        **_head(snapshot),
        "objects": {name: object_record(info) for name, info in sorted(snapshot.objects.items())
                    if "." not in name},  # top-level names only; module members are for the explorer
        **_tail(snapshot, explanation),
    }


def _head(snapshot: Snapshot) -> dict[str, Any]:
    """The fields before "objects", in the trace's order."""
    return {
        "step": snapshot.step,
        "source": snapshot.source,
        "error": None if snapshot.error is None else {"type": snapshot.error.type, "message": snapshot.error.message},
        "output": snapshot.output,
    }


def _tail(snapshot: Snapshot, explanation: str | None) -> dict[str, Any]:
    """The fields after "objects"."""
    return {"memory": _memory(snapshot), "warnings": list(snapshot.warnings), "explanation": explanation}


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


def _escaped(text: str) -> str:
    return _ESCAPED.sub(lambda match: f"\\u{ord(match.group(0)):04x}", text)


_FRAGMENTS: dict[int, tuple[ObjectInfo, str]] = {}  # id(record) -> (record, its JSON): records are shared across steps
_FRAGMENTS_KEPT = 4096


def _fragment(name: str, info: ObjectInfo) -> str:
    """`"name": {record}` of an object, escaped; made once per record, which consecutive snapshots share."""
    if info.name != name:  # a record filed under another name: not worth keeping
        return _escaped(f"{json.dumps(name, ensure_ascii=False)}: {json.dumps(object_record(info), ensure_ascii=False)}")
    known = _FRAGMENTS.get(id(info))
    if known is not None and known[0] is info:
        return known[1]
    text = _escaped(f"{json.dumps(name, ensure_ascii=False)}: {json.dumps(object_record(info), ensure_ascii=False)}")
    if len(_FRAGMENTS) >= _FRAGMENTS_KEPT:
        del _FRAGMENTS[next(iter(_FRAGMENTS))]
    _FRAGMENTS[id(info)] = (info, text)
    return text


def explained_lines(snapshots: Sequence[Snapshot]) -> Iterator[str]:
    """The trace of a run, each failing step with its explanation (from the steps up to it)."""
    for index in range(len(snapshots)):
        yield explained_line(snapshots[: index + 1])


def explained_line(history: Sequence[Snapshot]) -> str:
    """The last step's line, with the story of its error told from the steps up to it."""
    from tensorscope.explain import explain

    snapshot = history[-1]
    return step_line(snapshot, explain(history) if snapshot.error is not None else None)


def step_line(snapshot: Snapshot, explanation: str | None = None) -> str:
    """`json.dumps(step_record(snapshot, explanation))` with the characters above escaped, made from
    each object's JSON (kept while its record lives on from step to step) so a step costs what
    changed plus the joining."""
    head = json.dumps(_head(snapshot), ensure_ascii=False)
    tail = json.dumps(_tail(snapshot, explanation), ensure_ascii=False)
    objects = ", ".join(_fragment(name, info) for name, info in sorted(snapshot.objects.items()) if "." not in name)
    return _escaped(f"{head[:-1]}, \"objects\": {{") + objects + _escaped(f"}}, {tail[1:]}")
