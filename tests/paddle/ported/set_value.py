"""test/legacy_test/test_set_value_op.py, its dygraph half: `x[item] = value` for every kind of
item (int, slices with steps, negative steps, Ellipsis, Tensor bounds, None), the gradients that
flow through a set_value, its inplace_version, and how a leaf that stops gradient takes a value
that needs one. (The static-graph half, `paddle.static.setitem`, has no dygraph meaning.)"""

from __future__ import annotations

from tests.paddle.ported import Case

FILE = "test_set_value_op.py"

# class: (shape, value, item) -- TestSetValueApi._run_dynamic against numpy's answer
ITEMS: dict[str, tuple[str, str, str]] = {
    "TestSetValueApi": ("[2, 3, 4]", "6", "0, 0"),
    "TestSetValueItemInt": ("[2, 3, 4]", "6", "0"),
    "TestSetValueItemSlice": ("[2, 3, 4]", "6", "0:2"),
    "TestSetValueItemSlice2": ("[2, 3, 4]", "6", "0:-1"),
    "TestSetValueItemSlice3": ("[2, 3, 4]", "6", "0:-1, 0:2"),
    "TestSetValueItemSlice4": ("[2, 3, 4]", "6", "0:, 1:2, :"),
    "TestSetValueItemSlice5": ("[2, 3, 4]", "6", "0:, 1:1, :"),
    "TestSetValueItemSliceStep": ("[5, 5, 5]", "6", "0:2:2"),
    "TestSetValueItemSliceStep2": ("[7, 5, 5]", "6", "0:-1:3"),
    "TestSetValueItemSliceStep3": ("[2, 3, 4]", "6", "0:-1, 0:2, ::2"),
    "TestSetValueItemSliceStep4": ("[2, 3, 4]", "6", "0:, 1:2:2, :"),
    "TestSetValueItemSliceNegativeStep": ("[5, 2]", "np.array([3, 4])", "5:2:-1"),
    "TestSetValueItemSliceNegativeStep2": ("[5]", "np.array([3, 4])", "1::-1"),
    "TestSetValueItemSliceNegativeStep3": ("[3]", "np.array([3, 4, 5])", "::-1"),
    "TestSetValueItemSliceNegativeStep4": ("[3, 4, 5]", "6", "2:0:-1, 0:2, ::-1"),
    "TestSetValueItemEllipsis1": ("[2, 3, 4]", "6", "0:, ..., 1:"),
    "TestSetValueItemEllipsis2": ("[2, 3, 4]", "6", "0:, ..."),
    "TestSetValueItemEllipsis3": ("[2, 3, 4]", "6", "..., 1:"),
    "TestSetValueItemEllipsis4": ("[2, 3, 4]", "6", "..."),
    "TestSetValueItemNone1": ("[2, 3, 4]", "6", "None"),
    "TestSetValueItemNone2": ("[2, 3, 4]", "6", "0, None, 1"),
    "TestSetValueItemNone3": ("[2, 3, 4]", "6", ":, None, None, 1"),
    "TestSetValueItemNone4": ("[2, 3, 4]", "6", "0, 0, None, 1"),
    "TestSetValueItemNone5": ("[2, 3, 4]", "6", "0, None, 0, None, 1"),
    "TestSetValueItemNone6": ("[2, 3, 4]", "6", "None, 0, 0, None, 0"),
    "TestSetValueItemNone7": ("[2, 3, 4]", "np.zeros([2, 3, 4])[:, None, 0]", ":, None, 1"),
}

# Tensor bounds: (shape, the item with Tensors, numpy's equivalent)
TENSOR_ITEMS: dict[str, tuple[str, str, str]] = {
    "TestSetValueItemTensor": ("[2, 3, 4]", "zero", "0"),
    "TestSetValueItemTensor2": ("[2, 3, 4]", "zero:two", "0:2"),
    "TestSetValueItemTensor3": ("[2, 3, 4]", "zero:-1, 0:two", "0:-1, 0:2"),
    "TestSetValueItemTensor4": ("[2, 3, 4]", "0:-1, zero:2, 0:6:two", "0:-1, 0:2, ::2"),
    "TestSetValueItemTensor5": ("[2, 3, 4]", "zero:, 1:2:two, :", "0:, 1:2:2, :"),
    "TestSetValueItemTensor6": ("[3, 4, 5]", "2:zero:minus1, 0:2, 10:-6:minus1", "2:0:-1, 0:2, ::-1"),
}

TENSORS = ("zero = paddle.full([], 0, dtype='int32')\ntwo = paddle.full([], 2, dtype='int64')\n"
           "minus1 = paddle.full([], -1, dtype='int32')\n")


def _api(cls: str, shape: str, value: str, item: str, answer: str | None = None) -> Case:
    return Case(f"{FILE}::{cls}::test_api", (
        f"{TENSORS}value = {value}\nx = paddle.ones(shape={shape}, dtype='float32')\nx[{item}] = value\n"
        f"data = np.ones({shape}).astype('float32')\ndata[{answer or item}] = value\n"
        "expect('dynamic result', (data == x.numpy()).all())\nprint(x.inplace_version)\n"))


