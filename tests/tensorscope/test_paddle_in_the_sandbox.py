"""`import paddle` in typed code gives the Paddle dialect, and the trace reports Paddle's flags."""

from __future__ import annotations

from pathlib import Path

from tensorscope.session import Session
from tensorscope.trace import step_record

PADDLE_SEEDS = Path(__file__).resolve().parents[1] / "data" / "paddle"


def run(source: str) -> Session:
    session = Session()
    session.run(source)
    return session


def test_the_seeds_leaf_block_raises_paddles_error():
    session = run((PADDLE_SEEDS / "000_01_leaf_scale.py").read_text(encoding="utf-8"))
    errors = [s.snapshot.error for s in session.steps if s.snapshot.error is not None]
    assert errors[0].type == "ValueError"
    assert errors[0].message.startswith("(InvalidArgument) Leaf Var () that doesn't stop gradient can't use "
                                        "inplace strategy.")


def test_the_seeds_relu_memory_blocks_print_the_guides_figures():
    for name, figure in (("000_02_relu_memory", "134217728"), ("000_03_relu_memory_inplace", "67108864")):
        session = run((PADDLE_SEEDS / f"{name}.py").read_text(encoding="utf-8"))
        printed = [s.snapshot.output for s in session.steps if s.snapshot.output]
        assert printed[-1] == figure, name


def test_the_trace_speaks_paddle():
    session = run("import paddle\nx = paddle.ones([2, 3])\nx.stop_gradient = False\ny = x * 2\n"
                  "z = paddle.ones([2, 3])\nv = z.reshape([3, 2])\nz.add_(paddle.ones([2, 3]))\n")
    objects = step_record(session.last)["objects"]
    assert objects["x"]["requires_grad"] is True and objects["x"]["grad_fn"] == "GradNodeAccumulation"
    assert objects["y"]["grad_fn"] == "ScaleGradNode"
    assert objects["z"]["version"] == objects["v"]["version"] == 1
    assert objects["z"]["storage"] == objects["v"]["storage"]


def test_paddles_plus_equals_rebinds():
    session = run("import paddle\nx = paddle.ones([3])\ny = x\nx += 1\n")
    objects = session.last.objects
    assert objects["x"].storage != objects["y"].storage and objects["y"].version == 0


def test_a_torch_only_name_is_refused_clearly():
    session = run("import paddle\npaddle.add_\n")
    assert session.last.error.type == "AttributeError"
