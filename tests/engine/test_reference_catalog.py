"""The engine against the facts measured in real PyTorch 2.13 (tests/data/torch-ops.json).

Runs without torch: every expectation comes from the JSON, which `gen_reference.py` (shared
reference folder) measured by running the code shown in each entry. Each test below rebuilds the
setup that script used for its section and measures the engine the same way, so the two can be
compared field by field:

- errors, version_counter, misc: the entry's code in a fresh namespace; then the exception, the
  warnings, and the repr of the last expression / of `expr`;
- view_inplace: the code after `leaf = arange(1., 7.).reshape(2, 3).requires_grad_()` and
  `w = tensor([10., 20., 30.], requires_grad=True)`, then `(b * [[1, 2, 3], [4, 5, 6]]).sum()
  .backward()`;
- producer_names: `y = <producer>`, `z = y * y`, `y.mul_(1)` under no_grad, backward of z;
- ops / inplace_ops: float32 leaves requiring grad made after `manual_seed(0)`, the op applied to
  `leaf.clone()` of each (constants are built from the code in the entry);
- printing: repr() and print() of each example.
"""

import json
import re
from pathlib import Path

import pytest

import engine as torch
import engine.nn as nn
import engine.nn.functional as F
from tests.oracle import clean_warning, run_snippet

REF = json.loads((Path(__file__).resolve().parents[1] / "data" / "torch-ops.json").read_text())

# ----------------------------------------------------------------------------------------------
# THE list of expected failures, which is also the engine's to-do list: reference cases that need
# a feature outside the engine's current scope. Keyed by test section, then case name; the value
# is the reason. Everything not listed here is a hard expectation.
# ----------------------------------------------------------------------------------------------
CUSTOM_FN = "custom torch.autograd.Function is not in the engine's scope yet"
HOOKS = "torch.autograd.graph.saved_tensors_hooks is not in the engine's scope yet"
OPTIM = "torch.optim is not in the engine's scope yet"
TORCH_C = "torch._C private bindings are not part of the engine's API"

XFAIL = {
    "errors": {
    },
    "version_counter": {
    },
    "misc": {},
    "producer_names": {
    },
    # a whole op: every test of it (forward, graph, breaks, out=, in-place variant)
    "ops": {},
    "op_inplace_variant": {
        "gelu": TORCH_C + " (the in-place gelu is torch._C._nn.gelu_)",
    },
    "op_out_kwarg": {
        "leaky_relu: torch._C._nn.leaky_relu(x, 0.1, out=out)": TORCH_C,
    },
    "view_inplace": {},
    "inplace_ops": {},
    "printing": {},
    # snippets of test_differential.py (by test id), checked there against its snippet list
    "differential": {
    },
}


def params(section, entries, key, op_key=None):
    """pytest params with readable ids; xfail marks come from XFAIL only."""
    out = []
    for e in entries:
        name = e[key]
        reason = XFAIL[section].get(name)
        if reason is None and op_key is not None:
            reason = XFAIL["ops"].get(e[op_key])
        marks = [pytest.mark.xfail(strict=False, reason=reason)] if reason else []
        out.append(pytest.param(e, id=name, marks=marks))
    return out


def test_xfail_list_names_existing_cases():
    """A stale entry in the to-do list would hide nothing and mislead: every name must exist."""
    names = {
        "errors": {e["case"] for e in REF["errors"]},
        "version_counter": {e["case"] for e in REF["version_counter"]},
        "misc": {e["case"] for e in REF["misc"]},
        "view_inplace": {e["case"] for e in REF["view_inplace"]},
        "producer_names": {e["producer"] for e in REF["producer_names"]},
        "ops": {e["op"] for e in REF["ops"]},
        "op_inplace_variant": {e["op"] for e in REF["ops"] if e.get("inplace_variant")},
        "op_out_kwarg": {o["id"] for o in OUT_KWARG_CASES},
        "inplace_ops": {e["op"] for e in REF["inplace_ops"]},
        "printing": {e["case"] for e in REF["printing"]["examples"]},
    }
    assert set(XFAIL) == set(names) | {"differential"}
    for section, cases in names.items():
        assert set(XFAIL[section]) <= cases, section


# ----------------------------------------------------------------------------------------------
# measuring helpers (the engine-side twins of gen_reference.py's)
# ----------------------------------------------------------------------------------------------

