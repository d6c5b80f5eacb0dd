"""Graphs, operations and symbolic tensors over the C API's MF_Graph, with
TensorFlow 1's default graph, name scopes, control dependencies and
devices."""
import contextlib
import re
import threading

from minflow import _proto
from minflow import dtypes
from minflow import errors
from minflow._c import ffi, lib


def _addr(ptr):
    return int(ffi.cast("uintptr_t", ptr))


def _s(ptr):
    return ffi.string(ptr).decode("utf-8") if ptr != ffi.NULL else None


class TensorShape(object):
    """A shape from shape inference: `dims` is a list (None for unknown
    sizes) or None when even the rank is unknown."""
    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        else:
            self._dims = [
                None if d is None or d < 0 else int(d) for d in dims
            ]

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self):
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown "
                             "TensorShape.")
        return list(self._dims)

    def is_fully_defined(self):
        return self._dims is not None and None not in self._dims

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown "
                             "rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, i):
        return self._dims[i]

    def __eq__(self, other):
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (list, tuple)):
            return self._dims == list(other)
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __repr__(self):
        return "TensorShape(%s)" % (None if self._dims is None else
                                    self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        text = ", ".join("?" if d is None else str(d) for d in self._dims)
        return "(%s,)" % text if len(self._dims) == 1 else "(%s)" % text


class Tensor(object):
    """Output `value_index` of operation `op`: a symbolic value, computed by
    Session.run. Operators (+ - * / @, comparisons, indexing) add ops to the
    op's graph; see minflow/math_ops.py."""
    __slots__ = ("_op", "_index", "_dtype", "__weakref__")
    # numpy defers binary operators to Tensor (np_array + tensor works).
    __array_priority__ = 100

    def __init__(self, op, value_index):
        self._op = op
        self._index = value_index
        self._dtype = None  # an output's dtype never changes: asked once

    @property
    def op(self):
        return self._op

    @property
    def value_index(self):
        return self._index

    @property
    def graph(self):
        return self._op._graph

    @property
    def name(self):
        return "%s:%d" % (self._op.name, self._index)

    @property
    def device(self):
        return self._op.device

    @property
    def dtype(self):
        if self._dtype is None:
            self._dtype = dtypes.as_dtype(
                lib.MF_OperationOutputType(self._as_output()))
        return self._dtype

    @property
    def shape(self):
        g = self._op._graph
        status = g._status
        out = self._as_output()
        n = lib.MF_GraphGetTensorNumDims(g._c_graph, out, status.ptr)
        status.check(g)
        if n < 0:
            return TensorShape(None)
        dims = ffi.new("int64_t[]", n)
        lib.MF_GraphGetTensorShape(g._c_graph, out, dims, n, status.ptr)
        status.check(g)
        return TensorShape(list(dims))

    def get_shape(self):
        return self.shape

    def consumers(self):
        out = self._as_output()
        n = lib.MF_OperationOutputNumConsumers(out)
        if n <= 0:
            return []
        inputs = ffi.new("MF_Input[]", n)
        n = lib.MF_OperationOutputConsumers(out, inputs, n)
        g = self._op._graph
        return [g._wrap(inputs[i].oper) for i in range(n)]

    def eval(self, feed_dict=None, session=None):
        from minflow.session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No "
                             "default session is registered.")
        return session.run(self, feed_dict)

    def _as_output(self):
        return (self._op._c_op, self._index)

    def __repr__(self):
        return "<minflow.Tensor '%s' shape=%s dtype=%s>" % (
            self.name, self.shape, self.dtype.name)

    # Equality and hashing are by identity, as TensorFlow 1's graph tensors:
    # each output has exactly one Tensor object (Operation.outputs).

    def __bool__(self):
        raise TypeError("Using a `minflow.Tensor` as a Python `bool` is not "
                        "allowed. Use `if t is not None:` instead of `if t:` "
                        "to test if a tensor is defined.")

    def __iter__(self):
        raise TypeError("Tensor objects are only iterable when eager "
                        "execution is enabled; minflow builds graphs.")


