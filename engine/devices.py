"""torch.device, and where new storages go: the host, or the simulated CUDA device.

Every op runs with a "current device", taken from its tensor arguments (or a factory's `device=`),
and the storages it creates are placed there. Data always lives in host numpy memory; a device
storage is additionally accounted by that device's caching allocator, so `torch.cuda.*` report
what a real GPU would.
"""

from __future__ import annotations

from typing import Any

from engine import runtime


class device:  # noqa: N801 - torch's name
    """torch.device: `cpu` or `cuda:N`."""

    __slots__ = ("index", "type")

    def __init__(self, spec: str | device = "cpu", index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        kind, _, number = str(spec).partition(":")
        if kind not in ("cpu", "cuda", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {spec}"
            )
        self.type = kind
        self.index = int(number) if number else index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


class Placement:
    """Where ops run and whether the simulated device exists: a part of the engine's runtime."""

    __slots__ = ("cuda_enabled", "cuda_in_use", "current")

    def __init__(self) -> None:
        self.current: device = CPU
        self.cuda_in_use = False  # set once a device storage exists: until then ops skip the device checks
        self.cuda_enabled = True  # the simulated device is on (tensorscope's default; `--no-cuda` turns it off)


state: Placement = runtime.slot(__name__, "state", Placement)

NOT_COMPILED = "Torch not compiled with CUDA enabled"


def resolve(spec: Any) -> device:
    """A device from what users pass (`'cuda'`, `'cuda:0'`, `torch.device(...)`, an index)."""
    dev = spec if isinstance(spec, device) else device(f"cuda:{spec}" if isinstance(spec, int) else spec)
    if dev.type == "cuda":
        if not state.cuda_enabled:
            raise AssertionError(NOT_COMPILED)
        index = 0 if dev.index is None else dev.index
        if index != 0:
            raise RuntimeError("CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                               "reported at some other API call, so the stacktrace below might be incorrect.\n"
                               "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with "
                               "`TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
        return device("cuda", 0)
    return CPU




class _On:
    """The block runs with `dev` as the current device (a class: cheaper than a generator-based
    context manager, and backward enters one per leaf)."""

    __slots__ = ("dev", "previous")

    def __init__(self, dev: device) -> None:
        self.dev = dev

    def __enter__(self) -> None:
        self.previous = state.current
        state.current = self.dev

    def __exit__(self, *exc: object) -> None:
        state.current = self.previous


def on(dev: device) -> _On:
    return _On(dev)
