"""torch.autograd.gradcheck and gradgradcheck: finite differences against the analytical gradients.

The slow mode of torch's checker, step by step with the same arithmetic, so a passing check passes,
a failing one fails with torch's message (the two jacobians printed), and the random grad_outputs
gradgradcheck draws come from the same generator calls (the seeds stay in step with torch):

- every input that requires grad is perturbed element by element through `.data` (its own version
  counter, so the inputs' versions do not move): `entry.copy_(orig - eps)`, run, `copy_(orig + eps)`,
  run, restore; the column is `(b - a) / (2 * eps)`;
- the analytical jacobian is built row by row with `autograd.grad(output, inputs, e_j,
  retain_graph=True, allow_unused=True)`, twice, and the two must agree within `nondet_tol`
  ("Backward is not reentrant ...");
- then backward must be multiplied by grad_output (zeros in, zeros out) and must accept undefined
  output gradients.

Real dtypes only: complex inputs or outputs (which torch checks as real and imaginary parts) raise
NotImplementedError. fast_mode runs the slow check (same verdict, more work); check_forward_ad and
the batched checks are not available.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from typing import Any

FAILED_NONDET_MSG = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""


class GradcheckError(RuntimeError):
    """Error raised by gradcheck and gradgradcheck."""


def _is_tensor(x: Any) -> bool:
    from engine.tensor import Tensor

    return isinstance(x, Tensor)


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x: Any) -> tuple[Any, ...]:
    return tuple(o for o in _as_tuple(x) if o.requires_grad)


def _float_or_complex(t: Any) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _check_inputs(inputs: tuple[Any, ...]) -> None:
    from engine import dtypes

    any_requiring = False
    for idx, inp in enumerate(inputs):
        if _is_tensor(inp) and inp.requires_grad:
            if inp.dtype is not dtypes.float64 and not inp.dtype.is_complex:
                warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double precision "
                              "floating point or complex. ", UserWarning, stacklevel=4)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients correctly. "
                                   "You should call .contiguous on the input before passing it to gradcheck.")
            if inp.dtype.is_complex:
                raise NotImplementedError("gradcheck of complex inputs is not supported by the engine yet")
            any_requiring = True
    if not any_requiring:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _numerical_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...], outputs: tuple[Any, ...],
                         eps: float) -> list[list[Any]]:
    """[input][output] -> (input numel, output numel) jacobian by central differences."""
    from engine.autograd import grad_mode
    from engine.ops.indexing import stack

    result = []
    for inp in inputs:
        if not (_is_tensor(inp) and inp.requires_grad):
            continue
        x = inp.data
        columns: list[tuple[Any, ...]] = []
        for index in itertools.product(*[range(m) for m in x.size()]):
            entry = x[index]
            orig = entry.clone()
            entry.copy_(orig - eps)
            out_a = tuple(a.clone() for a in _as_tuple(func(*inputs)))
            entry.copy_(orig + eps)
            out_b = tuple(b.clone() for b in _as_tuple(func(*inputs)))
            entry.copy_(orig)
            columns.append(tuple(_difference(a, b, eps, index) for a, b in zip(out_a, out_b)))
        per_output = []
        for k, out in enumerate(outputs):
            if not _float_or_complex(out):
                continue
            with grad_mode.no_grad():
                if columns:
                    per_output.append(stack([col[k] for col in columns]))
                else:
                    per_output.append(out.new_zeros((x.numel(), out.numel())))
        result.append(per_output)
    return result


def _difference(a: Any, b: Any, eps: float, index: tuple[int, ...]) -> Any:
    if a.shape != b.shape:
        raise AssertionError(f"Expected `func` to return outputs with the same shape when inputs are perturbed on "
                             f"index {index} by {eps}, but got: shapes {a.shape} and {b.shape}.")
    if a.dtype != b.dtype:
        raise AssertionError(f"Expected `func` to return outputs with the same dtype when inputs are perturbed on "
                             f"index {index} by {eps}, but got: dtypes {a.dtype} and {b.dtype}.")
    return ((b - a) / (2 * eps)).detach().reshape(-1)


def _analytical_rows(output: Any, diff_inputs: list[Any]) -> list[list[Any]]:
    from engine.autograd.api import grad
    from engine.ops.factories import zeros_like

    base = zeros_like(output, memory_format="contiguous_format")
    flat = base.view(-1)
    rows: list[list[Any]] = [[] for _ in diff_inputs]
    for j in range(flat.numel()):
        flat.zero_()
        flat[j] = 1.0
        grads = grad(output, diff_inputs, base, retain_graph=True, allow_unused=True)
        for i, d_x in enumerate(grads):
            rows[i].append(d_x.clone() if d_x is not None else None)
    return rows


def _stack_rows(rows: list[list[Any]], diff_inputs: list[Any], numel_output: int) -> tuple[list[Any], bool]:
    sizes_ok = True
    jacobians = []
    for inp, inp_rows in zip(diff_inputs, rows):
        jac = inp.new_zeros((inp.numel(), numel_output))
        for j, row in enumerate(inp_rows):
            if row is None:
                continue
            if row.size() != inp.size():
                sizes_ok = False
                continue
            jac[:, j] = row.reshape(-1).to(jac.dtype)
        jacobians.append(jac)
    return jacobians, sizes_ok


def _analytical_jacobians(inputs: tuple[Any, ...], output: Any, nondet_tol: float) -> list[Any]:
    diff_inputs = [x for x in inputs if _is_tensor(x) and x.requires_grad]
    first, sizes_ok = _stack_rows(_analytical_rows(output.clone(), diff_inputs), diff_inputs, output.numel())
    second, _ = _stack_rows(_analytical_rows(output.clone(), diff_inputs), diff_inputs, output.numel())
    reentrant = all((a - b).abs().max().item() <= nondet_tol if a.numel() else True for a, b in zip(first, second))
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches numerical "
                             f"gradient.The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG)
    return first


def _allclose(a: Any, n: Any, rtol: float, atol: float) -> bool:
    from engine import allclose
    from engine.dtypes import promote_types

    dtype = promote_types(a.dtype, n.dtype)
    return bool(allclose(a.to(dtype), n.to(dtype), rtol, atol))


def _check_backward_mul_by_grad_output(outputs: tuple[Any, ...], inputs: tuple[Any, ...]) -> None:
    from engine.autograd.api import grad
    from engine.ops.factories import zeros_like

    diff_inputs = [x for x in inputs if _is_tensor(x) and x.requires_grad]
    grads = grad(outputs, diff_inputs, [zeros_like(o, memory_format="contiguous_format") for o in outputs],
                 allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        if not gi.eq(0).all():
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")


def _check_undefined_backward(func: Callable[..., Any], outputs: tuple[Any, ...], inputs: tuple[Any, ...]) -> None:
    """Every backward must accept undefined output gradients (and then give zeros or nothing)."""
    from engine.autograd.api import grad
    from engine.ops.factories import zeros_like

    diff_inputs = [x for x in inputs if _is_tensor(x) and x.requires_grad]

    def warn_bc_breaking() -> None:
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by "
                      "default, but it may break existing callers of this function. If this is true for you, you can "
                      'call this function with "check_undefined_grad=False" to disable the feature', stacklevel=2)

    def check(output_to_check: list[Any]) -> None:
        grads_output = [zeros_like(o, memory_format="contiguous_format") for o in output_to_check]
        try:
            grads_input = grad(output_to_check, diff_inputs, grads_output, allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError('Expected backward function to handle undefined output grads. Please look at "Notes '
                                 'about undefined output gradients" in "tools/autograd/derivatives.yaml"') from e
        for gi in grads_input:
            if gi is not None and not gi.eq(0).all():
                warn_bc_breaking()
                raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                     'undefined or zero. Please look at "Notes about undefined output gradients" in '
                                     '"tools/autograd/derivatives.yaml"')

    to_check = [[undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]]
    if len(to_check[0]) > 1:
        for undef in range(len(outputs)):
            fresh = _differentiable_outputs(func(*inputs))
            to_check.append([undefined_grad(o) if i == undef else o for i, o in enumerate(fresh)])
    for output in to_check:
        check(output)


def undefined_grad(tensor: Any) -> Any:
    """torch._C._functions.UndefinedGrad()(tensor): a copy whose backward passes an undefined gradient."""
    return _UndefinedGrad.apply(tensor)


def _make_undefined_grad() -> Any:
    from engine.autograd.function import Function

    class UndefinedGrad(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return None

    return UndefinedGrad


class _Lazy:
    def __init__(self) -> None:
        self.cls: Any = None

    def apply(self, tensor: Any) -> Any:
        if self.cls is None:
            self.cls = _make_undefined_grad()
        return self.cls.apply(tensor)


_UndefinedGrad = _Lazy()


def _gradcheck(func: Callable[..., Any], inputs: Any, eps: float, atol: float, rtol: float, nondet_tol: float,
               check_undefined_grad: bool, check_backward_ad: bool) -> bool:
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = _as_tuple(func(*tupled))
    outputs = _differentiable_outputs(func_out)
    if any(o.dtype.is_complex for o in func_out if _is_tensor(o)):
        raise NotImplementedError("gradcheck of complex outputs is not supported by the engine yet")
    numerical = _numerical_jacobians(func, tupled, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jac in per_input:
                if jac.ne(0).sum().item() > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    if not check_backward_ad:
        return True
    # numerical[input][output] for every float output; keep the outputs that require grad
    float_outputs = [o for o in func_out if _is_tensor(o) and _float_or_complex(o)]
    keep = [k for k, o in enumerate(float_outputs) if o.requires_grad]
    for i, out in enumerate(outputs):
        analytical = _analytical_jacobians(tupled, out, nondet_tol)
        for j, (a, per_input) in enumerate(zip(analytical, numerical)):
            n = per_input[keep[i]]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
                                     f"numerical:{n}\nanalytical:{a}\n")
    _check_backward_mul_by_grad_output(outputs, tupled)
    if check_undefined_grad:
        _check_undefined_backward(func, outputs, tupled)
    return True


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of `func` at `inputs` against finite differences (torch's slow mode)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_forward_ad or check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: forward-mode AD and the batched checks are not available in the engine")
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False,
                  check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """gradcheck of the function that computes `func`'s gradients with create_graph=True."""
    from engine import dtypes
    from engine.autograd.api import grad
    from engine.ops.factories import empty

    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    if gen_non_contig_grad_outputs:
        raise NotImplementedError("gradgradcheck: gen_non_contig_grad_outputs is not available in the engine")
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outputs = _differentiable_outputs(func(*tupled_inputs))
        # torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True): empty + uniform_
        tupled_grad_outputs = tuple(
            empty(x.shape, dtype=x.dtype if _float_or_complex(x) else dtypes.float64, device=x.device)
            .uniform_(-1, 1).requires_grad_()
            for x in outputs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_indices = {i for i, x in enumerate(tupled_inputs) if _is_tensor(x) and x.requires_grad}
    diff_grad_output_indices = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args: Any) -> tuple[Any, ...]:
        input_args = tuple(x.requires_grad_() if i in diff_input_indices else x
                           for i, x in enumerate(args[:-num_outputs]))
        outs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_grad_output_indices else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_indices)
        grad_inputs = grad(outs, diff_input_args, grad_outs, create_graph=True, allow_unused=True)
        return tuple(g for g in grad_inputs if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode, masked=masked)
