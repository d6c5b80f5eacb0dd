// The executor on its own, below the session: a graph imported from text,
// every node assigned the CPU, run through a CallFrame. Test-only ops keep
// the tests independent of the built-in op set.
#include "minflow/runtime/executor.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/core/threadpool.h"
#include "minflow/framework/cancellation.h"
#include "minflow/framework/device.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/step_stats.pb.h"
#include "tests/runtime/exec_test_ops.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using exec_test::g_waiting;
using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

REGISTER_OP("ExecTestNoKernel").Input("x: float").Output("y: float");
REGISTER_OP("ExecTestHeldConst").Output("y: float");

// How many times ExecTestHeldConst's Compute ran.
std::atomic<int> g_held_const_computes{0};

// A constant that says so (const_tensor), as Const does, and counts the
// times it is run anyway.
class HeldConstOp : public OpKernel {
 public:
  explicit HeldConstOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), value_(DT_FLOAT, TensorShape({1})) {
    value_.flat<float>()(0) = 5;
  }
  void Compute(OpKernelContext* ctx) override {
    ++g_held_const_computes;
    ctx->set_output(0, value_);
  }
  const Tensor* const_tensor() const override { return &value_; }

 private:
  Tensor value_;
};
REGISTER_KERNEL_BUILDER(Name("ExecTestHeldConst").Device(DEVICE_CPU),
                        HeldConstOp);

// out0 = (x + 1) + 1 (c), out1 = x + 1.
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "_Arg"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "index"
      value { i: 0 }
    }
  }
  node {
    name: "c"
    op: "ExecTestConst"
    attr {
      key: "value"
      value { f: 1 }
    }
  }
  node { name: "l" op: "ExecTestAddOne" input: "x" }
  node { name: "sum" op: "ExecTestAdd" input: "l" input: "c" }
  node {
    name: "out0"
    op: "_Retval"
    input: "sum"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "index"
      value { i: 0 }
    }
  }
  node {
    name: "out1"
    op: "_Retval"
    input: "l"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "index"
      value { i: 1 }
    }
  }
)pb";

// A constant into a kernel that only stops when cancelled.
constexpr char kWaitGraph[] = R"pb(
  node {
    name: "c"
    op: "ExecTestConst"
    attr {
      key: "value"
      value { f: 1 }
    }
  }
  node { name: "w" op: "ExecTestWaitForCancel" input: "c" }
)pb";

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape({1}));
  t.flat<float>()(0) = v;
  return t;
}

float Value(const Tensor& t) { return t.flat<float>()(0); }

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest() : pool_("executor_test", 4) {
    CpuDeviceOptions options;
    options.intra_op_threads = 1;
    cpu_ = std::make_unique<CpuDevice>(options);
  }

  // Imports `text`, assigns every node `device` (the CPU's name by default)
  // and creates an executor running on `pool` (may be null).
  Status Create(const std::string& text, thread::ThreadPool* pool,
                std::unique_ptr<Executor>* executor,
                const std::string& device = "") {
    return Create(ParseTextProtoOrDie<GraphDef>(text), pool, executor, device);
  }
  Status Create(const GraphDef& graph_def, thread::ThreadPool* pool,
                std::unique_ptr<Executor>* executor,
                const std::string& device = "") {
    auto graph = std::make_unique<Graph>(OpRegistry::Global());
    MF_RETURN_IF_ERROR(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                              graph_def, graph.get()));
    for (Node* n : graph->nodes()) {
      n->set_assigned_device_name(device.empty() ? cpu_->name() : device);
    }
    ExecutorOptions options;
    options.devices = {cpu_.get()};
    options.inter_op_pool = pool;
    return Executor::Create(options, std::move(graph), executor);
  }

  std::unique_ptr<Executor> MustCreate(const std::string& text,
                                       thread::ThreadPool* pool) {
    std::unique_ptr<Executor> executor;
    const Status s = Create(text, pool, &executor);
    EXPECT_TRUE(s.ok()) << s;
    return executor;
  }

  std::unique_ptr<CpuDevice> cpu_;
  thread::ThreadPool pool_;
};

