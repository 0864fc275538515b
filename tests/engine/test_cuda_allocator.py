"""The simulated CUDA caching allocator against PyTorch's rules (c10/cuda/CUDACachingAllocator.cpp).

Every expected figure is worked out from the C++ constants: kMinBlockSize 512, kSmallSize 1 MiB,
kSmallBuffer 2 MiB, kLargeBuffer 20 MiB, kMinLargeAlloc 10 MiB, kRoundLarge 2 MiB. A request is
rounded to a multiple of 512 (at least 512); up to 1 MiB it comes from the small pool, whose new
segments are 2 MiB; a larger request under 10 MiB gets a 20 MiB segment, anything else a segment
rounded up to 2 MiB. What is left of a block is split off as a cached block when it is at least
512 bytes (small pool) or more than 1 MiB (large pool); otherwise it stays inside the allocation.
"""

from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys
import textwrap

import pytest

from engine.cuda_allocator import (
    CachingAllocator,
    OutOfMemoryError,
    allocation_size,
    format_size,
    is_small,
    round_size,
)
from engine.memory_snapshot import dump_snapshot, snapshot

MiB, GiB = 1 << 20, 1 << 30
SUMMARY_MARK = "<<memory_summary>>"
SEED_BYTES = 10000 * 10000 * 4  # torch.randn(10000, 10000): 400,000,000 bytes of float32


def stat(allocator: CachingAllocator, key: str) -> int:
    return allocator.memory_stats()[key]


# ------------------------------------------------------------------ rounding and splitting
# (request, rounded size, small pool?, new segment, bytes allocated = block after should_split)
SIZES = [
    (1, 512, True, 2 * MiB, 512),  # below kMinBlockSize: one minimum block
    (511, 512, True, 2 * MiB, 512),
    (512, 512, True, 2 * MiB, 512),
    (513, 1024, True, 2 * MiB, 1024),  # the next multiple of 512
    (MiB - 1, MiB, True, 2 * MiB, MiB),  # rounds to exactly kSmallSize: still small
    (MiB, MiB, True, 2 * MiB, MiB),  # the 1 MiB tail (>= 512) is split off
    (MiB + 1, MiB + 512, False, 20 * MiB, MiB + 512),  # large pool: a kLargeBuffer to share
    (10 * MiB - 512, 10 * MiB - 512, False, 20 * MiB, 10 * MiB - 512),  # last size under 10 MiB
    (10 * MiB - 1, 10 * MiB, False, 10 * MiB, 10 * MiB),  # rounds to kMinLargeAlloc: own segment
    (10 * MiB, 10 * MiB, False, 10 * MiB, 10 * MiB),
    (10 * MiB + 1, 10 * MiB + 512, False, 12 * MiB, 10 * MiB + 512),  # tail 2 MiB - 512 > 1 MiB
    (11 * MiB, 11 * MiB, False, 12 * MiB, 12 * MiB),  # tail exactly 1 MiB: not > kSmallSize, kept
    (11 * MiB + 1, 11 * MiB + 512, False, 12 * MiB, 12 * MiB),
    (SEED_BYTES, SEED_BYTES, False, 382 * MiB, 382 * MiB),  # tail 556,032 bytes: kept
    (GiB, GiB, False, GiB, GiB),
]


@pytest.mark.parametrize(("nbytes", "rounded", "small", "segment", "allocated"), SIZES)
def test_rounding_pools_segments_and_splits(nbytes, rounded, small, segment, allocated):
    assert round_size(nbytes) == rounded
    assert is_small(rounded) is small
    assert allocation_size(rounded) == segment
    a = CachingAllocator()
    a.malloc(nbytes)
    pool = "small_pool" if small else "large_pool"
    split_off = segment - allocated
    assert a.memory_allocated() == stat(a, f"allocated_bytes.{pool}.current") == allocated
    assert a.memory_reserved() == stat(a, f"reserved_bytes.{pool}.current") == segment
    assert stat(a, "requested_bytes.all.current") == nbytes
    assert stat(a, "inactive_split.all.current") == (1 if split_off else 0)
    assert stat(a, "inactive_split_bytes.all.current") == split_off
    assert [b.size for b in a.segments()[0].blocks] == [allocated] + ([split_off] if split_off else [])


