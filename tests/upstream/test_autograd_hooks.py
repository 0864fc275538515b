"""PyTorch's test/test_autograd.py, ported: hooks. Tensor hooks (`register_hook`, on leaves and
non-leaves, replacing the gradient, their order, removal), retain_grad and its interplay with hooks
and in-place ops, post-accumulate-grad hooks, Node hooks (`grad_fn.register_hook`,
`register_prehook`) and which of them run under backward, backward(inputs=) and autograd.grad.

Each case keeps the upstream test's code and runs in real torch 2.13 and in the engine; the
upstream assertions become values the snippet leaves behind (hook logs, counters, grads), which are
compared in full with everything else (values, grads, grad_fn names, versions, errors, warnings).
"""

import pytest

from tests.upstream.autograd_harness import outcomes
from tests.upstream.harness import cases

pytest.importorskip("torch")

XFAIL: dict[str, str] = {}

_MUL2 = """
    def _get_mul2(use_custom_function):
        if use_custom_function:
            class Mul2(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x * 2

                @staticmethod
                def backward(ctx, gO):
                    return gO * 2
            return Mul2.apply
        return lambda x: x * 2
"""

_DOUBLE_MUL = """
    from functools import partial
    class DoubleMul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    var_mean = partial(torch.var_mean, dim=0)
"""

