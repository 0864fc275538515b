"""torch.save / torch.load to in-memory file objects (io.BytesIO): never to paths.

Objects are flattened to plain Python data (dicts, lists, tuples, numbers, strings, bytes) in which
each tensor names its storage, so tensors that shared memory share it again after loading. Loading
unpickles with no class at all (a buffer can never run code), then checks what it read as a file
may have been written by anyone: storages of the engine's dtypes only, each tensor's dtype its
storage's and its geometry inside its storage (PyTorch's `set_` rule), nesting of a bounded depth.
Anything else is `RuntimeError: torch.load: not a file saved by torch.save (...)`.
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
_BLOB_DTYPES = {d.np.str if d is not dtypes.bfloat16 else "bfloat16": d for d in dtypes.ALL}
_MAX_DEPTH = 500  # nesting of containers a loaded file may have
_PLAIN = (type(None), bool, int, float, str, bytes)


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


class _Malformed(Exception):
    """What a loaded file holds is not what torch.save writes."""


def _decode(node: Any, storages: dict[int, Storage], depth: int = 0) -> Any:
    if depth > _MAX_DEPTH:
        raise _Malformed(f"nested more than {_MAX_DEPTH} levels deep")
    if type(node) is not tuple or not node or type(node[0]) is not str:
        raise _Malformed("an entry is not a tagged tuple")
    kind, payload = node[0], node[1:]
    if kind == "tensor":
        return _decode_tensor(payload, storages)
    if kind == "dtype" and len(payload) == 1 and payload[0] in _BY_NAME:
        return _BY_NAME[payload[0]]
    if kind == "size" and len(payload) == 1 and _ints(payload[0]):
        return Size(payload[0])
    if kind in ("dict", "odict") and len(payload) == 1 and type(payload[0]) is list:
        if not all(type(item) is tuple and len(item) == 2 for item in payload[0]):
            raise _Malformed("a dict entry is not a pair")
        items = [(_decode(k, storages, depth + 1), _decode(v, storages, depth + 1)) for k, v in payload[0]]
        try:
            return OrderedDict(items) if kind == "odict" else dict(items)
        except TypeError as exc:  # an unhashable key
            raise _Malformed(str(exc)) from None
    if kind in ("list", "tuple") and len(payload) == 1 and type(payload[0]) is list:
        items = [_decode(v, storages, depth + 1) for v in payload[0]]
        return items if kind == "list" else tuple(items)
    if kind == "value" and len(payload) == 1 and type(payload[0]) in _PLAIN:
        return payload[0]
    raise _Malformed(f"an entry of kind {kind[:40]!r} is malformed")


def _ints(values: Any, minimum: int = 0) -> bool:
    return type(values) is list and all(type(v) is int and v >= minimum for v in values)


def _decode_tensor(payload: tuple[Any, ...], storages: dict[int, Storage]) -> Tensor:
    if len(payload) != 7:
        raise _Malformed("a tensor entry is malformed")
    index, offset, shape, stride, dtype_name, requires_grad, is_parameter = payload
    if index not in storages or type(index) is not int:
        raise _Malformed("a tensor names a storage the file does not hold")
    if dtype_name not in _BY_NAME:
        raise _Malformed("a tensor has an unknown dtype")
    if not (_ints(shape) and _ints(stride) and len(shape) == len(stride) and type(offset) is int and offset >= 0
            and type(requires_grad) is bool and type(is_parameter) is bool):
        raise _Malformed("a tensor's geometry is malformed")
    dtype, storage = _BY_NAME[dtype_name], storages[index]
    if storage.data.dtype != dtype.np:
        raise _Malformed(f"a {dtype_name} tensor is over a storage of another dtype")
    if 0 not in shape:
        needed = offset + 1 + sum((n - 1) * s for n, s in zip(shape, stride))
        if needed > storage.data.size:
            itemsize = storage.data.itemsize
            raise RuntimeError(f"setStorage: sizes {list(shape)}, strides {list(stride)}, storage offset {offset}, "
                               f"and itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of "
                               f"bounds for storage of size {storage.data.size * itemsize}")
    t = Tensor._make(storage, offset, tuple(shape), tuple(stride), dtype)
    t._counter().value = 1  # torch rebuilds each tensor with set_()
    if is_parameter:
        return Parameter(t, requires_grad)
    return t.requires_grad_() if requires_grad else t


def _storages(blobs: Any) -> dict[int, Storage]:
    if type(blobs) is not dict:
        raise _Malformed("its storages are malformed")
    storages = {}
    for index, blob in blobs.items():
        if type(blob) is not tuple or len(blob) != 2 or blob[0] not in _BLOB_DTYPES or type(blob[1]) is not bytes:
            raise _Malformed("a storage is malformed or of a dtype the engine does not have")
        np_dtype = _BLOB_DTYPES[blob[0]].np
        if len(blob[1]) % np_dtype.itemsize:
            raise _Malformed("a storage's size is not a whole number of elements")
        storages[index] = Storage.wrap(np.frombuffer(blob[1], dtype=np_dtype).copy())
    return storages


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    _refuse_path(f, "load")
    data = f.read()
    try:
        content = _Restricted(io.BytesIO(data)).load()
        if type(content) is not tuple or len(content) != 3 or content[0] != _MAGIC:
            raise _Malformed("it does not start as one does")
        return _decode(content[1], _storages(content[2]))
    except MemoryError:
        raise RuntimeError("torch.load: not a file saved by torch.save (it declares an object larger than memory)") \
            from None
    except RuntimeError:
        raise  # the out-of-bounds message, PyTorch's own
    except Exception as exc:  # noqa: BLE001 - whatever a crafted file makes the unpickler or the checks raise
        why = str(exc).partition("\n")[0][:200] or type(exc).__name__
        raise RuntimeError(f"torch.load: not a file saved by torch.save ({why})") from None
