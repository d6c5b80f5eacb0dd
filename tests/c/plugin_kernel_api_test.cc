// The C plugin kernel ABI (minflow/c/kernel_plugin.h) end to end, without
// the op-library loader: plugins written in C (testdata/test_plugins.c,
// compiled into this binary, and examples/c_plugin's Atan, built by clang
// as its own shared library and opened here with dlopen) go through
// InitializeCPlugin, then graphs using their ops run in a Session.
#include <dlfcn.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/c/kernel_plugin.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/op.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/session.h"
#include "src/c/plugin_init.h"
#include "tests/c/testdata/test_plugins.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/tensor_testutil.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kTestLibrary[] = "test_plugins.c";

void* Symbol(MF_PluginInitEntry entry) {
  return reinterpret_cast<void*>(entry);
}

// TestPluginInit's ops, registered once per process.
void LoadTestPlugin() {
  static const Status loaded =
      InitializeCPlugin(Symbol(TestPluginInit), kTestLibrary);
  MF_ASSERT_OK(loaded);
}

// examples/c_plugin's libatan.so, opened and initialised once per process.
void LoadAtanPlugin() {
  static const Status loaded = [] {
    void* handle = dlopen(MINFLOW_ATAN_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return errors::NotFound("dlopen: ", dlerror());
    return InitializeCPlugin(dlsym(handle, MF_PLUGIN_INIT_SYMBOL),
                             MINFLOW_ATAN_PLUGIN);
  }();
  MF_ASSERT_OK(loaded);
}

StatusOr<std::unique_ptr<Session>> MakeSession(const GraphDef& graph) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(2);
  options.config.set_intra_op_parallelism_threads(1);
  return Session::Create(graph, options);
}

// Creates a session for `graph_text` and fetches `fetches`.
StatusOr<std::vector<Tensor>> RunGraph(
    const std::string& graph_text,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches) {
  MF_ASSIGN_OR_RETURN(auto session,
                      MakeSession(ParseTextProtoOrDie<GraphDef>(graph_text)));
  std::vector<Tensor> out;
  MF_RETURN_IF_ERROR(session->Run(feeds, fetches, {}, &out));
  return out;
}

// The shape the graph pipeline infers for output 0 of `node` ("[2,3]",
// "?"), or its error.
std::string InferredShape(const GraphDef& graph, const char* node) {
  std::unique_ptr<GraphPipeline> pipeline;
  Status s = GraphPipeline::Prepare(graph, GraphPipelineOptions(), &pipeline);
  if (!s.ok()) return s.ToString();
  return pipeline->graph().FindNodeByName(node)->output_shape(0).DebugString();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- Loading ----------------------------------------------------------------

TEST(PluginKernelApiTest, RegistersOpsAndCpuKernelsOwnedByTheLibrary) {
  LoadTestPlugin();
  for (const char* op : {"Test>AttrEcho", "Test>Accumulate",
                         "Test>ShapeFromValue", "Test>Misbehave"}) {
    const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
    ASSERT_NE(reg, nullptr) << op;
    EXPECT_EQ(reg->owner, kTestLibrary);
    EXPECT_THAT(KernelsRegisteredForOp(op), HasSubstr("device='CPU'"));
  }
  const OpRegistrationData* accumulate =
      OpRegistry::Global()->LookUp("Test>Accumulate");
  EXPECT_EQ(accumulate->op_def.input_arg(0).number_attr(), "N");
  EXPECT_TRUE(static_cast<bool>(accumulate->shape_inference_fn));
  EXPECT_FALSE(static_cast<bool>(
      OpRegistry::Global()->LookUp("Test>Misbehave")->shape_inference_fn));
}

TEST(PluginKernelApiTest, LoadingTheSameOpsAgainNamesBothOwners) {
  LoadTestPlugin();
  EXPECT_THAT(InitializeCPlugin(Symbol(TestPluginInit), "again.so"),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       AllOf(HasSubstr("Op 'Test>AttrEcho' is already "
                                       "registered by 'test_plugins.c'"),
                             HasSubstr("plugin library 'again.so'"))));
}

