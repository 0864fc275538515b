"""How long the Paddle dialect takes to replay Paddle's CPU random stream (engine/paddle/random.py).

    python benchmarks/random_paddle.py

Prints seconds per call for the sizes the seed guide and typical layers use. The stream is
mt19937_64 replayed in numpy: the twist runs block by block (312 words), the rest is vectorised.
"""

from __future__ import annotations

import os
import sys
import time

# benchmarks/engine.py is named like the package: keep this folder off the import path.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import engine.paddle as paddle  # noqa: E402

CASES = [
    ("rand [1, 64, 512, 512] (the guide's GPU block)", lambda: paddle.rand([1, 64, 512, 512])),
    ("rand [1000, 1000]", lambda: paddle.rand([1000, 1000])),
    ("randn [1000, 1000] (polar method, logf)", lambda: paddle.randn([1000, 1000])),
    ("randint [1000, 1000]", lambda: paddle.randint(0, 10, [1000, 1000])),
    ("Conv2D(64, 64, 3) init", lambda: paddle.nn.Conv2D(64, 64, 3)),
    ("dropout on [1000, 1000]", lambda: paddle.nn.functional.dropout(paddle.ones([1000, 1000]), 0.5)),
]


def main() -> None:
    for label, make in CASES:
        paddle.seed(0)
        start = time.perf_counter()
        make()
        print(f"{time.perf_counter() - start:8.3f} s  {label}")


if __name__ == "__main__":
    main()
