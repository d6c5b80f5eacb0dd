"""Session: runs a Graph through the C API's MF_Session, with TensorFlow
1's fetch structures (a Tensor, an Operation, a name, or nested lists,
tuples, namedtuples and dicts of them) and feed_dict."""
import threading

import numpy as np

from minflow import _tensor
from minflow import errors
from minflow import framework
from minflow._c import ffi, lib


_NOT_VALUES = (framework.Tensor, framework.Operation)
# Element types cffi writes through a pointer exactly as numpy casts them
# (it refuses what numpy would truncate: a float into an integer).
_SCALAR_CTYPES = dict(
    (np.dtype(k), ffi.typeof(v))
    for k, v in ((np.float32, "float*"), (np.float64, "double*"),
                 (np.int8, "int8_t*"), (np.int16, "int16_t*"),
                 (np.int32, "int32_t*"), (np.int64, "int64_t*"),
                 (np.uint8, "uint8_t*"), (np.uint16, "uint16_t*"),
                 (np.uint32, "uint32_t*"), (np.uint64, "uint64_t*")))
# The values written through such a pointer: Python and numpy scalars only
# (a one-element array would otherwise pass for a scalar).
_SCALAR_VALUES = frozenset([
    float, int, np.float32, np.float64, np.int8, np.int16, np.int32,
    np.int64, np.uint8, np.uint16, np.uint32, np.uint64
])


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
        # Used only by the run that holds the session's lock (Session._run).
        self.slots_in = [_FeedSlot(np_type, enum)
                         for np_type, enum in self.feed_types]
        self.info = _tensor.Info()
        # The C callable of this signature (MF_SessionMakeCallable) and the
        # _CSession it belongs to; made at the first locked run.
        self.handle = -1
        self.owner = None

    def callable_for(self, c, status):
        """The handle of this signature's callable in `c` (a _CSession)."""
        if self.owner is not c:
            self.release_callable()
            handle = lib.MF_SessionMakeCallable(
                c.ptr, self.c_inputs, len(self.feeds), self.c_outputs,
                len(self.outputs), self.c_targets, self.n_targets, status)
            if handle < 0:
                return -1
            self.handle, self.owner = handle, c
        return self.handle

    def release_callable(self):
        if self.owner is not None and self.owner.ptr is not None:
            lib.MF_SessionReleaseCallable(self.owner.ptr, self.handle,
                                          ffi.NULL)
        self.owner = None

    def __del__(self):
        try:
            self.release_callable()
        except Exception:  # interpreter shutdown
            pass


class _CSession(object):
    """An MF_Session* while it lives (ptr is None once deleted), so that a
    runner's callable is released only into a live session."""
    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr


class _FeedSlot(object):
    """One fed tensor of a runner, kept between runs when it is small and
    the run left it the only owner of its memory: the next run of the same
    shape copies its value into it instead of making and freeing a tensor
    (Note [Reused feed tensors])."""
    __slots__ = ("np_type", "enum", "tensor", "data", "shape", "nbytes",
                 "scalar")

    def __init__(self, np_type, enum):
        self.np_type = np_type
        self.enum = enum
        self.tensor = None  # MF_Tensor* kept between runs, or None
        self.data = self.shape = self.nbytes = None
        # A typed pointer to a kept scalar's element, for Python and numpy
        # scalars (cffi converts them as numpy would, else refuses them).
        self.scalar = None

    def keep(self, t, arr):
        self.release()
        self.tensor = t
        self.data = lib.MF_TensorData(t)
        self.shape = arr.shape
        self.nbytes = arr.nbytes
        ctype = _SCALAR_CTYPES.get(arr.dtype) if not arr.shape else None
        self.scalar = None if ctype is None else ffi.cast(ctype, self.data)

    def release(self):
        if self.tensor is not None:
            lib.MF_DeleteTensor(self.tensor)
            self.tensor = self.scalar = None

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown
            pass


# Note [Reused feed tensors]
# Making and freeing an MF_Tensor per feed costs three C calls per run.
# A small fed tensor is kept by its runner instead, and the next run of the
# same shape overwrites its memory. That is safe only while nothing else
# holds the buffer: after each run MF_TensorMaybeMove says whether the
# tensor is again the only owner (a queue or a variable the run stored it
# in would share it, and so would an output that forwards it, which
# _fetch has copied by then); if not, the tensor is dropped and the next
# run makes a new one. Zero-copy feeds (large aligned arrays) are never
# kept: their memory is the caller's array.


