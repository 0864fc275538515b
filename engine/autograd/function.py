"""torch.autograd.Function: user-defined ops with their own forward and backward.

`MyFn.apply(x)` runs `forward` under no_grad, then wires its outputs into the graph as PyTorch's
_wrap_outputs does: each differentiable output gets the node `MyFnBackward` (which is also the `ctx`
forward and backward receive); an input returned as-is comes back as a view of it; outputs marked
dirty are rebased in place (CopySlices for a view); views returned from a custom Function may not
be modified in place; tensors given to `ctx.save_for_backward` are saved and version-checked like
any op's. In backward, the node calls the user's `backward` (or `vjp`) with the output gradients
(zeros for undefined ones unless `ctx.set_materialize_grads(False)`), and checks what it returns.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from engine import errors
from engine.autograd import grad_mode
from engine.autograd.node import (
    Node,
    SavedScalar,
    _QualifiedNode,
    register_node,
    saved_input,
    saved_output,
)


class FunctionCtx:
    """What `forward` records on ctx for `backward`: saved tensors, dirty / non-differentiable outputs."""

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: Any) -> None:
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)


class BackwardCFunction(Node, FunctionCtx):
    """The node of one call of a custom Function (`MyFnBackward`), and its ctx."""

    _forward_cls: Any = None
    _materialize = True
    _materialize_non_diff_grads = True
    _accessed = False
    _freed = False
    _output_info: tuple[Any, ...] = ()
    _runs_without_grads = True  # PyNode runs even when every incoming gradient is undefined

    def __init__(self) -> None:
        Node.__init__(self, None, (), ())
        self.to_save: tuple[Any, ...] | None = None
        self.dirty_tensors: tuple[Any, ...] | None = None
        self.non_differentiable: tuple[Any, ...] | None = None
        self.needs_input_grad: tuple[bool, ...] = ()
        self._is_tensor_input: tuple[bool, ...] = ()

    def __repr__(self) -> str:  # a C++ node's repr has no module; a custom Function's node class has one
        return f"<{type(self).__module__}.{type(self).__qualname__} object at {hex(id(self))}>"

    # ----------------------------------------------------------------- what backward reads
    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self._freed:
            raise RuntimeError(errors.BACKWARD_TWICE)
        if getattr(self._forward_cls, "clear_saved_tensors_on_access", False):
            if self._accessed:
                raise RuntimeError("saved_tensors can only be accessed once when clear_saved_tensors_on_access=True "
                                   "is set on the autograd.Function. Either access saved_tensors only once, or set "
                                   "clear_saved_tensors_on_access=False.")
            self._accessed = True
            unpacked = tuple(saved.unpack(self) for _, saved in self._saved)
            self._saved = ()  # the caller's references are the only ones left
            return unpacked
        return tuple(saved.unpack(self) for _, saved in self._saved)

    @property
    def saved_variables(self) -> tuple[Any, ...]:
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    @property
    def _raw_saved_tensors(self) -> tuple[Any, ...]:
        if self._freed:
            raise RuntimeError(errors.BACKWARD_TWICE)
        return tuple(saved for _, saved in self._saved)

    def release(self) -> None:
        super().release()
        self._freed = True

    # ----------------------------------------------------------------- backward
    def apply(self, grads: list[Any], grad_input_mask: tuple[bool, ...] | None = None) -> Sequence[Any]:
        cls = self._forward_cls
        user_fn = _user_backward(cls)
        args = [self._materialized(g, meta, info) for g, meta, info in zip(grads, self.output_meta, self._output_info)]
        result = user_fn(self, *args)
        returned = list(result) if isinstance(result, tuple) else [result]
        expected = len(self._is_tensor_input)
        if len(returned) > expected and all(r is None for r in returned[expected:]):
            returned = returned[:expected]
        if len(returned) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                               f"{expected}, got {len(returned)})")
        from engine.tensor import Tensor

        grads_out = []
        for i, (value, is_tensor) in enumerate(zip(returned, self._is_tensor_input)):
            if not is_tensor:
                if value is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{i + 1}, but the corresponding forward input was not a Variable")
                continue
            if value is not None and not isinstance(value, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(value).__name__})")
            grads_out.append(value)
        return grads_out

    def _materialized(self, grad: Any, meta: Any, info: Any) -> Any:
        """An undefined gradient becomes zeros (of a non-differentiable output too, unless
        `ctx._materialize_non_diff_grads` is False); a non-tensor output's stays None."""
        if grad is not None or not self._materialize or info is None:
            return grad
        if meta[1] is None and not self._materialize_non_diff_grads:
            return grad
        meta = info
        from engine.devices import on
        from engine.tensor import Tensor

        with on(meta[2]):
            return Tensor._empty(meta[0], meta[1]).zero_()  # at::zeros: empty + zero_, so version 1


