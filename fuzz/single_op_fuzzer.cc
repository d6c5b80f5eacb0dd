// One op with a CPU kernel, random attrs and small random Const inputs, run
// through a session: the kernels' own validation of ranks, shapes, axes,
// indices, strides and sizes is what this exercises. The bytes pick the op,
// each attr (often from its allowed values, sometimes from values that
// break its constraints) and each input's shape and contents (small
// integers, so that indices and axes are sometimes in range and sometimes
// not). Any Status is fine; crashes, sanitizer reports and hangs are not.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_session.h"
#include "minflow/attr_value.pb.h"
#include "minflow/framework/kernel_registry.h"
#include "minflow/framework/node_def_util.h"
#include "minflow/framework/op.h"
#include "minflow/kernel_def.pb.h"
#include "minflow/node_def.pb.h"
#include "minflow/op_def.pb.h"
#include "minflow/tensor.pb.h"

namespace minflow {
namespace {

// Ops with a CPU kernel. Internal ('_') ones are left out, except the fused
// contractions (_FusedConv2D, _FusedMatMul, ...), which graphs dumped after
// TensorFlow's optimiser carry and minflow's remapper writes.
const std::vector<std::string>& CpuOps() {
  static const std::vector<std::string>* ops = [] {
    absl::btree_set<std::string> names;
    const KernelList kernels = GetAllRegisteredKernels();
    for (const KernelDef& k : kernels.kernel()) {
      if (k.device_type() == DEVICE_CPU &&
          (k.op()[0] != '_' || absl::StartsWith(k.op(), "_Fused"))) {
        names.insert(k.op());
      }
    }
    return new std::vector<std::string>(names.begin(), names.end());
  }();
  return *ops;
}

constexpr DataType kTypes[] = {DT_FLOAT,    DT_DOUBLE, DT_INT32, DT_INT64,
                               DT_BOOL,     DT_HALF,   DT_UINT8, DT_STRING,
                               DT_BFLOAT16, DT_INT8};

DataType PickType(FuzzedDataProvider& fdp, const AttrValue* allowed) {
  if (allowed != nullptr && allowed->list().type_size() > 0 &&
      fdp.ConsumeIntegralInRange<int>(0, 7) != 0) {
    const auto& list = allowed->list().type();
    return static_cast<DataType>(
        list[fdp.ConsumeIntegralInRange<int>(0, list.size() - 1)]);
  }
  return fdp.PickValueInArray(kTypes);
}

int64_t PickInt(FuzzedDataProvider& fdp) {
  static constexpr int64_t kEdges[] = {
      -1, 0, 1, 2, 3, 4, -2, 1 << 20, int64_t{1} << 40, INT64_MAX, INT64_MIN};
  if (fdp.ConsumeIntegralInRange<int>(0, 5) == 0) {
    return fdp.PickValueInArray(kEdges);
  }
  return fdp.ConsumeIntegralInRange<int64_t>(-2, 5);
}

void PickAttr(FuzzedDataProvider& fdp, const OpDef::AttrDef& def,
              AttrValue* value) {
  const AttrValue* allowed =
      def.has_allowed_values() ? &def.allowed_values() : nullptr;
  const std::string& type = def.type();
  if (type == "type") {
    value->set_type(PickType(fdp, allowed));
  } else if (type == "list(type)") {
    const int n = fdp.ConsumeIntegralInRange<int>(0, 3);
    for (int i = 0; i < n; ++i)
      value->mutable_list()->add_type(PickType(fdp, allowed));
  } else if (type == "int") {
    value->set_i(PickInt(fdp));
  } else if (type == "list(int)") {
    const int n = fdp.ConsumeIntegralInRange<int>(0, 5);
    for (int i = 0; i < n; ++i) value->mutable_list()->add_i(PickInt(fdp));
  } else if (type == "float") {
    static constexpr float kFloats[] = {0.0f, 1.0f, -1.0f, 0.5f, 0.2f, 1e30f};
    value->set_f(fdp.PickValueInArray(kFloats));
  } else if (type == "bool") {
    value->set_b(fdp.ConsumeBool());
  } else if (type == "string") {
    if (allowed != nullptr && allowed->list().s_size() > 0 &&
        fdp.ConsumeIntegralInRange<int>(0, 7) != 0) {
      const auto& list = allowed->list().s();
      value->set_s(list[fdp.ConsumeIntegralInRange<int>(0, list.size() - 1)]);
    } else {
      static constexpr const char* kStrings[] = {
          "SAME", "VALID", "EXPLICIT", "NHWC", "NCHW", "", "x"};
      value->set_s(fdp.PickValueInArray(kStrings));
    }
  } else if (type == "shape") {
    if (fdp.ConsumeIntegralInRange<int>(0, 4) == 0) {
      value->mutable_shape()->set_unknown_rank(true);
    } else {
      const int rank = fdp.ConsumeIntegralInRange<int>(0, 4);
      for (int i = 0; i < rank; ++i) {
        value->mutable_shape()->add_dim()->set_size(
            fdp.ConsumeIntegralInRange<int64_t>(-1, 4));
      }
    }
  } else if (type == "tensor") {
    TensorProto* t = value->mutable_tensor();
    t->set_dtype(DT_FLOAT);
    const int n = fdp.ConsumeIntegralInRange<int>(0, 4);
    t->mutable_tensor_shape()->add_dim()->set_size(n);
    for (int i = 0; i < n; ++i) t->add_float_val(fdp.ConsumeIntegral<int8_t>());
  } else if (type == "list(shape)" || type == "list(string)" ||
             type == "list(float)" || type == "list(bool)") {
    value->mutable_list();  // empty list
  }
  // func and other kinds stay unset: validation reports them.
}

// A small tensor of `dtype`: rank 0-4, dims 0-4, values in [-3, 5].
void PickTensor(FuzzedDataProvider& fdp, DataType dtype, TensorProto* t) {
  t->set_dtype(dtype);
  const int rank = fdp.ConsumeIntegralInRange<int>(0, 4);
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
    t->mutable_tensor_shape()->add_dim()->set_size(d);
    count *= d;
  }
  for (int64_t i = 0; i < count; ++i) {
    const int v = fdp.ConsumeIntegralInRange<int>(-3, 5);
    switch (dtype) {
      case DT_FLOAT:
        t->add_float_val(v * 0.75f);
        break;
      case DT_DOUBLE:
        t->add_double_val(v * 0.75);
        break;
      case DT_INT64:
        t->add_int64_val(v);
        break;
      case DT_BOOL:
        t->add_bool_val(v > 0);
        break;
      case DT_STRING:
        t->add_string_val(std::string(v < 0 ? 0 : v, 'a'));
        break;
      case DT_HALF:
      case DT_BFLOAT16:
        t->add_half_val(0x3c00);
        break;
      default:
        t->add_int_val(v);
        break;  // int32, int16, int8, uint8, ...
    }
  }
}

}  // namespace
}  // namespace minflow

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  minflow::fuzzing::LimitHostMemory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace minflow;
  FuzzedDataProvider fdp(data, size);
  const std::vector<std::string>& ops = CpuOps();
  if (ops.empty()) return 0;
  const std::string& op =
      ops[fdp.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];
  const OpDef* op_def = nullptr;
  if (!OpRegistry::Global()->LookUpOpDef(op, &op_def).ok()) return 0;

  NodeDef node;
  node.set_name("op");
  node.set_op(op);
  for (const OpDef::AttrDef& attr : op_def->attr()) {
    // Mostly set; sometimes left to the default (or missing).
    if (fdp.ConsumeIntegralInRange<int>(0, 3) == 0) continue;
    AttrValue value;
    PickAttr(fdp, attr, &value);
    (*node.mutable_attr())[attr.name()] = value;
  }
  // Number attrs bound how many inputs get made.
  for (const OpDef::ArgDef& arg : op_def->input_arg()) {
    if (arg.number_attr().empty()) continue;
    auto& n = (*node.mutable_attr())[arg.number_attr()];
    n.set_i(fdp.ConsumeIntegralInRange<int64_t>(0, 4));
  }
  AddDefaultsToNodeDef(*op_def, &node);
  DataTypeVector inputs, outputs;
  if (!InOutTypesForNode(node, *op_def, &inputs, &outputs).ok() ||
      inputs.size() > 16) {
    return 0;
  }

  GraphDef graph;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeDef* in = graph.add_node();
    in->set_name(absl::StrCat("in", i));
    in->set_op("Const");
    const DataType dtype = BaseType(inputs[i]);
    (*in->mutable_attr())["dtype"].set_type(dtype);
    PickTensor(fdp, dtype, (*in->mutable_attr())["value"].mutable_tensor());
    node.add_input(in->name());
  }
  *graph.add_node() = node;
  std::vector<std::string> fetches;
  // The first outputs only: an op whose count attr is huge (Split's
  // num_split = 2^20) would otherwise make as many fetch nodes.
  for (size_t i = 0; i < std::min<size_t>(outputs.size(), 16); ++i) {
    fetches.push_back(absl::StrCat("op:", i));
  }
  std::vector<Tensor> results;
  Status s = fuzzing::RunGraph(graph, {}, fetches, &results);
  // A successful run returns one tensor per fetch, of the declared dtype.
  if (s.ok()) {
    if (results.size() != fetches.size()) __builtin_trap();
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i].dtype() != BaseType(outputs[i])) __builtin_trap();
    }
  }
  return 0;
}
