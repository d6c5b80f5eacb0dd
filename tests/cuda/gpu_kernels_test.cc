// Every GPU kernel against the CPU kernel on the same inputs, through whole
// sessions: the GPU session places the op on GPU:0 (checked), copies the
// feeds in and the fetch out, and must give the CPU session's values.
// Skips, saying so, on machines without a GPU.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/substitute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/tensor.h"
#include "minflow/cuda/gpu_info.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/cuda/gpu_test_util.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

Tensor Random(const std::vector<int64_t>& dims, float lo, float hi,
              unsigned seed) {
  Tensor t(DT_FLOAT, TensorShape(dims));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto flat = t.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) flat(i) = dist(gen);
  return t;
}

struct Result {
  Status status;
  Tensor value;
  std::string device;  // where `op_node` ran
};

// Runs `graph` with `feeds`, fetching `fetch`; on the GPU when `gpu`.
Result RunGraph(const GraphDef& graph, bool gpu,
                const std::vector<std::pair<std::string, Tensor>>& feeds,
                const std::string& fetch, const std::string& op_node) {
  SessionOptions options;
  if (!gpu) (*options.config.mutable_device_count())["GPU"] = 0;
  // Kernels against kernels: the remapper would fuse some nodes on the CPU
  // side only (the fused ops have no GPU kernels), and the arithmetic
  // optimiser would remove the no-op cases (an identity Transpose) whose
  // kernel shortcuts these tests are about.
  RewriterConfig* rewrites =
      options.config.mutable_graph_options()->mutable_rewrite_options();
  rewrites->set_remapping(RewriterConfig::OFF);
  rewrites->set_arithmetic_optimization(RewriterConfig::OFF);
  Result result;
  auto session = Session::Create(graph, options);
  if (!session.ok()) {
    result.status = session.status();
    return result;
  }
  RunOptions run_options;
  run_options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  result.status =
      (*session)->Run(run_options, feeds, {fetch}, {}, &out, &metadata);
  if (!result.status.ok()) return result;
  result.value = out[0];
  for (const GraphDef& g : metadata.partition_graphs()) {
    for (const NodeDef& n : g.node()) {
      if (n.name() == op_node) result.device = n.device();
    }
  }
  return result;
}

// |gpu - cpu| <= atol + rtol * |cpu| everywhere (NaN matches NaN);
// rtol = atol = 0 asks for equal values.
void ExpectSame(const Tensor& gpu, const Tensor& cpu, double rtol,
                double atol) {
  ASSERT_EQ(gpu.dtype(), cpu.dtype());
  ASSERT_EQ(gpu.shape(), cpu.shape());
  if (gpu.dtype() != DT_FLOAT) {
    EXPECT_EQ(gpu.tensor_data(), cpu.tensor_data());
    return;
  }
  auto g = gpu.flat<float>();
  auto c = cpu.flat<float>();
  int bad = 0;
  for (int64_t i = 0; i < g.size(); ++i) {
    const bool both_nan = std::isnan(g(i)) && std::isnan(c(i));
    // Equal values pass, infinities included (their difference is NaN).
    if (both_nan || g(i) == c(i)) continue;
    const double diff = std::fabs(double{g(i)} - double{c(i)});
    if (!(diff <= atol + rtol * std::fabs(double{c(i)}))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "element " << i << ": GPU " << g(i) << " vs CPU "
                      << c(i);
      }
    }
  }
  EXPECT_EQ(bad, 0) << "of " << g.size() << " elements";
}

void CompareOnGpuAndCpu(
    const GraphDef& graph,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::string& fetch, const std::string& op_node, double rtol = 0,
    double atol = 0) {
  const Result cpu = RunGraph(graph, /*gpu=*/false, feeds, fetch, op_node);
  const Result gpu = RunGraph(graph, /*gpu=*/true, feeds, fetch, op_node);
  MF_ASSERT_OK(cpu.status);
  MF_ASSERT_OK(gpu.status);
  EXPECT_TRUE(absl::EndsWith(gpu.device, "/device:GPU:0"))
      << op_node << " ran on '" << gpu.device << "'";
  EXPECT_TRUE(absl::EndsWith(cpu.device, "/device:CPU:0")) << cpu.device;
  ExpectSame(gpu.value, cpu.value, rtol, atol);
}