def _user_backward(cls: Any) -> Callable[..., Any]:
    backward, vjp = cls.backward, cls.vjp
    if backward is not Function.backward and vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return vjp if vjp is not Function.vjp else backward


class Function:
    """Subclass with `forward(ctx, *args)` and `backward(ctx, *grads)` staticmethods; call `apply`.

    (Or `forward(*args)` plus `setup_context(ctx, inputs, output)`, the newer form.)"""

    _backward_cls: type[BackwardCFunction]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._backward_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,),  # torch makes it in this module
                                 {"_forward_cls": cls, "__module__": "torch.autograd.function"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so "
                      "you should invoke them on the class itself. Instantiating an autograd function will raise an "
                      "error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        from engine.tensor import Tensor

        if cls.setup_context is not Function.setup_context:  # torch binds forward's defaults into `inputs`
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = tuple(bound.args), bound.kwargs
        ctx = cls._backward_cls()
        tensors = [a for a in args if isinstance(a, Tensor)]
        executable = grad_mode.state.enabled and any(t.requires_grad for t in tensors)
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._is_tensor_input = tuple(isinstance(a, Tensor) for a in args)
        if executable:  # the inputs' edges as they are before forward runs (it may modify them in place)
            from engine.ops import core

            ctx.next_functions = core.edges_of(tensors)
        with grad_mode.no_grad():
            if cls.setup_context is not Function.setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        return _wrap_outputs(cls, ctx, tensors, output, executable)


class InplaceFunction(Function):
    """Kept for backward compatibility, as in torch: a Function constructed with `inplace`."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


def _wrap_outputs(cls: Any, ctx: BackwardCFunction, inputs: list[Any], output: Any, executable: bool) -> Any:
    """PyTorch's _wrap_outputs / _process_backward_mode_ad: give each output its place in the graph."""
    from engine.tensor import IN_CUSTOM_FUNCTION, MULTI_OUTPUT, Tensor

    single = not isinstance(output, tuple)
    raw = [output] if single else list(output)
    input_ids = {id(t) for t in inputs}
    dirty = _mark_dirty(ctx)
    non_differentiable = {id(t) for t in (ctx.non_differentiable or ()) if isinstance(t, Tensor)}
    node = ctx if executable else None
    meta = []
    info: list[Any] = []  # torch's output_info: every tensor output, for materialized gradients
    outputs: list[Any] = []
    differentiable_count = 0
    for i, var in enumerate(raw):
        if not isinstance(var, Tensor):
            meta.append(((), None, None))
            info.append(None)
            outputs.append(var)
            continue
        is_input, is_modified = id(var) in input_ids, id(var) in dirty
        differentiable = node is not None and id(var) not in non_differentiable and var.dtype.is_floating_point
        meta.append((var._shape, var.dtype, var.device) if differentiable else ((), None, None))
        info.append((var._shape, var.dtype, var.device))
        var = _set_history(var, node, i, is_input, is_modified, differentiable, len(raw), cls.__name__)
        if not (is_input and is_modified) and var._view is not None:
            var._view.creation_meta = IN_CUSTOM_FUNCTION
            var._view.op_name, var._view.output_nr = cls.__name__, i
        differentiable_count += differentiable
        outputs.append(var)
    if differentiable_count > 1:
        for var in outputs:
            if isinstance(var, Tensor) and var._view is not None:
                var._view.creation_meta = MULTI_OUTPUT
    returned = {id(v) for v in outputs}
    if any(key not in returned for key in dirty):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")
    if node is not None:
        node.output_meta = tuple(meta)
        node._output_info = tuple(info)
        _save_variables(ctx)
    else:
        ctx.to_save = None
        ctx.non_differentiable = None
    return outputs[0] if single else tuple(outputs)


def _mark_dirty(ctx: BackwardCFunction) -> dict[int, Any]:
    """Tensors marked dirty get a version bump (on top of forward's own in-place writes)."""
    from engine.tensor import Tensor

    dirty = {}
    for i, t in enumerate(ctx.dirty_tensors or ()):
        if not isinstance(t, Tensor):
            raise TypeError(f"mark_dirty can only accept variables, but argument {i} is of type "
                            f"{type(t).__name__}")
        dirty[id(t)] = t
        t._bump_version()
    ctx.dirty_tensors = None
    return dirty


def _set_history(var: Any, node: BackwardCFunction | None, nr: int, is_input: bool, is_modified: bool,
                 differentiable: bool, count: int, fn_name: str) -> Any:
    from engine.ops import core

    if not differentiable:
        if not var.requires_grad:
            return _view_as_self(var) if is_input and not is_modified else var
        if is_input:
            return var.detach()
        if var._view is None:
            var.detach_()
        return var
    if is_modified:
        if var._grad_fn is None and var.requires_grad:  # torch reads the raw grad_fn: no view regeneration
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        if not is_input:
            message = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                       "mutated should be passed to ctx.mark_dirty().")
            if var._view is not None:
                raise RuntimeError(message)
            warnings.warn(message, UserWarning, stacklevel=4)
        if var._view is not None:
            core.check_inplace_allowed(var)
            if count > 1:
                raise RuntimeError(errors.CUSTOM_FUNCTION_VIEW_MULTI_OUTPUT)
            core.rebase_view(var, node, core.edges_of([var._view.base])[0])
            var._view.attr_version = -1  # torch's rebase_history then reads self.grad_fn(): AsStrided of CopySlices
            var.grad_fn  # noqa: B018
        else:
            var._set_grad_fn(node, nr)
        return var
    if is_input:
        var = _view_as_self(var)
    var._set_grad_fn(node, nr)
    return var


