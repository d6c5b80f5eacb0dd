"""Symbolic gradients (tf.compat.v1.gradients) and gradient functions
written in Python (tf.RegisterGradient), over the C API's MF_AddGradients
and MF_RegisterGradientFunction.

    x = mf.placeholder(mf.float32, [3])
    y = x * x + 3.0 * x
    dx, = mf.gradients(y, x)               # 2x + 3

    @mf.RegisterGradient("MyOp")
    def _my_op_grad(op, grad):              # one gradient per output
        return [grad * 2.0]                 # one per input, None: none

A Python gradient function runs while minflow.gradients builds the graph:
it adds ops with the op functions as any other code does, under a name
scope of its own ("gradients/<op name>_grad/").
"""
import threading

from minflow import errors
from minflow import framework
from minflow._c import ffi, lib

# Op type -> (function, cffi handle): the C registry keeps the handle's
# pointer for good, so both live as long as the process.
_registered = {}
_registry_lock = threading.Lock()
# .graphs: the Graphs minflow.gradients is building on this thread;
# .error: the exception a gradient function raised during the call.
_local = threading.local()


def _graph_of(c_graph):
    for g in reversed(getattr(_local, "graphs", [])):
        if g._c_graph == c_graph:
            return g
    raise RuntimeError("a Python gradient function was called for a graph "
                       "that minflow.gradients is not building")


def _gradient_list(result, op, num_inputs):
    if result is None or isinstance(result, framework.Tensor):
        result = [result]
    else:
        result = list(result)
    if len(result) != num_inputs:
        raise ValueError(
            "The gradient function of op %s (%s) returned %d gradients, but "
            "the op has %d inputs" % (op.name, op.type, len(result),
                                      num_inputs))
    return result


@ffi.callback("void(void*, MF_Graph*, MF_Operation*, const char*, "
              "const MF_Output*, int, MF_Output*, int, MF_Status*)")
def _c_gradient(context, c_graph, c_op, name_scope, output_grads,
                num_outputs, input_grads, num_inputs, status):
    # Nothing may escape a cffi callback: the exception is kept for
    # minflow.gradients to raise again, and the status carries its text.
    try:
        from minflow.op_gen import convert_to_tensor
        fn = ffi.from_handle(context)
        graph = _graph_of(c_graph)
        op = graph._wrap(c_op)
        grads = []
        for i in range(num_outputs):
            out = output_grads[i]
            grads.append(None if out.oper == ffi.NULL else
                         graph._wrap(out.oper)._outputs[out.index])
        scope = ffi.string(name_scope).decode() + "/"
        with graph.as_default(), graph.name_scope(scope):
            result = _gradient_list(fn(op, *grads), op, num_inputs)
            for i, grad in enumerate(result):
                if grad is None:
                    continue
                t = convert_to_tensor(grad, dtype=op.inputs[i].dtype)
                if t.graph is not graph:
                    raise ValueError(
                        "The gradient function of op %s returned a tensor "
                        "of another graph for input %d" % (op.name, i))
                input_grads[i].oper = t.op._c_op
                input_grads[i].index = t.value_index
    except BaseException as e:  # noqa: B902 (re-raised by gradients())
        if getattr(_local, "error", None) is None:
            _local.error = e
        text = "%s: %s" % (type(e).__name__, e)
        lib.MF_SetStatus(status, errors.UNKNOWN, text.encode("utf-8",
                                                             "replace"))


class RegisterGradient(object):
    """Decorator registering `fn(op, *grads) -> list` as the gradient of
    op type `op_type`: `grads` holds one Tensor per output of `op` (the
    gradient flowing into it), and the list one gradient per input (a
    Tensor, something convertible to one, or None for no gradient).

    The registry is the process-wide one C++ gradients are in: an op type
    that already has a gradient (or is declared to have none) raises
    KeyError, as a second registration does."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        with _registry_lock:
            if self._op_type in _registered:
                raise KeyError("A Python gradient for op type '%s' is "
                               "already registered" % self._op_type)
            handle = ffi.new_handle(fn)
            status = errors.Status()
            lib.MF_RegisterGradientFunction(self._op_type.encode(),
                                            _c_gradient, handle, status.ptr)
            if lib.MF_GetCode(status.ptr) == errors.ALREADY_EXISTS:
                raise KeyError(
                    ffi.string(lib.MF_Message(status.ptr)).decode())
            status.check()
            _registered[self._op_type] = (fn, handle)
        return fn


def NotDifferentiable(op_type):  # noqa: N802 (TensorFlow's name)
    """Declares that op type `op_type` has no gradient: gradients stop at
    it instead of failing with NotFoundError (TensorFlow's
    NotDifferentiable / no_gradient). KeyError when the op type has a
    gradient or is declared already."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    status = errors.Status()
    lib.MF_RegisterNoGradient(op_type.encode(), status.ptr)
    if lib.MF_GetCode(status.ptr) == errors.ALREADY_EXISTS:
        raise KeyError(ffi.string(lib.MF_Message(status.ptr)).decode())
    status.check()


