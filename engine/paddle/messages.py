"""Every user-facing Paddle message, worded exactly as PaddlePaddle 3.3.1 (CPU build, Linux) words it.

Paddle's C++ errors end with the source location of the check, `(at /paddle/...)`, and a newline;
that tail is part of what a user of the 3.3.1 wheel sees, so it is kept here verbatim.
"""

from __future__ import annotations

LEAF_INPLACE = (
    "(InvalidArgument) Leaf Var ({name}) that doesn't stop gradient can't use inplace strategy.\n"
    "  [Hint: Expected !autograd_meta->StopGradient() && IsLeafTensor(target) == false, but received "
    "!autograd_meta->StopGradient() && IsLeafTensor(target):1 != false:0.] "
    "(at /paddle/paddle/fluid/eager/utils.cc:277)\n"
)

LEAF_SETITEM = (
    "(InvalidArgument) Leaf Tensor ({name}) that doesn't stop gradient can't use inplace strategy.\n"
    "  [Hint: Expected egr::EagerUtils::IsLeafTensor(tensor) && "
    "!egr::EagerUtils::autograd_meta(&tensor)->StopGradient() == false, but received "
    "egr::EagerUtils::IsLeafTensor(tensor) && !egr::EagerUtils::autograd_meta(&tensor)->StopGradient():1 "
    "!= false:0.] (at /paddle/paddle/fluid/pybind/eager_method.cc:1935)\n"
)

INPLACE_MODIFIED = (
    "(PermissionDenied) Tensor '' used in gradient computation has been modified by an inplace operation. "
    "Its version is {current} but the expected version is {expected}. Please fix your code to void calling "
    "an inplace operator after using the Tensor which will used in gradient computation.\n"
    "  [Hint: Expected tensor_version == wrapper_version_snapshot, but received "
    "tensor_version:{current} != wrapper_version_snapshot:{expected}.] "
    "(at /paddle/paddle/fluid/eager/tensor_wrapper.h:268)\n"
)

BACKWARD_TWICE = (
    "(Fatal) The TensorWrappers of {node} do not exist. This may be because:\n"
    "You calculate backward twice for the same subgraph without setting retain_graph=True. "
    "Please set retain_graph=True in the first backward/grad call.\n\n"
    "  [Hint: Expected node->IsTensorWrappersCleared() != true, but received "
    "node->IsTensorWrappersCleared():1 == true:1.] (at /paddle/paddle/fluid/eager/backward.cc:204)\n"
)

DIAGONAL_RANK = (
    "(OutOfRange) Input's dim is out of range (expected at least 2 dimensions, but got {rank}).\n"
    "  [Hint: Expected x_dims.size() >= 2, but received x_dims.size():{rank} < 2:2.] "
    "(at /paddle/paddle/phi/infermeta/unary.cc:982)\n"
)

GRAD_OF_NON_LEAF = "(Fatal) Only leaf Tensor can be set grad. (at /paddle/paddle/fluid/pybind/eager_properties.cc:296)\n"

SPLIT_NOT_DIVISIBLE = (
    "(InvalidArgument) The input's size along the split dimension must be evenly divisible by "
    "Attr(num_or_sections). But received Attr(num_or_sections) = {num}, input(X)'s shape = {shape}, "
    "Attr(dim) = {dim}.\n"
    "  [Hint: Expected input_axis_dim % num == 0, but received input_axis_dim % num:{rest} != 0:0.] "
    "(at /paddle/paddle/phi/infermeta/unary.cc:5099)\n"
)

RESHAPE_SIZE = (
    "(InvalidArgument) The 'shape' in ReshapeOp is invalid. The input tensor X'size must be equal to the "
    "capacity of 'shape'. But received X's shape = {shape}, X's size = {size}, 'shape' is {target}, the "
    "capacity of 'shape' is {capacity}.\n"
    "  [Hint: Expected capacity == in_size, but received capacity:{capacity} != in_size:{size}.] "
    "(at /paddle/paddle/phi/infermeta/unary.cc:2536)\n"
)

RESHAPE_ZERO_INDEX = (
    "(InvalidArgument) If The index of 0 in `shape` >= the input tensor X's dimensions, It can only be "
    "Zero-Sized Tensor\n"
    "  [Hint: Expected in_size == 0, but received in_size:{size} != 0:0.] (at /paddle/paddle/phi/infermeta/unary.cc:2426)\n"
)

RESHAPE_UNKNOWN = (
    "(InvalidArgument) The 'shape' attribute in ReshapeOp is invalid. The input tensor X'size must be "
    "divisible by known capacity of 'shape'. But received X's shape = {shape}, X's size = {size}, 'shape' is "
    "{target}, known capacity of 'shape' is {capacity}.\n"
    "  [Hint: Expected output_shape[unk_dim_idx] * capacity == in_size, but received "
    "output_shape[unk_dim_idx] * capacity:{product} != in_size:{size}.] "
    "(at /paddle/paddle/phi/infermeta/unary.cc:2517)\n"
)

# ---------------------------------------------------------------------- devices
NO_CUDA_DEVICE = "The device should not be {spec}, since PaddlePaddle is not compiled with CUDA"
BAD_DEVICE = ("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', 'dcu', 'dcu:x', 'xpu', "
              "'xpu:x', 'npu', 'npu:x'")
CUDA_API_ON_CPU = ("The API paddle.device.cuda.{api} is not supported in CPU-only PaddlePaddle. Please reinstall "
                   "PaddlePaddle with GPU or custom device support to call this API.")
DEVICE_API_ON_CPU = ("The API paddle.device.{api} is not supported in CPU PaddlePaddle. Please reinstall "
                     "PaddlePaddle with GPU or XPU support to call this API.")
SYNCHRONIZE_ON_CPU = ("(Unavailable) Paddle is not compiled with CUDA. Cannot visit device synchronize. "
                      "(at /paddle/paddle/fluid/pybind/cuda_streams_py.cc:169)\n")
NO_AVAILABLE_DEVICE = "No available device found."

NO_ATTRIBUTE = "module '{module}' has no attribute '{name}'"


def missing(module: str, name: str) -> AttributeError:
    """What `paddle.add_` (and any other name a Paddle module lacks) raises, naming Paddle's module."""
    return AttributeError(NO_ATTRIBUTE.format(module=module, name=name))
