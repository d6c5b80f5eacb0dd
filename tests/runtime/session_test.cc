// Session and executor behaviour, on test-only ops so the tests do not
// depend on the built-in op set: feeds, fetches, targets, pruning, errors,
// cancellation, timeouts, concurrency, free-at-last-use and placement with a
// fake second device.
#include "minflow/runtime/session.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/framework/common_shape_fns.h"
#include "minflow/framework/device.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_pipeline.h"
#include "minflow/runtime/device_factory.h"
#include "minflow/step_stats.pb.h"
#include "tests/runtime/exec_test_ops.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using exec_test::g_add_one_runs;
using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

REGISTER_OP("ExecTestPlaceholder")
    .Output("y: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = { unknown_rank: true }");

class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(errors::InvalidArgument("placeholder was not fed"));
  }
};

REGISTER_KERNEL_BUILDER(Name("ExecTestPlaceholder").Device(DEVICE_CPU),
                        PlaceholderOp);

std::unique_ptr<Session> MakeSession(const std::string& graph_text,
                                     int inter_op = 2) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(inter_op);
  options.config.set_intra_op_parallelism_threads(1);
  auto session =
      Session::Create(ParseTextProtoOrDie<GraphDef>(graph_text), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(session).value() : nullptr;
}

float Scalar(const Tensor& t) { return t.flat<float>()(0); }

constexpr char kDiamond[] = R"pb(
  node {
    name: "c"
    op: "ExecTestConst"
    attr {
      key: "value"
      value { f: 1 }
    }
  }
  node { name: "l" op: "ExecTestAddOne" input: "c" }
  node { name: "r" op: "ExecTestAddOne" input: "c" }
  node { name: "sum" op: "ExecTestAdd" input: "l" input: "r" }
  node { name: "bad" op: "ExecTestFail" input: "c" }
)pb";

TEST(SessionTest, RunsDiamondAndPrunesWhatIsNotNeeded) {
  auto session = MakeSession(kDiamond);
  std::vector<Tensor> out;
  // "bad" would fail, but nothing fetched needs it.
  MF_ASSERT_OK(session->Run({}, {"sum"}, {}, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Scalar(out[0]), 4.0f);
}

TEST(SessionTest, FetchingTwiceAndFetchingAFeed) {
  auto session = MakeSession(kDiamond);
  std::vector<Tensor> out;
  Tensor fed(DT_FLOAT, TensorShape({1}));
  fed.flat<float>()(0) = 10;
  MF_ASSERT_OK(
      session->Run({{"c:0", fed}}, {"sum", "sum:0", "c", "l"}, {}, &out));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Scalar(out[0]), 22.0f);
  EXPECT_EQ(Scalar(out[1]), 22.0f);
  EXPECT_EQ(Scalar(out[2]), 10.0f);
  EXPECT_EQ(Scalar(out[3]), 11.0f);
  // Feeding did not modify the caller's tensor in place.
  EXPECT_EQ(fed.flat<float>()(0), 10.0f);
}

TEST(SessionTest, TargetsRunWithoutFetches) {
  auto session = MakeSession(kDiamond);
  const int before = g_add_one_runs.load();
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {}, {"l"}, &out));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(g_add_one_runs.load() - before, 1);
  EXPECT_THAT(session->Run({}, {}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at least one target")));
}

TEST(SessionTest, KernelErrorNamesNodeAndOpAndSessionStaysUsable) {
  auto session = MakeSession(kDiamond);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"bad"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("deliberate failure"),
                             HasSubstr("[[{{node bad}} = ExecTestFail]]"))));
  MF_EXPECT_OK(session->Run({}, {"sum"}, {}, &out));
}