CASES = cases(
    # ------------------------------------------------------------------ post-accumulate-grad hooks
    ("test_post_accumulate_grad_hook_on_non_leaf", """
    def hook(tensor):
        tensor.sub_(1.0)

    leaf = torch.rand(3, requires_grad=True)
    non_leaf = 2.0 * leaf
    r = _err(lambda: non_leaf.register_post_accumulate_grad_hook(hook))
    """),
    ("test_post_accumulate_grad_hook_multiple_hooks", """
    def hook1(tensor):
        tensor.sub_(tensor.grad)

    def hook2(tensor):
        tensor.mul_(4.0)

    tensor = torch.rand(3, requires_grad=True)
    tensor_ref = tensor.detach().clone()
    tensor.register_post_accumulate_grad_hook(hook1)
    tensor.register_post_accumulate_grad_hook(hook2)
    sum = tensor.sum()
    sum.backward()
    expected = 4.0 * (tensor_ref - 1.0)
    """),
    ("test_post_accumulate_grad_hook_multiple_tensors", """
    def hook(tensor):
        tensor.sub_(tensor.grad)

    tensor1 = torch.rand(3, requires_grad=True)
    tensor1_ref = tensor1.detach().clone()
    tensor2 = torch.rand(5, requires_grad=True)
    tensor2_ref = tensor2.detach().clone()
    tensor1.register_post_accumulate_grad_hook(hook)
    tensor2.register_post_accumulate_grad_hook(hook)
    tensor1.sum().backward()
    tensor2.sum().backward()
    """),
    ("test_post_accumulate_grad_hook_returns_not_None", """
    def bad_hook(tensor):
        return tensor.grad

    tensor = torch.rand(2, 3, requires_grad=True)
    tensor.register_post_accumulate_grad_hook(bad_hook)
    r = _err(lambda: tensor.sum().backward())
    """),
    ("test_post_accumulate_grad_hook_e2e", """
    def setup_optim_in_bwd(model):
        optims = {}
        handles = []

        def optim_step_hook(param):
            optims[param].step()
            optims[param].zero_grad()

        for p in model.parameters():
            optims[p] = torch.optim.Adam([p])
            handles.append(p.register_post_accumulate_grad_hook(optim_step_hook))
        return handles

    model = torch.nn.Linear(3, 2)
    input = torch.rand(2, 3)
    handles = setup_optim_in_bwd(model)
    model_copy = torch.nn.Linear(3, 2)  # upstream: deepcopy(model), which the engine refuses (no pickling)
    with torch.no_grad():
        model_copy.weight.copy_(model.weight)
        model_copy.bias.copy_(model.bias)
    optim_copy = torch.optim.Adam(model_copy.parameters())
    for _ in range(5):
        loss = model(input).sum()
        loss.backward()
        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()

    params_copy = [p.detach().clone() for p in model_copy.parameters()]
    after_hooks = [p.detach().clone() for p in model.parameters()]
    for h in handles:
        h.remove()
    for _ in range(5):
        loss = model(input).sum()
        loss.backward()
        loss_copy = model_copy(input).sum()
        loss_copy.backward()
        optim_copy.step()
        optim_copy.zero_grad()
    final = [p.detach().clone() for p in model.parameters()]
    final_copy = [p.detach().clone() for p in model_copy.parameters()]
    """),
    ("test_post_accumulate_grad_hook_gets_cleaned_up", """
    import gc, weakref
    def fun_stuff_with_hook():
        thing_to_put_in_hook = torch.rand(3)

        def hook(tensor):
            tensor.sub_(tensor.grad)
            tensor.add_(thing_to_put_in_hook)

        tensor = torch.rand(3, requires_grad=True)
        tensor.register_post_accumulate_grad_hook(hook)
        tensor.sum().backward()
        ref = weakref.ref(thing_to_put_in_hook)
        gc.collect()
        return tensor, ref

    tensor, ref = fun_stuff_with_hook()
    alive = ref() is not None
    del tensor
    gc.collect()
    alive_after = ref() is not None
    """),
    ("test_post_accumulate_grad_hook_ordering", """
    tensor = torch.rand(3, requires_grad=True)

    def pre_hook(grad):
        return grad.sub(2.0)

    def acc_grad_node_pre_hook(grad_out):
        return (grad_out[0].div(5.0),)

    def post_acc_grad_hook(tensor):
        tensor.grad.add_(0.5)

    def acc_grad_node_post_hook(grad_in, grad_out):
        tensor.grad = grad_out[0].mul(10)

    acc_grad = tensor.view_as(tensor).grad_fn.next_functions[0][0]
    tensor.register_hook(pre_hook)
    acc_grad.register_prehook(acc_grad_node_pre_hook)
    tensor.register_post_accumulate_grad_hook(post_acc_grad_hook)
    acc_grad.register_hook(acc_grad_node_post_hook)
    tensor.sum().backward()
    """),
    # ------------------------------------------------------------------ tensor hooks and node pre-hooks
    ("test_hook_with_no_name", """
    class MyHookClass:
        def __call__(self, grad):
            return grad.clone()

    x = torch.randn(5, requires_grad=True).clone()
    x.register_hook(MyHookClass())
    x.sum().backward()
    """),
    ("test_prehook_ordering", """
    log = []

    def hook1(g):
        log.append(1)
        return g * 3

    def hook2(gs):
        log.append(2)
        return tuple(g * 2 for g in gs)

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.grad_fn.register_prehook(hook2)
    b.register_hook(hook1)
    b.grad_fn.register_prehook(hook2)
    acc = b.grad_fn.next_functions[0][0]
    a.register_hook(hook1)
    acc.register_prehook(hook2)
    a.register_hook(hook1)

    b.sum().backward(retain_graph=True)
    log1 = log
    log = []
    g = torch.autograd.grad(b.sum(), inputs=(a,), retain_graph=True)
    log2 = log
    log = []
    b.sum().backward(inputs=(b,))
    log3 = log
    b_grad = b.grad.item()
    """),
    ("test_retains_grad_can_always_observe_tensor_prehook", """
    def tensor_prehook(g):
        return g * 2

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.register_hook(tensor_prehook)
    b.retain_grad()
    b.register_hook(tensor_prehook)
    b.clone().backward()
    first = b.grad.item()

    a = torch.tensor(1.0, requires_grad=True)
    b = a.clone()
    b.retain_grad()
    b.register_hook(tensor_prehook)
    b.clone().backward()
    second = b.grad.item()
    """),
    ("test_accumulate_grad_posthooks_can_observe_tensor_prehook", """
    a = torch.tensor(1.0, requires_grad=True)
    seen = []

    def tensor_prehook(g):
        return g * 2

    def posthook(gO, gI):
        seen.append(("post", torch.allclose(gI[0], a * 2), len(gO)))

    def prehook(gI):
        seen.append(("pre", torch.allclose(gI[0], a * 2), len(gI)))

    b = a.clone()
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    a.register_hook(tensor_prehook)
    b.backward()
    """),
    ("test_accumulate_grad_posthooks_should_not_execute", """
    def tensor_prehook(g):
        raise RuntimeError

    def posthook(gO, gI):
        raise RuntimeError

    a = torch.tensor(1.0, requires_grad=True)
    a.register_hook(tensor_prehook)
    b = torch.tensor(1.0, requires_grad=True)
    c = a.clone()
    acc = c.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    out = a + b + c
    out.sum().backward(inputs=[b])
    """),
    ("test_hook_edge_case_when_called_with_grad", """
    a = torch.tensor(1.0, requires_grad=True)
    b = a * 2
    c = b * 2
    counts = {"tensor": 0, "pre": 0, "post": 0}
    log = []

    def tensor_prehook(g):
        counts["tensor"] += 1

    def prehook(g):
        counts["pre"] += 1

    def posthook(gI, gO):
        counts["post"] += 1

    a.register_hook(tensor_prehook)
    b.register_hook(tensor_prehook)
    acc = b.grad_fn.next_functions[0][0]
    acc.register_hook(posthook)
    acc.register_prehook(prehook)
    b.grad_fn.register_hook(posthook)
    b.grad_fn.register_prehook(prehook)

    def run(fn):
        for k in counts:
            counts[k] = 0
        fn()
        log.append(sorted(counts.items()))

    run(lambda: torch.autograd.grad(c, inputs=(b), retain_graph=True))
    run(lambda: torch.autograd.grad(c, inputs=(a, b), retain_graph=True))
    run(lambda: c.backward(retain_graph=True))
    run(lambda: c.backward(inputs=(a, b), retain_graph=True))
    """),
    ("test_hooks", """
    x = torch.ones(5, 5, requires_grad=True)
    y = torch.ones(5, 5) * 4
    y.requires_grad_(True)
    counter = [0]
    counts = []

    def bw_hook(inc, grad):
        counts.append(type(grad).__name__)
        counter[0] += inc

    z = x**2 + x * 2 + x * y + y
    x.register_hook(lambda *args: bw_hook(0, *args))
    test = z.register_hook(lambda *args: bw_hook(1, *args))
    z.backward(torch.ones(5, 5), retain_graph=True)
    counts.append(counter[0])

    test2 = z.register_hook(lambda *args: bw_hook(2, *args))
    z.backward(torch.ones(5, 5), retain_graph=True)
    counts.append(counter[0])

    test2.remove()
    z.backward(torch.ones(5, 5), retain_graph=True)
    counts.append(counter[0])

    def bw_hook_modify(grad):
        return grad.mul(2)

    test.remove()
    z.register_hook(bw_hook_modify)
    with torch.no_grad():
        y.grad.zero_()
    z.backward(torch.ones(5, 5), retain_graph=True)
    y_grad_1 = y.grad.clone()

    y.register_hook(bw_hook_modify)
    with torch.no_grad():
        y.grad.zero_()
    z.backward(torch.ones(5, 5))
    """),
    ("test_grad_fn_prehooks", _MUL2 + """
    log = []
    for use_custom_function in (True, False):
        mul2 = _get_mul2(use_custom_function)
        a = torch.tensor([1.0], requires_grad=True)
        b = mul2(a)
        post_counter = [0]
        pre_counter = [0]

        def posthook(grad_input, grad_output):
            log.append((pre_counter[0], grad_output[0].tolist(), grad_input[0].tolist()))
            post_counter[0] += 1
            return grad_input

        def prehook(grad_output):
            pre_counter[0] += 1
            return (grad_output[0] * 2,)

        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_hook(posthook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: None)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(lambda x: x)
        b.grad_fn.register_prehook(lambda x: None)
        b.sum().backward()
        log.append((post_counter[0], pre_counter[0], a.grad.tolist()))

        a = torch.rand(3, 3, requires_grad=True)
        b = mul2(a)

        def prehook(grad_output):
            pre_counter[0] += 1
            return None

        b.grad_fn.register_prehook(prehook)
        b.sum().backward()
        log.append((pre_counter[0], a.grad.tolist()))
    """),
    ("test_grad_fn_prehooks_multiple_outputs", """
    b = torch.rand(3, 3, requires_grad=True)
    var, mean = torch.var_mean(b, dim=0)
    (var + mean).sum().backward()

    a = b.detach().requires_grad_()
    counter = [0]

    def prehook(grad_output):
        gvar, gmean = grad_output
        counter[0] += 1
        return (gvar * 2, gmean * 2)

    var, mean = torch.var_mean(a, dim=0)
    mean.grad_fn.register_prehook(prehook)
    (var + mean).sum().backward()
    close = torch.allclose(a.grad, b.grad * 2)

    class DoubleMul2(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, a, y):
            ctx.a = a
            return a * x * 2, a, a * y * 2

        @staticmethod
        def backward(ctx, g1, _a, g2):
            return ctx.a * g1 * 2, None, ctx.a * g2 * 2

    counter2 = [0]
    seen = []

    def prehook2(grad_output):
        g1, ga, g2 = grad_output
        seen.append(ga)
        counter2[0] += 1
        return (g1 * 2, None, g2 * 2)

    a2 = torch.randn(3, 3, requires_grad=True)
    b2 = torch.randn(3, 3, requires_grad=True)
    k = 3
    c, _, d = DoubleMul2.apply(a2, k, b2)
    c.grad_fn.register_prehook(prehook2)
    (c + d).sum().backward()
    """),
    ("test_grad_fn_prehooks_remove_hooks", _MUL2 + """
    log = []
    for use_custom_function in (True, False):
        mul2 = _get_mul2(use_custom_function)
        a = torch.rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook(grad_output):
            counter[0] += 1
            return None

        handle = b.grad_fn.register_prehook(prehook)
        b.grad_fn.register_prehook(prehook)
        handle.remove()
        b.sum().backward()
        log.append((a.grad.tolist(), counter[0]))

        a = torch.rand(3, 3, requires_grad=True)
        b = mul2(a)
        counter = [0]

        def prehook1(grad_output):
            handle2.remove()
            handle3.remove()
            return None

        def prehook2(grad_output):
            counter[0] += 1
            return None

        b.grad_fn.register_prehook(prehook1)
        handle2 = b.grad_fn.register_prehook(prehook2)
        handle3 = b.grad_fn.register_prehook(prehook2)
        handle3.remove()
        b.sum().backward()
        log.append((a.grad.tolist(), counter[0]))
    """),
    ("test_hooks_cpp", """
    bn = torch.nn.BatchNorm1d(5, affine=False)
    bn.double()
    bn.eval()
    counter = [0]

    def bw_hook(grad):
        counter[0] += 1
        return grad * 2

    x = torch.ones(5, 5, dtype=torch.double, requires_grad=True)
    z = bn(x)
    z.register_hook(bw_hook)
    z.sum().backward()
    """),
    # ------------------------------------------------------------------ retain_grad with hooks and in-place ops
    ("test_retain_grad_inplace: in-place over a view moves the hook to CopySlices", """
    x = torch.tensor([1.0], requires_grad=True).clone()
    x.retain_grad()
    x_view = x[:]
    x_view *= 2
    x *= 2
    x.sum().backward()
    x_fn = x.grad_fn.name()
    x0 = torch.zeros(4)
    y0 = x0.view(2, 2)
    y0.add_(torch.randn(2, 2, requires_grad=True))
    """),
    ("test_retains_grad_inplace_multiple_outputs", _DOUBLE_MUL + """
    res = []
    for fn in (DoubleMul.apply, var_mean):
        b = torch.rand(3, 3, requires_grad=True)
        var, mean = fn(b)
        var.retain_grad()
        mean.retain_grad()
        var.mul_(2)
        (var + mean).sum().backward()
        gvar = var.grad
        gmean = mean.grad

        a = b.detach().requires_grad_(True)
        var, mean = fn(a)
        var.mul_(2)
        out = (var + mean).sum()
        gvar_expected, gmean_expected = torch.autograd.grad(out, inputs=(var, mean))
        res.append((gvar, gmean, gvar_expected, gmean_expected))
    """),
    ("test_retain_grad_inplace_over_view", """
    base = torch.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.retain_grad()
    view2.retain_grad()
    view.mul_(2)
    (view + view2).sum().backward()
    """),
    ("test_tensor_hooks_inplace", """
    count1 = [0]
    count2 = [0]
    seen = []

    def fn1(grad):
        count1[0] += 1
        seen.append(("fn1", grad.tolist()))
        return grad * 2

    def fn2(grad):
        count2[0] += 1
        seen.append(("fn2", grad.tolist()))
        return grad * 2

    a = torch.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn1)
    b.mul_(2)
    b.register_hook(fn2)
    b.sum().backward()
    first = a.grad.clone()

    count3 = [0]

    def fn3(grad):
        count3[0] += 1
        seen.append(("fn3", grad.tolist()))
        return grad * 2

    a = torch.tensor([1.0], requires_grad=True)
    b = a.clone()
    b.register_hook(fn3)
    b.mul_(2)
    b.mul_(2)
    b.sum().backward()
    """),
    ("test_tensor_hooks_inplace_multiple_outputs", _DOUBLE_MUL + """
    res = []
    for fn in (DoubleMul.apply, var_mean):
        counts = [0, 0, 0]
        seen = []

        def fn0(grad):
            counts[0] += 1
            seen.append(torch.equal(grad, torch.ones_like(out1) * 2))

        def fn1(grad):
            counts[1] += 1
            seen.append(torch.equal(grad, torch.ones_like(out1) * 3))

        def fn2(grad):
            counts[2] += 1
            seen.append(torch.equal(grad, torch.ones_like(out1)))

        b = torch.rand(3, 3, requires_grad=True)
        out1, out2 = fn(b)
        h1 = out1.register_hook(fn0)
        h2 = out2.register_hook(fn1)
        out1.mul_(2)
        h3 = out1.register_hook(fn2)
        (out1 + out2 * 3).sum().backward()
        res.append((list(counts), seen))
        h1.remove()
        h2.remove()
        h3.remove()
    """),
    ("test_tensor_hooks_inplace_over_view", """
    count = [0]
    log = []

    def fn0(grad):
        log.append("fn0 must not run")

    def fn1(grad):
        log.append("fn1 must not run")

    def fn2(grad):
        count[0] += 1
        log.append(grad.tolist())

    base = torch.tensor([1.0], requires_grad=True).clone()
    view = base[:]
    view2 = base[:]
    view.register_hook(fn0)
    view2.register_hook(fn1)
    view.mul_(2)
    view2.grad_fn
    view2.register_hook(fn2)
    (view + view2).sum().backward()
    """),
    ("test_retain_grad_cycle", """
    import weakref
    x = torch.ones(5, 5, requires_grad=True)

    def run_test():
        y = x * 2
        y.retain_grad()
        return y / 2, weakref.ref(y)

    z, ref = run_test()
    expired = ref() is None
    z.sum().backward()
    """),
    # ------------------------------------------------------------------ hooks under autograd.grad
    ("test_grad_nonleaf_many_outputs", """
    x = torch.randn(4, 2, requires_grad=True)
    a, b = x.chunk(2)
    hook_called = [False]

    def hook(*grads):
        hook_called[0] = True

    x.register_hook(hook)
    go = torch.randn(2, 2)
    grad_a, grad_b = torch.autograd.grad((a + 2 * b), [a, b], grad_outputs=go, create_graph=True)
    """),
    ("test_grad_nonleaf_register_hook", """
    x = torch.randn(5, requires_grad=True)
    x_list = x.unbind()
    x0 = x_list[0]
    hook_results = [None]
    log = []

    def hook(grad):
        hook_results[0] = grad

    x0.register_hook(hook)
    x_list[0].backward()
    log.append((hook_results[0], x.grad.clone(), x_list[0].grad))
    for i in range(1, 5, 1):
        x_list[i].backward()
        log.append((hook_results[0], x.grad.clone(), x_list[i].grad))
    """),
    xfail=XFAIL,
)


@pytest.mark.parametrize(("code", "flag"), CASES)
def test_same_as_torch(code, flag):
    expected, got = outcomes(code, flag)
    assert got == expected
