"""test/legacy_test/test_stride.py: which ops give views of strided memory (shared buffer, their
contiguity) and what `contiguous()` does to them; and test_view_op_reuse_allocation.py: view ops
share the version counter of their base."""

from __future__ import annotations

from tests.paddle.ported import Case

FILE = "test_stride.py"


def _check(name: str, values: str, contiguous: bool, shares: bool = True, copy_shares: bool | None = None) -> str:
    """The closing assertions of one upstream call_*: values, contiguity, sharing, then the same
    for `.contiguous()` (which shares exactly when the view already was contiguous)."""
    copy_shares = contiguous if copy_shares is None else copy_shares
    return (f"expect('{name} values', np.allclose({name}.numpy(), {values}))\n"
            f"expect('{name} contiguous is {contiguous}', {name}.is_contiguous() == {contiguous})\n"
            f"expect('{name} shares x', x._is_shared_buffer_with({name}) == {shares})\n"
            f"{name}_c = {name}.contiguous()\n"
            f"expect('{name}_c values', np.allclose({name}_c.numpy(), {values}))\n"
            f"expect('{name}_c shares {name} is {copy_shares}', {name}_c._is_shared_buffer_with({name}) == {copy_shares})\n")


def _x(shape: str) -> str:
    return f"x_np = rng.random({shape}).astype('float32')\nx = paddle.to_tensor(x_np)\nexpect('x', np.allclose(x.numpy(), x_np))\n"


STRIDE: dict[str, str] = {
    "call_transpose": _x("[2, 3, 4]") + (
        "x_transposed1 = paddle.transpose(x, perm=[1, 0, 2])\nx_np_transposed1 = x_np.transpose(1, 0, 2)\n"
        "expect('t1', np.allclose(x_transposed1.numpy(), x_np_transposed1))\n"
        "expect('t1 not contiguous', not x_transposed1.is_contiguous())\n"
        "expect('t1 shares', x._is_shared_buffer_with(x_transposed1))\n"
        "x_c = x_transposed1.contiguous()\nexpect('x_c', np.allclose(x_c.numpy(), x_np_transposed1))\n"
        "expect('x_c own memory', not x_c._is_shared_buffer_with(x_transposed1))\n"
        "x_transposed2 = paddle.transpose(x_transposed1, perm=[2, 0, 1])\n"
        "x_np_transposed2 = x_np_transposed1.transpose(2, 0, 1)\n"
        "expect('t2', np.allclose(x_transposed2.numpy(), x_np_transposed2))\n"
        "expect('t2 not contiguous', not x_transposed2.is_contiguous())\n"
        "expect('t2 shares', x._is_shared_buffer_with(x_transposed2))\n"
        "y = x_transposed2 + 2\nexpect('y', np.allclose(y.numpy(), x_np_transposed2 + 2))\n"
        "expect('y contiguous', y.is_contiguous())\nexpect('y own memory', not x._is_shared_buffer_with(y))\n"),
    "call_diagonal": _x("[2, 3, 4]") + "".join(
        f"out{i} = paddle.diagonal(x{args})\n" + _check(f"out{i}", f"np.diagonal(x_np{args})", False)
        for i, args in enumerate(["", ", offset=0, axis1=2, axis2=1", ", offset=1, axis1=0, axis2=1",
                                  ", offset=0, axis1=1, axis2=2"])),
    "call_slice": _x("[10, 10, 10, 20]") + "out = x[1:10, 0:10, 0:10, 0:20]\n"
                                           + _check("out", "x_np[1:10, 0:10, 0:10, 0:20]", True),
    "call_strided_slice": _x("[10, 10, 10, 20]") + "out = x[1:10:2, 0:10:2, 0:10:2, 0:20:2]\n"
                                                   + _check("out", "x_np[1:10:2, 0:10:2, 0:10:2, 0:20:2]", False),
    "call_index_select": _x("[10, 10, 10, 20]") + "out = x[:, :, :, 5]\n" + _check("out", "x_np[:, :, :, 5]", False),
    "call_reshape": _x("[10, 10, 10, 20]") + "out = paddle.reshape(x, [10, 100, 20])\n"
                                             + _check("out", "x_np.reshape(10, 100, 20)", True),
    "call_flatten": _x("[2, 3, 4, 4]") + "out = paddle.flatten(x, start_axis=1, stop_axis=2)\n"
                                         + _check("out", "x_np.reshape(2, 12, 4)", True),
    "call_squeeze": _x("[5, 1, 10]") + "out = paddle.squeeze(x, axis=1)\n" + _check("out", "x_np.reshape(5, 10)", True),
    "call_unsqueeze": _x("[5, 10]") + "out = paddle.unsqueeze(x, axis=0)\n"
                                      + _check("out", "x_np.reshape(1, 5, 10)", True),
    "call_split": _x("[3, 9, 5]") + "outs = paddle.split(x, num_or_sections=3, axis=1)\nnps = np.split(x_np, 3, 1)\n"
                  "for out, np_out in zip(outs, nps):\n"
                  "    expect('values', np.allclose(out.numpy(), np_out))\n"
                  "    expect('not contiguous', not out.is_contiguous())\n"
                  "    expect('shares x', x._is_shared_buffer_with(out))\n",
    "call_split2": _x("[3, 9, 5]") + "outs = paddle.split(x, num_or_sections=[2, 3, 4], axis=1)\n"
                   "nps = np.split(x_np, [2, 5], 1)\nfor out, np_out in zip(outs, nps):\n"
                   "    expect('values', np.allclose(out.numpy(), np_out))\n"
                   "    expect('not contiguous', not out.is_contiguous())\n"
                   "    expect('shares x', x._is_shared_buffer_with(out))\n",
    "call_split3": _x("[9, 3, 5]") + "outs = paddle.split(x, num_or_sections=3, axis=0)\nnps = np.split(x_np, 3, 0)\n"
                   "for out, np_out in zip(outs, nps):\n"
                   "    expect('values', np.allclose(out.numpy(), np_out))\n"
                   "    expect('contiguous', out.is_contiguous())\n"
                   "    expect('shares x', x._is_shared_buffer_with(out))\n",
    "call_split4": _x("[9, 3, 5]") + "outs = paddle.split(x, num_or_sections=[2, 3, 4], axis=0)\n"
                   "nps = np.split(x_np, [2, 5], 0)\nfor out, np_out in zip(outs, nps):\n"
                   "    expect('values', np.allclose(out.numpy(), np_out))\n"
                   "    expect('contiguous', out.is_contiguous())\n"
                   "    expect('shares x', x._is_shared_buffer_with(out))\n",
    "call_chunk": _x("[3, 9, 5]") + "outs = paddle.chunk(x, chunks=3, axis=1)\nnps = np.split(x_np, 3, 1)\n"
                  "for out, np_out in zip(outs, nps):\n"
                  "    expect('values', np.allclose(out.numpy(), np_out))\n"
                  "    expect('not contiguous', not out.is_contiguous())\n"
                  "    expect('shares x', x._is_shared_buffer_with(out))\n",
    "call_unbind": _x("[3, 9, 5]") + "outs = paddle.unbind(x, axis=0)\nfor i, out in enumerate(outs):\n"
                   "    expect('values', np.allclose(out.numpy(), x_np[i]))\n"
                   "    expect('contiguous', out.is_contiguous())\n"
                   "    expect('shares x', x._is_shared_buffer_with(out))\n"
                   "    out_c = out.contiguous()\n    expect('out_c shares', out_c._is_shared_buffer_with(out))\n",
    "call_as_strided": _x("[2, 4, 6]") + "out = paddle.as_strided(x, [8, 6], [6, 1])\n"
                                         + _check("out", "x_np.reshape(8, 6)", True),
    "call_view": _x("[10, 10, 10, 20]") + "out = paddle.view(x, [10, 100, 20])\n"
                                          + _check("out", "x_np.reshape(10, 100, 20)", True),
    "call_view_as": _x("[10, 10, 10, 20]") + "tmp = paddle.to_tensor(x_np.reshape(10, 100, 20))\n"
                                             "out = paddle.view_as(x, tmp)\n"
                                             + _check("out", "x_np.reshape(10, 100, 20)", True),
    "call_unfold": _x("[9]") + "out = paddle.unfold(x, 0, 2, 4)\n"
                               + _check("out", "np.stack((x_np[0:2], x_np[4:6]))", False),
}