GraphDef BinaryGraph(const std::string& op) {
  return ParseTextProtoOrDie<GraphDef>(absl::Substitute(
      R"txt(
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "z" op: "$0" input: "x" input: "y"
               attr { key: "T" value { type: DT_FLOAT } } }
      )txt",
      op));
}

GraphDef UnaryGraph(const std::string& op) {
  return ParseTextProtoOrDie<GraphDef>(absl::Substitute(
      R"txt(
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "z" op: "$0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
      )txt",
      op));
}

struct Shapes {
  std::vector<int64_t> x, y;
};

// Same shape (odd sizes), scalars on either side, broadcasts that collapse
// to ranks 2, 3 and 5, empty, and one large enough for many blocks.
const std::vector<Shapes>& BinaryShapes() {
  static const auto* shapes = new std::vector<Shapes>{
      {{7, 13}, {7, 13}},     {{1031}, {}},
      {{}, {1031}},           {{4, 1, 5}, {3, 1}},
      {{2, 3, 4, 5}, {5}},    {{2, 1, 4, 1, 3}, {1, 5, 1, 6, 3}},
      {{3, 1}, {1, 4}},       {{0, 3}, {3}},
      {{1 << 20}, {1 << 20}}, {{1}, {1}},
  };
  return *shapes;
}

class GpuBinaryOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuBinaryOpTest, EqualsCpu) {
  MF_SKIP_WITHOUT_GPU();
  const std::string op = GetParam();
  // Division is exact on both (IEEE); Pow goes through exp/log on the GPU.
  const bool exact = op != "Pow";
  const bool positive = op == "Pow" || op == "RealDiv" || op == "Div";
  unsigned seed = 1;
  for (const Shapes& s : BinaryShapes()) {
    SCOPED_TRACE(absl::StrCat(op, " x[", absl::StrJoin(s.x, ","), "] y[",
                              absl::StrJoin(s.y, ","), "]"));
    const float lo = positive ? 0.5f : -4.f;
    CompareOnGpuAndCpu(BinaryGraph(op),
                       {{"x", Random(s.x, lo, 4.f, seed)},
                        {"y", Random(s.y, lo, 4.f, seed + 1)}},
                       "z", "z", exact ? 0 : 2e-6, exact ? 0 : 1e-6);
    seed += 2;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuBinaryOpTest,
                         ::testing::Values("Add", "AddV2", "Sub", "Mul",
                                           "RealDiv", "Div", "Maximum",
                                           "Minimum", "SquaredDifference",
                                           "Pow"));

class GpuUnaryOpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuUnaryOpTest, EqualsCpu) {
  MF_SKIP_WITHOUT_GPU();
  const std::string op = GetParam();
  const bool positive =
      op == "Sqrt" || op == "Rsqrt" || op == "Log" || op == "Reciprocal";
  // Exact on both sides; the rest are Eigen's CPU approximations against
  // CUDA's math library. Sqrt is among them: the GPU's is correctly
  // rounded, Eigen's AVX-512 one (rsqrt and a Newton step, EIGEN_FAST_MATH)
  // is off by an ulp now and then (seen on an H200, 2026-11-26).
  const bool exact = op == "Neg" || op == "Abs" || op == "Square" ||
                     op == "Relu" || op == "Relu6" || op == "Floor" ||
                     op == "Reciprocal";
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{1031}, {3, 5, 7}, {0}, {1 << 20}}) {
    SCOPED_TRACE(absl::StrCat(op, " [", absl::StrJoin(dims, ","), "]"));
    Tensor x = Random(dims, positive ? 0.01f : -8.f, 8.f, 7);
    if (x.NumElements() > 3 && !positive) {
      // NaN and infinities go through as the CPU kernel passes them.
      x.flat<float>()(0) = std::nanf("");
      x.flat<float>()(1) = INFINITY;
      x.flat<float>()(2) = -INFINITY;
    }
    CompareOnGpuAndCpu(UnaryGraph(op), {{"x", x}}, "z", "z", exact ? 0 : 4e-6,
                       exact ? 0 : 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuUnaryOpTest,
                         ::testing::Values("Neg", "Abs", "Square", "Sqrt",
                                           "Rsqrt", "Exp", "Log", "Tanh",
                                           "Sigmoid", "Reciprocal", "Floor",
                                           "Relu", "Relu6", "Elu"));

GraphDef MatMulGraph(bool ta, bool tb) {
  return ParseTextProtoOrDie<GraphDef>(absl::Substitute(
      R"txt(
        node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "mm" op: "MatMul" input: "a" input: "b"
               attr { key: "T" value { type: DT_FLOAT } }
               attr { key: "transpose_a" value { b: $0 } }
               attr { key: "transpose_b" value { b: $1 } } }
      )txt",
      ta ? "true" : "false", tb ? "true" : "false"));
}