TEST(SessionTest, BadFetchesFeedsAndTargetsAreClearErrors) {
  auto session = MakeSession(kDiamond);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"nope:0"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Fetch 'nope:0': there is no node named "
                                 "'nope'")));
  EXPECT_THAT(
      session->Run({}, {"sum:3"}, {}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has 1 outputs")));
  EXPECT_THAT(session->Run({}, {}, {"ghost"}, &out),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("ghost")));
  Tensor wrong_type(DT_INT32, TensorShape({1}));
  EXPECT_THAT(session->Run({{"c", wrong_type}}, {"sum"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Feed 'c' must be float, but got int32")));
  EXPECT_THAT(session->Run({{"x:", Tensor(1.0f)}}, {"sum"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

constexpr char kPlaceholders[] = R"pb(
  node {
    name: "a"
    op: "ExecTestPlaceholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value { shape { dim { size: 2 } } }
    }
  }
  node {
    name: "b"
    op: "ExecTestPlaceholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node { name: "sum" op: "ExecTestAdd" input: "a" input: "b" }
)pb";

TEST(SessionTest, FeedsReplaceTheFedNodes) {
  auto session = MakeSession(kPlaceholders);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"sum"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("placeholder was not fed")));
  Tensor two(DT_FLOAT, TensorShape({2}));
  two.flat<float>().setConstant(1.5f);
  MF_ASSERT_OK(session->Run({{"a", two}, {"b", two}}, {"sum"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()(1), 3.0f);
}

TEST(SessionTest, CallableRunsAPreparedSignature) {
  auto session = MakeSession(kPlaceholders);
  CallableOptions options;
  options.add_feed("a");
  options.add_feed("b");
  options.add_fetch("sum");
  options.add_fetch("a");
  options.mutable_run_options()->set_trace_level(RunOptions::FULL_TRACE);
  Session::CallableHandle handle;
  MF_ASSERT_OK(session->MakeCallable(options, &handle));
  Tensor a(DT_FLOAT, TensorShape({2}));
  a.flat<float>().setValues({1.0f, 2.0f});
  Tensor b(DT_FLOAT, TensorShape({2}));
  b.flat<float>().setValues({10.0f, 20.0f});
  for (int call = 0; call < 3; ++call) {
    std::vector<Tensor> out;
    RunMetadata metadata;
    MF_ASSERT_OK(session->RunCallable(handle, {a, b}, &out, &metadata));
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].flat<float>()(0), 11.0f);
    EXPECT_EQ(out[0].flat<float>()(1), 22.0f);
    EXPECT_EQ(out[1].flat<float>()(1), 2.0f);
    // The callable's run options apply to every call.
    EXPECT_EQ(metadata.step_stats().dev_stats_size(), 1);
  }
  MF_ASSERT_OK(session->ReleaseCallable(handle));
  std::vector<Tensor> out;
  EXPECT_THAT(session->RunCallable(handle, {a, b}, &out, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("No such callable handle")));
}

TEST(SessionTest, CallableErrorsAreClear) {
  auto session = MakeSession(kPlaceholders);
  Session::CallableHandle handle;
  CallableOptions nothing;
  EXPECT_THAT(session->MakeCallable(nothing, &handle),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("at least one target")));
  CallableOptions unfed;
  unfed.add_feed("a");
  unfed.add_fetch("sum");
  MF_ASSERT_OK(session->MakeCallable(unfed, &handle));
  Tensor one(DT_FLOAT, TensorShape({2}));
  one.flat<float>().setConstant(1.0f);
  std::vector<Tensor> unfed_out;
  EXPECT_THAT(session->RunCallable(handle, {one}, &unfed_out, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("placeholder was not fed")));
  CallableOptions missing;
  missing.add_fetch("no_such_node");
  EXPECT_THAT(session->MakeCallable(missing, &handle),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no_such_node")));

  CallableOptions good;
  good.add_feed("a");
  good.add_feed("b");
  good.add_fetch("sum");
  MF_ASSERT_OK(session->MakeCallable(good, &handle));
  Tensor two(DT_FLOAT, TensorShape({2}));
  two.flat<float>().setConstant(1.0f);
  std::vector<Tensor> out;
  EXPECT_THAT(session->RunCallable(handle, {two}, &out, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expects 2 feed tensors")));
  Tensor wrong(DT_INT32, TensorShape({2}));
  wrong.flat<int32_t>().setConstant(1);
  EXPECT_THAT(session->RunCallable(handle, {wrong, two}, &out, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a")));
  MF_ASSERT_OK(session->RunCallable(handle, {two, two}, &out, nullptr));
  EXPECT_EQ(out[0].flat<float>()(0), 2.0f);
  EXPECT_THAT(session->ReleaseCallable(handle + 100),
              StatusIs(absl::StatusCode::kInvalidArgument));
  MF_ASSERT_OK(session->Close());
  EXPECT_THAT(session->RunCallable(handle, {two, two}, &out, nullptr),
              StatusIs(absl::StatusCode::kCancelled));
}

TEST(SessionTest, TimeoutCancelsAndReturnsDeadlineExceeded) {
  auto session = MakeSession(R"pb(
    node {
      name: "c"
      op: "ExecTestConst"
      attr {
        key: "value"
        value { f: 1 }
      }
    }
    node { name: "w" op: "ExecTestWaitForCancel" input: "c" }
  )pb");
  RunOptions options;
  options.set_timeout_in_ms(50);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run(options, {}, {"w"}, {}, &out, nullptr),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("timed out after 50 ms")));
}

TEST(SessionTest, ConcurrentRunsGiveCorrectResults) {
  auto session = MakeSession(kDiamond, /*inter_op=*/4);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Tensor fed(DT_FLOAT, TensorShape({1}));
        fed.flat<float>()(0) = static_cast<float>(t * 100 + i);
        std::vector<Tensor> out;
        Status s = session->Run({{"c", fed}}, {"sum"}, {}, &out);
        if (!s.ok() || Scalar(out[0]) != 2 * (t * 100 + i) + 2) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

std::string WideGraph(int width) {
  std::string text =
      "node { name: 'c' op: 'ExecTestConst' attr { key: 'value' value { f: 1 "
      "} } attr { key: 'size' value { i: 64 } } }\n";
  std::string prev = "c";
  for (int i = 0; i < width; ++i) {
    absl::StrAppend(&text, "node { name: 'w", i,
                    "' op: 'ExecTestAddOne' input: 'c' }\n");
    absl::StrAppend(&text, "node { name: 's", i, "' op: 'ExecTestAdd' input: '",
                    prev, "' input: 'w", i, "' }\n");
    prev = absl::StrCat("s", i);
  }
  return text;
}

TEST(SessionTest, ResultsIdenticalForAnyThreadCount) {
  std::vector<float> results;
  for (int threads : {1, 2, 4}) {
    auto session = MakeSession(WideGraph(100), threads);
    std::vector<Tensor> out;
    MF_ASSERT_OK(session->Run({}, {"s99"}, {}, &out));
    results.push_back(out[0].flat<float>()(63));
  }
  EXPECT_EQ(results[0], 201.0f);
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(results[2], results[0]);
}

TEST(SessionTest, LongChainFreesTensorsAtLastUse) {
  // A chain of 2000 AddOne nodes over 1 MiB tensors: with free-at-last-use
  // and in-place forwarding, only a couple of tensors are ever alive.
  std::string text =
      "node { name: 'n0' op: 'ExecTestConst' attr { key: 'value' value { f: 0 "
      "} } attr { key: 'size' value { i: 262144 } } }\n";
  for (int i = 1; i < 2000; ++i) {
    absl::StrAppend(&text, "node { name: 'n", i,
                    "' op: 'ExecTestAddOne' input: 'n", i - 1, "' }\n");
  }
  auto session = MakeSession(text, /*inter_op=*/1);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"n1999"}, {}, &out));  // warm-up
  out.clear();
  const int64_t base = cpu_allocator()->GetStats().bytes_in_use;
  cpu_allocator()->ResetPeak();
  MF_ASSERT_OK(session->Run({}, {"n1999"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()(0), 1999.0f);
  const int64_t peak = cpu_allocator()->GetStats().peak_bytes_in_use - base;
  EXPECT_LE(peak, 2 * 262144 * 4) << "peak bytes " << peak;
}

TEST(SessionTest, FeedMustMatchTheInferredShapeOfAnyTensor) {
  // t is [?,3] by inference, so a [1,6] value fed to it is refused before
  // anything (a pass that trusted the shape, a kernel) sees it.
  auto session = MakeSession(R"pb(
    node {
      name: "p"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: -1 }
            dim { size: 3 }
          }
        }
      }
    }
    node {
      name: "t"
      op: "Relu"
      input: "p"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "u"
      op: "Neg"
      input: "t"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({{"t", Tensor(DT_FLOAT, TensorShape({1, 6}))}},
                           {"u"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("Feed 't'"), HasSubstr("[1,6]"),
                             HasSubstr("[?,3]"), HasSubstr("node t"))));
  Tensor ok(DT_FLOAT, TensorShape({2, 3}));
  ok.flat<float>().setConstant(2.0f);
  MF_ASSERT_OK(session->Run({{"t", ok}}, {"u"}, {}, &out));
  EXPECT_EQ(out[0].flat<float>()(5), -2.0f);
}

// Note [Host allocator cache]: a static graph's runs after the first reuse
// the buffers the first one freed.
TEST(SessionTest, StaticGraphMakesNoSystemAllocationsAfterWarmUp) {
  Allocator* allocator = cpu_allocator();
  {
    const int64_t before = allocator->GetStats().num_system_allocs;
    allocator->DeallocateRaw(allocator->AllocateRaw(64, 12345), 12345);
    allocator->DeallocateRaw(allocator->AllocateRaw(64, 12345), 12345);
    if (allocator->GetStats().num_system_allocs - before == 2) {
      GTEST_SKIP() << "the host allocator keeps no cache here (an "
                      "AddressSanitizer build, or MINFLOW_CPU_ALLOCATOR_CACHE "
                      "is 0)";
    }
  }
  // x[4,64] -> MatMul [64,32] -> BiasAdd -> Relu -> Softmax, plus a Sum.
  const std::string text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "w"
      op: "Fill"
      input: "w_shape"
      input: "w_value"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "w_shape"
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
            tensor_shape { dim { size: 2 } }
            int_val: 64
            int_val: 32
          }
        }
      }
    }
    node {
      name: "w_value"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {}
            float_val: 0.01
          }
        }
      }
    }
    node {
      name: "b"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 32 } }
            float_val: 0.5
          }
        }
      }
    }
    node {
      name: "mm"
      op: "MatMul"
      input: "x"
      input: "w"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "ba"
      op: "BiasAdd"
      input: "mm"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "relu"
      op: "Relu"
      input: "ba"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "softmax"
      op: "Softmax"
      input: "relu"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  auto session = MakeSession(text, /*inter_op=*/1);
  ASSERT_NE(session, nullptr);
  Tensor x(DT_FLOAT, TensorShape({4, 64}));
  x.flat<float>().setConstant(1.0f);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({{"x", x}}, {"softmax"}, {}, &out));  // warm-up
  out.clear();
  const AllocatorStats before = allocator->GetStats();
  for (int i = 0; i < 5; ++i) {
    MF_ASSERT_OK(session->Run({{"x", x}}, {"softmax"}, {}, &out));
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR(out[0].flat<float>()(0), 1.0f / 32, 1e-6);
    out.clear();
  }
  const AllocatorStats after = allocator->GetStats();
  EXPECT_GT(after.num_allocs, before.num_allocs);  // the runs did allocate
  EXPECT_EQ(after.num_system_allocs, before.num_system_allocs)
      << after.num_allocs - before.num_allocs << " allocations";
}

