"""PyTorch's CUDA caching allocator, as pure accounting for the simulated GPU.

CUDA tensors keep their data in host numpy memory; this model decides what a real GPU's allocator
would report for them: which cached block serves a request, when a segment is cudaMalloc'd, what
`torch.cuda.memory_stats()` counts, and the out-of-memory message. It ports DeviceCachingAllocator
from c10/cuda/CUDACachingAllocator.cpp in its default configuration, which is all a tensorscope
program can reach: one stream, no CUDA graphs or private pools, max_split_size and
max_non_split_rounding_size unlimited (so no block is "oversize"), no roundup_power2_divisions,
no expandable segments, no per-process memory fraction or garbage collection threshold.
"""

from __future__ import annotations

import bisect
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MIN_BLOCK_SIZE = 512  # kMinBlockSize: every request is rounded up to a multiple of it
SMALL_SIZE = 1 << 20  # kSmallSize: the largest request the small pool serves
SMALL_BUFFER = 2 << 20  # kSmallBuffer: small requests are packed into 2 MiB segments
LARGE_BUFFER = 20 << 20  # kLargeBuffer: requests of 1-10 MiB get a 20 MiB segment to share
MIN_LARGE_ALLOC = 10 << 20  # kMinLargeAlloc: from here on a segment is sized for its request
ROUND_LARGE = 2 << 20  # kRoundLarge: ...rounded up to a multiple of 2 MiB
ONE_EXA_BYTES = 1 << 60  # NativeCachingAllocator::allocate refuses anything this large outright
DEFAULT_CAPACITY = 16 << 30
# stats.max_split_size is CUDAAllocatorConfig::max_split_size(), SIZE_MAX by default, as int64.
MAX_SPLIT_SIZE_STAT = -1
# Where the simulated cudaMalloc starts handing out addresses (2 MiB aligned, like a real VA).
FIRST_SEGMENT_ADDRESS = 0x7F0000000000

POOLS = ("all", "small_pool", "large_pool")  # StatType: AGGREGATE, SMALL_POOL, LARGE_POOL
STAT_ARRAYS = (
    "allocation", "segment", "active", "inactive_split", "allocated_bytes", "reserved_bytes",
    "active_bytes", "inactive_split_bytes", "requested_bytes",
)
OVERSIZE_STATS = ("oversize_allocations", "oversize_segments")
COUNTERS = (
    "num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free",
    "num_oom_rejections",
)
OOM_ADVICE = (
    " If reserved but unallocated memory is large try setting"
    " PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid"
    " fragmentation.  See documentation for Memory Management "
    " (https://docs.pytorch.org/docs/stable/notes/cuda.html"
    "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
)


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (torch.cuda.OutOfMemoryError), a RuntimeError as in PyTorch."""


# ------------------------------------------------------------------ sizing rules
def round_size(nbytes: int) -> int:
    """round_size: below kMinBlockSize a request takes one; above, the next multiple of it."""
    if nbytes < MIN_BLOCK_SIZE:
        return MIN_BLOCK_SIZE
    return MIN_BLOCK_SIZE * ((nbytes + MIN_BLOCK_SIZE - 1) // MIN_BLOCK_SIZE)


def is_small(size: int) -> bool:
    """get_pool: rounded sizes up to kSmallSize come from the small pool, the rest the large."""
    return size <= SMALL_SIZE


def allocation_size(size: int) -> int:
    """get_allocation_size: how big a segment cudaMalloc gets when no cached block fits."""
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return ROUND_LARGE * ((size + ROUND_LARGE - 1) // ROUND_LARGE)


def should_split(block_size: int, size: int, small: bool) -> bool:
    """should_split: a small block keeps any remainder of kMinBlockSize or more; a large one only
    a remainder bigger than kSmallSize (smaller tails stay inside the allocation)."""
    remaining = block_size - size
    return remaining >= MIN_BLOCK_SIZE if small else remaining > SMALL_SIZE


def format_size(nbytes: int) -> str:
    """c10's format_size, used by the OOM message: 2 decimals, each unit up to and including 1024."""
    if nbytes <= 1024:
        return f"{nbytes} bytes"
    if nbytes <= 1 << 20:
        return f"{nbytes / 1024:.2f} KiB"
    if nbytes <= 1 << 30:
        return f"{nbytes / (1 << 20):.2f} MiB"
    return f"{nbytes / (1 << 30):.2f} GiB"


