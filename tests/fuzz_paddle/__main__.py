"""`python -m tests.fuzz_paddle [--programs N] [--seed S] [--show K]`: run N generated programs in
real Paddle 3.3.1 and in the dialect, print each disagreement shrunk to a minimal program (up to K)
and then `agreement: P/N`. Needs paddlepaddle installed."""

from __future__ import annotations

import argparse

from tests.fuzz_paddle.driver import campaign


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_paddle", description=__doc__)
    parser.add_argument("--programs", type=int, default=2000, help="how many programs (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first program (default 0)")
    parser.add_argument("--show", type=int, default=20, help="how many minimal repros to print (default 20)")
    args = parser.parse_args()
    outcomes = campaign(args.programs, args.seed)
    failed = [o for o in outcomes if o.difference is not None]
    for outcome in failed[:args.show]:
        print(f"--- program {outcome.program.seed}: {outcome.difference}")
        print("\n".join(outcome.minimal or outcome.program.statements))
    print(f"agreement: {len(outcomes) - len(failed)}/{len(outcomes)}")


if __name__ == "__main__":
    main()