TEST(SessionTest, DeepChainRunsWithoutRecursion) {
  std::string text =
      "node { name: 'n0' op: 'ExecTestConst' attr { key: 'value' value { f: 0 "
      "} } }\n";
  for (int i = 1; i < 100000; ++i) {
    absl::StrAppend(&text, "node { name: 'n", i,
                    "' op: 'ExecTestAddOne' input: 'n", i - 1, "' }\n");
  }
  auto session = MakeSession(text);
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run({}, {"n99999"}, {}, &out));
  EXPECT_EQ(Scalar(out[0]), 99999.0f);
}

TEST(SessionTest, TraceFillsStepStats) {
  auto session = MakeSession(kDiamond);
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run(options, {}, {"sum"}, {}, &out, &metadata));
  ASSERT_EQ(metadata.step_stats().dev_stats_size(), 1);
  const auto& dev = metadata.step_stats().dev_stats(0);
  // c, l, sum: r computes what l does, and common_subexpression_elimination
  // merges them.
  EXPECT_EQ(dev.node_stats_size(), 3);
  for (const auto& ns : dev.node_stats()) {
    EXPECT_GE(ns.all_end_rel_nanos(), 0);
    ASSERT_EQ(ns.output_size(), 1) << ns.node_name();
  }
}

TEST(SessionTest, InterOpThreadPoolMinusOneRunsOnTheCallersThread) {
  auto session = MakeSession(kDiamond, /*inter_op=*/2);
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  options.set_inter_op_thread_pool(-1);
  RunMetadata metadata;
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->Run(options, {}, {"sum"}, {}, &out, &metadata));
  EXPECT_EQ(Scalar(out[0]), 4.0f);
  ASSERT_EQ(metadata.step_stats().dev_stats_size(), 1);
  const auto& dev = metadata.step_stats().dev_stats(0);
  ASSERT_EQ(dev.node_stats_size(), 3);  // c, l (r merged into it), sum
  // Thread 0 is the caller; pool threads are 1 and up.
  for (const auto& ns : dev.node_stats()) {
    EXPECT_EQ(ns.thread_id(), 0u) << ns.node_name();
  }

  options.set_inter_op_thread_pool(1);
  EXPECT_THAT(session->Run(options, {}, {"sum"}, {}, &out, &metadata),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Invalid inter_op_thread_pool: 1")));
}