class Operation(object):
    """A node of a Graph (an MF_Operation*), owned by the graph."""
    __slots__ = ("_c_op", "_graph", "_outputs", "__weakref__")

    def __init__(self, c_op, graph):
        self._c_op = c_op
        self._graph = graph
        n = lib.MF_OperationNumOutputs(c_op)
        self._outputs = tuple(Tensor(self, i) for i in range(n))

    @property
    def name(self):
        return _s(lib.MF_OperationName(self._c_op))

    @property
    def type(self):
        return _s(lib.MF_OperationOpType(self._c_op))

    @property
    def device(self):
        return _s(lib.MF_OperationDevice(self._c_op))

    @property
    def graph(self):
        return self._graph

    @property
    def outputs(self):
        return list(self._outputs)

    @property
    def inputs(self):
        n = lib.MF_OperationNumInputs(self._c_op)
        result = []
        for i in range(n):
            out = lib.MF_OperationInput((self._c_op, i))
            result.append(self._graph._wrap(out.oper)._outputs[out.index])
        return result

    @property
    def control_inputs(self):
        n = lib.MF_OperationNumControlInputs(self._c_op)
        if n <= 0:
            return []
        ops = ffi.new("MF_Operation*[]", n)
        n = lib.MF_OperationGetControlInputs(self._c_op, ops, n)
        return [self._graph._wrap(ops[i]) for i in range(n)]

    @property
    def node_def(self):
        """The NodeDef, binary (serialized)."""
        buf = ffi.gc(lib.MF_NewBuffer(), lib.MF_DeleteBuffer)
        status = self._graph._status
        lib.MF_OperationToNodeDef(self._c_op, buf, status.ptr)
        status.check(self._graph)
        return ffi.buffer(buf.data, buf.length)[:]

    @property
    def op_def(self):
        from minflow import op_gen
        return op_gen.op_def(self.type)

    def get_attr(self, name):
        """The attr's value: int, float, bool, bytes, DType, a list of dims
        (None for an unknown rank), lists of those, or a TensorProto's
        bytes. ValueError when the operation has no such attr."""
        buf = ffi.gc(lib.MF_NewBuffer(), lib.MF_DeleteBuffer)
        status = self._graph._status
        lib.MF_OperationGetAttrValueProto(self._c_op, name.encode(), buf,
                                          status.ptr)
        if lib.MF_GetCode(status.ptr) == errors.NOT_FOUND:
            raise ValueError("Operation '%s' has no attr named '%s'." %
                             (self.name, name))
        status.check(self._graph)
        kind, value = _proto.attr_value(ffi.buffer(buf.data, buf.length)[:])
        if kind == "type":
            return dtypes.as_dtype(value)
        if kind == "list(type)":
            return [dtypes.as_dtype(v) for v in value]
        return value

    def values(self):
        return tuple(self._outputs)

    def run(self, feed_dict=None, session=None):
        from minflow.session import get_default_session
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot execute operation using `run()`: No "
                             "default session is registered.")
        session.run(self, feed_dict)

    def __repr__(self):
        return "<minflow.Operation '%s' type=%s>" % (self.name, self.type)


class GraphDef(bytes):
    """A serialized GraphDef (binary), as bytes, with the protobuf method a
    TensorFlow user calls and the nodes' names and ops."""

    def SerializeToString(self):
        return bytes(self)

    @property
    def node(self):
        return [_NodeInfo(name, op) for name, op in _proto.graph_def_nodes(self)]


class _NodeInfo(object):
    __slots__ = ("name", "op")

    def __init__(self, name, op):
        self.name = name
        self.op = op

    def __repr__(self):
        return "node { name: %r op: %r }" % (self.name, self.op)


_VALID_SCOPE = re.compile(r"^[A-Za-z0-9_.\-/>]*$")


