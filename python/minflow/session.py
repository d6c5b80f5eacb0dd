"""Session: runs a Graph through the C API's MF_Session, with TensorFlow
1's fetch structures (a Tensor, an Operation, a name, or nested lists,
tuples, namedtuples and dicts of them) and feed_dict."""
import threading

import numpy as np

from minflow import _tensor
from minflow import errors
from minflow import framework
from minflow._c import ffi, lib


class _Runner(object):
    """One fetch structure and one set of fed tensors, with the C arrays
    MF_SessionRun takes made once (Session.run reuses it)."""

    def __init__(self, session, fetches, feed_tensors):
        g = session.graph
        elements = []
        self.rebuild = _flatten(fetches, elements, g)
        self.outputs, self.targets, self.slots = [], [], []
        index = {}
        for e in elements:
            if isinstance(e, framework.Tensor):
                if e not in index:
                    index[e] = len(self.outputs)
                    self.outputs.append(e)
                self.slots.append(index[e])
            else:
                self.targets.append(e)
                self.slots.append(None)
        self.feeds = feed_tensors
        self.feed_types = [(t.dtype.as_numpy_dtype and np.dtype(
            t.dtype.as_numpy_dtype), t.dtype.as_datatype_enum)
                           for t in feed_tensors]
        # Per output: (numpy dtype, shape, bytes) when the graph knows its
        # shape fully, else None (see _tensor.fetch_value).
        self.static = [_static(t) for t in self.outputs]
        self.c_inputs = ffi.new("MF_Output[]",
                                [t._as_output() for t in feed_tensors])
        self.c_values = ffi.new("MF_Tensor*[]", len(feed_tensors))
        self.c_outputs = ffi.new("MF_Output[]",
                                 [t._as_output() for t in self.outputs])
        self.c_results = ffi.new("MF_Tensor*[]", len(self.outputs))
        self.c_targets = ffi.new("MF_Operation*[]",
                                 [op._c_op for op in self.targets])
        self.n_targets = len(self.targets)
        self.ops = set(t.op for t in feed_tensors) | set(
            t.op for t in self.outputs) | set(self.targets)
        self.single = (len(elements) == 1 and self.slots[0] == 0 and
                       isinstance(fetches, framework.Tensor))


def _static(t):
    np_type = t.dtype.as_numpy_dtype
    shape = t.shape
    if np_type is None or not shape.is_fully_defined():
        return None
    np_type = np.dtype(np_type)
    dims = tuple(shape.as_list())
    return np_type, dims, int(np.prod(dims, dtype=np.int64)) * np_type.itemsize


def _fetch(result, static):
    if static is None:
        return _tensor.to_ndarray(result)
    return _tensor.fetch_value(result, static[0], static[1], static[2])


def _cache_key(fetches, feed_dict):
    """A hashable key for a fetch structure of Tensors and Operations (a
    single one, or a flat list or tuple), None for others."""
    if isinstance(fetches, (list, tuple)) and not hasattr(fetches, "_fields"):
        if not all(
                isinstance(f, (framework.Tensor, framework.Operation))
                for f in fetches):
            return None
        fetches = (type(fetches), tuple(fetches))
    elif not isinstance(fetches, (framework.Tensor, framework.Operation)):
        return None
    return (fetches, tuple(feed_dict)) if feed_dict else fetches


def _flatten(fetches, out, g):
    """Appends the graph elements of `fetches` to `out`; returns the
    function that rebuilds the structure from the flat values."""
    if isinstance(fetches, (framework.Tensor, framework.Operation, str)):
        try:
            out.append(g.as_graph_element(fetches))
        except (KeyError, ValueError, TypeError) as e:
            raise type(e)("Fetch argument %r cannot be interpreted as a "
                          "Tensor. (%s)" % (fetches, e))
        i = len(out) - 1
        return lambda vals: vals[i]
    if isinstance(fetches, dict):
        parts = [(k, _flatten(v, out, g)) for k, v in fetches.items()]
        cls = type(fetches)
        return lambda vals: cls((k, f(vals)) for k, f in parts)
    if isinstance(fetches, (list, tuple)):
        parts = [_flatten(v, out, g) for v in fetches]
        if hasattr(fetches, "_fields"):  # a namedtuple
            cls = type(fetches)
            return lambda vals: cls(*[f(vals) for f in parts])
        cls = type(fetches)
        return lambda vals: cls(f(vals) for f in parts)
    raise TypeError("Fetch argument %r has invalid type %r, must be a string "
                    "or Tensor. (Can not convert a %s into a Tensor or "
                    "Operation.)" % (fetches, type(fetches),
                                     type(fetches).__name__))


