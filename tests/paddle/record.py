"""Re-record what real PaddlePaddle 3.3.1 prints for the snippets and the CPU-runnable seed blocks.

    python -m tests.paddle.record      (needs `pip install paddlepaddle==3.3.1`)

Writes tests/data/paddle/snippets.json, tests/data/paddle/ported.json (the ported upstream tests,
tests/paddle/ported), tests/data/paddle/random.json (digests of seeded random draws) and the `.expected` file of every seed block that is not GPU-only (GPU-only
blocks keep the figures their source document printed; see the README there).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from tests.paddle.harness import RealPaddle
from tests.paddle.ported.catalog import all_cases
from tests.paddle.random_calls import CALLS, values
from tests.paddle.snippets import SNIPPETS

DATA = Path(__file__).resolve().parents[1] / "data" / "paddle"
SNIPPETS_FILE = DATA / "snippets.json"
PORTED_FILE = DATA / "ported.json"
RANDOM_FILE = DATA / "random.json"
GPU_ONLY = ("000_02_relu_memory", "000_03_relu_memory_inplace")


def seed_names() -> list[str]:
    return sorted(p.stem for p in DATA.glob("*.py"))


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle
    real = RealPaddle(paddle)
    recorded = {name: real.run(source).text() for name, source in sorted(SNIPPETS.items())}
    SNIPPETS_FILE.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    ported = {case.name: real.run(case.program()).text() for case in all_cases()}
    PORTED_FILE.write_text(json.dumps(ported, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    from tests.paddle.test_random import digest

    drawn = {name: digest(values(paddle, name)) for name in sorted(CALLS)}
    RANDOM_FILE.write_text(json.dumps(drawn, indent=1) + "\n", encoding="utf-8")
    for name in seed_names():
        if name not in GPU_ONLY:
            text = real.run((DATA / f"{name}.py").read_text(encoding="utf-8")).text()
            (DATA / f"{name}.expected").write_text(text, encoding="utf-8")
    print(f"recorded {len(recorded)} snippets, {len(ported)} ported tests and {len(seed_names()) - len(GPU_ONLY)} seed blocks in {DATA}")


if __name__ == "__main__":
    main()