TEST_F(ExecutorTest, RunsTheGraphAndFillsTheRetvals) {
  for (thread::ThreadPool* pool :
       {static_cast<thread::ThreadPool*>(nullptr), &pool_}) {
    SCOPED_TRACE(pool == nullptr ? "caller only" : "inter-op pool");
    std::unique_ptr<Executor> executor = MustCreate(kGraph, pool);
    ASSERT_NE(executor, nullptr);
    EXPECT_EQ(executor->num_nodes(), 6);
    EXPECT_EQ(executor->graph().num_nodes(), 6);
    CallFrame frame;
    frame.args = {Scalar(3)};
    Executor::Args args;
    args.call_frame = &frame;
    MF_ASSERT_OK(executor->Run(args));
    ASSERT_EQ(frame.retvals.size(), 2u);
    EXPECT_EQ(Value(frame.retvals[0]), 5.0f);
    EXPECT_EQ(Value(frame.retvals[1]), 4.0f);
    // The fed tensor is shared, never overwritten in place.
    EXPECT_EQ(Value(frame.args[0]), 3.0f);
    // Runs are independent: the next one sees only its own feed.
    frame.args = {Scalar(-1)};
    MF_ASSERT_OK(executor->Run(args));
    EXPECT_EQ(Value(frame.retvals[0]), 1.0f);
    EXPECT_EQ(Value(frame.retvals[1]), 0.0f);
  }
}

TEST_F(ExecutorTest, EmptyGraphRunsWithoutACallFrame) {
  std::unique_ptr<Executor> executor = MustCreate("", &pool_);
  ASSERT_NE(executor, nullptr);
  EXPECT_EQ(executor->num_nodes(), 0);
  MF_EXPECT_OK(executor->Run(Executor::Args()));
}

TEST_F(ExecutorTest, KernelErrorNamesTheNodeAndOp) {
  std::unique_ptr<Executor> executor = MustCreate(
      R"pb(
        node {
          name: "c"
          op: "ExecTestConst"
          attr {
            key: "value"
            value { f: 1 }
          }
        }
        node { name: "bad" op: "ExecTestFail" input: "c" }
        node { name: "after" op: "ExecTestAddOne" input: "bad" }
      )pb",
      &pool_);
  ASSERT_NE(executor, nullptr);
  for (int i = 0; i < 2; ++i) {  // the same error every time
    EXPECT_THAT(executor->Run(Executor::Args()),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("deliberate failure"),
                               HasSubstr("[[{{node bad}} = ExecTestFail]]"),
                               ::testing::Not(HasSubstr("after")))));
  }
}

TEST_F(ExecutorTest, RejectsMissingOrMistypedFeeds) {
  std::unique_ptr<Executor> executor = MustCreate(kGraph, &pool_);
  ASSERT_NE(executor, nullptr);
  EXPECT_THAT(executor->Run(Executor::Args()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("needs a call frame")));
  CallFrame frame;
  Executor::Args args;
  args.call_frame = &frame;
  EXPECT_THAT(executor->Run(args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("The graph reads 1 feeds, but 0 were given")));
  Tensor ints(DT_INT32, TensorShape({1}));
  ints.flat<int32_t>()(0) = 3;
  frame.args = {ints};
  EXPECT_THAT(executor->Run(args),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Feed 0 must be float, but got int32")));
  EXPECT_TRUE(frame.retvals.empty());
}

TEST_F(ExecutorTest, KernelNotFoundAtCreateNamesTheNodeAndOp) {
  std::unique_ptr<Executor> executor;
  EXPECT_THAT(
      Create(R"pb(
               node {
                 name: "c"
                 op: "ExecTestConst"
                 attr {
                   key: "value"
                   value { f: 1 }
                 }
               }
               node { name: "nk" op: "ExecTestNoKernel" input: "c" }
             )pb",
             &pool_, &executor),
      StatusIs(absl::StatusCode::kNotFound,
               AllOf(HasSubstr("No registered 'ExecTestNoKernel' OpKernel "
                               "for 'CPU' devices"),
                     HasSubstr("[[{{node nk}} = ExecTestNoKernel]]"))));
  EXPECT_EQ(executor, nullptr);
}

