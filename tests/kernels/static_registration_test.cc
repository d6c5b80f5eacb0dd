// Static registrations survive linking: this binary references no symbol of
// src/ops or src/kernels (it links libminflow like any application), yet
// every op of the CPU op set must be in the op registry with a shape
// function and a CPU kernel, and every registration must be valid. A layer
// linked as a static archive without --whole-archive would drop those
// object files and fail here.
#include <set>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/kernel_def.pb.h"
#include "tests/testlib/status_matchers.h"

namespace minflow {
namespace {

// The CPU op set of the kernels issue plus the guide's ops; keep sorted.
constexpr const char* kCpuOps[] = {
    "Abs",
    "Acos",
    "Acosh",
    "Add",
    "AddN",
    "AddV2",
    "All",
    "Any",
    "ArgMax",
    "ArgMin",
    "Asin",
    "Asinh",
    "Assert",
    "Atan",
    "Atan2",
    "Atanh",
    "AvgPool",
    "AvgPool3D",
    "BatchMatMul",
    "BatchMatMulV2",
    "BatchMatMulV3",
    "BatchToSpaceND",
    "BiasAdd",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "BroadcastArgs",
    "BroadcastTo",
    "Bucketize",
    "Cast",
    "Ceil",
    "CheckNumerics",
    "ClipByValue",
    "CombinedNonMaxSuppression",
    "ConcatV2",
    "Const",
    "Conv2D",
    "Conv2DBackpropInput",
    "Conv3D",
    "Cos",
    "Cosh",
    "CropAndResize",
    "Cumprod",
    "Cumsum",
    "DepthToSpace",
    "DepthwiseConv2dNative",
    "Div",
    "DivNoNan",
    "Einsum",
    "Elu",
    "EnsureShape",
    "Equal",
    "Erf",
    "Erfc",
    "EuclideanNorm",
    "Example",
    "Exp",
    "ExpandDims",
    "Expm1",
    "ExtractImagePatches",
    "FakeQuantWithMinMaxArgs",
    "FakeQuantWithMinMaxVars",
    "FakeQuantWithMinMaxVarsPerChannel",
    "Fill",
    "Floor",
    "FloorDiv",
    "FloorMod",
    "FusedBatchNorm",
    "FusedBatchNormV2",
    "FusedBatchNormV3",
    "GatherNd",
    "GatherV2",
    "Greater",
    "GreaterEqual",
    "Identity",
    "IdentityN",
    "Invert",
    "InvertPermutation",
    "IsFinite",
    "IsInf",
    "IsNan",
    "L2Loss",
    "LRN",
    "LeakyRelu",
    "LeftShift",
    "Less",
    "LessEqual",
    "LinSpace",
    "Log",
    "Log1p",
    "LogSoftmax",
    "LogicalAnd",
    "LogicalNot",
    "LogicalOr",
    "MatMul",
    "MatrixBandPart",
    "MatrixDiagV3",
    "MatrixSetDiagV3",
    "Max",
    "MaxPool",
    "MaxPool3D",
    "MaxPoolV2",
    "MaxPoolWithArgmax",
    "Maximum",
    "Mean",
    "MedianPool2D",
    "Min",
    "Minimum",
    "MirrorPad",
    "Mod",
    "Mul",
    "MulNoNan",
    "Multinomial",
    "Neg",
    "NoOp",
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NotEqual",
    "OneHot",
    "OnesLike",
    "Pack",
    "Pad",
    "PadV2",
    "Placeholder",
    "PlaceholderWithDefault",
    "Pow",
    "Prod",
    "QuantizeAndDequantizeV2",
    "QuantizeAndDequantizeV3",
    "QuantizeAndDequantizeV4",
    "RandomStandardNormal",
    "RandomUniform",
    "RandomUniformInt",
    "Range",
    "Rank",
    "RealDiv",
    "Reciprocal",
    "Relu",
    "Relu6",
    "Reshape",
    "ResizeBicubic",
    "ResizeBilinear",
    "ResizeNearestNeighbor",
    "ReverseSequence",
    "ReverseV2",
    "RightShift",
    "Rint",
    "Round",
    "Rsqrt",
    "ScatterNd",
    "SegmentSum",
    "Select",
    "SelectV2",
    "Selu",
    "Shape",
    "ShapeN",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Size",
    "Slice",
    "Snapshot",
    "Softmax",
    "Softplus",
    "Softsign",
    "SpaceToBatchND",
    "SpaceToDepth",
    "SparseToDense",
    "Split",
    "SplitV",
    "Sqrt",
    "Square",
    "SquaredDifference",
    "Squeeze",
    "StatelessRandomNormalV2",
    "StatelessRandomUniformV2",
    "StatelessTruncatedNormalV2",
    "StopGradient",
    "StridedSlice",
    "Sub",
    "Sum",
    "Tan",
    "Tanh",
    "TensorScatterAdd",
    "TensorScatterUpdate",
    "Tile",
    "TopKV2",
    "Transpose",
    "TruncateDiv",
    "TruncateMod",
    "TruncatedNormal",
    "Unique",
    "Unpack",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "UnsortedSegmentSum",
    "Where",
    "Xdivy",
    "Xlogy",
    "ZeroOut",
    "ZerosLike",
    "_FusedBatchNormEx",
    "_FusedConv2D",
    "_FusedDepthwiseConv2dNative",
    "_FusedMatMul",
};

TEST(StaticRegistrationTest, EveryOpIsRegisteredWithAShapeFunction) {
  for (const char* op : kCpuOps) {
    const OpRegistrationData* data = OpRegistry::Global()->LookUp(op);
    ASSERT_NE(data, nullptr) << op << " is not registered";
    EXPECT_TRUE(static_cast<bool>(data->shape_inference_fn))
        << op << " has no shape function";
  }
}

TEST(StaticRegistrationTest, EveryOpHasACpuKernel) {
  std::set<std::string> ops_with_cpu_kernel;
  const KernelList all = GetAllRegisteredKernels();
  for (const KernelDef& def : all.kernel()) {
    if (def.device_type() == DEVICE_CPU) ops_with_cpu_kernel.insert(def.op());
  }
  for (const char* op : kCpuOps) {
    EXPECT_TRUE(ops_with_cpu_kernel.count(op)) << "no CPU kernel for " << op;
  }
}

TEST(StaticRegistrationTest, EveryRegistrationIsValid) {
  EXPECT_THAT(OpRegistry::Global()->registration_errors(),
              ::testing::IsEmpty());
  MF_EXPECT_OK(ValidateKernelRegistrations(*OpRegistry::Global()));
  EXPECT_THAT(KernelRegistrationErrors(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace minflow
