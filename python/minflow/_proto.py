"""A minimal protocol-buffer wire reader and writer, for the few messages the
package decodes (OpList, AttrValue, GraphDef's node names) without needing
the protobuf package. Field numbers are TensorFlow's (proto/minflow/*.proto).
"""
import struct


def _varint(buf, pos):
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """Yields (field_number, wire_type, value) for each field of a message.
    Varints are ints, fixed32/64 raw bytes, length-delimited memoryviews."""
    buf = memoryview(buf)
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        num, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        elif wire == 2:
            n, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        else:
            raise ValueError("unsupported protobuf wire type %d" % wire)
        yield num, wire, value


def signed64(v):
    return v - (1 << 64) if v >= (1 << 63) else v


def packed_varints(value, wire):
    """A repeated varint field's values, packed (wire 2) or not."""
    if wire == 0:
        return [signed64(value)]
    out, pos, buf = [], 0, value
    while pos < len(buf):
        v, pos = _varint(buf, pos)
        out.append(signed64(v))
    return out


def packed_floats(value, wire):
    if wire == 5:
        return [struct.unpack("<f", value)[0]]
    return list(struct.unpack("<%df" % (len(value) // 4), value))


def text(value):
    return bytes(value).decode("utf-8")


# ---- Messages -------------------------------------------------------------


def shape(buf):
    """TensorShapeProto -> list of dims (-1 unknown), or None (unknown
    rank)."""
    dims, unknown_rank = [], False
    for num, _, value in fields(buf):
        if num == 2:
            size = -1
            for n2, _, v2 in fields(value):
                if n2 == 1:
                    size = signed64(v2)
            dims.append(size)
        elif num == 3:
            unknown_rank = bool(value)
    return None if unknown_rank else dims


def attr_value(buf):
    """AttrValue -> (kind, python value); kind is the AttrDef type name
    ('int', 'list(float)', 'tensor' holds the raw TensorProto bytes)."""
    for num, wire, value in fields(buf):
        if num == 1:
            return _list_value(value)
        if num == 2:
            return "string", bytes(value)
        if num == 3:
            return "int", signed64(value)
        if num == 4:
            return "float", struct.unpack("<f", value)[0]
        if num == 5:
            return "bool", bool(value)
        if num == 6:
            return "type", value
        if num == 7:
            return "shape", shape(value)
        if num == 8:
            return "tensor", bytes(value)
        if num == 9:
            return "placeholder", text(value)
        if num == 10:
            return "func", bytes(value)
    return "none", None


def _list_value(buf):
    items = {}
    for num, wire, value in fields(buf):
        if num == 2:
            items.setdefault("string", []).append(bytes(value))
        elif num == 3:
            items.setdefault("int", []).extend(packed_varints(value, wire))
        elif num == 4:
            items.setdefault("float", []).extend(packed_floats(value, wire))
        elif num == 5:
            items.setdefault("bool",
                             []).extend(bool(v)
                                        for v in packed_varints(value, wire))
        elif num == 6:
            items.setdefault("type", []).extend(packed_varints(value, wire))
        elif num == 7:
            items.setdefault("shape", []).append(shape(value))
        elif num == 8:
            items.setdefault("tensor", []).append(bytes(value))
    if not items:
        return "list", []
    kind, values = next(iter(items.items()))
    return "list(%s)" % kind, values


class ArgDef(object):
    __slots__ = ("name", "description", "type", "type_attr", "number_attr",
                 "type_list_attr", "is_ref")

    def __init__(self, buf):
        self.name = self.description = ""
        self.type_attr = self.number_attr = self.type_list_attr = ""
        self.type = 0
        self.is_ref = False
        for num, _, value in fields(buf):
            if num == 1:
                self.name = text(value)
            elif num == 2:
                self.description = text(value)
            elif num == 3:
                self.type = value
            elif num == 4:
                self.type_attr = text(value)
            elif num == 5:
                self.number_attr = text(value)
            elif num == 6:
                self.type_list_attr = text(value)
            elif num == 16:
                self.is_ref = bool(value)

    @property
    def is_list(self):
        return bool(self.number_attr or self.type_list_attr)


class AttrDef(object):
    __slots__ = ("name", "type", "default", "has_default", "description",
                 "minimum", "allowed_values")

    def __init__(self, buf):
        self.name = self.type = self.description = ""
        self.default = None
        self.has_default = False
        self.minimum = None
        self.allowed_values = None
        for num, _, value in fields(buf):
            if num == 1:
                self.name = text(value)
            elif num == 2:
                self.type = text(value)
            elif num == 3:
                self.has_default = True
                self.default = attr_value(value)[1]
            elif num == 4:
                self.description = text(value)
            elif num == 6:
                self.minimum = signed64(value)
            elif num == 7:
                self.allowed_values = attr_value(value)[1]


class OpDef(object):
    """The parts of an OpDef the op functions use."""

    def __init__(self, buf):
        self.name = self.summary = self.description = ""
        self.input_arg, self.output_arg, self.attr = [], [], []
        self.is_stateful = False
        for num, _, value in fields(buf):
            if num == 1:
                self.name = text(value)
            elif num == 2:
                self.input_arg.append(ArgDef(value))
            elif num == 3:
                self.output_arg.append(ArgDef(value))
            elif num == 4:
                self.attr.append(AttrDef(value))
            elif num == 5:
                self.summary = text(value)
            elif num == 6:
                self.description = text(value)
            elif num == 17:
                self.is_stateful = bool(value)


def op_list(buf):
    """OpList -> [OpDef]."""
    return [OpDef(value) for num, _, value in fields(buf) if num == 1]


def graph_def_nodes(buf):
    """GraphDef -> [(name, op)] of its nodes."""
    nodes = []
    for num, _, value in fields(buf):
        if num == 1:
            name = op = ""
            for n2, _, v2 in fields(value):
                if n2 == 1:
                    name = text(v2)
                elif n2 == 2:
                    op = text(v2)
            nodes.append((name, op))
    return nodes