TEST(PluginKernelApiTest, RefusesANewerApiVersionNamingBoth) {
  EXPECT_THAT(
      InitializeCPlugin(Symbol(TestPluginNewerApi), "future.so"),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr("plugin library 'future.so' requires plugin "
                               "API version 2"),
                     HasSubstr("serves plugin API versions 1 to 1"))));
  EXPECT_EQ(OpRegistry::Global()->LookUp("Test>FromTheFuture"), nullptr);
}

TEST(PluginKernelApiTest, RefusesANullSymbol) {
  EXPECT_THAT(InitializeCPlugin(nullptr, "empty.so"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'empty.so' has no MF_PluginInit")));
}

struct LoadFailure {
  const char* name;
  MF_PluginInitEntry entry;
  absl::StatusCode code;
  const char* message;
  const char* absent_op;
};

class PluginLoadFailureTest : public ::testing::TestWithParam<LoadFailure> {};

TEST_P(PluginLoadFailureTest, FailsWithAClearErrorAndRegistersNothing) {
  const LoadFailure& f = GetParam();
  EXPECT_THAT(InitializeCPlugin(Symbol(f.entry), "bad.so"),
              StatusIs(f.code, HasSubstr(f.message)));
  EXPECT_EQ(OpRegistry::Global()->LookUp(f.absent_op), nullptr);
}

INSTANTIATE_TEST_SUITE_P(
    PluginKernelApiTest, PluginLoadFailureTest,
    ::testing::Values(
        LoadFailure{"BadSpec", TestPluginBadSpec,
                    absl::StatusCode::kInvalidArgument, "Tx", "Test>BadSpec"},
        LoadFailure{"TakenName", TestPluginTakenName,
                    absl::StatusCode::kAlreadyExists,
                    "Op 'ZeroOut' is already registered by 'minflow'; plugin "
                    "library 'bad.so' cannot register it again",
                    "Test>NeverRegistered"},
        LoadFailure{"NoInvoke", TestPluginNoInvoke,
                    absl::StatusCode::kInvalidArgument,
                    "plugin op 'Test>NoInvoke' v1 from 'bad.so' has no Invoke",
                    "Test>NoInvoke"},
        LoadFailure{"FailsSilently", TestPluginFailsSilently,
                    absl::StatusCode::kUnknown,
                    "MF_PluginInit of plugin library 'bad.so' returned 7 "
                    "without reporting an error",
                    "Test>Silent"},
        LoadFailure{"ReportsError", TestPluginReportsError,
                    absl::StatusCode::kFailedPrecondition,
                    "plugin library 'bad.so': this plugin needs a "
                    "frobnicator",
                    "Test>NeverRegistered"},
        // All or nothing: the good op of a failing load is not added.
        LoadFailure{"PartlyBad", TestPluginPartlyBad,
                    absl::StatusCode::kInvalidArgument, "9: int",
                    "Test>PartlyGood"},
        LoadFailure{"NullArguments", TestPluginNullArguments,
                    absl::StatusCode::kInvalidArgument,
                    "OperatorCreate: the handle is null (plugin library "
                    "'bad.so')",
                    "Test>NullRegistrar"},
        LoadFailure{"RegistersTwice", TestPluginRegistersTwice,
                    absl::StatusCode::kAlreadyExists,
                    "op 'Test>Twice' is registered twice by plugin library "
                    "'bad.so'",
                    "Test>Twice"},
        LoadFailure{"UsesRegisteredOperator", TestPluginUsesRegisteredOperator,
                    absl::StatusCode::kInvalidArgument,
                    "OperatorAddAttr: the operator was not made by "
                    "OperatorCreate in this MF_PluginInit, or was already "
                    "registered or deleted",
                    "Test>UsedAfterRegister"},
        LoadFailure{"NoPrepareForShapes", TestPluginNoPrepareForShapes,
                    absl::StatusCode::kInvalidArgument,
                    "infers shapes with Prepare but has no Prepare",
                    "Test>NoPrepare"}),
    [](const ::testing::TestParamInfo<LoadFailure>& info) {
      return std::string(info.param.name);
    });

// LoadOpLibrary calls InitializeCPlugin between DeferRegistrations and
// ProcessRegistrations: the op appears when the loader processes them.
TEST(PluginKernelApiTest, WorksInsideTheLoadersDeferredBracket) {
  OpRegistry::Global()->DeferRegistrations();
  const Status loaded =
      InitializeCPlugin(Symbol(TestPluginIdentity), "identity.so");
  EXPECT_EQ(OpRegistry::Global()->LookUp("Test>Identity"), nullptr);
  MF_EXPECT_OK(OpRegistry::Global()->ProcessRegistrations());
  MF_ASSERT_OK(loaded);
  ASSERT_NE(OpRegistry::Global()->LookUp("Test>Identity"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUp("Test>Identity")->owner,
            "identity.so");
  auto out = RunGraph(R"pb(
                        node {
                          name: "x"
                          op: "Placeholder"
                          attr {
                            key: "dtype"
                            value { type: DT_FLOAT }
                          }
                        }
                        node { name: "y" op: "Test>Identity" input: "x" }
                      )pb",
                      {{"x", test::AsTensor<float>({4, 5})}}, {"y"});
  MF_ASSERT_OK(out.status());
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({4, 5}));
}

TEST(PluginKernelApiTest, APluginThatRegistersNothingLoads) {
  MF_EXPECT_OK(InitializeCPlugin(Symbol(TestPluginEmpty), "empty.so"));
  EXPECT_EQ(OpRegistry::Global()->LookUp("Test>Discarded"), nullptr);
}

// ---- Attrs ------------------------------------------------------------------

// Runs Test>AttrEcho with `attrs` (text of `attr { ... }` entries).
StatusOr<std::vector<Tensor>> RunEcho(const std::string& attrs) {
  return RunGraph(
      absl::StrCat("node { name: 'echo' op: 'Test>AttrEcho' ", attrs, " }"), {},
      {"echo:0", "echo:1"});
}

std::string Attr(const char* key, const char* value) {
  return absl::StrCat("attr { key: '", key, "' value { ", value, " } } ");
}

TEST(PluginKernelApiTest, InitReadsEveryAttrKind) {
  LoadTestPlugin();
  auto out =
      RunEcho(Attr("i", "i: 7") + Attr("f", "f: 2.5") + Attr("b", "b: false") +
              Attr("t", "type: DT_DOUBLE") + Attr("s", "s: 'xyz'") +
              Attr("l", "list { i: 1 i: -2 i: 3 }"));
  MF_ASSERT_OK(out.status());
  test::ExpectTensorEqual<int64_t>(
      (*out)[0],
      test::AsTensor<int64_t>({7, 0, DT_DOUBLE, 3, 'x', 3, 1, -2, 3}));
  test::ExpectTensorEqual<float>((*out)[1], test::AsTensor<float>({2.5f}));
}

TEST(PluginKernelApiTest, InitSeesAttrDefaults) {
  LoadTestPlugin();
  auto out = RunEcho(Attr("i", "i: -1"));
  MF_ASSERT_OK(out.status());
  test::ExpectTensorEqual<int64_t>(
      (*out)[0], test::AsTensor<int64_t>({-1, 1, DT_INT64, 3, 'a', 2, 4, 5}));
  test::ExpectTensorEqual<float>((*out)[1], test::AsTensor<float>({0.5f}));
}

TEST(PluginKernelApiTest, InitRefusesAListLongerThanItsBuffer) {
  LoadTestPlugin();
  EXPECT_THAT(RunEcho(Attr("i", "i: 0") +
                      Attr("l",
                           "list { i: 1 i: 2 i: 3 i: 4 i: 5 i: 6 i: 7 "
                           "i: 8 i: 9 }")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("l may hold at most 8 ints"),
                             HasSubstr("{{node echo}}"))));
  EXPECT_EQ(TestPluginLiveStates(), 0);
}