# ------------------------------------------------------------------ statistics
@dataclass
class Stat:
    """c10::CachingAllocator::Stat: current value, its peak, and the total ever added / removed."""

    current: int = 0
    peak: int = 0
    allocated: int = 0
    freed: int = 0

    def increase(self, amount: int) -> None:
        self.current += amount
        self.peak = max(self.peak, self.current)
        self.allocated += amount

    def decrease(self, amount: int) -> None:
        self.current -= amount
        self.freed += amount

    def reset_peak(self) -> None:
        self.peak = self.current

    def reset_accumulated(self) -> None:
        self.allocated = 0
        self.freed = 0

    def as_dict(self) -> dict[str, int]:
        return {"current": self.current, "peak": self.peak, "allocated": self.allocated, "freed": self.freed}


class DeviceStats:
    """DeviceStats: per-pool stat arrays, the oversize stats and the event counters."""

    def __init__(self) -> None:
        self.arrays = {name: {pool: Stat() for pool in POOLS} for name in STAT_ARRAYS}
        self.oversize = {name: Stat() for name in OVERSIZE_STATS}
        self.counters = dict.fromkeys(COUNTERS, 0)

    def change(self, name: str, small: bool, delta: int) -> None:
        """Apply `delta` to the aggregate and to the block's pool (get_stat_types_for_pool); a
        positive delta is an increase_stat, a negative one a decrease_stat, zero touches nothing."""
        for pool in ("all", "small_pool" if small else "large_pool"):
            stat = self.arrays[name][pool]
            if delta > 0:
                stat.increase(delta)
            elif delta < 0:
                stat.decrease(-delta)

    def all_stats(self) -> list[Stat]:
        return [s for arr in self.arrays.values() for s in arr.values()] + list(self.oversize.values())

    def nested(self) -> dict[str, Any]:
        """What torch._C._cuda_memoryStats returns: scalars, then one dict per stat."""
        result: dict[str, Any] = {"max_split_size": MAX_SPLIT_SIZE_STAT, **self.counters}
        for name, arr in self.arrays.items():
            result[name] = {pool: stat.as_dict() for pool, stat in arr.items()}
        for name, stat in self.oversize.items():
            result[name] = stat.as_dict()
        return result


def flatten_stats(nested: dict[str, Any]) -> OrderedDict[str, int]:
    """torch.cuda.memory_stats: dotted keys of the nested dict, sorted."""
    result: list[tuple[str, int]] = []

    def add(prefix: str, obj: Any) -> None:
        if isinstance(obj, dict):
            for key, value in obj.items():
                add(f"{prefix}.{key}" if prefix else key, value)
        else:
            result.append((prefix, obj))

    add("", nested)
    result.sort()
    return OrderedDict(result)


# ------------------------------------------------------------------ blocks, segments, history
@dataclass(eq=False)
class _Segment:
    """One cudaMalloc'd range; `head` is its lowest block (prev is None)."""

    address: int
    size: int
    small: bool
    tag: Any
    head: _Block | None = None


@dataclass(eq=False)
class _Block:
    """Block: a piece of a segment, allocated or cached, linked to its neighbours in the segment."""

    address: int
    size: int
    segment: _Segment
    requested_size: int = 0
    allocated: bool = False
    tag: Any = None
    prev: _Block | None = None
    next: _Block | None = None

    def is_split(self) -> bool:
        return self.prev is not None or self.next is not None


