"""The seed's relu vs relu_ case on the simulated CUDA device: device figures and host cost.

Run by hand: `python benchmarks/memory.py`. Each case runs in a fresh process: a 10000x10000
float32 tensor on the device, then F.relu or F.relu_. Printed: the caching allocator's figures
(what the seed prints: 382.0 vs 0.0 MiB) and the host's peak RSS growth (the tensor's data lives in
host memory once; relu adds one more tensor, relu_ nothing), as resident-set growth.
"""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import re, sys, time
import engine as torch
import engine.nn.functional as F

def rss_mb(field="VmRSS"):
    return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1)) / 1024

inplace = sys.argv[1] == "relu_"
base = rss_mb()
t = torch.randn(10000, 10000, device="cuda")
with_tensor = rss_mb()
start, start_peak = torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated()
began = time.perf_counter()
out = F.relu_(t) if inplace else F.relu(t)
elapsed = time.perf_counter() - began
mib = 1024 ** 2
print((torch.cuda.memory_allocated() - start) / mib, (torch.cuda.max_memory_allocated() - start_peak) / mib,
      torch.cuda.memory_reserved() / mib, with_tensor - base, rss_mb() - with_tensor, elapsed * 1000)
"""


def main() -> None:
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("10000x10000 float32 on the simulated device (400,000,000 bytes), each case in a fresh process")
    print(f"{'op':<7}{'allocated +MiB':>15}{'max alloc +MiB':>15}{'reserved MiB':>13}"
          f"{'host: tensor MB':>16}{'host: op +MB':>13}{'time ms':>9}")
    for op in ("relu", "relu_"):
        fields = subprocess.run([sys.executable, "-c", PROBE, op], capture_output=True, text=True, check=True,
                                cwd=root).stdout.split()
        alloc, peak, reserved, tensor_mb, op_mb, ms = map(float, fields)
        print(f"{op:<7}{alloc:>15.1f}{peak:>15.1f}{reserved:>13.1f}{tensor_mb:>16.1f}{op_mb:>13.1f}{ms:>9.1f}")


if __name__ == "__main__":
    main()
