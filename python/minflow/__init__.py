"""minflow for Python: build graphs with TensorFlow 1's graph-mode API and
run them in minflow, through its C API (include/minflow/c/c_api.h).

    import minflow as mf
    x = mf.placeholder(mf.float32, [None, 3], name="x")
    y = mf.matmul(x, [[1.0], [2.0], [3.0]]) + 1.0
    with mf.Session() as sess:
        print(sess.run(y, {x: [[1, 2, 3]]}))   # [[15.]]

Op functions for every registered op are in minflow.ops (snake_case) and
minflow.raw_ops (the op names), and at the top level where no hand-written
function takes the name. See python/README.md.
"""
from minflow._c import ffi as _ffi, lib as _lib
from minflow import dtypes
from minflow import errors
from minflow import ops
from minflow import raw_ops
from minflow import op_gen as _op_gen

_op_gen.register_all()

from minflow.dtypes import (DType, as_dtype, bfloat16, bool, complex64,  # noqa
                            complex128, double, float16, float32, float64,
                            half, int8, int16, int32, int64, resource, string,
                            uint8, uint16, uint32, uint64, variant)
from minflow.errors import OpError  # noqa: E402
from minflow.framework import (Function, Graph, GraphDef, Operation,  # noqa
                               Tensor, TensorShape, control_dependencies,
                               device,
                               get_default_graph, import_graph_def,
                               name_scope, reset_default_graph)
from minflow.math_ops import (add, argmax, cast, divide, floordiv,  # noqa
                              floormod, identity, matmul, multiply, negative,
                              placeholder, pow, reduce_max, reduce_mean,
                              reduce_sum, reshape, subtract, truediv)
from minflow.op_gen import constant, convert_to_tensor  # noqa: E402
from minflow.op_gen import load_op_library  # noqa: E402
from minflow.session import Session, get_default_session  # noqa: E402
from minflow.gradients_impl import (  # noqa: E402
    NotDifferentiable, RegisterGradient, gradients, no_gradient)

__version__ = _ffi.string(_lib.MF_Version()).decode()
newaxis = None


def _export_ops():
    g = globals()
    for name in dir(ops):
        if not name.startswith("_") and name not in g:
            g[name] = getattr(ops, name)


_export_ops()