TEST_F(ExecutorTest, KernelConstructorErrorAtCreateNamesTheNodeAndOp) {
  std::unique_ptr<Executor> executor;
  EXPECT_THAT(Create(R"pb(
                       node {
                         name: "neg"
                         op: "ExecTestConst"
                         attr {
                           key: "value"
                           value { f: 1 }
                         }
                         attr {
                           key: "size"
                           value { i: -2 }
                         }
                       }
                     )pb",
                     &pool_, &executor),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("size must be >= 0, but got -2"),
                             HasSubstr("[[{{node neg}} = ExecTestConst]]"))));
  EXPECT_EQ(executor, nullptr);
}

TEST_F(ExecutorTest, UnknownDeviceOrCycleFailsAtCreate) {
  std::unique_ptr<Executor> executor;
  EXPECT_THAT(Create(kWaitGraph, &pool_, &executor,
                     "/job:localhost/replica:0/task:0/device:CPU:7"),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("unknown device '/job:localhost/"
                                       "replica:0/task:0/device:CPU:7'"),
                             HasSubstr("{{node c}}"))));
  // The importer refuses cycles, so close one by hand.
  auto graph = std::make_unique<Graph>(OpRegistry::Global());
  MF_ASSERT_OK(ConvertGraphDefToGraph(GraphConstructorOptions(),
                                      ParseTextProtoOrDie<GraphDef>(kGraph),
                                      graph.get()));
  for (Node* n : graph->nodes()) n->set_assigned_device_name(cpu_->name());
  graph->AddControlEdge(graph->FindNodeByName("sum"),
                        graph->FindNodeByName("l"));
  ExecutorOptions options;
  options.devices = {cpu_.get()};
  EXPECT_THAT(Executor::Create(options, std::move(graph), &executor),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Graph has a cycle")));
  EXPECT_EQ(executor, nullptr);
}

TEST_F(ExecutorTest, CancelledBeforeTheStepRunsNothing) {
  std::unique_ptr<Executor> executor = MustCreate(kWaitGraph, &pool_);
  ASSERT_NE(executor, nullptr);
  CancellationManager cancellation;
  cancellation.StartCancel();
  Executor::Args args;
  args.cancellation_manager = &cancellation;
  EXPECT_THAT(executor->Run(args), StatusIs(absl::StatusCode::kCancelled));
}

TEST_F(ExecutorTest, CancellationStopsARunningStep) {
  for (thread::ThreadPool* pool :
       {static_cast<thread::ThreadPool*>(nullptr), &pool_}) {
    SCOPED_TRACE(pool == nullptr ? "caller only" : "inter-op pool");
    std::unique_ptr<Executor> executor = MustCreate(kWaitGraph, pool);
    ASSERT_NE(executor, nullptr);
    CancellationManager cancellation;
    Executor::Args args;
    args.cancellation_manager = &cancellation;
    Status status;
    std::thread runner([&] { status = executor->Run(args); });
    // Cancel only once the kernel is really waiting.
    const auto give_up =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (g_waiting.load() == 0 &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(g_waiting.load(), 1);
    cancellation.StartCancel();
    runner.join();
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kCancelled,
                                 HasSubstr("{{node w}}")));
    EXPECT_EQ(g_waiting.load(), 0);
  }
}

