"""The dygraph Tensor's own API: test/legacy_test/test_var_base.py (leaf rules, detach, set_value,
setitem versions, `_bump_inplace_version`, `_grad_ivar`, slicing, printing) and
test/legacy_test/test_egr_python_api.py (retain_grads and backward's checks, copy_, properties,
set_value, the Parameter's trainable flag and printing)."""

from __future__ import annotations

from tests.paddle.ported import Case

VAR_BASE = "test_var_base.py"
EGR = "test_egr_python_api.py"
ARRAY = "array = rng.uniform(0.1, 1, [512, 1234]).astype(np.float32)\n"

TENSOR_ARRAY = ("tensor_array = np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[10, 11, 12], [13, 14, 15], [16, 17, 18]],"
                " [[19, 20, 21], [22, 23, 24], [25, 26, 27]]]).astype('float32')\n")

VAR_BASE_CASES = {
    "TestVarBase::test_to_tensor_not_change_input_stop_gradient": (
        "a = paddle.zeros([1024])\na.stop_gradient = False\nb = paddle.to_tensor(a)\n"
        "expect('a keeps its flag', a.stop_gradient is False)\nexpect('b stops gradient', b.stop_gradient is True)\n"),
    "TestVarBase::test_leaf_tensor": (
        "x = paddle.to_tensor(rng.uniform(-1, 1, size=[10, 10]))\nexpect('x leaf', x.is_leaf)\ny = x + 1\n"
        "expect('y leaf (no grad needed)', y.is_leaf)\n"
        "x = paddle.to_tensor(rng.uniform(-1, 1, size=[10, 10]), stop_gradient=False)\nexpect('x leaf', x.is_leaf)\n"
        "y = x + 1\nexpect('y not leaf', not y.is_leaf)\nlinear = paddle.nn.Linear(10, 10)\n"
        "input = paddle.to_tensor(rng.uniform(-1, 1, size=[10, 10]).astype('float32'), stop_gradient=False)\n"
        "expect('input leaf', input.is_leaf)\nout = linear(input)\nexpect('weight leaf', linear.weight.is_leaf)\n"
        "expect('bias leaf', linear.bias.is_leaf)\nexpect('out not leaf', not out.is_leaf)\n"),
    "TestVarBase::test_detach": (
        "x = paddle.to_tensor(1.0, dtype='float64', stop_gradient=False)\ndetach_x = x.detach()\n"
        "expect('detached stops gradient', detach_x.stop_gradient)\ndetach_x[:] = 10.0\n"
        "expect('x sees the write', np.array_equal(x.numpy(), [10.0]))\ny = x**2\ny.backward()\n"
        "expect('x grad', np.array_equal(x.grad.numpy(), [20.0]))\nexpect('no grad on detached', detach_x.grad is None)\n"
        "detach_x.stop_gradient = False\nz = 3 * detach_x**2\nz.backward()\n"
        "expect('x grad unchanged', np.array_equal(x.grad.numpy(), [20.0]))\n"
        "expect('detached grad', np.array_equal(detach_x.grad.numpy(), [60.0]))\n"
        "def unsafe():\n    y = 2**x\n    detach_x[:] = 5.0\n    y.backward()\n"
        "raises('write through a detached alias breaks backward', RuntimeError, unsafe)\n"),
    "TestVarBase::test_write_property": (
        ARRAY + "var = paddle.to_tensor(array)\nprint(var.name)\nvar.name = 'test'\nexpect('name', var.name == 'test')\n"
        "expect('not persistable', var.persistable is False)\nvar.persistable = True\n"
        "expect('persistable', var.persistable is True)\nexpect('stops gradient', var.stop_gradient is True)\n"
        "var.stop_gradient = False\nexpect('needs gradient', var.stop_gradient is False)\n"),
    "TestVarBase::test_set_value": (
        ARRAY + "var = paddle.to_tensor(array)\ntmp1 = rng.uniform(0.1, 1, [2, 2, 3]).astype(np.float32)\n"
        "raises('wrong shape', AssertionError, lambda: var.set_value(tmp1))\n"
        "tmp2 = rng.uniform(0.1, 1, [512, 1234]).astype(np.float32)\nvar.set_value(tmp2)\n"
        "expect('values', np.array_equal(var.numpy(), tmp2))\nprint(var.inplace_version)\n"),
    "TestVarBase::test_to_string": ARRAY + "var = paddle.to_tensor(array)\nexpect('str', isinstance(str(var), str))\n",
    "TestVarBase::test_backward": (
        ARRAY + "var = paddle.to_tensor(array)\nvar.stop_gradient = False\nloss = paddle.nn.functional.relu(var)\n"
        "loss.backward()\ngrad_var = var._grad_ivar()\nexpect('grad shape', grad_var.shape == [512, 1234])\n"),
    "TestVarBase::test_gradient": (
        ARRAY + "var = paddle.to_tensor(array)\nvar.stop_gradient = False\nloss = paddle.nn.functional.relu(var)\n"
        "loss.backward()\ngrad_var = var.gradient()\nexpect('gradient is numpy', isinstance(grad_var, np.ndarray))\n"
        "expect('grad shape', grad_var.shape == array.shape)\n"),
    "TestVarBase::test_slice": (
        TENSOR_ARRAY + "var = paddle.to_tensor(tensor_array)\n"
        "items = [(0, 1, 1), slice(1, None), slice(0, 1), slice(None, None, -1), (1, slice(1, None), slice(1, None)),\n"
        "         (slice(None), slice(None), slice(None, -1)), (slice(None, 1), slice(None, 1), slice(None, 1)),\n"
        "         (slice(None, -1), slice(None, -1), slice(None, -1)), (slice(None, None, -1), slice(None, 1), slice(None, -1)),\n"
        "         (slice(None, -1), slice(None, None, -1), slice(-1, None)), (slice(1, 2), slice(2, None), slice(None, None, -1)),\n"
        "         (slice(2, 10), slice(2, None), slice(-2, -1)), (slice(1, -1), slice(0, 2), slice(None, None, -1)),\n"
        "         (slice(None, None, -1),) * 3, slice(-4, 4)]\n"
        "for item in items:\n    expect(str(item), np.array_equal(var[item].numpy(), tensor_array[item]))\n"
        "reshaped = paddle.reshape(var, [3, -1, 3])\n"
        "expect('reshape then slice', np.array_equal(reshaped[:, :, -1].numpy(), tensor_array.reshape((3, -1, 3))[:, :, -1]))\n"
        "w = paddle.to_tensor(rng.random((30, 100, 100)).astype('float32'))\nfor i, e in enumerate(w):\n"
        "    pass\nexpect('iterate', np.array_equal(e.numpy(), w.numpy()[29]))\n"
        "raises('past the end', IndexError, lambda: var[3])\nraises('before the start', IndexError, lambda: var[-4])\n"),
    "TestVarBase::test_var_base_as_np": (
        ARRAY + "var = paddle.to_tensor(array)\nexpect('array', np.array_equal(var.numpy(), np.array(var)))\n"
        "expect('array dtype', np.array_equal(var.numpy(), np.array(var, dtype=np.float32)))\n"),
    "TestVarBase::test_if": (
        "var1 = paddle.to_tensor(np.array([[[0]]]))\nvar2 = paddle.to_tensor(np.array([[[1]]]))\n"
        "expect('bool(var1)', bool(var1) is False)\nexpect('bool(var2)', bool(var2) is True)\n"),
    "TestVarBase::test_tensor_str": (
        "paddle.seed(10)\na = paddle.rand([10, 20])\nprint(a)\n"),
    "TestVarBase::test_tensor_str2": "a = paddle.to_tensor([[1.5111111, 1.0], [0, 0]])\nprint(a)\n",
    "TestVarBase::test_tensor_str3": "a = paddle.to_tensor([[-1.5111111, 1.0], [0, -0.5]])\nprint(a)\n",
    "TestVarBase::test_tensor_str_scaler": "a = paddle.to_tensor(np.array(False))\nprint(a)\n",
    "TestVarBase::test_print_tensor_dtype": "a = paddle.rand([1])\nprint(str(a.dtype))\n",
    "TestVarBaseInplaceVersion::test_setitem": (
        "var = paddle.ones(shape=[4, 2, 3], dtype='float32')\nexpect('v0', var.inplace_version == 0)\nvar[1] = 1\n"
        "expect('v1', var.inplace_version == 1)\nvar[1:2] = 1\nexpect('v2', var.inplace_version == 2)\n"),
    "TestVarBaseInplaceVersion::test_bump_inplace_version": (
        "var = paddle.ones(shape=[4, 2, 3], dtype='float32')\nexpect('v0', var.inplace_version == 0)\n"
        "var._bump_inplace_version()\nexpect('v1', var.inplace_version == 1)\nvar._bump_inplace_version()\n"
        "expect('v2', var.inplace_version == 2)\n"),
}


