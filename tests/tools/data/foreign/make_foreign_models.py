#!/usr/bin/env python3
"""Writes the smallest files of the formats minflow must recognise and
refuse by their bytes (see src/graph/foreign_model_format.cc), for the
cli_*_foreign_* tests. Standard library only; deterministic.

  saved_model/saved_model.pb  a SavedModel: schema version 1, one empty
                              MetaGraphDef (a real one also has variables/)
  saved_model.pbtxt           the same SavedModel in text format
  model.tflite                a FlatBuffer with TensorFlow Lite's TFL3 mark
  model.onnx                  an ONNX ModelProto: ir_version 8, producer
                              "minflow-test", an empty graph, opset 13

  python3 make_foreign_models.py   # in tests/tools/data/foreign/
"""
import os
import struct


def varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def field_varint(number, value):
    return varint(number << 3 | 0) + varint(value)


def field_bytes(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def main():
    os.makedirs("saved_model", exist_ok=True)
    with open("saved_model/saved_model.pb", "wb") as f:
        f.write(field_varint(1, 1) + field_bytes(2, b""))
    with open("saved_model.pbtxt", "w") as f:
        f.write("saved_model_schema_version: 1\nmeta_graphs {\n}\n")
    with open("model.tflite", "wb") as f:
        # Root table offset, the file identifier, then an (empty) table.
        f.write(struct.pack("<I", 12) + b"TFL3" + bytes(8))
    with open("model.onnx", "wb") as f:
        opset = field_bytes(1, b"") + field_varint(2, 13)
        f.write(field_varint(1, 8) + field_bytes(2, b"minflow-test") +
                field_bytes(7, field_bytes(2, b"g")) + field_bytes(8, opset))


if __name__ == "__main__":
    main()