VERSION_RE = re.compile(r"^one of the variables needed for gradient computation has been modified "
                        r"by an inplace operation: (?P<core>.*?)\. Hint: (?P<hint>.*)$", re.S)


def capture(fn):
    """Run fn(); return (value, error dict or None, warnings as {category, message} dicts)."""
    import warnings

    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        try:
            value, err = fn(), None
        except Exception as e:  # every exception is a measured fact
            value, err = None, {"type": type(e).__name__, "message": str(e)}
    return value, err, [{"category": w.category.__name__, "message": str(w.message)} for w in wl]


def version_core(err):
    if not err:
        return None
    m = VERSION_RE.match(err["message"])
    return m.group("core") if m else None


def run_code(code, ns):
    """Run code like a REPL; return the value of the last statement if it is an expression."""
    import ast

    tree = ast.parse(code, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, "<ref>", "exec"), ns)
    return eval(compile(last, "<ref>", "eval"), ns) if last is not None else None


def ns_for(ins, extra=None):
    ns = {"torch": torch, "F": F, "nn": nn}
    ns.update(ins)
    if extra:
        ns.update(extra)
    return ns


def as_list(r):
    if is_tensor(r):
        return [r]
    if isinstance(r, (tuple, list)):
        return [t for t in r if is_tensor(t)]
    return []


def is_tensor(v):
    return isinstance(v, torch.Tensor)


def gname(fn):
    return None if fn is None else type(fn).__name__


def dt(t):
    return str(t.dtype).replace("torch.", "")


def sptr(t):
    return t.untyped_storage().data_ptr()


def out_label(j, n):
    return "out" if n == 1 else f"out[{j}]"


def short_repr(v):
    if is_tensor(v):
        return f"tensor {dt(v)}{list(v.shape)}"
    if isinstance(v, (list, tuple)) and any(is_tensor(e) for e in v):
        return "[" + ", ".join(short_repr(e) for e in v) + "]"
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


def bump(t):
    """A value-preserving in-place op on t (bumps its version by one)."""
    if t.dtype == torch.bool:
        return t.copy_(t.clone())
    return t.mul_(1)


def reduce_outs(outs):
    total = None
    for o in outs:
        if o.requires_grad and o.is_floating_point():
            s = o.sum()
            total = s if total is None else total + s
    return total


# Inputs gen_reference.py made positive (rand + 0.5) because the op needs it (log, sqrt, pow ...).
POSITIVE = {("div", "y"), ("pow(tensor)", "x"), ("log", "x"), ("sqrt", "x"), ("2 / x", "x"),
            ("x ** 0.5", "x"), ("x ** y", "x"), ("div_", "y")}
INPUT_RE = re.compile(r"^float32\[(?P<shape>[^\]]*)\] requires_grad leaf; op sees leaf\.clone\(\)"
                      r"(?: \(strides \[(?P<strides>[^\]]*)\]\))?$")


def input_makers(op_name, inputs):
    """[(name, kind, make)] from an entry's `inputs`: "R" = a float32 leaf that will require
    grad (the op sees its clone), "C" = a constant built from the code in the entry."""
    makers = []
    for name, desc in inputs.items():
        m = INPUT_RE.match(desc)
        if m is None:
            makers.append((name, "C", lambda code=desc: eval(code, {"torch": torch})))
            continue
        shape = tuple(int(s) for s in m["shape"].split(",") if s.strip())
        if m["strides"]:  # non-contiguous leaf: randn(reversed shape).t()
            makers.append((name, "R", lambda s=shape: torch.randn(*reversed(s)).t()))
        elif (op_name, name) in POSITIVE:
            makers.append((name, "R", lambda s=shape: torch.rand(s) + 0.5))
        else:
            makers.append((name, "R", lambda s=shape: torch.randn(s)))
    return makers


def fresh(entry, x_is_leaf=False):
    """Inputs as gen_reference made them: manual_seed(0); float inputs are leaves requiring grad
    and the op sees leaf.clone() (with x_is_leaf, the first input is the leaf itself)."""
    torch.manual_seed(0)
    leaves, ins = {}, {}
    for i, (name, kind, make) in enumerate(input_makers(entry["op"], entry["inputs"])):
        t = make()
        if kind == "R":
            leaf = t.requires_grad_()
            leaves[name] = leaf
            ins[name] = leaf if (x_is_leaf and i == 0) else leaf.clone()
        else:
            ins[name] = t
    return leaves, ins


