// Registers, on first use, TensorFlow's OpDefs for the array ops whose
// kernels are tested and benchmarked here (Reshape ... TopKV2), when
// src/ops does not register them yet. Ops already registered are left
// alone, so this becomes a no-op as src/ops grows. Header-only so that
// benchmarks can use it too.
// TODO(#4): delete once src/ops/array_ops.cc registers these.
#pragma once

#include "minflow/framework/op.h"
#include "minflow/framework/op_def_builder.h"

namespace minflow {
namespace test {

namespace internal_array_ops {

inline void RegisterIfMissing(const OpDefBuilder& builder) {
  if (OpRegistry::Global()->LookUp(builder.op_name()) != nullptr) return;
  OpRegistry::Global()->Register(
      [builder](OpRegistrationData* data) { return builder.Finalize(data); });
}

// The signatures of /work/shared/data/tf_ops.pbtxt (shape functions are
// src/ops' job).
inline void RegisterAll() {
  RegisterIfMissing(OpDefBuilder("ConcatV2")
                        .Input("values: N * T")
                        .Input("axis: Tidx")
                        .Output("output: T")
                        .Attr("N: int >= 2")
                        .Attr("T: type")
                        .Attr("Tidx: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("ExpandDims")
                        .Input("input: T")
                        .Input("dim: Tdim")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tdim: {int32, int64} = DT_INT32"));
  RegisterIfMissing(
      OpDefBuilder("ExtractImagePatches")
          .Input("images: T")
          .Output("patches: T")
          .Attr("ksizes: list(int) >= 4")
          .Attr("strides: list(int) >= 4")
          .Attr("rates: list(int) >= 4")
          .Attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, "
                "uint8, uint16, uint32, uint64, complex64, complex128, bool}")
          .Attr("padding: {'SAME', 'VALID'}"));
  RegisterIfMissing(OpDefBuilder("Fill")
                        .Input("dims: index_type")
                        .Input("value: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("index_type: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("GatherV2")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Input("axis: Taxis")
                        .Output("output: Tparams")
                        .Attr("batch_dims: int = 0")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int16, int32, int64}")
                        .Attr("Taxis: {int32, int64}"));
  RegisterIfMissing(OpDefBuilder("MirrorPad")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = DT_INT32")
                        .Attr("mode: {'REFLECT', 'SYMMETRIC'}"));
  RegisterIfMissing(OpDefBuilder("OneHot")
                        .Input("indices: TI")
                        .Input("depth: int32")
                        .Input("on_value: T")
                        .Input("off_value: T")
                        .Output("output: T")
                        .Attr("axis: int = -1")
                        .Attr("T: type")
                        .Attr("TI: {uint8, int8, int32, int64} = DT_INT64"));
  RegisterIfMissing(
      OpDefBuilder("OnesLike")
          .Input("x: T")
          .Output("y: T")
          .Attr(
              "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
              "int32, uint32, int64, uint64, complex64, complex128, bool}"));
  RegisterIfMissing(OpDefBuilder("Pack")
                        .Input("values: N * T")
                        .Output("output: T")
                        .Attr("N: int >= 1")
                        .Attr("T: type")
                        .Attr("axis: int = 0"));
  RegisterIfMissing(OpDefBuilder("Pad")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("PadV2")
                        .Input("input: T")
                        .Input("paddings: Tpaddings")
                        .Input("constant_values: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tpaddings: {int32, int64} = DT_INT32"));
  RegisterIfMissing(
      OpDefBuilder("Range")
          .Input("start: Tidx")
          .Input("limit: Tidx")
          .Input("delta: Tidx")
          .Output("output: Tidx")
          .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, "
                "int64, uint16, uint32, uint64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Rank")
                        .Input("input: T")
                        .Output("output: int32")
                        .Attr("T: type"));
  RegisterIfMissing(OpDefBuilder("Reshape")
                        .Input("tensor: T")
                        .Input("shape: Tshape")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tshape: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Shape")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Size")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Slice")
                        .Input("input: T")
                        .Input("begin: Index")
                        .Input("size: Index")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Index: {int32, int64}"));
  RegisterIfMissing(OpDefBuilder("Split")
                        .Input("split_dim: int32")
                        .Input("value: T")
                        .Output("output: num_split * T")
                        .Attr("num_split: int >= 1")
                        .Attr("T: type"));
  RegisterIfMissing(OpDefBuilder("SplitV")
                        .Input("value: T")
                        .Input("size_splits: Tlen")
                        .Input("split_dim: int32")
                        .Output("output: num_split * T")
                        .Attr("num_split: int >= 1")
                        .Attr("T: type")
                        .Attr("Tlen: {int8, int32, int64} = DT_INT64"));
  RegisterIfMissing(OpDefBuilder("Squeeze")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("squeeze_dims: list(int) = []"));
  RegisterIfMissing(OpDefBuilder("StridedSlice")
                        .Input("input: T")
                        .Input("begin: Index")
                        .Input("end: Index")
                        .Input("strides: Index")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Index: {int16, int32, int64}")
                        .Attr("begin_mask: int = 0")
                        .Attr("end_mask: int = 0")
                        .Attr("ellipsis_mask: int = 0")
                        .Attr("new_axis_mask: int = 0")
                        .Attr("shrink_axis_mask: int = 0"));
  RegisterIfMissing(OpDefBuilder("Tile")
                        .Input("input: T")
                        .Input("multiples: Tmultiples")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tmultiples: {int32, int64} = DT_INT32"));
  RegisterIfMissing(
      OpDefBuilder("TopKV2")
          .Input("input: T")
          .Input("k: Tk")
          .Output("values: T")
          .Output("indices: index_type")
          .Attr("sorted: bool = true")
          .Attr(
              "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
              "uint16, half, uint32, uint64}")
          .Attr("Tk: {int16, int32, int64} = DT_INT32")
          .Attr("index_type: {int16, int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Transpose")
                        .Input("x: T")
                        .Input("perm: Tperm")
                        .Output("y: T")
                        .Attr("T: type")
                        .Attr("Tperm: {int32, int64} = DT_INT32"));
  RegisterIfMissing(OpDefBuilder("Unpack")
                        .Input("value: T")
                        .Output("output: num * T")
                        .Attr("num: int >= 0")
                        .Attr("T: type")
                        .Attr("axis: int = 0"));
  RegisterIfMissing(
      OpDefBuilder("ZerosLike").Input("x: T").Output("y: T").Attr("T: type"));
}

}  // namespace internal_array_ops

// Idempotent and thread-safe.
inline void RegisterMissingArrayOps() {
  static const bool done = (internal_array_ops::RegisterAll(), true);
  (void)done;
}

}  // namespace test
}  // namespace minflow