GRADIENT_TRUNCATED = '''
def set_value(t, value):
    a = t * t
    a[0, 1] = value
    y = a * a
    return y.sum()
array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([1, 2, 1, 3, 1, 4])
value = np.arange(100, 104, dtype="float32").reshape(1, 4)
inps = paddle.to_tensor(array, stop_gradient=False)
value = paddle.to_tensor(value, stop_gradient=False)
loss = set_value(inps, value)
loss.backward()
expect('case 1 value grad', np.array_equal(value.grad.numpy(), np.array([[600.0, 606.0, 612.0, 618.0]])))
print(inps.grad.numpy().reshape(-1).tolist())

array = np.arange(1, 2 * 3 * 4 + 1, dtype="float32").reshape([4, 2, 3])
value = np.arange(100, 100 + 1, dtype="float32")
inps2 = paddle.to_tensor(array, stop_gradient=False)
value2 = paddle.to_tensor(value, stop_gradient=False)
loss = set_value(inps2, value2)
loss.backward()
expect('case 2 value grad', np.array_equal(value2.grad.numpy(), np.array([600.0])))
print(inps2.grad.numpy().reshape(-1).tolist())

def set_value3(t, value):
    a = t * t
    a[0, :, 0, :] = value
    y = a * a
    return y.sum()
array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([4, 3, 1, 1, 2, 1])
value = np.arange(100, 100 + 2, dtype="float32").reshape(1, 2, 1)
inps = paddle.to_tensor(array, stop_gradient=False)
value = paddle.to_tensor(value, stop_gradient=False)
loss = set_value3(inps, value)
loss.backward()
expect('case 3 value grad', np.array_equal(value.grad.numpy(), np.array([[[600.0], [606.0]]])))
print(inps.grad.numpy().reshape(-1).tolist())

def set_value4(t, value):
    a = t * t
    a[0, :, 0, ::3] = value
    y = a * a
    return y.sum()
array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([2, 3, 1, 4, 1])
value = np.arange(100, 100 + 2, dtype="float32").reshape(1, 2, 1)
inps = paddle.to_tensor(array, stop_gradient=False)
value = paddle.to_tensor(value, stop_gradient=False)
loss = set_value4(inps, value)
loss.backward()
expect('case 4 value grad', np.array_equal(value.grad.numpy(), np.array([[[600.0], [606.0]]])))
print(inps.grad.numpy().reshape(-1).tolist())

def set_value5(t, value):
    a = t * t
    a[0] = value
    y = a * a
    return y.sum()
array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([2, 3, 4])
value = np.arange(100, 100 + 12, dtype="float32").reshape(3, 4)
inps = paddle.to_tensor(array, stop_gradient=False)
value = paddle.to_tensor(value, stop_gradient=False)
loss = set_value5(inps, value)
loss.backward()
print(value.grad.numpy().reshape(-1).tolist())
print(inps.grad.numpy().reshape(-1).tolist())

x = paddle.zeros([8, 8], dtype='float32')
value = paddle.to_tensor([10], dtype='float32', stop_gradient=False)
expect('case 6 starts a leaf that stops gradient', x.stop_gradient and x.is_leaf)
x[0, :] = value
expect('case 6 then needs a gradient, not a leaf', (not x.stop_gradient) and (not x.is_leaf))
'''

BACKWARD = '''
class Model(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(12, 12, 3)

    def forward(self, x, y):
        x = self.conv(x)
        y = self.conv(y)
        var = y.flatten()
        x[0, :, 0, 0] = var
        loss = paddle.mean(x)
        return loss, var, x

model = Model()
x = paddle.ones([1, 12, 3, 3]).astype("float32")
y = paddle.ones([1, 12, 3, 3]).astype("float32")
loss, var, x = model(x, y)
loss.backward()
expect('shapes', var.grad.shape == x.grad[0, :, 0, 0].shape)
expect('zero grad where overwritten', (0 == x.grad[0, :, 0, 0]).all())
'''

INPLACE = '''
paddle.seed(100)
a = paddle.rand(shape=[1, 4])
a.stop_gradient = False
b = a[:] * 1
c = b
b[paddle.zeros([], dtype='int32')] = 1.0
expect('same object', id(b) == id(c))
expect('same values', np.array_equal(b.numpy(), c.numpy()))
expect('version 1', b.inplace_version == 1)
print(b)
'''

LEAF = '''
paddle.seed(100)
a = paddle.rand(shape=[1, 4])
b = paddle.rand(shape=[1, 4])
a.stop_gradient = False
b.stop_gradient = False
c = a / b
c.sum().backward()
a_grad_1 = a.grad.numpy()
b_grad_1 = b.grad.numpy()
paddle.seed(100)
a = paddle.rand(shape=[1, 4])
b = paddle.rand(shape=[1, 4])
a.stop_gradient = False
b.stop_gradient = False
c = a / b
d = paddle.zeros((4, 4))
expect('d stops gradient', d.stop_gradient)
d[0, :] = c
expect('d now needs one', not d.stop_gradient)
d[0, :].sum().backward()
expect('a grads equal', np.array_equal(a_grad_1, a.grad.numpy()))
expect('b grads equal', np.array_equal(b_grad_1, b.grad.numpy()))
'''

SAME_PLACE = '''
paddle.seed(100)
a = paddle.rand(shape=[2, 3, 4])
origin_place = a.place
a[[0, 1], 1] = 10
expect('same place', str(origin_place) == str(a.place))
print(a[:, 1])
'''


def cases() -> list[Case]:
    found = [_api(cls, *spec) for cls, spec in ITEMS.items()]
    found += [_api(cls, shape, "6", item, answer) for cls, (shape, item, answer) in TENSOR_ITEMS.items()]
    found += [
        Case(f"{FILE}::TestGradientTruncated::test_consistent_with_competitor", GRADIENT_TRUNCATED),
        Case(f"{FILE}::TestBackward::func_test_dynamic", BACKWARD),
        Case(f"{FILE}::TestSetValueInplace::test_inplace", INPLACE),
        Case(f"{FILE}::TestSetValueInplaceLeafVar::test_inplace_var_become_leaf_var", LEAF),
        Case(f"{FILE}::TestSetValueIsSamePlace::test_is_same_place", SAME_PLACE),
    ]
    return found