class Graph(object):
    """A dataflow graph (an MF_Graph). Ops made by the op functions go into
    the default graph: `with g.as_default():` makes `g` the default. Safe
    to read from several threads; build it from one."""

    def __init__(self):
        self._c_graph = ffi.gc(lib.MF_NewGraph(), lib.MF_DeleteGraph)
        self._status = errors.Status()
        self._ops = {}  # MF_Operation* address -> Operation
        self._names_in_use = {}  # lower-cased name -> count
        self._scope = ""
        self._control_deps = []  # stack of lists of Operations
        self._device_stack = []
        self._version = 0  # operations added so far

    # ---- operations -------------------------------------------------------

    def _wrap(self, c_op):
        key = _addr(c_op)
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = Operation(c_op, self)
        return op

    def _operation_by_name_or_none(self, name):
        c_op = lib.MF_GraphOperationByName(self._c_graph, name.encode())
        return None if c_op == ffi.NULL else self._wrap(c_op)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError("Operation names are strings (or similar), not "
                            "%s." % type(name).__name__)
        op = self._operation_by_name_or_none(name)
        if op is None:
            raise KeyError("The name %r refers to an Operation not in the "
                           "graph." % name)
        return op

    def get_tensor_by_name(self, name):
        if not isinstance(name, str) or ":" not in name:
            raise ValueError("The name %r looks like an (invalid) Operation "
                             "name, not a Tensor. Tensor names must be of "
                             "the form \"<op_name>:<output_index>\"." %
                             (name,))
        op_name, index = name.rsplit(":", 1)
        op = self.get_operation_by_name(op_name)
        try:
            return op._outputs[int(index)]
        except (ValueError, IndexError):
            raise KeyError("The name %r refers to a Tensor which does not "
                           "exist. The operation, %r, exists but only has "
                           "%d outputs." % (name, op_name, len(op._outputs)))

    def as_graph_element(self, obj, allow_tensor=True,
                         allow_operation=True):
        """A Tensor or Operation of this graph from itself or its name."""
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError("Tensor %s is not an element of this graph."
                                 % obj.name)
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError("Operation %s is not an element of this "
                                 "graph." % obj.name)
            return obj
        if isinstance(obj, str):
            if ":" in obj and allow_tensor:
                return self.get_tensor_by_name(obj)
            if allow_operation:
                return self.get_operation_by_name(obj)
        raise TypeError("Can not convert a %s into a %s." %
                        (type(obj).__name__, "Tensor or Operation"
                         if allow_tensor and allow_operation else
                         "Tensor" if allow_tensor else "Operation"))

    def get_operations(self):
        ops, pos = [], ffi.new("size_t*", 0)
        while True:
            c_op = lib.MF_GraphNextOperation(self._c_graph, pos)
            if c_op == ffi.NULL:
                return ops
            ops.append(self._wrap(c_op))

    def _add_names_of(self, names):
        for name in names:
            self._names_in_use.setdefault(name.lower(), 1)
            # Scopes of imported names are taken too.
            parts = name.split("/")
            for i in range(1, len(parts)):
                self._names_in_use.setdefault("/".join(parts[:i]).lower(), 1)

    # ---- names ------------------------------------------------------------

    def get_name_scope(self):
        return self._scope

    def unique_name(self, name, mark_as_used=True):
        """`name` inside the current name scope, with "_1", "_2", ...
        appended when it is taken (compared without case, as TensorFlow
        does)."""
        if self._scope:
            name = self._scope + "/" + name
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while "%s_%d" % (base, i) in self._names_in_use:
                i += 1
            if mark_as_used:
                self._names_in_use["%s_%d" % (base, i)] = 1
            name = "%s_%d" % (name, i)
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        """Prefixes the names of ops made inside with `name`/ (made unique);
        a name ending in "/" is used as is; None or "" resets to the top."""
        old = self._scope
        if not name:
            new = ""
        elif name.endswith("/"):
            if not _VALID_SCOPE.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            new = name[:-1]
        else:
            if not _VALID_SCOPE.match(name):
                raise ValueError("'%s' is not a valid scope name" % name)
            new = self.unique_name(name)
        self._scope = new
        try:
            yield (new + "/") if new else ""
        finally:
            self._scope = old

    # ---- control dependencies and devices ---------------------------------

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops made inside run after every op (or op of a tensor) in
        `control_inputs`; None clears the outer dependencies."""
        if control_inputs is None:
            saved, self._control_deps = self._control_deps, []
            try:
                yield
            finally:
                self._control_deps = saved
            return
        ops = []
        for c in control_inputs:
            if isinstance(c, Tensor):
                c = c.op
            if not isinstance(c, Operation):
                raise TypeError("Control input must be Operation or Tensor: "
                                "%r" % (c,))
            if c.graph is not self:
                raise ValueError("Control input %s is not an element of this "
                                 "graph." % c.name)
            ops.append(c)
        self._control_deps.append(ops)
        try:
            yield
        finally:
            self._control_deps.pop()

    @contextlib.contextmanager
    def device(self, device_name):
        """Ops made inside ask for `device_name` ("/device:CPU:0", "/cpu:0",
        ...); None clears it."""
        self._device_stack.append(device_name)
        try:
            yield
        finally:
            self._device_stack.pop()

    def _current_device(self):
        return self._device_stack[-1] if self._device_stack else None

    def _current_control_inputs(self):
        seen, result = set(), []
        for ops in self._control_deps:
            for op in ops:
                if id(op) not in seen:
                    seen.add(id(op))
                    result.append(op)
        return result

    # ---- building ---------------------------------------------------------

    def create_op(self, op_type, inputs, attrs=None, name=None, unique=True):
        """Adds an op: `inputs` is a list whose items are Tensors or lists of
        Tensors (one item per input arg), `attrs` a dict of attr name to a
        callable that sets it on an MF_OperationDescription*. Prefer the op
        functions (minflow.ops). `unique`=False takes `name` as the
        full, already unique name."""
        name = self.unique_name(name or op_type) if unique else name
        desc = lib.MF_NewOperation(self._c_graph, op_type.encode(),
                                   name.encode())
        for item in inputs:
            if isinstance(item, Tensor):
                self._check_own(item, name)
                lib.MF_AddInput(desc, item._as_output())
            else:
                for t in item:
                    self._check_own(t, name)
                lib.MF_AddInputList(desc,
                                    [t._as_output() for t in item], len(item))
        for setter in (attrs or {}).values():
            setter(desc)
        dev = self._current_device()
        if dev:
            lib.MF_SetDevice(desc, dev.encode())
        for op in self._current_control_inputs():
            lib.MF_AddControlInput(desc, op._c_op)
        status = self._status
        c_op = lib.MF_FinishOperation(desc, status.ptr)
        status.check(self)
        self._version += 1
        return self._wrap(c_op)

    def _check_own(self, t, op_name):
        if t.graph is not self:
            raise ValueError(
                "Tensor %s must be from the same graph as the operation "
                "'%s' it feeds." % (t.name, op_name))

    # ---- GraphDefs --------------------------------------------------------

    def as_graph_def(self):
        buf = ffi.gc(lib.MF_NewBuffer(), lib.MF_DeleteBuffer)
        lib.MF_GraphToGraphDef(self._c_graph, buf, self._status.ptr)
        self._status.check(self)
        return GraphDef(ffi.buffer(buf.data, buf.length)[:])

    def _import(self, graph_def, prefix, device=None, input_map=(),
                return_outputs=(), return_operations=()):
        """Imports `graph_def` under `prefix`; `input_map` holds
        ((name, index), Tensor) pairs, `return_outputs` (name, index) pairs
        and `return_operations` names, all as the GraphDef names them.
        Returns the new Operations, the requested Tensors and Operations,
        and the input_map keys that name no tensor of the GraphDef."""
        if isinstance(graph_def, str):
            graph_def = graph_def.encode("utf-8")  # text format
        data = bytes(graph_def)
        buf = ffi.gc(lib.MF_NewBufferFromString(data, len(data)),
                     lib.MF_DeleteBuffer)
        opts = ffi.gc(lib.MF_NewImportGraphDefOptions(),
                      lib.MF_DeleteImportGraphDefOptions)
        if prefix:
            lib.MF_ImportGraphDefOptionsSetPrefix(opts, prefix.encode())
        if device:
            lib.MF_ImportGraphDefOptionsSetDefaultDevice(opts, device.encode())
        for (src, index), t in input_map:
            lib.MF_ImportGraphDefOptionsAddInputMapping(
                opts, src.encode(), index, t._as_output())
        for src, index in return_outputs:
            lib.MF_ImportGraphDefOptionsAddReturnOutput(opts, src.encode(),
                                                        index)
        for src in return_operations:
            lib.MF_ImportGraphDefOptionsAddReturnOperation(opts, src.encode())
        before = lib.MF_GraphNumOperations(self._c_graph)
        results = lib.MF_GraphImportGraphDefWithResults(
            self._c_graph, buf, opts, self._status.ptr)
        self._status.check(self)
        results = ffi.gc(results, lib.MF_DeleteImportGraphDefResults)
        ops = self.get_operations()[before:]
        self._add_names_of([op.name for op in ops])
        self._version += len(ops)
        n = ffi.new("int*")
        outs = ffi.new("MF_Output**")
        lib.MF_ImportGraphDefResultsReturnOutputs(results, n, outs)
        tensors = [
            self._wrap(outs[0][i].oper).outputs[outs[0][i].index]
            for i in range(n[0])
        ]
        opers = ffi.new("MF_Operation***")
        lib.MF_ImportGraphDefResultsReturnOperations(results, n, opers)
        operations = [self._wrap(opers[0][i]) for i in range(n[0])]
        names = ffi.new("char***")
        indexes = ffi.new("int**")
        lib.MF_ImportGraphDefResultsMissingUnusedInputMappings(
            results, n, names, indexes)
        missing = [
            "%s:%d" % (ffi.string(names[0][i]).decode(), indexes[0][i])
            for i in range(n[0])
        ]
        return ops, tensors, operations, missing

    # ---- functions --------------------------------------------------------

    def as_function(self, name, inputs, outputs, output_names=None,
                    description=None):
        """A Function made of this graph's ops between `inputs` (Tensors
        output by Placeholders, which become its arguments) and `outputs`
        (Tensors), as TensorFlow's TF_GraphToFunction: every op but the
        input Placeholders is its body. InvalidArgumentError naming the op
        when an input is not a Placeholder's, a body op reads a tensor that
        is neither an input nor made in the body, or output names repeat."""
        c_in = ffi.new("MF_Output[]", [t._as_output() for t in inputs])
        c_out = ffi.new("MF_Output[]", [t._as_output() for t in outputs])
        keep = []
        names = ffi.NULL
        if output_names is not None:
            if len(output_names) != len(outputs):
                raise ValueError("as_function: %d output_names for %d "
                                 "outputs" % (len(output_names), len(outputs)))
            keep = [ffi.new("char[]", n.encode()) for n in output_names]
            names = ffi.new("char*[]", keep)
        func = lib.MF_GraphToFunction(
            self._c_graph, name.encode(), 0, -1, ffi.NULL, len(inputs), c_in,
            len(outputs), c_out, names, ffi.NULL,
            description.encode() if description else ffi.NULL,
            self._status.ptr)
        self._status.check(self)
        return Function(func)

    # ---- default graph ----------------------------------------------------

    @contextlib.contextmanager
    def as_default(self):
        _stack().append(self)
        try:
            yield self
        finally:
            _stack().pop()

    @property
    def version(self):
        return self._version

    def __repr__(self):
        return "<minflow.Graph with %d operations>" % lib.MF_GraphNumOperations(
            self._c_graph)


_local = threading.local()
_global_default = [Graph()]


class Function(object):
    """A function (Graph.as_function): its `name`, its binary FunctionDef
    (`definition`), and a call that adds it to the default graph's library
    and calls it by name, returning the call's output Tensors."""

    def __init__(self, c_func):
        self._c_func = ffi.gc(c_func, lib.MF_DeleteFunction)
        self.name = ffi.string(lib.MF_FunctionName(self._c_func)).decode()

    @property
    def definition(self):
        status = errors.Status()
        buf = ffi.gc(lib.MF_NewBuffer(), lib.MF_DeleteBuffer)
        lib.MF_FunctionToFunctionDef(self._c_func, buf, status.ptr)
        status.check()
        return ffi.buffer(buf.data, buf.length)[:]

    def add_to_graph(self, graph=None):
        """Adds the function to the library of `graph` (the default graph
        when None); adding it again is a no-op."""
        g = graph or get_default_graph()
        lib.MF_GraphCopyFunction(g._c_graph, self._c_func, ffi.NULL,
                                 g._status.ptr)
        g._status.check(g)

    def __call__(self, *inputs, **kwargs):
        name = kwargs.pop("name", None)
        if kwargs:
            raise TypeError("unexpected keyword arguments: %s" %
                            ", ".join(sorted(kwargs)))
        g = get_default_graph()
        self.add_to_graph(g)
        return g.create_op(self.name, list(inputs), name=name).outputs


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def get_default_graph():
    s = _stack()
    return s[-1] if s else _global_default[0]


