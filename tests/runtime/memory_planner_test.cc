// Note [Memory plan] and Note [Fetch buffers]: the layout on its own, then
// sessions running the bundled digits MLP with and without a plan.
#include "src/runtime/memory_planner.h"

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "minflow/config.pb.h"
#include "minflow/core/allocator.h"
#include "minflow/core/tensor.h"
#include "minflow/graph.pb.h"
#include "minflow/graph/graph_constructor.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/status_matchers.h"
#include "tests/testlib/text_proto.h"

namespace minflow {
namespace {

using Lifetime = MemoryPlanner::Lifetime;
using ::minflow::testing::ParseTextProtoOrDie;
using ::minflow::testing::StatusIs;
using ::testing::HasSubstr;

int64_t Rounded(int64_t bytes) { return (bytes + 63) / 64 * 64; }

// No two buffers alive at the same time share a byte, and all fit.
void ExpectNoOverlapWhileAlive(const std::vector<Lifetime>& buffers,
                               const std::vector<int64_t>& offsets,
                               int64_t arena) {
  ASSERT_EQ(offsets.size(), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(offsets[i] % 64, 0) << "buffer " << i;
    EXPECT_LE(offsets[i] + Rounded(buffers[i].bytes), arena) << "buffer " << i;
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const bool alive_together = buffers[i].start < buffers[j].end &&
                                  buffers[j].start < buffers[i].end;
      const bool share_bytes =
          offsets[i] < offsets[j] + Rounded(buffers[j].bytes) &&
          offsets[j] < offsets[i] + Rounded(buffers[i].bytes);
      EXPECT_FALSE(alive_together && share_bytes)
          << "buffers " << i << " and " << j;
    }
  }
}

TEST(MemoryPlannerTest, BuffersAliveAtDifferentTimesShareTheirPlace) {
  const std::vector<Lifetime> buffers = {{100, 0, 2}, {90, 3, 5}, {128, 6, 8}};
  std::vector<int64_t> offsets;
  EXPECT_EQ(MemoryPlanner::PlaceBuffers(buffers, &offsets), 128);
  EXPECT_THAT(offsets, ::testing::ElementsAre(0, 0, 0));
  EXPECT_EQ(MemoryPlanner::LivenessBound(buffers), 128);
}

TEST(MemoryPlannerTest, BuffersAliveTogetherGetDisjointPlaces) {
  // A big buffer alive throughout, two small ones overlapping each other.
  const std::vector<Lifetime> buffers = {{256, 0, 10}, {64, 1, 3}, {64, 2, 4}};
  std::vector<int64_t> offsets;
  const int64_t arena = MemoryPlanner::PlaceBuffers(buffers, &offsets);
  EXPECT_EQ(arena, 384);
  EXPECT_EQ(MemoryPlanner::LivenessBound(buffers), 384);
  ExpectNoOverlapWhileAlive(buffers, offsets, arena);
}

TEST(MemoryPlannerTest, RandomLifetimesNeverOverlapAndStayNearTheBound) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    // A step's events: each buffer starts and ends at distinct ticks.
    const int n = 150;
    std::vector<int64_t> ticks(2 * n);
    for (int i = 0; i < 2 * n; ++i) ticks[i] = i;
    std::shuffle(ticks.begin(), ticks.end(), rng);
    std::vector<Lifetime> buffers;
    for (int i = 0; i < n; ++i) {
      const int64_t a = ticks[2 * i];
      const int64_t b = ticks[2 * i + 1];
      buffers.push_back({static_cast<int64_t>(rng() % 100000) + 1,
                         std::min(a, b), std::max(a, b)});
    }
    std::vector<int64_t> offsets;
    const int64_t arena = MemoryPlanner::PlaceBuffers(buffers, &offsets);
    ExpectNoOverlapWhileAlive(buffers, offsets, arena);
    const int64_t bound = MemoryPlanner::LivenessBound(buffers);
    EXPECT_GE(arena, bound);
    // Greedy by size is not optimal, but far from twice the bound.
    EXPECT_LE(arena, bound * 3 / 2) << "trial " << trial;
  }
}

