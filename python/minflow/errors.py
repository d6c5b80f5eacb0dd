"""Errors from the C API as exceptions, with TensorFlow's class names: every
MF_Code but MF_OK is a subclass of OpError (tf.errors)."""
import re

from minflow._c import ffi, lib


class OpError(Exception):
    """An error from running or building a graph. `message` is the C API's
    text (it names the node, as "[[{{node name}}]]" for run-time errors),
    `error_code` the MF_Code, `op` the Operation it names when the graph has
    one of that name, else None."""

    def __init__(self, node_def, op, message, error_code):
        super(OpError, self).__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = error_code

    def __str__(self):
        return self.message


OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

_NAMES = {
    CANCELLED: "CancelledError",
    UNKNOWN: "UnknownError",
    INVALID_ARGUMENT: "InvalidArgumentError",
    DEADLINE_EXCEEDED: "DeadlineExceededError",
    NOT_FOUND: "NotFoundError",
    ALREADY_EXISTS: "AlreadyExistsError",
    PERMISSION_DENIED: "PermissionDeniedError",
    RESOURCE_EXHAUSTED: "ResourceExhaustedError",
    FAILED_PRECONDITION: "FailedPreconditionError",
    ABORTED: "AbortedError",
    OUT_OF_RANGE: "OutOfRangeError",
    UNIMPLEMENTED: "UnimplementedError",
    INTERNAL: "InternalError",
    UNAVAILABLE: "UnavailableError",
    DATA_LOSS: "DataLossError",
    UNAUTHENTICATED: "UnauthenticatedError",
}


def _make_class(code, name):

    def __init__(self, node_def=None, op=None, message=""):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__module__":
                                   __name__})


_CLASSES = {}
for _code, _name in _NAMES.items():
    _CLASSES[_code] = globals()[_name] = _make_class(_code, _name)
del _code, _name

# "[[{{node name}}]]", the executor's context; the builder's "operation
# 'name' (op Type)".
_NODE_RE = re.compile(r"\{\{node ([^}]+)\}\}|operation '([^']+)'")


def exception_type_from_error_code(code):
    return _CLASSES.get(code, _CLASSES[UNKNOWN])


def error_code_from_exception_type(cls):
    """The MF_Code of an OpError subclass (None for others)."""
    for code, c in _CLASSES.items():
        if c is cls:
            return code
    return None


def raise_from_status(status, graph=None):
    """Raises the error `status` holds (an MF_Status*), if any. With `graph`,
    the exception's `op` is the operation the message names."""
    code = lib.MF_GetCode(status)
    if code == OK:
        return
    message = ffi.string(lib.MF_Message(status)).decode("utf-8", "replace")
    op = None
    if graph is not None:
        m = _NODE_RE.search(message)
        if m:
            op = graph._operation_by_name_or_none(m.group(1) or m.group(2))
    raise exception_type_from_error_code(code)(None, op, message)


class Status(object):
    """An MF_Status owned by Python; `check()` raises its error."""
    __slots__ = ("ptr",)

    def __init__(self):
        self.ptr = ffi.gc(lib.MF_NewStatus(), lib.MF_DeleteStatus)

    def check(self, graph=None):
        if lib.MF_GetCode(self.ptr) != OK:
            raise_from_status(self.ptr, graph)
