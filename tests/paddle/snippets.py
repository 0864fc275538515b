"""Short Paddle programs whose transcripts the dialect must reproduce exactly (see harness.py).

Each prints what it checks (values through Paddle's printing, shapes, stop_gradient,
inplace_version, node names, storage sharing) and may end in an exception. Random values are
Paddle's own (both sides start from seed 0, see harness.py).
"""

SNIPPETS: dict[str, str] = {
    # ------------------------------------------------------------------ printing
    "print_float_vector": "print(paddle.to_tensor([1., -2.5, 3.]))",
    "print_scalar": "print(paddle.to_tensor(3.5))\nprint(paddle.to_tensor(2.0))",
    "print_ints_and_bools": "print(paddle.to_tensor([1, 2, 3]))\nprint(paddle.to_tensor([True, False]))",
    "print_matrix": "print(paddle.to_tensor([[1, 2], [3, 4]], dtype='float32'))",
    "print_mixed_magnitudes": "print(paddle.to_tensor([[1e-5, 1e5]]))\nprint(paddle.to_tensor([0.1, 0.25], dtype='float64'))",
    "print_empty": "print(paddle.zeros([0, 3]))",
    "print_summarised": "print(paddle.arange(2000, dtype='float32').reshape([2, 1000]))",
    "print_3d": "print(paddle.arange(24).reshape([2, 3, 4]))",
    "print_long_row": "print(paddle.arange(30, dtype='float32') / 7)",
    "print_factories": (
        "print(paddle.ones([2, 3], dtype='int32'))\nprint(paddle.full([2], 7))\nprint(paddle.arange(5))\n"
        "print(paddle.arange(0, 1, 0.25))\nprint(paddle.zeros([2], dtype=paddle.float64))"
    ),
    "print_grad_flag": "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\nprint(x * 2)",
    "print_fstring": "X = paddle.arange(6).reshape([2, 3])\nprint(f'X is:\\n{X}')",
    "print_special_values": (
        "print(paddle.to_tensor([float('nan'), float('inf'), -float('inf'), 1.5]))\n"
        "print(paddle.to_tensor([1e8, -3.25, 0.0]))\nprint(paddle.to_tensor([0.5, 1.5], dtype='float16'))\n"
        "print(paddle.to_tensor([-10, 200, 3]))\nprint(paddle.to_tensor(7))\nprint(paddle.to_tensor(False))"
    ),
    "print_summarised_3d": "print(paddle.arange(2 * 30 * 40, dtype='float32').reshape([2, 30, 40]) - 1000)",
    "print_width_from_edges_only": "print(paddle.to_tensor([1., 2., 3., 1234.5, 5., 6., 7.]))",
    "print_grad_and_parameter": (
        "x = paddle.to_tensor([[1., -2.], [3., 4.]], stop_gradient=False)\n(x * x).sum().backward()\nprint(x.grad)\n"
        "p = paddle.create_parameter([2], 'float32', default_initializer=nn.initializer.Constant(0.25))\nprint(p)"
    ),
    "setitem_nodes": (
        "x = paddle.zeros([2, 3])\nv = paddle.to_tensor([1., 2., 3.], stop_gradient=False)\nx[0] = v\nprint(info(x))\n"
        "x[1] = 5.\nprint(info(x))\n(x * 1).sum().backward()\nprint(v.grad, x)"
    ),
    "metadata": (
        "x = paddle.ones([2, 3])\nprint(x.shape, x.dtype, x.place, x.ndim, x.size, len(x))\n"
        "print(x.shape == [2, 3], isinstance(x.shape, list), x.shape.numel(), repr(x.dtype))\n"
        "print(paddle.float32, paddle.int64, paddle.bool, paddle.get_default_dtype())\n"
        "print(paddle.to_tensor(np.ones(2)).dtype, paddle.to_tensor([1, 2.5]).dtype, paddle.to_tensor(True).dtype)"
    ),
    "values_out": (
        "x = paddle.to_tensor([1., 2.])\nprint(x.numpy(), x.tolist(), float(x[1]), x[0].item(), x.numpy().dtype)\n"
        "print([t for t in x])\nprint(x == paddle.to_tensor([1., 3.]))"
    ),
    "bool_of_vector": "bool(paddle.to_tensor([1., 2.]))",
    "promotion": "print(paddle.ones([2], dtype='int64') / 2)\nprint(paddle.to_tensor([1, 2]) * 2.5)",
    # ------------------------------------------------------------------ flags and nodes
    "stop_gradient_default": (
        "x = paddle.rand([2, 3])\nprint(info(x), x.requires_grad)\nx.stop_gradient = False\n"
        "print(info(x), x.requires_grad)\nx.requires_grad = False\nprint(info(x))"
    ),
    "which_leaves_have_a_node": (
        "a = paddle.rand([2]); b = paddle.rand([2]); b.stop_gradient = True\nc = paddle.to_tensor([1.])\n"
        "d = paddle.from_numpy(np.ones(2)); e = paddle.ones([2]); f = paddle.assign(np.ones(2)); g = c.detach()\n"
        "for t in [a, b, c, d, e, f, g, c * 2, c.clone(), paddle.zeros([1]), paddle.full([1], 2.), paddle.arange(2),\n"
        "          paddle.arange(0, 1, 0.5), paddle.randn([1]), paddle.ones_like(e), paddle.zeros_like(e), paddle.full_like(e, 2.),\n"
        "          e.reshape([1, 2]), a.reshape([1, 2])]:\n    print(info(t))\n"
        "print(e.reshape([2]) is e, a.reshape([2]) is a, a.reshape([-1]) is a)\nlen(paddle.to_tensor(3.))"
    ),
    "leaf_grad_fn": "x = paddle.rand([2])\nprint(x.grad_fn)\nx.stop_gradient = False\nprint(x.grad_fn.name(), x.grad_fn.next_functions)",
    "node_names_scalars": (
        "x = paddle.rand([2, 3]); x.stop_gradient = False\n"
        "for y in [x * 2, 2 * x, x + 1, 1 + x, x - 0.5, 1 - x, x / 2, 2 / x, -x, x ** 2]:\n    print(info(y))"
    ),
    "node_names_binary": (
        "x = paddle.rand([2, 3]); x.stop_gradient = False\nw = paddle.rand([3, 2]); w.stop_gradient = False\n"
        "for y in [x * x, x + x, x - x, x / x, x @ w, paddle.matmul(x, w), paddle.add(x, x),\n"
        "          paddle.multiply(x, x), paddle.subtract(x, x), paddle.divide(x, x)]:\n    print(info(y))"
    ),
    "node_names_unary": (
        "x = paddle.rand([2, 3]); x.stop_gradient = False\n"
        "for y in [x.exp(), F.sigmoid(x), x.sigmoid(), F.relu(x), paddle.tanh(x), x.log(), x.sqrt(), x.abs(),\n"
        "          x.square(), x.clip(0.2, 0.8), F.softmax(x), x.sum(), x.mean(), x.sum(0), x.max(),\n"
        "          x.astype('float64'), paddle.scale(x, 2.0), paddle.scale(x, 2.0, bias=1.0), x.pow(2)]:\n"
        "    print(info(y))"
    ),
    "node_names_copies": (
        "x = paddle.rand([2, 3]); x.stop_gradient = False\n"
        "for y in [x.clone(), paddle.assign(x), x.detach(), x.contiguous(), paddle.concat([x, x]), paddle.stack([x, x])]:\n"
        "    print(info(y), y._is_shared_buffer_with(x))\nprint(x.contiguous() is x, x.detach() is x, x.clone() is x)"
    ),
    "linear_nodes": (
        "x = paddle.rand([2, 3]); x.stop_gradient = False\nw = paddle.rand([3, 2]); w.stop_gradient = False\n"
        "print(info(F.linear(x, w)))\nprint(info(F.linear(x, w, paddle.ones([2]))))"
    ),
    "chain_nodes": (
        "x = paddle.to_tensor([1., 2.], stop_gradient=False)\ny = (x * 2).sigmoid().sum()\nprint(info(y))\n"
        "print(y.grad_fn.next_functions[0].next_functions[0].name())\nprint(y.grad_fn is y.grad_fn)"
    ),
    # ------------------------------------------------------------------ views and copies
    "views_share": (
        "x = paddle.arange(12, dtype='float32').reshape([3, 4]); x.stop_gradient = False\n"
        "for y in [x.reshape([4, 3]), x.view([4, 3]), x[1:], x[:, 1], x[1], x[None], x[..., 0], x[0, 1:],\n"
        "          x.transpose([1, 0]), x.T, x.t(), x.unsqueeze(0), x.unsqueeze(0).squeeze(0), x.flatten(),\n"
        "          x.unbind(0)[0], x.detach()]:\n"
        "    print(info(y), y._is_shared_buffer_with(x), y.is_contiguous())"
    ),
    "base_changed_under_a_view": (
        "a = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)\nx = a * 1\nv = x[0]\nr = x.reshape([4])\n"
        "x.scale_(2.0)\nprint(info(v), info(r), info(x))\nprint(v, r)\nv.sum().backward()\nprint(a.grad)\n"
        "y = a * 1\nw = y[1]\nw.exp_()\nprint(info(y), info(w))\n(y.sum() + w.sum()).backward()\nprint(a.grad)"
    ),
    "copies": (
        "x = paddle.arange(12, dtype='float32').reshape([3, 4]); x.stop_gradient = False\n"
        "for y in [paddle.split(x, 2, axis=1)[0], paddle.split(x, [1, 3], axis=1)[1], paddle.chunk(x, 3)[0],\n"
        "          x.split(2, axis=1)[1], x.chunk(2, axis=1)[0], x[0:1].expand([3, 4]), paddle.expand(x, [2, 3, 4]),\n"
        "          x.expand_as(paddle.ones([2, 3, 4])), paddle.broadcast_to(x, [2, 3, 4]), x[paddle.to_tensor([0, 2])],\n"
        "          x.transpose([1, 0]).reshape([12])]:\n"
        "    print(info(y), y._is_shared_buffer_with(x))\n"
        "parts = paddle.split(x, 2, axis=1)\nprint(parts[0].grad_fn is parts[1].grad_fn)"
    ),
    "contiguous_in_place": (
        "x = paddle.ones([2, 3]); x.stop_gradient = False\ny = x.transpose([1, 0]) * 1\nv = y.transpose([1, 0])\n"
        "c = v.contiguous()\nprint(c is v, info(c), c._is_shared_buffer_with(y), c.is_contiguous())\n"
        "z = paddle.ones([2, 3]).transpose([1, 0]); z.scale_(2.0); w = z.contiguous()\n"
        "print(w is z, z.inplace_version, z.is_contiguous(), z)"
    ),
    "results_are_row_major": (
        "x = paddle.arange(6, dtype='float32').reshape([2, 3]); x.stop_gradient = False\ny = x.transpose([1, 0])\n"
        "for r in [y * 1, y.exp(), y.clone(), y + y, y.astype('float64'), F.relu(y), y.sigmoid(), paddle.concat([y, y])]:\n"
        "    print(r.is_contiguous(), r.strides, r.reshape([-1])._is_shared_buffer_with(r))\n"
        "s = y.sigmoid()\nprint(s)\ns.sum().backward()\nprint(x.grad)\n"
        "print(x.astype('float32') is x, info(x.astype('float32')))"
    ),
    "reshape_errors": (
        "x = paddle.ones([6, 2])\nfor shape in [[6], [-1, 5], [0, 3], [4, 0], [-1, 4], [0, 1, 2], [3, -1, 0]]:\n    try:\n        print(x.reshape(shape).shape)\n"
        "    except ValueError as e:\n        print(e)"
    ),
    "refused_reshape_then_backward": (  # the leaf's shape changes though reshape_ is refused; nodes that keep
        # x's buffer see the new shape, those that keep its meta only (or nothing) the old one
        "for make in [lambda t: t * t, lambda t: t / t, lambda t: t * 2, lambda t: t * paddle.ones([1, 4])]:\n"
        "    t = paddle.to_tensor([[1., -2., 3., 0.5]], stop_gradient=False)\n    out = make(t)\n"
        "    try:\n        t.reshape_([-1])\n    except ValueError as e:\n        print(str(e)[:40])\n"
        "    out.sum().backward()\n    print(t.shape, t.grad.shape, t.grad)"
    ),
    "clear_grad_zeros_are_fake_empty": (  # zero-filled, then replaced (not added into) by the next backward
        "w = paddle.to_tensor([1., 2.], stop_gradient=False)\n(w * 3).sum().backward()\ng = w.grad\n"
        "(w * 3).sum().backward()\nprint(w.grad._is_shared_buffer_with(g), g.numpy(), g.inplace_version)\n"
        "w.clear_gradient()\nprint(g.numpy(), w.grad._is_shared_buffer_with(g), w.grad.inplace_version)\n"
        "(w * 3).sum().backward()\nprint(w.grad._is_shared_buffer_with(g), g.numpy(), w.grad.numpy())\n"
        "h = w.grad\n(w * 3).sum().backward()\nprint(w.grad._is_shared_buffer_with(h), h.numpy())\n"
        "w.clear_gradient(False)\nprint(w.grad)\n(w * 3).sum().backward()\nprint(w.grad._is_shared_buffer_with(g), w.grad)\n"
        "u = paddle.to_tensor([1., 2.], stop_gradient=False)\n(u * 2).sum().backward()\nu.clear_gradient()\n"
        "(w * 1).sum().backward()\nprint(u.grad)\n(u * 2).sum().backward()\nprint(u.grad)"
    ),
    "clear_grad_arguments": (  # clear_grad takes none; clear_gradient reads a positional one only
        "x = paddle.to_tensor([1.], stop_gradient=False)\n(x * 2).sum().backward()\n"
        "x.clear_gradient(set_to_zero=False); print(x.grad)\nx.clear_gradient(False); print(x.grad)\nx.clear_grad(False)"
    ),
    "sdpa_math_backend": (
        "q = paddle.randn([2, 6, 2, 4]); k = paddle.randn([2, 6, 2, 4]); v = paddle.randn([2, 6, 2, 4])\n"
        "for t in (q, k, v):\n    t.stop_gradient = False\n"
        "for kw in [dict(is_causal=True), dict(), dict(attn_mask=paddle.randn([6, 6])), dict(scale=0.3)]:\n"
        "    y = F.scaled_dot_product_attention(q, k, v, **kw)\n    (y * y).sum().backward()\n"
        "    print(y.grad_fn.name(), y.shape, np.round(y.numpy().ravel()[:5], 4), np.round(k.grad.numpy().ravel()[:4], 4))\n"
        "    q.clear_gradient(False); k.clear_gradient(False); v.clear_gradient(False)\n"
        "y = F.scaled_dot_product_attention(q[0], k[0], v[0], is_causal=True)\nprint(y.shape, y.grad_fn.name())"
    ),
    "allclose_isclose": (
        "x = paddle.to_tensor([1., 2.]); y = paddle.to_tensor([1., 2.00001])\n"
        "print(paddle.allclose(x, y), x.allclose(y, atol=0.0, rtol=0.0), paddle.isclose(x, y), paddle.equal_all(x, x))\n"
        "print(paddle.allclose(paddle.to_tensor([float('nan')]), paddle.to_tensor([float('nan')]), equal_nan=True))\n"
        "print(paddle.isclose(paddle.to_tensor([1e-9, 1., float('inf'), float('nan')]), "
        "paddle.to_tensor([0., 1.1, float('inf'), 1.]), rtol=0.2))"
    ),
    "split_not_divisible": "x = paddle.ones([3, 4])\npaddle.chunk(x, 2)",
    "versions_shared_by_views": (
        "x = paddle.arange(12, dtype='float32').reshape([3, 4])\nv = x.reshape([4, 3]); v.scale_(2.0)\n"
        "print(x.inplace_version, v.inplace_version)\ns = x[1:]; s.scale_(2.0)\n"
        "print(x.inplace_version, v.inplace_version, s.inplace_version)\nd = x.detach(); d.add_(paddle.ones([3, 4]))\n"
        "print(x.inplace_version, d.inplace_version)\nx[0, 0] = 7.\n"
        "print(x.inplace_version, v.inplace_version, s.inplace_version, d.inplace_version)\nprint(x)\n"
        "c = paddle.split(x, 3)[0]; c.scale_(2.0)\nprint(x.inplace_version, c.inplace_version)"
    ),
    # ------------------------------------------------------------------ the leaf rule
    "seed_leaf_scale": (
        "x = paddle.rand([3, 4])\nx.stop_gradient = False\nx.scale_(2.0)\ny = x.sum()\ny.backward()"
    ),
    "leaf_ops_write_then_raise": (
        "ops = [('scale_', lambda x: x.scale_(2.0)), ('add_', lambda x: x.add_(paddle.to_tensor([1., 1.]))),\n"
        "       ('subtract_', lambda x: x.subtract_(paddle.to_tensor([1., 1.]))),\n"
        "       ('multiply_', lambda x: x.multiply_(paddle.to_tensor([3., 3.]))),\n"
        "       ('paddle.multiply_', lambda x: paddle.multiply_(x, paddle.to_tensor([3., 3.]))),\n"
        "       ('exp_', lambda x: x.exp_()), ('relu_', lambda x: F.relu_(x)), ('zero_', lambda x: x.zero_()),\n"
        "       ('fill_', lambda x: x.fill_(5.)), ('clip_', lambda x: x.clip_(0., 1.)), ('abs_', lambda x: x.abs_()),\n"
        "       ('neg_', lambda x: x.neg_()), ('tanh_', lambda x: x.tanh_()), ('divide_', lambda x: x.divide_(paddle.to_tensor([2., 2.]))),\n"
        "       ('transpose_', lambda x: x.transpose_([0])), ('unsqueeze_', lambda x: x.unsqueeze_(0))]\n"
        "for label, op in ops:\n"
        "    x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\n"
        "    try:\n        op(x)\n        print(label, 'ran')\n"
        "    except ValueError as e:\n        print(label, str(e).splitlines()[0])\n"
        "    print('  ', x.numpy().round(4), x.shape, x.inplace_version, info(x))"
    ),
    "leaf_error_full_text": "x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\nF.relu_(x)",
    "leaf_error_named": "x = paddle.rand([2]); x.stop_gradient = False\nprint(x.name)\nx.exp_()",
    "leaf_setitem_checks_first": (
        "x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\n"
        "try:\n    x[0] = 5.0\nexcept ValueError as e:\n    print(e)\nprint(x.numpy(), x.inplace_version)\n"
        "y = paddle.rand([2]); y.stop_gradient = False\ny[:] = paddle.ones([2])"
    ),
    "leaf_stop_gradient_true_allows_inplace": (
        "x = paddle.to_tensor([-1., 2.])\nx.scale_(2.0); x.add_(paddle.ones([2])); F.relu_(x); x[0] = 9.\nprint(x, x.inplace_version)"
    ),
    "leaf_inplace_under_no_grad": (
        "x = paddle.ones([2]); x.stop_gradient = False\nwith paddle.no_grad():\n    x.scale_(2.0)\n"
        "print(x.inplace_version, x.numpy(), info(x))"
    ),
    "leaf_view_inplace_allowed": (
        "x = paddle.to_tensor([[1., 2.], [3., 4.]]); x.stop_gradient = False\nv = x.reshape([4])\n"
        "print(info(v))\nv.scale_(2.0)\nprint(info(v), info(x))\nv.sum().backward()\nprint(x.grad)\n"
        "x.clear_grad()\nw = x[0]\nw.scale_(3.0)\nprint(info(w))\nx.sum().backward()\nprint(x.grad, x)"
    ),
    "leaf_detach_inplace_allowed": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\nd = x.detach(); d.scale_(2.0)\n"
        "print(x.inplace_version, x.numpy(), info(d))"
    ),
    # ------------------------------------------------------------------ in-place on non-leaves
    "nonleaf_inplace_nodes": (
        "ops = [('scale_', lambda y: y.scale_(2.0)), ('add_', lambda y: y.add_(paddle.ones([2, 3]))),\n"
        "       ('subtract_', lambda y: y.subtract_(paddle.ones([2, 3]))), ('multiply_', lambda y: y.multiply_(paddle.ones([2, 3]))),\n"
        "       ('divide_', lambda y: y.divide_(paddle.ones([2, 3]))), ('exp_', lambda y: y.exp_()), ('relu_', lambda y: F.relu_(y)),\n"
        "       ('sigmoid_', lambda y: y.sigmoid_()), ('tanh_', lambda y: y.tanh_()), ('sqrt_', lambda y: y.sqrt_()),\n"
        "       ('zero_', lambda y: y.zero_()), ('fill_', lambda y: y.fill_(3.0)), ('clip_', lambda y: y.clip_(0.1, 0.5)),\n"
        "       ('pow_', lambda y: y.pow_(2)), ('abs_', lambda y: y.abs_()), ('neg_', lambda y: y.neg_()),\n"
        "       ('transpose_', lambda y: y.transpose_([1, 0])), ('reshape_', lambda y: y.reshape_([3, 2])),\n"
        "       ('unsqueeze_', lambda y: y.unsqueeze_(0)), ('uniform_', lambda y: y.uniform_()), ('normal_', lambda y: y.normal_()),\n"
        "       ('setitem', lambda y: y.__setitem__(0, 5.0)), ('setitem_tensor', lambda y: y.__setitem__(0, paddle.ones([3]))),\n"
        "       ('setitem_slice', lambda y: y.__setitem__((slice(None), 1), 5.0))]\n"
        "for label, op in ops:\n"
        "    x = paddle.rand([2, 3]); x.stop_gradient = False\n    y = x * 1\n    r = op(y)\n"
        "    print(label, r is y, info(y), x.inplace_version)"
    ),
    "inplace_makes_former_leaf_part_of_graph": (
        "x = paddle.zeros([3]); v = paddle.to_tensor([1., 2., 3.], stop_gradient=False)\nx.add_(v)\nprint(info(x))\n"
        "x.sum().backward(); print(x.grad, v.grad)\n"
        "x = paddle.zeros([3]); v = paddle.to_tensor([1., 2., 3.], stop_gradient=False)\nx[0] = v[0]\nprint(info(x))\n"
        "x.sum().backward(); print(x.grad, v.grad)\n"
        "x = paddle.zeros([3]); x.multiply_(v); print(info(x))\nprint(info(paddle.zeros([3]) + v))"
    ),
    "inplace_returns_self": "x = paddle.ones([2])\nprint(x.scale_(2.0) is x, x.add_(x) is x, paddle.multiply_(x, x) is x, F.relu_(x) is x)",
    "article_add_subtract": (
        "x = paddle.to_tensor([[1, 2], [3, 4]], dtype='float32')\ny = paddle.to_tensor([[5, 6], [7, 8]], dtype='float32')\n"
        "x.add_(y, alpha=1)\nprint(x)\nx.subtract_(y, alpha=2)\nprint(x)"
    ),
    "article_transpose_": (
        "X = paddle.arange(12).reshape([3, 4])\nX.transpose_([1, 0])\nprint(f'X after inplace transpose:\\n{X}')\n"
        "Y = X.transpose([1, 0])\nprint(f'Y after non-inplace transpose:\\n{Y}')\n"
        "print(X.inplace_version, X.is_contiguous(), Y._is_shared_buffer_with(X), X.strides)"
    ),
    "article_zero_": "x = paddle.arange(6, dtype='float32').reshape([2, 3])\ny = x\nx.zero_()\nprint(y, y.inplace_version)",
    "top_level_inplace_names": (
        "print(hasattr(paddle, 'multiply_'), hasattr(paddle, 'subtract_'), hasattr(paddle, 'scale_'),\n"
        "      hasattr(paddle, 'exp_'), hasattr(F, 'relu_'), hasattr(F, 'sigmoid_'), hasattr(paddle.Tensor, 'add_'))\npaddle.add_"
    ),
    "no_sigmoid_inplace_in_F": "F.sigmoid_",
    # ------------------------------------------------------------------ += rebinds
    "iadd_rebinds": (
        "y = paddle.ones([2]); t = paddle.ones([2]); y0 = y\ny += t\n"
        "print(y is y0, y0.numpy(), y.numpy(), y0.inplace_version, y.inplace_version, y._is_shared_buffer_with(y0))"
    ),
    "iadd_nodes": (
        "y = paddle.ones([2]); y.stop_gradient = False; y0 = y\ny += 1\nprint(y is y0, info(y))\n"
        "y *= 2\nprint(info(y))\ny -= 2\nprint(info(y))\ny /= 2\nprint(info(y))\ny += y0\nprint(info(y))"
    ),
    # ------------------------------------------------------------------ backward
    "version_error_sigmoid_output": (
        "x = paddle.to_tensor([1., 2., 3.]); x.stop_gradient = False\ny = x.sigmoid()\ny.scale_(2.0)\nprint(y.inplace_version)\ny.sum().backward()"
    ),
    "version_error_exp_add_": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x.exp()\ny.add_(paddle.ones([2]))\ny.sum().backward()"
    ),
    "version_error_multiply_twice": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x * 1\nz = y * y\n"
        "y.add_(paddle.ones([2]))\ny.add_(paddle.ones([2]))\nz.sum().backward()"
    ),
    "version_error_multiply_constant_operand": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\nw = paddle.to_tensor([1., 2.])\n"
        "z = x * w\nw.scale_(2.0)\nz.sum().backward()"
    ),
    "version_error_multiply_input_when_other_stops": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x * 1\nz = y * paddle.ones([2])\n"
        "y.scale_(1.0)\nz.sum().backward()"
    ),
    "version_error_divide_output": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x * 1\nz = y / paddle.full([2], 2.0)\n"
        "z.scale_(1.0)\nz.sum().backward()"
    ),
    "version_error_matmul_input": (
        "x = paddle.to_tensor([[1., 2.]]); x.stop_gradient = False\ny = x * 1\nz = y @ paddle.ones([2, 2])\n"
        "y.scale_(1.0)\nz.sum().backward()"
    ),
    "version_error_relu_then_scale": (
        "x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\ny = x * 1\nF.relu_(y)\ny.scale_(2.0)\ny.sum().backward()"
    ),
    "no_version_error_cases": (
        "def attempt(make, modify):\n    x = paddle.to_tensor([[0.5, 1.5, -0.3], [0.7, 0.2, 0.9]]); x.stop_gradient = False\n"
        "    a = x * 1\n    out = make(a)\n    modify(a, out)\n    try:\n        out.sum().backward()\n        return 'ok'\n"
        "    except RuntimeError as e:\n        return str(e).split('.')[1].strip()\n"
        "cases = {'scale': lambda a: a * 2, 'add_scalar': lambda a: a + 1, 'add': lambda a: a + paddle.ones([2, 3]),\n"
        "         'sigmoid': lambda a: a.sigmoid(), 'exp': lambda a: a.exp(), 'relu': lambda a: F.relu(a), 'pow': lambda a: a ** 2,\n"
        "         'sum': lambda a: a.sum(), 'mean': lambda a: a.mean(), 'reshape': lambda a: a.reshape([3, 2]),\n"
        "         'clone': lambda a: a.clone(), 'split': lambda a: paddle.split(a, 3, axis=1)[0], 'abs': lambda a: a.abs(),\n"
        "         'tanh': lambda a: paddle.tanh(a), 'softmax': lambda a: F.softmax(a), 'max': lambda a: a.max(),\n"
        "         'multiply_': lambda a: a.multiply_(paddle.full([2, 3], 2.0)), 'exp_': lambda a: a.exp_(),\n"
        "         'clip_': lambda a: a.clip_(0.0, 1.0), 'divide_': lambda a: a.divide_(paddle.full([2, 3], 2.0))}\n"
        "for k, make in cases.items():\n"
        "    print(k, attempt(make, lambda a, out: a.scale_(1.0)),\n"
        "          attempt(make, lambda a, out: out.scale_(1.0) if out is not a else None))"
    ),
    "backward_twice": "x = paddle.ones([2]); x.stop_gradient = False\ny = (x * x).sum()\ny.backward()\nprint(x.grad)\ny.backward()",
    "backward_twice_no_saved_tensors": (
        "x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\ny = x * 2\n"
        "y.backward(paddle.ones([2]))\ny.backward(paddle.ones([2]))"
    ),
    "backward_twice_shared_subgraph": (
        "x = paddle.to_tensor([-1., 2.]); x.stop_gradient = False\na = x * 2\na.sum().backward()\nprint(x.grad)\na.mean().backward()"
    ),
    "backward_retain_graph": (
        "x = paddle.ones([2]); x.stop_gradient = False\ny = (x * 3).sum()\ny.backward(retain_graph=True)\ny.backward()\nprint(x.grad)"
    ),
    "backward_non_scalar_and_stopped": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x * 2\ny.backward()\nprint(x.grad)\n"
        "z = paddle.ones([2]) * 2\nz.backward()\nprint(z.grad, y.grad)"
    ),
    "grad_accumulates": (
        "x = paddle.ones([2]); x.stop_gradient = False\n(x * 3).sum().backward(); g = x.grad\n"
        "print(g.inplace_version, g.stop_gradient, info(g))\n(x * 3).sum().backward()\n"
        "print(x.grad is g, x.grad._is_shared_buffer_with(g), x.grad.inplace_version, g.numpy())"
    ),
    "clear_grad_zero_fills": (
        "x = paddle.ones([2]); print(x.grad)\nx.stop_gradient = False\nx.clear_grad(); print(x.grad)\n"
        "(x * 3).sum().backward(); g = x.grad\nx.clear_grad()\nprint(x.grad, g.numpy(), x.grad.inplace_version)\n"
        "x.clear_gradient(); print(x.grad.numpy())"
    ),
    "stop_gradient_on_nonleaf": (
        "x = paddle.to_tensor([1., 2.]); x.stop_gradient = False\ny = x * 2\ny.stop_gradient = True\n"
        "print(info(y))\nz = (y * 3 + x).sum()\nprint(info(z))\nz.backward()\nprint(x.grad)\nprint(info(y * 3))"
    ),
    "seed_block_x_then_grad": (
        "x = paddle.to_tensor([[1., 2.], [3., 4.]]); x.stop_gradient = False\ny = (x * x).sum()\ny.backward()\nprint(x.grad)"
    ),
    # ------------------------------------------------------------------ numpy bridge and writes without versions
    "numpy_bridge_copies": (
        "a = np.ones(3, dtype='float32')\nt = paddle.to_tensor(a); a[0] = 5; print(t.numpy())\n"
        "f = paddle.from_numpy(a); a[1] = 7; print(f.numpy(), type(f) is paddle.Tensor)\n"
        "n = t.numpy(); n[2] = 9; print(t.numpy())\nprint(paddle.to_tensor(t)._is_shared_buffer_with(t))\n"
        "print(paddle.from_numpy(np.ones(2)).dtype, paddle.to_tensor(np.ones(2)).dtype)"
    ),
    "to_tensor_names": (
        "a = paddle.to_tensor([1.]); b = paddle.to_tensor(a); c = paddle.from_numpy(np.ones(1)); d = paddle.ones([1])\n"
        "print(a.name, b.name, c.name, d.name, (a * 2).name, d.name)\nprint(paddle.to_tensor([1.], stop_gradient=False).stop_gradient)"
    ),
    "copy_and_set_value_keep_version": (
        "x = paddle.ones([3]); x.stop_gradient = False\nr = x.copy_(paddle.zeros([3]))\n"
        "print(x.inplace_version, x.numpy(), info(x), r is x)\nprint(x.set_value(np.full(3, 4., dtype='float32')))\n"
        "print(x.inplace_version, x.numpy())\nx.set_value(paddle.full([3], 5.)); print(x.inplace_version, x.numpy())\n"
        "y = x * 1\ny.copy_(paddle.zeros([3])); print(info(y))"
    ),
    "initializers_keep_version": (
        "l = nn.Linear(2, 3); w = l.weight\nprint(info(w))\nnn.initializer.Constant(0.5)(w); print(w.inplace_version, w.numpy()[0])\n"
        "nn.initializer.Normal()(w); print(w.inplace_version)\nnn.initializer.XavierUniform()(w); print(w.inplace_version)\n"
        "nn.initializer.Uniform()(l.bias); print(l.bias.inplace_version)"
    ),
    "sgd_step_keeps_version": (
        "l = nn.Linear(2, 3); nn.initializer.Constant(0.5)(l.weight)\n"
        "opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=l.parameters())\n"
        "out = l(paddle.ones([4, 2])).sum(); out.backward()\nprint(l.weight.grad, l.weight.grad.inplace_version)\n"
        "opt.step(); print(l.weight, l.weight.inplace_version, l.bias.inplace_version)\nopt.clear_grad(); print(l.weight.grad)"
    ),
    "sgd_needs_parameters": "paddle.optimizer.SGD(learning_rate=0.1)",
    "returned_values": (
        "g = paddle.seed(0); print(g)\nprint(repr(paddle.set_device('cpu')))\n"
        "print(nn.initializer.Constant(0.5)(paddle.create_parameter([1], 'float32')))\n"
        "l = nn.Linear(1, 1); opt = paddle.optimizer.SGD(parameters=l.parameters())\nprint(opt.step(), opt.clear_grad(), opt.get_lr())\n"
        "x = paddle.ones([1]); x.stop_gradient = False\nprint(x.clear_grad(), x.backward(), x.grad)"
    ),
    # ------------------------------------------------------------------ layers
    "layers_print_and_names": (
        "l = nn.Linear(2, 3); print(l.weight.shape, l.bias.shape, l)\nprint(l.bias)\n"
        "print([p.name for p in l.parameters()], [n for n, _ in l.named_parameters()])\n"
        "print(info(l(paddle.ones([4, 2]))))\nprint(nn.ReLU(), nn.Sigmoid(), nn.Tanh())\n"
        "print(nn.Sequential(nn.Linear(2, 2), nn.ReLU()))\nprint(nn.Linear(3, 1, bias_attr=False).bias, paddle.create_parameter([1], 'float32').name)"
    ),
    "custom_layer": (
        "class MyNet(paddle.nn.Layer):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = self.create_parameter([2, 2])\n        self.b = self.create_parameter([2], is_bias=True)\n"
        "        self.fc = nn.Linear(2, 2)\n    def forward(self, x):\n        return self.fc(x @ self.w + self.b)\n"
        "n = MyNet(); print(n)\nprint([(k, p.name, p.stop_gradient) for k, p in n.named_parameters()])\nprint(n.b)\n"
        "print(n.full_name(), n.fc.full_name(), type(n.w).__name__, info(n.w))\nprint(info(n(paddle.ones([1, 2]))))"
    ),
    "article_inplace_block": (
        "class InplaceBlock(paddle.nn.Layer):\n    def __init__(self):\n        super(InplaceBlock, self).__init__()\n\n"
        "    def forward(self, x, inplace=True):\n        if inplace:\n            return F.relu_(x)\n        else:\n            return F.relu(x)\n"
        "block = InplaceBlock()\nprint(block)\nx = paddle.to_tensor([-1., 2.])\ny = block(x, inplace=True)\nprint(y is x, x, x.inplace_version)\n"
        "z = block(x, inplace=False)\nprint(z is x, z._is_shared_buffer_with(x))"
    ),
    # ------------------------------------------------------------------ devices (the CPU build)
    "cpu_build_devices": (
        "print(paddle.get_device(), paddle.is_compiled_with_cuda(), paddle.device.cuda.device_count())\n"
        "print(paddle.set_device('cpu'), paddle.to_tensor([1.]).place, paddle.CPUPlace())\n"
        "for spec in ['gpu', 'gpu:0', 'cuda', 'xyz']:\n    try:\n        paddle.set_device(spec)\n"
        "    except ValueError as e:\n        print(e)\n"
        "for api in ['max_memory_allocated', 'memory_allocated', 'reset_max_memory_allocated', 'memory_reserved']:\n"
        "    try:\n        getattr(paddle.device.cuda, api)()\n    except ValueError as e:\n        print(e)"
    ),
    "set_default_dtype": (
        "paddle.set_default_dtype('float64'); print(paddle.ones([1]).dtype, paddle.to_tensor([1.0]).dtype, paddle.get_default_dtype())\n"
        "paddle.set_default_dtype('float32')\npaddle.set_default_dtype('int32')"
    ),
}