class Session(object):
    """Runs `graph` (the default graph when None). `config` is a binary
    ConfigProto. The C session sees the graph as it is when made; running
    an op added later makes a new one (stateful ops such as variables then
    start afresh). Usable as a context manager, which also makes it and its
    graph the defaults. Sessions may run from several threads."""

    def __init__(self, target="", graph=None, config=None):
        if target:
            raise NotImplementedError("minflow runs in-process: target must "
                                      "be ''")
        self.graph = graph or framework.get_default_graph()
        self._config = config
        self._status = errors.Status()
        self._c_session = None
        self._closed = False
        self._lock = threading.Lock()
        self._make_session()
        self._default_stack = []

    def _make_session(self):
        g = self.graph
        opts = ffi.gc(lib.MF_NewSessionOptions(), lib.MF_DeleteSessionOptions)
        if self._config is not None:
            cfg = bytes(self._config)
            lib.MF_SetConfig(opts, cfg, len(cfg), self._status.ptr)
            self._status.check(g)
        c = lib.MF_NewSession(g._c_graph, opts, self._status.ptr)
        self._status.check(g)
        old = self._c_session
        self._c_session = c
        self._version = g._version
        self._known_ops = None  # set of Operations, made when needed
        self._runners = {}
        if old is not None:
            _delete_session(old)

    def _ensure_current(self, runner):
        """Makes a new C session when the runner uses an op added since the
        current one was made."""
        g = self.graph
        if g._version == self._version:
            return runner
        if self._known_ops is None:
            self._known_ops = set(g._ops.values()) - self._new_ops()
        if runner.ops <= self._known_ops:
            return runner
        self._make_session()
        return None

    def _new_ops(self):
        # Operations made since the session: those past the version count.
        ops = self.graph.get_operations()
        return set(ops[len(ops) - (self.graph._version - self._version):])

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for `fetches` with `feed_dict` ({Tensor or
        "name:0": value}) fed, and returns the fetched values in the shape
        of `fetches`: numpy arrays for Tensors, None for Operations.
        `options` is a binary RunOptions; `run_metadata` a bytearray that
        receives the binary RunMetadata. Errors are OpError subclasses."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        try:
            key = (fetches, tuple(feed_dict)) if feed_dict else fetches
            runner = self._runners[key]
        except (KeyError, TypeError):
            key = _cache_key(fetches, feed_dict)
            runner = self._runners.get(key) if key is not None else None
            if runner is None:
                runner = self._runner(fetches, feed_dict or {}, key)
        if self.graph._version != self._version:
            if self._ensure_current(runner) is None:
                runner = self._runner(fetches, feed_dict or {}, key)
        return self._run(runner,
                         list(feed_dict.values()) if feed_dict else (),
                         options, run_metadata)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function that runs `fetches` with the tensors of `feed_list`
        fed from its positional arguments, as TensorFlow's: the same result
        as run(), with the fetch structure and feeds worked out once. With
        `accept_options`, it also takes `options` and `run_metadata`
        keywords."""
        feed_list = list(feed_list or [])
        feeds = dict.fromkeys(feed_list)
        if len(feeds) != len(feed_list):
            raise ValueError("make_callable: feed_list names a tensor twice")
        state = {"runner": self._runner(fetches, feeds, None)}

        def call(*feed_values, **kwargs):
            options = kwargs.pop("options", None) if accept_options else None
            meta = kwargs.pop("run_metadata", None) if accept_options else None
            if kwargs:
                raise TypeError("unexpected keyword arguments: %s" %
                                ", ".join(sorted(kwargs)))
            if len(feed_values) != len(feed_list):
                raise TypeError("expected %d feed values, but got %d" %
                                (len(feed_list), len(feed_values)))
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            runner = state["runner"]
            if (self.graph._version != self._version and
                    self._ensure_current(runner) is None):
                runner = state["runner"] = self._runner(fetches, feeds, None)
            return self._run(runner, feed_values, options, meta)

        return call

    def _runner(self, fetches, feed_dict, key):
        g = self.graph
        feeds = []
        for k in feed_dict:
            try:
                t = g.as_graph_element(k, allow_operation=False)
            except (KeyError, ValueError, TypeError) as e:
                raise TypeError("Cannot interpret feed_dict key as Tensor: %s"
                                % e)
            feeds.append(t)
        runner = _Runner(self, fetches, feeds)
        if self.graph._version != self._version:
            self._ensure_current(runner)
        if key is not None:
            self._runners[key] = runner
        return runner

    def _run(self, runner, values, options, run_metadata):
        # The runner's C arrays and the session's status serve one run at a
        # time; a run that meets another in progress makes its own.
        if self._lock.acquire(False):
            try:
                return self._run_with(runner, values, options, run_metadata,
                                      runner.c_values, runner.c_results,
                                      self._status)
            finally:
                self._lock.release()
        return self._run_with(runner, values, options, run_metadata,
                              ffi.new("MF_Tensor*[]", len(values)),
                              ffi.new("MF_Tensor*[]", len(runner.outputs)),
                              errors.Status())

    def _run_with(self, runner, values, options, run_metadata, c_values,
                  results, status_obj):
        status = status_obj.ptr
        n_in = len(values)
        n_out = len(runner.outputs)
        if not n_in and options is None and run_metadata is None:
            lib.MF_SessionRun(self._c_session, ffi.NULL, ffi.NULL, ffi.NULL, 0,
                              runner.c_outputs, results, n_out,
                              runner.c_targets, runner.n_targets, ffi.NULL,
                              status)
            if lib.MF_GetCode(status):
                errors.raise_from_status(status, self.graph)
            if runner.single:
                return _fetch(results[0], runner.static[0])
            arrays = [_fetch(results[i], runner.static[i]) for i in range(n_out)]
            return runner.rebuild(
                [None if s is None else arrays[s] for s in runner.slots])
        made = 0
        opts = meta = ffi.NULL
        try:
            for i in range(n_in):
                np_type, enum = runner.feed_types[i]
                c_values[i] = _tensor.feed_tensor(values[i], np_type, enum,
                                                  status)
                made += 1
            if options is not None:
                o = bytes(options)
                opts = ffi.gc(lib.MF_NewBufferFromString(o, len(o)),
                              lib.MF_DeleteBuffer)
            if run_metadata is not None:
                meta = ffi.gc(lib.MF_NewBuffer(), lib.MF_DeleteBuffer)
            lib.MF_SessionRun(self._c_session, opts, runner.c_inputs, c_values,
                              n_in, runner.c_outputs, results, n_out,
                              runner.c_targets, len(runner.targets), meta,
                              status)
            if lib.MF_GetCode(status) != errors.OK:
                errors.raise_from_status(status, self.graph)
            # Converted while the feeds live, so that an output sharing a
            # feed's memory is copied (Note [Zero-copy arrays]).
            arrays = [_fetch(results[i], runner.static[i]) for i in range(n_out)]
            if meta != ffi.NULL:
                run_metadata[:] = ffi.buffer(meta.data, meta.length)[:]
        finally:
            for i in range(made):
                lib.MF_DeleteTensor(c_values[i])
        if runner.single:
            return arrays[0]
        return runner.rebuild(
            [None if s is None else arrays[s] for s in runner.slots])

    def close(self):
        if not self._closed and self._c_session is not None:
            lib.MF_CloseSession(self._c_session, self._status.ptr)
            _delete_session(self._c_session)
            self._c_session = None
        self._closed = True

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def as_default(self):
        return _DefaultSession(self)

    def __enter__(self):
        self._graph_ctx = self.graph.as_default()
        self._graph_ctx.__enter__()
        self._default_stack.append(_DefaultSession(self))
        self._default_stack[-1].__enter__()
        return self

    def __exit__(self, *exc):
        self._default_stack.pop().__exit__(*exc)
        self._graph_ctx.__exit__(*exc)
        self.close()
        return False


def _delete_session(c_session):
    status = errors.Status()
    lib.MF_DeleteSession(c_session, status.ptr)


_local = threading.local()


class _DefaultSession(object):

    def __init__(self, session):
        self.session = session

    def __enter__(self):
        if not hasattr(_local, "stack"):
            _local.stack = []
        _local.stack.append(self.session)
        return self.session

    def __exit__(self, *exc):
        _local.stack.pop()
        return False


def get_default_session():
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None