// ---- Prepare, Invoke, temporaries, list inputs ------------------------------

constexpr char kAccumulate[] = R"pb(
  node {
    name: "a"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: $0 }
    }
    attr {
      key: "shape"
      value { shape { $1 } }
    }
  }
  node {
    name: "b"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: $0 }
    }
    attr {
      key: "shape"
      value { shape { $2 } }
    }
  }
  node {
    name: "sum"
    op: "Test>Accumulate"
    input: "a"
    input: "b"
    input: "a"
    attr {
      key: "T"
      value { type: $0 }
    }
    attr {
      key: "N"
      value { i: 3 }
    }
  }
)pb";
constexpr char kUnknownRank[] = "unknown_rank: true";

std::string Accumulate(const char* dtype, const char* a_shape = kUnknownRank,
                       const char* b_shape = kUnknownRank) {
  return absl::Substitute(kAccumulate, dtype, a_shape, b_shape);
}

TEST(PluginKernelApiTest, ListInputsAndTemporariesForEachType) {
  LoadTestPlugin();
  auto f = RunGraph(Accumulate("DT_FLOAT"),
                    {{"a", test::AsTensor<float>({1, 2, 3, 4}, {2, 2})},
                     {"b", test::AsTensor<float>({10, 20, 30, 40}, {2, 2})}},
                    {"sum"});
  MF_ASSERT_OK(f.status());
  test::ExpectTensorEqual<float>(
      (*f)[0], test::AsTensor<float>({12, 24, 36, 48}, {2, 2}));

  auto d = RunGraph(Accumulate("DT_DOUBLE"),
                    {{"a", test::AsTensor<double>({0.25})},
                     {"b", test::AsTensor<double>({1.5})}},
                    {"sum"});
  MF_ASSERT_OK(d.status());
  test::ExpectTensorEqual<double>((*d)[0], test::AsTensor<double>({2.0}));

  auto i = RunGraph(Accumulate("DT_INT32"),
                    {{"a", test::AsTensor<int32_t>({-3, 5})},
                     {"b", test::AsTensor<int32_t>({1, 1})}},
                    {"sum"});
  MF_ASSERT_OK(i.status());
  test::ExpectTensorEqual<int32_t>((*i)[0], test::AsTensor<int32_t>({-5, 11}));
}

