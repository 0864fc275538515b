"""Every user-facing message of the engine, worded exactly as PyTorch 2.13 words it."""

from __future__ import annotations

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_REBASE_TAILS = {
    "multi_output": " This view is the output of a function that returns multiple views. Such functions do not "
                    "allow the output views to be modified inplace. You should replace the inplace operation by an "
                    "out-of-place one.",
    "no_grad_mode": " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                    "code by moving both the view and the inplace either both inside the no_grad block (if you don't "
                    "want the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
    "inference_mode": " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
                      "your code by moving both the view and the inplace either both inside the inference_mode block "
                      "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                      "tracked).",
    "in_custom_function": " This view was created inside a custom Function (or because an input was returned "
                          "as-is) and the autograd logic to handle view+inplace would override the custom backward "
                          "associated with the custom Function, leading to incorrect gradients. This behavior is "
                          "forbidden. You can fix this by cloning the output of the custom Function.",
}


def view_rebase(creation_meta: str, grad_fn: str | None, output_nr: int, indirect: bool) -> str:
    """PyTorch's handle_view_on_rebase: why a view (made in no_grad mode, in inference mode, by a
    multi-output op or a custom Function) may not be modified in place, directly or through its base.
    `grad_fn` is the view's own node as messages name it (`Unbind`, `View`), None when it has none."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    if creation_meta in ("inference_mode", "no_grad_mode") or grad_fn is None:
        prefix = (f"Output {output_nr} of {grad_fn} is a view of a view which was created in" if grad_fn
                  else "A view was created in")
        if creation_meta == "inference_mode":
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = f"Output {output_nr} of {grad_fn} is a view and {modified} modified inplace."
    return message + _VIEW_REBASE_TAILS[creation_meta]


VERSION_MISMATCH = (
    "one of the variables needed for gradient computation has been modified by an inplace operation: "
    "{core}. Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)
BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call .backward() "
    "or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second "
    "time or if you need to access saved tensors after calling backward."
)
NON_SCALAR_BACKWARD = "grad can be implicitly created only for scalar outputs"
NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
GRAD_SHAPE_MISMATCH = (
    "Mismatch in shape: grad_output[{i}] has a shape of {got} and output[{i}] has a shape of {want}."
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {i} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
LEAKY_RELU_INPLACE_NEGATIVE_SLOPE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version instead. "
    "File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope"
)
SAVED_DETACHED_INPLACE = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
    "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
    "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor "
    "by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 "
    "for more information."
)
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
# torch's update_tensor_hooks_on_new_gradfn, when an in-place view op (t_, transpose_, squeeze_...) left
# a retain_grad on the tensor's former node and a later history change looks for it on the current one
RETAIN_GRAD_STRANDED = ('out != nullptr INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/autograd/'
                        'variable.cpp":207, please report a bug to PyTorch. ')
INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
INPLACE_BROADCAST = "output with shape {self} doesn't match the broadcast shape {broadcast}"
CAST = "result type {src} can't be cast to the desired output type {dst}"
RESIZE_REQUIRES_GRAD = "cannot resize variables that require grad"
NUMPY_REQUIRES_GRAD = "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
ITEM_MULTI = "a Tensor with {n} elements cannot be converted to Scalar"
BOOL_AMBIGUOUS = "Boolean value of Tensor with more than one value is ambiguous"
VIEW_STRIDE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans "
    "across two contiguous subspaces). Use .reshape(...) instead."
)
SHAPE_INVALID = "shape '{shape}' is invalid for input of size {numel}"
ONE_INFERRED = "only one dimension can be inferred"
REQUIRES_GRAD_DTYPE_ATTR = "only Tensors of floating point and complex dtype can require gradients"
REQUIRES_GRAD_DTYPE_METHOD = "only Tensors of floating point dtype can require gradients"
REQUIRES_GRAD_DTYPE_FACTORY = "Only Tensors of floating point and complex dtype can require gradients"
REQUIRES_GRAD_NON_LEAF = "you can only change requires_grad flags of leaf variables."
REQUIRES_GRAD_NON_LEAF_FALSE = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
    "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
    "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
    "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
OUT_REQUIRES_GRAD = (
    "{op}(): functions with out=... arguments don't support automatic differentiation, but one of the "
    "arguments requires grad."
)
OUT_RESIZED = (
    "An output with one or more elements was resized since it had shape {had}, which does not match the "
    "required output shape {want}. This behavior is deprecated, and in a future PyTorch release outputs "
    "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
    "resizing it, inplace, to zero elements with t.resize_(0)."
)
GRAD_ASSIGN_SIZE = (
    "attempting to assign a gradient of size '{got}' to a tensor of size '{want}'. Please ensure that "
    "the gradient and the tensor are the same size"
)
GRAD_ASSIGN_DTYPE = (
    "attempting to assign a gradient with dtype '{got}' to a tensor with grad_dtype '{want}'. The gradient "
    "must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
    "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. "
    "Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."
)
MM_SHAPES = "mat1 and mat2 shapes cannot be multiplied ({a0}x{a1} and {b0}x{b1})"
DOT_SIZES = (
    "inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number of elements, "
    "but got {n} and {m} elements respectively"
)
BROADCAST = (
    "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
)
DIM_RANGE = "Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
INDEX_RANGE = "index {i} is out of bounds for dimension {dim} with size {size}"
CAT_SIZES = (
    "Sizes of tensors must match except in dimension {dim}. Expected size {want} but got size {got} "
    "for tensor number {k} in the list."
)
TARGET_DTYPE = "expected target dtype to be Long or Byte, but got {got}"


def shape_text(shape: tuple[int, ...]) -> str:
    """`[2, 3]`: the way torch's C++ side prints sizes in messages."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


