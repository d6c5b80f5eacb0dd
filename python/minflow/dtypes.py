"""Element types: DType objects numbered as TensorFlow's DataType (and the C
API's MF_DataType), with their numpy equivalents."""
import numpy as np


class DType(object):
    """An element type; compare with ==, or use `as_numpy_dtype`."""
    __slots__ = ("_enum", "_name", "_np")

    def __init__(self, enum, name, np_type):
        self._enum = enum
        self._name = name
        self._np = np_type

    @property
    def as_datatype_enum(self):
        return self._enum

    @property
    def name(self):
        return self._name

    @property
    def as_numpy_dtype(self):
        return self._np

    @property
    def base_dtype(self):
        """The type a reference type refers to (float32 for float32_ref);
        the type itself otherwise."""
        return _BY_ENUM[self._enum - 100] if self._enum > 100 else self

    @property
    def _is_ref_dtype(self):
        return self._enum > 100

    @property
    def is_floating(self):
        return self._enum % 100 in (1, 2, 14, 19)

    @property
    def is_integer(self):
        return self._enum % 100 in (3, 4, 5, 6, 9, 17, 22, 23)

    @property
    def is_complex(self):
        return self._enum % 100 in (8, 18)

    @property
    def is_bool(self):
        return self._enum % 100 == 10

    @property
    def size(self):
        return np.dtype(self._np).itemsize if self._np is not None else 0

    def __eq__(self, other):
        try:
            return self._enum == as_dtype(other)._enum
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self._enum

    def __repr__(self):
        return "minflow." + self._name

    __str__ = __repr__


float32 = DType(1, "float32", np.float32)
float64 = DType(2, "float64", np.float64)
int32 = DType(3, "int32", np.int32)
uint8 = DType(4, "uint8", np.uint8)
int16 = DType(5, "int16", np.int16)
int8 = DType(6, "int8", np.int8)
string = DType(7, "string", None)
complex64 = DType(8, "complex64", np.complex64)
int64 = DType(9, "int64", np.int64)
bool = DType(10, "bool", np.bool_)  # noqa: A001 (TensorFlow's name)
qint8 = DType(11, "qint8", None)
quint8 = DType(12, "quint8", None)
qint32 = DType(13, "qint32", None)
qint16 = DType(15, "qint16", None)
quint16 = DType(16, "quint16", None)
bfloat16 = DType(14, "bfloat16", None)
uint16 = DType(17, "uint16", np.uint16)
complex128 = DType(18, "complex128", np.complex128)
float16 = DType(19, "float16", np.float16)
resource = DType(20, "resource", None)
variant = DType(21, "variant", None)
uint32 = DType(22, "uint32", np.uint32)
uint64 = DType(23, "uint64", np.uint64)
half = float16
double = float64

_BY_ENUM = {
    d._enum: d
    for d in (float32, float64, int32, uint8, int16, int8, string, complex64,
              int64, bool, qint8, quint8, qint32, bfloat16, qint16, quint16,
              uint16, complex128, float16, resource, variant, uint32, uint64)
}
_BY_NP = dict((np.dtype(d._np), d) for d in _BY_ENUM.values()
              if d._np is not None)
# TF1 variables' outputs are references: the type's number plus 100
# (float32_ref is 101), as TensorFlow numbers them.
_BY_ENUM.update((d._enum + 100, DType(d._enum + 100, d._name + "_ref", d._np))
                for d in list(_BY_ENUM.values()))
_BY_NAME = dict((d._name, d) for d in _BY_ENUM.values())
_BY_NAME.update(half=float16, double=float64)

# Every numeric type numpy can hold, for tests and docs.
NUMERIC = (float16, float32, float64, int8, int16, int32, int64, uint8,
           uint16, uint32, uint64, complex64, complex128, bool)


def as_dtype(value):
    """A DType from a DType, an enum number, a name ('float32') or a numpy
    dtype / scalar type. TypeError for anything else."""
    if isinstance(value, DType):
        return value
    if isinstance(value, int) and not isinstance(value, type(True)):
        if value in _BY_ENUM:
            return _BY_ENUM[value]
        raise TypeError("%d is not a minflow DataType number" % value)
    if isinstance(value, str):
        if value in _BY_NAME:
            return _BY_NAME[value]
        raise TypeError("'%s' is not a minflow dtype name" % value)
    try:
        np_dtype = np.dtype(value)
        if np_dtype.kind in "SUO":  # bytes, str and objects: TF's string
            return string
        return _BY_NP[np_dtype]
    except (TypeError, KeyError):
        raise TypeError("cannot convert %r to a minflow dtype" % (value,))
