"""test/legacy_test/test_inplace.py: in-place APIs against their out-of-place twins.

The upstream file is one template class (TestDygraphInplace: the in-place call returns the same
tensor, gives the out-of-place result, bumps inplace_version, refuses a leaf that needs a gradient,
breaks a backward that saved the tensor, and leaves gradients equal where backward can still run)
instantiated for each API with its own data and overrides. `Family` is that template; FAMILIES
lists the instances as upstream does, with upstream's own overrides (version steps, skipped
sub-tests, compare functions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.paddle.ported import Case

FILE = "test_inplace.py"
DEFAULT_DATA = "x_np = rng.uniform(-5, 5, [10, 20, 1])"
ARRAY_EQUAL = "same"  # np.testing.assert_array_equal, as upstream compares


@dataclass(frozen=True)
class Family:
    cls: str
    inplace: str  # the call, with VAR for the tensor
    plain: str
    data: str = DEFAULT_DATA
    dtype: str = "float32"
    setup: str = ""  # extra inputs (self.y, self.mask...) built before each sub-test
    versions: tuple[int, int, int] = (1, 2, 3)  # after the call, after `[0] = 2`, after a second call
    error_version: int = 1  # the version the backward error reports
    compare: str = ARRAY_EQUAL
    skip: frozenset[str] = frozenset()
    continuous: bool = False  # a TestDygraphInplaceWithContinuous subclass
    extra: dict[str, str] = field(default_factory=dict)  # sub-tests of its own
    xfail: dict[str, str] = field(default_factory=dict)

    def call(self, template: str, var: str) -> str:
        return template.replace("VAR", var)

    def head(self) -> str:
        return "\n".join(line for line in (self.data, self.setup) if line) + "\n"

    def cases(self) -> list[Case]:
        subs = {
            "test_inplace_api": self._inplace_api(), "test_forward_result": self._forward_result(),
            "test_forward_version": self._forward_version(), "test_leaf_inplace_var_error": self._leaf_error(),
            "test_backward_error": self._backward_error(), "test_backward_success_1": self._success(1),
            "test_backward_success_2": self._success(2),
        }
        if self.continuous:
            subs["test_continuous_inplace_backward"] = self._continuous()
        subs.update(self.extra)
        return [Case(f"{FILE}::{self.cls}::{name}", self.head() + body, self.xfail.get(name))
                for name, body in subs.items() if name not in self.skip]

    def _make(self, var: str = "var") -> str:
        return f"{var} = paddle.to_tensor(x_np).astype({self.dtype!r})\n"

    def _inplace_api(self) -> str:
        return (self._make() + f"inplace_var = {self.call(self.inplace, 'var')}\n"
                "expect('same object', id(var) == id(inplace_var))\n"
                "inplace_var[0] = 2\nexpect('same values', same(var.numpy(), inplace_var.numpy()))\n")

    def _forward_result(self) -> str:
        return (self._make() + f"no_inplace_var = {self.call(self.plain, 'var')}\n"
                f"inplace_var = {self.call(self.inplace, 'var')}\n"
                f"expect('equal results', {self.compare}(no_inplace_var.numpy(), inplace_var.numpy()))\n")

    def _forward_version(self) -> str:
        first, second, third = self.versions
        return (self._make() + "expect('version 0', var.inplace_version == 0)\n"
                f"inplace_var = {self.call(self.inplace, 'var')}\n"
                f"print(var.inplace_version)\nexpect('version {first}', var.inplace_version == {first})\n"
                f"inplace_var[0] = 2\nexpect('version {second}', var.inplace_version == {second})\n"
                f"inplace_var = {self.call(self.inplace, 'inplace_var')}\n"
                f"print(var.inplace_version)\nexpect('version {third}', var.inplace_version == {third})\n")

    def _leaf_error(self) -> str:
        return (self._make() + "var.stop_gradient = False\n"
                f"raises('leaf', ValueError, lambda: {self.call(self.inplace, 'var')})\n")

    def _backward_error(self) -> str:
        return (self._make("var_a") + "var_a.stop_gradient = False\nvar_b = var_a**2\nvar_c = var_b**2\n"
                f"{self.call(self.inplace, 'var_b')}\nvar_c = paddle.cast(var_c, 'float32')\n"
                "loss = paddle.nn.functional.relu(var_c)\n"
                f"raises('stale', RuntimeError, lambda: loss.backward(), "
                f"'received tensor_version:{self.error_version} != wrapper_version_snapshot:0')\n")

    def _success(self, which: int) -> str:
        def run(op: str) -> str:
            use = "var_d = var_c**2" if which == 1 else "var_d = var_c + var_c"
            return (self._make("var_a") + "var_a.stop_gradient = False\nvar_b = var_a**2\n"
                    f"var_c = {self.call(op, 'var_b')}\n{use}\nvar_d = paddle.cast(var_d, 'float32')\n"
                    "loss = var_d.sum()\nloss.backward()\n")
        return (run(self.inplace) + "grad_var_a_inplace = var_a.grad.numpy()\n" + run(self.plain)
                + "grad_var_a = var_a.grad.numpy()\n"
                f"expect('equal gradients', {self.compare}(grad_var_a_inplace, grad_var_a))\n")

    def _continuous(self) -> str:
        def run(op: str) -> str:
            return (self._make("var_a") + "var_a.stop_gradient = False\nvar_b = var_a**2\n"
                    f"var_c = {self.call(op, 'var_b')}\nvar_d = {self.call(op, 'var_c')}\n"
                    "loss = var_d.sum()\nvar_d = paddle.cast(var_d, 'float32')\nloss.backward()\n")
        return (run(self.inplace) + "grad_var_a_inplace = var_a.grad.numpy()\n" + run(self.plain)
                + "grad_var_a = var_a.grad.numpy()\n"
                "expect('equal gradients', np.array_equal(grad_var_a_inplace, grad_var_a, equal_nan=True))\n")


NAN_EQUAL = "functools.partial(np.array_equal, equal_nan=True)"
BOOLEAN_SKIPS = frozenset({"test_backward_error", "test_backward_success_1", "test_backward_success_2",
                           "test_leaf_inplace_var_error"})
PAIR_DATA = "x_np = rng.random((2, 3, 4))\nx2_np = rng.random((2, 3, 4)).astype('float32')"


def _continuous(cls: str, op: str, data: str = DEFAULT_DATA, **kw: object) -> Family:
    return Family(cls, f"paddle.{op}_(VAR)", f"paddle.{op}(VAR)", data=data, continuous=True, compare=NAN_EQUAL,
                  **kw)


def _logic(cls: str, op: str, unary: bool = False) -> Family:
    args = "VAR" if unary else "VAR, y"
    broadcast = "" if unary else (
        "broadcast_input = paddle.randn([10, 1, 20])\n"
        f"raises('broadcast', ValueError, lambda: paddle.{op}_(broadcast_input, y))\n")
    return Family(cls, f"paddle.{op}_({args})", f"paddle.{op}({args})", setup="y = paddle.randn([10, 20, 1])",
                  versions=(1, 2, 2), skip=BOOLEAN_SKIPS | {"test_forward_version"},
                  extra={"test_forward_version": (
                      "var = paddle.to_tensor(x_np).astype('float32')\n"
                      "expect('version 0', var.inplace_version == 0)\n"
                      f"inplace_var = paddle.{op}_({args.replace('VAR', 'var')})\n"
                      "expect('version 1', var.inplace_version == 1)\n"
                      "inplace_var[0] = True\nexpect('version 2', var.inplace_version == 2)\n"),
                      **({"test_broadcast_error": broadcast} if broadcast else {})})


def _bitwise(cls: str, op: str, unary: bool = False) -> Family:
    args = "VAR" if unary else "VAR, y"
    data = ("x_np = paddle.randint(low=0, high=10, shape=[3, 4, 1], dtype='int32')\n"
            "y = paddle.randint(low=0, high=10, shape=[3, 4, 1], dtype='int32')")
    broadcast = "" if unary else (
        "broadcast_input = paddle.randint(low=0, high=10, shape=[3, 1, 4], dtype='int32')\n"
        f"raises('broadcast', ValueError, lambda: paddle.{op}_(broadcast_input, y))\n")
    return Family(cls, f"paddle.{op}_({args})", f"paddle.{op}({args})", data=data, dtype="int32",
                  versions=(1, 2, 2), skip=BOOLEAN_SKIPS | {"test_forward_version"},
                  extra={"test_forward_version": (
                      "var = paddle.to_tensor(x_np).astype('int32')\nexpect('version 0', var.inplace_version == 0)\n"
                      f"inplace_var = paddle.{op}_({args.replace('VAR', 'var')})\n"
                      "expect('version 1', var.inplace_version == 1)\n"
                      "inplace_var[0] = True\nexpect('version 2', var.inplace_version == 2)\n"),
                      **({"test_broadcast_error": broadcast} if broadcast else {})})


FAMILIES: list[Family] = [
    Family("TestDygraphInplace", "paddle.squeeze_(VAR)", "paddle.squeeze(VAR)"),
    Family("TestDygraphInplaceMaskedFill", "paddle.masked_fill_(VAR, mask, value)", "paddle.masked_fill(VAR, mask, value)",
           data="x_np = rng.uniform(-5, 5, [30, 3])",
           setup="value = paddle.to_tensor(rng.uniform(-10, 10), dtype='float32')\n"
                 "mask = paddle.to_tensor(rng.integers(0, 2, [30, 3]).astype('bool'), dtype='bool')",
           versions=(2, 3, 5), error_version=2),
    Family("TestDygraphInplaceMaskedFill2", "paddle.masked_fill_(VAR, mask, value)",
           "paddle.masked_fill(VAR, mask, value)", data="x_np = rng.uniform(-5, 5, [30, 3])",
           setup="value = paddle.to_tensor(rng.uniform(-10, 10), dtype='float32')\n"
                 "mask = paddle.to_tensor(rng.integers(0, 2, [30, 1]).astype('bool'), dtype='bool')",
           versions=(2, 3, 5), error_version=2),
    _continuous("TestDygraphInplaceWithContinuous", "sin"),
    Family("TestDygraphInplaceUnsqueeze", "paddle.unsqueeze_(VAR, -1)", "paddle.unsqueeze(VAR, -1)"),
    Family("TestDygraphInplaceReshape", "paddle.reshape_(VAR, [-1])", "paddle.reshape(VAR, [-1])"),
    Family("TestDygraphInplaceReshapeTensor", "paddle.reshape_(VAR, paddle.to_tensor([-1]))",
           "paddle.reshape(VAR, paddle.to_tensor([-1]))"),
    Family("TestDygraphInplaceFlatten", "VAR.flatten_()", "VAR.flatten()"),
    Family("TestDygraphInplaceElu", "paddle.nn.functional.elu_(VAR)", "paddle.nn.functional.elu(VAR)"),
    Family("TestDygraphInplaceRelu", "paddle.nn.functional.relu_(VAR)", "paddle.nn.functional.relu(VAR)"),
    Family("TestDygraphInplaceSoftmax", "paddle.nn.functional.softmax_(VAR)", "paddle.nn.functional.softmax(VAR)"),
    Family("TestDygraphInplaceTanh", "paddle.tanh_(VAR)", "paddle.tanh(VAR)"),
    Family("TestDygraphInplaceCeil", "VAR.ceil_()", "VAR.ceil()"),
    Family("TestDygraphInplaceFloor", "VAR.floor_()", "VAR.floor()"),
    Family("TestDygraphInplaceExp", "VAR.exp_()", "VAR.exp()", compare="np.allclose"),
    Family("TestDygraphInplaceReciprocal", "VAR.reciprocal_()", "VAR.reciprocal()"),
    Family("TestDygraphInplaceRound", "VAR.round_()", "VAR.round()"),
    Family("TestDygraphInplaceSqrt", "VAR.sqrt_()", "VAR.sqrt()", data="x_np = rng.uniform(0, 5, [10, 20, 1])"),
    Family("TestDygraphInplaceRsqrt", "VAR.rsqrt_()", "VAR.rsqrt()", data="x_np = rng.uniform(0, 5, [10, 20, 1])"),
    Family("TestDygraphInplaceClip", "VAR.clip_(0.6, 1.5)", "VAR.clip(0.6, 1.5)"),
    Family("TestDygraphInplaceScale", "VAR.scale_(scale=2.0, bias=3.0)", "VAR.scale(scale=2.0, bias=3.0)"),
    Family("TestDygraphInplaceAdd", "VAR.add_(paddle.to_tensor(x2_np))", "VAR.add(paddle.to_tensor(x2_np))",
           data=PAIR_DATA),
    Family("TestDygraphInplaceSubtract", "VAR.subtract_(paddle.to_tensor(x2_np))",
           "VAR.subtract(paddle.to_tensor(x2_np))", data=PAIR_DATA),
    Family("TestDygraphInplaceRemainder", "VAR.remainder_(paddle.to_tensor(x2_np))",
           "VAR.remainder(paddle.to_tensor(x2_np))", data=PAIR_DATA,
           skip=BOOLEAN_SKIPS),
    _continuous("TestDygraphInplaceAsin", "asin"),
    _continuous("TestDygraphInplaceSinh", "sinh"),
    _continuous("TestDygraphInplaceAsinh", "asinh"),
    _continuous("TestDygraphInplaceAbs", "abs"),
    _continuous("TestDygraphInplaceCos", "cos"),
    _continuous("TestDygraphInplaceCosh", "cosh"),
    _continuous("TestDygraphInplaceAcos", "acos"),
    _continuous("TestDygraphInplaceAcosh", "acosh"),
    _continuous("TestDygraphInplaceTan", "tan"),
    _continuous("TestDygraphInplaceATan", "atan"),
    _continuous("TestDygraphInplaceATanh", "atanh"),
    Family("TestDygraphInplacePowerScalar", "paddle.pow_(VAR, 2)", "paddle.pow(VAR, 2)", continuous=True,
           compare=NAN_EQUAL, extra={"test_type_error": (
               "var = paddle.to_tensor(x_np, dtype='float32')\n"
               "raises('type', TypeError, lambda: paddle.pow_(var, [2]), "
               "'y must be scalar type, but received: %s ' % (type([2])))\n")}),
    Family("TestDygraphInplaceTriu", "paddle.triu_(VAR, 0)", "paddle.triu(VAR, 0)", continuous=True,
           compare=NAN_EQUAL),
    Family("TestDygraphInplaceTril", "paddle.tril_(VAR, 0)", "paddle.tril(VAR, 0)", continuous=True,
           compare=NAN_EQUAL),
    Family("TestDygraphInplaceLogit", "paddle.logit_(VAR, 1e-3)", "paddle.logit(VAR, 1e-3)", continuous=True,
           compare=NAN_EQUAL),
    _continuous("TestDygraphInplaceLog", "log"),
    _continuous("TestDygraphInplaceLog2", "log2"),
    _continuous("TestDygraphInplaceLog10", "log10"),
    _continuous("TestDygraphInplaceLog1p", "log1p"),
    _continuous("TestDygraphInplaceTrunc", "trunc"),
    _continuous("TestDygraphInplaceNeg", "neg"),
    _continuous("TestDygraphInplaceFrac", "frac"),
    Family("TestDygraphInplaceHypot", "paddle.hypot_(VAR, y)", "paddle.hypot(VAR, y)",
           data="x_np = rng.integers(0, 2, size=200).reshape([10, 20])", setup="y = paddle.randn(shape=[10, 20], dtype='float32')",
           versions=(3, 4, 7), error_version=3,
           extra={"test_errors": "y = paddle.randn([10, 20])\nraises('x', TypeError, lambda: paddle.hypot_(3.0, y))\n"
                                 "raises('y', TypeError, lambda: paddle.hypot_(y, 3.0))\n"}),
    Family("TestDygraphInplaceNanToNum", "paddle.nan_to_num_(VAR)", "paddle.nan_to_num(VAR)",
           data="x_np = np.array(['0.12334', 'inf', 'inf', '-inf', 'nan', '-0.12342', '1.123', 'nan'])"
                ".reshape([2, 4]).astype(np.float32)", versions=(3, 4, 7), error_version=3, compare=NAN_EQUAL),
    Family("TestDygraphInplaceWhere", "paddle.where_(VAR > y, VAR, y)", "paddle.where(VAR > y, VAR, y)",
           setup="y = paddle.randn([10, 20, 1])", continuous=True, compare=NAN_EQUAL,
           extra={"test_error": (
               "cond = paddle.to_tensor([[False, True, False], [False, True, False]])\n"
               "raises('scalars', ValueError, lambda: paddle.where_(cond, 1, 2))\n"
               "raises('nones', ValueError, lambda: paddle.where_(cond, None, None))\n")}),
    Family("TestDygraphInplaceWhereBroadcast", "paddle.where_(VAR > y, VAR, y)", "paddle.where(VAR > y, VAR, y)",
           setup="y = paddle.randn([10, 1, 1])", continuous=True, compare=NAN_EQUAL, versions=(2, 3, 5),
           error_version=2),
    Family("TestDygraphInplaceHardTanh", "paddle.nn.functional.hardtanh_(VAR, -1.0, 1.0)",
           "paddle.nn.functional.hardtanh(VAR, -1.0, 1.0)", continuous=True, compare=NAN_EQUAL),
    Family("TestDygraphInplaceLeakyRelu", "paddle.nn.functional.leaky_relu_(VAR, 0.01)",
           "paddle.nn.functional.leaky_relu(VAR, 0.01)", continuous=True, compare=NAN_EQUAL),
    Family("TestDygraphInplaceThresholdedRelu", "paddle.nn.functional.thresholded_relu_(VAR, 1.0)",
           "paddle.nn.functional.thresholded_relu(VAR, 1.0)", continuous=True, compare=NAN_EQUAL),
    _logic("TestDygraphInplaceLogicAnd", "logical_and"),
    _logic("TestDygraphInplaceLogicOr", "logical_or"),
    _logic("TestDygraphInplaceLogicXor", "logical_xor"),
    _logic("TestDygraphInplaceLogicNot", "logical_not", unary=True),
    _logic("TestDygraphInplaceLessThan", "less_than"),
    _logic("TestDygraphInplaceLessEqual", "less_equal"),
    _logic("TestDygraphInplaceGreaterEqual", "greater_equal"),
    _logic("TestDygraphInplaceGreaterThan", "greater_than"),
    _logic("TestDygraphInplaceEqual", "equal"),
    _logic("TestDygraphInplaceNotEqual", "not_equal"),
    _bitwise("TestDygraphInplacBitwiseAnd", "bitwise_and"),
    _bitwise("TestDygraphInplacBitwisOr", "bitwise_or"),
    _bitwise("TestDygraphInplacBitwisXor", "bitwise_xor"),
    _bitwise("TestDygraphInplacBitwisNot", "bitwise_not", unary=True),
    Family("TestDygraphInplaceDivide", "paddle.divide_(VAR, y)", "paddle.divide(VAR, y)",
           setup="y = paddle.randn([10, 20, 1])",
           extra={"test_broadcast_error": "broadcast_input = paddle.randn([10, 1, 20])\n"
                                          "raises('broadcast', ValueError, lambda: paddle.divide_(broadcast_input, y))\n"}),
    Family("TestDygraphInplaceCast", "paddle.cast_(VAR, 'float64')", "paddle.cast(VAR, 'float64')", continuous=True,
           compare=NAN_EQUAL),
    Family("TestDygraphInplaceFloorDivide", "paddle.floor_divide_(VAR, y)", "paddle.floor_divide(VAR, y)",
           setup="y = paddle.randn([10, 20, 1])", skip=BOOLEAN_SKIPS,
           extra={"test_error": "x = paddle.randn([1, 10])\ny = paddle.randn([20, 1])\n"
                                "raises('broadcast', ValueError, lambda: paddle.floor_divide_(x, y))\n"}),
    Family("TestDygraphInplaceCumsum", "paddle.cumsum_(VAR, dtype='float32')", "paddle.cumsum(VAR, dtype='float32')",
           continuous=True, compare=NAN_EQUAL, skip=frozenset({"test_backward_error"}),
           extra={"test_backward_error": (
               "var_a = paddle.to_tensor(x_np).astype('float64')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
               "var_c = var_b**2\npaddle.cumsum_(var_b, -1, dtype='float32')\n"
               "loss = paddle.nn.functional.relu(var_c)\n"
               "raises('stale', RuntimeError, lambda: loss.backward(), "
               "'received tensor_version:2 != wrapper_version_snapshot:0')\n")}),
    Family("TestDygraphInplaceCumprod", "paddle.cumprod_(VAR, -1, dtype='float32')",
           "paddle.cumprod(VAR, -1, dtype='float32')", skip=frozenset({"test_backward_error"}),
           extra={"test_backward_error": (
               "var_a = paddle.to_tensor(x_np).astype('float32')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
               "var_c = var_b**2\npaddle.cumprod_(var_b, -1, dtype='float64')\n"
               "loss = paddle.nn.functional.relu(var_c)\n"
               "raises('stale', RuntimeError, lambda: loss.backward(), "
               "'received tensor_version:2 != wrapper_version_snapshot:0')\n")}),
    Family("TestDygrapInplaceMultiply", "paddle.multiply_(VAR, y)", "paddle.multiply(VAR, y)",
           setup="y = paddle.randn([10, 20, 1])", continuous=True, compare=NAN_EQUAL),
    Family("TestDygrapInplaceT", "paddle.t_(VAR)", "paddle.t(VAR)", data="x_np = rng.uniform(-5, 5, [10, 20])",
           continuous=True, compare=NAN_EQUAL),
    Family("TestDygrapInplaceTranspose", "paddle.transpose_(VAR, [1, 0, 2])", "paddle.transpose(VAR, [1, 0, 2])",
           continuous=True, compare=NAN_EQUAL),
    Family("TestDygraphInplaceIndexFill", "paddle.index_fill_(VAR, index, 1, -1)",
           "paddle.index_fill(VAR, index, 1, -1)", data="x_np = rng.random((20, 40))",
           setup="index = paddle.to_tensor([0, 2])", versions=(3, 4, 7), error_version=3),
]


def _standalone() -> list[Case]:
    """The classes that are not instances of the template."""
    return [
        Case(f"{FILE}::TestInplace::test_forward_version", (
            "var = paddle.to_tensor(np.ones((4, 2, 3)).astype(np.float32))\n"
            "expect('version 0', var.inplace_version == 0)\nvar[0] = 1.1\nexpect('version 1', var.inplace_version == 1)\n"
            "paddle.assign(paddle.ones(shape=[3]), var)\nexpect('version 2', var.inplace_version == 2)\n"
            "var[2] = 3\nexpect('version 3', var.inplace_version == 3)\n")),
        Case(f"{FILE}::TestInplace::test_backward_error", (
            "var_a = paddle.ones(shape=[4, 2, 3], dtype='float32')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
            "var_c = var_b**2\nvar_b[1:2] = 3.3\nvar_d = var_b**2\n"
            "loss = paddle.nn.functional.relu(var_c + var_d)\n"
            "raises('stale', RuntimeError, lambda: loss.backward(), "
            "'received tensor_version:1 != wrapper_version_snapshot:0')\n")),
        Case(f"{FILE}::TestInplace::test_backward_success_1", (
            "var_a = paddle.ones(shape=[4, 2, 3], dtype='float32')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
            "var_b[1:2] = 3\nvar_c = var_b**2\nloss = var_c.sum()\nloss.backward()\nprint(var_a.grad.numpy().sum())\n")),
        Case(f"{FILE}::TestInplace::test_backward_success_2", (
            "var_a = paddle.ones(shape=[4, 2, 3], dtype='float32')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
            "var_b[1:2] = 3\nvar_c = var_b + var_b\nloss = var_c.sum()\nvar_b[1:2] = 3\nloss.backward()\n"
            "print(var_a.grad.numpy().sum())\n")),
        Case(f"{FILE}::TestLossIsInplaceVar::test_loss_is_inplace_var", (
            "var_a = paddle.ones((2, 2))\nvar_a.stop_gradient = False\nvar_b = var_a * 2\nloss = var_b.tanh_()\n"
            "loss.backward()\ninplace_grad_var_a = var_a.grad.numpy()\n"
            "var_a = paddle.ones((2, 2))\nvar_a.stop_gradient = False\nvar_b = var_a * 2\nloss = var_b.tanh()\n"
            "loss.backward()\ngrad_var_a = var_a.grad.numpy()\n"
            "expect('equal gradients', np.array_equal(inplace_grad_var_a, grad_var_a))\n")),
        Case(f"{FILE}::TestContinuouslyInplace::test_continuously_inplace", (
            "a = paddle.rand([2, 3])\na.stop_gradient = False\nb = a * 2\nb.reshape_([-1])\nb.reshape_([2, 3])\n"
            "b.reshape_([-1])\nb.backward()\nprint(a.grad)\n")),
        Case(f"{FILE}::TestGetitemBeforeInplace::test_getitem_before_inplace", (
            "a = paddle.ones(shape=[4, 2, 3], dtype='float32')\na.stop_gradient = False\nb = a**2\nb[0] = 3\n"
            "c = b[0:2]\nloss = c.sum()\nb[1] = 2\nloss.backward()\nprint(a.grad.numpy().sum())\n")),
    ]


def cases() -> list[Case]:
    return [case for family in FAMILIES for case in family.cases()] + _standalone()