TEST(GpuMatMulTest, EqualsCpuForEveryTransposeAndShape) {
  MF_SKIP_WITHOUT_GPU();
  struct Case {
    int64_t m, k, n;
  };
  for (const Case& c : std::vector<Case>{{3, 5, 7},
                                         {1, 784, 512},
                                         {64, 512, 10},
                                         {129, 67, 33},
                                         {4, 0, 3},
                                         {0, 5, 3}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(absl::StrCat(c.m, "x", c.k, " * ", c.k, "x", c.n,
                                  " ta=", ta, " tb=", tb));
        Tensor a =
            ta ? Random({c.k, c.m}, -1, 1, 3) : Random({c.m, c.k}, -1, 1, 3);
        Tensor b =
            tb ? Random({c.n, c.k}, -1, 1, 4) : Random({c.k, c.n}, -1, 1, 4);
        // Sums of k products in another order: relative to sqrt(k).
        CompareOnGpuAndCpu(MatMulGraph(ta, tb), {{"a", a}, {"b", b}}, "mm",
                           "mm", 1e-5, 1e-5 * std::sqrt(double(c.k) + 1));
      }
    }
  }
}

TEST(GpuMatMulTest, MismatchedShapesNameTheNode) {
  MF_SKIP_WITHOUT_GPU();
  const Result gpu =
      RunGraph(MatMulGraph(false, false), /*gpu=*/true,
               {{"a", Random({2, 3}, 0, 1, 1)}, {"b", Random({4, 5}, 0, 1, 2)}},
               "mm", "mm");
  EXPECT_THAT(gpu.status,
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("mm")));
}

TEST(GpuBiasAddTest, EqualsCpuInBothLayouts) {
  MF_SKIP_WITHOUT_GPU();
  for (const std::string format : {"NHWC", "NCHW"}) {
    const GraphDef graph = ParseTextProtoOrDie<GraphDef>(absl::Substitute(
        R"txt(
          node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
          node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
          node { name: "z" op: "BiasAdd" input: "x" input: "b"
                 attr { key: "T" value { type: DT_FLOAT } }
                 attr { key: "data_format" value { s: "$0" } } }
        )txt",
        format));
    const std::vector<int64_t> dims = format == "NHWC"
                                          ? std::vector<int64_t>{2, 3, 4, 5}
                                          : std::vector<int64_t>{2, 5, 3, 4};
    SCOPED_TRACE(format);
    CompareOnGpuAndCpu(
        graph, {{"x", Random(dims, -1, 1, 5)}, {"b", Random({5}, -1, 1, 6)}},
        "z", "z");
  }
}

TEST(GpuSoftmaxTest, EqualsCpu) {
  MF_SKIP_WITHOUT_GPU();
  for (const std::string op : {"Softmax", "LogSoftmax"}) {
    for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
             {7, 13}, {1, 1000}, {3, 1}, {2, 3, 4}}) {
      SCOPED_TRACE(absl::StrCat(op, " [", absl::StrJoin(dims, ","), "]"));
      CompareOnGpuAndCpu(UnaryGraph(op), {{"x", Random(dims, -10, 10, 9)}}, "z",
                         "z", 1e-5, 1e-6);
    }
  }
}