TEST(SessionTest, ClosedSessionRefusesRuns) {
  auto session = MakeSession(kDiamond);
  MF_ASSERT_OK(session->Close());
  std::vector<Tensor> out;
  EXPECT_THAT(session->Run({}, {"sum"}, {}, &out),
              StatusIs(absl::StatusCode::kCancelled, HasSubstr("closed")));
}

TEST(SessionTest, CreateReportsShapeErrorsWithNodeAndOp) {
  // Inner dimensions 3 and 4 differ: the refiner rejects the graph at
  // Create, before anything runs.
  constexpr char kBadMatMul[] = R"pb(
    node {
      name: "a"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {
              dim { size: 2 }
              dim { size: 3 }
            }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "b"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {
              dim { size: 4 }
              dim { size: 5 }
            }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "mm"
      op: "MatMul"
      input: "a"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kBadMatMul),
                                 SessionOptions());
  EXPECT_THAT(session.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("mm"), HasSubstr("MatMul"))));
}

TEST(SessionTest, ListDevicesHasTheCpu) {
  auto session = MakeSession(kDiamond);
  std::vector<DeviceInfo> devices;
  MF_ASSERT_OK(session->ListDevices(&devices));
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices.back().device_type, "CPU");
  EXPECT_EQ(devices.back().name,
            "/job:localhost/replica:0/task:0/device:CPU:0");
}

