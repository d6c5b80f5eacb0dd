// Variables' step overhead (issue #16): a step that, for each of 100
// resource variables, adds one (AssignAddVariableOp) and reads it back
// (ReadVariableOp), run through a Session, against a same-run reference:
// the same 300 kernels' Compute called in order with no executor. The
// ratio is what the executor and session add to stateful ops. A TF1
// variant (VariableV2 references, AssignAdd, Identity) runs beside it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "minflow/config.pb.h"
#include "minflow/framework/device.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/framework/op_kernel.h"
#include "minflow/graph.pb.h"
#include "minflow/runtime/session.h"
#include "tests/testlib/tf1_graph_builder.h"

namespace minflow {
namespace {

using testing::Tf1GraphBuilder;

constexpr int kVariables = 100;

// v_i = 0 (init_i); add_i: v_i += 1; read_i waits for add_i.
GraphDef ResourceVariablesGraph() {
  Tf1GraphBuilder b;
  b.Const("zero", Tensor(0.0f));
  b.Const("one", Tensor(1.0f));
  for (int i = 0; i < kVariables; ++i) {
    const std::string v = absl::StrCat("v", i);
    NodeDef* handle = b.Node(v, "VarHandleOp");
    AddNodeAttr("dtype", DT_FLOAT, handle);
    AddNodeAttr("shape", PartialTensorShape({}), handle);
    AddNodeAttr(
        "dtype", DT_FLOAT,
        b.Node(absl::StrCat("init", i), "AssignVariableOp", {v, "zero"}));
    AddNodeAttr(
        "dtype", DT_FLOAT,
        b.Node(absl::StrCat("add", i), "AssignAddVariableOp", {v, "one"}));
    AddNodeAttr("dtype", DT_FLOAT,
                b.Node(absl::StrCat("read", i), "ReadVariableOp",
                       {v, absl::StrCat("^add", i)}));
  }
  return b.graph();
}

// The TF1 twin: counter_i (VariableV2), AssignAdd, Identity after it.
GraphDef RefVariablesGraph() {
  Tf1GraphBuilder b;
  b.Const("zero", Tensor(0.0f));
  b.Const("one", Tensor(1.0f));
  for (int i = 0; i < kVariables; ++i) {
    const std::string v = absl::StrCat("v", i);
    NodeDef* var = b.Node(v, "VariableV2");
    AddNodeAttr("dtype", DT_FLOAT, var);
    AddNodeAttr("shape", PartialTensorShape({}), var);
    b.Add(absl::StrCat("init", i), "Assign", {v, "zero"}, DT_FLOAT);
    b.Add(absl::StrCat("add", i), "AssignAdd", {v, "one"}, DT_FLOAT);
    b.Add(absl::StrCat("read", i), "Identity", {v, absl::StrCat("^add", i)},
          DT_FLOAT);
  }
  return b.graph();
}

void RunSteps(benchmark::State& state, const GraphDef& graph) {
  SessionOptions options;
  options.config.set_inter_op_parallelism_threads(1);
  options.config.set_intra_op_parallelism_threads(1);
  auto session = Session::Create(graph, options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  std::vector<std::string> inits, reads;
  for (int i = 0; i < kVariables; ++i) {
    inits.push_back(absl::StrCat("init", i));
    reads.push_back(absl::StrCat("read", i));
  }
  std::vector<Tensor> out;
  if (!(*session)->Run({}, {}, inits, &out).ok()) {
    state.SkipWithError("init");
    return;
  }
  CallableOptions callable;
  for (const std::string& r : reads) callable.add_fetch(r);
  Session::CallableHandle handle;
  if (!(*session)->MakeCallable(callable, &handle).ok()) {
    state.SkipWithError("MakeCallable");
    return;
  }
  for (auto _ : state) {
    if (!(*session)->RunCallable(handle, {}, &out, nullptr).ok()) {
      state.SkipWithError("run");
      return;
    }
  }
  state.counters["ns_per_variable"] = benchmark::Counter(
      kVariables, benchmark::Counter::kIsIterationInvariantRate |
                      benchmark::Counter::kInvert);
}

void BM_Session_ResourceVariableAddAndRead(benchmark::State& state) {
  RunSteps(state, ResourceVariablesGraph());
}
BENCHMARK(BM_Session_ResourceVariableAddAndRead)->UseRealTime();

void BM_Session_RefVariableAddAndRead(benchmark::State& state) {
  RunSteps(state, RefVariablesGraph());
}
BENCHMARK(BM_Session_RefVariableAddAndRead)->UseRealTime();

std::unique_ptr<OpKernel> MakeKernel(CpuDevice* device, NodeDef def) {
  const OpDef* op_def = nullptr;
  if (!OpRegistry::Global()->LookUpOpDef(def.op(), &op_def).ok())
    return nullptr;
  AddDefaultsToNodeDef(*op_def, &def);
  std::unique_ptr<OpKernel> kernel;
  if (!CreateOpKernel(DEVICE_CPU, device, nullptr, def, 1882, &kernel).ok()) {
    return nullptr;
  }
  return kernel;
}

// Reference: VarHandleOp, AssignAddVariableOp and ReadVariableOp of each
// variable, their Compute called directly in a loop.
void BM_Reference_BareComputeLoop(benchmark::State& state) {
  CpuDeviceOptions device_options;
  device_options.intra_op_threads = 1;
  CpuDevice device(device_options);
  struct Variable {
    std::unique_ptr<OpKernel> handle, init, add, read;
  };
  std::vector<Variable> vars(kVariables);
  for (int i = 0; i < kVariables; ++i) {
    const std::string v = absl::StrCat("v", i);
    NodeDef handle;
    handle.set_name(v);
    handle.set_op("VarHandleOp");
    AddNodeAttr("dtype", DT_FLOAT, &handle);
    AddNodeAttr("shape", PartialTensorShape({}), &handle);
    NodeDef update;
    update.set_name(absl::StrCat("add", i));
    update.add_input(v);
    update.add_input("one");
    AddNodeAttr("dtype", DT_FLOAT, &update);
    NodeDef init = update;
    init.set_op("AssignVariableOp");
    update.set_op("AssignAddVariableOp");
    NodeDef read;
    read.set_name(absl::StrCat("read", i));
    read.set_op("ReadVariableOp");
    read.add_input(v);
    AddNodeAttr("dtype", DT_FLOAT, &read);
    vars[i] = {MakeKernel(&device, handle), MakeKernel(&device, init),
               MakeKernel(&device, update), MakeKernel(&device, read)};
    if (!vars[i].handle || !vars[i].init || !vars[i].add || !vars[i].read) {
      state.SkipWithError("CreateOpKernel");
      return;
    }
  }
  // Runs `kernel` on `inputs`; returns output 0 (if any).
  auto compute = [&](OpKernel* kernel, std::vector<Tensor> inputs) {
    std::vector<TensorValue> values;
    for (Tensor& t : inputs) values.emplace_back(&t);
    OpKernelContext::Params params;
    params.op_kernel = kernel;
    params.device = &device;
    params.inputs = values;
    params.resource_manager = device.resource_manager();
    OpKernelContext ctx(&params);
    kernel->Compute(&ctx);
    if (!ctx.status().ok()) std::abort();
    return ctx.num_outputs() > 0 ? std::move(*ctx.mutable_output(0)) : Tensor();
  };
  const Tensor one(1.0f);
  for (Variable& v : vars)
    compute(v.init.get(), {compute(v.handle.get(), {}), one});
  for (auto _ : state) {
    for (Variable& v : vars) {
      Tensor handle = compute(v.handle.get(), {});
      compute(v.add.get(), {handle, one});
      Tensor value = compute(v.read.get(), {handle});
      benchmark::DoNotOptimize(value.data());
    }
  }
  state.counters["ns_per_variable"] = benchmark::Counter(
      kVariables, benchmark::Counter::kIsIterationInvariantRate |
                      benchmark::Counter::kInvert);
}
BENCHMARK(BM_Reference_BareComputeLoop)->UseRealTime();

}  // namespace
}  // namespace minflow

BENCHMARK_MAIN();
