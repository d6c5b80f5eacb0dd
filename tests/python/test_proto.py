"""_proto.py, the small wire-format reader, on hand-made messages and on
the registry's OpList."""
import struct

from minflow import _proto
from minflow import op_gen


def _varint(v):
    v &= (1 << 64) - 1
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _field(num, wire, payload):
    key = _varint(num << 3 | wire)
    if wire == 2:
        return key + _varint(len(payload)) + payload
    return key + payload


def test_attr_value_kinds():
    assert _proto.attr_value(_field(3, 0, _varint(-5))) == ("int", -5)
    assert _proto.attr_value(_field(5, 0, _varint(1))) == ("bool", True)
    assert _proto.attr_value(_field(6, 0, _varint(9))) == ("type", 9)
    assert _proto.attr_value(_field(4, 5, struct.pack("<f", 1.5))) == (
        "float", 1.5)
    assert _proto.attr_value(_field(2, 2, b"SAME")) == ("string", b"SAME")
    dim = _field(2, 2, _field(1, 0, _varint(-1)))
    assert _proto.attr_value(_field(7, 2, dim + dim)) == ("shape", [-1, -1])
    assert _proto.attr_value(_field(7, 2, _field(3, 0, _varint(1)))) == (
        "shape", None)


def test_lists_packed_and_not():
    packed = _field(3, 2, _varint(1) + _varint(-2) + _varint(300))
    assert _proto.attr_value(_field(1, 2, packed)) == ("list(int)",
                                                       [1, -2, 300])
    unpacked = _field(3, 0, _varint(4)) + _field(3, 0, _varint(5))
    assert _proto.attr_value(_field(1, 2, unpacked)) == ("list(int)", [4, 5])
    floats = _field(4, 2, struct.pack("<2f", 0.5, -1.0))
    assert _proto.attr_value(_field(1, 2, floats)) == ("list(float)",
                                                       [0.5, -1.0])
    assert _proto.attr_value(_field(1, 2, b"")) == ("list", [])


def test_registry_op_list_decodes():
    mat_mul = op_gen.op_def("MatMul")
    assert [a.name for a in mat_mul.input_arg] == ["a", "b"]
    assert [a.name for a in mat_mul.output_arg] == ["product"]
    t = [a for a in mat_mul.attr if a.name == "T"][0]
    assert t.type == "type" and not t.has_default
    assert 1 in t.allowed_values  # float
    split = op_gen.op_def("Split")
    assert split.output_arg[0].number_attr == "num_split"
    assert [a.minimum for a in split.attr if a.name == "num_split"] == [1]


def test_graph_def_nodes():
    node = _field(1, 2, b"x") + _field(2, 2, b"Placeholder")
    assert _proto.graph_def_nodes(_field(1, 2, node)) == [("x", "Placeholder")]