def _setitem(cls: str, dtype: str, value_kind: str) -> str:
    value = {"tensor": "tensor_value", "numpy": "np_value", "int": "10", "float": "3.3"}[value_kind]
    return (f"tensor_x = paddle.to_tensor(np.ones((4, 2, 3)).astype({dtype!r}))\n"
            f"np_value = rng.random((2, 3)).astype({dtype!r})\ntensor_value = paddle.to_tensor(np_value)\n"
            f"value = {value}\nexpect('v0', tensor_x.inplace_version == 0)\nid_origin = id(tensor_x)\n"
            "tensor_x[0] = value\nexpect('v1', tensor_x.inplace_version == 1)\n"
            f"result = np.zeros((2, 3)).astype({dtype!r}) + value if isinstance(value, (int, float)) else np_value\n"
            "expect('row 0', np.array_equal(tensor_x[0].numpy(), result))\nexpect('same object', id_origin == id(tensor_x))\n"
            "tensor_x[1:2] = value\nexpect('v2', tensor_x.inplace_version == 2)\n"
            "expect('row 1', np.array_equal(tensor_x[1].numpy(), result))\n"
            "tensor_x[...] = value\nexpect('v3', tensor_x.inplace_version == 3)\n"
            "expect('row 3', np.array_equal(tensor_x[3].numpy(), result))\n")