// A TF1 loop whose predicate stays true runs until cancelled, on the
// caller's thread and on the pool alike.
TEST_F(ExecutorTest, CancellationStopsAnEndlessLoop) {
  ::minflow::testing::Tf1GraphBuilder b;
  b.Const("zero", 0);
  b.While(
      "endless", {"zero"},
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("endless/true", Tensor(true), {pivot});
        return std::string("endless/true");
      },
      [&](const std::vector<std::string>& v, const std::string& pivot) {
        b.Const("endless/one", 1, {pivot});
        return std::vector<std::string>{
            b.Add("endless/add", "AddV2", {v[0], "endless/one"})};
      });
  for (thread::ThreadPool* pool :
       {static_cast<thread::ThreadPool*>(nullptr), &pool_}) {
    SCOPED_TRACE(pool == nullptr ? "caller only" : "inter-op pool");
    std::unique_ptr<Executor> executor;
    MF_ASSERT_OK(Create(b.graph(), pool, &executor));
    CancellationManager cancellation;
    Executor::Args args;
    args.cancellation_manager = &cancellation;
    Status status;
    std::thread runner([&] { status = executor->Run(args); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancellation.StartCancel();
    runner.join();
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kCancelled));
  }
}

TEST_F(ExecutorTest, TimeoutReturnsDeadlineExceeded) {
  for (thread::ThreadPool* pool :
       {static_cast<thread::ThreadPool*>(nullptr), &pool_}) {
    SCOPED_TRACE(pool == nullptr ? "caller only" : "inter-op pool");
    std::unique_ptr<Executor> executor = MustCreate(kWaitGraph, pool);
    ASSERT_NE(executor, nullptr);
    Executor::Args args;
    args.timeout_ms = 50;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_THAT(executor->Run(args),
                StatusIs(absl::StatusCode::kDeadlineExceeded,
                         HasSubstr("Step timed out after 50 ms")));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_GE(elapsed, std::chrono::milliseconds(50));
    EXPECT_LT(elapsed, std::chrono::seconds(20));
    // The waiting kernel was stopped before Run returned.
    EXPECT_EQ(g_waiting.load(), 0);
  }
}

TEST_F(ExecutorTest, StepThatFinishesInTimeIsUnaffectedByTheTimeout) {
  for (thread::ThreadPool* pool :
       {static_cast<thread::ThreadPool*>(nullptr), &pool_}) {
    SCOPED_TRACE(pool == nullptr ? "caller only" : "inter-op pool");
    std::unique_ptr<Executor> executor = MustCreate(kGraph, pool);
    ASSERT_NE(executor, nullptr);
    CallFrame frame;
    frame.args = {Scalar(10)};
    Executor::Args args;
    args.call_frame = &frame;
    args.timeout_ms = 60000;
    MF_ASSERT_OK(executor->Run(args));
    ASSERT_EQ(frame.retvals.size(), 2u);
    EXPECT_EQ(Value(frame.retvals[0]), 12.0f);
  }
}