TEST(PluginKernelApiTest, EmptyInputsGiveAnEmptyOutput) {
  LoadTestPlugin();
  auto out = RunGraph(Accumulate("DT_FLOAT"),
                      {{"a", test::AsTensor<float>({}, {0, 3})},
                       {"b", test::AsTensor<float>({}, {0, 3})}},
                      {"sum"});
  MF_ASSERT_OK(out.status());
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 3}));
}

TEST(PluginKernelApiTest, PrepareErrorAtRunTimeNamesNodeAndOp) {
  LoadTestPlugin();
  auto out = RunGraph(Accumulate("DT_FLOAT"),
                      {{"a", test::AsTensor<float>({1, 2})},
                       {"b", test::AsTensor<float>({1, 2, 3})}},
                      {"sum"});
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kInvalidArgument,
                            AllOf(HasSubstr("every input must have the shape "
                                            "of input 0"),
                                  HasSubstr("{{node sum}}"),
                                  HasSubstr("Test>Accumulate"))));
}

TEST(PluginKernelApiTest, PrepareInfersShapesWhenInputShapesAreKnown) {
  LoadTestPlugin();
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(
      Accumulate("DT_FLOAT", "dim { size: 2 } dim { size: 3 }",
                 "dim { size: 2 } dim { size: 3 }"));
  EXPECT_EQ(InferredShape(graph, "sum"), "[2,3]");
}

TEST(PluginKernelApiTest, PrepareLeavesShapesUnknownWhenInputsAreNot) {
  LoadTestPlugin();
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(
      Accumulate("DT_FLOAT", "dim { size: -1 } dim { size: 3 }",
                 "dim { size: 2 } dim { size: 3 }"));
  EXPECT_EQ(InferredShape(graph, "sum"), "?");
}