SETITEM_CLASSES = {"TestVarBaseSetitem": "int32", "TestVarBaseSetitemInt64": "int64",
                   "TestVarBaseSetitemFp32": "float32", "TestVarBaseSetitemFp64": "float64"}

EGR_CASES = {
    "EagerScaleTestCase::test_retain_grad_and_run_backward": (
        "input_data = np.ones([4, 16, 16, 32]).astype('float32')\n"
        "data_eager = paddle.to_tensor(input_data, 'float32', paddle.CPUPlace(), False)\n"
        "grad_eager = paddle.to_tensor(np.ones([4, 16, 16, 32]).astype('float32'), 'float32', paddle.CPUPlace())\n"
        "data_eager.retain_grads()\nout_eager = paddle.scale(data_eager, 1.0, 0.9, True)\n"
        "expect('no grad yet', data_eager.grad is None)\nout_eager.backward(grad_eager, False)\n"
        "expect('grad', np.array_equal(data_eager.grad.numpy(), input_data))\n"),
    "EagerScaleTestCase::test_retain_grad_and_run_backward_raises": (
        "input_data = np.ones([4, 16, 16, 32]).astype('float32')\n"
        "data_eager = paddle.to_tensor(input_data, 'float32', paddle.CPUPlace(), False)\n"
        "grad_data = np.ones([4, 16, 16, 32]).astype('float32')\n"
        "grad_eager2 = paddle.to_tensor(np.ones([4, 16]).astype('float32'), 'float32', paddle.CPUPlace())\n"
        "data_eager.retain_grads()\nout_eager = paddle.scale(data_eager, 1.0, 0.9, True)\n"
        "expect('no grad yet', data_eager.grad is None)\n"
        "raises('numpy grad', AssertionError, lambda: out_eager.backward(grad_data, False), "
        "'The type of grad_tensor must be paddle.Tensor')\n"
        "raises('shape', AssertionError, lambda: out_eager.backward(grad_eager2, False), "
        "'Tensor shape not match, Tensor of grad_tensor /*')\n"),
    "EagerDtypeTestCase::test_dtype_base": (
        "for dtype, paddle_dtype in [('bool', paddle.bool), ('int8', paddle.int8), ('uint8', paddle.uint8),\n"
        "                            ('int16', paddle.int16), ('int32', paddle.int32), ('int64', paddle.int64),\n"
        "                            ('float16', paddle.float16), ('float32', paddle.float32), ('float64', paddle.float64)]:\n"
        "    arr = rng.random([4, 16, 16, 32]).astype(dtype)\n    tensor = paddle.to_tensor(arr, dtype)\n"
        "    expect(dtype, tensor.dtype == paddle_dtype and np.array_equal(arr, tensor.numpy()))\n"),
    "EagerVariablePropertiesAndMethodsTestCase::test_copy_and_copy_to": (
        "arr = np.ones([4, 16, 16, 32]).astype('float32')\narr1 = np.zeros([4, 16]).astype('float32')\n"
        "tensor = paddle.to_tensor(arr, paddle.float32, paddle.CPUPlace())\nexpect('sg', tensor.stop_gradient is True)\n"
        "tensor.stop_gradient = False\ntensor.persistable = False\n"
        "tensor1 = paddle.to_tensor(arr1, paddle.float32, paddle.CPUPlace())\ntensor1.persistable = True\n"
        "expect('tensor1 sg', tensor1.stop_gradient is True)\nexpect('values', np.array_equal(tensor.numpy(), arr))\n"
        "tensor.copy_(tensor1, True)\nexpect('persistable kept', tensor.persistable is False)\n"
        "expect('shape taken', tensor.shape == [4, 16])\nexpect('dtype', tensor.dtype == paddle.float32)\n"
        "expect('values taken', np.array_equal(tensor.numpy(), arr1))\nprint(tensor.inplace_version)\n"
        "tensor2 = paddle.to_tensor(arr + arr, paddle.float32, paddle.CPUPlace())\ntensor2.persistable = True\n"
        "tensor2.stop_gradient = False\ntensor4 = tensor2.cpu()\n"
        "expect('cpu values', np.array_equal(tensor4.numpy(), arr + arr))\n"
        "expect('cpu keeps persistable', tensor4.persistable is True)\n"
        "expect('cpu keeps sg', tensor4.stop_gradient is False)\nexpect('cpu place', tensor4.place.is_cpu_place())\n"),
    "EagerVariablePropertiesAndMethodsTestCase::test_properties": (
        "arr = np.ones([4, 16, 16, 32]).astype('float32')\ntensor = paddle.to_tensor(arr, paddle.float32, paddle.CPUPlace())\n"
        "expect('shape', tensor.shape == [4, 16, 16, 32])\ntensor.name = 'tensor_name_test'\n"
        "expect('name', tensor.name == 'tensor_name_test')\nexpect('not persistable', tensor.persistable is False)\n"
        "tensor.persistable = True\nexpect('persistable', tensor.persistable is True)\ntensor.persistable = False\n"
        "expect('cpu', tensor.place.is_cpu_place())\nexpect('sg', tensor.stop_gradient is True)\n"
        "tensor.stop_gradient = False\nexpect('grad', tensor.stop_gradient is False)\ntensor.stop_gradient = True\n"
        "expect('sg again', tensor.stop_gradient is True)\n"),
    "EagerVariablePropertiesAndMethodsTestCase::test_set_value": (
        "ori_arr = rng.random((4, 16, 16, 32)).astype('float32')\negr_tensor = paddle.to_tensor(ori_arr)\n"
        "expect('sg', egr_tensor.stop_gradient is True)\nori_place = egr_tensor.place\n"
        "new_arr = rng.random((4, 16, 16, 32)).astype('float32')\n"
        "expect('differs', not np.array_equal(egr_tensor.numpy(), new_arr))\negr_tensor.set_value(new_arr)\n"
        "expect('sg kept', egr_tensor.stop_gradient is True)\nexpect('place', str(egr_tensor.place) == str(ori_place))\n"
        "expect('shape', egr_tensor.shape == [4, 16, 16, 32])\nexpect('values', np.array_equal(egr_tensor.numpy(), new_arr))\n"
        "print(egr_tensor.inplace_version)\n"),
    "EagerParamBaseUsageTestCase::test_print": "linear = paddle.nn.Linear(3, 3, bias_attr=False)\nprint(linear.weight)\n",
    "EagerParamBaseUsageTestCase::test_set_value": (
        "linear = paddle.nn.Linear(1, 3)\nori_place = linear.weight.place\nnew_weight = np.ones([1, 3]).astype('float32')\n"
        "expect('differs', not np.array_equal(linear.weight.numpy(), new_weight))\nlinear.weight.set_value(new_weight)\n"
        "expect('values', np.array_equal(linear.weight.numpy(), new_weight))\n"
        "expect('place', str(linear.weight.place) == str(ori_place))\nprint(linear.weight.inplace_version)\n"),
    "EagerVariablePropertiesAndMethodsTestCase::test_trainable": (
        "param = paddle.create_parameter([1, 1], 'float32')\nexpect('trainable', param.trainable)\n"
        "param.trainable = False\nexpect('not trainable', not param.trainable)\nprint(param.stop_gradient)\n"
        "def bad():\n    param.trainable = 'False'\n"
        "raises('bool only', ValueError, bad, 'The type of trainable MUST be bool, but the type is /*')\n"),
}


def cases() -> list[Case]:
    found = [Case(f"{VAR_BASE}::{name}", source) for name, source in VAR_BASE_CASES.items()]
    for cls, dtype in SETITEM_CLASSES.items():
        kinds = ["tensor", "numpy", "int"] + (["float"] if cls == "TestVarBaseSetitemFp32" else [])
        found += [Case(f"{VAR_BASE}::{cls}::test_value_{kind}", _setitem(cls, dtype, kind)) for kind in kinds]
    found += [Case(f"{EGR}::{name}", source) for name, source in EGR_CASES.items()]
    return found