def _static(t):
    np_type = t.dtype.as_numpy_dtype
    shape = t.shape
    if np_type is None or not shape.is_fully_defined():
        return None
    np_type = np.dtype(np_type)
    dims = tuple(shape.as_list())
    return np_type, dims, int(np.prod(dims, dtype=np.int64)) * np_type.itemsize


def _fetch(result, static, info=None):
    if static is None:
        return _tensor.to_ndarray(result, info)
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
        if old is not None:
            self._c.ptr = None
        self._c_session = c
        self._c = _CSession(c)
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
        return self._run(runner, feed_dict.values() if feed_dict else (),
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
        # The runner's C arrays, feed slots and the session's status serve
        # one run at a time; a run that meets another in progress makes its
        # own.
        if self._lock.acquire(False):
            try:
                if options is None and run_metadata is None:
                    return self._run_locked(runner, values)
                return self._run_with(runner, list(values), options,
                                      run_metadata, runner.c_values,
                                      runner.c_results, self._status)
            finally:
                self._lock.release()
        values = list(values)
        return self._run_with(runner, values, options, run_metadata,
                              ffi.new("MF_Tensor*[]", len(values)),
                              ffi.new("MF_Tensor*[]", len(runner.outputs)),
                              errors.Status())

    def _run_locked(self, runner, values):
        """The common run (no options or metadata), under the session's
        lock: through the runner's C callable (no per-run name handling in
        C), feeds in the runner's kept tensors where they can be, and each
        result read with one MF_TensorGetInfo."""
        status = self._status.ptr
        c_values = runner.c_values
        slots = runner.slots_in
        results = runner.c_results
        n_out = len(runner.outputs)
        n_in = 0
        temps = []  # tensors of this run only
        try:
            for v in values:
                slot = slots[n_in]
                if slot.scalar is not None and type(v) in _SCALAR_VALUES:
                    try:
                        slot.scalar[0] = v
                        c_values[n_in] = slot.tensor
                        n_in += 1
                        continue
                    except (TypeError, OverflowError):
                        pass  # numpy's conversion decides, below
                np_type = slot.np_type
                if np_type is None or isinstance(v, _NOT_VALUES):
                    t = _tensor.feed_tensor(v, np_type, slot.enum, status)
                    temps.append(t)
                else:
                    arr = np.asarray(v, np_type)
                    if (slot.tensor is not None and arr.shape == slot.shape
                            and arr.flags.c_contiguous):
                        ffi.memmove(slot.data, arr, slot.nbytes)
                        t = slot.tensor
                    else:
                        t = _tensor.feed_tensor(arr, np_type, slot.enum,
                                                status)
                        if 0 < arr.nbytes < _tensor.ZERO_COPY_MIN:
                            slot.keep(t, arr)
                        else:
                            temps.append(t)
                c_values[n_in] = t
                n_in += 1
            handle = runner.callable_for(self._c, status)
            if handle < 0:
                errors.raise_from_status(status, self.graph)
            lib.MF_SessionRunCallable(self._c_session, handle, c_values, n_in,
                                      results, n_out, status)
            # On error every result is NULL; on success none is.
            if not n_out or results[0] == ffi.NULL:
                if lib.MF_GetCode(status):
                    errors.raise_from_status(status, self.graph)
            info = runner.info
            static = runner.static
            if runner.single:
                if static[0] is None:
                    return _tensor.to_ndarray(results[0], info)
                return _fetch(results[0], static[0], info)
            arrays = [_fetch(results[i], static[i], info)
                      for i in range(n_out)]
        finally:
            for t in temps:
                lib.MF_DeleteTensor(t)
            for slot in slots:
                if (slot.tensor is not None and
                        lib.MF_TensorMaybeMove(slot.tensor) == ffi.NULL):
                    slot.release()
        return runner.rebuild(
            [None if s is None else arrays[s] for s in runner.slots])

    def _run_with(self, runner, values, options, run_metadata, c_values,
                  results, status_obj):
        status = status_obj.ptr
        n_in = len(values)
        n_out = len(runner.outputs)
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
            self._c.ptr = None
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
