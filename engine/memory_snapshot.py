"""torch.cuda.memory._snapshot() of the simulated device, so PyTorch's own viewers read it.

The dictionary has the layout torch/csrc/cuda/memory_snapshot.cpp builds: `segments` (each with its
`blocks`), one trace list per device in `device_traces`, `allocator_settings` and
`external_annotations`. Frames are what a real snapshot holds as Python stack traces; here an
entry carries at most one frame for the caller's tag, so `python -m torch.cuda._memory_viz`
(trace_plot, segment_plot, stats, trace, memory, segments) and pytorch.org/memory_viz show which
step made each allocation. The caller may say what frame a tag stands for (tensorscope: the file,
the statement's line and its source); by default the frame only names the tag.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from engine.cuda_allocator import (
    MAX_SPLIT_SIZE_STAT,
    CachingAllocator,
    SegmentInfo,
    TraceEntry,
)

# CUDAAllocatorConfig's defaults as the snapshot reports them; roundup_power2_divisions has one
# (unused, 0) entry per power-of-two interval, keyed "1", "2", "4", ...
ROUNDUP_POWER2_INTERVALS = 16
FRAME_FILENAME = "tensorscope"


def allocator_settings() -> dict[str, Any]:
    return {
        "PYTORCH_CUDA_ALLOC_CONF": "",
        "max_split_size": MAX_SPLIT_SIZE_STAT,
        "garbage_collection_threshold": 0.0,
        "expandable_segments": False,
        "pinned_num_register_threads": 1,
        "release_lock_on_cudamalloc": False,
        "pinned_use_cuda_host_register": False,
        "graph_capture_record_stream_reuse": False,
        "roundup_power2_divisions": {str(1 << i): 0 for i in range(ROUNDUP_POWER2_INTERVALS)},
    }


Frame = dict[str, Any]  # {"filename": str, "line": int, "name": str}, as torch records a frame


def snapshot(allocator: CachingAllocator, frame_of: Callable[[Any], Frame | None] | None = None) -> dict[str, Any]:
    """The allocator's segments and its whole history, in torch.cuda.memory._snapshot()'s format.
    `device_traces` has one list per device up to this one, as torch lists every device.
    `frame_of(tag)` gives the frame an allocation's tag stands for (None: the tag's own)."""
    def frames(tag: Any) -> list[Frame]:
        if tag is None:
            return []
        frame = frame_of(tag) if frame_of is not None else None
        return [frame] if frame is not None else _frames(tag)

    trace = [_trace_entry(entry, frames) for entry in allocator.history]
    return {
        "segments": [_segment(allocator.device, segment, frames) for segment in allocator.segments()],
        "device_traces": [[] for _ in range(allocator.device)] + [trace],
        "allocator_settings": allocator_settings(),
        "external_annotations": [],
    }


def dump_snapshot(allocator: CachingAllocator, path: str) -> None:
    """torch.cuda.memory._dump_snapshot: the snapshot, pickled."""
    with open(path, "wb") as f:
        pickle.dump(snapshot(allocator), f)


def _frames(tag: Any) -> list[dict[str, Any]]:
    return [] if tag is None else [{"filename": FRAME_FILENAME, "line": 0, "name": str(tag)}]


def _segment(device: int, segment: SegmentInfo, frames: Callable[[Any], list[Frame]] = _frames) -> dict[str, Any]:
    """segmentInfoToDict: only allocated blocks are active (one stream, so none awaits a free)."""
    blocks = [
        {
            "address": block.address,
            "size": block.size,
            "requested_size": block.requested_size,
            "state": "active_allocated" if block.allocated else "inactive",
            "frames": frames(block.tag) if block.allocated else [],
        }
        for block in segment.blocks
    ]
    allocated = [block for block in segment.blocks if block.allocated]
    return {
        "device": device,
        "address": segment.address,
        "total_size": segment.total_size,
        "allocated_size": sum(block.size for block in allocated),
        "active_size": sum(block.size for block in allocated),
        "requested_size": sum(block.requested_size for block in allocated),
        "stream": 0,
        "segment_type": "small" if segment.is_small else "large",
        "segment_pool_id": (0, 0),
        "is_expandable": False,
        "frames": frames(segment.tag),
        "blocks": blocks,
    }


def _trace_entry(entry: TraceEntry, frames: Callable[[Any], list[Frame]] = _frames) -> dict[str, Any]:
    """A TraceEntry as torch pickles it: `size` is the request for alloc/free entries, the segment
    for segment entries and the rounded request for an oom, whose `device_free` replaces `addr`."""
    if entry.action == "oom":
        where, size = {"device_free": entry.device_free}, entry.block_size
    elif entry.action.startswith("segment_"):
        where, size = {"addr": entry.address}, entry.segment_size
    else:
        where, size = {"addr": entry.address}, entry.requested_size
    return {
        "action": entry.action,
        **where,
        "size": size,
        "stream": 0,
        "time_us": entry.time_us,
        "compile_context": "N/A",
        "user_metadata": "",
        "pool_id": (0, 0),
        "frames": frames(entry.tag),
    }