def _view_as_self(var: Any) -> Any:
    from engine.ops.views import view_as

    return view_as(var, var)


def _save_variables(ctx: BackwardCFunction) -> None:
    from engine.tensor import Tensor

    saved = []
    for i, t in enumerate(ctx.to_save or ()):
        if t is None:
            saved.append(("saved_tensors", SavedScalar(None)))
        elif not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")
        else:
            saved.append(("saved_tensors", saved_output(t, t._output_nr) if t._grad_fn is ctx else saved_input(t)))
    ctx._saved = tuple(saved)
    ctx.to_save = None


@register_node
class Error(_QualifiedNode):
    """The node once_differentiable puts behind a backward's results: differentiating them fails."""

    __slots__ = ()

    def apply(self, grads: list[Any], grad_input_mask: tuple[bool, ...] | None = None) -> Sequence[Any]:
        raise RuntimeError(self._values["_message"])


def _delayed_error(message: str, outputs: list[Any]) -> list[Any]:
    """DelayedError: detached aliases of the results, leaves requiring grad, behind one Error node."""
    from engine.ops import core

    leaves = []
    for value in outputs:
        if value is not None:
            value = value.detach()
            value.requires_grad = True
        leaves.append(value)
    results = [None if v is None else v.data for v in leaves]
    node = Error(None, core.edges_of(leaves), tuple(((), None, None) if v is None else
                                                     (v._shape, v.dtype, v.device) for v in leaves))
    node._values = {"_message": message}
    for i, r in enumerate(results):
        if r is not None:
            r._set_grad_fn(node, i)
    return results


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run a custom backward under no_grad; differentiating its results again raises."""
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        from engine.tensor import Tensor

        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        listed = list(outputs) if isinstance(outputs, tuple) else [outputs]
        results = _delayed_error("trying to differentiate twice a function that was marked with "
                                 "@once_differentiable", listed)
        return tuple(results) if isinstance(outputs, tuple) else results[0]
    return wrapper