def err_or_ok(err):
    return err or "ok"


# ----------------------------------------------------------------------------------------------
# errors, version counter, misc
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", params("errors", REF["errors"], "case"))
def test_error_catalog(case):
    out = run_snippet(case["code"], torch, nn, F)
    expected_error = case["error"] and (case["error"]["type"], case["error"]["message"])
    assert out.error == expected_error
    assert out.warnings == [clean_warning(w["category"], w["message"]) for w in case["warnings"]]
    got_value = None if out.value is None else repr(out.value)
    assert got_value == case.get("value")


def attempt(fn):
    """Run fn(); swallow and return the exception (used by the version-counter examples)."""
    try:
        return fn()
    except Exception as e:
        return e


def check_expr_result(case):
    out = run_snippet(case["code"], torch, nn, F, extra={"attempt": attempt})
    if "error" in case:
        assert out.error == (case["error"]["type"], case["error"]["message"])
        return
    assert out.error is None
    value, err, _ = capture(lambda: eval(case["expr"], out.namespace))
    got = repr(value) if err is None else err
    assert got == case["result"], case["expr"]


@pytest.mark.parametrize("case", params("version_counter", REF["version_counter"], "case"))
def test_version_counter(case):
    check_expr_result(case)


@pytest.mark.parametrize("case", params("misc", REF["misc"], "case"))
def test_misc_fact(case):
    check_expr_result(case)


# ----------------------------------------------------------------------------------------------
# in-place on views, producer names
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", params("view_inplace", REF["view_inplace"], "case"))
def test_view_inplace(case):
    leaf = torch.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    w = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
    out = run_snippet(case["code"], torch, nn, F, extra={"leaf": leaf, "w": w})
    assert out.error is None
    b, v = out.namespace["b"], out.namespace["v"]
    got = {
        "base_grad_fn": gname(b.grad_fn),
        "view_grad_fn": gname(v.grad_fn),
        "view_is_view": v._is_view(),
        "versions": {"b": b._version, "v": v._version},
        "b": b.detach().tolist(),
    }
    if b.requires_grad:
        loss = (b * torch.arange(1.0, 7.0).reshape(2, 3)).sum()
        _, berr, _ = capture(lambda: loss.backward())
        got["backward_of_(b*[[1,2,3],[4,5,6]]).sum()"] = err_or_ok(berr)
        got["leaf.grad"] = None if leaf.grad is None else leaf.grad.tolist()
        got["w.grad"] = None if w.grad is None else w.grad.tolist()
    expected = {k: v for k, v in case.items() if k not in ("case", "code")}
    assert got == expected


MYFN = """
class MyFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2
"""


@pytest.mark.parametrize("case", params("producer_names", REF["producer_names"], "producer"))
def test_version_error_names_the_producer(case):
    ns = {"torch": torch, "F": F}
    if "MyFn" in case["producer"]:
        exec(MYFN, ns)
    ns["x"] = torch.randn(2, 3, requires_grad=True)
    y = eval(case["producer"], ns)
    z = y * y
    got = {"grad_fn_type": gname(y.grad_fn), "grad_fn_name()": y.grad_fn.name(),
           "output_nr": y.output_nr}
    with torch.no_grad():
        y.mul_(1)
    _, err, _ = capture(lambda: z.sum().backward())
    got["core"] = version_core(err)
    assert got == {k: case[k] for k in got}


# ----------------------------------------------------------------------------------------------
# ops
# ----------------------------------------------------------------------------------------------

OPS = REF["ops"]


