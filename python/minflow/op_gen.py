"""Op functions made from the op registry's OpDefs (MF_GetAllOpList) when
the package is imported, and from a custom-op library's OpList when
load_op_library loads it: one Python function per op, named in snake_case
(MatMul -> mat_mul), with the OpDef's inputs as arguments, its attrs as
keyword arguments with their defaults, and a docstring from the OpDef.

Note [Inferred attrs]
As TensorFlow's generated wrappers do, attrs that the inputs determine (a
type attr such as T, a list length N, a list of types) are not arguments:
the C API infers them from the input tensors (MF_FinishOperation). Plain
Python values and numpy arrays passed as inputs become Const ops; their
dtype is that of the tensors given for the same type attr when there are
some (so `x + 1` with a float x adds a float 1), else the arg's fixed type,
else the value's own (Python float -> float32, int -> int32).
"""
import collections
import inspect
import keyword
import re
import types

import numpy as np

from minflow import _proto
from minflow import _tensor
from minflow import dtypes
from minflow import errors
from minflow import framework
from minflow._c import ffi, lib

_OP_DEFS = {}


def op_def(op_type):
    """The decoded OpDef of a registered op (KeyError when unknown)."""
    return _OP_DEFS[op_type]


def _snake_one(name):
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i > 0:
            prev = name[i - 1]
            nxt = name[i + 1] if i + 1 < len(name) else ""
            if prev.islower() or (nxt.islower() and prev != "_"):
                out.append("_")
        out.append(c.lower())
    return "".join(out)


def snake_case(op_name):
    """TensorFlow's Python name of an op: MatMul -> mat_mul, Conv2D ->
    conv2d, Examples>ZeroOut -> examples_zero_out."""
    name = "_".join(_snake_one(part) for part in op_name.split(">"))
    return name + "_" if keyword.iskeyword(name) else name


def _py_name(name):
    return name + "_" if keyword.iskeyword(name) else name


# ---- Converting values ----------------------------------------------------


