"""numpy arrays <-> MF_Tensor, with as few copies as the memory allows.

Note [Zero-copy arrays]
In: an array of at least _ZERO_COPY_MIN bytes that is C-contiguous and
64-byte aligned (what minflow's kernels need) is handed to MF_NewTensor
as is, with a deallocator that drops the reference _live_arrays holds;
anything else is copied once into a new MF_Tensor.
Out: a fetched tensor of at least _MOVE_MIN bytes whose buffer has no
other owner (MF_TensorMaybeMove) becomes the memory of the returned array: the MF_Tensor is deleted when the
last array viewing it goes. A shared buffer (a Const's value, a fed tensor)
is copied, so writing into the array never changes the graph or a feed.
"""
import itertools

import numpy as np

from minflow import dtypes
from minflow import errors
from minflow import framework
from minflow._c import ffi, lib

_ZERO_COPY_MIN = ZERO_COPY_MIN = 1 << 16
# Fetched tensors smaller than this are copied: a copy of a few KB costs
# less than handing the buffer over.
_MOVE_MIN = 1 << 12
_live_arrays = {}
_keys = itertools.count(1)
# How many fetched tensors were handed to numpy, and released since.
stats = {"moved": 0, "released": 0}


@ffi.callback("void(void*, size_t, void*)")
def _release_array(data, length, arg):
    _live_arrays.pop(int(ffi.cast("uintptr_t", arg)), None)


_NP_BY_ENUM = dict((d.as_datatype_enum, np.dtype(d.as_numpy_dtype))
                   for d in dtypes.NUMERIC)


def _string_items(value):
    """`value` (bytes, str, or nested lists or numpy arrays of them) as its
    shape and its elements as bytes, row-major (str as UTF-8)."""
    arr = np.asarray(value, dtype=object)
    items = []
    for v in arr.ravel():
        if isinstance(v, bytes):
            items.append(v)
        elif isinstance(v, str):
            items.append(v.encode("utf-8"))
        else:
            raise TypeError("Expected bytes or str for a string tensor, but "
                            "got %r of type '%s'" % (v, type(v).__name__))
    return arr.shape, items


def string_tensor(value, status):
    """A new MF_STRING MF_Tensor* (the caller deletes it) holding `value`
    (see _string_items); every element is copied."""
    shape, items = _string_items(value)
    nd = len(shape)
    dims = ffi.new("int64_t[]", shape) if nd else ffi.NULL
    n = len(items)
    if n:
        # One buffer for all elements; the C call copies them out of it.
        joined = ffi.from_buffer(b"".join(items))
        base = ffi.cast("char*", joined)
        lengths = ffi.new("size_t[]", [len(b) for b in items])
        ptrs = ffi.new("void*[]", n)
        offset = 0
        for i in range(n):
            ptrs[i] = base + offset
            offset += lengths[i]
    else:
        ptrs = lengths = ffi.NULL
    t = lib.MF_NewStringTensor(dims, nd, ptrs, lengths, n, status)
    if t == ffi.NULL:
        errors.raise_from_status(status)
    return t


def _string_value(t):
    """Takes the MF_STRING MF_Tensor* `t` (deleting it) and returns bytes
    for a scalar, else a numpy object array of bytes, as TensorFlow does."""
    try:
        nd = lib.MF_NumDims(t)
        shape = tuple([lib.MF_Dim(t, i) for i in range(nd)])
        n = lib.MF_TensorElementCount(t)
        ptrs = ffi.new("void*[]", n)
        lengths = ffi.new("size_t[]", n)
        status = errors.Status()
        lib.MF_TensorGetStrings(t, ptrs, lengths, n, status.ptr)
        status.check()
        items = [
            ffi.unpack(ffi.cast("char*", ptrs[i]), lengths[i])
            for i in range(n)
        ]
    finally:
        lib.MF_DeleteTensor(t)
    if not nd:
        return items[0]
    arr = np.empty(n, dtype=object)
    arr[:] = items
    return arr.reshape(shape)


def to_mf_tensor(value, dtype, status):
    """A new MF_Tensor* (the caller deletes it) holding `value` (anything
    np.asarray takes) as `dtype` (a DType, or None to keep value's)."""
    if dtype is dtypes.string or (dtype is None and _is_string(value)):
        return string_tensor(value, status)
    np_type = dtype.as_numpy_dtype if dtype is not None else None
    if dtype is not None and np_type is None:
        raise TypeError("%s tensors cannot be made from Python yet" %
                        dtype.name)
    arr = np.asarray(value, dtype=np_type)
    if dtype is None:
        dtype = dtypes.as_dtype(arr.dtype)
        if dtype.as_numpy_dtype is None:
            raise TypeError("%s tensors cannot be made from Python yet" %
                            dtype.name)
    shape = arr.shape
    nd = len(shape)
    dims = ffi.new("int64_t[]", shape) if nd else ffi.NULL
    nbytes = arr.nbytes
    enum = dtype.as_datatype_enum
    if nbytes >= _ZERO_COPY_MIN and arr.flags.c_contiguous:
        ptr = ffi.from_buffer(arr, require_writable=False)
        if int(ffi.cast("uintptr_t", ptr)) % 64 == 0:
            key = next(_keys)
            _live_arrays[key] = arr
            t = lib.MF_NewTensor(enum, dims, nd, ptr, nbytes, _release_array,
                                 ffi.cast("void*", key), status)
            if t == ffi.NULL:
                _live_arrays.pop(key, None)
                errors.raise_from_status(status)
            return t
    return _copied_tensor(arr, enum, dims, nd, nbytes, status)