def output_facts(entry, outs, ins):
    names = list(ins)
    facts = []
    for o in outs:
        base = o._base
        base_lab = None
        if base is not None:
            base_lab = next((n for n in names if base is ins[n]), "other:" + short_repr(base))
        facts.append({
            "shape": list(o.shape), "stride": list(o.stride()), "storage_offset": o.storage_offset(),
            "dtype": dt(o), "requires_grad": o.requires_grad, "grad_fn": gname(o.grad_fn),
            "is_view": o._is_view(), "base": base_lab,
            "same_object_as": next((n for n in names if o is ins[n]), None),
            "shares_storage_with": [n for n in names
                                    if o.numel() and ins[n].numel() and sptr(ins[n]) == sptr(o)],
            "is_contiguous": o.is_contiguous(), "version": o._version,
        })
    # does each storage-sharing output see a version bump of the input it shares with?
    for j, info in enumerate(facts):
        if not info["shares_storage_with"]:
            info["shares_version_counter"] = None
            continue
        _, ins2 = fresh(entry)
        outs2 = as_list(run_code(entry["call"], ns_for(ins2)))
        v0 = outs2[j]._version
        with torch.no_grad():
            bump(ins2[info["shares_storage_with"][0]])
        info["shares_version_counter"] = outs2[j]._version != v0
    return facts


@pytest.mark.parametrize("entry", params("ops", OPS, "op"))
def test_op_forward(entry):
    """grad_fn name, output shape/stride/offset/dtype/view-ness/version, input versions after the
    op, warnings, and that backward of the summed outputs runs."""
    _, ins = fresh(entry)
    r, err, warns = capture(lambda: run_code(entry["call"], ns_for(ins)))
    assert err is None
    outs = as_list(r)
    got = {
        "grad_fn": gname(outs[0].grad_fn) if outs else None,
        "outputs": output_facts(entry, outs, ins),
        "input_versions_after": {n: t._version for n, t in ins.items()},
        "input_strides": {n: list(t.stride()) for n, t in ins.items()},
        "warnings": warns,
    }
    loss = reduce_outs(outs)
    if loss is None:
        got["backward"] = "no differentiable output"
    else:
        _, berr, _ = capture(lambda: loss.backward())
        got["backward"] = err_or_ok(berr)
    assert got == {k: entry[k] for k in got}


def graph_nodes(outs, stop):
    """Node type names reachable from the outputs' grad_fns (breadth first), stopping at the
    inputs' own grad_fns (the CloneBackward0 of each non-leaf input)."""
    order, seen = [], set()
    queue = [o.grad_fn for o in outs if o.grad_fn is not None]
    while queue:
        n = queue.pop(0)
        if n is None or id(n) in seen or any(n is s for s in stop):
            continue
        seen.add(id(n))
        order.append(gname(n))
        queue.extend(f for f, _ in n.next_functions)
    return order


@pytest.mark.parametrize("entry", params("ops", OPS, "op"))
def test_op_graph(entry):
    """The nodes a call records (composite ops record several, e.g. matmul(3D,2D))."""
    _, ins = fresh(entry)
    stop = [t.grad_fn for t in ins.values() if t.grad_fn is not None]
    outs = as_list(run_code(entry["call"], ns_for(ins)))
    assert graph_nodes(outs, stop) == entry["graph"]


BREAK_CASES = [
    pytest.param(entry, b, id=f"{entry['op']}: modify {b['target']}",
                 marks=[pytest.mark.xfail(strict=False, reason=XFAIL["ops"][entry["op"]])]
                 if entry["op"] in XFAIL["ops"] else [])
    for entry in OPS for b in entry.get("breaks", [])
]


@pytest.mark.parametrize(("entry", "expected"), BREAK_CASES)
def test_op_breaks(entry, expected):
    """Modify one input / output in place after the op (t.mul_(1)), then backward of the summed
    outputs: ok, or the version error naming the right producer and versions."""
    names = list(entry["inputs"])
    _, ins = fresh(entry)
    outs = as_list(run_code(entry["call"], ns_for(ins)))
    target = expected["target"]
    if target in names:
        t = ins[target]
    else:
        t = outs[int(target[4:-1])] if target.startswith("out[") else outs[0]
    before = t._version
    _, merr, _ = capture(lambda: bump(t))
    got = {"target": target}
    if merr:
        got["inplace_error"] = merr
    else:
        got["version"] = [before, t._version]
        loss, uerr, _ = capture(lambda: reduce_outs(outs))
        if uerr:
            got["use_error"] = uerr
        elif loss is None:
            got["backward"] = "no differentiable output"
        else:
            _, berr, _ = capture(lambda: loss.backward())
            got["backward"] = err_or_ok(berr)
            got["version_error_core"] = version_core(berr)
    assert got == expected


# PyTorch's C++ argument parser answers a bad keyword with a dump of every overload it knows
# ("sum() received an invalid combination of arguments - got (...), but expected one of: ...");
# for those only the exception type is part of the contract. Every other message is exact.
ARG_PARSER_DUMP = "received an invalid combination of arguments"