def test_small_pool_splits_down_to_the_minimum_block():
    a = CachingAllocator()
    first = a.malloc(MiB)  # 2 MiB segment: 1 MiB block + 1 MiB cached tail
    second = a.malloc(MiB - 1024)  # best fit is the tail: 1024 bytes (>= 512) split off again
    third = a.malloc(1)  # 512 from the 1024-byte block, leaving exactly kMinBlockSize: split
    fourth = a.malloc(512)  # the last 512 bytes, nothing left to split
    assert [second, third, fourth] == [first + MiB, first + 2 * MiB - 1024, first + 2 * MiB - 512]
    assert a.memory_reserved() == a.memory_allocated() == 2 * MiB
    assert stat(a, "segment.small_pool.current") == 1
    assert stat(a, "inactive_split.all.current") == 0


def test_a_20_mib_segment_is_shared_by_medium_allocations():
    a = CachingAllocator()
    blocks = [a.malloc(n) for n in (3 * MiB, 5 * MiB, 9 * MiB)]  # tails 17, 12, 3 MiB split off
    last = a.malloc(5 * MiB // 2)  # the 3 MiB tail fits; 512 KiB left (<= 1 MiB) stays inside
    assert blocks[1:] + [last] == [blocks[0] + 3 * MiB, blocks[0] + 8 * MiB, blocks[0] + 17 * MiB]
    assert a.memory_reserved() == 20 * MiB
    assert a.memory_allocated() == 20 * MiB  # 3 + 5 + 9 + 3
    assert stat(a, "requested_bytes.all.current") == 19 * MiB + MiB // 2
    assert stat(a, "num_device_alloc") == 1


def test_best_fit_takes_the_smallest_block_then_the_lowest_address():
    a = CachingAllocator()
    big, low, high = a.malloc(30 * MiB), a.malloc(24 * MiB), a.malloc(24 * MiB)
    for handle in (big, high, low):
        a.free(handle)
    assert [a.malloc(23 * MiB) for _ in range(3)] == [low, high, big]
    assert a.memory_reserved() == 78 * MiB  # all three served from the cache
    assert a.memory_allocated() == 24 * MiB + 24 * MiB + 23 * MiB  # 30 MiB split: 7 MiB tail


# ------------------------------------------------------------------ caching, merging, releasing
def test_a_freed_block_is_cached_and_reused_without_growing_reserved():
    a = CachingAllocator()
    handle = a.malloc(SEED_BYTES)
    a.free(handle)
    assert a.memory_allocated() == 0
    assert a.memory_reserved() == 382 * MiB  # cached, not returned to the device
    assert a.malloc(SEED_BYTES) == handle
    assert a.memory_reserved() == 382 * MiB
    assert stat(a, "num_device_alloc") == 1
    assert stat(a, "segment.all.current") == 1


def test_freeing_merges_neighbours_back_into_one_block():
    a = CachingAllocator()
    first, second, third = (a.malloc(2 * MiB) for _ in range(3))  # a 14 MiB tail is cached

    def inactive_split():
        return stat(a, "inactive_split.all.current"), stat(a, "inactive_split_bytes.all.current")

    assert inactive_split() == (1, 14 * MiB)
    a.free(second)  # between two live blocks: nothing to merge with
    assert inactive_split() == (2, 16 * MiB)
    a.free(first)  # swallows `second`: still two free pieces
    assert inactive_split() == (2, 18 * MiB)
    a.free(third)  # joins both: the segment is one free block again, no longer split
    assert inactive_split() == (0, 0)
    [segment] = a.segments()
    assert [(b.size, b.allocated) for b in segment.blocks] == [(20 * MiB, False)]
    assert segment.blocks[0].address == first


def test_empty_cache_releases_only_segments_that_are_one_free_block():
    a = CachingAllocator()
    live = a.malloc(2 * MiB)  # keeps its 20 MiB segment (the free tail is a split block)
    a.free(a.malloc(30 * MiB))
    a.free(a.malloc(100))  # a whole free 2 MiB small segment
    a.empty_cache()
    assert a.memory_reserved() == 20 * MiB
    assert [s.address for s in a.segments()] == [live]
    assert stat(a, "num_device_free") == 2
    assert stat(a, "num_sync_all_streams") == 1
    assert stat(a, "reserved_bytes.all.freed") == 32 * MiB


def test_peaks_and_their_reset():
    a = CachingAllocator()
    handles = [a.malloc(SEED_BYTES) for _ in range(3)]
    a.free(handles.pop())
    assert a.max_memory_allocated() == 3 * 382 * MiB
    assert a.max_memory_reserved() == a.memory_reserved() == 3 * 382 * MiB
    a.reset_peak_memory_stats()
    assert a.max_memory_allocated() == a.memory_allocated() == 2 * 382 * MiB
    a.empty_cache()
    a.reset_peak_memory_stats()
    assert a.max_memory_reserved() == 2 * 382 * MiB
    a.reset_accumulated_memory_stats()
    assert stat(a, "allocated_bytes.all.allocated") == stat(a, "allocated_bytes.all.freed") == 0
    assert stat(a, "num_device_free") == stat(a, "num_sync_all_streams") == 0
    assert a.memory_allocated() == 2 * 382 * MiB  # current values are untouched


def test_the_seed_relu_measurement():
    """cuda_001_01: with t alive, F.relu(t) allocates one output block, F.relu_(t) nothing; the
    second call's tensor reuses the cached 382 MiB block."""
    a = CachingAllocator()

    def measure(inplace):
        t = a.malloc(SEED_BYTES)
        start_max, start = a.max_memory_allocated() / MiB, a.memory_allocated() / MiB
        output = None if inplace else a.malloc(SEED_BYTES)
        end_max, end = a.max_memory_allocated() / MiB, a.memory_allocated() / MiB
        for handle in (t, output):
            a.free(handle or 0)
        return end - start, end_max - start_max

    assert measure(inplace=False) == (382.0, 382.0)
    reserved = a.memory_reserved()
    assert measure(inplace=True) == (0.0, 0.0)
    assert a.memory_reserved() == reserved == 2 * 382 * MiB


# ------------------------------------------------------------------ edge requests and OOM
def test_empty_requests_bad_pointers_and_the_exabyte_limit():
    a = CachingAllocator()
    assert a.malloc(0) == 0  # torch hands out a null pointer and counts nothing
    a.free(0)
    assert a.memory_stats() == CachingAllocator().memory_stats()
    with pytest.raises(RuntimeError, match=r"^invalid device pointer: 0x1234$"):
        a.free(0x1234)
    with pytest.raises(OutOfMemoryError, match=r"^CUDA out of memory\. Tried to allocate more than 1EB memory\.$"):
        a.malloc(1 << 60)


def test_out_of_memory_message_and_a_failed_malloc_changes_no_allocation():
    a = CachingAllocator(capacity=GiB)
    live = [a.malloc(SEED_BYTES), a.malloc(SEED_BYTES)]  # 764 MiB reserved, 260 MiB free
    before = a.memory_stats()
    with pytest.raises(OutOfMemoryError) as raised:
        a.malloc(SEED_BYTES)
    assert isinstance(raised.value, RuntimeError)
    assert str(raised.value) == (
        "CUDA out of memory. Tried to allocate 382.00 MiB. GPU 0 has a total capacity of 1024.00 MiB "
        "of which 260.00 MiB is free. Of the allocated memory 764.00 MiB is allocated by PyTorch, and "
        "0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
        "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
        "documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
        "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
    )
    after = a.memory_stats()
    # Only the counters of the attempt move: the retry, its stream sync, the OOM itself.
    bumped = {"num_alloc_retries", "num_sync_all_streams", "num_ooms"}
    assert {k for k in before if before[k] != after[k]} == bumped
    assert all(after[k] == before[k] + 1 for k in bumped)
    oom = a.history[-1]
    assert (oom.action, oom.block_size, oom.segment_size, oom.device_free) == (
        "oom", SEED_BYTES, 382 * MiB, 260 * MiB)
    for handle in live:
        a.free(handle)


def test_cudamalloc_is_retried_after_releasing_cached_segments():
    a = CachingAllocator(capacity=GiB)
    a.malloc(SEED_BYTES)
    a.free(a.malloc(SEED_BYTES))  # 382 MiB cached, too small for the next request
    a.malloc(500 * MiB)  # 764 + 500 > 1024: release the cached segment, retry, fit
    assert a.memory_reserved() == 882 * MiB
    assert [stat(a, k) for k in ("num_alloc_retries", "num_device_free", "num_ooms")] == [1, 1, 0]


def test_a_failed_retry_still_releases_the_cached_segments():
    """As in torch: the cache is emptied before the OOM is raised; only live blocks survive."""
    a = CachingAllocator(capacity=GiB)
    a.malloc(SEED_BYTES)
    a.free(a.malloc(SEED_BYTES))
    with pytest.raises(OutOfMemoryError, match=r"of which 642\.00 MiB is free\. .* and 0 bytes is reserved"):
        a.malloc(700 * MiB)
    assert a.memory_reserved() == a.memory_allocated() == 382 * MiB


@pytest.mark.parametrize(("nbytes", "text"), [
    (0, "0 bytes"), (1024, "1024 bytes"), (1025, "1.00 KiB"), (MiB, "1024.00 KiB"),
    (MiB + 1, "1.00 MiB"), (382 * MiB, "382.00 MiB"), (GiB, "1024.00 MiB"), (GiB + 1, "1.00 GiB"),
    (16 * GiB, "16.00 GiB"),
])
def test_format_size_matches_c10(nbytes, text):
    assert format_size(nbytes) == text


# ------------------------------------------------------------------ stats and summary
def test_memory_stats_has_torchs_keys_sorted():
    stats = CachingAllocator().memory_stats()
    keys = list(stats)
    assert keys == sorted(keys)
    arrays = ["active", "active_bytes", "allocated_bytes", "allocation", "inactive_split",
              "inactive_split_bytes", "requested_bytes", "reserved_bytes", "segment"]
    expected = {f"{name}.{pool}.{field}" for name in arrays for pool in ("all", "large_pool", "small_pool")
                for field in ("allocated", "current", "freed", "peak")}
    expected |= {f"{name}.{field}" for name in ("oversize_allocations", "oversize_segments")
                 for field in ("allocated", "current", "freed", "peak")}
    expected |= {"max_split_size", "num_alloc_retries", "num_device_alloc", "num_device_free",
                 "num_oom_rejections", "num_ooms", "num_sync_all_streams"}
    assert set(keys) == expected
    assert stats["max_split_size"] == -1  # SIZE_MAX as int64: no block is ever oversize


def busy_allocator() -> CachingAllocator:
    """Both pools in use, a split segment, a freed block and a released segment."""
    a = CachingAllocator(capacity=GiB)
    a.malloc(SEED_BYTES, tag="step 1")
    small = a.malloc(700, tag="step 2")
    a.malloc(3 * MiB, tag="step 3")
    a.free(a.malloc(5 * MiB, tag="step 4"), tag="step 5")
    a.free(small, tag="step 6")
    a.free(a.malloc(50 * MiB, tag="step 7"), tag="step 8")
    a.empty_cache(tag="step 9")
    with pytest.raises(OutOfMemoryError):
        a.malloc(700 * MiB, tag="step 10")
    a.malloc(100, tag="step 11")
    return a


def test_memory_summary_table_structure():
    a = busy_allocator()
    lines = a.memory_summary().splitlines()
    assert len(lines) == 6 + 9 * 4 + 2 * 2 + 1
    assert all(len(line) == 77 and line[0] == line[-1] == "|" for line in lines)
    assert lines[1] == "|                  PyTorch CUDA memory summary, device ID 0                 |"
    assert lines[3] == "|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |"
    assert lines[7] == "| Allocated memory      | 394240 KiB | 445440 KiB | 450561 KiB |  56321 KiB |"
    assert lines[9] == "|       from small pool |      0 KiB |      1 KiB |      1 KiB |      1 KiB |"
    assert len(a.memory_summary(abbreviated=True).splitlines()) == 6 + 9 * 2 + 2 * 2 + 1


# ------------------------------------------------------------------ history and snapshots
def test_history_records_every_action_with_tags_and_sizes():
    a = CachingAllocator()
    handle = a.malloc(3 * MiB, tag=1)
    a.free(handle, tag=2)
    a.empty_cache(tag=3)
    rows = [(e.action, e.tag, e.address, e.requested_size, e.block_size, e.segment_size) for e in a.history]
    assert rows == [
        ("segment_alloc", 1, handle, 0, 0, 20 * MiB),
        ("alloc", 1, handle, 3 * MiB, 3 * MiB, 20 * MiB),
        ("free_requested", 2, handle, 3 * MiB, 3 * MiB, 20 * MiB),
        ("free_completed", 2, handle, 3 * MiB, 3 * MiB, 20 * MiB),
        ("segment_free", 3, handle, 0, 0, 20 * MiB),
    ]
    capped = CachingAllocator(history_limit=2)
    capped.free(capped.malloc(100, tag=1), tag=2)
    assert [(e.action, e.tag) for e in capped.history] == [("free_requested", 2), ("free_completed", 2)]


def test_snapshot_layout():
    a = busy_allocator()
    snap = snapshot(a)
    assert set(snap) == {"segments", "device_traces", "allocator_settings", "external_annotations"}
    assert sum(s["total_size"] for s in snap["segments"]) == a.memory_reserved()
    assert sum(s["allocated_size"] for s in snap["segments"]) == a.memory_allocated()
    for seg in snap["segments"]:
        addresses = [seg["address"]]
        for block in seg["blocks"]:
            addresses.append(addresses[-1] + block["size"])
        assert [b["address"] for b in seg["blocks"]] == addresses[:-1]
        assert addresses[-1] == seg["address"] + seg["total_size"]
    seed = snap["segments"][0]
    assert (seed["segment_type"], seed["requested_size"], seed["frames"][0]["name"]) == (
        "large", SEED_BYTES, "step 1")
    [trace] = snap["device_traces"]
    assert [e["action"] for e in trace].count("segment_free") == 2
    oom = next(e for e in trace if e["action"] == "oom")
    assert (oom["size"], oom["device_free"], "addr" in oom) == (700 * MiB, GiB - 402 * MiB, False)


TORCH_TOOLS = textwrap.dedent(f"""
    import pickle, runpy, sys

    snapshot_file, stats_file, out = sys.argv[1:]
    commands = [["trace_plot", snapshot_file, "-o", out + "/trace.html"],
                ["segment_plot", snapshot_file, "-o", out + "/segments.html"],
                ["stats", snapshot_file], ["trace", snapshot_file]]
    for command in commands:  # what `python -m torch.cuda._memory_viz ...` runs, in one process
        sys.argv = ["_memory_viz.py", *command]
        runpy.run_module("torch.cuda._memory_viz", run_name="__main__", alter_sys=True)
    from torch.cuda import _memory_viz, memory
    with open(snapshot_file, "rb") as f:
        data = pickle.load(f)
    # The memory/segments subcommands pipe this text through flamegraph.pl (downloaded): print it.
    print(_memory_viz.memory(data, format_flamegraph=str))
    print(_memory_viz.segments(data, format_flamegraph=str))
    with open(stats_file, "rb") as f:
        stats = pickle.load(f)
    memory.memory_stats = lambda device=None: stats  # torch's memory_summary over our statistics
    for abbreviated in (False, True):
        print({SUMMARY_MARK!r} + memory.memory_summary(0, abbreviated), end="")
""")


@pytest.fixture(scope="module")
def torch_tools(tmp_path_factory):
    """busy_allocator()'s snapshot and stats through real torch's own tools, in one subprocess
    (one torch import): (stdout before the summaries, [full summary, abbreviated], output dir)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("real torch is not installed")
    out = tmp_path_factory.mktemp("torch_tools")
    a = busy_allocator()
    dump_snapshot(a, str(out / "snapshot.pickle"))
    with open(out / "stats.pickle", "wb") as f:
        pickle.dump(a.memory_stats(), f)
    result = subprocess.run(
        [sys.executable, "-c", TORCH_TOOLS, str(out / "snapshot.pickle"), str(out / "stats.pickle"), str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    viz, *summaries = result.stdout.split(SUMMARY_MARK)
    return viz, summaries, out


def test_snapshot_renders_with_torchs_memory_viz(torch_tools):
    viz, _, out = torch_tools
    for page in ("trace.html", "segments.html"):
        assert "snapshot.pickle" in (out / page).read_text()
    assert "segments: 3\n" in viz  # stats: the allocator's three segments, accounting checked
    assert "raise OutOfMemoryError # 700.0MiB requested, 622.0MiB free in CUDA" in viz  # trace
    assert ";active_allocated;tensorscope:0:step 1 400000000\n" in viz  # memory and segments


def test_memory_summary_is_torchs_own_table(torch_tools):
    """torch.cuda.memory_summary, fed this allocator's memory_stats(), prints the same text."""
    _, summaries, _ = torch_tools
    a = busy_allocator()
    assert summaries == [a.memory_summary(), a.memory_summary(abbreviated=True)]
