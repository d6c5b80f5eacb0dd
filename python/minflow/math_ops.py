"""The hand-written ops a TensorFlow user reaches for first (placeholder,
matmul, cast, reduce_sum, ...) and Tensor's operators: + - * / // % ** @,
unary - and abs, comparisons, & | ~ on bools, and indexing through
StridedSlice as tf.Tensor.__getitem__."""
import numpy as np

from minflow import dtypes
from minflow import framework
from minflow import ops
from minflow.op_gen import constant, convert_to_tensor


def placeholder(dtype, shape=None, name=None):
    """A value fed to Session.run: `shape` None for any shape, a list with
    None for unknown sizes."""
    return ops.placeholder(dtype=dtype, shape=shape, name=name)


def identity(input, name=None):  # noqa: A002 (TensorFlow's name)
    return ops.identity(input, name=name)


def cast(x, dtype, name=None):
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype == dtype:
        return x
    return ops.cast(x, DstT=dtype, name=name or "Cast")


def add(x, y, name=None):
    return ops.add_v2(x, y, name=name or "add")


def subtract(x, y, name=None):
    return ops.sub(x, y, name=name or "sub")


def multiply(x, y, name=None):
    return ops.mul(x, y, name=name or "mul")


def negative(x, name=None):
    return ops.neg(x, name=name or "Neg")


def _float_for(dt):
    # TensorFlow's truediv: small ints to float32, big ones to float64.
    if dt in (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16):
        return dtypes.float32
    return dtypes.float64


def truediv(x, y, name=None):
    """x / y, integers divided as floats (TensorFlow's truediv)."""
    x, y = _pair(x, y)
    if x.dtype.is_integer:
        ft = _float_for(x.dtype)
        x, y = cast(x, ft), cast(y, ft)
    return ops.real_div(x, y, name=name or "truediv")


divide = truediv


def floordiv(x, y, name=None):
    return ops.floor_div(x, y, name=name or "floordiv")


def floormod(x, y, name=None):
    return ops.floor_mod(x, y, name=name or "mod")


def pow(x, y, name=None):  # noqa: A001 (TensorFlow's name)
    return ops.pow(x, y, name=name or "pow")


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """A matrix product of rank-2 tensors (MatMul), or of batches of them
    (BatchMatMulV2) when either has a higher rank."""
    a, b = _pair(a, b)
    ra, rb = a.shape.rank, b.shape.rank
    if (ra is not None and ra > 2) or (rb is not None and rb > 2):
        return ops.batch_mat_mul_v2(a, b, adj_x=transpose_a,
                                    adj_y=transpose_b, name=name or "MatMul")
    return ops.mat_mul(a, b, transpose_a=transpose_a,
                       transpose_b=transpose_b, name=name or "MatMul")


def reshape(tensor, shape, name=None):
    return ops.reshape(tensor, shape, name=name)


def _reduce(fn, default_name, input_tensor, axis, keepdims, name):
    x = convert_to_tensor(input_tensor)
    if axis is None:
        rank = x.shape.rank
        if rank is None:
            axis = ops.range(0, ops.rank(x), 1)
        else:
            axis = list(range(rank))
    return fn(x, axis, keep_dims=keepdims, name=name or default_name)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(ops.sum, "Sum", input_tensor, axis, keepdims, name)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(ops.mean, "Mean", input_tensor, axis, keepdims, name)


def reduce_max(input_tensor, axis=None, keepdims=False, name=None):
    return _reduce(ops.max, "Max", input_tensor, axis, keepdims, name)


def argmax(input, axis=None, output_type=dtypes.int64, name=None):  # noqa
    return ops.arg_max(input, 0 if axis is None else axis,
                       output_type=output_type, name=name or "ArgMax")


def _pair(x, y):
    """x and y as Tensors, a plain value taking the other's dtype."""
    if isinstance(x, framework.Tensor):
        return x, convert_to_tensor(y, dtype=x.dtype, name="y")
    if isinstance(y, framework.Tensor):
        return convert_to_tensor(x, dtype=y.dtype, name="x"), y
    return convert_to_tensor(x), convert_to_tensor(y)


