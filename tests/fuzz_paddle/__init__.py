"""A differential fuzzer for the Paddle dialect: random programs over views, in-place ops,
stop_gradient and backward (generate.py), run in real PaddlePaddle 3.3.1 and through the dialect
and compared in full after every statement (observe.py), a disagreement shrunk to a minimal
program (shrink.py). `python -m tests.fuzz_paddle` prints `agreement: P/N`."""