def same_error(expected, got):
    if isinstance(expected, dict) and ARG_PARSER_DUMP in expected["message"]:
        return isinstance(got, dict) and got["type"] == expected["type"]
    return got == expected


OUT_KWARG_CASES = [dict(o, op=e["op"], entry=e, id=f"{e['op']}: {o['call']}")
                   for e in OPS for o in e.get("out_kwarg", [])]


@pytest.mark.parametrize("case", params("op_out_kwarg", OUT_KWARG_CASES, "id", op_key="op"))
def test_op_out_kwarg(case):
    """`out=` with inputs that need no grad (works and bumps out, or TypeError), and with inputs
    that require grad (the "don't support automatic differentiation" error)."""
    entry = case["entry"]
    _, ins = fresh(entry)
    det = {n: t.detach().clone() if t.requires_grad else t for n, t in ins.items()}
    ref = run_code(entry["call"], ns_for(det))

    def empty_out():
        if is_tensor(ref):
            return torch.empty_like(ref)
        return tuple(torch.empty_like(t) for t in as_list(ref))

    o = empty_out()
    r, err, _ = capture(lambda: run_code(case["call"], ns_for(det, {"out": o})))
    assert same_error(case["no_grad_inputs"], err_or_ok(err))
    if not err:
        if is_tensor(o):
            assert r is o, "returns out"
        else:
            assert all(a is b for a, b in zip(as_list(r), o, strict=True)), "returns out"
        assert [t._version for t in as_list(o)] == case["out_version_after"]
    _, ins = fresh(entry)
    o2 = empty_out()
    _, err2, _ = capture(lambda: run_code(case["call"], ns_for(ins, {"out": o2})))
    assert same_error(case["grad_inputs"], err_or_ok(err2))
    if not err2:
        state = [{"requires_grad": t.requires_grad, "grad_fn": gname(t.grad_fn), "is_leaf": t.is_leaf}
                 for t in as_list(o2)]
        assert state == case["grad_inputs_out_state"]


def inplace_facts(entry, expr):
    """The in-place form on a non-leaf x (grad_fn after, returns self, version delta, modifying x
    again then backward) and on a leaf requiring grad (error, version delta)."""
    first = next(iter(entry["inputs"]))
    _, ins = fresh(entry)
    x = ins[first]
    v0 = x._version
    ns = ns_for(ins)
    r, err, _ = capture(lambda: run_code(expr, ns))
    got = {}
    if err:
        got["nonleaf"] = {"error": err}
    else:
        got["nonleaf"] = {
            "grad_fn_after": gname(x.grad_fn),
            "returns_self": (r is x) if r is not None else None,
            "rebinds_same_object": ns[first] is x,
            "version_delta": x._version - v0,
            "is_view_after": x._is_view(),
        }
        _, ins = fresh(entry)
        run_code(expr, ns_for(ins))
        x = ins[first]
        _, merr, _ = capture(lambda: bump(x))
        if merr:
            got["nonleaf"]["modify_again"] = {"inplace_error": merr}
        else:
            _, berr, _ = capture(lambda: x.sum().backward())
            got["nonleaf"]["modify_again"] = {"backward": err_or_ok(berr),
                                              "version_error_core": version_core(berr)}
    _, ins = fresh(entry, x_is_leaf=True)
    v0 = ins[first]._version
    _, lerr, _ = capture(lambda: run_code(expr, ns_for(ins)))
    got["leaf"] = err_or_ok(lerr)
    got["leaf_version_delta"] = ins[first]._version - v0
    return got


NONLEAF_KEYS = ("error", "grad_fn_after", "returns_self", "rebinds_same_object", "version_delta",
                "is_view_after", "modify_again")


def expected_inplace(ref):
    return {
        "nonleaf": {k: v for k, v in ref["nonleaf"].items() if k in NONLEAF_KEYS},
        "leaf": ref["leaf"],
        "leaf_version_delta": ref["leaf_version_delta"],
    }


@pytest.mark.parametrize("entry", params("op_inplace_variant",
                                         [e for e in OPS if e.get("inplace_variant")], "op",
                                         op_key="op"))