VIEW_REUSE = {  # class: (input shape, view call)
    "TestDygraphViewReuseAllocation": ("[2, 3, 1]", "paddle.squeeze(VAR)"),
    "TestUnsqueezeDygraphViewReuseAllocation": ("[2, 3]", "paddle.unsqueeze(VAR, -1)"),
    "TestReshapeDygraphViewReuseAllocation": ("[3, 4]", "paddle.reshape(VAR, [2, 2, 3])"),
    "TestFlattenDygraphViewReuseAllocation": ("[3, 4]", "paddle.flatten(VAR)"),
}


def _view_reuse(cls: str, shape: str, call: str) -> list[Case]:
    def view(var: str) -> str:
        return call.replace("VAR", var)
    file = "test_view_op_reuse_allocation.py"
    return [
        Case(f"{file}::{cls}::test_view_api", (
            f"var = paddle.rand({shape})\nview_var = {view('var')}\nview_var[0] = 2.0\n"
            f"expect('var shape', var.shape == {shape})\nprint(view_var.shape)\n"
            "expect('shared values', np.array_equal(var.numpy().reshape(view_var.shape), view_var.numpy()))\n")),
        Case(f"{file}::{cls}::test_forward_version", (
            f"var = paddle.rand({shape})\nexpect('v0', var.inplace_version == 0)\nview_var = {view('var')}\n"
            "expect('view v0', view_var.inplace_version == 0)\nvar[0] = 2.0\n"
            "expect('var v1', var.inplace_version == 1)\nexpect('view v1', view_var.inplace_version == 1)\n"
            f"view_var_2 = {view('var')}\nexpect('view2 v1', view_var_2.inplace_version == 1)\nvar[0] = 3.0\n"
            "expect('view v2', view_var.inplace_version == 2)\nexpect('view2 v2', view_var_2.inplace_version == 2)\n")),
        Case(f"{file}::{cls}::test_backward_error", (
            f"var_a = paddle.ones(shape={shape}, dtype='float32')\nvar_a.stop_gradient = False\nvar_b = var_a**2\n"
            f"var_c = var_b**2\nview_var_b = {view('var_b')}\nview_var_b[0] = 2.0\n"
            "loss = paddle.nn.functional.relu(var_c)\n"
            "raises('stale', RuntimeError, lambda: loss.backward(), "
            "'received tensor_version:1 != wrapper_version_snapshot:0')\n")),
    ]


def cases() -> list[Case]:
    found = [Case(f"{FILE}::TestStrideCPU::{name}", source) for name, source in STRIDE.items()]
    for cls, (shape, call) in VIEW_REUSE.items():
        found.extend(_view_reuse(cls, shape, call))
    return found