GraphDef ReductionGraph(const std::string& op, const std::vector<int>& axes,
                        bool keep_dims) {
  std::string values;
  for (int a : axes) absl::StrAppend(&values, " int_val: ", a);
  return ParseTextProtoOrDie<GraphDef>(absl::Substitute(
      R"txt(
        node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
        node { name: "axes" op: "Const"
               attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32
                 tensor_shape { dim { size: $1 } } $2 } } } }
        node { name: "z" op: "$0" input: "x" input: "axes"
               attr { key: "T" value { type: DT_FLOAT } }
               attr { key: "keep_dims" value { b: $3 } } }
      )txt",
      op, axes.size(), values, keep_dims ? "true" : "false"));
}

class GpuReductionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuReductionTest, EqualsCpu) {
  MF_SKIP_WITHOUT_GPU();
  const std::string op = GetParam();
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int> axes;
    bool keep_dims;
  };
  // Inner, outer and middle runs; more than three runs (shuffled first);
  // a full 1-D reduction; negative axes; keep_dims; empty inputs (the
  // op's identity) and empty outputs.
  for (const Case& c : std::vector<Case>{{{7, 13}, {1}, false},
                                         {{7, 13}, {0}, true},
                                         {{7, 13}, {0, 1}, false},
                                         {{1031}, {0}, false},
                                         {{1 << 20}, {-1}, false},
                                         {{4, 5, 6}, {1}, false},
                                         {{4, 5, 6}, {0, 2}, true},
                                         {{2, 3, 4, 5}, {1, 3}, false},
                                         {{2, 3, 4, 5, 6}, {0, 2, 4}, false},
                                         {{0, 5}, {0}, false},
                                         {{5, 0}, {0}, false},
                                         {{64, 1000}, {1}, false}}) {
    SCOPED_TRACE(absl::StrCat(op, " [", absl::StrJoin(c.dims, ","), "] axes [",
                              absl::StrJoin(c.axes, ","), "]"));
    // Products of values near 1 stay finite; Max and Min see a NaN.
    Tensor x = op == "Prod" ? Random(c.dims, 0.99f, 1.01f, 11)
                            : Random(c.dims, -1, 1, 11);
    if ((op == "Max" || op == "Min") && x.NumElements() > 100) {
      x.flat<float>()(37) = std::nanf("");
    }
    const bool exact = op == "Max" || op == "Min";
    const int64_t n = std::max<int64_t>(1, x.NumElements());
    CompareOnGpuAndCpu(ReductionGraph(op, c.axes, c.keep_dims), {{"x", x}}, "z",
                       "z", exact ? 0 : 1e-5,
                       exact ? 0 : 2e-6 * std::sqrt(double(n)));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, GpuReductionTest,
                         ::testing::Values("Sum", "Mean", "Prod", "Max",
                                           "Min"));

TEST(GpuTransposeTest, EqualsCpuForEveryKindOfPermutation) {
  MF_SKIP_WITHOUT_GPU();
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int> perm;
  };
  // 2-D, NHWC <-> NCHW, dims that merge, only size-1 dims moving (a
  // reshape), the identity, empty, 6-D, and one large enough for many
  // blocks.
  for (const Case& c :
       std::vector<Case>{{{7, 13}, {1, 0}},
                         {{2, 5, 6, 3}, {0, 3, 1, 2}},
                         {{2, 3, 5, 6}, {0, 2, 3, 1}},
                         {{4, 5, 6, 7}, {0, 1, 3, 2}},
                         {{3, 1, 4}, {1, 0, 2}},
                         {{3, 4, 5}, {0, 1, 2}},
                         {{0, 4, 5}, {2, 0, 1}},
                         {{2, 3, 2, 3, 2, 3}, {5, 3, 1, 4, 2, 0}},
                         {{512, 1031}, {1, 0}}}) {
    SCOPED_TRACE(absl::StrCat("[", absl::StrJoin(c.dims, ","), "] perm [",
                              absl::StrJoin(c.perm, ","), "]"));
    std::string values;
    for (int p : c.perm) absl::StrAppend(&values, " int_val: ", p);
    const GraphDef graph = ParseTextProtoOrDie<GraphDef>(absl::Substitute(
        R"txt(
          node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
          node { name: "perm" op: "Const"
                 attr { key: "dtype" value { type: DT_INT32 } }
                 attr { key: "value" value { tensor { dtype: DT_INT32
                   tensor_shape { dim { size: $0 } } $1 } } } }
          node { name: "z" op: "Transpose" input: "x" input: "perm"
                 attr { key: "T" value { type: DT_FLOAT } } }
        )txt",
        c.perm.size(), values));
    CompareOnGpuAndCpu(graph, {{"x", Random(c.dims, -1, 1, 3)}}, "z", "z");
  }
}