TEST(SessionTest, GpuRequestWithoutGpuIsAnErrorUnlessSoft) {
  const char* graph = R"pb(
    node {
      name: "c"
      op: "ExecTestConst"
      device: "/gpu:0"
      attr {
        key: "value"
        value { f: 2 }
      }
    }
  )pb";
  SessionOptions options;
  (*options.config.mutable_device_count())["GPU"] = 0;
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(graph), options);
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> out;
  EXPECT_THAT((*session)->Run({}, {"c"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("explicitly assigned to /gpu:0"),
                             HasSubstr("{{node c}}"))));
  options.config.set_allow_soft_placement(true);
  auto soft = Session::Create(ParseTextProtoOrDie<GraphDef>(graph), options);
  MF_ASSERT_OK(soft.status());
  MF_ASSERT_OK((*soft)->Run({}, {"c"}, {}, &out));
  EXPECT_EQ(Scalar(out[0]), 2.0f);
}

// Records the shapes its constructor was given.
REGISTER_OP("ExecTestShapeProbe")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

absl::Mutex g_probe_mu;
std::vector<std::string> g_probe_shapes ABSL_GUARDED_BY(g_probe_mu);

class ShapeProbeOp : public OpKernel {
 public:
  explicit ShapeProbeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string seen;
    for (const PartialTensorShape& s : ctx->input_shapes()) {
      absl::StrAppend(&seen, "in ", s.DebugString(), " ");
    }
    for (const PartialTensorShape& s : ctx->output_shapes()) {
      absl::StrAppend(&seen, "out ", s.DebugString());
    }
    absl::MutexLock lock(&g_probe_mu);
    g_probe_shapes.push_back(seen);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecTestShapeProbe").Device(DEVICE_CPU),
                        ShapeProbeOp);

constexpr char kProbeGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: -1 }
          dim { size: 3 }
        }
      }
    }
  }
  node { name: "probe" op: "ExecTestShapeProbe" input: "x" }
  node {
    name: "neg"
    op: "Neg"
    input: "probe"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  versions { producer: 2100 }
)pb";

TEST(SessionTest, KernelsAreBuiltWithTheInferredShapes) {
  {
    absl::MutexLock lock(&g_probe_mu);
    g_probe_shapes.clear();
  }
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kProbeGraph),
                                 SessionOptions());
  MF_ASSERT_OK(session.status());
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  x.flat<float>().setZero();
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"neg"}, {}, &out));
  absl::MutexLock lock(&g_probe_mu);
  ASSERT_EQ(1u, g_probe_shapes.size());
  EXPECT_EQ("in [?,3] out [?,3]", g_probe_shapes[0]);
}