no_gradient = NotDifferentiable


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _outputs(tensors):
    arr = ffi.new("MF_Output[]", max(1, len(tensors)))
    for i, t in enumerate(tensors):
        arr[i].oper = t.op._c_op
        arr[i].index = t.value_index
    return arr


def gradients(ys, xs, grad_ys=None, name="gradients",
              unconnected_gradients="none"):
    """The symbolic derivatives of sum(ys) with respect to each x
    (tf.compat.v1.gradients): a list with one Tensor per x, or None where
    no y depends on the x through floating-point edges
    (unconnected_gradients="zero": zeros shaped as the x instead).

    `grad_ys` (one per y; None entries are ones) is the gradient flowing
    into each y. The new ops are named under `name` (made unique). Raises
    NotFoundError for an op on the path with no gradient, and whatever a
    Python gradient function raised (its cause: the OpError naming the
    op)."""
    from minflow import ops
    from minflow.op_gen import convert_to_tensor
    if unconnected_gradients not in ("none", "zero"):
        raise ValueError("Unknown value for unconnected_gradients: %r" %
                         (unconnected_gradients,))
    ys, xs = _as_list(ys), _as_list(xs)
    for t in ys + xs:
        if not isinstance(t, framework.Tensor):
            raise TypeError("ys and xs must be Tensors, but got %r" % (t,))
    graph = ys[0].graph if ys else (xs[0].graph if xs else None)
    if graph is None:
        return []
    for t in ys + xs:
        if t.graph is not graph:
            raise ValueError("%s is not an element of the graph of %s" %
                             (t.name, (ys + xs)[0].name))
    with graph.as_default():
        dx = None
        if grad_ys is not None:
            grad_ys = _as_list(grad_ys)
            if len(grad_ys) != len(ys):
                raise ValueError("Passed %d grad_ys for %d ys" %
                                 (len(grad_ys), len(ys)))
            grad_ys = [
                ops.ones_like(y) if g is None else
                convert_to_tensor(g, dtype=y.dtype)
                for g, y in zip(grad_ys, ys)
            ]
            dx = _outputs(grad_ys)
        scope = graph.unique_name(name or "gradients")
        y_arr, x_arr = _outputs(ys), _outputs(xs)
        dy = ffi.new("MF_Output[]", max(1, len(xs)))
        status = errors.Status()
        before = lib.MF_GraphNumOperations(graph._c_graph)
        version = graph._version
        _local.graphs = getattr(_local, "graphs", []) + [graph]
        _local.error = None
        try:
            lib.MF_AddGradientsWithPrefix(graph._c_graph, scope.encode(),
                                          y_arr, len(ys), x_arr, len(xs),
                                          dx if dx is not None else ffi.NULL,
                                          status.ptr, dy)
        finally:
            _local.graphs = _local.graphs[:-1]
            error, _local.error = _local.error, None
        added = lib.MF_GraphNumOperations(graph._c_graph) - before
        # Ops a Python gradient function made were counted by create_op;
        # on failure MF_AddGradients removed them again.
        graph._version = version + added
        if error is not None:
            try:
                status.check(graph)
            except errors.OpError as op_error:
                raise error from op_error
        status.check(graph)
        if added:
            # Ids only grow: the new ops come last.
            new_ops = graph.get_operations()[-added:]
            graph._add_names_of([op.name for op in new_ops])
        result = []
        for i, x in enumerate(xs):
            if dy[i].oper == ffi.NULL:
                if unconnected_gradients == "zero":
                    with graph.name_scope(scope + "/"):
                        result.append(ops.zeros_like(x))
                else:
                    result.append(None)
            else:
                result.append(graph._wrap(dy[i].oper)._outputs[dy[i].index])
        return result
