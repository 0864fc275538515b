"""The Paddle dialect where the differential snippets cannot reach: the exact 3.3.1 texts with
their build tails, the simulated GPU, memory accounting, and what tensorscope inspects."""

import pytest

import engine
import engine.paddle as paddle
import engine.paddle.nn.functional as F
from engine import inspect as engine_inspect
from engine.paddle import inspect


@pytest.fixture(autouse=True)
def fresh():
    paddle.reset()
    engine.cuda.configure(enabled=True)
    yield
    paddle.reset()
    engine.cuda.configure(enabled=True)


# Measured in paddlepaddle 3.3.1 (Linux CPU wheel), tails included.
LEAF = ("(InvalidArgument) Leaf Var () that doesn't stop gradient can't use inplace strategy.\n"
        "  [Hint: Expected !autograd_meta->StopGradient() && IsLeafTensor(target) == false, but received "
        "!autograd_meta->StopGradient() && IsLeafTensor(target):1 != false:0.] (at /paddle/paddle/fluid/eager/utils.cc:277)\n")
VERSION = ("(PermissionDenied) Tensor '' used in gradient computation has been modified by an inplace operation. "
           "Its version is 1 but the expected version is 0. Please fix your code to void calling an inplace "
           "operator after using the Tensor which will used in gradient computation.\n"
           "  [Hint: Expected tensor_version == wrapper_version_snapshot, but received tensor_version:1 != "
           "wrapper_version_snapshot:0.] (at /paddle/paddle/fluid/eager/tensor_wrapper.h:268)\n")
TWICE = ("(Fatal) The TensorWrappers of SumGradNode do not exist. This may be because:\n"
         "You calculate backward twice for the same subgraph without setting retain_graph=True. Please set "
         "retain_graph=True in the first backward/grad call.\n\n"
         "  [Hint: Expected node->IsTensorWrappersCleared() != true, but received "
         "node->IsTensorWrappersCleared():1 == true:1.] (at /paddle/paddle/fluid/eager/backward.cc:204)\n")


def test_exact_error_texts_with_their_tails():
    x = paddle.rand([3, 4])
    x.stop_gradient = False
    with pytest.raises(ValueError) as leaf:
        x.scale_(2.0)
    assert str(leaf.value) == LEAF
    y = x.sigmoid()
    y.scale_(2.0)
    with pytest.raises(RuntimeError) as stale:
        y.sum().backward()
    assert str(stale.value) == VERSION
    z = (x * x).sum()
    z.backward()
    with pytest.raises(SystemError) as twice:
        z.backward()
    assert str(twice.value) == TWICE


def test_paddle_add_does_not_exist():
    with pytest.raises(AttributeError, match=r"^module 'paddle' has no attribute 'add_'$"):
        paddle.add_  # noqa: B018
    assert callable(paddle.multiply_) and callable(paddle.Tensor.add_) and callable(F.relu_)


def test_the_guides_relu_measurement_on_the_simulated_gpu():
    paddle.set_device("gpu")
    x = paddle.rand([1, 64, 512, 512], dtype="float32")
    assert repr(x.place) == "Place(gpu:0)" and paddle.get_device() == "gpu:0"
    y = F.relu(x)
    assert paddle.device.cuda.max_memory_allocated() == 134217728
    del y
    paddle.device.cuda.reset_max_memory_allocated()
    F.relu_(x)
    assert paddle.device.cuda.max_memory_allocated() == 67108864
    assert paddle.device.cuda.memory_allocated() == 67108864 and x.inplace_version == 1


def test_gpu_tensors_print_their_place():
    paddle.set_device("gpu")
    assert str(paddle.ones([2])).startswith("Tensor(shape=[2], dtype=float32, place=Place(gpu:0), stop_gradient=True,")


def test_copies_cost_memory_and_views_do_not():
    paddle.set_device("gpu")
    x = paddle.ones([4, 1024, 1024])  # 16 MiB
    base = paddle.device.cuda.memory_allocated()
    views = [x.reshape([4096, 1024]), x[1:], x.transpose([1, 0, 2]), x.detach(), *x.unbind(0)]
    assert paddle.device.cuda.memory_allocated() == base
    parts = paddle.split(x, 2)
    assert paddle.device.cuda.memory_allocated() == base + 16 * 2**20
    assert all(not p._is_shared_buffer_with(x) for p in parts) and all(v._is_shared_buffer_with(x) for v in views)


def test_without_the_simulated_gpu_it_is_the_cpu_wheel():
    engine.cuda.configure(enabled=False)
    assert not paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() == 0
    with pytest.raises(ValueError, match="not supported in CPU-only PaddlePaddle"):
        paddle.device.cuda.max_memory_allocated()


def test_the_engine_graph_carries_paddles_node_names():
    """tensorscope draws the graph from the engine: its nodes are the Paddle ones."""
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = (x * 2).sigmoid()
    names = [info.name for info in engine_inspect.graph([inspect.engine_tensor(y)])]
    assert names == ["SigmoidGradNode", "ScaleGradNode", "GradNodeAccumulation"]
    saved = engine_inspect.graph([y._t])[0].saved
    assert [s.is_output for s in saved] == [True]


def test_inspection_helpers_follow_the_trace_contract():
    x = paddle.rand([2])
    assert inspect.grad_fn_name(x) is None and not inspect.requires_grad(x)
    x.stop_gradient = False
    assert inspect.grad_fn_name(x) == "GradNodeAccumulation" and inspect.requires_grad(x)
    y = x * 2
    y.scale_(3.0)
    assert inspect.grad_fn_name(y) == "ScaleGradNode" and inspect.version(y) == 1
    assert inspect.name(y) == "" and inspect.name(y) == ""  # peeking does not name it
    assert y.name == "eager_tmp_0" and inspect.name(y) == "eager_tmp_0"


def test_facades_over_one_engine_tensor_agree():
    x = paddle.ones([2])
    x.stop_gradient = False
    (x * 3).sum().backward()
    first, second = x.grad, x.grad
    assert first is not second and first._is_shared_buffer_with(second)
    assert first.name == second.name and not first.stop_gradient and not second.stop_gradient


def test_reset_gives_a_fresh_process():
    paddle.to_tensor([1.0])
    paddle.nn.Linear(1, 1)
    paddle.set_device("gpu")
    paddle.reset()
    assert paddle.to_tensor([1.0]).name == "generated_tensor_0"
    assert paddle.nn.Linear(1, 1).weight.name == "linear_0.w_0"
    assert paddle.get_device() == "cpu"
