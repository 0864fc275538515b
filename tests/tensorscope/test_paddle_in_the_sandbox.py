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


def test_every_seed_block_prints_in_tensorscope_what_paddle_printed():
    """The guide's blocks typed into tensorscope: the same printed text as in Paddle 3.3.1 (what
    its print calls wrote; tensorscope also echoes bare expressions, as a console does)."""
    for path in sorted(PADDLE_SEEDS.glob("000_*.py")):
        expected = (PADDLE_SEEDS / f"{path.stem}.expected").read_text(encoding="utf-8")
        session = run(path.read_text(encoding="utf-8"))
        printed = "".join(s.snapshot.output + "\n" for s in session.steps
                          if s.snapshot.output and s.statement.source.startswith("print("))
        assert printed == expected.split("--- exception ---")[0], path.name


def test_the_dialects_modules_and_private_names_are_importable():
    session = run("import paddle\nimport paddle.nn.init as init\nfrom paddle.utils import dlpack\n"
                  "w = paddle.create_parameter([2, 2], 'float32')\ninit.normal_(w)\n"
                  "print(paddle.tensor.add_(paddle.ones([2]), paddle.ones([2])).tolist())\n"
                  "w._bump_inplace_version()\nprint(w.inplace_version, w[1]._offset(), w._grad_ivar())\n"
                  "v = dlpack.from_dlpack(dlpack.to_dlpack(w))\nprint(v._is_shared_buffer_with(w))\n")
    assert [s.snapshot.error for s in session.steps if s.snapshot.error] == []
    assert [s.snapshot.output for s in session.steps if s.snapshot.output] == ["[2.0, 2.0]", "1 8 None", "False"]