class _FreePool:
    """BlockPool.blocks: the cached free blocks of one pool, ordered as BlockComparatorSize orders
    them (size, then address), so the first block not smaller than a request is the best fit."""

    def __init__(self) -> None:
        self._keys: list[tuple[int, int]] = []
        self._blocks: dict[tuple[int, int], _Block] = {}

    def insert(self, block: _Block) -> None:
        key = (block.size, block.address)
        bisect.insort(self._keys, key)
        self._blocks[key] = block

    def remove(self, block: _Block) -> None:
        key = (block.size, block.address)
        del self._keys[bisect.bisect_left(self._keys, key)]
        del self._blocks[key]

    def best_fit(self, size: int) -> _Block | None:
        """get_free_block's lower_bound: the smallest block that fits, lowest address first."""
        i = bisect.bisect_left(self._keys, (size, 0))
        return self._blocks[self._keys[i]] if i < len(self._keys) else None

    def in_order(self) -> list[_Block]:
        return [self._blocks[key] for key in self._keys]


@dataclass(frozen=True)
class TraceEntry:
    """One allocator action, as torch's memory history records it (TraceEntry), with the caller's
    tag and every size the explorer shows.

    `address` is the block's (alloc, free_requested, free_completed) or the segment's
    (segment_alloc, segment_free) address, 0 for oom. `block_size` is the rounded block (for oom:
    the rounded request), `segment_size` the segment holding it (for oom: the one cudaMalloc could
    not get), `device_free` what cudaMemGetInfo reported when an oom was raised."""

    action: str
    address: int
    requested_size: int
    block_size: int
    segment_size: int
    tag: Any = None
    device_free: int = 0
    time_us: int = field(default_factory=lambda: time.time_ns() // 1000)


@dataclass(frozen=True)
class BlockInfo:
    """A block as a snapshot reports it (BlockInfo)."""

    address: int
    size: int
    requested_size: int
    allocated: bool
    tag: Any


@dataclass(frozen=True)
class SegmentInfo:
    """A segment as a snapshot reports it (SegmentInfo), its blocks in address order."""

    address: int
    total_size: int
    is_small: bool
    tag: Any
    blocks: tuple[BlockInfo, ...]


# ------------------------------------------------------------------ the allocator
class CachingAllocator:
    """DeviceCachingAllocator of one simulated device of `capacity` bytes.

    `malloc` returns the block's address (0 for an empty request, as torch gives a null pointer);
    `free` takes it back. Both take an optional `tag` (the explorer's step number, say) that the
    history and snapshots carry; `history_limit` keeps only the most recent entries, as torch's
    ring buffer does with max_entries."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY, device: int = 0,
                 history_limit: int | None = None) -> None:
        self.capacity = capacity
        self.device = device
        self.stats = DeviceStats()
        self._pools = {True: _FreePool(), False: _FreePool()}  # keyed by "is the small pool"
        self._active: dict[int, _Block] = {}
        self._segments: dict[int, _Segment] = {}
        self._next_address = FIRST_SEGMENT_ADDRESS
        self._history: deque[TraceEntry] = deque(maxlen=history_limit)

    # -------------------------------------------------------------- malloc / free
    def malloc(self, nbytes: int, tag: Any = None) -> int:
        """DeviceCachingAllocator::malloc: reuse the best cached block, else cudaMalloc a segment,
        retrying once after releasing every wholly free cached segment; split what is left over."""
        if nbytes >= ONE_EXA_BYTES:
            raise OutOfMemoryError("CUDA out of memory. Tried to allocate more than 1EB memory.")
        if nbytes == 0:
            return 0
        size = round_size(nbytes)
        small = is_small(size)
        block = self._pools[small].best_fit(size)
        if block is None:
            block = self._new_segment(size, nbytes, small, tag)
        else:
            self._pools[small].remove(block)
        return self._hand_out(block, size, nbytes, tag)

    def free(self, handle: int, tag: Any = None) -> None:
        """DeviceCachingAllocator::free: the block goes back to its pool, merged with free
        neighbours; its segment stays reserved until empty_cache()."""
        if handle == 0:
            return
        block = self._active.pop(handle, None)
        if block is None:
            raise RuntimeError(f"invalid device pointer: {handle:#x}")
        small = block.segment.small
        block.allocated = False
        self.stats.change("allocation", small, -1)
        self.stats.change("allocated_bytes", small, -block.size)
        self._trace("free_requested", block, tag)
        self._free_block(block, tag)

    def empty_cache(self, tag: Any = None) -> None:
        """emptyCache -> release_cached_blocks: cudaFree every segment that is one free block."""
        self._release_cached_blocks(tag)

    # -------------------------------------------------------------- figures
    def memory_stats(self) -> OrderedDict[str, int]:
        """torch.cuda.memory_stats(): every statistic under its dotted key, keys sorted."""
        return flatten_stats(self.stats.nested())

    def memory_allocated(self) -> int:
        return self.stats.arrays["allocated_bytes"]["all"].current

    def max_memory_allocated(self) -> int:
        return self.stats.arrays["allocated_bytes"]["all"].peak

    def memory_reserved(self) -> int:
        return self.stats.arrays["reserved_bytes"]["all"].current

    def max_memory_reserved(self) -> int:
        return self.stats.arrays["reserved_bytes"]["all"].peak

    def mem_get_info(self) -> tuple[int, int]:
        """cudaMemGetInfo of the simulated card: (free, total); only reserved memory is in use."""
        return self.capacity - self.memory_reserved(), self.capacity

    def reset_peak_memory_stats(self) -> None:
        """resetPeakStats: every peak falls back to its current value."""
        for stat in self.stats.all_stats():
            stat.reset_peak()

    def reset_accumulated_memory_stats(self) -> None:
        """resetAccumulatedStats: the allocated/freed totals and the event counters restart at 0."""
        for stat in self.stats.all_stats():
            stat.reset_accumulated()
        self.stats.counters = dict.fromkeys(COUNTERS, 0)

    def memory_summary(self, abbreviated: bool = False) -> str:
        """torch.cuda.memory_summary() of this device."""
        return format_memory_summary(self.memory_stats(), self.device, abbreviated)

    @property
    def history(self) -> list[TraceEntry]:
        """Every recorded action, oldest first (the most recent `history_limit` if capped)."""
        return list(self._history)

    def segments(self) -> list[SegmentInfo]:
        """The reserved segments in address order, each with its blocks (DeviceCachingAllocator::
        snapshot)."""
        return [self._segment_info(self._segments[address]) for address in sorted(self._segments)]

    # -------------------------------------------------------------- internals
    def _new_segment(self, size: int, nbytes: int, small: bool, tag: Any) -> _Block:
        """alloc_block, then (release_available_cached_blocks being a no-op without max_split_size)
        release_cached_blocks and alloc_block again as a retry; out of memory if that fails too."""
        segment_size = allocation_size(size)
        if not self._device_fits(segment_size):
            self._release_cached_blocks(tag)
            self.stats.counters["num_alloc_retries"] += 1
            if not self._device_fits(segment_size):
                self._raise_oom(size, nbytes, segment_size, tag)
        return self._cuda_malloc(segment_size, small, tag)

    def _device_fits(self, segment_size: int) -> bool:
        return self.memory_reserved() + segment_size <= self.capacity

    def _cuda_malloc(self, segment_size: int, small: bool, tag: Any) -> _Block:
        segment = _Segment(self._next_address, segment_size, small, tag)
        self._next_address += segment_size
        block = _Block(segment.address, segment_size, segment)
        segment.head = block
        self._segments[segment.address] = segment
        self.stats.change("segment", small, 1)
        self.stats.change("reserved_bytes", small, segment_size)
        self.stats.counters["num_device_alloc"] += 1
        self._history.append(TraceEntry("segment_alloc", segment.address, 0, 0, segment_size, tag))
        return block

    def _raise_oom(self, size: int, nbytes: int, segment_size: int, tag: Any) -> None:
        device_free = self.capacity - self.memory_reserved()
        self._history.append(TraceEntry("oom", 0, nbytes, size, segment_size, tag, device_free))
        self.stats.counters["num_ooms"] += 1
        allocated = self.memory_allocated()
        # proc_info is empty: the simulated card has no NVML to list processes.
        raise OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {format_size(segment_size)}. GPU {self.device} "
            f"has a total capacity of {format_size(self.capacity)} of which "
            f"{format_size(device_free)} is free. Of the allocated memory {format_size(allocated)} "
            f"is allocated by PyTorch, and {format_size(self.memory_reserved() - allocated)} "
            f"is reserved by PyTorch but unallocated.{OOM_ADVICE}"
        )

    def _hand_out(self, block: _Block, size: int, nbytes: int, tag: Any) -> int:
        """alloc_found_block: split off the remainder if should_split says so, then account."""
        small = block.segment.small
        already_split = block.is_split()
        if should_split(block.size, size, small):
            block = self._split(block, size)
            if already_split:  # an already-split inactive block shrinks by `size`
                self.stats.change("inactive_split_bytes", small, -size)
            else:  # a new inactive split block appears: the remainder
                self.stats.change("inactive_split_bytes", small, block.next.size)
                self.stats.change("inactive_split", small, 1)
        elif already_split:  # an inactive split block becomes active whole
            self.stats.change("inactive_split_bytes", small, -block.size)
            self.stats.change("inactive_split", small, -1)
        block.allocated = True
        block.requested_size = nbytes
        block.tag = tag
        self._active[block.address] = block
        self._trace("alloc", block, tag)
        for name, amount in (("allocation", 1), ("allocated_bytes", block.size), ("active", 1),
                             ("active_bytes", block.size), ("requested_bytes", nbytes)):
            self.stats.change(name, small, amount)
        return block.address

    def _split(self, remaining: _Block, size: int) -> _Block:
        """A new block of `size` takes the front of `remaining`, which stays cached behind it."""
        block = _Block(remaining.address, size, remaining.segment, prev=remaining.prev, next=remaining)
        if block.prev is None:
            block.segment.head = block
        else:
            block.prev.next = block
        remaining.prev = block
        remaining.address += size
        remaining.size -= size
        self._pools[block.segment.small].insert(remaining)
        return block

    def _free_block(self, block: _Block, tag: Any) -> None:
        """free_block: merge with free neighbours, cache, and account the inactive split blocks."""
        small = block.segment.small
        self._trace("free_completed", block, tag)
        original_size = block.size
        net_blocks = net_bytes = 0
        for neighbour in (block.prev, block.next):
            subsumed = self._merge(block, neighbour)
            if subsumed:
                net_blocks -= 1
                net_bytes -= subsumed
        self._pools[small].insert(block)
        if block.is_split():
            net_blocks += 1
            net_bytes += block.size
        self.stats.change("inactive_split", small, net_blocks)
        self.stats.change("inactive_split_bytes", small, net_bytes)
        self.stats.change("active", small, -1)
        self.stats.change("active_bytes", small, -original_size)
        self.stats.change("requested_bytes", small, -block.requested_size)

    def _merge(self, dst: _Block, src: _Block | None) -> int:
        """try_merge_blocks: `dst` swallows a free neighbour; returns the bytes it gained (or 0)."""
        if src is None or src.allocated:
            return 0
        self._pools[src.segment.small].remove(src)
        if dst.prev is src:
            dst.address = src.address
            dst.prev = src.prev
            if dst.prev is None:
                dst.segment.head = dst
            else:
                dst.prev.next = dst
        else:
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        dst.size += src.size
        return src.size

    def _release_cached_blocks(self, tag: Any) -> None:
        """release_cached_blocks: synchronize_and_free_events (counted), then release_blocks on
        the large pool and the small pool: every cached block that is a whole segment."""
        self.stats.counters["num_sync_all_streams"] += 1
        for small in (False, True):
            for block in self._pools[small].in_order():
                if not block.is_split():
                    self._release_block(block, tag)

    def _release_block(self, block: _Block, tag: Any) -> None:
        small = block.segment.small
        self.stats.counters["num_device_free"] += 1
        self._history.append(TraceEntry("segment_free", block.address, 0, 0, block.size, tag))
        self.stats.change("segment", small, -1)
        self.stats.change("reserved_bytes", small, -block.size)
        self._pools[small].remove(block)
        del self._segments[block.address]

    def _trace(self, action: str, block: _Block, tag: Any) -> None:
        self._history.append(TraceEntry(action, block.address, block.requested_size, block.size,
                                        block.segment.size, tag))

    @staticmethod
    def _segment_info(segment: _Segment) -> SegmentInfo:
        blocks = []
        block = segment.head
        while block is not None:
            blocks.append(BlockInfo(block.address, block.size, block.requested_size, block.allocated,
                                    block.tag))
            block = block.next
        return SegmentInfo(segment.address, segment.size, segment.small, segment.tag, tuple(blocks))


# ------------------------------------------------------------------ memory_summary
def _format_size(sz: int, pref_sz: float) -> str:
    """memory_summary's byte column: the unit chosen by the pool's total, the value floored."""
    prefix = "B  "
    for new_prefix in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        if pref_sz < 768 * 1024:
            break
        prefix = new_prefix
        sz //= 1024
        pref_sz /= 1024
    return f"{sz:6d} {prefix}"


def _format_count(cnt: int, pref_cnt: float) -> str:
    """memory_summary's count column."""
    prefix = " "
    for new_prefix in ("K", "M"):
        if pref_cnt < 750 * 1000:
            break
        prefix = new_prefix
        cnt //= 1000
        pref_cnt /= 1000
    return f"{cnt:7d} {prefix} "


_SUMMARY_METRICS: tuple[tuple[str, str, Callable[[int, float], str]], ...] = (
    ("allocated_bytes", "Allocated memory", _format_size),
    ("active_bytes", "Active memory", _format_size),
    ("requested_bytes", "Requested memory", _format_size),
    ("reserved_bytes", "GPU reserved memory", _format_size),
    ("inactive_split_bytes", "Non-releasable memory", _format_size),
    ("allocation", "Allocations", _format_count),
    ("active", "Active allocs", _format_count),
    ("segment", "GPU reserved segments", _format_count),
    ("inactive_split", "Non-releasable allocs", _format_count),
)


def _summary_row(name: str, formatter: Callable[[int, float], str], values: list[int],
                 preferred: list[int]) -> str:
    cells = " | ".join(formatter(v, p) for v, p in zip(values, preferred))
    return f" {name:<21} | {cells} "


def format_memory_summary(stats: dict[str, int], device: int, abbreviated: bool = False) -> str:
    """torch.cuda.memory_summary's table over a memory_stats() dict (torch/cuda/memory.py): each
    pool row takes its unit from the "all" row of its metric."""
    fields = ("current", "peak", "allocated", "freed")
    lines = [
        "=" * 75,
        " {_:16} PyTorch CUDA memory summary, device ID {device:<17d} ",
        "-" * 75,
        "  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {num_alloc_retries:<8d}  ",
        "=" * 75,
        "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ",
    ]
    submetrics = [("all", None)]
    if not abbreviated:
        submetrics += [("large_pool", "      from large pool"), ("small_pool", "      from small pool")]
    for key, name, formatter in _SUMMARY_METRICS:
        lines.append("-" * 75)
        preferred = [stats[f"{key}.all.{f}"] for f in fields]
        for pool, pool_name in submetrics:
            values = [stats[f"{key}.{pool}.{f}"] for f in fields]
            lines.append(_summary_row(pool_name or name, formatter, values, preferred))
    for key, name in (("oversize_allocations", "Oversize allocations"),
                      ("oversize_segments", "Oversize GPU segments")):
        lines.append("-" * 75)
        values = [stats[f"{key}.{f}"] for f in fields]
        lines.append(_summary_row(name, _format_count, values, values))
    lines.append("=" * 75)
    fmt = {"_": "", "device": device, **{k.replace(".", "-"): v for k, v in stats.items()}}
    return "|" + "|\n|".join(lines).format(**fmt) + "|\n"