TEST(GpuAddNTest, EqualsCpuForTwoToSevenInputs) {
  MF_SKIP_WITHOUT_GPU();
  for (int n : {2, 3, 4, 5, 7}) {
    for (const std::vector<int64_t>& dims :
         std::vector<std::vector<int64_t>>{{1031}, {0, 3}, {64, 257}}) {
      SCOPED_TRACE(
          absl::StrCat(n, " inputs of [", absl::StrJoin(dims, ","), "]"));
      std::string nodes;
      std::string inputs;
      std::vector<std::pair<std::string, Tensor>> feeds;
      for (int i = 0; i < n; ++i) {
        const std::string name = absl::StrCat("x", i);
        absl::StrAppend(&nodes, "node { name: \"", name,
                        "\" op: \"Placeholder\" attr { key: \"dtype\" "
                        "value { type: DT_FLOAT } } }\n");
        absl::StrAppend(&inputs, " input: \"", name, "\"");
        feeds.push_back({name, Random(dims, -1, 1, 20 + i)});
      }
      absl::StrAppend(&nodes, "node { name: \"z\" op: \"AddN\"", inputs,
                      " attr { key: \"T\" value { type: DT_FLOAT } }",
                      " attr { key: \"N\" value { i: ", n, " } } }");
      // The same sums in the same order on both: equal results.
      CompareOnGpuAndCpu(ParseTextProtoOrDie<GraphDef>(nodes), feeds, "z", "z");
    }
  }
}

// `n` float placeholders x0..x{n-1} joined by `op` ("ConcatV2" with an
// axis input, or "Pack" with an axis attr).
GraphDef JoinGraph(const std::string& op, int n, int axis) {
  std::string text;
  std::string inputs;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&text, "node { name: \"x", i,
                    "\" op: \"Placeholder\" attr { key: \"dtype\" value { "
                    "type: DT_FLOAT } } }\n");
    absl::StrAppend(&inputs, " input: \"x", i, "\"");
  }
  if (op == "ConcatV2") {
    absl::StrAppend(&text,
                    "node { name: \"axis\" op: \"Const\" attr { key: "
                    "\"dtype\" value { type: DT_INT32 } } attr { key: "
                    "\"value\" value { tensor { dtype: DT_INT32 tensor_shape "
                    "{} int_val: ",
                    axis, " } } } }\n");
    absl::StrAppend(&text, "node { name: \"z\" op: \"ConcatV2\"", inputs,
                    " input: \"axis\" attr { key: \"T\" value { type: "
                    "DT_FLOAT } } attr { key: \"N\" value { i: ",
                    n, " } } }");
  } else {
    absl::StrAppend(&text, "node { name: \"z\" op: \"Pack\"", inputs,
                    " attr { key: \"T\" value { type: DT_FLOAT } } attr { "
                    "key: \"N\" value { i: ",
                    n, " } } attr { key: \"axis\" value { i: ", axis, " } } }");
  }
  return ParseTextProtoOrDie<GraphDef>(text);
}