def test_op_inplace_variant(entry):
    ip = entry["inplace_variant"]
    assert inplace_facts(entry, ip["call"]) == expected_inplace(ip)


# ----------------------------------------------------------------------------------------------
# in-place ops catalog
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", params("inplace_ops", REF["inplace_ops"], "op"))
def test_inplace_op(entry):
    """One in-place op: on a non-leaf, on a leaf (error), other inputs modified afterwards, on a
    view of a leaf (error), on a view of a non-leaf (AsStridedBackward0 / CopySlices), on a leaf
    under no_grad, and on a plain tensor with an operand that requires grad."""
    expr = entry["call"]
    got = inplace_facts(entry, expr)
    expected = expected_inplace(entry)

    others = []
    for n in list(entry["inputs"])[1:]:
        _, ins = fresh(entry)
        run_code(expr, ns_for(ins))
        x = ins["x"]
        _, merr, _ = capture(lambda n=n, ins=ins: bump(ins[n]))
        if merr:
            others.append({"target": n, "inplace_error": merr})
            continue
        _, berr, _ = capture(lambda x=x: x.sum().backward())
        others.append({"target": n, "backward": err_or_ok(berr), "version_error_core": version_core(berr)})
    got["modify_other_input"] = others

    _, ins = fresh(entry, x_is_leaf=True)
    ins["x"] = ins["x"].view(ins["x"].shape)
    _, verr, _ = capture(lambda: run_code(expr, ns_for(ins)))
    got["view_of_leaf"] = err_or_ok(verr)

    _, ins = fresh(entry)
    base = ins["x"]
    v = base.view(base.shape)
    ins["x"] = v
    vv0 = base._version
    _, verr2, _ = capture(lambda: run_code(expr, ns_for(ins)))
    got["view_of_nonleaf"] = {"error": verr2} if verr2 else {
        "view_grad_fn_after": gname(v.grad_fn),
        "base_grad_fn_after": gname(base.grad_fn),
        "base_version_delta": base._version - vv0,
    }

    _, ins = fresh(entry, x_is_leaf=True)
    leaf = ins["x"]
    lv0 = leaf._version

    def under_no_grad():
        with torch.no_grad():
            run_code(expr, ns_for(ins))

    _, nerr, _ = capture(under_no_grad)
    got["leaf_under_no_grad"] = {"error": nerr} if nerr else {
        "version_delta": leaf._version - lv0, "grad_fn": gname(leaf.grad_fn),
        "is_leaf": leaf.is_leaf, "requires_grad": leaf.requires_grad}

    if "no_grad_x_with_grad_operand" in entry:
        _, ins = fresh(entry)
        plain = ins["x"].detach().clone()
        ins["x"] = plain
        _, perr, _ = capture(lambda: run_code(expr, ns_for(ins)))
        got["no_grad_x_with_grad_operand"] = {"error": perr} if perr else {
            "grad_fn": gname(plain.grad_fn), "is_leaf": plain.is_leaf,
            "requires_grad": plain.requires_grad}

    for k in ("modify_other_input", "view_of_leaf", "view_of_nonleaf", "leaf_under_no_grad",
              "no_grad_x_with_grad_operand"):
        if k in entry:
            expected[k] = entry[k]
    assert got == expected


# ----------------------------------------------------------------------------------------------
# printing
# ----------------------------------------------------------------------------------------------


def nograd_view_modified():
    """y = leaf.clone(); with torch.no_grad(): v = y[0]; v.add_(1); return v"""
    y = torch.ones(2, 3, requires_grad=True).clone()
    with torch.no_grad():
        v = y[0]
        v.add_(1)
    return v


@pytest.mark.parametrize("example", params("printing", REF["printing"]["examples"], "case"))
def test_printing(example):
    if example["code"] == "(x * 2).grad_fn":  # an object repr: the address varies
        value = (torch.ones(2, requires_grad=True) * 2).grad_fn
        got_repr = re.sub(r"0x[0-9a-f]+", "0x...", repr(value))
        got_print = re.sub(r"0x[0-9a-f]+", "0x...", str(value))
    else:
        ns = {"torch": torch, "nn": nn, "F": F, "nograd_view_modified": nograd_view_modified}
        value = eval(example["code"], ns)
        got_repr, got_print = repr(value), str(value)
    assert got_print == example["print"]
    assert got_repr == example["repr"]