def _default_dtype(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.as_dtype(value.dtype)
    if isinstance(value, (bool, np.bool_)):
        return dtypes.bool
    if isinstance(value, (int, float)):
        return dtypes.float32 if isinstance(value, float) else dtypes.int32
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        return dtypes.float32  # Python lists of floats, as TensorFlow
    if arr.dtype == np.int64 and not isinstance(value, np.ndarray):
        return dtypes.int32
    return dtypes.as_dtype(arr.dtype)


def convert_to_tensor(value, dtype=None, name=None):
    """`value` as a Tensor of the default graph: Tensors pass through
    (checked against `dtype`), anything numpy takes becomes a Const."""
    if isinstance(value, framework.Tensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise ValueError(
                "Tensor conversion requested dtype %s for Tensor with dtype "
                "%s: %r" % (dtypes.as_dtype(dtype).name, value.dtype.name,
                            value))
        return value
    if isinstance(value, framework.Operation):
        raise TypeError("Can't convert Operation '%s' to Tensor" % value.name)
    return constant(value, dtype=dtype, name=name or "Const")


def constant(value, dtype=None, shape=None, name="Const"):
    """A Const op holding `value` (converted to `dtype`, and broadcast to
    `shape` when it is a scalar)."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else _default_dtype(
        value)
    if dtype.as_numpy_dtype is None and dtype != dtypes.string:
        raise TypeError("constant: %s values cannot be made from Python yet"
                        % dtype.name)
    if isinstance(value, framework.Tensor):
        raise TypeError("constant: value must be a Python or numpy value, "
                        "not a Tensor (%s)" % value.name)
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        if shape is not None and list(arr.shape) != list(shape):
            arr = (np.full(list(shape), arr.reshape(()), dtype=object)
                   if arr.size == 1 else arr.reshape(list(shape)))
        return _const(arr, dtype, name)
    arr = np.asarray(value)
    if arr.dtype.kind in "fc" and dtype.is_integer:
        raise TypeError("Expected %s, but got %r of type '%s'." %
                        (dtype.name, value, type(value).__name__))
    arr = arr.astype(dtype.as_numpy_dtype, copy=False)
    if shape is not None:
        shape = list(shape)
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif list(arr.shape) != shape:
            arr = arr.reshape(shape)
    return _const(arr, dtype, name)


def _const(arr, dtype, name):
    """A Const of `arr`, an array already of `dtype` (object for strings)."""
    g = framework.get_default_graph()
    status = g._status
    t = _tensor.to_mf_tensor(arr, dtype, status.ptr)

    def set_value(desc):
        lib.MF_SetAttrTensor(desc, b"value", t, status.ptr)

    def set_dtype(desc):
        lib.MF_SetAttrType(desc, b"dtype", dtype.as_datatype_enum)

    try:
        op = g.create_op("Const", [], {
            "value": set_value,
            "dtype": set_dtype
        },
                         name=name)
    finally:
        lib.MF_DeleteTensor(t)
    return op._outputs[0]


# ---- Setting attrs --------------------------------------------------------


def _dims(shape):
    if shape is None:
        return None
    if isinstance(shape, framework.TensorShape):
        shape = shape.dims
        if shape is None:
            return None
    return [-1 if d is None else int(d) for d in shape]


def _attr_setter(op_type, attr, value):
    """A function that sets `value` as attr `attr` (an AttrDef) on an
    MF_OperationDescription*; TypeError for a value of the wrong kind."""
    name = attr.name.encode()
    kind = attr.type
    try:
        if kind == "string":
            v = value.encode() if isinstance(value, str) else bytes(value)
            return lambda d: lib.MF_SetAttrString(d, name, v, len(v))
        if kind == "int":
            v = int(value)
            return lambda d: lib.MF_SetAttrInt(d, name, v)
        if kind == "float":
            v = float(value)
            return lambda d: lib.MF_SetAttrFloat(d, name, v)
        if kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError("expected a bool")
            v = bool(value)
            return lambda d: lib.MF_SetAttrBool(d, name, v)
        if kind == "type":
            v = dtypes.as_dtype(value).as_datatype_enum
            return lambda d: lib.MF_SetAttrType(d, name, v)
        if kind == "shape":
            dims = _dims(value)
            if dims is None:
                return lambda d: lib.MF_SetAttrShape(d, name, ffi.NULL, -1)
            arr = ffi.new("int64_t[]", dims)
            return lambda d: lib.MF_SetAttrShape(d, name, arr, len(dims))
        if kind == "tensor":
            return _tensor_attr_setter(name, value)
        if kind.startswith("list("):
            return _list_attr_setter(name, kind[5:-1], list(value))
    except (TypeError, ValueError) as e:
        raise TypeError("%s: attr '%s' must be a %s, but got %r (%s)" %
                        (op_type, attr.name, kind, value, e))
    raise TypeError("%s: attr '%s' of type %s cannot be set from Python yet"
                    % (op_type, attr.name, kind))


def _tensor_attr_setter(name, value):
    status = framework.get_default_graph()._status

    def set_tensor(d):
        t = _tensor.to_mf_tensor(value, None, status.ptr)
        try:
            lib.MF_SetAttrTensor(d, name, t, status.ptr)
        finally:
            lib.MF_DeleteTensor(t)

    return set_tensor


def _list_attr_setter(name, kind, values):
    n = len(values)
    if kind == "string":
        bs = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
        keep = [ffi.new("char[]", b) for b in bs]
        ptrs = ffi.new("void*[]", keep)
        lens = ffi.new("size_t[]", [len(b) for b in bs])
        return lambda d: (keep, lib.MF_SetAttrStringList(d, name, ptrs, lens,
                                                         n))
    if kind == "int":
        arr = ffi.new("int64_t[]", [int(v) for v in values])
        return lambda d: lib.MF_SetAttrIntList(d, name, arr, n)
    if kind == "float":
        arr = ffi.new("float[]", [float(v) for v in values])
        return lambda d: lib.MF_SetAttrFloatList(d, name, arr, n)
    if kind == "bool":
        arr = ffi.new("unsigned char[]", [bool(v) for v in values])
        return lambda d: lib.MF_SetAttrBoolList(d, name, arr, n)
    if kind == "type":
        arr = ffi.new("MF_DataType[]",
                      [dtypes.as_dtype(v).as_datatype_enum for v in values])
        return lambda d: lib.MF_SetAttrTypeList(d, name, arr, n)
    if kind == "shape":
        dims = [_dims(v) for v in values]
        keep = [ffi.new("int64_t[]", x or []) for x in dims]
        ptrs = ffi.new("int64_t*[]", keep)
        nds = ffi.new("int[]", [-1 if x is None else len(x) for x in dims])
        return lambda d: (keep, lib.MF_SetAttrShapeList(d, name, ptrs, nds, n))
    raise TypeError("list(%s) attrs cannot be set from Python yet" % kind)


# ---- Applying an op -------------------------------------------------------


class _OpInfo(object):
    """What apply_op needs of an OpDef, worked out once per op."""

    def __init__(self, od):
        self.op_def = od
        inferred = set()
        for arg in od.input_arg:
            for a in (arg.type_attr, arg.number_attr, arg.type_list_attr):
                if a:
                    inferred.add(a)
        self.attrs = dict((a.name, a) for a in od.attr)
        # Attrs that are arguments: not inferred, required ones first.
        self.arg_attrs = [a for a in od.attr if a.name not in inferred]
        self.inferred = inferred
        self.list_outputs = any(a.is_list for a in od.output_arg)
        if len(od.output_arg) > 1:
            self.result_type = collections.namedtuple(
                snake_case(od.name).title().replace("_", ""),
                [_py_name(a.name) for a in od.output_arg])
        else:
            self.result_type = None


def _as_input(value, dtype, op_type, arg_name):
    if isinstance(value, framework.Tensor):
        return value
    if isinstance(value, framework.Operation):
        raise TypeError("%s: input '%s' must be a Tensor, but got Operation "
                        "'%s'" % (op_type, arg_name, value.name))
    try:
        return constant(value, dtype=dtype, name=arg_name)
    except (TypeError, ValueError) as e:
        raise TypeError("%s: cannot convert %r to a Tensor for input '%s': %s"
                        % (op_type, value, arg_name, e))


def apply_op(info, bound, name):
    """Adds the op to the default graph. `bound` maps argument names to
    values. Returns its outputs (see the op function's docstring)."""
    od = info.op_def
    g = framework.get_default_graph()
    # Type attrs known from tensors given, for converting plain values.
    known = {}
    for arg in od.input_arg:
        if arg.type_attr:
            v = bound[_py_name(arg.name)]
            vs = v if arg.number_attr else [v]
            for x in vs if isinstance(vs, (list, tuple)) else [vs]:
                if isinstance(x, framework.Tensor):
                    known.setdefault(arg.type_attr, x.dtype)
                    break
    needs_conversion = any(
        not isinstance(bound[_py_name(arg.name)], framework.Tensor)
        for arg in od.input_arg)
    op_name, exact = name or od.name, False
    if op_name.endswith("/"):
        op_name, exact = op_name[:-1], True
    if needs_conversion:
        # As TensorFlow: the consts go inside the op's own scope ("add/y").
        with g.name_scope(op_name + "/" if exact else op_name) as scope:
            inputs = _convert_inputs(od, bound, known)
        op_name, exact = scope[:-1], True
    else:
        inputs = [bound[_py_name(arg.name)] for arg in od.input_arg]
    setters = {}
    for a in info.arg_attrs:
        v = bound.get(_py_name(a.name))
        if v is None:
            continue  # the C API fills in the default
        setters[a.name] = _attr_setter(od.name, a, v)
    op = g.create_op(od.name, inputs, setters, name=op_name, unique=not exact)
    outs = op._outputs
    if not od.output_arg:
        return op
    if not info.list_outputs:
        if len(outs) == 1:
            return outs[0]
        return info.result_type(*outs)
    result, i = [], 0
    for arg in od.output_arg:
        if arg.number_attr:
            n = op.get_attr(arg.number_attr)
            result.append(list(outs[i:i + n]))
        elif arg.type_list_attr:
            n = len(op.get_attr(arg.type_list_attr))
            result.append(list(outs[i:i + n]))
        else:
            n = 1
            result.append(outs[i])
        i += n
    return result[0] if len(result) == 1 else info.result_type(*result)


def _convert_inputs(od, bound, known):
    inputs = []
    for arg in od.input_arg:
        v = bound[_py_name(arg.name)]
        dt = dtypes.as_dtype(arg.type) if arg.type else known.get(
            arg.type_attr)
        if arg.is_list:
            if isinstance(v, framework.Tensor) or not isinstance(
                    v, (list, tuple)):
                raise TypeError("%s: input '%s' must be a list or tuple of "
                                "tensors, but got %r" % (od.name, arg.name, v))
            ts = [_as_input(x, dt, od.name, arg.name) for x in v]
            if arg.type_attr and dt is None and ts:
                known[arg.type_attr] = ts[0].dtype
            inputs.append(ts)
        else:
            t = _as_input(v, dt, od.name, arg.name)
            if arg.type_attr and dt is None:
                known[arg.type_attr] = t.dtype
            inputs.append(t)
    return inputs


def _type_text(arg, info=None):
    text = _type_text_only(arg)
    attr = info.attrs.get(arg.type_attr) if info and arg.type_attr else None
    if attr is not None and attr.allowed_values:
        text += ", one of: %s" % ", ".join(
            dtypes.as_dtype(v).name for v in attr.allowed_values)
    return text


def _type_text_only(arg):
    if arg.number_attr:
        base = ("`%s`" % arg.type_attr) if arg.type_attr else dtypes.as_dtype(
            arg.type).name
        return "A list of `%s` `Tensor` objects of type %s" % (arg.number_attr,
                                                               base)
    if arg.type_list_attr:
        return "A list of `Tensor` objects with types `%s`" % (
            arg.type_list_attr)
    if arg.type_attr:
        return "A `Tensor` of type `%s`" % arg.type_attr
    return "A `Tensor` of type `%s`" % dtypes.as_dtype(arg.type).name


def _default_text(attr):
    v = attr.default
    if attr.type == "type" and v is not None:
        return "minflow." + dtypes.as_dtype(v).name
    if attr.type == "string" and isinstance(v, bytes):
        return repr(v.decode("utf-8", "replace"))
    return repr(v)


def _continued(text):
    """An argument's description, its later lines indented under the first
    (Google style, as help() and doc tools read an Args entry)."""
    return text.replace("\n", "\n    ")


def _docstring(od, info):
    lines = []
    if od.summary:
        lines.append(od.summary)
    else:
        lines.append("The %s op." % od.name)
    if od.description:
        lines += ["", od.description]
    lines += ["", "Args:"]
    for arg in od.input_arg:
        text = "  %s: %s." % (_py_name(arg.name), _type_text(arg, info))
        if arg.description:
            text += " " + _continued(arg.description)
        lines.append(text)
    for a in info.arg_attrs:
        text = "  %s: %s `%s`." % (_py_name(a.name), "An optional"
                                   if a.has_default else "A", a.type)
        if a.allowed_values:
            vals = a.allowed_values
            if a.type in ("type", "list(type)"):
                vals = [dtypes.as_dtype(x).name for x in vals]
            text += " From: %s." % ", ".join(str(x) for x in vals)
        if a.has_default:
            text += " Defaults to `%s`." % _default_text(a)
        if a.description:
            text += " " + _continued(a.description)
        lines.append(text)
    lines.append("  name: A name for the operation (optional).")
    lines += ["", "Returns:"]
    if not od.output_arg:
        lines.append("  The created Operation.")
    for arg in od.output_arg:
        text = "  %s: %s." % (arg.name, _type_text(arg))
        if arg.description:
            text += " " + _continued(arg.description)
        lines.append(text)
    return "\n".join(lines)


def make_op_function(od):
    """The Python function that adds an `od` op to the default graph."""
    info = _OpInfo(od)
    params = []
    for arg in od.input_arg:
        params.append(
            inspect.Parameter(_py_name(arg.name),
                              inspect.Parameter.POSITIONAL_OR_KEYWORD))
    required = [a for a in info.arg_attrs if not a.has_default]
    optional = [a for a in info.arg_attrs if a.has_default]
    for a in required:
        params.append(
            inspect.Parameter(_py_name(a.name),
                              inspect.Parameter.POSITIONAL_OR_KEYWORD))
    for a in optional:
        default = a.default
        if a.type == "type" and default is not None:
            default = dtypes.as_dtype(default)
        elif a.type == "string" and isinstance(default, bytes):
            default = default.decode("utf-8", "replace")
        params.append(
            inspect.Parameter(_py_name(a.name),
                              inspect.Parameter.POSITIONAL_OR_KEYWORD,
                              default=default))
    params.append(
        inspect.Parameter("name",
                          inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=None))
    sig = inspect.Signature(params)
    # Arguments are bound by hand, with inspect.Signature.bind's messages:
    # bind() took a third of the time of adding a node from Python.
    names = [prm.name for prm in params]
    known = frozenset(names)
    required_names = [prm.name for prm in params
                      if prm.default is inspect.Parameter.empty]
    optional_names = [_py_name(a.name) for a in optional]

    def op_function(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError("%s(): too many positional arguments" % fn_name)
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in known:
                raise TypeError("%s(): got an unexpected keyword argument "
                                "'%s'" % (fn_name, key))
            if key in values:
                raise TypeError("%s(): multiple values for argument '%s'" %
                                (fn_name, key))
            values[key] = value
        for key in required_names:
            if key not in values:
                raise TypeError("%s(): missing a required argument: '%s'" %
                                (fn_name, key))
        for key in optional_names:
            values.setdefault(key, None)
        return apply_op(info, values, values.get("name"))

    fn_name = snake_case(od.name)
    op_function.__name__ = fn_name
    op_function.__qualname__ = fn_name
    op_function.__signature__ = sig
    op_function.__doc__ = _docstring(od, info)
    op_function.op_type = od.name
    return op_function


def _register(op_defs, module):
    """Adds a function per OpDef to `module` (snake_case name) and to
    minflow.raw_ops (the op's own name, '>' as '_')."""
    from minflow import raw_ops
    fns = []
    for od in op_defs:
        _OP_DEFS[od.name] = od
        fn = make_op_function(od)
        setattr(module, fn.__name__, fn)
        setattr(raw_ops, od.name.replace(">", "_"), fn)
        fns.append((od, fn))
    return fns


def _registered_op_defs():
    buf = lib.MF_GetAllOpList()
    try:
        data = ffi.buffer(buf.data, buf.length)[:]
    finally:
        lib.MF_DeleteBuffer(buf)
    return _proto.op_list(data)


def load_op_library(library_filename):
    """Loads a custom-op library (see minflow_add_op_library) and returns a
    module whose attributes are its ops' functions, in snake_case; an op
    of a namespace ('Examples>ZeroOut') is there under both its full name
    (examples_zero_out) and its own (zero_out). The ops also join
    minflow.ops and minflow.raw_ops. Raises NotFoundError,
    InvalidArgumentError, AlreadyExistsError, ... as the C API reports."""
    from minflow import ops as ops_module
    status = errors.Status()
    handle = lib.MF_LoadLibrary(library_filename.encode(), status.ptr)
    status.check()
    try:
        buf = lib.MF_GetOpList(handle)
        data = ffi.buffer(buf.data, buf.length)[:]
    finally:
        lib.MF_DeleteLibraryHandle(handle)
    module = types.ModuleType(
        re.sub(r"\W", "_", library_filename.rsplit("/", 1)[-1]),
        "Ops of the custom-op library %s." % library_filename)
    module.LIB_HANDLE = library_filename
    module.OP_LIST = data
    for od, fn in _register(_proto.op_list(data), ops_module):
        setattr(module, fn.__name__, fn)
        short = snake_case(od.name.rsplit(">", 1)[-1])
        if not hasattr(module, short):
            setattr(module, short, fn)
    return module


def register_all():
    from minflow import ops as ops_module
    _register(_registered_op_defs(), ops_module)