// The bundled digits MLP: x [N,35] -> two dense layers -> probs [N,10].
GraphDef DigitsGraph() {
  GraphDef graph;
  const Status read = ReadGraphDefFile(
      std::string(MINFLOW_EXAMPLES_DIR) + "/graphs/digits_mlp.pbtxt", &graph);
  EXPECT_TRUE(read.ok()) << read;
  return graph;
}

Tensor Rows(int n, float seed) {
  Tensor x(DT_FLOAT, TensorShape({n, 35}));
  auto flat = x.flat<float>();
  for (int64_t i = 0; i < flat.size(); ++i) {
    flat(i) =
        static_cast<float>((i * 7 + static_cast<int64_t>(seed)) % 11) / 10.0f;
  }
  return x;
}

// A session on the digits graph, with planning on or off, and a callable
// feeding x and fetching probs.
struct DigitsSession {
  explicit DigitsSession(bool plan) {
    if (plan) {
      unsetenv("MINFLOW_MEMORY_PLAN");
    } else {
      setenv("MINFLOW_MEMORY_PLAN", "0", 1);
    }
    SessionOptions options;
    options.config.set_inter_op_parallelism_threads(2);
    auto created = Session::Create(DigitsGraph(), options);
    unsetenv("MINFLOW_MEMORY_PLAN");
    EXPECT_TRUE(created.ok()) << created.status();
    session = std::move(created).value();
    CallableOptions callable;
    callable.add_feed("x");
    callable.add_fetch("probs");
    const Status made = session->MakeCallable(callable, &handle);
    EXPECT_TRUE(made.ok()) << made;
  }
  Tensor Run(const Tensor& x) {
    std::vector<Tensor> out;
    const Status ran = session->RunCallable(handle, {x}, &out, nullptr);
    EXPECT_TRUE(ran.ok()) << ran;
    return out.empty() ? Tensor() : out[0];
  }
  MemoryPlanStats Plan() {
    MemoryPlanStats stats;
    const Status got = session->GetCallableMemoryPlan(handle, &stats);
    EXPECT_TRUE(got.ok()) << got;
    return stats;
  }
  std::unique_ptr<Session> session;
  Session::CallableHandle handle = 0;
};

void ExpectSameValues(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    EXPECT_EQ(a.flat<float>()(i), b.flat<float>()(i)) << "element " << i;
  }
}

TEST(MemoryPlannerTest, PlanIsMadeFromTheFirstRunAndServesTheNext) {
  DigitsSession planned(true);
  EXPECT_FALSE(planned.Plan().planned);
  EXPECT_EQ(planned.Plan().reason,
            "it is made from the second step, not run yet");
  DigitsSession unplanned(false);
  for (int i = 0; i < 4; ++i) {
    const Tensor x = Rows(64, static_cast<float>(i));
    ExpectSameValues(planned.Run(x), unplanned.Run(x));
  }
  const MemoryPlanStats stats = planned.Plan();
  ASSERT_TRUE(stats.planned) << stats.reason;
  EXPECT_GT(stats.planned_buffers, 0);
  // probs outlives each run: the caller holds it.
  EXPECT_GE(stats.unplanned_buffers, 1);
  EXPECT_GT(stats.arena_hits, 0);
  EXPECT_EQ(stats.arena_misses, 0);
  EXPECT_GE(stats.arena_bytes, stats.liveness_bound_bytes);
  EXPECT_LE(stats.arena_bytes, stats.liveness_bound_bytes * 11 / 10);

  const MemoryPlanStats off = unplanned.Plan();
  EXPECT_FALSE(off.planned);
  EXPECT_EQ(off.reason, "memory planning is off");
}

// Note [Fetch buffers] with a plan: after warm-up a run asks the host
// allocator for nothing.
TEST(MemoryPlannerTest, RunsIntoFetchBuffersMakeNoAllocatorCalls) {
  DigitsSession planned(true);
  DigitsSession unplanned(false);
  const Tensor x = Rows(64, 3);
  const Tensor expected = unplanned.Run(x);
  std::vector<Tensor> buffers = {Tensor(DT_FLOAT, TensorShape({64, 10}))};
  const void* storage = buffers[0].data();
  for (int i = 0; i < 2; ++i) {  // the recorded run, then one planned
    MF_ASSERT_OK(planned.session->RunCallableInto(planned.handle, {x}, &buffers,
                                                  nullptr));
  }
  const int64_t before = cpu_allocator()->GetStats().num_allocs;
  for (int i = 0; i < 10; ++i) {
    MF_ASSERT_OK(planned.session->RunCallableInto(planned.handle, {x}, &buffers,
                                                  nullptr));
  }
  EXPECT_EQ(cpu_allocator()->GetStats().num_allocs - before, 0);
  ASSERT_EQ(buffers.size(), 1u);
  EXPECT_EQ(buffers[0].data(), storage);
  ExpectSameValues(buffers[0], expected);
  EXPECT_EQ(planned.Plan().arena_misses, 0);
}

