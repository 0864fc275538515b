"""The `tensorscope` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tensorscope import __version__

DESCRIPTION = (
    "tensorscope shows what PyTorch does to memory: which tensors share a storage, version counters, "
    "the autograd graph and its saved tensors, and why an in-place operation broke backward."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tensorscope", description=DESCRIPTION)
    parser.add_argument("--version", action="version",
                        version=f"tensorscope {__version__} (engine modelled on PyTorch 2.13)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