TEST(PluginKernelApiTest,
     PrepareErrorDuringShapeInferenceMakesTheGraphInvalid) {
  LoadTestPlugin();
  auto session = MakeSession(ParseTextProtoOrDie<GraphDef>(
      Accumulate("DT_FLOAT", "dim { size: 2 }", "dim { size: 3 }")));
  EXPECT_THAT(session,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("every input must have the shape of "
                                       "input 0"),
                             HasSubstr("sum"))));
}

constexpr char kShapeFromConst[] = R"pb(
  node {
    name: "shape"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape { dim { size: $0 } } $1
        }
      }
    }
  }
  node { name: "y" op: "Test>ShapeFromValue" input: "shape" }
)pb";

TEST(PluginKernelApiTest, PrepareReadsConstantInputsDuringShapeInference) {
  LoadTestPlugin();
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(
      absl::Substitute(kShapeFromConst, 2, "int_val: 2 int_val: 3"));
  EXPECT_EQ(InferredShape(graph, "y"), "[2,3]");

  auto out = RunGraph(
      absl::Substitute(kShapeFromConst, 2, "int_val: 2 int_val: 0"), {}, {"y"});
  MF_ASSERT_OK(out.status());
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 0}));
}

TEST(PluginKernelApiTest, PrepareNeedingAFedValueLeavesShapesUnknown) {
  LoadTestPlugin();
  constexpr char kFed[] = R"pb(
    node {
      name: "shape"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "shape"
        value { shape { dim { size: 1 } } }
      }
    }
    node { name: "y" op: "Test>ShapeFromValue" input: "shape" }
  )pb";
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(kFed);
  EXPECT_EQ(InferredShape(graph, "y"), "?");

  auto out = RunGraph(kFed, {{"shape", test::AsTensor<int32_t>({4})}}, {"y"});
  MF_ASSERT_OK(out.status());
  EXPECT_EQ((*out)[0].shape(), TensorShape({4}));
}

TEST(PluginKernelApiTest, BadShapeFromAConstantMakesTheGraphInvalid) {
  LoadTestPlugin();
  auto session = MakeSession(ParseTextProtoOrDie<GraphDef>(
      absl::Substitute(kShapeFromConst, 1, "int_val: -4")));
  EXPECT_THAT(session, StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("KernelContext_SetOutputShape")));
}

TEST(PluginKernelApiTest, InvokeRunsConcurrentlyFromManySteps) {
  LoadTestPlugin();
  auto session = MakeSession(ParseTextProtoOrDie<GraphDef>(
      Accumulate("DT_FLOAT", "dim { size: 3 }", "dim { size: 3 }")));
  MF_ASSERT_OK(session.status());
  std::vector<std::thread> threads;
  std::vector<Status> failures(8);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 0; step < 50 && failures[t].ok(); ++step) {
        const float v = static_cast<float>(t * 100 + step);
        std::vector<Tensor> out;
        failures[t] = (*session)->Run({{"a", test::AsTensor<float>({v, 1, 2})},
                                       {"b", test::AsTensor<float>({1, v, 0})}},
                                      {"sum"}, {}, &out);
        if (failures[t].ok() && (out[0].flat<float>()(0) != 2 * v + 1 ||
                                 out[0].flat<float>()(1) != v + 2 ||
                                 out[0].flat<float>()(2) != 4)) {
          failures[t] =
              errors::Internal("wrong sum at thread ", t, " step ", step);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Status& s : failures) MF_EXPECT_OK(s);
}

// ---- An untrusted plugin ----------------------------------------------------

constexpr char kMisbehave[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "bad"
    op: "Test>Misbehave"
    input: "x"
    attr {
      key: "mode"
      value { s: "$0" }
    }
  }
)pb";

StatusOr<std::vector<Tensor>> RunMisbehave(const std::string& mode) {
  return RunGraph(absl::Substitute(kMisbehave, mode),
                  {{"x", test::AsTensor<float>({1, 2, 3})}}, {"bad"});
}