MULTI_OUTPUT_VIEW_BASE_MODIFIED = (
    "Output {n} of {fn} is a view and its base or another view of its base has been modified inplace. "
    "This view is the output of a function that returns multiple views. Such functions do not allow the "
    "output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)

# autograd: backward, autograd.grad, hooks and saved tensors
INPUT_NO_GRAD = "One of the differentiated Tensors does not require grad"
BATCHED_GRAD_SHAPE = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch dimension. The "
    "sizes of the remaining dimensions are expected to match the shape of corresponding output, but a mismatch was "
    "detected: grad_output[{i}] has a shape of {got} and output[{i}] has a shape of {want}. If you only want some "
    "tensors in `grad_output` to be considered batched, consider using vmap."
)
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak."
)
PACK_HOOK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook cannot be "
    "modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need "
    "to perform in-place operations on the input to a pack hook."
)
_CUSTOM_FUNCTION_VIEW_TAIL = (
    " This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, leading "
    "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
    "Function."
)
CUSTOM_FUNCTION_VIEW_INPLACE = "Output {n} of {fn} is a view and is being modified inplace." + _CUSTOM_FUNCTION_VIEW_TAIL
CUSTOM_FUNCTION_VIEW_BASE_MODIFIED = (
    "Output {n} of {fn} is a view and its base or another view of its base has been modified inplace."
    + _CUSTOM_FUNCTION_VIEW_TAIL
)
# the same views when they have no grad_fn (the Function ran under no_grad, or no input required grad)
CUSTOM_FUNCTION_NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
    + _CUSTOM_FUNCTION_VIEW_TAIL
)
CUSTOM_FUNCTION_NO_GRAD_VIEW_BASE_MODIFIED = (
    "A view was created in no_grad mode and its base or another view of its base has been modified inplace with "
    "grad mode enabled." + _CUSTOM_FUNCTION_VIEW_TAIL
)
CUSTOM_FUNCTION_VIEW_MULTI_OUTPUT = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot return more "
    "than one Tensor. This is not supported by the current autograd engine. You should either make sure the input "
    "is not a view (using .clone() for example) or make your Function only return one Tensor (potentially splitting "
    "it into two Functions: one doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change."
)

SAVED_HOOKS_AFTER_FREE = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values of the graph are "
    "freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through "
    "the graph a second time or if you need to access saved variables after calling backward."
)

DEEPCOPY_NON_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the moment.  "
    "If you were attempting to deepcopy a module, this may be because of a torch.nn.utils.weight_norm usage, see "
    "https://github.com/pytorch/pytorch/pull/103001")

INFERENCE_VERSION = "Inference tensors do not track version counter."
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in "
    "autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