TEST(GpuConcatTest, ConcatV2EqualsCpuAlongEveryAxis) {
  MF_SKIP_WITHOUT_GPU();
  // Inputs of different widths along the axis, an empty one among them.
  for (int axis : {0, 1, 2, -1}) {
    const int a = axis < 0 ? axis + 3 : axis;
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (int i = 0; i < 3; ++i) {
      std::vector<int64_t> dims = {2, 3, 4};
      dims[a] = i == 1 ? 0 : i + 2;
      feeds.push_back({absl::StrCat("x", i), Random(dims, -1, 1, 40 + i)});
    }
    SCOPED_TRACE(absl::StrCat("axis ", axis));
    CompareOnGpuAndCpu(JoinGraph("ConcatV2", 3, axis), feeds, "z", "z");
  }
  // Many rows of narrow inputs, as a channel concat of NHWC feature maps.
  CompareOnGpuAndCpu(JoinGraph("ConcatV2", 2, 3),
                     {{"x0", Random({8, 28, 28, 5}, -1, 1, 1)},
                      {"x1", Random({8, 28, 28, 3}, -1, 1, 2)}},
                     "z", "z");
}

TEST(GpuConcatTest, PackEqualsCpuAlongEveryAxis) {
  MF_SKIP_WITHOUT_GPU();
  for (int axis : {0, 1, 2, -1}) {
    SCOPED_TRACE(absl::StrCat("axis ", axis));
    CompareOnGpuAndCpu(JoinGraph("Pack", 4, axis),
                       {{"x0", Random({3, 5}, -1, 1, 1)},
                        {"x1", Random({3, 5}, -1, 1, 2)},
                        {"x2", Random({3, 5}, -1, 1, 3)},
                        {"x3", Random({3, 5}, -1, 1, 4)}},
                       "z", "z");
  }
}

TEST(GpuReshapeTest, ShapeArgumentsStayOnTheHost) {
  MF_SKIP_WITHOUT_GPU();
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(R"txt(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "shape" op: "Const"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32
             tensor_shape { dim { size: 2 } } int_val: 6 int_val: -1 } } } }
    node { name: "r" op: "Reshape" input: "x" input: "shape"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "dim" op: "Const"
           attr { key: "dtype" value { type: DT_INT32 } }
           attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "e" op: "ExpandDims" input: "r" input: "dim"
           attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "s" op: "Squeeze" input: "e" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "z" op: "Relu" input: "s" attr { key: "T" value { type: DT_FLOAT } } }
  )txt");
  CompareOnGpuAndCpu(graph, {{"x", Random({2, 3, 4}, -1, 1, 2)}}, "z", "r");
}

// The examples' MLP as a whole: MatMul, BiasAdd, Relu and Softmax on the
// GPU, ArgMax on the CPU, and the copies between them.
// The bundled digits MLP; an empty graph (and a test failure) if unreadable.
GraphDef DigitsMlp() {
  // On the GPU machine the checkout lives elsewhere: gpu_check.sh says where.
  const char* source_dir = std::getenv("MINFLOW_SOURCE_DIR");
  const std::string examples = source_dir != nullptr
                                   ? std::string(source_dir) + "/examples"
                                   : std::string(MINFLOW_EXAMPLES_DIR);
  std::ifstream file(examples + "/graphs/digits_mlp.pbtxt");
  EXPECT_TRUE(file.good()) << examples;
  std::stringstream text;
  text << file.rdbuf();
  return ParseTextProtoOrDie<GraphDef>(text.str());
}

TEST(GpuGraphTest, DigitsMlpGivesTheCpuResults) {
  MF_SKIP_WITHOUT_GPU();
  const GraphDef graph = DigitsMlp();
  for (int batch : {1, 3, 64}) {
    SCOPED_TRACE(batch);
    const Tensor x = Random({batch, 35}, 0, 1, batch);
    CompareOnGpuAndCpu(graph, {{"x", x}}, "probs", "dense1/MatMul", 1e-5, 1e-6);
    CompareOnGpuAndCpu(graph, {{"x", x}}, "digit", "probs");
  }
}