TEST(PluginKernelApiTest, WellBehavedModeCopiesItsInput) {
  LoadTestPlugin();
  auto out = RunMisbehave("ok");
  MF_ASSERT_OK(out.status());
  test::ExpectTensorEqual<float>((*out)[0], test::AsTensor<float>({1, 2, 3}));
}

struct Misuse {
  const char* mode;
  absl::StatusCode code;
  const char* message;
};

class PluginMisuseTest : public ::testing::TestWithParam<Misuse> {};

TEST_P(PluginMisuseTest, BecomesTheStepsStatusNamingNodeAndOp) {
  LoadTestPlugin();
  const Misuse& m = GetParam();
  EXPECT_THAT(
      RunMisbehave(m.mode),
      StatusIs(m.code, AllOf(HasSubstr(m.message), HasSubstr("{{node bad}}"),
                             HasSubstr("Test>Misbehave"))));
  // The process keeps working, and no kernel state leaks.
  MF_EXPECT_OK(RunMisbehave("ok").status());
  EXPECT_EQ(TestPluginLiveStates(), 0);
}

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;

INSTANTIATE_TEST_SUITE_P(
    PluginKernelApiTest, PluginMisuseTest,
    ::testing::Values(
        Misuse{"prepare_error", kInvalid, "x must be positive"},
        Misuse{"prepare_silent", absl::StatusCode::kFailedPrecondition,
               "Prepare of plugin op 'Test>Misbehave' v1 from "
               "'test_plugins.c' returned error code 9 without a message"},
        Misuse{"invoke_error", absl::StatusCode::kResourceExhausted,
               "out of widgets"},
        Misuse{"no_output", absl::StatusCode::kInternal,
               "Invoke of plugin op 'Test>Misbehave' v1 from "
               "'test_plugins.c' returned success without producing output "
               "0 ('y')"},
        Misuse{"bad_input_index", kInvalid,
               "KernelContext_InputData: input index must be in [0, 1), but "
               "got 3 (plugin op 'Test>Misbehave' v1 from 'test_plugins.c')"},
        Misuse{"wrong_input_dtype", kInvalid,
               "KernelContext_InputData: dtype must be the tensor's (float), "
               "but got double"},
        Misuse{"wrong_output_dtype", kInvalid,
               "KernelContext_OutputData: dtype must be the tensor's "
               "(float), but got int32"},
        Misuse{"null_context", kInvalid,
               "KernelContext_InputNumDims: the handle is null"},
        Misuse{"negative_dim", kInvalid, "KernelContext_SetOutputShape: "},
        Misuse{"null_dims", kInvalid,
               "KernelContext_SetOutputShape: dims must not be null for "
               "num_dims 2"},
        Misuse{"shape_mismatch", kInvalid,
               "output 0's shape must be the one SetOutputShape gave, [3], "
               "but got [4]"},
        Misuse{"no_shape", kInvalid,
               "KernelContext_OutputData: output 0 has no shape"},
        Misuse{"output_in_prepare", kInvalid,
               "output data may only be requested from Invoke"},
        Misuse{"double_allocate", kInvalid, "output 0 is already allocated"},
        Misuse{"bad_dim_index", kInvalid,
               "KernelContext_InputDim: dimension index must be in [0, 1), "
               "but got 7"},
        Misuse{"string_temp", kInvalid,
               "KernelContext_AllocateTemp: dtype must be a numeric or bool "
               "type, but got string"},
        Misuse{"invalid_temp_dtype", kInvalid, "invalid type 999"},
        Misuse{"overflowing_temp", kInvalid, "KernelContext_AllocateTemp: "},
        Misuse{"init_context_in_invoke", kInvalid,
               "InitContext_NumInputs: the handle is not the one of the "
               "current call"},
        Misuse{"init_error", absl::StatusCode::kFailedPrecondition,
               "Init refuses"},
        Misuse{"missing_attr", absl::StatusCode::kNotFound,
               "InitContext_GetAttrInt (plugin op 'Test>Misbehave' v1 from "
               "'test_plugins.c'): No attr named 'no_such_attr'"},
        Misuse{"wrong_attr_type", kInvalid,
               "InitContext_GetAttrInt (plugin op 'Test>Misbehave' v1 from "
               "'test_plugins.c'): AttrValue had value with type 'string' "
               "when 'int' expected"},
        Misuse{"bad_code", absl::StatusCode::kUnknown,
               "returned error code 12345 without a message"},
        Misuse{"operator_in_invoke", kInvalid,
               "OperatorAddInput: operators may only be changed inside "
               "MF_PluginInit"},
        Misuse{"error_then_ok", kInvalid, "reported, then ignored"},
        Misuse{"no_such_mode", kInvalid, "Test>Misbehave: unknown mode"}),
    [](const ::testing::TestParamInfo<Misuse>& info) {
      return std::string(info.param.mode);
    });