# ---- Indexing -------------------------------------------------------------


def _is_index(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def strided_slice_for(tensor, key):
    """tensor[key] as TensorFlow's __getitem__: ints, slices (with
    int or scalar-Tensor bounds), Ellipsis and None (a new axis)."""
    if not isinstance(key, tuple):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0)
    for i, k in enumerate(key):
        bit = 1 << i
        if isinstance(k, slice):
            for v in (k.start, k.stop, k.step):
                if v is not None and not (_is_index(v) or isinstance(
                        v, framework.Tensor)):
                    raise TypeError(
                        "Only integers, slices (`:`), ellipsis (`...`), "
                        "minflow.newaxis (`None`) and scalar int32/int64 "
                        "tensors are valid indices, got %r" % (v,))
            if k.step is not None and _is_index(k.step) and k.step == 0:
                raise ValueError("slice step cannot be zero")
            begin.append(0 if k.start is None else k.start)
            end.append(0 if k.stop is None else k.stop)
            strides.append(1 if k.step is None else k.step)
            if k.start is None:
                masks["begin_mask"] |= bit
            if k.stop is None:
                masks["end_mask"] |= bit
        elif k is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif k is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["new_axis_mask"] |= bit
        elif _is_index(k) or isinstance(k, framework.Tensor):
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
        else:
            raise TypeError(
                "Only integers, slices (`:`), ellipsis (`...`), "
                "minflow.newaxis (`None`) and scalar int32/int64 tensors are "
                "valid indices, got %r" % (k,))
    g = tensor.graph
    with g.name_scope("strided_slice") as scope:
        packed = [
            _pack_index(v, n)
            for v, n in ((begin, "begin"), (end, "end"), (strides, "strides"))
        ]
        # A name ending in "/" is taken as is: the op is the scope's name.
        return ops.strided_slice(tensor, packed[0], packed[1], packed[2],
                                 name=scope, **masks)


def _pack_index(values, name):
    if any(isinstance(v, framework.Tensor) for v in values):
        dt = next(v.dtype for v in values if isinstance(v, framework.Tensor))
        return ops.pack([convert_to_tensor(v, dtype=dt) for v in values],
                        name=name)
    return constant(np.array(values, dtype=np.int32), name=name)


# ---- Operators ------------------------------------------------------------


def _binary(fn, scope_name):
    # As TensorFlow: a plain operand becomes a Const inside the op's own
    # name scope ("add/y"), and the op takes the scope's name ("add").

    def op(x, y):
        with x.graph.name_scope(scope_name) as scope:
            a, b = _pair(x, y)
            return fn(a, b, name=scope)

    def rop(y, x):
        with y.graph.name_scope(scope_name) as scope:
            a, b = _pair(x, y)
            return fn(a, b, name=scope)

    return op, rop


def _install_operators():
    T = framework.Tensor
    table = {
        "add": (add, "add"),
        "sub": (subtract, "sub"),
        "mul": (multiply, "mul"),
        "truediv": (truediv, "truediv"),
        "floordiv": (floordiv, "floordiv"),
        "mod": (floormod, "mod"),
        "pow": (pow, "pow"),
        "matmul": (matmul, "matmul"),
        "and": (ops.logical_and, "and"),
        "or": (ops.logical_or, "or"),
    }
    for name, (fn, scope) in table.items():
        op, rop = _binary(fn, scope)
        setattr(T, "__%s__" % name, op)
        setattr(T, "__r%s__" % name, rop)
    for name, fn, scope in (("lt", ops.less, "Less"),
                            ("le", ops.less_equal, "LessEqual"),
                            ("gt", ops.greater, "Greater"),
                            ("ge", ops.greater_equal, "GreaterEqual")):
        setattr(T, "__%s__" % name, _binary(fn, scope)[0])
    T.__neg__ = lambda x: negative(x)
    T.__abs__ = lambda x: ops.abs(x, name="Abs")
    T.__invert__ = lambda x: ops.logical_not(x, name="LogicalNot")
    T.__getitem__ = strided_slice_for


_install_operators()