TEST(SessionTest, SignaturesShareTheirNodesKernels) {
  {
    absl::MutexLock lock(&g_probe_mu);
    g_probe_shapes.clear();
  }
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kProbeGraph),
                                 SessionOptions());
  MF_ASSERT_OK(session.status());
  Tensor x(DT_FLOAT, TensorShape({1, 3}));
  x.flat<float>().setConstant(2);
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"neg"}, {}, &out));
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"probe"}, {}, &out));
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"neg", "probe"}, {}, &out));
  EXPECT_EQ(2.0f, out[1].flat<float>()(0));
  // Three signatures, one probe kernel.
  absl::MutexLock lock(&g_probe_mu);
  EXPECT_EQ(1u, g_probe_shapes.size());
}

// A seeded RandomUniform is one stream per node: a signature that feeds its
// shape (so the node's input shapes differ) goes on with the same stream
// instead of starting it again.
TEST(SessionTest, StatefulKernelsAreSharedWhateverFeedsThem) {
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(R"pb(
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
                                           tensor_shape { dim { size: 1 } }
                                           int_val: 4
                                         }
                                       }
                                     }
                                   }
                                   node {
                                     name: "r"
                                     op: "RandomUniform"
                                     input: "shape"
                                     attr {
                                       key: "T"
                                       value { type: DT_INT32 }
                                     }
                                     attr {
                                       key: "dtype"
                                       value { type: DT_FLOAT }
                                     }
                                     attr {
                                       key: "seed"
                                       value { i: 7 }
                                     }
                                     attr {
                                       key: "seed2"
                                       value { i: 11 }
                                     }
                                   }
                                 )pb"),
                                 SessionOptions());
  MF_ASSERT_OK(session.status());
  std::vector<Tensor> first, second, fed;
  MF_ASSERT_OK((*session)->Run({}, {"r"}, {}, &first));
  MF_ASSERT_OK((*session)->Run({}, {"r"}, {}, &second));
  Tensor shape(DT_INT32, TensorShape({1}));
  shape.flat<int32_t>()(0) = 4;
  MF_ASSERT_OK((*session)->Run({{"shape", shape}}, {"r"}, {}, &fed));
  const float a = first[0].flat<float>()(0);
  const float b = second[0].flat<float>()(0);
  const float c = fed[0].flat<float>()(0);
  EXPECT_NE(a, b);
  EXPECT_NE(c, a) << "the fed signature restarted the random stream";
  EXPECT_NE(c, b);
}

TEST(SessionTest, ImportsAndRefinesOnceHoweverManySignaturesRun) {
  const int64_t before = GraphPipeline::num_graphs_prepared();
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kProbeGraph),
                                 SessionOptions());
  MF_ASSERT_OK(session.status());
  Tensor x(DT_FLOAT, TensorShape({1, 3}));
  x.flat<float>().setConstant(2);
  std::vector<Tensor> out;
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"neg"}, {}, &out));
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"probe"}, {}, &out));
  MF_ASSERT_OK((*session)->Run({{"probe", x}}, {"neg"}, {}, &out));
  MF_ASSERT_OK((*session)->Run({{"x", x}}, {"neg", "probe"}, {}, &out));
  EXPECT_EQ(before + 1, GraphPipeline::num_graphs_prepared());
}

TEST(SessionTest, RunMetadataHasThePassesAndTheGraphThatRan) {
  auto session = Session::Create(ParseTextProtoOrDie<GraphDef>(kProbeGraph),
                                 SessionOptions());
  MF_ASSERT_OK(session.status());
  Tensor x(DT_FLOAT, TensorShape({4, 3}));
  x.flat<float>().setZero();
  RunOptions options;
  options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  MF_ASSERT_OK(
      (*session)->Run(options, {{"x", x}}, {"neg"}, {}, &out, &metadata));
  std::vector<std::string> passes;
  for (const GraphPassRecord& r : metadata.graph_passes()) {
    passes.push_back(r.name());
  }
  EXPECT_THAT(passes, ::testing::Contains("constant_folding"));
  ASSERT_EQ(1, metadata.partition_graphs_size());
  bool found = false;
  for (const NodeDef& n : metadata.partition_graphs(0).node()) {
    if (n.name() != "neg") continue;
    found = true;
    const AttrValue& shapes = n.attr().at("_output_shapes");
    ASSERT_EQ(1, shapes.list().shape_size());
    PartialTensorShape shape;
    MF_ASSERT_OK(PartialTensorShape::BuildPartialTensorShape(
        shapes.list().shape(0), &shape));
    EXPECT_EQ("[?,3]", shape.DebugString());
    EXPECT_FALSE(n.device().empty());
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace minflow