TEST_F(ExecutorTest, ConcurrentRunsGiveTheSameAnswers) {
  std::unique_ptr<Executor> executor = MustCreate(kGraph, &pool_);
  ASSERT_NE(executor, nullptr);
  constexpr int kThreads = 8;
  constexpr int kRuns = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        const float x = static_cast<float>(t * 1000 + i);
        CallFrame frame;
        frame.args = {Scalar(x)};
        Executor::Args args;
        args.step_id = t * kRuns + i;
        args.call_frame = &frame;
        const Status s = executor->Run(args);
        if (!s.ok() || frame.retvals.size() != 2 ||
            Value(frame.retvals[0]) != x + 2 ||
            Value(frame.retvals[1]) != x + 1) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(ExecutorTest, StepStatsRecordEveryKernel) {
  std::unique_ptr<Executor> executor = MustCreate(kGraph, &pool_);
  ASSERT_NE(executor, nullptr);
  CallFrame frame;
  frame.args = {Scalar(3)};
  StepStats stats;
  Executor::Args args;
  args.call_frame = &frame;
  args.step_stats = &stats;
  MF_ASSERT_OK(executor->Run(args));
  ASSERT_EQ(stats.dev_stats_size(), 1);
  const DeviceStepStats& dev = stats.dev_stats(0);
  EXPECT_EQ(dev.device(), cpu_->name());
  EXPECT_FALSE(dev.thread_names().empty());
  std::set<std::string> names;
  for (const NodeExecStats& ns : dev.node_stats()) {
    names.insert(ns.node_name());
    SCOPED_TRACE(ns.node_name());
    EXPECT_EQ(ns.timeline_label(),
              executor->graph().FindNodeByName(ns.node_name())->type_string());
    EXPECT_GT(ns.all_start_nanos(), 0);
    EXPECT_GE(ns.all_end_rel_nanos(), 0);
    EXPECT_TRUE(dev.thread_names().contains(ns.thread_id()));
    ASSERT_EQ(ns.output_size(), 1);
    EXPECT_EQ(ns.output(0).slot(), 0);
    EXPECT_EQ(ns.output(0).tensor_description().dtype(), DT_FLOAT);
    ASSERT_EQ(ns.output(0).tensor_description().shape().dim_size(), 1);
    EXPECT_EQ(ns.output(0).tensor_description().shape().dim(0).size(), 1);
    ASSERT_EQ(ns.memory_size(), 1);
    EXPECT_EQ(ns.memory(0).allocator_name(), cpu_->name());
  }
  // Kernels only: the _Arg and _Retval endpoints are not kernels.
  EXPECT_THAT(names, UnorderedElementsAre("c", "l", "sum"));
  EXPECT_EQ(dev.node_stats_size(), 3);
}

// Note [Constants without a context]: an untraced step hands a constant's
// tensor on without running its kernel; a traced one runs it, so that the
// trace lists it.
TEST_F(ExecutorTest, ConstantsAreHandedOutWithoutRunningTheirKernel) {
  std::unique_ptr<Executor> executor =
      MustCreate(R"pb(
                   node { name: "c" op: "ExecTestHeldConst" }
                   node { name: "l" op: "ExecTestAddOne" input: "c" }
                   node {
                     name: "out0"
                     op: "_Retval"
                     input: "c"
                     attr {
                       key: "T"
                       value { type: DT_FLOAT }
                     }
                     attr {
                       key: "index"
                       value { i: 0 }
                     }
                   }
                   node {
                     name: "out1"
                     op: "_Retval"
                     input: "l"
                     attr {
                       key: "T"
                       value { type: DT_FLOAT }
                     }
                     attr {
                       key: "index"
                       value { i: 1 }
                     }
                   }
                 )pb",
                 &pool_);
  ASSERT_NE(executor, nullptr);
  g_held_const_computes = 0;
  const void* first_buffer = nullptr;
  for (int run = 0; run < 2; ++run) {
    CallFrame frame;
    Executor::Args args;
    args.call_frame = &frame;
    MF_ASSERT_OK(executor->Run(args));
    ASSERT_EQ(frame.retvals.size(), 2u);
    EXPECT_EQ(Value(frame.retvals[0]), 5);
    EXPECT_EQ(Value(frame.retvals[1]), 6);
    // The kernel's own tensor, every run.
    if (run == 0) first_buffer = frame.retvals[0].data();
    EXPECT_EQ(frame.retvals[0].data(), first_buffer);
  }
  EXPECT_EQ(g_held_const_computes, 0);

  CallFrame frame;
  StepStats stats;
  Executor::Args args;
  args.call_frame = &frame;
  args.step_stats = &stats;
  MF_ASSERT_OK(executor->Run(args));
  EXPECT_EQ(g_held_const_computes, 1);
  EXPECT_EQ(Value(frame.retvals[1]), 6);
  std::set<std::string> names;
  for (const NodeExecStats& ns : stats.dev_stats(0).node_stats()) {
    names.insert(ns.node_name());
  }
  EXPECT_THAT(names, UnorderedElementsAre("c", "l"));
}

}  // namespace
}  // namespace minflow