def _is_string(value):
    if isinstance(value, (bytes, str)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "SU"


def _copied_tensor(arr, enum, dims, nd, nbytes, status):
    """A new MF_Tensor* of its own memory holding a copy of `arr`."""
    t = lib.MF_AllocateTensor(enum, dims, nd, nbytes, status)
    if t == ffi.NULL:
        errors.raise_from_status(status)
    if nbytes:
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        ffi.memmove(lib.MF_TensorData(t), arr, nbytes)
    return t


def feed_tensor(value, np_type, enum, status):
    """to_mf_tensor for a feed whose dtype is known (np_type, enum): the
    same result, with less work for the small values most feeds are."""
    if isinstance(value, (framework.Tensor, framework.Operation)):
        raise TypeError("The value of a feed cannot be a minflow.%s object. "
                        "Acceptable feed values include Python scalars, "
                        "lists and numpy ndarrays." % type(value).__name__)
    if np_type is None:
        return to_mf_tensor(value, dtypes.as_dtype(enum), status)
    arr = np.asarray(value, np_type)
    nbytes = arr.nbytes
    if nbytes >= _ZERO_COPY_MIN:
        return to_mf_tensor(arr, dtypes.as_dtype(enum), status)
    nd = arr.ndim
    dims = ffi.new("int64_t[]", arr.shape) if nd else ffi.NULL
    return _copied_tensor(arr, enum, dims, nd, nbytes, status)


def fetch_value(t, np_type, shape, nbytes):
    """to_ndarray for a fetch whose shape the graph knows fully (`shape`, a
    tuple, and `nbytes`): small values skip the shape queries. The byte
    size is still checked, so a tensor of another size takes the general
    path."""
    if nbytes >= _MOVE_MIN or lib.MF_TensorByteSize(t) != nbytes:
        return to_ndarray(t)
    if not shape:
        value = np.frombuffer(ffi.buffer(lib.MF_TensorData(t), nbytes),
                              np_type)[0]
        lib.MF_DeleteTensor(t)
        return value
    arr = np.empty(shape, np_type)
    if nbytes:
        ffi.memmove(arr, lib.MF_TensorData(t), nbytes)
    lib.MF_DeleteTensor(t)
    return arr


def _deleter(t):

    def release(_):
        lib.MF_DeleteTensor(t)
        stats["released"] += 1

    return release


_MAX_INFO_DIMS = 8


class Info(object):
    """The out-parameters of MF_TensorGetInfo, made once and reused by one
    thread at a time (a Session runner's, under the session's lock)."""
    __slots__ = ("num_dims", "dims", "data", "nbytes")

    def __init__(self):
        self.num_dims = ffi.new("int*")
        self.dims = ffi.new("int64_t[]", _MAX_INFO_DIMS)
        self.data = ffi.new("void**")
        self.nbytes = ffi.new("size_t*")


def to_ndarray(t, info=None):
    """Takes the MF_Tensor* `t` (deleting it, or handing it to the array)
    and returns its value as a numpy array (a numpy scalar for a scalar, as
    TensorFlow's Session.run). `info`: an Info to reuse."""
    if info is None:
        info = Info()
    # One C call for dtype, dims, data and size (each call costs ~0.3 us).
    enum = lib.MF_TensorGetInfo(t, info.num_dims, info.dims, _MAX_INFO_DIMS,
                                info.data, info.nbytes)
    np_type = _NP_BY_ENUM.get(enum)
    if np_type is None:
        if enum == dtypes.string.as_datatype_enum:
            return _string_value(t)
        lib.MF_DeleteTensor(t)
        raise errors.UnimplementedError(
            None, None, "fetching %s tensors into Python is not supported yet"
            % dtypes.as_dtype(enum).name)
    nd = info.num_dims[0]
    nbytes = info.nbytes[0]
    data = info.data[0]
    if nbytes and data == ffi.NULL:  # an uninitialized result: never read
        lib.MF_DeleteTensor(t)
        raise errors.InternalError(
            None, None, "a fetched tensor has no memory (internal error, "
            "please report)")
    if not nd and nbytes == np_type.itemsize:
        value = np.frombuffer(ffi.buffer(data, nbytes), np_type)[0]
        lib.MF_DeleteTensor(t)
        return value
    if nd <= _MAX_INFO_DIMS:
        shape = tuple(info.dims[0:nd])
    else:
        shape = tuple([lib.MF_Dim(t, i) for i in range(nd)])
    if nbytes < _MOVE_MIN or lib.MF_TensorMaybeMove(t) == ffi.NULL:
        # Small or shared: a copy (for small ones, cheaper than a hand-over).
        arr = np.empty(shape, np_type)
        if nbytes:
            ffi.memmove(arr, data, nbytes)
        lib.MF_DeleteTensor(t)
        return arr if nd else arr[()]
    owner = ffi.gc(ffi.cast("char*", data), _deleter(t), size=nbytes)
    stats["moved"] += 1
    arr = np.frombuffer(ffi.buffer(owner, nbytes), np_type)
    return arr.reshape(shape) if nd != 1 else arr