def reset_default_graph():
    if _stack():
        raise AssertionError("Do not use reset_default_graph() to clear "
                             "nested graphs: it must be called outside every "
                             "`with graph.as_default():` block.")
    _global_default[0] = Graph()


def name_scope(name):
    """TensorFlow's tf.name_scope on the default graph."""
    return get_default_graph().name_scope(name)


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name):
    return get_default_graph().device(device_name)


def _split_tensor_name(name):
    """("op", index) of "op:index", or of "op" (index 0)."""
    op, sep, index = name.rpartition(":")
    if sep and index.isdigit():
        return op, int(index)
    return name, 0


def import_graph_def(graph_def, input_map=None, return_elements=None,
                     name=None):
    """Adds `graph_def` (binary GraphDef bytes, a GraphDef from
    as_graph_def, or text format as str) to the default graph under the
    prefix `name`/ ("import/" by default, "" for none), as TensorFlow's.

    `input_map` maps tensor names of `graph_def` ("op:0", or "op" for output
    0) to Tensors of the default graph: the imported ops that read the named
    tensor read the given one instead. A key naming no tensor of `graph_def`
    raises ValueError after the import, as TensorFlow's does.
    `return_elements` lists names of `graph_def` to return: an Operation for
    "op", a Tensor for "op:0". Returns their list, or None without them."""
    g = get_default_graph()
    mapping = []
    for key, value in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError("input_map keys must be strings, but got %r" %
                            (key,))
        if key.startswith("^"):
            raise ValueError("input_map: control-input keys such as %r are "
                             "not supported" % key)
        if not isinstance(value, Tensor):
            raise TypeError("input_map values must be Tensors, but %r maps "
                            "to %r" % (key, value))
        mapping.append((_split_tensor_name(key),
                        g.as_graph_element(value, allow_operation=False)))
    want = []  # per element: (is_tensor, position in its list)
    outputs, operations = [], []
    for e in return_elements or ():
        if not isinstance(e, str):
            raise TypeError("return_elements must be strings, but got %r" %
                            (e,))
        if ":" in e:
            want.append((True, len(outputs)))
            outputs.append(_split_tensor_name(e))
        else:
            want.append((False, len(operations)))
            operations.append(e)
    if name is None:
        name = "import"
    prefix = g.unique_name(name) + "/" if name else ""
    try:
        _, tensors, opers, missing = g._import(graph_def, prefix, None,
                                               mapping, outputs, operations)
    except errors.InvalidArgumentError as e:
        # TensorFlow's import_graph_def reports a graph it cannot import as
        # a ValueError.
        raise ValueError(str(e)) from e
    if missing:
        raise ValueError("Attempted to map inputs that were not found in "
                         "graph_def: [%s]" % ", ".join(missing))
    if return_elements is None:
        return None
    return [tensors[i] if is_tensor else opers[i] for is_tensor, i in want]
