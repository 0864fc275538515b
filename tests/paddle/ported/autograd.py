"""stop_gradient and the parts of the graph backward prunes (test/legacy_test/
test_imperative_auto_prune.py), and the optimizers' dygraph updates (test_sgd_op.py::TestSGDV2,
test_momentum_op.py::TestMomentumV2, test_adam_op.py::TestAdamOpV2). Each case prints the values
the upstream test only runs, so the updates themselves are compared."""

from __future__ import annotations

from tests.paddle.ported import Case

PRUNE = "test_imperative_auto_prune.py"

LAYERS = '''
class AutoPruneLayer0(paddle.nn.Layer):
    def __init__(self, input_size):
        super().__init__()
        self.linear1 = paddle.nn.Linear(input_size, 5, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(value=2)), bias_attr=False)
        self.linear2 = paddle.nn.Linear(5, 5, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(value=2)), bias_attr=False)

    def forward(self, x, y):
        a = self.linear1(x)
        b = self.linear2(y)
        c = paddle.matmul(a, b)
        return paddle.mean(c)


class AutoPruneLayer1(AutoPruneLayer0):
    def forward(self, x, y):
        a = self.linear1(x)
        b = self.linear2(y)
        b.stop_gradient = True
        c = paddle.matmul(a, b)
        return paddle.mean(c)

value1 = np.arange(25).reshape(5, 5).astype("float32")
value2 = np.arange(25).reshape(5, 5).astype("float32")
v1 = paddle.to_tensor(value1)
v2 = paddle.to_tensor(value2)
'''

CONCAT = '''
value0 = np.arange(26).reshape(2, 13).astype("float32")
value1 = np.arange(6).reshape(2, 3).astype("float32")
value2 = np.arange(10).reshape(2, 5).astype("float32")
linear = paddle.nn.Linear(13, 5)
linear2 = paddle.nn.Linear(3, 3)
a = paddle.to_tensor(value0)
b = paddle.to_tensor(value1)
c = paddle.to_tensor(value2)
out1 = linear(a)
out2 = linear2(b)
out1.stop_gradient = True
out = paddle.concat([out1, out2, c], axis=1)
out.backward()
expect('linear weight has no gradient', linear.weight.gradient() is None)
expect('out1 has no gradient', out1.gradient() is None)
print(linear2.weight.grad)
'''

CHAIN = '''
value0 = np.arange(26).reshape(2, 13).astype("float32")
linear = paddle.nn.Linear(13, 5)
linear2 = paddle.nn.Linear(5, 3)
a = paddle.to_tensor(value0)
out1 = linear(a)
linear_origin = linear.weight.numpy()
out2 = linear2(out1)
linear2_origin = linear2.weight.numpy()
'''

PRUNE_CASES = {
    "TestImperativeAutoPrune::test_auto_prune": (
        LAYERS + "case1 = AutoPruneLayer0(input_size=5)\nloss = case1(v1, v2)\nloss.backward()\n"
        "expect('linear2 grad', case1.linear2.weight._grad_ivar() is not None)\n"
        "expect('linear1 grad', case1.linear1.weight._grad_ivar() is not None)\nprint(case1.linear1.weight.grad)\n"),
    "TestImperativeAutoPrune::test_auto_prune2": (
        LAYERS + "case2 = AutoPruneLayer1(input_size=5)\nloss = case2(v1, v2)\nloss.backward()\n"
        "expect('linear2 pruned', case2.linear2.weight._grad_ivar() is None)\n"
        "expect('linear1 grad', case2.linear1.weight._grad_ivar() is not None)\n"),
    "TestImperativeAutoPrune::test_auto_prune6": CONCAT,
    "TestImperativeAutoPrune::test_auto_prune7": CONCAT,
    "TestImperativeAutoPrune::test_auto_prune8": (
        CHAIN + "linear2.weight.stop_gradient = True\nout2.backward()\n"
        "optimizer = paddle.optimizer.SGD(learning_rate=0.003, parameters=(linear.parameters() + linear2.parameters()))\n"
        "optimizer.minimize(out2)\nexpect('linear2 unchanged', np.array_equal(linear2_origin, linear2.weight.numpy()))\n"
        "expect('linear changed', not np.array_equal(linear_origin, linear.weight.numpy()))\nprint(linear.weight)\n"),
    "TestImperativeAutoPrune::test_auto_prune9": (
        CHAIN + "out2.stop_gradient = True\nout2.backward()\n"
        "optimizer = paddle.optimizer.SGD(learning_rate=0.003, parameters=(linear.parameters() + linear2.parameters()))\n"
        "optimizer.minimize(out2)\nexpect('linear2 unchanged', np.array_equal(linear2_origin, linear2.weight.numpy()))\n"
        "expect('linear unchanged', np.array_equal(linear_origin, linear.weight.numpy()))\n"
        "try:\n    linear2.weight.gradient()\nexcept ValueError as e:\n    print('ValueError')\n"),
}

DYGRAPH_STEP = '''
value = np.arange(26).reshape(2, 13).astype("float32")
a = paddle.to_tensor(value)
linear = paddle.nn.Linear(13, 5)
adam = {optimizer}
out = linear(a)
out.backward()
adam.step()
adam.clear_gradients()
print(linear.weight, linear.bias)
print(linear.weight.inplace_version, linear.weight.grad)
'''

OPTIMIZER_CASES = {
    "test_sgd_op.py::TestSGDV2::test_sgd_dygraph":
        "paddle.optimizer.SGD(learning_rate=0.01, parameters=linear.parameters(), weight_decay=0.01)",
    "test_sgd_op.py::TestSGDV2::test_raise_error": None,
    "test_momentum_op.py::TestMomentumV2::test_momentum_dygraph":
        "paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=linear.parameters())",
    "test_adam_op.py::TestAdamOpV2::test_adam_op_dygraph":
        "paddle.optimizer.Adam(learning_rate=0.01, parameters=linear.parameters())",
}


def cases() -> list[Case]:
    found = [Case(f"{PRUNE}::{name}", source) for name, source in PRUNE_CASES.items()]
    for upstream, optimizer in OPTIMIZER_CASES.items():
        if optimizer is None:
            found.append(Case(upstream, "raises('no learning rate', ValueError, "
                                        "lambda: paddle.optimizer.SGD(learning_rate=None))\n"))
        else:
            found.append(Case(upstream, DYGRAPH_STEP.replace("{optimizer}", optimizer)))
    return found
