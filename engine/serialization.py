"""torch.save / torch.load to in-memory file objects (io.BytesIO): never to paths.

Objects are flattened to plain Python data (dicts, lists, tuples, numbers, strings, bytes) in which
each tensor names its storage, so tensors that shared memory share it again after loading; loading
unpickles with an allow-list of two classes, so a loaded buffer can never run code.
"""

from __future__ import annotations

import io
import os
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np

from engine import dtypes
from engine.storage import Storage
from engine.tensor import Parameter, Size, Tensor

_MAGIC = "tensorscope-save-1"
_BY_NAME = {d.name: d for d in dtypes.ALL}


def _refuse_path(f: Any, op: str) -> None:
    if isinstance(f, (str, bytes, os.PathLike)):
        raise RuntimeError(f"torch.{op}: this engine saves and loads only file-like objects such as io.BytesIO, "
                           "never files")


def _encode(obj: Any, storages: dict[int, tuple[int, Any]]) -> Any:
    if isinstance(obj, Tensor):
        key = id(obj._storage)
        if key not in storages:
            storages[key] = (len(storages), obj._storage)
        return ("tensor", storages[key][0], obj._offset, list(obj._shape), list(obj._stride), obj.dtype.name,
                obj.requires_grad, isinstance(obj, Parameter))
    if isinstance(obj, dtypes.dtype):
        return ("dtype", obj.name)
    if isinstance(obj, Size):
        return ("size", list(obj))
    if isinstance(obj, OrderedDict):
        return ("odict", [(_encode(k, storages), _encode(v, storages)) for k, v in obj.items()])
    if isinstance(obj, dict):
        return ("dict", [(_encode(k, storages), _encode(v, storages)) for k, v in obj.items()])
    if isinstance(obj, list):
        return ("list", [_encode(v, storages) for v in obj])
    if isinstance(obj, tuple):
        return ("tuple", [_encode(v, storages) for v in obj])
    if obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        return ("value", obj)
    raise TypeError(f"torch.save: cannot save an object of type {type(obj).__name__} in this engine "
                    "(tensors, numbers, strings and dicts, lists and tuples of them can be saved)")


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True) -> None:
    _refuse_path(f, "save")
    storages: dict[int, tuple[int, Any]] = {}
    tree = _encode(obj, storages)
    blobs = {index: (storage.data.dtype.str if storage.data.dtype.kind != "V" else "bfloat16",
                     storage.data.tobytes()) for index, storage in storages.values()}
    f.write(pickle.dumps((_MAGIC, tree, blobs), protocol=4))


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"torch.load: refusing to load {module}.{name}")


def _decode(node: Any, storages: dict[int, Storage]) -> Any:
    kind, payload = node[0], node[1:]
    if kind == "tensor":
        index, offset, shape, stride, dtype_name, requires_grad, is_parameter = payload
        dtype = _BY_NAME[dtype_name]
        t = Tensor._make(storages[index], offset, tuple(shape), tuple(stride), dtype)
        t._vc.value = 1  # torch rebuilds each tensor with set_()
        if is_parameter:
            return Parameter(t, requires_grad)
        return t.requires_grad_() if requires_grad else t
    if kind == "dtype":
        return _BY_NAME[payload[0]]
    if kind == "size":
        return Size(payload[0])
    if kind in ("dict", "odict"):
        items = [(_decode(k, storages), _decode(v, storages)) for k, v in payload[0]]
        return OrderedDict(items) if kind == "odict" else dict(items)
    if kind in ("list", "tuple"):
        items = [_decode(v, storages) for v in payload[0]]
        return items if kind == "list" else tuple(items)
    return payload[0]


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    _refuse_path(f, "load")
    try:
        magic, tree, blobs = _Restricted(io.BytesIO(f.read())).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise RuntimeError(f"torch.load: not a file saved by torch.save ({exc})") from None
    if magic != _MAGIC:
        raise RuntimeError("torch.load: not a file saved by torch.save")
    storages = {}
    for index, (dtype_str, data) in blobs.items():
        np_dtype = dtypes.bfloat16.np if dtype_str == "bfloat16" else np.dtype(dtype_str)
        flat = np.frombuffer(data, dtype=np_dtype).copy()
        storages[index] = Storage.wrap(flat)
    return _decode(tree, storages)