TEST(MemoryPlannerTest, SharedFetchBufferIsFilledInPlace) {
  DigitsSession session(true);
  const Tensor x = Rows(8, 5);
  const Tensor expected = session.Run(x);
  // Another tensor shares the buffer, so no kernel may write into it while
  // it runs; the value is copied in afterwards, into the same storage.
  Tensor buffer(DT_FLOAT, TensorShape({80}));
  const Tensor alias = buffer;
  std::vector<Tensor> buffers = {buffer};
  buffer = Tensor();
  MF_ASSERT_OK(
      session.session->RunCallableInto(session.handle, {x}, &buffers, nullptr));
  EXPECT_EQ(buffers[0].data(), alias.data());
  EXPECT_EQ(buffers[0].shape(), TensorShape({8, 10}));
  Tensor alias_as_output;
  ASSERT_TRUE(alias_as_output.CopyFrom(alias, TensorShape({8, 10})));
  ExpectSameValues(alias_as_output, expected);
}

TEST(MemoryPlannerTest, FetchBufferOfTheWrongSizeNamesTheFetch) {
  DigitsSession session(true);
  std::vector<Tensor> buffers = {Tensor(DT_FLOAT, TensorShape({3}))};
  EXPECT_THAT(session.session->RunCallableInto(session.handle, {Rows(8, 1)},
                                               &buffers, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fetch 'probs' must be float with 80")));
  std::vector<Tensor> none;
  EXPECT_THAT(session.session->RunCallableInto(session.handle, {Rows(8, 1)},
                                               &none, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("one buffer per fetch (1), but got 0")));
}

// A new batch size after the plan: the requests are larger than planned
// and go to the allocator; results stay right.
TEST(MemoryPlannerTest, OtherShapesAfterThePlanStillRunCorrectly) {
  DigitsSession planned(true);
  DigitsSession unplanned(false);
  for (int i = 0; i < 2; ++i) {
    ExpectSameValues(planned.Run(Rows(4, 0)), unplanned.Run(Rows(4, 0)));
  }
  const Tensor big = Rows(256, 2);
  ExpectSameValues(planned.Run(big), unplanned.Run(big));
  EXPECT_GT(planned.Plan().arena_misses, 0);
  const Tensor small = Rows(2, 9);
  ExpectSameValues(planned.Run(small), unplanned.Run(small));
}

// Concurrent steps share one arena: a place still held by another step
// sends the request to the allocator, never into the other step's tensor.
TEST(MemoryPlannerTest, ConcurrentRunsEachGetTheirOwnResults) {
  DigitsSession planned(true);
  DigitsSession unplanned(false);
  constexpr int kThreads = 4;
  constexpr int kRuns = 25;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(Rows(32, static_cast<float>(t)));
    expected.push_back(unplanned.Run(inputs.back()));
  }
  planned.Run(inputs[0]);
  planned.Run(inputs[0]);  // recorded: the plan
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        std::vector<Tensor> out;
        if (!planned.session
                 ->RunCallable(planned.handle, {inputs[t]}, &out, nullptr)
                 .ok()) {
          ++wrong[t];
          continue;
        }
        for (int64_t i = 0; i < out[0].NumElements(); ++i) {
          if (out[0].flat<float>()(i) != expected[t].flat<float>()(i)) {
            ++wrong[t];
            break;
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(wrong, ::testing::Each(0));
  EXPECT_GT(planned.Plan().arena_hits, 0);
}

// The recorded step made node 0's two scratch buffers one after the other
// (its Shard blocks ran in turn); a later step makes them at once (the
// blocks ran together). Both must still come from the arena.
TEST(MemoryPlannerTest, ANodesBuffersGetPlacesOfTheirOwn) {
  auto* planner = new MemoryPlanner(cpu_allocator(), 2);
  planner->EndStep(planner->BeginStep(), true);  // the first step: not used
  MemoryPlanner::StepPlan record = planner->BeginStep();
  ASSERT_EQ(record.role, MemoryPlanner::Role::kRecord);
  Allocator* node0 = planner->ForNode(record, 0);
  Allocator* node1 = planner->ForNode(record, 1);
  void* out = node1->AllocateRaw(64, 4096);  // another node's, alive across
  for (int block = 0; block < 2; ++block) {
    void* scratch = node0->AllocateRaw(64, 1024);
    ASSERT_NE(scratch, nullptr);
    node0->DeallocateRaw(scratch, 1024);
  }
  node1->DeallocateRaw(out, 4096);
  planner->EndStep(record, true);
  MemoryPlanStats stats = planner->Stats();
  ASSERT_TRUE(stats.planned) << stats.reason;
  EXPECT_EQ(stats.planned_buffers, 3);
  // Two 1 KiB places beside the 4 KiB one, not one shared.
  EXPECT_EQ(stats.arena_bytes, 4096 + 2 * 1024);

  MemoryPlanner::StepPlan planned = planner->BeginStep();
  ASSERT_EQ(planned.role, MemoryPlanner::Role::kPlanned);
  node0 = planner->ForNode(planned, 0);
  void* a = node0->AllocateRaw(64, 1024);
  void* b = node0->AllocateRaw(64, 1024);
  EXPECT_NE(a, b);
  stats = planner->Stats();
  EXPECT_EQ(stats.arena_hits, 2);
  EXPECT_EQ(stats.arena_misses, 0);
  node0->DeallocateRaw(a, 1024);
  node0->DeallocateRaw(b, 1024);
  planner->EndStep(planned, true);
  planner->Unref();
}

// A convolution's im2col scratch is allocated in its Shard blocks, on the
// pool's threads: those allocations are the node's too (Note [Allocation
// scopes]), so they are planned. (Two groups: grouped convolutions take the
// im2col path with or without a convolution library.)
TEST(MemoryPlannerTest, ShardedScratchOfAConvolutionIsPlanned) {
  const GraphDef graph = ParseTextProtoOrDie<GraphDef>(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
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
            tensor_shape { dim { size: 4 } }
            int_val: [ 3, 3, 4, 16 ]
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
            float_val: 0.25
          }
        }
      }
    }
    node {
      name: "w"
      op: "Fill"
      input: [ "w_shape", "w_value" ]
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "conv"
      op: "Conv2D"
      input: [ "x", "w" ]
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "strides"
        value { list { i: [ 1, 1, 1, 1 ] } }
      }
      attr {
        key: "padding"
        value { s: "SAME" }
      }
    }
    node {
      name: "y"
      op: "Relu"
      input: "conv"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb");
  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  options.config.set_inter_op_parallelism_threads(1);
  auto created = Session::Create(graph, options);
  MF_ASSERT_OK(created.status());
  std::unique_ptr<Session> session = std::move(created).value();
  CallableOptions callable;
  callable.add_feed("x");
  callable.add_fetch("y");
  Session::CallableHandle handle = 0;
  MF_ASSERT_OK(session->MakeCallable(callable, &handle));
  Tensor x(DT_FLOAT, TensorShape({1, 32, 32, 8}));
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    x.flat<float>()(i) = static_cast<float>(i % 13) - 6.0f;
  }
  std::vector<Tensor> out;
  MF_ASSERT_OK(session->RunCallable(handle, {x}, &out, nullptr));
  const Tensor first = out[0];
  for (int i = 0; i < 5; ++i) {
    MF_ASSERT_OK(session->RunCallable(handle, {x}, &out, nullptr));
    ExpectSameValues(out[0], first);
  }
  MemoryPlanStats stats;
  MF_ASSERT_OK(session->GetCallableMemoryPlan(handle, &stats));
  ASSERT_TRUE(stats.planned) << stats.reason;
  // The two blocks' scratch buffers, at least.
  EXPECT_GE(stats.planned_buffers, 2);
  EXPECT_GT(stats.arena_hits, 0);
  EXPECT_EQ(stats.unplanned_allocations, 0);
}

}  // namespace
}  // namespace minflow