// ---- examples/c_plugin: Atan built by clang as C ----------------------------

TEST(PluginKernelApiTest, AtanPluginMatchesTheCLibraryOnTheExampleGraph) {
  LoadAtanPlugin();
  const std::string graph = ReadFile(std::string(MINFLOW_C_PLUGIN_EXAMPLE_DIR) +
                                     "/atan_offset.pbtxt");
  ASSERT_FALSE(graph.empty());
  const std::vector<float> x = {-100, -3, -1, -0.5f, 0, 0.25f, 1, 2, 1e6f};
  auto out = RunGraph(graph, {{"x", test::AsTensor<float>(x)}}, {"y"});
  MF_ASSERT_OK(out.status());
  ASSERT_EQ((*out)[0].NumElements(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR((*out)[0].flat<float>()(i), std::atan(x[i] + 0.5f), 1e-6)
        << "x = " << x[i];
  }
}

TEST(PluginKernelApiTest, AtanPluginAgreesWithTheBuiltInAtanInDouble) {
  LoadAtanPlugin();
  constexpr char kBoth[] = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_DOUBLE }
      }
    }
    node {
      name: "plugin"
      op: "Examples>Atan"
      input: "x"
      attr {
        key: "T"
        value { type: DT_DOUBLE }
      }
    }
    node {
      name: "builtin"
      op: "Atan"
      input: "x"
      attr {
        key: "T"
        value { type: DT_DOUBLE }
      }
    }
  )pb";
  const Tensor x = test::AsTensor<double>({-2, -0.1, 0, 0.7, 5, 40}, {2, 3});
  auto out = RunGraph(kBoth, {{"x", x}}, {"plugin", "builtin"});
  MF_ASSERT_OK(out.status());
  EXPECT_EQ((*out)[0].shape(), TensorShape({2, 3}));
  test::ExpectTensorNear<double>((*out)[0], (*out)[1], 1e-12, 1e-12);
  EXPECT_DOUBLE_EQ((*out)[0].flat<double>()(3), std::atan(0.7));
}

TEST(PluginKernelApiTest, AtanPluginInfersShapesAndIsOwnedByItsLibrary) {
  LoadAtanPlugin();
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp("Examples>Atan");
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->owner, MINFLOW_ATAN_PLUGIN);
  GraphDef graph = ParseTextProtoOrDie<GraphDef>(ReadFile(
      std::string(MINFLOW_C_PLUGIN_EXAMPLE_DIR) + "/atan_offset.pbtxt"));
  // x is [?]: the plugin's Prepare does not run, y stays unknown.
  EXPECT_EQ(InferredShape(graph, "y"), "?");
  graph.mutable_node(0)
      ->mutable_attr()
      ->at("shape")
      .mutable_shape()
      ->mutable_dim(0)
      ->set_size(5);
  EXPECT_EQ(InferredShape(graph, "y"), "[5]");
}

TEST(PluginKernelApiTest, AtanPluginRejectsATypeOutsideItsSpec) {
  LoadAtanPlugin();
  auto session = MakeSession(ParseTextProtoOrDie<GraphDef>(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "y"
      op: "Examples>Atan"
      input: "x"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb"));
  EXPECT_THAT(session,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Examples>Atan"), HasSubstr("int32"))));
}

}  // namespace
}  // namespace minflow