TEST(GpuSessionTest, ManyRunsAndConcurrentRunsAgree) {
  MF_SKIP_WITHOUT_GPU();
  const GraphDef graph = BinaryGraph("Mul");
  auto session = Session::Create(graph, SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        Tensor x = Random({257}, -1, 1, t * 1000 + i);
        Tensor y = Random({257}, -1, 1, t * 1000 + i + 7);
        std::vector<Tensor> out;
        if (!(*session)->Run({{"x", x}, {"y", y}}, {"z"}, {}, &out).ok()) {
          ++wrong;
          continue;
        }
        for (int k = 0; k < 257; ++k) {
          if (out[0].flat<float>()(k) !=
              x.flat<float>()(k) * y.flat<float>()(k)) {
            ++wrong;
            break;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

// --- Steps launched as CUDA Graphs (Note [Captured steps])

// A session on the GPU; with use_cuda_graphs when `graphs`. Placement is
// logged, so a step that is not captured says why on stderr.
std::unique_ptr<Session> GpuSession(const GraphDef& graph, bool graphs) {
  SessionOptions options;
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_remapping(RewriterConfig::OFF);
  options.config.set_log_device_placement(graphs);
  options.config.mutable_gpu_options()
      ->mutable_experimental()
      ->set_use_cuda_graphs(graphs);
  auto session = Session::Create(graph, options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

TEST(GpuCudaGraphTest, DigitsMlpLaunchedAsAGraphGivesTheExecutorsResults) {
  MF_SKIP_WITHOUT_GPU();
  const GraphDef graph = DigitsMlp();
  ::testing::internal::CaptureStderr();
  auto graphs = GpuSession(graph, /*graphs=*/true);
  auto plain = GpuSession(graph, /*graphs=*/false);
  ASSERT_NE(graphs, nullptr);
  ASSERT_NE(plain, nullptr);
  // Run 1 warms up, run 2 records and launches, runs 3 on launch; each with
  // its own input, so a launch that kept the recorded feed would show.
  for (int run = 0; run < 6; ++run) {
    SCOPED_TRACE(run);
    const Tensor x = Random({64, 35}, 0, 1, 100 + run);
    std::vector<Tensor> from_graph, from_executor;
    MF_ASSERT_OK(graphs->Run({{"x", x}}, {"probs"}, {}, &from_graph));
    MF_ASSERT_OK(plain->Run({{"x", x}}, {"probs"}, {}, &from_executor));
    ExpectSame(from_graph[0], from_executor[0], 1e-6, 1e-7);
  }
  // Another batch size runs through the executor, right too.
  const Tensor x = Random({5, 35}, 0, 1, 7);
  std::vector<Tensor> from_graph, from_executor;
  MF_ASSERT_OK(graphs->Run({{"x", x}}, {"probs"}, {}, &from_graph));
  MF_ASSERT_OK(plain->Run({{"x", x}}, {"probs"}, {}, &from_executor));
  ExpectSame(from_graph[0], from_executor[0], 1e-6, 1e-7);
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, ::testing::Not(HasSubstr("ot captured"))) << log;
}

TEST(GpuCudaGraphTest, ChainFollowsItsFeedsAcrossLaunches) {
  MF_SKIP_WITHOUT_GPU();
  // y = x + 1 + 1 + ... (50 times), every AddV2 on the GPU.
  GraphDef graph = ParseTextProtoOrDie<GraphDef>(R"txt(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "one" op: "Const"
           attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  )txt");
  std::string previous = "x";
  for (int i = 0; i < 50; ++i) {
    NodeDef* add = graph.add_node();
    add->set_name(absl::StrCat("add", i));
    add->set_op("AddV2");
    add->add_input(previous);
    add->add_input("one");
    (*add->mutable_attr())["T"].set_type(DT_FLOAT);
    previous = add->name();
  }
  ::testing::internal::CaptureStderr();
  auto session = GpuSession(graph, /*graphs=*/true);
  ASSERT_NE(session, nullptr);
  for (int run = 0; run < 20; ++run) {
    const Tensor x = Random({1 + run % 2 * 1000}, -5, 5, run);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({{"x", x}}, {previous}, {}, &out));
    ASSERT_EQ(out[0].shape(), x.shape());
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      ASSERT_NEAR(out[0].flat<float>()(i), x.flat<float>()(i) + 50, 1e-4)
          << "run " << run << ", element " << i;
    }
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, ::testing::Not(HasSubstr("ot captured"))) << log;
}

}  // namespace
}  // namespace minflow
